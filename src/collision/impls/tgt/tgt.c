/* tgt: Perturbo v3's GPU algorithm (two passes over its target layer), on the CPU and on CUDA.

   The layout (include/bte/private/tgtlayout.h maps it onto Perturbo's arrays): `scatter` (per
   (k, k+q) pair: ik, ikq, iq), `scatter_channels` (per channel: pair index, packed band pair and
   mode, and |g|^2, or with -bte_tgt_store_g2dt the two Gaussian-weighted products), a phonon
   table ((hbar w, N) per (q, mode) of the held pairs) and the target layer: for every owned
   state its signed sources (1-based channel indices: + for the (n,k) = i end, - for the
   (m,k+q) = j end), in channel order, and the order in which pass 2 runs the targets
   (decreasing source count with -bte_tgt_sort_targets, Perturbo's CDYN_SORT_SCAT_TGTS).

   Apply: pass 1, one value per channel x_c into sc_col (the Gaussians evaluated, or read with
   STORE_G2DT); pass 2, each target sums its signed sources. No atomics. The CPU kernels here are
   the reference of the CUDA ones (tgt_cuda.cu).

   Options (Perturbo v3's build switches, pert-src/pert_config.h, and their defaults there):
     -bte_tgt_sort_targets  CDYN_SORT_SCAT_TGTS, defined in Perturbo's suggested configuration: on
     -bte_tgt_store_g2dt    STORE_G2DT, commented out in Perturbo's suggested configuration (it
                            costs 8 more bytes per channel): off
   Neither changes what is computed: a_c, b_c are the same expressions evaluated at setup instead
   of in every apply (bitwise the same on the CPU), and the order of the targets changes no sum.

   Setup builds the layout in parallel on the host (OpenMP: stable counting sorts with per-thread
   blocks, so the layout does not depend on the number of threads), or on the device
   (tgt_build_cuda.cu, CUB radix sorts) when the state Vecs are CUDA Vecs; both give the same
   layout (the device's exp() may change the last bit of the stored products). */
#include <bte/private/collisionimpl.h>
#include <bte/private/tgtlayout.h>
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisioncuda.h>
#endif

static const char *const TgtBuilds[] = {"auto", "host", "device", "BTETgtBuild", "", NULL};

typedef struct {
  BTETgtLayout L;
  PetscBool    sort;     /* -bte_tgt_sort_targets */
  PetscBool    g2dt;     /* -bte_tgt_store_g2dt */
  PetscInt     build;    /* -bte_tgt_build: 0 auto, 1 host, 2 device */
  PetscInt     lanes;    /* -bte_tgt_lanes: CUDA pass 2, threads per target (0: chosen from the sizes) */
  PetscBool    ondevice; /* built on the device: the per-channel arrays reach the host only for a host apply */
  PetscReal   *sc_col;   /* host pass-1 output (made on the first host apply) */
  PetscReal   *sc_col2;  /* second value per channel for the Jacobian diagonal */
#if defined(BTE_HAVE_CUDA)
  BTETgtCUDA cuda; /* device layout: built there, or uploaded on the first apply on CUDA Vecs */
#endif
} BTECollision_Tgt;

/* pass 1 per channel (exp counted as one): a and b 14, x_c 13 (+4 when N is computed); pass 2: 1 per entry */
#define TGT_FLOPS_AB 14.0
#define TGT_FLOPS_X  13.0

/* Pass 1 modes */
typedef enum {
  TGT_VALUE,    /* x_c */
  TGT_JACOBIAN, /* d x_c = dx_c/df_i x_i + dx_c/df_j x_j */
  TGT_DIAGONAL  /* dx_c/df_i and -dx_c/df_j */
} TgtPass;

#if defined(BTE_HAVE_CUDA)
static PetscErrorCode TgtCUDAInfo(BTECollision coll, BTETgtCUDAInfo *info)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;

  PetscFunctionBegin;
  info->pref   = coll->pref;
  info->inveta = coll->inveta;
  info->gnorm  = coll->gnorm;
  info->kT     = coll->kT;
  info->kTdb   = coll->kTdb;
  info->energy = coll->energy;
  info->lanes  = tg->lanes;
  PetscFunctionReturn(0);
}

static PetscErrorCode TgtGetCUDA(BTECollision coll, BTETgtCUDA *h)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;

  PetscFunctionBegin;
  if (!tg->cuda) {
    BTETgtCUDAInfo info;
    PetscCall(TgtCUDAInfo(coll, &info));
    PetscCall(BTETgtCUDACreate(&tg->L, &info, &tg->cuda));
  }
  *h = tg->cuda;
  PetscFunctionReturn(0);
}
  #define TGT_CUDA_DISPATCH(coll, fl, call) \
    do { \
      PetscBool  dev_; \
      BTETgtCUDA h_ = NULL; \
      PetscCall(BTECollisionVecIsCUDA(fl, &dev_)); \
      if (dev_) { \
        PetscCall(TgtGetCUDA(coll, &h_)); \
        PetscCall(call); \
        PetscFunctionReturn(0); \
      } \
    } while (0)
#else
  #define TGT_CUDA_DISPATCH(coll, fl, call) \
    do { \
    } while (0)
#endif

