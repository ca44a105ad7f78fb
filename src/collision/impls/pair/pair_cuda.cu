/* pair on CUDA: one thread block per chunk of pairlayout.h, then one thread per owned state.

   Block: the f (and x) values of the chunk's two tiles are gathered into shared memory; each warp
   takes whole rows (rows w, w+8, ...), its lanes stride over the row's entries (uint16 column,
   (P, Q) as double2 or float2: coalesced, -bte_pair_unroll entries per lane in flight), the row sum ends in a
   shuffle reduction and the column-end contributions go to the warp's own tile array in shared
   memory. The columns of one row are distinct (repeated pairs were merged at setup), so the lanes
   of a warp never touch the same address: plain read-add-write, no atomics. The warps' arrays are
   added in a fixed order into the chunk's partial sums; a second kernel adds the partial sums of
   every owned state in the order of its slot list. The result does not depend on timing.

   Bytes per apply: nnz * (2 + 16) (or 2 + 8; with -bte_pair_one_rate 2 + 8 or 2 + 4) plus per
   chunk the tile gathers, row pointers and (rows + tile) partial sums written and read back. */
#include <bte/private/collisioncuda_device.h>
#include <type_traits>

#define BTE_PAIR_WARPS 8

struct _n_BTEPairCUDA {
  int32_t        tile, ntile, nlocal, n, unroll, rbatch, rlanes;
  int64_t        nchunk, nnz, nslots, npartial;
  int32_t       *perm;
  BTEPairChunk  *chunks;
  long long     *rowptr;
  uint16_t      *col;
  double2       *w;
  float2        *ws;
  double        *w1;   /* -bte_pair_one_rate: P only (exactly one of w, ws, w1, ws1) */
  float         *ws1;
  double        *z, *zref, kT; /* -bte_pair_one_rate: pairlayout.h */
  long long     *sptr;
  int32_t       *slots;
  double        *partial;
  PetscLogDouble bytes;
  cudaStream_t   side; /* -bte_pair_side_stream: made on first use */
  cudaEvent_t    sidedone;
  /* -bte_pair_timeline: events at the marks of an apply (BTEPairCUDAMark), summed per mark from
     the apply's start mark when the next apply starts (its events are complete by then) */
  cudaEvent_t mark[BTE_PAIR_MARKS];
  PetscBool   marked[BTE_PAIR_MARKS], pending;
  double      marksum[BTE_PAIR_MARKS];
  int         markn[BTE_PAIR_MARKS];
  long        napply;
};

cudaStream_t BTECollCUDASideStream = NULL;

