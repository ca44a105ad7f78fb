/* BTEDynamics: real-time BTE under PETSc TS.

   RHS = I[f] (BTECollision) + D[f] (BTEDrift, with a field). RHS Jacobian = the collision
   Jacobian, or with a field a MATSHELL whose mult is J_coll x + J_drift x (and whose
   diagonal is the sum, for Jacobi); TSRHSJacobianSetReuse lets implicit methods shift and
   scale it in place. Snapshots go to HDF5 at fixed output times: a post-step hook shortens
   the step that would pass the next output time, the monitor writes when a step lands on it. */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/validate.h>
#include <bte/private/outfile.h>
#include <bte/private/diagnostics.h>
#include <bte/private/collisionimpl.h> /* BTECollisionViewSummary */

#define BTE_TIME_EPS(t) (1e-9 * PetscMax(1.0, PetscAbsReal(t)))

const char *const BTEStateCheckTypes[] = {"auto", "stage", "step", "none", "BTEStateCheckType", "BTE_STATE_CHECK_", NULL};

/*@
   BTEDynamicsCreate - Creates a real-time BTE solver: df/dt = drift + I[f] under a PETSc TS (docs/dynamics.md)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  dyn - the new dynamics object

   Level: beginner

.seealso: `BTEDynamicsSetUp()`, `BTEDynamicsSolve()`, `BTEDynamicsDestroy()`
@*/
PetscErrorCode BTEDynamicsCreate(BTE bte, BTEDynamics *dyn)
{
  BTEDynamics d;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(BTEDynamicsPackageInitialize());
  PetscCall(PetscHeaderCreate(d, BTEDYNAMICS_CLASSID, "BTEDynamics", "Real-time Boltzmann dynamics", "BTE", PetscObjectComm((PetscObject)bte), BTEDynamicsDestroy, BTEDynamicsView));
  PetscCall(PetscObjectReference((PetscObject)bte));
  d->bte        = bte;
  d->scattering = PETSC_TRUE;
  d->driftform  = BTE_DRIFT_MUSCL;
  d->init       = BTE_INIT_GAUSSIAN;
  d->e0edge     = 0.1;
  d->smear      = 0; /* auto: kB T (fermi), 0.02 eV (gaussian, lorentz) */
  d->peak       = 0.1;
  d->density    = 0;
  d->dt         = 1.0;
  d->tfinal     = 1000.0;
  d->interval   = 50.0;
  d->de         = 0.005;
  d->monitor    = PETSC_TRUE;
  d->statetol   = BTE_STATE_TOLERANCE;
  d->scheck     = BTE_STATE_CHECK_AUTO;
  d->scheckuse  = BTE_STATE_CHECK_AUTO;
  d->src.fprofile = BTE_FIELD_CONSTANT;
  d->src.ffwhm    = 100.0;
  d->src.pe0edge  = 0.1;
  d->src.psmear   = 0.02;
  d->src.pfwhm    = 50.0;
  d->src.ptime    = 150.0; /* 3 FWHM: the pulse's part before t = 0 is 1e-12 of it */
  d->tswitch      = -1;    /* no method switch */
  bte->runmem   = PETSC_TRUE; /* the memory checks at setup count the run */
  PetscCall(PetscTime(&d->cost.tcreate));
  *dyn          = d;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsDestroy - Destroys a dynamics object

   Collective

   Input Parameter:
.  dyn - the object (set to NULL)

   Level: beginner

.seealso: `BTEDynamicsCreate()`
@*/
PetscErrorCode BTEDynamicsDestroy(BTEDynamics *dyn)
{
  BTEDynamics d;

  PetscFunctionBegin;
  if (!dyn || !*dyn) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(*dyn, BTEDYNAMICS_CLASSID, 1);
  d = *dyn;
  if (--((PetscObject)d)->refct > 0) {
    *dyn = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(BTEOutputDestroy(&d->out.file)); /* not closed by the run: abandoned, never marked complete */
  PetscCall(BTEDynamicsReferenceDestroy(d));
  PetscCall(BTEDynamicsSourcesDestroy(d));
  PetscCall(TSDestroy(&d->ts));
  PetscCall(TSDestroy(&d->tssw));
  if (d->P != d->A && d->P != d->Jc) PetscCall(MatDestroy(&d->P));
  if (d->A != d->Jc) PetscCall(MatDestroy(&d->A));
  PetscCall(MatDestroy(&d->Jc));
  PetscCall(VecDestroy(&d->f));
  PetscCall(BTEDriftDestroy(&d->drift));
  PetscCall(BTECollisionDestroy(&d->coll));
  PetscCall(BTEDestroy(&d->bte));
  PetscCall(PetscHeaderDestroy(dyn));
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetCollision - Gives the dynamics a collision operator made by the caller

   Logically Collective

   Input Parameters:
+  dyn  - the dynamics object
-  coll - the operator (referenced)

   Notes:
   Without it one is made from the options.

   Level: intermediate

.seealso: `BTEDynamicsGetCollision()`
@*/
PetscErrorCode BTEDynamicsSetCollision(BTEDynamics dyn, BTECollision coll)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(!dyn->setupcalled, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_WRONGSTATE, "Set the collision operator before BTEDynamicsSetUp()");
  if (coll) PetscCall(PetscObjectReference((PetscObject)coll));
  PetscCall(BTECollisionDestroy(&dyn->coll));
  dyn->coll = coll;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsGetCollision - Gets the dynamics' collision operator

   Not Collective

   Input Parameter:
.  dyn - the dynamics object

   Output Parameter:
.  coll - the operator (not a new reference)

   Level: intermediate

.seealso: `BTEDynamicsSetCollision()`
@*/
PetscErrorCode BTEDynamicsGetCollision(BTEDynamics dyn, BTECollision *coll)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  *coll = dyn->coll;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetField - Sets a static electric field, which adds the drift term

   Logically Collective

   Input Parameters:
+  dyn - the dynamics object
-  E   - the field, V/cm

   Options Database Key:
.  -bte_efield <Ex,Ey,Ez> - the field

   Notes:
   Call before BTEDynamicsSetUp().

   Level: beginner

.seealso: `BTEDynamicsGetDrift()`
@*/
PetscErrorCode BTEDynamicsSetField(BTEDynamics dyn, const PetscReal E[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(!dyn->setupcalled, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_WRONGSTATE, "Set the field before BTEDynamicsSetUp()");
  PetscAssertPointer(E, 2);
  for (PetscInt a = 0; a < 3; a++) {
    static const char *what[3] = {"field component Ex (-bte_efield)", "field component Ey (-bte_efield)", "field component Ez (-bte_efield)"};
    PetscCall(BTECheckRange(PetscObjectComm((PetscObject)dyn), what[a], E[a], -BTE_EFIELD_MAX, BTE_EFIELD_MAX, "V/cm", NULL));
  }
  for (PetscInt a = 0; a < 3; a++) dyn->efield[a] = E[a];
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsGetDrift - Gets the dynamics' drift term

   Not Collective

   Input Parameter:
.  dyn - the dynamics object

   Output Parameter:
.  drift - the drift term (NULL when there is none)

   Level: intermediate

.seealso: `BTEDynamicsSetField()`
@*/
PetscErrorCode BTEDynamicsGetDrift(BTEDynamics dyn, BTEDrift *drift)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  *drift = dyn->drift;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetInitialState - Sets the initial distribution

   Logically Collective

   Input Parameters:
+  dyn   - the dynamics object
.  type  - BTE_INIT_FERMI, BTE_INIT_GAUSSIAN, BTE_INIT_LORENTZ or BTE_INIT_RESTART
.  e0    - centre, eV (the table's energy zero)
-  smear - width, eV

   Options Database Key:
.  -bte_init <type> - the distribution

   Notes:
   The carrier number comes from BTEDynamicsSetCarrierDensity() or BTEDynamicsSetPeakOccupation().

   Level: beginner

.seealso: `BTEComputeDistribution()`, `BTEDynamicsSetRestart()`
@*/
PetscErrorCode BTEDynamicsSetInitialState(BTEDynamics dyn, BTEInitType type, PetscReal e0, PetscReal smear)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(type >= BTE_INIT_FERMI && type <= BTE_INIT_RESTART, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_OUTOFRANGE, "Unknown initial state %d: fermi, gaussian, lorentz or restart", (int)type);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)dyn), "initial-state energy e0 (-bte_init_e0)", e0, -BTE_ENERGY_ABS_MAX, BTE_ENERGY_ABS_MAX, "eV", NULL));
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)dyn), "initial-state width (-bte_init_smear)", smear, 0, 10, "eV", NULL));
  dyn->init  = type;
  dyn->e0    = e0;
  dyn->e0set = PETSC_TRUE;
  dyn->smear = smear;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetCarrierDensity - Sets the carrier density of the initial state

   Logically Collective

   Input Parameters:
+  dyn - the dynamics object
-  n   - density, cm^-3 (cm^-2 in 2D); 0 unsets it

   Options Database Key:
.  -bte_carrier_density <n> - the density

   Level: beginner

.seealso: `BTEDynamicsSetPeakOccupation()`
@*/
PetscErrorCode BTEDynamicsSetCarrierDensity(BTEDynamics dyn, PetscReal n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(n >= 0 && !PetscIsInfOrNanReal(n), PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_OUTOFRANGE, "Carrier density must be >= 0 (0: unset), got %g", (double)n);
  dyn->density = n;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetPeakOccupation - Sets the peak occupation A of a gaussian or lorentz initial state

   Logically Collective

   Input Parameters:
+  dyn - the dynamics object
-  A   - the peak occupation, in (0, 1]

   Options Database Key:
.  -bte_init_occupation <A> - the peak occupation

   Level: beginner

.seealso: `BTEDynamicsSetCarrierDensity()`
@*/
PetscErrorCode BTEDynamicsSetPeakOccupation(BTEDynamics dyn, PetscReal A)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(A > 0 && A <= 1, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_OUTOFRANGE, "The peak occupation (-bte_init_occupation) must lie in (0, 1], got %g", (double)A);
  dyn->peak = A;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetRestart - Starts from the last snapshot of a dynamics output file

   Logically Collective

   Input Parameters:
+  dyn  - the dynamics object
-  file - a bte dynamics output (HDF5)

   Options Database Key:
.  -bte_restart <file> - the file

   Level: intermediate

.seealso: `BTEDynamicsSetInitialState()`
@*/
PetscErrorCode BTEDynamicsSetRestart(BTEDynamics dyn, const char file[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCall(PetscStrncpy(dyn->restart, file ? file : "", sizeof(dyn->restart)));
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetTimes - Sets the time step and the final time

   Logically Collective

   Input Parameters:
+  dyn    - the dynamics object
.  dt     - time step, fs
-  tfinal - final time, fs

   Options Database Keys:
+  -bte_time_step <fs>  - time step
-  -bte_final_time <fs> - final time

   Level: beginner

.seealso: `BTEDynamicsGetTS()`
@*/
PetscErrorCode BTEDynamicsSetTimes(BTEDynamics dyn, PetscReal dt, PetscReal tfinal)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)dyn);

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(dt > 0 && !PetscIsInfOrNanReal(dt), comm, PETSC_ERR_ARG_OUTOFRANGE, "The time step must be positive (fs), got %g", (double)dt);
  PetscCheck(!PetscIsInfOrNanReal(tfinal), comm, PETSC_ERR_ARG_OUTOFRANGE, "The final time must be a number (fs)");
  PetscCall(BTECheckRange(comm, "time step (-bte_time_step)", dt, BTE_TIME_STEP_MIN, BTE_TIME_STEP_MAX, "fs", NULL));
  PetscCall(BTECheckRange(comm, "final time (-bte_final_time)", tfinal, -BTE_TIME_MAX, BTE_TIME_MAX, "fs", NULL));
  dyn->dt     = dt;
  dyn->tfinal = tfinal;
  if (dyn->ts) {
    PetscCall(TSSetTimeStep(dyn->ts, dt));
    PetscCall(TSSetMaxTime(dyn->ts, tfinal));
  }
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetOutput - Sets the HDF5 output file and the interval between snapshots

   Logically Collective

   Input Parameters:
+  dyn      - the dynamics object
.  file     - the file (NULL or "" for none)
-  interval - fs between snapshots (> 0)

   Options Database Keys:
+  -bte_output <file>        - the file
-  -bte_output_interval <fs> - the interval

   Level: beginner

.seealso: `BTEDynamicsSolve()`
@*/
PetscErrorCode BTEDynamicsSetOutput(BTEDynamics dyn, const char file[], PetscReal interval)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(interval > 0 && !PetscIsInfOrNanReal(interval), PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_OUTOFRANGE, "The output interval must be positive (fs), got %g", (double)interval);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)dyn), "output interval (-bte_output_interval)", interval, BTE_INTERVAL_MIN, BTE_TIME_MAX, "fs", NULL));
  if (file != dyn->output) PetscCall(PetscStrncpy(dyn->output, file ? file : "", sizeof(dyn->output))); /* SetFromOptions passes dyn->output itself: no overlapping copy */
  dyn->interval = interval;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetStateCheck - Sets where the finite-state guard looks: every stage, every step, or only the states written

   Logically Collective; call before `BTEDynamicsSetUp()`

   Input Parameters:
+  dyn  - the dynamics object
-  type - `BTE_STATE_CHECK_AUTO`, `BTE_STATE_CHECK_STAGE`, `BTE_STATE_CHECK_STEP` or `BTE_STATE_CHECK_NONE`

   Options Database Key:
.  -bte_state_check <auto,stage,step,none> - where the guard looks

   Notes:
   The guard requires the occupations to be finite and in [-tol, 1 + tol] (`-bte_state_tolerance`).
   stage: every stage of an adaptive step is checked (`TSSetFunctionDomainError`; a bad stage
   rejects the step before its remaining stages are computed) and so is every step's result. On
   CUDA vectors each check is a device reduction and one host synchronisation, so an adaptive step
   synchronises once per stage. step: only the result of each step, once: an adaptive step whose
   result fails is rolled back and retried at half the step, and a step the integrator's own error
   estimate rejects is retried from the exact saved state; the retries of a rejected step have their
   stages checked as under stage; a fixed-step run that fails stops with a line. none: only the snapshots and the final state are checked. auto (the default) is stage on
   host vectors, where a check costs little next to a collision apply, and step on CUDA vectors.

   Level: intermediate

