/* The reverse exchange of the pairs partition: the sums a rank computed for its ghost states go
   to the owners of those states, and each owner adds them in a fixed order.

   A reverse VecScatter with ADD_VALUES would add the contributions of several ranks to one state
   in whatever order the messages (or, on the device, the atomics of PETSc's unpack kernel) come,
   so repeated applies could differ in the last bits. Here the contributions are not added in the
   exchange: every (state, sending rank) has a slot of its own in a receive Vec (a forward
   VecScatter with INSERT_VALUES onto distinct slots, so PETSc moves host or device buffers as it
   does for the ghost values), the slots of a state are contiguous and ordered by sending rank,
   and the owner adds them to its own sum in that order: y[s] = own[s] + sum_k rbuf[rptr[s] + k].
   The result is bitwise the same from one apply to the next, on any rank count.

   Only the ghosts that receive a contribution (a computed pair touches them) are sent; the others
   would send zeros. The receive side is set up once from the senders' lists (two MPI_Alltoallv). */
#include <bte/private/collisionimpl.h>
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisioncuda.h>
#endif

PetscErrorCode BTECollisionReverseSetUp_Private(BTECollision coll, const PetscBool sends[])
{
  MPI_Comm     comm;
  PetscMPIInt  size, *scnt, *rcnt, *sdsp, *rdsp;
  PetscInt     ns = 0, nr = 0, *sidx, *ridx, *spos, *rpos, *from, *to, *cur, *off;
  PetscInt64  *rptr;
  IS           isf, ist;
  Vec          tmpl;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)coll, &comm));
  size = coll->psize;
  PetscCall(BTECollisionReverseReset_Private(coll));
  PetscCall(PetscCalloc4(size, &scnt, size, &rcnt, size + 1, &sdsp, size + 1, &rdsp));
  for (PetscInt g = 0; g < coll->nghost; g++)
    if (sends[g]) {
      scnt[BTECollOwner(coll, coll->ghosts[g])]++;
      ns++;
    }
  PetscCallMPI(MPI_Alltoall(scnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    sdsp[r + 1] = sdsp[r] + scnt[r];
    rdsp[r + 1] = rdsp[r] + rcnt[r];
  }
  nr = rdsp[size];
  PetscCall(PetscMalloc4(PetscMax(ns, 1), &sidx, PetscMax(nr, 1), &ridx, PetscMax(ns, 1), &spos, PetscMax(nr, 1), &rpos));
  PetscCall(PetscMalloc2(PetscMax(ns, 1), &from, PetscMax(ns, 1), &to));
  /* the ghosts are sorted by global index, so those of one owner are contiguous and in owner order */
  ns = 0;
  for (PetscInt g = 0; g < coll->nghost; g++)
    if (sends[g]) {
      from[ns]   = coll->nlocal + g;
      sidx[ns++] = coll->ghosts[g];
    }
  PetscCallMPI(MPI_Alltoallv(sidx, scnt, sdsp, MPIU_INT, ridx, rcnt, rdsp, MPIU_INT, comm));
  /* slots by owned state, and within a state by sending rank (received in rank order) */
  PetscCall(PetscCalloc1(coll->nlocal + 1, &rptr));
  for (PetscInt k = 0; k < nr; k++) {
    PetscInt s = ridx[k] - coll->rstart;
    PetscCheck(s >= 0 && s < coll->nlocal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Reverse exchange: received state %" PetscInt_FMT " is not owned here", ridx[k]);
    rptr[s + 1]++;
  }
  for (PetscInt s = 0; s < coll->nlocal; s++) rptr[s + 1] += rptr[s];
  PetscCall(PetscMalloc1(coll->nlocal + 1, &cur));
  for (PetscInt s = 0; s < coll->nlocal; s++) cur[s] = (PetscInt)rptr[s];
  for (PetscInt k = 0; k < nr; k++) rpos[k] = cur[ridx[k] - coll->rstart]++;
  PetscCall(PetscFree(cur));
  /* each sender learns its slots in the owners' receive blocks */
  PetscCallMPI(MPI_Alltoallv(rpos, rcnt, rdsp, MPIU_INT, spos, scnt, sdsp, MPIU_INT, comm));
  PetscCall(PetscMalloc1(size + 1, &off));
  {
    PetscInt mine = nr;
    PetscCallMPI(MPI_Allgather(&mine, 1, MPIU_INT, off + 1, 1, MPIU_INT, comm));
    off[0] = 0;
    for (PetscMPIInt r = 0; r < size; r++) off[r + 1] += off[r];
  }
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt k = sdsp[r]; k < sdsp[r + 1]; k++) to[k] = off[r] + spos[k];
  PetscCall(PetscFree(off));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ns, from, PETSC_COPY_VALUES, &isf));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, ns, to, PETSC_COPY_VALUES, &ist));
  PetscCall(VecCreateMPI(comm, nr, PETSC_DETERMINE, &tmpl));
  PetscCall(VecScatterCreate(coll->fl, isf, tmpl, ist, &coll->rscatter));
  PetscCall(VecDestroy(&tmpl));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  coll->nrsend = ns;
  coll->nrrecv = nr;
  coll->rptr   = rptr;
  /* kept for an exchange that moves the same values itself (NCCL, exchange.c) */
  coll->rscnt = scnt;
  coll->rsdsp = sdsp;
  coll->rrcnt = rcnt;
  coll->rrdsp = rdsp;
  PetscCall(PetscMalloc2(PetscMax(ns, 1), &coll->rfrom, PetscMax(nr, 1), &coll->rpos));
  PetscCall(PetscArraycpy(coll->rfrom, from, ns));
  PetscCall(PetscArraycpy(coll->rpos, rpos, nr));
  PetscCall(PetscFree2(from, to));
  PetscCall(PetscFree4(sidx, ridx, spos, rpos));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionReverseReset_Private(BTECollision coll)
{
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&coll->rscatter));
  PetscCall(VecDestroy(&coll->rbuf));
  PetscCall(PetscFree(coll->rptr));
  PetscCall(PetscFree4(coll->rscnt, coll->rrcnt, coll->rsdsp, coll->rrdsp));
  PetscCall(PetscFree2(coll->rfrom, coll->rpos));
  PetscCall(BTECollisionExchangeReset_Private(coll));
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollCUDAReverseDestroy(&coll->rcuda));
#endif
  coll->nrsend = coll->nrrecv = 0;
  PetscFunctionReturn(0);
}

