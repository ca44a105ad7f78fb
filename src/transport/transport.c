/* BTETransport: low-field transport (docs/theory.md section 4). For every temperature
   the collision operator's rates are set at that temperature (its phonon occupations N_c depend on
   T: one operator whose rates are refreshed, -bte_collision_refresh, or a fresh one), then
   for every carrier density / chemical potential the three systems A F_b = v_b
   (linear.c) are solved by KSP, RTA or ITA and eq. 6 gives the tensors. */
#include <math.h>
#include "transportimpl.h"
#include <bte/private/diagnostics.h>

/* the largest residual ||v - A F||/||v|| an ITA solve may end at and count as converged */
#define BTE_ITA_RESIDUAL_MAX 1e-2

PetscClassId  BTETRANSPORT_CLASSID, BTEHIGHFIELD_CLASSID;
PetscLogEvent BTE_TransportSolve, BTE_TransportIO, BTE_HighFieldSolve;
static PetscBool BTETransportPackageInitialized = PETSC_FALSE;

const char *const BTETransportMethods[] = {"ksp", "rta", "ita", "BTETransportMethod", "BTE_TRANSPORT_", NULL};

static PetscErrorCode BTETransportFinalizePackage(void)
{
  PetscFunctionBegin;
  BTETransportPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETransportInitializePackage(void)
{
  PetscFunctionBegin;
  if (BTETransportPackageInitialized) PetscFunctionReturn(0);
  BTETransportPackageInitialized = PETSC_TRUE;
  PetscCall(BTEInitializePackage());
  PetscCall(PetscClassIdRegister("BTETransport", &BTETRANSPORT_CLASSID));
  PetscCall(PetscClassIdRegister("BTEHighField", &BTEHIGHFIELD_CLASSID));
  PetscCall(PetscLogEventRegister("BTETransportSolve", BTETRANSPORT_CLASSID, &BTE_TransportSolve));
  PetscCall(PetscLogEventRegister("BTETransportIO", BTETRANSPORT_CLASSID, &BTE_TransportIO));
  PetscCall(PetscLogEventRegister("BTETwoLevelSetUp", BTETRANSPORT_CLASSID, &BTE_TwoLevelSetUp));
  PetscCall(PetscLogEventRegister("BTEHighFieldSolve", BTEHIGHFIELD_CLASSID, &BTE_HighFieldSolve));
  PetscCall(PetscRegisterFinalize(BTETransportFinalizePackage));
  PetscFunctionReturn(0);
}

/*@
   BTETransportCreate - Creates a low-field transport solver (docs/theory.md eq. 5-6, docs/transport.md)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  tr - the new transport object

   Level: beginner

.seealso: `BTETransportSolve()`, `BTETransportDestroy()`
@*/
PetscErrorCode BTETransportCreate(BTE bte, BTETransport *tr)
{
  BTETransport t;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(tr, 2);
  PetscCall(BTETransportInitializePackage());
  PetscCall(PetscHeaderCreate(t, BTETRANSPORT_CLASSID, "BTETransport", "Low-field transport", "BTE", PetscObjectComm((PetscObject)bte), BTETransportDestroy, BTETransportView));
  PetscCall(PetscObjectReference((PetscObject)bte));
  t->bte        = bte;
  bte->runmem   = PETSC_TRUE; /* the memory checks at setup count the run */
  t->method     = BTE_TRANSPORT_KSP;
  t->ita_tol    = 2e-3;
  t->ita_max_it = 1000;
  t->residual_max = 1e-3;
  t->symmetric  = -1;
  t->pctype     = BTE_TRANSPORT_PC_JACOBI;
  PetscCall(BTETwoLevelCreate(&t->tl));
  PetscCall(PetscObjectChangeTypeName((PetscObject)t, BTETransportMethods[t->method]));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)bte), &t->ksp));
  PetscCall(PetscObjectIncrementTabLevel((PetscObject)t->ksp, (PetscObject)t, 1));
  PetscCall(KSPSetOptionsPrefix(t->ksp, "bte_transport_"));
  PetscCall(KSPSetType(t->ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(t->ksp, 1e-8, 1e-50, PETSC_DEFAULT, 2000));
  {
    PC pc;
    PetscCall(KSPGetPC(t->ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  *tr = t;
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetOptionsPrefix - Sets the prefix of the transport solver's options and of its KSP's

   Logically Collective

   Input Parameters:
+  tr     - the transport solver
-  prefix - the prefix (no leading -), e.g. "a_": then -a_bte_transport_method, -a_bte_transport_ksp_type

   Notes:
   Two solvers in one program take their options apart this way. Call it before
   BTETransportSetFromOptions().

   Level: intermediate

.seealso: `BTETransportSetFromOptions()`
@*/
PetscErrorCode BTETransportSetOptionsPrefix(BTETransport tr, const char prefix[])
{
  char kp[256];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)tr, prefix));
  PetscCall(PetscSNPrintf(kp, sizeof(kp), "%sbte_transport_", prefix ? prefix : ""));
  PetscCall(KSPSetOptionsPrefix(tr->ksp, kp));
  PetscFunctionReturn(0);
}

/*@
   BTETransportDestroy - Destroys a transport solver

   Collective

   Input Parameter:
.  tr - the object (set to NULL)

   Level: beginner

.seealso: `BTETransportCreate()`
@*/
PetscErrorCode BTETransportDestroy(BTETransport *tr)
{
  PetscFunctionBegin;
  if (!tr || !*tr) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(*tr, BTETRANSPORT_CLASSID, 1);
  if (--((PetscObject)(*tr))->refct > 0) {
    *tr = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(KSPDestroy(&(*tr)->ksp));
  PetscCall(BTECollisionDestroy(&(*tr)->col));
  PetscCall(BTETwoLevelDestroy(&(*tr)->tl));
  PetscCall(BTEDestroy(&(*tr)->bte));
  PetscCall(PetscFree((*tr)->T));
  PetscCall(PetscFree((*tr)->conc));
  PetscCall(PetscFree((*tr)->res));
  for (PetscInt b = 0; b < 3; b++) PetscCall(VecDestroy(&(*tr)->F[b]));
  if ((*tr)->rate) PetscCall(VecDestroyVecs((*tr)->nres, &(*tr)->rate));
  PetscCall(PetscHeaderDestroy(tr));
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetMethod - Sets the method

   Logically Collective

   Input Parameters:
+  tr - the transport object
-  m  - BTE_TRANSPORT_KSP (default), BTE_TRANSPORT_RTA or BTE_TRANSPORT_ITA

   Options Database Key:
.  -bte_transport_method <ksp,rta,ita> - the method

   Level: beginner

.seealso: `BTETransportGetMethod()`
@*/
PetscErrorCode BTETransportSetMethod(BTETransport tr, BTETransportMethod m)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(m >= BTE_TRANSPORT_KSP && m <= BTE_TRANSPORT_ITA, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Unknown transport method %d", (int)m);
  tr->method = m;
  PetscCall(PetscObjectChangeTypeName((PetscObject)tr, BTETransportMethods[m]));
  PetscFunctionReturn(0);
}

/*@
   BTETransportGetMethod - Gets the method

   Not Collective

   Input Parameter:
.  tr - the transport object

   Output Parameter:
.  m - the method

   Level: beginner

.seealso: `BTETransportSetMethod()`
@*/
PetscErrorCode BTETransportGetMethod(BTETransport tr, BTETransportMethod *m)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  *m = tr->method;
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetPCType - Sets the preconditioner of the ksp method

   Logically Collective

   Input Parameters:
+  tr - the transport object
-  t  - BTE_TRANSPORT_PC_JACOBI (default) or BTE_TRANSPORT_PC_TWOLEVEL

   Options Database Key:
.  -bte_transport_pc <jacobi,twolevel> - the preconditioner

   Level: advanced

.seealso: `BTETransportGetPCType()`
@*/
PetscErrorCode BTETransportSetPCType(BTETransport tr, BTETransportPCType t)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(t >= BTE_TRANSPORT_PC_JACOBI && t <= BTE_TRANSPORT_PC_TWOLEVEL, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Unknown transport preconditioner %d", (int)t);
  tr->pctype = t;
  PetscFunctionReturn(0);
}

/*@
   BTETransportGetPCType - Gets the preconditioner of the ksp method

   Not Collective

   Input Parameter:
.  tr - the transport object

   Output Parameter:
.  t - the preconditioner

   Level: advanced

.seealso: `BTETransportSetPCType()`
@*/
PetscErrorCode BTETransportGetPCType(BTETransport tr, BTETransportPCType *t)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  *t = tr->pctype;
  PetscFunctionReturn(0);
}

/* The KSP's PC for the chosen preconditioner: the two-level shell, or back to the KSP's own
   (PCJACOBI unless the options said otherwise) if it was the shell. */
static PetscErrorCode BTETransportSetUpPC(BTETransport tr)
{
  PC        pc;
  PetscBool shell;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(tr->ksp, &pc));
  if (tr->pctype == BTE_TRANSPORT_PC_TWOLEVEL) PetscCall(BTETwoLevelSetPC(tr->tl, pc));
  else {
    PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCSHELL, &shell));
    if (shell) {
      const char *name = NULL;
      PetscBool   ours = PETSC_FALSE;
      PetscCall(PCShellGetName(pc, &name));
      if (name) PetscCall(PetscStrcmp(name, "bte two-level", &ours));
      if (ours) PetscCall(PCSetType(pc, PCJACOBI));
    }
  }
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetTemperatures - Sets the temperatures to solve at

   Logically Collective

   Input Parameters:
+  tr - the transport object
.  n  - their number
-  T  - temperatures, K

   Options Database Key:
.  -bte_temperatures <T1,T2,...> - the temperatures

   Notes:
   Default: the BTE's temperature. Each solve's temperature belongs to the solve; the BTE's is not
   changed.

   Level: beginner

