/* Model "perturbo": a real material from Perturbo's prefix_epr.h5 (docs/import.md).

   The epr file holds H(R), the force constants and the e-ph couplings in a Wannier basis
   (epr_read.c); this generator interpolates them (epr_interp.c) onto the fine k grid and hands
   bands and couplings to the generic builder (build.c), which applies Perturbo's selection rules
   (docs/theory.md section 2) and makes the states and channels, in memory or streamed to a table.

   Steps (every rank does the same; the caches are replicated):
   1. bands at every point of the k grid -> band edge and the window; the k points with a state
      in the window;
   2. for those k points: the eigenvectors U_k and the electron-side Fourier sum of the couplings
      (sum over Re of e^{ik.Re} g(Re, Rp), one array per k);
   3. for every point of the q grid: phonon frequencies, displacement patterns and the
      long-range (Frohlich) vertex (computed for one of q and -q, the other by conjugation);
   4. per pair of states (the builder's search): the phonon-side sum over Rp, the long-range
      term, the rotation to the Bloch bands (m at k+q, n at k) and the mode projection, for the
      modes that pass the energy test only; |g|^2 = |g_nu|^2 / (2 omega_nu), Perturbo's eph_g2.
   Units: the file's Rydberg atomic units, converted to eV, Angstrom and fs on the way out. */
#include <bte/private/modelimpl.h>
#include <bte/private/epr.h>
#include <bte/private/validate.h>
#include <bte/private/eprcuda.h>
#include <dlfcn.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

#define BOHR_A 0.529177210903 /* Angstrom */

typedef struct {
  BTEEpr      epr;
  PetscInt    dim, nk[3], nq[3], qs[3]; /* k grid, q grid, nk/nq */
  PetscInt    bmin, nb, carrier;
  PetscReal   lat[9];                   /* Angstrom, rows (2D: a3 = unit normal) */
  PetscReal   vconv;                    /* Ry bohr -> Angstrom/fs */
  PetscReal   tol, hwmin, g2fac;        /* eV, eV, Ry^2 -> eV^2 times Nk/Nq */
  PetscInt    nm, nw;
  /* k cache */
  PetscInt   *kslot; /* per k point of the grid: slot, or -1 */
  PetscInt    nslot, gksize;
  PetscReal  *U, *gk;
  /* q cache (q grid) */
  PetscReal  *om, *u, *glr;
  /* per thread */
  PetscInt    nthr;
  BTEEprWork *work;
  PetscReal  *gw, *gmn, *ev, *vv;
  PetscInt64 *neval; /* per thread (stride 8, no false sharing): pairs whose coupling was computed */
  double     *tbatch; /* per thread (stride 8): seconds in the batch callback (-info: host listing against the GPU's call) */
  PetscInt64 *key;   /* per thread (stride 8): (k slot, k+q slot) whose vertex gw holds; the search
                        meets the bands of one k point one after the other */
  /* couplings evaluated in batches (coupling_grid_batch): per q point the phonon energies (eV) and
     the modes sorted by them (hvalid: the non-NaN ones, first), so that the energy test of a pair is
     a bisection; per thread a mask over the modes and, for the GPU, the live pairs of a batch */
  PetscReal     *hwq;
  int32_t       *hsort, *hvalid;
  unsigned char *hmask;
  int32_t       *bidx, *bqi;
  PetscReal     *bq;
  PetscInt      *bmoff;
#if defined(BTE_HAVE_CUDA)
  BTEEprCUDA  gpu; /* the caches on the device (-bte_perturbo_device) */
#endif
} Perturbo;

/* Where the couplings of the pairs of states are evaluated */
typedef enum {
  PERTURBO_DEVICE_AUTO,
  PERTURBO_DEVICE_HOST,
  PERTURBO_DEVICE_DEVICE,
  PERTURBO_DEVICE_HOST_BATCH
} PerturboDevice;
static const char *const PerturboDevices[] = {"auto", "host", "device", "host_batch", "PerturboDevice", "PERTURBO_DEVICE_", NULL};
#define PERTURBO_BATCH 4096 /* build.c hands over at most this many pairs at once (BTE_PAIR_BATCH) */

