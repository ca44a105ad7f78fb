/* baseline: Perturbo v2.2's CPU algorithm. The held channels are grouped at setup into one
   record per (k, k+q) pair (Perturbo's `scatter_base`: ik, ikq, iq and the pair's channels:
   packed band pair and mode, |g|^2, and here the phonon energy). Every apply loops over the
   records with OpenMP, evaluates the two Gaussians and the phonon occupation of each
   channel (three exponentials), forms x_c from F_abs and F_em (docs/theory.md eq. 2) and adds it
   to both ends with `omp atomic` (only ends owned by this rank). States are addressed as
   (band, k point) through a dense table, as Perturbo's epcol(band, k).

   Arrays: rec[3 npair] (ik, ikq, iq: int32), recptr[npair+1], per channel bands (int32),
   g2 and hw (double): 20 bytes per channel plus 20 per record. */
#include <bte/private/collisionimpl.h>
#include <stdlib.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

typedef struct {
  PetscCount  nrec;
  int32_t    *rec;    /* 3 per record: ik, ikq (local k points), iq (grid q index) */
  PetscCount *recptr; /* nrec+1: channels of a record */
  int32_t    *bands;  /* per channel: (n*nbands + m)*nmodes + mode */
  PetscReal  *g2, *hw;
  int32_t    *kb2state;
  PetscInt    nkp;
} BTECollision_Baseline;

/* arithmetic per channel (exp counted as one): a and b 14, N 4, x_c 13, updates 2 */
#define BASELINE_FLOPS_PER_CHANNEL 33.0
#define BASELINE_JAC_FLOPS_PER_CHANNEL 40.0

/* Perturbo v2.2 runs this loop with schedule(guided): large first chunks keep the threads on
   different k points, so their atomic updates rarely collide. OMP_SCHEDULE overrides it (A/B runs). */
static void BaselineSchedule(void)
{
#if defined(_OPENMP)
  if (!getenv("OMP_SCHEDULE")) omp_set_schedule(omp_sched_guided, 0);
#endif
}

static PetscErrorCode BTECollisionApply_Baseline(BTECollision coll, Vec fl, Vec Iv)
{
  BTECollision_Baseline *bl = (BTECollision_Baseline *)coll->data;
  const PetscScalar     *f;
  PetscScalar           *y;
  const PetscReal       *e      = coll->energy;
  const PetscInt         nb     = coll->nbands, nm = coll->nmodes, nlocal = coll->nlocal;
  const PetscReal        pref   = coll->pref, inveta = coll->inveta, gnorm = coll->gnorm, kT = coll->kT, kTdb = coll->kTdb;
  const int32_t         *kb     = bl->kb2state;
  PetscCount             nrec   = bl->nrec;

  PetscFunctionBegin;
  BaselineSchedule();
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(Iv, &y));
  PetscCall(PetscArrayzero(y, nlocal));
#pragma omp parallel for schedule(runtime) /* guided unless OMP_SCHEDULE says otherwise: see BaselineSchedule() */
  for (PetscCount r = 0; r < nrec; r++) {
    const int32_t ik = bl->rec[3 * r], ikq = bl->rec[3 * r + 1];
    for (PetscCount c = bl->recptr[r]; c < bl->recptr[r + 1]; c++) {
      int32_t   pk = bl->bands[c], mode = pk % nm, nmb = pk / nm, n = nmb / nb, m = nmb % nb;
      int32_t   i = kb[ik * nb + n], j = kb[ikq * nb + m];
      PetscReal a, b, N = BTECollBose(bl->hw[c], kT), x;
      (void)mode;
      BTECollWeightsAB(pref, inveta, gnorm, kTdb, e[i], e[j], bl->hw[c], bl->g2[c], &a, &b);
      x = BTECollXabs(a, b, N, PetscRealPart(f[i]), PetscRealPart(f[j]));
      if (i < nlocal) {
#pragma omp atomic
        y[i] += x;
      }
      if (j < nlocal) {
#pragma omp atomic
        y[j] -= x;
      }
    }
  }
  PetscCall(VecRestoreArrayWrite(Iv, &y));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(PetscLogFlops(BASELINE_FLOPS_PER_CHANNEL * (PetscLogDouble)coll->nch));
  PetscFunctionReturn(0);
}

