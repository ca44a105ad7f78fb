/* tgt on CUDA: Perturbo v3's two passes as its GPU build runs them (tgtlayout.h has the layout,
   tgt.c the CPU reference, tgt_build_cuda.cu the device build).

   Pass 1: one thread per channel writes one value per channel into sc_col (x_c, or its Jacobian
   counterparts). Pass 2: each target (owned state) sums its signed sources (+ for the i end, - for
   the j end), in the layout's order of targets (decreasing source count with
   -bte_tgt_sort_targets, Perturbo's CDYN_SORT_SCAT_TGTS). No atomics; both passes are
   deterministic for a given launch configuration.

   What this version does beyond a literal transcription, each keeping the two-pass structure
   (one value per channel written in pass 1, a per-target gather in pass 2):
   - pass 2 sums a target's sources with a warp (or 2-8 warps) instead of one thread: Perturbo's
     OpenACC loop nest does the same (`!$acc parallel loop` over targets is the gang loop, the
     inner `!$acc loop reduction(+:total)` over sources the vector loop). With one thread per
     target a GaAs 90^3 apply has 23,292 threads, each walking ~9,500 sources serially: a tenth of
     the GPU busy, every load a dependent miss. A group reads its row of sources coalesced, keeps
     4 gathers in flight per lane, and reduces with shuffles (shared memory across warps).
     -bte_tgt_lanes 1 keeps the thread-per-target kernel; the default picks the group size from
     the number of targets and their mean length (bte_tgt_auto_lanes);
   - 32-bit indices throughout (channels < 2^31, sources < 2^32 per rank: checked at setup), one
     thread per channel with no grid-stride loop, 256-thread blocks;
   - the packed band index is decoded with shifts and masks (tgtlayout.h), the (hw, N) of a
     phonon is one 16-byte load, and N is tabulated (Perturbo evaluates bose() per channel);
   - the kernels are templated on the mode, on STORE_G2DT and on per-channel hw, so a channel
     runs no branch on them and, with STORE_G2DT, reads neither energies nor the phonon energy.
   Read-only arrays go through the read-only data path (__ldg, const __restrict__). */
#include <bte/private/collisioncuda_device.h>

struct _n_BTETgtCUDA {
  BTETgtLayout   h; /* sizes and flags (host pointers not kept) */
  double         pref, inveta, gnorm, kT, kTdb;
  int32_t       *scatter, *pairidx, *bands, *kb2state, *sources;
  double        *g2, *hwch, *energy;
  double2       *g2dt, *wqn;
  uint4         *rec; /* nlocal: (target, first source, number of sources, 0), in pass-2 order */
  double        *sc_col, *sc_col2;
  int            lanes;
  PetscLogDouble bytes;
};

enum { TGT_VALUE = 0, TGT_JACOBIAN = 1, TGT_DIAGONAL = 2 };

struct BTETgtArgs {
  int            nch, nb, nm, bb;
  double         pref, inveta, gnorm, kT, kTdb;
  const int32_t *scatter, *pairidx, *bands, *kb;
  const double  *g2, *hwch, *e;
  const double2 *g2dt, *wqn;
};

/* Pass 1: x_c (MODE 0), dx_c (1), or dx_c/df_i and -dx_c/df_j (2) of channel s; formulas and
   operation order of collisionimpl.h. */
