/* -bte_pair_share_node: the ranks of one node run each other's chunks (include/bte/private/pairshare.h
   says why).

   Each rank's segment of the node's shared window: a header, then its layout arrays (chunks,
   rowptr, col, weights, and z / zref with one rate per pair), f and x in layout order, and its
   partial buffer. An apply hands out its chunks in phases (a range k0 .. k1-1 each: the owned
   chunks that hide the ghost values' exchange, the chunks that need ghost values, the owned chunks
   that hide the sums' exchange). The owner opens a phase by writing its end `lim`, the mode and
   fp / xp, then storing `state` = (opening number, k0) with a release; whoever (this rank's threads
   or another rank's) moves `state` from (n, c) to (n, c + 1) by a compare-and-swap with c below
   `lim` runs chunk c of this rank's layout, from this rank's fp / xp into this rank's partial
   slots, and counts it in `done`. The opening number in `state` makes a claim of a closed phase
   fail; a successful claim saw (acquire) everything written before its phase opened. The owner
   closes a phase when `done` reaches k1 - k0 (an acquire: every partial sum written by anyone is
   then visible), before it opens the next or touches fp, xp or partial again. No chunk waits for
   anything, so there is no deadlock; which rank runs a chunk changes no number. */
#include <bte/private/pairshare.h>
#include <stdatomic.h>
#include <sched.h>
#include <sys/statvfs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

#define SHARE_ALIGN 64

#define SHARE_IDX_BITS 40 /* state: opening number (mod 2^24) above, next chunk below */
#define SHARE_IDX(s)   ((int64_t)((uint64_t)(s) & (((uint64_t)1 << SHARE_IDX_BITS) - 1)))

typedef struct {
  _Atomic uint64_t state; /* (opening number, next chunk to hand out) */
  _Atomic int64_t  lim;   /* the open phase's end: chunks below it are handed out */
  char             pad0[SHARE_ALIGN - 2 * sizeof(int64_t)];
  _Atomic int64_t  done; /* chunks of the open phase finished */
  char            pad1[SHARE_ALIGN - sizeof(int64_t)];
  _Atomic int64_t taken; /* of this rank's chunks, run by other ranks (all applies) */
  char            pad2[SHARE_ALIGN - sizeof(int64_t)];
  _Atomic int64_t epoch; /* phases opened so far */
  char            pad3[SHARE_ALIGN - sizeof(int64_t)];
  int32_t         mode, hasx; /* this apply's, written before a phase opens */
  BTEPairLayout   L; /* the scalars; its pointers are this rank's and mean nothing elsewhere */
  /* byte offsets in the segment, -1 where the array is absent */
  int64_t chunks, rowptr, col, w, ws, z, zref, fp, xp, partial;
} ShareHeader;

typedef struct {
  ShareHeader  *h;
  BTEPairLayout L; /* the scalars of h->L with pointers into the segment */
  double       *fp, *xp, *partial;
} ShareView;

struct _n_BTEPairShare {
  MPI_Comm            node;
  PetscMPIInt         rank, size;
  MPI_Win             win;
  ShareView          *view; /* every rank of the node, this one included */
  BTEPairShareChunkFn fn;
  int64_t             epoch; /* phases opened so far (the same on every rank: applies are collective) */
  int64_t             forothers;
};

static int64_t ShareAlign(int64_t n)
{
  return (n + SHARE_ALIGN - 1) / SHARE_ALIGN * SHARE_ALIGN;
}

/* the offset of an array of n bytes appended at *end, or -1 for none */
static int64_t ShareAppend(int64_t *end, const void *p, int64_t n)
{
  int64_t off;
  if (!p) return -1;
  off  = *end;
  *end = ShareAlign(off + PetscMax(n, 1));
  return off;
}

static void *ShareAt(ShareHeader *h, int64_t off)
{
  return off < 0 ? NULL : (char *)h + off;
}

