/* CUDA kernels of the drift operator's pointwise steps (log form; driftcuda.h). The stencil itself is
   a MATAIJCUSPARSE applied by PETSc (MatMult), so with CUDA state Vecs a drift apply is
     plain: MatMult                                   (no kernel of ours)
     log:   g = clip(ln((1-f)/f)) -> MatMult -> y (+)= f(f-1) S
   all on the device. The kernels read and write the Vecs' device arrays in place, on the stream of
   PETSc's current device context (ordered with PETSc's own Vec and Mat kernels, no device sync), log
   their GPU time and flops, and make no host<->device copy. One thread per entry, grid-stride loop. */
#include <bte/private/driftcuda.h>
#include <petscdevice_cuda.h>

static PetscErrorCode BTEDriftCUDAStream(cudaStream_t *s)
{
  PetscDeviceContext dctx;
  void              *h = NULL;

  PetscFunctionBegin;
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, &h));
  *s = h ? *(cudaStream_t *)h : (cudaStream_t)0;
  PetscFunctionReturn(0);
}

static inline int BTEDriftCUDAGrid(PetscInt n, int block)
{
  long long g = ((long long)n + block - 1) / block;
  return (int)(g < 65535 ? (g > 0 ? g : 1) : 65535);
}

#define BTE_DRIFT_BLOCK 256
#define BTE_DRIFT_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

__global__ void bte_drift_logocc(int n, const double *__restrict__ f, double *__restrict__ g, double *__restrict__ u)
{
  BTE_DRIFT_LOOP(i, n)
  {
    double gi, ui;
    BTEDriftLogOcc(f[i], &gi, &ui);
    g[i] = gi;
    if (u) u[i] = ui;
  }
}

template <bool ADD>
__global__ void bte_drift_logapply(int n, const double *__restrict__ f, const double *__restrict__ S, double *__restrict__ y)
{
  BTE_DRIFT_LOOP(i, n)
  {
    double fi = f[i], s = S[i] * (fi * (fi - 1));
    y[i]      = ADD ? y[i] + s : s;
  }
}

__global__ void bte_drift_logjacstate(int n, const double *__restrict__ f, const double *__restrict__ S, const double *__restrict__ u, const double *__restrict__ a, double *__restrict__ p, double *__restrict__ dd, double *__restrict__ diag)
{
  BTE_DRIFT_LOOP(i, n)
  {
    double fi = f[i], pi = fi * (fi - 1), di = (2 * fi - 1) * S[i];
    p[i]    = pi;
    dd[i]   = di;
    diag[i] = di + pi * u[i] * a[i];
  }
}

template <bool ADD>
__global__ void bte_drift_logjacmult(int n, const double *__restrict__ dd, const double *__restrict__ x, const double *__restrict__ p, const double *__restrict__ z, double *__restrict__ y)
{
  BTE_DRIFT_LOOP(i, n)
  {
    double s = dd[i] * x[i] + p[i] * z[i];
    y[i]     = ADD ? y[i] + s : s;
  }
}

