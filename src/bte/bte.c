/* The BTE object: lifecycle and options. */
#include <bte/private/validate.h>
#include <bte/private/dynamicsimpl.h> /* PCCreate_BTETwoLevel */

PetscClassId  BTE_CLASSID;
const char *const BTEDeltas[] = {"perturbo", "balanced", "BTEDelta", "BTE_DELTA_", NULL};
PetscLogEvent BTE_SetUp, BTE_TableRead, BTE_TableWrite, BTE_Generate, BTE_Diagnostics;
static PetscBool BTEPackageInitialized = PETSC_FALSE;

/*@
   BTEFinalizePackage - Frees what BTEInitializePackage() registered (the model list)

   Not Collective

   Notes:
   Called by PetscFinalize().

   Level: developer

.seealso: `BTEInitializePackage()`
@*/
PetscErrorCode BTEFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&BTEModelList));
  BTEPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
   BTEInitializePackage - Registers the BTE class, its log events and the built-in models

   Not Collective

   Notes:
   Called by BTECreate() and the other constructors; an application calls it only to register its
   own models or collision types before creating any object, which BTEModelRegister() and
   BTECollisionRegister() also do.

   Level: developer

.seealso: `BTEFinalizePackage()`, `BTEModelRegister()`
@*/
PetscErrorCode BTEInitializePackage(void)
{
  PetscFunctionBegin;
  if (BTEPackageInitialized) PetscFunctionReturn(0);
  BTEPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("BTE", &BTE_CLASSID));
  PetscCall(PetscLogEventRegister("BTESetUp", BTE_CLASSID, &BTE_SetUp));
  PetscCall(PetscLogEventRegister("BTETableRead", BTE_CLASSID, &BTE_TableRead));
  PetscCall(PetscLogEventRegister("BTETableWrite", BTE_CLASSID, &BTE_TableWrite));
  PetscCall(PetscLogEventRegister("BTEGenerate", BTE_CLASSID, &BTE_Generate));
  PetscCall(PetscLogEventRegister("BTEDiagnostics", BTE_CLASSID, &BTE_Diagnostics));
  PetscCall(PetscLogEventRegister("BTEStateCheck", BTE_CLASSID, &BTE_StateCheck));
  PetscCall(BTEModelRegisterAll());
  /* so that -pc_type bte_twolevel works on the KSP of any implicit TS over bte's Jacobian */
  PetscCall(PCRegister(PCBTETWOLEVEL, PCCreate_BTETwoLevel));
  PetscCall(PetscRegisterFinalize(BTEFinalizePackage));
  PetscFunctionReturn(0);
}

/*@
   BTECreate - Creates a BTE: the state space (k grid, bands, energy window, states over the ranks) and the scattering channels of a table or a model

   Collective

   Input Parameter:
.  comm - the MPI communicator

   Output Parameter:
.  bte - the new BTE

   Notes:
   Give it a table (BTESetInputFile()) or a model (BTESetModel()), then BTESetFromOptions() and
   BTESetUp().

   Level: beginner

.seealso: `BTESetUp()`, `BTEDestroy()`, `BTESetInputFile()`, `BTESetModel()`
@*/
PetscErrorCode BTECreate(MPI_Comm comm, BTE *bte)
{
  BTE b;

  PetscFunctionBegin;
  PetscAssertPointer(bte, 2);
  PetscCall(BTEInitializePackage());
  PetscCall(PetscHeaderCreate(b, BTE_CLASSID, "BTE", "Electron-phonon Boltzmann equation", "BTE", comm, BTEDestroy, BTEView));
  b->ngrid       = 24;
  b->temperature = 300.0;
  b->smearing    = 0.010;
  b->delta       = BTE_DELTA_PERTURBO;
  b->emin        = PETSC_MIN_REAL;
  b->emax        = PETSC_MAX_REAL;
  b->window      = 0.3;
  b->g2_cutoff   = 0.0;
  b->phonon_min  = 0.001;
  b->tol_eta     = 3.0;
  b->spin        = 2;
  b->carrier     = -1;
  b->mem_limit   = 0; /* 0: take the machine's memory */
  b->memcheck    = PETSC_TRUE;
  b->loadchannels = PETSC_BOOL3_TRUE;
  b->gpieces      = -1;
  b->iochunk      = 1 << 20;
  b->genbatch     = 0;
  b->pairbatch    = 4096;
  b->genreuse     = PETSC_TRUE;
  b->genmonitor   = PETSC_FALSE;
  b->genmonauto   = PETSC_TRUE;
  b->diagnostics  = PETSC_TRUE;
  *bte           = b;
  PetscFunctionReturn(0);
}

