/* The pair layout (pairlayout.h) built on the device.

   The host path (pair.c) places every channel into its tile-pair block, sorts each block with
   qsort and merges repeated pairs, on the host: at 1e8-1e9 channels that is most of a run's
   setup and needs ~50 B per channel of host memory beside the table. Here the host only copies
   the table's channel arrays (ends, phonon energy, |g|^2) to the device in batches (through
   two pinned buffers that all threads fill); the device
   computes each channel's local ends, rates P, Q (collisionimpl.h's formulas in the same order;
   exp() of the device may differ from the host's in the last bit) and orientation, turns them
   into 64-bit keys (tile pair, row, column), radix-sorts (key, (P, Q)), merges repeated keys by
   summation and run-length encodes the rows. The host gets back only the row structure
   (one count per non-empty row) and, after cutting chunks, one column bitmap per chunk: it makes
   the chunks, row pointers and slot lists from those, exactly as the host build does from its
   arrays. The columns and rates never leave the device.

   Against the host build: the same chunks, rows, columns and slots; rates may differ in the last
   bits (device exp(), and repeated pairs summed in channel order, the radix sort being stable,
   rather than in the host's (P, Q) order). Device memory while building: 48 B per channel
   (keys and values, double-buffered; 56 B when a refresh is to follow) and a batch of 4M
   channels, checked before anything is allocated.

   A refresh of the rates at another temperature (-bte_collision_refresh, BTEPairCUDARates): the
   build then sorts the keys with the channels' positions (uint32) instead of their rates, puts
   the rates in that order by a gather and merges them as above; the sorted positions are kept
   (4 B per channel) with the local states' data. The refresh recomputes the keys and rates of
   all channels from the channel arrays kept on the BTE, gathers them into the kept order (the
   sort is stable and the keys do not depend on the temperature: the order a fresh build would
   sort them into) and runs the same reduction on the same sequence: the weights of a fresh
   device build at that temperature, to the bit. */
#include <bte/private/collisioncuda_device.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_select.cuh>

struct _n_BTEPairCUDABuilder {
  int32_t       tile, ntile;
  int64_t       nch, pushed, batch;
  int           mixed;
  cudaStream_t  stream;
  BTEPairCUDABuildInfo info;  /* constants; its arrays point to the device copies below */
  PetscInt     *dghosts;
  int32_t      *dinv;
  double       *denergy;
  PetscInt     *di, *dj;      /* device copies of a batch of the table's arrays */
  double       *dhw, *dg2;
  char         *stage[2];     /* pinned host copies of a batch (filled in parallel) */
  cudaEvent_t   staged[2];    /* its copy to the device has finished */
  uint64_t     *key[2];       /* nch each: sort double buffer */
  double2      *val[2];
  int           sel;           /* which of key holds the sorted, then merged keys */
  int           vsel;          /* which of val holds the merged values */
  int           keep;          /* keep the sort permutation for a refresh of the rates */
  uint32_t     *idx[2];        /* keep: nch each, the sort double buffer of the channels' positions */
  int           isel;          /* keep: which of idx holds the sorted positions */
  int64_t       nnz;
  BTEPairChunk *dchunks;
  long long    *drowptr;
};

struct BTEPairSum2 {
  __device__ __forceinline__ double2 operator()(const double2 &x, const double2 &y) const { return make_double2(x.x + y.x, x.y + y.y); }
};

__device__ __forceinline__ PetscInt bte_pair_local(const BTEPairCUDABuildInfo &in, const PetscInt *__restrict__ ghosts, PetscInt g)
{
  PetscInt lo = 0, hi = in.nghost;
  if (g >= in.rstart && g < in.rstart + in.nlocal) return g - in.rstart;
  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;
    if (ghosts[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return (lo < in.nghost && ghosts[lo] == g) ? in.nlocal + lo : -1;
}

/* Each channel: its local ends, rates P, Q (collisionimpl.h's formulas, in the same order), the
   orientation a < b in layout index and the key ((tile pair) * tile + row) * tile + column. A
   channel with an end that is neither owned nor a ghost gets the key ~0 and sets *bad. */
__global__ void bte_pair_build_keys(int64_t n, int32_t tile, int32_t ntile, BTEPairCUDABuildInfo in, const PetscInt *__restrict__ ghosts, const int32_t *__restrict__ inv, const double *__restrict__ e, const PetscInt *__restrict__ ci, const PetscInt *__restrict__ cj, const double *__restrict__ hw, const double *__restrict__ g2, uint64_t *__restrict__ key, double2 *__restrict__ val, int *bad)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
    const PetscInt li = bte_pair_local(in, ghosts, ci[k]), lj = bte_pair_local(in, ghosts, cj[k]);
    if (li < 0 || lj < 0) {
      key[k] = ~(uint64_t)0;
      val[k] = make_double2(0, 0);
      *bad   = 1;
      continue;
    }
    {
      const double N = bte_bose(hw[k], in.kT), d = e[li] - e[lj], w = in.pref * g2[k];
      double       a = w * bte_gauss(d + hw[k], in.inveta, in.gnorm), b = w * bte_gauss(d - hw[k], in.inveta, in.gnorm);
      if (in.kTdb > 0) bte_balance(d, hw[k], in.kTdb, &a, &b);
      double       P = a * N + b * (N + 1.0), Q = a * (N + 1.0) + b * N;
      int32_t      ia = inv[li], ib = inv[lj];
      if (ia > ib) {
        const int32_t t = ia;
        const double  u = P;
        ia = ib, ib = t, P = Q, Q = u; /* the pair's a -> b rate is Q */
      }
      const uint64_t blk = (uint64_t)(ia / tile) * (uint64_t)ntile + (uint64_t)(ib / tile);
      key[k]             = (blk * (uint64_t)tile + (uint64_t)(ia % tile)) * (uint64_t)tile + (uint64_t)(ib % tile);
      val[k]             = make_double2(P, Q);
    }
  }
}

/* keep: the position of every channel (sorted with the keys) */
/* pairs partition: which held channels this rank computes (the host's BTECollComputesIn) */
__global__ void bte_pair_build_computes(int64_t n, const PetscInt *__restrict__ ci, const PetscInt *__restrict__ cj, BTECollPartitionRule rule, uint8_t *__restrict__ flag)
{
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < n; c += (int64_t)gridDim.x * blockDim.x) flag[c] = BTECollComputesIn(&rule, ci[c], cj[c]) ? 1 : 0;
}

__global__ void bte_pair_build_iota(int64_t n, uint32_t *__restrict__ idx)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) idx[k] = (uint32_t)k;
}

/* the rates (and, with key, the keys) of the channels in sorted order: out[p] = in[perm[p]] */
__global__ void bte_pair_build_gather(int64_t n, const uint32_t *__restrict__ perm, const uint64_t *__restrict__ key, const double2 *__restrict__ val, uint64_t *__restrict__ skey, double2 *__restrict__ sval)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
    const uint32_t c = perm[k];
    if (key) skey[k] = key[c];
    sval[k] = val[c];
  }
}

