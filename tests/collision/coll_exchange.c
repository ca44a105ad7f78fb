static const char help[] = "The ghost exchange of the pair operator (pairs partition) alone, with the exchange -bte_exchange chooses:\n"
                           "the forward exchange (owned values and ghosts into the local vector) and the reverse one (the ghosts'\n"
                           "sums into their owners' receive slots, added in rank order) against PETSc's VecScatter to the bit;\n"
                           "with -reps N the median time of each (synchronised, largest rank) and the bytes each rank sends;\n"
                           "-both: the timing again with PETSc's VecScatter (-bte_exchange scatter) in the same run;\n"
                           "-stall_ms M: 8 forward exchanges back to back with the values changed between them, the last rank\n"
                           "sleeping M ms on the host before each, every one to the bit against the VecScatter's.\n"
                           "A synthetic BTE, or a model with -bte_model.\n";

#include "synth.h"
#include "compare.h"
#include <bte/private/collisionimpl.h>
#include <unistd.h>
#if defined(BTE_HAVE_CUDA)
  #include <petscdevice.h>
#endif

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#endif
  PetscFunctionReturn(0);
}

static int CmpDouble(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* forward (which = 0) or reverse (1) exchange, as the operator does it */
static PetscErrorCode Exchange(BTECollision coll, int which, Vec f, Vec fl, Vec yl, Vec y)
{
  PetscFunctionBegin;
  if (which == 0) {
    PetscCall(BTECollisionGhostBegin(coll, f, fl));
    PetscCall(BTECollisionGhostEnd(coll, f, fl));
  } else {
    PetscCall(VecZeroEntries(y));
    PetscCall(BTECollisionReverseBegin(coll, yl, y));
    PetscCall(BTECollisionReverseEnd(coll, yl, NULL, y));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  BTE         bte;
  BTECollision coll;
  char        model[64] = "";
  PetscBool   hasmodel, both = PETSC_FALSE;
  PetscInt    reps = 0, stall = 0;
  PetscMPIInt size, rank;
  Vec         f, y, yref, fl, flref, yl;
  PetscReal   r;
  const char *desc;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-stall_ms", &stall, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), &hasmodel));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-both", &both, NULL));
  if (hasmodel) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetUp(bte));
  } else PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTECollisionCreate(bte, &coll));
  PetscCall(BTECollisionSetType(coll, BTECOLLISIONPAIR));
  PetscCall(BTECollisionSetPartition(coll, BTE_COLLISION_PARTITION_PAIRS));
  PetscCall(BTECollisionSetFromOptions(coll));
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &y));
  PetscCall(VecDuplicate(f, &yref));
  PetscCall(SynthFillVec(f, 31));
  PetscCall(BTECollisionExchangeDescribe(coll, f, &desc));
  PetscCall(PetscPrintf(comm, "%d rank(s), %" PetscInt_FMT " states; ghost exchange: %s\n", size, coll->N, desc));

  /* forward: the local vector against the VecScatter's */
  flref = fl = yl = NULL;
  PetscCall(BTECollisionGetLocalVec(coll, f, &fl));
  PetscCall(BTECollisionGetLocalVec(coll, f, &flref));
  PetscCall(BTECollisionGetLocalVec(coll, f, &yl));
  PetscCall(VecSet(fl, -1.0));
  PetscCall(Exchange(coll, 0, f, fl, NULL, NULL));
  PetscCall(VecScatterBegin(coll->scatter, f, flref, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(coll->scatter, f, flref, INSERT_VALUES, SCATTER_FORWARD));
  {
    PetscReal loc, mx;
    PetscCall(VecAXPY(flref, -1.0, fl));
    PetscCall(VecNorm(flref, NORM_INFINITY, &loc));
    PetscCallMPI(MPI_Allreduce(&loc, &mx, 1, MPIU_REAL, MPI_MAX, comm));
    PetscCall(Check(comm, "forward exchange vs VecScatter: max |difference|", mx, 0));
  }
  /* reverse (several ranks): every local entry a distinct value; the owners' sums against the VecScatter's */
  if (size > 1) {
    PetscScalar *a;
    PetscInt     n;
    PetscCall(VecGetLocalSize(yl, &n));
    PetscCall(VecGetArrayWrite(yl, &a));
    for (PetscInt i = 0; i < n; i++) a[i] = SynthOccupation(41, i < coll->nlocal ? coll->rstart + i : coll->N + coll->ghosts[i - coll->nlocal] + 7 * coll->rstart);
    PetscCall(VecRestoreArrayWrite(yl, &a));
    PetscCall(Exchange(coll, 1, NULL, NULL, yl, y));
  }
  if (size > 1) {
    /* the reference: the same slots through the VecScatter, added on the host in rank order */
    const PetscScalar *rb;
    PetscScalar       *v;
    Vec                rhost;
    PetscCall(VecCreateMPI(comm, coll->nrrecv, PETSC_DETERMINE, &rhost));
    PetscCall(VecScatterBegin(coll->rscatter, yl, rhost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(coll->rscatter, yl, rhost, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(rhost, &rb));
    PetscCall(VecGetArrayWrite(yref, &v));
    for (PetscInt s = 0; s < coll->nlocal; s++) {
      PetscScalar acc = 0;
      for (PetscInt64 k = coll->rptr[s]; k < coll->rptr[s + 1]; k++) acc += rb[k];
      v[s] = acc;
    }
    PetscCall(VecRestoreArrayWrite(yref, &v));
    PetscCall(VecRestoreArrayRead(rhost, &rb));
    PetscCall(VecDestroy(&rhost));
    PetscCall(RelDiff(y, yref, &r));
    PetscCall(Check(comm, "reverse exchange vs VecScatter: max |difference| / max", r, 0));
  }
  /* -stall_ms: the exchanges of several rounds in flight at once while one rank lags on the host; a
     sender that did not wait for its destination to copy a round out would overwrite it */
  if (stall > 0 && size > 1) {
    enum { ROUNDS = 8 };
    Vec       fs, fk[ROUNDS] = {NULL};
    PetscReal loc = 0, mx;
    PetscCall(VecDuplicate(f, &fs));
    PetscCall(VecCopy(f, fs));
    for (int k = 0; k < ROUNDS; k++) {
      PetscCall(VecShift(fs, 1.0));
      PetscCall(BTECollisionGetLocalVec(coll, fs, &fk[k]));
      if (rank == size - 1) usleep((useconds_t)(1000 * stall));
      PetscCall(Exchange(coll, 0, fs, fk[k], NULL, NULL));
    }
    PetscCall(VecScatterBegin(coll->scatter, f, flref, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(coll->scatter, f, flref, INSERT_VALUES, SCATTER_FORWARD));
    for (int k = 0; k < ROUNDS; k++) {
      PetscReal d;
      PetscCall(VecShift(flref, 1.0)); /* the same additions as fs's, so the same bits */
      PetscCall(VecAXPY(fk[k], -1.0, flref));
      PetscCall(VecNorm(fk[k], NORM_INFINITY, &d));
      loc = PetscMax(loc, d);
      PetscCall(VecDestroy(&fk[k]));
    }
    PetscCallMPI(MPI_Allreduce(&loc, &mx, 1, MPIU_REAL, MPI_MAX, comm));
    PetscCall(Check(comm, "8 forward exchanges in flight, one rank lagging: max |difference|", mx, 0));
    PetscCall(VecDestroy(&fs));
  }
  for (int pass = 0; reps > 0 && pass < (both ? 2 : 1); pass++) {
    double *t, t0, t1, med[2];
    double  loc[2] = {8.0 * (double)coll->nghost, 8.0 * (double)coll->nrsend}, mx[2];
    if (pass == 1) { /* the same lists through PETSc's VecScatter */
      PetscCall(BTECollisionExchangeReset_Private(coll));
      coll->exchange = BTE_COLLISION_EXCHANGE_SCATTER;
      PetscCall(BTECollisionExchangeDescribe(coll, f, &desc));
      PetscCall(PetscPrintf(comm, "ghost exchange: %s\n", desc));
    }
    PetscCall(PetscMalloc1(reps, &t));
    med[1] = 0;
    for (int which = 0; which < (size > 1 ? 2 : 1); which++) {
      for (PetscInt k = 0; k < 3; k++) PetscCall(Exchange(coll, which, f, fl, yl, y));
      for (PetscInt k = 0; k < reps; k++) {
        PetscCallMPI(MPI_Barrier(comm));
        PetscCall(Sync());
        PetscCall(PetscTime(&t0));
        PetscCall(Exchange(coll, which, f, fl, yl, y));
        PetscCall(Sync());
        PetscCall(PetscTime(&t1));
        t[k] = t1 - t0;
      }
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, t, (PetscMPIInt)reps, MPI_DOUBLE, MPI_MAX, comm));
      qsort(t, reps, sizeof(*t), CmpDouble);
      med[which] = t[reps / 2];
    }
    PetscCallMPI(MPI_Allreduce(loc, mx, 2, MPI_DOUBLE, MPI_MAX, comm));
    PetscCall(PetscPrintf(comm, "exchange times (median of %" PetscInt_FMT ", largest rank): forward %.4f ms, reverse %.4f ms; bytes received per rank (largest): forward %.0f, reverse sent %.0f\n", reps, 1e3 * med[0], 1e3 * med[1], mx[0], mx[1]));
    PetscCall(PetscFree(t));
  }
  PetscCall(VecDestroy(&fl));
  PetscCall(VecDestroy(&flref));
  PetscCall(VecDestroy(&yl));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&yref));
  PetscCall(BTECollisionDestroy(&coll));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
