static const char help[] = "CPU vs CUDA collision operator on a synthetic random BTE (tests/collision/synth.h) or a model\n"
                           "(-bte_model): I[f], J(f) x and diag J for tgt, fused, pair (both also with mixed precision), each\n"
                           "on standard and on CUDA Vecs through the same BTECollision. Asserts agreement to -tol\n"
                           "(1e-12, max-norm relative), that the CUDA kernels ran (GPU flops logged) and, on one rank,\n"
                           "that no host<->device copy happened in the applies. -reps N times N applies of each.\n";

#include "../collision/synth.h"
#include <bte/private/collisionimpl.h>

/* PETSc's device counters exist only in a PETSc with device support (the test needs CUDA anyway) */
#if defined(PETSC_HAVE_DEVICE)
  #define GPU_FLOPS petsc_gflops
  #define GTOC_CT   petsc_gtoc_ct
  #define CTOG_CT   petsc_ctog_ct
#else
  #define GPU_FLOPS 0.0
  #define GTOC_CT   0.0
  #define CTOG_CT   0.0
#endif

/* max|a - b| / max|b| (a, b of any types; compared on the host) */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *r)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscReal          d = 0, m = 0, gl[2], lo[2];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    d = PetscMax(d, PetscAbsScalar(x[i] - y[i]));
    m = PetscMax(m, PetscAbsScalar(y[i]));
    if (PetscIsNanScalar(x[i])) d = PETSC_MAX_REAL;
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  lo[0] = d;
  lo[1] = m;
  PetscCall(MPIU_Allreduce(lo, gl, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *r = gl[1] > 0 ? gl[0] / gl[1] : gl[0];
  PetscFunctionReturn(0);
}

static PetscErrorCode Check(MPI_Comm comm, const char what[], PetscReal value, PetscReal tol)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(comm, "  %-52s %10.3e  (tol %.0e)\n", what, (double)value, (double)tol));
  PetscCheck(value <= tol && !PetscIsNanReal(value), comm, PETSC_ERR_PLIB, "FAILED: %s = %g > %g", what, (double)value, (double)tol);
  PetscFunctionReturn(0);
}

