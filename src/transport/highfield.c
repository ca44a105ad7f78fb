/* BTEHighField: steady state of eq. 1 with a static field (docs/theory.md sections 4-5),
       df/dt = R(f) = D_E(f) + I[f] = 0,   sum_i f_i = N0 (carrier number fixed).

   Unknowns. We solve for g_i = ln((1 - f_i)/f_i) (f = 1/(1 + e^g)), the variable the
   drift term differentiates, which keeps every f in (0,1) whatever Newton does, and
   scale each equation by W_i = f_i (1 - f_i) = -df_i/dg_i:
       r_i(g) = R_i / W_i  - p(g) - c (N(g) - N0)/N0,    p = (sum_i R_i)/(sum_i W_i).
   The rows are then rates (1/fs) of similar size for every state, however small f_i.
   At f0 the Jacobian of R/W is exactly the linear-response operator -D^{-1} J(f0) D
   of eq. 5 (W = kT D), and the drift part is (up to the window edge) linear in g.

   Carrier number (a Lagrange multiplier, eliminated). The collision term conserves
   particles exactly (sum_i I_i = 0); the finite-difference drift only approximately.
   The steady state is defined as R = lambda W with lambda chosen so that the carrier
   number is N0, i.e. whatever the discretised drift does not conserve is returned
   uniformly in g (as a shift of the local chemical potential). Then
     - subtracting p removes the W-weighted mean of R/W, so the first two terms have
       sum_i W_i (.) = 0 and carry N-1 independent equations;
     - the last term (along 1, which has W^T 1 != 0) is the missing equation N = N0.
   At a solution p = lambda (zero when the drift conserves particles) and N = N0.
   c = <Gamma>_W (the carrier-weighted scattering rate at f0) makes the constraint row
   as stiff as a typical collision row. The "replace one equation" alternative would
   put all of the drift's non-conservation into one state.

   Jacobian (exact; derivation in docs/transport.md):
     J_r x = -W^{-1} J_R (W x) + diag((1-2f) R/W) x
             + 1 [ 1^T J_R (W x) / S_W - S_R/S_W^2 ((1-2f) W)^T x + (c/N0) W^T x ]
   with J_R = J_I + J_D (collision Jacobian + drift Jacobian), S_W = sum W, S_R = sum R:
   one collision Jacobian apply and one drift Jacobian apply per product. Newton uses
   GMRES with the Jacobi preconditioner diag = Gamma + (1-2f) R/W + ... (the RTA diagonal).

   Pseudo-transient continuation: dg/dt = -r(g) is, up to the constraint terms, the
   physical dynamics (df/dt = R, df = -W dg) in physical time t (fs); linearly implicit
   Euler steps (I/dt + J_r) d = -r with dt grown by switched evolution relaxation,
   dt <- dt ||r_old||/||r_new||. The constraint term relaxes N to N0 at the rate c. */
#include "transportimpl.h"
#include <bte/private/dynamicsimpl.h> /* BTEDriftSetOwned */
#include <bte/private/output.h>
#include <bte/private/diagnostics.h>
#include "valleys.h"
#include <hdf5.h>

const char *const BTEHighFieldMethods[] = {"newton", "ptc", "BTEHighFieldMethod", "BTE_HIGHFIELD_", NULL};

/*@
   BTEHighFieldCreate - Creates a high-field steady-state solver: drift(f; E) + I[f] = 0 at fixed carrier number

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  hfo - the new high-field object

   Level: beginner

.seealso: `BTEHighFieldSolve()`, `BTEHighFieldDestroy()`
@*/
PetscErrorCode BTEHighFieldCreate(BTE bte, BTEHighField *hfo)
{
  BTEHighField hf;
  KSP          ksp;
  PC           pc;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(hfo, 2);
  PetscCall(BTETransportInitializePackage());
  PetscCall(PetscHeaderCreate(hf, BTEHIGHFIELD_CLASSID, "BTEHighField", "High-field steady state", "BTE", PetscObjectComm((PetscObject)bte), BTEHighFieldDestroy, BTEHighFieldView));
  PetscCall(PetscObjectReference((PetscObject)bte));
  hf->bte        = bte;
  bte->runmem    = PETSC_TRUE; /* the memory checks at setup count the run */
  hf->method     = BTE_HIGHFIELD_NEWTON;
  hf->dir[0]     = 1;
  hf->tol        = 1e-8;
  hf->residual_max = 1e-3;
  hf->ptc_dtmax  = 1e12;
  hf->ptc_max_it = 2000;
  hf->ptc_switch = 1e-3;
  hf->vars       = -1;
  PetscCall(PetscObjectChangeTypeName((PetscObject)hf, BTEHighFieldMethods[hf->method]));
  PetscCall(SNESCreate(PetscObjectComm((PetscObject)bte), &hf->snes));
  PetscCall(PetscObjectIncrementTabLevel((PetscObject)hf->snes, (PetscObject)hf, 1));
  PetscCall(SNESSetOptionsPrefix(hf->snes, "bte_highfield_"));
  PetscCall(SNESSetType(hf->snes, SNESNEWTONLS));
  PetscCall(SNESSetTolerances(hf->snes, PETSC_DEFAULT, 1e-50, 1e-14, 50, 10000));
  PetscCall(SNESGetTolerances(hf->snes, &hf->snes_atol, NULL, NULL, NULL, NULL));
  PetscCall(SNESKSPSetUseEW(hf->snes, PETSC_TRUE)); /* Eisenstat-Walker: loose linear solves far from the solution */
  PetscCall(SNESGetKSP(hf->snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-6, 1e-50, PETSC_DEFAULT, 2000));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPCreate(PetscObjectComm((PetscObject)bte), &hf->ptc_ksp));
  PetscCall(KSPSetOptionsPrefix(hf->ptc_ksp, "bte_highfield_ptc_"));
  PetscCall(KSPSetType(hf->ptc_ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(hf->ptc_ksp, 1e-3, 1e-50, PETSC_DEFAULT, 500));
  PetscCall(KSPGetPC(hf->ptc_ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  *hfo = hf;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEHighFieldResetSolve(BTEHighField hf)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&hf->Jc));
  PetscCall(MatDestroy(&hf->Jr));
  PetscCall(MatDestroy(&hf->Jptc));
  if (!hf->colready) PetscCall(BTECollisionDestroy(&hf->col)); /* else BTEHighFieldSetUp() made it for this solve */
  PetscCall(VecDestroy(&hf->r));
  PetscCall(VecDestroy(&hf->f));
  PetscCall(VecDestroy(&hf->W));
  PetscCall(VecDestroy(&hf->R));
  PetscCall(VecDestroy(&hf->gamma0));
  PetscCall(VecDestroy(&hf->work));
  PetscCall(VecDestroy(&hf->work2));
  PetscCall(VecDestroy(&hf->one));
  PetscCall(VecDestroy(&hf->fJ));
  PetscCall(VecDestroy(&hf->WJ));
  PetscCall(VecDestroy(&hf->RJ));
  PetscCall(VecDestroy(&hf->mJ));
  PetscCall(VecDestroy(&hf->TJ));
  PetscCall(VecDestroy(&hf->dJ));
  PetscCall(VecDestroy(&hf->dSJ));
  PetscCall(VecDestroy(&hf->Sfix));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetOptionsPrefix - Sets the prefix of the high-field solver's options and of its SNES's and continuation KSP's

   Logically Collective

   Input Parameters:
+  hf     - the high-field solver
-  prefix - the prefix (no leading -), e.g. "a_": then -a_bte_efield_list, -a_bte_highfield_snes_type,
            -a_bte_drift_form (its drift's options)

   Notes:
   Call it before BTEHighFieldSetFromOptions().

   Level: intermediate

.seealso: `BTEHighFieldSetFromOptions()`
@*/
PetscErrorCode BTEHighFieldSetOptionsPrefix(BTEHighField hf, const char prefix[])
{
  char p[256];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)hf, prefix));
  PetscCall(PetscSNPrintf(p, sizeof(p), "%sbte_highfield_", prefix ? prefix : ""));
  PetscCall(SNESSetOptionsPrefix(hf->snes, p));
  PetscCall(PetscSNPrintf(p, sizeof(p), "%sbte_highfield_ptc_", prefix ? prefix : ""));
  PetscCall(KSPSetOptionsPrefix(hf->ptc_ksp, p));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldDestroy - Destroys a high-field solver

   Collective

   Input Parameter:
.  hfp - the object (set to NULL)

   Level: beginner