/* The previous apply's marks into the sums (waits for its last events) */
static PetscErrorCode BTEPairCUDAMarksCollect(BTEPairCUDA d)
{
  PetscFunctionBegin;
  if (!d->pending) PetscFunctionReturn(0);
  for (int k = 1; k < BTE_PAIR_MARKS; k++) {
    float ms;
    if (!d->marked[k]) continue;
    PetscCallCUDA(cudaEventSynchronize(d->mark[k]));
    PetscCallCUDA(cudaEventElapsedTime(&ms, d->mark[0], d->mark[k]));
    d->marksum[k] += ms;
    d->markn[k]++;
    d->marked[k] = PETSC_FALSE;
  }
  d->napply++;
  d->pending = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Records mark k on the stream the layout queues on now (the side stream between SideBegin and
   End). Mark 0 starts an apply. The first apply is not summed (NCCL connects during it). */
PetscErrorCode BTEPairCUDAMark(BTEPairCUDA d, int k)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(k >= 0 && k < BTE_PAIR_MARKS, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "pair timeline: mark %d outside [0, %d)", k, BTE_PAIR_MARKS);
  if (!d->mark[0])
    for (int j = 0; j < BTE_PAIR_MARKS; j++) PetscCallCUDA(cudaEventCreate(&d->mark[j]));
  if (k == 0) {
    PetscCall(BTEPairCUDAMarksCollect(d));
    if (d->napply <= 1) /* at most the first apply collected: forget its sums */
      for (int j = 0; j < BTE_PAIR_MARKS; j++) d->marksum[j] = 0, d->markn[j] = 0;
    d->pending = PETSC_TRUE;
  }
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCallCUDA(cudaEventRecord(d->mark[k], s));
  d->marked[k] = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Mean time of each mark after the start mark, ms (-1 where never recorded), over the applies
   after the first; *n the number of applies summed */
PetscErrorCode BTEPairCUDAMarksGet(BTEPairCUDA d, double ms[], long *n)
{
  PetscFunctionBegin;
  PetscCall(BTEPairCUDAMarksCollect(d));
  ms[0] = 0;
  for (int k = 1; k < BTE_PAIR_MARKS; k++) ms[k] = d->markn[k] ? d->marksum[k] / d->markn[k] : -1;
  *n = d->napply > 1 ? d->napply - 1 : 0;
  PetscFunctionReturn(0);
}

__device__ __forceinline__ void bte_pair_w(const double2 *w, long long e, double *P, double *Q)
{
  const double2 v = w[e];
  *P              = v.x;
  *Q              = v.y;
}
__device__ __forceinline__ void bte_pair_w(const float2 *w, long long e, double *P, double *Q)
{
  const float2 v = w[e];
  *P             = (double)v.x;
  *Q             = (double)v.y;
}

/* -bte_pair_one_rate: P alone */
__device__ __forceinline__ double bte_pair_p(const double *w, long long e)
{
  return w[e];
}
__device__ __forceinline__ double bte_pair_p(const float *w, long long e)
{
  return (double)w[e];
}

__device__ __forceinline__ double bte_pair_warp_sum(double v)
{
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

/* MODE 0: I[f]; 1: J(f) x; 2: diag J(f). Formulas as pair.c. ONE (-bte_pair_one_rate): w holds the
   downhill rate of each pair (double or float) and the other is formed with r = z[b] (cf / z[a])
   (pairlayout.h; the same operations in the same order as pair.c's kernel), z of the column tile
   gathered with f. */
template <typename W2, int MODE, int UNROLL, int ONE>
__global__ void __launch_bounds__(32 * BTE_PAIR_WARPS) bte_pair_kernel(int tile, long long c0, const BTEPairChunk *__restrict__ chunks, const long long *__restrict__ rowptr, const uint16_t *__restrict__ col, const W2 *__restrict__ w, const int32_t *__restrict__ perm, const double *__restrict__ f, const double *__restrict__ x, double *__restrict__ partial, const double *__restrict__ z, const double *__restrict__ zref, double kT)
{
  extern __shared__ double sm[];
  const BTEPairChunk ch   = chunks[c0 + blockIdx.x];
  const int          lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  double *fI = sm, *fJ = sm + tile, *xI = sm + 2 * tile, *xJ = sm + 3 * tile;
  double *zJ = sm + (MODE == 1 ? 4 : 2) * tile;
  double *acc = zJ + (ONE ? tile : 0), *mine = acc + (size_t)warp * tile;
  const int32_t *pI = perm + (size_t)ch.tile_i * tile, *pJ = perm + (size_t)ch.tile_j * tile;
  const double   cf = ONE ? exp((zref[ch.tile_j] - zref[ch.tile_i]) / kT) : 0.0;

  for (int t = threadIdx.x; t < tile; t += blockDim.x) {
    const int32_t a = pI[t], b = pJ[t];
    fI[t] = a >= 0 ? f[a] : 0.0;
    fJ[t] = b >= 0 ? f[b] : 0.0;
    if (MODE == 1) {
      xI[t] = a >= 0 ? x[a] : 0.0;
      xJ[t] = b >= 0 ? x[b] : 0.0;
    }
    if (ONE) zJ[t] = z[(size_t)ch.tile_j * tile + t];
  }
  for (int t = threadIdx.x; t < BTE_PAIR_WARPS * tile; t += blockDim.x) acc[t] = 0.0;
  __syncthreads();
  for (int r = warp; r < ch.nrows; r += BTE_PAIR_WARPS) {
    const long long e0 = rowptr[ch.rp + r], e1 = rowptr[ch.rp + r + 1];
    const double    fa = fI[ch.row0 + r], xa = MODE == 1 ? xI[ch.row0 + r] : 0.0, rf = ONE ? cf / z[(size_t)ch.tile_i * tile + ch.row0 + r] : 0.0;
    double          ro = 0.0, ri = 0.0, so = 0.0, si = 0.0;
    for (long long base = e0; base < e1; base += 32 * UNROLL) {
      int    jj[UNROLL];
      double P[UNROLL], Q[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; u++) {
        const long long e = base + u * 32 + lane;
        jj[u]             = -1;
        if (e < e1) {
          jj[u] = col[e];
          if constexpr (ONE) P[u] = bte_pair_p(w, e);
          else bte_pair_w(w, e, &P[u], &Q[u]);
        }
      }
#pragma unroll
      for (int u = 0; u < UNROLL; u++) {
        if (jj[u] < 0) continue;
        if (ONE) { /* P[u] holds the downhill rate D (pairlayout.h) */
          const double rr = zJ[jj[u]] * rf, D = P[u];
          P[u]            = rr >= 1.0 ? D / rr : D;
          Q[u]            = rr >= 1.0 ? D : D * rr;
        }
        const double fb = fJ[jj[u]], p = P[u] * (1.0 - fb), q = Q[u] * fb;
        if (MODE == 0) {
          ro += p;
          ri += q;
          mine[jj[u]] += fa * p - (1.0 - fa) * q;
        } else if (MODE == 1) {
          const double xb = xJ[jj[u]];
          ro += p + q;
          so += P[u] * xb;
          si += Q[u] * xb;
          mine[jj[u]] += (p + q) * xa - (P[u] * fa + Q[u] * (1.0 - fa)) * xb;
        } else {
          ro += p + q;
          mine[jj[u]] -= P[u] * fa + Q[u] * (1.0 - fa);
        }
      }
    }
    ro = bte_pair_warp_sum(ro);
    if (MODE == 0) ri = bte_pair_warp_sum(ri);
    if (MODE == 1) {
      so = bte_pair_warp_sum(so);
      si = bte_pair_warp_sum(si);
    }
    if (lane == 0) partial[ch.slot + r] = MODE == 0 ? -fa * ro + (1.0 - fa) * ri : (MODE == 1 ? -ro * xa + fa * so + (1.0 - fa) * si : -ro);
    __syncwarp(); /* the next row's lanes read what this row's lanes wrote into `mine` */
  }
  __syncthreads();
  for (int t = threadIdx.x; t < tile; t += blockDim.x) {
    double s = 0.0;
#pragma unroll
    for (int v = 0; v < BTE_PAIR_WARPS; v++) s += acc[v * tile + t];
    partial[ch.slot + ch.nrows + t] = s;
  }
}

/* y[s] for the states s0 <= s < s1 (y indexed by local state) */
/* (-bte_pair_reduce_batch B: B slots and then B partial sums loaded before they are added, in the
   same order, so that a thread has B loads in flight; the sums are the same to the bit) */
template <int B>
__global__ void bte_pair_reduce(int s0, int s1, const long long *__restrict__ sptr, const int32_t *__restrict__ slots, const double *__restrict__ partial, double *__restrict__ y)
{
  for (int s = s0 + blockIdx.x * blockDim.x + threadIdx.x; s < s1; s += gridDim.x * blockDim.x) {
    double          v = 0.0;
    long long       k = sptr[s];
    const long long e = sptr[s + 1];
    if (B > 1)
      for (; k + B <= e; k += B) {
        int32_t q[B];
        double  p[B];
#pragma unroll
        for (int u = 0; u < B; u++) q[u] = slots[k + u];
#pragma unroll
        for (int u = 0; u < B; u++) p[u] = partial[q[u]];
#pragma unroll
        for (int u = 0; u < B; u++) v += p[u];
      }
    for (; k < e; k++) v += partial[slots[k]];
    y[s] = v;
  }
}

/* (-bte_pair_reduce_lanes G: the G lanes of a group load G consecutive slots and their partial
   sums at once, and every lane adds the group's values in slot order through shuffles, from 0.0 as
   the thread-per-state kernel does; an empty lane adds nothing, so the sums are the same to the
   bit. More loads in flight where the states are fewer than the threads a GPU keeps busy.) */
template <int G>
__global__ void bte_pair_reduce_lanes(int s0, int s1, const long long *__restrict__ sptr, const int32_t *__restrict__ slots, const double *__restrict__ partial, double *__restrict__ y)
{
  const int       lane = threadIdx.x % G;
  const long long t    = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const int       s    = s0 + (int)(t / G);
  const bool      live = s < s1;
  const long long k0 = live ? sptr[s] : 0, e = live ? sptr[s + 1] : 0;
  /* shuffles need the whole warp: it runs as many rounds as its longest state */
  const int       mine = (int)((e - k0 + G - 1) / G);
  const int       rounds = __reduce_max_sync(0xffffffffu, (unsigned)mine);
  double          v = 0.0;
  for (int r = 0; r < rounds; r++) {
    const long long k = k0 + (long long)r * G + lane;
    const double    p = k < e ? partial[slots[k]] : 0.0;
#pragma unroll
    for (int u = 0; u < G; u++) {
      const double pu = __shfl_sync(0xffffffffu, p, u, G);
      if (k0 + (long long)r * G + u < e) v += pu;
    }
  }
  if (live && lane == 0) y[s] = v;
}

static size_t BTEPairShared(int tile, int mode, int one)
{
  return (size_t)((mode == 1 ? 4 : 2) + (one ? 1 : 0) + BTE_PAIR_WARPS) * tile * sizeof(double);
}

template <typename W2, int UNROLL>
static PetscErrorCode BTEPairSetSharedU(int tile)
{
  PetscFunctionBegin;
  constexpr int one = (std::is_same<W2, double>::value || std::is_same<W2, float>::value) ? 1 : 0; /* P alone */
  PetscCallCUDA(cudaFuncSetAttribute(bte_pair_kernel<W2, 0, UNROLL, one>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BTEPairShared(tile, 0, one)));
  PetscCallCUDA(cudaFuncSetAttribute(bte_pair_kernel<W2, 1, UNROLL, one>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BTEPairShared(tile, 1, one)));
  PetscCallCUDA(cudaFuncSetAttribute(bte_pair_kernel<W2, 2, UNROLL, one>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)BTEPairShared(tile, 2, one)));
  PetscFunctionReturn(0);
}

template <typename W2>
static PetscErrorCode BTEPairSetShared(int tile)
{
  PetscFunctionBegin;
  PetscCall(BTEPairSetSharedU<W2, 2>(tile));
  PetscCall(BTEPairSetSharedU<W2, 4>(tile));
  PetscCall(BTEPairSetSharedU<W2, 8>(tile));
  PetscFunctionReturn(0);
}

/* The device layout from the host index arrays (perm, sptr, slots uploaded here) and device
   arrays that it takes over: chunks, rowptr, col and the weights (exactly one of w, ws). */
PetscErrorCode BTEPairCUDACreateWith(const BTEPairLayout *L, BTEPairChunk *dchunks, long long *drowptr, uint16_t *dcol, double2 *dw, float2 *dws, BTEPairCUDA *dev)
{
  BTEPairCUDA d;
  int         devid, maxsm;

  PetscFunctionBegin;
  PetscCall(BTECollCUDARegisterEvents());
  PetscCallCUDA(cudaGetDevice(&devid));
  PetscCallCUDA(cudaDeviceGetAttribute(&maxsm, cudaDevAttrMaxSharedMemoryPerBlockOptin, devid));
  PetscCheck(BTEPairShared(L->tile, 1, L->onerate) <= (size_t)maxsm, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_tile %d needs %zu bytes of shared memory per block, the device allows %d: use a smaller tile", (int)L->tile, BTEPairShared(L->tile, 1, L->onerate), maxsm);
  PetscCheck(L->unroll == 2 || L->unroll == 4 || L->unroll == 8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bte_pair_unroll must be 2, 4 or 8, got %d", (int)L->unroll);
  PetscCall(PetscLogEventBegin(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscCall(PetscNew(&d));
  d->tile     = L->tile;
  d->ntile    = L->ntile;
  d->nlocal   = L->nlocal;
  d->n        = L->n;
  d->nchunk   = L->nchunk;
  d->nnz      = L->nnz;
  d->nslots   = L->sptr[L->nlocal];
  d->npartial = L->npartial;
  d->unroll   = L->unroll;
  d->rbatch   = L->rbatch == 4 || L->rbatch == 8 ? L->rbatch : 1;
  d->rlanes   = L->rlanes == 4 || L->rlanes == 8 || L->rlanes == 32 ? L->rlanes : 1;
  d->chunks   = dchunks;
  d->rowptr   = drowptr;
  d->col      = dcol;
  d->w        = dw;
  d->ws       = dws;
  d->bytes    = (PetscLogDouble)L->nchunk * sizeof(BTEPairChunk) + (PetscLogDouble)L->nrowptr * sizeof(long long) + (PetscLogDouble)L->nnz * (sizeof(uint16_t) + (dw ? sizeof(double2) : (dws ? sizeof(float2) : 0)));
  PetscCall(BTECollCUDAUpload(L->perm, (size_t)L->ntile * L->tile, &d->perm, &d->bytes));
  PetscCall(BTECollCUDAUpload((const long long *)L->sptr, (size_t)L->nlocal + 1, &d->sptr, &d->bytes));
  PetscCall(BTECollCUDAUpload(L->slots, (size_t)d->nslots, &d->slots, &d->bytes));
  if (d->npartial) {
    PetscCallCUDA(cudaMalloc((void **)&d->partial, (size_t)d->npartial * sizeof(double)));
    d->bytes += (PetscLogDouble)d->npartial * sizeof(double);
  }
  PetscCall(BTEPairSetShared<double2>(d->tile));
  PetscCall(BTEPairSetShared<float2>(d->tile));
  PetscCall(BTEPairSetShared<double>(d->tile));
  PetscCall(BTEPairSetShared<float>(d->tile));
  /* uploads from pageable memory may still be in flight on the legacy stream; the kernels run on
     PETSc's stream, which need not wait for it */
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscLogEventEnd(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDACreate(const BTEPairLayout *L, BTEPairCUDA *dev)
{
  BTEPairChunk *chunks;
  long long    *rowptr;
  uint16_t     *col;
  double2      *w;
  float2       *ws;

  PetscFunctionBegin;
  double       *w1 = NULL;
  float        *ws1 = NULL;

  PetscCall(BTECollCUDARegisterEvents());
  PetscCall(PetscLogEventBegin(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscCall(BTECollCUDAUpload(L->chunks, (size_t)L->nchunk, &chunks, NULL));
  static_assert(sizeof(long long) == sizeof(int64_t), "64-bit offsets");
  PetscCall(BTECollCUDAUpload((const long long *)L->rowptr, (size_t)L->nrowptr, &rowptr, NULL));
  PetscCall(BTECollCUDAUpload(L->col, (size_t)L->nnz, &col, NULL));
  if (L->onerate) { /* P alone */
    w  = NULL;
    ws = NULL;
    PetscCall(BTECollCUDAUpload(L->w, L->w ? (size_t)L->nnz : 0, &w1, NULL));
    PetscCall(BTECollCUDAUpload(L->ws, L->ws ? (size_t)L->nnz : 0, &ws1, NULL));
  } else {
    PetscCall(BTECollCUDAUpload((const double2 *)L->w, L->w ? (size_t)L->nnz : 0, &w, NULL));
    PetscCall(BTECollCUDAUpload((const float2 *)L->ws, L->ws ? (size_t)L->nnz : 0, &ws, NULL));
  }
  PetscCall(PetscLogEventEnd(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscCall(BTEPairCUDACreateWith(L, chunks, rowptr, col, w, ws, dev));
  if (L->onerate) {
    BTEPairCUDA d = *dev;
    d->w1         = w1;
    d->ws1        = ws1;
    d->kT         = L->kT;
    PetscCall(BTECollCUDAUpload(L->z, (size_t)L->ntile * L->tile, &d->z, &d->bytes));
    PetscCall(BTECollCUDAUpload(L->zref, (size_t)L->ntile, &d->zref, &d->bytes));
    d->bytes += (PetscLogDouble)L->nnz * (w1 ? sizeof(double) : sizeof(float));
    PetscCallCUDA(cudaDeviceSynchronize()); /* the pageable uploads, before PETSc's stream uses them */
  }
  PetscFunctionReturn(0);
}

/* Host copies of the columns and weights of a layout built on the device (for an apply on
   host vectors); the host index arrays are already there. */
PetscErrorCode BTEPairCUDADownload(BTEPairCUDA d, BTEPairLayout *L)
{
  PetscFunctionBegin;
  PetscCheck(!d->w1 && !d->ws1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair: a one-rate layout is built on the host and keeps its host copy");
  PetscCall(PetscMalloc1(PetscMax(L->nnz, 1), &L->col));
  PetscCallCUDA(cudaMemcpy(L->col, d->col, (size_t)L->nnz * sizeof(uint16_t), cudaMemcpyDeviceToHost));
  if (d->ws) {
    PetscCall(PetscMalloc1(2 * PetscMax(L->nnz, 1), &L->ws));
    PetscCallCUDA(cudaMemcpy(L->ws, d->ws, (size_t)L->nnz * sizeof(float2), cudaMemcpyDeviceToHost));
  } else {
    PetscCall(PetscMalloc1(2 * PetscMax(L->nnz, 1), &L->w));
    PetscCallCUDA(cudaMemcpy(L->w, d->w, (size_t)L->nnz * sizeof(double2), cudaMemcpyDeviceToHost));
  }
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)L->nnz * (sizeof(uint16_t) + (d->ws ? sizeof(float2) : sizeof(double2)))));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDADestroy(BTEPairCUDA *dev)
{
  BTEPairCUDA d = *dev;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree(d->perm));
  PetscCallCUDA(cudaFree(d->chunks));
  PetscCallCUDA(cudaFree(d->rowptr));
  PetscCallCUDA(cudaFree(d->col));
  PetscCallCUDA(cudaFree(d->w));
  PetscCallCUDA(cudaFree(d->ws));
  PetscCallCUDA(cudaFree(d->w1));
  PetscCallCUDA(cudaFree(d->ws1));
  PetscCallCUDA(cudaFree(d->z));
  PetscCallCUDA(cudaFree(d->zref));
  PetscCallCUDA(cudaFree(d->sptr));
  PetscCallCUDA(cudaFree(d->slots));
  PetscCallCUDA(cudaFree(d->partial));
  if (d->side) {
    PetscCallCUDA(cudaStreamSynchronize(d->side));
    PetscCallCUDA(cudaStreamDestroy(d->side));
    PetscCallCUDA(cudaEventDestroy(d->sidedone));
  }
  if (d->mark[0])
    for (int j = 0; j < BTE_PAIR_MARKS; j++) PetscCallCUDA(cudaEventDestroy(d->mark[j]));
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

/* The side stream at the highest priority: the block scheduler then starts its kernels' blocks
   as soon as a multiprocessor frees up, ahead of the blocks left of a kernel launched earlier on
   PETSc's stream, instead of after all of them. */
PetscErrorCode BTEPairCUDASideBegin(BTEPairCUDA d)
{
  PetscFunctionBegin;
  PetscCheck(!BTECollCUDASideStream, PETSC_COMM_SELF, PETSC_ERR_ORDER, "pair: a side stream is already in use");
  if (!d->side) {
    int lo, hi;
    PetscCallCUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    PetscCallCUDA(cudaStreamCreateWithPriority(&d->side, cudaStreamNonBlocking, hi));
    PetscCallCUDA(cudaEventCreateWithFlags(&d->sidedone, cudaEventDisableTiming));
  }
  BTECollCUDASideStream = d->side;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDASideEnd(BTEPairCUDA d)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCheck(BTECollCUDASideStream == d->side, PETSC_COMM_SELF, PETSC_ERR_ORDER, "pair: side stream not begun");
  BTECollCUDASideStream = NULL;
  PetscCallCUDA(cudaEventRecord(d->sidedone, d->side));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCallCUDA(cudaStreamWaitEvent(s, d->sidedone, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDAGetWeights(BTEPairCUDA d, double2 **w, float2 **ws, int64_t *nnz)
{
  PetscFunctionBegin;
  *w   = d->w;
  *ws  = d->ws;
  *nnz = d->nnz;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDAGetBytes(BTEPairCUDA d, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = d ? d->bytes : 0;
  PetscFunctionReturn(0);
}

template <typename W2, int MODE>
static void BTEPairLaunch(BTEPairCUDA d, long long c0, long long c1, const W2 *w, const double *f, const double *x, cudaStream_t s)
{
  const dim3   grid((unsigned)(c1 - c0)), block(32 * BTE_PAIR_WARPS);
  constexpr int one = (std::is_same<W2, double>::value || std::is_same<W2, float>::value) ? 1 : 0; /* P alone */
  const size_t  sh  = BTEPairShared(d->tile, MODE, one);
  if (d->unroll == 2) bte_pair_kernel<W2, MODE, 2, one><<<grid, block, sh, s>>>(d->tile, c0, d->chunks, d->rowptr, d->col, w, d->perm, f, x, d->partial, d->z, d->zref, d->kT);
  else if (d->unroll == 4) bte_pair_kernel<W2, MODE, 4, one><<<grid, block, sh, s>>>(d->tile, c0, d->chunks, d->rowptr, d->col, w, d->perm, f, x, d->partial, d->z, d->zref, d->kT);
  else bte_pair_kernel<W2, MODE, 8, one><<<grid, block, sh, s>>>(d->tile, c0, d->chunks, d->rowptr, d->col, w, d->perm, f, x, d->partial, d->z, d->zref, d->kT);
}

template <int MODE>
static void BTEPairLaunchW(BTEPairCUDA d, long long c0, long long c1, const double *f, const double *x, cudaStream_t s)
{
  if (d->ws1) BTEPairLaunch<float, MODE>(d, c0, c1, d->ws1, f, x, s);
  else if (d->w1) BTEPairLaunch<double, MODE>(d, c0, c1, d->w1, f, x, s);
  else if (d->ws) BTEPairLaunch<float2, MODE>(d, c0, c1, d->ws, f, x, s);
  else BTEPairLaunch<double2, MODE>(d, c0, c1, d->w, f, x, s);
}

/* The chunks c0..c1-1 into the partial sums; f (and x) are indexed by local state: a local vector
   (owned + ghosts), or, for chunks of owned tiles only, the global Vec (its owned entries come
   first in the local numbering). Queued on PETSc's stream. */
PetscErrorCode BTEPairCUDAChunks(BTEPairCUDA d, int mode, PetscInt64 c0, PetscInt64 c1, Vec fv, Vec xv)
{
  const PetscScalar *f, *x = NULL;
  cudaStream_t       s;

  PetscFunctionBegin;
  PetscCheck(c0 >= 0 && c0 <= c1 && c1 <= d->nchunk, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Chunk range [%" PetscInt64_FMT ", %" PetscInt64_FMT ") outside [0, %" PetscInt64_FMT ")", c0, c1, (PetscInt64)d->nchunk);
  if (c1 == c0) PetscFunctionReturn(0);
  PetscCall(VecCUDAGetArrayRead(fv, &f));
  if (xv) PetscCall(VecCUDAGetArrayRead(xv, &x));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (mode == 0) BTEPairLaunchW<0>(d, c0, c1, f, x, s);
  else if (mode == 1) BTEPairLaunchW<1>(d, c0, c1, f, x, s);
  else BTEPairLaunchW<2>(d, c0, c1, f, x, s);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscLogGpuTimeEnd());
  if (xv) PetscCall(VecCUDARestoreArrayRead(xv, &x));
  PetscCall(VecCUDARestoreArrayRead(fv, &f));
  PetscFunctionReturn(0);
}

/* y[s] = the partial sums of the local states s0 <= s < s1 (y indexed by local state: a local
   vector, or the global Vec for owned states); the rest of y is left as it is. */
PetscErrorCode BTEPairCUDAReduce(BTEPairCUDA d, PetscInt s0, PetscInt s1, Vec yv)
{
  PetscScalar *y;
  cudaStream_t s;
  PetscInt     n;
  PetscBool    whole;

  PetscFunctionBegin;
  PetscCheck(s0 >= 0 && s0 <= s1 && s1 <= d->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "State range [%" PetscInt_FMT ", %" PetscInt_FMT ") outside [0, %d)", s0, s1, (int)d->nlocal);
  if (s1 == s0) PetscFunctionReturn(0);
  PetscCall(VecGetLocalSize(yv, &n));
  whole = s0 == 0 && s1 == n ? PETSC_TRUE : PETSC_FALSE; /* every entry written: no upload of the old values */
  if (whole) PetscCall(VecCUDAGetArrayWrite(yv, &y));
  else PetscCall(VecCUDAGetArray(yv, &y));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  {
    const int block = 256, grid = (int)PetscMin(((long long)(s1 - s0) + block - 1) / block, 65535LL * 8);
    const int lgrid = (int)(((long long)(s1 - s0) * d->rlanes + block - 1) / block); /* one group per state */
    if (d->rlanes == 32) bte_pair_reduce_lanes<32><<<lgrid, block, 0, s>>>((int)s0, (int)s1, d->sptr, d->slots, d->partial, y);
    else if (d->rlanes == 8) bte_pair_reduce_lanes<8><<<lgrid, block, 0, s>>>((int)s0, (int)s1, d->sptr, d->slots, d->partial, y);
    else if (d->rlanes == 4) bte_pair_reduce_lanes<4><<<lgrid, block, 0, s>>>((int)s0, (int)s1, d->sptr, d->slots, d->partial, y);
    else if (d->rbatch == 8) bte_pair_reduce<8><<<grid, block, 0, s>>>((int)s0, (int)s1, d->sptr, d->slots, d->partial, y);
    else if (d->rbatch == 4) bte_pair_reduce<4><<<grid, block, 0, s>>>((int)s0, (int)s1, d->sptr, d->slots, d->partial, y);
    else bte_pair_reduce<1><<<grid, block, 0, s>>>((int)s0, (int)s1, d->sptr, d->slots, d->partial, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (whole) PetscCall(VecCUDARestoreArrayWrite(yv, &y));
  else PetscCall(VecCUDARestoreArray(yv, &y));
  PetscFunctionReturn(0);
}

/* mark: -bte_pair_timeline's owned-chunks mark between the chunks and the sums (the caller marks
   the start and the end; an unmarked run must not record into the marks of a timed apply) */
PetscErrorCode BTEPairCUDARun(BTEPairCUDA d, int mode, Vec fl, Vec xl, Vec Y, PetscBool mark)
{
  PetscInt             n;
  PetscScalar         *y;
  const PetscLogDouble flops[3] = {9.0, 17.0, 8.0}; /* per entry, as pair.c */

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(fl, &n));
  PetscCheck(n == d->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Local vector has %" PetscInt_FMT " entries, expected owned + ghosts = %d", n, (int)d->n);
  if (xl) {
    PetscCall(VecGetLocalSize(xl, &n));
    PetscCheck(n == d->n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Local vector has %" PetscInt_FMT " entries, expected owned + ghosts = %d", n, (int)d->n);
  }
  PetscCall(VecGetLocalSize(Y, &n));
  PetscCheck(n == d->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output Vec has %" PetscInt_FMT " local entries, expected %d", n, (int)d->nlocal);
  PetscCall(BTEPairCUDAChunks(d, mode, 0, d->nchunk, fl, xl));
  if (mark) PetscCall(BTEPairCUDAMark(d, BTE_PAIR_MARK_OWNED));
  if (d->nlocal > 0) PetscCall(BTEPairCUDAReduce(d, 0, d->nlocal, Y));
  else { /* every entry of Y is written, as before: mark it current on the device */
    PetscCall(VecCUDAGetArrayWrite(Y, &y));
    PetscCall(VecCUDARestoreArrayWrite(Y, &y));
  }
  PetscCall(PetscLogGpuFlops(flops[mode] * (PetscLogDouble)d->nnz + (PetscLogDouble)d->nslots));
  PetscFunctionReturn(0);
}