static inline int ThreadId(void)
{
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

static inline PetscInt Flat(const Perturbo *p, const PetscInt i[3])
{
  return (i[0] * p->nk[1] + i[1]) * p->nk[2] + i[2];
}

/* Grid indices of a Cartesian k of the grid (1/Angstrom; any zone) */
static inline void GridIndex(const Perturbo *p, const PetscReal k[3], PetscInt i[3])
{
  for (int a = 0; a < 3; a++) {
    PetscReal f = (k[0] * p->lat[3 * a] + k[1] * p->lat[3 * a + 1] + k[2] * p->lat[3 * a + 2]) * p->nk[a] / (2 * PETSC_PI);
    PetscInt  n = (PetscInt)PetscFloorReal(f + 0.5) % p->nk[a];
    i[a]        = n < 0 ? n + p->nk[a] : n;
  }
}

/* Energies (eV, table convention) and velocities (Angstrom/fs) of the selected bands at grid point i */
static int BandsAt(const Perturbo *p, BTEEprWork w, const PetscInt i[3], PetscReal e[], PetscReal v[], PetscReal *evb, PetscReal *vvb)
{
  PetscReal k[3];
  for (int a = 0; a < 3; a++) k[a] = (PetscReal)i[a] / p->nk[a];
  if (BTEEprBands(p->epr, w, k, evb, NULL, v ? vvb : NULL)) return 1;
  for (PetscInt n = 0; n < p->nb; n++) {
    PetscReal s = p->carrier > 0 ? -1.0 : 1.0;
    e[n]        = s * evb[p->bmin + n] * BTE_RY_EV;
    if (v)
      for (int a = 0; a < 3; a++) v[3 * n + a] = s * vvb[3 * (p->bmin + n) + a] * p->vconv;
  }
  return 0;
}

static PetscErrorCode PerturboBands(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[])
{
  const Perturbo *p = (const Perturbo *)ctx;
  int             t = ThreadId();
  PetscInt        i[3];

  GridIndex(p, k, i);
  return BandsAt(p, p->work[t], i, e, v, p->ev + t * p->nw, p->vv + 3 * t * p->nw);
}

/* Whether grid offset iq[] is on the q grid: then *qi the q point and q[] its crystal coordinates */
static inline int QPoint(const Perturbo *p, const PetscInt iq[3], PetscInt *qi, PetscReal q[3])
{
  PetscInt i = 0;
  for (int a = 0; a < 3; a++) {
    if (iq[a] % p->qs[a]) return 0; /* q not on the q grid */
    i    = i * p->nq[a] + iq[a] / p->qs[a];
    q[a] = (PetscReal)iq[a] / p->nk[a];
  }
  *qi = i;
  return 1;
}

/* The tests of a pair of states before any coupling is computed (PerturboCoupling): hw[] of the
   modes and g2[] = 0; returns whether q is on the q grid and a mode passes the energy test, with
   *qi the q point and q[] its crystal coordinates */
static inline int PerturboPairModes(const Perturbo *p, const PetscInt iq[3], PetscReal de, PetscReal hw[], PetscReal g2[], PetscInt *qi, PetscReal q[3])
{
  const PetscReal *om;
  int              any = 0;

  for (PetscInt nu = 0; nu < p->nm; nu++) hw[nu] = g2[nu] = 0;
  if (!QPoint(p, iq, qi, q)) return 0;
  om = p->om + (size_t)*qi * p->nm;
  for (PetscInt nu = 0; nu < p->nm; nu++) {
    hw[nu] = om[nu] * BTE_RY_EV;
    if (hw[nu] >= p->hwmin && PetscAbsReal(de - hw[nu]) < p->tol) any = 1;
  }
  return any;
}

/* The modes of q point qi that pass PerturboPairModes' energy test (hw >= hwmin, |de - hw| < tol)
   for the energy difference de, in increasing order, into list[]; returns how many. The test holds
   on one run of the modes sorted by hw: de - hw, rounded, does not grow with hw, so each of
   "hw >= hwmin and de - hw < tol" and "de - hw > -tol" changes once along the sorted modes; two
   bisections find the run, in a few steps instead of a pass over every mode. */
static inline PetscInt PassingModes(const Perturbo *p, int t, PetscInt qi, PetscReal de, PetscInt list[])
{
  const PetscReal *h = p->hwq + (size_t)qi * p->nm;
  const int32_t   *o = p->hsort + (size_t)qi * p->nm;
  PetscInt         a = 0, b = p->hvalid[qi], lo, k;

  while (a < b) {
    PetscInt  c = a + (b - a) / 2;
    PetscReal w = h[o[c]];
    if (w >= p->hwmin && de - w < p->tol) b = c;
    else a = c + 1;
  }
  lo = a;
  b  = p->hvalid[qi];
  while (a < b) {
    PetscInt c = a + (b - a) / 2;
    if (de - h[o[c]] > -p->tol) a = c + 1;
    else b = c;
  }
  k = a - lo;
  if (k <= 16) { /* a few: insertion sort into mode order */
    for (PetscInt r = 0; r < k; r++) {
      PetscInt nu = o[lo + r], x = r;
      for (; x > 0 && list[x - 1] > nu; x--) list[x] = list[x - 1];
      list[x] = nu;
    }
  } else { /* many (dense low modes, small de): mark them, read them off in order */
    unsigned char *mask = p->hmask + (size_t)t * p->nm;
    PetscInt       x    = 0;
    for (PetscInt r = lo; r < lo + k; r++) mask[o[r]] = 1;
    for (PetscInt nu = 0; nu < p->nm; nu++)
      if (mask[nu]) {
        mask[nu]  = 0;
        list[x++] = nu;
      }
  }
  return k;
}

/* g2[r] (eV^2) of the modes list[r] (r < nl) of the pair (n, k) -> (m, k + q), q the q grid's point
   qi (crystal coordinates q[]): the Wannier-gauge vertex of (k, q) (kept per thread while the pairs
   share k and k + q), the long-range part on its diagonal, the rotation to the Bloch bands and the
   projection on the listed modes. The host's couplings, pair by pair or in batches. */
static int PerturboPairG2(const Perturbo *p, int t, PetscInt n, const PetscInt ik[3], PetscInt m, const PetscInt ikp[3], PetscInt qi, const PetscReal q[3], PetscInt nl, const PetscInt list[], PetscReal g2[])
{
  const PetscInt   nm = p->nm, nw = p->nw;
  PetscInt         sk, skq;
  const PetscReal *om, *u, *gl, *Uk, *Ukq;
  PetscReal       *gw = p->gw + (size_t)t * 2 * nw * nw * nm, *gmn = p->gmn + (size_t)t * 2 * nm;
  PetscInt         nn = n + p->bmin, mm = m + p->bmin;

  om  = p->om + (size_t)qi * nm;
  sk  = p->kslot[Flat(p, ik)];
  skq = p->kslot[Flat(p, ikp)];
  if (sk < 0 || skq < 0) return 1; /* cannot happen: both states are in the window */
  gl = p->glr + (size_t)qi * 2 * nm;
  if (p->key[8 * t] != sk || p->key[8 * t + 1] != skq) {
    /* the Wannier-gauge vertex of (k, q), long-range part on the diagonal */
    if (BTEEprCouplingKQ(p->epr, p->work[t], p->gk + (size_t)sk * p->gksize, q, gw)) return 1;
    for (PetscInt iw = 0; iw < nw; iw++)
      for (PetscInt mu = 0; mu < 2 * nm; mu++) gw[2 * (iw * nw + iw) * nm + mu] += gl[mu];
    p->key[8 * t]     = sk;
    p->key[8 * t + 1] = skq;
  }
  u   = p->u + (size_t)qi * 2 * nm * nm;
  Uk  = p->U + (size_t)sk * 2 * nw * nw;
  Ukq = p->U + (size_t)skq * 2 * nw * nw;
  /* g_mn(mu) = sum_{iw,jw} conj(Ukq(iw,m)) Uk(jw,n) gw(iw,jw,mu) */
  for (PetscInt mu = 0; mu < nm; mu++) gmn[2 * mu] = gmn[2 * mu + 1] = 0;
  for (PetscInt iw = 0; iw < nw; iw++)
    for (PetscInt jw = 0; jw < nw; jw++) {
      PetscReal ar = Ukq[2 * (iw + mm * nw)], ai = -Ukq[2 * (iw + mm * nw) + 1], br = Uk[2 * (jw + nn * nw)], bi = Uk[2 * (jw + nn * nw) + 1];
      PetscReal cr = ar * br - ai * bi, ci = ar * bi + ai * br;
      const PetscReal *g = gw + 2 * (iw * nw + jw) * nm;
      for (PetscInt mu = 0; mu < nm; mu++) {
        PetscReal xr = g[2 * mu], xi = g[2 * mu + 1];
        gmn[2 * mu] += cr * xr - ci * xi;
        gmn[2 * mu + 1] += cr * xi + ci * xr;
      }
    }
  for (PetscInt r = 0; r < nl; r++) {
    PetscInt         nu = list[r];
    PetscReal        sr = 0, si = 0;
    const PetscReal *un = u + 2 * nu * nm;
    for (PetscInt mu = 0; mu < nm; mu++) {
      sr += gmn[2 * mu] * un[2 * mu] - gmn[2 * mu + 1] * un[2 * mu + 1];
      si += gmn[2 * mu] * un[2 * mu + 1] + gmn[2 * mu + 1] * un[2 * mu];
    }
    g2[r] = (sr * sr + si * si) / (2 * om[nu]) * p->g2fac;
  }
  return 0;
}

static PetscErrorCode PerturboCoupling(void *ctx, PetscInt n, const PetscInt ik[3], PetscReal en, PetscInt m, const PetscInt ikp[3], PetscReal em, const PetscInt iq[3], PetscReal hw[], PetscReal g2[])
{
  const Perturbo *p  = (const Perturbo *)ctx;
  int             t  = ThreadId();
  PetscInt        qi = 0, nl = 0, list[BTE_MAX_MODES];
  PetscReal       q[3], de = PetscAbsReal(en - em), g2l[BTE_MAX_MODES];

  if (!PerturboPairModes(p, iq, de, hw, g2, &qi, q)) return 0;
  p->neval[8 * t]++;
  for (PetscInt nu = 0; nu < p->nm; nu++)
    if (hw[nu] >= p->hwmin && PetscAbsReal(de - hw[nu]) < p->tol) list[nl++] = nu;
  if (PerturboPairG2(p, t, n, ik, m, ikp, qi, q, nl, list, g2l)) return 1;
  for (PetscInt r = 0; r < nl; r++) g2[list[r]] = g2l[r];
  return 0;
}

/* The couplings of a batch of pairs (coupling_grid_batch), sparse: per pair the modes that pass the
   energy test (PassingModes), their hw and g2, the same values as PerturboCoupling's. On the device
   (the pairs with a passing mode go there together, with the list of their modes, whose g2 come
   back in the list's order: straight into g2[]) or, host_batch, by PerturboPairG2: the batch path
   without a GPU, for tests. */
static int PerturboCouplingBatch(void *ctx, PetscInt np, const BTEModelPair *pr, PetscInt moff[], PetscInt mode[], PetscReal hw[], PetscReal g2[])
{
  Perturbo      *p  = (Perturbo *)ctx;
  const PetscInt nm = p->nm;
  int            t  = ThreadId();
  PetscInt       nmode = 0;
#if defined(BTE_HAVE_CUDA)
  int32_t   *idx = p->gpu ? p->bidx + (size_t)t * 4 * PERTURBO_BATCH : NULL, *qis = p->gpu ? p->bqi + (size_t)t * PERTURBO_BATCH : NULL;
  PetscReal *qs = p->gpu ? p->bq + (size_t)t * 3 * PERTURBO_BATCH : NULL;
  PetscInt  *lmoff = p->gpu ? p->bmoff + (size_t)t * (PERTURBO_BATCH + 1) : NULL, nl = 0;
#endif

  if (np > PERTURBO_BATCH) return 1;
#if defined(_OPENMP)
  const double tb0 = omp_get_wtime();
#endif
  for (PetscInt c = 0; c < np; c++) {
    PetscReal de = PetscAbsReal(pr[c].en - pr[c].em), q[3];
    PetscInt  qi = 0, k, *md = mode + nmode;

    moff[c] = nmode;
    if (!QPoint(p, pr[c].iq, &qi, q)) continue;
    k = PassingModes(p, t, qi, de, md);
    if (!k) continue;
    for (PetscInt r = 0; r < k; r++) hw[nmode + r] = p->hwq[(size_t)qi * nm + md[r]];
    p->neval[8 * t]++;
#if defined(BTE_HAVE_CUDA)
    if (p->gpu) {
      idx[4 * nl]     = (int32_t)p->kslot[Flat(p, pr[c].ik)];
      idx[4 * nl + 1] = (int32_t)p->kslot[Flat(p, pr[c].ikp)];
      idx[4 * nl + 2] = (int32_t)(pr[c].n + p->bmin);
      idx[4 * nl + 3] = (int32_t)(pr[c].m + p->bmin);
      if (idx[4 * nl] < 0 || idx[4 * nl + 1] < 0) return 1;
      qis[nl] = (int32_t)qi;
      for (int a = 0; a < 3; a++) qs[3 * nl + a] = q[a];
      lmoff[nl++] = nmode;
      nmode += k;
      continue;
    }
#endif
    if (PerturboPairG2(p, t, pr[c].n, pr[c].ik, pr[c].m, pr[c].ikp, qi, q, k, md, g2 + nmode)) return 1;
    nmode += k;
  }
  moff[np] = nmode;
#if defined(_OPENMP)
  p->tbatch[8 * t] += omp_get_wtime() - tb0;
#endif
#if defined(BTE_HAVE_CUDA)
  if (p->gpu) {
    lmoff[nl] = nmode;
    return BTEEprCUDACouplings(p->gpu, t, nl, idx, qis, qs, lmoff, mode, g2);
  }
#endif
  return 0;
}

#if defined(BTE_HAVE_CUDA)
/* The channels on the device (modelimpl.h's channels_count, channels_fill; epr_channels_cuda.cu) */
static PetscErrorCode PerturboChannelsCount(void *ctx, BTE bte, const BTEModelSearch *m, PetscCount *upper, PetscBool *ok)
{
  Perturbo        *p = (Perturbo *)ctx;
  BTEEprCUDASearch g;
  PetscCount       npairs;

  PetscFunctionBegin;
  g.n        = m->n;
  g.rstart   = m->rstart;
  g.rend     = m->rend;
  g.nbins    = m->nbins;
  g.kidx     = m->kidx;
  g.band     = m->band;
  g.ijk      = m->ijk;
  g.bin      = m->bin;
  g.binstart = m->binstart;
  g.binlist  = m->binlist;
  g.e        = m->e;
  g.W        = m->W;
  g.tol      = m->tol;
  g.hwmin    = m->hwmin;
  g.g2min    = m->g2min;
  g.g2max    = BTE_G2_MAX;
  g.hwbound  = BTE_PHONON_MAX;
  g.mtol     = p->tol;
  g.mhwmin   = p->hwmin;
  g.bmin     = p->bmin;
  g.kslot    = p->kslot;
  g.nktot    = p->nk[0] * p->nk[1] * p->nk[2];
  g.nqtot    = p->nq[0] * p->nq[1] * p->nq[2];
  g.hwq      = p->hwq;
  g.hsort    = p->hsort;
  g.hvalid   = p->hvalid;
  for (int a = 0; a < 3; a++) {
    PetscCheck(m->nk[a] == p->nk[a], PETSC_COMM_SELF, PETSC_ERR_PLIB, "the builder's k grid is not the model's");
    g.nk[a] = p->nk[a];
    g.nq[a] = p->nq[a];
    g.qs[a] = p->qs[a];
  }
  PetscCall(BTEEprCUDAChannelsCount(p->gpu, &g, upper, &npairs, ok));
  if (*ok) p->neval[0] += npairs;
  PetscFunctionReturn(0);
}

static PetscErrorCode PerturboChannelsFill(void *ctx, BTE bte, PetscCount *n, PetscCount *nlow, PetscBool *bad)
{
  Perturbo *p       = (Perturbo *)ctx;
  void     *pending = NULL;

  PetscFunctionBegin;
  /* a run on CUDA Vecs builds its pair layout on the device from the copy kept there, and the host
     arrays are filled only if something reads them (BTEChannelsGetHost) */
  PetscCall(BTEEprCUDAChannelsFill(p->gpu, bte->ch.n, bte->ch.i, bte->ch.j, bte->ch.mode, bte->ch.hw, bte->ch.g2, bte->devlayout ? (PetscObject)bte : NULL, n, nlow, bad, &pending));
  if (pending) {
    bte->chfill    = BTEEprCUDAChannelsCopy;
    bte->chfillctx = pending;
  }
  PetscFunctionReturn(0);
}
#endif

/* The batch path's tables per q point: phonon energies in eV (as PerturboPairModes computes them)
   and the modes sorted by them, NaN left out */
typedef struct {
  PetscReal h;
  int32_t   nu;
} HwMode;

static int HwModeCompare(const void *a, const void *b)
{
  const HwMode *x = (const HwMode *)a, *y = (const HwMode *)b;
  if (x->h < y->h) return -1;
  if (x->h > y->h) return 1;
  return (x->nu > y->nu) - (x->nu < y->nu);
}

#if defined(BTE_HAVE_CUDA)
/* The GPU's couplings: the k and q caches uploaded (qc: the q cache already on the device, adopted on
   success; NULL: the host's om, u, glr). *fits false, nothing made, where the device lacks room. */
static PetscErrorCode PerturboGPUCreate(Perturbo *p, BTEEprQCacheCUDA *qc, PetscInt nqtot, PetscBool *fits)
{
  BTEEprCUDAData d;

  PetscFunctionBegin;
  d.nw      = p->nw;
  d.nm      = p->nm;
  d.nat     = p->epr->nat;
  d.nslot   = p->nslot;
  d.nqtot   = nqtot;
  d.gksize  = p->gksize;
  d.npr     = p->epr->pR.nr;
  d.poff    = p->epr->poff;
  d.pidx    = p->epr->pidx;
  d.pR      = p->epr->pR.R;
  d.gk      = p->gk;
  d.U       = p->U;
  d.om      = qc ? qc->om : p->om;
  d.u       = qc ? qc->u : p->u;
  d.glr     = qc ? qc->glr : p->glr;
  d.qdevice = qc ? PETSC_TRUE : PETSC_FALSE;
  d.g2fac   = p->g2fac;
  PetscCall(BTEEprCUDACreate(&d, p->nthr, PERTURBO_BATCH, &p->gpu, fits));
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode PerturboSortModes(Perturbo *p, PetscInt nqtot)
{
  HwMode *tmp;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3((size_t)nqtot * p->nm, &p->hwq, (size_t)nqtot * p->nm, &p->hsort, nqtot, &p->hvalid));
  PetscCall(PetscCalloc1((size_t)p->nthr * p->nm, &p->hmask));
  PetscCall(PetscMalloc1((size_t)p->nthr * p->nm, &tmp));
#pragma omp parallel for schedule(static)
  for (PetscInt iq = 0; iq < nqtot; iq++) {
    HwMode          *w  = tmp + (size_t)ThreadId() * p->nm;
    const PetscReal *om = p->om + (size_t)iq * p->nm;
    PetscReal       *h  = p->hwq + (size_t)iq * p->nm;
    int32_t          n  = 0;
    for (PetscInt nu = 0; nu < p->nm; nu++) {
      h[nu] = om[nu] * BTE_RY_EV;
      if (h[nu] == h[nu]) {
        w[n].h    = h[nu];
        w[n++].nu = (int32_t)nu;
      }
    }
    qsort(w, (size_t)n, sizeof(*w), HwModeCompare);
    for (int32_t r = 0; r < n; r++) p->hsort[(size_t)iq * p->nm + r] = w[r].nu;
    for (PetscInt r = n; r < p->nm; r++) p->hsort[(size_t)iq * p->nm + r] = -1;
    p->hvalid[iq] = n;
  }
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(0);
}

/* The caches call LAPACK/BLAS from many OpenMP threads at once, one small problem each. A threaded
   BLAS (OpenBLAS) would start its own threads inside every call: oversubscription (16 threads ran no
   faster than 2) and results that depend on the thread count. While the caches are built the BLAS
   runs on one thread; *saved is the count to restore (0: nothing to restore). */
static void BLASSingleThread(int *saved)
{
  int (*get)(void)  = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
  void (*set)(int)  = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  *saved            = 0;
  if (get && set) {
    *saved = get();
    set(1);
  }
}

static void BLASRestoreThreads(int saved)
{
  void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (set && saved > 0) set(saved);
}

/* Index of -q on the q grid */
static inline PetscInt MinusQ(const Perturbo *p, PetscInt iq)
{
  PetscInt i[3] = {iq / (p->nq[1] * p->nq[2]), (iq / p->nq[2]) % p->nq[1], iq % p->nq[2]};
  for (int a = 0; a < 3; a++) i[a] = (p->nq[a] - i[a]) % p->nq[a];
  return (i[0] * p->nq[1] + i[1]) * p->nq[2] + i[2];
}

/* Rows [n r/P, n (r+1)/P) of buf (rows of len reals) were computed on rank r: give every rank all
   of them (a broadcast per rank, in pieces that fit an int count). */
static PetscErrorCode ShareRows(MPI_Comm comm, PetscInt n, size_t len, PetscReal buf[])
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  for (PetscMPIInt r = 0; r < size; r++) {
    size_t a = (size_t)(((PetscInt64)n * r) / size) * len, b = (size_t)(((PetscInt64)n * (r + 1)) / size) * len;
    for (size_t c = a; c < b; c += (size_t)1 << 28) {
      PetscMPIInt cnt = (PetscMPIInt)PetscMin(b - c, (size_t)1 << 28);
      PetscCallMPI(MPI_Bcast(buf + c, cnt, MPIU_REAL, r, comm));
    }
  }
  PetscFunctionReturn(0);
}

