/* "bte two-level": a two-level preconditioner for the linear-response system A F = v
   (docs/theory.md eq. 5, linear.c) with a physics coarse space.

   Why. The Gamma diagonal (RTA, PCJACOBI) leaves a preconditioned spectrum with a few dozen
   outliers (0.25..0.8 and 1.2..1.8 on GaAs) around a tight cluster at 1; GMRES spends most of
   its iterations on the outliers. For an isotropic valley the exact solution of eq. 5 is
   v_b phi(e) (the l = 1 harmonic times a function of energy) and the outliers' eigenvectors
   are, to 99 %, of the form v_d g(e) and, for the next ones, v_d times low cubic harmonics of
   the velocity direction times g(e). So the coarse space is

       u_{g,k,d,m}(i) = phi_{d,m}(v_i) chi_{g,k}(i),

   chi_{g,k} the indicator of energy bin k of group g (a valley, i.e. the basin of one band
   minimum, or a band, or everything), phi_{d,0} = v_d, phi_{d,1} = v_d u_d^2,
   phi_{d,2} = v_d u_d^4, phi_{d,3} = v_d u_{d+1}^2 u_{d+2}^2 (u = v/|v|; -bte_transport_pc_angular
   0, 1, 2 keeps 1, 2, 4 per direction). All three directions are in the space, so anisotropic
   valleys (F_x has v_y, v_z parts in an L valley) are represented; the functions are odd in k,
   so the space does not contain the right null vector 1 and the coarse matrix is regular.
   Within a block (g, k) the functions are orthonormalised in the D inner product (dependent
   ones, e.g. v_z in 2D or a bin with one orbit of states, are dropped).

   Coarse matrix. S = D A = -J(f0) D is nearly symmetric, so the Galerkin matrix is
   A_c = U^T D A U = U^T S U. It is NOT built by applying A to each coarse vector: one pass over
   the channel ends of the owned states (sorted by state and with their rates P, Q once per
   collision operator, i.e. per temperature) accumulates the rows of S U from the four Jacobian entries of each channel,

       (S U)_{t,:} += -s_t [ dx_c/df_i  D_i U_{i,:} + dx_c/df_j  D_j U_{j,:} ],
       s_t = +1 for the i end, -1 for the j end,

   then A_c = sum_t U_{t,:}^T (S U)_{t,:} (summed over ranks, replicated, LU-factored). Each
   rank fills only the rows it owns, so a channel held by two ranks is counted once per end.
   The pass touches every channel end once, like one operator apply, and is counted as one
   apply in the transport results.

   Apply (right preconditioning; multiplicative, coarse then smooth):
       y = A_c^{-1} U^T D r,   z = U y + Gamma^{-1} (r - A U y),   A U = D^{-1} S U (stored),
   or additive z = Gamma^{-1} r + U y. For the symmetric form (S F = D v, CG) the same with
   U^T r and the diagonal D Gamma. Inactive states (identity rows) get z = r. */
#include "transportimpl.h"
#include "valleys.h"
#include <bte/private/collisionimpl.h>
#include <petscblaslapack.h>

const char *const BTETransportPCTypes[]  = {"jacobi", "twolevel", "BTETransportPCType", "BTE_TRANSPORT_PC_", NULL};
const char *const BTETwoLevelSplits[]    = {"none", "band", "valley", "BTETwoLevelSplit", "BTE_TWOLEVEL_SPLIT_", NULL};
const char *const BTETwoLevelForms[]     = {"multiplicative", "additive", "BTETwoLevelForm", "BTE_TWOLEVEL_", NULL};
PetscLogEvent     BTE_TwoLevelSetUp;

#define MAXANG 4 /* angular functions per direction at level 2 */

