/* Diagnostics at setup: can this grid represent the equilibrium it is asked for?
   (docs/diagnostics.md; BTEGetDiagnostics, printed by BTEView, written into the output files.)

   All at the lattice temperature T with f0 = Fermi-Dirac at T and mu = e_min - 20 kT (f <= 2e-9:
   nondegenerate, where every quantity below is independent of mu):
   - equilibrium defect  D = sum_i |I_i[f0]| / sum_i Gamma_i f0_i: the net flux of the collision
     integral as a share of the gross out-scattering flux (Gamma_i = -J_ii(f0)). 0 for a
     discretisation with exact detailed balance; Perturbo's Gaussian smearing is not one.
   - relaxation temperature: the Fermi-Dirac temperature with the mean energy of the stationary
     state f* of I that f0 relaxes to (on the largest piece of the channel graph: pieces exchange no
     carriers). Nondegenerate, one linear solve gives f* (RelaxationTemperature below); it agrees
     with long dynamics runs to 1e-6 (tests/diagnostics/relax.sh). The temperature at which a
     Fermi-Dirac distribution exchanges no energy with the lattice, a few applies, was 8 K off a
     10 K shift: the stationary state does not have the Fermi-Dirac shape.
   - edge share: the share of the carriers of f0 in states within 3 kT of the window's top.
   - thermal sampling: the participation number (sum_i f0_i)^2 / sum_i f0_i^2, the number of states
     the thermal distribution sits on in effect; a grid with a few dozen samples the Boltzmann
     factor too coarsely for a converged mobility or relaxation rate.
   - zero-field current: the mean velocity of that stationary state against the mean thermal speed
     of f0. A table symmetric under k -> -k gives 0 to rounding; one whose couplings are evaluated at
     one end of each channel from a non-Hermitian interpolation (a Perturbo file from a coarse grid)
     does not, and its runs carry a current without a field.
   Cost: one collision operator setup (or the run's, when it exists), one apply, one scattering-rate
   pass and 10-40 Jacobian applies of GMRES; BTE_Diagnostics in -log_view. Vector operations only, so
   CUDA state Vecs (-vec_type cuda) keep the work on the device. */
#include <bte/private/diagnostics.h>
#include <bte/private/collisionimpl.h>
#include <bte/private/modelimpl.h>
#include <bte/private/validate.h>
#include <math.h>
#include <stdio.h>

#define BTE_DIAG_MU_KT 20.0 /* mu = e_min - 20 kT */

/* The stationary state of the collision integral reached from f0 (nondegenerate: I is linear in
   f up to terms of order f, so one linear solve gives it). With f = f0 + D phi, D = diag(f0):
       A phi = D^-1 I[f0],   A = -D^-1 J(f0) D   (the operator of linear-response transport),
   diagonal Gamma. The left null vectors of A are f0 on each piece of the channel graph and the
   right-hand side is orthogonal to them, so GMRES from phi = 0 keeps the carriers of every piece:
   the state a run started from f0 ends in. States without channels (Gamma = 0) or with f0 = 0 in
   floating point keep f0 (identity rows). */
typedef struct {
  BTECollision coll;
  Vec          f0, D, Dinv, inactive, gamma, work;
  PetscInt     applies;
} RelaxShell;

static PetscErrorCode MatMult_Relax(Mat A, Vec x, Vec y)
{
  RelaxShell *r;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &r));
  PetscCall(VecPointwiseMult(r->work, r->D, x));
  PetscCall(BTECollisionJacobianApply(r->coll, r->f0, r->work, y));
  r->applies++;
  PetscCall(VecPointwiseMult(y, y, r->Dinv));
  PetscCall(VecScale(y, -1.0));
  PetscCall(VecPointwiseMult(r->work, r->inactive, x));
  PetscCall(VecAXPY(y, 1.0, r->work));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_Relax(Mat A, Vec d)
{
  RelaxShell *r;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &r));
  PetscCall(VecCopy(r->gamma, d));
  PetscFunctionReturn(0);
}

/* Mean energy (eV above e_min) of Fermi-Dirac at T with mu = e_min - 20 kT on the states of B, in f */
static PetscErrorCode MeanEnergy(BTE bte, PetscReal T, PetscReal emin, Vec E, Vec B, Vec f, PetscReal *m)
{
  PetscScalar num, n;

  PetscFunctionBegin;
  PetscCall(BTEFermiDirac(bte, T, emin - BTE_DIAG_MU_KT * BTE_KB * T, f));
  PetscCall(VecPointwiseMult(f, f, B));
  PetscCall(VecDot(f, E, &num));
  PetscCall(VecSum(f, &n));
  *m = PetscRealPart(n) > 0 ? PetscRealPart(num) / PetscRealPart(n) : 0;
  PetscFunctionReturn(0);
}