/* row key (tile pair * tile + row) of every merged entry */
__global__ void bte_pair_build_rowkeys(int64_t n, int32_t tile, const uint64_t *__restrict__ key, uint64_t *__restrict__ rowkey)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) rowkey[k] = key[k] / (uint64_t)tile;
}

__global__ void bte_pair_build_cols(int64_t n, int32_t tile, const uint64_t *__restrict__ key, uint16_t *__restrict__ col)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) col[k] = (uint16_t)(key[k] % (uint64_t)tile);
}

__global__ void bte_pair_build_float(int64_t n, const double2 *__restrict__ w, float2 *__restrict__ ws)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) ws[k] = make_float2((float)w[k].x, (float)w[k].y);
}

/* one block per chunk: bit t of the chunk's words is set when column t has an entry */
__global__ void bte_pair_build_touched(int32_t words, int32_t tile, const BTEPairChunk *__restrict__ chunks, const long long *__restrict__ rowptr, const uint64_t *__restrict__ key, uint32_t *__restrict__ bits)
{
  extern __shared__ uint32_t sbits[];
  const BTEPairChunk ch = chunks[blockIdx.x];
  const long long    e0 = rowptr[ch.rp], e1 = rowptr[ch.rp + ch.nrows];

  for (int w = threadIdx.x; w < words; w += blockDim.x) sbits[w] = 0;
  __syncthreads();
  for (long long e = e0 + threadIdx.x; e < e1; e += blockDim.x) {
    const uint32_t c = (uint32_t)(key[e] % (uint64_t)tile);
    atomicOr(&sbits[c >> 5], 1u << (c & 31));
  }
  __syncthreads();
  for (int w = threadIdx.x; w < words; w += blockDim.x) bits[(size_t)blockIdx.x * words + w] = sbits[w];
}

static inline unsigned BTEPairGrid(int64_t n)
{
  int64_t g = (n + 255) / 256;
  return (unsigned)(g < 1 ? 1 : (g > 65535 * 16 ? 65535 * 16 : g));
}

PetscErrorCode BTEPairCUDABuilderCreate(const BTEPairLayout *L, const BTEPairCUDABuildInfo *info, PetscCount nch, PetscBool mixed, PetscBool keep, PetscBool *fits, BTEPairCUDABuilder *builder)
{
  BTEPairCUDABuilder B;
  size_t             freeb, totalb, need, batch = (size_t)1 << 22;

  PetscFunctionBegin;
  *builder = NULL;
  PetscCall(BTECollCUDARegisterEvents());
  if ((size_t)nch < batch) batch = PetscMax((size_t)nch, (size_t)1);
  /* keys + values, double-buffered, a batch of the table, ~5% for CUB's temporaries */
  if ((uint64_t)nch > (uint64_t)UINT32_MAX) keep = PETSC_FALSE; /* positions are uint32 */
  need = (size_t)nch * 2 * (sizeof(uint64_t) + sizeof(double2) + (keep ? sizeof(uint32_t) : 0)) + batch * (2 * sizeof(PetscInt) + 2 * sizeof(double));
  need += need / 20 + ((size_t)64 << 20) + (size_t)info->n * (sizeof(int32_t) + sizeof(double)) + (size_t)info->nghost * sizeof(PetscInt);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  *fits = need <= freeb ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscInfo(NULL, "pair device build: %" PetscCount_FMT " channels need ~%.2f GB on the device, %.2f GB free\n", nch, (double)need / 1e9, (double)freeb / 1e9));
  if (!*fits) PetscFunctionReturn(0);
  PetscCall(PetscNew(&B));
  B->tile  = L->tile;
  B->ntile = L->ntile;
  B->nch   = (int64_t)nch;
  B->batch = (int64_t)batch;
  B->mixed = mixed ? 1 : 0;
  B->keep  = keep ? 1 : 0;
  B->info  = *info;
  PetscCallCUDA(cudaStreamCreateWithFlags(&B->stream, cudaStreamNonBlocking));
  PetscCall(BTECollCUDAUpload(info->ghosts, (size_t)info->nghost, &B->dghosts, NULL));
  PetscCall(BTECollCUDAUpload(info->inv, (size_t)info->n, &B->dinv, NULL));
  PetscCall(BTECollCUDAUpload(info->energy, (size_t)info->n, &B->denergy, NULL));
  /* cudaMemcpy from pageable memory may return before its DMA is done, and it is ordered only
     on the legacy default stream, not on this non-blocking one: wait for it */
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaMalloc((void **)&B->di, batch * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&B->dj, batch * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&B->dhw, batch * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->dg2, batch * sizeof(double)));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaHostAlloc((void **)&B->stage[i], batch * (2 * sizeof(PetscInt) + 2 * sizeof(double)), cudaHostAllocDefault));
    PetscCallCUDA(cudaEventCreateWithFlags(&B->staged[i], cudaEventDisableTiming));
  }
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaMalloc((void **)&B->key[i], PetscMax((size_t)nch, (size_t)1) * sizeof(uint64_t)));
    PetscCallCUDA(cudaMalloc((void **)&B->val[i], PetscMax((size_t)nch, (size_t)1) * sizeof(double2)));
    if (B->keep) PetscCallCUDA(cudaMalloc((void **)&B->idx[i], PetscMax((size_t)nch, (size_t)1) * sizeof(uint32_t)));
  }
  *builder = B;
  PetscFunctionReturn(0);
}

/* Device copy of a BTE's channel arrays, kept on the BTE (composed as a PetscContainer) so that
   the next build (the next temperature of a mobility) need not move them through the host again. */
typedef struct {
  PetscCount       n;
  const PetscInt  *hi; /* the host arrays it copies (identity check) */
  const PetscReal *hg2;
  PetscInt        *i, *j;
  double          *hw, *g2;
} BTEPairDevChannels;

static PetscErrorCode BTEPairDevChannelsFree(BTEPairDevChannels *c)
{
  PetscFunctionBegin;
  if (!c) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree(c->i));
  PetscCallCUDA(cudaFree(c->j));
  PetscCallCUDA(cudaFree(c->hw));
  PetscCallCUDA(cudaFree(c->g2));
  PetscCall(PetscFree(c));
  PetscFunctionReturn(0);
}
#if PETSC_VERSION_GE(3, 23, 0)
static PetscErrorCode BTEPairDevChannelsDestroy(void *ctx) /* ctx: the address of the pointer */
{
  BTEPairDevChannels **c = (BTEPairDevChannels **)ctx;

  PetscFunctionBegin;
  PetscCall(BTEPairDevChannelsFree(*c));
  *c = NULL;
  PetscFunctionReturn(0);
}
#else
static PetscErrorCode BTEPairDevChannelsDestroy(void *ctx)
{
  PetscFunctionBegin;
  PetscCall(BTEPairDevChannelsFree((BTEPairDevChannels *)ctx));
  PetscFunctionReturn(0);
}
#endif
static const char BTEPairDevChannelsName[] = "BTEPairCUDAChannels";

