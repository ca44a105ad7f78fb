/* How the ghost values (forward) and the ghosts' sums of the pairs partition (reverse) travel
   between ranks: PETSc's VecScatter, or NCCL or CUDA IPC between the ranks' GPUs (-bte_exchange).

   The choice is made once, collectively, the first time the operator meets a CUDA Vec (the apply,
   or a view): auto takes CUDA IPC where it can run well (several ranks, all on one host, no two on
   one GPU, peer access between their GPUs), else NCCL where it can run (no two ranks on one GPU, the
   library loads on every rank), and says why not otherwise; -bte_exchange nccl where it cannot run
   is an error. -bte_exchange ipc needs all ranks on one host (several may share a GPU). Host Vecs always
   use the VecScatter, which is kept in every case. */
#include <bte/private/collisionimpl.h>
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisioncuda.h>
#endif

const char *const BTECollisionExchanges[] = {"auto", "scatter", "nccl", "ipc", "BTECollisionExchange", "BTE_COLLISION_EXCHANGE_", NULL};

PetscErrorCode BTECollisionExchangeReset_Private(BTECollision coll)
{
  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollNCCLDestroy(&coll->nccl));
#endif
  coll->xsel    = 0;
  coll->xwhy[0] = 0;
  coll->xfpend  = PETSC_FALSE;
  coll->xrpend  = PETSC_FALSE;
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* The forward lists: the ghosts come from their owners in blocks (they are sorted by global
   index, so those of one owner are contiguous and in owner order); each owner learns which of its
   states every other rank needs (one MPI_Alltoall and one MPI_Alltoallv). Then the communicator. */