/* host work arrays (and, for a layout built on the device, its per-channel arrays) for a host apply */
static PetscErrorCode TgtHostReady(BTECollision coll, PetscBool diag)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (!tg->L.pairidx) PetscCall(BTETgtCUDADownload(tg->cuda, &tg->L));
#endif
  PetscCheck(tg->L.pairidx || !tg->L.nch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt: no host layout");
  if (!tg->sc_col) PetscCall(PetscMalloc1(PetscMax(tg->L.nch, 1), &tg->sc_col));
  if (diag && !tg->sc_col2) PetscCall(PetscMalloc1(PetscMax(tg->L.nch, 1), &tg->sc_col2));
  PetscFunctionReturn(0);
}

static PetscErrorCode TgtPass1(BTECollision coll, const PetscScalar *f, const PetscScalar *x, TgtPass mode)
{
  BTECollision_Tgt   *tg = (BTECollision_Tgt *)coll->data;
  const BTETgtLayout *L  = &tg->L;
  const PetscReal    *e  = coll->energy;
  const int32_t       nb = L->nbands, nm = L->nmodes, bb = L->bbits;
  const PetscReal     pref = coll->pref, inveta = coll->inveta, gnorm = coll->gnorm, kT = coll->kT, kTdb = coll->kTdb;
  const int32_t      *kb = L->kb2state, *sc = L->scatter;
  const int64_t       nch = L->nch;
  PetscReal          *out = tg->sc_col, *out2 = tg->sc_col2;

  PetscFunctionBegin;
#pragma omp parallel for schedule(static)
  for (int64_t s = 0; s < nch; s++) {
    const int32_t  p = L->pairidx[s], pk = L->bands[s];
    const int32_t *r = sc + 3 * (int64_t)p;
    const int32_t  md = BTE_TGT_MODE(pk, bb), n = BTE_TGT_N(pk, bb), m = BTE_TGT_M(pk, bb);
    const int32_t  i = kb[r[0] * nb + n], j = kb[r[1] * nb + m];
    PetscReal      hw, N, a, b, fi = PetscRealPart(f[i]), fj = PetscRealPart(f[j]);
    if (L->hw_per_channel) {
      hw = L->hwch[s];
      N  = BTECollBose(hw, kT);
    } else {
      const double *w = L->wqn + 2 * ((int64_t)r[2] * nm + md);
      hw              = w[0];
      N               = w[1];
    }
    if (L->store_g2dt) {
      a = L->g2dt[2 * s];
      b = L->g2dt[2 * s + 1];
    } else BTECollWeightsAB(pref, inveta, gnorm, kTdb, e[i], e[j], hw, L->g2[s], &a, &b);
    if (mode == TGT_VALUE) out[s] = BTECollXabs(a, b, N, fi, fj);
    else {
      PetscReal P, Q, dxi, dxj;
      BTECollWeightsPQ(a, b, N, &P, &Q);
      dxi = -(P * (1.0 - fj) + Q * fj);
      dxj = P * fi + Q * (1.0 - fi);
      if (mode == TGT_JACOBIAN) out[s] = dxi * PetscRealPart(x[i]) + dxj * PetscRealPart(x[j]);
      else {
        out[s]  = dxi;
        out2[s] = -dxj;
      }
    }
  }
  PetscCall(PetscLogFlops((TGT_FLOPS_X + (L->store_g2dt ? 0.0 : TGT_FLOPS_AB) + (L->hw_per_channel ? 4.0 : 0.0) + (mode == TGT_VALUE ? 0.0 : 8.0)) * (PetscLogDouble)nch));
  PetscFunctionReturn(0);
}

/* pass 2: y_t = sum over the signed sources of t, targets in the layout's order; second != NULL
   takes the - sources from it with + sign */
static PetscErrorCode TgtPass2(BTECollision coll, const PetscReal *first, const PetscReal *second, PetscScalar *y)
{
  BTECollision_Tgt   *tg = (BTECollision_Tgt *)coll->data;
  const BTETgtLayout *L  = &tg->L;

  PetscFunctionBegin;
#pragma omp parallel for schedule(dynamic, 32)
  for (int32_t k = 0; k < L->nlocal; k++) {
    const int32_t t = L->order[k];
    PetscReal     s = 0;
    for (int64_t e = L->rowptr[t]; e < L->rowptr[t + 1]; e++) {
      const int32_t src = L->sources[e];
      if (src > 0) s += first[src - 1];
      else if (second) s += second[-src - 1];
      else s -= first[-src - 1];
    }
    y[t] = s;
  }
  PetscCall(PetscLogFlops((PetscLogDouble)L->nentries));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionApply_Tgt(BTECollision coll, Vec fl, Vec Iv)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  const PetscScalar *f;
  PetscScalar       *y;

  PetscFunctionBegin;
  TGT_CUDA_DISPATCH(coll, fl, BTETgtCUDARun(h_, 0, fl, NULL, Iv));
  PetscCall(TgtHostReady(coll, PETSC_FALSE));
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(TgtPass1(coll, f, NULL, TGT_VALUE));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(Iv, &y));
  PetscCall(TgtPass2(coll, tg->sc_col, NULL, y));
  PetscCall(VecRestoreArrayWrite(Iv, &y));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianApply_Tgt(BTECollision coll, Vec fl, Vec xl, Vec Y)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  const PetscScalar *f, *x;
  PetscScalar       *y;

  PetscFunctionBegin;
  TGT_CUDA_DISPATCH(coll, fl, BTETgtCUDARun(h_, 1, fl, xl, Y));
  PetscCall(TgtHostReady(coll, PETSC_FALSE));
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(VecGetArrayRead(xl, &x));
  PetscCall(TgtPass1(coll, f, x, TGT_JACOBIAN));
  PetscCall(VecRestoreArrayRead(xl, &x));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(Y, &y));
  PetscCall(TgtPass2(coll, tg->sc_col, NULL, y));
  PetscCall(VecRestoreArrayWrite(Y, &y));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianDiagonal_Tgt(BTECollision coll, Vec fl, Vec D)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  const PetscScalar *f;
  PetscScalar       *y;

  PetscFunctionBegin;
  TGT_CUDA_DISPATCH(coll, fl, BTETgtCUDARun(h_, 2, fl, NULL, D));
  PetscCall(TgtHostReady(coll, PETSC_TRUE));
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(TgtPass1(coll, f, NULL, TGT_DIAGONAL));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(D, &y));
  PetscCall(TgtPass2(coll, tg->sc_col, tg->sc_col2, y));
  PetscCall(VecRestoreArrayWrite(D, &y));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Host build (parallel). Every sort is a stable counting sort whose input is cut into a fixed
   number of blocks (not threads), so the result is the serial one for any number of threads. */

