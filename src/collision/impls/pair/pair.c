/* pair: every unordered pair of states stored once, both ends updated from tile-private sums.

   fused stores each channel at both of its ends (40 B per channel in double), so an apply must
   stream every rate twice. Here the channels of a pair {a, b} are merged into one entry
   (uint16 column, P, Q: 18 B in double, 10 B in mixed precision) that updates both ends; the
   layout (include/bte/private/pairlayout.h) groups entries by tile pair so that the column
   end's sums fit in a small private array per warp (CUDA) or per thread (OpenMP). Orientation
   a -> b (a < b in layout index); with p = P (1 - f_b), q = Q f_b:

     I:      row a  += -f_a p + (1 - f_a) q          column b += f_a p - (1 - f_a) q
     J x:    row a  += -(p + q) x_a + (P f_a + Q (1 - f_a)) x_b        column b: the negative
     diag J: row a  += -(p + q)                      column b += -(P f_a + Q (1 - f_a))

   (docs/theory.md eqs. 2-4: x_c updates I_i by +x_c and I_j by -x_c).

   On several ranks with -bte_partition pairs, a rank computes only the channels assigned to it
   (BTECollComputes: each channel by one of the two ranks that hold it), so each pair of states
   is stored once over all ranks, as on one rank. The partial sums are then reduced for every
   local state (owned and ghost) into a local vector, and the ghosts' sums are added into their
   owners by the reverse of the ghost scatter. */
#include <bte/private/collisionimpl.h>
#include <bte/private/pairlayout.h>
#include <bte/private/validate.h> /* BTECheckRunMemory */
#include <bte/private/pairshare.h>
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisioncuda.h>
#endif

static const char *const PairBuilds[] = {"auto", "host", "device", "BTEPairBuild", "", NULL};

typedef struct {
  BTEPairLayout L;
  PetscInt      tile, chunk; /* options; chunk 0: chosen from the size */
  PetscInt      unroll;      /* CUDA kernel: entries per lane in flight; 0: by precision */
  PetscInt      rbatch;      /* CUDA reduction: partial sums per thread in flight */
  PetscInt      rlanes;      /* CUDA reduction: threads per state */
  PetscInt      build;       /* where the layout is built: 0 auto, 1 host, 2 device */
  PetscBool     ondevice;    /* built on the device: col and weights exist on the host only after a host apply */
  double       *partial;     /* host partial buffer (L.npartial) */
  double       *fp, *xp;     /* f and x in layout order (ntile*tile each) */
  PetscBool     pairs;       /* -bte_partition pairs on several ranks: sums of ghosts sent to their owners */
  Vec           yl;          /* pairs: the output for owned + ghost states before that reduction */
  int32_t       nto;         /* pairs: tiles of owned states only (they come first in the layout) */
  int64_t       ninner;      /* pairs: chunks 0..ninner-1 need no ghost value (owned tiles only) */
  int64_t       nfwd;        /* pairs: of those, how many run while the ghost values travel; the
                                others run while the ghosts' sums travel back */
  PetscInt      polls;       /* pairs, host: MPI progress calls while owned work hides an exchange */
  PetscBool     side;        /* pairs, CUDA, NCCL: the chunks that need ghosts on a side stream */
  PetscBool     timeline;    /* CUDA: device events at the steps of every apply, means printed at destroy */
  PetscBool     ptiles;      /* -bte_pair_partition_tiles: the pairs partition decided per tile pair */
  PetscBool     peers;       /* -bte_pair_exchange_peers: host, tile blocks: ghost values by one message per peer */
  struct _n_PairPeers *pp;   /* its lists (PairPeersSetUp) */
  PetscBool     sharenode;   /* -bte_pair_share_node: host Vecs, the ranks of a node run each other's chunks */
  PetscReal     sharestall;  /* -bte_pair_share_stall (ms; a test's diagnostic): rank 0 of a node waits before its own */
  PetscBool     shareowned;  /* -bte_pair_share_owned: the owned-only chunks that hide the exchanges shared too */
  BTEPairShare  share;       /* NULL: not shared */
  PetscBool     devselect;   /* pairs, device build: the computed channels selected on the device */
  PetscInt      piece;       /* pairs, device build, host copy-out: channels per piece (-bte_pair_copy_piece) */
  PetscBool     onerate;     /* -bte_pair_one_rate: one rate per pair, the other from the Boltzmann factor */
  /* -bte_collision_refresh, host build: the computed channels of every stored pair in the order
     the merge summed them: pair e's are rch[rptr[e] .. rptr[e+1]), each channel c (bte->ch order)
     as c << 1, | 1 when the channel's i end is the pair's column end b (its P is the pair's Q);
     8 bytes per computed channel and 8 per pair */
  int64_t      *rptr, *rch;
  int64_t       nrch;
#if defined(BTE_HAVE_CUDA)
  BTEPairCUDA      cuda;
  BTEPairCUDARates rates; /* -bte_collision_refresh, device build: the sort permutation (pair_build_cuda.cu) */
#endif
} BTECollision_Pair;


/* -bte_pair_one_rate: the chunk's factor exp((zref[tile_j] - zref[tile_i]) / kT) (pairlayout.h) */
static inline double PairOneRateFactor(const BTEPairLayout *L, const BTEPairChunk *ch)
{
  return exp((L->zref[ch->tile_j] - L->zref[ch->tile_i]) / L->kT);
}

/* One chunk on the CPU: rows into partial[slot..], column sums (acc, tile entries) after them.
   f and x come in layout order (fp[l] = f[perm[l]], made once per apply), so that the inner loop
   reads them without the permutation. MODE 0: I[f]; 1: J(f) x; 2: diag J(f). */
#define PAIR_CHUNK_KERNEL(NAME, WT, ONE) \
  static inline void NAME(const BTEPairLayout *L, const BTEPairChunk *ch, int mode, const WT *w, const double *fp, const double *xp, double *acc, double *partial) \
  { \
    const double *fI = fp + (size_t)ch->tile_i * L->tile, *fJ = fp + (size_t)ch->tile_j * L->tile; \
    const double *xI = xp ? xp + (size_t)ch->tile_i * L->tile : NULL, *xJ = xp ? xp + (size_t)ch->tile_j * L->tile : NULL; \
    const double *zI = ONE ? L->z + (size_t)ch->tile_i * L->tile : NULL, *zJ = ONE ? L->z + (size_t)ch->tile_j * L->tile : NULL; \
    const double  cf = ONE ? PairOneRateFactor(L, ch) : 0.0; \
    for (int32_t t = 0; t < L->tile; t++) acc[t] = 0; \
    for (int32_t r = 0; r < ch->nrows; r++) { \
      const int64_t e0 = L->rowptr[ch->rp + r], e1 = L->rowptr[ch->rp + r + 1]; \
      const double  fa = fI[ch->row0 + r], xa = mode == 1 ? xI[ch->row0 + r] : 0.0, rf = ONE ? cf / zI[ch->row0 + r] : 0.0; \
      double        ro = 0, ri = 0, so = 0, si = 0; \
      for (int64_t e = e0; e < e1; e++) { \
        const int32_t jj = L->col[e]; \
        const double  D = (double)w[ONE ? e : 2 * e], rr = ONE ? zJ[jj] * rf : 0.0; \
        const double  P = ONE ? (rr >= 1.0 ? D / rr : D) : D, Q = ONE ? (rr >= 1.0 ? D : D * rr) : (double)w[2 * e + 1], fb = fJ[jj]; \
        const double  p = P * (1.0 - fb), q = Q * fb; \
        if (mode == 0) { \
          ro += p; \
          ri += q; \
          acc[jj] += fa * p - (1.0 - fa) * q; \
        } else if (mode == 1) { \
          const double xb = xJ[jj]; \
          ro += p + q; \
          so += P * xb; \
          si += Q * xb; \
          acc[jj] += (p + q) * xa - (P * fa + Q * (1.0 - fa)) * xb; \
        } else { \
          ro += p + q; \
          acc[jj] -= P * fa + Q * (1.0 - fa); \
        } \
      } \
      partial[ch->slot + r] = mode == 0 ? -fa * ro + (1.0 - fa) * ri : (mode == 1 ? -ro * xa + fa * so + (1.0 - fa) * si : -ro); \
    } \
    for (int32_t t = 0; t < L->tile; t++) partial[ch->slot + ch->nrows + t] = acc[t]; \
  }
PAIR_CHUNK_KERNEL(PairChunkDouble, double, 0)
PAIR_CHUNK_KERNEL(PairChunkFloat, float, 0)
PAIR_CHUNK_KERNEL(PairChunkDouble1, double, 1)
PAIR_CHUNK_KERNEL(PairChunkFloat1, float, 1)

/* One chunk c of L (also the callback of -bte_pair_share_node, which runs it for whichever rank owns L) */
static void PairChunkOne(const BTEPairLayout *L, int64_t c, int mode, const double *fp, const double *xp, double *acc, double *partial)
{
  if (L->onerate) {
    if (L->ws) PairChunkFloat1(L, &L->chunks[c], mode, L->ws, fp, xp, acc, partial);
    else PairChunkDouble1(L, &L->chunks[c], mode, L->w, fp, xp, acc, partial);
  } else if (L->ws) PairChunkFloat(L, &L->chunks[c], mode, L->ws, fp, xp, acc, partial);
  else PairChunkDouble(L, &L->chunks[c], mode, L->w, fp, xp, acc, partial);
}

/* The chunks list[k0..k1) (or chunks k0..k1 when list is NULL) into the partial buffer. */
static PetscErrorCode PairChunks(const BTEPairLayout *L, int mode, const int64_t *list, int64_t k0, int64_t k1, const double *fp, const double *xp, double *partial)
{
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
#pragma omp parallel reduction(| : ierr)
  {
    double *acc = (double *)malloc((size_t)L->tile * sizeof(double));
    if (!acc) ierr = PETSC_ERR_MEM;
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = k0; k < k1; k++) {
      const int64_t c = list ? list[k] : k;
      if (!acc) continue;
      PairChunkOne(L, c, mode, fp, xp, acc, partial);
    }
    free(acc);
  }
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the per-thread tile sums of the pair layout");
  PetscFunctionReturn(0);
}

/* -bte_pair_share_node: collective, at the end of the set-up (the layout is final then; later
   changes, a temperature refresh, write its arrays in place). The layout's streamed arrays, fp, xp
   and the partial buffer move into the node's shared window; the copies they replace are freed, so
   memory does not grow. A layout built on the device is applied there: not shared. Not with
   -bte_pair_exchange_peers either (its chunks run as messages land). */
static PetscErrorCode PairShareSetUp(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L  = &pa->L;
  BTEPairShare       sh;

  PetscFunctionBegin;
  if (!pa->sharenode || !pa->pairs || pa->ondevice || (pa->peers && coll->gslot)) PetscFunctionReturn(0); /* the per-peer path does not share */
  PetscCall(BTEPairShareCreate(PetscObjectComm((PetscObject)coll), L, (int64_t)L->ntile * L->tile, pa->fp, pa->xp, pa->partial, PairChunkOne, &sh));
  if (!sh) PetscFunctionReturn(0);
  PetscCall(PetscFree(L->chunks));
  PetscCall(PetscFree(L->rowptr));
  PetscCall(PetscFree(L->col));
  PetscCall(PetscFree(L->w));
  PetscCall(PetscFree(L->ws));
  if (L->onerate) PetscCall(PetscFree2(L->z, L->zref));
  PetscCall(PetscFree(pa->partial));
  PetscCall(PetscFree2(pa->fp, pa->xp));
  PetscCall(BTEPairShareArrays(sh, L, &pa->fp, &pa->xp, &pa->partial));
  pa->share = sh;
  PetscFunctionReturn(0);
}

/* The chunks k0..k1-1 that hide an exchange, in `polls` batches with an MPI progress call between
   them: with messages above the MPI's eager limit (GaAs 90^3 on 16 ranks: ~12 kB from each other
   rank) a transfer only moves while some rank is inside MPI, so without these calls the exchange
   would wait for VecScatterEnd after all. MPI_Iprobe drives the progress engine and receives
   nothing (the scatter's own messages are matched by their requests). */
static PetscErrorCode PairChunksPolling(BTECollision coll, int mode, int64_t k0, int64_t k1, const double *fp, const double *xp)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  const int64_t      nb = PetscMax(1, PetscMin((int64_t)pa->polls, k1 - k0));

  PetscFunctionBegin;
  for (int64_t b = 0; b < nb; b++) {
    int flag;
    PetscCall(PairChunks(&pa->L, mode, NULL, k0 + (k1 - k0) * b / nb, k0 + (k1 - k0) * (b + 1) / nb, fp, xp, pa->partial));
    if (pa->polls > 0) PetscCallMPI(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, PetscObjectComm((PetscObject)coll), &flag, MPI_STATUS_IGNORE));
  }
  PetscFunctionReturn(0);
}

/* y[s] = the partial sums of state s, s0 <= s < s1, in the fixed order of its slot list */
static void PairReduceRange(const BTEPairLayout *L, const double *partial, int32_t s0, int32_t s1, PetscScalar *y)
{
#pragma omp parallel for schedule(static)
  for (int32_t s = s0; s < s1; s++) {
    double v = 0;
    for (int64_t k = L->sptr[s]; k < L->sptr[s + 1]; k++) v += partial[L->slots[k]];
    y[s] = v;
  }
}

static void PairReduce(const BTEPairLayout *L, const double *partial, PetscScalar *y)
{
  PairReduceRange(L, partial, 0, L->nlocal, y);
}

/* f (and x) in layout order for the layout indices l0..l1, from arrays indexed by local state */
static void PairGather(const BTEPairLayout *L, int64_t l0, int64_t l1, const PetscScalar *f, const PetscScalar *x, double *fp, double *xp)
{
#pragma omp parallel for schedule(static)
  for (int64_t l = l0; l < l1; l++) {
    const int32_t s = L->perm[l];
    fp[l]           = s >= 0 ? f[s] : 0.0;
    if (x) xp[l] = s >= 0 ? x[s] : 0.0;
  }
}

/* The local Vecs of an overlapped apply, and the ghost exchange started: with x (a Jacobian
   product) f's ghosts are needed in full first; the exchange of the last input (x, or f) is left
   travelling into *lastl while the owned chunks run */