.seealso: `BTEHighFieldCreate()`
@*/
PetscErrorCode BTEHighFieldDestroy(BTEHighField *hfp)
{
  BTEHighField hf = hfp ? *hfp : NULL;

  PetscFunctionBegin;
  if (!hf) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  if (--((PetscObject)hf)->refct > 0) {
    *hfp = NULL;
    PetscFunctionReturn(0);
  }
  hf->colready = PETSC_FALSE;
  PetscCall(BTEHighFieldResetSolve(hf));
  PetscCall(VecDestroy(&hf->g));
  if (hf->have_drift && hf->drift.destroy) PetscCall((*hf->drift.destroy)(hf->drift.ctx));
  {
    BTEValleys v = (BTEValleys)hf->valleys;
    PetscCall(BTEValleysDestroy(&v));
  }
  PetscCall(SNESDestroy(&hf->snes));
  PetscCall(KSPDestroy(&hf->ptc_ksp));
  PetscCall(PetscFree(hf->E));
  PetscCall(PetscFree(hf->res));
  PetscCall(PetscFree(hf->valley_occ));
  PetscCall(PetscFree(hf->band_occ));
  PetscCall(BTEDestroy(&hf->bte));
  PetscCall(PetscHeaderDestroy(hfp));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEHighFieldSetDrift(BTEHighField hf, const BTEHighFieldDrift *d)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  if (hf->have_drift && hf->drift.destroy) PetscCall((*hf->drift.destroy)(hf->drift.ctx));
  hf->drift      = *d;
  hf->have_drift = PETSC_TRUE;
  PetscCall(PetscStrncpy(hf->driftname, "application (BTEHighFieldSetDrift)", sizeof(hf->driftname)));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetMethod - Sets the method

   Logically Collective

   Input Parameters:
+  hf - the high-field object
-  m  - BTE_HIGHFIELD_NEWTON (default; pseudo-transient continuation as fallback) or
        BTE_HIGHFIELD_PTC

   Options Database Key:
.  -bte_highfield_method <newton,ptc> - the method

   Level: intermediate

.seealso: `BTEHighFieldGetSNES()`
@*/
PetscErrorCode BTEHighFieldSetMethod(BTEHighField hf, BTEHighFieldMethod m)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscCheck(m >= BTE_HIGHFIELD_NEWTON && m <= BTE_HIGHFIELD_PTC, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "Unknown high-field method %d", (int)m);
  hf->method = m;
  PetscCall(PetscObjectChangeTypeName((PetscObject)hf, BTEHighFieldMethods[m]));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetFields - Sets the field strengths to solve at

   Logically Collective

   Input Parameters:
+  hf - the high-field object
.  n  - their number
-  E  - field strengths, V/cm (each solve starts from the previous one)

   Options Database Key:
.  -bte_efield_list <E1,E2,...> - the strengths

   Level: beginner

.seealso: `BTEHighFieldSetDirection()`
@*/
PetscErrorCode BTEHighFieldSetFields(BTEHighField hf, PetscInt n, const PetscReal E[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscCheck(n >= 0, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "Number of field strengths must be >= 0, got %" PetscInt_FMT, n);
  if (n) PetscAssertPointer(E, 3);
  for (PetscInt k = 0; k < n; k++) PetscCheck(E[k] >= 0 && !PetscIsInfOrNanReal(E[k]), PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "Field strengths must be >= 0 (V/cm; the direction is -bte_efield_direction), got %g", (double)E[k]);
  for (PetscInt k = 0; k < n; k++) PetscCall(BTECheckRange(PetscObjectComm((PetscObject)hf), "field strength (-bte_efield_list)", E[k], 0, BTE_EFIELD_MAX, "V/cm", NULL));
  /* a field listed twice was solved twice (from two starting states: two answers with
     -bte_allow_unconverged) */
  for (PetscInt k = 1; k < n; k++)
    for (PetscInt j = 0; j < k; j++) PetscCheck(E[j] != E[k], PetscObjectComm((PetscObject)hf), PETSC_ERR_USER_INPUT, "-bte_efield_list: the field %g V/cm is listed twice (entries %" PetscInt_FMT " and %" PetscInt_FMT "); each field is solved once: leave out the repeat", (double)E[k], j + 1, k + 1);
  PetscCall(PetscFree(hf->E));
  hf->nE = n;
  if (n) {
    PetscCall(PetscMalloc1(n, &hf->E));
    PetscCall(PetscArraycpy(hf->E, E, n));
  }
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetDirection - Sets the field direction

   Logically Collective

   Input Parameters:
+  hf - the high-field object
-  d  - Cartesian direction (normalised internally; default (1,0,0))

   Options Database Key:
.  -bte_efield_direction <x|y|z|ex,ey,ez> - the direction

   Level: beginner

.seealso: `BTEHighFieldSetFields()`
@*/
PetscErrorCode BTEHighFieldSetDirection(BTEHighField hf, const PetscReal d[3])
{
  PetscReal n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscAssertPointer(d, 2);
  for (PetscInt a = 0; a < 3; a++) PetscCheck(!PetscIsInfOrNanReal(d[a]), PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "The field direction (-bte_efield_direction %g,%g,%g): its %c component is not a finite number; the direction must be a finite, nonzero vector", (double)d[0], (double)d[1], (double)d[2], (char)('x' + a));
  {
    /* scaled by the largest component first: (1e300, 1e300, 0) is a direction, not an overflow */
    PetscReal m = PetscMax(PetscAbsReal(d[0]), PetscMax(PetscAbsReal(d[1]), PetscAbsReal(d[2])));
    PetscCheck(m > 0 && !PetscIsInfOrNanReal(m), PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "The field direction (-bte_efield_direction %g,%g,%g) must be a finite, nonzero vector", (double)d[0], (double)d[1], (double)d[2]);
    n = m * PetscSqrtReal((d[0] / m) * (d[0] / m) + (d[1] / m) * (d[1] / m) + (d[2] / m) * (d[2] / m));
  }
  for (PetscInt a = 0; a < 3; a++) hf->dir[a] = d[a] / n;
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetCarrierDensity - Sets the carrier density that fixes the carrier number

   Logically Collective

   Input Parameters:
+  hf - the high-field object
-  n  - density, cm^-3 (cm^-2 in 2D; default 1e17, 1e12 in 2D)

   Options Database Key:
.  -bte_carrier_density <n> - the density

   Level: beginner

.seealso: `BTEHighFieldSolve()`
@*/
PetscErrorCode BTEHighFieldSetCarrierDensity(BTEHighField hf, PetscReal n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscCheck(n > 0 && !PetscIsInfOrNanReal(n), PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "Carrier density must be positive (cm^-3, cm^-2 in 2D), got %g", (double)n);
  hf->density = n;
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldGetSNES - Gets the SNES of the Newton method

   Not Collective

   Input Parameter:
.  hf - the high-field object

   Output Parameter:
.  snes - the SNES (prefix bte_highfield_; not a new reference)

   Notes:
   Settings made on it are used as set; in particular an absolute tolerance set with
   SNESSetTolerances() (or -bte_highfield_snes_atol) replaces the one the solve derives from
   -bte_highfield_tol.

   Level: intermediate

.seealso: `BTEHighFieldSetMethod()`
@*/
PetscErrorCode BTEHighFieldGetSNES(BTEHighField hf, SNES *snes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscAssertPointer(snes, 2);
  *snes = hf->snes;
  PetscFunctionReturn(0);
}

/* "x", "-y", "z" or "ex,ey,ez" */
static PetscErrorCode BTEParseDirection(MPI_Comm comm, const char s[], PetscReal d[3])
{
  const char *p    = s;
  PetscReal   sign = 1;

  PetscFunctionBegin;
  d[0] = d[1] = d[2] = 0;
  if (p[0] == '+' || p[0] == '-') {
    sign = p[0] == '-' ? -1 : 1;
    p++;
  }
  if ((p[0] == 'x' || p[0] == 'y' || p[0] == 'z') && !p[1]) {
    d[p[0] - 'x'] = sign;
    PetscFunctionReturn(0);
  }
  p = s;
  for (PetscInt a = 0; a < 3; a++) {
    char *end;
    d[a] = strtod(p, &end);
    PetscCheck(end != p, comm, PETSC_ERR_USER_INPUT, "-bte_efield_direction: expected x, y, z or three comma-separated components such as -1,0,0, got '%s'", s);
    p = end;
    if (a < 2) {
      PetscCheck(*p == ',', comm, PETSC_ERR_USER_INPUT, "-bte_efield_direction: expected x, y, z or three comma-separated components such as -1,0,0, got '%s'", s);
      p++;
    }
  }
  PetscCheck(!*p, comm, PETSC_ERR_USER_INPUT, "-bte_efield_direction: expected x, y, z or three comma-separated components such as -1,0,0, got '%s'", s);
  /* every component, here where the option is read: a NaN after a finite one passed the check of
     the vector's size and was found only by the drift, after the table was read, as "component 0" */
  for (PetscInt a = 0; a < 3; a++) PetscCheck(!PetscIsInfOrNanReal(d[a]), comm, PETSC_ERR_USER_INPUT, "-bte_efield_direction %s: its %c component is not a finite number; the direction must be a finite, nonzero vector", s, (char)('x' + a));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetFromOptions - Reads the high-field solver's options, its SNES's included (prefix bte_highfield_)

   Collective

   Input Parameter:
.  hf - the high-field object

   Options Database Keys:
+  -bte_highfield_method <newton,ptc>         - newton (SNES, pseudo-transient continuation as fallback; default) or ptc
.  -bte_efield_list <E1,E2,...>               - field strengths, V/cm (each solve starts from the previous one)
.  -bte_efield_direction <dir>                - field direction: x, y, z or ex,ey,ez, e.g. -1,0,0 (default x)
.  -bte_carrier_density <n>                   - carrier density that fixes the carrier number, cm^-3 (cm^-2 in 2D; default 1e17, 1e12 in 2D)
.  -bte_highfield_tol <tol>                   - converged when ||r|| <= tol ||Gamma|| (r: scaled residual, 1/fs; default 1e-8)
.  -bte_highfield_residual_max <r>            - a field's solve ends NOT CONVERGED when ||r|| > r ||Gamma||, whatever the SNES's tolerances (default 1e-3)
.  -bte_highfield_ptc_dt <fs>                 - pseudo-transient continuation: first time step (0: 1/<Gamma>)
.  -bte_highfield_ptc_dt_max <fs>             - pseudo-transient continuation: largest time step (default 1e12)
.  -bte_highfield_ptc_max_it <n>              - pseudo-transient continuation: most steps per field (default 2000)
.  -bte_highfield_ptc_switch <x>              - newton: hand over from the continuation to Newton when ||r|| drops by this factor, in (0, 1) (default 1e-3)
.  -bte_highfield_variables <auto,log,linear> - unknowns: log (g = ln((1-f)/f)), linear (f), auto (log, linear with -bte_drift_form plain)
.  -bte_highfield_monitor <bool>              - print each field as it is solved
.  -bte_drift_form <log,plain,upwind,muscl>   - the drift term's discretisation (BTEDriftSetFromOptions())
.  -bte_drift_limiter <vanleer,minmod>        - the muscl drift form's slope limiter
-  -bte_drift_mat_type <type>                 - Mat type of the drift stencil (default aijcusparse for CUDA state Vecs, else aij)

   Level: beginner

.seealso: `BTEHighFieldGetSNES()`
@*/
PetscErrorCode BTEHighFieldSetFromOptions(BTEHighField hf)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)hf);
  PetscReal vals[513], n = hf->density > 0 ? hf->density : 1e17; /* one more than the list takes: a 513th value is an error, not dropped */
  PetscInt  nv   = 513;
  PetscBool flg;
  char      dirs[128] = "x";

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscObjectOptionsBegin((PetscObject)hf);
  {
    BTEHighFieldMethod m = hf->method;
    PetscCall(PetscOptionsEnum("-bte_highfield_method", "newton (SNES, pseudo-transient continuation as fallback) or ptc", "BTEHighFieldSetMethod", BTEHighFieldMethods, (PetscEnum)m, (PetscEnum *)&m, NULL));
    PetscCall(BTEHighFieldSetMethod(hf, m));
  }
  PetscCall(BTECheckListOption((PetscObject)hf, "-bte_efield_list", "500,1000,2000"));
  nv = BTEListDefault(PetscOptionsObject->printhelp, hf->E ? hf->nE : 0, hf->E, 513, vals);
  PetscCall(PetscOptionsRealArray("-bte_efield_list", "Field strengths, V/cm (comma-separated; each solve starts from the previous one)", "BTEHighFieldSetFields", vals, &nv, &flg));
  if (flg) {
    PetscCheck(nv <= 512, comm, PETSC_ERR_USER_INPUT, "-bte_efield_list takes at most 512 field strengths, got more");
    PetscCall(BTEHighFieldSetFields(hf, nv, vals));
  }
  PetscCall(PetscOptionsString("-bte_efield_direction", "Field direction: x, y, z or ex,ey,ez (e.g. -1,0,0)", "BTEHighFieldSetDirection", dirs, dirs, sizeof(dirs), &flg));
  if (flg) {
    PetscReal d[3];
    PetscCall(BTEParseDirection(comm, dirs, d));
    PetscCall(BTEHighFieldSetDirection(hf, d));
  }
  PetscCall(PetscOptionsReal("-bte_carrier_density", "Carrier density that fixes the carrier number, cm^-3 (cm^-2 in 2D; default 1e17, 1e12 in 2D)", "BTEHighFieldSetCarrierDensity", n, &n, &flg));
  if (flg) PetscCall(BTEHighFieldSetCarrierDensity(hf, n));
  PetscCall(PetscOptionsReal("-bte_highfield_tol", "Converged when ||r|| <= tol ||Gamma|| (r: scaled residual, 1/fs)", "BTEHighFieldSolve", hf->tol, &hf->tol, NULL));
  PetscCheck(hf->tol > 0 && hf->tol < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_highfield_tol must be in (0,1), got %g", (double)hf->tol);
  PetscCall(PetscOptionsReal("-bte_highfield_residual_max", "A field's solve ends NOT CONVERGED when ||r|| > this ||Gamma||, whatever the SNES's tolerances (-bte_highfield_snes_atol 1e10 accepted the starting state)", "BTEHighFieldSolve", hf->residual_max, &hf->residual_max, NULL));
  PetscCheck(hf->residual_max > 0 && hf->residual_max < 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_highfield_residual_max must be in (0,1), got %g", (double)hf->residual_max);
  PetscCall(PetscOptionsReal("-bte_highfield_ptc_dt", "Pseudo-transient continuation: first time step, fs (0: 1/<Gamma>)", "BTEHighFieldSolve", hf->ptc_dt0, &hf->ptc_dt0, NULL));
  PetscCheck(hf->ptc_dt0 >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_highfield_ptc_dt must be >= 0 (fs)");
  PetscCall(BTECheckRange(comm, "-bte_highfield_ptc_dt", hf->ptc_dt0, 0, BTE_TIME_MAX, "fs", NULL));
  PetscCall(PetscOptionsReal("-bte_highfield_ptc_dt_max", "Pseudo-transient continuation: largest time step, fs", "BTEHighFieldSolve", hf->ptc_dtmax, &hf->ptc_dtmax, NULL));
  PetscCall(BTECheckRange(comm, "-bte_highfield_ptc_dt_max", hf->ptc_dtmax, BTE_TIME_STEP_MIN, PETSC_MAX_REAL, "fs", NULL));
  PetscCall(PetscOptionsInt("-bte_highfield_ptc_max_it", "Pseudo-transient continuation: most steps per field", "BTEHighFieldSolve", hf->ptc_max_it, &hf->ptc_max_it, NULL));
  PetscCheck(hf->ptc_max_it >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_highfield_ptc_max_it must be >= 1");
  PetscCall(PetscOptionsReal("-bte_highfield_ptc_switch", "Newton fallback: hand over from PTC to Newton when ||r|| drops by this factor (in (0, 1); method newton)", "BTEHighFieldSolve", hf->ptc_switch, &hf->ptc_switch, &flg));
  PetscCheck(!flg || hf->method == BTE_HIGHFIELD_NEWTON, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_ptc_switch is the hand-over of the newton method's fallback; -bte_highfield_method ptc never hands over: leave it out");
  PetscCheck(hf->ptc_switch > 0 && hf->ptc_switch < 1, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_ptc_switch %g: must be in (0, 1) (the factor by which the residual drops before Newton takes over)", (double)hf->ptc_switch);
  PetscCheck(hf->ptc_dt0 <= hf->ptc_dtmax, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_ptc_dt %g fs is above -bte_highfield_ptc_dt_max %g fs: the first step may not exceed the largest", (double)hf->ptc_dt0, (double)hf->ptc_dtmax);
  {
    const char *vars[] = {"auto", "log", "linear"};
    PetscInt    v      = hf->vars + 1;
    PetscCall(PetscOptionsEList("-bte_highfield_variables", "Unknowns: log (g = ln((1-f)/f), keeps f in (0,1)), linear (f), auto (log, linear with -bte_drift_form plain)", "BTEHighFieldSolve", vars, 3, vars[v], &v, NULL));
    hf->vars = v - 1;
  }
  PetscCall(PetscOptionsBool("-bte_highfield_monitor", "Print each field as it is solved", "BTEHighFieldSolve", hf->monitor, &hf->monitor, NULL));
  PetscOptionsEnd();
  {
    /* the default drift's options (-bte_drift_form, _limiter, _mat_type; not -bte_efield, each solve
       sets its field): read now, on a scratch drift, so that -help lists them and a bad one is
       refused before the table is read; the solve's drift reads them again when it is made */
    BTEDrift d;
    PetscCall(BTEDriftCreate(hf->bte, &d));
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)d, ((PetscObject)hf)->prefix));
    PetscCall(BTEDriftSetOwned(d, PETSC_TRUE, PETSC_FALSE));
    PetscCall(BTEDriftSetFromOptions(d));
    PetscCall(BTEDriftDestroy(&d));
  }
  {
    /* read first as well: PETSc from 3.21 refuses these in SNESSetFromOptions itself, in messages
       that do not name the option */
    const char *sp;
    char        opt[256];
    PetscReal   v;
    PetscInt    iv;
    PetscBool   flg;
    MPI_Comm    comm = PetscObjectComm((PetscObject)hf);
    PetscCall(SNESGetOptionsPrefix(hf->snes, &sp));
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%ssnes_rtol", sp ? sp : ""));
    PetscCall(PetscOptionsGetReal(((PetscObject)hf)->options, NULL, opt, &v, &flg));
    PetscCheck(!flg || (v >= 0 && v < 1), comm, PETSC_ERR_USER_INPUT, "-bte_highfield_snes_rtol %g: must be in [0, 1) (a relative tolerance of 1 accepts the starting state)", (double)v);
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%ssnes_stol", sp ? sp : ""));
    PetscCall(PetscOptionsGetReal(((PetscObject)hf)->options, NULL, opt, &v, &flg));
    PetscCheck(!flg || (v >= 0 && v < 1), comm, PETSC_ERR_USER_INPUT, "-bte_highfield_snes_stol %g: must be in [0, 1)", (double)v);
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%ssnes_max_it", sp ? sp : ""));
    PetscCall(PetscOptionsGetInt(((PetscObject)hf)->options, NULL, opt, &iv, &flg));
    PetscCheck(!flg || iv >= 1, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_snes_max_it %" PetscInt_FMT ": must be >= 1", iv);
  }
  PetscCall(SNESSetFromOptions(hf->snes));
  {
    /* as transport's KSP tolerances: refused here, not met as PETSc's "solver returned without
       setting converged reason" (max_it -1) or accepted unsolved (rtol 2) */
    PetscReal rtol, stol;
    PetscInt  maxit;
    MPI_Comm  comm = PetscObjectComm((PetscObject)hf);
    PetscCall(SNESGetTolerances(hf->snes, NULL, &rtol, &stol, &maxit, NULL));
    PetscCheck(maxit >= 1, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_snes_max_it %" PetscInt_FMT ": must be >= 1", maxit);
    PetscCheck(rtol >= 0 && rtol < 1, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_snes_rtol %g: must be in [0, 1) (a relative tolerance of 1 accepts the starting state)", (double)rtol);
    PetscCheck(stol >= 0 && stol < 1, comm, PETSC_ERR_USER_INPUT, "-bte_highfield_snes_stol %g: must be in [0, 1)", (double)stol);
  }
  PetscCall(KSPSetFromOptions(hf->ptc_ksp));
  PetscFunctionReturn(0);
}

/* ---- residual ----
   Unknowns x: g = ln((1-f)/f) ("log" variables, the default) or f itself ("linear",
   for a drift discretisation that does not keep f in (0,1), -bte_drift_form plain; upwind and
   muscl keep it, and with linear unknowns their Newton and continuation stall on GaAs grids).
   With S the row scale (log: S = W = f(1-f); linear: S = f(1-f) of the field's starting
   state, frozen), m the row multiplier (log: 1/S; linear: -1/S, so that dx/dt = -r is
   the physical direction in both), kappa = -c (log) or +c (linear):
       r = m (R - p S) + kappa (N - N0)/N0,   p = sum R / sum S.
   Jacobian, with T = df/dx (log: -W; linear: 1), dS = dS/dx (log: -(1-2f)W; linear: 0)
   and d = dm/dx (R - p S) - m p dS (log: (1-2f) R/W; linear: 0):
       J_r x = m (J_R (T x)) + d x - (m S) 1 [1^T J_R (T x) / sum S - sum R/(sum S)^2 dS^T x]
               + (kappa/N0) 1 T^T x
   (m S = +1 log, -1 linear). */
/* f and S from x; PETSC_FALSE if x is out of range */
static PetscErrorCode HFOccupations(BTEHighField hf, Vec x, Vec f, Vec S, PetscBool *ok)
{
  const PetscScalar *a;
  PetscScalar       *fa, *sa;
  PetscInt           n;
  int                bad = 0, gbad;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(x, &n));
  if (!hf->logvars) {
    PetscReal nrm;
    PetscCall(VecCopy(x, f));
    PetscCall(VecCopy(hf->Sfix, S));
    PetscCall(VecNorm(x, NORM_INFINITY, &nrm));
    *ok = PetscIsInfOrNanReal(nrm) ? PETSC_FALSE : PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(VecGetArrayRead(x, &a));
  PetscCall(VecGetArrayWrite(f, &fa));
  PetscCall(VecGetArrayWrite(S, &sa));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal g = PetscRealPart(a[i]), c;
    if (!(PetscAbsReal(g) < 600)) {
      bad = 1;
      g   = g > 0 ? 600 : -600;
    }
    c     = PetscCoshReal(0.5 * g);
    fa[i] = 1.0 / (PetscExpReal(g) + 1.0);
    sa[i] = 1.0 / (4 * c * c); /* f (1 - f) */
  }
  PetscCall(VecRestoreArrayRead(x, &a));
  PetscCall(VecRestoreArrayWrite(f, &fa));
  PetscCall(VecRestoreArrayWrite(S, &sa));
  PetscCall(MPIU_Allreduce(&bad, &gbad, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)x)));
  *ok = gbad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

static inline PetscBool HFHasField(BTEHighField hf)
{
  return (hf->field[0] != 0 || hf->field[1] != 0 || hf->field[2] != 0) ? PETSC_TRUE : PETSC_FALSE;
}

/* R = I[f] + D_E(f) */
static PetscErrorCode HFRate(BTEHighField hf, Vec f, Vec R)
{
  PetscFunctionBegin;
  PetscCall(BTECollisionApply(hf->col, f, R));
  if (HFHasField(hf)) {
    PetscCall((*hf->drift.apply)(hf->drift.ctx, f, hf->work2));
    PetscCall(VecAXPY(R, 1.0, hf->work2));
  }
  PetscFunctionReturn(0);
}

/* r(x), leaving f, S, R and the sums in hf */
static PetscErrorCode HFResidual(BTEHighField hf, Vec x, Vec r, PetscBool *ok)
{
  PetscScalar sS, sR, N;
  PetscReal   p, kappa = hf->logvars ? -hf->c : hf->c;

  PetscFunctionBegin;
  PetscCall(HFOccupations(hf, x, hf->f, hf->W, ok));
  if (!*ok) PetscFunctionReturn(0);
  PetscCall(HFRate(hf, hf->f, hf->R));
  PetscCall(VecSum(hf->W, &sS));
  PetscCall(VecSum(hf->R, &sR));
  PetscCall(VecSum(hf->f, &N));
  hf->sW = PetscRealPart(sS);
  hf->sR = PetscRealPart(sR);
  p      = hf->sR / hf->sW;
  /* r = m (R - p S) + kappa (N - N0)/N0 */
  PetscCall(VecWAXPY(r, -p, hf->W, hf->R));
  PetscCall(VecPointwiseDivide(r, r, hf->W));
  if (!hf->logvars) PetscCall(VecScale(r, -1.0));
  PetscCall(VecShift(r, kappa * (PetscRealPart(N) - hf->N0) / hf->N0));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFSNESFunction(SNES snes, Vec x, Vec r, void *ctx)
{
  BTEHighField hf = (BTEHighField)ctx;
  PetscBool    ok;

  PetscFunctionBegin;
  PetscCall(HFResidual(hf, x, r, &ok));
  if (!ok) PetscCall(SNESSetFunctionDomainError(snes));
  PetscFunctionReturn(0);
}

/* ---- Jacobian of r ---- */
static PetscErrorCode HFSetJacobianState(BTEHighField hf, Vec x)
{
  PetscBool          ok;
  PetscScalar        s;
  const PetscScalar *fa, *sa, *ra;
  PetscScalar       *ma, *ta, *da, *dsa;
  PetscInt           n;
  PetscReal          p;

  PetscFunctionBegin;
  PetscCall(HFOccupations(hf, x, hf->fJ, hf->WJ, &ok));
  PetscCall(HFRate(hf, hf->fJ, hf->RJ));
  PetscCall(VecSum(hf->WJ, &s));
  hf->sWJ = PetscRealPart(s);
  PetscCall(VecSum(hf->RJ, &s));
  hf->sRJ = PetscRealPart(s);
  p       = hf->sRJ / hf->sWJ;
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(hf->fJ, &fa));
  PetscCall(VecGetArrayRead(hf->WJ, &sa));
  PetscCall(VecGetArrayRead(hf->RJ, &ra));
  PetscCall(VecGetArrayWrite(hf->mJ, &ma));
  PetscCall(VecGetArrayWrite(hf->TJ, &ta));
  PetscCall(VecGetArrayWrite(hf->dJ, &da));
  PetscCall(VecGetArrayWrite(hf->dSJ, &dsa));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal f = PetscRealPart(fa[i]), S = PetscRealPart(sa[i]), R = PetscRealPart(ra[i]);
    if (hf->logvars) {
      ma[i]  = 1.0 / S;
      ta[i]  = -S;
      dsa[i] = -(1 - 2 * f) * S;
      da[i]  = (1 - 2 * f) * R / S;
    } else {
      ma[i]  = -1.0 / S;
      ta[i]  = 1;
      dsa[i] = 0;
      da[i]  = 0;
    }
  }
  (void)p;
  PetscCall(VecRestoreArrayRead(hf->fJ, &fa));
  PetscCall(VecRestoreArrayRead(hf->WJ, &sa));
  PetscCall(VecRestoreArrayRead(hf->RJ, &ra));
  PetscCall(VecRestoreArrayWrite(hf->mJ, &ma));
  PetscCall(VecRestoreArrayWrite(hf->TJ, &ta));
  PetscCall(VecRestoreArrayWrite(hf->dJ, &da));
  PetscCall(VecRestoreArrayWrite(hf->dSJ, &dsa));
  PetscCall(BTECollisionComputeJacobian(hf->col, hf->fJ, hf->Jc));
  if (HFHasField(hf) && hf->drift.setstate) PetscCall((*hf->drift.setstate)(hf->drift.ctx, hf->fJ));
  PetscFunctionReturn(0);
}

/* y = J_R t (collision + drift Jacobian in f at fJ) */
static PetscErrorCode HFJacobianR(BTEHighField hf, Vec t, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MatMult(hf->Jc, t, y));
  hf->applies++;
  if (HFHasField(hf)) {
    if (hf->drift.jacmultadd) {
      PetscCall((*hf->drift.jacmultadd)(hf->drift.ctx, t, y));
    } else {
      /* finite differences: (D(fJ + h t) - D(fJ))/h */
      Vec       fp, d0;
      PetscReal tn, h;
      PetscCall(VecDuplicate(t, &fp));
      PetscCall(VecDuplicate(t, &d0));
      PetscCall(VecNorm(t, NORM_INFINITY, &tn));
      h = tn > 0 ? 1e-7 / tn : 0;
      if (h > 0) {
        PetscCall(VecWAXPY(fp, h, t, hf->fJ));
        PetscCall((*hf->drift.apply)(hf->drift.ctx, fp, hf->work2));
        PetscCall((*hf->drift.apply)(hf->drift.ctx, hf->fJ, d0));
        PetscCall(VecAXPY(hf->work2, -1.0, d0));
        PetscCall(VecScale(hf->work2, 1.0 / h));
        PetscCall(VecAXPY(y, 1.0, hf->work2));
      }
      PetscCall(VecDestroy(&fp));
      PetscCall(VecDestroy(&d0));
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode HFJrMult(Mat A, Vec x, Vec y)
{
  BTEHighField       hf;
  const PetscScalar *xa, *ma, *da, *dsa, *ta, *ya;
  PetscScalar       *wa;
  PetscInt           n;
  PetscReal          loc[3] = {0, 0, 0}, glob[3], ms, kappa;
  Vec                t;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hf));
  ms    = hf->logvars ? 1.0 : -1.0;
  kappa = hf->logvars ? -hf->c : hf->c;
  t     = hf->work;
  PetscCall(VecPointwiseMult(t, hf->TJ, x));
  PetscCall(HFJacobianR(hf, t, y));
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(hf->mJ, &ma));
  PetscCall(VecGetArrayRead(hf->dJ, &da));
  PetscCall(VecGetArrayRead(hf->dSJ, &dsa));
  PetscCall(VecGetArrayRead(hf->TJ, &ta));
  PetscCall(VecGetArrayRead(y, &ya));
  PetscCall(VecGetArrayWrite(t, &wa));
  for (PetscInt i = 0; i < n; i++) {
    loc[0] += PetscRealPart(ya[i]);
    loc[1] += PetscRealPart(dsa[i] * xa[i]);
    loc[2] += PetscRealPart(ta[i] * xa[i]);
    wa[i] = ma[i] * ya[i] + da[i] * xa[i];
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(hf->mJ, &ma));
  PetscCall(VecRestoreArrayRead(hf->dJ, &da));
  PetscCall(VecRestoreArrayRead(hf->dSJ, &dsa));
  PetscCall(VecRestoreArrayRead(hf->TJ, &ta));
  PetscCall(VecRestoreArrayRead(y, &ya));
  PetscCall(VecRestoreArrayWrite(t, &wa));
  PetscCall(MPIU_Allreduce(loc, glob, 3, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)A)));
  PetscCall(VecCopy(t, y));
  PetscCall(VecShift(y, -ms * (glob[0] / hf->sWJ - hf->sRJ / (hf->sWJ * hf->sWJ) * glob[1]) + kappa / hf->N0 * glob[2]));
  PetscFunctionReturn(0);
}

/* Jacobi diagonal: m diag(J_R) T + d + (m S) sum R/(sum S)^2 dS + kappa T / N0
   (log: Gamma - diag J_D + ...; the column-sum term of the projection is left out). */
static PetscErrorCode HFJrDiagonal(Mat A, Vec d)
{
  BTEHighField       hf;
  const PetscScalar *ma, *da, *dsa, *ta;
  PetscScalar       *a;
  PetscInt           n;
  PetscReal          ms, kappa;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hf));
  ms    = hf->logvars ? 1.0 : -1.0;
  kappa = hf->logvars ? -hf->c : hf->c;
  PetscCall(MatGetDiagonal(hf->Jc, d));
  if (HFHasField(hf) && hf->drift.diagadd) PetscCall((*hf->drift.diagadd)(hf->drift.ctx, d));
  PetscCall(VecGetLocalSize(d, &n));
  PetscCall(VecGetArrayRead(hf->mJ, &ma));
  PetscCall(VecGetArrayRead(hf->dJ, &da));
  PetscCall(VecGetArrayRead(hf->dSJ, &dsa));
  PetscCall(VecGetArrayRead(hf->TJ, &ta));
  PetscCall(VecGetArray(d, &a));
  for (PetscInt i = 0; i < n; i++) {
    a[i] = ma[i] * a[i] * ta[i] + da[i] + ms * hf->sRJ / (hf->sWJ * hf->sWJ) * dsa[i] + kappa * ta[i] / hf->N0;
    if (PetscRealPart(a[i]) <= 0) a[i] = hf->c; /* states without scattering */
  }
  PetscCall(VecRestoreArrayRead(hf->mJ, &ma));
  PetscCall(VecRestoreArrayRead(hf->dJ, &da));
  PetscCall(VecRestoreArrayRead(hf->dSJ, &dsa));
  PetscCall(VecRestoreArrayRead(hf->TJ, &ta));
  PetscCall(VecRestoreArray(d, &a));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFPtcMult(Mat A, Vec x, Vec y)
{
  BTEHighField hf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hf));
  PetscCall(HFJrMult(hf->Jr, x, y));
  PetscCall(VecAXPY(y, hf->ptc_shift, x));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFPtcDiagonal(Mat A, Vec d)
{
  BTEHighField hf;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &hf));
  PetscCall(HFJrDiagonal(hf->Jr, d));
  PetscCall(VecShift(d, hf->ptc_shift));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFSNESJacobian(SNES snes, Vec g, Mat J, Mat P, void *ctx)
{
  PetscFunctionBegin;
  PetscCall(HFSetJacobianState((BTEHighField)ctx, g));
  PetscFunctionReturn(0);
}

/* Pseudo-transient continuation from g until ||r|| <= target. */
static PetscErrorCode HFPseudoTransient(BTEHighField hf, PetscReal target, PetscInt *steps, PetscBool *conv)
{
  Vec       dg, gold;
  PetscReal rn, rnew, dt;
  PetscBool ok;

  PetscFunctionBegin;
  *conv  = PETSC_FALSE;
  *steps = 0;
  PetscCall(VecDuplicate(hf->g, &dg));
  PetscCall(VecDuplicate(hf->g, &gold));
  PetscCall(HFResidual(hf, hf->g, hf->r, &ok));
  PetscCheck(ok, PetscObjectComm((PetscObject)hf), PETSC_ERR_NOT_CONVERGED, "High field: the starting occupations are outside what the log unknowns g = ln((1-f)/f) hold in double precision (f rounds to 0 or 1: at T = %g K the occupations span too many orders of magnitude): raise -bte_temperature or give -bte_highfield_variables linear", (double)hf->bte->temperature);
  PetscCall(VecNorm(hf->r, NORM_2, &rn));
  dt = hf->ptc_dt0;
  if (dt <= 0) dt = 1.0 / hf->c;
  PetscCall(KSPSetOperators(hf->ptc_ksp, hf->Jptc, hf->Jptc));
  for (PetscInt it = 1; it <= hf->ptc_max_it && rn > target; it++) {
    KSPConvergedReason reason;
    PetscCall(HFSetJacobianState(hf, hf->g));
    hf->ptc_shift = 1.0 / dt;
    PetscCall(KSPSolve(hf->ptc_ksp, hf->r, dg));
    PetscCall(KSPGetConvergedReason(hf->ptc_ksp, &reason));
    PetscCall(VecCopy(hf->g, gold));
    PetscCall(VecAXPY(hf->g, -1.0, dg));
    PetscCall(HFResidual(hf, hf->g, hf->r, &ok));
    if (ok) PetscCall(VecNorm(hf->r, NORM_2, &rnew));
    if (!ok || PetscIsInfOrNanReal(rnew) || reason < 0 || rnew > 1e3 * rn) {
      /* reject: back to the old state with a smaller step */
      PetscCall(VecCopy(gold, hf->g));
      PetscCall(HFResidual(hf, hf->g, hf->r, &ok));
      dt *= 0.1;
      if (dt <= 1e-12) { /* stuck: this field is not converged, like one that runs out of steps (the
                            command then exits 1, or keeps every field's result with -bte_allow_unconverged) */
        if (hf->monitor) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)hf), "    ptc: no step is accepted down to 1e-12 fs: stopped at ||r|| %10.3e\n", (double)rn));
        break;
      }
      continue;
    }
    *steps = it;
    dt     = PetscMin(dt * rn / rnew, hf->ptc_dtmax);
    if (hf->monitor) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)hf), "    ptc step %4" PetscInt_FMT ": dt %10.3e fs, ||r|| %10.3e\n", it, (double)dt, (double)rnew));
    rn = rnew;
  }
  *conv = rn <= target ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VecDestroy(&dg));
  PetscCall(VecDestroy(&gold));
  PetscFunctionReturn(0);
}

