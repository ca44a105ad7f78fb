/* tgt: Perturbo v3's GPU data structure, run on the CPU.

   `scatter` (per (k, k+q) pair: ik, ikq, iq), `scatter_channels` (per channel: |g|^2, packed
   band pair and mode, pair index), a phonon table (hbar w and N per (q, mode) of the held
   pairs) and the target layer: `targets` (per owned state: offset into the sources; the
   length is the next offset minus this one) and `stargets_sources` (signed 1-based channel
   indices sorted by target: + for the (n,k) = i end, - for the (m,k+q) = j end).

   Apply: pass 1, one value per channel x_c (Gaussians evaluated) into sc_col; pass 2, one
   thread per owned target sums its signed sources. No atomics.

   Arrays: scatter 12 B per pair, scatter_channels 16 B per channel, sources 4 B per entry,
   targets 8 B per owned state, sc_col 8 B per channel (work). */
#include <bte/private/collisionimpl.h>
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisioncuda.h>
#endif

typedef struct {
  PetscCount  npair, nch;
  int32_t    *scatter;  /* 3 per pair: ik, ikq (local k points), iq (row of the phonon table) */
  PetscReal  *g2;       /* scatter_channels: |g|^2 */
  int32_t    *bands;    /* scatter_channels: (n*nbands + m)*nmodes + mode */
  int32_t    *pairidx;  /* scatter_channels: pair index */
  PetscInt    nqc;      /* rows of the phonon table (distinct q of the held pairs) */
  PetscReal  *wq, *nph; /* nqc*nmodes: hbar w (eV), N */
  PetscReal  *hwch;     /* per channel hw, only when the table does not describe the channels */
  int32_t    *kb2state;
  PetscInt    nkp;
  PetscCount *targets;  /* nlocal+1 */
  int32_t    *sources;  /* stargets_sources */
  PetscReal  *sc_col;   /* pass 1 output, nch */
  PetscReal  *sc_col2;  /* second value per channel for the Jacobian diagonal (lazily) */
#if defined(BTE_HAVE_CUDA)
  BTETgtCUDA cuda; /* device copy of the layout, made on the first apply on CUDA Vecs */
#endif
} BTECollision_Tgt;