static PetscErrorCode PairGhostsBegin(BTECollision coll, Vec f, Vec x, Vec Y, Vec *lastl)
{
  BTECollision_Pair *pa   = (BTECollision_Pair *)coll->data;
  Vec                last = x ? x : f;

  PetscFunctionBegin;
  PetscCall(BTECollisionGetLocalVec(coll, f, &coll->fl));
  if (x) PetscCall(BTECollisionGetLocalVec(coll, x, &coll->xl));
  *lastl = x ? coll->xl : coll->fl;
  PetscCall(BTECollisionGetLocalVec(coll, Y, &pa->yl));
  PetscCall(PetscLogEventBegin(BTECOLL_Ghost, coll, f, x, 0));
  if (x) {
    PetscCall(BTECollisionGhostBegin(coll, f, coll->fl));
    PetscCall(BTECollisionGhostEnd(coll, f, coll->fl));
  }
  PetscCall(BTECollisionGhostBegin(coll, last, *lastl));
  PetscCall(PetscLogEventEnd(BTECOLL_Ghost, coll, f, x, 0));
  PetscFunctionReturn(0);
}

/* The overlapped applies' chunks of two owned tiles: the first part (f, x in layout order for the
   owned tiles, from the global Vecs), which hides the ghost values' exchange ... */
static PetscErrorCode PairOwnedFirst(BTECollision coll, int mode, Vec f, Vec x, BTEPairShare share)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  const PetscScalar   *a, *b = NULL;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_Inner, coll, 0, 0, 0));
  PetscCall(VecGetArrayRead(f, &a));
  if (x) PetscCall(VecGetArrayRead(x, &b));
  PairGather(L, 0, (int64_t)pa->nto * L->tile, a, b, pa->fp, pa->xp);
  if (x) PetscCall(VecRestoreArrayRead(x, &b));
  PetscCall(VecRestoreArrayRead(f, &a));
  if (share) PetscCall(BTEPairShareRun(share, 0, pa->nfwd, mode, x ? PETSC_TRUE : PETSC_FALSE, 0));
  else PetscCall(PairChunksPolling(coll, mode, 0, pa->nfwd, pa->fp, x ? pa->xp : NULL));
  PetscCall(PetscLogEventEnd(BTECOLL_Inner, coll, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* ... and the rest, which hides the ghosts' sums' exchange, then the owned states' sums into Y */
static PetscErrorCode PairOwnedRest(BTECollision coll, int mode, Vec x, Vec Y, BTEPairShare share)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  const PetscLogDouble flops[3] = {9.0, 17.0, 8.0}; /* per entry */
  PetscScalar         *y;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_Inner, coll, 0, 0, 0));
  if (share) PetscCall(BTEPairShareRun(share, pa->nfwd, pa->ninner, mode, x ? PETSC_TRUE : PETSC_FALSE, 0));
  else PetscCall(PairChunksPolling(coll, mode, pa->nfwd, pa->ninner, pa->fp, x ? pa->xp : NULL));
  PetscCall(VecGetArrayWrite(Y, &y));
  PairReduceRange(L, pa->partial, 0, (int32_t)coll->nlocal, y);
  PetscCall(VecRestoreArrayWrite(Y, &y));
  PetscCall(PetscLogEventEnd(BTECOLL_Inner, coll, 0, 0, 0));
  PetscCall(PetscLogFlops(flops[mode] * (PetscLogDouble)L->nnz + (PetscLogDouble)L->sptr[L->nlocal]));
  PetscFunctionReturn(0);
}

/* The pairs partition on the host, from the global Vecs. The chunks of two owned tiles need no
   ghost value and give no ghost a sum, so they hide both exchanges: the first part runs while the
   ghost values come in, then the chunks that touch ghosts, the ghosts' sums (sent back at once),
   and the second part while those sums travel. For J x, f's ghosts are exchanged first and x's
   overlapped. Each state's partial sums keep their fixed order: the result is that of PairRun. */
static PetscErrorCode PairRunOverlap(BTECollision coll, int mode, Vec f, Vec x, Vec Y)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  const PetscScalar   *a, *b = NULL;
  PetscScalar         *y;
  Vec                  last = x ? x : f, lastl = NULL;
  const int64_t        nown = (int64_t)pa->nto * L->tile, nall = (int64_t)L->ntile * L->tile;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (!L->col) PetscCall(BTEPairCUDADownload(pa->cuda, &pa->L)); /* built on the device, applied on the host */
#endif
  PetscCall(PairGhostsBegin(coll, f, x, Y, &lastl));
  /* owned states first: their values are this rank's own */
  PetscCall(PairOwnedFirst(coll, mode, f, x, pa->shareowned ? pa->share : NULL));
  PetscCall(PetscLogEventBegin(BTECOLL_Ghost, coll, f, x, 0));
  PetscCall(BTECollisionGhostEnd(coll, last, lastl));
  PetscCall(PetscLogEventEnd(BTECOLL_Ghost, coll, f, x, 0));
  PetscCall(PetscLogEventBegin(BTECOLL_Outer, coll, 0, 0, 0));
  PetscCall(VecGetArrayRead(coll->fl, &a));
  if (x) PetscCall(VecGetArrayRead(coll->xl, &b));
  PairGather(L, nown, nall, a, b, pa->fp, pa->xp);
  if (x) PetscCall(VecRestoreArrayRead(coll->xl, &b));
  PetscCall(VecRestoreArrayRead(coll->fl, &a));
  if (pa->share) PetscCall(BTEPairShareRun(pa->share, pa->ninner, L->nchunk, mode, x ? PETSC_TRUE : PETSC_FALSE, pa->sharestall)); /* with the node's other ranks */
  else PetscCall(PairChunks(L, mode, NULL, pa->ninner, L->nchunk, pa->fp, x ? pa->xp : NULL, pa->partial));
  /* the ghosts' sums are complete: the chunks left touch owned tiles only */
  PetscCall(VecGetArrayWrite(pa->yl, &y));
  PairReduceRange(L, pa->partial, (int32_t)coll->nlocal, L->nlocal, y);
  PetscCall(VecRestoreArrayWrite(pa->yl, &y));
  PetscCall(PetscLogEventEnd(BTECOLL_Outer, coll, 0, 0, 0));
  PetscCall(BTECollisionReverseBegin(coll, pa->yl, Y));
  PetscCall(PairOwnedRest(coll, mode, x, Y, pa->shareowned ? pa->share : NULL));
  PetscCall(BTECollisionReverseEnd(coll, pa->yl, NULL, Y));
  PetscFunctionReturn(0);
}

/* -bte_pair_exchange_peers (host Vecs, pairs partition in tile blocks): the ghost values of the last
   input come in one message from each peer, straight into the local vector, and the chunks that need
   ghost values run peer by peer as the messages land (MPI_Waitany), instead of all after the whole
   exchange. With tile blocks a ghost tile holds the states of one peer, so a chunk waits for at most
   two peers. The chunks write the same partial-sum slots, so the result is that of PairRunOverlap
   to the bit. */
typedef struct _n_PairPeers {
  PetscMPIInt  size, tag;
  PetscMPIInt *fscnt, *fsdsp, *frcnt, *frdsp; /* per peer: owned values sent, ghosts received */
  PetscInt    *fsend;                         /* owned local states sent, by peer */
  double      *sbuf;
  MPI_Request *req;           /* size receives, then size sends */
  int64_t     *llo, *lhi;     /* per peer: layout indices of its ghost tiles */
  int64_t     *cptr, *clist;  /* per peer: the chunks that need its values */
  int32_t     *cneed, *cleft; /* per chunk that needs ghosts: peers it waits for; left this apply */
  int64_t     *ready;
  /* the reverse exchange: a peer's ghosts' sums leave as soon as its chunks are done */
  PetscMPIInt  rtag;
  PetscMPIInt *cpeer;         /* 2 per chunk that needs ghosts: its peers (-1: none) */
  int64_t     *pend;          /* per peer: its chunks not yet run this apply */
  double      *rsbuf, *rrbuf; /* sums sent (by peer), received (by sender) */
  MPI_Request *rreq;          /* size receives, then size sends */
} *PairPeers;

static PetscErrorCode PairPeersDestroy(PairPeers *pp)
{
  PetscFunctionBegin;
  if (!*pp) PetscFunctionReturn(0);
  PetscCall(PetscFree4((*pp)->fscnt, (*pp)->fsdsp, (*pp)->frcnt, (*pp)->frdsp));
  PetscCall(PetscFree3((*pp)->fsend, (*pp)->sbuf, (*pp)->req));
  PetscCall(PetscFree4((*pp)->llo, (*pp)->lhi, (*pp)->cptr, (*pp)->clist));
  PetscCall(PetscFree3((*pp)->cneed, (*pp)->cleft, (*pp)->ready));
  PetscCall(PetscFree5((*pp)->cpeer, (*pp)->pend, (*pp)->rsbuf, (*pp)->rrbuf, (*pp)->rreq));
  PetscCall(PetscFree(*pp));
  PetscFunctionReturn(0);
}

/* the lists (collective): who sends which owned states to whom (as the NCCL exchange's), the layout
   range of each peer's ghost tiles and the chunks that wait for each peer */
static PetscErrorCode PairPeersSetUp(BTECollision coll)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  MPI_Comm             comm = PetscObjectComm((PetscObject)coll);
  const int64_t        nown = (int64_t)pa->nto * L->tile, nout = L->nchunk - pa->ninner;
  PetscMPIInt          size = coll->psize;
  PairPeers            pp;
  int64_t             *fill;

  PetscFunctionBegin;
  PetscCall(PetscNew(&pp));
  pp->size = size;
  PetscCall(PetscObjectGetNewTag((PetscObject)coll, &pp->tag));
  PetscCall(PetscCalloc4(size, &pp->fscnt, size + 1, &pp->fsdsp, size, &pp->frcnt, size + 1, &pp->frdsp));
  for (PetscInt g = 0; g < coll->nghost; g++) pp->frcnt[BTECollOwner(coll, coll->ghosts[g])]++;
  PetscCallMPI(MPI_Alltoall(pp->frcnt, 1, MPI_INT, pp->fscnt, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    pp->frdsp[r + 1] = pp->frdsp[r] + pp->frcnt[r];
    pp->fsdsp[r + 1] = pp->fsdsp[r] + pp->fscnt[r];
  }
  PetscCall(PetscMalloc3(PetscMax(pp->fsdsp[size], 1), &pp->fsend, PetscMax(pp->fsdsp[size], 1), &pp->sbuf, 2 * size, &pp->req));
  PetscCallMPI(MPI_Alltoallv(coll->ghosts, pp->frcnt, pp->frdsp, MPIU_INT, pp->fsend, pp->fscnt, pp->fsdsp, MPIU_INT, comm));
  for (PetscInt k = 0; k < pp->fsdsp[size]; k++) pp->fsend[k] -= coll->rstart;
  /* each ghost tile's peer; a peer's tiles are consecutive (tile blocks order the ghosts by slot) */
  PetscCall(PetscMalloc4(size, &pp->llo, size, &pp->lhi, size + 1, &pp->cptr, PetscMax(2 * nout, 1), &pp->clist));
  for (PetscMPIInt r = 0; r < size; r++) pp->llo[r] = pp->lhi[r] = 0;
  for (int64_t l = nown; l < (int64_t)L->ntile * L->tile; l++) {
    const int32_t s = L->perm[l];
    PetscMPIInt   o;
    if (s < 0) continue;
    o = BTECollOwner(coll, coll->ghosts[s - coll->nlocal]);
    if (pp->lhi[o] == 0) pp->llo[o] = l - l % L->tile;
    pp->lhi[o] = l - l % L->tile + L->tile;
  }
  PetscCall(PetscCalloc3(PetscMax(nout, 1), &pp->cneed, PetscMax(nout, 1), &pp->cleft, PetscMax(nout, 1), &pp->ready));
  PetscCall(PetscArrayzero(pp->cptr, size + 1));
  PetscCall(PetscCalloc1(size, &fill));
  PetscCall(PetscObjectGetNewTag((PetscObject)coll, &pp->rtag));
  PetscCall(PetscMalloc5(PetscMax(2 * nout, 1), &pp->cpeer, size, &pp->pend, PetscMax(coll->nrsend, 1), &pp->rsbuf, PetscMax(coll->nrrecv, 1), &pp->rrbuf, 2 * size, &pp->rreq));
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t c = 0; c < nout; c++) {
      const BTEPairChunk *ch = &L->chunks[pa->ninner + c];
      PetscMPIInt         o[2];
      int                 no = 0;
      for (int e = 0; e < 2; e++) {
        const int32_t t = e ? ch->tile_j : ch->tile_i;
        PetscMPIInt   w = -1;
        if (t < pa->nto) continue;
        for (int32_t u = 0; u < L->tile && w < 0; u++)
          if (L->perm[(int64_t)t * L->tile + u] >= 0) w = BTECollOwner(coll, coll->ghosts[L->perm[(int64_t)t * L->tile + u] - coll->nlocal]);
        if (w >= 0 && (no == 0 || o[0] != w)) o[no++] = w;
      }
      if (pass == 0) {
        pp->cneed[c]         = no;
        pp->cpeer[2 * c]     = no > 0 ? o[0] : -1;
        pp->cpeer[2 * c + 1] = no > 1 ? o[1] : -1;
        for (int e = 0; e < no; e++) pp->cptr[o[e] + 1]++;
      } else
        for (int e = 0; e < no; e++) pp->clist[pp->cptr[o[e]] + fill[o[e]]++] = pa->ninner + c;
    }
    if (pass == 0)
      for (PetscMPIInt r = 0; r < size; r++) pp->cptr[r + 1] += pp->cptr[r];
  }
  PetscCall(PetscFree(fill));
  pa->pp = pp;
  PetscFunctionReturn(0);
}

/* peer r's chunks are all done: its ghost states' sums into yg (the local output) and to r */
static PetscErrorCode PairPeerSend(BTECollision coll, PetscMPIInt r, PetscScalar *yg)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  PairPeers          pp = pa->pp;

  PetscFunctionBegin;
  PairReduceRange(&pa->L, pa->partial, (int32_t)(coll->nlocal + pp->frdsp[r]), (int32_t)(coll->nlocal + pp->frdsp[r + 1]), yg);
  for (PetscInt k = coll->rsdsp[r]; k < coll->rsdsp[r + 1]; k++) pp->rsbuf[k] = yg[coll->rfrom[k]];
  if (coll->rscnt[r]) PetscCallMPI(MPI_Isend(pp->rsbuf + coll->rsdsp[r], coll->rscnt[r], MPIU_SCALAR, r, pp->rtag, PetscObjectComm((PetscObject)coll), &pp->rreq[pp->size + r]));
  PetscFunctionReturn(0);
}

