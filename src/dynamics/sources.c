/* Time-dependent sources and stopping rules of bte dynamics (docs/dynamics.md, "Sources").

   - Field profile: E(t) = s(t) E. The drift term is linear in the field for every form (the
     stencil's coefficients c_b are proportional to F; s(t) >= 0 keeps the upwind form's upwind
     ends), so D[f; E(t)] = s(t) D[f; E] and the drift
     is assembled once, for E, and scaled. A sharp step is a discontinuity in time: steps land on
     it (like output times) and the step that ends there sees the field off, the one that starts
     there on, so every one-step method integrates both sides without an error from the jump.
   - Pump: a source S_i(t) = K p(t) g_i independent of f (the Jacobian is unchanged), p(t) a
     normalised Gaussian, K such that the whole pulse injects the carriers asked for. p is cut at
     5 FWHM from its centre (the tail beyond is below 1e-30 of the total), so the carrier number
     is exactly constant outside the pulse.
   - Steady state: Perturbo's boltz_acc_thr, checked at output times over the last two output
     intervals (one interval could straddle an extremum of a velocity overshoot).
   - Positivity: an accepted step whose result has an occupation outside [0, 1] is rolled back
     (TSRollBack, the saved state restored exactly) and retried at half the step. The finite-state
     guard (tolerance -bte_state_tolerance) catches instabilities; this check catches a step whose
     result is merely unphysical.
   - The finite-state guard on the step (-bte_state_check step): the same rollback for a result that
     is not finite or outside [-tol, 1 + tol], with one check per step instead of one per stage
     (TSSetFunctionDomainError, -bte_state_check stage), and one check for both when positivity is
     on; only the retries of a rejected step have their stages checked too. Without the stage
     check a blown-up stage reaches the integrator's error estimate, which rejects the step;
     explicit RK then undoes the step by subtracting the increments, which loses the state's digits
     when they are huge (and gives NaN when they are not finite): so the retry starts from the
     state saved at the start of the step (BTEDynamicsPreStage). */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/validate.h>

const char *const BTEFieldProfiles[] = {"constant", "step", "pulse", "BTEFieldProfile", "BTE_FIELD_", NULL};

#define BTE_SRC_EPS(t)     (1e-9 * PetscMax(1.0, PetscAbsReal(t)))
#define BTE_PUMP_CUT       5.0 /* the pump's profile is zero beyond this many FWHM from its centre */
#define BTE_FWHM_TO_SIGMA  0.42466090014400953 /* 1 / (2 sqrt(2 ln 2)) */
#define BTE_POSITIVITY_MAX 60  /* rollbacks of one step (the step halves each time) */

