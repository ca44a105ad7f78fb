/* Phonons of a Perturbo epr file at many q points on the GPU (eprcuda.h): epr_interp.c's
   BTEEprPhonons, batched.

   Per batch of q points:
   1. the short-range dynamical matrix as two dense products (cuBLAS DGEMM): the force constants,
      scattered once into a dense (vectors x (atom pairs x 9)) matrix F, against the cos and sin
      of 2 pi q.R of every vector: sum_R e^{i 2 pi q.R} C(R) = F^T cos + i F^T sin;
   2. the dipole-dipole term (polar files): the columns V(3a+j, K) = sqrt(w_K) (K.Z_a)_j e^{i 2 pi
      K.tau_a} over the whole box of reciprocal vectors K = q + G that epr_interp.c's GRange gives
      (vectors outside the Ewald cutoff get w = 0, a zero column), and D_LR = fac V V^H as one
      strided-batched ZGEMM;
   3. the Hermitian matrix of epr_interp.c (hermitised diagonal blocks, the on-site correction, mass
      factors), then all eigenproblems at once (cuSOLVER XsyevBatched), frequencies sign(w) sqrt|w|
      and displacement patterns e / sqrt(M).
   Against the host: the same matrices up to the order of the sums (1e-13 relative here), the same
   frequencies to that order, and eigenvectors that differ by a phase per mode, or by a unitary
   rotation inside a degenerate set: any gauge-invariant quantity (the couplings summed over a
   degenerate set, which is what the tests compare) is the same. */
#include <bte/private/eprcuda.h>
#include <bte/private/epr.h>
#include <petscdevice_cuda.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

#define E2 2.0 /* e^2 in Rydberg atomic units */

#define PetscCallCUSOLVERBTE(x) \
  do { \
    cusolverStatus_t st_ = (x); \
    PetscCheck(st_ == CUSOLVER_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuSOLVER error %d in %s", (int)st_, #x); \
  } while (0)
#define PetscCallCUBLASBTE(x) \
  do { \
    cublasStatus_t st_ = (x); \
    PetscCheck(st_ == CUBLAS_STATUS_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuBLAS error %d in %s", (int)st_, #x); \
  } while (0)

typedef struct {
  int    nat, nm, nR, nf9, sys2d, lr;
  int    nrx[3], ncol;
  double bg[9], epsil[9], reff[4], alpha, fac;
} PhConst;

__global__ static void PhasesKernel(int nR, int nb, const double *__restrict__ R, const double *__restrict__ q, double *__restrict__ C, double *__restrict__ S)
{
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)nR * nb) return;
  int    r = (int)(t % nR), b = (int)(t / nR);
  double a = 2 * PETSC_PI * (q[3 * b] * R[3 * r] + q[3 * b + 1] * R[3 * r + 1] + q[3 * b + 2] * R[3 * r + 2]);
  double s, c;
  sincos(a, &s, &c);
  C[t] = c;
  S[t] = s;
}

/* epr_interp.c's LRWeight for the phonon term. K.eps.K is rounded as the host rounds it (no fused
   multiply-add): whether a vector sits inside the Ewald cutoff must not depend on the machine, and
   on symmetric cells vectors land exactly on it */
__device__ static double LRWeightPh(const PhConst &k, const double xc[3])
{
  const double falph = 4.0 * k.alpha, ggmax = 14.0 * falph;
  double       qeq   = 0;
  if (!k.sys2d) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) qeq = __dadd_rn(qeq, __dmul_rn(__dmul_rn(xc[i], k.epsil[3 * i + j]), xc[j]));
    if (qeq < 1e-14 || qeq > ggmax) return 0;
    return exp(-qeq / falph) / qeq;
  } else {
    double gp2 = __dadd_rn(__dmul_rn(xc[0], xc[0]), __dmul_rn(xc[1], xc[1])), r = 0, sq;
    qeq        = __dadd_rn(gp2, __dmul_rn(xc[2], xc[2]));
    if (gp2 > 1e-8) r = (xc[0] * (k.reff[0] * xc[0] + k.reff[1] * xc[1]) + xc[1] * (k.reff[2] * xc[0] + k.reff[3] * xc[1])) / gp2;
    if (qeq < 1e-14 || qeq > ggmax) return 0;
    sq = sqrt(qeq);
    return exp(-qeq / falph) / sq / (1 + r * sq);
  }
}