/* blocks of a parallel counting sort over n items: the threads, fewer for small inputs */
static int TgtBlocks(int64_t n)
{
  int T = 1;
#if defined(_OPENMP)
  T = omp_get_max_threads();
#endif
  if ((int64_t)T * 1024 > n) T = (int)PetscMax(1, n / 1024);
  return T;
}

/* out lists 0..n-1 stably sorted by key (0 <= key < nkey); bptr[k] .. bptr[k+1]-1: the items of key k */
static PetscErrorCode TgtCountingSort(int64_t n, const int32_t key[], int32_t nkey, int32_t out[], int64_t bptr[])
{
  const int T = TgtBlocks(n);
  int64_t  *cnt, off = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1((size_t)T * nkey + 1, &cnt));
#pragma omp parallel for schedule(static, 1)
  for (int v = 0; v < T; v++) {
    int64_t *c = cnt + (size_t)v * nkey;
    for (int64_t p = n * v / T; p < n * (v + 1) / T; p++) c[key[p]]++;
  }
  for (int32_t k = 0; k < nkey; k++) {
    bptr[k] = off;
    for (int v = 0; v < T; v++) {
      const int64_t m        = cnt[(size_t)v * nkey + k];
      cnt[(size_t)v * nkey + k] = off;
      off += m;
    }
  }
  bptr[nkey] = off;