#if defined(BTE_HAVE_CUDA)
static PetscErrorCode TgtGetCUDA(BTECollision coll, BTETgtCUDA *h)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;

  PetscFunctionBegin;
  if (!tg->cuda) {
    BTETgtCUDALayout L;
    L.nlocal   = coll->nlocal;
    L.nghost   = coll->nghost;
    L.nbands   = coll->nbands;
    L.nmodes   = coll->nmodes;
    L.npair    = tg->npair;
    L.nch      = tg->nch;
    L.nqc      = tg->nqc;
    L.nkp      = tg->nkp;
    L.pref     = coll->pref;
    L.inveta   = coll->inveta;
    L.gnorm    = coll->gnorm;
    L.kT       = coll->kT;
    L.scatter  = tg->scatter;
    L.g2       = tg->g2;
    L.bands    = tg->bands;
    L.pairidx  = tg->pairidx;
    L.wq       = tg->wq;
    L.nph      = tg->nph;
    L.hwch     = tg->hwch;
    L.kb2state = tg->kb2state;
    L.targets  = tg->targets;
    L.sources  = tg->sources;
    L.energy   = coll->energy;
    PetscCall(BTETgtCUDACreate(&L, &tg->cuda));
  }
  *h = tg->cuda;
  PetscFunctionReturn(0);
}
  #define TGT_CUDA_DISPATCH(coll, fl, call) \
    do { \
      PetscBool  dev_; \
      BTETgtCUDA h_; \
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

/* pass 1 per channel (exp counted as one): a and b 14, x_c 13 (+4 when N is computed); pass 2: 1 per entry */
#define TGT_FLOPS_PER_CHANNEL 27.0

/* Pass 1 modes */
typedef enum {
  TGT_VALUE,    /* x_c */
  TGT_JACOBIAN, /* d x_c = dx_c/df_i x_i + dx_c/df_j x_j */
  TGT_DIAGONAL  /* dx_c/df_i and -dx_c/df_j */
} TgtPass;

static PetscErrorCode TgtPass1(BTECollision coll, const PetscScalar *f, const PetscScalar *x, TgtPass mode)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;
  const PetscReal  *e  = coll->energy;
  const PetscInt    nb = coll->nbands, nm = coll->nmodes;
  const PetscReal   pref = coll->pref, inveta = coll->inveta, gnorm = coll->gnorm, kT = coll->kT;
  const int32_t    *kb = tg->kb2state, *sc = tg->scatter;
  PetscCount        nch = tg->nch;

  PetscFunctionBegin;
#pragma omp parallel for schedule(static)
  for (PetscCount c = 0; c < nch; c++) {
    int32_t   p = tg->pairidx[c], ik = sc[3 * p], ikq = sc[3 * p + 1], iq = sc[3 * p + 2];
    int32_t   pk = tg->bands[c], md = pk % nm, nmb = pk / nm, n = nmb / nb, m = nmb % nb;
    int32_t   i = kb[ik * nb + n], j = kb[ikq * nb + m];
    PetscReal hw, N, a, b, fi = PetscRealPart(f[i]), fj = PetscRealPart(f[j]);
    if (tg->hwch) {
      hw = tg->hwch[c];
      N  = BTECollBose(hw, kT);
    } else {
      hw = tg->wq[iq * nm + md];
      N  = tg->nph[iq * nm + md];
    }
    BTECollWeightsAB(pref, inveta, gnorm, e[i], e[j], hw, tg->g2[c], &a, &b);
    if (mode == TGT_VALUE) tg->sc_col[c] = BTECollXabs(a, b, N, fi, fj);
    else {
      PetscReal P, Q, dxi, dxj;
      BTECollWeightsPQ(a, b, N, &P, &Q);
      dxi = -(P * (1.0 - fj) + Q * fj);
      dxj = P * fi + Q * (1.0 - fi);
      if (mode == TGT_JACOBIAN) tg->sc_col[c] = dxi * PetscRealPart(x[i]) + dxj * PetscRealPart(x[j]);
      else {
        tg->sc_col[c]  = dxi;
        tg->sc_col2[c] = -dxj;
      }
    }
  }
  PetscCall(PetscLogFlops((TGT_FLOPS_PER_CHANNEL + (tg->hwch ? 4.0 : 0.0) + (mode == TGT_VALUE ? 0.0 : 8.0)) * (PetscLogDouble)nch));
  PetscFunctionReturn(0);
}

