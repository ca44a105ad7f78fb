/* CUDA kernels of the drift operator's pointwise steps (log form, and muscl's limited correction;
   driftcuda.h). The stencil itself is
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

/* ---- muscl: the limited correction (drift_muscl.c), one thread per owned state ---- */
struct _n_BTEDriftCUDAMUSCL {
  int     nl, nb;
  int    *nbr;      /* device, nl x nb */
  double *jal, *jbe; /* device, rows of nl: the Jacobian state */
  size_t  cap;      /* rows allocated */
};

__global__ void bte_drift_musclslopes(int nl, int nb, const int *__restrict__ nbr, int b, int ob, int minmod, int mode, const double *__restrict__ f, const double *__restrict__ fg, double *__restrict__ al, double *__restrict__ be, double *__restrict__ s)
{
  BTE_DRIFT_LOOP(i, nl)
  {
    const int jp = nbr[(size_t)i * nb + b], jm = nbr[(size_t)i * nb + ob];
    double    si = 0, a = 0, e = 0;
    if (jp >= 0 && jm >= 0) {
      const double fi = f[i], fp = jp < nl ? f[jp] : fg[jp - nl], fm = jm < nl ? f[jm] : fg[jm - nl];
      if (mode == 2) si = al[i] * (fi - fm) + be[i] * (fp - fi);
      else BTEDriftSlope(minmod, fi - fm, fp - fi, &si, &a, &e);
    }
    if (mode == 1) {
      al[i] = a;
      be[i] = e;
      si    = e;
    }
    s[i] = si;
  }
}

__global__ void bte_drift_musclfaces(int nl, int nb, const int *__restrict__ nbr, int ob, double ab, const double *__restrict__ s, const double *__restrict__ sg, const double *__restrict__ al, const double *__restrict__ be, double *__restrict__ y)
{
  BTE_DRIFT_LOOP(i, nl)
  {
    const int jm = nbr[(size_t)i * nb + ob];
    double    sm = jm < 0 ? 0 : (jm < nl ? s[jm] : sg[jm - nl]), v = y[i] + ab * (sm - s[i]);
    if (al) v += ab * (2 * be[i] - al[i]);
    y[i] = v;
  }
}

PetscErrorCode BTEDriftCUDAMUSCLCreate(PetscInt nl, PetscInt nb, const PetscInt nbr[], BTEDriftCUDAMUSCL *m)
{
  int   *h;
  size_t n = (size_t)nl * nb;

  PetscFunctionBegin;
  PetscCall(PetscNew(m));
  (*m)->nl = (int)nl;
  (*m)->nb = (int)nb;
  PetscCall(PetscMalloc1(PetscMax(n, (size_t)1), &h));
  for (size_t t = 0; t < n; t++) h[t] = (int)nbr[t];
  PetscCallCUDA(cudaMalloc((void **)&(*m)->nbr, sizeof(int) * PetscMax(n, (size_t)1)));
  PetscCallCUDA(cudaMemcpy((*m)->nbr, h, sizeof(int) * n, cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)sizeof(int) * n));
  PetscCall(PetscFree(h));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDAMUSCLDestroy(BTEDriftCUDAMUSCL *m)
{
  PetscFunctionBegin;
  if (!*m) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree((*m)->nbr));
  PetscCallCUDA(cudaFree((*m)->jal));
  PetscCallCUDA(cudaFree((*m)->jbe));
  PetscCall(PetscFree(*m));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDAMUSCLSlopes(BTEDriftCUDAMUSCL m, PetscInt k, PetscInt nd, PetscInt b, PetscInt ob, PetscBool minmod, int mode, Vec f, Vec fg, Vec s)
{
  const PetscScalar *fa, *ga;
  PetscScalar       *sa;
  cudaStream_t       st;
  double            *al = NULL, *be = NULL;

  PetscFunctionBegin;
  if (mode == 1 && m->cap < (size_t)nd) { /* the rows of the Jacobian state, for nd moving b-vectors */
    PetscCallCUDA(cudaFree(m->jal));
    PetscCallCUDA(cudaFree(m->jbe));
    PetscCallCUDA(cudaMalloc((void **)&m->jal, sizeof(double) * (size_t)nd * PetscMax(m->nl, 1)));
    PetscCallCUDA(cudaMalloc((void **)&m->jbe, sizeof(double) * (size_t)nd * PetscMax(m->nl, 1)));
    m->cap = (size_t)nd;
  }
  PetscCheck(mode == 0 || (size_t)k < m->cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "muscl on the device: no Jacobian state for row %" PetscInt_FMT, k);
  if (mode) {
    al = m->jal + (size_t)k * m->nl;
    be = m->jbe + (size_t)k * m->nl;
  }
  PetscCall(VecCUDAGetArrayRead(f, &fa));
  PetscCall(VecCUDAGetArrayRead(fg, &ga));
  PetscCall(VecCUDAGetArrayWrite(s, &sa));
  PetscCall(BTEDriftCUDAStream(&st));
  PetscCall(PetscLogGpuTimeBegin());
  if (m->nl > 0) {
    bte_drift_musclslopes<<<BTEDriftCUDAGrid(m->nl, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, st>>>(m->nl, m->nb, m->nbr, (int)b, (int)ob, minmod ? 1 : 0, mode, fa, ga, al, be, sa);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(s, &sa));
  PetscCall(VecCUDARestoreArrayRead(fg, &ga));
  PetscCall(VecCUDARestoreArrayRead(f, &fa));
  PetscCall(PetscLogGpuFlops((mode == 2 ? 6.0 : 8.0) * m->nl));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftCUDAMUSCLFaces(BTEDriftCUDAMUSCL m, PetscInt k, PetscInt ob, PetscReal ab, PetscBool jac, Vec s, Vec sg, Vec y)
{
  const PetscScalar *sa, *ga;
  PetscScalar       *ya;
  cudaStream_t       st;

  PetscFunctionBegin;
  PetscCheck(!jac || (size_t)k < m->cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "muscl on the device: no Jacobian state for row %" PetscInt_FMT, k);
  PetscCall(VecCUDAGetArrayRead(s, &sa));
  PetscCall(VecCUDAGetArrayRead(sg, &ga));
  PetscCall(VecCUDAGetArray(y, &ya));
  PetscCall(BTEDriftCUDAStream(&st));
  PetscCall(PetscLogGpuTimeBegin());
  if (m->nl > 0) {
    bte_drift_musclfaces<<<BTEDriftCUDAGrid(m->nl, BTE_DRIFT_BLOCK), BTE_DRIFT_BLOCK, 0, st>>>(m->nl, m->nb, m->nbr, (int)ob, (double)ab, sa, ga, jac ? m->jal + (size_t)k * m->nl : NULL, jac ? m->jbe + (size_t)k * m->nl : NULL, ya);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArray(y, &ya));
  PetscCall(VecCUDARestoreArrayRead(sg, &ga));
  PetscCall(VecCUDARestoreArrayRead(s, &sa));
  PetscCall(PetscLogGpuFlops((jac ? 7.0 : 4.0) * m->nl));
  PetscFunctionReturn(0);
}
