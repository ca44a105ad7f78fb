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
#include <thread>

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
/* The phonons' work in flight: everything PhononsBegin enqueued on its stream, kept until PhononsEnd */
typedef struct {
  PhConst            k;
  PetscInt           nq, B, nbatch;
  const int         *ddst;
  cublasHandle_t     cb;
  cusolverDnHandle_t cs;
  cusolverDnParams_t params;
  cudaStream_t       stream;
  cudaEvent_t       *ev; /* per batch: NPHEV bounds of its stages */
  double            *dF, *dR, *dq, *dC, *dS, *dDre, *dDim, *dV, *dDLR, *dA, *dW, *dom, *dmass, *dons, *dtau, *dz;
  void              *dwork, *hwork;
  int               *dinfo; /* per q point, read once at the end */
  size_t             lwd, lwh;
  PetscReal         *om, *u;   /* to the host (PhononsEnqueue's copies), or NULL */
  double            *omc, *uc; /* into the device cache, rows ddst */
  int                rc;       /* PhononsEnqueue's failure: the error code and the call */
  const char        *what;
  PetscLogDouble     tw0;
} PhJob;
#define NPHEV 7 /* start, short-range sums, dipole columns, dipole products, assembly, eigenproblems, the rest */

/* Prepares the phonons of nq points q[3 nq] on a stream of their own, PhononsEnqueue then enqueues
   them: into the device cache (ddst: per point its row of omc, uc) or to the host's om, u (either
   may be NULL; pageable, so those copies wait). Nothing waits for the device between batches. */