/* Mean velocity (cm/s) of f and, if speed is not NULL, its mean speed |v| */
static PetscErrorCode MeanVelocity(BTE bte, Vec f, PetscReal v[3], PetscReal *speed)
{
  const PetscScalar *a;
  PetscReal          s[5] = {0, 0, 0, 0, 0};

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    PetscReal        fi = PetscRealPart(a[i]);
    const PetscReal *vi = bte->velocity + 3 * i;
    s[0] += fi;
    for (PetscInt c = 0; c < 3; c++) s[1 + c] += fi * vi[c];
    s[4] += fi * PetscSqrtReal(vi[0] * vi[0] + vi[1] * vi[1] + vi[2] * vi[2]);
  }
  PetscCall(VecRestoreArrayRead(f, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, s, 5, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)bte)));
  for (PetscInt c = 0; c < 3; c++) v[c] = s[0] > 0 ? 1e7 * s[1 + c] / s[0] : 0; /* Angstrom/fs -> cm/s */
  if (speed) *speed = s[0] > 0 ? 1e7 * s[4] / s[0] : 0;
  PetscFunctionReturn(0);
}

/* f0 (Fermi-Dirac at T), Gamma = -diag J(f0), I = I[f0], E = e - e_min, B = 1 on the largest
   piece of the channel graph (0 elsewhere): the temperature of the Fermi-Dirac distribution on B
   with the mean energy of the stationary state reached from f0 B (NaN if the solve fails or the
   energy is out of [T/64, 64 T]'s), and the stationary state's mean velocity (vstar, cm/s; left
   as it is if the solve fails). Channels do not leave a piece, so I[f0 B] = I[f0] B. */