/* The receive Vec, of the type of y (host or CUDA); collective when it has to be (re)made. */
static PetscErrorCode ReverseGetRecvVec(BTECollision coll, Vec y)
{
  PetscBool cuda = PETSC_FALSE, same = PETSC_FALSE;
  VecType   want;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollisionVecIsCUDA(y, &cuda));
#endif
  want = cuda ? VECMPICUDA : VECMPI;
  if (coll->rbuf) PetscCall(PetscObjectTypeCompare((PetscObject)coll->rbuf, want, &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(VecDestroy(&coll->rbuf));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)coll), &coll->rbuf));
  PetscCall(VecSetSizes(coll->rbuf, coll->nrrecv, PETSC_DETERMINE));
  PetscCall(VecSetType(coll->rbuf, want));
  PetscFunctionReturn(0);
}

/* Starts sending the ghost entries of the local vector yl (owned + ghosts) to their owners; yl
   must not change until BTECollisionReverseEnd(). */
PetscErrorCode BTECollisionReverseBegin(BTECollision coll, Vec yl, Vec y)
{
  PetscFunctionBegin;
  PetscCheck(coll->rscatter, PETSC_COMM_SELF, PETSC_ERR_ORDER, "The reverse exchange is set up by the pairs partition only");
  PetscCall(ReverseGetRecvVec(coll, y));
  PetscCall(BTECollisionExchangeSelect_Private(coll, y));
  PetscCall(PetscLogEventBegin(BTECOLL_GhostAdd, coll, yl, y, 0));
#if defined(BTE_HAVE_CUDA)
  if (coll->xsel == 2) { /* NCCL, for CUDA Vecs */
    PetscBool cuda;
    PetscCall(BTECollisionVecIsCUDA(y, &cuda));
    if (cuda) {
      if (coll->xwork) { /* the transfers wait for BTECollisionReversePost */
        PetscCall(BTECollNCCLReverseMark(coll->nccl, yl));
        coll->xrpend = PETSC_TRUE;
        coll->xryl   = yl;
      } else PetscCall(BTECollNCCLReverseBegin(coll->nccl, yl));
      PetscCall(PetscLogEventEnd(BTECOLL_GhostAdd, coll, yl, y, 0));
      PetscFunctionReturn(0);
    }
  }
#endif
  PetscCall(VecScatterBegin(coll->rscatter, yl, coll->rbuf, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventEnd(BTECOLL_GhostAdd, coll, yl, y, 0));
  PetscFunctionReturn(0);
}

/* With -bte_exchange_work_first and NCCL, queues the transfers that Begin only marked; else nothing. */
PetscErrorCode BTECollisionReversePost(BTECollision coll)
{
  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (coll->xrpend) PetscCall(BTECollNCCLReversePost(coll->nccl, coll->xryl));
#endif
  coll->xrpend = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Ends the exchange and sets y[s] = own[s] + the contributions of the other ranks to s, in rank
   order; own is a local vector (its first nlocal entries), or NULL when y already holds them. */
PetscErrorCode BTECollisionReverseEnd(BTECollision coll, Vec yl, Vec own, Vec y)
{
  PetscBool cuda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_GhostAdd, coll, yl, y, 0));
  PetscCall(BTECollisionReversePost(coll));
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollisionVecIsCUDA(y, &cuda));
  if (cuda && coll->xsel == 2) PetscCall(BTECollNCCLReverseEnd(coll->nccl, coll->rbuf));
  else