static PetscErrorCode HFSetField(BTEHighField hf, PetscReal E)
{
  PetscFunctionBegin;
  for (PetscInt a = 0; a < 3; a++) hf->field[a] = E * hf->dir[a];
  PetscCall((*hf->drift.setfield)(hf->drift.ctx, hf->field));
  PetscFunctionReturn(0);
}

/* Newton from hf->g at the current field */
static PetscErrorCode HFNewton(BTEHighField hf, PetscInt *its, PetscBool *conv, SNESConvergedReason *reason)
{
  PetscFunctionBegin;
  PetscCall(SNESSolve(hf->snes, NULL, hf->g));
  PetscCall(SNESGetConvergedReason(hf->snes, reason));
  PetscCall(SNESGetIterationNumber(hf->snes, its));
  *conv = *reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* drift velocity, mean energy, valley and band occupations of f */
static PetscErrorCode HFObservables(BTEHighField hf, Vec f, BTEHighFieldResult *res, PetscReal vocc[], PetscReal bocc[])
{
  BTE                bte = hf->bte;
  const PetscScalar *fa;
  const PetscReal   *e, *vel;
  const PetscInt    *band;
  PetscInt           n, nb = bte->nbands;
  PetscReal         *loc, *glob;

  PetscFunctionBegin;
  PetscCall(PetscCalloc2(5 + nb, &loc, 5 + nb, &glob));
  PetscCall(BTEGetNumStates(bte, &n, NULL));
  PetscCall(BTEGetLocalStates(bte, &e, &vel, NULL, &band));
  PetscCall(VecGetArrayRead(f, &fa));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal x = PetscRealPart(fa[i]);
    loc[0] += x;
    loc[1] += x * vel[3 * i];
    loc[2] += x * vel[3 * i + 1];
    loc[3] += x * vel[3 * i + 2];
    loc[4] += x * (e[i] - hf->emin);
    loc[5 + band[i]] += x;
  }
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(MPIU_Allreduce(loc, glob, 5 + nb, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)hf)));
  for (PetscInt a = 0; a < 3; a++) res->velocity[a] = BTE_VEL_CM_S * glob[1 + a] / glob[0];
  res->drift_velocity = res->velocity[0] * hf->dir[0] + res->velocity[1] * hf->dir[1] + res->velocity[2] * hf->dir[2];
  res->mean_energy    = glob[4] / glob[0];
  res->number_error   = PetscAbsReal(glob[0] - hf->N0) / hf->N0;
  for (PetscInt b = 0; b < nb; b++) bocc[b] = glob[5 + b] / glob[0];
  PetscCall(BTEValleysOccupation(bte, (BTEValleys)hf->valleys, f, vocc, &res->edge_occupation));
  PetscCall(PetscFree2(loc, glob));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSetUp - Builds the collision operator of the next BTEHighFieldSolve() (at the BTE's temperature) and the setup diagnostics with it

   Collective

   Input Parameter:
.  hf - the high-field object

   Notes:
   BTEHighFieldSolve() calls it. Called first, the diagnostics that BTEView() prints (docs/diagnostics.md)
   come from the run's own operator instead of one built for them: at 2e9 channels that second
   setup took a quarter of a run. Each solve uses the operator made since the previous solve, or
   makes a new one.

   Level: intermediate

.seealso: `BTEHighFieldSolve()`, `BTEGetDiagnostics()`
@*/
PetscErrorCode BTEHighFieldSetUp(BTEHighField hf)
{
  BTE bte;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  bte = hf->bte;
  PetscCall(BTESetUp(bte));
  if (!hf->colready) {
    PetscCall(BTECollisionDestroy(&hf->col));
    PetscCall(BTECollisionCreate(bte, &hf->col));
    PetscCall(BTECollisionSetFromOptions(hf->col));
    PetscCall(BTECollisionSetUp(hf->col));
    hf->colready = PETSC_TRUE;
  }
  PetscCall(BTEDiagnosticsCompute(bte, hf->col, NULL));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldSolve - Solves for the steady state at every field strength

   Collective

   Input Parameter:
.  hf - the high-field object

   Level: beginner

.seealso: `BTEHighFieldGetResult()`
@*/
PetscErrorCode BTEHighFieldSolve(BTEHighField hf)
{
  BTE        bte;
  MPI_Comm   comm;
  PetscInt   dim, nl, N, nb;
  PetscReal  kT, atol, gnorm;
  BTEValleys valleys;
  PetscBool  ok;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  bte  = hf->bte;
  comm = PetscObjectComm((PetscObject)hf);
  PetscCheck(hf->nE > 0, comm, PETSC_ERR_USER_INPUT, "bte highfield needs field strengths: -bte_efield_list 500,1000,2000 (V/cm)");
  PetscCall(BTESetUp(bte));
  {
    PetscReal Emax = 0;
    for (PetscInt k = 0; k < hf->nE; k++) Emax = PetscMax(Emax, PetscAbsReal(hf->E[k]));
    PetscCall(BTEFieldCaveat(bte, Emax));
  }
  PetscCall(PetscLogEventBegin(BTE_HighFieldSolve, hf, 0, 0, 0));
  PetscCall(BTEHighFieldResetSolve(hf));
  PetscCall(BTEGetGrid(bte, &dim, NULL, NULL, NULL, NULL));
  PetscCall(BTEGetNumStates(bte, &nl, &N));
  nb = bte->nbands;
  if (!hf->have_drift) {
    PetscCall(BTEHighFieldCreateDefaultDrift(hf, &hf->drift));
    hf->have_drift = PETSC_TRUE;
  }
  PetscCall(BTEGetTemperature(bte, &hf->T));
  kT = BTE_KB * hf->T;
  hf->n = hf->density > 0 ? hf->density : (dim == 2 ? 1e12 : 1e17);
  PetscCall(BTEChemicalPotential(bte, hf->T, hf->n, &hf->mu));
  {
    const PetscReal *e;
    PetscReal        emin = PETSC_MAX_REAL;
    PetscCall(BTEGetLocalStates(bte, &e, NULL, NULL, NULL));
    for (PetscInt i = 0; i < nl; i++) emin = PetscMin(emin, e[i]);
    PetscCall(MPIU_Allreduce(&emin, &hf->emin, 1, MPIU_REAL, MPIU_MIN, comm));
  }
  /* collision operator at the lattice temperature (made by BTEHighFieldSetUp() if called before) */
  PetscCall(BTEHighFieldSetUp(hf));
  hf->colready = PETSC_FALSE; /* a later solve builds its own, as the BTE may have changed */
  PetscCall(BTECollisionCreateJacobian(hf->col, &hf->Jc));
  /* vectors */
  if (hf->g) {
    PetscInt n;
    PetscCall(VecGetSize(hf->g, &n));
    if (n != N) PetscCall(VecDestroy(&hf->g));
  }
  if (!hf->g) PetscCall(BTECreateStateVec(bte, &hf->g));
  PetscCall(VecDuplicate(hf->g, &hf->r));
  PetscCall(VecDuplicate(hf->g, &hf->f));
  PetscCall(VecDuplicate(hf->g, &hf->W));
  PetscCall(VecDuplicate(hf->g, &hf->R));
  PetscCall(VecDuplicate(hf->g, &hf->gamma0));
  PetscCall(VecDuplicate(hf->g, &hf->work));
  PetscCall(VecDuplicate(hf->g, &hf->work2));
  PetscCall(VecDuplicate(hf->g, &hf->one));
  PetscCall(VecDuplicate(hf->g, &hf->fJ));
  PetscCall(VecDuplicate(hf->g, &hf->WJ));
  PetscCall(VecDuplicate(hf->g, &hf->RJ));
  PetscCall(VecDuplicate(hf->g, &hf->mJ));
  PetscCall(VecDuplicate(hf->g, &hf->TJ));
  PetscCall(VecDuplicate(hf->g, &hf->dJ));
  PetscCall(VecDuplicate(hf->g, &hf->dSJ));
  PetscCall(VecDuplicate(hf->g, &hf->Sfix));
  PetscCall(VecSet(hf->one, 1.0));
  /* equilibrium start: g = (e - mu)/kT */
  {
    const PetscReal *e;
    PetscScalar     *ga;
    PetscCall(BTEGetLocalStates(bte, &e, NULL, NULL, NULL));
    PetscCall(VecGetArrayWrite(hf->g, &ga));
    for (PetscInt i = 0; i < nl; i++) ga[i] = (e[i] - hf->mu) / kT;
    PetscCall(VecRestoreArrayWrite(hf->g, &ga));
  }
  /* unknowns: g, unless the drift does not keep f in (0,1) */
  hf->logvars = hf->vars == 1 ? PETSC_FALSE : (hf->vars == 0 ? PETSC_TRUE : hf->drift.positive);
  PetscCall(PetscInfo(hf, "unknowns: %s\n", hf->logvars ? "g = ln((1-f)/f)" : "f"));
  hf->logvars = PETSC_TRUE;
  PetscCall(HFOccupations(hf, hf->g, hf->f, hf->W, &ok));
  hf->logvars = hf->vars == 1 ? PETSC_FALSE : (hf->vars == 0 ? PETSC_TRUE : hf->drift.positive);
  if (!hf->logvars) PetscCall(VecCopy(hf->f, hf->g));
  {
    PetscScalar s, sw, swg;
    PetscCall(VecSum(hf->f, &s));
    hf->N0 = PetscRealPart(s);
    PetscCall(BTECollisionComputeJacobian(hf->col, hf->f, hf->Jc));
    PetscCall(MatGetDiagonal(hf->Jc, hf->gamma0));
    PetscCall(VecScale(hf->gamma0, -1.0));
    PetscCall(VecNorm(hf->gamma0, NORM_2, &gnorm));
    hf->gnorm0 = gnorm;
    PetscCall(VecSum(hf->W, &sw));
    PetscCall(VecDot(hf->gamma0, hf->W, &swg));
    hf->c = PetscRealPart(swg) / PetscRealPart(sw);
    PetscCheck(hf->c > 0, comm, PETSC_ERR_ARG_WRONGSTATE, "High field: the carriers do not scatter (Gamma = 0 at equilibrium); check the table");
  }
  /* Jacobian shells */
  PetscCall(MatCreateShell(comm, nl, nl, N, N, hf, &hf->Jr));
  PetscCall(MatShellSetOperation(hf->Jr, MATOP_MULT, (void (*)(void))HFJrMult));
  PetscCall(MatShellSetOperation(hf->Jr, MATOP_GET_DIAGONAL, (void (*)(void))HFJrDiagonal));
  PetscCall(MatShellSetVecType(hf->Jr, ((PetscObject)hf->g)->type_name));
  PetscCall(MatCreateShell(comm, nl, nl, N, N, hf, &hf->Jptc));
  PetscCall(MatShellSetOperation(hf->Jptc, MATOP_MULT, (void (*)(void))HFPtcMult));
  PetscCall(MatShellSetOperation(hf->Jptc, MATOP_GET_DIAGONAL, (void (*)(void))HFPtcDiagonal));
  PetscCall(MatShellSetVecType(hf->Jptc, ((PetscObject)hf->g)->type_name));
  PetscCall(SNESSetFunction(hf->snes, hf->r, HFSNESFunction, hf));
  PetscCall(SNESSetJacobian(hf->snes, hf->Jr, hf->Jr, HFSNESJacobian, hf));
  /* The absolute tolerance follows -bte_highfield_tol (relative to this solve's ||Gamma||) unless
     the SNES's atol was set, through the API or the options: a value other than the one bte
     set last is the application's and is used as it is. */
  PetscCall(SNESGetTolerances(hf->snes, &atol, NULL, NULL, NULL, NULL));
  if (atol == hf->snes_atol) {
    atol = hf->tol * hf->gnorm0;
    PetscCall(SNESSetTolerances(hf->snes, atol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(SNESGetTolerances(hf->snes, &hf->snes_atol, NULL, NULL, NULL, NULL));
  }

  /* valleys */
  {
    BTEValleys v = (BTEValleys)hf->valleys;
    PetscCall(BTEValleysDestroy(&v));
  }
  PetscCall(BTEValleysCreate(bte, hf->drift.nsteps, hf->drift.steps, &valleys));
  hf->valleys = valleys;
  PetscCall(PetscFree(hf->res));
  PetscCall(PetscFree(hf->valley_occ));
  PetscCall(PetscFree(hf->band_occ));
  hf->nres = hf->nE;
  PetscCall(PetscCalloc1(hf->nE, &hf->res));
  PetscCall(PetscCalloc1(hf->nE * PetscMax(valleys->nkind, 1), &hf->valley_occ));
  PetscCall(PetscCalloc1(hf->nE * nb, &hf->band_occ));
  if (hf->monitor) PetscCall(PetscPrintf(comm, "high field: T = %g K, n = %g %s (mu = %g eV), %" PetscInt_FMT " states, c = <Gamma> = %g 1/fs, target ||r|| <= %g\n", (double)hf->T, (double)hf->n, dim == 2 ? "cm^-2" : "cm^-3", (double)hf->mu, N, (double)hf->c, (double)atol));

  for (PetscInt k = 0; k < hf->nE; k++) {
    BTEHighFieldResult *res = &hf->res[k];
    Vec                 gstart;
    PetscBool           conv = PETSC_FALSE;
    PetscReal           rn;
    PetscInt            its  = 0;

    PetscCall(HFSetField(hf, hf->E[k]));
    res->field = hf->E[k];
    hf->applies = 0;
    PetscCall(VecDuplicate(hf->g, &gstart));
    PetscCall(VecCopy(hf->g, gstart));
    if (!hf->logvars) {
      /* row scale of the linear unknowns: f (1 - f) of this field's starting state, floored */
      PetscReal   smax;
      PetscScalar *sa;
      PetscInt    n;
      PetscCall(VecGetLocalSize(hf->g, &n));
      PetscCall(VecCopy(hf->g, hf->Sfix));
      PetscCall(VecGetArray(hf->Sfix, &sa));
      for (PetscInt i = 0; i < n; i++) sa[i] = PetscAbsScalar(sa[i] * (1.0 - sa[i]));
      PetscCall(VecRestoreArray(hf->Sfix, &sa));
      PetscCall(VecMax(hf->Sfix, NULL, &smax));
      PetscCall(VecGetArray(hf->Sfix, &sa));
      for (PetscInt i = 0; i < n; i++) sa[i] = PetscMax(PetscRealPart(sa[i]), 1e-12 * smax);
      PetscCall(VecRestoreArray(hf->Sfix, &sa));
    }
    if (hf->method == BTE_HIGHFIELD_NEWTON) {
      SNESConvergedReason reason;
      PetscReal           Eprev = k ? hf->E[k - 1] : 0.0;
      PetscCall(HFNewton(hf, &its, &conv, &reason));
      /* Newton failed from the previous field's solution: continuation in the field,
         2, then 4 sub-steps from the previous field */
      for (PetscInt nsub = 2; !conv && nsub <= 4 && hf->E[k] != Eprev; nsub *= 2) {
        if (hf->monitor) PetscCall(PetscPrintf(comm, "  Newton failed at %g V/cm (%s): %" PetscInt_FMT " field steps from %g V/cm\n", (double)hf->E[k], SNESConvergedReasons[reason], nsub, (double)Eprev));
        PetscCall(VecCopy(gstart, hf->g));
        conv = PETSC_TRUE;
        for (PetscInt sub = 1; sub <= nsub && conv; sub++) {
          PetscInt  its1;
          PetscReal Es = Eprev + (hf->E[k] - Eprev) * sub / nsub;
          PetscCall(HFSetField(hf, Es));
          PetscCall(HFNewton(hf, &its1, &conv, &reason));
          its += its1;
        }
      }
      if (!conv) {
        PetscInt  steps, its2;
        PetscBool pconv;
        PetscCall(PetscInfo(hf, "Newton failed at %g V/cm (%s): pseudo-transient continuation\n", (double)hf->E[k], SNESConvergedReasons[reason]));
        if (hf->monitor) PetscCall(PetscPrintf(comm, "  Newton failed at %g V/cm (%s): pseudo-transient continuation\n", (double)hf->E[k], SNESConvergedReasons[reason]));
        PetscCall(HFSetField(hf, hf->E[k]));
        PetscCall(VecCopy(gstart, hf->g));
        PetscCall(HFResidual(hf, hf->g, hf->r, &ok));
        PetscCall(VecNorm(hf->r, NORM_2, &rn));
        PetscCall(HFPseudoTransient(hf, PetscMax(atol, hf->ptc_switch * rn), &steps, &pconv));
        res->used_ptc = PETSC_TRUE;
        PetscCall(HFNewton(hf, &its2, &conv, &reason));
        its = its + steps + its2;
      }
    } else {
      PetscCall(HFPseudoTransient(hf, atol, &its, &conv));
      res->used_ptc = PETSC_TRUE;
    }
    PetscCall(VecDestroy(&gstart));
    PetscCall(HFResidual(hf, hf->g, hf->r, &ok));
    PetscCall(VecNorm(hf->r, NORM_2, &rn));
    if (!(rn <= atol * 1.0000001)) { /* also when rn is not finite */
      /* SNES may stop by its relative or step tolerance above the absolute one bte requires: that
         is not a solution, and the line says why (it was flipped to NOT CONVERGED silently, and
         the advice named -snes_max_it) */
      if (conv && !PetscIsInfOrNanReal(rn)) {
        SNESConvergedReason sr;
        char                Es[32];
        snprintf(Es, sizeof(Es), "%g", (double)hf->E[k]); /* the C library's: PETSc's writes 1000 as "1000." */
        PetscCall(SNESGetConvergedReason(hf->snes, &sr));
        PetscCall(PetscPrintf(comm, "high field: %s V/cm: the solve stopped (%s) at ||r|| = %.3g, above the absolute tolerance %.3g that a solution must meet: not converged; tighten -bte_highfield_snes_rtol and -bte_highfield_snes_stol, or set -bte_highfield_snes_atol\n", Es, hf->method == BTE_HIGHFIELD_NEWTON ? SNESConvergedReasons[sr] : "pseudo-transient continuation", (double)rn, (double)atol));
      }
      conv = PETSC_FALSE;
    }
    if (conv && !(rn <= hf->residual_max * hf->gnorm0)) {
      /* an application's SNES atol above the residual of the starting state accepts it unsolved */
      conv = PETSC_FALSE;
      PetscCall(PetscPrintf(comm, "high field: %g V/cm: the solve stopped at ||r||/||Gamma|| = %.3g, above -bte_highfield_residual_max %g: not a solution (check -bte_highfield_snes_atol and the other SNES tolerances)\n", (double)hf->E[k], (double)(rn / hf->gnorm0), (double)hf->residual_max));
    }
    {
      PetscBool finite;
      PetscCall(BTEStateCheck(hf->f, -1, &finite, NULL, NULL, NULL));
      PetscCheck(finite, comm, PETSC_ERR_NOT_CONVERGED, "High field at %g V/cm: the state is not finite (NaN or Inf) after %s: the solve diverged; try -bte_highfield_method ptc, smaller field steps in -bte_efield_list, or check the table", (double)hf->E[k], res->used_ptc ? "pseudo-transient continuation" : "Newton");
    }
    res->residual   = rn / hf->gnorm0;
    res->iterations = its;
    res->applies    = hf->applies;
    res->converged  = conv;
    {
      PetscScalar sf;
      PetscCall(VecSum(hf->f, &sf));
      res->number_source = hf->sR / PetscRealPart(sf); /* sum I = 0: sum R = sum D */
    }
    PetscCall(HFObservables(hf, hf->f, res, &hf->valley_occ[k * PetscMax(valleys->nkind, 1)], &hf->band_occ[k * nb]));
    if (res->edge_occupation > 1e-3) PetscCall(PetscPrintf(comm, "WARNING: at %g V/cm %.2g of the carriers sit on states at the edge of the energy window: the window is too narrow for this field (raise -bte_window)\n", (double)res->field, (double)res->edge_occupation));
    if (hf->monitor) PetscCall(PetscPrintf(comm, "  E = %10.4g V/cm: v_d = %11.4e cm/s, <e> = %8.5f eV, its %4" PetscInt_FMT ", applies %6" PetscInt64_FMT ", ||r||/||Gamma|| %8.2e, drift number source %9.2e 1/fs%s\n", (double)res->field, (double)res->drift_velocity, (double)res->mean_energy, its, res->applies, (double)res->residual, (double)res->number_source, conv ? "" : " NOT CONVERGED"));
  }
  PetscCall(PetscLogEventEnd(BTE_HighFieldSolve, hf, 0, 0, 0));
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldGetNumResults - Gets the number of fields solved

   Not Collective

   Input Parameter:
.  hf - the high-field object

   Output Parameter:
.  n - the number

   Level: beginner

.seealso: `BTEHighFieldGetResult()`
@*/
PetscErrorCode BTEHighFieldGetNumResults(BTEHighField hf, PetscInt *n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscAssertPointer(n, 2);
  *n = hf->nres;
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldGetResult - Gets the result at one field

   Not Collective

   Input Parameters:
+  hf - the high-field object
-  i  - the field, 0 .. n-1

   Output Parameter:
.  r - drift velocity, mean energy, residual and convergence

   Level: beginner

.seealso: `BTEHighFieldGetNumResults()`
@*/
PetscErrorCode BTEHighFieldGetResult(BTEHighField hf, PetscInt i, BTEHighFieldResult *r)
{
  PetscFunctionBegin;
  PetscCheck(i >= 0 && i < hf->nres, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "Result %" PetscInt_FMT " out of range [0, %" PetscInt_FMT "): call BTEHighFieldSolve() first", i, hf->nres);
  *r = hf->res[i];
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldGetValleys - Gets the valley groups whose occupations the results report

   Not Collective

   Input Parameter:
.  hf - the high-field object

   Output Parameters:
+  n        - number of valley groups (may be NULL)
.  labels   - their labels (may be NULL)
-  energies - their minimum energies, eV (may be NULL)

   Notes:
   After BTEHighFieldSolve().

   Level: intermediate

.seealso: `BTEHighFieldGetValleyOccupations()`
@*/
PetscErrorCode BTEHighFieldGetValleys(BTEHighField hf, PetscInt *n, const char *const *labels[], const PetscReal *energies[])
{
  BTEValleys v = (BTEValleys)hf->valleys;

  PetscFunctionBegin;
  PetscCheck(v, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_WRONGSTATE, "Call BTEHighFieldSolve() first");
  if (n) *n = v->nkind;
  if (labels) *labels = v->labelp;
  if (energies) *energies = v->kind_e;
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldGetValleyOccupations - Gets the valley occupations of one result

   Not Collective

   Input Parameters:
+  hf - the high-field object
-  i  - the field, 0 .. n-1

   Output Parameter:
.  occ - fraction of the carriers in each valley group

   Level: intermediate

.seealso: `BTEHighFieldGetValleys()`
@*/
PetscErrorCode BTEHighFieldGetValleyOccupations(BTEHighField hf, PetscInt i, const PetscReal *occ[])
{
  BTEValleys v = (BTEValleys)hf->valleys;

  PetscFunctionBegin;
  PetscCheck(v && i >= 0 && i < hf->nres, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_OUTOFRANGE, "No result %" PetscInt_FMT ": call BTEHighFieldSolve() first", i);
  *occ = &hf->valley_occ[i * PetscMax(v->nkind, 1)];
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldGetSolution - Gets the steady-state occupations at the last field solved

   Not Collective

   Input Parameter:
.  hf - the high-field object

   Output Parameter:
.  f - the occupations (not a copy)

   Level: intermediate

.seealso: `BTEHighFieldSolve()`
@*/
PetscErrorCode BTEHighFieldGetSolution(BTEHighField hf, Vec *f)
{
  PetscFunctionBegin;
  PetscCheck(hf->f, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_WRONGSTATE, "Call BTEHighFieldSolve() first");
  *f = hf->f;
  PetscFunctionReturn(0);
}

/*@
   BTEHighFieldView - Prints the high-field solver's settings and results

   Collective

   Input Parameters:
+  hf - the high-field object
-  v  - the viewer (NULL: standard output)

   Level: beginner

.seealso: `BTEHighFieldGetResult()`
@*/
PetscErrorCode BTEHighFieldView(BTEHighField hf, PetscViewer v)
{
  PetscBool  iascii;
  BTEValleys val;
  PetscInt   dim;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  if (!v) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)hf), &v));
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)hf, v));
  PetscCall(PetscViewerASCIIPushTab(v));
  PetscCall(PetscViewerASCIIPrintf(v, "method: %s\n", hf->method == BTE_HIGHFIELD_NEWTON ? "newton (SNES; pseudo-transient continuation if Newton fails)" : "ptc (pseudo-transient continuation)"));
  PetscCall(PetscViewerASCIIPrintf(v, "field direction: (%g, %g, %g)\n", (double)hf->dir[0], (double)hf->dir[1], (double)hf->dir[2]));
  if (!hf->nres) {
    /* before a solve: what it will do (the settings; the results table comes after it) */
    char line[1024] = "fields (V/cm):", item[32];
    for (PetscInt k = 0; k < hf->nE; k++) {
      PetscCall(PetscSNPrintf(item, sizeof(item), " %g", (double)hf->E[k]));
      PetscCall(PetscStrlcat(line, item, sizeof(line)));
    }
    if (!hf->nE) PetscCall(PetscStrlcat(line, " none set (-bte_efield_list)", sizeof(line)));
    PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    if (hf->density > 0) PetscCall(PetscViewerASCIIPrintf(v, "carrier density: %g (cm^-3; cm^-2 in 2D)\n", (double)hf->density));
    else PetscCall(PetscViewerASCIIPrintf(v, "carrier density: the default (1e17 cm^-3, 1e12 cm^-2 in 2D)\n"));
  }
  if (hf->nres) {
    val = (BTEValleys)hf->valleys;
    PetscCall(BTEGetGrid(hf->bte, &dim, NULL, NULL, NULL, NULL));
    PetscCall(PetscViewerASCIIPrintf(v, "T = %g K, carrier density %g %s (equilibrium mu = %g eV)\n", (double)hf->T, (double)hf->n, dim == 2 ? "cm^-2" : "cm^-3", (double)hf->mu));
    {
      char line[1024] = "valleys (band minima, occupation columns occ[k] below):", item[128];
      for (PetscInt k = 0; k < val->nkind; k++) {
        PetscCall(PetscSNPrintf(item, sizeof(item), "%s [%d] %s at %.4f eV", k ? "," : "", (int)k, val->label[k], (double)(val->kind_e[k] - hf->emin)));
        PetscCall(PetscStrlcat(line, item, sizeof(line)));
      }
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
      PetscCall(PetscSNPrintf(line, sizeof(line), "%11s %13s %10s %5s %8s %9s %8s", "E(V/cm)", "v_d(cm/s)", "<e>(eV)", "its", "applies", "residual", "edge"));
      for (PetscInt k = 0; k < val->nkind && k < 6; k++) {
        PetscCall(PetscSNPrintf(item, sizeof(item), "  occ[%d]", (int)k));
        PetscCall(PetscStrlcat(line, item, sizeof(line)));
      }
      PetscCall(PetscViewerASCIIPrintf(v, "%s\n", line));
    }
    for (PetscInt i = 0; i < hf->nres; i++) {
      const BTEHighFieldResult *r = &hf->res[i];
      char                      line[1024], item[64];
      PetscCall(PetscSNPrintf(line, sizeof(line), "%11.5g %13.5e %10.5f %5" PetscInt_FMT " %8" PetscInt64_FMT " %9.2e %8.1e", (double)r->field, (double)r->drift_velocity, (double)r->mean_energy, r->iterations, r->applies, (double)r->residual, (double)r->edge_occupation));
      for (PetscInt k = 0; k < val->nkind && k < 6; k++) {
        PetscCall(PetscSNPrintf(item, sizeof(item), " %7.4f", (double)hf->valley_occ[i * PetscMax(val->nkind, 1) + k]));
        PetscCall(PetscStrlcat(line, item, sizeof(line)));
      }
      PetscCall(PetscViewerASCIIPrintf(v, "%s%s%s\n", line, r->used_ptc ? " (ptc)" : "", r->converged ? "" : " NOT CONVERGED"));
    }
  }
  PetscCall(PetscViewerASCIIPopTab(v));
  PetscFunctionReturn(0);
}

/* ---- HDF5: group /highfield of an output file of the output layer (src/io/output.c) ---- */
typedef struct {
  BTEHighField hf;
  PetscInt     dim, nk[3], nbands, spin;
  PetscReal    eta;
  const char  *model;
} HFWriteCtx;

/* file types of the integers: PetscInt as it is (i32, or i64 with 64-bit PetscInt), counts as i64 */
#define BTE_HF_H5_INT (sizeof(PetscInt) == 8 ? H5T_STD_I64LE : H5T_STD_I32LE)

/* Rank 0: group /highfield */
static int HFWriter(const HFWriteCtx *c, hid_t f, BTEH5Status *st)
{
  BTEHighField hf  = c->hf;
  BTEValleys   val = (BTEValleys)hf->valleys;
  PetscInt     n = hf->nres, nv = PetscMax(val->nkind, 1), nb = c->nbands;
  hsize_t      d1[1] = {(hsize_t)n}, d2[2] = {(hsize_t)n, 3}, dv[2] = {(hsize_t)n, (hsize_t)nv}, db[2] = {(hsize_t)n, (hsize_t)nb}, dk[1] = {(hsize_t)nv}, d3[1] = {3};
  hid_t        g;
  PetscReal   *buf;
  PetscInt    *ibuf;
  long long   *lbuf;
  char        *lbl, grid[64];

  g = H5Gcreate2(f, "highfield", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "cannot create group /highfield");
  buf  = (PetscReal *)malloc((3 * n + n * nv + n * nb + 3 * nv + 1) * sizeof(PetscReal));
  ibuf = (PetscInt *)malloc((n + 1) * sizeof(PetscInt));
  lbuf = (long long *)malloc((n + 1) * sizeof(long long));
  lbl  = (char *)calloc(nv, BTE_VALLEY_LABEL);
  if (!buf || !ibuf || !lbuf || !lbl) BTEH5Fail(st, "out of memory");
#define REAL(name, rank, dims, units, desc) \
  if (!st->bad) (void)BTEH5WriteDataset(g, name, H5T_IEEE_F64LE, BTE_H5_NATIVE_REAL, rank, dims, buf, units, desc, st)
#define INT(name, desc) \
  if (!st->bad) (void)BTEH5WriteDataset(g, name, BTE_HF_H5_INT, BTE_H5_NATIVE_INT, 1, d1, ibuf, "1", desc, st)
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].field;
  REAL("field", 1, d1, "V/cm", "field strength |E| along field_direction");
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].drift_velocity;
  REAL("drift_velocity", 1, d1, "cm/s", "v_d = sum f v.E_hat / sum f (negative: carriers move against E)");
  for (PetscInt k = 0; !st->bad && k < n; k++)
    for (PetscInt a = 0; a < 3; a++) buf[3 * k + a] = hf->res[k].velocity[a];
  REAL("velocity", 2, d2, "cm/s", "mean velocity sum f v / sum f");
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].mean_energy;
  REAL("mean_energy", 1, d1, "eV", "sum f (e - e_min) / sum f, e_min = lowest state in the window");
  for (PetscInt k = 0; !st->bad && k < n * nv; k++) buf[k] = hf->valley_occ[k];
  REAL("valley_occupation", 2, dv, "1", "fraction of the carriers in each valley kind (valley_label)");
  for (PetscInt k = 0; !st->bad && k < n * nb; k++) buf[k] = hf->band_occ[k];
  REAL("band_occupation", 2, db, "1", "fraction of the carriers in each band");
  for (PetscInt k = 0; !st->bad && k < nv; k++) buf[k] = val->nkind ? val->kind_e[k] - hf->emin : 0;
  REAL("valley_energy", 1, dk, "eV", "valley minimum above the lowest state");
  for (PetscInt k = 0; !st->bad && k < val->nkind; k++) strncpy(lbl + k * BTE_VALLEY_LABEL, val->label[k], BTE_VALLEY_LABEL - 1);
  if (!st->bad) (void)BTEH5WriteStrings(g, "valley_label", (hsize_t)nv, BTE_VALLEY_LABEL, lbl, "the valley kind of each column of valley_occupation", st);
  {
    /* where each kind lies, exactly (the label rounds k to 3 decimals: 0.0625 read 0.062) */
    hsize_t dk3[2] = {(hsize_t)nv, 3};
    for (PetscInt k = 0; !st->bad && k < nv; k++)
      for (int a = 0; a < 3; a++) buf[3 * k + a] = k < val->nkind ? val->kind_red[k][a] : 0;
    REAL("valley_kpoint", 2, dk3, "1", "k of one minimum of each valley kind, crystal coordinates (fractions of the reciprocal lattice vectors)");
  }
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].residual;
  REAL("residual", 1, d1, "1", "||r|| / ||Gamma|| at the returned state (r: residual scaled to 1/fs)");
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].number_error;
  REAL("number_error", 1, d1, "1", "|sum f - N0| / N0");
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].edge_occupation;
  REAL("edge_occupation", 1, d1, "1", "fraction of the carriers on states with a grid neighbour outside the energy window (above ~1e-3: widen the window)");
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = hf->res[k].number_source;
  REAL("number_source", 1, d1, "1/fs", "sum D / sum f: carriers the discretised drift creates per carrier and fs at the steady state (removed by the carrier-number constraint; 0 for a conserving drift)");
  for (PetscInt k = 0; !st->bad && k < n; k++) ibuf[k] = hf->res[k].iterations;
  INT("iterations", "Newton plus pseudo-time steps");
  for (PetscInt k = 0; !st->bad && k < n; k++) lbuf[k] = (long long)hf->res[k].applies;
  if (!st->bad) (void)BTEH5WriteDataset(g, "operator_applies", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, d1, lbuf, "1", "collision Jacobian applies", st);
  for (PetscInt k = 0; !st->bad && k < n; k++) ibuf[k] = hf->res[k].converged ? 1 : 0;
  INT("converged", "1 if the tolerance was met");
  for (PetscInt k = 0; !st->bad && k < n; k++) ibuf[k] = hf->res[k].used_ptc ? 1 : 0;
  INT("used_ptc", "1 if pseudo-transient continuation was used");
  if (!st->bad) (void)BTEH5WriteDataset(g, "field_direction", H5T_IEEE_F64LE, BTE_H5_NATIVE_REAL, 1, d3, hf->dir, "1", "unit vector of E (Cartesian)", st);