.seealso: `BTEDynamicsGetStateCheck()`, `BTEDynamicsSetPositivity()`
@*/
PetscErrorCode BTEDynamicsSetStateCheck(BTEDynamics dyn, BTEStateCheckType type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscCheck(type >= BTE_STATE_CHECK_AUTO && type <= BTE_STATE_CHECK_NONE, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_OUTOFRANGE, "Unknown state check %d: use auto, stage, step or none", (int)type);
  PetscCheck(!dyn->setupcalled, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_WRONGSTATE, "Set the state check before BTEDynamicsSetUp()");
  dyn->scheck = type;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsGetStateCheck - Gets where the finite-state guard looks

   Not Collective

   Input Parameter:
.  dyn - the dynamics object

   Output Parameter:
.  type - the type set; after `BTEDynamicsSetUp()`, the one in use (auto resolved: stage on host vectors, step on CUDA vectors)

   Level: intermediate

.seealso: `BTEDynamicsSetStateCheck()`
@*/
PetscErrorCode BTEDynamicsGetStateCheck(BTEDynamics dyn, BTEStateCheckType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  *type = dyn->setupcalled ? dyn->scheckuse : dyn->scheck;
  PetscFunctionReturn(0);
}

/* append: the output is the restart file (by name or through a link), which the run appends to */
static PetscErrorCode BTEDynamicsAppends(BTEDynamics dyn, PetscBool *append)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt rank;
  int         same = 0;

  PetscFunctionBegin;
  *append = PETSC_FALSE;
  if (!dyn->output[0] || dyn->init != BTE_INIT_RESTART || !dyn->restart[0]) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) same = BTESameFile(dyn->output, dyn->restart);
  PetscCallMPI(MPI_Bcast(&same, 1, MPI_INT, 0, comm));
  *append = same ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The output must not overwrite an input (the table, a restart file other than the one appended
   to). An append opens the file where it is: a symbolic link to the restart file is followed. */
static PetscErrorCode BTEDynamicsCheckOutput(BTEDynamics dyn, PetscBool *append)
{
  PetscFunctionBegin;
  PetscCall(BTEDynamicsAppends(dyn, append));
  if (!dyn->output[0]) PetscFunctionReturn(0);
  if (*append) PetscCall(BTECheckAppendFileWith(dyn->bte, dyn->output, "-bte_output", NULL, NULL));
  else PetscCall(BTECheckOutputFileWith(dyn->bte, dyn->output, "-bte_output", dyn->init != BTE_INIT_RESTART ? NULL : dyn->restart, "-bte_restart"));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsCreateTSObject(BTEDynamics dyn, const char prefix[], TS *ts)
{
  TSAdapt adapt;

  PetscFunctionBegin;
  PetscCall(TSCreate(PetscObjectComm((PetscObject)dyn), ts));
  if (prefix) PetscCall(TSSetOptionsPrefix(*ts, prefix));
  PetscCall(TSSetProblemType(*ts, TS_NONLINEAR));
  /* Defaults: Perturbo-like fixed-step RK4; -ts_type / -ts_adapt_type change it */
  PetscCall(TSSetType(*ts, TSRK));
  PetscCall(TSRKSetType(*ts, TSRK4));
  PetscCall(TSGetAdapt(*ts, &adapt));
  PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
  PetscCall(TSSetTimeStep(*ts, dyn->dt));
  PetscCall(TSSetMaxTime(*ts, dyn->tfinal));
  PetscCall(TSSetMaxSteps(*ts, PETSC_MAX_INT));
  PetscCall(TSSetExactFinalTime(*ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetApplicationContext(*ts, dyn));
  PetscFunctionReturn(0);
}

/* The command line's TS options, then what bte needs of them:
   - ARKIMEX fully implicit unless -ts_arkimex_fully_implicit is given: the equation is one
     right-hand side with no implicit part, so the IMEX form would integrate it explicitly;
   - steps that end at the final time: bte lands them there itself (BTEDynamicsSolve, from PETSc's
     matchstep); stepover would end after it and interpolate would label the state interpolated to
     the final time with the time stepped to. */
static PetscErrorCode BTEDynamicsTSSetFromOptions(BTEDynamics dyn, TS ts)
{
  PetscBool              ark, given;
  const char            *prefix;
  TSExactFinalTimeOption eft;

  PetscFunctionBegin;
  PetscCall(TSGetOptionsPrefix(ts, &prefix));
  {
    /* set before TSSetFromOptions too when the options ask for ARKIMEX, so that -help shows bte's
       default (fully implicit), not PETSc's */
    char      type[64];
    PetscBool flg;
    PetscCall(PetscOptionsGetString(((PetscObject)ts)->options, prefix, "-ts_type", type, sizeof(type), &flg));
    PetscCall(PetscOptionsHasName(((PetscObject)ts)->options, prefix, "-ts_arkimex_fully_implicit", &given));
    if (flg && !strcmp(type, TSARKIMEX) && !given) {
      PetscCall(TSSetType(ts, TSARKIMEX));
      PetscCall(TSARKIMEXSetFullyImplicit(ts, PETSC_TRUE));
    }
  }
  PetscCall(TSSetFromOptions(ts));
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSARKIMEX, &ark));
  PetscCall(PetscOptionsHasName(((PetscObject)ts)->options, prefix, "-ts_arkimex_fully_implicit", &given));
  if (ark && !given) PetscCall(TSARKIMEXSetFullyImplicit(ts, PETSC_TRUE));
  PetscCall(TSGetExactFinalTime(ts, &eft));
  PetscCheck(eft == TS_EXACTFINALTIME_MATCHSTEP, PetscObjectComm((PetscObject)dyn), PETSC_ERR_USER_INPUT, "-%sts_exact_final_time %s: bte dynamics lands its steps on the output times and the final time itself; leave the option out (matchstep)", prefix ? prefix : "", TSExactFinalTimeOptions[eft]);
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsCreateTS(BTEDynamics dyn)
{
  PetscFunctionBegin;
  if (dyn->ts) PetscFunctionReturn(0);
  PetscCall(BTEDynamicsCreateTSObject(dyn, NULL, &dyn->ts));
  PetscFunctionReturn(0);
}

/* The summary must not overwrite an input or the output; the output must not overwrite the reference */
static PetscErrorCode BTEDynamicsCheckSummaryReference(BTEDynamics dyn)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt rank;
  int         same[2] = {0, 0};
  PetscBool   append;

  PetscFunctionBegin;
  PetscCall(BTEDynamicsAppends(dyn, &append));
  if (dyn->output[0] && append) PetscCall(BTECheckAppendFileWith(dyn->bte, dyn->output, "-bte_output", dyn->ref.file, "-bte_reference"));
  else if (dyn->output[0]) PetscCall(BTECheckOutputFileWith(dyn->bte, dyn->output, "-bte_output", dyn->ref.file, "-bte_reference"));
  if (!dyn->cost.summary[0]) PetscFunctionReturn(0);
  PetscCall(BTECheckOutputFileWith(dyn->bte, dyn->cost.summary, "-bte_summary", dyn->ref.file, "-bte_reference"));
  PetscCall(BTECheckOutputFileWith(dyn->bte, dyn->cost.summary, "-bte_summary", dyn->init == BTE_INIT_RESTART ? dyn->restart : NULL, "-bte_restart"));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && dyn->output[0]) {
    char tmp[PETSC_MAX_PATH_LEN + 8];
    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", dyn->output));
    same[0] = BTESameFile(dyn->cost.summary, dyn->output);
    same[1] = BTESameFile(dyn->cost.summary, tmp);
  }
  PetscCallMPI(MPI_Bcast(same, 2, MPI_INT, 0, comm));
  PetscCheck(!same[0] && !same[1], comm, PETSC_ERR_USER_INPUT, "The summary %s (-bte_summary) is the output %s%s (-bte_output): give another file name", dyn->cost.summary, dyn->output, same[1] ? ".tmp" : "");
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetFromOptions - Reads the dynamics' options, those of its TS, collision operator and drift term included

   Collective

   Input Parameter:
.  dyn - the dynamics object

   Options Database Keys:
+  -bte_init <fermi,gaussian,lorentz,restart> - initial state (default gaussian)
.  -bte_init_e0 <eV>                          - centre (gaussian, lorentz) or chemical potential (fermi), on the table's energy zero
.  -bte_init_e0_edge <eV>                     - the same above the band edge, when -bte_init_e0 is not given (default 0.1, 0 for fermi)
.  -bte_init_smear <eV>                       - width (gaussian, lorentz) or kT (fermi) of the initial state (0: 0.02 eV; kB T for fermi)
.  -bte_carrier_density <n>                   - carrier density of the initial state, cm^-3 (cm^-2 in 2D)
.  -bte_init_occupation <A>                   - peak occupation of a gaussian or lorentz initial state (when no density is given)
.  -bte_restart <file>                        - dynamics output to restart from (-bte_init restart): its last snapshot
.  -bte_efield <Ex,Ey,Ez>                     - static electric field, V/cm (adds the drift term)
.  -bte_efield_profile <constant,step,pulse>  - time profile of the field (default constant)
.  -bte_efield_time <fs>                      - time of the field's step, or of its pulse's peak
.  -bte_efield_fwhm <fs>                      - full width at half maximum of the field pulse (default 100)
.  -bte_drift_form <log,plain,upwind,muscl>   - drift discretisation (default muscl)
.  -bte_drift_limiter <vanleer,minmod>        - the muscl drift form's slope limiter (the drift term's own, BTEDriftSetFromOptions())
.  -bte_drift_mat_type <type>                 - Mat type of the drift stencil (the drift term's own; default aijcusparse for CUDA state Vecs, else aij)
.  -bte_normalize <bool>                      - rescale the occupations to the initial carrier number after every step (for the log form)
.  -bte_scattering <bool>                     - include the collision integral (0: drift only, for tests)
.  -bte_pump_density <n>                      - carriers a pump pulse injects, cm^-3 (cm^-2 in 2D); 0: no pump
.  -bte_pump_e0_edge <eV>                     - pump energy above the band edge (default 0.1)
.  -bte_pump_smear <eV>                       - pump energy width w, profile exp(-((e - e0)/w)^2) (default 0.02)
.  -bte_pump_time <fs>                        - centre of the pump's Gaussian time profile (default 150)
.  -bte_pump_fwhm <fs>                        - full width at half maximum of the pump's time profile (default 50)
.  -bte_time_step <fs>                        - time step (default 1; first step for an adaptive TS; not with -ts_dt)
.  -bte_final_time <fs>                       - final time (default 1000; -ts_max_time overrides)
.  -bte_switch_time <fs>                      - switch to a second method, whose TS options carry the prefix sw_ (default -1: no switch)
.  -bte_output <file>                         - HDF5 file for the snapshots (docs/dynamics.md)
.  -bte_output_interval <fs>                  - time between snapshots and monitor lines (default 50)
.  -bte_output_energy_step <eV>               - bin width of the energy-resolved population (default 0.005)
.  -bte_dynamics_monitor <bool>               - print a line per output time (default true)
.  -bte_reference <file>                      - dynamics output of the same table and initial state: every snapshot is compared with it
.  -bte_summary <file>                        - JSON file for the run's cost and reference errors
.  -bte_steady_threshold <a>                  - stop when |dv_d/dt| < a, cm/s^2, over two consecutive output intervals (0: off)
.  -bte_state_tolerance <tol>                 - occupations outside [-tol, 1 + tol] stop a fixed-step run, retry an adaptive step (default 0.5; < 0: finiteness only)
.  -bte_state_check <auto,stage,step,none>    - where the finite-state guard looks (default auto)
-  -bte_positivity <bool>                     - retry at half the step an adaptive step with an occupation outside [0, 1] (a fixed-step run stops)

   Level: beginner

.seealso: `BTEDynamicsCreate()`
@*/
PetscErrorCode BTEDynamicsSetFromOptions(BTEDynamics dyn)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)dyn);
  PetscReal E[4], v, dt;
  PetscInt  n = 4; /* one more than needed: a fourth component is an error, not dropped */
  PetscBool flg;
  char      buf[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  for (PetscInt a = 0; a < 3; a++) E[a] = dyn->efield[a];
  PetscObjectOptionsBegin((PetscObject)dyn);
  {
    PetscInt  ival = (PetscInt)dyn->init;
    PetscBool found;
    /* parsed as a string so an unknown name gives our message */
    PetscCall(PetscOptionsString("-bte_init", "Initial state: fermi, gaussian, lorentz, restart", "BTEDynamicsSetInitialState", BTEInitTypes[dyn->init], buf, sizeof(buf), &flg));
    if (flg) {
      found = PETSC_FALSE;
      for (PetscInt k = 0; k < 4; k++) {
        PetscBool same;
        PetscCall(PetscStrcasecmp(buf, BTEInitTypes[k], &same));
        if (same) {
          ival  = k;
          found = PETSC_TRUE;
        }
      }
      PetscCheck(found, comm, PETSC_ERR_USER_INPUT, "Unknown initial state -bte_init %s: use fermi, gaussian, lorentz or restart", buf);
      dyn->init = (BTEInitType)ival;
    }
  }
  {
    /* an energy set through BTEDynamicsSetInitialState stays unless one of these options is given */
    PetscBool fe0, fedge;
    PetscCall(PetscOptionsReal("-bte_init_e0", "Centre (gaussian, lorentz) or chemical potential (fermi), eV on the table's energy zero (default: from -bte_init_e0_edge)", "BTEDynamicsSetInitialState", dyn->e0, &dyn->e0, &fe0));
    PetscCall(PetscOptionsReal("-bte_init_e0_edge", "The same, in eV above the band edge (lowest state in the window); used when -bte_init_e0 is not given (default 0.1, 0 for -bte_init fermi)", "BTEDynamicsSetInitialState", dyn->e0edge, &dyn->e0edge, &fedge));
    if (fe0) dyn->e0set = PETSC_TRUE;
    else if (fedge) dyn->e0set = PETSC_FALSE;
    if (fedge) dyn->e0edgeset = PETSC_TRUE;
  }
  PetscCall(PetscOptionsReal("-bte_init_smear", "Width (gaussian, lorentz) or kT (fermi) of the initial state, eV (0: 0.02 eV; kB T for fermi)", "BTEDynamicsSetInitialState", dyn->smear, &dyn->smear, NULL));
  PetscCheck(dyn->smear >= 0, comm, PETSC_ERR_USER_INPUT, "-bte_init_smear must be >= 0 (eV; 0: the default width), got %g", (double)dyn->smear);
  PetscCall(BTECheckRange(comm, "-bte_init_e0", dyn->e0, -BTE_ENERGY_ABS_MAX, BTE_ENERGY_ABS_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "-bte_init_e0_edge", dyn->e0edge, -BTE_ENERGY_ABS_MAX, BTE_ENERGY_ABS_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "-bte_init_smear", dyn->smear, 0, 10, "eV", NULL));
  PetscCall(PetscOptionsReal("-bte_carrier_density", "Carrier density of the initial state, cm^-3 (cm^-2 in 2D); sets the amplitude (fermi: the chemical potential)", "BTEDynamicsSetCarrierDensity", dyn->density, &v, &flg));
  PetscCheck(!flg || v > 0, comm, PETSC_ERR_USER_INPUT, "-bte_carrier_density %g: must be > 0 (cm^-3, cm^-2 in 2D); leave it out for the peak occupation -bte_init_occupation", (double)v);
  if (flg) PetscCall(BTEDynamicsSetCarrierDensity(dyn, v));
  PetscCall(PetscOptionsReal("-bte_init_occupation", "Peak occupation A of a gaussian/lorentz initial state (when no density is given)", "BTEDynamicsSetPeakOccupation", dyn->peak, &v, &flg));
  if (flg) PetscCall(BTEDynamicsSetPeakOccupation(dyn, v));
  PetscCall(PetscOptionsString("-bte_restart", "Dynamics output file to restart from (-bte_init restart): its last snapshot, time included", "BTEDynamicsSetRestart", dyn->restart, dyn->restart, sizeof(dyn->restart), &flg));
  PetscCheck(!flg || dyn->init == BTE_INIT_RESTART, comm, PETSC_ERR_USER_INPUT, "-bte_restart %s needs -bte_init restart (the initial state is -bte_init %s, which would ignore the file)", dyn->restart, BTEInitTypes[dyn->init]);
  {
    /* initial-state options the chosen state does not read: given, they would be ignored without
       a word (-bte_init fermi -bte_init_occupation 0.5 ran at the Fermi level's occupations) */
    const char *given[5] = {"-bte_init_e0", "-bte_init_e0_edge", "-bte_init_smear", "-bte_carrier_density", "-bte_init_occupation"};
    PetscBool   set[5];
    for (int k = 0; k < 5; k++) PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, ((PetscObject)dyn)->prefix, given[k], &set[k]));
    /* a restart may keep the command line of the run it continues: its initial-state options are
       then not used, which the run says when it starts (BTEDynamicsSolve) */
    dyn->restartunused[0] = 0;
    if (dyn->init == BTE_INIT_RESTART)
      for (int k = 0; k < 5; k++)
        if (set[k]) {
          PetscCall(PetscStrlcat(dyn->restartunused, dyn->restartunused[0] ? ", " : "", sizeof(dyn->restartunused)));
          PetscCall(PetscStrlcat(dyn->restartunused, given[k], sizeof(dyn->restartunused)));
        }
    PetscCheck(!set[0] || !set[1], comm, PETSC_ERR_USER_INPUT, "Give either -bte_init_e0 (eV on the table's energy zero) or -bte_init_e0_edge (eV above the band edge), not both");
    if (dyn->init == BTE_INIT_FERMI) {
      PetscCheck(!set[4], comm, PETSC_ERR_USER_INPUT, "-bte_init_occupation is the peak of a gaussian or lorentz initial state; -bte_init fermi sets its occupations by -bte_init_e0 (the chemical potential) or -bte_carrier_density");
      PetscCheck(!set[3] || (!set[0] && !set[1]), comm, PETSC_ERR_USER_INPUT, "-bte_init fermi: give either the chemical potential (%s) or -bte_carrier_density (which sets it), not both", set[0] ? "-bte_init_e0" : "-bte_init_e0_edge");
    } else if (dyn->init != BTE_INIT_RESTART) PetscCheck(!set[3] || !set[4], comm, PETSC_ERR_USER_INPUT, "-bte_init %s: give either -bte_carrier_density or -bte_init_occupation (both set the amplitude), not both", BTEInitTypes[dyn->init]);
  }
  {
    /* an option given with no value is a mistake, not a request for no field */
    char val[8];
    PetscCall(PetscOptionsGetString(((PetscObject)dyn)->options, ((PetscObject)dyn)->prefix, "-bte_efield", val, sizeof(val), &flg));
    PetscCheck(!flg || val[0], comm, PETSC_ERR_USER_INPUT, "-bte_efield needs three components Ex,Ey,Ez (V/cm), got none");
  }
  PetscCall(PetscOptionsRealArray("-bte_efield", "Static electric field Ex,Ey,Ez, V/cm (adds the drift term)", "BTEDynamicsSetField", E, &n, &flg));
  if (flg) {
    PetscCheck(n == 3, comm, PETSC_ERR_USER_INPUT, "-bte_efield needs three components Ex,Ey,Ez (V/cm), got %" PetscInt_FMT, n);
    PetscCall(BTEDynamicsSetField(dyn, E));
  }
  PetscCall(PetscOptionsEnum("-bte_drift_form", "Drift discretisation: muscl (conserves carriers, 0 <= f <= 1), log (Perturbo's), plain or upwind", "BTEDriftSetForm", BTEDriftForms, (PetscEnum)dyn->driftform, (PetscEnum *)&dyn->driftform, NULL));
  PetscCall(PetscOptionsBool("-bte_normalize", "Rescale the occupations to the initial carrier number after every step (Perturbo's boltz_norm_dist; for the log drift form)", "BTEDynamicsSetFromOptions", dyn->normalize, &dyn->normalize, NULL));
  PetscCall(PetscOptionsBool("-bte_scattering", "Include the collision integral (0: drift only, for tests)", "BTEDynamicsSetCollision", dyn->scattering, &dyn->scattering, NULL));
  {
    /* only what is given goes into the TS: a step or final time set on it (BTEDynamicsGetTS) stays */
    PetscBool fdt;
    dt = dyn->dt;
    PetscCall(PetscOptionsReal("-bte_time_step", "Time step, fs (first step for adaptive TS; not with -ts_dt)", "BTEDynamicsSetTimes", dt, &dt, &fdt));
    if (fdt) {
      /* the TS's own step option would override it without a word (-bte_time_step 0.5 -ts_dt 1 ran
         at 1 fs); PETSc 3.25 names it -ts_time_step and still takes -ts_dt */
      const char *tsprefix = NULL;
      PetscBool   given[2];
      if (dyn->ts) PetscCall(TSGetOptionsPrefix(dyn->ts, &tsprefix));
      PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, tsprefix, "-ts_dt", &given[0]));
      PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, tsprefix, "-ts_time_step", &given[1]));
      PetscCheck(!given[0] && !given[1], comm, PETSC_ERR_USER_INPUT, "Give either -bte_time_step or -%s%s, not both: both set the time step (to change an options file's -ts_dt, give -ts_dt after it)", tsprefix ? tsprefix : "", given[0] ? "ts_dt" : "ts_time_step");
    }
    PetscCheck(dt > 0 && !PetscIsInfOrNanReal(dt), comm, PETSC_ERR_USER_INPUT, "The time step must be positive: -bte_time_step %g fs", (double)dt);
    PetscCall(BTECheckRange(comm, "-bte_time_step", dt, BTE_TIME_STEP_MIN, BTE_TIME_STEP_MAX, "fs", NULL));
    PetscCall(PetscOptionsReal("-bte_final_time", "Final time, fs (-ts_max_time overrides)", "BTEDynamicsSetTimes", dyn->tfinal, &v, &flg));
    if (fdt || flg) {
      PetscReal tsdt = dyn->dt, tsmax = dyn->tfinal;
      if (dyn->ts) {
        PetscCall(TSGetTimeStep(dyn->ts, &tsdt));
        PetscCall(TSGetMaxTime(dyn->ts, &tsmax));
      }
      PetscCall(BTEDynamicsSetTimes(dyn, fdt ? dt : tsdt, flg ? v : tsmax));
    }
  }
  PetscCall(PetscOptionsString("-bte_output", "HDF5 file for the snapshots (docs/dynamics.md)", "BTEDynamicsSetOutput", dyn->output, dyn->output, sizeof(dyn->output), NULL));
  PetscCall(PetscOptionsReal("-bte_output_interval", "Time between snapshots and monitor lines, fs", "BTEDynamicsSetOutput", dyn->interval, &v, &flg));
  if (flg) PetscCall(BTEDynamicsSetOutput(dyn, dyn->output, v));
  PetscCall(PetscOptionsReal("-bte_output_energy_step", "Bin width of the energy-resolved population, eV", "BTEDynamicsSetOutput", dyn->de, &dyn->de, NULL));
  PetscCheck(dyn->de > 0, comm, PETSC_ERR_USER_INPUT, "-bte_output_energy_step must be positive (eV), got %g", (double)dyn->de);
  PetscCall(BTECheckRange(comm, "-bte_output_energy_step", dyn->de, BTE_ESTEP_MIN, 10, "eV", NULL));
  PetscCall(PetscOptionsReal("-bte_state_tolerance", "A state with an occupation outside [-tol, 1 + tol] (or not finite) stops a fixed-step run and makes an adaptive one retry the step smaller (negative: check finiteness only)", "BTEDynamicsSolve", dyn->statetol, &dyn->statetol, NULL));
  PetscCall(BTECheckRange(comm, "-bte_state_tolerance", dyn->statetol, -1, 1e3, "", NULL));
  {
    PetscBool found = PETSC_FALSE;
    /* parsed as a string so a bad value gets one line naming the choices */
    PetscCall(PetscOptionsString("-bte_state_check", "Where the finite-state guard looks: auto (stage on host vectors, step on CUDA vectors), stage (every stage of an adaptive step, and every step), step (every step's result once; a bad adaptive step is retried at half the step), none (snapshots and the final state only)", "BTEDynamicsSetStateCheck", BTEStateCheckTypes[dyn->scheck], buf, sizeof(buf), &flg));
    if (flg) {
      for (PetscInt k = 0; k <= BTE_STATE_CHECK_NONE; k++) {
        PetscBool same;
        PetscCall(PetscStrcasecmp(buf, BTEStateCheckTypes[k], &same));
        if (same && !found) {
          PetscCheck(!dyn->setupcalled || (BTEStateCheckType)k == dyn->scheck, comm, PETSC_ERR_ARG_WRONGSTATE, "-bte_state_check %s comes after BTEDynamicsSetUp(): set it before", buf);
          dyn->scheck = (BTEStateCheckType)k;
          found       = PETSC_TRUE;
        }
      }
      PetscCheck(found, comm, PETSC_ERR_USER_INPUT, "Unknown -bte_state_check %s: use auto, stage, step or none", buf);
    }
  }
  PetscCall(PetscOptionsReal("-bte_switch_time", "Switch to a second method at this time, fs, in the same run: its TS options carry the prefix sw_ (-sw_ts_type rosw -sw_pc_type bte_twolevel ...) (default -1: no switch)", "BTEDynamicsSolve", dyn->tswitch, &v, &flg));
  if (flg) {
    /* -1 is the default the help shows: no switch, as when the option is left out */
    PetscCheck(v == -1 || (v >= 0 && !PetscIsInfOrNanReal(v)), comm, PETSC_ERR_USER_INPUT, "-bte_switch_time must be a time >= 0 fs before the final time, or -1 for no switch, got %g", (double)v);
    PetscCheck(!dyn->setupcalled || dyn->tssw || v < 0, comm, PETSC_ERR_ARG_WRONGSTATE, "-bte_switch_time comes after BTEDynamicsSetUp(): set it before");
    dyn->tswitch = v;
  }
  PetscCall(PetscOptionsBool("-bte_dynamics_monitor", "Print a line per output time", "BTEDynamicsSetFromOptions", dyn->monitor, &dyn->monitor, NULL));
  /* cost and error against a reference (src/dynamics/cost.c, reference.c) */
  PetscCall(PetscOptionsString("-bte_reference", "Dynamics output of the same table and initial state: every snapshot is compared with it (errors written to the output and printed)", "BTEDynamicsSolve", dyn->ref.file, dyn->ref.file, sizeof(dyn->ref.file), NULL));
  PetscCall(PetscOptionsString("-bte_summary", "JSON file for the run's cost (steps, applies, iterations, wall times) and reference errors", "BTEDynamicsSolve", dyn->cost.summary, dyn->cost.summary, sizeof(dyn->cost.summary), NULL));
  /* sources and stopping rules (src/dynamics/sources.c) */
  {
    BTEDynamicsSources *s = &dyn->src;
    PetscInt            prof = (PetscInt)s->fprofile;
    PetscReal           ft = s->ftime, fw = s->ffwhm, pd = s->pdensity, pe = s->pe0edge, pw = s->psmear, pt = s->ptime, pf = s->pfwhm, thr = s->sthr;
    PetscBool           f1, f2, f3, p1, p2, p3, p4, p5, pos = s->positivity;
    PetscCall(PetscOptionsEList("-bte_efield_profile", "Time profile of the field: constant, step (off before -bte_efield_time, on after), pulse (Gaussian, peak at -bte_efield_time)", "BTEDynamicsSetFieldProfile", BTEFieldProfiles, 3, BTEFieldProfiles[s->fprofile], &prof, &f1));
    PetscCall(PetscOptionsReal("-bte_efield_time", "Time of the field's step, or of its pulse's peak, fs", "BTEDynamicsSetFieldProfile", ft, &ft, &f2));
    PetscCall(PetscOptionsReal("-bte_efield_fwhm", "Full width at half maximum of the field pulse, fs", "BTEDynamicsSetFieldProfile", fw, &fw, &f3));
    /* a time or width for the constant profile, or a width for a step, would change nothing, silently */
    PetscCheck(!(f2 || f3) || prof != (PetscInt)BTE_FIELD_CONSTANT, comm, PETSC_ERR_USER_INPUT, "-bte_efield_time and -bte_efield_fwhm shape a step or pulse: give -bte_efield_profile step or pulse; the constant field has neither");
    PetscCheck(!f3 || prof == (PetscInt)BTE_FIELD_PULSE, comm, PETSC_ERR_USER_INPUT, "-bte_efield_fwhm is the width of a pulse: give -bte_efield_profile pulse; a step has no width");
    if (f1 || f2 || f3) PetscCall(BTEDynamicsSetFieldProfile(dyn, (BTEFieldProfile)prof, ft, fw));
    PetscCall(PetscOptionsReal("-bte_pump_density", "Carriers a pump pulse injects, cm^-3 (cm^-2 in 2D); 0: no pump", "BTEDynamicsSetPump", pd, &pd, &p1));
    PetscCall(PetscOptionsReal("-bte_pump_e0_edge", "Pump energy, eV above the band edge", "BTEDynamicsSetPump", pe, &pe, &p2));
    PetscCall(PetscOptionsReal("-bte_pump_smear", "Pump energy width w, eV (profile exp(-((e - e0)/w)^2))", "BTEDynamicsSetPump", pw, &pw, &p3));
    PetscCall(PetscOptionsReal("-bte_pump_time", "Centre of the pump's Gaussian time profile, fs", "BTEDynamicsSetPump", pt, &pt, &p4));
    PetscCall(PetscOptionsReal("-bte_pump_fwhm", "Full width at half maximum of the pump's time profile, fs", "BTEDynamicsSetPump", pf, &pf, &p5));
    /* a pump's shape without its density would be no pump at all, silently */
    PetscCheck(!(p2 || p3 || p4 || p5) || pd > 0, comm, PETSC_ERR_USER_INPUT, "-bte_pump_e0_edge, -bte_pump_smear, -bte_pump_time and -bte_pump_fwhm shape a pump: give the carriers it injects with -bte_pump_density (cm^-3, cm^-2 in 2D); without it there is no pump");
    if (p1 || p2 || p3 || p4 || p5) PetscCall(BTEDynamicsSetPump(dyn, pd, pe, pw, pt, pf));
    PetscCall(PetscOptionsReal("-bte_steady_threshold", "Stop when |dv_d/dt| < this (cm/s^2) over two consecutive output intervals (Perturbo's boltz_acc_thr; 0: off)", "BTEDynamicsSetSteadyStateThreshold", thr, &thr, &f1));
    if (f1) PetscCall(BTEDynamicsSetSteadyStateThreshold(dyn, thr));
    PetscCall(PetscOptionsBool("-bte_positivity", "Retry at half the step an adaptive step whose result has an occupation outside [0, 1] (a fixed-step run stops)", "BTEDynamicsSetPositivity", pos, &pos, &f1));
    if (f1) PetscCall(BTEDynamicsSetPositivity(dyn, pos));
  }
  PetscOptionsEnd();
  {
    /* the drift's options given to a run without a field (-bte_efield; a field profile needs one,
       BTEDynamicsSourcesCheck): the run has no drift term, and they would be read and ignored */
    const char *names[3] = {"-bte_drift_form", "-bte_drift_limiter", "-bte_drift_mat_type"};
    char        given[96] = "";
    int         ngiven    = 0;
    PetscBool   field     = (dyn->efield[0] != 0 || dyn->efield[1] != 0 || dyn->efield[2] != 0) ? PETSC_TRUE : PETSC_FALSE;
    for (int k = 0; k < 3 && !field; k++) {
      PetscBool set;
      PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, ((PetscObject)dyn)->prefix, names[k], &set));
      if (set) {
        PetscCall(PetscStrlcat(given, given[0] ? ", " : "", sizeof(given)));
        PetscCall(PetscStrlcat(given, names[k], sizeof(given)));
        ngiven++;
      }
    }
    PetscCheck(!given[0], comm, PETSC_ERR_USER_INPUT, "%s: this run has no field (-bte_efield), so it has no drift term and the drift options are not used: leave %s out, or give a field", given, ngiven > 1 ? "them" : "it");
  }
  {
    /* the drift's own options (-bte_drift_limiter, -bte_drift_mat_type): read now, on a scratch
       drift of the run's form, so that -help lists them (once: the field and form above are the
       dynamics') and a limiter of another form is refused before the table is read; the run's drift
       reads them again at setup */
    BTEDrift d;
    PetscCall(BTEDriftCreate(dyn->bte, &d));
    PetscCall(BTEDriftSetOwned(d, PETSC_TRUE, PETSC_TRUE));
    PetscCall(BTEDriftSetForm(d, dyn->driftform));
    PetscCall(BTEDriftSetFromOptions(d));
    PetscCall(BTEDriftDestroy(&d));
  }
  PetscCall(BTEDynamicsSourcesCheck(dyn));
  /* the TS: defaults first, then the command line */
  PetscCall(BTEDynamicsCreateTS(dyn));
  PetscCall(BTEDynamicsTSSetFromOptions(dyn, dyn->ts));
  PetscCall(TSGetTimeStep(dyn->ts, &dt));
  PetscCheck(dt > 0 && !PetscIsInfOrNanReal(dt), comm, PETSC_ERR_USER_INPUT, "The time step must be positive (got -ts_dt %g fs)", (double)dt);
  PetscCall(BTECheckRange(comm, "time step (-ts_dt)", dt, BTE_TIME_STEP_MIN, BTE_TIME_STEP_MAX, "fs", NULL));
  if (dyn->init != BTE_INIT_RESTART) {
    /* a run that starts at 0 (a restart's start is known only from its file): refused here, before
       the table is read, not after the setup (BTEDynamicsSolve checks it again for restarts) */
    PetscReal tmax;
    PetscCall(TSGetMaxTime(dyn->ts, &tmax));
    PetscCheck(tmax > BTE_TIME_EPS(0.0), comm, PETSC_ERR_USER_INPUT, "The final time %g fs is not after the initial time 0 fs: raise -bte_final_time", (double)tmax);
  }
  if (dyn->tswitch >= 0) {
    /* the second method: the same defaults, its options under the prefix sw_ */
    PetscReal tmax;
    PetscCall(TSGetMaxTime(dyn->ts, &tmax));
    PetscCheck(dyn->tswitch < tmax - BTE_TIME_EPS(tmax), comm, PETSC_ERR_USER_INPUT, "-bte_switch_time %g fs is not before the final time %g fs (-bte_final_time, -ts_max_time)", (double)dyn->tswitch, (double)tmax);
    if (!dyn->tssw) PetscCall(BTEDynamicsCreateTSObject(dyn, "sw_", &dyn->tssw));
    PetscCall(BTEDynamicsTSSetFromOptions(dyn, dyn->tssw));
    PetscCall(TSGetTimeStep(dyn->tssw, &dt));
    PetscCheck(dt > 0 && !PetscIsInfOrNanReal(dt), comm, PETSC_ERR_USER_INPUT, "The time step must be positive (got -sw_ts_dt %g fs)", (double)dt);
    PetscCall(BTECheckRange(comm, "time step (-sw_ts_dt)", dt, BTE_TIME_STEP_MIN, BTE_TIME_STEP_MAX, "fs", NULL));
  }
  {
    PetscBool append; /* refuse an output that is an input now, before the table is read */
    PetscCall(BTEDynamicsCheckOutput(dyn, &append));
  }
  PetscCall(BTEDynamicsCheckSummaryReference(dyn));
  PetscFunctionReturn(0);
}

