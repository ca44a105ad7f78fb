/* tgt on CUDA: Perturbo v3's algorithm as the paper runs it on the GPU (tgt.c has the layout).

   Pass 1: one thread per channel decodes (pair -> ik, ikq, iq; packed bands -> n, m, mode), finds
   the two states through kb2state, evaluates the two Gaussians (exp) and writes one value per
   channel into sc_col (x_c, or its Jacobian counterparts). Pass 2: one thread per owned target
   sums its signed sources (+ for the i end, - for the j end) in the order of the host code. No
   atomics; pass 2 reproduces the host sums exactly given the same sc_col. */
#include <bte/private/collisioncuda_device.h>

struct _n_BTETgtCUDA {
  BTETgtCUDALayout h; /* sizes and constants (host pointers not kept) */
  int32_t         *scatter, *bands, *pairidx, *kb2state, *sources;
  double          *g2, *wq, *nph, *hwch, *energy;
  long long       *targets;
  long long        nsrc; /* entries of the target layer */
  double          *sc_col, *sc_col2;
  PetscLogDouble   bytes;
};

enum { TGT_VALUE = 0, TGT_JACOBIAN = 1, TGT_DIAGONAL = 2 };

struct BTETgtArgs {
  long long       nch;
  int             nb, nm;
  double          pref, inveta, gnorm, kT;
  const int32_t  *scatter, *bands, *pairidx, *kb;
  const double   *g2, *wq, *nph, *hwch, *e;
};

template <int MODE>
__global__ void bte_tgt_pass1(BTETgtArgs a, const double *__restrict__ f, const double *__restrict__ x, double *__restrict__ sc, double *__restrict__ sc2)
{
  for (long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x; c < a.nch; c += (long long)gridDim.x * blockDim.x) {
    const int32_t p = a.pairidx[c], ik = a.scatter[3 * p], ikq = a.scatter[3 * p + 1], iq = a.scatter[3 * p + 2];
    const int32_t pk = a.bands[c], md = pk % a.nm, nmb = pk / a.nm, n = nmb / a.nb, m = nmb % a.nb;
    const int32_t i = a.kb[ik * a.nb + n], j = a.kb[ikq * a.nb + m];
    const double  fi = f[i], fj = f[j];
    double        hw, N;
    if (a.hwch) {
      hw = a.hwch[c];
      N  = bte_bose(hw, a.kT);
    } else {
      hw = a.wq[iq * a.nm + md];
      N  = a.nph[iq * a.nm + md];
    }
    const double d = a.e[i] - a.e[j], w = a.pref * a.g2[c];
    const double ga = w * bte_gauss(d + hw, a.inveta, a.gnorm), gb = w * bte_gauss(d - hw, a.inveta, a.gnorm);
    if (MODE == TGT_VALUE) {
      const double Fabs = fi * (N + fj) - fj * (N + 1.0);
      const double Fem  = fi * (N + 1.0) - fj * (N + fi);
      sc[c]             = -(ga * Fabs + gb * Fem);
    } else {
      const double P = ga * N + gb * (N + 1.0), Q = ga * (N + 1.0) + gb * N;
      const double dxi = -(P * (1.0 - fj) + Q * fj), dxj = P * fi + Q * (1.0 - fi);
      if (MODE == TGT_JACOBIAN) sc[c] = dxi * x[i] + dxj * x[j];
      else {
        sc[c]  = dxi;
        sc2[c] = -dxj;
      }
    }
  }
}

__global__ void bte_tgt_pass2(int nlocal, const long long *__restrict__ targets, const int32_t *__restrict__ sources, const double *__restrict__ first, const double *__restrict__ second, double *__restrict__ y)
{
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < nlocal; t += gridDim.x * blockDim.x) {
    double s = 0.0;
    for (long long k = targets[t]; k < targets[t + 1]; k++) {
      const int32_t src = sources[k];
      if (src > 0) s += first[src - 1];
      else if (second) s += second[-src - 1];
      else s -= first[-src - 1];
    }
    y[t] = s;
  }
}