/*@
   BTEDestroy - Destroys a BTE

   Collective

   Input Parameter:
.  bte - the BTE (set to NULL)

   Level: beginner

.seealso: `BTECreate()`
@*/
PetscErrorCode BTEDestroy(BTE *bte)
{
  PetscFunctionBegin;
  if (!bte || !*bte) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(*bte, BTE_CLASSID, 1);
  if (--((PetscObject)(*bte))->refct > 0) {
    *bte = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(BTEFreeStates(*bte));
  PetscCall(BTEFreeChannels(*bte));
  PetscCall(BTEModelReset(*bte));
  PetscCall(PetscHeaderDestroy(bte));
  PetscFunctionReturn(0);
}

/*@
   BTESetInputFile - Sets the scattering table the BTE reads at setup

   Logically Collective

   Input Parameters:
+  bte  - the BTE
-  file - an HDF5 table (docs/format.md)

   Options Database Key:
.  -bte_input <file> - the table

   Level: beginner

.seealso: `BTESetModel()`, `BTESetUp()`
@*/
PetscErrorCode BTESetInputFile(BTE bte, const char file[])
{
  PetscBool same;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  /* the table is read once, at setup: another one later would be ignored */
  PetscCall(PetscStrcmp(bte->input, file ? file : "", &same));
  if (same && bte->setupcalled) PetscFunctionReturn(0);
  PetscCheck(!bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetInputFile() before BTESetUp(): the BTE is set up on %s%s; use a new BTE", bte->input[0] ? "table " : "model ", bte->input[0] ? bte->input : bte->model);
  PetscCall(PetscStrncpy(bte->input, file ? file : "", sizeof(bte->input)));
  bte->caveat[0] = bte->fieldcaveat[0][0] = bte->fieldcaveat[1][0] = 0;
  PetscFunctionReturn(0);
}

/* A different model drops the previous one's parameters (its options are read again by
   BTESetFromOptions); the same model keeps them. */
/*@
   BTESetModel - Sets the model material whose table the BTE generates at setup

   Logically Collective

   Input Parameters:
+  bte   - the BTE
-  model - a registered model name (parabolic, gaas, graphene, si-holes, perturbo, or one registered
           with BTEModelRegister())

   Options Database Key:
.  -bte_model <name> - the model

   Notes:
   The model's own options are read by BTESetFromOptions().

   Level: beginner

.seealso: `BTEModelRegister()`, `BTEModelGetTypes()`, `BTESetInputFile()`
@*/
PetscErrorCode BTESetModel(BTE bte, const char model[])
{
  PetscBool same;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(PetscStrcmp(bte->model, model ? model : "", &same));
  if (same) PetscFunctionReturn(0);
  /* the model's table is generated once, at setup: another model later would be ignored */
  PetscCheck(!bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetModel() before BTESetUp(): the BTE is set up on %s%s; use a new BTE", bte->input[0] ? "table " : "model ", bte->input[0] ? bte->input : bte->model);
  PetscCall(BTEModelReset(bte));
  PetscCall(PetscStrncpy(bte->model, model ? model : "", sizeof(bte->model)));
  bte->caveat[0] = bte->fieldcaveat[0][0] = bte->fieldcaveat[1][0] = 0;
  PetscFunctionReturn(0);
}

/*@
   BTEGetModel - Gets the name of the BTE's model

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  model - the model name, "" when the BTE reads a table (not a copy)

   Level: beginner

.seealso: `BTESetModel()`
@*/
PetscErrorCode BTEGetModel(BTE bte, const char *model[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(model, 2);
  *model = bte->model;
  PetscFunctionReturn(0);
}

/*@
   BTESetGrid - Sets the number of k points per reciprocal direction of a model's grid

   Logically Collective

   Input Parameters:
+  bte - the BTE
-  n   - k points per direction (>= 2)

   Options Database Key:
.  -bte_grid <n> - k points per direction

   Notes:
   Used by models; a table brings its own grid.

   Level: beginner

.seealso: `BTESetModel()`, `BTEGetGrid()`
@*/
PetscErrorCode BTESetGrid(BTE bte, PetscInt n)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  /* the grid is built once, at setup: another one later would be ignored */
  PetscCheck(!bte->setupcalled || n == bte->ngrid, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetGrid() before BTESetUp(): the BTE is set up; use a new BTE for another grid");
  PetscCheck(n >= 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "The k grid (-bte_grid, BTESetGrid) must have at least 2 points per direction, got %" PetscInt_FMT, n);
  bte->ngrid    = n;
  bte->grid_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@
   BTESetTemperature - Sets the lattice temperature

   Logically Collective

   Input Parameters:
+  bte - the BTE
-  T   - temperature, K (> 0)

   Options Database Key:
.  -bte_temperature <K> - lattice temperature

   Notes:
   A value set here is used as set: a table's temperature applies only when none was set.

   Level: beginner

.seealso: `BTEGetTemperature()`, `BTECollisionSetTemperature()`
@*/
PetscErrorCode BTESetTemperature(BTE bte, PetscReal T)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(T > 0 && !PetscIsInfOrNanReal(T), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive (K), got %g", (double)T);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "temperature (-bte_temperature)", T, BTE_TEMPERATURE_MIN, BTE_TEMPERATURE_MAX, "K", NULL));
  bte->temperature     = T;
  bte->temperature_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@
   BTEGetTemperature - Gets the lattice temperature

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  T - temperature, K

   Level: beginner

.seealso: `BTESetTemperature()`
@*/
PetscErrorCode BTEGetTemperature(BTE bte, PetscReal *T)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(T, 2);
  *T = bte->temperature;
  PetscFunctionReturn(0);
}

/*@
   BTESetSmearing - Sets the smearing eta of the Gaussian that stands for energy conservation

   Logically Collective

   Input Parameters:
+  bte - the BTE
-  eta - smearing, eV (> 0); G(x) = exp(-(x/eta)^2)/(eta sqrt(pi))

   Options Database Key:
.  -bte_smearing <eV> - the smearing

   Notes:
   A value set here is used as set: a table's smearing applies only when none was set.

   Level: beginner

.seealso: `BTEGetSmearing()`
@*/
PetscErrorCode BTESetSmearing(BTE bte, PetscReal eta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(eta > 0 && !PetscIsInfOrNanReal(eta), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Smearing must be positive (eV), got %g", (double)eta);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "smearing (-bte_smearing)", eta, BTE_SMEARING_MIN, BTE_SMEARING_MAX, "eV", NULL));
  bte->smearing     = eta;
  bte->smearing_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/*@
   BTEGetSmearing - Gets the smearing

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  eta - smearing, eV

   Level: beginner

.seealso: `BTESetSmearing()`
@*/
PetscErrorCode BTEGetSmearing(BTE bte, PetscReal *eta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(eta, 2);
  *eta = bte->smearing;
  PetscFunctionReturn(0);
}

/*@
   BTESetDelta - Sets the discretisation of the energy-conserving delta in the collision rates

   Logically Collective

   Input Parameters:
+  bte   - the BTE
-  delta - `BTE_DELTA_PERTURBO` (default: Perturbo's Gaussian convention) or `BTE_DELTA_BALANCED`
           (the Gaussian weight split by the Boltzmann factor of the states' energy difference, so that
           Fermi-Dirac at the lattice temperature is an exact steady state)

   Options Database Key:
.  -bte_delta <perturbo,balanced> - the discretisation

   Notes:
   A table file records the delta it was made with (`BTEWriteTable()`, attribute `delta` of
   /channels); a run from the file uses it unless one is set here or by the option.

   Level: intermediate

.seealso: `BTEGetDelta()`, `BTEGetDiagnostics()`
@*/
PetscErrorCode BTESetDelta(BTE bte, BTEDelta delta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(delta == BTE_DELTA_PERTURBO || delta == BTE_DELTA_BALANCED, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Unknown delta discretisation %d; -bte_delta takes perturbo or balanced", (int)delta);
  bte->delta     = delta;
  bte->delta_set = PETSC_TRUE; /* wins over a table file's */
  PetscFunctionReturn(0);
}

/*@
   BTEGetDelta - Gets the discretisation of the energy-conserving delta

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  delta - `BTE_DELTA_PERTURBO` or `BTE_DELTA_BALANCED`

   Level: intermediate

.seealso: `BTESetDelta()`
@*/
PetscErrorCode BTEGetDelta(BTE bte, BTEDelta *delta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(delta, 2);
  *delta = bte->delta;
  PetscFunctionReturn(0);
}

/*@
   BTESetMemoryLimit - Sets the memory a rank may use; setup and runs that need more are refused early

   Logically Collective

   Input Parameters:
+  bte   - the BTE
-  bytes - bytes per rank; 0 (default) for the rank's share of the machine's memory

   Options Database Key:
.  -bte_memory_limit <GB> - memory per rank

   Level: intermediate

.seealso: `BTEGetMemoryLimit()`, `BTEGetMemoryEstimate()`
@*/
PetscErrorCode BTESetMemoryLimit(BTE bte, PetscLogDouble bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bytes >= 0 && !PetscIsInfOrNanReal((PetscReal)bytes), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "The memory limit must be >= 0 bytes (0: the machine's memory), got %g", (double)bytes);
  bte->mem_limit = bytes;
  PetscFunctionReturn(0);
}

/*@
   BTEGetMemoryLimit - Gets the memory a rank may use

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  bytes - bytes per rank (0: the machine's share)

   Level: intermediate

.seealso: `BTESetMemoryLimit()`
@*/
PetscErrorCode BTEGetMemoryLimit(BTE bte, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(bytes, 2);
  *bytes = bte->mem_limit;
  PetscFunctionReturn(0);
}

/* The only place where the BTE and its model read options. A value given here or through a
   setter is marked as set, and a table's value never replaces it (BTESetUp). */
/*@
   BTESetFromOptions - Reads the BTE's options (table or model, grid, temperature, smearing, window, memory and I/O settings, the model's own options)

   Collective

   Input Parameter:
.  bte - the BTE

   Options Database Keys:
+  -bte_input <file>              - scattering table (HDF5, docs/format.md)
.  -bte_model <name>              - built-in or registered model (not with -bte_input)
.  -bte_grid <n>                  - models: k points per reciprocal direction (default 24)
.  -bte_window <eV>               - models: energy window above the band edge (default 0.3, gaas 0.7)
.  -bte_g2_cutoff <eV^2>          - models: drop channels with |g|^2 below this (default 0)
.  -bte_phonon_min <eV>           - models: drop channels with phonon energy below this (default 0.001)
.  -bte_energy_tolerance <x>      - models: keep channels with ||e_i-e_j|-hw| < x eta (default 3)
.  -bte_generate_monitor <bool>   - models: progress of the channel search every 10% (default: from 10 s into a build on)
.  -bte_generate_batch <n>        - models: channels a rank holds at a time when writing a table while generating (0: automatic)
.  -bte_generate_pair_batch <n>   - models evaluating couplings in batches (the GPU import): pairs of states per batch, 1..4096 (default 4096)
.  -bte_generate_reuse <bool>     - models: keep the channels found while counting, to evaluate each coupling once (default true; false on a GPU)
.  -bte_temperature <K>           - lattice temperature (default: a table's, else 300)
.  -bte_smearing <eV>             - Gaussian smearing eta of energy conservation (default: a table's, else 0.01)
.  -bte_delta <perturbo,balanced> - discretised delta of energy conservation (balanced: Fermi-Dirac is an exact steady state)
.  -bte_memory_limit <GB>         - memory a rank may use (0: its share of 90% of the node's physical memory)
.  -bte_memory_check <bool>       - refuse a table or run whose memory estimate exceeds it (default true)
.  -bte_io_chunk <n>              - channels per rank per I/O step when reading or writing tables (default 2^20)
-  -bte_diagnostics <bool>        - diagnostics at setup in views and outputs (default true; they cost a collision setup and 15-40 applies)

   Notes:
   The only place the BTE reads the options database. As everywhere in PETSc, an option given
   replaces a value set through the API before this call; a value set after it is used as set, and
   a value no option names is kept. -help lists the options of the model given (-bte_model) or,
   when no model is given, those of every model.

   Level: beginner

.seealso: `BTECreate()`, `BTESetUp()`
@*/
PetscErrorCode BTESetFromOptions(BTE bte)
{
  char      buf[PETSC_MAX_PATH_LEN];
  PetscBool flg;
  PetscReal memgb = bte->mem_limit / 1e9, v;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscObjectOptionsBegin((PetscObject)bte);
#if defined(BTE_HAVE_CUDA)
  /* the type BTECreateStateVec's VecSetFromOptions will give the state Vecs: with CUDA Vecs the
     memory checks made before the collision setup leave out a layout built on the host (the pair
     layout is built on the device where it fits; the setup checks it wherever it is not) */
  {
    char  vt[64];
    char *cuda = NULL;
    PetscCall(PetscOptionsGetString(((PetscObject)bte)->options, NULL, "-vec_type", vt, sizeof(vt), &flg));
    if (flg) PetscCall(PetscStrstr(vt, "cuda", &cuda));
    bte->devlayout = cuda ? PETSC_TRUE : PETSC_FALSE;
  }
#endif
  PetscCall(PetscOptionsString("-bte_input", "Scattering table (HDF5, docs/format.md)", "BTESetInputFile", bte->input, buf, sizeof(buf), &flg));
  if (flg) PetscCall(BTESetInputFile(bte, buf));
  PetscCall(PetscOptionsFList("-bte_model", "Built-in model material", "BTESetModel", BTEModelList, bte->model, buf, sizeof(buf), &flg));
  if (flg) PetscCall(BTESetModel(bte, buf));
  PetscCheck(!bte->input[0] || !bte->model[0], PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "Give either a table (-bte_input %s) or a built-in model (-bte_model %s), not both", bte->input, bte->model);
  {
    PetscInt n = bte->ngrid; /* through BTESetGrid(), which refuses a new grid after setup */
    PetscCall(PetscOptionsInt("-bte_grid", "k points per reciprocal direction (models)", "BTESetGrid", n, &n, &flg));
    if (flg) PetscCall(BTESetGrid(bte, n));
  }
  PetscCall(PetscOptionsReal("-bte_window", "Energy window above the band edge (models; default 0.3, gaas 0.7), eV", "BTESetUp", bte->window, &bte->window, &flg));
  if (flg) bte->window_set = PETSC_TRUE;
  PetscCheck(bte->window > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_window must be positive (eV), got %g", (double)bte->window);
  PetscCall(PetscOptionsReal("-bte_smearing", "Gaussian smearing eta of energy conservation, eV (default: a table's, else 0.01)", "BTESetSmearing", bte->smearing, &v, &flg));
  if (flg) PetscCall(BTESetSmearing(bte, v));
  {
    PetscEnum d = (PetscEnum)bte->delta;
    PetscCall(PetscOptionsEnum("-bte_delta", "Discretised delta of energy conservation: perturbo (Gaussians at e_i-e_j-+hw, Perturbo's) or balanced (the same weights split by exp((e_i-e_j)/kT): Fermi-Dirac at the lattice temperature is an exact steady state)", "BTESetDelta", BTEDeltas, d, &d, &flg));
    if (flg) PetscCall(BTESetDelta(bte, (BTEDelta)d));
  }
  PetscCall(PetscOptionsReal("-bte_temperature", "Lattice temperature, K (default: a table's, else 300)", "BTESetTemperature", bte->temperature, &v, &flg));
  if (flg) PetscCall(BTESetTemperature(bte, v));
  PetscCall(PetscOptionsReal("-bte_g2_cutoff", "Drop channels with |g|^2 below this, eV^2", "BTESetUp", bte->g2_cutoff, &bte->g2_cutoff, NULL));
  PetscCheck(bte->g2_cutoff >= 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_g2_cutoff must be >= 0, got %g", (double)bte->g2_cutoff);
  PetscCall(PetscOptionsReal("-bte_phonon_min", "Drop channels with phonon energy below this, eV", "BTESetUp", bte->phonon_min, &bte->phonon_min, NULL));
  PetscCall(PetscOptionsReal("-bte_energy_tolerance", "Keep channels with ||e_i-e_j|-hw| < this times eta", "BTESetUp", bte->tol_eta, &bte->tol_eta, NULL));
  PetscCheck(bte->tol_eta > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_energy_tolerance must be positive, got %g", (double)bte->tol_eta);
  PetscCall(PetscOptionsReal("-bte_memory_limit", "Memory a rank may use, GB (0: the rank's share of 90% of the node's physical memory, or of its cgroup limit)", "BTESetMemoryLimit", memgb, &memgb, &flg));
  if (flg) PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "-bte_memory_limit", memgb, 0, 1e9, "GB", NULL));
  if (flg) PetscCall(BTESetMemoryLimit(bte, memgb * 1e9));
  PetscCall(PetscOptionsBool("-bte_memory_check", "Refuse a table or run whose memory estimate exceeds what a rank may use (0: go on anyway)", "BTESetUp", bte->memcheck, &bte->memcheck, NULL));
  PetscCall(PetscOptionsInt("-bte_io_chunk", "Channels per rank per I/O step when reading or writing tables", "BTESetUp", bte->iochunk, &bte->iochunk, NULL));
  PetscCheck(bte->iochunk >= 1, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_io_chunk must be >= 1, got %" PetscInt_FMT, bte->iochunk);
  {
    PetscBool given;
    PetscCall(PetscOptionsBool("-bte_generate_monitor", "Models: print progress of the channel search every 10% (default: from 10 s into a build on; 0: never)", "BTESetUp", bte->genmonitor, &bte->genmonitor, &given));
    if (given) bte->genmonauto = PETSC_FALSE;
  }
  PetscCall(PetscOptionsInt("-bte_generate_batch", "Models: channels a rank holds at a time when writing a table while generating (0: 2^25, at most a quarter of its memory)", "BTEGenerateTable", bte->genbatch, &bte->genbatch, NULL));
  PetscCheck(bte->genbatch >= 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_generate_batch must be >= 0 (0: automatic), got %" PetscInt_FMT, bte->genbatch);
  PetscCall(PetscOptionsInt("-bte_generate_pair_batch", "Models that evaluate couplings in batches (the GPU import): pairs of states per batch (1..4096)", "BTEGenerateTable", bte->pairbatch, &bte->pairbatch, &flg));
  if (flg) bte->pairbatch_set = PETSC_TRUE;
  PetscCheck(bte->pairbatch >= 1 && bte->pairbatch <= 4096, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_generate_pair_batch must be in 1..4096, got %" PetscInt_FMT, bte->pairbatch);
  PetscCall(PetscOptionsBool("-bte_generate_reuse", "Models: keep the channels found while counting, within 40% of a rank's memory, so that every coupling is evaluated once (0: evaluate twice, in less memory; default 1, 0 for couplings evaluated on a GPU)", "BTEGenerateTable", bte->genreuse, &bte->genreuse, &flg));
  if (flg) bte->genreuse_set = PETSC_TRUE;
  PetscCall(PetscOptionsBool("-bte_diagnostics", "Diagnostics at setup (channel graph, equilibrium defect, relaxation temperature, zero-field current, window edge, thermal sampling) in views and outputs; 0 skips them (they cost a collision operator setup and 15-40 applies)", "BTESetDiagnostics", bte->diagnostics, &bte->diagnostics, NULL));
  PetscOptionsEnd();
  if (bte->input[0]) {
    /* options that shape the table a model makes: a table read from a file has its own, and they
       would be ignored without a word (-bte_grid 16 with a 12^3 table ran on 12^3) */
    static const char *const shaping[] = {"-bte_grid", "-bte_window", "-bte_g2_cutoff", "-bte_phonon_min", "-bte_energy_tolerance", "-bte_generate_batch", "-bte_generate_pair_batch", "-bte_generate_reuse", "-bte_generate_monitor"};
    for (size_t k = 0; k < sizeof(shaping) / sizeof(shaping[0]); k++) {
      PetscCall(PetscOptionsHasName(((PetscObject)bte)->options, ((PetscObject)bte)->prefix, shaping[k], &flg));
      PetscCheck(!flg, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "%s shapes the table a model makes (bte generate -bte_model NAME); the table %s (-bte_input) was made with its own and it would be ignored: drop it, or make a new table", shaping[k], bte->input);
    }
  }
  PetscCall(BTEModelSetFromOptions(bte));
  PetscFunctionReturn(0);
}

/*@
   BTESetUp - Reads the table or generates the model's states and channels and distributes them over the ranks

   Collective

   Input Parameter:
.  bte - the BTE

   Notes:
   A table's temperature and smearing apply only to values never set (BTESetTemperature(),
   BTESetSmearing() or the options). Refuses, with one line, a table or a run that does not fit in
   the memory a rank may use.

   Level: beginner

.seealso: `BTECreate()`, `BTESetFromOptions()`, `BTESetLoadChannels()`
@*/
PetscErrorCode BTESetUp(BTE bte)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  if (bte->setupcalled) PetscFunctionReturn(0);
  PetscCall(BTEValidateSettings(bte));
  PetscCall(PetscLogEventBegin(BTE_SetUp, bte, 0, 0, 0));
  if (bte->input[0]) {
    PetscCall(BTETableRead(bte, bte->input));
  } else if (bte->model[0]) {
    PetscCall(BTEModelGenerate(bte));
  } else {
    PetscBool help = PETSC_FALSE;
    /* a program's -help stops here without a table: say why the list ends before the options of
       what is built from the table (collision operator, time stepper, solvers) */
    PetscCall(PetscOptionsHasHelp(((PetscObject)bte)->options, &help));
    SETERRQ(PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "No scattering data: give a table with -bte_input FILE or a built-in model with -bte_model NAME%s", help ? " (with -help too: the options of what is built from the table, the collision operator, time stepper and solvers, are listed only when there is one, e.g. -help -bte_model parabolic)" : "");
  }
  PetscCall(BTEValidateSettings(bte)); /* the table may have set the temperature and smearing */
  bte->setupcalled = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_SetUp, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}

/*@
   BTESetLoadChannels - Sets what BTESetUp() does with the channels

   Logically Collective

   Input Parameters:
+  bte  - the BTE
-  load - PETSC_BOOL3_TRUE loads them (default), PETSC_BOOL3_FALSE only counts them (enough for
          BTEView() and BTEGetMemoryEstimate()), PETSC_BOOL3_UNKNOWN loads them if they fit in
          memory

   Level: intermediate

.seealso: `BTEGetChannelsLoaded()`, `BTESetUp()`
@*/
PetscErrorCode BTESetLoadChannels(BTE bte, PetscBool3 load)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(load == PETSC_BOOL3_TRUE || load == PETSC_BOOL3_FALSE || load == PETSC_BOOL3_UNKNOWN, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "BTESetLoadChannels() takes PETSC_BOOL3_TRUE, PETSC_BOOL3_FALSE or PETSC_BOOL3_UNKNOWN");
  PetscCheck(!bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetLoadChannels() before BTESetUp()");
  bte->loadchannels = load;
  PetscFunctionReturn(0);
}

/*@
   BTEGetChannelsLoaded - Tells whether setup loaded the channels or only counted them

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  loaded - PETSC_FALSE if they were only counted

   Level: intermediate

.seealso: `BTESetLoadChannels()`
@*/
PetscErrorCode BTEGetChannelsLoaded(BTE bte, PetscBool *loaded)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(loaded, 2);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  *loaded = bte->chcounted ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Streaming generation: the model builder writes the table while generating (src/models/build.c,
   src/io/table_write.c), so the table may be larger than memory. */
/*@
   BTEGenerateTable - Generates the model's table and writes it while generating, for tables larger than memory

   Collective

   Input Parameters:
+  bte  - the BTE
-  file - the HDF5 file

   Notes:
   Holds at most -bte_generate_batch channels per rank at a time. The BTE ends up set up with its
   states and channel counts but no channel arrays; a run needs BTESetUp() on the file. On a BTE
   already set up with its channels it is BTEWriteTable().

   Level: intermediate

.seealso: `BTEWriteTable()`, `BTESetLoadChannels()`
@*/
PetscErrorCode BTEGenerateTable(BTE bte, const char file[])
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  PetscErrorCode ierr;
  size_t         len;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(PetscStrlen(file, &len));
  PetscCheck(file && len > 0, comm, PETSC_ERR_ARG_NULL, "BTEGenerateTable() needs a file name");
  PetscCheck(len < sizeof(bte->streamfile), comm, PETSC_ERR_ARG_SIZ, "Table file name too long: %s", file);
  PetscCall(BTECheckOutputFile(bte, file, NULL));
  if (bte->setupcalled) {
    PetscCheck(!bte->chcounted, comm, PETSC_ERR_ARG_WRONGSTATE, "BTEGenerateTable(): the BTE is already set up without its channels; use a new BTE");
    PetscCall(BTEWriteTable(bte, file));
    PetscFunctionReturn(0);
  }
  PetscCheck(!bte->input[0], comm, PETSC_ERR_ARG_WRONGSTATE, "BTEGenerateTable() builds a model's table, but the BTE reads table %s (-bte_input); give a model (-bte_model) only", bte->input);
  PetscCheck(bte->model[0], comm, PETSC_ERR_USER_INPUT, "BTEGenerateTable() needs a built-in model: -bte_model NAME (BTESetModel())");
  PetscCall(PetscLogEventBegin(BTE_SetUp, bte, 0, 0, 0));
  PetscCall(PetscStrncpy(bte->streamfile, file, sizeof(bte->streamfile)));
  ierr             = BTEModelGenerate(bte);
  bte->streamfile[0] = 0;
  PetscCall(ierr);
  bte->setupcalled = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_SetUp, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}
