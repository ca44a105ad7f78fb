/* Dynamics package registration, initial distributions and moments of the occupations. */
#include <bte/private/dynamicsimpl.h>

PetscClassId  BTEDRIFT_CLASSID, BTEDYNAMICS_CLASSID;
PetscLogEvent BTE_DriftApply, BTE_DriftJacobian, BTE_DriftSetUp, BTE_DynamicsOutput, BTE_DynamicsRestart;
static PetscBool BTEDynamicsPackageInitialized = PETSC_FALSE;

const char *const BTEInitTypes[] = {"fermi", "gaussian", "lorentz", "restart", "BTEInitType", "BTE_INIT_", NULL};

static PetscErrorCode BTEDynamicsPackageFinalize(void)
{
  PetscFunctionBegin;
  BTEDynamicsPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsPackageInitialize(void)
{
  PetscFunctionBegin;
  if (BTEDynamicsPackageInitialized) PetscFunctionReturn(0);
  BTEDynamicsPackageInitialized = PETSC_TRUE;
  PetscCall(BTEInitializePackage());
  PetscCall(PetscClassIdRegister("BTEDrift", &BTEDRIFT_CLASSID));
  PetscCall(PetscClassIdRegister("BTEDynamics", &BTEDYNAMICS_CLASSID));
  PetscCall(PetscLogEventRegister("BTEDriftSetUp", BTEDRIFT_CLASSID, &BTE_DriftSetUp));
  PetscCall(PetscLogEventRegister("BTEDriftApply", BTEDRIFT_CLASSID, &BTE_DriftApply));
  PetscCall(PetscLogEventRegister("BTEDriftJacobian", BTEDRIFT_CLASSID, &BTE_DriftJacobian));
  PetscCall(PetscLogEventRegister("BTEDynOutput", BTEDYNAMICS_CLASSID, &BTE_DynamicsOutput));
  PetscCall(PetscLogEventRegister("BTEDynRestart", BTEDYNAMICS_CLASSID, &BTE_DynamicsRestart));
  PetscCall(PetscRegisterFinalize(BTEDynamicsPackageFinalize));
  PetscFunctionReturn(0);
}

/*@
   BTEGetBandEdge - Gets the lowest state energy in the window (the band edge of the carriers)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  edge - the energy, eV

   Level: beginner

.seealso: `BTEComputeDistribution()`
@*/
PetscErrorCode BTEGetBandEdge(BTE bte, PetscReal *edge)
{
  PetscReal e = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(edge, 2);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  for (PetscInt i = 0; i < bte->nlocal; i++) e = PetscMin(e, bte->energy[i]);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)bte)));
  *edge = e;
  PetscFunctionReturn(0);
}