struct _n_BTETwoLevel {
  /* options */
  PetscInt         nbins, angular;
  BTETwoLevelSplit split;
  BTETwoLevelForm  form;
  /* groups (valleys / bands), once per BTE */
  PetscBool have_groups;
  PetscInt  ngroups, nlocal;
  PetscInt *group; /* nlocal */
  /* current configuration */
  BTELinearCtx *ctx;
  PetscBool     sym;
  PetscInt      M;    /* functions per block: 3 * nang */
  PetscInt      nblk; /* ngroups * nbins */
  PetscInt     *rank, *off; /* per block: kept functions, first coarse index (off[nblk] = nc) */
  PetscReal    *T;          /* per block: M x M, columns 0..rank-1 map phi to the orthonormal basis */
  PetscInt      nc;
  PetscInt     *blk; /* nlocal: block of each owned state (-1 inactive) */
  PetscReal    *ut;  /* nlocal * M: orthonormalised basis values (first rank[blk] used) */
  PetscCount   *segptr; /* nlocal + 1: segments of row t of S U */
  PetscInt     *segblk; /* block of each segment */
  PetscCount   *segoff; /* first value of each segment */
  PetscReal    *suval;
  PetscCount    nseg, nval;
  PetscScalar  *Ac;
  PetscBLASInt *piv;
  PetscScalar  *g, *y;
  PetscBool     ready;
  /* channel ends of the owned states in row order, with the rates oriented from the row's
     state t to the other end o (Pt = rate t -> o, Qt = rate o -> t): built once per collision
     operator (temperature), reused by every configuration (chemical potential) */
  PetscInt64    cache_id, cache_rates; /* the operator (object id) and its rates (ratesid) of the cache */
  PetscInt      cache_nl;
  PetscCount   *endptr;
  PetscInt     *eo;
  PetscReal    *ePt, *eQt;
  /* statistics */
  PetscInt       setups;
  PetscLogDouble time; /* seconds in setups */
};

