/* PCBTETWOLEVEL ("bte_twolevel"): a two-level preconditioner for the linear systems of implicit time
   integrators (BDF, ARKIMEX, Rosenbrock-W, beuler) on bte's collision Jacobian:

       A = shift I + scale J(f)            (TS hands the KSP a I - J: shift = a, scale = -1)

   Why not the transport two-level preconditioner (src/transport/twolevel.c) as it is: its coarse
   space is v_d x harmonics, odd in k, built for the linear-response right-hand side and for -J(f0)
   (no shift; D-weighted at equilibrium). The slow modes of a relaxation are even: the population
   of each energy shell of each valley (energy relaxation by phonon emission, intervalley transfer)
   and the carrier number (the null vector of J, eigenvalue a of A). Jacobi (the diagonal) damps
   the fast in-shell modes but leaves these, which cost GMRES most of its iterations once a*dt is
   small against the fastest rates. So the coarse space here is aggregation by (valley, energy
   bin): u_B = indicator of block B, and it contains the null vector.

   Coarse matrix and its rows. A_c = U^T A U, not built by applying A to each coarse vector: one
   pass over the channel ends of the owned states (sorted by state, with P, Q once per collision
   operator) gives row t of A U from the Jacobian entries of eq. 4 at the current f,

       A_tt = shift + scale sum_ends -(P_to (1 - f_o) + Q_to f_o)
       A_to = scale (P_to f_t + Q_to (1 - f_t)),   (A U)_{t,B} = sum_{o in B} A_to (+ A_tt),

   and A_c = sum_t U_t^T (A U)_t, summed over ranks and LU-factored (replicated: nc, the non-empty
   blocks, is small). The pass touches every channel end once, like one Jacobian apply: it is logged and
   counted as one (BTECollJacApply), so cost summaries stay honest.

   Apply (multiplicative: coarse, then one Jacobi step on the residual; additive: both on r):
       y = A_c^{-1} U^T r,   z = U y + diag(A)^{-1} (r - (A U) y).
   diag(A) comes from the same pass; with a field, from the Mat (MatGetDiagonal, which has the
   drift's diagonal; the drift itself is left out of the coarse part).

   How many bins. A fixed count does not hold its gain as the grid refines (GaAs 40^3 with 16 bins
   per valley: 4.3 GMRES iterations per solve against 2 on 24^3). So by default the coarse space
   follows the grid: enough energy bins that a (group, bin) block holds about
   -pc_bte_twolevel_states_per_block states on average (6), never fewer than 16 bins; only non-empty
   blocks become coarse vectors (the grid's energies come in discrete shells, so fine bins are mostly
   empty and would only inflate the dense LU); and once every shell is a block and blocks still hold
   more than that, each is split by the states' total scattering rate (-pc_bte_twolevel_rate_bins),
   which separates the orbits of one shell. An explicit -pc_bte_twolevel_bins wins over the rule.

   Odd-in-k modes. Blocks are even in k, so with a field the drift's modes (odd, along E) are left to
   GMRES. -pc_bte_twolevel_direction dx,dy,dz splits every block by the sign of v.d: the two halves'
   indicators span the block's indicator and a crude velocity function along d (give d = E). The
   coarse matrix has no drift part, so today this gains little (docs/timestepping.md).

   Options (PCSetFromOptions): -pc_bte_twolevel_bins (from the grid), -pc_bte_twolevel_states_per_block
   (6), -pc_bte_twolevel_rate_bins (from the grid), -pc_bte_twolevel_direction (none),
   -pc_bte_twolevel_split valley|none, -pc_bte_twolevel_form multiplicative|additive.

   Setup and apply run on the host: with CUDA state Vecs each apply moves r and z between device and
   host (a device version is not written). The setup is logged as BTEPCTwoLevSetUp. */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/collisionimpl.h>
#include <petsc/private/pcimpl.h>
#include <petscblaslapack.h>
#include "transport/valleys.h"
#if defined(_OPENMP)
  #include <omp.h>
#endif