PetscErrorCode BTETgtCUDACreate(const BTETgtCUDALayout *h, BTETgtCUDA *dev)
{
  BTETgtCUDA d;
  long long *tp;
  size_t     nq = (size_t)h->nqc * h->nmodes;

  PetscFunctionBegin;
  PetscCall(BTECollCUDARegisterEvents());
  PetscCall(PetscLogEventBegin(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscCall(PetscNew(&d));
  d->h = *h;
  PetscCall(BTECollCUDAUpload(h->scatter, 3 * (size_t)h->npair, &d->scatter, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->g2, (size_t)h->nch, &d->g2, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->bands, (size_t)h->nch, &d->bands, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->pairidx, (size_t)h->nch, &d->pairidx, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->wq, nq, &d->wq, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->nph, nq, &d->nph, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->hwch, h->hwch ? (size_t)h->nch : 0, &d->hwch, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->kb2state, (size_t)h->nkp * h->nbands, &d->kb2state, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->energy, (size_t)h->nlocal + h->nghost, &d->energy, &d->bytes));
  PetscCall(PetscMalloc1(h->nlocal + 1, &tp));
  for (PetscInt t = 0; t <= h->nlocal; t++) tp[t] = (long long)h->targets[t];
  d->nsrc = tp[h->nlocal];
  PetscCall(BTECollCUDAUpload(tp, (size_t)h->nlocal + 1, &d->targets, &d->bytes));
  PetscCall(BTECollCUDAUpload(h->sources, (size_t)tp[h->nlocal], &d->sources, &d->bytes));
  PetscCall(PetscFree(tp));
  if (h->nch > 0) {
    PetscCallCUDA(cudaMalloc((void **)&d->sc_col, (size_t)h->nch * sizeof(double)));
    d->bytes += (PetscLogDouble)h->nch * sizeof(double);
  }
  PetscCall(PetscLogEventEnd(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  d->h.scatter = NULL; /* host pointers are not kept */
  d->h.g2 = d->h.wq = d->h.nph = d->h.hwch = d->h.energy = NULL;
  d->h.bands = d->h.pairidx = d->h.kb2state = d->h.sources = NULL;
  d->h.targets = NULL;
  *dev         = d;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDADestroy(BTETgtCUDA *dev)
{
  BTETgtCUDA d = *dev;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree(d->scatter));
  PetscCallCUDA(cudaFree(d->g2));
  PetscCallCUDA(cudaFree(d->bands));
  PetscCallCUDA(cudaFree(d->pairidx));
  PetscCallCUDA(cudaFree(d->wq));
  PetscCallCUDA(cudaFree(d->nph));
  PetscCallCUDA(cudaFree(d->hwch));
  PetscCallCUDA(cudaFree(d->kb2state));
  PetscCallCUDA(cudaFree(d->energy));
  PetscCallCUDA(cudaFree(d->targets));
  PetscCallCUDA(cudaFree(d->sources));
  PetscCallCUDA(cudaFree(d->sc_col));
  PetscCallCUDA(cudaFree(d->sc_col2));
  PetscCall(PetscFree(*dev));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDAGetBytes(BTETgtCUDA d, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *bytes = d ? d->bytes : 0;
  PetscFunctionReturn(0);
}

static BTETgtArgs BTETgtCUDAArgs(BTETgtCUDA d)
{
  BTETgtArgs a;
  a.nch     = (long long)d->h.nch;
  a.nb      = (int)d->h.nbands;
  a.nm      = (int)d->h.nmodes;
  a.pref    = d->h.pref;
  a.inveta  = d->h.inveta;
  a.gnorm   = d->h.gnorm;
  a.kT      = d->h.kT;
  a.scatter = d->scatter;
  a.bands   = d->bands;
  a.pairidx = d->pairidx;
  a.kb      = d->kb2state;
  a.g2      = d->g2;
  a.wq      = d->wq;
  a.nph     = d->nph;
  a.hwch    = d->hwch;
  a.e       = d->energy;
  return a;
}

static int BTETgtGrid(long long n, int block)
{
  long long b = (n + block - 1) / block;
  if (b > 1048576) b = 1048576; /* grid-stride loops cover the rest */
  return (int)(b > 0 ? b : 1);
}

/* Both passes; x only for the Jacobian. Flops as tgt.c counts them. */
static PetscErrorCode BTETgtCUDARun(BTETgtCUDA d, int mode, Vec fl, Vec xl, Vec Y)
{
  const PetscScalar *f, *x = NULL;
  PetscScalar       *y;
  cudaStream_t       s;
  PetscInt           n;
  const int          block = 256;
  BTETgtArgs         a = BTETgtCUDAArgs(d);

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(fl, &n));
  PetscCheck(n == d->h.nlocal + d->h.nghost, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Local vector has %" PetscInt_FMT " entries, expected owned + ghosts = %" PetscInt_FMT, n, d->h.nlocal + d->h.nghost);
  PetscCall(VecGetLocalSize(Y, &n));
  PetscCheck(n == d->h.nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output Vec has %" PetscInt_FMT " local entries, expected %" PetscInt_FMT, n, d->h.nlocal);
  if (mode == TGT_DIAGONAL && !d->sc_col2 && d->h.nch > 0) {
    PetscCallCUDA(cudaMalloc((void **)&d->sc_col2, (size_t)d->h.nch * sizeof(double)));
    d->bytes += (PetscLogDouble)d->h.nch * sizeof(double);
  }
  PetscCall(VecCUDAGetArrayRead(fl, &f));
  if (xl) PetscCall(VecCUDAGetArrayRead(xl, &x));
  PetscCall(VecCUDAGetArrayWrite(Y, &y));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (a.nch > 0) {
    const int g1 = BTETgtGrid(a.nch, block);
    if (mode == TGT_VALUE) bte_tgt_pass1<TGT_VALUE><<<g1, block, 0, s>>>(a, f, x, d->sc_col, d->sc_col2);
    else if (mode == TGT_JACOBIAN) bte_tgt_pass1<TGT_JACOBIAN><<<g1, block, 0, s>>>(a, f, x, d->sc_col, d->sc_col2);
    else bte_tgt_pass1<TGT_DIAGONAL><<<g1, block, 0, s>>>(a, f, x, d->sc_col, d->sc_col2);
    PetscCallCUDA(cudaGetLastError());
  }
  if (d->h.nlocal > 0) {
    bte_tgt_pass2<<<BTETgtGrid(d->h.nlocal, block), block, 0, s>>>((int)d->h.nlocal, d->targets, d->sources, d->sc_col, mode == TGT_DIAGONAL ? d->sc_col2 : NULL, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(Y, &y));
  if (xl) PetscCall(VecCUDARestoreArrayRead(xl, &x));
  PetscCall(VecCUDARestoreArrayRead(fl, &f));
  PetscCall(PetscLogGpuFlops((27.0 + (d->hwch ? 4.0 : 0.0) + (mode == TGT_VALUE ? 0.0 : 8.0)) * (PetscLogDouble)d->h.nch + (PetscLogDouble)d->nsrc));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDAApply(BTETgtCUDA d, Vec fl, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(BTETgtCUDARun(d, TGT_VALUE, fl, NULL, Y));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDAJacobianApply(BTETgtCUDA d, Vec fl, Vec xl, Vec Y)
{
  PetscFunctionBegin;
  PetscCall(BTETgtCUDARun(d, TGT_JACOBIAN, fl, xl, Y));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDAJacobianDiagonal(BTETgtCUDA d, Vec fl, Vec D)
{
  PetscFunctionBegin;
  PetscCall(BTETgtCUDARun(d, TGT_DIAGONAL, fl, NULL, D));
  PetscFunctionReturn(0);
}