PetscErrorCode BTETwoLevelCreate(BTETwoLevel *tl)
{
  PetscFunctionBegin;
  PetscCall(PetscNew(tl));
  (*tl)->nbins   = 40;
  (*tl)->angular = 2;
  (*tl)->split   = BTE_TWOLEVEL_SPLIT_VALLEY;
  (*tl)->form    = BTE_TWOLEVEL_MULTIPLICATIVE;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTETwoLevelResetConfiguration(BTETwoLevel tl)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(tl->rank, tl->off, tl->T));
  PetscCall(PetscFree2(tl->blk, tl->ut));
  PetscCall(PetscFree(tl->segptr));
  PetscCall(PetscFree2(tl->segblk, tl->segoff));
  PetscCall(PetscFree(tl->suval));
  PetscCall(PetscFree4(tl->Ac, tl->piv, tl->g, tl->y));
  tl->nc    = 0;
  tl->nseg  = 0;
  tl->nval  = 0;
  tl->ctx   = NULL;
  tl->ready = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETwoLevelDestroy(BTETwoLevel *tl)
{
  PetscFunctionBegin;
  if (!*tl) PetscFunctionReturn(0);
  PetscCall(BTETwoLevelResetConfiguration(*tl));
  PetscCall(PetscFree((*tl)->group));
  PetscCall(PetscFree((*tl)->endptr));
  PetscCall(PetscFree3((*tl)->eo, (*tl)->ePt, (*tl)->eQt));
  PetscCall(PetscFree(*tl));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETwoLevelSetParameters(BTETwoLevel tl, PetscInt nbins, PetscInt angular, BTETwoLevelSplit split, BTETwoLevelForm form)
{
  PetscFunctionBegin;
  PetscCheck(nbins >= 1 && nbins <= 10000, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bte_transport_pc_bins must be in [1, 10000], got %" PetscInt_FMT, nbins);
  PetscCheck(angular >= 0 && angular <= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-bte_transport_pc_angular must be 0, 1 or 2, got %" PetscInt_FMT, angular);
  if (split != tl->split) {
    PetscCall(PetscFree(tl->group));
    tl->have_groups = PETSC_FALSE;
  }
  tl->nbins   = nbins;
  tl->angular = angular;
  tl->split   = split;
  tl->form    = form;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETwoLevelGetParameters(BTETwoLevel tl, PetscInt *nbins, PetscInt *angular, BTETwoLevelSplit *split, BTETwoLevelForm *form)
{
  PetscFunctionBegin;
  if (nbins) *nbins = tl->nbins;
  if (angular) *angular = tl->angular;
  if (split) *split = tl->split;
  if (form) *form = tl->form;
  PetscFunctionReturn(0);
}

/* angular functions phi_{d,m}(v), m < nang, stored at phi[d * nang + m] */
static inline void BTETwoLevelPhi(const PetscReal v[3], PetscInt nang, PetscReal phi[])
{
  PetscReal vn = PetscSqrtReal(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]), u[3];
  for (int a = 0; a < 3; a++) u[a] = vn > 0 ? v[a] / vn : 0;
  for (int d = 0; d < 3; d++) {
    int        b = (d + 1) % 3, c = (d + 2) % 3;
    PetscReal *p = phi + d * nang;
    p[0]         = v[d];
    if (nang > 1) p[1] = v[d] * u[d] * u[d];
    if (nang > 2) {
      p[2] = v[d] * u[d] * u[d] * u[d] * u[d];
      p[3] = v[d] * u[b] * u[b] * u[c] * u[c];
    }
  }
}

/* Groups of the states: one, the band, or the valley (basin of a band minimum). Once per BTE. */
static PetscErrorCode BTETwoLevelSetUpGroups(BTETwoLevel tl, BTE bte)
{
  PetscInt        nl;
  const PetscInt *band;

  PetscFunctionBegin;
  PetscCall(BTEGetNumStates(bte, &nl, NULL));
  if (tl->have_groups && tl->nlocal == nl) PetscFunctionReturn(0);
  PetscCall(PetscFree(tl->group));
  PetscCall(PetscMalloc1(nl + 1, &tl->group));
  tl->nlocal = nl;
  PetscCall(BTEGetLocalStates(bte, NULL, NULL, NULL, &band));
  switch (tl->split) {
  case BTE_TWOLEVEL_SPLIT_NONE:
    for (PetscInt i = 0; i < nl; i++) tl->group[i] = 0;
    tl->ngroups = 1;
    break;
  case BTE_TWOLEVEL_SPLIT_BAND:
    for (PetscInt i = 0; i < nl; i++) tl->group[i] = band[i];
    tl->ngroups = bte->nbands;
    break;
  case BTE_TWOLEVEL_SPLIT_VALLEY: {
    BTEValleys v;
    PetscCall(BTEValleysCreate(bte, 0, NULL, &v));
    for (PetscInt i = 0; i < nl; i++) tl->group[i] = v->state_min[i] >= 0 ? v->state_min[i] : 0;
    tl->ngroups = PetscMax(v->nmin, 1);
    PetscCall(PetscInfo(bte, "two-level preconditioner: %" PetscInt_FMT " valleys (band minima) in %" PetscInt_FMT " kinds\n", v->nmin, v->nkind));
    PetscCall(BTEValleysDestroy(&v));
  } break;
  }
  tl->have_groups = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* local vector (owned + ghosts of the collision operator) of a global state Vec */
static PetscErrorCode ToLocal(BTECollision col, Vec x, Vec xl, PetscReal *out)
{
  const PetscScalar *a;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(BTECollisionGlobalToLocal(col, x, xl));
  PetscCall(VecGetLocalSize(xl, &n));
  PetscCall(VecGetArrayRead(xl, &a));
  for (PetscInt i = 0; i < n; i++) out[i] = PetscRealPart(a[i]);
  PetscCall(VecRestoreArrayRead(xl, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETwoLevelSetUp(BTETwoLevel tl, BTE bte, BTECollision col, Vec f0, BTELinearCtx *ctx, PetscBool sym)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)bte);
  PetscInt           nl, nang, M, ng, nb, nblk, nloc, nc;
  const PetscReal   *e, *vel;
  const PetscScalar *d, *act;
  PetscReal         *lo, *hi, *gram, *fl, *Dl, *vl[3], *bl, *utl;
  PetscInt          *blkl, *ci, *cj;
  PetscCount         nch = bte->ch.n;
  PetscReal         *P, *Q;
  Vec                xl, tmp;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTE_TwoLevelSetUp, 0, 0, 0, 0));
  PetscCall(PetscTime(&t0));
  PetscCall(BTETwoLevelResetConfiguration(tl));
  PetscCall(BTETwoLevelSetUpGroups(tl, bte));
  PetscCall(BTECollisionSetUp(col));
  tl->ctx = ctx;
  tl->sym = sym;
  nang    = tl->angular == 0 ? 1 : (tl->angular == 1 ? 2 : 4);
  M       = 3 * nang;
  ng      = tl->ngroups;
  nb      = tl->nbins;
  nblk    = ng * nb;
  tl->M   = M;
  tl->nblk = nblk;
  PetscCall(BTEGetNumStates(bte, &nl, NULL));
  PetscCall(BTEGetLocalStates(bte, &e, &vel, NULL, NULL));
  nloc = col->nlocal + col->nghost;

  /* 1. energy range of the active states of every group, and the bins */
  PetscCall(PetscMalloc2(ng, &lo, ng, &hi));
  for (PetscInt g = 0; g < ng; g++) {
    lo[g] = PETSC_MAX_REAL;
    hi[g] = -PETSC_MAX_REAL;
  }
  PetscCall(VecGetArrayRead(ctx->active, &act));
  for (PetscInt i = 0; i < nl; i++)
    if (PetscRealPart(act[i]) > 0) {
      lo[tl->group[i]] = PetscMin(lo[tl->group[i]], e[i]);
      hi[tl->group[i]] = PetscMax(hi[tl->group[i]], e[i]);
    }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lo, ng, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hi, ng, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(PetscMalloc2(nl + 1, &tl->blk, (size_t)nl * M + 1, &tl->ut));
  for (PetscInt i = 0; i < nl; i++) {
    PetscInt g = tl->group[i], k;
    if (PetscRealPart(act[i]) <= 0) {
      tl->blk[i] = -1;
      continue;
    }
    k = hi[g] > lo[g] ? (PetscInt)PetscFloorReal((e[i] - lo[g]) / (hi[g] - lo[g]) * nb) : 0;
    k = PetscMin(PetscMax(k, 0), nb - 1);
    tl->blk[i] = g * nb + k;
  }
  PetscCall(VecRestoreArrayRead(ctx->active, &act));
  PetscCall(PetscFree2(lo, hi));

  /* 2. D-weighted Gram matrix of the functions of every block, and its orthonormalisation */
  PetscCall(PetscCalloc1((size_t)nblk * M * M, &gram));
  PetscCall(VecGetArrayRead(ctx->D, &d));
  for (PetscInt i = 0; i < nl; i++) {
    PetscReal  phi[3 * MAXANG], w = PetscRealPart(d[i]);
    PetscReal *G;
    if (tl->blk[i] < 0) continue;
    G = gram + (size_t)tl->blk[i] * M * M;
    BTETwoLevelPhi(&vel[3 * i], nang, phi);
    for (PetscInt a = 0; a < M; a++)
      for (PetscInt b = 0; b < M; b++) G[a + b * M] += w * phi[a] * phi[b];
  }
  PetscCall(VecRestoreArrayRead(ctx->D, &d));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, gram, (PetscMPIInt)(nblk * M * M), MPIU_REAL, MPIU_SUM, comm));
  PetscCall(PetscMalloc3(nblk, &tl->rank, nblk + 1, &tl->off, (size_t)nblk * M * M, &tl->T));
  nc = 0;
  {
    PetscBLASInt n, lwork, info;
    PetscReal    ev[3 * MAXANG], work[64 * 3 * MAXANG];
    PetscCall(PetscBLASIntCast(M, &n));
    lwork = 64 * 3 * MAXANG;
    for (PetscInt b = 0; b < nblk; b++) {
      PetscReal *G = gram + (size_t)b * M * M, *T = tl->T + (size_t)b * M * M, emax;
      PetscInt   r = 0;
      tl->off[b] = nc;
      PetscCall(PetscArrayzero(T, M * M));
      if (G[0] == 0 && G[M * M - 1] == 0) {
        PetscReal tr = 0;
        for (PetscInt a = 0; a < M; a++) tr += G[a + a * M];
        if (tr == 0) {
          tl->rank[b] = 0;
          continue;
        }
      }
      PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
      PetscCallBLAS("LAPACKsyev", LAPACKsyev_("V", "U", &n, G, &n, ev, work, &lwork, &info));
      PetscCall(PetscFPTrapPop());
      PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK syev failed: %d", (int)info);
      emax = ev[M - 1];
      /* eigenvalues ascending: keep the well-conditioned directions, largest first */
      for (PetscInt a = M - 1; a >= 0; a--) {
        if (!(emax > 0) || ev[a] <= 1e-10 * emax) break;
        for (PetscInt m = 0; m < M; m++) T[m + r * M] = G[m + a * M] / PetscSqrtReal(ev[a]);
        r++;
      }
      tl->rank[b] = r;
      nc += r;
    }
    tl->off[nblk] = nc;
  }
  PetscCall(PetscFree(gram));
  tl->nc = nc;
  PetscCheck(nc > 0, comm, PETSC_ERR_ARG_WRONGSTATE, "two-level preconditioner: empty coarse space (no active state with a velocity)");
  for (PetscInt i = 0; i < nl; i++) {
    PetscReal  phi[3 * MAXANG];
    PetscInt   b = tl->blk[i];
    PetscReal *u = tl->ut + (size_t)i * M;
    if (b < 0) continue;
    BTETwoLevelPhi(&vel[3 * i], nang, phi);
    for (PetscInt k = 0; k < tl->rank[b]; k++) {
      PetscReal s = 0, *T = tl->T + (size_t)b * M * M + (size_t)k * M;
      for (PetscInt m = 0; m < M; m++) s += phi[m] * T[m];
      u[k] = s;
    }
    if (tl->rank[b] == 0) tl->blk[i] = -1;
  }

  /* 3. owned + ghost values: f0, D, block, basis */
  PetscCall(PetscMalloc5(nloc + 1, &fl, nloc + 1, &Dl, nloc + 1, &bl, nloc + 1, &blkl, (size_t)nloc * M + 1, &utl));
  PetscCall(PetscMalloc3(nloc + 1, &vl[0], nloc + 1, &vl[1], nloc + 1, &vl[2]));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nloc, &xl));
  PetscCall(VecDuplicate(ctx->D, &tmp));
  PetscCall(ToLocal(col, f0, xl, fl));
  PetscCall(ToLocal(col, ctx->D, xl, Dl));
  {
    PetscScalar *a;
    PetscCall(VecGetArrayWrite(tmp, &a));
    for (PetscInt i = 0; i < nl; i++) a[i] = (PetscScalar)tl->blk[i];
    PetscCall(VecRestoreArrayWrite(tmp, &a));
    PetscCall(ToLocal(col, tmp, xl, bl));
    for (PetscInt c = 0; c < 3; c++) {
      PetscCall(VecGetArrayWrite(tmp, &a));
      for (PetscInt i = 0; i < nl; i++) a[i] = vel[3 * i + c];
      PetscCall(VecRestoreArrayWrite(tmp, &a));
      PetscCall(ToLocal(col, tmp, xl, vl[c]));
    }
  }
  PetscCall(VecDestroy(&tmp));
  PetscCall(VecDestroy(&xl));
  for (PetscInt i = 0; i < nloc; i++) {
    PetscInt b = (PetscInt)PetscFloorReal(bl[i] + 0.5);
    blkl[i]    = b;
    if (i < nl) {
      PetscCall(PetscArraycpy(utl + (size_t)i * M, tl->ut + (size_t)i * M, M));
    } else if (b >= 0) {
      PetscReal phi[3 * MAXANG], v[3] = {vl[0][i], vl[1][i], vl[2][i]};
      BTETwoLevelPhi(v, nang, phi);
      for (PetscInt k = 0; k < tl->rank[b]; k++) {
        PetscReal s = 0, *T = tl->T + (size_t)b * M * M + (size_t)k * M;
        for (PetscInt m = 0; m < M; m++) s += phi[m] * T[m];
        utl[(size_t)i * M + k] = s;
      }
    }
    /* w = D u: fold D into the basis values used in the pass */
    if (b >= 0)
      for (PetscInt k = 0; k < tl->rank[b]; k++) utl[(size_t)i * M + k] *= Dl[i];
  }
  PetscCall(PetscFree3(vl[0], vl[1], vl[2]));

  /* 4. the channel pass: rows of S U for the owned states */
  PetscLogDouble tt[6];
  PetscCall(PetscTime(&tt[0]));
  tt[1] = tt[2] = tt[3] = tt[0];
  if (tl->cache_id != ((PetscObject)col)->id || tl->cache_rates != col->ratesid || tl->cache_nl != nl) {
    PetscCall(PetscFree(tl->endptr));
    PetscCall(PetscFree3(tl->eo, tl->ePt, tl->eQt));
    PetscCall(BTECollisionComputeLocalEnds(col, &ci, &cj));
    PetscCall(PetscTime(&tt[1]));
    PetscCall(PetscMalloc2(nch + 1, &P, nch + 1, &Q));
    PetscCall(BTECollisionComputeChannelPQ_Private(col, ci, cj, P, Q));
    PetscCall(PetscTime(&tt[2]));
    /* counting sort of the channel ends by owned state, channels read in order */
    PetscCall(BTECollisionEndLists_Private(nl, nch, ci, cj, P, Q, &tl->endptr, &tl->eo, &tl->ePt, &tl->eQt));
    tl->cache_id    = ((PetscObject)col)->id;
    tl->cache_rates = col->ratesid;
    tl->cache_nl = nl;
    PetscCall(PetscFree2(P, Q));
    PetscCall(PetscFree2(ci, cj));
    PetscCall(PetscTime(&tt[3]));
  }
  {
    PetscReal  *scr;
    PetscInt   *mark, *touched, nt;
    PetscCount cap_seg = 4 * (PetscCount)nl + 16, cap_val = 4 * (PetscCount)nl * M + 16;
    PetscCall(PetscMalloc3(nc, &scr, nblk, &mark, nblk, &touched));
    PetscCall(PetscArrayzero(scr, nc));
    for (PetscInt b = 0; b < nblk; b++) mark[b] = -1;
    PetscCall(PetscMalloc1(nl + 1, &tl->segptr));
    PetscCall(PetscMalloc2(cap_seg, &tl->segblk, cap_seg, &tl->segoff));
    PetscCall(PetscMalloc1(cap_val, &tl->suval));
    tl->segptr[0] = 0;
    for (PetscInt t = 0; t < nl; t++) {
      nt = 0;
      if (tl->blk[t] >= 0) {
        PetscReal own = 0; /* the row's own end: a scalar times its basis values */
        PetscInt  bt  = blkl[t];
        PetscReal ft  = fl[t];
        /* with Pt, Qt the rates t -> o and o -> t: d x/d f_t = -(Pt (1 - f_o) + Qt f_o) and
           d x/d f_o = Pt f_t + Qt (1 - f_t) (x counted positive into t), and
           (S U)_t += -(d x/d f_t w_t + d x/d f_o w_o) */
        for (PetscCount s = tl->endptr[t]; s < tl->endptr[t + 1]; s++) {
          PetscInt  o  = tl->eo[s], bo = blkl[o];
          PetscReal fo = fl[o], Pt = tl->ePt[s], Qt = tl->eQt[s];
          own += Pt * (1.0 - fo) + Qt * fo;
          if (bo >= 0) {
            const PetscReal *w = utl + (size_t)o * M;
            PetscReal       *q = scr + tl->off[bo], a = -(Pt * ft + Qt * (1.0 - ft));
            if (mark[bo] != t) {
              mark[bo]      = t;
              touched[nt++] = bo;
            }
            for (PetscInt k = 0; k < tl->rank[bo]; k++) q[k] += a * w[k];
          }
        }
        {
          const PetscReal *w = utl + (size_t)t * M;
          PetscReal       *q = scr + tl->off[bt];
          if (mark[bt] != t) {
            mark[bt]      = t;
            touched[nt++] = bt;
          }
          for (PetscInt k = 0; k < tl->rank[bt]; k++) q[k] += own * w[k];
        }
      }
      /* store the touched segments of row t */
      for (PetscInt q = 0; q < nt; q++) {
        PetscInt b = touched[q], r = tl->rank[b];
        if (tl->nseg + 1 > cap_seg) {
          PetscInt   *nb_;
          PetscCount *no_;
          cap_seg *= 2;
          PetscCall(PetscMalloc2(cap_seg, &nb_, cap_seg, &no_));
          PetscCall(PetscArraycpy(nb_, tl->segblk, tl->nseg));
          PetscCall(PetscArraycpy(no_, tl->segoff, tl->nseg));
          PetscCall(PetscFree2(tl->segblk, tl->segoff));
          tl->segblk = nb_;
          tl->segoff = no_;
        }
        if (tl->nval + r > cap_val) {
          PetscReal *nv;
          while (tl->nval + r > cap_val) cap_val *= 2;
          PetscCall(PetscMalloc1(cap_val, &nv));
          PetscCall(PetscArraycpy(nv, tl->suval, tl->nval));
          PetscCall(PetscFree(tl->suval));
          tl->suval = nv;
        }
        tl->segblk[tl->nseg] = b;
        tl->segoff[tl->nseg] = tl->nval;
        for (PetscInt k = 0; k < r; k++) {
          tl->suval[tl->nval + k] = scr[tl->off[b] + k];
          scr[tl->off[b] + k]     = 0;
        }
        tl->nval += r;
        tl->nseg++;
      }
      tl->segptr[t + 1] = tl->nseg;
    }
    PetscCall(PetscFree3(scr, mark, touched));
  }
  PetscCall(PetscTime(&tt[4]));
  PetscCall(PetscInfo(bte, "two-level setup times (s): groups and basis %g; per temperature: channel ends %g, P and Q %g, end lists %g; rows of S U %g\n", tt[0] - t0, tt[1] - tt[0], tt[2] - tt[1], tt[3] - tt[2], tt[4] - tt[3]));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)M * (PetscLogDouble)(tl->endptr[nl])));
  PetscCall(PetscFree5(fl, Dl, bl, blkl, utl));

  /* 5. A_c = U^T S U, replicated, LU */
  PetscCall(PetscMalloc4((size_t)nc * nc, &tl->Ac, nc, &tl->piv, nc, &tl->g, nc, &tl->y));
  PetscCall(PetscArrayzero(tl->Ac, (size_t)nc * nc));
  for (PetscInt t = 0; t < nl; t++) {
    PetscInt   bt = tl->blk[t];
    PetscReal *u  = tl->ut + (size_t)t * M;
    if (bt < 0) continue;
    for (PetscCount s = tl->segptr[t]; s < tl->segptr[t + 1]; s++) {
      PetscInt   b = tl->segblk[s];
      PetscReal *w = tl->suval + tl->segoff[s];
      for (PetscInt l = 0; l < tl->rank[b]; l++) {
        PetscScalar *col = tl->Ac + (size_t)(tl->off[b] + l) * nc + tl->off[bt];
        for (PetscInt k = 0; k < tl->rank[bt]; k++) col[k] += u[k] * w[l];
      }
    }
  }
  {
    /* sum over ranks in pieces (the count argument is an int) */
    size_t n = (size_t)nc * nc, chunk = 1 << 26;
    for (size_t s = 0; s < n; s += chunk) PetscCall(MPIU_Allreduce(MPI_IN_PLACE, tl->Ac + s, (PetscMPIInt)PetscMin(chunk, n - s), MPIU_SCALAR, MPIU_SUM, comm));
  }
  {
    PetscBLASInt n, info;
    PetscCall(PetscBLASIntCast(nc, &n));
    PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, tl->Ac, &n, tl->piv, &info));
    PetscCall(PetscFPTrapPop());
    PetscCheck(info >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrf failed: %d", (int)info);
    PetscCheck(info == 0, comm, PETSC_ERR_MAT_LU_ZRPVT, "two-level preconditioner: singular coarse matrix (zero pivot %d of %" PetscInt_FMT "); use -bte_transport_pc jacobi", (int)info, nc);
  }
  tl->ready = PETSC_TRUE;
  tl->setups++;
  ctx->applies++; /* the channel pass costs about one operator apply */
  PetscCall(PetscTime(&t1));
  tl->time += t1 - t0;
  {
    PetscInt64 nsegg = tl->nseg;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &nsegg, 1, MPIU_INT64, MPI_SUM, comm));
    PetscCall(PetscInfo(bte, "two-level preconditioner: %" PetscInt_FMT " groups x %" PetscInt_FMT " bins x %" PetscInt_FMT " functions -> %" PetscInt_FMT " coarse vectors; S U: %" PetscInt64_FMT " row segments; setup %g s\n", ng, nb, M, nc, nsegg, (double)(t1 - t0)));
  }
  PetscCall(PetscLogEventEnd(BTE_TwoLevelSetUp, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETwoLevelGetInfo(BTETwoLevel tl, PetscInt *nc, PetscInt *setups, PetscLogDouble *time)
{
  PetscFunctionBegin;
  if (nc) *nc = tl->nc;
  if (setups) *setups = tl->setups;
  if (time) *time = tl->time;
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_BTETwoLevel(PC pc, Vec r, Vec z)
{
  BTETwoLevel        tl;
  BTELinearCtx      *c;
  const PetscScalar *ra, *da, *ga;
  PetscScalar       *za;
  PetscInt           nl, M, nc;
  PetscBLASInt       n, one = 1, info;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &tl));
  PetscCheck(tl->ready, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_WRONGSTATE, "two-level preconditioner used before BTETwoLevelSetUp");
  c  = tl->ctx;
  M  = tl->M;
  nc = tl->nc;
  PetscCall(VecGetLocalSize(r, &nl));
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArrayRead(c->D, &da));
  PetscCall(VecGetArrayRead(c->gamma, &ga));
  PetscCall(VecGetArray(z, &za));
  /* g = U^T D r (A form) or U^T r (S form) */
  PetscCall(PetscArrayzero(tl->g, nc));
  for (PetscInt i = 0; i < nl; i++) {
    PetscInt   b = tl->blk[i];
    PetscReal  w;
    PetscReal *u = tl->ut + (size_t)i * M;
    if (b < 0) continue;
    w = PetscRealPart(ra[i]) * (tl->sym ? 1.0 : PetscRealPart(da[i]));
    for (PetscInt k = 0; k < tl->rank[b]; k++) tl->g[tl->off[b] + k] += u[k] * w;
  }
  PetscCall(MPIU_Allreduce(tl->g, tl->y, nc, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
  PetscCall(PetscBLASIntCast(nc, &n));
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &n, &one, tl->Ac, &n, tl->piv, tl->y, &n, &info));
  PetscCall(PetscFPTrapPop());
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrs failed: %d", (int)info);
  for (PetscInt i = 0; i < nl; i++) {
    PetscInt  b = tl->blk[i];
    PetscReal ri = PetscRealPart(ra[i]), di = PetscRealPart(da[i]), gi = PetscRealPart(ga[i]), uy = 0, suy = 0;
    if (b < 0) { /* inactive: identity row (diagonal 1) */
      za[i] = ri / (tl->sym ? (di > 0 ? di * gi : 1.0) : gi);
      continue;
    }
    {
      PetscReal *u = tl->ut + (size_t)i * M;
      for (PetscInt k = 0; k < tl->rank[b]; k++) uy += u[k] * PetscRealPart(tl->y[tl->off[b] + k]);
    }
    if (tl->form == BTE_TWOLEVEL_MULTIPLICATIVE) {
      for (PetscCount s = tl->segptr[i]; s < tl->segptr[i + 1]; s++) {
        PetscInt   bs = tl->segblk[s];
        PetscReal *w  = tl->suval + tl->segoff[s];
        for (PetscInt l = 0; l < tl->rank[bs]; l++) suy += w[l] * PetscRealPart(tl->y[tl->off[bs] + l]);
      }
      /* (S U y)_i = D_i (A U y)_i */
      if (tl->sym) za[i] = uy + (ri - suy) / (di * gi);
      else za[i] = uy + (ri - suy / di) / gi;
    } else {
      if (tl->sym) za[i] = uy + ri / (di * gi);
      else za[i] = uy + ri / gi;
    }
  }
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(VecRestoreArrayRead(c->D, &da));
  PetscCall(VecRestoreArrayRead(c->gamma, &ga));
  PetscCall(VecRestoreArray(z, &za));
  PetscCall(PetscLogFlops(4.0 * (PetscLogDouble)nc * nc + 4.0 * (PetscLogDouble)(tl->nval + (PetscCount)nl * M)));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_BTETwoLevel(PC pc, PetscViewer v)
{
  BTETwoLevel tl;
  PetscBool   iascii;

  PetscFunctionBegin;
  PetscCall(PCShellGetContext(pc, &tl));
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(v, "bte two-level: Gamma diagonal + coarse space of v_d x cubic harmonics x energy bins (%s form)\n", BTETwoLevelForms[tl->form]));
    PetscCall(PetscViewerASCIIPrintf(v, "  %" PetscInt_FMT " bins per %s, angular level %" PetscInt_FMT ", %" PetscInt_FMT " coarse vectors, %" PetscInt_FMT " setups (%g s)\n", tl->nbins, BTETwoLevelSplits[tl->split], tl->angular, tl->nc, tl->setups, (double)tl->time));
  }
  PetscFunctionReturn(0);
}

/* Makes pc a PCSHELL applying tl (tl stays owned by the caller). */
PetscErrorCode BTETwoLevelSetPC(BTETwoLevel tl, PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, tl));
  PetscCall(PCShellSetApply(pc, PCApply_BTETwoLevel));
  PetscCall(PCShellSetView(pc, PCView_BTETwoLevel));
  PetscCall(PCShellSetName(pc, "bte two-level"));
  PetscFunctionReturn(0);
}
