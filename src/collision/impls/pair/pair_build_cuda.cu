/* The pair layout (pairlayout.h) built on the device.

   The host path (pair.c) places every channel into its tile-pair block, sorts each block with
   qsort and merges repeated pairs, on the host: at 1e8-1e9 channels that is most of a run's
   setup and needs ~50 B per channel of host memory beside the table. Here the host only
   computes each channel's oriented ends and rates (P, Q: the same inline formulas as every other
   path, so the rates are bitwise those of the host build) into pinned batches; the device turns
   them into 64-bit keys (tile pair, row, column), radix-sorts (key, (P, Q)), merges repeated
   keys by summation and run-length encodes the rows. The host gets back only the row structure
   (one count per non-empty row) and, after cutting chunks, one column bitmap per chunk: it makes
   the chunks, row pointers and slot lists from those, exactly as the host build does from its
   arrays. The columns and rates never leave the device.

   Against the host build: the same chunks, rows, columns and slots; merged rates may differ in
   the last bits, because repeated pairs are summed in channel order (the radix sort is stable)
   rather than in the host's (P, Q) order. Device memory while building: 48 B per channel
   (keys and values, double-buffered), checked before anything is allocated. */
#include <bte/private/collisioncuda_device.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>

struct _n_BTEPairCUDABuilder {
  int32_t       tile, ntile;
  int64_t       nch, pushed, batch;
  int           mixed, cur;
  cudaStream_t  stream;
  cudaEvent_t   done[2];
  int32_t      *ha[2], *hb[2]; /* pinned host batches */
  double       *hpq[2];
  int32_t      *da[2], *db[2]; /* device copies of a batch */
  double2      *dpq[2];
  uint64_t     *key[2];        /* nch each: sort double buffer */
  double2      *val[2];
  int           sel;           /* which of key/val holds the sorted, then merged data */
  int64_t       nnz;
  BTEPairChunk *dchunks;
  long long    *drowptr;
};

struct BTEPairSum2 {
  __device__ __forceinline__ double2 operator()(const double2 &x, const double2 &y) const { return make_double2(x.x + y.x, x.y + y.y); }
};

/* key = ((tile pair) * tile + row) * tile + column, for the oriented pair a < b */
__global__ void bte_pair_build_keys(int64_t n, int32_t tile, int32_t ntile, const int32_t *__restrict__ a, const int32_t *__restrict__ b, const double2 *__restrict__ pq, uint64_t *__restrict__ key, double2 *__restrict__ val)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
    const int32_t  ia = a[k], ib = b[k];
    const uint64_t blk = (uint64_t)(ia / tile) * (uint64_t)ntile + (uint64_t)(ib / tile);
    key[k]             = (blk * (uint64_t)tile + (uint64_t)(ia % tile)) * (uint64_t)tile + (uint64_t)(ib % tile);
    val[k]             = pq[k];
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