/*@
   BTEDynamicsSetFieldProfile - Sets the time profile s(t) of the field: E(t) = s(t) E

   Logically Collective

   Input Parameters:
+  dyn     - the BTEDynamics
.  profile - `BTE_FIELD_CONSTANT` (s = 1), `BTE_FIELD_STEP` (0 before t0, 1 from t0 on; steps land on t0)
             or `BTE_FIELD_PULSE` (s = exp(-4 ln 2 (t - t0)^2 / fwhm^2))
.  t0      - time of the step or of the pulse's peak, fs
-  fwhm    - full width at half maximum of the pulse, fs (used by `BTE_FIELD_PULSE` only)

   Options Database Keys:
+  -bte_efield_profile <constant,step,pulse> - the profile
.  -bte_efield_time <t0> - time of the step or peak, fs
-  -bte_efield_fwhm <fwhm> - width of the pulse, fs

   Level: intermediate

.seealso: `BTEDynamicsSetField()`, `BTEDynamicsSetPump()`
@*/
PetscErrorCode BTEDynamicsSetFieldProfile(BTEDynamics dyn, BTEFieldProfile profile, PetscReal t0, PetscReal fwhm)
{
  MPI_Comm comm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)dyn);
  PetscCheck(!dyn->setupcalled, comm, PETSC_ERR_ARG_WRONGSTATE, "Set the field profile before BTEDynamicsSetUp()");
  PetscCheck(profile >= BTE_FIELD_CONSTANT && profile <= BTE_FIELD_PULSE, comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown field profile %d: use constant, step or pulse", (int)profile);
  PetscCall(BTECheckRange(comm, "field time (-bte_efield_time)", t0, -BTE_TIME_MAX, BTE_TIME_MAX, "fs", NULL));
  if (profile == BTE_FIELD_PULSE) PetscCall(BTECheckRange(comm, "field pulse width (-bte_efield_fwhm)", fwhm, BTE_TIME_STEP_MIN, BTE_TIME_MAX, "fs", NULL));
  dyn->src.fprofile = profile;
  dyn->src.ftime    = t0;
  if (profile == BTE_FIELD_PULSE) dyn->src.ffwhm = fwhm;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetPump - Sets a pump pulse: carriers injected at an energy with a Gaussian time profile

   Logically Collective; call before `BTEDynamicsSetUp()`

   Input Parameters:
+  dyn     - the BTEDynamics
.  density - carriers the whole pulse injects, cm^-3 (cm^-2 in 2D); 0 for no pump
.  e0edge  - energy of the injected carriers above the band edge, eV
.  smear   - energy width w, eV (profile exp(-((e - e0)/w)^2))
.  tc      - centre of the time profile, fs
-  fwhm    - full width at half maximum of the time profile, fs

   Options Database Keys:
+  -bte_pump_density <n> - carriers injected
.  -bte_pump_e0_edge <e0> - energy above the band edge, eV
.  -bte_pump_smear <w> - energy width, eV
.  -bte_pump_time <tc> - centre time, fs
-  -bte_pump_fwhm <fwhm> - duration, fs

   Notes:
   The source does not depend on f, so the Jacobian is unchanged. A pump that would raise an
   occupation above 1 is refused.

   Level: intermediate

.seealso: `BTEDynamicsSetFieldProfile()`, `BTEDynamicsSetSteadyStateThreshold()`
@*/
PetscErrorCode BTEDynamicsSetPump(BTEDynamics dyn, PetscReal density, PetscReal e0edge, PetscReal smear, PetscReal tc, PetscReal fwhm)
{
  MPI_Comm comm;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)dyn);
  PetscCheck(!dyn->setupcalled, comm, PETSC_ERR_ARG_WRONGSTATE, "Set the pump before BTEDynamicsSetUp()");
  PetscCall(BTECheckRange(comm, "pump density (-bte_pump_density)", density, 0, 1e30, "cm^-3 (cm^-2 in 2D)", NULL));
  PetscCall(BTECheckRange(comm, "pump energy above the band edge (-bte_pump_e0_edge)", e0edge, -BTE_ENERGY_ABS_MAX, BTE_ENERGY_ABS_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "pump energy width (-bte_pump_smear)", smear, BTE_SMEARING_MIN, 10, "eV", NULL));
  PetscCall(BTECheckRange(comm, "pump centre time (-bte_pump_time)", tc, -BTE_TIME_MAX, BTE_TIME_MAX, "fs", NULL));
  PetscCall(BTECheckRange(comm, "pump duration (-bte_pump_fwhm)", fwhm, BTE_TIME_STEP_MIN, BTE_TIME_MAX, "fs", NULL));
  dyn->src.pdensity = density;
  dyn->src.pe0edge  = e0edge;
  dyn->src.psmear   = smear;
  dyn->src.ptime    = tc;
  dyn->src.pfwhm    = fwhm;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetSteadyStateThreshold - Stops a run at a steady state (Perturbo's boltz_acc_thr)

   Logically Collective

   Input Parameters:
+  dyn - the BTEDynamics
-  thr - threshold on |dv_d/dt|, cm/s^2, checked at output times over the last two output intervals; 0 turns it off

   Options Database Key:
.  -bte_steady_threshold <thr> - the threshold

   Level: intermediate

.seealso: `BTEDynamicsGetSteadyState()`
@*/
PetscErrorCode BTEDynamicsSetSteadyStateThreshold(BTEDynamics dyn, PetscReal thr)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)dyn), "steady-state threshold (-bte_steady_threshold)", thr, 0, 1e40, "cm/s^2", NULL));
  dyn->src.sthr = thr;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsGetSteadyState - Gets whether a solve stopped at a steady state, and where

   Not Collective

   Input Parameter:
.  dyn - the BTEDynamics, after `BTEDynamicsSolve()`

   Output Parameters:
+  reached - whether the steady-state rule stopped the run (or NULL)
.  t       - the time it stopped, fs (or NULL)
-  vd      - the drift velocity then, cm/s (or NULL)

   Level: intermediate

.seealso: `BTEDynamicsSetSteadyStateThreshold()`
@*/
PetscErrorCode BTEDynamicsGetSteadyState(BTEDynamics dyn, PetscBool *reached, PetscReal *t, PetscReal *vd)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  if (reached) *reached = dyn->src.steady;
  if (t) *t = dyn->src.steadyt;
  if (vd) *vd = dyn->src.steadyv;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetPositivity - Retries at half the step an adaptive step whose result leaves [0, 1]

   Logically Collective

   Input Parameters:
+  dyn - the BTEDynamics
-  flg - `PETSC_TRUE` to check every accepted step (a fixed-step run then stops with one line)

   Options Database Key:
.  -bte_positivity <bool> - the check

   Notes:
   Rejected steps are counted in the run's cost summary.

   Level: intermediate

.seealso: `BTEDynamicsSetFieldProfile()`
@*/
PetscErrorCode BTEDynamicsSetPositivity(BTEDynamics dyn, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  dyn->src.positivity = flg;
  PetscFunctionReturn(0);
}

PetscReal BTEFieldProfileScale(BTEFieldProfile p, PetscReal t0, PetscReal fwhm, PetscReal t)
{
  if (p == BTE_FIELD_STEP) return t >= t0 ? 1.0 : 0.0;
  if (p == BTE_FIELD_PULSE) {
    PetscReal x = fwhm > 0 ? (t - t0) / fwhm : 0;
    return fwhm > 0 ? PetscExpReal(-4.0 * PetscLogReal(2.0) * x * x) : 0.0;
  }
  return 1.0;
}

/* s(t) of the field profile. For the sharp step, at t = t0 itself the side is the step's: the
   TS's current time is the start of the step being taken, so a step starting at t0 sees the
   field on and a step ending there sees it off. Without a TS (or off a step) t >= t0 is on. */
PetscErrorCode BTEDynamicsFieldScale(BTEDynamics dyn, TS ts, PetscReal t, PetscReal *scale)
{
  const BTEDynamicsSources *s = &dyn->src;

  PetscFunctionBegin;
  *scale = 1.0;
  if (s->fprofile == BTE_FIELD_STEP) {
    PetscReal eps = BTE_SRC_EPS(s->ftime), tstart;
    if (t > s->ftime + eps) *scale = 1.0;
    else if (t < s->ftime - eps) *scale = 0.0;
    else if (ts) {
      PetscCall(TSGetTime(ts, &tstart));
      *scale = tstart >= s->ftime - eps ? 1.0 : 0.0;
    }
  } else if (s->fprofile == BTE_FIELD_PULSE) *scale = BTEFieldProfileScale(BTE_FIELD_PULSE, s->ftime, s->ffwhm, t);
  PetscFunctionReturn(0);
}

/* p(t), 1/fs: the normalised Gaussian, zero beyond BTE_PUMP_CUT FWHM from the centre */
static PetscReal BTEPumpProfile(const BTEDynamicsSources *s, PetscReal t)
{
  PetscReal sigma = s->pfwhm * BTE_FWHM_TO_SIGMA, x = (t - s->ptime) / sigma;
  if (PetscAbsReal(t - s->ptime) > BTE_PUMP_CUT * s->pfwhm) return 0.0;
  return PetscExpReal(-0.5 * x * x) / (sigma * PetscSqrtReal(2.0 * PETSC_PI));
}

/* the fraction of the pulse between ta and tb (its integral; erf of the cut-off included) */
static PetscReal BTEPumpFraction(const BTEDynamicsSources *s, PetscReal ta, PetscReal tb)
{
  PetscReal sigma = s->pfwhm * BTE_FWHM_TO_SIGMA, lo = s->ptime - BTE_PUMP_CUT * s->pfwhm, hi = s->ptime + BTE_PUMP_CUT * s->pfwhm;
  ta = PetscMin(PetscMax(ta, lo), hi);
  tb = PetscMin(PetscMax(tb, lo), hi);
  return 0.5 * (erf((tb - s->ptime) / (sigma * PetscSqrtReal(2.0))) - erf((ta - s->ptime) / (sigma * PetscSqrtReal(2.0))));
}