#pragma omp parallel for schedule(static, 1)
  for (int v = 0; v < T; v++) {
    int64_t *c = cnt + (size_t)v * nkey;
    for (int64_t p = n * v / T; p < n * (v + 1) / T; p++) out[c[key[p]]++] = (int32_t)p;
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

/* a[0..n-1] stably sorted by their upper 32 bits (< 2^hbits); tmp: n scratch words */
static void TgtSortUpper(int64_t n, uint64_t *a, uint64_t *tmp, int hbits)
{
  uint64_t *src = a, *dst = tmp;

  if (n < 48) { /* insertion sort (stable) */
    for (int64_t i = 1; i < n; i++) {
      const uint64_t v = a[i];
      int64_t        k = i - 1;
      while (k >= 0 && (a[k] >> 32) > (v >> 32)) {
        a[k + 1] = a[k];
        k--;
      }
      a[k + 1] = v;
    }
    return;
  }
  for (int sh = 32; sh < 32 + hbits; sh += 8) { /* LSD radix, one byte per pass */
    int64_t cnt[257];
    memset(cnt, 0, sizeof(cnt));
    for (int64_t i = 0; i < n; i++) cnt[((src[i] >> sh) & 255) + 1]++;
    for (int d = 0; d < 256; d++) cnt[d + 1] += cnt[d];
    for (int64_t i = 0; i < n; i++) dst[cnt[(src[i] >> sh) & 255]++] = src[i];
    {
      uint64_t *t = src;
      src         = dst;
      dst         = t;
    }
  }
  if (src != a) memcpy(a, src, (size_t)n * sizeof(uint64_t));
}

static int TgtBits(int64_t v) /* bits to hold 0..v */
{
  int b = 0;
  while (b < 62 && ((int64_t)1 << b) <= v) b++;
  return b;
}

/* The target layer: sources of owned state t = the channel ends at t, in channel order; entries
   placed in parallel by blocks of channels (per-block counts per target). */
static PetscErrorCode TgtBuildTargets(BTETgtLayout *L, const int32_t cis[], const int32_t cjs[])
{
  const int64_t nch = L->nch;
  const int32_t nlocal = L->nlocal;
  const int     T      = TgtBlocks(nch);
  int64_t      *cnt, off = 0;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1((size_t)T * nlocal + 1, &cnt));
#pragma omp parallel for schedule(static, 1)
  for (int v = 0; v < T; v++) {
    int64_t *c = cnt + (size_t)v * nlocal;
    for (int64_t s = nch * v / T; s < nch * (v + 1) / T; s++) {
      if (cis[s] < nlocal) c[cis[s]]++;
      if (cjs[s] < nlocal) c[cjs[s]]++;
    }
  }
  PetscCall(PetscMalloc1((size_t)nlocal + 1, &L->rowptr));
  for (int32_t t = 0; t < nlocal; t++) {
    L->rowptr[t] = off;
    for (int v = 0; v < T; v++) {
      const int64_t m            = cnt[(size_t)v * nlocal + t];
      cnt[(size_t)v * nlocal + t] = off;
      off += m;
    }
  }
  L->rowptr[nlocal] = off;
  L->nentries       = off;
  PetscCheck(off <= (int64_t)UINT32_MAX - 4096, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt: %" PetscInt64_FMT " sources on one rank exceed its 32-bit offsets; use more ranks", (PetscInt64)off);
  PetscCall(PetscMalloc1(PetscMax(off, 1), &L->sources));
#pragma omp parallel for schedule(static, 1)
  for (int v = 0; v < T; v++) {
    int64_t *c = cnt + (size_t)v * nlocal;
    for (int64_t s = nch * v / T; s < nch * (v + 1) / T; s++) {
      if (cis[s] < nlocal) L->sources[c[cis[s]]++] = (int32_t)(s + 1);
      if (cjs[s] < nlocal) L->sources[c[cjs[s]]++] = -(int32_t)(s + 1);
    }
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

/* The layout on the host, from the table's channels. kt: the k-point table of the local states. */
static PetscErrorCode TgtBuildHost(BTECollision coll, const BTECollisionKTable *kt, PetscBool *consistent)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  BTETgtLayout      *L  = &tg->L;
  const BTEChannels *ch = &coll->bte->ch;
  const int64_t      nch = L->nch;
  const int32_t      nkp = L->nkp, nm = L->nmodes, bb = L->bbits;
  PetscInt          *ci, *cj;
  int32_t           *key, *perm, *cis, *cjs, *qrow, *pkey, *pperm; /* key: freed after its sort (host peak) */
  int64_t           *bptr, *npb, *pstart, *rptr, maxb = 0, badmode = -1;
  PetscInt          *iqp;
  int                hbits = PetscMax(1, TgtBits(nkp - 1));
  PetscInt           bad   = 0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_LayoutPlace, coll, 0, 0, 0));
  PetscCall(BTECollisionComputeLocalEnds(coll, &ci, &cj));
  /* (k, k+q) pairs: channels by the k point of their i end, then (within each k point, a
     stable sort) by the k point of their j end; the pairs are the runs of equal (ik, ikq) */
  PetscCall(PetscMalloc1(PetscMax(nch, 1), &key));
  PetscCall(PetscMalloc1(PetscMax(nch, 1), &perm));
  PetscCall(PetscMalloc2((size_t)nkp + 1, &bptr, (size_t)nkp + 1, &npb));
#pragma omp parallel for schedule(static)
  for (int64_t c = 0; c < nch; c++) key[c] = (int32_t)kt->state_kp[ci[c]];
  PetscCall(TgtCountingSort(nch, key, nkp, perm, bptr));
  PetscCall(PetscFree(key));
  for (int32_t b = 0; b < nkp; b++) maxb = PetscMax(maxb, bptr[b + 1] - bptr[b]);
  {
    int       T = 1;
    uint64_t *scratch;
#if defined(_OPENMP)
    T = omp_get_max_threads();
#endif
    PetscCall(PetscMalloc1((size_t)T * 2 * PetscMax(maxb, 1), &scratch));
#pragma omp parallel
    {
      int tid = 0;
#if defined(_OPENMP)
      tid = omp_get_thread_num();
#endif
      uint64_t *a = scratch + (size_t)tid * 2 * PetscMax(maxb, 1), *tmp = a + PetscMax(maxb, 1);
#pragma omp for schedule(dynamic, 16)
      for (int32_t b = 0; b < nkp; b++) {
        const int64_t b0 = bptr[b], n = bptr[b + 1] - b0;
        int64_t       np = 0;
        for (int64_t k = 0; k < n; k++) a[k] = ((uint64_t)kt->state_kp[cj[perm[b0 + k]]] << 32) | (uint32_t)perm[b0 + k];
        TgtSortUpper(n, a, tmp, hbits);
        for (int64_t k = 0; k < n; k++) {
          perm[b0 + k] = (int32_t)(a[k] & 0xffffffffu);
          if (!k || (a[k] >> 32) != (a[k - 1] >> 32)) np++;
        }
        npb[b] = np;
      }
    }
    PetscCall(PetscFree(scratch));
  }
  L->npair = 0;
  for (int32_t b = 0; b < nkp; b++) {
    const int64_t m = npb[b];
    npb[b]          = L->npair;
    L->npair += m;
  }
  npb[nkp] = L->npair;
  PetscCheck(L->npair < (int64_t)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt: %" PetscInt64_FMT " (k, k+q) pairs exceed 32-bit pair indices", (PetscInt64)L->npair);
  PetscCall(PetscMalloc1(3 * PetscMax(L->npair, 1), &L->scatter));
  PetscCall(PetscMalloc2(L->npair + 1, &pstart, PetscMax(L->npair, 1), &iqp));
#pragma omp parallel for schedule(dynamic, 16)
  for (int32_t b = 0; b < nkp; b++) {
    int64_t p = npb[b];
    for (int64_t s = bptr[b]; s < bptr[b + 1]; s++) {
      const int32_t c = perm[s];
      if (s == bptr[b] || kt->state_kp[cj[c]] != kt->state_kp[cj[perm[s - 1]]]) {
        pstart[p]             = s;
        L->scatter[3 * p]     = b;
        L->scatter[3 * p + 1] = (int32_t)kt->state_kp[cj[c]];
        iqp[p]                = BTECollQIndex(coll->nk, coll->kindex[ci[c]], coll->kindex[cj[c]]);
        p++;
      }
    }
  }
  pstart[L->npair] = nch;
  PetscCall(PetscFree2(bptr, npb));
  /* rows of the phonon table: the distinct q of the pairs, in increasing q index */
  PetscCheck(coll->nq < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt: a q grid of %" PetscInt64_FMT " points exceeds 32-bit indices", (PetscInt64)coll->nq);
  PetscCall(PetscCalloc1((size_t)coll->nq, &qrow));
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < L->npair; p++) {
#pragma omp atomic write
    qrow[iqp[p]] = 1;
  }
  L->nqc = 0;
  for (int64_t q = 0; q < coll->nq; q++) qrow[q] = qrow[q] ? L->nqc++ : -1;
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < L->npair; p++) L->scatter[3 * p + 2] = qrow[iqp[p]];
  PetscCall(PetscFree(qrow));
  PetscCall(PetscLogEventEnd(BTECOLL_LayoutPlace, coll, 0, 0, 0));

  /* scatter_channels in pair order, and the local ends in that order (for the target layer) */
  PetscCall(PetscLogEventBegin(BTECOLL_LayoutMerge, coll, 0, 0, 0));
  PetscCall(PetscMalloc2(PetscMax(nch, 1), &L->pairidx, PetscMax(nch, 1), &L->bands));
  PetscCall(PetscMalloc1(PetscMax(nch, 1), &L->g2));
  L->store_g2dt = tg->g2dt ? 1 : 0;
  PetscCall(PetscMalloc2(PetscMax(nch, 1), &cis, PetscMax(nch, 1), &cjs));
#pragma omp parallel for schedule(dynamic, 256) reduction(max : badmode)
  for (int64_t p = 0; p < L->npair; p++) {
    for (int64_t s = pstart[p]; s < pstart[p + 1]; s++) {
      const int32_t  c = perm[s];
      const PetscInt md = ch->mode[c];
      if (md < 0 || md >= nm) badmode = PetscMax(badmode, (int64_t)c);
      L->pairidx[s] = (int32_t)p;
      L->bands[s]   = (int32_t)(((int64_t)md << (2 * bb)) | ((int64_t)coll->band[ci[c]] << bb) | coll->band[cj[c]]);
      L->g2[s]      = ch->g2[c];
      cis[s]        = (int32_t)ci[c];
      cjs[s]        = (int32_t)cj[c];
    }
  }
  PetscCheck(badmode < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscInt64_FMT " has mode %" PetscInt_FMT " outside 0..%d", (PetscInt64)badmode, badmode >= 0 ? ch->mode[badmode] : 0, (int)nm - 1);
  PetscCall(PetscFree2(ci, cj));
  /* phonon table: hw of the first channel (in pair order) of each (row, mode); every other
     channel of it must agree (1e-10 relative), else hw is kept per channel. Pairs by row
     (stable), rows in parallel: the first channel is the serial one. */
  PetscCall(PetscMalloc1(2 * PetscMax((size_t)L->nqc * nm, 1), &L->wqn));
  for (int64_t k = 0; k < (int64_t)L->nqc * nm; k++) {
    L->wqn[2 * k]     = -1.0;
    L->wqn[2 * k + 1] = 0.0;
  }
  PetscCall(PetscMalloc3(PetscMax(L->npair, 1), &pkey, PetscMax(L->npair, 1), &pperm, (size_t)L->nqc + 1, &rptr));
#pragma omp parallel for schedule(static)
  for (int64_t p = 0; p < L->npair; p++) pkey[p] = L->scatter[3 * p + 2];
  PetscCall(TgtCountingSort(L->npair, pkey, L->nqc, pperm, rptr));
#pragma omp parallel for schedule(dynamic, 64) reduction(max : bad)
  for (int32_t r = 0; r < L->nqc; r++) {
    for (int64_t k = rptr[r]; k < rptr[r + 1]; k++) {
      const int32_t p = pperm[k];
      for (int64_t s = pstart[p]; s < pstart[p + 1]; s++) {
        double         *w  = L->wqn + 2 * ((int64_t)r * nm + BTE_TGT_MODE(L->bands[s], bb));
        const PetscReal hw = ch->hw[perm[s]];
        if (*w < 0) *w = hw;
        else if (PetscAbsReal(*w - hw) > 1e-10 * PetscAbsReal(hw)) bad = 1;
      }
    }
  }
  PetscCall(PetscFree3(pkey, pperm, rptr));
  PetscCall(PetscFree2(pstart, iqp));
  *consistent       = bad ? PETSC_FALSE : PETSC_TRUE;
  L->hw_per_channel = bad ? 1 : 0;
  if (!*consistent) {
    PetscCall(PetscMalloc1(PetscMax(nch, 1), &L->hwch));
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < nch; s++) L->hwch[s] = ch->hw[perm[s]];
  }
  PetscCall(PetscFree(perm));
  /* STORE_G2DT: a_c, b_c of collisionimpl.h, with the hw the apply would use */
  if (tg->g2dt) {
    const PetscReal *e = coll->energy;
    PetscCall(PetscMalloc1(2 * PetscMax(nch, 1), &L->g2dt));
#pragma omp parallel for schedule(static)
    for (int64_t s = 0; s < nch; s++) {
      const PetscReal hw = L->hwch ? L->hwch[s] : L->wqn[2 * ((int64_t)L->scatter[3 * (int64_t)L->pairidx[s] + 2] * nm + BTE_TGT_MODE(L->bands[s], bb))];
      BTECollWeightsAB(coll->pref, coll->inveta, coll->gnorm, coll->kTdb, e[cis[s]], e[cjs[s]], hw, L->g2[s], &L->g2dt[2 * s], &L->g2dt[2 * s + 1]);
    }
    PetscCall(PetscFree(L->g2));
  }
  PetscCall(PetscLogEventEnd(BTECOLL_LayoutMerge, coll, 0, 0, 0));
  PetscCall(PetscLogEventBegin(BTECOLL_LayoutIndex, coll, 0, 0, 0));
  PetscCall(TgtBuildTargets(L, cis, cjs));
  PetscCall(PetscFree2(cis, cjs));
  PetscCall(PetscLogEventEnd(BTECOLL_LayoutIndex, coll, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* The order of pass 2 (CDYN_SORT_SCAT_TGTS: by decreasing source count, ties by state) */
static PetscErrorCode TgtOrder(BTETgtLayout *L, PetscBool sort)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(L->nlocal, 1), &L->order));
  if (sort) {
    uint64_t *k;
    PetscCall(PetscMalloc1(PetscMax(L->nlocal, 1), &k));
    for (int32_t t = 0; t < L->nlocal; t++) k[t] = ((uint64_t)(UINT32_MAX - (uint32_t)(L->rowptr[t + 1] - L->rowptr[t])) << 31) | (uint64_t)t;
    PetscCall(PetscSortInt64(L->nlocal, (PetscInt64 *)k)); /* all keys < 2^63 */
    for (int32_t t = 0; t < L->nlocal; t++) L->order[t] = (int32_t)(k[t] & 0x7fffffffu);
    PetscCall(PetscFree(k));
  } else
    for (int32_t t = 0; t < L->nlocal; t++) L->order[t] = t;
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* Where to build: -bte_tgt_build, or (auto) on the device when the run's state Vecs are CUDA Vecs. */
static PetscErrorCode TgtBuildOnDevice(BTECollision coll, PetscBool *dev)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;

  PetscFunctionBegin;
  *dev = tg->build == 2 ? PETSC_TRUE : PETSC_FALSE;
  if (tg->build == 0) {
    Vec v;
    PetscCall(BTECreateStateVec(coll->bte, &v));
    PetscCall(BTECollisionVecIsCUDA(v, dev));
    PetscCall(VecDestroy(&v));
  }
  PetscFunctionReturn(0);
}
#endif