static PetscErrorCode BTEDriftCUDASize(Vec v, Vec w, int *n)
{
  PetscInt a, b;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(v, &a));
  PetscCall(VecGetLocalSize(w, &b));
  PetscCheck(a == b, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vecs of %" PetscInt_FMT " and %" PetscInt_FMT " local entries", a, b);
  *n = (int)a;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDALogOcc(Vec f, Vec g, Vec u)
{
  const PetscScalar *fa;
  PetscScalar       *ga, *ua = NULL;
  cudaStream_t       s;
  int                n;

  PetscFunctionBegin;
  PetscCall(BTEDriftCUDASize(f, g, &n));
  PetscCall(VecCUDAGetArrayRead(f, &fa));
  PetscCall(VecCUDAGetArrayWrite(g, &ga));
  if (u) PetscCall(VecCUDAGetArrayWrite(u, &ua));
  PetscCall(BTEDriftCUDAStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (n > 0) {
    bte_drift_logocc<<<BTEDriftCUDAGrid(n, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, s>>>(n, fa, ga, ua);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (u) PetscCall(VecCUDARestoreArrayWrite(u, &ua));
  PetscCall(VecCUDARestoreArrayWrite(g, &ga));
  PetscCall(VecCUDARestoreArrayRead(f, &fa));
  PetscCall(PetscLogGpuFlops(25.0 * n));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDALogApply(Vec f, Vec S, Vec y, PetscBool add)
{
  const PetscScalar *fa, *sa;
  PetscScalar       *ya;
  cudaStream_t       s;
  int                n;

  PetscFunctionBegin;
  PetscCall(BTEDriftCUDASize(f, y, &n));
  PetscCall(VecCUDAGetArrayRead(f, &fa));
  PetscCall(VecCUDAGetArrayRead(S, &sa));
  if (add) PetscCall(VecCUDAGetArray(y, &ya));
  else PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(BTEDriftCUDAStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (n > 0) {
    if (add) bte_drift_logapply<true><<<BTEDriftCUDAGrid(n, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, s>>>(n, fa, sa, ya);
    else bte_drift_logapply<false><<<BTEDriftCUDAGrid(n, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, s>>>(n, fa, sa, ya);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (add) PetscCall(VecCUDARestoreArray(y, &ya));
  else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(VecCUDARestoreArrayRead(S, &sa));
  PetscCall(VecCUDARestoreArrayRead(f, &fa));
  PetscCall(PetscLogGpuFlops((add ? 4.0 : 3.0) * n));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDALogJacobianState(Vec f, Vec S, Vec u, Vec adiag, Vec p, Vec dd, Vec diag)
{
  const PetscScalar *fa, *sa, *ua, *aa;
  PetscScalar       *pa, *da, *ga;
  cudaStream_t       s;
  int                n;

  PetscFunctionBegin;
  PetscCall(BTEDriftCUDASize(f, diag, &n));
  PetscCall(VecCUDAGetArrayRead(f, &fa));
  PetscCall(VecCUDAGetArrayRead(S, &sa));
  PetscCall(VecCUDAGetArrayRead(u, &ua));
  PetscCall(VecCUDAGetArrayRead(adiag, &aa));
  PetscCall(VecCUDAGetArrayWrite(p, &pa));
  PetscCall(VecCUDAGetArrayWrite(dd, &da));
  PetscCall(VecCUDAGetArrayWrite(diag, &ga));
  PetscCall(BTEDriftCUDAStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (n > 0) {
    bte_drift_logjacstate<<<BTEDriftCUDAGrid(n, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, s>>>(n, fa, sa, ua, aa, pa, da, ga);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(diag, &ga));
  PetscCall(VecCUDARestoreArrayWrite(dd, &da));
  PetscCall(VecCUDARestoreArrayWrite(p, &pa));
  PetscCall(VecCUDARestoreArrayRead(adiag, &aa));
  PetscCall(VecCUDARestoreArrayRead(u, &ua));
  PetscCall(VecCUDARestoreArrayRead(S, &sa));
  PetscCall(VecCUDARestoreArrayRead(f, &fa));
  PetscCall(PetscLogGpuFlops(8.0 * n));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDALogJacobianMult(Vec dd, Vec x, Vec p, Vec z, Vec y, PetscBool add)
{
  const PetscScalar *da, *xa, *pa, *za;
  PetscScalar       *ya;
  cudaStream_t       s;
  int                n;

  PetscFunctionBegin;
  PetscCall(BTEDriftCUDASize(x, y, &n));
  PetscCall(VecCUDAGetArrayRead(dd, &da));
  PetscCall(VecCUDAGetArrayRead(x, &xa));
  PetscCall(VecCUDAGetArrayRead(p, &pa));
  PetscCall(VecCUDAGetArrayRead(z, &za));
  if (add) PetscCall(VecCUDAGetArray(y, &ya));
  else PetscCall(VecCUDAGetArrayWrite(y, &ya));
  PetscCall(BTEDriftCUDAStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (n > 0) {
    if (add) bte_drift_logjacmult<true><<<BTEDriftCUDAGrid(n, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, s>>>(n, da, xa, pa, za, ya);
    else bte_drift_logjacmult<false><<<BTEDriftCUDAGrid(n, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, s>>>(n, da, xa, pa, za, ya);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (add) PetscCall(VecCUDARestoreArray(y, &ya));
  else PetscCall(VecCUDARestoreArrayWrite(y, &ya));
  PetscCall(VecCUDARestoreArrayRead(z, &za));
  PetscCall(VecCUDARestoreArrayRead(p, &pa));
  PetscCall(VecCUDARestoreArrayRead(x, &xa));
  PetscCall(VecCUDARestoreArrayRead(dd, &da));
  PetscCall(PetscLogGpuFlops((add ? 4.0 : 3.0) * n));
  PetscFunctionReturn(0);
}