PetscErrorCode BTEPairCUDABuilderCreate(const BTEPairLayout *L, PetscCount nch, PetscBool mixed, PetscBool *fits, BTEPairCUDABuilder *builder)
{
  BTEPairCUDABuilder B;
  size_t             freeb, totalb, need, batch = (size_t)1 << 22;

  PetscFunctionBegin;
  *builder = NULL;
  PetscCall(BTECollCUDARegisterEvents());
  if ((size_t)nch < batch) batch = PetscMax((size_t)nch, (size_t)1);
  /* keys + values, double-buffered, the batch copies, ~5% for CUB's temporaries */
  need = (size_t)nch * 2 * (sizeof(uint64_t) + sizeof(double2)) + 2 * batch * (2 * sizeof(int32_t) + sizeof(double2));
  need += need / 20 + ((size_t)64 << 20);
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
  PetscCallCUDA(cudaStreamCreateWithFlags(&B->stream, cudaStreamNonBlocking));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaEventCreateWithFlags(&B->done[i], cudaEventDisableTiming));
    PetscCallCUDA(cudaHostAlloc((void **)&B->ha[i], batch * sizeof(int32_t), cudaHostAllocDefault));
    PetscCallCUDA(cudaHostAlloc((void **)&B->hb[i], batch * sizeof(int32_t), cudaHostAllocDefault));
    PetscCallCUDA(cudaHostAlloc((void **)&B->hpq[i], batch * sizeof(double2), cudaHostAllocDefault));
    PetscCallCUDA(cudaMalloc((void **)&B->da[i], batch * sizeof(int32_t)));
    PetscCallCUDA(cudaMalloc((void **)&B->db[i], batch * sizeof(int32_t)));
    PetscCallCUDA(cudaMalloc((void **)&B->dpq[i], batch * sizeof(double2)));
    PetscCallCUDA(cudaMalloc((void **)&B->key[i], PetscMax((size_t)nch, (size_t)1) * sizeof(uint64_t)));
    PetscCallCUDA(cudaMalloc((void **)&B->val[i], PetscMax((size_t)nch, (size_t)1) * sizeof(double2)));
  }
  *builder = B;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderGetBatch(BTEPairCUDABuilder B, PetscInt64 *batch, int32_t **a, int32_t **b, double **pq)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaEventSynchronize(B->done[B->cur])); /* its previous upload has finished */
  *batch = B->batch;
  *a     = B->ha[B->cur];
  *b     = B->hb[B->cur];
  *pq    = B->hpq[B->cur];
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderPushBatch(BTEPairCUDABuilder B, PetscInt64 n)
{
  const int i = B->cur;

  PetscFunctionBegin;
  PetscCheck(n >= 0 && n <= B->batch && B->pushed + n <= B->nch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "pair device build: batch of %" PetscInt64_FMT " channels does not fit", (PetscInt64)n);
  if (n > 0) {
    PetscCallCUDA(cudaMemcpyAsync(B->da[i], B->ha[i], (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(B->db[i], B->hb[i], (size_t)n * sizeof(int32_t), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(B->dpq[i], B->hpq[i], (size_t)n * sizeof(double2), cudaMemcpyHostToDevice, B->stream));
    bte_pair_build_keys<<<BTEPairGrid(n), 256, 0, B->stream>>>(n, B->tile, B->ntile, B->da[i], B->db[i], B->dpq[i], B->key[0] + B->pushed, B->val[0] + B->pushed);
    PetscCallCUDA(cudaGetLastError());
    PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * (2 * sizeof(int32_t) + sizeof(double2))));
  }
  PetscCallCUDA(cudaEventRecord(B->done[i], B->stream));
  B->pushed += n;
  B->cur = 1 - i;
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
  /* pinned batches are no longer needed */
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFreeHost(B->ha[i]));
    PetscCallCUDA(cudaFreeHost(B->hb[i]));
    PetscCallCUDA(cudaFreeHost(B->hpq[i]));
    PetscCallCUDA(cudaFree(B->da[i]));
    PetscCallCUDA(cudaFree(B->db[i]));
    PetscCallCUDA(cudaFree(B->dpq[i]));
    B->ha[i] = B->hb[i] = NULL;
    B->hpq[i]           = NULL;
    B->da[i] = B->db[i] = NULL;
    B->dpq[i]           = NULL;
  }
  maxkey = (uint64_t)B->ntile * (uint64_t)B->tile;
  maxkey = maxkey * maxkey;
  while (endbit < 64 && ((uint64_t)1 << endbit) < maxkey) endbit++;
  PetscCallCUDA(cudaMalloc((void **)&dnum, 2 * sizeof(int64_t)));
  {
    cub::DoubleBuffer<uint64_t> k(B->key[0], B->key[1]);
    cub::DoubleBuffer<double2>  v(B->val[0], B->val[1]);
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, tbytes, k, v, n, 0, endbit, B->stream));
    PetscCallCUDA(cub::DeviceReduce::ReduceByKey(NULL, t2, B->key[0], B->key[1], B->val[0], B->val[1], dnum, BTEPairSum2(), n, B->stream));
    tbytes = PetscMax(tbytes, t2);
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, tbytes, k, v, n, 0, endbit, B->stream));
    /* merge repeated pairs: sorted data in buffer k.selector, merged into the other one */
    B->sel = 1 - k.selector;
    PetscCallCUDA(cub::DeviceReduce::ReduceByKey(tmp, tbytes, k.Current(), B->key[B->sel], v.Current(), B->val[B->sel], dnum, BTEPairSum2(), n, B->stream));
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
    uint64_t *rk = B->key[1 - B->sel], *urk = (uint64_t *)B->val[1 - B->sel];
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
  PetscCallCUDA(cudaFree(B->val[1 - B->sel]));
  B->key[1 - B->sel] = NULL;
  B->val[1 - B->sel] = NULL;
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

PetscErrorCode BTEPairCUDABuilderFinish(BTEPairCUDABuilder *builder, const BTEPairLayout *L, BTEPairCUDA *dev)
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
    bte_pair_build_float<<<BTEPairGrid(nnz), 256, 0, B->stream>>>(nnz, B->val[B->sel], (float2 *)w);
    PetscCallCUDA(cudaGetLastError());
  } else {
    PetscCallCUDA(cudaMalloc(&w, PetscMax((size_t)nnz, (size_t)1) * sizeof(double2)));
    PetscCallCUDA(cudaMemcpyAsync(w, B->val[B->sel], (size_t)nnz * sizeof(double2), cudaMemcpyDeviceToDevice, B->stream));
  }
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCallCUDA(cudaFree(B->val[B->sel]));
  B->val[B->sel] = NULL;
  PetscCall(BTEPairCUDACreateWith(L, B->dchunks, B->drowptr, col, B->mixed ? NULL : (double2 *)w, B->mixed ? (float2 *)w : NULL, dev));
  B->dchunks = NULL;
  B->drowptr = NULL;
  PetscCall(BTEPairCUDABuilderDestroy(builder));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEPairCUDABuilderDestroy(BTEPairCUDABuilder *builder)
{
  BTEPairCUDABuilder B = *builder;

  PetscFunctionBegin;
  if (!B) PetscFunctionReturn(0);
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFreeHost(B->ha[i]));
    PetscCallCUDA(cudaFreeHost(B->hb[i]));
    PetscCallCUDA(cudaFreeHost(B->hpq[i]));
    PetscCallCUDA(cudaFree(B->da[i]));
    PetscCallCUDA(cudaFree(B->db[i]));
    PetscCallCUDA(cudaFree(B->dpq[i]));
    PetscCallCUDA(cudaFree(B->key[i]));
    PetscCallCUDA(cudaFree(B->val[i]));
    PetscCallCUDA(cudaEventDestroy(B->done[i]));
  }
  PetscCallCUDA(cudaFree(B->dchunks));
  PetscCallCUDA(cudaFree(B->drowptr));
  PetscCallCUDA(cudaStreamDestroy(B->stream));
  PetscCall(PetscFree(*builder));
  PetscFunctionReturn(0);
}