static PetscErrorCode BTECollisionSetUp_Tgt(BTECollision coll)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  BTETgtLayout      *L  = &tg->L;
  BTECollisionKTable kt;
  PetscInt           nb = coll->nbands, nm = coll->nmodes;
  PetscBool          consistent = PETSC_TRUE, dev = PETSC_FALSE;
  PetscLogDouble     perch;

  PetscFunctionBegin;
  PetscCall(BTEChannelsGetHost(coll->bte)); /* the GPU import may not have filled them yet */
  PetscCheck(coll->nch < (PetscCount)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt stores 32-bit signed channel indices: %" PetscCount_FMT " channels on one rank is too many; use more ranks or -bte_collision_type pair", coll->nch);
#if !defined(BTE_HAVE_CUDA)
  PetscCheck(tg->build != 2, PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "-bte_tgt_build device needs bte built with a CUDA PETSc");
#endif
  PetscCall(PetscMemzero(L, sizeof(*L)));
  L->nlocal = (int32_t)coll->nlocal;
  L->n      = (int32_t)(coll->nlocal + coll->nghost);
  L->nbands = (int32_t)nb;
  L->nmodes = (int32_t)nm;
  L->bbits  = TgtBits(nb - 1);
  L->nch    = (int64_t)coll->nch;
  PetscCheck(2 * L->bbits + TgtBits(nm - 1) <= 31, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt packs two band indices and a mode into 31 bits: %" PetscInt_FMT " bands and %" PetscInt_FMT " modes do not fit", nb, nm);
  PetscCall(BTECollisionKTableCreate(coll, &kt));
  L->nkp      = (int32_t)kt.nkp;
  L->kb2state = kt.kb2state;
  kt.kb2state = NULL;
#if defined(BTE_HAVE_CUDA)
  PetscCall(TgtBuildOnDevice(coll, &dev));
  if (dev) {
    BTETgtCUDABuildInfo info;
    BTETgtCUDABuilder   B;
    PetscBool           fits;
    info.nlocal   = coll->nlocal;
    info.nghost   = coll->nghost;
    info.rstart   = coll->rstart;
    info.ghosts   = coll->ghosts;
    info.state_kp = kt.state_kp;
    info.kp       = kt.kp;
    info.band     = coll->band;
    info.energy   = coll->energy;
    info.nq       = coll->nq;
    for (int a = 0; a < 3; a++) info.nk[a] = coll->nk[a];
    info.pref   = coll->pref;
    info.inveta = coll->inveta;
    info.gnorm  = coll->gnorm;
    info.kTdb   = coll->kTdb;
    info.g2dt   = tg->g2dt;
    PetscCall(BTETgtCUDABuilderCreate(L, &info, &fits, &B));
    PetscCheck(fits || tg->build != 2, PETSC_COMM_SELF, PETSC_ERR_MEM, "-bte_tgt_build device: the device lacks the memory to build the layout of %" PetscCount_FMT " channels; use -bte_tgt_build host", coll->nch);
    if (fits) {
      const BTEChannels *ch = &coll->bte->ch;
      PetscCall(PetscLogEventBegin(BTECOLL_LayoutPlace, coll, 0, 0, 0));
      PetscCall(BTETgtCUDABuilderAdd(B, ch->n, ch->i, ch->j, ch->mode, ch->hw, ch->g2));
      PetscCall(PetscLogEventEnd(BTECOLL_LayoutPlace, coll, 0, 0, 0));
      PetscCall(PetscLogEventBegin(BTECOLL_LayoutMerge, coll, 0, 0, 0));
      PetscCall(BTETgtCUDABuilderLayout(B, L, &consistent));
      PetscCall(PetscLogEventEnd(BTECOLL_LayoutMerge, coll, 0, 0, 0));
      tg->ondevice = PETSC_TRUE;
    } else {
      PetscCall(PetscInfo(coll, "tgt layout: not enough device memory to build it there, building on the host\n"));
      dev = PETSC_FALSE;
    }
    if (!dev) PetscCall(BTETgtCUDABuilderDestroy(&B));
    else {
      /* N of the phonon table and the order of the targets on the host (small), then the device layout */
      BTETgtCUDAInfo cinfo;
      for (int64_t k = 0; k < (int64_t)L->nqc * nm; k++) L->wqn[2 * k + 1] = L->wqn[2 * k] > 0 ? BTECollBose(L->wqn[2 * k], coll->kT) : 0.0;
      PetscCall(TgtOrder(L, tg->sort));
      PetscCall(TgtCUDAInfo(coll, &cinfo));
      PetscCall(PetscLogEventBegin(BTECOLL_LayoutIndex, coll, 0, 0, 0));
      PetscCall(BTETgtCUDABuilderFinish(&B, L, &cinfo, &tg->cuda));
      PetscCall(PetscLogEventEnd(BTECOLL_LayoutIndex, coll, 0, 0, 0));
    }
  }
#endif
  if (!dev) {
    PetscCall(TgtBuildHost(coll, &kt, &consistent));
    for (int64_t k = 0; k < (int64_t)L->nqc * nm; k++) L->wqn[2 * k + 1] = L->wqn[2 * k] > 0 ? BTECollBose(L->wqn[2 * k], coll->kT) : 0.0;
    PetscCall(TgtOrder(L, tg->sort));
  }
  PetscCall(BTECollisionKTableDestroy(&kt));
  if (!consistent) PetscCall(PetscInfo(coll, "Phonon energies differ within a (q, mode): tgt keeps hw per channel\n"));
  /* What an apply streams at least, per held channel: scatter_channels (pair index, packed bands,
     |g|^2 or the two products, hw when kept per channel), the two source entries of its owned
     ends, and sc_col written in pass 1 and read back in pass 2; per pair its scatter record, per
     target its record; the phonon table and kb2state once (they are small and cached). Pass 2's
     gathers of sc_col are scattered: the device moves 32-byte sectors, so the real traffic is
     higher (docs/collision.md). */
  perch       = 2 * sizeof(int32_t) + (L->store_g2dt ? 2 : 1) * sizeof(double) + (L->hw_per_channel ? sizeof(double) : 0) + 2 * sizeof(double);
  coll->bytes = (PetscLogDouble)L->nch * perch + (PetscLogDouble)L->npair * 3 * sizeof(int32_t) + (PetscLogDouble)L->nentries * sizeof(int32_t) + (PetscLogDouble)L->nlocal * 4 * sizeof(int32_t) + (PetscLogDouble)L->nqc * nm * 2 * sizeof(double) + (PetscLogDouble)L->nkp * nb * sizeof(int32_t);
  coll->nentries = L->nentries;
  {
    int64_t longest = 0;
    if (L->nlocal) longest = L->rowptr[L->order[0] + 1] - L->rowptr[L->order[0]];
    PetscCall(PetscInfo(coll, "tgt layout (built on the %s): %" PetscInt64_FMT " channels, %" PetscInt64_FMT " pairs, %d q rows, %" PetscInt64_FMT " sources, first target %d with %" PetscInt64_FMT " sources, hw %s\n", tg->ondevice ? "device" : "host", (PetscInt64)L->nch, (PetscInt64)L->npair, (int)L->nqc, (PetscInt64)L->nentries, L->nlocal ? (int)L->order[0] : -1, (PetscInt64)longest, L->hw_per_channel ? "per channel" : "per (q, mode)"));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionSetFromOptions_Tgt(BTECollision coll)
{
  BTECollision_Tgt *tg    = (BTECollision_Tgt *)coll->data;
  PetscBool         lanes = PETSC_FALSE; /* CUDA only: given to a build without CUDA it would be ignored */

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)coll), ((PetscObject)coll)->prefix, "Collision operator type tgt (-bte_collision_type tgt: Perturbo v3's two passes)", "BTECollision");
  PetscCall(PetscOptionsBool("-bte_tgt_sort_targets", "Run pass 2's targets by decreasing source count (Perturbo's CDYN_SORT_SCAT_TGTS, on in its suggested build)", "BTECollision", tg->sort, &tg->sort, NULL));
  PetscCall(PetscOptionsBool("-bte_tgt_store_g2dt", "Store |g|^2 times the two Gaussians per channel, so that pass 1 evaluates no exp (Perturbo's STORE_G2DT, off in its suggested build: 8 more bytes per channel)", "BTECollision", tg->g2dt, &tg->g2dt, NULL));
  PetscCall(PetscOptionsEList("-bte_tgt_build", "Where the layout is built: auto (on the device when the state Vecs are CUDA Vecs), host or device", "BTECollision", TgtBuilds, 3, TgtBuilds[tg->build], &tg->build, NULL));
  PetscCall(PetscOptionsInt("-bte_tgt_lanes", "CUDA pass 2: threads that sum one target's sources (1: a thread per target; 32, 64, 128, 256: warps per target; 0: chosen from the sizes)", "BTECollision", tg->lanes, &tg->lanes, &lanes));
  PetscOptionsEnd();
  PetscCheck(tg->lanes == 0 || tg->lanes == 1 || tg->lanes == 32 || tg->lanes == 64 || tg->lanes == 128 || tg->lanes == 256, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "-bte_tgt_lanes must be 0, 1, 32, 64, 128 or 256, got %" PetscInt_FMT, tg->lanes);
#if !defined(BTE_HAVE_CUDA)
  PetscCheck(!lanes, PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "-bte_tgt_lanes is an option of the tgt operator's CUDA kernels: bte was built without CUDA (docs/gpu.md); leave it out");
#else
  (void)lanes;
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionView_Tgt(BTECollision coll, PetscViewer viewer)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;
  double            loc[3] = {(double)tg->L.npair, tg->L.hw_per_channel ? 1.0 : 0.0, tg->ondevice ? 1.0 : 0.0}, sum[3];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(loc, sum, 3, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)coll)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "tgt layout (Perturbo v3): %.0f (k, k+q) pairs in scatter, %d B per channel in scatter_channels (%s), 4 B per signed source, two passes (sc_col)\n", sum[0], (int)(2 * sizeof(int32_t) + (tg->g2dt ? 2 : 1) * sizeof(double)), tg->g2dt ? "STORE_G2DT: g2 dt1, g2 dt2" : "g2"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "targets %s (CDYN_SORT_SCAT_TGTS %s); built on the %s\n", tg->sort ? "by decreasing source count" : "in state order", tg->sort ? "on" : "off", sum[2] > 0 ? "device" : "host"));
  {
    /* coll->bytes counts sc_col twice (written, then read back); the memory holds it once */
    double b[2] = {coll->bytes, coll->bytes - (double)tg->L.nch * sizeof(double)}, bs[2], n = (double)coll->bte->ch.nglobal;
    PetscCallMPI(MPI_Allreduce(b, bs, 2, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)coll)));
    if (n > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "an apply streams at least %.1f B per channel (layout, and sc_col written and read back); layout memory %.1f B per channel\n", bs[0] / n, bs[1] / n));
  }
  if (sum[1] > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "phonon energies kept per channel on %.0f rank(s) (not a function of (q, mode))\n", sum[1]));
  PetscFunctionReturn(0);
}