#undef REAL
#undef INT
  snprintf(grid, sizeof(grid), "%d x %d x %d", (int)c->nk[0], (int)c->nk[1], (int)c->nk[2]);
  if (!st->bad) BTEH5WriteAttrString(g, "method", BTEHighFieldMethods[hf->method], st);
  if (!st->bad) BTEH5WriteAttrReals(g, "temperature_K", 1, (double[]){hf->T}, "K", st);
  if (!st->bad) BTEH5WriteAttrReals(g, "carrier_density", 1, (double[]){hf->n}, c->dim == 2 ? "cm^-2" : "cm^-3", st);
  if (!st->bad) BTEH5WriteAttrReals(g, "chemical_potential_eV", 1, (double[]){hf->mu}, "eV", st);
  if (!st->bad) BTEH5WriteAttrString(g, "k_grid", grid, st);
  if (!st->bad) BTEH5WriteAttrString(g, "model", c->model ? c->model : "", st);
  if (!st->bad) BTEH5WriteAttrInts(g, "dimension", 1, (long long[]){c->dim}, st);
  /* what else decides the result, so that the file can be reproduced: the drift's form (a 10 %
     difference in v_d at low field between forms on a coarse grid), the delta and its width */
  if (!st->bad) BTEH5WriteAttrString(g, "drift_form", c->hf->driftname, st);
  if (!st->bad) BTEH5WriteAttrReals(g, "smearing_eV", 1, (double[]){c->eta}, "eV", st);
  if (!st->bad) BTEH5WriteAttrString(g, "delta", BTEDeltas[c->hf->bte->delta], st);
  if (!st->bad) BTEH5WriteAttrInts(g, "spin_degeneracy", 1, (long long[]){c->spin}, st);
  free(buf);
  free(ibuf);
  free(lbuf);
  free(lbl);
  H5Gclose(g);
  return st->bad ? -1 : 0;
}