/* dst (any type) <- src values, through the host */
static PetscErrorCode CopyValues(Vec src, Vec dst)
{
  const PetscScalar *s;
  PetscScalar       *d;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &s));
  PetscCall(VecGetArrayWrite(dst, &d));
  PetscCall(PetscArraycpy(d, s, n));
  PetscCall(VecRestoreArrayWrite(dst, &d));
  PetscCall(VecRestoreArrayRead(src, &s));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  BTE            bte;
  char           model[64] = "";
  PetscBool      hasmodel;
  PetscInt       N, nlocal, reps = 0;
  PetscInt64     nglob;
  PetscMPIInt    size;
  PetscReal      tol = 1e-12;
  Vec            fh, xh, fd, xd, Ih, Id, yh, yd, Gh, Gd, Iref = NULL;
  const char    *names[5] = {"tgt", "fused", "fused-mixed", "pair", "pair-mixed"};
  const char    *types[5] = {BTECOLLISIONTGT, BTECOLLISIONFUSED, BTECOLLISIONFUSED, BTECOLLISIONPAIR, BTECOLLISIONPAIR};
  PetscBool      mixed[5] = {PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE};
  VecType        vt;
  PetscBool      iscuda;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), &hasmodel));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  if (hasmodel) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetUp(bte));
  } else PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTEGetNumStates(bte, &nlocal, &N));
  PetscCall(BTEGetNumChannels(bte, NULL, &nglob));
  PetscCall(PetscPrintf(comm, "BTE: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels, %d rank(s)\n", N, nglob, size));
  PetscCheck(nglob > 0, comm, PETSC_ERR_PLIB, "no channels");

  /* host Vecs (VECMPI) and device Vecs (CUDA) with the same values */
  PetscCall(VecCreateMPI(comm, nlocal, N, &fh));
  PetscCall(VecDuplicate(fh, &xh));
  PetscCall(VecDuplicate(fh, &Ih));
  PetscCall(VecDuplicate(fh, &yh));
  PetscCall(VecDuplicate(fh, &Gh));
  PetscCall(SynthFillVec(fh, 11));
  PetscCall(SynthFillVec(xh, 12));
  PetscCall(VecScale(xh, 1e-2));
  PetscCall(VecCreate(comm, &fd));
  PetscCall(VecSetSizes(fd, nlocal, N));
  PetscCall(VecSetType(fd, VECCUDA));
  PetscCall(VecGetType(fd, &vt));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)fd, &iscuda, VECSEQCUDA, VECMPICUDA, ""));
  PetscCheck(iscuda, comm, PETSC_ERR_SUP, "no CUDA Vecs (type %s): this test needs a PETSc configured with CUDA", vt);
  PetscCall(PetscPrintf(comm, "device Vec type: %s\n", vt));
  PetscCall(VecDuplicate(fd, &xd));
  PetscCall(VecDuplicate(fd, &Id));
  PetscCall(VecDuplicate(fd, &yd));
  PetscCall(VecDuplicate(fd, &Gd));
  PetscCall(CopyValues(fh, fd));
  PetscCall(CopyValues(xh, xd));

  for (PetscInt k = 0; k < 5; k++) {
    BTECollision   coll;
    PetscLogDouble gf0, gf1, g2c0, g2c1, c2g0, c2g1, t0, t1;
    PetscReal      r;
    char           what[128];

    PetscCall(BTECollisionCreate(bte, &coll));
    PetscCall(BTECollisionSetType(coll, types[k]));
    PetscCall(BTECollisionSetFromOptions(coll));
    coll->precision = mixed[k] ? BTE_COLLISION_PRECISION_MIXED : BTE_COLLISION_PRECISION_DOUBLE;
    PetscCall(BTECollisionSetUp(coll));
    PetscCall(PetscPrintf(comm, "%s:\n", names[k]));
    /* CPU */
    PetscCall(BTECollisionApply(coll, fh, Ih));
    PetscCall(BTECollisionJacobianApply(coll, fh, xh, yh));
    PetscCall(BTECollisionGetScatteringRates(coll, fh, Gh));
    /* GPU: a first apply uploads the layout; then count flops and copies over the applies */
    PetscCall(BTECollisionApply(coll, fd, Id));
    PetscCall(BTECollisionJacobianApply(coll, fd, xd, yd));
    PetscCall(BTECollisionGetScatteringRates(coll, fd, Gd));
    PetscCall(VecSet(Id, -7.0)); /* poison: every entry must be written */
    PetscCall(VecSet(yd, -7.0));
    PetscCall(VecSet(Gd, -7.0));
    g2c0 = GTOC_CT;
    c2g0 = CTOG_CT;
    gf0  = GPU_FLOPS; /* only the collision kernels log GPU flops in an apply */
    PetscCall(BTECollisionApply(coll, fd, Id));
    gf1 = GPU_FLOPS;
    PetscCall(BTECollisionJacobianApply(coll, fd, xd, yd));
    PetscCall(BTECollisionGetScatteringRates(coll, fd, Gd));
    g2c1 = GTOC_CT;
    c2g1 = CTOG_CT;
    PetscCall(PetscPrintf(comm, "  GPU flops logged in I[f]: %.0f; copies device->host %.0f, host->device %.0f (rank 0)\n", gf1 - gf0, g2c1 - g2c0, c2g1 - c2g0));
    PetscCheck(gf1 > gf0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "FAILED: no GPU flops logged: the %s applies did not run the CUDA kernels", names[k]);
    if (size == 1) PetscCheck(g2c1 == g2c0 && c2g1 == c2g0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "FAILED: %s applies copied between host and device (%.0f d->h, %.0f h->d)", names[k], g2c1 - g2c0, c2g1 - c2g0);
    PetscCall(RelDiff(Id, Ih, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "I[f]   GPU vs CPU, max rel. diff"));
    PetscCall(Check(comm, what, r, tol));
    PetscCall(RelDiff(yd, yh, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "J(f)x  GPU vs CPU, max rel. diff"));
    PetscCall(Check(comm, what, r, tol));
    PetscCall(RelDiff(Gd, Gh, &r));
    PetscCall(PetscSNPrintf(what, sizeof(what), "Gamma = -diag J GPU vs CPU, max rel. diff"));
    PetscCall(Check(comm, what, r, tol));
    if (!Iref) {
      PetscCall(VecDuplicate(fh, &Iref));
      PetscCall(VecCopy(Ih, Iref));
    } else {
      PetscCall(RelDiff(Id, Iref, &r));
      PetscCall(PetscSNPrintf(what, sizeof(what), "I[f]   GPU %s vs CPU tgt", names[k]));
      PetscCall(Check(comm, what, r, mixed[k] ? 1e-5 : 1e-11));
    }
    if (reps > 0) {
      PetscReal nrm;
      PetscCall(VecNorm(Id, NORM_2, &nrm)); /* sync */
      PetscCall(PetscTime(&t0));
      for (PetscInt i = 0; i < reps; i++) PetscCall(BTECollisionApply(coll, fd, Id));
      PetscCall(VecNorm(Id, NORM_2, &nrm));
      PetscCall(PetscTime(&t1));
      PetscCall(PetscPrintf(comm, "  GPU apply (ghost scatter included): %.3f ms each over %" PetscInt_FMT "\n", 1e3 * (t1 - t0) / reps, reps));
      PetscCall(PetscTime(&t0));
      for (PetscInt i = 0; i < reps; i++) PetscCall(BTECollisionApply(coll, fh, Ih));
      PetscCall(PetscTime(&t1));
      PetscCall(PetscPrintf(comm, "  CPU apply: %.3f ms each over %" PetscInt_FMT "\n", 1e3 * (t1 - t0) / reps, reps));
    }
    PetscCall(BTECollisionDestroy(&coll));
  }
  PetscCall(PetscPrintf(comm, "all CPU/GPU comparisons passed\n"));
  PetscCall(VecDestroy(&Iref));
  PetscCall(VecDestroy(&fh));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&Ih));
  PetscCall(VecDestroy(&yh));
  PetscCall(VecDestroy(&Gh));
  PetscCall(VecDestroy(&fd));
  PetscCall(VecDestroy(&xd));
  PetscCall(VecDestroy(&Id));
  PetscCall(VecDestroy(&yd));
  PetscCall(VecDestroy(&Gd));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