static PetscErrorCode TgtFreeLayout(BTETgtLayout *L)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(L->scatter));
  PetscCall(PetscFree2(L->pairidx, L->bands));
  PetscCall(PetscFree(L->g2));
  PetscCall(PetscFree(L->g2dt));
  PetscCall(PetscFree(L->wqn));
  PetscCall(PetscFree(L->hwch));
  PetscCall(PetscFree(L->kb2state));
  PetscCall(PetscFree(L->rowptr));
  PetscCall(PetscFree(L->order));
  PetscCall(PetscFree(L->sources));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionDestroy_Tgt(BTECollision coll)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;

  PetscFunctionBegin;
  if (!tg) PetscFunctionReturn(0);
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTETgtCUDADestroy(&tg->cuda));
#endif
  PetscCall(TgtFreeLayout(&tg->L));
  PetscCall(PetscFree(tg->sc_col));
  PetscCall(PetscFree(tg->sc_col2));
  PetscCall(PetscFree(coll->data));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode BTECollisionCreate_Tgt(BTECollision coll)
{
  BTECollision_Tgt *tg;

  PetscFunctionBegin;
  PetscCall(PetscNew(&tg));
  tg->sort                     = PETSC_TRUE;  /* CDYN_SORT_SCAT_TGTS: defined in Perturbo's pert_config.h */
  tg->g2dt                     = PETSC_FALSE; /* STORE_G2DT: commented out there */
  coll->data                   = tg;
  coll->ownends                = PETSC_TRUE; /* the host build computes the local ends; the device build needs none on the host */
  coll->ops->setfromoptions    = BTECollisionSetFromOptions_Tgt;
  coll->ops->setup             = BTECollisionSetUp_Tgt;
  coll->ops->apply             = BTECollisionApply_Tgt;
  coll->ops->jacobian_apply    = BTECollisionJacobianApply_Tgt;
  coll->ops->jacobian_diagonal = BTECollisionJacobianDiagonal_Tgt;
  coll->ops->view              = BTECollisionView_Tgt;
  coll->ops->destroy           = BTECollisionDestroy_Tgt;
  PetscFunctionReturn(0);
}