static PetscErrorCode PhononsBegin(BTEEpr e, PetscInt nq, const PetscReal q[], const int *ddst, PetscReal om[], PetscReal u[], double *omc, double *uc, PhJob *J)
{
  PhConst       *k  = &J->k;
  const PetscInt na = e->nat, nm = 3 * na, nf = na * (na + 1) / 2;
  double        *F, *Rd;
  size_t         lwd = 0, lwh = 0, freeb, totalb, perq;
  PetscInt       B;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(J, sizeof(*J)));
  J->nq   = nq;
  J->ddst = ddst;
  if (nq <= 0) PetscFunctionReturn(0);
  PetscCall(PetscTime(&J->tw0));
  k->nat   = (int)na;
  k->nm    = (int)nm;
  k->nR    = (int)e->fR.nr;
  k->nf9   = (int)(9 * nf);
  k->sys2d = e->sys2d ? 1 : 0;
  k->lr    = e->lr_ph ? 1 : 0;
  k->alpha = e->loto_alpha;
  k->fac   = 4 * PETSC_PI * E2 / e->volume * (e->sys2d ? 0.5 * e->alat / e->bg[8] : 1.0);
  for (int c = 0; c < 9; c++) {
    k->bg[c]    = e->bg[c];
    k->epsil[c] = e->epsil[c];
  }
  for (int c = 0; c < 4; c++) k->reff[c] = e->reff_ph[c];
  if (k->lr) {
    PetscInt nrx[3];
    BTEEprGRange(e, e->loto_alpha, nrx);
    for (int c = 0; c < 3; c++) k->nrx[c] = (int)nrx[c];
    k->ncol = (2 * k->nrx[0] + 1) * (2 * k->nrx[1] + 1) * (2 * k->nrx[2] + 1);
  }
  /* the dense force constants and the vectors */
  PetscCall(PetscCalloc1((size_t)k->nR * k->nf9, &F));
  PetscCall(PetscMalloc1(3 * (size_t)k->nR, &Rd));
  for (PetscInt m = 0; m < nf; m++)
    for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) F[e->fidx[t] + (size_t)k->nR * (9 * m + 3 * i + j)] += e->fval[9 * t + 3 * j + i];
  for (PetscInt r = 0; r < 3 * k->nR; r++) Rd[r] = (double)e->fR.R[r];

  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  /* own handles on an own stream: PETSc's handles and their streams stay as they are */
  {
    PetscBool got; /* made beside the host's first steps (BTEEprCUDAStart), else here */
    PetscCall(BTEEprCUDATakeHandles(&J->cb, &J->cs, &got));
    if (!got) {
      PetscCallCUBLASBTE(cublasCreate(&J->cb));
      PetscCallCUSOLVERBTE(cusolverDnCreate(&J->cs));
    }
  }
  PetscCallCUDA(cudaStreamCreateWithFlags(&J->stream, cudaStreamNonBlocking));
  PetscCallCUBLASBTE(cublasSetStream(J->cb, J->stream));
  PetscCallCUSOLVERBTE(cusolverDnSetStream(J->cs, J->stream));
  PetscCallCUSOLVERBTE(cusolverDnCreateParams(&J->params));

  /* batch size from the free memory (a quarter of it) */
  perq = sizeof(double) * (2 * (size_t)k->nR + 2 * (size_t)k->nf9 + 2 * (size_t)nm * nm * (k->lr ? 2 : 1) + 2 * (size_t)nm + 3 + (k->lr ? 2 * (size_t)nm * k->ncol : 0)) + sizeof(int);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  B = (PetscInt)PetscMin((size_t)nq, PetscMax((size_t)1, freeb / 4 / (perq + 2 * sizeof(double) * (size_t)nm * nm)));
  B         = PetscMin(B, 4096);
  J->B      = B;
  J->nbatch = (nq + B - 1) / B;

  PetscCallCUDA(cudaMalloc((void **)&J->dF, sizeof(double) * PetscMax((size_t)k->nR * k->nf9, (size_t)1)));
  PetscCallCUDA(cudaMalloc((void **)&J->dR, sizeof(double) * PetscMax(3 * (size_t)k->nR, (size_t)1)));
  PetscCallCUDA(cudaMemcpy(J->dF, F, sizeof(double) * (size_t)k->nR * k->nf9, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(J->dR, Rd, sizeof(double) * 3 * (size_t)k->nR, cudaMemcpyHostToDevice));
  PetscCall(PetscFree(F));
  PetscCall(PetscFree(Rd));
  /* every point's q at once: a copy from pageable memory between batches would wait for the stream */
  PetscCallCUDA(cudaMalloc((void **)&J->dq, sizeof(double) * 3 * nq));
  PetscCallCUDA(cudaMemcpy(J->dq, q, sizeof(double) * 3 * nq, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMalloc((void **)&J->dC, sizeof(double) * PetscMax((size_t)k->nR, (size_t)1) * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dS, sizeof(double) * PetscMax((size_t)k->nR, (size_t)1) * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dDre, sizeof(double) * (size_t)k->nf9 * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dDim, sizeof(double) * (size_t)k->nf9 * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dA, sizeof(double) * 2 * (size_t)nm * nm * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dW, sizeof(double) * (size_t)nm * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dom, sizeof(double) * (size_t)nm * B));
  PetscCallCUDA(cudaMalloc((void **)&J->dinfo, sizeof(int) * nq));
  PetscCallCUDA(cudaMalloc((void **)&J->dmass, sizeof(double) * na));
  PetscCallCUDA(cudaMemcpy(J->dmass, e->mass, sizeof(double) * na, cudaMemcpyHostToDevice));
  if (k->lr) {
    PetscCallCUDA(cudaMalloc((void **)&J->dV, sizeof(double) * 2 * (size_t)nm * k->ncol * B));
    PetscCallCUDA(cudaMalloc((void **)&J->dDLR, sizeof(double) * 2 * (size_t)nm * nm * B));
    PetscCallCUDA(cudaMalloc((void **)&J->dons, sizeof(double) * 9 * na));
    PetscCallCUDA(cudaMalloc((void **)&J->dtau, sizeof(double) * 3 * na));
    PetscCallCUDA(cudaMalloc((void **)&J->dz, sizeof(double) * 9 * na));
    PetscCallCUDA(cudaMemcpy(J->dons, e->onsite, sizeof(double) * 9 * na, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(J->dtau, e->tau, sizeof(double) * 3 * na, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(J->dz, e->zstar, sizeof(double) * 9 * na, cudaMemcpyHostToDevice));
  }
  PetscCallCUSOLVERBTE(cusolverDnXsyevBatched_bufferSize(J->cs, J->params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, nm, CUDA_C_64F, J->dA, nm, CUDA_R_64F, J->dW, CUDA_C_64F, &lwd, &lwh, B));
  PetscCallCUDA(cudaMalloc(&J->dwork, PetscMax(lwd, (size_t)1)));
  PetscCall(PetscMalloc1(PetscMax(lwh, (size_t)1), (char **)&J->hwork));
  PetscCall(PetscMalloc1(NPHEV * J->nbatch, &J->ev));
  for (PetscInt i = 0; i < NPHEV * J->nbatch; i++) PetscCallCUDA(cudaEventCreate(&J->ev[i]));

  J->lwd = lwd;
  J->lwh = lwh;
  J->om  = om;
  J->u   = u;
  J->omc = omc;
  J->uc  = uc;
  if (!ddst) PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(double) * nq * ((om ? nm : 0) + (u ? 2 * nm * nm : 0))));
  PetscFunctionReturn(0);
}

#define TRYCUDA(x) \
  do { \
    cudaError_t e_ = (x); \
    if (e_ != cudaSuccess) { \
      J->rc   = (int)e_; \
      J->what = #x; \
      return 1; \
    } \
  } while (0)
#define TRYBLAS(x) \
  do { \
    cublasStatus_t e_ = (x); \
    if (e_ != CUBLAS_STATUS_SUCCESS) { \
      J->rc   = (int)e_; \
      J->what = #x; \
      return 1; \
    } \
  } while (0)
#define TRYSOLVER(x) \
  do { \
    cusolverStatus_t e_ = (x); \
    if (e_ != CUSOLVER_STATUS_SUCCESS) { \
      J->rc   = (int)e_; \
      J->what = #x; \
      return 1; \
    } \
  } while (0)

/* PhononsBegin's batches onto its stream: CUDA, cuBLAS and cuSOLVER calls only (no PETSc), so that
   a thread of its own can make them: cuSOLVER's batched eigensolver returns only when its work is
   done, so the thread that calls it waits for the device (measured: the host's bands and k side,
   started after it, waited ~0.4 s at DNTT 16^3). A failure is recorded in J->rc, J->what. */
static int PhononsEnqueue(PhJob *J)
{
  const PhConst *k  = &J->k;
  const int      nm = k->nm;

  for (PetscInt q0 = 0, ib = 0; q0 < J->nq; q0 += J->B, ib++) {
    const int          nb = (int)PetscMin(J->B, J->nq - q0), thr = 256;
    const double       one = 1.0, zero = 0.0;
    const double      *dq = J->dq + 3 * q0;
    cudaEvent_t *const ev = J->ev + NPHEV * ib;
    cudaStream_t       st = J->stream;
    size_t             n;
    TRYCUDA(cudaEventRecord(ev[0], st));
    if (k->nR) {
      n = (size_t)k->nR * nb;
      PhasesKernel<<<(unsigned)((n + thr - 1) / thr), thr, 0, st>>>(k->nR, nb, J->dR, dq, J->dC, J->dS);
      TRYCUDA(cudaGetLastError());
      /* Dre (nf9 x nb) = F^T C, Dim = F^T S; F is nR x nf9, C is nR x nb (column-major) */
      TRYBLAS(cublasDgemm(J->cb, CUBLAS_OP_T, CUBLAS_OP_N, k->nf9, nb, k->nR, &one, J->dF, k->nR, J->dC, k->nR, &zero, J->dDre, k->nf9));
      TRYBLAS(cublasDgemm(J->cb, CUBLAS_OP_T, CUBLAS_OP_N, k->nf9, nb, k->nR, &one, J->dF, k->nR, J->dS, k->nR, &zero, J->dDim, k->nf9));
    } else {
      TRYCUDA(cudaMemsetAsync(J->dDre, 0, sizeof(double) * (size_t)k->nf9 * nb, st));
      TRYCUDA(cudaMemsetAsync(J->dDim, 0, sizeof(double) * (size_t)k->nf9 * nb, st));
    }
    TRYCUDA(cudaEventRecord(ev[1], st));
    if (k->lr) {
      const cuDoubleComplex fac = make_cuDoubleComplex(k->fac, 0), z0 = make_cuDoubleComplex(0, 0);
      n                         = (size_t)k->ncol * nb;
      DipoleColumns<<<(unsigned)((n + thr - 1) / thr), thr, 0, st>>>(*k, nb, dq, J->dtau, J->dz, J->dV);
      TRYCUDA(cudaGetLastError());
      TRYCUDA(cudaEventRecord(ev[2], st));
      TRYBLAS(cublasZgemmStridedBatched(J->cb, CUBLAS_OP_N, CUBLAS_OP_C, nm, nm, k->ncol, &fac, (const cuDoubleComplex *)J->dV, nm, (long long)nm * k->ncol, (const cuDoubleComplex *)J->dV, nm, (long long)nm * k->ncol, &z0, (cuDoubleComplex *)J->dDLR, nm, (long long)nm * nm, nb));
    } else TRYCUDA(cudaEventRecord(ev[2], st));
    TRYCUDA(cudaEventRecord(ev[3], st));
    n = (size_t)nm * nm * nb;
    Assemble<<<(unsigned)((n + thr - 1) / thr), thr, 0, st>>>(*k, nb, J->dDre, J->dDim, J->dDLR, J->dons, J->dmass, J->dA);
    TRYCUDA(cudaGetLastError());
    TRYCUDA(cudaEventRecord(ev[4], st));
    TRYSOLVER(cusolverDnXsyevBatched(J->cs, J->params, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER, nm, CUDA_C_64F, J->dA, nm, CUDA_R_64F, J->dW, CUDA_C_64F, J->dwork, J->lwd, J->hwork, J->lwh, J->dinfo + q0, nb));
    TRYCUDA(cudaEventRecord(ev[5], st));
    Finish<<<(unsigned)((n + thr - 1) / thr), thr, 0, st>>>(k->nm, nb, J->dW, J->dmass, J->dom, J->dA);
    TRYCUDA(cudaGetLastError());
    if (J->ddst) {
      n = 2 * (size_t)nm * nm * nb;
      Scatter<<<(unsigned)((n + thr - 1) / thr), thr, 0, st>>>(k->nm, nb, J->ddst + q0, J->dom, J->dA, J->omc, J->uc);
      TRYCUDA(cudaGetLastError());
    } else {
      if (J->om) TRYCUDA(cudaMemcpyAsync(J->om + (size_t)q0 * nm, J->dom, sizeof(double) * (size_t)nm * nb, cudaMemcpyDeviceToHost, st));
      if (J->u) TRYCUDA(cudaMemcpyAsync(J->u + 2 * (size_t)q0 * nm * nm, J->dA, sizeof(double) * 2 * (size_t)nm * nm * nb, cudaMemcpyDeviceToHost, st));
    }
    TRYCUDA(cudaEventRecord(ev[6], st));
  }
  return 0;
}

/* Waits for PhononsBegin's work, checks every eigenproblem, reports the stages' times, frees it all */
static PetscErrorCode PhononsEnd(PhJob *J)
{
  float          tph[3] = {0, 0, 0};    /* ms: short-range and dipole sums, eigenproblems, the rest */
  float          tdm[4] = {0, 0, 0, 0}; /* ms, within tph[0]: short-range sums, dipole columns, dipole products, assembly */
  int           *hinfo;
  PetscLogDouble tw1;

  PetscFunctionBegin;
  if (J->nq <= 0) PetscFunctionReturn(0);
  PetscCheck(!J->rc, PETSC_COMM_SELF, PETSC_ERR_LIB, "The phonons on the GPU: %s failed (error %d)", J->what, J->rc);
  PetscCallCUDA(cudaStreamSynchronize(J->stream));
  PetscCall(PetscMalloc1(J->nq, &hinfo));
  PetscCallCUDA(cudaMemcpy(hinfo, J->dinfo, sizeof(int) * J->nq, cudaMemcpyDeviceToHost));
  for (PetscInt ib = 0; ib < J->nbatch; ib++) {
    cudaEvent_t *ev = J->ev + NPHEV * ib;
    float        ms;
    for (int i = 0; i < 4; i++) {
      PetscCallCUDA(cudaEventElapsedTime(&ms, ev[i], ev[i + 1]));
      tdm[i] += ms;
    }
    PetscCallCUDA(cudaEventElapsedTime(&ms, ev[0], ev[4]));
    tph[0] += ms;
    PetscCallCUDA(cudaEventElapsedTime(&ms, ev[4], ev[5]));
    tph[1] += ms;
    PetscCallCUDA(cudaEventElapsedTime(&ms, ev[5], ev[6]));
    tph[2] += ms;
  }
  for (PetscInt b = 0; b < J->nq; b++) PetscCheck(hinfo[b] == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "cuSOLVER's batched eigensolver failed on D(q) at q point %" PetscInt_FMT " (info %d)", b, hinfo[b]);
  PetscCall(PetscFree(hinfo));
  for (PetscInt i = 0; i < NPHEV * J->nbatch; i++) PetscCallCUDA(cudaEventDestroy(J->ev[i]));
  PetscCall(PetscFree(J->ev));
  PetscCallCUSOLVERBTE(cusolverDnDestroyParams(J->params));
  PetscCallCUBLASBTE(cublasDestroy(J->cb));
  PetscCallCUSOLVERBTE(cusolverDnDestroy(J->cs));
  PetscCallCUDA(cudaStreamDestroy(J->stream));
  PetscCallCUDA(cudaFree(J->dwork));
  PetscCall(PetscFree(J->hwork));
  {
    double *d[] = {J->dF, J->dR, J->dq, J->dC, J->dS, J->dDre, J->dDim, J->dA, J->dW, J->dom, J->dmass, J->dV, J->dDLR, J->dons, J->dtau, J->dz};
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) PetscCallCUDA(cudaFree(d[i]));
  }
  PetscCallCUDA(cudaFree(J->dinfo));
  PetscCall(PetscTime(&tw1));
  PetscCall(PetscInfo(NULL, "phonons of %" PetscInt_FMT " q points on the GPU in batches of %" PetscInt_FMT ", %.3f s on the host's clock: dynamical matrices %.3f s (short-range sums %.3f, dipole columns %.3f, dipole products %.3f, assembly %.3f; %d dipole columns per q), eigenproblems %.3f s, %s %.3f s\n", J->nq, J->B, tw1 - J->tw0, (double)tph[0] / 1e3, (double)tdm[0] / 1e3, (double)tdm[1] / 1e3, (double)tdm[2] / 1e3, (double)tdm[3] / 1e3, J->k.ncol, (double)tph[1] / 1e3, J->ddst ? "into the device cache" : "copies to the host", (double)tph[2] / 1e3));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprPhononsCUDA(BTEEpr e, PetscInt nq, const PetscReal q[], PetscReal om[], PetscReal u[])
{
  PhJob J;

  PetscFunctionBegin;
  PetscCall(PhononsBegin(e, nq, q, NULL, om, u, NULL, NULL, &J));
  if (nq > 0) (void)PhononsEnqueue(&J);
  PetscCall(PhononsEnd(&J));
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

/* What BTEEprQCacheCUDABegin leaves in flight */
typedef struct {
  PhJob        ph;
  PetscReal   *qh;
  int         *dst, *pr, *ddst, *dpr;
  double      *dq, *dtau, *dz;
  double      *om, *u, *glr; /* the cache's */
  PetscInt     nh, npair, nall;
  int          nm;
  PhConst      klr; /* the long-range vertex's constants (lr) */
  double       pref;
  PetscBool    lr;
  cudaEvent_t  ev[3];
  size_t       need;
  int          dev;
  std::thread *thread;
} QJob;

/* The q cache's work onto the phonons' stream (a thread of its own; no PETSc calls) */
static void QWork(QJob *Q)
{
  PhJob       *J  = &Q->ph;
  cudaStream_t st = J->stream;
  const int    nm = Q->nm;

  if (cudaSetDevice(Q->dev) != cudaSuccess) {
    J->rc   = (int)cudaGetLastError();
    J->what = "cudaSetDevice";
    return;
  }
  [&]() -> int {
    if (PhononsEnqueue(J)) return 1;
    TRYCUDA(cudaEventRecord(Q->ev[0], st));
    if (Q->lr) {
      const size_t n = (size_t)Q->nh * nm;
      if (n) CouplingLR<<<(unsigned)((n + 127) / 128), 128, 0, st>>>(Q->klr, Q->pref, (int)Q->nh, Q->dq, Q->ddst, Q->dtau, Q->dz, Q->glr);
      TRYCUDA(cudaGetLastError());
    } else TRYCUDA(cudaMemsetAsync(Q->glr, 0, sizeof(double) * 2 * (size_t)Q->nall * nm, st));
    TRYCUDA(cudaEventRecord(Q->ev[1], st));
    if (Q->npair) {
      const size_t n = ((size_t)nm * nm + nm) * Q->npair;
      FillMinusQ<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(nm, (int)Q->npair, Q->dpr, Q->om, Q->u, Q->glr);
      TRYCUDA(cudaGetLastError());
    }
    TRYCUDA(cudaEventRecord(Q->ev[2], st));
    return 0;
  }();
}

PetscErrorCode BTEEprQCacheCUDABegin(BTEEpr e, const PetscInt nqd[3], const PetscInt minusq[], BTEEprQCacheCUDA *qc, PetscBool *fits)
{
  const PetscInt nqtot = nqd[0] * nqd[1] * nqd[2], nm = 3 * e->nat;
  size_t         freeb, totalb;
  QJob          *Q;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(qc, sizeof(*qc)));
  *fits = PETSC_FALSE;
  /* the cache itself, and room for the phonons' work (a batch of at least a few q points) */
  {
    const size_t need = sizeof(double) * (size_t)nqtot * (nm + 2 * (size_t)nm * nm + 2 * nm);
    PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
    if ((PetscLogDouble)need > 0.5 * (PetscLogDouble)freeb) {
      PetscCall(PetscInfo(NULL, "the q cache needs %.3g GB of device memory, %.3g GB free: made on the host\n", (double)need / 1e9, (double)freeb / 1e9));
      PetscFunctionReturn(0);
    }
    PetscCall(PetscNew(&Q));
    Q->need = need;
  }
  /* the q points computed (those with -q at or after them, the host's choice) and the pairs filled */
  PetscCall(PetscMalloc3(3 * nqtot, &Q->qh, nqtot, &Q->dst, 2 * nqtot, &Q->pr));
  for (PetscInt iq = 0; iq < nqtot; iq++) {
    const PetscInt mq = minusq[iq];
    if (mq >= iq) {
      Q->qh[3 * Q->nh]     = (PetscReal)(iq / (nqd[1] * nqd[2])) / nqd[0];
      Q->qh[3 * Q->nh + 1] = (PetscReal)((iq / nqd[2]) % nqd[1]) / nqd[1];
      Q->qh[3 * Q->nh + 2] = (PetscReal)(iq % nqd[2]) / nqd[2];
      Q->dst[Q->nh++]      = (int)iq;
    } else {
      Q->pr[2 * Q->npair]     = (int)iq;
      Q->pr[2 * Q->npair + 1] = (int)mq;
      Q->npair++;
    }
  }
  PetscCallCUDA(cudaMalloc((void **)&qc->om, sizeof(double) * (size_t)nqtot * nm));
  PetscCallCUDA(cudaMalloc((void **)&qc->u, sizeof(double) * 2 * (size_t)nqtot * nm * nm));
  PetscCallCUDA(cudaMalloc((void **)&qc->glr, sizeof(double) * 2 * (size_t)nqtot * nm));
  PetscCallCUDA(cudaMalloc((void **)&Q->ddst, sizeof(int) * PetscMax(Q->nh, 1)));
  PetscCallCUDA(cudaMalloc((void **)&Q->dpr, sizeof(int) * 2 * PetscMax(Q->npair, 1)));
  PetscCallCUDA(cudaMalloc((void **)&Q->dq, sizeof(double) * 3 * PetscMax(Q->nh, 1)));
  PetscCallCUDA(cudaMemcpy(Q->ddst, Q->dst, sizeof(int) * Q->nh, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(Q->dpr, Q->pr, sizeof(int) * 2 * Q->npair, cudaMemcpyHostToDevice));
  PetscCallCUDA(cudaMemcpy(Q->dq, Q->qh, sizeof(double) * 3 * Q->nh, cudaMemcpyHostToDevice));
  qc->nqtot = nqtot;
  qc->nm    = nm;
  qc->job   = Q;
  if (e->lr_eph) { /* before the work is enqueued: copies from pageable memory would wait for it */
    PetscCallCUDA(cudaMalloc((void **)&Q->dtau, sizeof(double) * 3 * e->nat));
    PetscCallCUDA(cudaMalloc((void **)&Q->dz, sizeof(double) * 9 * e->nat));
    PetscCallCUDA(cudaMemcpy(Q->dtau, e->tau, sizeof(double) * 3 * e->nat, cudaMemcpyHostToDevice));
    PetscCallCUDA(cudaMemcpy(Q->dz, e->zstar, sizeof(double) * 9 * e->nat, cudaMemcpyHostToDevice));
  }

  /* the long-range vertex's constants */
  if (e->lr_eph) {
    PhConst *k = &Q->klr;
    PetscInt nrx[3];
    k->nat   = (int)e->nat;
    k->nm    = (int)nm;
    k->sys2d = e->sys2d ? 1 : 0;
    k->alpha = e->polar_alpha;
    for (int c = 0; c < 9; c++) {
      k->bg[c]    = e->bg[c];
      k->epsil[c] = e->epsil[c];
    }
    for (int c = 0; c < 4; c++) k->reff[c] = e->reff_eph[c];
    BTEEprGRange(e, e->polar_alpha, nrx);
    for (int c = 0; c < 3; c++) k->nrx[c] = (int)nrx[c];
    /* prefactor i 4 pi e^2 / (V tpiba) in 3D, i 2 pi e^2 alat / (V b3_z) in 2D (epr_interp.c) */
    Q->pref = e->sys2d ? 2 * PETSC_PI * E2 / e->volume * e->alat / e->bg[8] : 4 * PETSC_PI * E2 / (e->volume * (2 * PETSC_PI / e->alat));
    Q->lr   = PETSC_TRUE;
  }
  /* 1. phonons of the half set, straight into the cache; 2. the long-range vertex of the half set;
     3. -q by conjugation: enqueued by a thread of its own (QWork), so that this one returns at once */
  PetscCall(PhononsBegin(e, Q->nh, Q->qh, Q->ddst, NULL, NULL, qc->om, qc->u, &Q->ph));
  for (int i = 0; i < 3; i++) PetscCallCUDA(cudaEventCreate(&Q->ev[i]));
  Q->glr = qc->glr;
  Q->om  = qc->om;
  Q->u   = qc->u;
  Q->nall = nqtot;
  Q->nm   = (int)nm;
  PetscCallCUDA(cudaGetDevice(&Q->dev));
  try {
    Q->thread = new std::thread(QWork, Q);
  } catch (...) {
    Q->thread = NULL; /* no thread: this one enqueues, and waits in cuSOLVER */
    QWork(Q);
  }
  *fits = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprQCacheCUDAEnd(BTEEprQCacheCUDA *qc, PetscReal om[])
{
  QJob *Q = (QJob *)qc->job;
  float ms[2];

  PetscFunctionBegin;
  if (!Q) PetscFunctionReturn(0);
  if (Q->thread) {
    Q->thread->join();
    delete Q->thread;
    Q->thread = NULL;
  }
  PetscCall(PhononsEnd(&Q->ph)); /* waits for the stream, so for steps 2 and 3 too */
  if (om) {
    PetscCallCUDA(cudaMemcpy(om, qc->om, sizeof(double) * (size_t)qc->nqtot * qc->nm, cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)sizeof(double) * qc->nqtot * qc->nm));
  }
  for (int i = 0; i < 2; i++) PetscCallCUDA(cudaEventElapsedTime(&ms[i], Q->ev[i], Q->ev[i + 1]));
  for (int i = 0; i < 3; i++) PetscCallCUDA(cudaEventDestroy(Q->ev[i]));
  PetscCall(PetscInfo(NULL, "q cache on the GPU: %" PetscInt_FMT " q points computed, %" PetscInt_FMT " filled from -q; long-range vertex %.3f s, -q fill %.3f s, %.3g GB\n", Q->nh, Q->npair, (double)ms[0] / 1e3, (double)ms[1] / 1e3, (double)Q->need / 1e9));
  PetscCallCUDA(cudaFree(Q->ddst));
  PetscCallCUDA(cudaFree(Q->dpr));
  PetscCallCUDA(cudaFree(Q->dq));
  PetscCallCUDA(cudaFree(Q->dtau));
  PetscCallCUDA(cudaFree(Q->dz));
  PetscCall(PetscFree3(Q->qh, Q->dst, Q->pr));
  PetscCall(PetscFree(Q));
  qc->job = NULL;
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
  PetscCall(BTEEprQCacheCUDAEnd(qc, NULL)); /* work still in flight */
  PetscCallCUDA(cudaFree(qc->om));
  PetscCallCUDA(cudaFree(qc->u));
  PetscCallCUDA(cudaFree(qc->glr));
  PetscCall(PetscMemzero(qc, sizeof(*qc)));
  PetscFunctionReturn(0);
}
