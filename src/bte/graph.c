/* The channel graph: states are its vertices and channels its edges. A graph in several pieces
   cannot relax to one Fermi-Dirac distribution: carriers in a piece stay there (a coarse grid can
   leave the bottom of a valley unreachable, for instance). BTEGetChannelGraph counts the pieces
   and the states outside the largest one, so that views and runs can say so.

   Each rank joins the ends of the channels it holds (union-find over all N states; per thread, then
   merged), rank 0 merges
   the ranks' forests one after the other, and the piece of every state is broadcast; each rank then
   counts its owned states outside the largest piece. Memory: N indices per rank, 2N on rank 0. */
#include <bte/private/bteimpl.h>
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisionimpl.h>
  #include <bte/private/collisioncuda.h>
#endif
#if defined(_OPENMP)
  #include <omp.h>
#endif

static inline PetscInt Find(PetscInt *par, PetscInt i)
{
  while (par[i] != i) {
    par[i] = par[par[i]]; /* path halving */
    i      = par[i];
  }
  return i;
}

static inline void Join(PetscInt *par, PetscInt a, PetscInt b)
{
  a = Find(par, a);
  b = Find(par, b);
  if (a == b) return;
  if (a < b) par[b] = a; /* the smaller index is the root: the result does not depend on the order */
  else par[a] = b;
}

/* The held channels' ends joined into par (N states): every thread joins the ends of its share of
   the channels in a forest of its own (N indices: 1e8 channels take ~1 s on one thread), then the
   forests are merged */
static PetscErrorCode HostForest(BTE bte, PetscInt N, PetscInt par[])
{
  int       nt = 1;
  PetscInt *tpar;

  PetscFunctionBegin;
#if defined(_OPENMP)
  nt = omp_get_max_threads();
#endif
  if (nt > 1 && bte->ch.n > 16 * (PetscCount)N) {
    PetscCall(PetscMalloc1((size_t)nt * N, &tpar));
    for (size_t k = 0; k < (size_t)nt * N; k++) tpar[k] = (PetscInt)(k % (size_t)N);
#pragma omp parallel num_threads(nt)
    {
      int t = 0, n = 1;
#if defined(_OPENMP)
      t = omp_get_thread_num();
      n = omp_get_num_threads();
#endif
      for (PetscCount c = (bte->ch.n * t) / n; c < (bte->ch.n * (t + 1)) / n; c++) Join(tpar + (size_t)t * N, bte->ch.i[c], bte->ch.j[c]);
    }
    for (int t = 0; t < nt; t++)
      for (PetscInt i = 0; i < N; i++)
        if (tpar[(size_t)t * N + i] != i) Join(par, i, tpar[(size_t)t * N + i]);
    PetscCall(PetscFree(tpar));
  } else
    for (PetscCount c = 0; c < bte->ch.n; c++) Join(par, bte->ch.i[c], bte->ch.j[c]);
  PetscFunctionReturn(0);
}