/* The model's options (BTEModelCreate_Perturbo: defaults; -bte_perturbo_* options) */
typedef struct {
  char      file[PETSC_MAX_PATH_LEN];
  PetscInt  kdim[3], qdim[3], bands[2], nkd, nqd, nbd;
  PetscBool kset, qset, bset, emin_set, emax_set, monitor, lr, lrset;
  PetscReal emin, emax;
  PetscEnum carrier, device;
  PetscBool gpuphonons, gpuchannels;
} PerturboOptions;

static const char *const PerturboCarriers[] = {"electrons", "holes", "BTEPerturboCarrier", "", NULL};

static PetscErrorCode BTEModelSetFromOptions_Perturbo(BTE bte)
{
  PerturboOptions *o = (PerturboOptions *)bte->modeldata;
  PetscBool        flg;
  PetscInt         n, v[4];

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)bte), ((PetscObject)bte)->prefix, "Model perturbo: a material from Perturbo's prefix_epr.h5 (docs/import.md)", "BTE");
  PetscCall(PetscOptionsString("-bte_perturbo_epr", "Perturbo's epr file (qe2pert.x output, prefix_epr.h5)", "BTESetModel", o->file, o->file, sizeof(o->file), NULL));
  n = 4; /* one more than it takes: an extra component is an error, not dropped */
  for (PetscInt a = 0; a < 3; a++) v[a] = o->kdim[a];
  PetscCall(PetscOptionsIntArray("-bte_perturbo_kdim", "Fine k grid n1,n2,n3 (Perturbo's boltz_kdim; default -bte_grid in every direction, 1 along a3 in 2D)", "BTESetModel", v, &n, &flg));
  if (flg) {
    PetscCheck(n <= 3, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "-bte_perturbo_kdim takes at most 3 values (n1,n2,n3), got more");
    for (PetscInt a = 0; a < n; a++) o->kdim[a] = v[a];
    o->nkd = n;
    o->kset = PETSC_TRUE;
    /* both name the k grid: one would be dropped without a word */
    PetscCheck(!bte->grid_set, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "Give either -bte_grid (n in every direction) or -bte_perturbo_kdim (n1,n2,n3), not both: both set the k grid of the import");
  }
  n = 4; /* one more than it takes: an extra component is an error, not dropped */
  for (PetscInt a = 0; a < 3; a++) v[a] = o->qdim[a];
  PetscCall(PetscOptionsIntArray("-bte_perturbo_qdim", "q grid n1,n2,n3 (Perturbo's boltz_qdim; default the k grid; must divide it)", "BTESetModel", v, &n, &flg));
  if (flg) {
    PetscCheck(n <= 3, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "-bte_perturbo_qdim takes at most 3 values (n1,n2,n3), got more");
    for (PetscInt a = 0; a < n; a++) o->qdim[a] = v[a];
    o->nqd = n;
    o->qset = PETSC_TRUE;
  }
  n = 3; /* one more than it takes: an extra component is an error, not dropped */
  for (PetscInt a = 0; a < 2; a++) v[a] = o->bands[a];
  PetscCall(PetscOptionsIntArray("-bte_perturbo_bands", "First,last band of the Wannier bands, counted from 1 (Perturbo's band_min,band_max; default all)", "BTESetModel", v, &n, &flg));
  if (flg) {
    PetscCheck(n <= 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "-bte_perturbo_bands takes at most 2 values (first,last), got more");
    for (PetscInt a = 0; a < n; a++) o->bands[a] = v[a];
    o->nbd = n;
    o->bset = PETSC_TRUE;
  }
  PetscCall(PetscOptionsEnum("-bte_perturbo_carrier", "Carriers (Perturbo's hole = .true. for holes)", "BTESetModel", PerturboCarriers, o->carrier, &o->carrier, NULL));
  PetscCall(PetscOptionsReal("-bte_perturbo_emin", "Window bottom, eV on the file's energy scale (Perturbo's boltz_emin); with -bte_perturbo_emax replaces the window above the band edge", "BTESetModel", o->emin, &o->emin, &flg));
  if (flg) o->emin_set = PETSC_TRUE;
  PetscCall(PetscOptionsReal("-bte_perturbo_emax", "Window top, eV on the file's energy scale (Perturbo's boltz_emax)", "BTESetModel", o->emax, &o->emax, &flg));
  if (flg) o->emax_set = PETSC_TRUE;
  PetscCall(PetscOptionsBool("-bte_perturbo_polar", "Add the long-range terms of a polar material (dipole-dipole phonons, Frohlich coupling); default: the file's lpolar", "BTESetModel", o->lr, &o->lr, &flg));
  if (flg) o->lrset = PETSC_TRUE;
  PetscCall(PetscOptionsEnum("-bte_perturbo_device", "Where the couplings of the pairs of states are evaluated: auto (the GPU when bte has CUDA and a GPU is present), host, device, host_batch (the device's batched path on the host)", "BTESetModel", PerturboDevices, o->device, &o->device, NULL));
  PetscCall(PetscOptionsBool("-bte_perturbo_gpu_phonons", "With the GPU: also the phonons (D(q) and its eigenproblems) on the device", "BTESetModel", o->gpuphonons, &o->gpuphonons, NULL));
  PetscCall(PetscOptionsBool("-bte_perturbo_gpu_channels", "With the GPU and a table built in memory: the channels listed, selected and kept on the device in one pass (0: the builder's two passes on the host, the couplings on the device)", "BTESetModel", o->gpuchannels, &o->gpuchannels, NULL));
  PetscCall(PetscOptionsBool("-bte_perturbo_monitor", "Print the import's steps and timings", "BTESetModel", o->monitor, &o->monitor, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelGenerate_Perturbo(BTE bte)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  Perturbo       p;
  BTEModelSpec   spec;
  char           file[PETSC_MAX_PATH_LEN] = "", src[256];
  PetscInt       kdim[3] = {0, 0, 0}, qdim[3] = {0, 0, 0}, bands[2] = {0, 0}, nkd = 3, nqd = 3, nbd = 2;
  PetscBool      flg, kset, qset, bset, emin_set, emax_set, holes = PETSC_FALSE, monitor = PETSC_TRUE, lr = PETSC_TRUE, lrset;
  PetscReal      emin = 0, emax = 0, eedge, width, hwmax = 0, wneg = 0;
  PetscInt       nktot, nqtot, nneg = 0;
  PetscLogDouble t0, t1, bytes;
  PetscReal     *eall;
  const PerturboOptions *o = (const PerturboOptions *)bte->modeldata;
  PetscEnum      carrier;
  int            err        = 0;
  PetscMPIInt    rank, size;
  PetscInt       s0, s1;
  PetscLogDouble tb = 0, tk = 0, tq = 0, tc = 0;
  int            blasthreads = 0;
  PerturboDevice dev;
  PetscBool      gpu = PETSC_FALSE; /* the phonons and couplings on the GPU */
  PetscBool      qdev = PETSC_FALSE; /* the q cache made on the GPU, and kept there */
  PetscBool      qbeside = PETSC_FALSE; /* its phonons ran beside the bands and the k side */
#if defined(BTE_HAVE_CUDA)
  BTEEprQCacheCUDA qc;
#endif

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMemzero(&p, sizeof(p)));
  /* the options (BTESetFromOptions) */
  PetscCall(PetscStrncpy(file, o->file, sizeof(file)));
  flg = file[0] ? PETSC_TRUE : PETSC_FALSE;
  for (int c = 0; c < 3; c++) {
    kdim[c] = o->kdim[c];
    qdim[c] = o->qdim[c];
  }
  bands[0] = o->bands[0];
  bands[1] = o->bands[1];
  nkd      = o->kset ? o->nkd : 3;
  nqd      = o->qset ? o->nqd : 3;
  nbd      = o->bset ? o->nbd : 2;
  kset     = o->kset;
  qset     = o->qset;
  bset     = o->bset;
  carrier  = o->carrier;
  emin     = o->emin;
  emax     = o->emax;
  emin_set = o->emin_set;
  emax_set = o->emax_set;
  lr       = o->lr;
  lrset    = o->lrset;
  monitor  = o->monitor;
  holes = carrier == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCheck(flg && file[0], comm, PETSC_ERR_USER_INPUT, "Model perturbo needs the epr file: -bte_perturbo_epr prefix_epr.h5 (docs/import.md)");
  PetscCheck(emin_set == emax_set, comm, PETSC_ERR_USER_INPUT, "Give both -bte_perturbo_emin and -bte_perturbo_emax (an absolute window), or neither (the window is -bte_window above the band edge)");
  PetscCheck(!emin_set || emax > emin, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_perturbo_emin %g must be below -bte_perturbo_emax %g", (double)emin, (double)emax);
  /* the absolute window replaces -bte_window: both given, one would be dropped silently */
  PetscCheck(!emin_set || !bte->window_set, comm, PETSC_ERR_USER_INPUT, "Give either -bte_window (a width above the band edge) or -bte_perturbo_emin and -bte_perturbo_emax (an absolute window), not both");

  /* the GPU (-bte_perturbo_device; auto: when bte has CUDA and a device is present) */
  dev = (PerturboDevice)o->device;
#if defined(BTE_HAVE_CUDA)
  /* the GPU starts on a thread of its own while the host reads the file; joined (BTEEprCUDAAvailable)
     before the phonons, which then run on the device while the host does the bands and the k side */
  if (dev == PERTURBO_DEVICE_AUTO || dev == PERTURBO_DEVICE_DEVICE) PetscCall(BTEEprCUDAStart(comm));
#else
  PetscCheck(dev != PERTURBO_DEVICE_DEVICE, comm, PETSC_ERR_SUP, "-bte_perturbo_device device: bte was built without CUDA (docs/gpu.md)");
#endif
  {
    PetscLogDouble r0, r1;
    PetscCall(PetscTime(&r0));
    PetscCall(BTEEprRead(comm, file, &p.epr));
    PetscCall(PetscTime(&r1));
    PetscCall(PetscInfo(bte, "perturbo: %s read and set up in %.3f s; before it %.3f s (options, the GPU's start)\n", file, r1 - r0, r0 - t0));
  }
  if (lrset) {
    PetscCheck(!lr || p.epr->polar, comm, PETSC_ERR_USER_INPUT, "-bte_perturbo_polar 1: %s is not a polar material (lpolar = 0, or no Born charges)", file);
    p.epr->lr_eph = p.epr->lr_ph = lr;
    PetscCall(BTEEprSetUpLR(p.epr));
  }
  p.nw  = p.epr->nw;
  p.nm  = 3 * p.epr->nat;
  p.dim = p.epr->sys2d ? 2 : 3;

  /* grids */
  if (!kset) {
    kdim[0] = kdim[1] = kdim[2] = bte->ngrid;
    nkd                         = 3;
  }
  if (p.dim == 2 && nkd == 2) kdim[2] = 1, nkd = 3;
  if (p.dim == 2 && !kset) kdim[2] = 1;
  PetscCheck(nkd == 3, comm, PETSC_ERR_USER_INPUT, "-bte_perturbo_kdim takes three integers n1,n2,n3 (two in 2D)");
  if (!qset)
    for (int a = 0; a < 3; a++) qdim[a] = kdim[a];
  else {
    if (p.dim == 2 && nqd == 2) qdim[2] = 1, nqd = 3;
    PetscCheck(nqd == 3, comm, PETSC_ERR_USER_INPUT, "-bte_perturbo_qdim takes three integers n1,n2,n3 (two in 2D)");
  }
  /* a sheet first: its third dimension is the one a user gets wrong, and then it is not a matter of
     commensurability */
  PetscCheck(p.dim == 3 || (kdim[2] == 1 && qdim[2] == 1), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s is a 2D material: the k and q grids must have 1 point along a3 (-bte_perturbo_kdim %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ", -bte_perturbo_qdim %" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT "); give two numbers n1,n2", file, kdim[0], kdim[1], kdim[2], qdim[0], qdim[1], qdim[2]);
  for (int a = 0; a < 3; a++) {
    PetscCheck(kdim[a] >= 1 && qdim[a] >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "k grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " and q grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " must be positive", kdim[0], kdim[1], kdim[2], qdim[0], qdim[1], qdim[2]);
    PetscCheck(kdim[a] % qdim[a] == 0, comm, PETSC_ERR_ARG_INCOMP, "The q grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " is not commensurate with the k grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT ": each q dimension must divide the k dimension (Perturbo's rule for boltz_qdim)", qdim[0], qdim[1], qdim[2], kdim[0], kdim[1], kdim[2]);
    p.nk[a] = kdim[a];
    p.nq[a] = qdim[a];
    p.qs[a] = kdim[a] / qdim[a];
  }
  PetscCheck(p.dim == 3 || (p.nk[2] == 1 && p.nq[2] == 1), comm, PETSC_ERR_ARG_OUTOFRANGE, "%s is a 2D material: the k and q grids must have 1 point along a3", file);
  {
    PetscInt64 nk64 = (PetscInt64)p.nk[0] * p.nk[1] * p.nk[2];
    PetscCheck(nk64 <= PETSC_MAX_INT, comm, PETSC_ERR_SUP, "The %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " k grid has %" PetscInt64_FMT " points; flattened k indices must fit a 32-bit PetscInt: use a smaller -bte_perturbo_kdim", p.nk[0], p.nk[1], p.nk[2], nk64);
  }
  nktot = p.nk[0] * p.nk[1] * p.nk[2];
  nqtot = p.nq[0] * p.nq[1] * p.nq[2];

  /* bands */
  if (!bset) {
    bands[0] = 1;
    bands[1] = p.nw;
  } else {
    PetscCheck(nbd == 2, comm, PETSC_ERR_USER_INPUT, "-bte_perturbo_bands takes two integers first,last (from 1)");
    PetscCheck(bands[0] >= 1 && bands[1] >= bands[0] && bands[1] <= p.nw, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_perturbo_bands %" PetscInt_FMT ",%" PetscInt_FMT ": the file has %" PetscInt_FMT " Wannier bands (give first <= last in 1..%" PetscInt_FMT ")", bands[0], bands[1], p.nw, p.nw);
  }
  p.bmin    = bands[0] - 1;
  p.nb      = bands[1] - bands[0] + 1;
  p.carrier = holes ? 1 : -1;

  /* lattice in Angstrom; 2D: a3 = the unit normal */
  for (int c = 0; c < 9; c++) p.lat[c] = p.epr->at[c] * p.epr->alat * BOHR_A;
  if (p.dim == 2) {
    PetscReal *a = p.lat, n[3] = {a[1] * a[5] - a[2] * a[4], a[2] * a[3] - a[0] * a[5], a[0] * a[4] - a[1] * a[3]};
    PetscReal  l = PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int c = 0; c < 3; c++) a[6 + c] = n[c] / l;
  }
  p.vconv = BTE_RY_EV * BOHR_A / BTE_HBAR;
  p.tol   = bte->tol_eta * bte->smearing;
  p.hwmin = PetscMax(bte->phonon_min, BTE_PHONON_FLOOR); /* hw -> 0: infinite Bose factor */
  p.g2fac = BTE_RY_EV * BTE_RY_EV * (PetscReal)nktot / (PetscReal)nqtot;

  /* per-thread work */
#if defined(_OPENMP)
  p.nthr = omp_get_max_threads();
#else
  p.nthr = 1;
#endif
  PetscCall(PetscMalloc1(p.nthr, &p.work));
  for (PetscInt t = 0; t < p.nthr; t++) PetscCall(BTEEprWorkCreate(p.epr, &p.work[t]));
  PetscCall(PetscMalloc4((size_t)p.nthr * 2 * p.nw * p.nw * p.nm, &p.gw, (size_t)p.nthr * 2 * p.nm, &p.gmn, (size_t)p.nthr * p.nw, &p.ev, (size_t)p.nthr * 3 * p.nw, &p.vv));
  PetscCall(PetscCalloc1(8 * p.nthr, &p.neval));
  PetscCall(PetscCalloc1(8 * p.nthr, &p.tbatch));
  PetscCall(PetscMalloc1(8 * p.nthr, &p.key));
  for (PetscInt t = 0; t < 8 * p.nthr; t++) p.key[t] = -1;

  /* the caches must fit: refuse with the figures rather than run out of memory */
  p.gksize = BTEEprCouplingKSize(p.epr);
  bytes    = (PetscLogDouble)nktot * (p.nb * sizeof(PetscReal) + sizeof(PetscInt) + (2 * p.nw * p.nw + p.gksize) * sizeof(PetscReal)) + (PetscLogDouble)nqtot * (p.nm + 2 * p.nm * p.nm + 2 * p.nm) * sizeof(PetscReal);
  {
    char what[256];
    PetscCall(PetscSNPrintf(what, sizeof(what), "Interpolating %s on the %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " k grid (k and q caches: %" PetscInt_FMT " modes, %" PetscInt_FMT " Wannier functions)", file, p.nk[0], p.nk[1], p.nk[2], p.nm, p.nw));
    PetscCall(BTEModelCheckMemory(bte, bytes, 0.8, what, "use a coarser -bte_perturbo_kdim / -bte_perturbo_qdim, or fewer ranks per node", NULL));
  }


#if defined(BTE_HAVE_CUDA)
  if (dev == PERTURBO_DEVICE_AUTO || dev == PERTURBO_DEVICE_DEVICE) PetscCall(BTEEprCUDAAvailable(&gpu));
  PetscCheck(gpu || dev != PERTURBO_DEVICE_DEVICE, comm, PETSC_ERR_SUP, "-bte_perturbo_device device: no CUDA device is available");
  /* 3 (begun). With the GPU's phonons the q cache is made on the device, and nothing it needs comes
     from steps 1 and 2: its work is enqueued now and runs while the host does them (DNTT 16^3: 0.4 s
     of the device's beside 0.2 s of the host's) */
  if (gpu && o->gpuphonons) {
    PetscInt *mq;
    PetscCall(PetscMalloc1(nqtot, &mq));
    for (PetscInt iq = 0; iq < nqtot; iq++) mq[iq] = MinusQ(&p, iq);
    PetscCall(BTEEprQCacheCUDABegin(p.epr, p.nq, mq, &qc, &qdev));
    PetscCall(PetscFree(mq));
  }
#endif
  /* a refusal before the q cache's End first waits for its work: the process must not exit while
     a thread of its own is inside cuSOLVER */
#if defined(BTE_HAVE_CUDA)
  #define QCACHE_ABORT() \
    do { \
      if (qdev) { \
        (void)BTEEprQCacheCUDADestroy(&qc); \
        qdev = PETSC_FALSE; \
      } \
    } while (0)
#else
  #define QCACHE_ABORT() \
    do { \
    } while (0)
#endif

  BLASSingleThread(&blasthreads);
  /* 1. bands on the whole grid: edge and window */
  PetscCall(PetscMalloc1((size_t)nktot * p.nb, &eall));
#pragma omp parallel for schedule(dynamic, 64) reduction(| : err)
  for (PetscInt ik = 0; ik < nktot; ik++) {
    int      t = ThreadId();
    PetscInt i[3] = {ik / (p.nk[1] * p.nk[2]), (ik / p.nk[2]) % p.nk[1], ik % p.nk[2]};
    if (err) continue;
    err |= BandsAt(&p, p.work[t], i, eall + (size_t)ik * p.nb, NULL, p.ev + t * p.nw, NULL);
  }
  if (err) QCACHE_ABORT();
  PetscCheck(!err, comm, PETSC_ERR_LIB, "%s: diagonalising H(k) failed (LAPACK zheev)", file);
  eedge = PETSC_MAX_REAL;
  for (size_t s = 0; s < (size_t)nktot * p.nb; s++) eedge = PetscMin(eedge, eall[s]); /* electrons: CBM; holes: -VBM */
  if (emin_set) {
    /* absolute window on the file's (electron) energy scale; for holes it is flipped */
    PetscReal lo = holes ? -emax : emin, hi = holes ? -emin : emax;
    eedge        = lo;
    width        = hi - lo;
  } else width = bte->window;
  PetscCall(PetscMalloc1(nktot, &p.kslot));
  for (PetscInt ik = 0; ik < nktot; ik++) {
    PetscBool in = PETSC_FALSE;
    for (PetscInt n = 0; n < p.nb; n++) {
      PetscReal x = eall[(size_t)ik * p.nb + n];
      if (x >= eedge && x <= eedge + width) in = PETSC_TRUE;
    }
    p.kslot[ik] = in ? p.nslot++ : -1;
  }
  PetscCall(PetscFree(eall));
  if (!(p.nslot > 0)) QCACHE_ABORT();
  PetscCheck(p.nslot > 0, comm, PETSC_ERR_USER_INPUT, "%s: no states of bands %" PetscInt_FMT "..%" PetscInt_FMT " in the window [%g, %g] eV (%s energies) on the %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " grid; widen the window (-bte_window, or -bte_perturbo_emin/-bte_perturbo_emax) or check -bte_perturbo_bands and -bte_perturbo_carrier", file, bands[0], bands[1], (double)eedge, (double)(eedge + width), holes ? "hole" : "electron", p.nk[0], p.nk[1], p.nk[2]);
  PetscCall(PetscTime(&t1));
  tb = t1 - t0;
  if (monitor) PetscCall(PetscPrintf(comm, "  perturbo: bands on %" PetscInt_FMT " k points, %" PetscInt_FMT " with states in [%g, %g] eV, %.2f s (with the file's reading)\n", nktot, p.nslot, (double)eedge, (double)(eedge + width), tb));

  /* 2. k cache: U_k and the electron-side sums */
  /* each rank computes a block of the slots and shares it */
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc2((size_t)p.nslot * 2 * p.nw * p.nw, &p.U, (size_t)p.nslot * p.gksize, &p.gk));
  s0 = (PetscInt)(((PetscInt64)p.nslot * rank) / size);
  s1 = (PetscInt)(((PetscInt64)p.nslot * (rank + 1)) / size);
#pragma omp parallel for schedule(dynamic, 4) reduction(| : err)
  for (PetscInt ik = 0; ik < nktot; ik++) {
    int       t = ThreadId();
    PetscInt  s = p.kslot[ik];
    PetscReal k[3];
    if (s < s0 || s >= s1 || err) continue;
    k[0] = (PetscReal)(ik / (p.nk[1] * p.nk[2])) / p.nk[0];
    k[1] = (PetscReal)((ik / p.nk[2]) % p.nk[1]) / p.nk[1];
    k[2] = (PetscReal)(ik % p.nk[2]) / p.nk[2];
    err |= BTEEprBands(p.epr, p.work[t], k, p.ev + t * p.nw, p.U + (size_t)s * 2 * p.nw * p.nw, NULL);
    err |= BTEEprCouplingK(p.epr, p.work[t], k, p.gk + (size_t)s * p.gksize);
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_BOR, comm));
  if (err) QCACHE_ABORT();
  PetscCheck(!err, comm, PETSC_ERR_LIB, "%s: interpolating at the k points failed (LAPACK zheev)", file);
#undef QCACHE_ABORT
  PetscCall(ShareRows(comm, p.nslot, 2 * p.nw * p.nw, p.U));
  PetscCall(ShareRows(comm, p.nslot, p.gksize, p.gk));
  PetscCall(PetscTime(&t1));
  tk = t1 - t0;
  if (monitor) PetscCall(PetscPrintf(comm, "  perturbo: couplings' electron side at %" PetscInt_FMT " k points, %.2f s\n", p.nslot, tk - tb));

  /* 3. q cache: phonons and the long-range vertex. With the GPU's phonons it is made on the device
     (begun above) and stays there for the couplings (every rank makes all of it: no sharing, no host
     copy of the patterns); else each rank makes a block of it, shared, and -q is filled by
     conjugation. */
  PetscCall(PetscMalloc1((size_t)nqtot * p.nm, &p.om));
#if defined(BTE_HAVE_CUDA)
  if (qdev) PetscCall(BTEEprQCacheCUDAEnd(&qc, p.om));
  qbeside = qdev;
#endif
  if (!qdev) {
    PetscCall(PetscMalloc2((size_t)nqtot * 2 * p.nm * p.nm, &p.u, (size_t)nqtot * 2 * p.nm, &p.glr));
    s0 = (PetscInt)(((PetscInt64)nqtot * rank) / size);
    s1 = (PetscInt)(((PetscInt64)nqtot * (rank + 1)) / size);
#if defined(BTE_HAVE_CUDA)
    if (gpu && o->gpuphonons) {
      /* the device lacks the memory for the q cache: D(q) and its eigenproblems there all the same,
         in pieces whose host buffers stay near 1 GB (each piece creates the device's handles and
         work space: few pieces) */
      PetscInt   cap = (PetscInt)PetscMax(1, PetscMin((PetscInt64)nqtot, ((PetscInt64)1 << 27) / (2 * p.nm * p.nm + p.nm + 4))), n = 0;
      PetscReal *qb, *omb, *ub;
      PetscInt  *list;
      PetscCall(PetscMalloc4(3 * cap, &qb, cap * p.nm, &omb, (size_t)cap * 2 * p.nm * p.nm, &ub, cap, &list));
      for (PetscInt iq = s0; iq <= s1; iq++) {
        if (iq < s1 && MinusQ(&p, iq) >= iq) {
          qb[3 * n]     = (PetscReal)(iq / (p.nq[1] * p.nq[2])) / p.nq[0];
          qb[3 * n + 1] = (PetscReal)((iq / p.nq[2]) % p.nq[1]) / p.nq[1];
          qb[3 * n + 2] = (PetscReal)(iq % p.nq[2]) / p.nq[2];
          list[n++]     = iq;
        }
        if (n == cap || (iq == s1 && n)) {
          PetscCall(BTEEprPhononsCUDA(p.epr, n, qb, omb, ub));
          for (PetscInt c = 0; c < n; c++) {
            PetscCall(PetscArraycpy(p.om + (size_t)list[c] * p.nm, omb + (size_t)c * p.nm, p.nm));
            PetscCall(PetscArraycpy(p.u + (size_t)list[c] * 2 * p.nm * p.nm, ub + (size_t)c * 2 * p.nm * p.nm, 2 * p.nm * p.nm));
          }
          n = 0;
        }
      }
      PetscCall(PetscFree4(qb, omb, ub, list));
    }
#endif
#pragma omp parallel for schedule(dynamic, 1) reduction(| : err)
    for (PetscInt iq = s0; iq < s1; iq++) {
      int       t = ThreadId();
      PetscReal q[3];
      if (err || MinusQ(&p, iq) < iq) continue; /* filled from -q below */
      q[0] = (PetscReal)(iq / (p.nq[1] * p.nq[2])) / p.nq[0];
      q[1] = (PetscReal)((iq / p.nq[2]) % p.nq[1]) / p.nq[1];
      q[2] = (PetscReal)(iq % p.nq[2]) / p.nq[2];
      if (!(gpu && o->gpuphonons)) err |= BTEEprPhonons(p.epr, p.work[t], q, p.om + (size_t)iq * p.nm, p.u + (size_t)iq * 2 * p.nm * p.nm);
      err |= BTEEprCouplingLR(p.epr, q, p.glr + (size_t)iq * 2 * p.nm);
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_BOR, comm));
    PetscCheck(!err, comm, PETSC_ERR_LIB, "%s: diagonalising D(q) failed (LAPACK zheev)", file);
    PetscCall(ShareRows(comm, nqtot, p.nm, p.om));
    PetscCall(ShareRows(comm, nqtot, 2 * p.nm * p.nm, p.u));
    PetscCall(ShareRows(comm, nqtot, 2 * p.nm, p.glr));
    /* D(-q) = conj D(q) and g_LR(-q) = conj g_LR(q): the same frequencies, conjugate patterns */
    for (PetscInt iq = 0; iq < nqtot; iq++) {
      PetscInt   mq = MinusQ(&p, iq);
      size_t     nm2 = 2 * (size_t)p.nm * p.nm;
      PetscReal *u = p.u + iq * nm2, *um = p.u + mq * nm2, *g = p.glr + (size_t)iq * 2 * p.nm, *gm = p.glr + (size_t)mq * 2 * p.nm;
      if (mq >= iq) continue;
      for (PetscInt nu = 0; nu < p.nm; nu++) p.om[(size_t)iq * p.nm + nu] = p.om[(size_t)mq * p.nm + nu];
      for (size_t c = 0; c < nm2; c += 2) {
        u[c]     = um[c];
        u[c + 1] = -um[c + 1];
      }
      for (PetscInt c = 0; c < 2 * p.nm; c += 2) {
        g[c]     = gm[c];
        g[c + 1] = -gm[c + 1];
      }
    }
  }
  for (size_t s = 0; s < (size_t)nqtot * p.nm; s++) {
    PetscReal w = p.om[s] * BTE_RY_EV;
    hwmax       = PetscMax(hwmax, w);
    if (w < -1e-4) { /* imaginary beyond 0.1 meV (acoustic modes at Gamma are zero up to rounding) */
      nneg++;
      wneg = PetscMin(wneg, w);
    }
  }
  PetscCall(PetscTime(&t1));
  tq = t1 - t0 - tk;
  if (monitor) {
    if (qbeside) PetscCall(PetscPrintf(comm, "  perturbo: phonons at %" PetscInt_FMT " q points (%" PetscInt_FMT " modes) on the GPU beside the steps above, %.2f s after them\n", nqtot, p.nm, tq));
    else PetscCall(PetscPrintf(comm, "  perturbo: phonons at %" PetscInt_FMT " q points (%" PetscInt_FMT " modes) on the %s, %.2f s\n", nqtot, p.nm, gpu && o->gpuphonons ? "GPU" : "host", tq));
  }
  /* laws of the force constants the reader measured (epr_read.c; refused there when gross) */
  if (p.epr->ifcsym > BTE_EPR_IFCSYM_WARN) PetscCall(PetscPrintf(comm, "WARNING perturbo: %s: force_constant/ifc%" PetscInt_FMT " (an atom with itself) is not symmetric: C(R) and C(-R)^T differ by %.3g of the largest force constant (a file made from a Hermitian D(q): ~1e-17); the phonons use the Hermitian part of D(q)\n", file, p.epr->ifcsym_pair, (double)p.epr->ifcsym));
  if (p.epr->asr_omega * BTE_RY_EV * 1e3 > BTE_EPR_ASR_WARN) PetscCall(PetscPrintf(comm, "WARNING perturbo: %s: the force constants break the acoustic sum rule: those of atom %" PetscInt_FMT " sum to %.4g Ry/bohr^2 over their partners and R (0 under the rule), which moves the acoustic frequencies at Gamma by up to ~%.4g meV; impose the rule when making the force constants\n", file, p.epr->asr_atom, (double)p.epr->asr_res, (double)(p.epr->asr_omega * BTE_RY_EV * 1e3)));
  if (nneg) PetscCall(PetscPrintf(comm, "WARNING perturbo: %" PetscInt_FMT " of %" PetscInt_FMT " phonon frequencies on the q grid are imaginary (lowest %.3g meV); their channels are dropped (below -bte_phonon_min), as Perturbo does\n", nneg, nqtot * p.nm, (double)(wneg * 1e3)));

  /* the builder (the coupling callbacks call no BLAS) */
  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  PetscCall(PetscSNPrintf(src, sizeof(src), "perturbo %s kdim %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " qdim %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " bands %" PetscInt_FMT "-%" PetscInt_FMT " %s window [%g, %g] eV smearing %g eV", file, p.nk[0], p.nk[1], p.nk[2], p.nq[0], p.nq[1], p.nq[2], bands[0], bands[1], holes ? "holes" : "electrons", (double)eedge, (double)(eedge + width), (double)bte->smearing));
  spec.name          = "perturbo";
  spec.dim           = p.dim;
  spec.nbands        = p.nb;
  spec.nmodes        = p.nm;
  spec.spin          = p.epr->spinor ? 1 : 2;
  spec.carrier       = p.carrier;
  for (int c = 0; c < 9; c++) spec.lattice[c] = p.lat[c];
  spec.eedge         = eedge;
  spec.window        = width;
  spec.hwmax         = PetscMax(hwmax, 0);
  spec.ctx           = &p;
  spec.bands         = PerturboBands;
  spec.coupling_grid = PerturboCoupling;
  /* where the couplings are evaluated: on the GPU (the caches uploaded once) or on the host */
  {
    PetscBool   batch = dev == PERTURBO_DEVICE_HOST_BATCH ? PETSC_TRUE : PETSC_FALSE;
    const char *where = "host";
#if defined(BTE_HAVE_CUDA)
    if (gpu) {
      PetscBool fits;
      PetscCall(PerturboGPUCreate(&p, qdev ? &qc : NULL, nqtot, &fits));
      if (fits && qdev) PetscCall(PetscMemzero(&qc, sizeof(qc))); /* adopted by p.gpu */
      if (!fits && qdev) { /* the host evaluates the couplings: it needs the q cache */
        PetscCall(PetscMalloc2((size_t)nqtot * 2 * p.nm * p.nm, &p.u, (size_t)nqtot * 2 * p.nm, &p.glr));
        PetscCall(BTEEprQCacheCUDAGetHost(&qc, p.u, p.glr));
        PetscCall(BTEEprQCacheCUDADestroy(&qc));
        qdev = PETSC_FALSE;
      }
      PetscCheck(fits || dev != PERTURBO_DEVICE_DEVICE, comm, PETSC_ERR_MEM, "-bte_perturbo_device device: the k and q caches of %s do not fit in the GPU's free memory; use -bte_perturbo_device host", file);
      if (fits) {
        batch           = PETSC_TRUE;
        where           = "GPU";
        spec.reevaluate = PETSC_TRUE; /* measured: keeping the channels costs more than the device's second pass */
      }
    }
#endif
    if (batch) {
      PetscCall(PerturboSortModes(&p, nqtot));
#if defined(BTE_HAVE_CUDA)
      if (p.gpu) PetscCall(PetscMalloc4((size_t)p.nthr * 4 * PERTURBO_BATCH, &p.bidx, (size_t)p.nthr * PERTURBO_BATCH, &p.bqi, (size_t)p.nthr * 3 * PERTURBO_BATCH, &p.bq, (size_t)p.nthr * (PERTURBO_BATCH + 1), &p.bmoff));
#endif
      spec.coupling_grid_batch = PerturboCouplingBatch;
#if defined(BTE_HAVE_CUDA)
      if (p.gpu && o->gpuchannels) {
        spec.channels_count = PerturboChannelsCount;
        spec.channels_fill  = PerturboChannelsFill;
      }
#endif
    }
    {
      PetscLogDouble t2;
      PetscCall(PetscTime(&t2));
      PetscCall(PetscInfo(bte, "perturbo: couplings' set-up (caches to the %s, modes sorted) %.3f s\n", where, t2 - t1));
    }
    if (monitor) PetscCall(PetscPrintf(comm, "  perturbo: couplings of the pairs of states evaluated on the %s%s\n", where, dev == PERTURBO_DEVICE_HOST_BATCH ? " (in batches)" : ""));
  }
  spec.coupling      = NULL;
  for (int a = 0; a < 3; a++) spec.nk[a] = p.nk[a];
  spec.source = src;
  PetscCall(BTEParamsAdd(bte, "alat", p.epr->alat * BOHR_A, "Angstrom"));
  PetscCall(BTEParamsAdd(bte, "atoms", (PetscReal)p.epr->nat, ""));
  PetscCall(BTEParamsAdd(bte, "wannier_functions", (PetscReal)p.nw, ""));
  PetscCall(BTEParamsAdd(bte, "band_min", (PetscReal)bands[0], ""));
  PetscCall(BTEParamsAdd(bte, "band_max", (PetscReal)bands[1], ""));
  PetscCall(BTEParamsAdd(bte, "qdim_1", (PetscReal)p.nq[0], ""));
  PetscCall(BTEParamsAdd(bte, "qdim_2", (PetscReal)p.nq[1], ""));
  PetscCall(BTEParamsAdd(bte, "qdim_3", (PetscReal)p.nq[2], ""));
  PetscCall(BTEParamsAdd(bte, "coarse_kdim_1", (PetscReal)p.epr->kc[0], ""));
  PetscCall(BTEParamsAdd(bte, "coarse_kdim_2", (PetscReal)p.epr->kc[1], ""));
  PetscCall(BTEParamsAdd(bte, "coarse_kdim_3", (PetscReal)p.epr->kc[2], ""));
  PetscCall(BTEParamsAdd(bte, "polar_long_range", p.epr->lr_eph ? 1.0 : 0.0, ""));
  PetscCall(BTEParamsAdd(bte, "spinor", p.epr->spinor ? 1.0 : 0.0, ""));
  PetscCall(BTEParamsAdd(bte, "phonon_max", hwmax, "eV"));
  /* the force constants' laws as read (epr_read.c; the import warns above 0.5 meV and 1e-6) */
  PetscCall(BTEParamsAdd(bte, "ifc_asr_shift", p.epr->asr_omega * BTE_RY_EV * 1e3, "meV"));
  PetscCall(BTEParamsAdd(bte, "ifc_asymmetry", p.epr->ifcsym, ""));
  PetscCall(PetscInfo(bte, "perturbo %s: %" PetscInt_FMT " atoms, %" PetscInt_FMT " Wannier functions, k grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT ", q grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT ", caches %.3g GB\n", file, p.epr->nat, p.nw, p.nk[0], p.nk[1], p.nk[2], p.nq[0], p.nq[1], p.nq[2], bytes / 1e9));
  PetscCall(BTEModelBuild(bte, &spec));
  BLASRestoreThreads(blasthreads);
  PetscCall(PetscTime(&t1));
  {
    PetscInt64 nev = 0;
    for (PetscInt t = 0; t < p.nthr; t++) nev += p.neval[8 * t];
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nev, 1, MPIU_INT64, MPI_SUM, comm));
    tc = t1 - t0 - tk - tq;
    if (monitor && qbeside) /* the phonons ran beside the k side: no rate of their own */
      PetscCall(PetscPrintf(comm, "  perturbo: import %.1f s on %d rank(s) x %" PetscInt_FMT " thread(s): bands and k side %.1f s, phonons (%" PetscInt_FMT " q points on the GPU, beside them) %.1f s after them, couplings and channels %.1f s (%" PetscInt64_FMT " state pairs evaluated%s, %.3g per s)\n", t1 - t0, size, p.nthr, tk, nqtot, tq, tc, nev, size > 1 ? " over the ranks: a pair whose ends two ranks own is evaluated by both, which hold its channel" : "", tc > 0 ? nev / tc : 0.0));
    else if (monitor)
      PetscCall(PetscPrintf(comm, "  perturbo: import %.1f s on %d rank(s) x %" PetscInt_FMT " thread(s): bands and k side %.1f s, phonons %.1f s (%" PetscInt_FMT " q points, %.3g per s), couplings and channels %.1f s (%" PetscInt64_FMT " state pairs evaluated%s, %.3g per s)\n", t1 - t0, size, p.nthr, tk, tq, nqtot, tq > 0 ? nqtot / tq : 0.0, tc, nev, size > 1 ? " over the ranks: a pair whose ends two ranks own is evaluated by both, which hold its channel" : "", tc > 0 ? nev / tc : 0.0));
    PetscCall(PetscInfo(bte, "perturbo import %.2f s: k side %.2f s, phonons %.2f s%s, couplings %.2f s (%" PetscInt64_FMT " pairs)\n", t1 - t0, tk, tq, qbeside ? " (on the GPU beside the k side; the wait after it)" : "", tc, nev));
    if (spec.coupling_grid_batch) {
      /* where a thread's time in the couplings went: the batch callback's host listing, the GPU's
         call (packing and upload, the wait, the copy out); the rest is the builder's own work */
      double    tl = 0, tg[3] = {0, 0, 0};
      PetscBool ongpu = PETSC_FALSE;
      for (PetscInt t = 0; t < p.nthr; t++) tl += p.tbatch[8 * t];
#if defined(BTE_HAVE_CUDA)
      ongpu = p.gpu ? PETSC_TRUE : PETSC_FALSE;
      if (p.gpu) PetscCall(BTEEprCUDAGetTimes(p.gpu, tg));
#endif
      PetscCall(PetscInfo(bte, "perturbo couplings, per thread (mean of %" PetscInt_FMT "): %.3f s of %.3f s in the batch callbacks on the host (%s), %.3f s packing and uploading, %.3f s waiting for the GPU, %.3f s copying out\n", p.nthr, tl / p.nthr, tc, ongpu ? "listing the pairs' modes" : "listing the modes and the couplings", tg[0] / p.nthr, tg[1] / p.nthr, tg[2] / p.nthr));
    }
  }

  for (PetscInt t = 0; t < p.nthr; t++) PetscCall(BTEEprWorkDestroy(&p.work[t]));
  PetscCall(PetscFree(p.work));
  PetscCall(PetscFree4(p.gw, p.gmn, p.ev, p.vv));
  PetscCall(PetscFree(p.neval));
  PetscCall(PetscFree(p.tbatch));
  PetscCall(PetscFree(p.key));
  PetscCall(PetscFree4(p.bidx, p.bqi, p.bq, p.bmoff));
  PetscCall(PetscFree3(p.hwq, p.hsort, p.hvalid));
  PetscCall(PetscFree(p.hmask));
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTEEprCUDADestroy(&p.gpu));
#endif
  PetscCall(PetscFree(p.kslot));
  PetscCall(PetscFree2(p.U, p.gk));
  PetscCall(PetscFree(p.om));
  PetscCall(PetscFree2(p.u, p.glr));
#if defined(BTE_HAVE_CUDA)
  if (qdev) PetscCall(BTEEprQCacheCUDADestroy(&qc));
#endif
  PetscCall(BTEEprDestroy(&p.epr));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEModelCreate_Perturbo(BTE bte)
{
  PerturboOptions *o;

  PetscFunctionBegin;
  PetscCall(PetscNew(&o));
  o->nkd                       = 3;
  o->nqd                       = 3;
  o->nbd                       = 2;
  o->monitor                   = PETSC_TRUE;
  o->gpuphonons                = PETSC_TRUE;
  o->gpuchannels               = PETSC_TRUE;
  o->lr                        = PETSC_TRUE;
  o->carrier                   = (PetscEnum)0;
  bte->modeldata               = o;
  bte->modelops.setfromoptions = BTEModelSetFromOptions_Perturbo;
  bte->modelops.generate       = BTEModelGenerate_Perturbo;
  PetscFunctionReturn(0);
}