static PetscErrorCode ExchangeCreateNCCL(BTECollision coll, PetscBool ipc, PetscBool *ok)
{
  MPI_Comm         comm;
  PetscMPIInt      size = coll->psize;
  PetscMPIInt     *fscnt, *fsdsp, *frcnt, *frdsp;
  PetscInt        *fsend;
  BTECollNCCLLists l;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)coll, &comm));
  PetscCall(PetscCalloc4(size, &fscnt, size + 1, &fsdsp, size, &frcnt, size + 1, &frdsp));
  for (PetscInt g = 0; g < coll->nghost; g++) frcnt[BTECollOwner(coll, coll->ghosts[g])]++;
  PetscCallMPI(MPI_Alltoall(frcnt, 1, MPI_INT, fscnt, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    frdsp[r + 1] = frdsp[r] + frcnt[r];
    fsdsp[r + 1] = fsdsp[r] + fscnt[r];
  }
  PetscCall(PetscMalloc1(PetscMax(fsdsp[size], 1), &fsend));
  PetscCallMPI(MPI_Alltoallv(coll->ghosts, frcnt, frdsp, MPIU_INT, fsend, fscnt, fsdsp, MPIU_INT, comm));
  for (PetscInt k = 0; k < fsdsp[size]; k++) {
    PetscCheck(fsend[k] >= coll->rstart && fsend[k] < coll->rstart + coll->nlocal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Ghost exchange: state %" PetscInt_FMT " asked of a rank that does not own it", fsend[k]);
    fsend[k] -= coll->rstart;
  }
  l.nlocal = coll->nlocal;
  l.nghost = coll->nghost;
  l.nfsend = fsdsp[size];
  l.fsend  = fsend;
  l.fscnt  = fscnt;
  l.fsdsp  = fsdsp;
  l.frcnt  = frcnt;
  l.frdsp  = frdsp;
  l.nrsend = coll->rscatter ? coll->nrsend : 0;
  l.nrrecv = coll->rscatter ? coll->nrrecv : 0;
  l.rfrom  = coll->rfrom;
  l.rpos   = coll->rpos;
  l.rscnt  = coll->rscatter ? coll->rscnt : NULL;
  l.rsdsp  = coll->rsdsp;
  l.rrcnt  = coll->rrcnt;
  l.rrdsp  = coll->rrdsp;
  PetscCall(BTECollNCCLCreate(comm, coll->ncclpath, ipc, &l, &coll->nccl, coll->xwhy, sizeof(coll->xwhy)));
  *ok = coll->nccl ? PETSC_TRUE : PETSC_FALSE; /* NULL: IPC could not map a peer's memory (on every rank) */
  PetscCall(PetscFree(fsend));
  PetscCall(PetscFree4(fscnt, fsdsp, frcnt, frdsp));
  PetscFunctionReturn(0);
}
#endif

PetscErrorCode BTECollisionExchangeSelect_Private(BTECollision coll, Vec x)
{
  PetscBool   cuda = PETSC_FALSE;
  PetscMPIInt size;
  MPI_Comm    comm;

  PetscFunctionBegin;
  if (coll->xsel) PetscFunctionReturn(0);
  PetscCall(PetscObjectGetComm((PetscObject)coll, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollisionVecIsCUDA(x, &cuda));
#endif
  if (!cuda) { /* host Vecs: the VecScatter; the choice for CUDA Vecs is still open */
    if ((coll->exchange == BTE_COLLISION_EXCHANGE_NCCL || coll->exchange == BTE_COLLISION_EXCHANGE_IPC) && size > 1) {
      /* a host Vec of a CUDA run (the two-level preconditioners' setup) does not make nccl wrong:
         the run's own state Vecs decide, and with CUDA ones the choice is made now */
      Vec v;
      PetscCall(BTECreateStateVec(coll->bte, &v));
#if defined(BTE_HAVE_CUDA)
      PetscCall(BTECollisionVecIsCUDA(v, &cuda));
#endif
      if (cuda) PetscCall(BTECollisionExchangeSelect_Private(coll, v));
      PetscCall(VecDestroy(&v));
      PetscCheck(cuda, comm, PETSC_ERR_SUP, "-bte_exchange %s moves CUDA Vecs between GPUs; these state Vecs are host Vecs (use -vec_type cuda, or -bte_exchange auto)", BTECollisionExchanges[coll->exchange]);
    }
    PetscFunctionReturn(0);
  }
  coll->xsel = 1;
  if (size == 1) PetscCall(PetscStrncpy(coll->xwhy, "one rank", sizeof(coll->xwhy)));
  else if (coll->exchange == BTE_COLLISION_EXCHANGE_SCATTER) PetscCall(PetscStrncpy(coll->xwhy, "-bte_exchange scatter", sizeof(coll->xwhy)));
  else if (coll->exchange == BTE_COLLISION_EXCHANGE_IPC) {
#if defined(BTE_HAVE_CUDA)
    PetscBool ok;
    PetscCall(BTECollIPCProbe(comm, &ok, coll->xwhy, sizeof(coll->xwhy)));
    PetscCheck(ok, comm, PETSC_ERR_SUP, "-bte_exchange ipc cannot run: %s", coll->xwhy);
    PetscCall(ExchangeCreateNCCL(coll, PETSC_TRUE, &ok));
    PetscCheck(ok, comm, PETSC_ERR_LIB, "-bte_exchange ipc cannot run: %s", coll->xwhy);
    coll->xsel    = 2;
    coll->xwhy[0] = 0;
#endif
  } else {
#if defined(BTE_HAVE_CUDA)
    PetscBool ok = PETSC_FALSE;
    if (coll->exchange == BTE_COLLISION_EXCHANGE_AUTO) {
      /* IPC first: on one host it moves the same values sooner than NCCL (docs/benchmarks.md) */
      PetscCall(BTECollIPCProbeAuto(comm, &ok, coll->xwhy, sizeof(coll->xwhy)));
      if (ok) PetscCall(ExchangeCreateNCCL(coll, PETSC_TRUE, &ok)); /* a peer's memory may still not map */
      if (ok) {
        coll->xsel    = 2;
        coll->xwhy[0] = 0;
        PetscCall(PetscInfo(coll, "Ghost exchange for CUDA Vecs: CUDA IPC (auto)\n"));
        PetscFunctionReturn(0);
      }
      PetscCall(PetscInfo(coll, "CUDA IPC not used: %s\n", coll->xwhy));
    }
    PetscCall(BTECollNCCLProbe(comm, coll->ncclpath, &ok, coll->xwhy, sizeof(coll->xwhy)));
    PetscCheck(ok || coll->exchange != BTE_COLLISION_EXCHANGE_NCCL, comm, PETSC_ERR_SUP, "-bte_exchange nccl cannot run: %s", coll->xwhy);
    if (ok) {
      PetscCall(ExchangeCreateNCCL(coll, PETSC_FALSE, &ok));
      coll->xsel    = 2;
      coll->xwhy[0] = 0;
    }
#endif
  }
  PetscCall(PetscInfo(coll, "Ghost exchange for CUDA Vecs: %s%s%s\n", coll->xsel == 2 ? (coll->exchange == BTE_COLLISION_EXCHANGE_IPC ? "CUDA IPC" : "NCCL") : "VecScatter", coll->xwhy[0] ? "; NCCL not used: " : "", coll->xwhy));
  PetscFunctionReturn(0);
}

static PetscErrorCode UseNCCL(BTECollision coll, Vec x, PetscBool *use)
{
  PetscFunctionBegin;
  *use = PETSC_FALSE;
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollisionExchangeSelect_Private(coll, x));
  if (coll->xsel == 2) PetscCall(BTECollisionVecIsCUDA(x, use));
#endif
  PetscFunctionReturn(0);
}

/* Whether Vecs like x are exchanged by NCCL (chooses, collectively, on the first call) */
PetscErrorCode BTECollisionExchangeIsNCCL_Private(BTECollision coll, Vec x, PetscBool *nccl)
{
  PetscFunctionBegin;
  PetscCall(UseNCCL(coll, x, nccl));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionGhostBegin(BTECollision coll, Vec x, Vec xl)
{
  PetscBool nccl;

  PetscFunctionBegin;
  PetscCall(UseNCCL(coll, x, &nccl));
#if defined(BTE_HAVE_CUDA)
  if (nccl && coll->xwork) { /* the transfers wait for GhostPost */
    PetscCall(BTECollNCCLForwardMark(coll->nccl, x));
    coll->xfpend = PETSC_TRUE;
    coll->xfx    = x;
    coll->xfxl   = xl;
  } else if (nccl) PetscCall(BTECollNCCLForwardBegin(coll->nccl, x, xl));
#endif
  if (!nccl) PetscCall(VecScatterBegin(coll->scatter, x, xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionGhostPost(BTECollision coll)
{
  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (coll->xfpend) PetscCall(BTECollNCCLForwardPost(coll->nccl, coll->xfx, coll->xfxl));
#endif
  coll->xfpend = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionGhostEnd(BTECollision coll, Vec x, Vec xl)
{
  PetscBool nccl;

  PetscFunctionBegin;
  PetscCall(UseNCCL(coll, x, &nccl));
  PetscCall(BTECollisionGhostPost(coll));
#if defined(BTE_HAVE_CUDA)
  if (nccl) PetscCall(BTECollNCCLForwardEnd(coll->nccl));
#endif
  if (!nccl) PetscCall(VecScatterEnd(coll->scatter, x, xl, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

/* The ghost exchange for Vecs like x, in words (for views; collective, as it may make the choice).
   VecScatter: for host Vecs MPI moves host arrays; for CUDA Vecs PETSc hands device buffers to MPI
   when it found the MPI GPU-aware (or was told so, -use_gpu_aware_mpi), and otherwise stages them
   through host memory. */
PetscErrorCode BTECollisionExchangeDescribe(BTECollision coll, Vec x, const char **desc)
{
  VecType     t    = VECSEQ;
  PetscBool   cuda = PETSC_FALSE;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)coll), &size));
  PetscCall(BTECollisionLocalVecType(x, &t));
  PetscCall(PetscStrcmp(t, VECSEQCUDA, &cuda));
  if (cuda) PetscCall(BTECollisionExchangeSelect_Private(coll, x));
  if (size == 1) PetscCall(PetscStrncpy(coll->xdesc, "none (one rank)", sizeof(coll->xdesc)));
  else if (!cuda) PetscCall(PetscStrncpy(coll->xdesc, "VecScatter on host arrays", sizeof(coll->xdesc)));
  else if (coll->xsel == 2) {
    int       v   = 0;
    PetscBool ipc = PETSC_FALSE;
#if defined(BTE_HAVE_CUDA)
    PetscCall(BTECollNCCLVersion(coll->nccl, &v));
    PetscCall(BTECollNCCLIsIPC(coll->nccl, &ipc));
#endif
    if (ipc) PetscCall(PetscStrncpy(coll->xdesc, "CUDA IPC between the ranks' GPUs (one host), on a stream of its own", sizeof(coll->xdesc)));
    else PetscCall(PetscSNPrintf(coll->xdesc, sizeof(coll->xdesc), "NCCL %d.%d.%d between the ranks' GPUs, on a stream of its own", v / 10000, (v / 100) % 100, v % 100));
  } else
    PetscCall(PetscSNPrintf(coll->xdesc, sizeof(coll->xdesc), "%s (NCCL not used: %s)", use_gpu_aware_mpi ? "VecScatter on device buffers (GPU-aware MPI)" : "VecScatter staged through host memory (MPI not GPU-aware)", coll->xwhy));
  *desc = coll->xdesc;
  PetscFunctionReturn(0);
}