/* V[b][col][3a+j] (complex), one thread per (b, col) */
__global__ static void DipoleColumns(PhConst k, int nb, const double *__restrict__ q, const double *__restrict__ tau, const double *__restrict__ zstar, double *__restrict__ V)
{
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)k.ncol * nb) return;
  int     col = (int)(t % k.ncol), b = (int)(t / k.ncol);
  int     n3 = 2 * k.nrx[2] + 1, n2 = 2 * k.nrx[1] + 1;
  int     m1 = col / (n2 * n3) - k.nrx[0], m2 = (col / n3) % n2 - k.nrx[1], m3 = col % n3 - k.nrx[2];
  double  x[3] = {q[3 * b] + m1, q[3 * b + 1] + m2, q[3 * b + 2] + m3}, xc[3], wk, sf;
  double *v = V + 2 * ((size_t)b * k.ncol + col) * k.nm;
  for (int c = 0; c < 3; c++) xc[c] = __dadd_rn(__dadd_rn(__dmul_rn(x[0], k.bg[c]), __dmul_rn(x[1], k.bg[3 + c])), __dmul_rn(x[2], k.bg[6 + c]));
  wk = LRWeightPh(k, xc);
  if (!(wk > 0)) {
    for (int r = 0; r < 2 * k.nm; r++) v[r] = 0;
    return;
  }
  sf = sqrt(wk);
  for (int a = 0; a < k.nat; a++) {
    double arg = 2 * PETSC_PI * (xc[0] * tau[3 * a] + xc[1] * tau[3 * a + 1] + xc[2] * tau[3 * a + 2]), s, c;
    sincos(arg, &s, &c);
    c *= sf;
    s *= sf;
    for (int j = 0; j < 3; j++) {
      /* Z(a, i, j) = zstar[9a + 3j + i] */
      double kz          = xc[0] * zstar[9 * a + 3 * j] + xc[1] * zstar[9 * a + 3 * j + 1] + xc[2] * zstar[9 * a + 3 * j + 2];
      v[2 * (3 * a + j)] = kz * c;
      v[2 * (3 * a + j) + 1] = kz * s;
    }
  }
}

/* The Hermitian matrix of BTEEprPhonons, full (both triangles), one thread per (b, ii, jj) */
__global__ static void Assemble(PhConst k, int nb, const double *__restrict__ Dre, const double *__restrict__ Dim, const double *__restrict__ DLR, const double *__restrict__ onsite, const double *__restrict__ mass, double *__restrict__ A)
{
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  int    nm = k.nm;
  if (t >= (size_t)nm * nm * nb) return;
  int  b = (int)(t / ((size_t)nm * nm)), rest = (int)(t % ((size_t)nm * nm)), ii = rest % nm, jj = rest / nm;
  bool lowerpart = ii > jj;
  if (lowerpart) { /* fill from the upper entry (jj, ii), conjugated */
    int x = ii;
    ii    = jj;
    jj    = x;
  }
  int           ia = ii / 3, ja = jj / 3, i = ii % 3, j = jj % 3, m = ja * (ja + 1) / 2 + ia;
  double        mf = 1.0 / sqrt(mass[ia] * mass[ja]), re, im;
  const double *dr = Dre + (size_t)b * k.nf9 + 9 * m, *di = Dim + (size_t)b * k.nf9 + 9 * m;
  if (ia != ja) {
    re = dr[3 * i + j];
    im = di[3 * i + j];
  } else {
    re = 0.5 * (dr[3 * i + j] + dr[3 * j + i]);
    im = 0.5 * (di[3 * i + j] - di[3 * j + i]);
  }
  if (k.lr) {
    const double *d = DLR + 2 * (size_t)nm * nm * b;
    re += d[2 * (ii + (size_t)jj * nm)];
    im += d[2 * (ii + (size_t)jj * nm) + 1];
    if (ia == ja) re += 0.5 * (onsite[9 * ia + 3 * i + j] + onsite[9 * ia + 3 * j + i]);
  }
  im = ii == jj ? 0 : im * mf;
  re *= mf;
  if (lowerpart) {
    A[2 * ((size_t)b * nm * nm + jj + (size_t)ii * nm)]     = re;
    A[2 * ((size_t)b * nm * nm + jj + (size_t)ii * nm) + 1] = -im;
  } else {
    A[2 * ((size_t)b * nm * nm + ii + (size_t)jj * nm)]     = re;
    A[2 * ((size_t)b * nm * nm + ii + (size_t)jj * nm) + 1] = im;
  }
}

/* om = sign(w) sqrt|w|; u = e / sqrt(M) (in place in A) */
__global__ static void Finish(int nm, int nb, const double *__restrict__ w, const double *__restrict__ mass, double *__restrict__ om, double *__restrict__ A)
{
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t < (size_t)nm * nb) om[t] = w[t] >= 0 ? sqrt(w[t]) : -sqrt(-w[t]);
  if (t < (size_t)nm * nm * nb) {
    int    r = (int)(t % nm);
    double s = 1.0 / sqrt(mass[r / 3]);
    A[2 * t] *= s;
    A[2 * t + 1] *= s;
  }
}