/* the chunks pp->ready[0..n) have run: the peers they were the last of send their sums */
static PetscErrorCode PairPeersSendSums(BTECollision coll, int64_t n, PetscScalar *yg)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  PairPeers          pp = pa->pp;

  PetscFunctionBegin;
  for (int64_t k = 0; k < n; k++)
    for (int e = 0; e < 2; e++) {
      const PetscMPIInt r = pp->cpeer[2 * (pp->ready[k] - pa->ninner) + e];
      if (r >= 0 && --pp->pend[r] == 0) PetscCall(PairPeerSend(coll, r, yg));
    }
  PetscFunctionReturn(0);
}

/* PairRunOverlap with -bte_pair_exchange_peers (above) */
static PetscErrorCode PairRunOverlapPeers(BTECollision coll, int mode, Vec f, Vec x, Vec Y)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  MPI_Comm             comm = PetscObjectComm((PetscObject)coll);
  const PetscScalar   *a;
  PetscScalar         *gl, *yg, *slots;
  Vec                  last = x ? x : f, lastl;
  const int64_t        nout = L->nchunk - pa->ninner;
  PairPeers            pp;
  int64_t              nready = 0;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (!L->col) PetscCall(BTEPairCUDADownload(pa->cuda, &pa->L)); /* built on the device, applied on the host */
#endif
  if (!pa->pp) PetscCall(PairPeersSetUp(coll));
  pp = pa->pp;
  PetscCall(BTECollisionGetLocalVec(coll, f, &coll->fl));
  if (x) PetscCall(BTECollisionGetLocalVec(coll, x, &coll->xl));
  lastl = x ? coll->xl : coll->fl;
  PetscCall(BTECollisionGetLocalVec(coll, Y, &pa->yl));
  PetscCall(PetscLogEventBegin(BTECOLL_Ghost, coll, f, x, 0));
  if (x) { /* f's ghosts in full first */
    PetscCall(BTECollisionGhostBegin(coll, f, coll->fl));
    PetscCall(BTECollisionGhostEnd(coll, f, coll->fl));
  }
  /* the owned values of `last` into the local vector, and one message to and from each peer */
  PetscCall(VecGetArrayRead(last, &a));
  PetscCall(VecGetArray(lastl, &gl));
  PetscCall(PetscArraycpy(gl, a, coll->nlocal));
  for (PetscMPIInt r = 0; r < pp->size; r++) {
    pp->req[r] = MPI_REQUEST_NULL;
    if (pp->frcnt[r]) PetscCallMPI(MPI_Irecv(gl + coll->nlocal + pp->frdsp[r], pp->frcnt[r], MPIU_SCALAR, r, pp->tag, comm, &pp->req[r]));
  }
  for (PetscInt k = 0; k < pp->fsdsp[pp->size]; k++) pp->sbuf[k] = a[pp->fsend[k]];
  for (PetscMPIInt r = 0; r < pp->size; r++) {
    pp->req[pp->size + r] = MPI_REQUEST_NULL;
    if (pp->fscnt[r]) PetscCallMPI(MPI_Isend(pp->sbuf + pp->fsdsp[r], pp->fscnt[r], MPIU_SCALAR, r, pp->tag, comm, &pp->req[pp->size + r]));
  }
  PetscCall(VecRestoreArrayRead(last, &a));
  PetscCall(PetscLogEventEnd(BTECOLL_Ghost, coll, f, x, 0));
  /* the other ranks' sums for the owned states: one message from each */
  PetscCall(BTECollisionReverseGetSlots_Private(coll, Y, &slots));
  for (PetscMPIInt r = 0; r < pp->size; r++) {
    pp->rreq[r] = pp->rreq[pp->size + r] = MPI_REQUEST_NULL;
    pp->pend[r]                          = pp->cptr[r + 1] - pp->cptr[r];
    if (coll->rrcnt[r]) PetscCallMPI(MPI_Irecv(pp->rrbuf + coll->rrdsp[r], coll->rrcnt[r], MPIU_SCALAR, r, pp->rtag, comm, &pp->rreq[r]));
  }
  PetscCall(VecGetArrayWrite(pa->yl, &yg));
  /* owned states first */
  PetscCall(PairOwnedFirst(coll, mode, f, x, NULL));
  /* the chunks that need ghosts, peer by peer as the values land */
  PetscCall(PetscLogEventBegin(BTECOLL_Outer, coll, 0, 0, 0));
  for (int64_t c = 0; c < nout; c++) {
    pp->cleft[c] = pp->cneed[c];
    if (!pp->cneed[c]) pp->ready[nready++] = pa->ninner + c;
  }
  if (nready) PetscCall(PairChunks(L, mode, pp->ready, 0, nready, pa->fp, x ? pa->xp : NULL, pa->partial));
  PetscCall(PairPeersSendSums(coll, nready, yg));
  for (PetscMPIInt r = 0; r < pp->size; r++) /* peers none of whose chunks wait (nothing to send, normally) */
    if (!pp->pend[r] && pp->cptr[r + 1] == pp->cptr[r]) PetscCall(PairPeerSend(coll, r, yg));
  if (x) PetscCall(VecGetArrayRead(coll->fl, &a));
  for (;;) {
    PetscMPIInt r;
    PetscCall(PetscLogEventBegin(BTECOLL_Ghost, coll, f, x, 0));
    PetscCallMPI(MPI_Waitany(pp->size, pp->req, &r, MPI_STATUS_IGNORE));
    PetscCall(PetscLogEventEnd(BTECOLL_Ghost, coll, f, x, 0));
    if (r == MPI_UNDEFINED) break;
    PairGather(L, pp->llo[r], pp->lhi[r], x ? a : gl, x ? gl : NULL, pa->fp, pa->xp);
    nready = 0;
    for (int64_t k = pp->cptr[r]; k < pp->cptr[r + 1]; k++)
      if (--pp->cleft[pp->clist[k] - pa->ninner] == 0) pp->ready[nready++] = pp->clist[k];
    if (nready) PetscCall(PairChunks(L, mode, pp->ready, 0, nready, pa->fp, x ? pa->xp : NULL, pa->partial));
    PetscCall(PairPeersSendSums(coll, nready, yg)); /* the peers whose chunks are all done */
  }
  if (x) PetscCall(VecRestoreArrayRead(coll->fl, &a));
  PetscCall(VecRestoreArray(lastl, &gl));
  PetscCall(VecRestoreArrayWrite(pa->yl, &yg));
  PetscCall(PetscLogEventEnd(BTECOLL_Outer, coll, 0, 0, 0));
  PetscCall(PairOwnedRest(coll, mode, x, Y, NULL));
  /* the other ranks' sums into their slots, added in rank order as BTECollisionReverseEnd does */
  PetscCall(PetscLogEventBegin(BTECOLL_GhostAdd, coll, pa->yl, Y, 0));
  PetscCallMPI(MPI_Waitall(pp->size, pp->rreq, MPI_STATUSES_IGNORE));
  for (PetscInt k = 0; k < coll->nrrecv; k++) slots[coll->rpos[k]] = pp->rrbuf[k];
  PetscCall(BTECollisionReverseRestoreSlots_Private(coll, &slots));
  PetscCall(BTECollisionReverseAddHost_Private(coll, NULL, Y));
  PetscCall(PetscLogFlops((PetscLogDouble)coll->nrrecv));
  PetscCallMPI(MPI_Waitall(pp->size, pp->rreq + pp->size, MPI_STATUSES_IGNORE));
  PetscCallMPI(MPI_Waitall(pp->size, pp->req + pp->size, MPI_STATUSES_IGNORE));
  PetscCall(PetscLogEventEnd(BTECOLL_GhostAdd, coll, pa->yl, Y, 0));
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* The same on the device: the kernels are queued on PETSc's stream, so the chunks queued between
   an exchange's Begin and End run on the device while the values move (by NCCL on the exchange's
   own stream, or by the VecScatter, through host memory when the MPI is not GPU-aware; exchange.c).
   The chunks of owned tiles read the owned values from the global Vecs, which the exchange does not
   write. */
static PetscErrorCode PairRunOverlapCUDA(BTECollision coll, int mode, Vec f, Vec x, Vec Y)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  Vec                  last = x ? x : f, lastl = NULL;
  const PetscLogDouble flops[3] = {9.0, 17.0, 8.0}; /* per entry */
  PetscBool            nccl = PETSC_FALSE;

  PetscFunctionBegin;
  if (!pa->cuda) PetscCall(BTEPairCUDACreate(&pa->L, &pa->cuda));
  if (pa->side) PetscCall(BTECollisionExchangeIsNCCL_Private(coll, f, &nccl));
  if (nccl) {
    /* -bte_pair_side_stream: all owned chunks in one launch on PETSc's stream; the chunks that
       need ghost values, the ghosts' sums and the reverse exchange's mark on the side stream
       (highest priority), which waits only for the ghost values. No launch waits for an exchange,
       so the device has one tail instead of three; the sums keep their slots (same result). */
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_START));
    PetscCall(PairGhostsBegin(coll, f, x, Y, &lastl));
    PetscCall(PetscLogEventBegin(BTECOLL_Inner, coll, 0, 0, 0));
    PetscCall(BTEPairCUDAChunks(pa->cuda, mode, 0, pa->ninner, f, x));
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_OWNED));
    PetscCall(PetscLogEventEnd(BTECOLL_Inner, coll, 0, 0, 0));
    PetscCall(PetscLogEventBegin(BTECOLL_Outer, coll, 0, 0, 0));
    PetscCall(BTECollisionGhostPost(coll));
    PetscCall(BTEPairCUDASideBegin(pa->cuda));
    PetscCall(BTECollisionGhostEnd(coll, last, lastl));
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_GHOSTS_IN));
    PetscCall(BTEPairCUDAChunks(pa->cuda, mode, pa->ninner, L->nchunk, coll->fl, x ? coll->xl : NULL));
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_GHOST_WORK));
    PetscCall(BTEPairCUDAReduce(pa->cuda, coll->nlocal, L->nlocal, pa->yl));
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_GHOST_SUMS));
    PetscCall(BTECollisionReverseBegin(coll, pa->yl, Y));
    PetscCall(BTECollisionReversePost(coll));
    PetscCall(BTEPairCUDASideEnd(pa->cuda));
    PetscCall(PetscLogEventEnd(BTECOLL_Outer, coll, 0, 0, 0));
    PetscCall(BTEPairCUDAReduce(pa->cuda, 0, coll->nlocal, Y));
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_OWNED_SUMS));
    PetscCall(PetscLogGpuFlops(flops[mode] * (PetscLogDouble)L->nnz + (PetscLogDouble)L->sptr[L->nlocal]));
    PetscCall(BTECollisionReverseEnd(coll, pa->yl, NULL, Y));
    if (pa->timeline) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_END));
    PetscFunctionReturn(0);
  }
  PetscCall(PairGhostsBegin(coll, f, x, Y, &lastl));
  PetscCall(PetscLogEventBegin(BTECOLL_Inner, coll, 0, 0, 0));
  PetscCall(BTEPairCUDAChunks(pa->cuda, mode, 0, pa->nfwd, f, x));
  PetscCall(PetscLogEventEnd(BTECOLL_Inner, coll, 0, 0, 0));
  PetscCall(PetscLogEventBegin(BTECOLL_Ghost, coll, f, x, 0));
  PetscCall(BTECollisionGhostPost(coll)); /* -bte_exchange_work_first: NCCL's calls after the launches */
  PetscCall(BTECollisionGhostEnd(coll, last, lastl));
  PetscCall(PetscLogEventEnd(BTECOLL_Ghost, coll, f, x, 0));
  PetscCall(PetscLogEventBegin(BTECOLL_Outer, coll, 0, 0, 0));
  PetscCall(BTEPairCUDAChunks(pa->cuda, mode, pa->ninner, L->nchunk, coll->fl, x ? coll->xl : NULL));
  PetscCall(BTEPairCUDAReduce(pa->cuda, coll->nlocal, L->nlocal, pa->yl));
  PetscCall(PetscLogEventEnd(BTECOLL_Outer, coll, 0, 0, 0));
  PetscCall(BTECollisionReverseBegin(coll, pa->yl, Y));
  PetscCall(PetscLogEventBegin(BTECOLL_Inner, coll, 0, 0, 0));
  PetscCall(BTEPairCUDAChunks(pa->cuda, mode, pa->nfwd, pa->ninner, f, x));
  PetscCall(BTEPairCUDAReduce(pa->cuda, 0, coll->nlocal, Y));
  PetscCall(PetscLogEventEnd(BTECOLL_Inner, coll, 0, 0, 0));
  PetscCall(PetscLogGpuFlops(flops[mode] * (PetscLogDouble)L->nnz + (PetscLogDouble)L->sptr[L->nlocal]));
  PetscCall(BTECollisionReversePost(coll)); /* as above; End would post it too */
  PetscCall(BTECollisionReverseEnd(coll, pa->yl, NULL, Y));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode PairRun(BTECollision coll, int mode, Vec fl, Vec xl, Vec Y)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  const PetscScalar   *f, *x = NULL;
  PetscScalar         *y;
  const PetscLogDouble flops[3] = {9.0, 17.0, 8.0}; /* per entry */

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (!L->col) PetscCall(BTEPairCUDADownload(pa->cuda, &pa->L)); /* built on the device, applied on the host */
#endif
  PetscCall(VecGetArrayRead(fl, &f));
  if (xl) PetscCall(VecGetArrayRead(xl, &x));
  PairGather(L, 0, (int64_t)L->ntile * L->tile, f, x, pa->fp, pa->xp);
  if (xl) PetscCall(VecRestoreArrayRead(xl, &x));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(PairChunks(L, mode, NULL, 0, L->nchunk, pa->fp, xl ? pa->xp : NULL, pa->partial));
  PetscCall(VecGetArrayWrite(Y, &y));
  PairReduce(L, pa->partial, y);
  PetscCall(VecRestoreArrayWrite(Y, &y));
  PetscCall(PetscLogFlops(flops[mode] * (PetscLogDouble)L->nnz + (PetscLogDouble)L->sptr[L->nlocal]));
  PetscFunctionReturn(0);
}

/* On the device when fl is a CUDA Vec, else with OpenMP; the layout's reduction writes Y
   (states partition: the owned states) or the local vector yl (pairs: owned and ghost states),
   whose ghost entries then go to their owners. */
