/* fused on CUDA: one warp per owned target row of the target-sorted CSR layout (fused.c).

   Entry e of row t: other end o = col[e] (int32), weights (out, in) as one 16-byte double2 (or
   8-byte float2 in mixed precision): the 32 lanes of a warp read 32 consecutive entries, so the
   weight and index loads are coalesced and vectorised; the gathers f[o] (and x[o]) go through
   L1/L2 (rows are sorted by o, so neighbouring lanes mostly hit the same lines). Each lane keeps
   its partial sums in double; a shuffle reduction ends the row; lane 0 writes y[t]. No atomics,
   and the result does not depend on the launch (fixed reduction order per row).

     I_t     = -f_t sum_e out_e (1 - f_o) + (1 - f_t) sum_e in_e f_o
     (J x)_t = -x_t sum_e [out_e (1 - f_o) + in_e f_o] + f_t sum_e out_e x_o + (1 - f_t) sum_e in_e x_o
     J_tt    = -sum_e [out_e (1 - f_o) + in_e f_o]

   Bytes per apply: nnz * (4 + 16) (or 4 + 8) plus the gathers; flops as fused.c counts them. */
#include <bte/private/collisioncuda_device.h>

PetscLogEvent BTECOLL_CUDAUpload = 0;

PetscErrorCode BTECollCUDARegisterEvents(void)
{
  PetscFunctionBegin;
  if (!BTECOLL_CUDAUpload) {
    PetscCall(BTECollisionInitializePackage());
    PetscCall(PetscLogEventRegister("BTECollCUDAUp", BTECOLLISION_CLASSID, &BTECOLL_CUDAUpload));
  }
  PetscFunctionReturn(0);
}

struct _n_BTEFusedCUDA {
  PetscInt       nlocal, nghost;
  PetscCount     nnz;
  long long     *rowptr; /* nlocal+1 */
  int32_t       *col;    /* nnz */
  double2       *w;      /* nnz (double) */
  float2        *ws;     /* nnz (mixed) */
  PetscLogDouble bytes;
};

#define BTE_FUSED_WARPS_PER_BLOCK 8

template <typename W2>
__device__ __forceinline__ void bte_load_w(const W2 *w, long long e, double *wo, double *wi)
{
  W2 v = w[e];
  *wo  = (double)v.x;
  *wi  = (double)v.y;
}