/* om = src om, u = src patterns of batch entry b, into the q cache's rows dst[b] (device) */
__global__ static void Scatter(int nm, int nb, const int *__restrict__ dst, const double *__restrict__ om, const double *__restrict__ A, double *__restrict__ omc, double *__restrict__ uc)
{
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, nu2 = 2 * (size_t)nm * nm;
  if (t < (size_t)nm * nb) omc[(size_t)dst[t / nm] * nm + t % nm] = om[t];
  if (t < nu2 * nb) uc[(size_t)dst[t / nu2] * nu2 + t % nu2] = A[t];
}

/* The phonons at nq crystal points q[3 nq]: to the host (om, and u unless NULL), or, with dst (nq
   rows, on the device), into the device arrays omc and uc at those rows (om to the host still,
   unless NULL) */
static PetscErrorCode Phonons(BTEEpr e, PetscInt nq, const PetscReal q[], const int *ddst, PetscReal om[], PetscReal u[], double *omc, double *uc)
{
  PhConst            k;
  const PetscInt     na = e->nat, nm = 3 * na, nf = na * (na + 1) / 2;
  double            *F, *Rd, *dF, *dR, *dq, *dC, *dS, *dDre, *dDim, *dV = NULL, *dDLR = NULL, *dA, *dW, *dom, *dmass, *dons = NULL, *dtau = NULL, *dz = NULL;
  void              *dwork = NULL, *hwork = NULL;
  size_t             lwd = 0, lwh = 0, freeb, totalb, perq;
  int               *dinfo, *hinfo;
  PetscInt           B;
  cublasHandle_t     cb;
  cusolverDnHandle_t cs;
  cusolverDnParams_t params;
  cudaStream_t       stream;
  cudaEvent_t        ev[4], es[3];
  float              tph[3] = {0, 0, 0}; /* ms: short-range and dipole sums, eigenproblems, the rest */
  float              tdm[4] = {0, 0, 0, 0}; /* ms, within tph[0]: short-range sums, dipole columns, dipole products, assembly */
  PetscLogDouble     tw0, tw1;

  PetscFunctionBegin;
  if (nq <= 0) PetscFunctionReturn(0);
  PetscCall(PetscTime(&tw0));
  PetscCall(PetscMemzero(&k, sizeof(k)));
  k.nat   = (int)na;
  k.nm    = (int)nm;
  k.nR    = (int)e->fR.nr;
  k.nf9   = (int)(9 * nf);
  k.sys2d = e->sys2d ? 1 : 0;
  k.lr    = e->lr_ph ? 1 : 0;
  k.alpha = e->loto_alpha;
  k.fac   = 4 * PETSC_PI * E2 / e->volume * (e->sys2d ? 0.5 * e->alat / e->bg[8] : 1.0);
  for (int c = 0; c < 9; c++) {
    k.bg[c]    = e->bg[c];
    k.epsil[c] = e->epsil[c];
  }
  for (int c = 0; c < 4; c++) k.reff[c] = e->reff_ph[c];
  if (k.lr) {
    PetscInt nrx[3];
    BTEEprGRange(e, e->loto_alpha, nrx);
    for (int c = 0; c < 3; c++) k.nrx[c] = (int)nrx[c];
    k.ncol = (2 * k.nrx[0] + 1) * (2 * k.nrx[1] + 1) * (2 * k.nrx[2] + 1);
  }
  /* the dense force constants and the vectors */
  PetscCall(PetscCalloc1((size_t)k.nR * k.nf9, &F));
  PetscCall(PetscMalloc1(3 * (size_t)k.nR, &Rd));
  for (PetscInt m = 0; m < nf; m++)
    for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) F[e->fidx[t] + (size_t)k.nR * (9 * m + 3 * i + j)] += e->fval[9 * t + 3 * j + i];
  for (PetscInt r = 0; r < 3 * k.nR; r++) Rd[r] = (double)e->fR.R[r];

  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  /* own handles on an own stream: PETSc's handles and their streams stay as they are */
  {
    PetscBool got; /* made beside the host's first steps (BTEEprCUDAStart), else here */
    PetscCall(BTEEprCUDATakeHandles(&cb, &cs, &got));
    if (!got) {
      PetscCallCUBLASBTE(cublasCreate(&cb));
      PetscCallCUSOLVERBTE(cusolverDnCreate(&cs));
    }
  }
  PetscCallCUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  PetscCallCUBLASBTE(cublasSetStream(cb, stream));
  PetscCallCUSOLVERBTE(cusolverDnSetStream(cs, stream));
  PetscCallCUSOLVERBTE(cusolverDnCreateParams(&params));
  for (int i = 0; i < 4; i++) PetscCallCUDA(cudaEventCreate(&ev[i]));
  for (int i = 0; i < 3; i++) PetscCallCUDA(cudaEventCreate(&es[i]));

  /* batch size from the free memory (a quarter of it) */
  perq = sizeof(double) * (2 * (size_t)k.nR + 2 * (size_t)k.nf9 + 2 * (size_t)nm * nm * (k.lr ? 2 : 1) + 2 * (size_t)nm + 3 + (k.lr ? 2 * (size_t)nm * k.ncol : 0)) + sizeof(int);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  B = (PetscInt)PetscMin((size_t)nq, PetscMax((size_t)1, freeb / 4 / (perq + 2 * sizeof(double) * (size_t)nm * nm)));
  B = PetscMin(B, 4096);

  PetscCallCUDA(cudaMalloc((void **)&dF, sizeof(double) * PetscMax((size_t)k.nR * k.nf9, (size_t)1)));
  PetscCallCUDA(cudaMalloc((void **)&dR, sizeof(double) * PetscMax(3 * (size_t)k.nR, (size_t)1)));
  PetscCallCUDA(cudaMemcpy(dF, F, sizeof(double) * (size_t)k.nR * k.nf9, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(dR, Rd, sizeof(double) * 3 * (size_t)k.nR, cudaMemcpyHostToDevice));
  PetscCall(PetscFree(F));
  PetscCall(PetscFree(Rd));
  PetscCallCUDA(cudaMalloc((void **)&dq, sizeof(double) * 3 * B));
  PetscCallCUDA(cudaMalloc((void **)&dC, sizeof(double) * PetscMax((size_t)k.nR, (size_t)1) * B));
  PetscCallCUDA(cudaMalloc((void **)&dS, sizeof(double) * PetscMax((size_t)k.nR, (size_t)1) * B));
  PetscCallCUDA(cudaMalloc((void **)&dDre, sizeof(double) * (size_t)k.nf9 * B));
  PetscCallCUDA(cudaMalloc((void **)&dDim, sizeof(double) * (size_t)k.nf9 * B));
  PetscCallCUDA(cudaMalloc((void **)&dA, sizeof(double) * 2 * (size_t)nm * nm * B));
  PetscCallCUDA(cudaMalloc((void **)&dW, sizeof(double) * (size_t)nm * B));
  PetscCallCUDA(cudaMalloc((void **)&dom, sizeof(double) * (size_t)nm * B));
  PetscCallCUDA(cudaMalloc((void **)&dinfo, sizeof(int) * B));
  PetscCallCUDA(cudaMalloc((void **)&dmass, sizeof(double) * na));
  PetscCallCUDA(cudaMemcpy(dmass, e->mass, sizeof(double) * na, cudaMemcpyHostToDevice));
  if (k.lr) {
    PetscCallCUDA(cudaMalloc((void **)&dV, sizeof(double) * 2 * (size_t)nm * k.ncol * B));
    PetscCallCUDA(cudaMalloc((void **)&dDLR, sizeof(double) * 2 * (size_t)nm * nm * B));
    PetscCallCUDA(cudaMalloc((void **)&dons, sizeof(double) * 9 * na));
    PetscCallCUDA(cudaMalloc((void **)&dtau, sizeof(double) * 3 * na));
    PetscCallCUDA(cudaMalloc((void **)&dz, sizeof(double) * 9 * na));
    PetscCallCUDA(cudaMemcpy(dons, e->onsite, sizeof(double) * 9 * na, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dtau, e->tau, sizeof(double) * 3 * na, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dz, e->zstar, sizeof(double) * 9 * na, cudaMemcpyHostToDevice));
  }
  PetscCallCUSOLVERBTE(cusolverDnXsyevBatched_bufferSize(cs, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, nm, CUDA_C_64F, dA, nm, CUDA_R_64F, dW, CUDA_C_64F, &lwd, &lwh, B));
  PetscCallCUDA(cudaMalloc(&dwork, PetscMax(lwd, (size_t)1)));
  PetscCall(PetscMalloc1(PetscMax(lwh, (size_t)1), (char **)&hwork));
  PetscCall(PetscMalloc1(B, &hinfo));

  for (PetscInt q0 = 0; q0 < nq; q0 += B) {
    const int    nb = (int)PetscMin(B, nq - q0), thr = 256;
    const double one = 1.0, zero = 0.0;
    size_t       n;
    PetscCallCUDA(cudaEventRecord(ev[0], stream));
    PetscCallCUDA(cudaMemcpyAsync(dq, q + 3 * q0, sizeof(double) * 3 * nb, cudaMemcpyHostToDevice, stream));
    if (k.nR) {
      n = (size_t)k.nR * nb;
      PhasesKernel<<<(unsigned)((n + thr - 1) / thr), thr, 0, stream>>>(k.nR, nb, dR, dq, dC, dS);
      PetscCallCUDA(cudaGetLastError());
      /* Dre (nf9 x nb) = F^T C, Dim = F^T S; F is nR x nf9, C is nR x nb (column-major) */
      PetscCallCUBLASBTE(cublasDgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, k.nf9, nb, k.nR, &one, dF, k.nR, dC, k.nR, &zero, dDre, k.nf9));
      PetscCallCUBLASBTE(cublasDgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, k.nf9, nb, k.nR, &one, dF, k.nR, dS, k.nR, &zero, dDim, k.nf9));
    } else {
      PetscCallCUDA(cudaMemsetAsync(dDre, 0, sizeof(double) * (size_t)k.nf9 * nb, stream));
      PetscCallCUDA(cudaMemsetAsync(dDim, 0, sizeof(double) * (size_t)k.nf9 * nb, stream));
    }
    PetscCallCUDA(cudaEventRecord(es[0], stream));
    if (k.lr) {
      const cuDoubleComplex fac = make_cuDoubleComplex(k.fac, 0), z0 = make_cuDoubleComplex(0, 0);
      n                         = (size_t)k.ncol * nb;
      DipoleColumns<<<(unsigned)((n + thr - 1) / thr), thr, 0, stream>>>(k, nb, dq, dtau, dz, dV);
      PetscCallCUDA(cudaGetLastError());
      PetscCallCUDA(cudaEventRecord(es[1], stream));
      PetscCallCUBLASBTE(cublasZgemmStridedBatched(cb, CUBLAS_OP_N, CUBLAS_OP_C, nm, nm, k.ncol, &fac, (const cuDoubleComplex *)dV, nm, (long long)nm * k.ncol, (const cuDoubleComplex *)dV, nm, (long long)nm * k.ncol, &z0, (cuDoubleComplex *)dDLR, nm, (long long)nm * nm, nb));
    }
    if (!k.lr) PetscCallCUDA(cudaEventRecord(es[1], stream));
    PetscCallCUDA(cudaEventRecord(es[2], stream));
    n = (size_t)nm * nm * nb;
    Assemble<<<(unsigned)((n + thr - 1) / thr), thr, 0, stream>>>(k, nb, dDre, dDim, dDLR, dons, dmass, dA);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaEventRecord(ev[1], stream));
    PetscCallCUSOLVERBTE(cusolverDnXsyevBatched(cs, params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, nm, CUDA_C_64F, dA, nm, CUDA_R_64F, dW, CUDA_C_64F, dwork, lwd, hwork, lwh, dinfo, nb));
    PetscCallCUDA(cudaEventRecord(ev[2], stream));
    Finish<<<(unsigned)((n + thr - 1) / thr), thr, 0, stream>>>(k.nm, nb, dW, dmass, dom, dA);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaMemcpyAsync(hinfo, dinfo, sizeof(int) * nb, cudaMemcpyDeviceToHost, stream));
    if (ddst) {
      n = 2 * (size_t)nm * nm * nb;
      Scatter<<<(unsigned)((n + thr - 1) / thr), thr, 0, stream>>>(k.nm, nb, ddst + q0, dom, dA, omc, uc);
      PetscCallCUDA(cudaGetLastError());
    } else {
      if (om) PetscCallCUDA(cudaMemcpyAsync(om + (size_t)q0 * nm, dom, sizeof(double) * (size_t)nm * nb, cudaMemcpyDeviceToHost, stream));
      if (u) PetscCallCUDA(cudaMemcpyAsync(u + 2 * (size_t)q0 * nm * nm, dA, sizeof(double) * 2 * (size_t)nm * nm * nb, cudaMemcpyDeviceToHost, stream));
    }
    PetscCallCUDA(cudaEventRecord(ev[3], stream));
    PetscCallCUDA(cudaStreamSynchronize(stream));
    for (int i = 0; i < 3; i++) {
      float ms;
      PetscCallCUDA(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
      tph[i] += ms;
    }
    {
      cudaEvent_t from[4] = {ev[0], es[0], es[1], es[2]}, to[4] = {es[0], es[1], es[2], ev[1]};
      for (int i = 0; i < 4; i++) {
        float ms;
        PetscCallCUDA(cudaEventElapsedTime(&ms, from[i], to[i]));
        tdm[i] += ms;
      }
    }
    for (int b = 0; b < nb; b++) PetscCheck(hinfo[b] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuSOLVER's batched eigensolver failed on D(q) at q point %" PetscInt_FMT " (info %d)", q0 + b, hinfo[b]);
  }
  if (!ddst) PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(double) * nq * ((om ? nm : 0) + (u ? 2 * nm * nm : 0))));

  for (int i = 0; i < 4; i++) PetscCallCUDA(cudaEventDestroy(ev[i]));
  for (int i = 0; i < 3; i++) PetscCallCUDA(cudaEventDestroy(es[i]));
  PetscCallCUSOLVERBTE(cusolverDnDestroyParams(params));
  PetscCallCUBLASBTE(cublasDestroy(cb));
  PetscCallCUSOLVERBTE(cusolverDnDestroy(cs));
  PetscCallCUDA(cudaStreamDestroy(stream));
  PetscCallCUDA(cudaFree(dwork));
  PetscCall(PetscFree(hwork));
  PetscCall(PetscFree(hinfo));
  PetscCallCUDA(cudaFree(dF));
  PetscCallCUDA(cudaFree(dR));
  PetscCallCUDA(cudaFree(dq));
  PetscCallCUDA(cudaFree(dC));
  PetscCallCUDA(cudaFree(dS));
  PetscCallCUDA(cudaFree(dDre));
  PetscCallCUDA(cudaFree(dDim));
  PetscCallCUDA(cudaFree(dA));
  PetscCallCUDA(cudaFree(dW));
  PetscCallCUDA(cudaFree(dom));
  PetscCallCUDA(cudaFree(dinfo));
  PetscCallCUDA(cudaFree(dmass));
  PetscCallCUDA(cudaFree(dV));
  PetscCallCUDA(cudaFree(dDLR));
  PetscCallCUDA(cudaFree(dons));
  PetscCallCUDA(cudaFree(dtau));
  PetscCallCUDA(cudaFree(dz));
  PetscCall(PetscTime(&tw1));
  PetscCall(PetscInfo(NULL, "phonons of %" PetscInt_FMT " q points on the GPU in batches of %" PetscInt_FMT ", %.3f s on the host's clock: dynamical matrices %.3f s (short-range sums %.3f, dipole columns %.3f, dipole products %.3f, assembly %.3f; %d dipole columns per q), eigenproblems %.3f s, %s %.3f s\n", nq, B, tw1 - tw0, (double)tph[0] / 1e3, (double)tdm[0] / 1e3, (double)tdm[1] / 1e3, (double)tdm[2] / 1e3, (double)tdm[3] / 1e3, k.ncol, (double)tph[1] / 1e3, ddst ? "into the device cache" : "copies to the host", (double)tph[2] / 1e3));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprPhononsCUDA(BTEEpr e, PetscInt nq, const PetscReal q[], PetscReal om[], PetscReal u[])
{
  PetscFunctionBegin;
  PetscCall(Phonons(e, nq, q, NULL, om, u, NULL, NULL));
  PetscFunctionReturn(0);
}