/* The collision part of the combined shell for its preconditioner (PCBTETWOLEVEL): the drift is
   left out, as in the assembled preconditioning matrix of field runs. */
static PetscErrorCode BTEDynamicsJacobianGetLinearization(Mat A, BTECollision *coll, Vec *fl, PetscScalar *scale, PetscScalar *shift, PetscBool *whole)
{
  BTEDynamics dyn;
  PetscErrorCode (*f)(Mat, BTECollision *, Vec *, PetscScalar *, PetscScalar *, PetscBool *) = NULL;
  PetscScalar sc, sh;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dyn));
  PetscCheck(dyn->Jc, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The dynamics has no collision operator (-bte_scattering 0): use another preconditioner");
  PetscCall(PetscObjectQueryFunction((PetscObject)dyn->Jc, BTE_JAC_LINEARIZATION, &f));
  PetscCheck(f, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "This preconditioner needs the matrix-free collision Jacobian (leave out -bte_jacobian_assembled)");
  PetscCall((*f)(dyn->Jc, coll, fl, &sc, &sh, whole));
  *scale = dyn->Ascale * sc;
  *shift = dyn->Ascale * sh + dyn->Ashift;
  *whole = dyn->drift ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* The combined Jacobian A = scale (J_coll + J_drift) + shift I as a MATSHELL that keeps its own
   scale and shift (TS shifts and scales RHS Jacobians in place; the IMEX path zeroes it first). */
static PetscErrorCode BTEDynamicsJacobianMult(Mat A, Vec x, Vec y)
{
  BTEDynamics dyn;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dyn));
  if (dyn->Ascale != 0.0) {
    if (dyn->Jc) PetscCall(MatMult(dyn->Jc, x, y));
    else PetscCall(VecZeroEntries(y));
    if (dyn->drift && dyn->src.jscale == 1.0) PetscCall(BTEDriftJacobianMultAdd(dyn->drift, x, y));
    else if (dyn->drift && dyn->src.jscale != 0.0) { /* a time-dependent field: s(t) J_drift */
      PetscCall(VecZeroEntries(dyn->src.work));
      PetscCall(BTEDriftJacobianMultAdd(dyn->drift, x, dyn->src.work));
      PetscCall(VecAXPY(y, dyn->src.jscale, dyn->src.work));
    }
    if (dyn->Ascale != 1.0) PetscCall(VecScale(y, dyn->Ascale));
  } else PetscCall(VecZeroEntries(y));
  if (dyn->Ashift != 0.0) PetscCall(VecAXPY(y, dyn->Ashift, x));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsJacobianGetDiagonal(Mat A, Vec d)
{
  BTEDynamics dyn;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dyn));
  if (dyn->Ascale != 0.0) {
    if (dyn->Jc) PetscCall(MatGetDiagonal(dyn->Jc, d));
    else PetscCall(VecZeroEntries(d));
    if (dyn->drift && dyn->src.jscale == 1.0) PetscCall(BTEDriftJacobianDiagonalAdd(dyn->drift, d));
    else if (dyn->drift && dyn->src.jscale != 0.0) {
      PetscCall(VecZeroEntries(dyn->src.work));
      PetscCall(BTEDriftJacobianDiagonalAdd(dyn->drift, dyn->src.work));
      PetscCall(VecAXPY(d, dyn->src.jscale, dyn->src.work));
    }
    if (dyn->Ascale != 1.0) PetscCall(VecScale(d, dyn->Ascale));
  } else PetscCall(VecZeroEntries(d));
  if (dyn->Ashift != 0.0) PetscCall(VecShift(d, dyn->Ashift));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsJacobianShift(Mat A, PetscScalar a)
{
  BTEDynamics dyn;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dyn));
  dyn->Ashift += a;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsJacobianScale(Mat A, PetscScalar a)
{
  BTEDynamics dyn;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dyn));
  dyn->Ascale *= a;
  dyn->Ashift *= a;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsJacobianZeroEntries(Mat A)
{
  BTEDynamics dyn;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &dyn));
  dyn->Ascale = 0.0;
  dyn->Ashift = 0.0;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsTSRHSFunction - TS right-hand side function: collision plus drift, with a set-up BTEDynamics as context

   Collective

   Input Parameters:
+  ts  - the TS
.  t   - time, fs
.  f   - the occupations
-  ctx - the BTEDynamics

   Output Parameter:
.  F - I[f] + D[f]

   Level: advanced

.seealso: `BTEDynamicsTSRHSJacobian()`, `BTECollisionTSRHSFunction()`
@*/
PetscErrorCode BTEDynamicsTSRHSFunction(TS ts, PetscReal t, Vec f, Vec F, void *ctx)
{
  BTEDynamics dyn = (BTEDynamics)ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 5);
  PetscCheck(dyn->setupcalled, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_WRONGSTATE, "Call BTEDynamicsSetUp() before using the dynamics as a TS right-hand side");
  if (dyn->coll) PetscCall(BTECollisionApply(dyn->coll, f, F));
  else PetscCall(VecZeroEntries(F));
  if (dyn->drift) {
    /* E(t) = s(t) E: the drift term is linear in the field (sources.c) */
    PetscReal sc;
    PetscCall(BTEDynamicsFieldScale(dyn, ts, t, &sc));
    if (sc == 1.0) PetscCall(BTEDriftApplyAdd(dyn->drift, f, F));
    else if (sc != 0.0) {
      PetscCall(BTEDriftApply(dyn->drift, f, dyn->src.work));
      PetscCall(VecAXPY(F, sc, dyn->src.work));
    }
  }
  PetscCall(BTEDynamicsPumpAdd(dyn, t, F));
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsTSRHSJacobian - TS right-hand side Jacobian: collision plus drift Jacobians, with a set-up BTEDynamics as context

   Collective

   Input Parameters:
+  ts  - the TS
.  t   - time, fs
.  f   - the occupations
.  A   - the Jacobian
.  P   - the matrix to build the preconditioner from
-  ctx - the BTEDynamics

   Level: advanced

.seealso: `BTEDynamicsTSRHSFunction()`
@*/
PetscErrorCode BTEDynamicsTSRHSJacobian(TS ts, PetscReal t, Vec f, Mat A, Mat P, void *ctx)
{
  BTEDynamics dyn = (BTEDynamics)ctx;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 6);
  PetscCheck(dyn->setupcalled, PetscObjectComm((PetscObject)dyn), PETSC_ERR_ARG_WRONGSTATE, "Call BTEDynamicsSetUp() before using the dynamics as a TS right-hand side Jacobian");
  if (dyn->coll) PetscCall(BTECollisionComputeJacobian(dyn->coll, f, dyn->Jc));
  if (dyn->drift) PetscCall(BTEDriftSetJacobianState(dyn->drift, f));
  if (dyn->drift) PetscCall(BTEDynamicsFieldScale(dyn, ts, t, &dyn->src.jscale));
  if (A != dyn->Jc) {
    /* the combined shell: J_coll + J_drift at f, unshifted */
    dyn->Ascale = 1.0;
    dyn->Ashift = 0.0;
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  }
  if (P && P != A && P != dyn->Jc) {
    /* a copy of the assembled collision Jacobian preconditions the combined operator; TS shifts
       and scales the copy, the operator's own collision part stays unshifted */
    PetscCall(MatCopy(dyn->Jc, P, SAME_NONZERO_PATTERN));
  }
  PetscFunctionReturn(0);
}

/* The implicit form for Rosenbrock-W (BTEDynamicsSetUp): F = fdot - RHS(t, f) and its Jacobian
   a I - J(f), J the RHS Jacobian (collision, plus the drift with a field) */