#endif
    PetscCall(VecScatterEnd(coll->rscatter, yl, coll->rbuf, INSERT_VALUES, SCATTER_FORWARD));
#if defined(BTE_HAVE_CUDA)
  if (cuda) PetscCall(BTECollCUDAReverseAdd(&coll->rcuda, coll->nlocal, coll->rptr, own, coll->rbuf, y));
#endif
  if (!cuda) PetscCall(BTECollisionReverseAddHost_Private(coll, own, y));
  PetscCall(PetscLogFlops((PetscLogDouble)coll->nrrecv));
  PetscCall(PetscLogEventEnd(BTECOLL_GhostAdd, coll, yl, y, 0));
  PetscFunctionReturn(0);
}

/* Host Vecs, the receive slots filled: y[s] = own[s] (or y[s]) + the slots of s in rank order */
PetscErrorCode BTECollisionReverseAddHost_Private(BTECollision coll, Vec own, Vec y)
{
  const PetscScalar *o = NULL, *r;
  PetscScalar       *v;
  const PetscInt64  *rptr = coll->rptr;

  PetscFunctionBegin;
  if (own) PetscCall(VecGetArrayRead(own, &o));
  PetscCall(VecGetArrayRead(coll->rbuf, &r));
  if (own) PetscCall(VecGetArrayWrite(y, &v));
  else PetscCall(VecGetArray(y, &v));
#pragma omp parallel for schedule(static)
  for (PetscInt s = 0; s < coll->nlocal; s++) {
    PetscScalar a = o ? o[s] : v[s];
    for (PetscInt64 k = rptr[s]; k < rptr[s + 1]; k++) a += r[k];
    v[s] = a;
  }
  if (own) PetscCall(VecRestoreArrayWrite(y, &v));
  else PetscCall(VecRestoreArray(y, &v));
  PetscCall(VecRestoreArrayRead(coll->rbuf, &r));
  if (own) PetscCall(VecRestoreArrayRead(own, &o));
  PetscFunctionReturn(0);
}

/* The receive slots as a host array to fill (made if needed; collective then) */
PetscErrorCode BTECollisionReverseGetSlots_Private(BTECollision coll, Vec y, PetscScalar **slots)
{
  PetscFunctionBegin;
  PetscCall(ReverseGetRecvVec(coll, y));
  PetscCall(VecGetArrayWrite(coll->rbuf, slots));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionReverseRestoreSlots_Private(BTECollision coll, PetscScalar **slots)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayWrite(coll->rbuf, slots));
  PetscFunctionReturn(0);
}