static PetscErrorCode RelaxationTemperature(BTE bte, BTECollision coll, PetscReal T, PetscReal emin, Vec f0, Vec Gamma, Vec Iv, Vec E, Vec B, PetscReal *Trel, PetscReal vstar[3], PetscInt *applies)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)bte);
  RelaxShell         r;
  Mat                A;
  KSP                ksp;
  PC                 pc;
  Vec                rhs, phi;
  PetscScalar       *d, *di, *g, *in, num, n;
  const PetscScalar *fa, *ba;
  PetscInt           nl, N, its;
  KSPConvergedReason reason;
  PetscReal          Estar, lo, hi, mlo, mhi;

  PetscFunctionBegin;
  *Trel = (PetscReal)NAN;
  PetscCall(PetscMemzero(&r, sizeof(r)));
  r.coll = coll;
  r.f0   = f0;
  PetscCall(VecDuplicate(f0, &r.D));
  PetscCall(VecDuplicate(f0, &r.Dinv));
  PetscCall(VecDuplicate(f0, &r.inactive));
  PetscCall(VecDuplicate(f0, &r.gamma));
  PetscCall(VecDuplicate(f0, &r.work));
  PetscCall(VecDuplicate(f0, &rhs));
  PetscCall(VecDuplicate(f0, &phi));
  PetscCall(VecGetLocalSize(f0, &nl));
  PetscCall(VecGetSize(f0, &N));
  PetscCall(VecCopy(Gamma, r.gamma));
  PetscCall(VecGetArrayRead(f0, &fa));
  PetscCall(VecGetArrayRead(B, &ba));
  PetscCall(VecGetArrayWrite(r.D, &d));
  PetscCall(VecGetArrayWrite(r.Dinv, &di));
  PetscCall(VecGetArray(r.gamma, &g));
  PetscCall(VecGetArrayWrite(r.inactive, &in));
  for (PetscInt i = 0; i < nl; i++) {
    if (PetscRealPart(g[i]) > 0 && PetscRealPart(fa[i]) > 0 && PetscRealPart(ba[i]) > 0) {
      d[i]  = fa[i];
      di[i] = 1.0 / fa[i];
      in[i] = 0;
    } else {
      d[i]  = 0;
      di[i] = 0;
      g[i]  = 1;
      in[i] = 1;
    }
  }
  PetscCall(VecRestoreArrayRead(f0, &fa));
  PetscCall(VecRestoreArrayRead(B, &ba));
  PetscCall(VecRestoreArrayWrite(r.D, &d));
  PetscCall(VecRestoreArrayWrite(r.Dinv, &di));
  PetscCall(VecRestoreArray(r.gamma, &g));
  PetscCall(VecRestoreArrayWrite(r.inactive, &in));
  PetscCall(VecPointwiseMult(rhs, Iv, r.Dinv));
  PetscCall(MatCreateShell(comm, nl, nl, N, N, &r, &A));
  PetscCall(MatShellSetOperation(A, MATOP_MULT, (void (*)(void))MatMult_Relax));
  PetscCall(MatShellSetOperation(A, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_Relax));
  PetscCall(MatShellSetVecType(A, ((PetscObject)f0)->type_name));
  /* fixed settings, no options: GMRES, Jacobi (Gamma) on the right, on ||A phi - rhs|| / ||rhs|| */
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "diagnostics_"));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPGMRESSetRestart(ksp, 60));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
  PetscCall(KSPSetTolerances(ksp, 1e-8, 1e-300, PETSC_DEFAULT, 2000));
  PetscCall(KSPSolve(ksp, rhs, phi));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  *applies += r.applies;
  PetscCall(PetscInfo(bte, "relaxation temperature: stationary state by GMRES in %" PetscInt_FMT " iterations (%s)\n", its, KSPConvergedReasons[reason]));
  if (reason > 0) {
    /* f* = f0 B + D phi, its mean energy, and the Fermi-Dirac temperature with that mean energy */
    PetscCall(VecPointwiseMult(r.work, r.D, phi));
    PetscCall(VecAXPY(r.work, 1.0, r.D));
    PetscCall(MeanVelocity(bte, r.work, vstar, NULL));
    PetscCall(VecDot(r.work, E, &num));
    PetscCall(VecSum(r.work, &n));
    Estar = PetscRealPart(num) / PetscRealPart(n);
    lo    = PetscMax(T / 64, BTE_TEMPERATURE_MIN);
    hi    = PetscMin(T * 64, BTE_TEMPERATURE_MAX);
    PetscCall(MeanEnergy(bte, lo, emin, E, B, r.work, &mlo));
    PetscCall(MeanEnergy(bte, hi, emin, E, B, r.work, &mhi));
    if (mhi - mlo <= 1e-12 * PetscMax(mhi, 1e-12)) *Trel = T; /* one energy level: no temperature to change */
    else if (Estar >= mlo && Estar <= mhi) {
      while (hi / lo - 1 > 1e-9) {
        PetscReal mid = PetscSqrtReal(lo * hi), m;
        PetscCall(MeanEnergy(bte, mid, emin, E, B, r.work, &m));
        if (m < Estar) lo = mid;
        else hi = mid;
      }
      *Trel = PetscSqrtReal(lo * hi);
    }
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&phi));
  PetscCall(VecDestroy(&rhs));
  PetscCall(VecDestroy(&r.D));
  PetscCall(VecDestroy(&r.Dinv));
  PetscCall(VecDestroy(&r.inactive));
  PetscCall(VecDestroy(&r.gamma));
  PetscCall(VecDestroy(&r.work));
  PetscFunctionReturn(0);
}

/* A run's operator serves if it is set up at the BTE's temperature, with its delta, in double precision */
static PetscBool BTEDiagnosticsCanReuse(BTE bte, BTECollision coll)
{
  return coll && coll->setupcalled && coll->temperature == bte->temperature && (coll->kTdb > 0) == (bte->delta == BTE_DELTA_BALANCED) && coll->precision == BTE_COLLISION_PRECISION_DOUBLE ? PETSC_TRUE : PETSC_FALSE;
}