/*@
   BTEComputeMoments - Computes the moments of occupations f

   Collective

   Input Parameters:
+  bte - the BTE
-  f   - the occupations

   Output Parameters:
+  ncell   - carriers per unit cell, s/Nk sum f (may be NULL)
.  density - carrier density, cm^-3 (cm^-2 in 2D; may be NULL)
.  emean   - mean energy, eV, the table's energy zero (may be NULL)
-  v       - mean velocity, cm/s (may be NULL)

   Level: beginner

.seealso: `BTEGetBandEdge()`, `BTECarrierDensity()`
@*/
PetscErrorCode BTEComputeMoments(BTE bte, Vec f, PetscReal *ncell, PetscReal *density, PetscReal *emean, PetscReal v[3])
{
  const PetscScalar *a;
  PetscReal          s[5] = {0, 0, 0, 0, 0}, nk, percell;
  PetscInt           n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  PetscValidHeaderSpecific(f, VEC_CLASSID, 2);
  /* the loop below reads nlocal entries */
  PetscCall(VecGetLocalSize(f, &n));
  PetscCheck(n == bte->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The vector has %" PetscInt_FMT " entries on this rank, the BTE %" PetscInt_FMT " states: make it with BTECreateStateVec()", n, bte->nlocal);
  PetscCall(VecGetArrayRead(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    PetscReal fi = PetscRealPart(a[i]);
    s[0] += fi;
    s[1] += fi * bte->energy[i];
    for (PetscInt c = 0; c < 3; c++) s[2 + c] += fi * bte->velocity[3 * i + c];
  }
  PetscCall(VecRestoreArrayRead(f, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, s, 5, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)bte)));
  nk      = (PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
  percell = bte->spin * s[0] / nk;
  if (ncell) *ncell = percell;
  /* cell volume in Angstrom^3 (area in Angstrom^2 in 2D) -> cm^-3 (cm^-2) */
  if (density) *density = bte->grid.volume > 0 ? percell / bte->grid.volume * (bte->grid.dim == 2 ? 1e16 : 1e24) : 0;
  if (emean) *emean = s[0] != 0 ? s[1] / s[0] : 0;
  if (v)
    for (PetscInt c = 0; c < 3; c++) v[c] = s[0] != 0 ? s[2 + c] / s[0] * 1e7 : 0; /* Angstrom/fs -> cm/s */
  PetscFunctionReturn(0);
}

/*@
   BTEComputeDistribution - Fills a vector with one of Perturbo's initial distributions on the state energies

   Collective

   Input Parameters:
+  bte   - the BTE
.  type  - BTE_INIT_FERMI, BTE_INIT_GAUSSIAN or BTE_INIT_LORENTZ
.  e0    - centre, eV (the table's energy zero)
.  smear - width, eV (kT for fermi)
-  A     - peak occupation (gaussian, lorentz)

   Output Parameter:
.  f - the occupations

   Level: beginner

.seealso: `BTEFermiDirac()`, `BTEDynamicsSetInitialState()`
@*/
PetscErrorCode BTEComputeDistribution(BTE bte, BTEInitType type, PetscReal e0, PetscReal smear, PetscReal A, Vec f)
{
  PetscScalar *a;
  MPI_Comm     comm;
  PetscInt     n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  PetscValidHeaderSpecific(f, VEC_CLASSID, 6);
  comm = PetscObjectComm((PetscObject)bte);
  PetscCheck(type >= BTE_INIT_FERMI && type <= BTE_INIT_RESTART, comm, PETSC_ERR_ARG_OUTOFRANGE, "Unknown initial distribution %d: fermi, gaussian or lorentz", (int)type);
  PetscCheck(!PetscIsInfOrNanReal(e0), comm, PETSC_ERR_ARG_OUTOFRANGE, "The initial distribution's centre is not a number");
  PetscCheck(smear > 0 && !PetscIsInfOrNanReal(smear), comm, PETSC_ERR_ARG_OUTOFRANGE, "The initial distribution's width (-bte_init_smear) must be positive (eV), got %g", (double)smear);
  PetscCheck(type == BTE_INIT_FERMI || (A > 0 && A <= 1), comm, PETSC_ERR_ARG_OUTOFRANGE, "The peak occupation must lie in (0, 1], got %g", (double)A);
  PetscCheck(type != BTE_INIT_RESTART, comm, PETSC_ERR_ARG_WRONG, "A restart state comes from a file: use BTEDynamicsComputeInitialState()");
  /* the loop below writes nlocal entries */
  PetscCall(VecGetLocalSize(f, &n));
  PetscCheck(n == bte->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The vector has %" PetscInt_FMT " entries on this rank, the BTE %" PetscInt_FMT " states: make it with BTECreateStateVec()", n, bte->nlocal);
  PetscCall(VecGetArrayWrite(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    PetscReal x = (bte->energy[i] - e0) / smear;
    switch (type) {
    case BTE_INIT_FERMI:
      a[i] = x > 700 ? 0.0 : 1.0 / (PetscExpReal(x) + 1.0);
      break;
    case BTE_INIT_GAUSSIAN:
      a[i] = A * PetscExpReal(-x * x);
      break;
    case BTE_INIT_LORENTZ:
      a[i] = A / (x * x + 1.0);
      break;
    default:
      break;
    }
  }
  PetscCall(VecRestoreArrayWrite(f, &a));
  PetscFunctionReturn(0);
}