/*@
   BTEGetChannelGraph - Gets the connected pieces of the channel graph (states joined by channels)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameters:
+  npieces - number of pieces
.  nout    - states outside the largest piece
-  eout    - lowest energy among them, eV (PETSC_MAX_REAL if none)

   Notes:
   The channels must be loaded. With several pieces carriers cannot move between them
   (docs/diagnostics.md).

   Level: intermediate

.seealso: `BTEGetDiagnostics()`
@*/
PetscErrorCode BTEGetChannelGraph(BTE bte, PetscInt *npieces, PetscInt *nout, PetscReal *eout)
{
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  PetscInt    N, *par, *buf = NULL, *cnt = NULL, big = 0, np = 0;
  PetscInt    loc[1];
  PetscReal   e = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)bte);
  PetscCheck(bte->setupcalled, comm, PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  PetscCheck(!bte->chcounted, comm, PETSC_ERR_ARG_WRONGSTATE, "The channel graph needs the channels: the BTE counted them without loading them");
  if (bte->gpieces < 0) {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCallMPI(MPI_Comm_size(comm, &size));
    N = bte->nstates;
    PetscCall(PetscMalloc1(N, &par));
    for (PetscInt i = 0; i < N; i++) par[i] = i;
    {
      PetscBool ondev = PETSC_FALSE;
#if defined(BTE_HAVE_CUDA)
      /* the GPU import's channels, still only on the device: the pieces found there */
      if (bte->chfill) PetscCall(BTEPairCUDAChannelComponents((PetscObject)bte, bte->ch.n, bte->ch.i, bte->ch.g2, N, par, &ondev));
#endif
      if (!ondev) {
        PetscCall(BTEChannelsGetHost(bte));
        PetscCall(HostForest(bte, N, par));
      }
    }
    for (PetscInt i = 0; i < N; i++) par[i] = Find(par, i);
    if (!rank) PetscCall(PetscMalloc2(N, &buf, N, &cnt));
    for (PetscMPIInt r = 1; r < size; r++) {
      if (!rank) {
        PetscCallMPI(MPI_Recv(buf, (PetscMPIInt)N, MPIU_INT, r, 0, comm, MPI_STATUS_IGNORE));
        for (PetscInt i = 0; i < N; i++)
          if (buf[i] != i) Join(par, i, buf[i]);
      } else if (rank == r) PetscCallMPI(MPI_Send(par, (PetscMPIInt)N, MPIU_INT, 0, 0, comm));
    }
    if (!rank) {
      /* pieces and the largest (ties: the one with the lowest root) */
      for (PetscInt i = 0; i < N; i++) cnt[i] = 0;
      for (PetscInt i = 0; i < N; i++) cnt[par[i] = Find(par, i)]++;
      for (PetscInt i = 0; i < N; i++)
        if (cnt[i]) {
          np++;
          if (cnt[i] > cnt[big]) big = i;
        }
    }
    PetscCallMPI(MPI_Bcast(par, (PetscMPIInt)N, MPIU_INT, 0, comm));
    PetscCallMPI(MPI_Bcast(&np, 1, MPIU_INT, 0, comm));
    PetscCallMPI(MPI_Bcast(&big, 1, MPIU_INT, 0, comm));
    {
      /* pieces numbered in the order of their lowest state (the root: the smallest index) */
      PetscInt *num, k = 0;
      PetscCall(PetscMalloc1(N, &num));
      for (PetscInt i = 0; i < N; i++) num[i] = par[i] == i ? k++ : -1;
      PetscCall(PetscFree(bte->gpiece));
      PetscCall(PetscMalloc1(bte->nlocal, &bte->gpiece));
      for (PetscInt il = 0; il < bte->nlocal; il++) bte->gpiece[il] = num[par[bte->rstart + il]];
      bte->gbig = num[big];
      PetscCall(PetscFree(num));
    }
    loc[0] = 0;
    for (PetscInt il = 0; il < bte->nlocal; il++)
      if (par[bte->rstart + il] != big) {
        loc[0]++;
        e = PetscMin(e, bte->energy[il]);
      }
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, loc, 1, MPIU_INT, MPI_SUM, comm));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPIU_MIN, comm));
    bte->gpieces = np;
    bte->gout    = loc[0];
    bte->geout   = e;
    PetscCall(PetscFree(par));
    if (!rank) PetscCall(PetscFree2(buf, cnt));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscInfo(bte, "channel graph: %" PetscInt_FMT " piece(s), %" PetscInt_FMT " states outside the largest, %.3f s\n", np, loc[0], t1 - t0));
  }
  if (npieces) *npieces = bte->gpieces;
  if (nout) *nout = bte->gout;
  if (eout) *eout = bte->geout;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetChannelGraphPieces(BTE bte, const PetscInt *piece[], PetscInt *largest)
{
  PetscFunctionBegin;
  PetscCall(BTEGetChannelGraph(bte, NULL, NULL, NULL));
  if (piece) *piece = bte->gpiece;
  if (largest) *largest = bte->gbig;
  PetscFunctionReturn(0);
}