/* epr_interp.c's BTEEprCouplingLR, one thread per (q, component 3a+j): the sum over the Ewald box in
   the host's order, every product and sum rounded on its own, so that only the device's exp and
   cos/sin can differ from the host (k: the e-ph term's alpha and screening) */
__global__ static void CouplingLR(PhConst k, double pref, int nq, const double *__restrict__ q, const int *__restrict__ dst, const double *__restrict__ tau, const double *__restrict__ zstar, double *__restrict__ glr)
{
  size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (t >= (size_t)nq * k.nm) return;
  const int     comp = (int)(t % k.nm), b = (int)(t / k.nm), a = comp / 3, j = comp % 3;
  const double *qb   = q + 3 * b;
  double        re = 0, im = 0;
  if (!(sqrt(qb[0] * qb[0] + qb[1] * qb[1] + qb[2] * qb[2]) < 1e-8)) {
    for (int m1 = -k.nrx[0]; m1 <= k.nrx[0]; m1++)
      for (int m2 = -k.nrx[1]; m2 <= k.nrx[1]; m2++)
        for (int m3 = -k.nrx[2]; m3 <= k.nrx[2]; m3++) {
          double x[3] = {qb[0] + m1, qb[1] + m2, qb[2] + m3}, xc[3], wk, arg, s, c, qz;
          for (int d = 0; d < 3; d++) xc[d] = __dadd_rn(__dadd_rn(__dmul_rn(x[0], k.bg[d]), __dmul_rn(x[1], k.bg[3 + d])), __dmul_rn(x[2], k.bg[6 + d]));
          wk = LRWeightPh(k, xc);
          if (!(wk > 0)) continue;
          arg = __dmul_rn(-2 * PETSC_PI, __dadd_rn(__dadd_rn(__dmul_rn(xc[0], tau[3 * a]), __dmul_rn(xc[1], tau[3 * a + 1])), __dmul_rn(xc[2], tau[3 * a + 2])));
          sincos(arg, &s, &c);
          c  = __dmul_rn(c, wk);
          s  = __dmul_rn(s, wk);
          qz = __dadd_rn(__dadd_rn(__dmul_rn(xc[0], zstar[9 * a + 3 * j]), __dmul_rn(xc[1], zstar[9 * a + 3 * j + 1])), __dmul_rn(xc[2], zstar[9 * a + 3 * j + 2]));
          re = __dadd_rn(re, __dmul_rn(qz, c));
          im = __dadd_rn(im, __dmul_rn(qz, s));
        }
  }
  glr[2 * ((size_t)dst[b] * k.nm + comp)]     = __dmul_rn(-pref, im);
  glr[2 * ((size_t)dst[b] * k.nm + comp) + 1] = __dmul_rn(pref, re);
}