static PetscErrorCode BTEDynamicsTSIFunction(TS ts, PetscReal t, Vec f, Vec fdot, Vec F, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(BTEDynamicsTSRHSFunction(ts, t, f, F, ctx));
  PetscCall(VecAYPX(F, -1.0, fdot));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsTSIJacobian(TS ts, PetscReal t, Vec f, Vec fdot, PetscReal a, Mat A, Mat P, void *ctx)
{
  PetscFunctionBegin;
  (void)fdot;
  PetscCall(BTEDynamicsTSRHSJacobian(ts, t, f, A, P, ctx)); /* unshifted, unscaled J(f) */
  PetscCall(MatScale(A, -1.0));
  PetscCall(MatShift(A, a));
  if (P && P != A) {
    PetscCall(MatScale(P, -1.0));
    PetscCall(MatShift(P, a));
  }
  PetscFunctionReturn(0);
}

/* Next output time strictly after t */
static PetscReal BTEDynamicsNextOutput(BTEDynamics dyn, PetscReal t)
{
  PetscReal tn = dyn->tnext;
  while (tn <= t + BTE_TIME_EPS(t)) tn += dyn->interval;
  return tn;
}

/* The next time a step must land on: the next output time, or the final time when bte lands the
   last step itself (dyn->landfinal, see BTEDynamicsSolve). */
static PetscErrorCode BTEDynamicsNextBoundary(BTEDynamics dyn, PetscReal t, PetscReal *tn)
{
  PetscReal tmax;

  PetscFunctionBegin;
  *tn = BTEDynamicsNextOutput(dyn, t);
  if (dyn->landfinal) {
    PetscCall(TSGetMaxTime(dyn->ts, &tmax));
    if (tmax > t && tmax < *tn) *tn = tmax; /* strictly: a last step of a rounding error still lands */
  }
  PetscFunctionReturn(0);
}

/* The finite-state guard: a state that is not finite, or has occupations outside
   [-statetol, 1 + statetol], stops the run with a line saying what to change. */
PetscErrorCode BTEDynamicsCheckState(BTEDynamics dyn, Vec u, PetscReal t, PetscInt step, const char when[])
{
  PetscBool ok, finite;
  PetscReal lo, hi, dt;
  TSType    type;
  char      what[256];

  PetscFunctionBegin;
  PetscCall(BTEStateCheck(u, dyn->statetol, &ok, &finite, &lo, &hi));
  if (ok) PetscFunctionReturn(0);
  PetscCall(TSGetType(dyn->ts, &type));
  PetscCall(TSGetTimeStep(dyn->ts, &dt));
  if (!finite) PetscCall(PetscSNPrintf(what, sizeof(what), "is not finite (NaN or Inf)"));
  else PetscCall(PetscSNPrintf(what, sizeof(what), "has occupations from %.3g to %.3g, outside [%g, %g] (-bte_state_tolerance %g)", (double)lo, (double)hi, (double)-dyn->statetol, (double)(1 + dyn->statetol), (double)dyn->statetol));
  /* the initial state has taken no step: the integrator is not to blame */
  PetscCheck(!strstr(when, "initial"), PetscObjectComm((PetscObject)dyn), PETSC_ERR_USER_INPUT, "The %s at t = %g fs (step %" PetscInt_FMT ") %s: check -bte_init and its parameters%s", when, (double)t, step, what, dyn->init == BTE_INIT_RESTART ? ", or the restart file (-bte_restart): it is damaged or not from this table" : "");
  SETERRQ(PetscObjectComm((PetscObject)dyn), PETSC_ERR_NOT_CONVERGED, "The %s at t = %g fs (step %" PetscInt_FMT ") %s: the time integration (TS %s, step %g fs) is unstable or inaccurate; use a smaller -bte_time_step / -ts_dt, or an adaptive integrator (-ts_adapt_type basic)", when, (double)t, step, what, type ? type : "?", (double)dt);
}

/* -bte_state_check stage, adaptive integrators: a stage that fails the guard is rejected and the
   step retried smaller (TSSetFunctionDomainError). A fixed step (TSADAPTNONE) is never shortened:
   the post-step guard stops the run instead. With step, only the stages of a step being retried
   (after a rejection: BTEDynamicsPreStage, BTEDynamicsPostEvaluate), so no host synchronisation
   per stage on the GPU in the steps that pass; step checks each result (BTEDynamicsPostEvaluate).
   With none, nothing. */
static PetscErrorCode BTEDynamicsDomainError(TS ts, PetscReal t, Vec Y, PetscBool *accept)
{
  BTEDynamics dyn;
  TSAdapt     adapt;
  PetscBool   none;

  PetscFunctionBegin;
  (void)t;
  *accept = PETSC_TRUE;
  PetscCall(TSGetApplicationContext(ts, &dyn));
  if (dyn->scheckuse != BTE_STATE_CHECK_STAGE && !(dyn->scheckuse == BTE_STATE_CHECK_STEP && dyn->src.retrycheck)) PetscFunctionReturn(0);
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
  if (none) PetscFunctionReturn(0);
  {
    /* Rosenbrock-W passes its stage increments (h k_i), not stage states: only finiteness means
       something there; the step's result is checked after the step (post-step guard, positivity) */
    PetscBool rosw;
    PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSROSW, &rosw));
    PetscCall(BTEStateCheck(Y, rosw ? -1.0 : dyn->statetol, accept, NULL, NULL, NULL));
  }
  if (!*accept) dyn->src.nguard++;
  if (!*accept) PetscCall(PetscInfo(ts, "bte: stage at t = %g fs rejected: not finite or outside [-%g, 1 + %g] (-bte_state_tolerance)\n", (double)t, (double)dyn->statetol, (double)dyn->statetol));
  PetscFunctionReturn(0);
}

/* Shorten the coming step so that it lands on the next output time; restore the step after. */
static PetscErrorCode BTEDynamicsPostStep(TS ts)
{
  BTEDynamics dyn;
  PetscReal   t, dt, tn;

  PetscFunctionBegin;
  PetscCall(TSGetApplicationContext(ts, &dyn));
  {
    /* A failed nonlinear solve makes PETSc retry the step at a quarter of it, whatever the
       adaptor (-ts_max_snes_failures -1 in the implicit options files: unlimited), and a fixed
       step then stays shortened: 50 fs became 0.012 fs (8192 steps for 2), or ran for minutes
       without a word. A fixed step is never shortened silently: stop at the first such retry. */
    TSAdapt   adapt;
    PetscBool none;
    PetscInt  nf;
    PetscCall(TSGetAdapt(ts, &adapt));
    PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
    PetscCall(TSGetSNESFailures(ts, &nf));
    if (none && nf > 0) {
      PetscCall(TSGetTime(ts, &t));
      PetscCall(TSGetTimeStep(ts, &dt));
      SETERRQ(PetscObjectComm((PetscObject)ts), PETSC_ERR_NOT_CONVERGED, "A nonlinear solve of the implicit method failed before t = %g fs (%" PetscInt_FMT " failure%s), and PETSc retried the step at a quarter of it each time (now %g fs): a fixed step (-ts_adapt_type none) is not shortened silently; let the solves converge (-snes_max_it, -ksp_max_it, -ksp_rtol) or use an adaptive step (-ts_adapt_type basic)", (double)t, nf, nf > 1 ? "s" : "", (double)dt);
    }
  }
  {
    /* t accumulates t + dt: a step meant to end on an output time or the final time can miss it by
       a rounding error (0.1 fs steps reach 99.9999999999986 fs for 100), and the run would take a
       step of that size after it. Such a step is put exactly on its boundary; at the final time
       the run ends here (PETSc checks the final time before this hook). */
    PetscReal tmax;
    PetscCall(TSGetTime(ts, &t));
    PetscCall(TSGetMaxTime(ts, &tmax));
    if (dyn->landfinal && t < tmax && tmax - t <= BTE_TIME_EPS(tmax)) {
      PetscCall(TSSetTime(ts, tmax));
      PetscCall(TSSetConvergedReason(ts, TS_CONVERGED_TIME));
    } else if (t != dyn->tnext && PetscAbsReal(t - dyn->tnext) <= BTE_TIME_EPS(dyn->tnext)) PetscCall(TSSetTime(ts, dyn->tnext));
  }
  if (dyn->scheckuse == BTE_STATE_CHECK_STAGE) {
    /* step: checked before the step was accepted (BTEDynamicsPostEvaluate); none: not at all */
    Vec      u;
    PetscInt step;
    PetscCall(TSGetSolution(ts, &u));
    PetscCall(TSGetTime(ts, &t));
    PetscCall(TSGetStepNumber(ts, &step));
    PetscCall(BTEDynamicsCheckState(dyn, u, t, step, "state"));
  }
  if (dyn->normalize) {
    Vec       u;
    PetscReal sum;
    PetscCall(TSGetSolution(ts, &u));
    PetscReal target;
    PetscCall(VecSum(u, &sum));
    PetscCall(TSGetTime(ts, &t));
    target = dyn->sum0 + BTEDynamicsPumpInjected(dyn, dyn->t0, t); /* what the pump added so far */
    if (sum != 0 && sum != target) {
      PetscCall(VecScale(u, target / sum));
      PetscCall(TSRestartStep(ts)); /* the solution changed: no reuse of the last stage (FSAL, multistep history) */
    }
  }
  PetscCall(TSGetTime(ts, &t));
  /* a step landed on the field's step: the next one starts afresh (no FSAL stage, no multistep
     history from the other side of the jump) */
  if (dyn->drift && dyn->src.fprofile == BTE_FIELD_STEP && PetscAbsReal(t - dyn->src.ftime) <= BTE_TIME_EPS(t)) PetscCall(TSRestartStep(ts));
  if (dyn->src.sthr > 0 && t >= dyn->tnext - BTE_TIME_EPS(dyn->tnext)) {
    Vec u;
    PetscCall(TSGetSolution(ts, &u));
    PetscCall(BTEDynamicsSteadyCheck(dyn, ts, t, u));
  }
  PetscCall(TSGetTimeStep(ts, &dt));
  if (dyn->clipped) dt = PetscMax(dt, dyn->dtsaved);
  dyn->clipped = PETSC_FALSE;
  PetscCall(BTEDynamicsNextBoundary(dyn, t, &tn));
  tn = PetscMin(tn, BTEDynamicsNextEvent(dyn, t)); /* and the field's step */
  if (t + dt > tn + BTE_TIME_EPS(tn)) {
    dyn->dtsaved = dt;
    dyn->clipped = PETSC_TRUE;
    dt           = tn - t;
  }
  PetscCall(TSSetTimeStep(ts, dt));
  PetscFunctionReturn(0);
}

/* a run whose stepping has lasted this long (s) prints, with each monitor line, its time so far and
   the time it has left at the pace so far */
#define BTE_MONITOR_ETA_AFTER 30.0