template <int MODE, bool G2DT, bool HWCH>
__global__ void __launch_bounds__(256) bte_tgt_pass1(const BTETgtArgs a, const double *__restrict__ f, const double *__restrict__ x, double *__restrict__ sc, double *__restrict__ sc2)
{
  const int s = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (s >= a.nch) return;
  /* channels of a pair are adjacent: a warp reads a few 12-byte scatter records (L1 hits) */
  const int32_t  p = __ldg(a.pairidx + s), pk = __ldg(a.bands + s);
  const int32_t *r = a.scatter + 3 * (long long)p;
  const int32_t  ik = __ldg(r), ikq = __ldg(r + 1);
  const int32_t  md = BTE_TGT_MODE(pk, a.bb), n = BTE_TGT_N(pk, a.bb), m = BTE_TGT_M(pk, a.bb);
  const int32_t  i = __ldg(a.kb + ik * a.nb + n), j = __ldg(a.kb + ikq * a.nb + m);
  const double   fi = __ldg(f + i), fj = __ldg(f + j);
  double         hw = 0.0, N, ga, gb;

  if (HWCH) {
    hw = __ldg(a.hwch + s);
    N  = bte_bose(hw, a.kT);
  } else if (G2DT) {
    N = __ldg((const double *)(a.wqn + (__ldg(r + 2) * a.nm + md)) + 1); /* N only */
  } else {
    const double2 w = __ldg(a.wqn + (__ldg(r + 2) * a.nm + md));
    hw              = w.x;
    N               = w.y;
  }
  if (G2DT) {
    const double2 ab = __ldg(a.g2dt + s); /* one 16-byte load: a_c, b_c */
    ga               = ab.x;
    gb               = ab.y;
  } else {
    const double d = __ldg(a.e + i) - __ldg(a.e + j), w = a.pref * __ldg(a.g2 + s);
    ga             = w * bte_gauss(d + hw, a.inveta, a.gnorm);
    gb             = w * bte_gauss(d - hw, a.inveta, a.gnorm);
    if (a.kTdb > 0) bte_balance(d, hw, a.kTdb, &ga, &gb);
  }
  if (MODE == TGT_VALUE) {
    const double Fabs = fi * (N + fj) - fj * (N + 1.0);
    const double Fem  = fi * (N + 1.0) - fj * (N + fi);
    sc[s]             = -(ga * Fabs + gb * Fem);
  } else {
    const double P = ga * N + gb * (N + 1.0), Q = ga * (N + 1.0) + gb * N;
    const double dxi = -(P * (1.0 - fj) + Q * fj), dxj = P * fi + Q * (1.0 - fi);
    if (MODE == TGT_JACOBIAN) sc[s] = dxi * __ldg(x + i) + dxj * __ldg(x + j);
    else {
      sc[s]  = dxi;
      sc2[s] = -dxj;
    }
  }
}

/* one source: + first[c] for an i end, - first[c] (or + second[c] for the diagonal) for a j end */
template <bool DIAG>
__device__ __forceinline__ double bte_tgt_term(int32_t v, const double *__restrict__ first, const double *__restrict__ second)
{
  const int32_t c = (v > 0 ? v : -v) - 1;
  if (DIAG) return __ldg((v > 0 ? first : second) + c);
  const double u = __ldg(first + c);
  return v > 0 ? u : -u;
}

/* Pass 2, one thread per target (-bte_tgt_lanes 1: the literal mapping, for which Perturbo sorts
   the targets so that a warp's threads walk rows of similar length) */
template <bool DIAG>
__global__ void __launch_bounds__(256) bte_tgt_pass2_thread(int nt, const uint4 *__restrict__ rec, const int32_t *__restrict__ src, const double *__restrict__ first, const double *__restrict__ second, double *__restrict__ y)
{
  const int k = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (k >= nt) return;
  const uint4 r = rec[k];
  double      s = 0.0;
  for (unsigned e = r.y; e < r.y + r.z; e++) s += bte_tgt_term<DIAG>(__ldg(src + e), first, second);
  y[r.x] = s;
}

/* Pass 2, W warps per target (blocks of 256 threads, 8/W targets each): the group reads its row
   of sources coalesced, each lane keeps 4 gathers in flight, shuffles reduce a warp and shared
   memory the W warps. */