/* sum_i f_i the pump injects between ta and tb (the truncated Gaussian's total is 1 - 1e-31) */
PetscReal BTEDynamicsPumpInjected(BTEDynamics dyn, PetscReal ta, PetscReal tb)
{
  if (!dyn->src.pshape) return 0.0;
  return dyn->src.psum * BTEPumpFraction(&dyn->src, ta, tb);
}

/* F += S(t) */
PetscErrorCode BTEDynamicsPumpAdd(BTEDynamics dyn, PetscReal t, Vec F)
{
  PetscReal p;

  PetscFunctionBegin;
  if (!dyn->src.pshape) PetscFunctionReturn(0);
  p = BTEPumpProfile(&dyn->src, t);
  if (p > 0) PetscCall(VecAXPY(F, dyn->src.pamp * p, dyn->src.pshape));
  PetscFunctionReturn(0);
}

/* The next time after t a step must land on: the field's step */
PetscReal BTEDynamicsNextEvent(BTEDynamics dyn, PetscReal t)
{
  if (dyn->drift && dyn->src.fprofile == BTE_FIELD_STEP && dyn->src.ftime > t + BTE_SRC_EPS(t)) return dyn->src.ftime;
  return PETSC_MAX_REAL;
}

/* Combinations that cannot work, refused before the table is read (one line each) */
PetscErrorCode BTEDynamicsSourcesCheck(BTEDynamics dyn)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)dyn);
  PetscBool field = (dyn->efield[0] != 0 || dyn->efield[1] != 0 || dyn->efield[2] != 0) ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(field || dyn->src.fprofile == BTE_FIELD_CONSTANT, comm, PETSC_ERR_USER_INPUT, "-bte_efield_profile %s needs a field (-bte_efield Ex,Ey,Ez)", BTEFieldProfiles[dyn->src.fprofile]);
  PetscCheck(dyn->src.sthr == 0 || field, comm, PETSC_ERR_USER_INPUT, "-bte_steady_threshold needs a field (-bte_efield): the steady state is detected from the drift velocity");
  PetscCheck(dyn->src.sthr == 0 || dyn->src.fprofile != BTE_FIELD_PULSE, comm, PETSC_ERR_USER_INPUT, "-bte_steady_threshold with a field pulse (-bte_efield_profile pulse): a pulse has no steady state to stop at");
  PetscFunctionReturn(0);
}

/* The pump's energy profile and amplitude; the work vector of a scaled field */
PetscErrorCode BTEDynamicsSourcesSetUp(BTEDynamics dyn)
{
  BTE                 bte  = dyn->bte;
  MPI_Comm            comm = PetscObjectComm((PetscObject)dyn);
  BTEDynamicsSources *s    = &dyn->src;

  PetscFunctionBegin;
  if (dyn->drift && s->fprofile != BTE_FIELD_CONSTANT) PetscCall(VecDuplicate(dyn->f, &s->work));
  s->jscale = 1.0;
  if (s->pdensity > 0) {
    PetscReal edge, sumg, ncell, nk = (PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
    PetscCall(BTEGetBandEdge(bte, &edge));
    PetscCall(VecDuplicate(dyn->f, &s->pshape));
    PetscCall(BTEComputeDistribution(bte, BTE_INIT_GAUSSIAN, edge + s->pe0edge, s->psmear, 1.0, s->pshape));
    PetscCall(VecSum(s->pshape, &sumg));
    PetscCheck(sumg > 0, comm, PETSC_ERR_USER_INPUT, "The pump at %g eV above the band edge with width %g eV has no states under it: check -bte_pump_e0_edge, -bte_pump_smear and the energy window", (double)s->pe0edge, (double)s->psmear);
    ncell   = s->pdensity * bte->grid.volume / (bte->grid.dim == 2 ? 1e16 : 1e24); /* carriers per cell */
    s->pamp = ncell * nk / (bte->spin * sumg);
    s->psum = s->pamp * sumg;
    PetscCheck(s->pamp <= 1, comm, PETSC_ERR_USER_INPUT, "-bte_pump_density %g cm^-%d would raise the occupation at the pump energy by %g > 1: lower the density or widen -bte_pump_smear", (double)s->pdensity, (int)bte->grid.dim, (double)s->pamp);
  }
  if (s->positivity) PetscCall(VecDuplicate(dyn->f, &s->fsaved)); /* the step guard's is made when first needed */
  s->shits = 0;
  s->sprev = PETSC_FALSE;
  s->steady = PETSC_FALSE;
  s->npositivity = s->nguard = s->nguardstep = s->nretry = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsSourcesDestroy(BTEDynamics dyn)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&dyn->src.work));
  PetscCall(VecDestroy(&dyn->src.pshape));
  PetscCall(VecDestroy(&dyn->src.fsaved));
  PetscFunctionReturn(0);
}