static PetscErrorCode BTEDynamicsSnapshot(BTEDynamics dyn, PetscInt step, PetscReal t, Vec f)
{
  PetscLogDouble w0, w1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&w0));
  /* -bte_state_check none: the states written are checked, so no bad state reaches the output and
     a run that blew up does not end as if it had converged */
  if (dyn->scheckuse == BTE_STATE_CHECK_NONE) PetscCall(BTEDynamicsCheckState(dyn, f, t, step, "state"));
  if (dyn->out.file) PetscCall(BTEDynamicsOutputWrite(dyn, t, step, f));
  PetscCall(BTEDynamicsReferenceCompare(dyn, t, f));
  if (dyn->monitor) {
    PetscReal ncell, dens, emean, v[3], vd = 0, Emag, edge;
    if (dyn->wsolve > 0 && t > dyn->tsolve[0] && w0 - dyn->wsolve >= BTE_MONITOR_ETA_AFTER && w0 - dyn->weta >= BTE_MONITOR_ETA_AFTER) {
      /* a long run says how long it has run and, at the pace so far, how long it has left (at most
         once per BTE_MONITOR_ETA_AFTER seconds) */
      PetscLogDouble el = w0 - dyn->wsolve;
      dyn->weta         = w0;
      PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  (%.0f s of stepping so far; about %.0f s left at this pace)\n", (double)el, (double)(el * (dyn->tsolve[1] - t) / (t - dyn->tsolve[0]))));
    }
    PetscCall(BTEComputeMoments(dyn->bte, f, &ncell, &dens, &emean, v));
    PetscCall(BTEGetBandEdge(dyn->bte, &edge));
    Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
    if (Emag > 0) {
      vd = (v[0] * dyn->efield[0] + v[1] * dyn->efield[1] + v[2] * dyn->efield[2]) / Emag;
      PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  t %10.3f fs  steps %7" PetscInt_FMT "  carriers %.12e /cell (%.6e cm^-%d)  <E> %.6f eV (edge + %.6f)  v_d %.5e cm/s\n", (double)t, step, (double)ncell, (double)dens, dyn->bte->grid.dim, (double)emean, (double)(emean - edge), (double)vd));
    } else PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  t %10.3f fs  steps %7" PetscInt_FMT "  carriers %.12e /cell (%.6e cm^-%d)  <E> %.6f eV (edge + %.6f)\n", (double)t, step, (double)ncell, (double)dens, dyn->bte->grid.dim, (double)emean, (double)(emean - edge)));
  }
  if (!dyn->normalize && dyn->sum0 > 0) {
    /* the collision integral and the plain, upwind and muscl drift forms conserve the carrier number
       exactly: a change is the log form's or the time integration's */
    PetscReal sum, rel;
    PetscReal expect = dyn->sum0 + BTEDynamicsPumpInjected(dyn, dyn->t0, t); /* with a pump, what it injected */
    PetscCall(VecSum(f, &sum));
    rel = sum / expect - 1;
    if (!dyn->warned && PetscAbsReal(rel) > 1e-6) {
      dyn->warned = PETSC_TRUE;
      if (dyn->drift && dyn->driftform == BTE_DRIFT_LOG) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  WARNING: the carrier number changed by %.2e (relative): the log drift form does not conserve carriers on coarse grids or at the window edge; use -bte_drift_form muscl or upwind (exactly conservative, 0 <= f <= 1), a finer grid or a wider window, or -bte_normalize\n", (double)rel));
      else PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  WARNING: the carrier number changed by %.2e (relative), which the equation%s conserves exactly: the time integration lost it (an implicit method's inexact linear solves: tighten -ksp_rtol, or solve each step by Newton instead of -snes_type ksponly; or too large steps)\n", (double)rel, dyn->drift ? " with this drift form" : ""));
    }
    /* the first crossing can be small against what follows (a 68-fold growth in 1 ps on GaAs 40^3 at
       4 kV/cm was announced as +12 % at 50 fs): keep the latest and the largest for the run's end */
    if (dyn->warned) {
      dyn->nrel    = rel;
      dyn->nrelmax = PetscMax(dyn->nrelmax, PetscAbsReal(rel));
    }
  }
  /* the conservative forms can leave [0, 1] (plain: overshoots; upwind: carriers piled up against
     the window's top), and so can a time step too long for the fastest rates, with or without a
     field (parabolic 16^3, 400 fs steps: f down to -0.24 and a mean energy a fifth of the right
     one, exit 0): say so once */
  if (!dyn->warnedf) {
    PetscReal lo, hi;
    PetscCall(VecMin(f, NULL, &lo));
    PetscCall(VecMax(f, NULL, &hi));
    if (lo < -1e-10 || hi > 1 + 1e-10) {
      dyn->warnedf = PETSC_TRUE;
      if (dyn->drift) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  WARNING: occupations from %.3g to %.6g at t = %g fs, outside [0, 1]: the %s drift form %s (or the steps are too long: -bte_positivity rejects such steps)\n", (double)lo, (double)hi, (double)t, BTEDriftForms[dyn->driftform], dyn->driftform == BTE_DRIFT_PLAIN ? "overshoots where f varies fast on the grid; use -bte_drift_form muscl or upwind, or a finer grid" : "piles carriers up against the window's top; widen the window (-bte_window) or use a finer grid"));
      else PetscCall(PetscPrintf(PetscObjectComm((PetscObject)dyn), "  WARNING: occupations from %.3g to %.6g at t = %g fs, outside [0, 1]: the time steps are too long for the fastest scattering rates, and the run is not the solution of the equation; take shorter steps (-ts_dt), an adaptive or implicit method (options/adaptive.opts, options/implicit.opts), or reject such steps (-bte_positivity)\n", (double)lo, (double)hi, (double)t));
    }
  }
  dyn->tlast = t;
  PetscCall(PetscTime(&w1));
  dyn->cost.tsnap += w1 - w0;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDynamicsMonitor(TS ts, PetscInt step, PetscReal t, Vec f, void *ctx)
{
  BTEDynamics dyn = (BTEDynamics)ctx;

  PetscFunctionBegin;
  (void)ts;
  if (t >= dyn->tnext - BTE_TIME_EPS(dyn->tnext)) {
    PetscCall(BTEDynamicsSnapshot(dyn, step, t, f));
    dyn->tnext = BTEDynamicsNextOutput(dyn, t);
    /* Every snapshot is a step boundary a restart reproduces: the next step starts afresh (an
       FSAL Runge-Kutta method evaluates its first stage again, a multistep method such as BDF
       starts its history again, second order from the start), as a run restarted here does. */
    PetscCall(TSRestartStep(ts));
  }
  PetscFunctionReturn(0);
}

/* The equation, the Jacobian and the hooks on one TS (the run's, and the second method's with
   -bte_switch_time: both share the operators, matrices and state) */
static PetscErrorCode BTEDynamicsTSSetOperators(BTEDynamics dyn, TS ts)
{
  PetscBool rosw;

  PetscFunctionBegin;
  /* PETSc's Rosenbrock-W is linearly implicit in the IFunction only and steps an RHS function
     explicitly: given as an RHS, the equation would get W = a I (no Jacobian, the explicit
     stability limit). So for rosw it is given as F(t, f, fdot) = fdot - RHS(t, f) */
  PetscCall(PetscObjectTypeCompare((PetscObject)ts, TSROSW, &rosw));
  if (rosw) {
    PetscCall(TSSetIFunction(ts, NULL, BTEDynamicsTSIFunction, dyn));
    PetscCall(TSSetIJacobian(ts, dyn->A, dyn->P, BTEDynamicsTSIJacobian, dyn));
  } else {
    PetscCall(TSSetRHSFunction(ts, NULL, BTEDynamicsTSRHSFunction, dyn));
    PetscCall(TSSetRHSJacobian(ts, dyn->A, dyn->P, BTEDynamicsTSRHSJacobian, dyn));
    PetscCall(TSRHSJacobianSetReuse(ts, PETSC_TRUE));
  }
  PetscCall(TSMonitorSet(ts, BTEDynamicsMonitor, dyn, NULL));
  PetscCall(TSSetPostStep(ts, BTEDynamicsPostStep));
  PetscCall(TSSetFunctionDomainError(ts, BTEDynamicsDomainError));
  PetscCall(TSSetPreStep(ts, BTEDynamicsPreStep));
  PetscCall(TSSetPreStage(ts, BTEDynamicsPreStage));
  PetscCall(TSSetPostEvaluate(ts, BTEDynamicsPostEvaluate));
  PetscFunctionReturn(0);
}

/* -bte_switch_time: the first method has stepped to the switch time; the second (dyn->tssw,
   options prefix sw_) continues from the same state, as a run restarted from a snapshot at the
   switch time would: the snapshot is written (one series), the step number goes on, the step the
   first method was about to take is the second's first (adaptive, or the same fixed step), and the
   first method's rejections and iterations are kept for the cost. tmax: the final time. */
static PetscErrorCode BTEDynamicsSwitch(BTEDynamics dyn, PetscReal tmax)
{
  MPI_Comm               comm = PetscObjectComm((PetscObject)dyn);
  TS                     first = dyn->ts, second = dyn->tssw;
  PetscReal              t, dt1, dtclip, dt2, tn;
  PetscInt               step, n;
  TSConvergedReason      reason;
  TSExactFinalTimeOption eft;
  TSAdapt                adapt;
  PetscBool              none;
  TSType                 type1, type2;

  PetscFunctionBegin;
  PetscCall(TSGetConvergedReason(first, &reason));
  PetscCall(TSGetTime(first, &t));
  /* a failed first leg, or one stopped before the switch (steady state, -ts_max_steps): the run ends there */
  if (reason != TS_CONVERGED_TIME || PetscAbsReal(t - dyn->tswitch) > BTE_TIME_EPS(t)) PetscFunctionReturn(0);
  PetscCall(TSGetStepNumber(first, &step));
  if (PetscAbsReal(t - dyn->tlast) > BTE_TIME_EPS(t)) PetscCall(BTEDynamicsSnapshot(dyn, step, t, dyn->f));
  PetscCall(TSGetTimeStep(first, &dt1));
  dtclip = dyn->clipped ? dyn->dtsaved : 0;
  PetscCall(TSGetStepRejections(first, &n));
  dyn->cost.leg_rejects += n;
  PetscCall(TSGetSNESIterations(first, &n));
  dyn->cost.leg_snes_its += n;
  PetscCall(TSGetKSPIterations(first, &n));
  dyn->cost.leg_ksp_its += n;
  PetscCall(TSGetSNESFailures(first, &n));
  dyn->cost.leg_snes_fails += n;
  dyn->ts       = second;
  dyn->tssw     = first;
  dyn->switched = PETSC_TRUE;
  PetscCall(TSSetMaxTime(second, tmax));
  PetscCall(TSGetExactFinalTime(second, &eft));
  PetscCheck(eft == TS_EXACTFINALTIME_MATCHSTEP || eft == TS_EXACTFINALTIME_STEPOVER, comm, PETSC_ERR_USER_INPUT, "TS exact final time %s of the second method: bte dynamics lands its steps on the output times and the final time itself; use matchstep", TSExactFinalTimeOptions[eft]);
  dyn->landfinal = PETSC_TRUE; /* the final time, landed by bte as in BTEDynamicsSolve */
  PetscCall(TSSetExactFinalTime(second, TS_EXACTFINALTIME_STEPOVER));
  PetscCall(TSGetAdapt(second, &adapt));
  PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
  PetscCall(TSGetTimeStep(second, &dt2));
  dyn->tnext = BTEDynamicsNextOutput(dyn, t);
  if (!none || (dtclip > 0 ? dtclip : dt1) == dt2) {
    PetscCall(TSSetTimeStep(second, dt1));
    dyn->clipped = dtclip > 0 ? PETSC_TRUE : PETSC_FALSE;
    dyn->dtsaved = dtclip;
  } else {
    dyn->clipped = PETSC_FALSE;
    PetscCall(BTEDynamicsNextBoundary(dyn, t, &tn));
    if (t + dt2 > tn + BTE_TIME_EPS(tn)) {
      dyn->dtsaved = dt2;
      dyn->clipped = PETSC_TRUE;
      PetscCall(TSSetTimeStep(second, tn - t));
    }
  }
  PetscCall(TSSetTime(second, t));
  PetscCall(TSSetStepNumber(second, step));
  PetscCall(TSRestartStep(second));
  PetscCall(TSGetType(first, &type1));
  PetscCall(TSGetType(second, &type2));
  PetscCall(PetscPrintf(comm, "dynamics: t = %g fs: switching from TS %s to TS %s (-bte_switch_time, options prefix sw_) after %" PetscInt_FMT " steps\n", (double)t, type1 ? type1 : "?", type2 ? type2 : "?", step - dyn->step0));
  PetscCall(TSSolve(second, dyn->f));
  PetscFunctionReturn(0);
}

/* An implicit method's linear solves on the matrix-free Jacobian: PETSc's default preconditioner
   (ILU on one rank, block Jacobi with ILU on several) needs the matrix's entries and stops at the
   first solve ("Could not locate a solver type for factorization type ILU and matrix type shell").
   Unless -pc_type was given, such a PC becomes Jacobi, which the shell supports (its diagonal is
   exact); a PC set to anything else, through the API or an option, is kept. */
static PetscErrorCode BTEDynamicsDefaultPC(BTEDynamics dyn, TS ts)
{
  SNES        snes;
  KSP         ksp;
  PC          pc;
  const char *prefix;
  PetscBool   shell, given, deflt;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)dyn->P, MATSHELL, &shell));
  if (!shell) PetscFunctionReturn(0);
  PetscCall(TSGetSNES(ts, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscOptionsHasName(((PetscObject)pc)->options, prefix, "-pc_type", &given));
  PetscCall(PetscObjectTypeCompareAny((PetscObject)pc, &deflt, PCILU, PCBJACOBI, ""));
  if (!given && deflt) PetscCall(PCSetType(pc, PCJACOBI));
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSetUp - Sets up the collision operator, the drift term and the TS

   Collective

   Input Parameter:
.  dyn - the dynamics object

   Level: intermediate

.seealso: `BTEDynamicsSolve()`
@*/
PetscErrorCode BTEDynamicsSetUp(BTEDynamics dyn)
{
  BTE      bte;
  MPI_Comm comm;
  PetscReal Emag;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  if (dyn->setupcalled) PetscFunctionReturn(0);
  bte  = dyn->bte;
  comm = PetscObjectComm((PetscObject)dyn);
  PetscCall(BTESetUp(bte));
  PetscCall(BTEDynamicsSourcesCheck(dyn)); /* again: the values may have come through the API */
  PetscCheck(!dyn->restart[0] || dyn->init == BTE_INIT_RESTART, comm, PETSC_ERR_USER_INPUT, "A restart file (%s, BTEDynamicsSetRestart()) needs the initial state restart, not %s, which would ignore it", dyn->restart, BTEInitTypes[dyn->init]);
  PetscCall(BTEDynamicsCreateTS(dyn));
  if (dyn->scattering && !dyn->coll) {
    PetscCall(BTECollisionCreate(bte, &dyn->coll));
    PetscCall(BTECollisionSetFromOptions(dyn->coll));
  }
  if (dyn->coll) PetscCall(BTECollisionSetUp(dyn->coll));
  /* the diagnostics at setup (docs/diagnostics.md) with the run's operator, no second one: for the
     run's header (BTEView) and its output file; nothing with -bte_diagnostics 0 */
  if (dyn->coll) PetscCall(BTEDiagnosticsCompute(bte, dyn->coll, NULL));
  Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
  if (Emag > 0) {
    PetscCall(BTEFieldCaveat(bte, Emag));
    PetscCall(BTEDriftCreate(bte, &dyn->drift));
    PetscCall(BTEDriftSetOwned(dyn->drift, PETSC_TRUE, PETSC_TRUE)); /* the field and form are the dynamics' */
    PetscCall(BTEDriftSetField(dyn->drift, dyn->efield));
    PetscCall(BTEDriftSetForm(dyn->drift, dyn->driftform));
    PetscCall(BTEDriftSetFromOptions(dyn->drift)); /* its own options: the limiter, -bte_drift_mat_type */
    PetscCall(BTEDriftSetUp(dyn->drift));
  }
  PetscCheck(dyn->coll || dyn->drift, comm, PETSC_ERR_USER_INPUT, "Nothing to integrate: -bte_scattering 0 needs a field (-bte_efield)");
  PetscCall(BTECreateStateVec(bte, &dyn->f));
  dyn->scheckuse = dyn->scheck;
  if (dyn->scheck == BTE_STATE_CHECK_AUTO) {
    /* on the GPU a check is a host synchronisation: once per step, not once per stage */
    PetscBool cuda;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)dyn->f, &cuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
    dyn->scheckuse = cuda ? BTE_STATE_CHECK_STEP : BTE_STATE_CHECK_STAGE;
  }
  if (dyn->coll) PetscCall(BTECollisionCreateJacobian(dyn->coll, &dyn->Jc));
  if (dyn->drift) {
    VecType   vtype;
    PetscBool isshell = PETSC_TRUE;
    PetscCall(MatCreateShell(comm, bte->nlocal, bte->nlocal, bte->nstates, bte->nstates, dyn, &dyn->A));
    PetscCall(MatShellSetManageScalingShifts(dyn->A));
    PetscCall(MatShellSetOperation(dyn->A, MATOP_MULT, BTE_MATOP(BTEDynamicsJacobianMult)));
    PetscCall(MatShellSetOperation(dyn->A, MATOP_GET_DIAGONAL, BTE_MATOP(BTEDynamicsJacobianGetDiagonal)));
    PetscCall(MatShellSetOperation(dyn->A, MATOP_SHIFT, BTE_MATOP(BTEDynamicsJacobianShift)));
    PetscCall(MatShellSetOperation(dyn->A, MATOP_SCALE, BTE_MATOP(BTEDynamicsJacobianScale)));
    PetscCall(MatShellSetOperation(dyn->A, MATOP_ZERO_ENTRIES, BTE_MATOP(BTEDynamicsJacobianZeroEntries)));
    dyn->Ascale = 1.0;
    dyn->Ashift = 0.0;
    PetscCall(VecGetType(dyn->f, &vtype));
    PetscCall(MatShellSetVecType(dyn->A, vtype));
    PetscCall(PetscObjectSetName((PetscObject)dyn->A, "collision+drift Jacobian"));
    if (dyn->Jc) PetscCall(PetscObjectComposeFunction((PetscObject)dyn->A, BTE_JAC_LINEARIZATION, BTEDynamicsJacobianGetLinearization));
    if (dyn->Jc) PetscCall(PetscObjectTypeCompare((PetscObject)dyn->Jc, MATSHELL, &isshell));
    /* an assembled collision Jacobian (a copy) preconditions the combined operator (drift left out) */
    if (isshell) dyn->P = dyn->A;
    else PetscCall(MatDuplicate(dyn->Jc, MAT_DO_NOT_COPY_VALUES, &dyn->P));
  } else {
    dyn->A = dyn->P = dyn->Jc;
  }
  PetscCall(BTEDynamicsTSSetOperators(dyn, dyn->ts));
  if (dyn->tssw) PetscCall(BTEDynamicsTSSetOperators(dyn, dyn->tssw)); /* the second method (-bte_switch_time) */
  PetscCall(BTEDynamicsSourcesSetUp(dyn));
  /* the integrators themselves, on the state vector's layout: some read options only here
     (-ts_bdf_order), so once this returns every option of the run but the viewers has been read
     and a caller can check them before the first step (the driver does, before its output opens) */
  PetscCall(BTEDynamicsDefaultPC(dyn, dyn->ts));
  PetscCall(TSSetSolution(dyn->ts, dyn->f));
  PetscCall(TSSetUp(dyn->ts));
  if (dyn->tssw) {
    PetscCall(BTEDynamicsDefaultPC(dyn, dyn->tssw));
    PetscCall(TSSetSolution(dyn->tssw, dyn->f));
    PetscCall(TSSetUp(dyn->tssw));
  }
  dyn->setupcalled = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsGetTS - Gets the TS that integrates the dynamics

   Not Collective

   Input Parameter:
.  dyn - the dynamics object

   Output Parameter:
.  ts - the TS (not a new reference)

   Level: intermediate

.seealso: `BTEDynamicsTSRHSFunction()`
@*/
PetscErrorCode BTEDynamicsGetTS(BTEDynamics dyn, TS *ts)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  PetscAssertPointer(ts, 2);
  PetscCall(BTEDynamicsCreateTS(dyn));
  *ts = dyn->ts;
  PetscFunctionReturn(0);
}