/* cache composed on owner, which frees it with its arrays */
static PetscErrorCode BTEPairDevChannelsCompose(PetscObject owner, BTEPairDevChannels *cache)
{
  PetscFunctionBegin;
#if PETSC_VERSION_GE(3, 23, 0)
  PetscCall(PetscObjectContainerCompose(owner, BTEPairDevChannelsName, cache, BTEPairDevChannelsDestroy));
#else
  {
    PetscContainer c;
    PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
    PetscCall(PetscContainerSetPointer(c, cache));
    PetscCall(PetscContainerSetUserDestroy(c, BTEPairDevChannelsDestroy));
    PetscCall(PetscObjectCompose(owner, BTEPairDevChannelsName, (PetscObject)c));
    PetscCall(PetscContainerDestroy(&c));
  }
#endif
  PetscFunctionReturn(0);
}

/* The device copy of owner's channel arrays of an earlier build (*upload false), or a new one to fill
   (*upload true) where the device has room for it beside a quarter of it and 256 MB; *cache NULL
   where it has not. */
static PetscErrorCode BTEPairDevChannelsGet(PetscObject owner, PetscCount n, const PetscInt ci[], const PetscReal g2[], BTEPairDevChannels **cachep, PetscBool *upload)
{
  BTEPairDevChannels *cache = NULL;
  PetscObject         obj   = NULL;

  PetscFunctionBegin;
  *upload = PETSC_TRUE;
  PetscCall(PetscObjectQuery(owner, BTEPairDevChannelsName, &obj));
  if (obj) {
    PetscCall(PetscContainerGetPointer((PetscContainer)obj, (void **)&cache));
    if (cache->n == n && cache->hi == ci && cache->hg2 == g2) *upload = PETSC_FALSE;
    else {
      PetscCall(PetscObjectCompose(owner, BTEPairDevChannelsName, NULL)); /* stale: drop it */
      cache = NULL;
    }
  }
  if (!cache) {
    size_t freeb, totalb, bytes = (size_t)n * (2 * sizeof(PetscInt) + 2 * sizeof(double));
    PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
    if (bytes + bytes / 4 + ((size_t)256 << 20) <= freeb) { /* keep a quarter of it and 256 MB spare */
      PetscCall(PetscNew(&cache));
      cache->n   = n;
      cache->hi  = ci;
      cache->hg2 = g2;
      PetscCallCUDA(cudaMalloc((void **)&cache->i, PetscMax((size_t)n, (size_t)1) * sizeof(PetscInt)));
      PetscCallCUDA(cudaMalloc((void **)&cache->j, PetscMax((size_t)n, (size_t)1) * sizeof(PetscInt)));
      PetscCallCUDA(cudaMalloc((void **)&cache->hw, PetscMax((size_t)n, (size_t)1) * sizeof(double)));
      PetscCallCUDA(cudaMalloc((void **)&cache->g2, PetscMax((size_t)n, (size_t)1) * sizeof(double)));
      PetscCall(BTEPairDevChannelsCompose(owner, cache));
    }
  }
  *cachep = cache;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDAAdoptChannels(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], PetscInt *di, PetscInt *dj, double *dhw, double *dg2, PetscObject *hold, PetscBool *kept)
{
  BTEPairDevChannels *cache;
  PetscObject         obj = NULL;

  PetscFunctionBegin;
  *kept = PETSC_FALSE;
  if (hold) *hold = NULL;
  if (!owner) PetscFunctionReturn(0);
  PetscCall(PetscObjectCompose(owner, BTEPairDevChannelsName, NULL)); /* an earlier table's */
  PetscCall(PetscNew(&cache));
  cache->n   = n;
  cache->hi  = hi;
  cache->hg2 = hg2;
  cache->i   = di;
  cache->j   = dj;
  cache->hw  = dhw;
  cache->g2  = dg2;
  PetscCall(BTEPairDevChannelsCompose(owner, cache));
  if (hold) { /* the caller's reference: the arrays live until it lets go, whatever the owner does */
    PetscCall(PetscObjectQuery(owner, BTEPairDevChannelsName, &obj));
    PetscCall(PetscObjectReference(obj));
    *hold = obj;
  }
  *kept = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* owner's device copy of the channel arrays hi[] (ends i), hg2[] of n channels, or NULL */
static PetscErrorCode BTEPairDevChannelsFind(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], BTEPairDevChannels **found)
{
  PetscObject         obj   = NULL;
  BTEPairDevChannels *cache = NULL;

  PetscFunctionBegin;
  *found = NULL;
  if (!owner) PetscFunctionReturn(0);
  PetscCall(PetscObjectQuery(owner, BTEPairDevChannelsName, &obj));
  if (obj) PetscCall(PetscContainerGetPointer((PetscContainer)obj, (void **)&cache));
  if (cache && cache->n == n && cache->hi == hi && cache->hg2 == hg2) *found = cache;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDAHasChannels(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], PetscBool *has)
{
  BTEPairDevChannels *cache;

  PetscFunctionBegin;
  PetscCall(BTEPairDevChannelsFind(owner, n, hi, hg2, &cache));
  *has = cache ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* min-label propagation: every channel lowers the label of its end with the larger label to the
   other's, then labels jump to their label's label, until nothing changes. Labels only decrease
   and stay within a piece, so they end at the piece's smallest state index: union-find's roots. */
__global__ static void bte_pair_cc_edges(int64_t n, const PetscInt *__restrict__ ci, const PetscInt *__restrict__ cj, PetscInt *lab, int *changed)
{
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < n; c += (int64_t)gridDim.x * blockDim.x) {
    const PetscInt a = lab[ci[c]], b = lab[cj[c]];
    if (a < b) {
      atomicMin(&lab[cj[c]], a);
      *changed = 1;
    } else if (b < a) {
      atomicMin(&lab[ci[c]], b);
      *changed = 1;
    }
  }
}

__global__ static void bte_pair_cc_jump(PetscInt N, PetscInt *lab)
{
  for (PetscInt v = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; v < N; v += (PetscInt)gridDim.x * blockDim.x) {
    PetscInt l = lab[v];
    while (lab[l] < l) l = lab[l];
    lab[v] = l;
  }
}

__global__ static void bte_pair_cc_init(PetscInt N, PetscInt *lab)
{
  for (PetscInt v = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; v < N; v += (PetscInt)gridDim.x * blockDim.x) lab[v] = v;
}

PetscErrorCode BTEPairCUDAChannelComponents(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], PetscInt N, PetscInt par[], PetscBool *done)
{
  BTEPairDevChannels *cache;
  PetscInt           *lab;
  int                *dch, hch = 1, sweeps = 0;

  PetscFunctionBegin;
  static_assert(sizeof(PetscInt) == sizeof(int), "atomicMin on 32-bit PetscInt");
  *done = PETSC_FALSE;
  PetscCall(BTEPairDevChannelsFind(owner, n, hi, hg2, &cache));
  if (!cache) PetscFunctionReturn(0);
  PetscCallCUDA(cudaMalloc((void **)&lab, PetscMax((size_t)N, (size_t)1) * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&dch, sizeof(int)));
  bte_pair_cc_init<<<BTEPairGrid(N), 256>>>(N, lab);
  while (hch) {
    PetscCallCUDA(cudaMemset(dch, 0, sizeof(int)));
    if (n) bte_pair_cc_edges<<<BTEPairGrid(n), 256>>>((int64_t)n, cache->i, cache->j, lab, dch);
    bte_pair_cc_jump<<<BTEPairGrid(N), 256>>>(N, lab);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpy(&hch, dch, sizeof(int), cudaMemcpyDeviceToHost));
    sweeps++;
  }
  PetscCallCUDA(cudaMemcpy(par, lab, (size_t)N * sizeof(PetscInt), cudaMemcpyDeviceToHost));
  PetscCallCUDA(cudaFree(lab));
  PetscCallCUDA(cudaFree(dch));
  PetscCall(PetscInfo(NULL, "channel graph on the device: %" PetscCount_FMT " channels, %" PetscInt_FMT " states, %d sweeps\n", n, N, sweeps));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Page-locks a channel table's four arrays in place (read-only) for copies without staging; *ok false,
   and none left locked, where the system refuses one of them. */