/* A restart goes on counting where the run that wrote its file was: the restart snapshot is the
   last output time's check (its drift velocity, from the state), and the interval before it
   counts as it did there, from the file's drift velocities, where the field is the same (a
   restart had needed three intervals of its own and stopped two output intervals late). */
PetscErrorCode BTEDynamicsSteadySeed(BTEDynamics dyn, PetscReal t0, Vec f)
{
  BTEDynamicsSources            *s  = &dyn->src;
  const BTEDynamicsRestartState *rs = &dyn->rs;
  PetscReal                      v[3], Emag;
  PetscBool                      same = rs->hasv;

  PetscFunctionBegin;
  if (s->sthr <= 0 || dyn->init != BTE_INIT_RESTART) PetscFunctionReturn(0);
  if (s->fprofile == BTE_FIELD_STEP && t0 < s->ftime - BTE_SRC_EPS(s->ftime)) PetscFunctionReturn(0);
  Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
  if (Emag == 0) PetscFunctionReturn(0);
  PetscCall(BTEComputeMoments(dyn->bte, f, NULL, NULL, NULL, v));
  s->sprev = PETSC_TRUE;
  s->vprev = (v[0] * dyn->efield[0] + v[1] * dyn->efield[1] + v[2] * dyn->efield[2]) / Emag;
  s->tprev = t0;
  s->shits = 0;
  for (int c = 0; c < 3; c++)
    if (rs->efield[c] != dyn->efield[c]) same = PETSC_FALSE;
  if (s->fprofile == BTE_FIELD_STEP && rs->tprev < s->ftime - BTE_SRC_EPS(s->ftime)) same = PETSC_FALSE;
  if (same && t0 > rs->tprev) s->shits = PetscAbsReal(rs->vlast - rs->vprev) / ((t0 - rs->tprev) * 1e-15) < s->sthr ? 1 : 0;
  PetscFunctionReturn(0);
}

/* At an output time t (after the step that lands there): the drift velocity's change over the
   last output interval; two intervals in a row below the threshold stop the run (the caller
   sets the TS's reason). A step field counts only from its step on. */