/* this thread's number in a parallel region (0 without OpenMP) */
static inline int TwoLevelThread(void)
{
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

#if PETSC_VERSION_GE(3, 23, 0)
typedef PetscOptionItems BTEOptionItems;
#else
typedef PetscOptionItems *BTEOptionItems;
#endif

typedef enum {
  BTE_PCTL_SPLIT_NONE,
  BTE_PCTL_SPLIT_VALLEY
} BTEPCTLSplit;
static const char *const BTEPCTLSplits[] = {"none", "valley", "BTEPCTLSplit", "BTE_PCTL_SPLIT_", NULL};
static const char *const BTEPCTLForms[]  = {"multiplicative", "additive", "BTEPCTLForm", "BTE_PCTL_", NULL};

static PetscLogEvent PC_BTETwoLevelSetUp;
static PetscBool     PC_BTETwoLevelRegistered = PETSC_FALSE;

typedef struct {
  /* options */
  PetscInt     nbins;   /* PETSC_DETERMINE: from the grid (spb) */
  PetscReal    spb;     /* states per block aimed at when the bin count is from the grid */
  PetscReal    dir[3];  /* split blocks by the sign of v.dir; zero: no split */
  PetscInt     nb;      /* bins in use */
  PetscInt     nd;      /* 1, or 2 halves per block with a direction */
  PetscInt     nrate;   /* rate bins per (group, energy bin) block; PETSC_DETERMINE: from the grid */
  PetscInt     nr;      /* rate bins in use */
  BTEPCTLSplit split;
  PetscInt     form; /* 0 multiplicative, 1 additive */
  /* blocks, once per collision operator (state layout) */
  PetscInt64 basis_id, basis_rates; /* the operator (object id) and its rates (ratesid) of the basis */
  PetscInt   nl, nloc, nc;
  PetscInt  *blk;  /* nloc: block of each owned and ghost state */
  PetscInt   ngroups;
  /* channel ends of the owned states in row order, rates oriented from the row's state t to the
     other end o (Pt = rate t -> o, Qt = rate o -> t) */
  PetscCount *endptr;
  PetscInt   *eo;
  PetscReal  *ePt, *eQt;
  /* per setup: rows of A U (segments: block, value), A_c factored, the inverse diagonal */
  PetscCount   *segptr, nseg, capseg;
  PetscInt     *segblk;
  PetscReal    *segval;
  PetscScalar  *Ac, *g, *y;
  PetscBLASInt *piv;
  Vec           dinv;
  PetscInt      setups;
} PC_BTETwoLevel;

static PetscErrorCode PCBTETwoLevelResetBasis(PC_BTETwoLevel *tl)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(tl->blk));
  PetscCall(PetscFree(tl->endptr));
  PetscCall(PetscFree3(tl->eo, tl->ePt, tl->eQt));
  PetscCall(PetscFree(tl->segptr));
  PetscCall(PetscFree2(tl->segblk, tl->segval));
  PetscCall(PetscFree4(tl->Ac, tl->piv, tl->g, tl->y));
  tl->basis_id = -1;
  tl->nc       = 0;
  tl->capseg   = 0;
  tl->nseg     = 0;
  PetscFunctionReturn(0);
}