static PetscErrorCode BTEPairLockChannels(PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[], PetscBool *ok)
{
  const void *src[4] = {ci, cj, hw, g2};
  size_t      len[4] = {(size_t)n * sizeof(PetscInt), (size_t)n * sizeof(PetscInt), (size_t)n * sizeof(double), (size_t)n * sizeof(double)};
  int         k;

  PetscFunctionBegin;
  for (k = 0; k < 4; k++)
    if (cudaHostRegister((void *)src[k], len[k], cudaHostRegisterReadOnly) != cudaSuccess) break;
  *ok = k == 4 ? PETSC_TRUE : PETSC_FALSE;
  if (!*ok) (void)cudaGetLastError();
  for (int u = 0; !*ok && u < k; u++) PetscCallCUDA(cudaHostUnregister((void *)src[u]));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEPairUnlockChannels(const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[])
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaHostUnregister((void *)ci));
  PetscCallCUDA(cudaHostUnregister((void *)cj));
  PetscCallCUDA(cudaHostUnregister((void *)hw));
  PetscCallCUDA(cudaHostUnregister((void *)g2));
  PetscFunctionReturn(0);
}

/* The whole arrays into the kept copy at once: page-locked in place and copied without staging;
   *done false where they cannot be page-locked (the caller then stages them) */