/*@
   BTEHighFieldWriteHDF5 - Writes the results to an HDF5 file (/highfield, docs/transport.md)

   Collective

   Input Parameters:
+  hf   - the high-field object
-  file - the file

   Level: beginner

.seealso: `BTEHighFieldSolve()`
@*/
PetscErrorCode BTEHighFieldWriteHDF5(BTEHighField hf, const char file[])
{
  HFWriteCtx   c;
  BTEOutput    out;
  hid_t        f;
  BTEH5Status *st;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(hf, BTEHIGHFIELD_CLASSID, 1);
  PetscCheck(hf->nres > 0, PetscObjectComm((PetscObject)hf), PETSC_ERR_ARG_WRONGSTATE, "Call BTEHighFieldSolve() before BTEHighFieldWriteHDF5()");
  PetscCall(PetscLogEventBegin(BTE_TransportIO, hf, 0, 0, 0));
  c.hf     = hf;
  c.nbands = hf->bte->nbands;
  PetscCall(BTEGetGrid(hf->bte, &c.dim, c.nk, NULL, NULL, NULL));
  PetscCall(BTEGetModel(hf->bte, &c.model));
  PetscCall(BTEGetSpinDegeneracy(hf->bte, &c.spin));
  PetscCall(BTEGetSmearing(hf->bte, &c.eta));
  PetscCall(BTEOutputCreate(hf->bte, file, NULL, "high-field", PETSC_FALSE, &out));
  PetscCall(BTEOutputWriteRunInfo(out, hf->col)); /* the diagnostics with the solver's operator */
  PetscCall(BTEOutputGetFile(out, &f, &st));
  if (st) (void)HFWriter(&c, f, st);
  PetscCall(BTEOutputClose(&out));
  PetscCall(PetscLogEventEnd(BTE_TransportIO, hf, 0, 0, 0));
  PetscFunctionReturn(0);
}