static void ShareResolve(ShareView *v)
{
  ShareHeader *h = v->h;
  v->L           = h->L;
  v->L.perm      = NULL; /* the gather is the owner's */
  v->L.sptr      = NULL;
  v->L.slots     = NULL;
  v->L.chunks    = (BTEPairChunk *)ShareAt(h, h->chunks);
  v->L.rowptr    = (int64_t *)ShareAt(h, h->rowptr);
  v->L.col       = (uint16_t *)ShareAt(h, h->col);
  v->L.w         = (double *)ShareAt(h, h->w);
  v->L.ws        = (float *)ShareAt(h, h->ws);
  v->L.z         = (double *)ShareAt(h, h->z);
  v->L.zref      = (double *)ShareAt(h, h->zref);
  v->fp          = (double *)ShareAt(h, h->fp);
  v->xp          = (double *)ShareAt(h, h->xp);
  v->partial     = (double *)ShareAt(h, h->partial);
}

PetscErrorCode BTEPairShareCreate(MPI_Comm comm, const BTEPairLayout *L, int64_t nf, const double *fp, const double *xp, const double *partial, BTEPairShareChunkFn fn, BTEPairShare *out)
{
  BTEPairShare sh;
  MPI_Comm     node;
  PetscMPIInt  size;
  MPI_Info     info;
  int64_t      end = ShareAlign(sizeof(ShareHeader));
  const int64_t nw = L->onerate ? L->nnz : 2 * L->nnz;
  ShareHeader  h;
  void        *base;

  PetscFunctionBegin;
  *out = NULL;
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &size));
  if (size < 2) {
    PetscCallMPI(MPI_Comm_free(&node));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMemzero(&h, sizeof(h)));
  h.L       = *L;
  h.chunks  = ShareAppend(&end, L->chunks, L->nchunk * (int64_t)sizeof(BTEPairChunk));
  h.rowptr  = ShareAppend(&end, L->rowptr, L->nrowptr * (int64_t)sizeof(int64_t));
  h.col     = ShareAppend(&end, L->col, L->nnz * (int64_t)sizeof(uint16_t));
  h.w       = ShareAppend(&end, L->w, nw * (int64_t)sizeof(double));
  h.ws      = ShareAppend(&end, L->ws, nw * (int64_t)sizeof(float));
  h.z       = ShareAppend(&end, L->onerate ? L->z : NULL, (int64_t)L->ntile * L->tile * (int64_t)sizeof(double));
  h.zref    = ShareAppend(&end, L->onerate ? L->zref : NULL, (int64_t)L->ntile * (int64_t)sizeof(double));
  h.fp      = ShareAppend(&end, fp, nf * (int64_t)sizeof(double));
  h.xp      = ShareAppend(&end, xp, nf * (int64_t)sizeof(double));
  h.partial = ShareAppend(&end, partial, L->npartial * (int64_t)sizeof(double));

  /* Open MPI backs the window with a file in /dev/shm: a container's is often small, and a page
     past its end would kill the process when first touched. So the node's whole window must fit. */
  {
    struct statvfs fs;
    double         need = (double)end, all;
    int            fits = 1;
    PetscCallMPI(MPI_Allreduce(&need, &all, 1, MPI_DOUBLE, MPI_SUM, node));
    if (!statvfs("/dev/shm", &fs)) fits = (double)fs.f_bavail * (double)fs.f_frsize > 1.05 * all;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, node));
    if (!fits) {
      PetscCall(PetscInfo(NULL, "-bte_pair_share_node: not used, /dev/shm has less room than the node's layouts (%.3g GB)\n", all / 1e9));
      PetscCallMPI(MPI_Comm_free(&node));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscNew(&sh));
  sh->node = node;
  sh->size = size;
  sh->fn   = fn;
  PetscCallMPI(MPI_Comm_rank(node, &sh->rank));
  /* each rank's segment on its own pages, first touched (so placed) by its owner below */
  PetscCallMPI(MPI_Info_create(&info));
  PetscCallMPI(MPI_Info_set(info, "alloc_shared_noncontig", "true"));
  PetscCallMPI(MPI_Win_allocate_shared((MPI_Aint)end, 1, info, node, &base, &sh->win));
  PetscCallMPI(MPI_Info_free(&info));
  {
    ShareHeader *hp = (ShareHeader *)base;
    memcpy((char *)hp + offsetof(ShareHeader, mode), (char *)&h + offsetof(ShareHeader, mode), sizeof(h) - offsetof(ShareHeader, mode));
    atomic_init(&hp->state, 0); /* closed: lim 0 */
    atomic_init(&hp->lim, 0);
    atomic_init(&hp->done, 0);
    atomic_init(&hp->taken, 0);
    atomic_init(&hp->epoch, 0);
#define SHARE_COPY(F, P, N) \
  if (hp->F >= 0) memcpy(ShareAt(hp, hp->F), P, (size_t)(N))
    SHARE_COPY(chunks, L->chunks, L->nchunk * sizeof(BTEPairChunk));
    SHARE_COPY(rowptr, L->rowptr, L->nrowptr * sizeof(int64_t));
    SHARE_COPY(col, L->col, L->nnz * sizeof(uint16_t));
    SHARE_COPY(w, L->w, nw * sizeof(double));
    SHARE_COPY(ws, L->ws, nw * sizeof(float));
    SHARE_COPY(z, L->z, (size_t)L->ntile * L->tile * sizeof(double));
    SHARE_COPY(zref, L->zref, (size_t)L->ntile * sizeof(double));
    SHARE_COPY(fp, fp, nf * sizeof(double));
    SHARE_COPY(xp, xp, nf * sizeof(double));
    SHARE_COPY(partial, partial, L->npartial * sizeof(double));
#undef SHARE_COPY
  }
  /* the headers and arrays written above are read by the other ranks only after this */
  PetscCallMPI(MPI_Win_sync(sh->win));
  PetscCallMPI(MPI_Barrier(node));
  PetscCall(PetscCalloc1(size, &sh->view));
  {
    int same = 1;
    for (PetscMPIInt r = 0; r < size; r++) {
      MPI_Aint sz;
      int      du;
      void    *p;
      PetscCallMPI(MPI_Win_shared_query(sh->win, r, &sz, &du, &p));
      sh->view[r].h = (ShareHeader *)p;
      ShareResolve(&sh->view[r]);
      same = same && sh->view[r].L.tile == L->tile;
    }
    /* every rank of the node errors, or none: a rank left waiting for the others would hang */
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_MIN, node));
    PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP, "-bte_pair_share_node: the ranks of one node have different -bte_pair_tile");
  }
  *out = sh;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairShareArrays(BTEPairShare sh, BTEPairLayout *L, double **fp, double **xp, double **partial)
{
  const ShareView *v = &sh->view[sh->rank];

  PetscFunctionBegin;
  L->chunks = v->L.chunks;
  L->rowptr = v->L.rowptr;
  L->col    = v->L.col;
  L->w      = v->L.w;
  L->ws     = v->L.ws;
  if (L->onerate) {
    L->z    = v->L.z;
    L->zref = v->L.zref;
  }
  *fp      = v->fp;
  *xp      = v->xp;
  *partial = v->partial;
  PetscFunctionReturn(0);
}