/* pass 2: y_t = sum over the signed sources of t; second != NULL takes - sources from it with + sign */
static PetscErrorCode TgtPass2(BTECollision coll, const PetscReal *first, const PetscReal *second, PetscScalar *y)
{
  BTECollision_Tgt *tg     = (BTECollision_Tgt *)coll->data;
  PetscInt          nlocal = coll->nlocal;

  PetscFunctionBegin;
#pragma omp parallel for schedule(dynamic, 32)
  for (PetscInt t = 0; t < nlocal; t++) {
    PetscReal s = 0;
    for (PetscCount k = tg->targets[t]; k < tg->targets[t + 1]; k++) {
      int32_t src = tg->sources[k];
      if (src > 0) s += first[src - 1];
      else if (second) s += second[-src - 1];
      else s -= first[-src - 1];
    }
    y[t] = s;
  }
  PetscCall(PetscLogFlops((PetscLogDouble)tg->targets[nlocal]));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionApply_Tgt(BTECollision coll, Vec fl, Vec Iv)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  const PetscScalar *f;
  PetscScalar       *y;

  PetscFunctionBegin;
  TGT_CUDA_DISPATCH(coll, fl, BTETgtCUDAApply(h_, fl, Iv));
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
  TGT_CUDA_DISPATCH(coll, fl, BTETgtCUDAJacobianApply(h_, fl, xl, Y));
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
  TGT_CUDA_DISPATCH(coll, fl, BTETgtCUDAJacobianDiagonal(h_, fl, D));
  if (!tg->sc_col2) {
    PetscCall(PetscMalloc1(tg->nch, &tg->sc_col2));
    coll->bytes += (PetscLogDouble)tg->nch * sizeof(PetscReal);
  }
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(TgtPass1(coll, f, NULL, TGT_DIAGONAL));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(D, &y));
  PetscCall(TgtPass2(coll, tg->sc_col, tg->sc_col2, y));
  PetscCall(VecRestoreArrayWrite(D, &y));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionSetUp_Tgt(BTECollision coll)
{
  BTECollision_Tgt  *tg = (BTECollision_Tgt *)coll->data;
  const BTEChannels *ch = &coll->bte->ch;
  BTECollisionKTable kt;
  BTECollisionPairs  pr;
  PetscInt           nb = coll->nbands, nm = coll->nmodes, nq, *qs, *cjp, *cip;
  PetscCount         nch = coll->nch, *rp;
  int64_t           *src;
  PetscBool          consistent = PETSC_TRUE;

  PetscFunctionBegin;
  PetscCheck(nch < (PetscCount)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt stores 32-bit signed channel indices: %" PetscCount_FMT " channels on one rank is too many; use more ranks or -bte_collision_type fused", nch);
  PetscCheck((PetscInt64)nb * nb * nm < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many bands/modes to pack");
  PetscCall(BTECollisionKTableCreate(coll, &kt));
  PetscCall(BTECollisionPairsCreate(coll, &kt, &pr));
  tg->npair = pr.npair;
  tg->nch   = nch;
  tg->nkp   = kt.nkp;
  /* phonon table rows: the distinct q of the held pairs */
  PetscCall(PetscMalloc1(pr.npair, &qs));
  PetscCall(PetscArraycpy(qs, pr.iq, pr.npair));
  nq = (PetscInt)pr.npair;
  PetscCall(PetscSortRemoveDupsInt(&nq, qs));
  tg->nqc = nq;
  PetscCall(PetscMalloc2(nq * nm, &tg->wq, nq * nm, &tg->nph));
  for (PetscInt k = 0; k < nq * nm; k++) tg->wq[k] = -1.0;
  PetscCall(PetscMalloc1(3 * pr.npair, &tg->scatter));
  for (PetscCount p = 0; p < pr.npair; p++) {
    PetscInt row;
    PetscCall(PetscFindInt(pr.iq[p], nq, qs, &row));
    tg->scatter[3 * p]     = pr.ik[p];
    tg->scatter[3 * p + 1] = pr.ikq[p];
    tg->scatter[3 * p + 2] = (int32_t)row;
  }
  PetscCall(PetscFree(qs));
  /* scatter_channels in pair order */
  PetscCall(PetscMalloc3(nch, &tg->g2, nch, &tg->bands, nch, &tg->pairidx));
  PetscCall(PetscMalloc2(nch, &cip, nch, &cjp));
  for (PetscCount p = 0; p < pr.npair; p++) {
    for (PetscCount s = pr.pairptr[p]; s < pr.pairptr[p + 1]; s++) {
      PetscCount c   = pr.perm[s];
      PetscInt   n   = coll->band[coll->ci[c]], m = coll->band[coll->cj[c]], row = tg->scatter[3 * p + 2];
      PetscReal *w   = &tg->wq[row * nm + ch->mode[c]];
      PetscCheck(ch->mode[c] >= 0 && ch->mode[c] < nm, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscCount_FMT " has mode %" PetscInt_FMT " outside 0..%" PetscInt_FMT, c, ch->mode[c], nm - 1);
      tg->g2[s]      = ch->g2[c];
      tg->bands[s]   = (int32_t)((n * nb + m) * nm + ch->mode[c]);
      tg->pairidx[s] = (int32_t)p;
      cip[s]         = coll->ci[c];
      cjp[s]         = coll->cj[c];
      if (*w < 0) *w = ch->hw[c];
      else if (PetscAbsReal(*w - ch->hw[c]) > 1e-10 * PetscAbsReal(ch->hw[c])) consistent = PETSC_FALSE;
    }
  }
  if (consistent) {
    for (PetscInt k = 0; k < nq * nm; k++) tg->nph[k] = tg->wq[k] > 0 ? BTECollBose(tg->wq[k], coll->kT) : 0.0;
  } else {
    /* phonon energies are not a function of (q, mode) alone: keep them per channel */
    PetscCall(PetscInfo(coll, "Phonon energies differ within a (q, mode): tgt keeps hw per channel\n"));
    PetscCall(PetscMalloc1(nch, &tg->hwch));
    for (PetscCount s = 0; s < nch; s++) tg->hwch[s] = ch->hw[pr.perm[s]];
  }
  tg->kb2state = kt.kb2state;
  kt.kb2state  = NULL;
  PetscCall(BTECollisionPairsDestroy(&pr));
  PetscCall(BTECollisionKTableDestroy(&kt));
  /* target layer over the channels in scatter_channels order */
  PetscCall(BTECollisionBuildTargets(coll->nlocal, nch, cip, cjp, &rp, &src));
  PetscCall(PetscFree2(cip, cjp));
  tg->targets = rp;
  PetscCall(PetscMalloc1(rp[coll->nlocal], &tg->sources));
  for (PetscCount k = 0; k < rp[coll->nlocal]; k++) tg->sources[k] = (int32_t)src[k];
  PetscCall(PetscFree(src));
  PetscCall(PetscMalloc1(nch, &tg->sc_col));
  coll->nentries = rp[coll->nlocal];
  coll->bytes    = (PetscLogDouble)tg->npair * 3 * sizeof(int32_t) + (PetscLogDouble)nch * (sizeof(PetscReal) + 2 * sizeof(int32_t) + sizeof(PetscReal)) + (PetscLogDouble)coll->nentries * sizeof(int32_t) + (PetscLogDouble)(coll->nlocal + 1) * sizeof(PetscCount) + (PetscLogDouble)tg->nqc * nm * 2 * sizeof(PetscReal) + (PetscLogDouble)tg->nkp * nb * sizeof(int32_t) + (tg->hwch ? (PetscLogDouble)nch * sizeof(PetscReal) : 0);
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionView_Tgt(BTECollision coll, PetscViewer viewer)
{
  BTECollision_Tgt *tg = (BTECollision_Tgt *)coll->data;
  double            loc[2] = {(double)tg->npair, tg->hwch ? 1.0 : 0.0}, sum[2];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(loc, sum, 2, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)coll)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "tgt layout (Perturbo v3): %.0f (k, k+q) pairs in scatter, 16 B per channel in scatter_channels, 4 B per signed source, two passes (sc_col)\n", sum[0]));
  if (sum[1] > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "phonon energies kept per channel on %.0f rank(s) (not a function of (q, mode))\n", sum[1]));
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
  PetscCall(PetscFree(tg->scatter));
  PetscCall(PetscFree3(tg->g2, tg->bands, tg->pairidx));
  PetscCall(PetscFree2(tg->wq, tg->nph));
  PetscCall(PetscFree(tg->hwch));
  PetscCall(PetscFree(tg->kb2state));
  PetscCall(PetscFree(tg->targets));
  PetscCall(PetscFree(tg->sources));
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
  coll->data                   = tg;
  coll->ops->setup             = BTECollisionSetUp_Tgt;
  coll->ops->apply             = BTECollisionApply_Tgt;
  coll->ops->jacobian_apply    = BTECollisionJacobianApply_Tgt;
  coll->ops->jacobian_diagonal = BTECollisionJacobianDiagonal_Tgt;
  coll->ops->view              = BTECollisionView_Tgt;
  coll->ops->destroy           = BTECollisionDestroy_Tgt;
  PetscFunctionReturn(0);
}