/* Row iq = the conjugate of row mq, for the pairs (iq, mq) of pr: D(-q) = conj D(q), g_LR(-q) = conj g_LR(q) */
__global__ static void FillMinusQ(int nm, int np, const int *__restrict__ pr, double *__restrict__ om, double *__restrict__ u, double *__restrict__ glr)
{
  size_t       t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t nu2 = (size_t)nm * nm, per = nu2 + nm;
  if (t >= per * np) return;
  const int    p = (int)(t / per);
  const size_t r = t % per, iq = (size_t)pr[2 * p], mq = (size_t)pr[2 * p + 1];
  if (r < nu2) {
    u[2 * (iq * nu2 + r)]     = u[2 * (mq * nu2 + r)];
    u[2 * (iq * nu2 + r) + 1] = -u[2 * (mq * nu2 + r) + 1];
  } else {
    const size_t c = r - nu2;
    om[iq * nm + c]                = om[mq * nm + c];
    glr[2 * (iq * nm + c)]     = glr[2 * (mq * nm + c)];
    glr[2 * (iq * nm + c) + 1] = -glr[2 * (mq * nm + c) + 1];
  }
}

PetscErrorCode BTEEprQCacheCUDACreate(BTEEpr e, const PetscInt nqd[3], const PetscInt minusq[], PetscReal om[], BTEEprQCacheCUDA *qc, PetscBool *fits)
{
  const PetscInt nqtot = nqd[0] * nqd[1] * nqd[2], nm = 3 * e->nat;
  PetscInt       nh = 0, npair = 0;
  PetscReal     *qh;
  int           *dst, *pr, *ddst, *dpr;
  double        *dq, *dtau = NULL, *dz = NULL;
  size_t         freeb, totalb, need;
  cudaEvent_t    ev[3];
  float          ms[2];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(qc, sizeof(*qc)));
  *fits = PETSC_FALSE;
  /* the cache itself, and room for the phonons' work (a batch of at least a few q points) */
  need = sizeof(double) * (size_t)nqtot * (nm + 2 * (size_t)nm * nm + 2 * nm);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  if ((PetscLogDouble)need > 0.5 * (PetscLogDouble)freeb) {
    PetscCall(PetscInfo(NULL, "the q cache needs %.3g GB of device memory, %.3g GB free: made on the host\n", (double)need / 1e9, (double)freeb / 1e9));
    PetscFunctionReturn(0);
  }
  /* the q points computed (those with -q at or after them, the host's choice) and the pairs filled */
  PetscCall(PetscMalloc3(3 * nqtot, &qh, nqtot, &dst, 2 * nqtot, &pr));
  for (PetscInt iq = 0; iq < nqtot; iq++) {
    const PetscInt mq = minusq[iq];
    if (mq >= iq) {
      qh[3 * nh]     = (PetscReal)(iq / (nqd[1] * nqd[2])) / nqd[0];
      qh[3 * nh + 1] = (PetscReal)((iq / nqd[2]) % nqd[1]) / nqd[1];
      qh[3 * nh + 2] = (PetscReal)(iq % nqd[2]) / nqd[2];
      dst[nh++]      = (int)iq;
    } else {
      pr[2 * npair]     = (int)iq;
      pr[2 * npair + 1] = (int)mq;
      npair++;
    }
  }
  PetscCallCUDA(cudaMalloc((void **)&qc->om, sizeof(double) * (size_t)nqtot * nm));
  PetscCallCUDA(cudaMalloc((void **)&qc->u, sizeof(double) * 2 * (size_t)nqtot * nm * nm));
  PetscCallCUDA(cudaMalloc((void **)&qc->glr, sizeof(double) * 2 * (size_t)nqtot * nm));
  PetscCallCUDA(cudaMalloc((void **)&ddst, sizeof(int) * PetscMax(nh, 1)));
  PetscCallCUDA(cudaMalloc((void **)&dpr, sizeof(int) * 2 * PetscMax(npair, 1)));
  PetscCallCUDA(cudaMalloc((void **)&dq, sizeof(double) * 3 * PetscMax(nh, 1)));
  PetscCallCUDA(cudaMemcpy(ddst, dst, sizeof(int) * nh, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(dpr, pr, sizeof(int) * 2 * npair, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(dq, qh, sizeof(double) * 3 * nh, cudaMemcpyHostToDevice));
  qc->nqtot = nqtot;
  qc->nm    = nm;

  /* 1. phonons of the half set, straight into the cache */
  PetscCall(Phonons(e, nh, qh, ddst, NULL, NULL, qc->om, qc->u));
  for (int i = 0; i < 3; i++) PetscCallCUDA(cudaEventCreate(&ev[i]));
  PetscCallCUDA(cudaEventRecord(ev[0], 0));
  /* 2. the long-range vertex of the half set */
  if (e->lr_eph) {
    PhConst  k;
    PetscInt nrx[3];
    double   pref;
    size_t   n = (size_t)nh * nm;
    PetscCall(PetscMemzero(&k, sizeof(k)));
    k.nat   = (int)e->nat;
    k.nm    = (int)nm;
    k.sys2d = e->sys2d ? 1 : 0;
    k.alpha = e->polar_alpha;
    for (int c = 0; c < 9; c++) {
      k.bg[c]    = e->bg[c];
      k.epsil[c] = e->epsil[c];
    }
    for (int c = 0; c < 4; c++) k.reff[c] = e->reff_eph[c];
    BTEEprGRange(e, e->polar_alpha, nrx);
    for (int c = 0; c < 3; c++) k.nrx[c] = (int)nrx[c];
    /* prefactor i 4 pi e^2 / (V tpiba) in 3D, i 2 pi e^2 alat / (V b3_z) in 2D (epr_interp.c) */
    pref = e->sys2d ? 2 * PETSC_PI * E2 / e->volume * e->alat / e->bg[8] : 4 * PETSC_PI * E2 / (e->volume * (2 * PETSC_PI / e->alat));
    PetscCallCUDA(cudaMalloc((void **)&dtau, sizeof(double) * 3 * e->nat));
    PetscCallCUDA(cudaMalloc((void **)&dz, sizeof(double) * 9 * e->nat));
    PetscCallCUDA(cudaMemcpy(dtau, e->tau, sizeof(double) * 3 * e->nat, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(dz, e->zstar, sizeof(double) * 9 * e->nat, cudaMemcpyHostToDevice));
    if (n) CouplingLR<<<(unsigned)((n + 127) / 128), 128>>>(k, pref, (int)nh, dq, ddst, dtau, dz, qc->glr);
    PetscCallCUDA(cudaGetLastError());
  } else PetscCallCUDA(cudaMemset(qc->glr, 0, sizeof(double) * 2 * (size_t)nqtot * nm));
  PetscCallCUDA(cudaEventRecord(ev[1], 0));
  /* 3. -q by conjugation */
  if (npair) {
    size_t n = ((size_t)nm * nm + nm) * npair;
    FillMinusQ<<<(unsigned)((n + 255) / 256), 256>>>((int)nm, (int)npair, dpr, qc->om, qc->u, qc->glr);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaEventRecord(ev[2], 0));
  PetscCallCUDA(cudaMemcpy(om, qc->om, sizeof(double) * (size_t)nqtot * nm, cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(double) * nqtot * nm));
  for (int i = 0; i < 2; i++) PetscCallCUDA(cudaEventElapsedTime(&ms[i], ev[i], ev[i + 1]));
  for (int i = 0; i < 3; i++) PetscCallCUDA(cudaEventDestroy(ev[i]));
  PetscCall(PetscInfo(NULL, "q cache on the GPU: %" PetscInt_FMT " q points computed, %" PetscInt_FMT " filled from -q; long-range vertex %.3f s, -q fill %.3f s, %.3g GB\n", nh, npair, (double)ms[0] / 1e3, (double)ms[1] / 1e3, (double)need / 1e9));
  PetscCallCUDA(cudaFree(ddst));
  PetscCallCUDA(cudaFree(dpr));
  PetscCallCUDA(cudaFree(dq));
  PetscCallCUDA(cudaFree(dtau));
  PetscCallCUDA(cudaFree(dz));
  PetscCall(PetscFree3(qh, dst, pr));
  *fits = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprQCacheCUDAGetHost(const BTEEprQCacheCUDA *qc, PetscReal u[], PetscReal glr[])
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpy(u, qc->u, sizeof(double) * 2 * (size_t)qc->nqtot * qc->nm * qc->nm, cudaMemcpyDeviceToHost));
  PetscCallCUDA(cudaMemcpy(glr, qc->glr, sizeof(double) * 2 * (size_t)qc->nqtot * qc->nm, cudaMemcpyDeviceToHost));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(double) * 2 * qc->nqtot * qc->nm * (qc->nm + 1)));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprQCacheCUDADestroy(BTEEprQCacheCUDA *qc)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(qc->om));
  PetscCallCUDA(cudaFree(qc->u));
  PetscCallCUDA(cudaFree(qc->glr));
  PetscCall(PetscMemzero(qc, sizeof(*qc)));
  PetscFunctionReturn(0);
}
