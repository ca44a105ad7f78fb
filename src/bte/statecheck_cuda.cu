/* The finite-state guard's reduction on the device (statecheck.h): sum, finite min and max, and the
   number of entries that are not finite, in one kernel on the stream of PETSc's current device
   context, then one 32-byte copy back. It replaces VecSum + VecMin + VecMax, i.e. three kernels and
   three host synchronisations per stage of an adaptive step, by one of each.

   One kernel: each block reduces its grid-stride share in shared memory and writes a partial; the
   last block to finish (a counter in device memory, after a __threadfence) reduces the partials and
   resets the counter for the next call. The partials and the counter are allocated once (for the
   largest grid) and freed at PetscFinalize. */
#include <bte/private/statecheck.h>
#include <petscdevice_cuda.h>
#include <cfloat>

#define BTE_SC_BLOCK 256
#define BTE_SC_GRID  1024 /* at most; each thread then loops over n / (256 * 1024) entries */

struct BTESCVal {
  double sum, min, max, bad;
};

static BTESCVal     *bte_sc_part  = NULL; /* BTE_SC_GRID partials, then the result */
static unsigned int *bte_sc_count = NULL;
static BTESCVal     *bte_sc_host  = NULL; /* pinned */

__device__ static inline BTESCVal bte_sc_join(BTESCVal a, const BTESCVal &b)
{
  a.sum += b.sum;
  a.min = fmin(a.min, b.min);
  a.max = fmax(a.max, b.max);
  a.bad += b.bad;
  return a;
}

__device__ static inline BTESCVal bte_sc_block(BTESCVal v, BTESCVal *sh)
{
  sh[threadIdx.x] = v;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) sh[threadIdx.x] = bte_sc_join(sh[threadIdx.x], sh[threadIdx.x + s]);
    __syncthreads();
  }
  return sh[0];
}

__global__ void bte_state_stats(int n, const double *__restrict__ f, BTESCVal *part, unsigned int *count)
{
  __shared__ BTESCVal sh[BTE_SC_BLOCK];
  __shared__ bool     last;
  BTESCVal            v = {0.0, DBL_MAX, -DBL_MAX, 0.0};

  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    double x = f[i];
    v.sum += x;
    /* isfinite is false for NaN and +-Inf: such an entry is counted and kept out of min and max */
    if (isfinite(x)) {
      v.min = fmin(v.min, x);
      v.max = fmax(v.max, x);
    } else v.bad += 1.0;
  }
  v = bte_sc_block(v, sh);
  if (threadIdx.x == 0) {
    part[blockIdx.x] = v;
    __threadfence(); /* the partial is visible before the counter says so */
    last = (atomicAdd(count, 1u) == gridDim.x - 1);
  }
  __syncthreads();
  if (!last) return;
  v = {0.0, DBL_MAX, -DBL_MAX, 0.0};
  /* __ldcg: read the other blocks' partials from L2, not from this SM's (incoherent) L1 */
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) {
    BTESCVal p = {__ldcg(&part[b].sum), __ldcg(&part[b].min), __ldcg(&part[b].max), __ldcg(&part[b].bad)};
    v          = bte_sc_join(v, p);
  }
  v = bte_sc_block(v, sh);
  if (threadIdx.x == 0) {
    part[BTE_SC_GRID] = v;
    *count            = 0;
  }
}

static PetscErrorCode BTEStateStatsCUDAFinalize(void)
{
  PetscFunctionBegin;
  if (bte_sc_part) PetscCallCUDA(cudaFree(bte_sc_part));
  if (bte_sc_count) PetscCallCUDA(cudaFree(bte_sc_count));
  if (bte_sc_host) PetscCallCUDA(cudaFreeHost(bte_sc_host));
  bte_sc_part  = NULL;
  bte_sc_count = NULL;
  bte_sc_host  = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEStateStatsCUDA(Vec f, BTEStateStats *st)
{
  const PetscScalar *fa;
  PetscDeviceContext dctx;
  void              *h = NULL;
  cudaStream_t       s;
  PetscInt           n;
  int                grid;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(f, &n));
  PetscCheck(n <= PETSC_MAX_INT && (long long)n < 2147483647LL, PETSC_COMM_SELF, PETSC_ERR_SUP, "state check on the device: %" PetscInt_FMT " local entries exceed the kernel's int index", n);
  if (!bte_sc_part) {
    PetscCallCUDA(cudaMalloc((void **)&bte_sc_part, (BTE_SC_GRID + 1) * sizeof(BTESCVal)));
    PetscCallCUDA(cudaMalloc((void **)&bte_sc_count, sizeof(unsigned int)));
    PetscCallCUDA(cudaMemset(bte_sc_count, 0, sizeof(unsigned int)));
    PetscCallCUDA(cudaMallocHost((void **)&bte_sc_host, sizeof(BTESCVal)));
    PetscCall(PetscRegisterFinalize(BTEStateStatsCUDAFinalize));
  }
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, &h));
  s    = h ? *(cudaStream_t *)h : (cudaStream_t)0;
  grid = (int)PetscMin((n + BTE_SC_BLOCK - 1) / BTE_SC_BLOCK, (PetscInt)BTE_SC_GRID);
  if (grid < 1) grid = 1;
  PetscCall(VecCUDAGetArrayRead(f, &fa));
  PetscCall(PetscLogGpuTimeBegin());
  bte_state_stats<<<grid, BTE_SC_BLOCK, 0, s>>>((int)n, fa, bte_sc_part, bte_sc_count);
  PetscCallCUDA(cudaGetLastError());
  PetscCallCUDA(cudaMemcpyAsync(bte_sc_host, bte_sc_part + BTE_SC_GRID, sizeof(BTESCVal), cudaMemcpyDeviceToHost, s));
  PetscCallCUDA(cudaStreamSynchronize(s)); /* the one synchronisation: the guard decides on the host */
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayRead(f, &fa));
  PetscCall(PetscLogGpuFlops(3.0 * n));
  PetscCall(PetscLogGpuToCpu(sizeof(BTESCVal)));
  st->sum       = bte_sc_host->sum;
  st->min       = bte_sc_host->min;
  st->max       = bte_sc_host->max;
  st->nonfinite = bte_sc_host->bad;
  PetscFunctionReturn(0);
}