static PetscErrorCode PairApply(BTECollision coll, int mode, Vec fl, Vec xl, Vec Y)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  Vec                out = Y;
  PetscBool          dev = PETSC_FALSE;

  PetscFunctionBegin;
  if (pa->pairs) {
    PetscCall(BTECollisionGetLocalVec(coll, Y, &pa->yl));
    out = pa->yl;
  }
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollisionVecIsCUDA(fl, &dev));
  if (dev) {
    if (!pa->cuda) PetscCall(BTEPairCUDACreate(&pa->L, &pa->cuda));
    /* timeline: with pairs on several ranks only the overlapped applies are timed (this unsplit
       path, MatMult and diag J, has other steps: mixed in, the means would not be of one path) */
    const PetscBool mark = pa->timeline && !pa->pairs ? PETSC_TRUE : PETSC_FALSE;
    if (mark) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_START));
    PetscCall(BTEPairCUDARun(pa->cuda, mode, fl, xl, out, mark));
    if (mark) PetscCall(BTEPairCUDAMark(pa->cuda, BTE_PAIR_MARK_OWNED_SUMS));
  }
#endif
  if (!dev) PetscCall(PairRun(coll, mode, fl, xl, out));
  if (pa->pairs) PetscCall(BTECollisionLocalToGlobalAdd(coll, pa->yl, Y));
  PetscFunctionReturn(0);
}

/* I[f] or J(f) x from the global Vecs: the overlapped path (host or device) with the pairs
   partition; *done false otherwise (the generic layer then exchanges the ghosts and calls
   apply/jacobian_apply) */
static PetscErrorCode BTECollisionApplyGlobal_Pair(BTECollision coll, int mode, Vec f, Vec x, Vec Y, PetscBool *done)
{
  BTECollision_Pair *pa  = (BTECollision_Pair *)coll->data;
  PetscBool          dev = PETSC_FALSE;

  PetscFunctionBegin;
  *done = pa->pairs;
  if (!*done) PetscFunctionReturn(0);
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTECollisionVecIsCUDA(f, &dev));
  if (dev) PetscCall(PairRunOverlapCUDA(coll, mode, f, x, Y));
#endif
  if (!dev && pa->peers && coll->gslot) PetscCall(PairRunOverlapPeers(coll, mode, f, x, Y));
  else if (!dev) PetscCall(PairRunOverlap(coll, mode, f, x, Y));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionApply_Pair(BTECollision coll, Vec fl, Vec Iv)
{
  PetscFunctionBegin;
  PetscCall(PairApply(coll, 0, fl, NULL, Iv));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianApply_Pair(BTECollision coll, Vec fl, Vec xl, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(PairApply(coll, 1, fl, xl, Y));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianDiagonal_Pair(BTECollision coll, Vec fl, Vec D)
{
  PetscFunctionBegin;
  PetscCall(PairApply(coll, 2, fl, NULL, D));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Layout construction. Memory beyond the table and ci/cj: 16 B per channel (P, Q) while the
   entries are placed, then the layout itself (2 B row + 2 B column + weights per channel until
   the pairs are merged and the arrays shrunk). */

typedef struct {
  uint32_t key; /* row * tile + column */
  uint32_t src; /* position in the block before the sort (what a refresh of the rates follows) */
  double   p, q;
} PairEntry;

static int PairEntryCmp(const void *a, const void *b)
{
  const PairEntry *x = (const PairEntry *)a, *y = (const PairEntry *)b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  if (x->p != y->p) return (x->p > y->p) - (x->p < y->p); /* duplicates (several modes): a fixed */
  return (x->q > y->q) - (x->q < y->q);                   /* summation order */
}

/* Sorts the entries of every block by (row, column) and merges repeated pairs; mcount[blk]
   receives the merged count (entries stay at the start of the block's range). With pch (a
   refresh of the rates will follow this build): the channels of the block's entries (pch, in
   placement order) are put into the sorted order, and ecnt[boff[blk] + m] receives the number of
   channels merged into the block's m-th pair. */
static PetscErrorCode PairSortMerge(BTEPairLayout *L, int64_t nblk, const int64_t *boff, uint16_t *row, int64_t *mcount, int64_t *pch, int32_t *ecnt)
{
  int64_t        maxlen = 0;
  PetscErrorCode ierr   = 0;
  const int64_t  tile   = L->tile;

  PetscFunctionBegin;
  for (int64_t k = 0; k < nblk; k++) maxlen = PetscMax(maxlen, boff[k + 1] - boff[k]);
  PetscCheck(maxlen < (int64_t)UINT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "pair layout: %" PetscInt64_FMT " entries in one tile pair; use a smaller -bte_pair_tile", (PetscInt64)maxlen);
#pragma omp parallel reduction(| : ierr)
  {
    PairEntry *tmp  = (PairEntry *)malloc((size_t)PetscMax(maxlen, 1) * sizeof(PairEntry));
    int64_t   *cbuf = pch ? (int64_t *)malloc((size_t)PetscMax(maxlen, 1) * sizeof(int64_t)) : NULL;
    if (!tmp || (pch && !cbuf)) ierr = PETSC_ERR_MEM;
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < nblk; k++) {
      const int64_t o = boff[k], len = boff[k + 1] - o;
      int64_t       m = 0;
      if (!tmp || (pch && !cbuf) || !len) {
        mcount[k] = 0;
        continue;
      }
      for (int64_t e = 0; e < len; e++) {
        tmp[e].key = (uint32_t)(row[o + e] * tile + L->col[o + e]);
        tmp[e].src = (uint32_t)e;
        tmp[e].p   = L->ws ? (double)L->ws[2 * (o + e)] : L->w[2 * (o + e)];
        tmp[e].q   = L->ws ? (double)L->ws[2 * (o + e) + 1] : L->w[2 * (o + e) + 1];
      }
      qsort(tmp, (size_t)len, sizeof(PairEntry), PairEntryCmp);
      if (pch) {
        for (int64_t e = 0; e < len; e++) cbuf[e] = pch[o + tmp[e].src];
        memcpy(pch + o, cbuf, (size_t)len * sizeof(int64_t));
      }
      for (int64_t e = 0; e < len; e++) {
        if (m > 0 && tmp[m - 1].key == tmp[e].key) {
          tmp[m - 1].p += tmp[e].p;
          tmp[m - 1].q += tmp[e].q;
          if (ecnt) ecnt[o + m - 1]++;
        } else {
          tmp[m++] = tmp[e];
          if (ecnt) ecnt[o + m - 1] = 1;
        }
      }
      for (int64_t e = 0; e < m; e++) {
        row[o + e]   = (uint16_t)(tmp[e].key / tile);
        L->col[o + e] = (uint16_t)(tmp[e].key % tile);
        if (L->ws) {
          L->ws[2 * (o + e)]     = (float)tmp[e].p;
          L->ws[2 * (o + e) + 1] = (float)tmp[e].q;
        } else {
          L->w[2 * (o + e)]     = tmp[e].p;
          L->w[2 * (o + e) + 1] = tmp[e].q;
        }
      }
      mcount[k] = m;
    }
    free(tmp);
    free(cbuf);
  }
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the per-thread block buffers of the pair layout (%" PetscInt64_FMT " entries per block)", (PetscInt64)maxlen);
  PetscFunctionReturn(0);
}

/* The non-empty rows of the merged, compacted blocks (row key = block * tile + row, entry count). */
static PetscErrorCode PairRowsHost(const BTEPairLayout *L, int64_t nblk, const int64_t *moff, const uint16_t *row, int64_t *nrows, uint64_t **rowkey, int32_t **rowcount)
{
  int64_t nr = 0;

  PetscFunctionBegin;
  for (int64_t k = 0; k < nblk; k++)
    for (int64_t e = moff[k]; e < moff[k + 1]; e++) nr += (e == moff[k] || row[e] != row[e - 1]);
  PetscCall(PetscMalloc2(PetscMax(nr, 1), rowkey, PetscMax(nr, 1), rowcount));
  nr = 0;
  for (int64_t k = 0; k < nblk; k++)
    for (int64_t e = moff[k]; e < moff[k + 1]; e++) {
      if (e == moff[k] || row[e] != row[e - 1]) {
        (*rowkey)[nr]   = (uint64_t)k * (uint64_t)L->tile + row[e];
        (*rowcount)[nr] = 0;
        nr++;
      }
      (*rowcount)[nr - 1]++;
    }
  *nrows = nr;
  PetscFunctionReturn(0);
}

/* Column bitmap of every chunk ((tile+31)/32 words each): bit t is set when column t of the
   chunk's column tile has an entry. */
static PetscErrorCode PairTouchedHost(const BTEPairLayout *L, uint32_t **bits)
{
  const int32_t words = (L->tile + 31) / 32;
  uint32_t     *b;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax((size_t)L->nchunk * words, (size_t)1), &b));
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t c = 0; c < L->nchunk; c++) {
    const BTEPairChunk *ch = &L->chunks[c];
    uint32_t           *w  = b + (size_t)c * words;
    for (int64_t e = L->rowptr[ch->rp]; e < L->rowptr[ch->rp + ch->nrows]; e++) w[L->col[e] >> 5] |= 1u << (L->col[e] & 31);
  }
  *bits = b;
  PetscFunctionReturn(0);
}

/* Slots of every owned state, in chunk order (so that the sums have a fixed order): the rows
   of a chunk that have entries, then its columns that have entries (bits: PairTouchedHost). */
static PetscErrorCode PairSlots(BTEPairLayout *L, const uint32_t *bits)
{
  const int32_t words = (L->tile + 31) / 32;
  int64_t      *cnt   = NULL;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(L->nlocal + 1, &L->sptr));
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) {
      for (int32_t s = 0; s < L->nlocal; s++) L->sptr[s + 1] += L->sptr[s];
      PetscCheck(L->sptr[L->nlocal] < INT32_MAX && L->npartial < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "pair layout: partial buffer too large for 32-bit slots; use a larger -bte_pair_chunk");
      PetscCall(PetscMalloc1(L->sptr[L->nlocal], &L->slots));
      PetscCall(PetscMalloc1(L->nlocal, &cnt));
      for (int32_t s = 0; s < L->nlocal; s++) cnt[s] = L->sptr[s];
    }
    for (int64_t c = 0; c < L->nchunk; c++) {
      const BTEPairChunk *ch = &L->chunks[c];
      const int32_t      *pI = L->perm + (size_t)ch->tile_i * L->tile, *pJ = L->perm + (size_t)ch->tile_j * L->tile;
      const uint32_t     *w  = bits + (size_t)c * words;
      for (int32_t r = 0; r < ch->nrows; r++) {
        const int32_t a = pI[ch->row0 + r];
        if (L->rowptr[ch->rp + r + 1] > L->rowptr[ch->rp + r] && a < L->nlocal) {
          if (pass == 0) L->sptr[a + 1]++;
          else L->slots[cnt[a]++] = (int32_t)(ch->slot + r);
        }
      }
      for (int32_t t = 0; t < L->tile; t++) {
        const int32_t b = pJ[t];
        if (!(w[t >> 5] >> (t & 31) & 1u) || b < 0 || b >= L->nlocal) continue;
        if (pass == 0) L->sptr[b + 1]++;
        else L->slots[cnt[b]++] = (int32_t)(ch->slot + ch->nrows + t);
      }
    }
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

/* Chunks and row pointers from the non-empty rows of the merged layout (row key = tile pair *
   tile + row, ascending; cnt entries each), cut into chunks of whole rows of at most
   `chunk` entries (unless one row is longer). */
static PetscErrorCode PairChunksFromRows(BTEPairLayout *L, int64_t nrows, const uint64_t *rk, const int32_t *cnt, int64_t chunk)
{
  const uint64_t tile = (uint64_t)L->tile;

  PetscFunctionBegin;
  for (int fill = 0; fill < 2; fill++) {
    int64_t nc = 0, nrp = 0, slot = 0, off = 0, r = 0;
    if (fill) {
      PetscCall(PetscMalloc1(PetscMax(L->nchunk, 1), &L->chunks));
      PetscCall(PetscMalloc1(PetscMax(L->nrowptr, 1), &L->rowptr));
    }
    while (r < nrows) {
      const uint64_t blk  = rk[r] / tile;
      int64_t        rend = r, q = r;
      while (rend < nrows && rk[rend] / tile == blk) rend++;
      while (q < rend) {
        const int32_t r0 = (int32_t)(rk[q] % tile);
        int64_t       q2 = q, ne = 0, nr;
        while (q2 < rend && !(q2 > q && ne + cnt[q2] > chunk)) ne += cnt[q2++];
        nr = (int64_t)(rk[q2 - 1] % tile) - r0 + 1;
        if (fill) {
          BTEPairChunk *c   = &L->chunks[nc];
          int64_t       e   = off, idx = q;
          c->tile_i         = (int32_t)(blk / (uint64_t)L->ntile);
          c->tile_j         = (int32_t)(blk % (uint64_t)L->ntile);
          c->row0           = r0;
          c->nrows          = (int32_t)nr;
          c->rp             = nrp;
          c->slot           = slot;
          for (int64_t rr = 0; rr <= nr; rr++) {
            while (idx < q2 && (int64_t)(rk[idx] % tile) < r0 + rr) e += cnt[idx++];
            L->rowptr[nrp + rr] = e;
          }
          slot += nr + L->tile;
        }
        off += ne;
        nrp += nr + 1;
        nc++;
        q = q2;
      }
      r = rend;
    }
    if (!fill) {
      L->nchunk  = nc;
      L->nrowptr = nrp;
    } else L->npartial = slot;
  }
  PetscFunctionReturn(0);
}

static inline int64_t PairChunkEntries(const BTEPairLayout *L, const BTEPairChunk *ch)
{
  return L->rowptr[ch->rp + ch->nrows] - L->rowptr[ch->rp];
}

/* In a parallel region: this thread's share [c0, c1) of n items, in thread order; returns the thread. */
static inline int PairThreadShare(PetscCount n, PetscCount *c0, PetscCount *c1)
{
  int t = 0, m = 1;
#if defined(_OPENMP)
  t = omp_get_thread_num();
  m = omp_get_num_threads();
#endif
  *c0 = (n * t) / m;
  *c1 = (n * (t + 1)) / m;
  return t;
}

