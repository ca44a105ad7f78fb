static const char help[] = "Checks of the collision operator on a synthetic random BTE (or a model with -bte_model):\n"
                           "conservation, agreement of baseline/tgt/fused/pair, Jacobian vs finite differences, shell vs\n"
                           "assembled Jacobian, diagonal, column sums, shift/scale, and rank-count independence\n"
                           "(-write FILE / -compare FILE).\n";

#include "synth.h"
#include <bte/private/collisionimpl.h>
#include "compare.h"

/* |sum v| / sum |v| */
static PetscErrorCode SumRatio(Vec v, PetscReal *r)
{
  PetscScalar s;
  PetscReal   n1;

  PetscFunctionBegin;
  PetscCall(VecSum(v, &s));
  PetscCall(VecNorm(v, NORM_1, &n1));
  *r = n1 > 0 ? PetscAbsScalar(s) / n1 : 0;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm         comm;
  BTE              bte;
  BTECollision     coll[6];
  const char      *types[6] = {BTECOLLISIONBASELINE, BTECOLLISIONTGT, BTECOLLISIONFUSED, BTECOLLISIONFUSED, BTECOLLISIONPAIR, BTECOLLISIONPAIR};
  const PetscBool  mixed[6] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_FALSE, PETSC_TRUE};
  Vec              f, x, Iv[6], y[6], fp, fm, Ip, Im, fd, e, col, d, d2, ones, z, G;
  Mat              Js, Ja;
  char             model[64] = "", wfile[PETSC_MAX_PATH_LEN] = "", cfile[PETSC_MAX_PATH_LEN] = "";
  PetscBool        hasmodel, haswrite, hascompare, view = PETSC_FALSE;
  PetscReal        r, h = 1e-3;
  PetscInt         N, nt = 6;
  PetscInt64       nglob;
  char             buf[128];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), &hasmodel));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write", wfile, sizeof(wfile), &haswrite));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-compare", cfile, sizeof(cfile), &hascompare));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-view", &view, NULL));
  if (hasmodel) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetUp(bte));
  } else PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTEGetNumStates(bte, NULL, &N));
  PetscCall(BTEGetNumChannels(bte, NULL, &nglob));
  PetscCall(PetscPrintf(comm, "BTE: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels\n", N, nglob));
  PetscCheck(nglob > 0, comm, PETSC_ERR_PLIB, "no channels");

  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(SynthFillVec(f, 11));
  PetscCall(SynthFillVec(x, 12));
  PetscCall(VecShift(x, -0.5));

  /* I[f] with each implementation: conservation */
  PetscCall(PetscPrintf(comm, "collision integral at random f:\n"));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCall(BTECollisionCreate(bte, &coll[k]));
    PetscCall(BTECollisionSetType(coll[k], types[k]));
    PetscCall(BTECollisionSetFromOptions(coll[k]));
    PetscCall(BTECollisionSetType(coll[k], types[k]));
    if (mixed[k]) coll[k]->precision = BTE_COLLISION_PRECISION_MIXED;
    PetscCall(BTECollisionSetUp(coll[k]));
    if (view) PetscCall(BTECollisionView(coll[k], PETSC_VIEWER_STDOUT_(comm)));
    PetscCall(VecDuplicate(f, &Iv[k]));
    PetscCall(VecDuplicate(f, &y[k]));
    PetscCall(BTECollisionApply(coll[k], f, Iv[k]));
    PetscCall(SumRatio(Iv[k], &r));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s%s: |sum I| / sum |I|", types[k], mixed[k] ? " (mixed)" : ""));
    PetscCall(Check(comm, buf, r, 1e-13));
  }
  PetscCall(RelDiff(Iv[0], Iv[2], &r));
  PetscCall(Check(comm, "baseline vs fused: max|dI| / max|I|", r, 1e-12));
  PetscCall(RelDiff(Iv[1], Iv[2], &r));
  PetscCall(Check(comm, "tgt vs fused: max|dI| / max|I|", r, 1e-12));
  PetscCall(RelDiff(Iv[3], Iv[2], &r));
  PetscCall(Check(comm, "fused mixed precision vs double: max|dI| / max|I|", r, 1e-5));
  PetscCall(RelDiff(Iv[4], Iv[2], &r));
  PetscCall(Check(comm, "pair vs fused: max|dI| / max|I|", r, 1e-12));
  PetscCall(RelDiff(Iv[5], Iv[2], &r));
  PetscCall(Check(comm, "pair mixed precision vs double: max|dI| / max|I|", r, 1e-5));

  /* Jacobian: directional derivative vs central differences (I is quadratic: exact up to rounding) */
  PetscCall(PetscPrintf(comm, "Jacobian:\n"));
  PetscCall(VecDuplicate(f, &fp));
  PetscCall(VecDuplicate(f, &fm));
  PetscCall(VecDuplicate(f, &Ip));
  PetscCall(VecDuplicate(f, &Im));
  PetscCall(VecDuplicate(f, &fd));
  PetscCall(VecWAXPY(fp, h, x, f));
  PetscCall(VecWAXPY(fm, -h, x, f));
  PetscCall(BTECollisionApply(coll[2], fp, Ip));
  PetscCall(BTECollisionApply(coll[2], fm, Im));
  PetscCall(VecWAXPY(fd, -1.0, Im, Ip));
  PetscCall(VecScale(fd, 0.5 / h));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCall(BTECollisionJacobianApply(coll[k], f, x, y[k]));
    PetscCall(RelDiff(y[k], fd, &r));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s%s: J x vs central difference (h = %g)", types[k], mixed[k] ? " (mixed)" : "", (double)h));
    PetscCall(Check(comm, buf, r, mixed[k] ? 1e-5 : 1e-9));
    PetscCall(SumRatio(y[k], &r));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s%s: column sums, |1^T J x| / sum |J x|", types[k], mixed[k] ? " (mixed)" : ""));
    PetscCall(Check(comm, buf, r, 1e-13));
  }
  PetscCall(RelDiff(y[0], y[2], &r));
  PetscCall(Check(comm, "baseline vs fused J x", r, 1e-12));
  PetscCall(RelDiff(y[1], y[2], &r));
  PetscCall(Check(comm, "tgt vs fused J x", r, 1e-12));
  PetscCall(RelDiff(y[4], y[2], &r));
  PetscCall(Check(comm, "pair vs fused J x", r, 1e-12));

  /* MATSHELL vs assembled AIJ */
  PetscCall(BTECollisionCreateJacobian(coll[2], &Js));
  PetscCall(BTECollisionSetJacobianAssembled(coll[2], PETSC_TRUE));
  PetscCall(BTECollisionCreateJacobian(coll[2], &Ja));
  PetscCall(BTECollisionComputeJacobian(coll[2], f, Js));
  PetscCall(BTECollisionComputeJacobian(coll[2], f, Ja));
  PetscCall(VecDuplicate(f, &z));
  PetscCall(MatMult(Js, x, z));
  PetscCall(RelDiff(z, y[2], &r));
  PetscCall(Check(comm, "MATSHELL MatMult vs BTECollisionJacobianApply", r, 1e-15));
  PetscCall(MatMult(Ja, x, z));
  PetscCall(RelDiff(z, y[2], &r));
  PetscCall(Check(comm, "assembled AIJ MatMult vs MATSHELL", r, 1e-12));
  PetscCall(VecDuplicate(f, &d));
  PetscCall(VecDuplicate(f, &d2));
  PetscCall(MatGetDiagonal(Js, d));
  PetscCall(MatGetDiagonal(Ja, d2));
  PetscCall(RelDiff(d2, d, &r));
  PetscCall(Check(comm, "assembled vs shell diagonal", r, 1e-12));
  /* the diagonal of baseline, tgt and pair, natively */
  for (PetscInt k = 0; k < 5; k++) {
    if (k == 2 || k == 3) continue;
    Mat Jk;
    PetscCall(BTECollisionCreateJacobian(coll[k], &Jk));
    PetscCall(BTECollisionComputeJacobian(coll[k], f, Jk));
    PetscCall(MatGetDiagonal(Jk, d2));
    PetscCall(RelDiff(d2, d, &r));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s vs fused diagonal", types[k]));
    PetscCall(Check(comm, buf, r, 1e-12));
    PetscCall(MatDestroy(&Jk));
  }
  /* diagonal vs J e_t on a few states */
  PetscCall(VecDuplicate(f, &e));
  PetscCall(VecDuplicate(f, &col));
  {
    PetscInt  ts[4] = {0, N / 3, N / 2, N - 1};
    PetscReal worst = 0, scale;
    PetscCall(VecNorm(d, NORM_INFINITY, &scale));
    for (PetscInt k = 0; k < 4; k++) {
      PetscScalar jt, dt;
      PetscCall(VecSet(e, 0.0));
      PetscCall(VecSetValue(e, ts[k], 1.0, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(e));
      PetscCall(VecAssemblyEnd(e));
      PetscCall(MatMult(Js, e, col));
      PetscCall(VecDot(col, e, &jt));
      PetscCall(VecDot(d, e, &dt));
      worst = PetscMax(worst, PetscAbsScalar(jt - dt) / scale);
    }
    PetscCall(Check(comm, "MatGetDiagonal vs (J e_t)_t on 4 states", worst, 1e-14));
  }
  /* scattering rates = -diag */
  PetscCall(VecDuplicate(f, &G));
  PetscCall(BTECollisionGetScatteringRates(coll[2], f, G));
  PetscCall(VecAXPY(G, 1.0, d));
  PetscCall(VecNorm(G, NORM_INFINITY, &r));
  {
    PetscReal nd;
    PetscCall(VecNorm(d, NORM_INFINITY, &nd));
    PetscCall(Check(comm, "scattering rates vs -diag J", r / nd, 1e-15));
  }
  /* column sums of the assembled matrix: J^T 1 = 0 */
  PetscCall(VecDuplicate(f, &ones));
  PetscCall(VecSet(ones, 1.0));
  PetscCall(MatMultTranspose(Ja, ones, z));
  {
    PetscReal n1, nz;
    PetscCall(MatNorm(Ja, NORM_1, &n1));
    PetscCall(VecNorm(z, NORM_INFINITY, &nz));
    PetscCall(Check(comm, "assembled: max|J^T 1| / ||J||_1", nz / n1, 1e-14));
  }
  /* shift and scale as TS uses them: -J + 2.5 I, then MatZeroEntries + MatShift(3) = 3 I */
  PetscCall(MatScale(Js, -1.0));
  PetscCall(MatShift(Js, 2.5));
  PetscCall(MatScale(Ja, -1.0));
  PetscCall(MatShift(Ja, 2.5));
  PetscCall(MatMult(Js, x, z));
  PetscCall(MatMult(Ja, x, col));
  PetscCall(RelDiff(z, col, &r));
  PetscCall(Check(comm, "shell vs assembled after MatScale(-1), MatShift(2.5)", r, 1e-12));
  PetscCall(VecWAXPY(col, -1.0, y[2], z)); /* z - Jx = 2 (-Jx) + 2.5 x  ... check z = -Jx + 2.5 x */
  PetscCall(VecAXPY(col, 2.0, y[2]));
  PetscCall(VecAXPY(col, -2.5, x));
  PetscCall(VecNorm(col, NORM_INFINITY, &r));
  {
    PetscReal ny;
    PetscCall(VecNorm(y[2], NORM_INFINITY, &ny));
    PetscCall(Check(comm, "shell: (-J + 2.5 I) x", r / ny, 1e-14));
  }
  PetscCall(MatGetDiagonal(Js, d2));
  PetscCall(MatGetDiagonal(Ja, z));
  PetscCall(RelDiff(d2, z, &r));
  PetscCall(Check(comm, "shell vs assembled diagonal after scale/shift", r, 1e-12));
  PetscCall(MatZeroEntries(Js));
  PetscCall(MatShift(Js, 3.0));
  PetscCall(MatMult(Js, x, z));
  PetscCall(VecAXPY(z, -3.0, x));
  PetscCall(VecNorm(z, NORM_INFINITY, &r));
  PetscCall(Check(comm, "shell: MatZeroEntries + MatShift(3) = 3 I", r, 4 * PETSC_MACHINE_EPSILON));
  PetscCall(BTECollisionComputeJacobian(coll[2], f, Js));
  PetscCall(MatMult(Js, x, z));
  PetscCall(RelDiff(z, y[2], &r));
  PetscCall(Check(comm, "shell after ComputeJacobian (shift/scale reset)", r, 1e-15));

  /* rank-count independence: write the 1-rank result, compare others against it */
  if (haswrite) {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(comm, wfile, FILE_MODE_WRITE, &v));
    PetscCall(VecView(Iv[2], v));
    PetscCall(VecView(y[2], v));
    PetscCall(PetscViewerDestroy(&v));
  }
  if (hascompare) {
    PetscViewer v;
    Vec         ref, refy;
    PetscCall(VecDuplicate(f, &ref));
    PetscCall(VecDuplicate(f, &refy));
    PetscCall(PetscViewerBinaryOpen(comm, cfile, FILE_MODE_READ, &v));
    PetscCall(VecLoad(ref, v));
    PetscCall(VecLoad(refy, v));
    PetscCall(PetscViewerDestroy(&v));
    for (PetscInt k = 0; k < 5; k++) {
      if (k == 3) continue;
      PetscCall(RelDiff(Iv[k], ref, &r));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: I vs the reference run", types[k]));
      PetscCall(Check(comm, buf, r, 1e-12));
      PetscCall(RelDiff(y[k], refy, &r));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s: J x vs the reference run", types[k]));
      PetscCall(Check(comm, buf, r, 1e-12));
    }
    PetscCall(VecDestroy(&ref));
    PetscCall(VecDestroy(&refy));
  }

  PetscCall(MatDestroy(&Js));
  PetscCall(MatDestroy(&Ja));
  for (PetscInt k = 0; k < nt; k++) {
    PetscCall(VecDestroy(&Iv[k]));
    PetscCall(VecDestroy(&y[k]));
    PetscCall(BTECollisionDestroy(&coll[k]));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&fm));
  PetscCall(VecDestroy(&Ip));
  PetscCall(VecDestroy(&Im));
  PetscCall(VecDestroy(&fd));
  PetscCall(VecDestroy(&e));
  PetscCall(VecDestroy(&col));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&d2));
  PetscCall(VecDestroy(&ones));
  PetscCall(VecDestroy(&z));
  PetscCall(VecDestroy(&G));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(comm, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