PetscErrorCode BTEDynamicsSteadyCheck(BTEDynamics dyn, TS ts, PetscReal t, Vec f)
{
  BTEDynamicsSources *s = &dyn->src;
  PetscReal           v[3], vd, Emag;

  PetscFunctionBegin;
  if (s->sthr <= 0 || s->steady) PetscFunctionReturn(0);
  if (s->fprofile == BTE_FIELD_STEP && t < s->ftime - BTE_SRC_EPS(s->ftime)) PetscFunctionReturn(0);
  PetscCall(BTEComputeMoments(dyn->bte, f, NULL, NULL, NULL, v));
  Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
  vd   = (v[0] * dyn->efield[0] + v[1] * dyn->efield[1] + v[2] * dyn->efield[2]) / Emag;
  if (s->sprev && t > s->tprev) {
    PetscReal acc = PetscAbsReal(vd - s->vprev) / ((t - s->tprev) * 1e-15); /* cm/s^2 */
    s->lastacc    = acc;
    s->shits      = acc < s->sthr ? s->shits + 1 : 0;
    if (s->shits >= 2) {
      s->steady    = PETSC_TRUE;
      s->steadyt   = t;
      s->steadyv   = vd;
      s->steadyacc = acc;
      PetscCall(TSSetConvergedReason(ts, TS_CONVERGED_USER));
    }
  }
  s->sprev = PETSC_TRUE;
  s->vprev = vd;
  s->tprev = t;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsPreStep(TS ts)
{
  BTEDynamics dyn;
  Vec         u;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &dyn));
  PetscCall(TSGetTime(ts, &dyn->src.tsaved));
  PetscCall(TSGetStepRejections(ts, &dyn->src.rejseen));
  dyn->src.nretry     = 0;
  dyn->src.saved      = PETSC_FALSE;
  dyn->src.retrycheck = PETSC_FALSE;
  {
    TSAdapt   adapt;
    PetscBool none;
    PetscCall(TSGetAdapt(ts, &adapt));
    PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
    dyn->src.adaptive = none ? PETSC_FALSE : PETSC_TRUE;
  }
  /* the state to return to: for positivity, and for an adaptive step under the step guard (on the
     device a copy, no host synchronisation) */
  if (!dyn->src.positivity && !(dyn->scheckuse == BTE_STATE_CHECK_STEP && dyn->src.adaptive)) PetscFunctionReturn(0);
  PetscCall(TSGetSolution(ts, &u));
  if (!dyn->src.fsaved) PetscCall(VecDuplicate(u, &dyn->src.fsaved));
  PetscCall(VecCopy(u, dyn->src.fsaved));
  dyn->src.saved = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Before each stage: if the TS rejected the step since it started (its error estimate, a failed
   solve), the retry starts from the saved state rather than from the TS's rollback, which for
   explicit RK subtracts the increments again (see the top of this file), and its stages are
   checked (BTEDynamicsDomainError): a step being retried is where the integrator struggles, and a
   blown-up stage then stops the attempt at once. Only under the step guard: with the stage guard
   a blown-up stage never reaches the error estimate. */
PetscErrorCode BTEDynamicsPreStage(TS ts, PetscReal t)
{
  BTEDynamics dyn;
  PetscInt    rej;
  Vec         u;

  PetscFunctionBegin;
  (void)t;
  PetscCall(TSGetApplicationContext(ts, &dyn));
  if (dyn->scheckuse != BTE_STATE_CHECK_STEP || !dyn->src.saved) PetscFunctionReturn(0);
  PetscCall(TSGetStepRejections(ts, &rej));
  if (rej == dyn->src.rejseen) PetscFunctionReturn(0);
  dyn->src.rejseen    = rej;
  dyn->src.retrycheck = PETSC_TRUE;
  PetscCall(TSGetSolution(ts, &u));
  PetscCall(VecCopy(dyn->src.fsaved, u));
  PetscFunctionReturn(0);
}

/* After TSStep, before the step is recorded: one check of the result for both the step guard
   (-bte_state_check step: finite and in [-tol, 1 + tol]) and positivity ([0, 1]). A result that
   fails is rolled back and the step halved (adaptive methods), or stops the run (a fixed step is
   never shortened silently). TSSolve calls this again after a rollback: then the time is the saved
   one and nothing is done. */