/* carriers per cell of a distribution */
static PetscErrorCode BTEDynamicsCarriers(BTE bte, BTEInitType type, PetscReal e0, PetscReal smear, PetscReal A, Vec f, PetscReal *ncell)
{
  PetscFunctionBegin;
  PetscCall(BTEComputeDistribution(bte, type, e0, smear, A, f));
  PetscCall(BTEComputeMoments(bte, f, ncell, NULL, NULL, NULL));
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsComputeInitialState - Computes the initial state

   Collective

   Input Parameter:
.  dyn - the dynamics object

   Output Parameters:
+  f  - the initial occupations
-  t0 - its time, fs (0, or the restart snapshot's)

   Level: intermediate

.seealso: `BTEDynamicsSetInitialState()`
@*/
PetscErrorCode BTEDynamicsComputeInitialState(BTEDynamics dyn, Vec f, PetscReal *t0)
{
  BTE       bte;
  MPI_Comm  comm;
  PetscReal edge, e0, smear, A, target = 0, n1;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  bte  = dyn->bte;
  comm = PetscObjectComm((PetscObject)dyn);
  A    = dyn->peak;
  PetscCall(BTESetUp(bte));
  dyn->t0    = 0;
  dyn->step0 = 0;
  if (dyn->init == BTE_INIT_RESTART) {
    PetscCall(BTEDynamicsRestartRead(bte, dyn->restart, f, &dyn->rs));
    dyn->t0    = dyn->rs.t;
    dyn->step0 = dyn->rs.step;
    if (t0) *t0 = dyn->t0;
    PetscFunctionReturn(0);
  }
  PetscCall(BTEGetBandEdge(bte, &edge));
  e0    = dyn->e0set ? dyn->e0 : edge + (dyn->e0edgeset || dyn->init != BTE_INIT_FERMI ? dyn->e0edge : 0.0);
  smear = dyn->smear > 0 ? dyn->smear : (dyn->init == BTE_INIT_FERMI ? BTE_KB * bte->temperature : 0.02);
  if (dyn->density > 0) target = dyn->density * bte->grid.volume / (bte->grid.dim == 2 ? 1e16 : 1e24); /* per cell */
  if (dyn->init == BTE_INIT_FERMI) {
    if (target > 0) {
      /* chemical potential by bisection: carriers(mu) increases with mu */
      PetscReal lo = edge - 200 * smear - 1.0, hi, nmax, emax = PETSC_MIN_REAL;
      for (PetscInt i = 0; i < bte->nlocal; i++) emax = PetscMax(emax, bte->energy[i]);
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emax, 1, MPIU_REAL, MPIU_MAX, comm));
      hi   = emax + 200 * smear + 1.0;
      nmax = (PetscReal)bte->spin * bte->nstates / ((PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2]);
      PetscCheck(target < nmax, comm, PETSC_ERR_USER_INPUT, "-bte_carrier_density %g needs %g carriers per cell, more than the states in the window hold (%g)", (double)dyn->density, (double)target, (double)nmax);
      for (PetscInt it = 0; it < 200; it++) {
        PetscReal mid = 0.5 * (lo + hi);
        PetscCall(BTEDynamicsCarriers(bte, BTE_INIT_FERMI, mid, smear, 1, f, &n1));
        if (n1 < target) lo = mid;
        else hi = mid;
        if (hi - lo < 1e-13 * PetscMax(1.0, PetscAbsReal(mid))) break;
      }
      e0 = 0.5 * (lo + hi);
    }
    PetscCall(BTEComputeDistribution(bte, BTE_INIT_FERMI, e0, smear, 1, f));
  } else {
    if (target > 0) {
      PetscCall(BTEDynamicsCarriers(bte, dyn->init, e0, smear, 1, f, &n1));
      PetscCheck(n1 > 0, comm, PETSC_ERR_USER_INPUT, "The %s initial state at %g eV with width %g eV has no states under it: check -bte_init_e0 and the energy window", BTEInitTypes[dyn->init], (double)e0, (double)smear);
      A = target / n1;
      PetscCheck(A <= 1, comm, PETSC_ERR_USER_INPUT, "-bte_carrier_density %g cm^-%d needs a peak occupation of %g > 1: lower the density or widen -bte_init_smear", (double)dyn->density, (int)bte->grid.dim, (double)A);
    }
    PetscCall(BTEComputeDistribution(bte, dyn->init, e0, smear, A, f));
    if (target <= 0) {
      /* A peak between the grid's energies: on a coarse grid (GaAs 30^3 has no state within 0.1 eV
         of the default edge + 0.1 eV) the run would start from the far tail alone, 1e-11 of the
         asked-for occupation at the band edge, and nothing would say so */
      PetscReal fmax, dmin = PETSC_MAX_REAL;
      PetscCall(VecMax(f, NULL, &fmax));
      for (PetscInt i = 0; i < bte->nlocal; i++) dmin = PetscMin(dmin, PetscAbsReal(bte->energy[i] - e0));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &dmin, 1, MPIU_REAL, MPIU_MIN, comm));
      if (fmax > 0 && fmax < 1e-2 * A) PetscCall(PetscPrintf(comm, "initial state: WARNING the %s at %g eV (band edge + %g eV), width %g eV, falls between the grid's states (the nearest is %.3g eV away): its largest occupation is %.2g, not the %g asked for; refine the grid, widen -bte_init_smear or move -bte_init_e0_edge\n", BTEInitTypes[dyn->init], (double)e0, (double)(e0 - edge), (double)smear, (double)dmin, (double)fmax, (double)A));
    }
  }
  if (t0) *t0 = 0;
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsSolve - Integrates from the initial state to the final time, writing snapshots

   Collective

   Input Parameter:
.  dyn - the dynamics object

   Output Parameter:
.  fout - the final state (may be NULL)

   Level: beginner