static PetscErrorCode BTEDiagnosticsRun(BTE bte, BTECollision runcoll)
{
  MPI_Comm        comm = PetscObjectComm((PetscObject)bte);
  BTEDiagnostics *d    = &bte->diag;
  BTECollision    coll;
  Vec             f0, Iv, E, G, M, B;
  PetscReal       T = bte->temperature, kT = BTE_KB * T, emin = PETSC_MAX_REAL, emax = PETSC_MIN_REAL, top, sumI, gross, nf, nedge;
  PetscScalar     s, *m;
  PetscLogDouble  t0, t1;
  PetscBool       reuse;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(PetscMemzero(d, sizeof(*d)));
  d->temperature = T;
  d->delta       = bte->delta;
  PetscCall(BTEGetChannelGraph(bte, &d->pieces, &d->states_cut, NULL));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    emin = PetscMin(emin, bte->energy[i]);
    emax = PetscMax(emax, bte->energy[i]);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emin, 1, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emax, 1, MPIU_REAL, MPIU_MAX, comm));
  top   = bte->emax < 0.5 * PETSC_MAX_REAL ? bte->emax : emax;
  reuse = BTEDiagnosticsCanReuse(bte, runcoll);
  if (reuse) {
    coll = runcoll;
    PetscCall(PetscObjectReference((PetscObject)runcoll));
  } else {
    /* a temporary operator of the default type with none of the run's options (the results do
       not depend on the type); its own prefix, so that -bte_collision_view does not view it */
    PetscCall(BTECollisionCreate(bte, &coll));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)coll, "diagnostics_"));
    PetscCall(BTECollisionSetType(coll, BTECOLLISIONPAIR));
    PetscCall(BTECollisionSetTemperature(coll, T));
    PetscCall(BTECollisionSetUp(coll));
  }
  PetscCall(BTECreateStateVec(bte, &f0));
  PetscCall(VecDuplicate(f0, &Iv));
  PetscCall(VecDuplicate(f0, &E));
  PetscCall(VecDuplicate(f0, &G));
  PetscCall(VecDuplicate(f0, &M));
  PetscCall(VecDuplicate(f0, &B));
  d->edge_width = BTE_DIAG_EDGE_KT * kT;
  PetscCall(VecGetArrayWrite(E, &m));
  for (PetscInt i = 0; i < bte->nlocal; i++) m[i] = bte->energy[i] - emin;
  PetscCall(VecRestoreArrayWrite(E, &m));
  PetscCall(VecGetArrayWrite(M, &m));
  for (PetscInt i = 0; i < bte->nlocal; i++) m[i] = bte->energy[i] >= top - d->edge_width ? 1.0 : 0.0;
  PetscCall(VecRestoreArrayWrite(M, &m));
  if (d->pieces > 1) {
    const PetscInt *piece;
    PetscInt        big;
    PetscCall(BTEGetChannelGraphPieces(bte, &piece, &big));
    PetscCall(VecGetArrayWrite(B, &m));
    for (PetscInt i = 0; i < bte->nlocal; i++) m[i] = piece[i] == big ? 1.0 : 0.0;
    PetscCall(VecRestoreArrayWrite(B, &m));
  } else PetscCall(VecSet(B, 1.0));

  /* f0 at T: defect, edge share */
  PetscCall(BTEFermiDirac(bte, T, emin - BTE_DIAG_MU_KT * kT, f0));
  PetscCall(BTECollisionApply(coll, f0, Iv));
  PetscCall(BTECollisionGetScatteringRates(coll, f0, G));
  d->applies = 2;
  PetscCall(VecNorm(Iv, NORM_1, &sumI));
  PetscCall(VecDot(G, f0, &s));
  gross     = PetscRealPart(s);
  d->defect = gross > 0 ? sumI / gross : 0;
  PetscCall(VecSum(f0, &s));
  nf = PetscRealPart(s);
  PetscCall(VecDot(f0, M, &s));
  nedge         = PetscRealPart(s);
  d->edge_share = nf > 0 ? nedge / nf : 0;
  /* how many states the thermal distribution sits on: nondegenerate, f0 (1 - f0) = f0 to 2e-9 */
  PetscCall(VecDot(f0, f0, &s));
  d->thermal_states = PetscRealPart(s) > 0 ? nf * nf / PetscRealPart(s) : 0;
  /* the stationary state reached from f0 (f0 B itself when f0 is stationary to rounding or nothing
     scatters), its temperature and mean velocity */
  PetscCall(MeanVelocity(bte, f0, d->relax_velocity, &d->thermal_speed));
  if (d->defect > 1e-13) PetscCall(RelaxationTemperature(bte, coll, T, emin, f0, G, Iv, E, B, &d->relax_temperature, d->relax_velocity, &d->applies));
  else d->relax_temperature = T;
  d->computed = PETSC_TRUE;

  PetscCall(VecDestroy(&B));
  PetscCall(VecDestroy(&M));
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&E));
  PetscCall(VecDestroy(&Iv));
  PetscCall(VecDestroy(&f0));
  PetscCall(BTECollisionDestroy(&coll));
  PetscCall(PetscTime(&t1));
  d->time = t1 - t0;
  PetscCall(PetscInfo(bte, "diagnostics at %g K: defect %.4e, relaxation temperature %.3f K, edge share %.3e, thermal states %.1f; %" PetscInt_FMT " applies, %.3f s%s\n", (double)T, (double)d->defect, (double)d->relax_temperature, (double)d->edge_share, (double)d->thermal_states, d->applies, d->time, reuse ? " (the run's operator)" : ""));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDiagnosticsCompute(BTE bte, BTECollision runcoll, BTEDiagnostics *out)
{
  MPI_Comm comm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)bte);
  PetscCheck(bte->setupcalled, comm, PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() before BTEGetDiagnostics()");
  if (!bte->diagnostics) {
    PetscCall(PetscStrncpy(bte->diagwhy, "off (-bte_diagnostics 0)", sizeof(bte->diagwhy)));
    bte->diag.computed = PETSC_FALSE;
    bte->diagdone      = PETSC_FALSE;
  } else if (bte->chcounted) {
    PetscCall(PetscStrncpy(bte->diagwhy, "the channels were counted, not loaded", sizeof(bte->diagwhy)));
    bte->diag.computed = PETSC_FALSE;
    bte->diagdone      = PETSC_FALSE;
  } else if (!bte->diagdone || bte->diag.temperature != bte->temperature || bte->diag.delta != bte->delta) {
    PetscBool      fits = PETSC_TRUE;
    PetscLogDouble run;

    PetscCall(PetscLogEventBegin(BTE_Diagnostics, bte, 0, 0, 0));
    bte->diagwhy[0] = 0;
    if (!BTEDiagnosticsCanReuse(bte, runcoll)) {
      /* a temporary operator must fit where the run's would, beside the run's if it has one */
      PetscCall(BTERunMemoryEstimate(bte, bte->ch.n, bte->nlocal, PETSC_FALSE, PETSC_TRUE, NULL, &run));
      if (runcoll && runcoll->setupcalled) run += runcoll->bytes;
      PetscCall(BTEModelCheckMemory(bte, run, 1.0, "The diagnostics' collision operator", "", &fits));
    }
    if (fits) PetscCall(BTEDiagnosticsRun(bte, runcoll));
    else {
      PetscCall(PetscMemzero(&bte->diag, sizeof(bte->diag)));
      bte->diag.temperature = bte->temperature;
      bte->diag.delta       = bte->delta;
      PetscCall(PetscStrncpy(bte->diagwhy, "a collision operator would not fit in memory (see -bte_memory_limit)", sizeof(bte->diagwhy)));
    }
    bte->diagdone = PETSC_TRUE;
    PetscCall(PetscLogEventEnd(BTE_Diagnostics, bte, 0, 0, 0));
  }
  if (out) *out = bte->diag;
  PetscFunctionReturn(0);
}