PetscErrorCode BTEDynamicsPostEvaluate(TS ts)
{
  BTEDynamics       dyn;
  Vec               u;
  PetscReal         t, dt, lo, hi, tol;
  PetscBool         finite, guard, gbad, pbad;
  PetscInt          step;
  TSConvergedReason reason;
  MPI_Comm          comm;
  char              what[160];

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &dyn));
  guard = dyn->scheckuse == BTE_STATE_CHECK_STEP ? PETSC_TRUE : PETSC_FALSE;
  if (!dyn->src.positivity && !guard) PetscFunctionReturn(0);
  comm = PetscObjectComm((PetscObject)dyn);
  tol  = dyn->statetol;
  PetscCall(TSGetTime(ts, &t));
  PetscCall(TSGetConvergedReason(ts, &reason));
  if (reason < 0 || t <= dyn->src.tsaved + BTE_SRC_EPS(t)) PetscFunctionReturn(0);
  PetscCall(TSGetSolution(ts, &u));
  PetscCall(BTEStateCheck(u, -1.0, &finite, NULL, &lo, &hi)); /* finite, and the range for both tests */
  gbad = guard && (!finite || (tol >= 0 && (lo < -tol || hi > 1 + tol))) ? PETSC_TRUE : PETSC_FALSE;
  pbad = dyn->src.positivity && (!finite || lo < 0 || hi > 1) ? PETSC_TRUE : PETSC_FALSE;
  if (!gbad && !pbad) PetscFunctionReturn(0);
  PetscCall(TSGetStepNumber(ts, &step));
  /* a fixed step: the guard's line (BTEDynamicsCheckState), or positivity's */
  if (!dyn->src.adaptive && gbad) PetscCall(BTEDynamicsCheckState(dyn, u, t, step, "state"));
  PetscCheck(dyn->src.adaptive, comm, PETSC_ERR_NOT_CONVERGED, "The step to t = %g fs takes occupations to [%.3g, %.3g], outside [0, 1] (-bte_positivity): with a fixed step, use a smaller -ts_dt or an adaptive integrator (-ts_adapt_type basic)", (double)t, (double)lo, (double)hi);
  PetscCheck(dyn->src.saved, comm, PETSC_ERR_PLIB, "No saved state to roll the step to t = %g fs back to", (double)t);
  PetscCall(TSRollBack(ts));
  PetscCall(VecCopy(dyn->src.fsaved, u)); /* exact: the rollback of some methods subtracts the increment */
  PetscCall(TSGetTimeStep(ts, &dt));
  if (!finite) PetscCall(PetscSNPrintf(what, sizeof(what), "not finite (NaN or Inf)"));
  else PetscCall(PetscSNPrintf(what, sizeof(what), "occupations from %.3g to %.3g outside [%g, %g]", (double)lo, (double)hi, gbad ? (double)-tol : 0.0, gbad ? (double)(1 + tol) : 1.0));
  if (gbad) dyn->src.nguardstep++;
  else dyn->src.npositivity++;
  PetscCheck(++dyn->src.nretry <= BTE_POSITIVITY_MAX && 0.5 * dt >= BTE_TIME_STEP_MIN, comm, PETSC_ERR_NOT_CONVERGED, "The step from t = %g fs keeps leaving %s (%s) down to a step of %g fs: %s", (double)dyn->src.tsaved, gbad ? "the finite-state guard (-bte_state_check step)" : "[0, 1] (-bte_positivity)", what, (double)dt,
             gbad ? "the integration is unstable; use a smaller -ts_dt or a tighter -ts_rtol" : "the integrator does not keep f in [0, 1]; loosen -bte_positivity or tighten -ts_rtol");
  PetscCall(PetscInfo(ts, "bte: step to t = %g fs rejected (%s): %s; retried with dt = %g fs\n", (double)t, gbad ? "finite-state guard" : "positivity", what, (double)(0.5 * dt)));
  PetscCall(TSSetTimeStep(ts, 0.5 * dt));
  PetscCall(TSGetStepRejections(ts, &dyn->src.rejseen)); /* the state is restored already */
  if (gbad) dyn->src.retrycheck = PETSC_TRUE;             /* the retry's stages are checked too */
  if (reason > 0) PetscCall(TSSetConvergedReason(ts, TS_CONVERGED_ITERATING));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsSourcesView(BTEDynamics dyn, PetscViewer viewer)
{
  const BTEDynamicsSources *s = &dyn->src;

  PetscFunctionBegin;
  if (dyn->drift && s->fprofile == BTE_FIELD_STEP) PetscCall(PetscViewerASCIIPrintf(viewer, "field profile: step, on from t = %g fs\n", (double)s->ftime));
  if (dyn->drift && s->fprofile == BTE_FIELD_PULSE) PetscCall(PetscViewerASCIIPrintf(viewer, "field profile: Gaussian pulse, peak at t = %g fs, FWHM %g fs\n", (double)s->ftime, (double)s->ffwhm));
  if (s->pdensity > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "pump: %g cm^-%d at band edge + %g eV (width %g eV), centred at t = %g fs, FWHM %g fs\n", (double)s->pdensity, (int)dyn->bte->grid.dim, (double)s->pe0edge, (double)s->psmear, (double)s->ptime, (double)s->pfwhm));
  if (s->sthr > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "stop at steady state: |dv_d/dt| < %g cm/s^2 over two output intervals\n", (double)s->sthr));
  if (s->positivity) PetscCall(PetscViewerASCIIPrintf(viewer, "positivity: steps leaving [0, 1] retried at half the step\n"));
  PetscFunctionReturn(0);
}