/* Blocks of the owned and ghost states, and the channel ends by owned state: once per operator */
static PetscErrorCode PCBTETwoLevelSetUpBasis(PC pc, PC_BTETwoLevel *tl, BTECollision col)
{
  BTE             bte = col->bte;
  MPI_Comm        comm = PetscObjectComm((PetscObject)pc);
  PetscInt        nl = col->nlocal, nloc = col->nlocal + col->nghost, ng = 1, nb = tl->nbins, nd;
  PetscBool       split_dir = (PetscBool)(tl->dir[0] != 0 || tl->dir[1] != 0 || tl->dir[2] != 0);
  PetscInt       *group, *ci, *cj;
  PetscReal      *lo, *hi, *P, *Q;
  const PetscReal *e = col->energy;
  PetscCount      nch = bte->ch.n;
  Vec             gv, lv;

  PetscFunctionBegin;
  PetscCall(PCBTETwoLevelResetBasis(tl));
  PetscCall(PetscMalloc1(nl + 1, &group));
  if (tl->split == BTE_PCTL_SPLIT_VALLEY) {
    BTEValleys v;
    PetscCall(BTEValleysCreate(bte, 0, NULL, &v));
    for (PetscInt i = 0; i < nl; i++) group[i] = v->state_min[i] >= 0 ? v->state_min[i] : 0;
    ng = PetscMax(v->nmin, 1);
    PetscCall(BTEValleysDestroy(&v));
  } else
    for (PetscInt i = 0; i < nl; i++) group[i] = 0;
  tl->ngroups = ng;
  if (nb == PETSC_DETERMINE) { /* from the grid: about spb states per (group, bin) block, at least 16 bins */
    PetscInt64 n = nl;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &n, 1, MPIU_INT64, MPI_SUM, comm));
    nb = PetscMin(PetscMax(16, (PetscInt)PetscCeilReal((PetscReal)n / (ng * tl->spb))), 10000);
  }
  nd     = split_dir ? 2 : 1;
  tl->nb = nb;
  tl->nd = nd;
  PetscCheck(!split_dir || bte->nlocal == nl, comm, PETSC_ERR_PLIB, "bte_twolevel: %" PetscInt_FMT " velocities for %" PetscInt_FMT " states", bte->nlocal, nl);
  /* energy range of each group; bins uniform in energy within it */
  PetscCall(PetscMalloc2(ng, &lo, ng, &hi));
  for (PetscInt g = 0; g < ng; g++) {
    lo[g] = PETSC_MAX_REAL;
    hi[g] = -PETSC_MAX_REAL;
  }
  for (PetscInt i = 0; i < nl; i++) {
    lo[group[i]] = PetscMin(lo[group[i]], e[i]);
    hi[group[i]] = PetscMax(hi[group[i]], e[i]);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, lo, ng, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, hi, ng, MPIU_REAL, MPIU_MAX, comm));
  /* channel ends and rates (needed for the rate split below and for the pass) */
  PetscCall(BTECollisionComputeLocalEnds(col, &ci, &cj));
  PetscCall(PetscMalloc2(nch + 1, &P, nch + 1, &Q));
  PetscCall(BTECollisionComputeChannelPQ_Private(col, ci, cj, P, Q));
  /* the block of every owned state, then of the ghosts through the operator's own exchange */
  PetscCall(BTECreateStateVec(bte, &gv));
  PetscCall(VecSetType(gv, VECSTANDARD)); /* host values: the ids are read on the host */
  {
    PetscScalar *a;
    PetscCall(VecGetArrayWrite(gv, &a));
    for (PetscInt i = 0; i < nl; i++) {
      PetscInt g = group[i], k = hi[g] > lo[g] ? (PetscInt)PetscFloorReal((e[i] - lo[g]) / (hi[g] - lo[g]) * nb) : 0;
      k    = PetscMin(PetscMax(k, 0), nb - 1);
      a[i] = (PetscScalar)((g * nb + k) * nd);
      if (split_dir) {
        const PetscReal *v = bte->velocity + 3 * i;
        if (v[0] * tl->dir[0] + v[1] * tl->dir[1] + v[2] * tl->dir[2] < 0) a[i] += 1;
      }
    }
    /* The grid's energies come in discrete shells (40^3 GaAs: 154 over 8 valleys), so energy bins
       alone stop adding coarse vectors once each shell is a block. Within a shell the states still
       differ by their total scattering rate sum (P + Q) over their channels (states related by a
       symmetry share it): when the bin count is from the grid and the non-empty (group, bin) blocks
       hold more than spb states on average, each is split into nr bins of the rate, uniform in
       log rate over the block's range (-pc_bte_twolevel_rate_bins sets nr). */
    {
      PetscInt   nall = ng * nb * nd, nr = tl->nrate, ne = 0;
      PetscInt  *cnt;
      PetscReal *rate, *rlo, *rhi;
      PetscInt64 n = nl;
      PetscCall(PetscCalloc1(nall, &cnt));
      for (PetscInt i = 0; i < nl; i++) cnt[(PetscInt)PetscRealPart(a[i])] = 1;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt, nall, MPIU_INT, MPI_MAX, comm));
      for (PetscInt b = 0; b < nall; b++) ne += cnt[b];
      PetscCall(PetscFree(cnt));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &n, 1, MPIU_INT64, MPI_SUM, comm));
      if (nr == PETSC_DETERMINE) nr = tl->nbins == PETSC_DETERMINE && n > tl->spb * ne ? PetscMin((PetscInt)PetscCeilReal((PetscReal)n / (ne * tl->spb)), 64) : 1;
      tl->nr = nr;
      if (nr > 1) {
        PetscCall(PetscCalloc1(nl + 1, &rate));
        for (PetscCount c = 0; c < nch; c++) {
          if (ci[c] < nl) rate[ci[c]] += P[c] + Q[c];
          if (cj[c] < nl) rate[cj[c]] += P[c] + Q[c];
        }
        PetscCall(PetscMalloc2(nall, &rlo, nall, &rhi));
        for (PetscInt b = 0; b < nall; b++) {
          rlo[b] = PETSC_MAX_REAL;
          rhi[b] = -PETSC_MAX_REAL;
        }
        for (PetscInt i = 0; i < nl; i++) {
          PetscInt b = (PetscInt)PetscRealPart(a[i]);
          rate[i]    = PetscLogReal(PetscMax(rate[i], PETSC_SMALL));
          rlo[b]     = PetscMin(rlo[b], rate[i]);
          rhi[b]     = PetscMax(rhi[b], rate[i]);
        }
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, rlo, nall, MPIU_REAL, MPIU_MIN, comm));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, rhi, nall, MPIU_REAL, MPIU_MAX, comm));
        for (PetscInt i = 0; i < nl; i++) {
          PetscInt b = (PetscInt)PetscRealPart(a[i]), r = 0;
          /* a relative width below 1e-9 is one rate up to rounding: one sub-block */
          if (rhi[b] - rlo[b] > 1e-9) r = (PetscInt)PetscFloorReal((rate[i] - rlo[b]) / (rhi[b] - rlo[b]) * nr);
          r    = PetscMin(PetscMax(r, 0), nr - 1);
          a[i] = (PetscScalar)(b * nr + r);
        }
        PetscCall(PetscFree2(rlo, rhi));
        PetscCall(PetscFree(rate));
      }
    }
    /* only the blocks that hold a state on some rank are coarse vectors: with bins uniform in energy
       many are empty once bins are fine (a light valley's few states), and the dense coarse LU is
       the cost that grows with the bin count */
    {
      PetscInt *cnt, nfull = 0, nall = ng * nb * nd * tl->nr;
      PetscCall(PetscCalloc1(nall, &cnt));
      for (PetscInt i = 0; i < nl; i++) cnt[(PetscInt)PetscRealPart(a[i])] = 1;
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cnt, nall, MPIU_INT, MPI_MAX, comm));
      for (PetscInt b = 0; b < nall; b++) cnt[b] = cnt[b] ? nfull++ : -1;
      for (PetscInt i = 0; i < nl; i++) a[i] = (PetscScalar)cnt[(PetscInt)PetscRealPart(a[i])];
      PetscCall(PetscFree(cnt));
      tl->nc = nfull;
    }
    PetscCall(VecRestoreArrayWrite(gv, &a));
  }
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nloc, &lv));
  PetscCall(BTECollisionGlobalToLocal(col, gv, lv));
  PetscCall(PetscMalloc1(nloc + 1, &tl->blk));
  {
    const PetscScalar *a;
    PetscCall(VecGetArrayRead(lv, &a));
    for (PetscInt i = 0; i < nloc; i++) tl->blk[i] = (PetscInt)PetscFloorReal(PetscRealPart(a[i]) + 0.5);
    PetscCall(VecRestoreArrayRead(lv, &a));
  }
  PetscCall(VecDestroy(&lv));
  PetscCall(VecDestroy(&gv));
  PetscCall(PetscFree2(lo, hi));
  PetscCall(PetscFree(group));
  tl->nl   = nl;
  tl->nloc = nloc;
  /* channel ends sorted by owned state (counting sort, channels in order) */
  PetscCall(BTECollisionEndLists_Private(nl, nch, ci, cj, P, Q, &tl->endptr, &tl->eo, &tl->ePt, &tl->eQt));
  PetscCall(PetscFree2(P, Q));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(PetscMalloc1(nl + 1, &tl->segptr));
  tl->capseg = 4 * (PetscCount)nl + 16;
  PetscCall(PetscMalloc2(tl->capseg, &tl->segblk, tl->capseg, &tl->segval));
  PetscCall(PetscMalloc4((size_t)tl->nc * tl->nc, &tl->Ac, tl->nc, &tl->piv, tl->nc, &tl->g, tl->nc, &tl->y));
  tl->basis_id    = ((PetscObject)col)->id;
  tl->basis_rates = col->ratesid; /* the end lists hold the rates: a new temperature makes them stale */
  PetscCall(PetscInfo(pc, "bte_twolevel: %" PetscInt_FMT " groups x %" PetscInt_FMT " energy bins x %" PetscInt_FMT ": %" PetscInt_FMT " non-empty blocks = coarse vectors\n", ng, nb, nd, tl->nc));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetUp_BTETwoLevel(PC pc)
{
  PC_BTETwoLevel    *tl = (PC_BTETwoLevel *)pc->data;
  PetscErrorCode   (*lin)(Mat, BTECollision *, Vec *, PetscScalar *, PetscScalar *, PetscBool *) = NULL;
  BTECollision       col;
  Vec                fl;
  PetscScalar        scale, shift, *da = NULL;
  PetscBool          whole;
  const PetscScalar *fa;
  PetscReal         *scr;
  PetscInt          *mark, *touched, nc;
  int                nth;
  MPI_Comm           comm = PetscObjectComm((PetscObject)pc);

  PetscFunctionBegin;
  PetscCall(PetscObjectQueryFunction((PetscObject)pc->pmat, BTE_JAC_LINEARIZATION, &lin));
  PetscCheck(lin, comm, PETSC_ERR_SUP, "-pc_type bte_twolevel needs bte's matrix-free collision Jacobian as the preconditioning matrix (bte dynamics without -bte_jacobian_assembled)");
  PetscCall((*lin)(pc->pmat, &col, &fl, &scale, &shift, &whole));
  PetscCheck(PetscImaginaryPart(scale) == 0 && PetscImaginaryPart(shift) == 0, comm, PETSC_ERR_SUP, "bte_twolevel: complex shifts are not supported");
  PetscCall(PetscLogEventBegin(PC_BTETwoLevelSetUp, pc, 0, 0, 0));
  PetscCall(BTECollisionSetUp(col)); /* a new temperature (BTECollisionSetTemperature) takes effect */
  if (tl->basis_id != ((PetscObject)col)->id || tl->basis_rates != col->ratesid || tl->nl != col->nlocal) PetscCall(PCBTETwoLevelSetUpBasis(pc, tl, col));
  nc = tl->nc;
  if (!tl->dinv) {
    /* on the host whatever the state Vecs' type: the pass and the apply run on the host */
    PetscCall(VecCreateMPI(comm, tl->nl, PETSC_DETERMINE, &tl->dinv));
  }
  if (!whole) { /* a drift term: its diagonal from the Mat, the pass does not see it */
    Vec                d;
    const PetscScalar *a;
    PetscScalar       *b;
    PetscCall(MatCreateVecs(pc->pmat, &d, NULL));
    PetscCall(MatGetDiagonal(pc->pmat, d));
    PetscCall(VecGetArrayRead(d, &a)); /* d may be a device Vec: copied through the host */
    PetscCall(VecGetArrayWrite(tl->dinv, &b));
    PetscCall(PetscArraycpy(b, a, tl->nl));
    PetscCall(VecRestoreArrayWrite(tl->dinv, &b));
    PetscCall(VecRestoreArrayRead(d, &a));
    PetscCall(VecDestroy(&d));
  }

  /* rows of A U: one pass over the owned states' channel ends at the current f (a Jacobian apply).
     Rows are independent: threads take rows, each with scratch of its own, after a first pass that
     counts each row's blocks, so that every row lands where a serial pass puts it, with the same
     sums in the same order (bitwise). Serial, this pass was most of a step's time on a GPU run. */
  PetscCall(PetscLogEventBegin(BTECOLL_JacApply, col, 0, 0, 0));
  nth = 1;
#if defined(_OPENMP)
  nth = omp_get_max_threads();
#endif
  PetscCall(PetscMalloc3((size_t)nc * nth, &scr, (size_t)nc * nth, &mark, (size_t)nc * nth, &touched));
  PetscCall(PetscArrayzero(scr, (size_t)nc * nth));
  for (size_t b = 0; b < (size_t)nc * nth; b++) mark[b] = -1;
  PetscCall(VecGetArrayRead(fl, &fa));
  PetscCall(VecGetArray(tl->dinv, &da));
#pragma omp parallel for num_threads(nth) schedule(static)
  for (PetscInt t = 0; t < tl->nl; t++) { /* blocks per row */
    PetscInt *mk = mark + (size_t)TwoLevelThread() * nc, cnt = 0, bt = tl->blk[t];
    for (PetscCount s = tl->endptr[t]; s < tl->endptr[t + 1]; s++) {
      PetscInt bo = tl->blk[tl->eo[s]];
      if (mk[bo] != t) mk[bo] = t, cnt++;
    }
    if (mk[bt] != t) mk[bt] = t, cnt++;
    tl->segptr[t + 1] = cnt;
  }
  tl->segptr[0] = 0;
  for (PetscInt t = 0; t < tl->nl; t++) tl->segptr[t + 1] += tl->segptr[t];
  tl->nseg = tl->segptr[tl->nl];
  if (tl->nseg > tl->capseg) {
    while (tl->nseg > tl->capseg) tl->capseg *= 2;
    PetscCall(PetscFree2(tl->segblk, tl->segval));
    PetscCall(PetscMalloc2(tl->capseg, &tl->segblk, tl->capseg, &tl->segval));
  }
  for (size_t b = 0; b < (size_t)nc * nth; b++) mark[b] = -1;
#pragma omp parallel for num_threads(nth) schedule(static)
  for (PetscInt t = 0; t < tl->nl; t++) {
    const int  th  = TwoLevelThread();
    PetscReal *sc_ = scr + (size_t)th * nc;
    PetscInt  *mk = mark + (size_t)th * nc, *tc = touched + (size_t)th * nc;
    PetscReal  ft = PetscRealPart(fa[t]), sc = PetscRealPart(scale), own = 0;
    PetscInt   nt = 0, bt = tl->blk[t];
    PetscCount w  = tl->segptr[t];
    for (PetscCount s = tl->endptr[t]; s < tl->endptr[t + 1]; s++) {
      PetscInt  o = tl->eo[s], bo = tl->blk[o];
      PetscReal fo = PetscRealPart(fa[o]), Pt = tl->ePt[s], Qt = tl->eQt[s];
      own -= Pt * (1.0 - fo) + Qt * fo;
      if (mk[bo] != t) {
        mk[bo]   = t;
        tc[nt++] = bo;
      }
      sc_[bo] += sc * (Pt * ft + Qt * (1.0 - ft));
    }
    if (mk[bt] != t) {
      mk[bt]   = t;
      tc[nt++] = bt;
    }
    sc_[bt] += PetscRealPart(shift) + sc * own;
    /* the diagonal from the same pass (one apply saved), or 1 / the Mat's */
    da[t] = 1.0 / (whole ? PetscRealPart(shift) + sc * own : da[t]);
    for (PetscInt q = 0; q < nt; q++) {
      tl->segblk[w + q] = tc[q];
      tl->segval[w + q] = sc_[tc[q]];
      sc_[tc[q]]        = 0;
    }
  }
  PetscCall(VecRestoreArray(tl->dinv, &da));
  PetscCall(VecRestoreArrayRead(fl, &fa));
  PetscCall(PetscFree3(scr, mark, touched));
  col->njacapplies++;
  PetscCall(PetscLogFlops(6.0 * (PetscLogDouble)tl->endptr[tl->nl]));
  PetscCall(PetscLogEventEnd(BTECOLL_JacApply, col, 0, 0, 0));

  /* A_c = U^T (A U): row t of A U added to coarse row blk(t); summed over ranks; LU */
  PetscCall(PetscArrayzero(tl->Ac, (size_t)nc * nc));
  for (PetscInt t = 0; t < tl->nl; t++)
    for (PetscCount s = tl->segptr[t]; s < tl->segptr[t + 1]; s++) tl->Ac[(size_t)tl->segblk[s] * nc + tl->blk[t]] += tl->segval[s];
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, tl->Ac, (PetscMPIInt)((size_t)nc * nc), MPIU_SCALAR, MPIU_SUM, comm));
  {
    PetscBLASInt n, info;
    /* an empty block (no state in that energy bin) is an identity row: it never receives a residual */
    for (PetscInt b = 0; b < nc; b++) {
      PetscBool empty = PETSC_TRUE;
      for (PetscInt c = 0; c < nc && empty; c++)
        if (tl->Ac[(size_t)c * nc + b] != 0.0 || tl->Ac[(size_t)b * nc + c] != 0.0) empty = PETSC_FALSE;
      if (empty) tl->Ac[(size_t)b * nc + b] = 1.0;
    }
    PetscCall(PetscBLASIntCast(nc, &n));
    PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
    PetscCallBLAS("LAPACKgetrf", LAPACKgetrf_(&n, &n, tl->Ac, &n, tl->piv, &info));
    PetscCall(PetscFPTrapPop());
    PetscCheck(info >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrf failed: %d", (int)info);
    PetscCheck(info == 0, comm, PETSC_ERR_MAT_LU_ZRPVT, "bte_twolevel: singular coarse matrix (zero pivot %d of %" PetscInt_FMT "): with no shift, J has the carrier number as null vector; use -pc_type jacobi", (int)info, nc);
  }
  PetscCall(PetscLogFlops(2.0 / 3.0 * (PetscLogDouble)nc * nc * nc));
  tl->setups++;
  PetscCall(PetscLogEventEnd(PC_BTETwoLevelSetUp, pc, 0, 0, 0));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_BTETwoLevel(PC pc, Vec r, Vec z)
{
  PC_BTETwoLevel    *tl = (PC_BTETwoLevel *)pc->data;
  const PetscScalar *ra, *da;
  PetscScalar       *za;
  PetscInt           nc = tl->nc;
  PetscBLASInt       n, one = 1, info;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(r, &ra));
  PetscCall(VecGetArrayRead(tl->dinv, &da));
  PetscCall(VecGetArrayWrite(z, &za));
  /* g = U^T r: the residual summed over each block */
  PetscCall(PetscArrayzero(tl->g, nc));
  for (PetscInt i = 0; i < tl->nl; i++) tl->g[tl->blk[i]] += ra[i];
  PetscCall(MPIU_Allreduce(tl->g, tl->y, (PetscMPIInt)nc, MPIU_SCALAR, MPIU_SUM, PetscObjectComm((PetscObject)pc)));
  PetscCall(PetscBLASIntCast(nc, &n));
  PetscCall(PetscFPTrapPush(PETSC_FP_TRAP_OFF));
  PetscCallBLAS("LAPACKgetrs", LAPACKgetrs_("N", &n, &one, tl->Ac, &n, tl->piv, tl->y, &n, &info));
  PetscCall(PetscFPTrapPop());
  PetscCheck(!info, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK getrs failed: %d", (int)info);
  for (PetscInt i = 0; i < tl->nl; i++) {
    PetscScalar auy = 0;
    if (tl->form == 0)
      for (PetscCount s = tl->segptr[i]; s < tl->segptr[i + 1]; s++) auy += tl->segval[s] * tl->y[tl->segblk[s]];
    za[i] = tl->y[tl->blk[i]] + da[i] * (ra[i] - auy);
  }
  PetscCall(VecRestoreArrayWrite(z, &za));
  PetscCall(VecRestoreArrayRead(tl->dinv, &da));
  PetscCall(VecRestoreArrayRead(r, &ra));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)nc * nc + 2.0 * (PetscLogDouble)tl->nseg + 4.0 * tl->nl));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetFromOptions_BTETwoLevel(PC pc, BTEOptionItems PetscOptionsObject)
{
  PC_BTETwoLevel *tl = (PC_BTETwoLevel *)pc->data;
  PetscInt        nbins = tl->nbins, form = tl->form, ndir = 3;
  PetscReal       spb = tl->spb, dir[3] = {tl->dir[0], tl->dir[1], tl->dir[2]};
  PetscBool       flg;

  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "bte two-level preconditioner for implicit time steps");
  PetscCall(PetscOptionsInt("-pc_bte_twolevel_bins", "Energy bins per group (valley) of the coarse space (-1, the default: from the grid, see -pc_bte_twolevel_states_per_block)", "PCBTETWOLEVEL", nbins, &nbins, &flg));
  if (flg) {
    /* -1 is the default -help shows: giving it means the same */
    PetscCheck(nbins == PETSC_DETERMINE || (nbins >= 1 && nbins <= 10000), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_bte_twolevel_bins must be in [1, 10000] (or -1: from the grid), got %" PetscInt_FMT, nbins);
    if (nbins != tl->nbins) tl->basis_id = -1; /* rebuild the blocks at the next setup */
    tl->nbins = nbins;
  }
  PetscCall(PetscOptionsReal("-pc_bte_twolevel_states_per_block", "States per (group, bin) block aimed at when the bin count is from the grid", "PCBTETWOLEVEL", spb, &spb, &flg));
  if (flg) {
    PetscCheck(spb >= 1 && !PetscIsInfOrNanReal(spb), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_bte_twolevel_states_per_block must be a finite number >= 1, got %g", (double)spb);
    if (spb != tl->spb && tl->nbins == PETSC_DETERMINE) tl->basis_id = -1;
    tl->spb = spb;
  }
  {
    PetscInt nrate = tl->nrate;
    PetscCall(PetscOptionsInt("-pc_bte_twolevel_rate_bins", "Bins of the total scattering rate within each (group, energy bin) block (-1, the default: from the grid)", "PCBTETWOLEVEL", nrate, &nrate, &flg));
    if (flg) {
      PetscCheck(nrate == PETSC_DETERMINE || (nrate >= 1 && nrate <= 64), PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_OUTOFRANGE, "-pc_bte_twolevel_rate_bins must be in [1, 64] (or -1: from the grid), got %" PetscInt_FMT, nrate);
      if (nrate != tl->nrate) tl->basis_id = -1;
      tl->nrate = nrate;
    }
  }
  PetscCall(PetscOptionsRealArray("-pc_bte_twolevel_direction", "Split every block by the sign of v.d (d = the field's direction gives odd-in-k coarse functions)", "PCBTETWOLEVEL", dir, &ndir, &flg));
  if (flg) {
    PetscCheck(ndir == 3, PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_SIZ, "-pc_bte_twolevel_direction needs 3 components, got %" PetscInt_FMT, ndir);
    PetscCheck(!PetscIsInfOrNanReal(dir[0]) && !PetscIsInfOrNanReal(dir[1]) && !PetscIsInfOrNanReal(dir[2]) && (dir[0] != 0 || dir[1] != 0 || dir[2] != 0), PetscObjectComm((PetscObject)pc), PETSC_ERR_USER_INPUT, "-pc_bte_twolevel_direction %g,%g,%g: needs a finite, nonzero vector (e.g. the field's direction 1,0,0)", (double)dir[0], (double)dir[1], (double)dir[2]);
    if (dir[0] != tl->dir[0] || dir[1] != tl->dir[1] || dir[2] != tl->dir[2]) tl->basis_id = -1;
    for (PetscInt c = 0; c < 3; c++) tl->dir[c] = dir[c];
  }
  {
    BTEPCTLSplit split = tl->split;
    PetscCall(PetscOptionsEnum("-pc_bte_twolevel_split", "Groups of the coarse space: the valleys (band minima) or all states", "PCBTETWOLEVEL", BTEPCTLSplits, (PetscEnum)split, (PetscEnum *)&split, &flg));
    if (flg && split != tl->split) tl->basis_id = -1;
    tl->split = split;
  }
  PetscCall(PetscOptionsEList("-pc_bte_twolevel_form", "Coarse correction and Jacobi step one after the other, or side by side", "PCBTETWOLEVEL", BTEPCTLForms, 2, BTEPCTLForms[form], &form, NULL));
  tl->form = form;
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_BTETwoLevel(PC pc, PetscViewer v)
{
  PC_BTETwoLevel *tl = (PC_BTETwoLevel *)pc->data;
  PetscBool       iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  if (iascii) {
    PetscCall(PetscViewerASCIIPrintf(v, "bte two-level: Jacobi + coarse space of (%s) x energy bins, %s form\n", tl->split == BTE_PCTL_SPLIT_VALLEY ? "valley" : "all states", BTEPCTLForms[tl->form]));
    PetscCall(PetscViewerASCIIPrintf(v, "  %" PetscInt_FMT " groups x %" PetscInt_FMT " bins (%s) x %" PetscInt_FMT ": %" PetscInt_FMT " non-empty blocks = coarse vectors; %" PetscInt_FMT " setups\n", tl->ngroups, tl->nb, tl->nbins == PETSC_DETERMINE ? "from the grid" : "set", tl->nd, tl->nc, tl->setups));
    if (tl->nr > 1) PetscCall(PetscViewerASCIIPrintf(v, "  each block split into %" PetscInt_FMT " bins of the total scattering rate\n", tl->nr));
    if (tl->nd == 2) PetscCall(PetscViewerASCIIPrintf(v, "  blocks split by the sign of v.(%g, %g, %g)\n", (double)tl->dir[0], (double)tl->dir[1], (double)tl->dir[2]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCReset_BTETwoLevel(PC pc)
{
  PC_BTETwoLevel *tl = (PC_BTETwoLevel *)pc->data;

  PetscFunctionBegin;
  PetscCall(PCBTETwoLevelResetBasis(tl));
  PetscCall(VecDestroy(&tl->dinv));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_BTETwoLevel(PC pc)
{
  PetscFunctionBegin;
  PetscCall(PCReset_BTETwoLevel(pc));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(0);
}

/* The PC type's constructor (PCRegister at BTEInitializePackage) */
PetscErrorCode PCCreate_BTETwoLevel(PC pc)
{
  PC_BTETwoLevel *tl;

  PetscFunctionBegin;
  if (!PC_BTETwoLevelRegistered) {
    PetscCall(PetscLogEventRegister("BTEPCTwoLevSetUp", PC_CLASSID, &PC_BTETwoLevelSetUp));
    PC_BTETwoLevelRegistered = PETSC_TRUE;
  }
  PetscCall(PetscNew(&tl));
  tl->nbins             = PETSC_DETERMINE;
  tl->spb               = 6;
  tl->nd                = 1;
  tl->nrate             = PETSC_DETERMINE;
  tl->nr                = 1;
  tl->split             = BTE_PCTL_SPLIT_VALLEY;
  tl->form              = 0;
  tl->basis_id          = -1;
  pc->data              = (void *)tl;
  pc->ops->setup        = PCSetUp_BTETwoLevel;
  pc->ops->apply        = PCApply_BTETwoLevel;
  pc->ops->setfromoptions = PCSetFromOptions_BTETwoLevel;
  pc->ops->view         = PCView_BTETwoLevel;
  pc->ops->reset        = PCReset_BTETwoLevel;
  pc->ops->destroy      = PCDestroy_BTETwoLevel;
  PetscFunctionReturn(0);
}
