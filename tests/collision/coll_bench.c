static const char help[] = "Times the collision operator implementations on a synthetic BTE (or a model with -bte_model):\n"
                           "setup, I[f] and J(f) x per apply, in ms and in wall and CPU (all ranks and threads) ns per (distinct)\n"
                           "channel; layout bytes per channel;\n"
                           "the largest relative difference of I from the first type.\n"
                           "  -types baseline,tgt,fused,fused:mixed  -reps 10\n";

#include "synth.h"
#include <time.h>
#include <bte/private/collisionimpl.h>

/* CPU time of the process (all threads), s: less sensitive than wall time to other jobs on shared cores */
static double CPUSeconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  BTE         bte;
  char       *types[8], model[64] = "";
  PetscInt    ntypes = 8, reps = 10, nthreads = 1;
  PetscBool   flg, hasmodel;
  PetscInt64  nglob;
  PetscMPIInt size;
  Vec         f, x, Iv, ref = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, &flg));
  if (!flg) {
    const char *def[4] = {"baseline", "tgt", "fused", "fused:mixed"};
    ntypes             = 4;
    for (PetscInt k = 0; k < 4; k++) PetscCall(PetscStrallocpy(def[k], &types[k]));
  }
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), &hasmodel));
#if defined(_OPENMP)
  {
    extern int omp_get_max_threads(void);
    nthreads = omp_get_max_threads();
  }
#endif
  if (hasmodel) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetUp(bte));
  } else PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTEGetNumChannels(bte, NULL, &nglob));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(VecDuplicate(f, &Iv));
  PetscCall(SynthFillVec(f, 11));
  PetscCall(SynthFillVec(x, 12));
  PetscCall(PetscPrintf(comm, "%" PetscInt64_FMT " channels, %d rank(s) x %" PetscInt_FMT " thread(s), %" PetscInt_FMT " repetitions\n", nglob, size, nthreads, reps));
  PetscCall(PetscPrintf(comm, "%-12s %8s %9s %9s %9s %9s %9s %9s %9s %12s\n", "type", "setup s", "I ms", "ns/ch", "cpu ns/ch", "J x ms", "ns/ch", "cpu ns/ch", "B/ch", "max rel diff"));
  for (PetscInt k = 0; k < ntypes; k++) {
    BTECollision   coll;
    char          *colon;
    double         t0, c0, tsetup, tapply, tjac, capply, cjac, cbuf[2], csum[2];
    Vec            y;
    PetscLogDouble bytes, btot;
    PetscReal      diff = 0;

    PetscCall(BTECollisionCreate(bte, &coll));
    PetscCall(BTECollisionSetFromOptions(coll));
    PetscCall(PetscStrchr(types[k], ':', &colon));
    if (colon) {
      *colon          = 0;
      coll->precision = BTE_COLLISION_PRECISION_MIXED;
    }
    PetscCall(BTECollisionSetType(coll, types[k]));
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    PetscCall(BTECollisionSetUp(coll));
    PetscCallMPI(MPI_Barrier(comm));
    tsetup = MPI_Wtime() - t0;
    PetscCall(BTECollisionApply(coll, f, Iv)); /* warm up */
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    c0 = CPUSeconds();
    for (PetscInt r = 0; r < reps; r++) PetscCall(BTECollisionApply(coll, f, Iv));
    capply = (CPUSeconds() - c0) / reps;
    PetscCallMPI(MPI_Barrier(comm));
    tapply = (MPI_Wtime() - t0) / reps;
    PetscCall(VecDuplicate(f, &y));
    PetscCall(BTECollisionJacobianApply(coll, f, x, y));
    PetscCallMPI(MPI_Barrier(comm));
    t0 = MPI_Wtime();
    c0 = CPUSeconds();
    for (PetscInt r = 0; r < reps; r++) PetscCall(BTECollisionJacobianApply(coll, f, x, y));
    cjac = (CPUSeconds() - c0) / reps;
    PetscCallMPI(MPI_Barrier(comm));
    tjac = (MPI_Wtime() - t0) / reps;
    PetscCall(VecDestroy(&y));
    if (!ref) {
      PetscCall(VecDuplicate(Iv, &ref));
      PetscCall(VecCopy(Iv, ref));
    } else {
      PetscReal nd, nr;
      PetscCall(VecAXPY(Iv, -1.0, ref));
      PetscCall(VecNorm(Iv, NORM_INFINITY, &nd));
      PetscCall(VecNorm(ref, NORM_INFINITY, &nr));
      diff = nd / nr;
    }
    PetscCall(BTECollisionGetInfo(coll, NULL, NULL, NULL, &bytes));
    PetscCallMPI(MPI_Allreduce(&bytes, &btot, 1, MPI_DOUBLE, MPI_SUM, comm));
    cbuf[0] = capply;
    cbuf[1] = cjac;
    PetscCallMPI(MPI_Allreduce(cbuf, csum, 2, MPI_DOUBLE, MPI_SUM, comm));
    PetscCall(PetscPrintf(comm, "%-12s %8.3f %9.3f %9.2f %9.2f %9.3f %9.2f %9.2f %9.1f %12.2e\n", colon ? "fused:mixed" : types[k], tsetup, 1e3 * tapply, 1e9 * tapply / (double)nglob, 1e9 * csum[0] / (double)nglob, 1e3 * tjac, 1e9 * tjac / (double)nglob, 1e9 * csum[1] / (double)nglob, btot / (double)nglob, (double)diff));
    PetscCall(BTECollisionDestroy(&coll));
  }
  PetscCall(VecDestroy(&ref));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&Iv));
  for (PetscInt k = 0; k < ntypes; k++) PetscCall(PetscFree(types[k]));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