static PetscErrorCode BTEPairDevChannelsCopyWhole(cudaStream_t stream, BTEPairDevChannels *cache, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[], PetscBool *done)
{
  const void *src[4] = {ci, cj, hw, g2};
  void       *dst[4] = {cache->i, cache->j, cache->hw, cache->g2};
  size_t      len[4] = {(size_t)n * sizeof(PetscInt), (size_t)n * sizeof(PetscInt), (size_t)n * sizeof(double), (size_t)n * sizeof(double)};

  PetscFunctionBegin;
  PetscCall(BTEPairLockChannels(n, ci, cj, hw, g2, done));
  if (*done) {
    for (int k = 0; k < 4; k++) PetscCallCUDA(cudaMemcpyAsync(dst[k], src[k], len[k], cudaMemcpyHostToDevice, stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * (2 * sizeof(PetscInt) + 2 * sizeof(double))));
    PetscCall(BTEPairUnlockChannels(ci, cj, hw, g2));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderAdd(BTEPairCUDABuilder B, PetscObject owner, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[])
{
  int                *dbad, hbad = 0;
  BTEPairDevChannels *cache = NULL;
  PetscBool           upload = PETSC_TRUE;

  PetscFunctionBegin;
  static_assert(sizeof(PetscReal) == sizeof(double), "double rates");
  PetscCheck(B->pushed + (int64_t)n <= B->nch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair device build: more channels than announced");
  if (owner) PetscCall(BTEPairDevChannelsGet(owner, n, ci, g2, &cache, &upload)); /* kept from an earlier build, or room for it */
  PetscCall(PetscInfo(NULL, "pair device build: channel arrays %s\n", !upload ? "already on the device (earlier build)" : cache ? "copied to the device and kept there for later builds" : "streamed through the device"));
  if (B->keep && !(cache && B->pushed == 0 && (int64_t)n == B->nch)) { /* a refresh reads the kept arrays */
    B->keep = 0;
    for (int i = 0; i < 2; i++) {
      PetscCallCUDA(cudaFree(B->idx[i]));
      B->idx[i] = NULL;
    }
    PetscCall(PetscInfo(NULL, "pair device build: the channel arrays are not kept on the device: a change of temperature will rebuild the layout\n"));
  }
  PetscCallCUDA(cudaMalloc((void **)&dbad, sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), B->stream));
  if (upload && cache) { /* the whole arrays at once, else the staged path below */
    PetscBool whole;
    PetscCall(BTEPairDevChannelsCopyWhole(B->stream, cache, n, ci, cj, hw, g2, &whole));
    if (whole) upload = PETSC_FALSE;
  }
  /* arrays that are not kept (e.g. a rank's compact copy of the channels it computes): page-locked
     in place when the system allows, then each batch is copied straight from them, without the
     staging pass through host memory (whose copy rate, ~5 GB/s, made most of a multi-rank setup) */
  PetscBool      direct = PETSC_FALSE;
  PetscLogDouble tr0, tr1;
  PetscCall(PetscTime(&tr0));
  if (upload && !cache && n > 0) PetscCall(BTEPairLockChannels(n, ci, cj, hw, g2, &direct));
  PetscCall(PetscTime(&tr1));
  if (upload && !cache && n > 0) PetscCall(PetscInfo(NULL, "pair device build: %s in %.3f s\n", direct ? "arrays page-locked in place" : "arrays not page-locked: staged copies", tr1 - tr0));
  /* batches through two pinned buffers: the threads fill one while the other is on its way;
     copies and kernels go in stream order, so one device copy of a batch suffices (or the batch
     goes to its place in the kept copy) */
  for (int64_t s = 0, x = 0; s < (int64_t)n; s += B->batch, x = 1 - x) {
    const int64_t m  = PetscMin(B->batch, (int64_t)n - s);
    PetscInt     *di = cache ? cache->i + s : B->di, *dj = cache ? cache->j + s : B->dj;
    double       *dhw = cache ? cache->hw + s : B->dhw, *dg2 = cache ? cache->g2 + s : B->dg2;
    if (direct) {
      PetscCallCUDA(cudaMemcpyAsync(di, ci + s, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaMemcpyAsync(dj, cj + s, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaMemcpyAsync(dhw, hw + s, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaMemcpyAsync(dg2, g2 + s, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, B->stream));
    } else if (upload) {
      char     *h = B->stage[x];
      PetscInt *hi = (PetscInt *)h, *hj = hi + B->batch;
      double   *hhw = (double *)(hj + B->batch), *hg2 = hhw + B->batch;
      PetscCallCUDA(cudaEventSynchronize(B->staged[x]));
#pragma omp parallel for schedule(static)
      for (int64_t k = 0; k < m; k++) {
        hi[k]  = ci[s + k];
        hj[k]  = cj[s + k];
        hhw[k] = hw[s + k];
        hg2[k] = g2[s + k];
      }
      PetscCallCUDA(cudaMemcpyAsync(di, hi, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaMemcpyAsync(dj, hj, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaMemcpyAsync(dhw, hhw, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaMemcpyAsync(dg2, hg2, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, B->stream));
      PetscCallCUDA(cudaEventRecord(B->staged[x], B->stream));
    }
    bte_pair_build_keys<<<BTEPairGrid(m), 256, 0, B->stream>>>(m, B->tile, B->ntile, B->info, B->dghosts, B->dinv, B->denergy, di, dj, dhw, dg2, B->key[0] + B->pushed + s, B->val[0] + B->pushed + s, dbad);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaMemcpyAsync(&hbad, dbad, sizeof(int), cudaMemcpyDeviceToHost, B->stream));
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  if (direct) PetscCall(BTEPairUnlockChannels(ci, cj, hw, g2));
  PetscCallCUDA(cudaFree(dbad));
  PetscCheck(!hbad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair device build: a channel has an end that is neither owned nor a ghost");
  if (upload) PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * (2 * sizeof(PetscInt) + 2 * sizeof(double))));
  B->pushed += (int64_t)n;
  PetscFunctionReturn(0);
}

/* pairs partition: the channels this rank computes, selected on the device from all it holds. The
   held arrays go to the device whole and are kept there (as on one rank: page-locked in place, no
   host copy-out); a kernel marks the computed ones (the host's rule, BTECollComputesIn), CUB packs
   them in channel order, and they are keyed as BTEPairCUDABuilderAdd keys its channels. *done is
   false, and nothing pushed, where the device lacks room for the kept arrays and the packed copy. */
PetscErrorCode BTEPairCUDABuilderAddSelected(BTEPairCUDABuilder B, PetscObject owner, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[], const BTECollPartitionRule *sel, PetscBool *done)
{
  BTEPairDevChannels *cache = NULL;
  PetscBool           upload;
  const int64_t       ncomp = B->nch - B->pushed;
  size_t              freeb, totalb, tmpb = 0, need;
  uint8_t            *flag  = NULL;
  PetscInt           *pranges = NULL, *di = NULL, *dj = NULL;
  PetscReal          *pfrac = NULL;
  int32_t            *gslot = NULL;
  uint32_t           *ptab  = NULL;
  BTECollPartitionRule rule = *sel;
  double             *dhw = NULL, *dg2 = NULL;
  void               *tmp = NULL;
  int64_t            *dnum = NULL, hnum[4];
  int                *dbad, hbad = 0;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  if (n >= (PetscCount)INT32_MAX) { /* CUB's selection counts in int */
    PetscCall(PetscInfo(NULL, "pair device build: %" PetscCount_FMT " held channels exceed the device selection's 32-bit counts: they are selected on the host\n", n));
    PetscFunctionReturn(0);
  }
  PetscCall(BTEPairDevChannelsGet(owner, n, ci, g2, &cache, &upload));
  if (!cache) {
    PetscCall(PetscInfo(NULL, "pair device build: no room to keep the held channels on the device: they are selected on the host\n"));
    PetscFunctionReturn(0);
  }
  {
    size_t bi = 0, bd = 0;
    PetscCallCUDA(cub::DeviceSelect::Flagged(NULL, bi, (const PetscInt *)NULL, (const uint8_t *)NULL, (PetscInt *)NULL, (int64_t *)NULL, (int)n, B->stream));
    PetscCallCUDA(cub::DeviceSelect::Flagged(NULL, bd, (const double *)NULL, (const uint8_t *)NULL, (double *)NULL, (int64_t *)NULL, (int)n, B->stream));
    tmpb = PetscMax(bi, bd);
  }
  need = (size_t)n + (size_t)ncomp * (2 * sizeof(PetscInt) + 2 * sizeof(double)) + tmpb + ((size_t)64 << 20);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  if (need > freeb) {
    PetscCall(PetscInfo(NULL, "pair device build: no room (%.2f GB, %.2f GB free) to select the computed channels on the device: they are selected on the host\n", (double)need / 1e9, (double)freeb / 1e9));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscInfo(NULL, "pair device build: held channels %s; the %" PetscInt64_FMT " of %" PetscCount_FMT " this rank computes selected on the device\n", upload ? "copied to the device and kept there for later builds" : "already on the device (earlier build)", (PetscInt64)ncomp, n));
  if (upload) {
    PetscBool whole;
    PetscCall(BTEPairDevChannelsCopyWhole(B->stream, cache, n, ci, cj, hw, g2, &whole));
    if (!whole) { /* not page-lockable: plain copies (the kept copy is filled either way) */
      PetscCallCUDA(cudaMemcpy(cache->i, ci, (size_t)n * sizeof(PetscInt), cudaMemcpyHostToDevice));
      PetscCallCUDA(cudaMemcpy(cache->j, cj, (size_t)n * sizeof(PetscInt), cudaMemcpyHostToDevice));
      PetscCallCUDA(cudaMemcpy(cache->hw, hw, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
      PetscCallCUDA(cudaMemcpy(cache->g2, g2, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
      PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * (2 * sizeof(PetscInt) + 2 * sizeof(double))));
    }
  }
  if (B->keep) { /* a refresh would have to select again: not kept */
    B->keep = 0;
    for (int i = 0; i < 2; i++) {
      PetscCallCUDA(cudaFree(B->idx[i]));
      B->idx[i] = NULL;
    }
  }
  PetscCall(BTECollCUDAUpload(sel->pranges, (size_t)sel->psize + 1, &pranges, NULL));
  PetscCall(BTECollCUDAUpload(sel->pfrac, (size_t)sel->psize * sel->psize, &pfrac, NULL));
  if (sel->gslot) { /* tile blocks */
    PetscCall(BTECollCUDAUpload(sel->gslot, (size_t)sel->pranges[sel->psize], &gslot, NULL));
    PetscCall(BTECollCUDAUpload(sel->ptab, (size_t)((sel->ntg * sel->ntg + 31) / 32), &ptab, NULL));
  }
  rule.pranges = pranges;
  rule.pfrac   = pfrac;
  rule.gslot   = gslot;
  rule.ptab    = ptab;
  PetscCallCUDA(cudaDeviceSynchronize()); /* the uploads (pageable, legacy stream) before this stream uses them */
  PetscCallCUDA(cudaMalloc((void **)&flag, PetscMax((size_t)n, (size_t)1)));
  PetscCallCUDA(cudaMalloc((void **)&di, PetscMax((size_t)ncomp, (size_t)1) * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&dj, PetscMax((size_t)ncomp, (size_t)1) * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&dhw, PetscMax((size_t)ncomp, (size_t)1) * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&dg2, PetscMax((size_t)ncomp, (size_t)1) * sizeof(double)));
  PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tmpb, (size_t)1)));
  PetscCallCUDA(cudaMalloc((void **)&dnum, 4 * sizeof(int64_t)));
  PetscCallCUDA(cudaMalloc((void **)&dbad, sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), B->stream));
  bte_pair_build_computes<<<BTEPairGrid((int64_t)n), 256, 0, B->stream>>>((int64_t)n, cache->i, cache->j, rule, flag);
  PetscCallCUDA(cudaGetLastError());
  /* the same flags for the four arrays; the temporary storage, sized for the larger need, serves all */
  PetscCallCUDA(cub::DeviceSelect::Flagged(tmp, tmpb, (const PetscInt *)cache->i, (const uint8_t *)flag, di, dnum + 0, (int)n, B->stream));
  PetscCallCUDA(cub::DeviceSelect::Flagged(tmp, tmpb, (const PetscInt *)cache->j, (const uint8_t *)flag, dj, dnum + 1, (int)n, B->stream));
  PetscCallCUDA(cub::DeviceSelect::Flagged(tmp, tmpb, (const double *)cache->hw, (const uint8_t *)flag, dhw, dnum + 2, (int)n, B->stream));
  PetscCallCUDA(cub::DeviceSelect::Flagged(tmp, tmpb, (const double *)cache->g2, (const uint8_t *)flag, dg2, dnum + 3, (int)n, B->stream));
  PetscCallCUDA(cudaMemcpyAsync(hnum, dnum, 4 * sizeof(int64_t), cudaMemcpyDeviceToHost, B->stream));
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  for (int a = 0; a < 4; a++) PetscCheck(hnum[a] == ncomp, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair device build: %" PetscInt64_FMT " channels selected on the device, the host counted %" PetscInt64_FMT, (PetscInt64)hnum[a], (PetscInt64)ncomp);
  for (int64_t s = 0; s < ncomp; s += B->batch) {
    const int64_t m = PetscMin(B->batch, ncomp - s);
    bte_pair_build_keys<<<BTEPairGrid(m), 256, 0, B->stream>>>(m, B->tile, B->ntile, B->info, B->dghosts, B->dinv, B->denergy, di + s, dj + s, dhw + s, dg2 + s, B->key[0] + B->pushed + s, B->val[0] + B->pushed + s, dbad);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaMemcpyAsync(&hbad, dbad, sizeof(int), cudaMemcpyDeviceToHost, B->stream));
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCallCUDA(cudaFree(dbad));
  PetscCallCUDA(cudaFree(dnum));
  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(dg2));
  PetscCallCUDA(cudaFree(dhw));
  PetscCallCUDA(cudaFree(dj));
  PetscCallCUDA(cudaFree(di));
  PetscCallCUDA(cudaFree(flag));
  PetscCallCUDA(cudaFree(ptab));
  PetscCallCUDA(cudaFree(gslot));
  PetscCallCUDA(cudaFree(pfrac));
  PetscCallCUDA(cudaFree(pranges));
  PetscCheck(!hbad, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair device build: a channel has an end that is neither owned nor a ghost");
  B->pushed += ncomp;
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The inputs of the key computation: pinned and device batch buffers, and (states) the state
   arrays, which a refresh of the rates needs again. */
static PetscErrorCode BTEPairCUDABuilderFreeInputs(BTEPairCUDABuilder B, PetscBool states)
{
  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFreeHost(B->stage[i]));
    B->stage[i] = NULL;
  }
  PetscCallCUDA(cudaFree(B->di));
  PetscCallCUDA(cudaFree(B->dj));
  PetscCallCUDA(cudaFree(B->dhw));
  PetscCallCUDA(cudaFree(B->dg2));
  B->di = B->dj = NULL;
  B->dhw = B->dg2 = NULL;
  if (states) {
    PetscCallCUDA(cudaFree(B->dghosts));
    PetscCallCUDA(cudaFree(B->dinv));
    PetscCallCUDA(cudaFree(B->denergy));
    B->dghosts = NULL;
    B->dinv    = NULL;
    B->denergy = NULL;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderMerge(BTEPairCUDABuilder B, PetscInt64 *nnz, PetscInt64 *nrows, uint64_t **rowkey, int32_t **rowcount)
{
  void     *tmp = NULL;
  size_t    tbytes = 0, t2 = 0;
  int       endbit = 1;
  int64_t  *dnum, hnum[2];
  const int64_t n = B->nch;
  uint64_t  maxkey;

  PetscFunctionBegin;
  PetscCheck(B->pushed == B->nch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair device build: %" PetscInt64_FMT " of %" PetscInt64_FMT " channels pushed", (PetscInt64)B->pushed, (PetscInt64)B->nch);
  PetscCall(BTEPairCUDABuilderFreeInputs(B, B->keep ? PETSC_FALSE : PETSC_TRUE)); /* the batch copies and (unless kept) the state arrays */
  maxkey = (uint64_t)B->ntile * (uint64_t)B->tile;
  maxkey = maxkey * maxkey;
  while (endbit < 64 && ((uint64_t)1 << endbit) < maxkey) endbit++;
  PetscCallCUDA(cudaMalloc((void **)&dnum, 2 * sizeof(int64_t)));
  if (!B->keep) {
    cub::DoubleBuffer<uint64_t> k(B->key[0], B->key[1]);
    cub::DoubleBuffer<double2>  v(B->val[0], B->val[1]);
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, tbytes, k, v, n, 0, endbit, B->stream));
    PetscCallCUDA(cub::DeviceReduce::ReduceByKey(NULL, t2, B->key[0], B->key[1], B->val[0], B->val[1], dnum, BTEPairSum2(), n, B->stream));
    tbytes = PetscMax(tbytes, t2);
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, tbytes, k, v, n, 0, endbit, B->stream));
    /* merge repeated pairs: sorted data in buffer k.selector, merged into the other one */
    B->sel  = 1 - k.selector;
    B->vsel = B->sel;
    PetscCallCUDA(cub::DeviceReduce::ReduceByKey(tmp, tbytes, k.Current(), B->key[B->sel], v.Current(), B->val[B->vsel], dnum, BTEPairSum2(), n, B->stream));
  } else { /* the same sequence (the sort is stable) through the channels' positions, which are kept */
    cub::DoubleBuffer<uint64_t> k(B->key[0], B->key[1]);
    cub::DoubleBuffer<uint32_t> ix(B->idx[0], B->idx[1]);
    bte_pair_build_iota<<<BTEPairGrid(n), 256, 0, B->stream>>>(n, B->idx[0]);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, tbytes, k, ix, n, 0, endbit, B->stream));
    PetscCallCUDA(cub::DeviceReduce::ReduceByKey(NULL, t2, B->key[0], B->key[1], B->val[0], B->val[1], dnum, BTEPairSum2(), n, B->stream));
    tbytes = PetscMax(tbytes, t2);
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, tbytes, k, ix, n, 0, endbit, B->stream));
    B->sel  = 1 - k.selector;
    B->isel = ix.selector;
    /* the rates (val[0], in channel order) in sorted order into val[1], merged into val[0] */
    bte_pair_build_gather<<<BTEPairGrid(n), 256, 0, B->stream>>>(n, ix.Current(), NULL, B->val[0], NULL, B->val[1]);
    PetscCallCUDA(cudaGetLastError());
    B->vsel = 0;
    PetscCallCUDA(cub::DeviceReduce::ReduceByKey(tmp, tbytes, k.Current(), B->key[B->sel], B->val[1], B->val[B->vsel], dnum, BTEPairSum2(), n, B->stream));
    PetscCallCUDA(cudaFree(B->idx[1 - B->isel]));
    B->idx[1 - B->isel] = NULL;
  }
  PetscCallCUDA(cudaMemcpyAsync(&hnum[0], dnum, sizeof(int64_t), cudaMemcpyDeviceToHost, B->stream));
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  B->nnz = hnum[0];
  PetscCheck(B->nnz < (int64_t)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "pair device build: %" PetscInt64_FMT " pairs exceed what the row encoding handles; use -bte_pair_build host", (PetscInt64)B->nnz);
  PetscCallCUDA(cudaFree(tmp));
  tmp = NULL;
  /* rows: the sorted buffer (free now) takes the row keys, the unique rows go into the other
     value buffer (16 B per entry: room for 8 B keys and 4 B counts) */
  {
    uint64_t *rk = B->key[1 - B->sel], *urk = (uint64_t *)B->val[1 - B->vsel];
    int32_t  *cnt = (int32_t *)(urk + B->nnz);
    int      *dn  = (int *)dnum;
    int       hn  = 0;
    bte_pair_build_rowkeys<<<BTEPairGrid(B->nnz), 256, 0, B->stream>>>(B->nnz, B->tile, B->key[B->sel], rk);
    PetscCallCUDA(cudaGetLastError());
    tbytes = 0;
    PetscCallCUDA(cub::DeviceRunLengthEncode::Encode(NULL, tbytes, rk, urk, cnt, dn, (int)B->nnz, B->stream));
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceRunLengthEncode::Encode(tmp, tbytes, rk, urk, cnt, dn, (int)B->nnz, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(&hn, dn, sizeof(int), cudaMemcpyDeviceToHost, B->stream));
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(tmp));
    *nrows = hn;
    PetscCall(PetscMalloc2(PetscMax(hn, 1), rowkey, PetscMax(hn, 1), rowcount));
    PetscCallCUDA(cudaMemcpy(*rowkey, urk, (size_t)hn * sizeof(uint64_t), cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(*rowcount, cnt, (size_t)hn * sizeof(int32_t), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)hn * 12));
  }
  PetscCallCUDA(cudaFree(dnum));
  /* the sorted buffers are no longer needed */
  PetscCallCUDA(cudaFree(B->key[1 - B->sel]));
  PetscCallCUDA(cudaFree(B->val[1 - B->vsel]));
  B->key[1 - B->sel]  = NULL;
  B->val[1 - B->vsel] = NULL;
  *nnz               = B->nnz;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderTouched(BTEPairCUDABuilder B, const BTEPairLayout *L, uint32_t **bits)
{
  const int32_t words = (L->tile + 31) / 32;
  uint32_t     *dbits;

  PetscFunctionBegin;
  PetscCall(BTECollCUDAUpload(L->chunks, (size_t)L->nchunk, &B->dchunks, NULL));
  static_assert(sizeof(long long) == sizeof(int64_t), "64-bit offsets");
  PetscCall(BTECollCUDAUpload((const long long *)L->rowptr, (size_t)L->nrowptr, &B->drowptr, NULL));
  PetscCallCUDA(cudaDeviceSynchronize()); /* the uploads are done before this stream reads them */
  PetscCall(PetscMalloc1(PetscMax((size_t)L->nchunk * words, (size_t)1), bits));
  if (L->nchunk) {
    PetscCallCUDA(cudaMalloc((void **)&dbits, (size_t)L->nchunk * words * sizeof(uint32_t)));
    PetscCheck(L->nchunk < (int64_t)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "pair device build: too many chunks");
    bte_pair_build_touched<<<(unsigned)L->nchunk, 256, words * sizeof(uint32_t), B->stream>>>(words, L->tile, B->dchunks, B->drowptr, B->key[B->sel], dbits);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(*bits, dbits, (size_t)L->nchunk * words * sizeof(uint32_t), cudaMemcpyDeviceToHost, B->stream));
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(dbits));
  }
  PetscFunctionReturn(0);
}