/* claim and run the chunks of rank v's open phase while any is left; the number run. The master
   thread drives MPI's progress every few chunks (the chunks of a phase hide an exchange). */
static int64_t ShareDrain(BTEPairShare sh, PetscMPIInt v, double *acc, int master)
{
  ShareView   *V = &sh->view[v];
  ShareHeader *h = V->h;
  int64_t      n = 0;

  for (;;) {
    uint64_t      st = atomic_load_explicit(&h->state, memory_order_acquire);
    const int64_t c  = SHARE_IDX(st);
    if (c >= atomic_load_explicit(&h->lim, memory_order_relaxed)) break; /* a closed phase's counter is not written */
    if (!atomic_compare_exchange_weak_explicit(&h->state, &st, st + 1, memory_order_acq_rel, memory_order_relaxed)) continue;
    sh->fn(&V->L, c, h->mode, V->fp, h->hasx ? V->xp : NULL, acc, V->partial);
    atomic_fetch_add_explicit(&h->done, 1, memory_order_release);
    if (v != sh->rank) atomic_fetch_add_explicit(&h->taken, 1, memory_order_relaxed);
    if (++n % 8 == 0 && master) {
      int flag;
      (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, sh->node, &flag, MPI_STATUS_IGNORE);
    }
  }
  return n;
}