/* Default chunk length: about 2048 chunks, but at least 8192 entries each: a chunk's fixed work
   (tile gathers, zeroing and adding the per-warp column arrays, its partial sums) must stay small
   against its entries (H200 sweep, gpu-notes run 16: gaas 60^3 0.085 ms with 8192 against 0.118
   with 2048) */
static int64_t PairDefaultChunk(int64_t nnz)
{
  return PetscMin(PetscMax(nnz / 2048, 8192), 65536);
}

/* pairs: the chunks of owned tiles only (they need no ghost value) first, in their order, then
   the others; about half of the former's entries hide the forward exchange, the rest the reverse
   one. A chunk carries its row pointers and partial-sum slots, so moving it changes no sum. */
static PetscErrorCode PairOrderChunks(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L  = &pa->L;
  BTEPairChunk      *c;
  int64_t            k = 0, ein = 0, e = 0;

  PetscFunctionBegin;
  pa->ninner = pa->nfwd = 0;
  if (!pa->pairs) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(PetscMax(L->nchunk, 1), &c));
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t q = 0; q < L->nchunk; q++) {
      PetscBool inner = L->chunks[q].tile_i < pa->nto && L->chunks[q].tile_j < pa->nto ? PETSC_TRUE : PETSC_FALSE;
      if (inner == (pass == 0)) c[k++] = L->chunks[q];
    }
    if (pass == 0) pa->ninner = k;
  }
  PetscCall(PetscArraycpy(L->chunks, c, L->nchunk));
  PetscCall(PetscFree(c));
  for (int64_t q = 0; q < pa->ninner; q++) ein += PairChunkEntries(L, &L->chunks[q]);
  for (pa->nfwd = 0; pa->nfwd < pa->ninner && 2 * e < ein; pa->nfwd++) e += PairChunkEntries(L, &L->chunks[pa->nfwd]);
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* pairs partition: the channels this rank computes, copied out in channel order by all threads
   into a host buffer of at most -bte_pair_copy_piece channels and given to the device builder
   piece by piece (the builder keys each piece at its place: the same keys as one copy of them
   all). A whole compact copy (24 B per computed channel) was a quarter of a rank's host memory at
   its peak on two ranks of GaAs 190^3; at ~1e9 held channels a serial pass with two owner
   searches per channel took most of a multi-rank setup, hence the threads. */
static PetscErrorCode PairComputedToDevice(BTECollision coll, BTEPairCUDABuilder B, PetscCount ncomp)
{
  const BTEChannels *ch  = &coll->bte->ch;
  const PetscCount   blk = 65536, nb = (ch->n + blk - 1) / blk; /* blocks of held channels */
  PetscInt          *ci, *cj;
  PetscReal         *hw, *g2;
  PetscCount        *boff, piece = PetscMin(PetscMax(ncomp, 1), (PetscCount)((BTECollision_Pair *)coll->data)->piece);
  PetscLogDouble     t0, t1, tcopy = 0, tdev = 0;

  PetscFunctionBegin;
  PetscCall(BTEChannelsGetHost(coll->bte));
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMalloc4(piece, &ci, piece, &cj, piece, &hw, piece, &g2));
  /* the computed channels of each block, then their compact positions: block b's are
     [boff[b], boff[b+1]), in channel order */
  PetscCall(PetscCalloc1(nb + 1, &boff));
#pragma omp parallel for schedule(dynamic, 16)
  for (PetscCount b = 0; b < nb; b++) {
    PetscCount m = 0;
    for (PetscCount c = b * blk; c < PetscMin((b + 1) * blk, ch->n); c++) m += BTECollComputes(coll, ch->i[c], ch->j[c]);
    boff[b + 1] = m;
  }
  for (PetscCount b = 0; b < nb; b++) boff[b + 1] += boff[b];
  PetscCheck(boff[nb] == ncomp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair: %" PetscCount_FMT " computed channels, expected %" PetscCount_FMT, boff[nb], ncomp);
  PetscCall(PetscTime(&t1));
  tcopy = t1 - t0;
  for (PetscCount p0 = 0, b0 = 0; p0 < ncomp; p0 += piece) {
    const PetscCount p1 = PetscMin(p0 + piece, ncomp);
    PetscCount       b1;
    PetscLogDouble   ta, tb, tc;
    PetscCall(PetscTime(&ta));
    while (boff[b0 + 1] <= p0) b0++; /* the first block with positions in [p0, p1) */
    for (b1 = b0; b1 < nb && boff[b1] < p1; b1++) {}
    /* the blocks in parallel, each writing its positions within [p0, p1) */
#pragma omp parallel for schedule(dynamic, 4)
    for (PetscCount b = b0; b < b1; b++) {
      PetscCount m = boff[b];
      for (PetscCount c = b * blk; c < PetscMin((b + 1) * blk, ch->n) && m < p1; c++)
        if (BTECollComputes(coll, ch->i[c], ch->j[c])) {
          if (m >= p0) ci[m - p0] = ch->i[c], cj[m - p0] = ch->j[c], hw[m - p0] = ch->hw[c], g2[m - p0] = ch->g2[c];
          m++;
        }
    }
    PetscCall(PetscTime(&tb));
    PetscCall(BTEPairCUDABuilderAdd(B, NULL, p1 - p0, ci, cj, hw, g2));
    PetscCall(PetscTime(&tc));
    tcopy += tb - ta;
    tdev += tc - tb;
  }
  PetscCall(PetscFree(boff));
  PetscCall(PetscInfo(coll, "pair device build, pairs partition: %" PetscCount_FMT " of %" PetscCount_FMT " held channels copied out in pieces of at most %" PetscCount_FMT " (%.3f s), moved to the device and keyed (%.3f s)\n", ncomp, ch->n, piece, tcopy, tdev));
  PetscCall(PetscFree4(ci, cj, hw, g2));
  PetscFunctionReturn(0);
}
#endif

#if defined(BTE_HAVE_CUDA)
/* The layout built on the device (pair_build_cuda.cu): the table's channel arrays go to the
   device as they are; here only the row structure's chunks and the slot lists. */
static PetscErrorCode PairBuildDevice(BTECollision coll, BTEPairCUDABuilder B, PetscCount ncomp)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L  = &pa->L;
  const BTEChannels *ch = &coll->bte->ch;
  PetscInt64         nnz = 0, nrows = 0, chunk = pa->chunk;
  uint64_t          *rowkey;
  int32_t           *rowcount;
  uint32_t          *bits;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_LayoutPlace, coll, 0, 0, 0));
  if (!pa->pairs) {
    PetscBool ondev; /* the GPU import's channels, kept on the device: the host arrays are not read */
    PetscCall(BTEPairCUDAHasChannels((PetscObject)coll->bte, ch->n, ch->i, ch->g2, &ondev));
    if (!ondev) PetscCall(BTEChannelsGetHost(coll->bte));
    PetscCall(BTEPairCUDABuilderAdd(B, (PetscObject)coll->bte, ch->n, ch->i, ch->j, ch->hw, ch->g2));
  } else {
    PetscBool done = PETSC_FALSE;
    PetscCall(BTEChannelsGetHost(coll->bte));
    if (pa->devselect) {
      BTECollPartitionRule sel;
      BTECollPartitionRuleGet(coll, &sel);
      PetscCall(BTEPairCUDABuilderAddSelected(B, (PetscObject)coll->bte, ch->n, ch->i, ch->j, ch->hw, ch->g2, &sel, &done));
    }
    if (!done) PetscCall(PairComputedToDevice(coll, B, ncomp));
  }
  PetscCall(PetscLogEventEnd(BTECOLL_LayoutPlace, coll, 0, 0, 0));
  PetscCall(PetscLogEventBegin(BTECOLL_LayoutMerge, coll, 0, 0, 0));
  PetscCall(BTEPairCUDABuilderMerge(B, &nnz, &nrows, &rowkey, &rowcount));
  PetscCall(PetscLogEventEnd(BTECOLL_LayoutMerge, coll, 0, 0, 0));
  PetscCall(PetscLogEventBegin(BTECOLL_LayoutIndex, coll, 0, 0, 0));
  L->nnz = nnz;
  if (chunk <= 0) chunk = PairDefaultChunk(L->nnz);
  PetscCall(PairChunksFromRows(L, nrows, rowkey, rowcount, chunk));
  PetscCall(PetscFree2(rowkey, rowcount));
  PetscCall(BTEPairCUDABuilderTouched(B, L, &bits));
  PetscCall(PairSlots(L, bits));
  PetscCall(PetscFree(bits));
  PetscCall(PairOrderChunks(coll));
  PetscCall(BTEPairCUDABuilderFinish(&B, L, &pa->cuda, &pa->rates));
  PetscCall(PetscLogEventEnd(BTECOLL_LayoutIndex, coll, 0, 0, 0));
  pa->ondevice = PETSC_TRUE;
  PetscFunctionReturn(0);
}
#endif

/* Where to build: -bte_pair_build, or (auto) on the device when the run's state Vecs are CUDA Vecs. */
static PetscErrorCode PairBuildOnDevice(BTECollision coll, PetscBool *dev)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;

  PetscFunctionBegin;
  /* -bte_pair_one_rate: made from a layout built on the host (PairOneRate), then copied up */
  PetscCheck(!pa->onerate || pa->build != 2, PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "-bte_pair_one_rate builds the layout on the host: not with -bte_pair_build device");
  *dev = pa->build == 2 ? PETSC_TRUE : PETSC_FALSE;
  if (pa->onerate) PetscFunctionReturn(0);
#if !defined(BTE_HAVE_CUDA)
  PetscCheck(!*dev, PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "-bte_pair_build device needs bte built with a CUDA PETSc");
#else
  if (pa->build == 0) {
    Vec v;
    PetscCall(BTECreateStateVec(coll->bte, &v));
    PetscCall(BTECollisionVecIsCUDA(v, dev));
    PetscCall(VecDestroy(&v));
  }
#endif
  PetscFunctionReturn(0);
}

/* -bte_pair_one_rate: with the balanced delta the two rates of a pair (a, b) obey Q = P exp((e_b -
   e_a) / kT) exactly (every channel of the pair does: docs/collision.md), so the layout keeps one
   rate per pair (10 B per pair instead of 18 in double, 6 instead of 10 in mixed precision) and
   the apply forms the other from per-state factors (pairlayout.h). It keeps the downhill rate (the
   larger, from the higher-energy state) and forms the uphill one, ratio r = exp((e_b - e_a)/kT)
   <= 1 times it: the uphill rate of the two-rate formulas loses digits when r is tiny (low
   temperatures: the balanced weights a', b' cancel), the formed one does not. Made from the
   built layout: the stored uphill rate of every pair is checked against the formed one, relative
   to the downhill rate (rounding: 1e-12 in double, 1e-6 in float), then dropped. */