/* diag != NULL: the diagonal of J (x ignored); else y = J x */
static PetscErrorCode BaselineJacobian(BTECollision coll, Vec fl, Vec xl, Vec Y, PetscBool diag)
{
  BTECollision_Baseline *bl = (BTECollision_Baseline *)coll->data;
  const PetscScalar     *f, *x = NULL;
  PetscScalar           *y;
  const PetscReal       *e      = coll->energy;
  const PetscInt         nb     = coll->nbands, nm = coll->nmodes, nlocal = coll->nlocal;
  const PetscReal        pref   = coll->pref, inveta = coll->inveta, gnorm = coll->gnorm, kT = coll->kT, kTdb = coll->kTdb;
  const int32_t         *kb     = bl->kb2state;
  PetscCount             nrec   = bl->nrec;

  PetscFunctionBegin;
  BaselineSchedule();
  PetscCall(VecGetArrayRead(fl, &f));
  if (!diag) PetscCall(VecGetArrayRead(xl, &x));
  PetscCall(VecGetArrayWrite(Y, &y));
  PetscCall(PetscArrayzero(y, nlocal));
#pragma omp parallel for schedule(runtime) /* guided unless OMP_SCHEDULE says otherwise: see BaselineSchedule() */
  for (PetscCount r = 0; r < nrec; r++) {
    const int32_t ik = bl->rec[3 * r], ikq = bl->rec[3 * r + 1];
    for (PetscCount c = bl->recptr[r]; c < bl->recptr[r + 1]; c++) {
      int32_t   pk = bl->bands[c], nmb = pk / nm, n = nmb / nb, m = nmb % nb;
      int32_t   i = kb[ik * nb + n], j = kb[ikq * nb + m];
      PetscReal a, b, P, Q, N = BTECollBose(bl->hw[c], kT), fi = PetscRealPart(f[i]), fj = PetscRealPart(f[j]);
      PetscReal dxi, dxj; /* d x_c / d f_i, d x_c / d f_j */
      BTECollWeightsAB(pref, inveta, gnorm, kTdb, e[i], e[j], bl->hw[c], bl->g2[c], &a, &b);
      BTECollWeightsPQ(a, b, N, &P, &Q);
      dxi = -(P * (1.0 - fj) + Q * fj);
      dxj = P * fi + Q * (1.0 - fi);
      if (diag) {
        if (i < nlocal) {
#pragma omp atomic
          y[i] += dxi;
        }
        if (j < nlocal) {
#pragma omp atomic
          y[j] -= dxj;
        }
      } else {
        PetscReal dx = dxi * PetscRealPart(x[i]) + dxj * PetscRealPart(x[j]);
        if (i < nlocal) {
#pragma omp atomic
          y[i] += dx;
        }
        if (j < nlocal) {
#pragma omp atomic
          y[j] -= dx;
        }
      }
    }
  }
  PetscCall(VecRestoreArrayWrite(Y, &y));
  if (!diag) PetscCall(VecRestoreArrayRead(xl, &x));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(PetscLogFlops(BASELINE_JAC_FLOPS_PER_CHANNEL * (PetscLogDouble)coll->nch));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianApply_Baseline(BTECollision coll, Vec fl, Vec xl, Vec y)
{
  PetscFunctionBegin;
  PetscCall(BaselineJacobian(coll, fl, xl, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianDiagonal_Baseline(BTECollision coll, Vec fl, Vec d)
{
  PetscFunctionBegin;
  PetscCall(BaselineJacobian(coll, fl, NULL, d, PETSC_TRUE));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionSetUp_Baseline(BTECollision coll)
{
  BTECollision_Baseline *bl = (BTECollision_Baseline *)coll->data;
  const BTEChannels     *ch = &coll->bte->ch;
  BTECollisionKTable     kt;
  BTECollisionPairs      pr;
  PetscInt               nb = coll->nbands, nm = coll->nmodes;

  PetscFunctionBegin;
  PetscCall(BTEChannelsGetHost(coll->bte)); /* the GPU import may not have filled them yet */
  PetscCheck((PetscInt64)nb * nb * nm < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Too many bands/modes to pack");
  PetscCall(BTECollisionKTableCreate(coll, &kt));
  PetscCall(BTECollisionPairsCreate(coll, &kt, &pr));
  bl->nrec = pr.npair;
  bl->nkp  = kt.nkp;
  PetscCall(PetscMalloc1(3 * pr.npair, &bl->rec));
  PetscCall(PetscMalloc1(pr.npair + 1, &bl->recptr));
  for (PetscCount r = 0; r < pr.npair; r++) {
    bl->rec[3 * r]     = pr.ik[r];
    bl->rec[3 * r + 1] = pr.ikq[r];
    bl->rec[3 * r + 2] = (int32_t)pr.iq[r];
  }
  PetscCall(PetscArraycpy(bl->recptr, pr.pairptr, pr.npair + 1));
  PetscCall(PetscMalloc3(coll->nch, &bl->bands, coll->nch, &bl->g2, coll->nch, &bl->hw));
  for (PetscCount p = 0; p < coll->nch; p++) {
    PetscCount c = pr.perm[p];
    PetscInt   n = coll->band[coll->ci[c]], m = coll->band[coll->cj[c]];
    PetscCheck(ch->mode[c] >= 0 && ch->mode[c] < nm, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscCount_FMT " has mode %" PetscInt_FMT " outside 0..%" PetscInt_FMT, c, ch->mode[c], nm - 1);
    bl->bands[p] = (int32_t)((n * nb + m) * nm + ch->mode[c]);
    bl->g2[p]    = ch->g2[c];
    bl->hw[p]    = ch->hw[c];
  }
  bl->kb2state = kt.kb2state;
  kt.kb2state  = NULL;
  PetscCall(BTECollisionPairsDestroy(&pr));
  PetscCall(BTECollisionKTableDestroy(&kt));
  coll->nentries = 0;
  for (PetscCount c = 0; c < coll->nch; c++) coll->nentries += (coll->ci[c] < coll->nlocal) + (coll->cj[c] < coll->nlocal);
  coll->bytes = (PetscLogDouble)bl->nrec * (3 * sizeof(int32_t) + sizeof(PetscCount)) + (PetscLogDouble)coll->nch * (sizeof(int32_t) + 2 * sizeof(PetscReal)) + (PetscLogDouble)bl->nkp * nb * sizeof(int32_t);
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionView_Baseline(BTECollision coll, PetscViewer viewer)
{
  BTECollision_Baseline *bl = (BTECollision_Baseline *)coll->data;
  double                 loc = (double)bl->nrec, sum;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&loc, &sum, 1, MPI_DOUBLE, MPI_SUM, PetscObjectComm((PetscObject)coll)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "baseline layout (Perturbo v2.2): %.0f (k, k+q) pair records; per channel packed bands/mode, |g|^2, hw; Gaussians and occupations evaluated every apply, omp atomic updates\n", sum));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionDestroy_Baseline(BTECollision coll)
{
  BTECollision_Baseline *bl = (BTECollision_Baseline *)coll->data;

  PetscFunctionBegin;
  if (!bl) PetscFunctionReturn(0);
  PetscCall(PetscFree(bl->rec));
  PetscCall(PetscFree(bl->recptr));
  PetscCall(PetscFree3(bl->bands, bl->g2, bl->hw));
  PetscCall(PetscFree(bl->kb2state));
  PetscCall(PetscFree(coll->data));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode BTECollisionCreate_Baseline(BTECollision coll)
{
  BTECollision_Baseline *bl;

  PetscFunctionBegin;
  PetscCall(PetscNew(&bl));
  coll->data                   = bl;
  coll->ops->setup             = BTECollisionSetUp_Baseline;
  coll->ops->apply             = BTECollisionApply_Baseline;
  coll->ops->jacobian_apply    = BTECollisionJacobianApply_Baseline;
  coll->ops->jacobian_diagonal = BTECollisionJacobianDiagonal_Baseline;
  coll->ops->view              = BTECollisionView_Baseline;
  coll->ops->destroy           = BTECollisionDestroy_Baseline;
  PetscFunctionReturn(0);
}