__device__ __forceinline__ double bte_warp_sum(double v)
{
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

/* mode 0: I[f]; mode 2: diagonal of J */
template <typename W2, int MODE>
__global__ void __launch_bounds__(32 * BTE_FUSED_WARPS_PER_BLOCK) bte_fused_apply_kernel(int nlocal, const long long *__restrict__ rowptr, const int32_t *__restrict__ col, const W2 *__restrict__ w, const double *__restrict__ f, double *__restrict__ y)
{
  const int lane = threadIdx.x & 31;
  const int nwarps = (gridDim.x * blockDim.x) >> 5;
  for (int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; t < nlocal; t += nwarps) {
    const long long r0 = rowptr[t], r1 = rowptr[t + 1];
    double          ao = 0.0, ai = 0.0;
    for (long long e = r0 + lane; e < r1; e += 32) {
      double wo, wi, fo = __ldg(f + col[e]);
      bte_load_w(w, e, &wo, &wi);
      ao += wo * (1.0 - fo);
      ai += wi * fo;
    }
    ao = bte_warp_sum(ao);
    ai = bte_warp_sum(ai);
    if (lane == 0) {
      if (MODE == 0) {
        const double ft = f[t];
        y[t]            = -ft * ao + (1.0 - ft) * ai;
      } else y[t] = -(ao + ai);
    }
  }
}

template <typename W2>
__global__ void __launch_bounds__(32 * BTE_FUSED_WARPS_PER_BLOCK) bte_fused_jac_kernel(int nlocal, const long long *__restrict__ rowptr, const int32_t *__restrict__ col, const W2 *__restrict__ w, const double *__restrict__ f, const double *__restrict__ x, double *__restrict__ y)
{
  const int lane = threadIdx.x & 31;
  const int nwarps = (gridDim.x * blockDim.x) >> 5;
  for (int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; t < nlocal; t += nwarps) {
    const long long r0 = rowptr[t], r1 = rowptr[t + 1];
    double          ao = 0.0, ai = 0.0, so = 0.0, si = 0.0;
    for (long long e = r0 + lane; e < r1; e += 32) {
      const int32_t o = col[e];
      double        wo, wi, fo = __ldg(f + o), xo = __ldg(x + o);
      bte_load_w(w, e, &wo, &wi);
      ao += wo * (1.0 - fo);
      ai += wi * fo;
      so += wo * xo;
      si += wi * xo;
    }
    ao = bte_warp_sum(ao);
    ai = bte_warp_sum(ai);
    so = bte_warp_sum(so);
    si = bte_warp_sum(si);
    if (lane == 0) {
      const double ft = f[t];
      y[t]            = -(ao + ai) * x[t] + ft * so + (1.0 - ft) * si;
    }
  }
}

static int BTEFusedGrid(PetscInt nlocal)
{
  /* one warp per row, capped: the grid-stride loop covers the rest */
  long long blocks = ((long long)nlocal + BTE_FUSED_WARPS_PER_BLOCK - 1) / BTE_FUSED_WARPS_PER_BLOCK;
  if (blocks > 65535LL * 8) blocks = 65535LL * 8;
  return (int)(blocks > 0 ? blocks : 1);
}

PetscErrorCode BTEFusedCUDACreate(PetscInt nlocal, PetscInt nghost, PetscCount nnz, const PetscCount rowptr[], const int32_t col[], const PetscReal w[], const float ws[], BTEFusedCUDA *dev)
{
  BTEFusedCUDA d;
  long long   *rp;

  PetscFunctionBegin;
  PetscCheck((w != NULL) != (ws != NULL) || nnz == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Give exactly one of the double and float weight arrays");
  PetscCall(BTECollCUDARegisterEvents());
  PetscCall(PetscLogEventBegin(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscCall(PetscNew(&d));
  d->nlocal = nlocal;
  d->nghost = nghost;
  d->nnz    = nnz;
  PetscCall(PetscMalloc1(nlocal + 1, &rp));
  for (PetscInt t = 0; t <= nlocal; t++) rp[t] = (long long)rowptr[t];
  PetscCall(BTECollCUDAUpload(rp, (size_t)nlocal + 1, &d->rowptr, &d->bytes));
  PetscCall(PetscFree(rp));
  PetscCall(BTECollCUDAUpload(col, (size_t)nnz, &d->col, &d->bytes));
  if (w) PetscCall(BTECollCUDAUpload((const double2 *)w, (size_t)nnz, &d->w, &d->bytes));
  if (ws) PetscCall(BTECollCUDAUpload((const float2 *)ws, (size_t)nnz, &d->ws, &d->bytes));
  if (!d->rowptr) PetscCallCUDA(cudaMalloc((void **)&d->rowptr, sizeof(long long))); /* nlocal = 0 */
  PetscCall(PetscLogEventEnd(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDADestroy(BTEFusedCUDA *dev)
{
  BTEFusedCUDA d = *dev;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree(d->rowptr));
  PetscCallCUDA(cudaFree(d->col));
  PetscCallCUDA(cudaFree(d->w));
  PetscCallCUDA(cudaFree(d->ws));
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAGetBytes(BTEFusedCUDA d, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = d ? d->bytes : 0;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEFusedCUDACheckVecs(BTEFusedCUDA d, Vec fl, Vec y)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(fl, &n));
  PetscCheck(n == d->nlocal + d->nghost, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Local vector has %" PetscInt_FMT " entries, expected owned + ghosts = %" PetscInt_FMT, n, d->nlocal + d->nghost);
  PetscCall(VecGetLocalSize(y, &n));
  PetscCheck(n == d->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output Vec has %" PetscInt_FMT " local entries, expected %" PetscInt_FMT, n, d->nlocal);
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEFusedCUDAApplyMode(BTEFusedCUDA d, Vec fl, Vec Y, int mode)
{
  const PetscScalar *f;
  PetscScalar       *y;
  cudaStream_t       s;
  const int          grid = BTEFusedGrid(d->nlocal), block = 32 * BTE_FUSED_WARPS_PER_BLOCK;

  PetscFunctionBegin;
  PetscCall(BTEFusedCUDACheckVecs(d, fl, Y));
  PetscCall(VecCUDAGetArrayRead(fl, &f));
  PetscCall(VecCUDAGetArrayWrite(Y, &y));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (d->nlocal > 0) {
    if (mode == 0) {
      if (d->ws) bte_fused_apply_kernel<float2, 0><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, d->ws, f, y);
      else bte_fused_apply_kernel<double2, 0><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, d->w, f, y);
    } else {
      if (d->ws) bte_fused_apply_kernel<float2, 2><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, d->ws, f, y);
      else bte_fused_apply_kernel<double2, 2><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, d->w, f, y);
    }
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(Y, &y));
  PetscCall(VecCUDARestoreArrayRead(fl, &f));
  /* as fused.c: per entry 1 - f_o and two multiply-adds; per row 4 (apply) or 1 (diagonal) */
  PetscCall(PetscLogGpuFlops(5.0 * (PetscLogDouble)d->nnz + (mode == 0 ? 4.0 : 1.0) * d->nlocal));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAApply(BTEFusedCUDA d, Vec fl, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(BTEFusedCUDAApplyMode(d, fl, Y, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAJacobianDiagonal(BTEFusedCUDA d, Vec fl, Vec D)
{
  PetscFunctionBegin;
  PetscCall(BTEFusedCUDAApplyMode(d, fl, D, 2));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAJacobianApply(BTEFusedCUDA d, Vec fl, Vec xl, Vec Y)
{
  const PetscScalar *f, *x;
  PetscScalar       *y;
  cudaStream_t       s;
  const int          grid = BTEFusedGrid(d->nlocal), block = 32 * BTE_FUSED_WARPS_PER_BLOCK;

  PetscFunctionBegin;
  PetscCall(BTEFusedCUDACheckVecs(d, fl, Y));
  PetscCall(BTEFusedCUDACheckVecs(d, xl, Y));
  PetscCall(VecCUDAGetArrayRead(fl, &f));
  PetscCall(VecCUDAGetArrayRead(xl, &x));
  PetscCall(VecCUDAGetArrayWrite(Y, &y));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (d->nlocal > 0) {
    if (d->ws) bte_fused_jac_kernel<float2><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, d->ws, f, x, y);
    else bte_fused_jac_kernel<double2><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, d->w, f, x, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(Y, &y));
  PetscCall(VecCUDARestoreArrayRead(xl, &x));
  PetscCall(VecCUDARestoreArrayRead(fl, &f));
  PetscCall(PetscLogGpuFlops(9.0 * (PetscLogDouble)d->nnz + 7.0 * d->nlocal));
  PetscFunctionReturn(0);
}