static PetscErrorCode PairOneRate(BTECollision coll)
{
  BTECollision_Pair *pa  = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L   = &pa->L;
  const int64_t      nl  = (int64_t)L->ntile * L->tile;
  const PetscBool    mix = L->ws ? PETSC_TRUE : PETSC_FALSE;
  double             err = 0;
  int                bad = 0; /* a Boltzmann factor not finite (beyond double range: very low T) */

  PetscFunctionBegin;
  L->kT = coll->kTdb;
  PetscCall(PetscMalloc2(PetscMax(nl, 1), &L->z, PetscMax(L->ntile, 1), &L->zref));
  for (int32_t t = 0; t < L->ntile; t++) {
    L->zref[t] = 0;
    for (int32_t u = 0; u < L->tile; u++) {
      const int32_t s = L->perm[(int64_t)t * L->tile + u];
      if (s >= 0) {
        L->zref[t] = coll->energy[s];
        break;
      }
    }
  }
  for (int64_t l = 0; l < nl; l++) L->z[l] = L->perm[l] >= 0 ? exp((coll->energy[L->perm[l]] - L->zref[l / L->tile]) / L->kT) : 1.0;
#pragma omp parallel for schedule(dynamic, 16) reduction(max : err) reduction(| : bad)
  for (int64_t c = 0; c < L->nchunk; c++) {
    const BTEPairChunk *ch = &L->chunks[c];
    const double       *zI = L->z + (size_t)ch->tile_i * L->tile, *zJ = L->z + (size_t)ch->tile_j * L->tile, cf = PairOneRateFactor(L, ch);
    for (int32_t r = 0; r < ch->nrows; r++) {
      const double rf = cf / zI[ch->row0 + r];
      for (int64_t e = L->rowptr[ch->rp + r]; e < L->rowptr[ch->rp + r + 1]; e++) {
        const double P = mix ? (double)L->ws[2 * e] : L->w[2 * e], Q = mix ? (double)L->ws[2 * e + 1] : L->w[2 * e + 1], rr = zJ[L->col[e]] * rf;
        const double D = rr >= 1.0 ? Q : P, U = rr >= 1.0 ? P : Q, Uf = rr >= 1.0 ? D / rr : D * rr; /* downhill kept, uphill formed */
        if (!PetscIsNormalReal(rr)) bad = 1;
        else if (D > 0) err = PetscMax(err, PetscAbsReal(U - Uf) / D);
        if (mix) L->ws[2 * e] = (float)D;
        else L->w[2 * e] = D;
      }
    }
  }
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_SUP, "-bte_pair_one_rate: the Boltzmann factors within a tile leave the double range at kT = %g eV; use the two-rate layout at this temperature", (double)L->kT);
  PetscCheck(err <= (mix ? 1e-6 : 1e-12), PETSC_COMM_SELF, PETSC_ERR_PLIB, "-bte_pair_one_rate: the pairs' rates differ from detailed balance by %g (relative), more than rounding", (double)err);
  for (int64_t e = 0; e < L->nnz; e++) { /* in place: the kept rates to the front */
    if (mix) L->ws[e] = L->ws[2 * e];
    else L->w[e] = L->w[2 * e];
  }
  if (mix) PetscCall(PetscRealloc((size_t)PetscMax(L->nnz, 1) * sizeof(float), &L->ws));
  else PetscCall(PetscRealloc((size_t)PetscMax(L->nnz, 1) * sizeof(double), &L->w));
  L->onerate = 1;
  PetscCall(PetscInfo(coll, "pair layout: one rate per pair (Q from the Boltzmann factor of the states' energies, kT %g eV); largest difference of the stored uphill rate from the formed one, relative to the downhill rate, %g\n", (double)L->kT, (double)err));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionSetUp_Pair(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L  = &pa->L;
  PetscInt          *ci, *cj;
  PetscCount         nch = coll->nch;
  PetscInt           n = coll->nlocal + coll->nghost, *order, *inv, *gs, *gsi = NULL, ngt;
  int64_t            nblk, *boff, *pos, *mcount, *moff, tile = pa->tile, chunk = pa->chunk;
  PetscReal         *P, *Q, *en;
  uint16_t          *row;
  uint32_t          *bits = NULL;
  int64_t           *pch  = NULL; /* -bte_collision_refresh: channel of every placed entry */
  int32_t           *ecnt = NULL; /* -bte_collision_refresh: channels merged into each pair */
  PetscBool          mixed = coll->precision == BTE_COLLISION_PRECISION_MIXED ? PETSC_TRUE : PETSC_FALSE, dev;

  PetscFunctionBegin;
  PetscCheck(tile >= 32 && tile <= 65536, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_tile must be in [32, 65536], got %" PetscInt64_FMT, (PetscInt64)tile);
  PetscCheck(!pa->onerate || coll->kTdb > 0, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_INCOMP, "-bte_pair_one_rate needs -bte_delta balanced (only then are the two rates of a pair tied by the Boltzmann factor of its states' energies)");
  pa->pairs = coll->part == BTE_COLLISION_PARTITION_PAIRS && coll->psize > 1 ? PETSC_TRUE : PETSC_FALSE;
  L->tile   = (int32_t)tile;
  L->nlocal = (int32_t)(pa->pairs ? n : coll->nlocal); /* the states whose sums are reduced */
  L->n      = (int32_t)n;
  /* pairs: owned states fill the first tiles and ghosts the next ones, so that the chunks of two
     owned tiles can run while the ghost values are on their way */
  pa->nto   = (int32_t)(pa->pairs ? (coll->nlocal + tile - 1) / tile : 0);
  L->ntile  = (int32_t)(pa->pairs ? pa->nto + (coll->nghost + tile - 1) / tile : (n + tile - 1) / tile);
  /* tile blocks: the partition decided per tile pair of the owners' tiles (coll->gslot), so the owned
     tiles are those tiles, and the ghosts of one owner's tile make one ghost tile (at their places
     in it; the others empty): every chunk of a tile pair is then computed whole by one rank */
  gs = NULL;
  if (pa->pairs && coll->gslot) {
    PetscCheck(coll->ptile == tile, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pairs partition in tiles of %" PetscInt_FMT " states, the layout's are %" PetscInt64_FMT, coll->ptile, (PetscInt64)tile);
    PetscCall(PetscMalloc2(PetscMax(coll->nghost, 1), &gs, PetscMax(coll->nghost, 1), &gsi));
    for (PetscInt k = 0; k < coll->nghost; k++) {
      gs[k]  = coll->gslot[coll->ghosts[k]];
      gsi[k] = coll->nlocal + k;
    }
    PetscCall(PetscSortIntWithArray(coll->nghost, gs, gsi));
    ngt = 0;
    for (PetscInt k = 0; k < coll->nghost; k++) ngt += k == 0 || gs[k] / tile != gs[k - 1] / tile;
    L->ntile = (int32_t)(pa->nto + ngt);
  }
  L->unroll = (int32_t)(pa->unroll ? pa->unroll : 4);
  L->rbatch = (int32_t)pa->rbatch;
  L->rlanes = (int32_t)pa->rlanes;
  nblk      = (int64_t)L->ntile * L->ntile;
  PetscCheck(nblk <= ((int64_t)1 << 28), PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "pair layout: %" PetscInt_FMT " states make %" PetscInt64_FMT " tile pairs with -bte_pair_tile %" PetscInt64_FMT "; use a larger tile", n, (PetscInt64)nblk, (PetscInt64)tile);
  /* layout index: states by energy, so that a tile's partners sit in few tiles */
  PetscCall(PetscMalloc3(n, &order, n, &inv, n, &en));
  for (PetscInt s = 0; s < n; s++) {
    order[s] = s;
    en[s]    = coll->energy[s];
  }
  PetscCall(PetscSortRealWithArrayInt(n, en, order));
  PetscCall(PetscMalloc1((size_t)L->ntile * tile, &L->perm));
  for (int64_t l = 0; l < (int64_t)L->ntile * tile; l++) L->perm[l] = -1;
  if (!pa->pairs)
    for (PetscInt l = 0; l < n; l++) L->perm[l] = (int32_t)order[l];
  else if (gs) { /* owned at their places in the rank's tiles, ghosts by owner's tile */
    const int64_t base = (int64_t)coll->ptoff[coll->prank] * tile;
    int64_t       t    = pa->nto - 1;
    for (PetscInt l = 0; l < coll->nlocal; l++) L->perm[coll->gslot[coll->rstart + l] - base] = (int32_t)l;
    for (PetscInt k = 0; k < coll->nghost; k++) {
      if (k == 0 || gs[k] / tile != gs[k - 1] / tile) t++;
      L->perm[t * tile + gs[k] % tile] = (int32_t)gsi[k];
    }
    PetscCall(PetscFree2(gs, gsi));
  } else { /* owned by energy, then (from tile nto) ghosts by energy */
    int64_t lo = 0, lg = (int64_t)pa->nto * tile;
    for (PetscInt l = 0; l < n; l++) L->perm[order[l] < coll->nlocal ? lo++ : lg++] = (int32_t)order[l];
  }
  for (int64_t l = 0; l < (int64_t)L->ntile * tile; l++)
    if (L->perm[l] >= 0) inv[L->perm[l]] = (PetscInt)l;
  PetscCall(PairBuildOnDevice(coll, &dev));
#if defined(BTE_HAVE_CUDA)
  /* Ranks that share one GPU build their layouts in turn: a build's sort needs 48 B per channel
     of device memory beside the finished layouts' ~17, and several at once can lack what each
     alone has (two ranks of 1.4e9 channels on one 141 GB GPU). */
  MPI_Comm    devcomm = MPI_COMM_NULL;
  PetscMPIInt nturn = 1, myturn = 0;
  if (dev) {
    MPI_Comm node;
    int      key;
    PetscCall(BTEPairCUDADeviceKey(&key));
    PetscCallMPI(MPI_Comm_split_type(PetscObjectComm((PetscObject)coll), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    PetscCallMPI(MPI_Comm_split(node, key, 0, &devcomm));
    PetscCallMPI(MPI_Comm_free(&node));
    PetscCallMPI(MPI_Comm_size(devcomm, &nturn));
    PetscCallMPI(MPI_Comm_rank(devcomm, &myturn));
    if (nturn > 1) PetscCall(PetscInfo(coll, "pair device build: %d ranks share this GPU and build in turn (this rank %d)\n", (int)nturn, (int)myturn));
  }
  for (PetscMPIInt turn = 0; dev && turn < nturn; turn++) {
    BTEPairCUDABuilder   B;
    BTEPairCUDABuildInfo info;
    PetscBool            fits;
    int32_t             *inv32;
    if (turn != myturn) {
      PetscCallMPI(MPI_Barrier(devcomm));
      continue;
    }
    PetscCall(PetscMalloc1(PetscMax(n, 1), &inv32));
    for (PetscInt l = 0; l < n; l++) inv32[l] = (int32_t)inv[l];
    info.n      = n;
    info.nlocal = coll->nlocal;
    info.rstart = coll->rstart;
    info.nghost = coll->nghost;
    info.ghosts = coll->ghosts;
    info.inv    = inv32;
    info.energy = coll->energy;
    info.pref   = coll->pref;
    info.inveta = coll->inveta;
    info.gnorm  = coll->gnorm;
    info.kT     = coll->kT;
    info.kTdb   = coll->kTdb;
    /* with pairs the builder gets only the channels this rank computes */
    /* -bte_collision_refresh: the build keeps its sort permutation (not with pairs: the compact copy
       of the computed channels is not kept on the device, so a change of temperature rebuilds) */
    PetscCall(BTEPairCUDABuilderCreate(L, &info, pa->pairs ? coll->ncomputed : nch, mixed, coll->refresh && !pa->pairs ? PETSC_TRUE : PETSC_FALSE, &fits, &B));
    PetscCall(PetscFree(inv32));
    PetscCheck(fits || pa->build != 2, PETSC_COMM_SELF, PETSC_ERR_MEM, "-bte_pair_build device: the device lacks the memory to sort %" PetscCount_FMT " channels (48 B each); use -bte_pair_build host", nch);
    if (fits) PetscCall(PairBuildDevice(coll, B, pa->pairs ? coll->ncomputed : nch));
    else PetscCall(PetscInfo(coll, "pair layout: not enough device memory to build it there, building on the host\n"));
    PetscCallMPI(MPI_Barrier(devcomm));
  }
  if (devcomm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&devcomm));
#endif
  if (dev) {
    /* the run's memory check before the setup left the host build out (layoutondevice): where a
       rank builds on the host after all, check again, counting it, before it allocates */
    int host = pa->ondevice ? 0 : 1, anyhost = 0;
    PetscCallMPI(MPI_Allreduce(&host, &anyhost, 1, MPI_INT, MPI_LOR, PetscObjectComm((PetscObject)coll)));
    if (anyhost) PetscCall(BTECheckRunMemory(coll->bte, coll->assembled, host ? PETSC_TRUE : PETSC_FALSE, "the pair collision operator (built on the host: the device lacks the memory)"));
  }
  if (!pa->ondevice) {
    uint8_t *keep = NULL; /* pairs: the held channels this rank computes */
    PetscCall(BTECollisionComputeLocalEnds(coll, &ci, &cj));
    if (pa->pairs) {
      const BTEChannels *ch = &coll->bte->ch;
      PetscCall(PetscMalloc1(PetscMax(nch, 1), &keep));
#pragma omp parallel for schedule(static)
      for (PetscCount c = 0; c < nch; c++) keep[c] = (uint8_t)BTECollComputes(coll, ch->i[c], ch->j[c]);
    }
    /* entries placed into their tile-pair blocks, oriented a -> b with a < b */
    PetscCall(PetscLogEventBegin(BTECOLL_LayoutPlace, coll, 0, 0, 0));
    /* thread t takes the t-th share of the channels and places them after those of threads < t
       in every block: the order within a block is channel order, whatever the thread count */
    int nt = 1;
#if defined(_OPENMP)
    nt = omp_get_max_threads();
#endif
    PetscCall(PetscCalloc1(nblk + 1, &boff));
    PetscCall(PetscCalloc1((size_t)nt * nblk, &pos));
#pragma omp parallel num_threads(nt)
    {
      PetscCount c0, c1;
      int        t       = PairThreadShare(nch, &c0, &c1);
      int64_t   *cnt     = pos + (size_t)t * nblk;
      for (PetscCount c = c0; c < c1; c++) {
        PetscInt a = inv[ci[c]], b = inv[cj[c]], u;
        if (keep && !keep[c]) continue;
        if (a > b) u = a, a = b, b = u;
        cnt[(a / tile) * L->ntile + b / tile]++;
      }
    }
    for (int64_t k = 0; k < nblk; k++) { /* pos[t][k]: where thread t starts in block k */
      int64_t o = boff[k];
      for (int t = 0; t < nt; t++) {
        int64_t m = pos[(size_t)t * nblk + k];
        pos[(size_t)t * nblk + k] = o;
        o += m;
      }
      boff[k + 1] = o;
    }
    PetscCall(PetscMalloc2(nch, &P, nch, &Q));
    PetscCall(BTECollisionComputeChannelPQ_Private(coll, ci, cj, P, Q));
    PetscCall(PetscMalloc2(boff[nblk], &row, boff[nblk], &L->col));
    if (coll->refresh && !pa->onerate) { /* each placed channel, then (PairSortMerge) in the merge's order (one rate: a new temperature rebuilds) */
      PetscCall(PetscMalloc1(PetscMax(boff[nblk], 1), &pch));
      PetscCall(PetscMalloc1(PetscMax(boff[nblk], 1), &ecnt));
    }
    if (mixed) PetscCall(PetscMalloc1(2 * boff[nblk], &L->ws));
    else PetscCall(PetscMalloc1(2 * boff[nblk], &L->w));
#pragma omp parallel num_threads(nt)
    {
      PetscCount c0, c1;
      int        t       = PairThreadShare(nch, &c0, &c1);
      int64_t   *at      = pos + (size_t)t * nblk;
      for (PetscCount c = c0; c < c1; c++) {
        PetscInt  a = inv[ci[c]], b = inv[cj[c]], u;
        PetscReal p = P[c], q = Q[c], v;
        int64_t   e, sw = 0;
        if (keep && !keep[c]) continue;
        if (a > b) u = a, a = b, b = u, v = p, p = q, q = v, sw = 1; /* the pair's a -> b rate is Q */
        e         = at[(a / tile) * L->ntile + b / tile]++;
        if (pch) pch[e] = (int64_t)c << 1 | sw;
        row[e]    = (uint16_t)(a % tile);
        L->col[e] = (uint16_t)(b % tile);
        if (mixed) L->ws[2 * e] = (float)p, L->ws[2 * e + 1] = (float)q;
        else L->w[2 * e] = p, L->w[2 * e + 1] = q;
      }
    }
    PetscCall(PetscFree(pos));
    PetscCall(PetscFree2(P, Q));
    PetscCall(PetscFree2(ci, cj));
    PetscCall(PetscFree(keep));
    PetscCall(PetscLogEventEnd(BTECOLL_LayoutPlace, coll, 0, 0, 0));
    /* merge repeated pairs, then close the gaps between blocks */
    PetscCall(PetscLogEventBegin(BTECOLL_LayoutMerge, coll, 0, 0, 0));
    PetscCall(PetscMalloc2(nblk, &mcount, nblk + 1, &moff));
    PetscCall(PairSortMerge(L, nblk, boff, row, mcount, pch, ecnt));
    moff[0] = 0;
    for (int64_t k = 0; k < nblk; k++) {
      moff[k + 1] = moff[k] + mcount[k];
      if (moff[k] != boff[k] && mcount[k]) {
        memmove(row + moff[k], row + boff[k], (size_t)mcount[k] * sizeof(uint16_t));
        memmove(L->col + moff[k], L->col + boff[k], (size_t)mcount[k] * sizeof(uint16_t));
        if (mixed) memmove(L->ws + 2 * moff[k], L->ws + 2 * boff[k], (size_t)mcount[k] * 2 * sizeof(float));
        else memmove(L->w + 2 * moff[k], L->w + 2 * boff[k], (size_t)mcount[k] * 2 * sizeof(double));
      }
    }
    L->nnz = moff[nblk];
    if (pch) { /* pair moff[k] + m holds the channels pch[boff[k] + ...], ecnt[boff[k] + m] of them */
      PetscCall(PetscMalloc1(L->nnz + 1, &pa->rptr));
      pa->rptr[0] = 0;
      for (int64_t k = 0; k < nblk; k++)
        for (int64_t m = 0; m < mcount[k]; m++) pa->rptr[moff[k] + m + 1] = pa->rptr[moff[k] + m] + ecnt[boff[k] + m];
      PetscCheck(pa->rptr[L->nnz] == boff[nblk], PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair layout: %" PetscInt64_FMT " channels merged into the pairs, %" PetscInt64_FMT " placed", (PetscInt64)pa->rptr[L->nnz], (PetscInt64)boff[nblk]);
      pa->rch  = pch;
      pa->nrch = boff[nblk];
      pch      = NULL;
      PetscCall(PetscFree(ecnt));
    }
    PetscCall(PetscLogEventEnd(BTECOLL_LayoutMerge, coll, 0, 0, 0));
    PetscCall(PetscLogEventBegin(BTECOLL_LayoutIndex, coll, 0, 0, 0));
    if (chunk <= 0) chunk = PairDefaultChunk(L->nnz);
    {
      int64_t   nrows = 0;
      uint64_t *rowkey;
      int32_t  *rowcount;
      PetscCall(PairRowsHost(L, nblk, moff, row, &nrows, &rowkey, &rowcount));
      PetscCall(PairChunksFromRows(L, nrows, rowkey, rowcount, chunk));
      PetscCall(PetscFree2(rowkey, rowcount));
    }
    PetscCall(PetscFree2(mcount, moff));
    PetscCall(PetscFree(boff));
    {
      /* shrink to the merged size: col (uint16) shares a PetscMalloc2 with row, so copy it out */
      uint16_t *col;
      PetscCall(PetscMalloc1(PetscMax(L->nnz, 1), &col));
      PetscCall(PetscArraycpy(col, L->col, L->nnz));
      PetscCall(PetscFree2(row, L->col));
      L->col = col;
      if (mixed) PetscCall(PetscRealloc((size_t)PetscMax(L->nnz, 1) * 2 * sizeof(float), &L->ws));
      else PetscCall(PetscRealloc((size_t)PetscMax(L->nnz, 1) * 2 * sizeof(double), &L->w));
    }
    PetscCall(PairTouchedHost(L, &bits));
    PetscCall(PairSlots(L, bits));
    PetscCall(PetscFree(bits));
    PetscCall(PairOrderChunks(coll));
    if (pa->onerate) PetscCall(PairOneRate(coll));
    PetscCall(PetscLogEventEnd(BTECOLL_LayoutIndex, coll, 0, 0, 0));
  }
  PetscCall(PetscFree3(order, inv, en));
  if (pa->pairs) { /* the ghosts that get a sum: those with a slot (a computed pair touches them) */
    PetscBool *sends;
    PetscCall(PetscMalloc1(PetscMax(coll->nghost, 1), &sends));
    for (PetscInt g = 0; g < coll->nghost; g++) sends[g] = L->sptr[coll->nlocal + g + 1] > L->sptr[coll->nlocal + g] ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(BTECollisionReverseSetUp_Private(coll, sends));
    PetscCall(PetscFree(sends));
  }
  PetscCall(PetscMalloc1(PetscMax(L->npartial, 1), &pa->partial));
  PetscCall(PetscMalloc2((size_t)L->ntile * L->tile, &pa->fp, (size_t)L->ntile * L->tile, &pa->xp));
  PetscCall(PairShareSetUp(coll));
  coll->nentries = L->nnz;
  coll->bytes    = (PetscLogDouble)L->nnz * (sizeof(uint16_t) + (L->onerate ? 1 : 2) * (mixed ? sizeof(float) : sizeof(double))) + (L->onerate ? (PetscLogDouble)L->ntile * (L->tile + 1) * sizeof(double) : 0) + (PetscLogDouble)L->nrowptr * sizeof(int64_t) + (PetscLogDouble)L->nchunk * sizeof(BTEPairChunk) + (PetscLogDouble)L->ntile * L->tile * sizeof(int32_t) + (PetscLogDouble)(L->nlocal + 1) * sizeof(int64_t) + (PetscLogDouble)L->sptr[L->nlocal] * sizeof(int32_t) + (PetscLogDouble)L->npartial * sizeof(double);
  PetscCall(PetscInfo(coll, "pair layout (built on the %s): %" PetscCount_FMT " channels -> %" PetscInt64_FMT " pairs, %d tiles of %d, %" PetscInt64_FMT " chunks, %" PetscInt64_FMT " partial sums\n", pa->ondevice ? "device" : "host", nch, (PetscInt64)L->nnz, (int)L->ntile, (int)L->tile, (PetscInt64)L->nchunk, (PetscInt64)L->npartial));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* A new temperature (BTECollisionSetTemperature on the set-up operator, -bte_collision_refresh):
   only the rates P, Q of the channels change; which pair a channel joins, the tiles, chunks,
   slots and ghosts do not. */

typedef struct {
  double p, q;
} PairPQ;

/* x rounded to float, as the build stores a weight in mixed precision: through a float in memory
   (GCC 12 at -O3 left (double)(float)x unrounded in the loop below) */
static inline double PairRoundToFloat(double x)
{
  volatile float f = (float)x;
  return (double)f;
}

/* the order of PairEntryCmp within one pair (its key being the same) */
static inline int PairPQLess(const PairPQ *x, const PairPQ *y)
{
  if (x->p != y->p) return x->p < y->p;
  return x->q < y->q;
}

static int PairPQCmp(const void *a, const void *b)
{
  const PairPQ *x = (const PairPQ *)a, *y = (const PairPQ *)b;
  if (x->p != y->p) return (x->p > y->p) - (x->p < y->p);
  return (x->q > y->q) - (x->q < y->q);
}

/* Host build: every channel's P, Q at the new temperature (BTECollisionComputeChannelPQ_Private, as
   the build), oriented as placed (and rounded to float in mixed precision, as placed), each pair's
   channels sorted as PairSortMerge sorts them ((P, Q) ascending: the order of the sums depends on
   the values) and summed in that order. The result is the pair weights of a fresh build at this
   temperature, to the bit. */
static PetscErrorCode PairRetemperatureHost(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L  = &pa->L;
  PetscInt          *ci, *cj;
  PetscReal         *P, *Q;
  const PetscCount   nch   = coll->bte->ch.n;
  const PetscBool    mixed = L->ws ? PETSC_TRUE : PETSC_FALSE;
  int64_t            maxm  = 1;
  PetscErrorCode     ierr  = 0;

  PetscFunctionBegin;
  PetscCall(BTECollisionComputeLocalEnds(coll, &ci, &cj));
  PetscCall(PetscMalloc2(PetscMax(nch, 1), &P, PetscMax(nch, 1), &Q));
  PetscCall(BTECollisionComputeChannelPQ_Private(coll, ci, cj, P, Q));
  PetscCall(PetscFree2(ci, cj));
#pragma omp parallel for reduction(max : maxm) schedule(static)
  for (int64_t e = 0; e < L->nnz; e++) maxm = PetscMax(maxm, pa->rptr[e + 1] - pa->rptr[e]);
#pragma omp parallel reduction(| : ierr)
  {
    PairPQ *v = (PairPQ *)malloc((size_t)maxm * sizeof(PairPQ));
    if (!v) ierr = PETSC_ERR_MEM;
#pragma omp for schedule(static)
    for (int64_t e = 0; e < L->nnz; e++) {
      const int64_t k0 = pa->rptr[e], m = pa->rptr[e + 1] - k0;
      double        sp, sq;
      if (!v) continue;
      for (int64_t k = 0; k < m; k++) {
        const int64_t r = pa->rch[k0 + k], c = r >> 1;
        const double  p = (r & 1) ? Q[c] : P[c], q = (r & 1) ? P[c] : Q[c];
        if (mixed) { /* as placed: float weights */
          v[k].p = PairRoundToFloat(p);
          v[k].q = PairRoundToFloat(q);
        } else {
          v[k].p = p;
          v[k].q = q;
        }
      }
      if (m <= 32) { /* insertion sort: a pair merges a few modes */
        for (int64_t k = 1; k < m; k++) {
          PairPQ  x = v[k];
          int64_t j = k;
          while (j > 0 && PairPQLess(&x, &v[j - 1])) {
            v[j] = v[j - 1];
            j--;
          }
          v[j] = x;
        }
      } else qsort(v, (size_t)m, sizeof(PairPQ), PairPQCmp);
      sp = v[0].p;
      sq = v[0].q;
      for (int64_t k = 1; k < m; k++) {
        sp += v[k].p;
        sq += v[k].q;
      }
      if (mixed) L->ws[2 * e] = (float)sp, L->ws[2 * e + 1] = (float)sq;
      else L->w[2 * e] = sp, L->w[2 * e + 1] = sq;
    }
    free(v);
  }
  PetscCall(PetscFree2(P, Q));
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the per-thread buffers of the pair layout's refresh");
  PetscCall(PetscLogFlops(30.0 * (PetscLogDouble)nch));
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* -bte_pair_timeline: this rank's mean device times of the steps of an apply, from its start.
   Every rank prints its own line (the operator may be destroyed on one rank's communicator). */
static PetscErrorCode PairTimelineReport(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  const char        *names[BTE_PAIR_MARKS] = {"start", "owned chunks", "ghost values in", "ghost chunks", "ghosts' sums", "owned sums", "end"};
  double             ms[BTE_PAIR_MARKS];
  long               n;
  PetscMPIInt        rank, size;
  char               line[512] = "";
  size_t             len;

  PetscFunctionBegin;
  if (!pa->timeline || !pa->cuda) PetscFunctionReturn(0);
  PetscCall(BTEPairCUDAMarksGet(pa->cuda, ms, &n));
  if (!n) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)coll), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)coll), &size));
  for (int k = 1; k < BTE_PAIR_MARKS; k++) {
    if (ms[k] < 0) continue;
    PetscCall(PetscStrlen(line, &len));
    PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "%s%s %.4f", len ? ", " : "", names[k], ms[k]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "pair timeline, rank %d of %d, mean of %ld applies (ms after the start, device events; %" PetscInt64_FMT " of %" PetscInt64_FMT " chunks need no ghost value): %s\n", (int)rank, (int)size, n, (PetscInt64)(pa->pairs ? pa->ninner : pa->L.nchunk), (PetscInt64)pa->L.nchunk, line));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode BTECollisionRetemperature_Pair(BTECollision coll, PetscBool *done)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (!pa->ondevice) {
    if (!pa->rptr) PetscFunctionReturn(0);
    PetscCall(PairRetemperatureHost(coll));
#if defined(BTE_HAVE_CUDA)
    PetscCall(PairTimelineReport(coll));
    PetscCall(BTEPairCUDADestroy(&pa->cuda)); /* its device copy: made again from the host layout by the next apply on CUDA Vecs */
#endif
    *done = PETSC_TRUE;
  }
#if defined(BTE_HAVE_CUDA)
  else {
    BTEPairLayout     *L  = &pa->L;
    const BTEChannels *ch = &coll->bte->ch;
    if (!pa->rates || !pa->cuda) PetscFunctionReturn(0);
    PetscCall(BTEPairCUDARatesRefresh(pa->rates, (PetscObject)coll->bte, ch->n, ch->i, ch->g2, coll->kT, coll->kTdb, pa->cuda, done));
    if (*done && L->col) { /* host copies made for an apply on host Vecs: downloaded again when needed */
      PetscCall(PetscFree(L->col));
      PetscCall(PetscFree(L->w));
      PetscCall(PetscFree(L->ws));
    }
  }
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionRefreshBytes_Pair(BTECollision coll, PetscLogDouble *bytes)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;

  PetscFunctionBegin;
  *bytes = pa->rptr ? (PetscLogDouble)pa->nrch * sizeof(int64_t) + (PetscLogDouble)(pa->L.nnz + 1) * sizeof(int64_t) : 0;
#if defined(BTE_HAVE_CUDA)
  if (pa->rates) {
    PetscLogDouble b;
    PetscCall(BTEPairCUDARatesGetBytes(pa->rates, &b));
    *bytes += b;
  }
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionSetFromOptions_Pair(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  /* the options of the CUDA kernels and device build, in the order read; given to a build without
     CUDA they would be read and ignored */
  const char *cuname[7] = {"-bte_pair_select_device", "-bte_pair_copy_piece", "-bte_pair_side_stream", "-bte_pair_timeline", "-bte_pair_reduce_batch", "-bte_pair_reduce_lanes", "-bte_pair_unroll"};
  PetscBool   cu[7]     = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  /* a title of its own: -help shows it also when another type's operator was listed first */
  PetscOptionsBegin(PetscObjectComm((PetscObject)coll), ((PetscObject)coll)->prefix, "Collision operator type pair (-bte_collision_type pair)", "BTECollision");
  PetscCall(PetscOptionsInt("-bte_pair_tile", "States per tile (column sums of a tile pair are kept in a private array of this length)", "BTECollision", pa->tile, &pa->tile, NULL));
  PetscCall(PetscOptionsBool("-bte_pair_select_device", "CUDA, pairs partition, device build: select the channels this rank computes on the device from all it holds (kept there for later builds), instead of copying them out on the host", "BTECollision", pa->devselect, &pa->devselect, &cu[0]));
  PetscCall(PetscOptionsInt("-bte_pair_copy_piece", "CUDA, pairs partition, device build, where the channels this rank computes are copied out on the host: channels per piece (a host buffer of 24 B each, reused; 2^26 by default)", "BTECollision", pa->piece, &pa->piece, &cu[1]));
  PetscCheck(pa->piece >= 1, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_copy_piece must be at least 1, got %" PetscInt_FMT, pa->piece);
  PetscCall(PetscOptionsBool("-bte_pair_side_stream", "CUDA, pairs partition, NCCL or IPC exchange: the chunks that need ghost values run on a second, high-priority stream beside one launch of the owned chunks (0: three launches on PETSc's stream)", "BTECollision", pa->side, &pa->side, &cu[2]));
  PetscCall(PetscOptionsBool("-bte_pair_one_rate", "With -bte_delta balanced: keep one rate per pair (the downhill one) and form the other from the Boltzmann factor of the states' energies (10 B per pair instead of 18; the layout is built on the host)", "BTECollision", pa->onerate, &pa->onerate, NULL));
  PetscCall(PetscOptionsBool("-bte_pair_timeline", "CUDA: time the steps of every apply with device events and print each rank's means when the operator is destroyed (pairs partition on several ranks: the overlapped applies with the side stream only; a diagnostic: the events cost a little)", "BTECollision", pa->timeline, &pa->timeline, &cu[3]));
  PetscCall(PetscOptionsInt("-bte_pair_reduce_batch", "CUDA, with -bte_pair_reduce_lanes 1: partial sums each thread of the reduction loads before adding them, in the same order (1, 4 or 8; the sums are the same to the bit)", "BTECollision", pa->rbatch, &pa->rbatch, &cu[4]));
  PetscCall(PetscOptionsInt("-bte_pair_reduce_lanes", "CUDA: threads of the reduction that load one state's partial sums together, added in the same order (1, 4, 8 or 32; the sums are the same to the bit)", "BTECollision", pa->rlanes, &pa->rlanes, &cu[5]));
  PetscCall(PetscOptionsInt("-bte_pair_unroll", "CUDA: entries each lane loads before using them (2, 4 or 8; 0: 4, the fastest measured on an H200 in both precisions)", "BTECollision", pa->unroll, &pa->unroll, &cu[6]));
  PetscCall(PetscOptionsEList("-bte_pair_build", "Where the layout is built: auto (on the device when the state Vecs are CUDA Vecs), host or device", "BTECollision", PairBuilds, 3, PairBuilds[pa->build], &pa->build, NULL));
  PetscCall(PetscOptionsInt("-bte_pair_overlap_polls", "Pairs partition, host Vecs: MPI progress calls spread over the work that hides each exchange (0: none; messages above the MPI's eager limit move only during MPI calls)", "BTECollision", pa->polls, &pa->polls, NULL));
  PetscCall(PetscOptionsInt("-bte_pair_chunk", "Entries per unit of work (0: about 1/2048 of the pairs, within [8192, 65536])", "BTECollision", pa->chunk, &pa->chunk, NULL));
  PetscCall(PetscOptionsBool("-bte_pair_exchange_peers", "Pairs partition per tile pair, host Vecs: the ghost values by one message per peer, and the chunks that need a peer's values run as its message lands (0: one VecScatter, the chunks after all of it)", "BTECollision", pa->peers, &pa->peers, NULL));
  PetscCall(PetscOptionsBool("-bte_pair_share_node", "Pairs partition, host Vecs, several ranks on a node: the ranks of a node run each other's chunks as they fall idle (the layouts in an MPI shared-memory window), so a rank on a slower core does not hold the others back; the sums are the same to the bit", "BTECollision", pa->sharenode, &pa->sharenode, NULL));
  PetscCall(PetscOptionsBool("-bte_pair_share_owned", "With -bte_pair_share_node: the owned-only chunks that hide the two exchanges are shared too (0: only the chunks that need ghost values)", "BTECollision", pa->shareowned, &pa->shareowned, NULL));
  PetscCall(PetscOptionsReal("-bte_pair_share_stall", "Diagnostic for -bte_pair_share_node: rank 0 of each node waits this many ms before its own chunks (the others then take them over)", "BTECollision", pa->sharestall, &pa->sharestall, NULL));
  PetscCall(PetscOptionsBool("-bte_pair_partition_tiles", "Pairs partition: the channels between two ranks' tiles are computed all by one of the two, chosen per tile pair (0: per pair of states, which leaves a rank's chunks of such tile pairs half full)", "BTECollision", pa->ptiles, &pa->ptiles, NULL));
  PetscOptionsEnd();
  coll->ptile = pa->ptiles ? pa->tile : 0;
  PetscCheck(pa->tile >= 32 && pa->tile <= 65536, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_tile must be in [32, 65536], got %" PetscInt_FMT, pa->tile);
  PetscCheck(pa->rbatch == 1 || pa->rbatch == 4 || pa->rbatch == 8, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_reduce_batch must be 1, 4 or 8, got %" PetscInt_FMT, pa->rbatch);
  PetscCheck(pa->rlanes == 1 || pa->rlanes == 4 || pa->rlanes == 8 || pa->rlanes == 32, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_reduce_lanes must be 1, 4, 8 or 32, got %" PetscInt_FMT, pa->rlanes);
  PetscCheck(pa->unroll == 0 || pa->unroll == 2 || pa->unroll == 4 || pa->unroll == 8, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_unroll must be 0, 2, 4 or 8, got %" PetscInt_FMT, pa->unroll);
  PetscCheck(pa->polls >= 0, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_overlap_polls must be >= 0, got %" PetscInt_FMT, pa->polls);
  PetscCheck(pa->chunk >= 0, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_chunk must be >= 0, got %" PetscInt_FMT, pa->chunk);
  PetscCheck(pa->sharestall >= 0 && pa->sharestall <= 1e4, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_share_stall must be in [0, 10000] ms, got %g", (double)pa->sharestall);
#if !defined(BTE_HAVE_CUDA)
  for (int k = 0; k < 7; k++) PetscCheck(!cu[k], PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "%s is an option of the pair operator's CUDA kernels: bte was built without CUDA (docs/gpu.md); leave it out", cuname[k]);
#else
  (void)cuname;
#endif
  PetscFunctionReturn(0);
}

/* What each rank streams and exchanges per apply, min / mean / max over ranks: the work is the
   pairs (entries) and rows of a rank's layout, the exchange the ghost values it receives and the
   sums it sends back (8 bytes each); a rank whose work or exchange is above the mean makes the
   others wait in the exchanges. */
static PetscErrorCode PairViewPerRank(BTECollision coll, PetscViewer viewer)
{
  BTECollision_Pair   *pa = (BTECollision_Pair *)coll->data;
  const BTEPairLayout *L  = &pa->L;
  MPI_Comm             comm = PetscObjectComm((PetscObject)coll);
  PetscMPIInt          size;
  enum { NQ = 9 };
  const char *names[NQ] = {"pairs (entries)", "pairs in chunks that need no ghost value", "rows", "chunks", "partial sums", "layout bytes", "ghost values received", "ghost sums sent", "ghost sums received"};
  double      v[NQ], mn[NQ], mx[NQ], sm[NQ];
  int64_t     rows = 0, ein = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (int64_t c = 0; c < L->nchunk; c++) rows += L->chunks[c].nrows;
  for (int64_t q = 0; q < pa->ninner; q++) ein += PairChunkEntries(L, &L->chunks[q]);
  v[0] = (double)L->nnz;
  v[1] = (double)ein;
  v[2] = (double)rows;
  v[3] = (double)L->nchunk;
  v[4] = (double)L->npartial;
  v[5] = (double)coll->bytes;
  v[6] = (double)coll->nghost;
  v[7] = (double)coll->nrsend;
  v[8] = (double)coll->nrrecv;
  PetscCallMPI(MPI_Allreduce(v, mn, NQ, MPI_DOUBLE, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(v, mx, NQ, MPI_DOUBLE, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(v, sm, NQ, MPI_DOUBLE, MPI_SUM, comm));
  PetscCall(PetscViewerASCIIPrintf(viewer, "per rank, min / mean / max (max/mean):\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (int q = 0; q < NQ; q++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s: %.0f / %.1f / %.0f (%.3f)\n", names[q], mn[q], sm[q] / size, mx[q], sm[q] > 0 ? mx[q] * size / sm[q] : 1.0));
  PetscCall(PetscViewerASCIIPrintf(viewer, "exchange per apply, all ranks: %.0f bytes forward, %.0f back\n", 8.0 * sm[6], 8.0 * sm[7]));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionView_Pair(BTECollision coll, PetscViewer viewer)
{
  BTECollision_Pair *pa    = (BTECollision_Pair *)coll->data;
  PetscBool          mixed = coll->precision == BTE_COLLISION_PRECISION_MIXED ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "pair layout: one entry per pair of states = (uint16 column, %s) in %s: %d bytes per pair; tiles of %d states, %" PetscInt64_FMT " chunks; built on the %s\n", pa->L.onerate ? "downhill rate; the uphill one formed, -bte_pair_one_rate" : "P, Q", mixed ? "float (mixed precision)" : "double", (int)(sizeof(uint16_t) + (pa->L.onerate ? 1 : 2) * (mixed ? sizeof(float) : sizeof(double))), (int)pa->L.tile, (PetscInt64)pa->L.nchunk, pa->ondevice ? "device" : "host"));
  if (pa->pairs) {
    PetscInt64 loc[2] = {(PetscInt64)pa->ninner, (PetscInt64)pa->L.nchunk}, sum[2];
    PetscCallMPI(MPI_Allreduce(loc, sum, 2, MPIU_INT64, MPI_SUM, PetscObjectComm((PetscObject)coll)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "pairs partition: owned states in the first tiles; %" PetscInt64_FMT " of %" PetscInt64_FMT " chunks (all ranks) need no ghost value and run while the ghost values or the ghosts' sums travel\n", sum[0], sum[1]));
    if (coll->gslot) PetscCall(PetscViewerASCIIPrintf(viewer, "pairs partition: the channels between two ranks' tiles computed by one of them per tile pair (%" PetscInt_FMT " tiles in all)\n", coll->ntg));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "pairs partition: the channels between two ranks computed by one of them per pair of states%s\n", pa->ptiles ? " (too few tile pairs to balance per tile pair)" : ""));
    if (coll->gslot && pa->peers) PetscCall(PetscViewerASCIIPrintf(viewer, "pairs partition, host Vecs: the ghost values in one message per peer, the chunks that need them run peer by peer as they land (-bte_pair_exchange_peers)\n"));
    else if (pa->share) PetscCall(PetscViewerASCIIPrintf(viewer, "pairs partition, host Vecs: the ranks of a node run each other's chunks as they fall idle (-bte_pair_share_node): %s\n", pa->shareowned ? "all of them" : "the chunks that need ghost values (-bte_pair_share_owned 0)"));
  }
  PetscCall(PairViewPerRank(coll, viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionDestroy_Pair(BTECollision coll)
{
  BTECollision_Pair *pa = (BTECollision_Pair *)coll->data;
  BTEPairLayout     *L;

  PetscFunctionBegin;
  if (!pa) PetscFunctionReturn(0);
  L = &pa->L;
#if defined(BTE_HAVE_CUDA)
  PetscCall(PairTimelineReport(coll));
  PetscCall(BTEPairCUDADestroy(&pa->cuda));
  PetscCall(BTEPairCUDARatesDestroy(&pa->rates));
#endif
  if (pa->share) { /* these live in the shared window */
    int64_t     by, fo;
    PetscMPIInt ns;
    PetscCall(BTEPairShareCounts(pa->share, &by, &fo, &ns));
    PetscCall(PetscInfo(coll, "-bte_pair_share_node: %" PetscInt64_FMT " of this rank's chunks were run by the node's %d other ranks, and %" PetscInt64_FMT " of theirs here\n", (PetscInt64)by, (int)ns - 1, (PetscInt64)fo));
    L->chunks = NULL, L->rowptr = NULL, L->col = NULL, L->w = NULL, L->ws = NULL, pa->partial = NULL, pa->fp = NULL, pa->xp = NULL;
    if (L->onerate) L->z = NULL, L->zref = NULL;
    PetscCall(BTEPairShareDestroy(&pa->share));
  }
  PetscCall(PetscFree(pa->rptr));
  PetscCall(PetscFree(pa->rch));
  PetscCall(PetscFree(L->perm));
  PetscCall(PetscFree(L->chunks));
  PetscCall(PetscFree(L->rowptr));
  PetscCall(PetscFree(L->col));
  PetscCall(PetscFree(L->w));
  PetscCall(PetscFree(L->ws));
  PetscCall(PetscFree(L->sptr));
  PetscCall(PetscFree(L->slots));
  PetscCall(PetscFree2(L->z, L->zref));
  PetscCall(PetscFree(pa->partial));
  PetscCall(PetscFree2(pa->fp, pa->xp));
  PetscCall(PairPeersDestroy(&pa->pp));
  PetscCall(VecDestroy(&pa->yl));
  PetscCall(PetscFree(coll->data));
  coll->ptile = 0;
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode BTECollisionCreate_Pair(BTECollision coll)
{
  BTECollision_Pair *pa;

  PetscFunctionBegin;
  PetscCall(PetscNew(&pa));
  pa->tile                     = 256;
  pa->rbatch                   = 1;
  pa->rlanes                   = 8;
  pa->chunk                    = 0;
  pa->polls                    = 8;
  pa->side                     = PETSC_TRUE; /* 2 H200s, 135^3: 2.73-2.74 ms per apply against 2.79-2.80 */
  pa->devselect                = PETSC_TRUE; /* 2 H200s, 135^3: setup 5.0-6.7 s against 8.0-10.6 s (host copy-out) */
  pa->piece                    = (PetscInt)1 << 26;
  pa->ptiles                   = PETSC_TRUE; /* 4 H200s, 135^3: 1.36-1.39 ms per apply against 1.46-1.47 (per pair of states) */
  pa->sharenode                = PETSC_TRUE; /* GaAs 90^3, 16 ranks on 16 cores: 26.25 ms per apply against 29.57, J x 31.07 against 36.35 (medians of 7) */
  pa->shareowned               = PETSC_TRUE; /* the same as sharing only the ghosts' chunks within noise; a tighter spread */
  coll->ptile                  = pa->tile;
  coll->data                   = pa;
  coll->ops->setfromoptions    = BTECollisionSetFromOptions_Pair;
  coll->ops->setup             = BTECollisionSetUp_Pair;
  coll->ops->layoutondevice    = PairBuildOnDevice;
  coll->ownends                = PETSC_TRUE; /* local ends computed by the host build only */
  coll->ops->apply             = BTECollisionApply_Pair;
  coll->ops->applyglobal       = BTECollisionApplyGlobal_Pair;
  coll->ops->jacobian_apply    = BTECollisionJacobianApply_Pair;
  coll->ops->jacobian_diagonal = BTECollisionJacobianDiagonal_Pair;
  coll->ops->view              = BTECollisionView_Pair;
  coll->ops->destroy           = BTECollisionDestroy_Pair;
  coll->ops->retemperature     = BTECollisionRetemperature_Pair;
  coll->ops->refreshbytes      = BTECollisionRefreshBytes_Pair;
  PetscFunctionReturn(0);
}