template <int W, bool DIAG>
__global__ void __launch_bounds__(256) bte_tgt_pass2_group(int nt, const uint4 *__restrict__ rec, const int32_t *__restrict__ src, const double *__restrict__ first, const double *__restrict__ second, double *__restrict__ y)
{
  constexpr int G = 32 * W;
  __shared__ double part[8];
  const int g = (int)threadIdx.x / G, l = (int)threadIdx.x % G, k = (int)blockIdx.x * (256 / G) + g;
  double    s = 0.0;
  uint4     r = make_uint4(0, 0, 0, 0);

  if (k < nt) {
    r                  = rec[k];
    const unsigned end = r.y + r.z;
    unsigned       e   = r.y + (unsigned)l;
    for (; e + 3 * G < end; e += 4 * G) {
      const int32_t v0 = __ldg(src + e), v1 = __ldg(src + e + G), v2 = __ldg(src + e + 2 * G), v3 = __ldg(src + e + 3 * G);
      const double  t0 = bte_tgt_term<DIAG>(v0, first, second), t1 = bte_tgt_term<DIAG>(v1, first, second);
      const double  t2 = bte_tgt_term<DIAG>(v2, first, second), t3 = bte_tgt_term<DIAG>(v3, first, second);
      s += (t0 + t1) + (t2 + t3);
    }
    for (; e < end; e += G) s += bte_tgt_term<DIAG>(__ldg(src + e), first, second);
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
  if (W > 1) { /* every thread of the block reaches the barrier (W is a constant) */
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (l == 0) {
      s = 0.0;
      for (int w = 0; w < W; w++) s += part[g * W + w];
    }
  }
  if (l == 0 && k < nt) y[r.x] = s;
}

/* Threads per target in pass 2: a warp while there are enough targets to fill the device twice
   over (64 resident warps per SM); more warps per target (up to 8) while there are not and each
   lane still gets >= 8 sources; a thread per target when rows are very short. */
static PetscErrorCode bte_tgt_auto_lanes(int64_t nt, int64_t nentries, int *lanes)
{
  int     dev, nsm = 0, W = 1;
  int64_t slots;
  double  mean = nt > 0 ? (double)nentries / (double)nt : 0.0;

  PetscFunctionBegin;
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
  slots = (int64_t)PetscMax(nsm, 1) * 64;
  if (mean < 8.0) {
    *lanes = 1;
    PetscFunctionReturn(0);
  }
  while (W < 8 && nt * W < 2 * slots && mean >= 512.0 * W) W *= 2;
  *lanes = 32 * W;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDACreateWith(const BTETgtLayout *L, const BTETgtCUDAInfo *info, int32_t *scatter, int32_t *pairidx, int32_t *bands, double *g2, double2 *g2dt, double *hwch, int32_t *sources, BTETgtCUDA *dev)
{
  BTETgtCUDA d;
  uint4     *rec;
  size_t     nq = (size_t)L->nqc * L->nmodes;

  PetscFunctionBegin;
  PetscCheck(L->nch < (int64_t)INT32_MAX && L->nentries <= (int64_t)UINT32_MAX - 4096 && (int64_t)L->nqc * L->nmodes < (int64_t)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt CUDA: the layout exceeds its 32-bit indices");
  PetscCall(PetscNew(&d));
  d->h          = *L;
  d->h.scatter  = d->h.pairidx = d->h.bands = d->h.kb2state = d->h.order = d->h.sources = NULL;
  d->h.g2       = d->h.g2dt = d->h.wqn = d->h.hwch = NULL;
  d->h.rowptr   = NULL;
  d->pref       = info->pref;
  d->inveta     = info->inveta;
  d->gnorm      = info->gnorm;
  d->kT         = info->kT;
  d->kTdb       = info->kTdb;
  d->scatter    = scatter;
  d->pairidx    = pairidx;
  d->bands      = bands;
  d->g2         = g2;
  d->g2dt       = g2dt;
  d->hwch       = hwch;
  d->sources    = sources;
  d->bytes      = (PetscLogDouble)L->npair * 3 * sizeof(int32_t) + (PetscLogDouble)L->nch * (2 * sizeof(int32_t) + (L->store_g2dt ? sizeof(double2) : sizeof(double)) + (L->hw_per_channel ? sizeof(double) : 0)) + (PetscLogDouble)L->nentries * sizeof(int32_t);
  PetscCall(BTECollCUDAUpload(L->kb2state, (size_t)L->nkp * L->nbands, &d->kb2state, &d->bytes));
  PetscCall(BTECollCUDAUpload(info->energy, (size_t)L->n, &d->energy, &d->bytes));
  PetscCall(BTECollCUDAUpload((const double2 *)L->wqn, nq, &d->wqn, &d->bytes));
  PetscCall(PetscMalloc1(PetscMax(L->nlocal, 1), &rec));
  for (int32_t k = 0; k < L->nlocal; k++) {
    const int32_t t = L->order[k];
    rec[k]          = make_uint4((unsigned)t, (unsigned)L->rowptr[t], (unsigned)(L->rowptr[t + 1] - L->rowptr[t]), 0u);
  }
  PetscCall(BTECollCUDAUpload(rec, (size_t)L->nlocal, &d->rec, &d->bytes));
  PetscCall(PetscFree(rec));
  if (L->nch > 0) {
    PetscCallCUDA(cudaMalloc((void **)&d->sc_col, (size_t)L->nch * sizeof(double)));
    d->bytes += (PetscLogDouble)L->nch * sizeof(double);
  }
  d->lanes = (int)info->lanes;
  if (!d->lanes) PetscCall(bte_tgt_auto_lanes(L->nlocal, L->nentries, &d->lanes));
  PetscCall(PetscInfo(NULL, "tgt CUDA: %d thread(s) per target in pass 2 (%d targets, %.1f sources each on average)\n", d->lanes, (int)L->nlocal, L->nlocal ? (double)L->nentries / L->nlocal : 0.0));
  *dev = d;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDACreate(const BTETgtLayout *L, const BTETgtCUDAInfo *info, BTETgtCUDA *dev)
{
  int32_t *scatter, *pairidx, *bands, *sources;
  double  *g2 = NULL, *hwch = NULL;
  double2 *g2dt = NULL;

  PetscFunctionBegin;
  PetscCall(BTECollCUDARegisterEvents());
  PetscCall(PetscLogEventBegin(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscCall(BTECollCUDAUpload(L->scatter, 3 * (size_t)L->npair, &scatter, NULL));
  PetscCall(BTECollCUDAUpload(L->pairidx, (size_t)L->nch, &pairidx, NULL));
  PetscCall(BTECollCUDAUpload(L->bands, (size_t)L->nch, &bands, NULL));
  if (L->store_g2dt) PetscCall(BTECollCUDAUpload((const double2 *)L->g2dt, (size_t)L->nch, &g2dt, NULL));
  else PetscCall(BTECollCUDAUpload(L->g2, (size_t)L->nch, &g2, NULL));
  if (L->hw_per_channel) PetscCall(BTECollCUDAUpload(L->hwch, (size_t)L->nch, &hwch, NULL));
  PetscCall(BTECollCUDAUpload(L->sources, (size_t)L->nentries, &sources, NULL));
  PetscCall(BTETgtCUDACreateWith(L, info, scatter, pairidx, bands, g2, g2dt, hwch, sources, dev));
  PetscCall(PetscLogEventEnd(BTECOLL_CUDAUpload, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

template <typename T>
static PetscErrorCode BTETgtDownloadArray(const T *src, size_t n, T *dst)
{
  PetscFunctionBegin;
  if (n) {
    PetscCallCUDA(cudaMemcpy(dst, src, n * sizeof(T), cudaMemcpyDeviceToHost));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(n * sizeof(T))));
  }
  PetscFunctionReturn(0);
}

/* host copies of the per-channel arrays (allocated as tgt.c frees them) */
PetscErrorCode BTETgtCUDADownload(BTETgtCUDA d, BTETgtLayout *L)
{
  const size_t nch = (size_t)L->nch;

  PetscFunctionBegin;
  PetscCheck(d, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt: no device layout to download");
  PetscCall(PetscMalloc1(3 * PetscMax((size_t)L->npair, 1), &L->scatter));
  PetscCall(PetscMalloc2(PetscMax(nch, 1), &L->pairidx, PetscMax(nch, 1), &L->bands));
  PetscCall(PetscMalloc1(PetscMax((size_t)L->nentries, 1), &L->sources));
  PetscCall(BTETgtDownloadArray(d->scatter, 3 * (size_t)L->npair, L->scatter));
  PetscCall(BTETgtDownloadArray(d->pairidx, nch, L->pairidx));
  PetscCall(BTETgtDownloadArray(d->bands, nch, L->bands));
  PetscCall(BTETgtDownloadArray(d->sources, (size_t)L->nentries, L->sources));
  if (L->store_g2dt) {
    PetscCall(PetscMalloc1(2 * PetscMax(nch, 1), &L->g2dt));
    PetscCall(BTETgtDownloadArray(d->g2dt, nch, (double2 *)L->g2dt));
  } else {
    PetscCall(PetscMalloc1(PetscMax(nch, 1), &L->g2));
    PetscCall(BTETgtDownloadArray(d->g2, nch, L->g2));
  }
  if (L->hw_per_channel) {
    PetscCall(PetscMalloc1(PetscMax(nch, 1), &L->hwch));
    PetscCall(BTETgtDownloadArray(d->hwch, nch, L->hwch));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDADestroy(BTETgtCUDA *dev)
{
  BTETgtCUDA d = *dev;

  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree(d->scatter));
  PetscCallCUDA(cudaFree(d->pairidx));
  PetscCallCUDA(cudaFree(d->bands));
  PetscCallCUDA(cudaFree(d->g2));
  PetscCallCUDA(cudaFree(d->g2dt));
  PetscCallCUDA(cudaFree(d->hwch));
  PetscCallCUDA(cudaFree(d->wqn));
  PetscCallCUDA(cudaFree(d->kb2state));
  PetscCallCUDA(cudaFree(d->energy));
  PetscCallCUDA(cudaFree(d->rec));
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

template <int MODE>
static void bte_tgt_launch_pass1(const BTETgtArgs &a, bool g2dt, bool hwch, unsigned grid, cudaStream_t s, const double *f, const double *x, double *sc, double *sc2)
{
  if (hwch) {
    if (g2dt) bte_tgt_pass1<MODE, true, true><<<grid, 256, 0, s>>>(a, f, x, sc, sc2);
    else bte_tgt_pass1<MODE, false, true><<<grid, 256, 0, s>>>(a, f, x, sc, sc2);
  } else {
    if (g2dt) bte_tgt_pass1<MODE, true, false><<<grid, 256, 0, s>>>(a, f, x, sc, sc2);
    else bte_tgt_pass1<MODE, false, false><<<grid, 256, 0, s>>>(a, f, x, sc, sc2);
  }
}

template <bool DIAG>
static void bte_tgt_launch_pass2(int lanes, int nt, cudaStream_t s, const uint4 *rec, const int32_t *src, const double *first, const double *second, double *y)
{
  const unsigned gt = (unsigned)((nt + 255) / 256);
  switch (lanes) {
  case 1:
    bte_tgt_pass2_thread<DIAG><<<gt, 256, 0, s>>>(nt, rec, src, first, second, y);
    break;
  case 64:
    bte_tgt_pass2_group<2, DIAG><<<(unsigned)((nt + 3) / 4), 256, 0, s>>>(nt, rec, src, first, second, y);
    break;
  case 128:
    bte_tgt_pass2_group<4, DIAG><<<(unsigned)((nt + 1) / 2), 256, 0, s>>>(nt, rec, src, first, second, y);
    break;
  case 256:
    bte_tgt_pass2_group<8, DIAG><<<(unsigned)nt, 256, 0, s>>>(nt, rec, src, first, second, y);
    break;
  default:
    bte_tgt_pass2_group<1, DIAG><<<(unsigned)((nt + 7) / 8), 256, 0, s>>>(nt, rec, src, first, second, y);
  }
}

/* Both passes; x only for the Jacobian. Flops as tgt.c counts them. */
PetscErrorCode BTETgtCUDARun(BTETgtCUDA d, int mode, Vec fl, Vec xl, Vec Y)
{
  const PetscScalar *f, *x = NULL;
  PetscScalar       *y;
  cudaStream_t       s;
  PetscInt           n;
  BTETgtArgs         a;
  const bool         g2dt = d->h.store_g2dt != 0, hwch = d->h.hw_per_channel != 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(fl, &n));
  PetscCheck(n == d->h.n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Local vector has %" PetscInt_FMT " entries, expected owned + ghosts = %d", n, (int)d->h.n);
  PetscCall(VecGetLocalSize(Y, &n));
  PetscCheck(n == d->h.nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output Vec has %" PetscInt_FMT " local entries, expected %d", n, (int)d->h.nlocal);
  if (mode == TGT_DIAGONAL && !d->sc_col2 && d->h.nch > 0) {
    PetscCallCUDA(cudaMalloc((void **)&d->sc_col2, (size_t)d->h.nch * sizeof(double)));
    d->bytes += (PetscLogDouble)d->h.nch * sizeof(double);
  }
  a.nch     = (int)d->h.nch;
  a.nb      = (int)d->h.nbands;
  a.nm      = (int)d->h.nmodes;
  a.bb      = (int)d->h.bbits;
  a.pref    = d->pref;
  a.inveta  = d->inveta;
  a.gnorm   = d->gnorm;
  a.kT      = d->kT;
  a.kTdb    = d->kTdb;
  a.scatter = d->scatter;
  a.pairidx = d->pairidx;
  a.bands   = d->bands;
  a.kb      = d->kb2state;
  a.g2      = d->g2;
  a.hwch    = d->hwch;
  a.e       = d->energy;
  a.g2dt    = d->g2dt;
  a.wqn     = d->wqn;
  PetscCall(VecCUDAGetArrayRead(fl, &f));
  if (xl) PetscCall(VecCUDAGetArrayRead(xl, &x));
  PetscCall(VecCUDAGetArrayWrite(Y, &y));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  if (a.nch > 0) {
    const unsigned g1 = (unsigned)((a.nch + 255) / 256);
    if (mode == TGT_VALUE) bte_tgt_launch_pass1<TGT_VALUE>(a, g2dt, hwch, g1, s, f, x, d->sc_col, d->sc_col2);
    else if (mode == TGT_JACOBIAN) bte_tgt_launch_pass1<TGT_JACOBIAN>(a, g2dt, hwch, g1, s, f, x, d->sc_col, d->sc_col2);
    else bte_tgt_launch_pass1<TGT_DIAGONAL>(a, g2dt, hwch, g1, s, f, x, d->sc_col, d->sc_col2);
    PetscCallCUDA(cudaGetLastError());
  }
  if (d->h.nlocal > 0) {
    if (mode == TGT_DIAGONAL) bte_tgt_launch_pass2<true>(d->lanes, (int)d->h.nlocal, s, d->rec, d->sources, d->sc_col, d->sc_col2, y);
    else bte_tgt_launch_pass2<false>(d->lanes, (int)d->h.nlocal, s, d->rec, d->sources, d->sc_col, NULL, y);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  PetscCall(VecCUDARestoreArrayWrite(Y, &y));
  if (xl) PetscCall(VecCUDARestoreArrayRead(xl, &x));
  PetscCall(VecCUDARestoreArrayRead(fl, &f));
  PetscCall(PetscLogGpuFlops((13.0 + (g2dt ? 0.0 : 14.0) + (hwch ? 4.0 : 0.0) + (mode == TGT_VALUE ? 0.0 : 8.0)) * (PetscLogDouble)d->h.nch + (PetscLogDouble)d->h.nentries));
  PetscFunctionReturn(0);
}