/*@
   BTEGetDiagnostics - Gets the diagnostics of what the grid can represent (docs/diagnostics.md)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  d - the diagnostics: pieces of the channel graph, equilibrium defect, relaxation temperature,
       share of carriers at the window's edge

   Notes:
   Computed once (a collision operator setup, an apply and a GMRES solve) and cached; d->computed is
   PETSC_FALSE when switched off or when the BTE lacks what they need.

   Level: intermediate

.seealso: `BTESetDiagnostics()`, `BTEView()`
@*/
PetscErrorCode BTEGetDiagnostics(BTE bte, BTEDiagnostics *d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(d, 2);
  PetscCall(BTEDiagnosticsCompute(bte, NULL, d));
  PetscFunctionReturn(0);
}

/*@
   BTESetDiagnostics - Turns the setup diagnostics on or off

   Logically Collective

   Input Parameters:
+  bte - the BTE
-  on  - PETSC_TRUE (default) to compute them

   Options Database Key:
.  -bte_diagnostics <bool> - compute them

   Level: intermediate

.seealso: `BTEGetDiagnostics()`
@*/
PetscErrorCode BTESetDiagnostics(BTE bte, PetscBool on)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  bte->diagnostics = on;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDiagnosticsGetReason(BTE bte, const char *why[])
{
  PetscFunctionBegin;
  *why = bte->diagwhy;
  PetscFunctionReturn(0);
}

/* The five lines of BTEView (after the channel graph's): one each, WARNING and one piece of
   advice when out of bounds (docs/diagnostics.md) */