.seealso: `BTEDynamicsSetTimes()`, `BTEDynamicsSetOutput()`
@*/
PetscErrorCode BTEDynamicsSolve(BTEDynamics dyn, Vec fout)
{
  MPI_Comm       comm;
  PetscReal      t0, tmax, t, dt, tfirst;
  PetscBool      append = PETSC_FALSE;
  PetscInt       steps, rejects, nfails;
  PetscLogDouble w0, w1, s0, o0, o1;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)dyn);
  PetscCall(BTEDynamicsSetUp(dyn));
  PetscCall(BTEDynamicsComputeInitialState(dyn, dyn->f, &t0));
  PetscCall(BTEDynamicsSteadySeed(dyn, t0, dyn->f)); /* a restart: the count of -bte_steady_threshold goes on */
  PetscCall(BTEDynamicsCheckState(dyn, dyn->f, t0, dyn->step0, dyn->init == BTE_INIT_RESTART ? "initial state (the restart snapshot)" : "initial state"));
  if (dyn->init == BTE_INIT_RESTART) {
    /* which snapshot, and where the run goes: the summary had said only "restart from FILE" */
    PetscBool same = PETSC_FALSE;
    if (dyn->output[0]) PetscCall(BTEDynamicsAppends(dyn, &same));
    PetscCall(PetscPrintf(comm, "dynamics: restart from %s at t = %g fs (step %" PetscInt_FMT ", its last of %" PetscInt_FMT " snapshots%s); %s%s\n", dyn->restart, (double)dyn->rs.t, dyn->rs.step, dyn->rs.nsnap, dyn->rs.complete == 0 ? ", its run stopped before its final time" : "", same ? "appending to it" : dyn->output[0] ? "writing " : "no output file", same ? "" : dyn->output));
  }
  if (dyn->init == BTE_INIT_RESTART && dyn->restartunused[0]) PetscCall(PetscPrintf(comm, "initial state: the restart snapshot's; not used: %s\n", dyn->restartunused));
  PetscCall(VecSum(dyn->f, &dyn->sum0));
  PetscCheck(dyn->sum0 > 0, comm, PETSC_ERR_USER_INPUT, "The initial state has no carriers (every occupation is 0): its energy (-bte_init_e0, -bte_init_e0_edge) is too far from the states in the window [%g, %g] eV%s, or its width (-bte_init_smear) too small", (double)dyn->bte->emin, (double)dyn->bte->emax, dyn->bte->carrier > 0 ? " (holes: energies are the negated band energies)" : "");
  dyn->warned  = PETSC_FALSE;
  dyn->warnedf = PETSC_FALSE;
  dyn->nrel    = 0;
  dyn->nrelmax = 0;
  PetscCall(TSGetMaxTime(dyn->ts, &tmax));
  PetscCall(BTECheckRange(comm, "final time (-bte_final_time, -ts_max_time)", tmax, -BTE_TIME_MAX, BTE_TIME_MAX, "fs", NULL));
  dyn->tend    = tmax;
  dyn->stopped = PETSC_FALSE;
  PetscCheck(tmax > t0 + BTE_TIME_EPS(t0), comm, PETSC_ERR_USER_INPUT, "The final time %.12g fs is not after the initial time %.12g fs%s: raise -bte_final_time (by more than %g fs, the times' tolerance)", (double)tmax, (double)t0, dyn->init == BTE_INIT_RESTART ? " (the restart snapshot's)" : "", (double)BTE_TIME_EPS(t0));
  /* a step after the end is a run without a field (fine as the first leg of a restart, so said, not refused) */
  if (dyn->src.pdensity > 0 && dyn->src.ptime - 1.5 * dyn->src.pfwhm >= tmax) PetscCall(PetscPrintf(comm, "pump: WARNING the pulse at %g fs (FWHM %g fs) comes after the final time %g fs: this run injects almost nothing\n", (double)dyn->src.ptime, (double)dyn->src.pfwhm, (double)tmax));
  if (dyn->drift && dyn->src.fprofile == BTE_FIELD_STEP && dyn->src.ftime >= tmax) PetscCall(PetscPrintf(comm, "field: WARNING the step of -bte_efield_profile step comes at %g fs, not before the final time %g fs: this run has no field\n", (double)dyn->src.ftime, (double)tmax));
  /* a pulse or pump outside the run: after its end, or (a fresh run; a restart's earlier leg may
     have had it) wholly before its start. Beyond 1.5 FWHM of its centre a pulse is below 0.2 % of
     its peak (a field pulse at 5000 fs in a 200 fs run left v_d at 1e-9 cm/s without a word) */
  {
    char msg[256]; /* the C library's %g: PETSc's writes 5000 as "5000." */
    if (dyn->drift && dyn->src.fprofile == BTE_FIELD_PULSE && (dyn->src.ftime - 1.5 * dyn->src.ffwhm >= tmax || (dyn->init != BTE_INIT_RESTART && dyn->src.ftime + 1.5 * dyn->src.ffwhm <= t0))) {
      snprintf(msg, sizeof(msg), "at %g fs (FWHM %g fs) lies outside this run's [%g, %g] fs", (double)dyn->src.ftime, (double)dyn->src.ffwhm, (double)t0, (double)tmax);
      PetscCall(PetscPrintf(comm, "field: WARNING the pulse of -bte_efield_profile pulse %s: its field stays below 0.2%% of -bte_efield, and this run has almost none\n", msg));
    }
    if (dyn->src.pdensity > 0 && dyn->init != BTE_INIT_RESTART && dyn->src.ptime + 1.5 * dyn->src.pfwhm <= t0) {
      snprintf(msg, sizeof(msg), "at %g fs (FWHM %g fs) is over before the initial time %g fs", (double)dyn->src.ptime, (double)dyn->src.pfwhm, (double)t0);
      PetscCall(PetscPrintf(comm, "pump: WARNING the pulse %s: this run injects almost nothing\n", msg));
    }
  }
  PetscCall(TSGetTimeStep(dyn->ts, &dt));
  PetscCheck(dt > 0, comm, PETSC_ERR_USER_INPUT, "The time step must be positive, got %g fs", (double)dt);
  PetscCall(BTECheckRange(comm, "time step (-bte_time_step, -ts_dt)", dt, BTE_TIME_STEP_MIN, BTE_TIME_STEP_MAX, "fs", NULL));
  {
    /* runs that would not end: too many output times, or too many fixed steps */
    TSAdapt   adapt;
    PetscBool none;
    char      hint[128];
    PetscCall(PetscSNPrintf(hint, sizeof(hint), ": raise -bte_output_interval (now %g fs) or shorten the run", (double)dyn->interval));
    PetscCall(BTECheckRange(comm, "number of output times (final - initial time) / -bte_output_interval", (tmax - t0) / dyn->interval, 0, BTE_MAX_SNAPSHOTS, "", hint));
    PetscCall(TSGetAdapt(dyn->ts, &adapt));
    PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
    PetscCall(PetscSNPrintf(hint, sizeof(hint), ": raise the time step (now %g fs) or shorten the run", (double)dt));
    if (none) PetscCall(BTECheckRange(comm, "number of fixed steps (final - initial time) / time step", (tmax - t0) / dt, 0, BTE_MAX_FIXED_STEPS, "", hint));
  }
  if (dyn->tswitch >= 0 && dyn->tssw && !dyn->switched) {
    /* -bte_switch_time: the first method to the switch time, the second (prefix sw_) from there */
    PetscCheck(dyn->tswitch < tmax - BTE_TIME_EPS(tmax), comm, PETSC_ERR_USER_INPUT, "-bte_switch_time %g fs is not before the final time %g fs (-bte_final_time, -ts_max_time)", (double)dyn->tswitch, (double)tmax);
    PetscCall(TSSetMaxTime(dyn->tssw, tmax));
    if (dyn->tswitch <= t0 + BTE_TIME_EPS(t0)) {
      /* a run that starts at or after the switch (a restart): the second method throughout */
      TS first = dyn->ts;
      dyn->ts       = dyn->tssw;
      dyn->tssw     = first;
      dyn->switched = PETSC_TRUE;
      PetscCall(TSGetTimeStep(dyn->ts, &dt));
      PetscCall(PetscPrintf(comm, "dynamics: the run starts at %g fs, at or after the switch time %g fs (-bte_switch_time): the second method (options prefix sw_) throughout\n", (double)t0, (double)dyn->tswitch));
    } else PetscCall(TSSetMaxTime(dyn->ts, dyn->tswitch));
  }
  PetscCall(BTEDynamicsCheckSummaryReference(dyn));
  PetscCall(BTEDynamicsReferenceOpen(dyn, t0, tmax, dyn->f));
  dyn->cost.tsnap = 0;
  if (dyn->output[0]) {
    PetscCall(BTEDynamicsCheckOutput(dyn, &append));
    PetscCall(PetscTime(&o0));
    PetscCall(BTEDynamicsOutputOpen(dyn, dyn->output, append));
    PetscCall(PetscTime(&o1));
    dyn->cost.tsnap += o1 - o0;
  }
  /* the restart snapshot is already in the file we append to: the next output time is the next of
     the file's own (its first time + k interval), so a run stopped between two (-ts_max_steps) and
     continued writes the snapshots the whole run would have */
  if (append) {
    PetscReal k = PetscFloorReal((t0 - dyn->rs.tfirst) / dyn->interval + 0.5);
    if (PetscAbsReal(t0 - (dyn->rs.tfirst + k * dyn->interval)) <= BTE_TIME_EPS(t0)) dyn->tnext = t0 + dyn->interval; /* at an output time: as the whole run */
    else dyn->tnext = dyn->rs.tfirst + PetscCeilReal((t0 - dyn->rs.tfirst) / dyn->interval) * dyn->interval;
  } else dyn->tnext = t0;
  tfirst = dyn->tnext;
  dyn->tlast   = append ? t0 : PETSC_MIN_REAL;
  dyn->clipped = PETSC_FALSE;
  {
    /* Steps land on the output times (BTEDynamicsPostStep) and, instead of PETSc's matchstep
       (which also shortens the steps before the final time), on the final time: so a run
       interrupted at an output time (-ts_max_time) takes the same steps as one that goes on. */
    TSExactFinalTimeOption eft;
    TSAdapt                adapt;
    PetscBool              none;
    PetscCall(TSGetExactFinalTime(dyn->ts, &eft));
    /* stepover here is bte's own from an earlier solve; anything else set on the TS is refused as in
       BTEDynamicsTSSetFromOptions */
    PetscCheck(eft == TS_EXACTFINALTIME_MATCHSTEP || (eft == TS_EXACTFINALTIME_STEPOVER && dyn->landfinal), comm, PETSC_ERR_USER_INPUT, "TS exact final time %s: bte dynamics lands its steps on the output times and the final time itself; use matchstep", TSExactFinalTimeOptions[eft]);
    dyn->landfinal = PETSC_TRUE; /* with -bte_switch_time the first method's last step lands on the switch time */
    PetscCall(TSSetExactFinalTime(dyn->ts, TS_EXACTFINALTIME_STEPOVER));
    PetscCall(TSGetAdapt(dyn->ts, &adapt));
    PetscCall(PetscObjectTypeCompare((PetscObject)adapt, TSADAPTNONE, &none));
    if (dyn->init == BTE_INIT_RESTART && dyn->rs.hasdt && (!none || (dyn->rs.dtclip > 0 ? dyn->rs.dtclip : dyn->rs.dt) == dt)) {
      /* continue with the step sizes of the run that wrote the snapshot (adaptive runs; a fixed
         step only when it is the same step). A step given on the command line is then not used:
         said, as the initial-state options a restart does not use are */
      const char *tsprefix;
      PetscBool   given[3];
      PetscCall(TSGetOptionsPrefix(dyn->ts, &tsprefix));
      PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, tsprefix, "-ts_dt", &given[0]));
      PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, tsprefix, "-ts_time_step", &given[2])); /* PETSc 3.25's name, to which it moves -ts_dt */
      PetscCall(PetscOptionsHasName(((PetscObject)dyn)->options, ((PetscObject)dyn)->prefix, "-bte_time_step", &given[1]));
      if ((given[0] || given[1] || given[2]) && dyn->rs.dt != dt) PetscCall(PetscPrintf(comm, "time step: the restart continues with the adaptive step of the run that wrote the snapshot, %g fs; not used: %s %g\n", (double)dyn->rs.dt, given[0] || given[2] ? "-ts_dt" : "-bte_time_step", (double)dt));
      PetscCall(TSSetTimeStep(dyn->ts, dyn->rs.dt));
      dyn->clipped = dyn->rs.dtclip > 0 ? PETSC_TRUE : PETSC_FALSE;
      dyn->dtsaved = dyn->rs.dtclip;
    } else {
      /* the first step lands on the next boundary, as every later one (BTEDynamicsPostStep) */
      PetscReal tn;
      PetscCall(BTEDynamicsNextBoundary(dyn, t0, &tn));
      if (t0 + dt > tn + BTE_TIME_EPS(tn)) {
        dyn->dtsaved = dt;
        dyn->clipped = PETSC_TRUE;
        PetscCall(TSSetTimeStep(dyn->ts, tn - t0));
      }
    }
    dyn->tnext = tfirst;
  }
  PetscCall(TSSetTime(dyn->ts, t0));
  PetscCall(TSSetStepNumber(dyn->ts, dyn->step0));
  PetscCall(TSRestartStep(dyn->ts)); /* a restarted run starts its step afresh, as after every snapshot */
  PetscCall(BTEDynamicsCostBegin(dyn));
  PetscCall(PetscTime(&w0));
  dyn->wsolve    = w0;
  dyn->weta      = 0;
  dyn->tsolve[0] = t0;
  dyn->tsolve[1] = tmax;
  s0             = dyn->cost.tsnap;
  PetscCall(TSSolve(dyn->ts, dyn->f));
  if (dyn->tswitch >= 0 && dyn->tssw && !dyn->switched) PetscCall(BTEDynamicsSwitch(dyn, tmax));
  PetscCall(PetscTime(&w1));
  PetscCall(BTEDynamicsCostEnd(dyn, w0, w1, s0));
  PetscCall(TSGetTime(dyn->ts, &t));
  PetscCall(TSGetStepNumber(dyn->ts, &steps));
  if (PetscAbsReal(t - dyn->tlast) > BTE_TIME_EPS(t)) PetscCall(BTEDynamicsSnapshot(dyn, steps, t, dyn->f));
  PetscCall(TSGetStepRejections(dyn->ts, &rejects));
  rejects += dyn->src.npositivity + dyn->src.nguardstep + dyn->cost.leg_rejects; /* rolled back after the TS accepted them (sources.c); the first method's (-bte_switch_time) */
  PetscCall(TSGetSNESFailures(dyn->ts, &nfails));
  nfails += dyn->cost.leg_snes_fails;
  {
    TSConvergedReason reason;
    PetscCall(TSGetConvergedReason(dyn->ts, &reason));
    PetscCall(PetscPrintf(comm, "dynamics: t = %g fs after %" PetscInt_FMT " steps (%" PetscInt_FMT " rejected) in %.2f s; %s\n", (double)t, steps - dyn->step0, rejects, (double)(w1 - w0), TSConvergedReasons[reason]));
    PetscCheck(reason >= 0, comm, PETSC_ERR_NOT_CONVERGED, "The time integration failed (%s)%s", TSConvergedReasons[reason], nfails ? ": nonlinear solves failed; try a smaller -ts_dt or -ts_adapt_type basic" : (rejects ? ": steps were rejected (error estimate, or stages or steps not finite or outside [-tol, 1 + tol], -bte_state_tolerance); try a smaller -ts_dt or a looser -ts_rtol" : ""));
    /* a TS that stops before the final time without failing (-ts_max_steps) has not done the run
       asked for: said, and its file is not marked complete (a steady state is an end of its own) */
    if (!dyn->src.steady && t < tmax - BTE_TIME_EPS(tmax)) {
      PetscInt maxsteps;
      char     why[160] = "";
      PetscCall(TSGetMaxSteps(dyn->ts, &maxsteps));
      if (reason == TS_CONVERGED_ITS) PetscCall(PetscSNPrintf(why, sizeof(why), ": -ts_max_steps %" PetscInt_FMT " reached (it counts from step 0 of the run, a restart's earlier steps included)", maxsteps));
      dyn->stopped = PETSC_TRUE;
      PetscCall(PetscPrintf(comm, "dynamics: WARNING the run stopped at t = %g fs, before its final time %g fs (%s)%s; %s\n", (double)t, (double)tmax, TSConvergedReasons[reason], why, dyn->output[0] ? "its output keeps complete = 0, and a restart from its last snapshot (-bte_init restart) goes on" : "a restart from a snapshot (-bte_output, -bte_init restart) would go on"));
    }
  }
  if (dyn->warned) PetscCall(PetscPrintf(comm, "dynamics: WARNING: at t = %g fs the carrier number is %.6g times what the run started with%s%s (the largest relative change during the run %.3g): %s did not conserve it (the warning above)\n", (double)t, (double)(1 + dyn->nrel), dyn->init == BTE_INIT_RESTART ? " (its restart snapshot, not the first snapshot of the file)" : "", dyn->src.pdensity > 0 ? " and the pump injected" : "", (double)dyn->nrelmax, dyn->drift && dyn->driftform == BTE_DRIFT_LOG ? "the log drift form" : "the time integration"));
  if (dyn->src.sthr > 0) {
    const BTEDynamicsSources *sr = &dyn->src;
    if (sr->steady) PetscCall(PetscPrintf(comm, "dynamics: steady state at t = %g fs: v_d = %.6e cm/s, |dv_d/dt| = %.3e cm/s^2 over the last two output intervals (-bte_steady_threshold %g)\n", (double)sr->steadyt, (double)sr->steadyv, (double)sr->steadyacc, (double)sr->sthr));
    else PetscCall(PetscPrintf(comm, "dynamics: no steady state by t = %g fs: |dv_d/dt| = %.3e cm/s^2 over the last output interval, threshold %g (-bte_steady_threshold)\n", (double)t, (double)sr->lastacc, (double)sr->sthr));
  }
  PetscCall(BTEDynamicsReferenceClose(dyn));
  {
    PetscLogDouble now;
    PetscCall(PetscTime(&now));
    dyn->cost.output = dyn->cost.tsnap;
    dyn->cost.total  = now - dyn->cost.tcreate;
  }
  if (dyn->output[0]) {
    PetscCall(PetscTime(&o0));
    PetscCall(BTEDynamicsOutputWriteCost(dyn));
    PetscCall(BTEDynamicsOutputWriteReferenceError(dyn));
    PetscCall(BTEDynamicsOutputClose(dyn));
    PetscCall(PetscTime(&o1));
    dyn->cost.output += o1 - o0;
    dyn->cost.total += o1 - o0;
    /* this run's snapshots: an append's file holds the earlier run's too (its cost lines are this run's) */
    if (dyn->out.nt0) PetscCall(PetscPrintf(comm, "dynamics: wrote %" PetscInt_FMT " snapshot%s to %s, which now holds %" PetscInt_FMT "\n", dyn->out.nt - dyn->out.nt0, dyn->out.nt - dyn->out.nt0 == 1 ? "" : "s", dyn->output, dyn->out.nt));
    else PetscCall(PetscPrintf(comm, "dynamics: wrote %" PetscInt_FMT " snapshot%s to %s\n", dyn->out.nt, dyn->out.nt == 1 ? "" : "s", dyn->output));
  }
  PetscCall(BTEDynamicsCostView(dyn));
  PetscCall(BTEDynamicsReferenceView(dyn));
  PetscCall(BTEDynamicsCostWriteJSON(dyn));
  if (fout) PetscCall(VecCopy(dyn->f, fout));
  PetscFunctionReturn(0);
}

/*@
   BTEDynamicsView - Prints the dynamics' settings

   Collective

   Input Parameters:
+  dyn    - the dynamics object
-  viewer - the viewer (NULL: standard output)

   Level: beginner

.seealso: `BTEDynamicsCreate()`
@*/
PetscErrorCode BTEDynamicsView(BTEDynamics dyn, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dyn, BTEDYNAMICS_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)dyn), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  if (!((PetscObject)dyn)->type_name) PetscCall(PetscObjectChangeTypeName((PetscObject)dyn, "ts"));
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)dyn, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (dyn->init == BTE_INIT_RESTART) PetscCall(PetscViewerASCIIPrintf(viewer, "initial state: restart from %s\n", dyn->restart));
  else {
    const char *amp   = dyn->density > 0 ? " (amplitude from the carrier density)" : "";
    PetscReal   smear = dyn->smear > 0 ? dyn->smear : (dyn->init == BTE_INIT_FERMI ? BTE_KB * dyn->bte->temperature : 0.02);
    if (dyn->e0set) PetscCall(PetscViewerASCIIPrintf(viewer, "initial state: %s, e0 %g eV, width %g eV%s\n", BTEInitTypes[dyn->init], (double)dyn->e0, (double)smear, amp));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "initial state: %s, e0 band edge + %g eV, width %g eV%s\n", BTEInitTypes[dyn->init], (double)(dyn->e0edgeset || dyn->init != BTE_INIT_FERMI ? dyn->e0edge : 0.0), (double)smear, amp));
    if (dyn->density > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "carrier density: %g cm^-%d\n", (double)dyn->density, (int)dyn->bte->grid.dim));
    else if (dyn->init != BTE_INIT_FERMI) PetscCall(PetscViewerASCIIPrintf(viewer, "peak occupation: %g\n", (double)dyn->peak));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "collision integral: %s\n", dyn->coll || dyn->scattering ? "yes" : "no (drift only)"));
  if (dyn->coll) PetscCall(BTECollisionViewSummary(dyn->coll, viewer));
  if (dyn->drift) PetscCall(BTEDriftView(dyn->drift, viewer));
  else PetscCall(PetscViewerASCIIPrintf(viewer, "no field\n"));
  PetscCall(BTEDynamicsSourcesView(dyn, viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "output: %s every %g fs\n", dyn->output[0] ? dyn->output : "(none)", (double)dyn->interval));
  {
    BTEStateCheckType use = dyn->setupcalled ? dyn->scheckuse : dyn->scheck;
    static const char *where[] = {"chosen at setup", "every stage of an adaptive step and every step", "every step's result (a bad adaptive step retried at half the step)", "snapshots and the final state only"};
    if (dyn->statetol >= 0) PetscCall(PetscViewerASCIIPrintf(viewer, "state check: %s%s, %s: finite, in [%g, %g]\n", BTEStateCheckTypes[use], dyn->setupcalled && dyn->scheck == BTE_STATE_CHECK_AUTO ? " (auto)" : "", where[use], (double)-dyn->statetol, (double)(1 + dyn->statetol)));
    else PetscCall(PetscViewerASCIIPrintf(viewer, "state check: %s%s, %s: finite\n", BTEStateCheckTypes[use], dyn->setupcalled && dyn->scheck == BTE_STATE_CHECK_AUTO ? " (auto)" : "", where[use]));
  }
  if (dyn->ref.file[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "reference: %s (errors of every snapshot; linear interpolation in time)\n", dyn->ref.file));
  if (dyn->cost.summary[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "summary: %s (JSON)\n", dyn->cost.summary));
  if (dyn->tswitch >= 0 && dyn->tssw) {
    TS first = dyn->switched ? dyn->tssw : dyn->ts, second = dyn->switched ? dyn->ts : dyn->tssw;
    PetscCall(PetscViewerASCIIPrintf(viewer, "method switch at %g fs (-bte_switch_time): the first method to it, then the second (options prefix sw_)\n", (double)dyn->tswitch));
    PetscCall(TSView(first, viewer));
    PetscCall(PetscViewerASCIIPrintf(viewer, "second method, from %g fs:\n", (double)dyn->tswitch));
    PetscCall(TSView(second, viewer));
  } else if (dyn->ts) PetscCall(TSView(dyn->ts, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}
