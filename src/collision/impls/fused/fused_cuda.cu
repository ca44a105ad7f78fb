/* fused on CUDA: one warp per owned target row of the target-sorted CSR layout (fused.c).

   Entry e of row t: other end o = col[e] (int32), weights (out, in) as a double2 (or a float2 in
   mixed precision). Each lane takes two consecutive entries per step (an int2 and two 16-byte
   double2, or one 16-byte float4), so the 32 lanes of a warp read 64 consecutive entries: the
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

__device__ __forceinline__ double bte_warp_sum(double v)
{
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  return v;
}

/* Entry loads: one entry (other end, out, in), or two consecutive entries starting at an even
   index: int2 for the ends, and one 16-byte float4 (mixed) or two 16-byte double2 for the weights. */
__device__ __forceinline__ void bte_load1(const double2 *w, long long e, double *wo, double *wi)
{
  const double2 v = w[e];
  *wo             = v.x;
  *wi             = v.y;
}
__device__ __forceinline__ void bte_load1(const float2 *w, long long e, double *wo, double *wi)
{
  const float2 v = w[e];
  *wo            = (double)v.x;
  *wi            = (double)v.y;
}
__device__ __forceinline__ void bte_load2(const double2 *w, long long e, double wo[2], double wi[2])
{
  const double2 a = w[e], b = w[e + 1];
  wo[0] = a.x, wi[0] = a.y, wo[1] = b.x, wi[1] = b.y;
}
__device__ __forceinline__ void bte_load2(const float2 *w, long long e, double wo[2], double wi[2])
{
  const float4 v = reinterpret_cast<const float4 *>(w)[e >> 1];
  wo[0] = (double)v.x, wi[0] = (double)v.y, wo[1] = (double)v.z, wi[1] = (double)v.w;
}

/* Per-row partial sums: ao = sum out (1 - f_o), ai = sum in f_o, and for the Jacobian
   so = sum out x_o, si = sum in x_o. */
template <int MODE>
__device__ __forceinline__ void bte_acc(double wo, double wi, double fo, double xo, double *ao, double *ai, double *so, double *si)
{
  *ao += wo * (1.0 - fo);
  *ai += wi * fo;
  if (MODE == 1) {
    *so += wo * xo;
    *si += wi * xo;
  }
}

/* MODE 0: y = I[f]; 1: y = J(f) x; 2: y = diag J(f). One warp per row; each lane takes two
   consecutive entries per step (an odd first or last entry alone), so a load instruction moves
   16 bytes of weights in mixed precision too: 29% (nk 12 synthetic) and 19% (gaas 70) less time for
   mixed-precision I[f] than one entry per step, the same for double (docs/dev/gpu-notes.md). */