PetscErrorCode BTEDiagnosticsView(BTE bte, PetscViewer v)
{
  BTEDiagnostics d;
  char           T[32], Tr[32], w[32], piece[64] = "";
  const char    *fix = bte->delta == BTE_DELTA_BALANCED ? "reduce the smearing (-bte_smearing) on a grid fine enough to stay connected" : "use -bte_delta balanced (exact detailed balance), or reduce the smearing (-bte_smearing) on a grid fine enough to stay connected";

  PetscFunctionBegin;
  if (bte->chcounted) PetscFunctionReturn(0); /* as the channel graph: no line without channels */
  PetscCall(BTEDiagnosticsCompute(bte, NULL, &d));
  if (!d.computed) {
    PetscCall(PetscViewerASCIIPrintf(v, "diagnostics: not computed: %s\n", bte->diagwhy));
    PetscFunctionReturn(0);
  }
  /* the C library's %g: PETSc's printf writes 300 as "300." */
  snprintf(T, sizeof(T), "%g K", (double)d.temperature);
  snprintf(Tr, sizeof(Tr), "%.1f K", (double)d.relax_temperature);
  snprintf(w, sizeof(w), "%g kT (%.4g eV)", (double)BTE_DIAG_EDGE_KT, (double)d.edge_width);
  if (d.pieces > 1) snprintf(piece, sizeof(piece), " (carriers of the largest piece)");
  if (d.defect > BTE_DIAG_DEFECT_MAX) PetscCall(PetscViewerASCIIPrintf(v, "equilibrium defect: WARNING %.3g of the gross scattering flux of Fermi-Dirac at %s (above %s): Fermi-Dirac is not a steady state of this grid; %s\n", (double)d.defect, T, "0.05", fix));
  else if (d.defect < 1e-13) /* rounding, whose digits differ with the rank count: said, not printed */
    PetscCall(PetscViewerASCIIPrintf(v, "equilibrium defect: below 1e-13 (rounding) of the gross scattering flux of Fermi-Dirac at %s (sum_i |I_i[f]| / sum_i Gamma_i f_i; 0 with exact detailed balance%s)\n", T, bte->delta == BTE_DELTA_BALANCED ? ", which -bte_delta balanced has" : ""));
  else PetscCall(PetscViewerASCIIPrintf(v, "equilibrium defect: %.3g of the gross scattering flux of Fermi-Dirac at %s (sum_i |I_i[f]| / sum_i Gamma_i f_i; 0 with exact detailed balance%s)\n", (double)d.defect, T, bte->delta == BTE_DELTA_BALANCED ? ", which -bte_delta balanced has" : ""));
  if (PetscIsNanReal(d.relax_temperature)) PetscCall(PetscViewerASCIIPrintf(v, "relaxation temperature: WARNING not found (no stationary state computed, or one outside T/64 .. 64 T): check the channel graph, the window and the smearing\n"));
  else {
    PetscReal rel = d.relax_temperature / d.temperature - 1;
    if (PetscAbsReal(rel) > BTE_DIAG_TRELAX_MAX) PetscCall(PetscViewerASCIIPrintf(v, "relaxation temperature: WARNING %s%s, %+.2f%% from the lattice's %s (above 2%%): runs without a field relax there, not to the lattice temperature; %s\n", Tr, piece, (double)(100 * rel), T, fix));
    else PetscCall(PetscViewerASCIIPrintf(v, "relaxation temperature: %s%s, %+.2f%% from the lattice's %s (where a run without a field relaxes)\n", Tr, piece, (double)(100 * rel), T));
  }
  {
    PetscReal vs = PetscSqrtReal(d.relax_velocity[0] * d.relax_velocity[0] + d.relax_velocity[1] * d.relax_velocity[1] + d.relax_velocity[2] * d.relax_velocity[2]);
    PetscReal rv = d.thermal_speed > 0 ? vs / d.thermal_speed : 0;
    if (rv > BTE_DIAG_VREL_MAX) PetscCall(PetscViewerASCIIPrintf(v, "zero-field current: WARNING the stationary state carries v = (%.4g, %.4g, %.4g) cm/s without a field, %.2g of the mean thermal speed %.3g cm/s (above 1e-5): the couplings are not symmetric under k -> -k (each channel's is evaluated at one end; an interpolation from a coarse grid is not Hermitian), so runs without a field drift and a weak field's velocity is offset by this; %s\n", (double)d.relax_velocity[0], (double)d.relax_velocity[1], (double)d.relax_velocity[2], (double)rv, (double)d.thermal_speed, bte->delta == BTE_DELTA_BALANCED ? "refine the coarse grid of the couplings" : "use -bte_delta balanced (Fermi-Dirac is then the steady state, with no current)"));
    /* below the threshold the value is rounding or the stationary solve's tolerance, which differ
       with the rank count: a summary says how small, not digits that change from run to run */
    else if (rv < 1e-8) PetscCall(PetscViewerASCIIPrintf(v, "zero-field current: none (below 1e-8 of the mean thermal speed %.3g cm/s in the stationary state: symmetric under k -> -k)\n", (double)d.thermal_speed));
    else PetscCall(PetscViewerASCIIPrintf(v, "zero-field current: %.0e of the mean thermal speed %.3g cm/s in the stationary state (below 1e-5)\n", (double)rv, (double)d.thermal_speed));
  }
  if (d.edge_share > BTE_DIAG_EDGE_MAX) PetscCall(PetscViewerASCIIPrintf(v, "window edge: WARNING %.2e of the carriers of Fermi-Dirac at %s lie within %s of the window's top (above 1e-3): the window cuts the distribution's tail off; widen it (-bte_window)\n", (double)d.edge_share, T, w));
  else PetscCall(PetscViewerASCIIPrintf(v, "window edge: %.2e of the carriers of Fermi-Dirac at %s lie within %s of the window's top\n", (double)d.edge_share, T, w));
  if (d.thermal_states < BTE_DIAG_SAMPLING_MIN) PetscCall(PetscViewerASCIIPrintf(v, "thermal sampling: WARNING the carriers of Fermi-Dirac at %s (nondegenerate) sit on %.3g states in effect (participation number, below %.0f): the k grid samples the thermal distribution too coarsely, and mobilities and rates averaged over it are not converged (GaAs on 120^3: 48 states, mobility 12%% low; docs/diagnostics.md); refine the k grid\n", T, (double)d.thermal_states, (double)BTE_DIAG_SAMPLING_MIN));
  else PetscCall(PetscViewerASCIIPrintf(v, "thermal sampling: the carriers of Fermi-Dirac at %s (nondegenerate) sit on %.4g states in effect (participation number (sum_i f_i)^2 / sum_i f_i^2)\n", T, (double)d.thermal_states));
  /* A model on its default grid is a quick look, not a converged result: where the grid fails the
     checks above, say so in one line with their numbers (docs/diagnostics.md, "Defaults") */
  /* the grid the model was built on must be the default one: a model may take its grid from options
     of its own (perturbo's -bte_perturbo_kdim), which is not the default */
  PetscBool ondefault = (PetscBool)(bte->grid.nk[0] == bte->ngrid && bte->grid.nk[1] == bte->ngrid && (bte->grid.dim == 2 ? bte->grid.nk[2] == 1 : bte->grid.nk[2] == bte->ngrid));
  if (bte->model[0] && !bte->input[0] && !bte->grid_set && ondefault) {
    PetscReal rel = d.relax_temperature / d.temperature - 1;
    PetscBool bad = (PetscBool)(d.pieces > 1 || d.defect > BTE_DIAG_DEFECT_MAX || PetscIsNanReal(d.relax_temperature) || PetscAbsReal(rel) > BTE_DIAG_TRELAX_MAX || d.edge_share > BTE_DIAG_EDGE_MAX || d.thermal_states < BTE_DIAG_SAMPLING_MIN);
    if (bad) {
      char nums[192];
      snprintf(nums, sizeof(nums), "%d piece%s, defect %.3g, relaxes to %.1f K, edge share %.2g, %.3g thermal states", (int)d.pieces, d.pieces > 1 ? "s" : "", (double)d.defect, (double)d.relax_temperature, (double)d.edge_share, (double)d.thermal_states);
      PetscCall(PetscViewerASCIIPrintf(v, "defaults: WARNING the %s model on its default grid (%" PetscInt_FMT "^%" PetscInt_FMT ", no -bte_grid%s) fails the checks above (%s): results are a quick look, not converged; set -bte_grid (and -bte_window) and refine until they stop changing\n", bte->model, bte->ngrid, bte->grid.dim, bte->window_set ? "" : ", default window", nums));
    }
  }
  PetscFunctionReturn(0);
}