PetscErrorCode BTEPairShareRun(BTEPairShare sh, int64_t k0, int64_t k1, int mode, PetscBool hasx, PetscReal stall_ms)
{
  ShareHeader  *h = sh->view[sh->rank].h;
  const int64_t nphase = k1 - k0, e = ++sh->epoch;
  MPI_Comm      node = sh->node;
  int64_t       others = 0;
  int           ierr = 0;

  PetscFunctionBegin;
  h->mode = mode;
  h->hasx = hasx ? 1 : 0;
  atomic_store_explicit(&h->lim, k1, memory_order_relaxed);
  atomic_store_explicit(&h->done, 0, memory_order_relaxed);
  /* open: fp, xp, the mode and the end are written */
  atomic_store_explicit(&h->state, ((uint64_t)(e & 0xffffff) << SHARE_IDX_BITS) | (uint64_t)k0, memory_order_release);
  atomic_store_explicit(&h->epoch, e, memory_order_release);
  if (stall_ms > 0 && sh->rank == 0) {
    struct timespec ts = {(time_t)(stall_ms / 1000), (long)(fmod((double)stall_ms, 1000.0) * 1e6)};
    nanosleep(&ts, NULL);
  }
#pragma omp parallel reduction(+ : others) reduction(| : ierr)
  {
    double *acc = (double *)malloc((size_t)h->L.tile * sizeof(double));
    int     master = 1;
#if defined(_OPENMP)
    master = omp_get_thread_num() == 0;
#endif
    if (!acc) ierr = 1;
    else {
      (void)ShareDrain(sh, sh->rank, acc, master);
      /* then the others', starting after this rank so that the thieves spread, until every rank of
         the node has opened this phase and has no chunk left to hand out, and all of this rank's
         are done (some may still be running elsewhere). A rank opens a phase once its data are
         in; they may need this rank's MPI progress, hence the probe (on the thread that may call
         MPI). */
      for (;;) {
        int64_t got = 0;
        int     open = 1;
        for (PetscMPIInt i = 1; i < sh->size; i++) {
          const PetscMPIInt v = (sh->rank + i) % sh->size;
          if (atomic_load_explicit(&sh->view[v].h->epoch, memory_order_acquire) < e) open = 0;
          else got += ShareDrain(sh, v, acc, 0);
        }
        others += got;
        if (open && atomic_load_explicit(&h->done, memory_order_acquire) >= nphase) break;
        if (!got) {
          if (master) {
            int flag;
            if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, node, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS) ierr = 2;
          }
          sched_yield();
        }
      }
      free(acc);
    }
  }
  PetscCheck(ierr != 1, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the per-thread tile sums of the pair layout");
  PetscCheck(ierr != 2, PETSC_COMM_SELF, PETSC_ERR_LIB, "MPI_Iprobe failed while waiting for the node's other ranks");
  sh->forothers += others;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairShareCounts(BTEPairShare sh, int64_t *byothers, int64_t *forothers, PetscMPIInt *nodesize)
{
  PetscFunctionBegin;
  *byothers  = sh ? atomic_load(&sh->view[sh->rank].h->taken) : 0;
  *forothers = sh ? sh->forothers : 0;
  *nodesize  = sh ? sh->size : 1;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairShareDestroy(BTEPairShare *sh)
{
  PetscFunctionBegin;
  if (!*sh) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Win_free(&(*sh)->win));
  PetscCallMPI(MPI_Comm_free(&(*sh)->node));
  PetscCall(PetscFree((*sh)->view));
  PetscCall(PetscFree(*sh));
  PetscFunctionReturn(0);
}