template <typename W2, int MODE>
__global__ void __launch_bounds__(32 * BTE_FUSED_WARPS_PER_BLOCK) bte_fused_kernel(int nlocal, const long long *__restrict__ rowptr, const int32_t *__restrict__ col, const W2 *__restrict__ w, const double *__restrict__ f, const double *__restrict__ x, double *__restrict__ y)
{
  const int lane   = threadIdx.x & 31;
  const int nwarps = (gridDim.x * blockDim.x) >> 5;
  for (int t = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; t < nlocal; t += nwarps) {
    const long long r0 = rowptr[t], r1 = rowptr[t + 1];
    double          ao = 0.0, ai = 0.0, so = 0.0, si = 0.0;
    {
      long long e0 = r0;
      if ((e0 & 1) && e0 < r1) { /* odd start: one entry alone, so that pairs are aligned */
        if (lane == 0) {
          const int32_t o = col[e0];
          double        wo, wi;
          bte_load1(w, e0, &wo, &wi);
          bte_acc<MODE>(wo, wi, __ldg(f + o), MODE == 1 ? __ldg(x + o) : 0.0, &ao, &ai, &so, &si);
        }
        e0++;
      }
      const long long np = (r1 - e0) >> 1;
      for (long long p = lane; p < np; p += 32) {
        const long long e = e0 + 2 * p;
        const int2      o = reinterpret_cast<const int2 *>(col)[e >> 1];
        double          wo[2], wi[2];
        bte_load2(w, e, wo, wi);
        const double f0 = __ldg(f + o.x), f1 = __ldg(f + o.y);
        const double x0 = MODE == 1 ? __ldg(x + o.x) : 0.0, x1 = MODE == 1 ? __ldg(x + o.y) : 0.0;
        bte_acc<MODE>(wo[0], wi[0], f0, x0, &ao, &ai, &so, &si);
        bte_acc<MODE>(wo[1], wi[1], f1, x1, &ao, &ai, &so, &si);
      }
      if (e0 + 2 * np < r1 && lane == 31) { /* odd end */
        const long long e = r1 - 1;
        const int32_t   o = col[e];
        double          wo, wi;
        bte_load1(w, e, &wo, &wi);
        bte_acc<MODE>(wo, wi, __ldg(f + o), MODE == 1 ? __ldg(x + o) : 0.0, &ao, &ai, &so, &si);
      }
    }
    ao = bte_warp_sum(ao);
    ai = bte_warp_sum(ai);
    if (MODE == 1) {
      so = bte_warp_sum(so);
      si = bte_warp_sum(si);
    }
    if (lane == 0) {
      const double ft = f[t];
      if (MODE == 0) y[t] = -ft * ao + (1.0 - ft) * ai;
      else if (MODE == 1) y[t] = -(ao + ai) * x[t] + ft * so + (1.0 - ft) * si;
      else y[t] = -(ao + ai);
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

template <typename W2, int MODE>
static void BTEFusedLaunch(BTEFusedCUDA d, const W2 *w, const double *f, const double *x, double *y, cudaStream_t s)
{
  const int grid = BTEFusedGrid(d->nlocal), block = 32 * BTE_FUSED_WARPS_PER_BLOCK;
  bte_fused_kernel<W2, MODE><<<grid, block, 0, s>>>((int)d->nlocal, d->rowptr, d->col, w, f, x, y);
}

template <int MODE>
static void BTEFusedLaunchW(BTEFusedCUDA d, const double *f, const double *x, double *y, cudaStream_t s)
{
  if (d->ws) BTEFusedLaunch<float2, MODE>(d, d->ws, f, x, y, s);
  else BTEFusedLaunch<double2, MODE>(d, d->w, f, x, y, s);
}

/* mode 0: I[f]; 1: J(f) x; 2: diag J(f). Flops as fused.c counts them. */
static PetscErrorCode BTEFusedCUDARun(BTEFusedCUDA d, int mode, Vec fl, Vec xl, Vec Y)
{
  const PetscScalar *f, *x = NULL;
  PetscScalar       *y;
  cudaStream_t       s;
  const PetscLogDouble flops[3][2] = {{5.0, 4.0}, {9.0, 7.0}, {5.0, 1.0}}; /* per entry, per row */

  PetscFunctionBegin;
  PetscCall(BTEFusedCUDACheckVecs(d, fl, Y));
  if (xl) PetscCall(BTEFusedCUDACheckVecs(d, xl, Y));
  PetscCall(VecCUDAGetArrayRead(fl, &f));
  if (xl) PetscCall(VecCUDAGetArrayRead(xl, &x));
  PetscCall(VecCUDAGetArrayWrite(Y, &y));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (d->nlocal > 0) {
    if (mode == 0) BTEFusedLaunchW<0>(d, f, x, y, s);
    else if (mode == 1) BTEFusedLaunchW<1>(d, f, x, y, s);
    else BTEFusedLaunchW<2>(d, f, x, y, s);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(Y, &y));
  if (xl) PetscCall(VecCUDARestoreArrayRead(xl, &x));
  PetscCall(VecCUDARestoreArrayRead(fl, &f));
  PetscCall(PetscLogGpuFlops(flops[mode][0] * (PetscLogDouble)d->nnz + flops[mode][1] * d->nlocal));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAApply(BTEFusedCUDA d, Vec fl, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(BTEFusedCUDARun(d, 0, fl, NULL, Y));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAJacobianApply(BTEFusedCUDA d, Vec fl, Vec xl, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(BTEFusedCUDARun(d, 1, fl, xl, Y));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFusedCUDAJacobianDiagonal(BTEFusedCUDA d, Vec fl, Vec D)
{
  PetscFunctionBegin;
  PetscCall(BTEFusedCUDARun(d, 2, fl, NULL, D));
  PetscFunctionReturn(0);
}