/* What a refresh of the rates keeps (BTEPairCUDARatesRefresh). */
struct _n_BTEPairCUDARates {
  int64_t              nch, nnz;
  int32_t              tile, ntile;
  BTEPairCUDABuildInfo info; /* constants; its arrays are those of the build (not used) */
  PetscInt            *dghosts;
  int32_t             *dinv;
  double              *denergy;
  uint32_t            *perm; /* nch: the channel at each sorted position */
  PetscLogDouble       bytes;
};

PetscErrorCode BTEPairCUDABuilderFinish(BTEPairCUDABuilder *builder, const BTEPairLayout *L, BTEPairCUDA *dev, BTEPairCUDARates *rates)
{
  BTEPairCUDABuilder B = *builder;
  uint16_t          *col;
  void              *w;
  const int64_t      nnz = B->nnz;

  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)&col, PetscMax((size_t)nnz, (size_t)1) * sizeof(uint16_t)));
  bte_pair_build_cols<<<BTEPairGrid(nnz), 256, 0, B->stream>>>(nnz, B->tile, B->key[B->sel], col);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCallCUDA(cudaFree(B->key[B->sel]));
  B->key[B->sel] = NULL;
  /* the weights at their final size (the merged buffer holds nch entries) */
  if (B->mixed) {
    PetscCallCUDA(cudaMalloc(&w, PetscMax((size_t)nnz, (size_t)1) * sizeof(float2)));
    bte_pair_build_float<<<BTEPairGrid(nnz), 256, 0, B->stream>>>(nnz, B->val[B->vsel], (float2 *)w);
    PetscCallCUDA(cudaGetLastError());
  } else {
    PetscCallCUDA(cudaMalloc(&w, PetscMax((size_t)nnz, (size_t)1) * sizeof(double2)));
    PetscCallCUDA(cudaMemcpyAsync(w, B->val[B->vsel], (size_t)nnz * sizeof(double2), cudaMemcpyDeviceToDevice, B->stream));
  }
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCallCUDA(cudaFree(B->val[B->vsel]));
  B->val[B->vsel] = NULL;
  *rates          = NULL;
  if (B->keep) { /* the sorted positions and the state arrays go to the refresh's data */
    BTEPairCUDARates R;
    PetscCall(PetscNew(&R));
    R->nch     = B->nch;
    R->nnz     = nnz;
    R->tile    = B->tile;
    R->ntile   = B->ntile;
    R->info    = B->info;
    R->dghosts = B->dghosts;
    R->dinv    = B->dinv;
    R->denergy = B->denergy;
    R->perm    = B->idx[B->isel];
    R->bytes   = (PetscLogDouble)B->nch * sizeof(uint32_t) + (PetscLogDouble)B->info.n * (sizeof(int32_t) + sizeof(double)) + (PetscLogDouble)B->info.nghost * sizeof(PetscInt);
    B->dghosts = NULL;
    B->dinv    = NULL;
    B->denergy = NULL;
    B->idx[B->isel] = NULL;
    *rates     = R;
  }
  /* the host may have reordered the chunks since Touched uploaded them (the pairs partition puts
     those of owned tiles first): the device takes them in the host's final order */
  if (L->nchunk) PetscCallCUDA(cudaMemcpy(B->dchunks, L->chunks, (size_t)L->nchunk * sizeof(BTEPairChunk), cudaMemcpyHostToDevice));
  PetscCall(BTEPairCUDACreateWith(L, B->dchunks, B->drowptr, col, B->mixed ? NULL : (double2 *)w, B->mixed ? (float2 *)w : NULL, dev));
  B->dchunks = NULL;
  B->drowptr = NULL;
  PetscCall(BTEPairCUDABuilderDestroy(builder));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDADeviceKey(int *key)
{
  int            dev;
  cudaDeviceProp p;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&p, dev));
  /* the device index depends on each process's CUDA_VISIBLE_DEVICES; the PCI address does not */
  *key = ((p.pciDomainID & 0x7f) << 24) | ((p.pciBusID & 0xff) << 16) | (p.pciDeviceID & 0xffff);
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderDestroy(BTEPairCUDABuilder *builder)
{
  BTEPairCUDABuilder B = *builder;

  PetscFunctionBegin;
  if (!B) PetscFunctionReturn(0);
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCall(BTEPairCUDABuilderFreeInputs(B, PETSC_TRUE));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFree(B->key[i]));
    PetscCallCUDA(cudaFree(B->val[i]));
    PetscCallCUDA(cudaFree(B->idx[i]));
    PetscCallCUDA(cudaEventDestroy(B->staged[i]));
  }
  PetscCallCUDA(cudaFree(B->dchunks));
  PetscCallCUDA(cudaFree(B->drowptr));
  PetscCallCUDA(cudaStreamDestroy(B->stream));
  PetscCall(PetscFree(*builder));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDARatesRefresh(BTEPairCUDARates R, PetscObject owner, PetscCount n, const PetscInt ci[], const PetscReal g2[], PetscReal kT, PetscReal kTdb, BTEPairCUDA dev, PetscBool *done)
{
  BTEPairDevChannels  *cache = NULL;
  PetscObject          obj   = NULL;
  BTEPairCUDABuildInfo info;
  cudaStream_t         stream;
  uint64_t            *key[2] = {NULL, NULL};
  double2             *val[2] = {NULL, NULL}, *w;
  float2              *ws;
  int64_t             *dnum, hnum = -1, nnz;
  int                 *dbad, hbad = 0;
  void                *tmp    = NULL;
  size_t               tbytes = 0, freeb, totalb, need;
  const int64_t        nch    = R->nch;

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  /* the channel arrays the build read, still on the device (kept on the owner) */
  PetscCall(PetscObjectQuery(owner, BTEPairDevChannelsName, &obj));
  if (!obj) PetscFunctionReturn(0);
  PetscCall(PetscContainerGetPointer((PetscContainer)obj, (void **)&cache));
  if (!cache || (int64_t)cache->n != nch || (int64_t)n != nch || cache->hi != ci || cache->hg2 != g2) PetscFunctionReturn(0);
  PetscCall(BTEPairCUDAGetWeights(dev, &w, &ws, &nnz));
  PetscCheck(nnz == R->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair refresh: the layout has %" PetscInt64_FMT " pairs, its build %" PetscInt64_FMT, (PetscInt64)nnz, (PetscInt64)R->nnz);
  PetscCallCUDA(cub::DeviceReduce::ReduceByKey(NULL, tbytes, (uint64_t *)NULL, (uint64_t *)NULL, (double2 *)NULL, (double2 *)NULL, (int64_t *)NULL, BTEPairSum2(), nch, (cudaStream_t)0));
  need = (size_t)nch * 2 * (sizeof(uint64_t) + sizeof(double2)) + tbytes + ((size_t)64 << 20);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  if (need > freeb) {
    PetscCall(PetscInfo(NULL, "pair refresh: %.2f GB needed on the device, %.2f GB free: the layout is rebuilt\n", (double)need / 1e9, (double)freeb / 1e9));
    PetscFunctionReturn(0);
  }
  /* the applies queued on PETSc's stream read the weights rewritten here: let them finish */
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCallCUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaMalloc((void **)&key[i], PetscMax((size_t)nch, (size_t)1) * sizeof(uint64_t)));
    PetscCallCUDA(cudaMalloc((void **)&val[i], PetscMax((size_t)nch, (size_t)1) * sizeof(double2)));
  }
  PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
  PetscCallCUDA(cudaMalloc((void **)&dnum, sizeof(int64_t)));
  PetscCallCUDA(cudaMalloc((void **)&dbad, sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(dbad, 0, sizeof(int), stream));
  /* every channel's key and rates at kT (the build's kernel, in channel order), then in the
     build's sorted order, then merged by the build's reduction */
  info      = R->info;
  info.kT   = kT;
  info.kTdb = kTdb;
  bte_pair_build_keys<<<BTEPairGrid(nch), 256, 0, stream>>>(nch, R->tile, R->ntile, info, R->dghosts, R->dinv, R->denergy, cache->i, cache->j, cache->hw, cache->g2, key[0], val[0], dbad);
  PetscCallCUDA(cudaGetLastError());
  bte_pair_build_gather<<<BTEPairGrid(nch), 256, 0, stream>>>(nch, R->perm, key[0], val[0], key[1], val[1]);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cub::DeviceReduce::ReduceByKey(tmp, tbytes, key[1], key[0], val[1], val[0], dnum, BTEPairSum2(), nch, stream));
  PetscCallCUDA(cudaMemcpyAsync(&hnum, dnum, sizeof(int64_t), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaMemcpyAsync(&hbad, dbad, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  PetscCheck(!hbad && hnum == nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair refresh: %" PetscInt64_FMT " merged pairs (the layout has %" PetscInt64_FMT ")%s", (PetscInt64)hnum, (PetscInt64)nnz, hbad ? "; a channel has an end that is neither owned nor a ghost" : "");
  /* into the layout's weights, as the build's Finish writes them */
  if (ws) {
    bte_pair_build_float<<<BTEPairGrid(nnz), 256, 0, stream>>>(nnz, val[0], ws);
    PetscCallCUDA(cudaGetLastError());
  } else PetscCallCUDA(cudaMemcpyAsync(w, val[0], (size_t)nnz * sizeof(double2), cudaMemcpyDeviceToDevice, stream));
  PetscCallCUDA(cudaStreamSynchronize(stream));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFree(key[i]));
    PetscCallCUDA(cudaFree(val[i]));
  }
  PetscCallCUDA(cudaFree(tmp));
  PetscCallCUDA(cudaFree(dnum));
  PetscCallCUDA(cudaFree(dbad));
  PetscCallCUDA(cudaStreamDestroy(stream));
  PetscCall(PetscLogGpuFlops(40.0 * (PetscLogDouble)nch));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDARatesGetBytes(BTEPairCUDARates R, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = R ? R->bytes : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDARatesDestroy(BTEPairCUDARates *rates)
{
  BTEPairCUDARates R = *rates;

  PetscFunctionBegin;
  if (!R) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree(R->dghosts));
  PetscCallCUDA(cudaFree(R->dinv));
  PetscCallCUDA(cudaFree(R->denergy));
  PetscCallCUDA(cudaFree(R->perm));
  PetscCall(PetscFree(*rates));
  PetscFunctionReturn(0);
}