.seealso: `BTETransportSetCarrierDensities()`
@*/
PetscErrorCode BTETransportSetTemperatures(BTETransport tr, PetscInt n, const PetscReal T[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Number of temperatures must be >= 0");
  if (n) PetscAssertPointer(T, 3);
  for (PetscInt k = 0; k < n; k++) PetscCheck(T[k] > 0 && !PetscIsInfOrNanReal(T[k]), PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Temperatures must be positive (K), got %g", (double)T[k]);
  for (PetscInt k = 0; k < n; k++) PetscCall(BTECheckRange(PetscObjectComm((PetscObject)tr), "temperature (-bte_temperatures)", T[k], BTE_TEMPERATURE_MIN, BTE_TEMPERATURE_MAX, "K", NULL));
  for (PetscInt k = 0; k < n; k++) /* a repeat would be solved again, a duplicate row in the output */
    for (PetscInt l = 0; l < k; l++) PetscCheck(T[l] != T[k], PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_WRONG, "The temperature %g K is listed twice (-bte_temperatures, entries %" PetscInt_FMT " and %" PetscInt_FMT "); leave out the repeat", (double)T[k], l + 1, k + 1);
  PetscCall(PetscFree(tr->T));
  tr->nT = n;
  if (n) {
    PetscCall(PetscMalloc1(n, &tr->T));
    PetscCall(PetscArraycpy(tr->T, T, n));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BTETransportSetConc(BTETransport tr, PetscInt n, const PetscReal c[], PetscBool mu)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Number of values must be >= 0");
  if (n) PetscAssertPointer(c, 3);
  for (PetscInt k = 0; k < n; k++) {
    PetscCheck(!PetscIsInfOrNanReal(c[k]), PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Not a number in the %s list", mu ? "chemical potential" : "carrier density");
    PetscCheck(mu || c[k] > 0, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Carrier densities must be positive (cm^-3, cm^-2 in 2D), got %g", (double)c[k]);
    if (mu) PetscCall(BTECheckRange(PetscObjectComm((PetscObject)tr), "chemical potential (-bte_chemical_potentials)", c[k], -BTE_ENERGY_ABS_MAX, BTE_ENERGY_ABS_MAX, "eV", NULL));
    for (PetscInt l = 0; l < k; l++) PetscCheck(c[l] != c[k], PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_WRONG, "The %s %g is listed twice (%s, entries %" PetscInt_FMT " and %" PetscInt_FMT "); leave out the repeat", mu ? "chemical potential" : "carrier density", (double)c[k], mu ? "-bte_chemical_potentials" : "-bte_carrier_densities", l + 1, k + 1);
  }
  PetscCall(PetscFree(tr->conc));
  tr->nc     = n;
  tr->use_mu = mu;
  if (n) {
    PetscCall(PetscMalloc1(n, &tr->conc));
    PetscCall(PetscArraycpy(tr->conc, c, n));
  }
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetCarrierDensities - Sets the carrier densities to solve at

   Logically Collective

   Input Parameters:
+  tr - the transport object
.  n  - their number
-  c  - densities, cm^-3 (cm^-2 in 2D)

   Options Database Key:
.  -bte_carrier_densities <n1,...> - the densities

   Notes:
   Densities and chemical potentials exclude each other: the last call wins. Default: 1e17 cm^-3
   (1e12 cm^-2 in 2D).

   Level: beginner

.seealso: `BTETransportSetChemicalPotentials()`
@*/
PetscErrorCode BTETransportSetCarrierDensities(BTETransport tr, PetscInt n, const PetscReal c[])
{
  PetscFunctionBegin;
  PetscCall(BTETransportSetConc(tr, n, c, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetChemicalPotentials - Sets the chemical potentials to solve at

   Logically Collective

   Input Parameters:
+  tr - the transport object
.  n  - their number
-  c  - chemical potentials, eV

   Options Database Key:
.  -bte_chemical_potentials <mu1,...> - the chemical potentials

   Notes:
   Densities and chemical potentials exclude each other: the last call wins.

   Level: beginner

.seealso: `BTETransportSetCarrierDensities()`
@*/
PetscErrorCode BTETransportSetChemicalPotentials(BTETransport tr, PetscInt n, const PetscReal c[])
{
  PetscFunctionBegin;
  PetscCall(BTETransportSetConc(tr, n, c, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetITATolerance - Sets the stopping rule of Perturbo's iterative approach (ITA)

   Logically Collective

   Input Parameters:
+  tr    - the transport object
.  tol   - relative change of the conductivity (default 2e-3)
-  maxit - most iterations

   Options Database Keys:
+  -bte_ita_tol <tol>  - the tolerance
-  -bte_ita_max_it <n> - the cap

   Level: intermediate

.seealso: `BTETransportSetMethod()`
@*/
PetscErrorCode BTETransportSetITATolerance(BTETransport tr, PetscReal tol, PetscInt maxit)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  if (tol != (PetscReal)PETSC_DEFAULT) {
    PetscCheck(tol > 0 && tol < 1, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "The ITA tolerance (-bte_ita_tol) must be in (0,1), got %g", (double)tol);
    tr->ita_tol = tol;
  }
  if (maxit != PETSC_DEFAULT) {
    PetscCheck(maxit >= 1, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "The ITA iteration cap (-bte_ita_max_it) must be >= 1, got %" PetscInt_FMT, maxit);
    tr->ita_max_it = maxit;
  }
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetMaxResidual - Sets the largest residual the ksp method accepts as a solution

   Logically Collective

   Input Parameters:
+  tr  - the transport object
-  max - relative residual ||v - A F||/||v|| of the solve, before the carrier-number projection
         (default 1e-3), in (0, 1)

   Options Database Key:
.  -bte_transport_residual_max <max> - the limit

   Notes:
   A KSP can report convergence without solving: a relative tolerance of 1, an absolute tolerance
   above ||v||, -bte_transport_ksp_type preonly, or a skipped convergence test leave F = 0 or the
   relaxation-time answer. A direction whose residual is above the limit is NOT CONVERGED, whatever
   the KSP says. The limit is far above what the default tolerance (1e-8) reaches.

   Level: intermediate

.seealso: `BTETransportGetKSP()`
@*/
PetscErrorCode BTETransportSetMaxResidual(BTETransport tr, PetscReal max)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(max > 0 && max < 1, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "-bte_transport_residual_max must be in (0, 1), got %g", (double)max);
  tr->residual_max = max;
  PetscFunctionReturn(0);
}

/*@
   BTETransportGetKSP - Gets the KSP of the ksp method

   Not Collective

   Input Parameter:
.  tr - the transport object

   Output Parameter:
.  ksp - the KSP (prefix bte_transport_; not a new reference)

   Level: intermediate

.seealso: `BTETransportSetMethod()`
@*/
PetscErrorCode BTETransportGetKSP(BTETransport tr, KSP *ksp)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscAssertPointer(ksp, 2);
  *ksp = tr->ksp;
  PetscFunctionReturn(0);
}

/* Krylov methods that need a symmetric operator: they get S = -J D. */
static PetscErrorCode BTETransportKSPIsSymmetric(KSP ksp, PetscBool *sym)
{
  static const char *symtypes[] = {KSPCG, KSPCR, KSPMINRES, KSPSYMMLQ, KSPPIPECG, KSPPIPECR, KSPGROPPCG, KSPPIPECGRR, KSPFCG, KSPPIPEFCG, KSPNASH, KSPSTCG, KSPGLTR, KSPQCG, KSPCHEBYSHEV};
  PetscFunctionBegin;
  *sym = PETSC_FALSE;
  for (size_t k = 0; k < sizeof(symtypes) / sizeof(symtypes[0]); k++) {
    PetscBool same;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, symtypes[k], &same));
    if (same) *sym = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* Krylov methods that take the right preconditioning of BTETransportSetFromOptions() */
static PetscErrorCode BTETransportKSPTypeIsRight(const char type[], PetscBool *right)
{
  static const char *righttypes[] = {KSPGMRES, KSPFGMRES, KSPBCGS, KSPLGMRES, KSPDGMRES, KSPPGMRES};
  PetscFunctionBegin;
  *right = PETSC_FALSE;
  for (size_t k = 0; k < sizeof(righttypes) / sizeof(righttypes[0]); k++) {
    PetscBool same;
    PetscCall(PetscStrcmp(type, righttypes[k], &same));
    if (same) *right = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* A list option's array before PetscOptionsRealArray: the current values (ncur of cur; none: NaN,
   which -help shows as "nan") and the count to read. -help prints as many values as the count, so
   under -help it is the current count (the command ends after the help); otherwise max, one more
   than a list takes, so that one value too many is an error and not dropped. */
PetscInt BTEListDefault(PetscBool help, PetscInt ncur, const PetscReal cur[], PetscInt max, PetscReal vals[])
{
  for (PetscInt i = 0; i < max; i++) vals[i] = i < ncur && cur ? cur[i] : (i ? 0.0 : (PetscReal)NAN);
  return help ? PetscMax(ncur, 1) : max;
}

/* Options of another method than the run's: read always, so
   that -help lists them, but they would change nothing, so such a run is refused rather than
   silently the same (-bte_transport_method rta -bte_transport_ksp_rtol 1e-3 ran the RTA) */
static PetscErrorCode BTETransportCheckMethodOptions(BTETransport tr)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)tr);
  PetscOptions options = ((PetscObject)tr)->options;
  const char *prefix;
  PetscBool   flg;
  char        pre[256], *all, *tok, *save = NULL;
  static const char *const ita[] = {"-bte_ita_tol", "-bte_ita_max_it"};
  static const char *const ksp[] = {"-bte_transport_residual_max", "-bte_transport_symmetric", "-bte_transport_pc"};

  PetscFunctionBegin;
  if (tr->method != BTE_TRANSPORT_ITA)
    for (size_t k = 0; k < sizeof(ita) / sizeof(ita[0]); k++) {
      PetscCall(PetscOptionsHasName(options, ((PetscObject)tr)->prefix, ita[k], &flg));
      PetscCheck(!flg, comm, PETSC_ERR_USER_INPUT, "%s is an option of the ita method, which this run does not use (-bte_transport_method %s): leave it out", ita[k], BTETransportMethods[tr->method]);
    }
  if (tr->method == BTE_TRANSPORT_KSP) PetscFunctionReturn(0);
  for (size_t k = 0; k < sizeof(ksp) / sizeof(ksp[0]); k++) {
    PetscCall(PetscOptionsHasName(options, ((PetscObject)tr)->prefix, ksp[k], &flg));
    PetscCheck(!flg, comm, PETSC_ERR_USER_INPUT, "%s is an option of the ksp method, which this run does not use (-bte_transport_method %s): leave it out", ksp[k], BTETransportMethods[tr->method]);
  }
  /* the solver's own options (-bte_transport_ksp_rtol, -bte_transport_pc_type, ...) */
  PetscCall(KSPGetOptionsPrefix(tr->ksp, &prefix));
  PetscCall(PetscSNPrintf(pre, sizeof(pre), "-%s", prefix ? prefix : ""));
  PetscCall(PetscOptionsGetAll(options, &all));
  for (tok = strtok_r(all, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
    size_t n = strlen(pre);
    if (strncmp(tok, pre, n) || (strncmp(tok + n, "ksp_", 4) && strncmp(tok + n, "pc_", 3))) continue;
    {
      char name[256];
      PetscCall(PetscStrncpy(name, tok, sizeof(name)));
      PetscCall(PetscFree(all));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s is an option of the ksp method's solver, which this run does not use (-bte_transport_method %s): leave it out", name, BTETransportMethods[tr->method]);
    }
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetFromOptions - Reads the transport solver's options, its KSP's included (prefix bte_transport_)

   Collective

   Input Parameter:
.  tr - the transport object

   Options Database Keys:
+  -bte_transport_method <ksp,rta,ita>              - linear-response solver: ksp (Krylov on A = Gamma - P), rta or ita (Perturbo's iteration)
.  -bte_temperatures <T1,T2,...>                    - temperatures, K (default: -bte_temperature)
.  -bte_carrier_densities <n1,n2,...>               - carrier densities, cm^-3 (cm^-2 in 2D) (default 1e17, 1e12 in 2D)
.  -bte_chemical_potentials <mu1,mu2,...>           - chemical potentials, eV (instead of densities)
.  -bte_ita_tol <tol>                               - ita: stop when the conductivity changes by less than this, relative (default 2e-3)
.  -bte_ita_max_it <n>                              - ita: iteration cap (default 1000)
.  -bte_transport_residual_max <r>                  - ksp: a solve with ||v - A F||/||v|| above this is NOT CONVERGED, whatever the KSP's tolerances (default 1e-3)
.  -bte_transport_symmetric <bool>                  - ksp: solve the symmetric form S F = D v (default: on with symmetric Krylov methods such as cg)
.  -bte_transport_pc <jacobi,twolevel>              - ksp: preconditioner (default jacobi: the KSP's own PC, the Gamma diagonal or -bte_transport_pc_type)
.  -bte_transport_pc_bins <n>                       - twolevel: energy bins per valley (or band) in the coarse space (default 40)
.  -bte_transport_pc_angular <0,1,2>                - twolevel: angular functions per direction (default 2)
.  -bte_transport_pc_split <none,band,valley>       - twolevel: energy bins for all states together, per band or per valley (default valley)
.  -bte_transport_pc_form <multiplicative,additive> - twolevel: how the coarse correction and the Gamma diagonal combine (default multiplicative)
-  -bte_transport_monitor <bool>                    - print each configuration as it is solved

   Level: beginner

.seealso: `BTETransportCreate()`, `BTETransportGetKSP()`
@*/
PetscErrorCode BTETransportSetFromOptions(BTETransport tr)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)tr);
  PetscReal vals[257]; /* one more than a list takes: a 257th value is an error, not dropped */
  PetscInt  n;
  PetscBool flg, flgd, flgm, sym = PETSC_FALSE;
  PetscReal tol   = tr->ita_tol;
  PetscInt  maxit = tr->ita_max_it;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscObjectOptionsBegin((PetscObject)tr);
  {
    BTETransportMethod m = tr->method;
    PetscCall(PetscOptionsEnum("-bte_transport_method", "Linear-response solver: ksp (Krylov on A = Gamma - P), rta, ita (Perturbo's iteration)", "BTETransportSetMethod", BTETransportMethods, (PetscEnum)m, (PetscEnum *)&m, NULL));
    PetscCall(BTETransportSetMethod(tr, m));
  }
  PetscCall(BTECheckListOption((PetscObject)tr, "-bte_temperatures", "100,200,300"));
  PetscCall(BTECheckListOption((PetscObject)tr, "-bte_carrier_densities", "1e16,1e17"));
  PetscCall(BTECheckListOption((PetscObject)tr, "-bte_chemical_potentials", "-0.1,-0.05"));
  /* -help prints the n values passed in: the current ones (NaN: none), and under -help only those
     are read (the run ends after the help); otherwise one more than a list takes */
  n = BTEListDefault(PetscOptionsObject->printhelp, tr->T ? tr->nT : 1, tr->T ? tr->T : &tr->bte->temperature, 257, vals);
  PetscCall(PetscOptionsRealArray("-bte_temperatures", "Temperatures, K (comma-separated; default: -bte_temperature)", "BTETransportSetTemperatures", vals, &n, &flg));
  if (flg) {
    PetscBool one, in = PETSC_FALSE;
    PetscReal T1 = 0;
    /* -bte_temperature is the table's temperature, which the setup summary and its diagnostics use:
       outside the list it described another temperature than the results' (77 K above 300 K rows) */
    PetscCall(PetscOptionsGetReal(((PetscObject)tr->bte)->options, ((PetscObject)tr->bte)->prefix, "-bte_temperature", &T1, &one));
    for (PetscInt k = 0; k < PetscMin(n, 256); k++) in = (PetscBool)(in || vals[k] == T1);
    PetscCheck(!one || in, comm, PETSC_ERR_USER_INPUT, "-bte_temperature %g K (the temperature of the setup summary and its diagnostics) is not one of -bte_temperatures: give one of the list's, or leave it out", (double)T1);
    PetscCheck(n <= 256, comm, PETSC_ERR_USER_INPUT, "-bte_temperatures takes at most 256 values, got more");
    PetscCheck(n > 0, comm, PETSC_ERR_USER_INPUT, "-bte_temperatures needs a comma-separated list of temperatures in K, e.g. -bte_temperatures 100,200,300");
    PetscCall(BTETransportSetTemperatures(tr, n, vals));
  }
  {
    PetscReal d = 1e17;
    n = BTEListDefault(PetscOptionsObject->printhelp, tr->conc && !tr->use_mu ? tr->nc : 1, tr->conc && !tr->use_mu ? tr->conc : &d, 257, vals);
  }
  PetscCall(PetscOptionsRealArray("-bte_carrier_densities", "Carrier densities, cm^-3 (cm^-2 in 2D) (default 1e17, 1e12 in 2D)", "BTETransportSetCarrierDensities", vals, &n, &flgd));
  if (flgd) {
    PetscCheck(n <= 256, comm, PETSC_ERR_USER_INPUT, "-bte_carrier_densities takes at most 256 values, got more");
    PetscCheck(n > 0, comm, PETSC_ERR_USER_INPUT, "-bte_carrier_densities needs a comma-separated list, e.g. -bte_carrier_densities 1e16,1e17");
    PetscCall(BTETransportSetCarrierDensities(tr, n, vals));
  }
  n = BTEListDefault(PetscOptionsObject->printhelp, tr->conc && tr->use_mu ? tr->nc : 0, tr->conc, 257, vals);
  PetscCall(PetscOptionsRealArray("-bte_chemical_potentials", "Chemical potentials, eV (instead of densities)", "BTETransportSetChemicalPotentials", vals, &n, &flgm));
  if (flgm) {
    PetscCheck(!flgd, comm, PETSC_ERR_USER_INPUT, "Give either -bte_carrier_densities or -bte_chemical_potentials, not both");
    PetscCheck(n <= 256, comm, PETSC_ERR_USER_INPUT, "-bte_chemical_potentials takes at most 256 values, got more");
    PetscCheck(n > 0, comm, PETSC_ERR_USER_INPUT, "-bte_chemical_potentials needs a comma-separated list in eV, e.g. -bte_chemical_potentials -0.1,-0.05");
    PetscCall(BTETransportSetChemicalPotentials(tr, n, vals));
  }
  PetscCall(PetscOptionsReal("-bte_ita_tol", "ITA: stop when the conductivity changes by less than this (relative)", "BTETransportSetITATolerance", tol, &tol, NULL));
  PetscCall(PetscOptionsInt("-bte_ita_max_it", "ITA: iteration cap", "BTETransportSetITATolerance", maxit, &maxit, NULL));
  PetscCall(BTETransportSetITATolerance(tr, tol, maxit));
  {
    PetscReal rmax = tr->residual_max;
    PetscCall(PetscOptionsReal("-bte_transport_residual_max", "ksp: a solve whose residual ||v - A F||/||v|| (before the carrier-number projection) is above this is NOT CONVERGED, whatever the KSP's tolerances", "BTETransportSetMaxResidual", rmax, &rmax, &flg));
    if (flg) PetscCall(BTETransportSetMaxResidual(tr, rmax));
  }
  PetscCall(PetscOptionsBool("-bte_transport_symmetric", "Solve the symmetric form S F = D v, S = -J D (default, when not given: on with symmetric Krylov methods such as cg, off otherwise)", "BTETransportSolve", sym, &sym, &flg));
  if (flg) tr->symmetric = sym ? 1 : 0;
  PetscCall(PetscOptionsBool("-bte_transport_monitor", "Print each configuration as it is solved", "BTETransportSolve", tr->verbose, &tr->verbose, NULL));
  {
    BTETransportPCType t = tr->pctype;
    PetscInt           nbins, ang;
    BTETwoLevelSplit   split;
    BTETwoLevelForm    form;
    PetscBool          flgpc, flgtype;
    char               opt[256];
    const char        *prefix;

    PetscCall(PetscOptionsEnum("-bte_transport_pc", "Preconditioner of the ksp method: twolevel (Gamma diagonal + coarse space of velocity x cubic harmonics x energy bins per valley; its setup is one pass over the channels, counted as one apply) or jacobi (the KSP's own PC: the Gamma diagonal, or -bte_transport_pc_type)", "BTETransportSetPCType", BTETransportPCTypes, (PetscEnum)t, (PetscEnum *)&t, &flgpc));
    PetscCall(KSPGetOptionsPrefix(tr->ksp, &prefix));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_type", prefix ? prefix : ""));
    PetscCall(PetscOptionsHasName(((PetscObject)tr)->options, NULL, opt, &flgtype));
    PetscCheck(!(flgpc && flgtype && t == BTE_TRANSPORT_PC_TWOLEVEL), comm, PETSC_ERR_USER_INPUT, "Give either -bte_transport_pc twolevel or %s, not both", opt);
    /* an explicit KSP PC type means the KSP's own preconditioner */
    if (flgtype && !flgpc) t = BTE_TRANSPORT_PC_JACOBI;
    PetscCall(BTETransportSetPCType(tr, t));
    PetscCall(BTETwoLevelGetParameters(tr->tl, &nbins, &ang, &split, &form));
    {
      /* read always, so that -help lists them; given without the two-level preconditioner they
         would change nothing, so such a run is refused rather than silently the same */
      PetscBool set[4];
      PetscCall(PetscOptionsInt("-bte_transport_pc_bins", "twolevel: energy bins per valley (or band) in the coarse space", "BTETransportSetPCType", nbins, &nbins, &set[0]));
      PetscCheck(nbins >= 1 && nbins <= 10000, comm, PETSC_ERR_USER_INPUT, "-bte_transport_pc_bins must be in [1, 10000], got %" PetscInt_FMT, nbins);
      PetscCall(PetscOptionsInt("-bte_transport_pc_angular", "twolevel: angular functions per direction: 0 (v_d), 1 (+ v_d u_d^2), 2 (+ v_d u_d^4, v_d u_e^2 u_f^2)", "BTETransportSetPCType", ang, &ang, &set[1]));
      PetscCheck(ang >= 0 && ang <= 2, comm, PETSC_ERR_USER_INPUT, "-bte_transport_pc_angular must be 0, 1 or 2, got %" PetscInt_FMT, ang);
      PetscCall(PetscOptionsEnum("-bte_transport_pc_split", "twolevel: energy bins per valley (basin of a band minimum), per band, or for all states together", "BTETransportSetPCType", BTETwoLevelSplits, (PetscEnum)split, (PetscEnum *)&split, &set[2]));
      PetscCall(PetscOptionsEnum("-bte_transport_pc_form", "twolevel: multiplicative (coarse correction, then the Gamma diagonal on the new residual) or additive", "BTETransportSetPCType", BTETwoLevelForms, (PetscEnum)form, (PetscEnum *)&form, &set[3]));
      for (PetscInt k = 0; k < 4; k++) {
        static const char *names[] = {"-bte_transport_pc_bins", "-bte_transport_pc_angular", "-bte_transport_pc_split", "-bte_transport_pc_form"};
        PetscCheck(!set[k] || (tr->pctype == BTE_TRANSPORT_PC_TWOLEVEL && tr->method == BTE_TRANSPORT_KSP), comm, PETSC_ERR_USER_INPUT, "%s is an option of the two-level preconditioner, which this run does not use: add -bte_transport_pc twolevel (with the ksp method) or leave it out", names[k]);
      }
    }
    PetscCall(BTETwoLevelSetParameters(tr->tl, nbins, ang, split, form));
  }
  PetscOptionsEnd();
  PetscCall(BTETransportCheckMethodOptions(tr));

  {
    /* Right preconditioning with the true residual norm where the method allows it, so
       the KSP tolerance is on ||v - A F|| / ||v||; CG-like methods precondition on the left.
       Neither is done when -bte_transport_ksp_pc_side or _ksp_norm_type is given. The right side
       is set before KSPSetFromOptions, for the Krylov method the options will choose, so that
       -help lists the side and norm that are used; then again after it, as the method is final. */
    PetscBool   side, norm, issym, right;
    const char *prefix;
    KSPType     kt;
    char        opt[256], type[256];
    PetscCall(KSPGetOptionsPrefix(tr->ksp, &prefix));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sksp_pc_side", prefix ? prefix : ""));
    PetscCall(PetscOptionsHasName(((PetscObject)tr)->options, NULL, opt, &side));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sksp_norm_type", prefix ? prefix : ""));
    PetscCall(PetscOptionsHasName(((PetscObject)tr)->options, NULL, opt, &norm));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sksp_type", prefix ? prefix : ""));
    PetscCall(PetscOptionsGetString(((PetscObject)tr)->options, NULL, opt, type, sizeof(type), &right));
    if (!right) {
      PetscCall(KSPGetType(tr->ksp, &kt));
      PetscCall(PetscStrncpy(type, kt ? kt : "", sizeof(type)));
    }
    PetscCall(BTETransportKSPTypeIsRight(type, &right));
    if (!side && !norm && right) {
      PetscCall(KSPSetPCSide(tr->ksp, PC_RIGHT));
      PetscCall(KSPSetNormType(tr->ksp, KSP_NORM_UNPRECONDITIONED));
    } else if (!side && !norm && !strcmp(type, KSPCG)) { /* as set below, so that -help shows it */
      PetscCall(KSPSetType(tr->ksp, KSPCG));
      PetscCall(KSPSetPCSide(tr->ksp, PC_LEFT));
      PetscCall(KSPSetNormType(tr->ksp, KSP_NORM_UNPRECONDITIONED));
    }
    {
      /* read first as well: PETSc from 3.21 refuses a relative tolerance of 1 or more itself, in a
         message that does not name the option */
      PetscReal v;
      PetscBool flg;
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sksp_rtol", prefix ? prefix : ""));
      PetscCall(PetscOptionsGetReal(((PetscObject)tr)->options, NULL, opt, &v, &flg));
      PetscCheck(!flg || (v >= 0 && v < 1), comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_rtol %g: must be in [0, 1) (a relative tolerance of 1 accepts F = 0)", (double)v);
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sksp_atol", prefix ? prefix : ""));
      PetscCall(PetscOptionsGetReal(((PetscObject)tr)->options, NULL, opt, &v, &flg));
      PetscCheck(!flg || v >= 0, comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_atol %g: must be >= 0", (double)v);
    }
    PetscCall(KSPSetFromOptions(tr->ksp));
    {
      /* tolerances that accept any F: refused here, before the work (a negative one never converges) */
      PetscReal rtol, atol, dtol;
      PetscInt  maxit;
      PetscCall(KSPGetTolerances(tr->ksp, &rtol, &atol, &dtol, &maxit));
      PetscCheck(rtol >= 0 && rtol < 1, comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_rtol %g: must be in [0, 1) (a relative tolerance of 1 accepts F = 0)", (double)rtol);
      PetscCheck(atol >= 0, comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_atol %g: must be >= 0", (double)atol);
      PetscCheck(maxit >= 1, comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_max_it %" PetscInt_FMT ": must be >= 1", maxit);
      PetscCheck(dtol > 1 || dtol == (PetscReal)PETSC_DEFAULT, comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_divtol %g: must be above 1 (the residual's growth that counts as divergence)", (double)dtol);
    }
    {
      /* PETSc's diagonal scaling scales the operator in place and, without its fix, leaves it so:
         the next field directions and bte's residual check then used the scaled operator (yy and
         zz 160x off while x, the right one, was flagged) */
      PetscBool scale, fix;
      PetscCall(KSPGetDiagonalScale(tr->ksp, &scale));
      PetscCall(KSPGetDiagonalScaleFix(tr->ksp, &fix));
      PetscCheck(!scale || fix, comm, PETSC_ERR_USER_INPUT, "-bte_transport_ksp_diagonal_scale needs -bte_transport_ksp_diagonal_scale_fix: without it the KSP leaves the operator scaled after the first field direction, and the other directions would solve with the scaled one");
    }
    PetscCall(BTETransportSetUpPC(tr));
    if (tr->pctype != BTE_TRANSPORT_PC_TWOLEVEL) {
      /* A is a MATSHELL (products and its diagonal): a PC that needs its entries failed in PETSc's
         words ("No method sor for Mat of type shell"), and bte_twolevel, the dynamics' PC, with
         advice for bte dynamics */
      static const char *const usable[] = {PCJACOBI, PCNONE, PCSHELL, PCKSP, PCCOMPOSITE};
      PC                       pc;
      PCType                   pt;
      PetscBool                ok = PETSC_FALSE;
      PetscCall(KSPGetPC(tr->ksp, &pc));
      PetscCall(PCGetType(pc, &pt));
      if (pt) {
        for (size_t q = 0; q < sizeof(usable) / sizeof(usable[0]); q++)
          if (!strcmp(pt, usable[q])) ok = PETSC_TRUE;
        PetscCheck(ok || strcmp(pt, "bte_twolevel"), comm, PETSC_ERR_USER_INPUT, "-bte_transport_pc_type bte_twolevel is bte dynamics' preconditioner; for transport use -bte_transport_pc twolevel");
        PetscCheck(ok, comm, PETSC_ERR_USER_INPUT, "-bte_transport_pc_type %s: the operator A is matrix-free (its products and its diagonal only), which %s cannot use; use jacobi (the default), none, or -bte_transport_pc twolevel", pt, pt);
      }
    }
    PetscCall(KSPGetType(tr->ksp, &kt));
    PetscCall(BTETransportKSPTypeIsRight(kt, &right));
    PetscCall(BTETransportKSPIsSymmetric(tr->ksp, &issym));
    if (!side && !norm) {
      if (right) {
        PetscCall(KSPSetPCSide(tr->ksp, PC_RIGHT));
        PetscCall(KSPSetNormType(tr->ksp, KSP_NORM_UNPRECONDITIONED));
      } else if (issym) {
        PetscBool cg;
        PetscCall(PetscObjectTypeCompare((PetscObject)tr->ksp, KSPCG, &cg));
        PetscCall(KSPSetPCSide(tr->ksp, PC_LEFT));
        if (cg) PetscCall(KSPSetNormType(tr->ksp, KSP_NORM_UNPRECONDITIONED));
      }
    }
  }
  PetscFunctionReturn(0);
}

/* c[a] = sum_i v_ia F_i D_i (local part summed over ranks) */
static PetscErrorCode BTETransportColumn(BTE bte, Vec F, Vec D, PetscReal c[3])
{
  const PetscScalar *f, *d;
  const PetscReal   *vel;
  PetscInt           n;
  PetscReal          s[3] = {0, 0, 0};

  PetscFunctionBegin;
  PetscCall(BTEGetNumStates(bte, &n, NULL));
  PetscCall(BTEGetLocalStates(bte, NULL, &vel, NULL, NULL));
  PetscCall(VecGetArrayRead(F, &f));
  PetscCall(VecGetArrayRead(D, &d));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal w = PetscRealPart(f[i] * d[i]);
    s[0] += vel[3 * i] * w;
    s[1] += vel[3 * i + 1] * w;
    s[2] += vel[3 * i + 2] * w;
  }
  PetscCall(VecRestoreArrayRead(F, &f));
  PetscCall(VecRestoreArrayRead(D, &d));
  PetscCall(MPIU_Allreduce(s, c, 3, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)bte)));
  PetscFunctionReturn(0);
}

/* x <- x - (w.x / w.u) u */
static PetscErrorCode BTEProject(Vec x, Vec w, Vec u)
{
  PetscScalar wx, wu;

  PetscFunctionBegin;
  PetscCall(VecDot(x, w, &wx));
  PetscCall(VecDot(u, w, &wu));
  if (PetscAbsScalar(wu) > 0) PetscCall(VecAXPY(x, -wx / wu, u));
  PetscFunctionReturn(0);
}

/* Solves A F = v_b for one field direction b. */
static PetscErrorCode BTETransportSolveDirection(BTETransport tr, BTELinearCtx *c, Mat A, Mat S, PetscInt b, Vec F, PetscInt *its, PetscReal *res, PetscBool *conv)
{
  BTE                bte = tr->bte;
  Vec                rhs, r;
  PetscReal          bnorm, rnorm;
  KSPConvergedReason reason = KSP_CONVERGED_ITERATING;

  PetscFunctionBegin;
  *its  = 0;
  *res  = 0;
  *conv = PETSC_TRUE;
  PetscCall(VecDuplicate(F, &rhs));
  PetscCall(VecDuplicate(F, &r));
  PetscCall(BTEVelocityVec(bte, b, rhs));
  PetscCall(VecPointwiseMult(rhs, rhs, c->active));
  PetscCall(BTEProject(rhs, c->D, c->D)); /* onto the range of A: D^T v = 0 */
  PetscCall(VecNorm(rhs, NORM_2, &bnorm));
  {
    /* -bte_transport_ksp_initial_guess_nonzero: start from this direction's answer at the previous
       configuration (a temperature or density sweep), which was zeroed here and the option ignored.
       (PETSc's default test is then relative to the starting residual, so it need not save applies.) */
    PetscBool guess = PETSC_FALSE;
    if (tr->method == BTE_TRANSPORT_KSP) PetscCall(KSPGetInitialGuessNonzero(tr->ksp, &guess));
    if (!guess || !tr->Fset[b] || bnorm == 0) PetscCall(VecSet(F, 0));
  }
  if (bnorm == 0) goto done; /* e.g. the z direction of a 2D material */
  switch (tr->method) {
  case BTE_TRANSPORT_RTA:
    PetscCall(VecPointwiseDivide(F, rhs, c->gamma));
    break;
  case BTE_TRANSPORT_ITA: {
    /* F <- (v + P F)/Gamma = F + (v - A F)/Gamma, from F = v/Gamma; stop when the
       column sigma_{:b} changes by less than ita_tol relative (Perturbo's criterion). */
    PetscReal cold[3], cnew[3], rel = 0;
    PetscCall(VecPointwiseDivide(F, rhs, c->gamma));
    PetscCall(BTETransportColumn(bte, F, c->D, cold));
    *conv = PETSC_FALSE;
    for (PetscInt it = 1; it <= tr->ita_max_it; it++) {
      PetscReal dn = 0, nn = 0;
      PetscCall(MatMult(A, F, r));
      PetscCall(VecAYPX(r, -1.0, rhs));
      PetscCall(VecPointwiseDivide(r, r, c->gamma));
      PetscCall(VecAXPY(F, 1.0, r));
      PetscCall(BTETransportColumn(bte, F, c->D, cnew));
      for (PetscInt a = 0; a < 3; a++) {
        dn += PetscSqr(cnew[a] - cold[a]);
        nn += PetscSqr(cnew[a]);
        cold[a] = cnew[a];
      }
      *its = it;
      rel  = nn > 0 ? PetscSqrtReal(dn / nn) : 0;
      if (PetscSqrtReal(dn) <= tr->ita_tol * PetscSqrtReal(nn)) {
        *conv = PETSC_TRUE;
        break;
      }
    }
    if (!*conv) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)tr), "transport: field direction %c: ITA did not meet its rule (change %.2g, tolerance %g) in %" PetscInt_FMT " iterations: raise -bte_ita_max_it, or use the ksp method\n", (char)('x' + b), (double)rel, (double)tr->ita_tol, tr->ita_max_it));
    if (*conv) {
      /* Perturbo's rule looks at one change. Where the Jacobi iteration oscillates, a change can
         pass near zero on its way (a two-band fixture: 0.15, 0.042, 0.022, 0.0011, then 0.008 and
         on, stopping at 955 where the limit, and the ksp method, give 6195): one more iteration,
         not kept, must meet the rule too. */
      PetscReal  dn = 0, nn = 0;
      PetscInt64 save = c->applies; /* a check, not the solver's work: not counted */
      PetscCall(MatMult(A, F, r));
      c->applies = save;
      PetscCall(VecAYPX(r, -1.0, rhs));
      PetscCall(VecPointwiseDivide(r, r, c->gamma));
      PetscCall(VecAYPX(r, 1.0, F)); /* the next iterate */
      PetscCall(BTETransportColumn(bte, r, c->D, cnew));
      for (PetscInt a = 0; a < 3; a++) {
        dn += PetscSqr(cnew[a] - cold[a]);
        nn += PetscSqr(cnew[a]);
      }
      if (!(PetscSqrtReal(dn) <= tr->ita_tol * PetscSqrtReal(nn))) {
        *conv = PETSC_FALSE;
        PetscCall(PetscPrintf(PetscObjectComm((PetscObject)tr), "transport: field direction %c: ITA met its rule at iteration %" PetscInt_FMT " (the conductivity changed by %.2g < %g), but the next iteration changes it by %.2g: the iteration has not settled, not converged; the ksp method solves it\n", (char)('x' + b), *its, (double)rel, (double)tr->ita_tol, (double)(nn > 0 ? PetscSqrtReal(dn / nn) : 0)));
      }
    }
  } break;
  case BTE_TRANSPORT_KSP: {
    PetscBool sym = (S ? PETSC_TRUE : PETSC_FALSE);
    if (sym) {
      Vec Dv;
      PetscCall(VecDuplicate(rhs, &Dv));
      PetscCall(VecPointwiseMult(Dv, c->D, rhs));
      PetscCall(KSPSetOperators(tr->ksp, S, S));
      PetscCall(KSPSolve(tr->ksp, Dv, F));
      PetscCall(VecDestroy(&Dv));
    } else {
      PetscCall(KSPSetOperators(tr->ksp, A, A));
      PetscCall(KSPSolve(tr->ksp, rhs, F));
    }
    PetscCall(KSPGetIterationNumber(tr->ksp, its));
    PetscCall(KSPGetConvergedReason(tr->ksp, &reason));
    *conv = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
    if (!*conv) {
      /* the reason decides what helps: more iterations only for DIVERGED_ITS; a symmetric method
         that meets an indefinite operator or breaks down needs another method or an operator
         with exact detailed balance */
      const char *why = reason == KSP_DIVERGED_ITS ? "raise -bte_transport_ksp_max_it" : (reason == KSP_DIVERGED_INDEFINITE_MAT || reason == KSP_DIVERGED_INDEFINITE_PC || reason == KSP_DIVERGED_BREAKDOWN || reason == KSP_DIVERGED_BREAKDOWN_BICG) ? (sym ? (tr->bte->delta == BTE_DELTA_BALANCED ? "the symmetric form is not positive definite to this method here: use GMRES, the default" : "the symmetric form is only nearly symmetric with Perturbo's delta: use -bte_delta balanced (exactly symmetric) or GMRES, the default") : "use GMRES, the default, or another preconditioner") : "check the -bte_transport_ksp_* options";
      PetscCall(PetscPrintf(PetscObjectComm((PetscObject)tr), "transport: field direction %c: the KSP stopped with %s after %" PetscInt_FMT " iterations: %s\n", (char)('x' + b), KSPConvergedReasons[reason], *its, why));
    }
  } break;
  }
  /* The solve's own residual, before the carrier-number projection. With the ksp method it must be
     below residual_max whatever the KSP's tolerances: a relative tolerance of 1, an absolute one
     above ||v||, preonly or a skipped test report convergence at F = 0 or at the RTA. (The
     projection's shift along 1, a null vector of A only with exact detailed balance, can raise the
     final residual above the KSP's tolerance: that is the operator's, not the solve's.) */
  /* The symmetric form solves S F = D v (S = D A): its KSP's tolerance is on ||D v - S F|| / ||D v||
     = ||D (v - A F)|| / ||D v||, which weights each state as the conductivity does (sigma = sum v D F).
     ||v - A F|| / ||v|| weights the states of small D = f0 (1 - f0) up by 1/D: GaAs 40^3 at 200 K
     with the balanced delta, where S is exactly symmetric, gave 5e-3 there after CG's 1e-8, and
     no tolerance brought it below 1.5e-4. So that form is checked and reported on its own system. */
  PetscBool   dw    = (PetscBool)(tr->method == BTE_TRANSPORT_KSP && S);
  const char *rname = dw ? "||D v - S F||/||D v|| (the symmetric form)" : "||v - A F||/||v||";
  PetscReal   rscale = bnorm;
  if (dw) {
    PetscCall(VecPointwiseMult(r, c->D, rhs));
    PetscCall(VecNorm(r, NORM_2, &rscale));
  }
  if (PetscLogPrintInfo || tr->method == BTE_TRANSPORT_KSP || tr->method == BTE_TRANSPORT_ITA) {
    PetscInt64 save = c->applies;
    PetscReal  r0;
    PetscCall(MatMult(A, F, r));
    c->applies = save;
    PetscCall(VecAYPX(r, -1.0, rhs));
    if (dw) PetscCall(VecPointwiseMult(r, c->D, r));
    PetscCall(VecNorm(r, NORM_2, &r0));
    if (PetscLogPrintInfo) {
      PetscReal   dF, Fn;
      PetscScalar dd, d1;
      PetscCall(VecDot(F, c->D, &dd));
      PetscCall(VecDot(c->active, c->D, &d1));
      PetscCall(VecNorm(F, NORM_2, &Fn));
      dF = PetscAbsScalar(dd / d1);
      PetscCall(PetscInfo(tr, "direction %" PetscInt_FMT ": residual %s before the carrier-number projection %g, shift %g (||F|| %g)\n", b, rname, (double)(r0 / rscale), (double)dF, (double)Fn));
    }
    if (tr->method == BTE_TRANSPORT_KSP && *conv && !(r0 <= tr->residual_max * rscale)) {
      *conv = PETSC_FALSE;
      PetscCall(PetscPrintf(PetscObjectComm((PetscObject)tr), "transport: field direction %c: the KSP reported convergence (%s) at residual %s = %.3g, above -bte_transport_residual_max %g: not a solution (check the -bte_transport_ksp_* tolerances and type)\n", (char)('x' + b), KSPConvergedReasons[reason], rname, (double)(r0 / rscale), (double)tr->residual_max));
    }
    /* ITA stops on the change of the conductivity between iterations (Perturbo's rule), which a
       loose -bte_ita_tol meets far from the solution (0.5: one iteration, a mobility 19% low, its
       residual 0.22); its default ends near 3e-3 */
    if (tr->method == BTE_TRANSPORT_ITA && *conv && !(r0 <= BTE_ITA_RESIDUAL_MAX * rscale)) {
      *conv = PETSC_FALSE;
      PetscCall(PetscPrintf(PetscObjectComm((PetscObject)tr), "transport: field direction %c: ITA met its rule (the conductivity changed by less than -bte_ita_tol %g) at residual %s = %.3g, above %g: not a solution; lower -bte_ita_tol, or use the ksp method\n", (char)('x' + b), (double)tr->ita_tol, rname, (double)(r0 / rscale), (double)BTE_ITA_RESIDUAL_MAX));
    }
  }
  PetscCall(BTEProject(F, c->D, c->active));
  {
    /* true residual of eq. 5 (this apply is not counted in the solver's applies) */
    PetscInt64 save = c->applies;
    PetscCall(MatMult(A, F, r));
    c->applies = save;
    PetscCall(VecAYPX(r, -1.0, rhs));
    if (dw) PetscCall(VecPointwiseMult(r, c->D, r));
    PetscCall(VecNorm(r, NORM_2, &rnorm));
    *res = rnorm / rscale;
    /* The shift is small where the solution's component along the operator's near-null space is
       (DNTT 6^3: 2e-4 after a 5e-9 solve). Where it leaves the residual above 100 residual_max, 1 is
       far from the null vector of this operator, which is far from detailed balance (a two-band
       fixture on 10^3 with Perturbo's delta: 34, and 25007 against 6195 with the balanced delta):
       the table must not show such a line as converged */
    if (tr->method == BTE_TRANSPORT_KSP && *conv && !(*res <= 100 * tr->residual_max)) {
      *conv = PETSC_FALSE;
      PetscCall(PetscPrintf(PetscObjectComm((PetscObject)tr), "transport: field direction %c: the solve met its tolerance, but the carrier-number shift along 1 leaves the residual %s at %.3g, above 100 x -bte_transport_residual_max: this operator is far from detailed balance (1 is far from its null vector; see the summary's equilibrium defect), so its answer is not accepted: use -bte_delta balanced or refine the grid\n", (char)('x' + b), rname, (double)*res));
    }
  }
done:
  PetscCall(VecDestroy(&rhs));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTETransportPrintHeader(BTETransport tr, PetscViewer v)
{
  PetscInt dim;

  PetscFunctionBegin;
  PetscCall(BTEGetGrid(tr->bte, &dim, NULL, NULL, NULL, NULL));
  PetscCall(PetscViewerASCIIPrintf(v, "%8s %11s %11s %11s %11s %11s %11s %6s %8s %9s\n", "T(K)", "mu(eV)", dim == 2 ? "n(cm^-2)" : "n(cm^-3)", "mob_xx", "mob_yy", "mob_zz", dim == 2 ? "sig_xx(S)" : "sig_xx(S/m)", "its", "applies", "residual"));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTETransportPrintResult(BTETransport tr, PetscViewer v, const BTETransportResult *r)
{
  PetscInt  its = 0;
  PetscReal res = 0;

  PetscFunctionBegin;
  for (PetscInt b = 0; b < 3; b++) {
    its = PetscMax(its, r->iterations[b]);
    res = PetscMax(res, r->residual[b]);
  }
  PetscCall(PetscViewerASCIIPrintf(v, "%8.2f %11.6f %11.4e %11.5g %11.5g %11.5g %11.5g %6" PetscInt_FMT " %8" PetscInt64_FMT " %9.2e%s\n", (double)r->temperature, (double)r->chemical_potential, (double)r->carrier_density, (double)r->mobility[0], (double)r->mobility[4], (double)r->mobility[8], (double)r->conductivity[0], its, r->applies, (double)res, r->converged ? "" : "  NOT CONVERGED"));
  PetscFunctionReturn(0);
}

/*@
   BTETransportSetUp - Builds the collision operator of the next BTETransportSolve() and the setup diagnostics with it

   Collective

   Input Parameter:
.  tr - the transport object

   Notes:
   BTETransportSolve() calls it. Where the operator's rates are refreshed per temperature (several
   temperatures, or one other than the BTE's: -bte_collision_refresh, on by default then), it is
   built at the BTE's temperature, so that the diagnostics BTEView() prints (docs/diagnostics.md)
   come from it instead of an operator built for them; the solve then moves it to each
   temperature. Otherwise it is built at the first temperature. Call it before BTEView() to save
   that second operator.

   Level: intermediate

.seealso: `BTETransportSolve()`, `BTEGetDiagnostics()`, `BTECollisionSetTemperatureRefresh()`
@*/
PetscErrorCode BTETransportSetUp(BTETransport tr)
{
  BTE        bte;
  PetscReal  T0, T1;
  PetscInt   nT;
  PetscBool  keep;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  bte = tr->bte;
  PetscCall(BTESetUp(bte));
  if (!tr->colready) {
    PetscCall(BTEGetTemperature(bte, &T0));
    nT = tr->nT ? tr->nT : 1;
    T1 = tr->nT ? tr->T[0] : T0;
    PetscCall(BTECollisionDestroy(&tr->col));
    PetscCall(BTECollisionCreate(bte, &tr->col));
    PetscCall(BTECollisionSetTemperatureRefresh(tr->col, nT > 1 || T1 != T0 ? PETSC_TRUE : PETSC_FALSE));
    PetscCall(BTECollisionSetFromOptions(tr->col));
    PetscCall(BTECollisionGetTemperatureRefresh(tr->col, &keep));
    PetscCall(BTECollisionSetTemperature(tr->col, keep ? T0 : T1));
    PetscCall(BTECollisionSetUp(tr->col));
    tr->colready = PETSC_TRUE;
    tr->colkeep  = keep;
  }
  PetscCall(BTEDiagnosticsCompute(bte, tr->col, NULL));
  PetscFunctionReturn(0);
}

/*@
   BTETransportSolve - Builds the collision operator at each temperature and solves every configuration

   Collective

   Input Parameter:
.  tr - the transport object

   Notes:
   With more than one temperature, one collision operator serves them all: it keeps what a change
   of temperature needs (BTECollisionSetTemperatureRefresh()) and only its rates are recomputed at
   each further temperature, giving the results of a fresh operator per temperature to the bit.
   -bte_collision_refresh 0 builds a fresh operator per temperature instead (less memory).

   Level: beginner

.seealso: `BTETransportGetResult()`
@*/
PetscErrorCode BTETransportSolve(BTETransport tr)
{
  BTE          bte;
  MPI_Comm     comm;
  PetscInt     dim, nT, nc;
  PetscReal    T0, *Ts, *cs, defc, sunit, dunit, munit;
  Vec          f0;
  BTELinearCtx ctx;
  PetscBool    sym = PETSC_FALSE, keep;
  BTECollision col;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  bte  = tr->bte;
  comm = PetscObjectComm((PetscObject)tr);
  PetscCall(PetscMemzero(&ctx, sizeof(ctx)));
  PetscCall(BTESetUp(bte));
  PetscCall(PetscLogEventBegin(BTE_TransportSolve, tr, 0, 0, 0));
  /* the operator (BTETransportSetUp, if not called since the last solve); a later solve makes its own */
  PetscCall(BTETransportSetUp(tr));
  col            = tr->col;
  keep           = tr->colkeep;
  tr->col        = NULL;
  tr->colready   = PETSC_FALSE;
  PetscCall(BTEGetGrid(bte, &dim, NULL, NULL, NULL, NULL));
  PetscCall(BTEGetTemperature(bte, &T0));
  PetscCall(BTETransportUnits(bte, &sunit, &dunit, &munit));
  defc = dim == 2 ? 1e12 : 1e17;
  nT   = tr->nT ? tr->nT : 1;
  Ts   = tr->nT ? tr->T : &T0;
  nc   = tr->nc ? tr->nc : 1;
  cs   = tr->nc ? tr->conc : &defc;
  if (tr->method == BTE_TRANSPORT_KSP) {
    PetscCall(BTETransportSetUpPC(tr));
    if (tr->symmetric < 0) PetscCall(BTETransportKSPIsSymmetric(tr->ksp, &sym));
    else sym = tr->symmetric ? PETSC_TRUE : PETSC_FALSE;
    tr->solved_sym = sym;
    for (PetscInt b = 0; b < 3; b++) tr->Fset[b] = PETSC_FALSE;
    PetscCall(KSPGetTolerances(tr->ksp, &tr->ksp_rtol, NULL, NULL, NULL));
    {
      KSPType t;
      PetscCall(KSPGetType(tr->ksp, &t));
      PetscCall(PetscStrncpy(tr->ksp_type, t, sizeof(tr->ksp_type)));
    }
  } else PetscCall(PetscStrncpy(tr->ksp_type, "", sizeof(tr->ksp_type)));
  if (tr->rate) PetscCall(VecDestroyVecs(tr->nres, &tr->rate));
  PetscCall(PetscFree(tr->res));
  tr->nres = nT * nc;
  PetscCall(PetscCalloc1(tr->nres, &tr->res));
  PetscCall(BTECreateStateVec(bte, &f0));
  PetscCall(VecDuplicateVecs(f0, tr->nres, &tr->rate));
  for (PetscInt b = 0; b < 3; b++) {
    PetscCall(VecDestroy(&tr->F[b]));
    PetscCall(VecDuplicate(f0, &tr->F[b]));
  }
  if (tr->verbose) PetscCall(BTETransportPrintHeader(tr, PETSC_VIEWER_STDOUT_(comm)));
  for (PetscInt iT = 0; iT < nT; iT++) {
    PetscReal T = Ts[iT];
    Mat       J;

    /* The phonon occupations N_c depend on T, the rest of the operator does not: one operator
       whose rates are refreshed at each temperature (-bte_collision_refresh, on by default for
       several temperatures), else a fresh operator per temperature; the BTE keeps its own. */
    if (!col) {
      PetscCall(BTECollisionCreate(bte, &col));
      PetscCall(BTECollisionSetFromOptions(col));
    }
    PetscCall(BTECollisionSetTemperature(col, T));
    PetscCall(BTECollisionSetUp(col));
    PetscCall(BTECollisionCreateJacobian(col, &J));
    for (PetscInt ic = 0; ic < nc; ic++) {
      BTETransportResult *r = &tr->res[iT * nc + ic];
      PetscReal           mu, n, sumf, C[9];
      Mat                 A, S = NULL;

      r->temperature = T;
      if (tr->use_mu) mu = cs[ic];
      else PetscCall(BTEChemicalPotential(bte, T, cs[ic], &mu));
      /* above the window's top the window holds only part of the Fermi sea: the carriers that
         conduct, within a few kT of mu, are cut off (a mu of 5 eV on a 0.3 eV window gave 1e-75) */
      if (tr->use_mu) PetscCheck(mu <= bte->emax, comm, PETSC_ERR_USER_INPUT, "-bte_chemical_potentials %g eV lies above the energy window's top, %g eV%s: the window cannot hold the Fermi sea; lower it or %s", (double)mu, (double)bte->emax, bte->carrier > 0 ? " (holes: energies are the negated band energies, as the window's)" : "", BTEWindowAdvice(bte));
      else PetscCheck(mu <= bte->emax, comm, PETSC_ERR_USER_INPUT, "-bte_carrier_densities %g at T = %g K puts the chemical potential at %g eV, above the energy window's top, %g eV: the window cannot hold the Fermi sea; lower the density or %s", (double)cs[ic], (double)T, (double)mu, (double)bte->emax, BTEWindowAdvice(bte));
      PetscCall(BTECarrierDensity(bte, T, mu, &n));
      r->chemical_potential = mu;
      r->carrier_density    = n;
      PetscCall(BTEEquilibrium(bte, T, mu, f0, NULL));
      PetscCall(VecSum(f0, &sumf));
      PetscCheck(sumf > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "No carriers at T = %g K, mu = %g eV: raise the chemical potential", (double)T, (double)mu);
      {
        /* the carriers that conduct, weighted f0 (1 - f0), within 3 kT of the window's top: the setup
           diagnostics check the window at the table's temperature, nondegenerate; a high density or
           temperature of this configuration can reach the top (a Fermi sea cut by the window) */
        const PetscScalar *fa;
        PetscReal          w[3] = {0, 0, 0}, kT = BTE_KB * T;
        PetscCall(VecGetArrayRead(f0, &fa));
        for (PetscInt i = 0; i < bte->nlocal; i++) {
          PetscReal fi = PetscRealPart(fa[i]), wi = fi * (1 - fi);
          w[0] += wi;
          w[2] += wi * wi;
          if (bte->energy[i] >= bte->emax - 3 * kT) w[1] += wi;
        }
        PetscCall(VecRestoreArrayRead(f0, &fa));
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, w, 3, MPIU_REAL, MPIU_SUM, comm));
        r->edge_share = w[0] > 0 ? w[1] / w[0] : 0;
        char at[64];
        /* the C library's %g: PETSc's writes 300 as "300." */
        snprintf(at, sizeof(at), "T = %g K, n = %g", (double)T, (double)n);
        if (r->edge_share > 1e-3) PetscCall(PetscPrintf(comm, "transport: WARNING at %s: %.2g of the conducting carriers (weight f0 (1 - f0)) lie within 3 kT of the window's top (above 1e-3): the window cuts the distribution and this mobility is not converged in it; %s\n", at, (double)r->edge_share, BTEWindowAdvice(bte)));
        /* how many states they sit on: the setup diagnostics' thermal sampling at this density
           (a degenerate gas conducts at its Fermi surface, not at the band edge) */
        r->thermal_states = w[2] > 0 ? w[0] * w[0] / w[2] : 0;
        if (r->thermal_states < BTE_DIAG_SAMPLING_MIN) PetscCall(PetscPrintf(comm, "transport: WARNING at %s: the conducting carriers (weight f0 (1 - f0)) sit on %.3g states in effect (participation number, below %.0f): the k grid samples them too coarsely and this mobility is not converged (GaAs on 120^3 at 1e17 cm^-3: 57 states, mobility 12%% low; docs/diagnostics.md); %s\n", at, (double)r->thermal_states, (double)BTE_DIAG_SAMPLING_MIN, BTERefineAdvice(bte)));
      }
      PetscCall(BTECollisionComputeJacobian(col, f0, J));
      PetscCall(BTELinearCtxSetUp(bte, J, f0, T, mu, tr->rate[iT * nc + ic], &ctx));
      {
        PetscInt N;
        PetscCall(BTEGetNumStates(bte, NULL, &N));
        PetscCheck(ctx.ninactive < N, comm, PETSC_ERR_ARG_WRONGSTATE, "No state in the window scatters at T = %g K (%" PetscInt_FMT " states, none with a channel): the k grid is too coarse for the energy window: %s", (double)T, N, BTEGridAdvice(tr->bte));

        {
          /* every velocity zero (a k grid of 2 points per direction puts every k at a zone centre or
             face, where the bands are flat; GaAs 3^3 keeps only Gamma in the window): the mobility would
             be exactly 0, not a result */
          PetscReal vmax = 0;
          for (PetscInt i = 0; i < 3 * bte->nlocal; i++) vmax = PetscMax(vmax, PetscAbsReal(bte->velocity[i]));
          PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vmax, 1, MPIU_REAL, MPIU_MAX, comm));
          PetscCheck(vmax > 0, comm, PETSC_ERR_USER_INPUT, "Every state's group velocity is zero (the k grid, %" PetscInt_FMT " points along its first direction, puts the states of the window only where the bands are flat: a zone centre, face or band extremum): the mobility would be 0 by construction; make the table on a finer k grid (raise -bte_grid)", bte->grid.nk[0]);
        }
      }
      if (ctx.ninactive) PetscCall(PetscInfo(tr, "%" PetscInt_FMT " states have no scattering (Gamma = 0) or no weight (D = 0): left out\n", ctx.ninactive));
      PetscCall(BTELinearCreateOperator(bte, &ctx, PETSC_FALSE, &A));
      if (sym) PetscCall(BTELinearCreateOperator(bte, &ctx, PETSC_TRUE, &S));
      if (tr->method == BTE_TRANSPORT_KSP && tr->pctype == BTE_TRANSPORT_PC_TWOLEVEL) PetscCall(BTETwoLevelSetUp(tr->tl, bte, col, f0, &ctx, sym));
      r->converged = PETSC_TRUE;
      for (PetscInt b = 0; b < 3; b++) {
        PetscBool conv;
        PetscCall(BTETransportSolveDirection(tr, &ctx, A, S, b, tr->F[b], &r->iterations[b], &r->residual[b], &conv));
        tr->Fset[b] = PETSC_TRUE;
        if (!conv) r->converged = PETSC_FALSE;
        PetscCall(BTETransportColumn(bte, tr->F[b], ctx.D, &C[3 * b]));
      }
      r->applies = ctx.applies;
      /* C[3b + a] = sum_i v_ia F_ib D_i: sigma_ab */
      for (PetscInt a = 0; a < 3; a++)
        for (PetscInt b = 0; b < 3; b++) {
          r->conductivity[3 * a + b] = sunit * C[3 * b + a];
          r->mobility[3 * a + b]     = munit * C[3 * b + a] / sumf;
        }
      for (PetscInt a = 0; a < 9; a++)
        PetscCheck(!PetscIsInfOrNanReal(r->conductivity[a]) && !PetscIsInfOrNanReal(r->mobility[a]), comm, PETSC_ERR_NOT_CONVERGED, "Transport at T = %g K, n = %g: the conductivity is not finite (NaN or Inf): the scattering rates overflow or the solve diverged; check the table (|g|^2, phonon energies) and the solver options", (double)T, (double)n);
      for (PetscInt b = 0; b < 3; b++)
        if (PetscIsInfOrNanReal(r->residual[b])) r->converged = PETSC_FALSE;
      if (tr->verbose) PetscCall(BTETransportPrintResult(tr, PETSC_VIEWER_STDOUT_(comm), r));
      PetscCall(MatDestroy(&A));
      PetscCall(MatDestroy(&S));
      PetscCall(BTELinearCtxReset(&ctx));
    }
    PetscCall(MatDestroy(&J));
    if (!keep || iT == nT - 1) { /* without the refresh, freed before the next one is built */
      if (keep) {
        PetscInt nref, nreb;
        PetscCall(BTECollisionGetTemperatureChanges(col, &nref, &nreb));
        PetscCall(PetscInfo(tr, "%" PetscInt_FMT " temperatures on one collision operator: %" PetscInt_FMT " refreshed its rates, %" PetscInt_FMT " rebuilt it\n", nT, nref, nreb));
      }
      PetscCall(BTECollisionDestroy(&col));
    }
  }
  PetscCall(VecDestroy(&f0));
  PetscCall(PetscLogEventEnd(BTE_TransportSolve, tr, 0, 0, 0));
  PetscFunctionReturn(0);
}

/*@
   BTETransportGetNumResults - Gets the number of configurations solved

   Not Collective

   Input Parameter:
.  tr - the transport object

   Output Parameter:
.  n - temperatures times densities (or chemical potentials)

   Level: beginner

.seealso: `BTETransportGetResult()`
@*/
PetscErrorCode BTETransportGetNumResults(BTETransport tr, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscAssertPointer(n, 2);
  *n = tr->nres;
  PetscFunctionReturn(0);
}

/*@
   BTETransportGetResult - Gets the result of one configuration

   Not Collective

   Input Parameters:
+  tr - the transport object
-  i  - the configuration, 0 .. n-1 (temperature outer, density inner)

   Output Parameter:
.  r - conductivity, mobility, carrier density and convergence

   Level: beginner

.seealso: `BTETransportGetNumResults()`, `BTETransportWriteHDF5()`
@*/
PetscErrorCode BTETransportGetResult(BTETransport tr, PetscInt i, BTETransportResult *r)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < tr->nres, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Result %" PetscInt_FMT " out of range [0, %" PetscInt_FMT "): call BTETransportSolve() first", i, tr->nres);
  *r = tr->res[i];
  PetscFunctionReturn(0);
}

/*@
   BTETransportGetSolution - Gets the solution F of the last configuration solved for one field direction

   Not Collective

   Input Parameters:
+  tr - the transport object
-  b  - the field direction, 0..2

   Output Parameter:
.  F - F, Angstrom (not a copy: do not destroy)

   Level: advanced

.seealso: `BTETransportSolve()`
@*/
PetscErrorCode BTETransportGetSolution(BTETransport tr, PetscInt b, Vec *F)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscAssertPointer(F, 3);
  PetscCheck(b >= 0 && b < 3, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_OUTOFRANGE, "Field direction must be 0, 1 or 2");
  PetscCheck(tr->F[b], PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_WRONGSTATE, "Call BTETransportSolve() first");
  *F = tr->F[b];
  PetscFunctionReturn(0);
}

/*@
   BTETransportView - Prints the transport solver's settings and results

   Collective

   Input Parameters:
+  tr - the transport object
-  v  - the viewer (NULL: standard output)

   Level: beginner

.seealso: `BTETransportGetResult()`
@*/
PetscErrorCode BTETransportView(BTETransport tr, PetscViewer v)
{
  PetscBool iascii;
  PetscInt  dim = 3;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  if (!v) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)tr), &v));
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)tr, v));
  PetscCall(PetscViewerASCIIPushTab(v));
  PetscCall(BTEGetGrid(tr->bte, &dim, NULL, NULL, NULL, NULL));
  switch (tr->method) {
  case BTE_TRANSPORT_KSP:
    PetscCall(PetscViewerASCIIPrintf(v, "method: ksp (Krylov solve of A F = v, A = Gamma - P, docs/theory.md eq. 5)\n"));
    if (tr->nres) PetscCall(PetscViewerASCIIPrintf(v, "ksp type: %s%s\n", tr->ksp_type, tr->solved_sym ? " on the symmetric form S F = D v (S = D A; the residual column is that system's, ||D v - S F||/||D v||)" : ""));
    if (tr->pctype == BTE_TRANSPORT_PC_TWOLEVEL) {
      PetscInt         nbins, ang, nc, setups;
      BTETwoLevelSplit split;
      BTETwoLevelForm  form;
      PetscLogDouble   t;
      PetscCall(BTETwoLevelGetParameters(tr->tl, &nbins, &ang, &split, &form));
      PetscCall(BTETwoLevelGetInfo(tr->tl, &nc, &setups, &t));
      char             line[512], more[256] = "";
      if (setups) PetscCall(PetscSNPrintf(more, sizeof(more), "; %" PetscInt_FMT " coarse vectors; %" PetscInt_FMT " setups, %.3g s, counted as one apply each", nc, setups, (double)t));
      PetscCall(PetscSNPrintf(line, sizeof(line), "preconditioner: bte two-level (%s; %" PetscInt_FMT " energy bins per %s, angular level %" PetscInt_FMT "%s)\n", BTETwoLevelForms[form], nbins, BTETwoLevelSplits[split], ang, more));
      PetscCall(PetscViewerASCIIPrintf(v, "%s", line));
    } else {
      PC     pc;
      PCType pt;
      PetscCall(KSPGetPC(tr->ksp, &pc));
      PetscCall(PCGetType(pc, &pt));
      PetscBool    gamma = PETSC_FALSE;
      PCJacobiType jt    = PC_JACOBI_DIAGONAL;
      if (pt && !strcmp(pt, PCJACOBI)) { /* the Gamma diagonal only as its diagonal, not row sums or maxima */
        PetscCall(PCJacobiGetType(pc, &jt));
        gamma = (PetscBool)(jt == PC_JACOBI_DIAGONAL);
      }
      PetscCall(PetscViewerASCIIPrintf(v, "preconditioner: %s%s%s\n", pt ? pt : "none", gamma ? " (the Gamma diagonal: RTA)" : "", pt && !strcmp(pt, PCJACOBI) && !gamma ? (jt == PC_JACOBI_ROWSUM ? " (row sums: A 1, nearly 0 where 1 is nearly a null vector of A)" : jt == PC_JACOBI_ROWMAX ? " (row maxima)" : " (not the Gamma diagonal)") : ""));
    }
    break;
  case BTE_TRANSPORT_RTA:
    PetscCall(PetscViewerASCIIPrintf(v, "method: rta (F = v / Gamma)\n"));
    break;
  case BTE_TRANSPORT_ITA:
    PetscCall(PetscViewerASCIIPrintf(v, "method: ita (F <- (v + P F)/Gamma until sigma changes < %g relative, at most %" PetscInt_FMT " iterations)\n", (double)tr->ita_tol, tr->ita_max_it));
    break;
  }
  if (tr->nres) {
    PetscCall(PetscViewerASCIIPrintf(v, "mobility in cm^2/(V s); its: most iterations of the three directions; applies: collision Jacobian applies, all directions\n"));
    PetscCall(BTETransportPrintHeader(tr, v));
    for (PetscInt k = 0; k < tr->nres; k++) PetscCall(BTETransportPrintResult(tr, v, &tr->res[k]));
    if (tr->nres == 1 || PetscLogPrintInfo) {
      for (PetscInt k = 0; k < tr->nres; k++) {
        const BTETransportResult *r = &tr->res[k];
        PetscCall(PetscViewerASCIIPrintf(v, "T = %g K, n = %g %s: conductivity (%s) and mobility (cm^2/(V s)) tensors\n", (double)r->temperature, (double)r->carrier_density, dim == 2 ? "cm^-2" : "cm^-3", dim == 2 ? "S" : "S/m"));
        for (PetscInt a = 0; a < 3; a++) PetscCall(PetscViewerASCIIPrintf(v, "  [%12.5e %12.5e %12.5e]    [%12.5g %12.5g %12.5g]\n", (double)r->conductivity[3 * a], (double)r->conductivity[3 * a + 1], (double)r->conductivity[3 * a + 2], (double)r->mobility[3 * a], (double)r->mobility[3 * a + 1], (double)r->mobility[3 * a + 2]));
      }
    }
  }
  PetscCall(PetscViewerASCIIPopTab(v));
  PetscFunctionReturn(0);
}
