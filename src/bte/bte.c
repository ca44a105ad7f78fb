/* The BTE object: lifecycle and options. */
#include <bte/private/validate.h>

PetscClassId  BTE_CLASSID;
const char *const BTEDeltas[] = {"perturbo", "balanced", "BTEDelta", "BTE_DELTA_", NULL};
PetscLogEvent BTE_SetUp, BTE_TableRead, BTE_TableWrite, BTE_Generate, BTE_Diagnostics;
static PetscBool BTEPackageInitialized = PETSC_FALSE;

PetscErrorCode BTEFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&BTEModelList));
  BTEPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

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
  PetscCall(BTEModelRegisterAll());
  PetscCall(PetscRegisterFinalize(BTEFinalizePackage));
  PetscFunctionReturn(0);
}

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
  b->genmonitor   = PETSC_FALSE;
  b->diagnostics  = PETSC_TRUE;
  *bte           = b;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDestroy(BTE *bte)
{
  PetscFunctionBegin;
  if (!*bte) PetscFunctionReturn(0);
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

PetscErrorCode BTESetInputFile(BTE bte, const char file[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(PetscStrncpy(bte->input, file ? file : "", sizeof(bte->input)));
  PetscFunctionReturn(0);
}

/* A different model drops the previous one's parameters (its options are read again by
   BTESetFromOptions); the same model keeps them. */
PetscErrorCode BTESetModel(BTE bte, const char model[])
{
  PetscBool same;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(PetscStrcmp(bte->model, model ? model : "", &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(BTEModelReset(bte));
  PetscCall(PetscStrncpy(bte->model, model ? model : "", sizeof(bte->model)));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetModel(BTE bte, const char *model[])
{
  PetscFunctionBegin;
  *model = bte->model;
  PetscFunctionReturn(0);
}

PetscErrorCode BTESetGrid(BTE bte, PetscInt n)
{
  PetscFunctionBegin;
  PetscCheck(n >= 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "k grid must have at least 2 points per direction, got %" PetscInt_FMT, n);
  bte->ngrid    = n;
  bte->grid_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTESetTemperature(BTE bte, PetscReal T)
{
  PetscFunctionBegin;
  PetscCheck(T > 0 && !PetscIsInfOrNanReal(T), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive (K), got %g", (double)T);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "temperature (-bte_temperature)", T, BTE_TEMPERATURE_MIN, BTE_TEMPERATURE_MAX, "K", NULL));
  bte->temperature     = T;
  bte->temperature_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetTemperature(BTE bte, PetscReal *T)
{
  PetscFunctionBegin;
  *T = bte->temperature;
  PetscFunctionReturn(0);
}

PetscErrorCode BTESetSmearing(BTE bte, PetscReal eta)
{
  PetscFunctionBegin;
  PetscCheck(eta > 0 && !PetscIsInfOrNanReal(eta), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Smearing must be positive (eV), got %g", (double)eta);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "smearing (-bte_smearing)", eta, BTE_SMEARING_MIN, BTE_SMEARING_MAX, "eV", NULL));
  bte->smearing     = eta;
  bte->smearing_set = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetSmearing(BTE bte, PetscReal *eta)
{
  PetscFunctionBegin;
  *eta = bte->smearing;
  PetscFunctionReturn(0);
}

PetscErrorCode BTESetDelta(BTE bte, BTEDelta delta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(delta == BTE_DELTA_PERTURBO || delta == BTE_DELTA_BALANCED, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Unknown delta discretisation %d; -bte_delta takes perturbo or balanced", (int)delta);
  bte->delta = delta;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetDelta(BTE bte, BTEDelta *delta)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(delta, 2);
  *delta = bte->delta;
  PetscFunctionReturn(0);
}

PetscErrorCode BTESetMemoryLimit(BTE bte, PetscLogDouble bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bytes >= 0 && !PetscIsInfOrNanReal((PetscReal)bytes), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "The memory limit must be >= 0 bytes (0: the machine's memory), got %g", (double)bytes);
  bte->mem_limit = bytes;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetMemoryLimit(BTE bte, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  *bytes = bte->mem_limit;
  PetscFunctionReturn(0);
}

/* The only place where the BTE and its model read options. A value given here or through a
   setter is marked as set, and a table's value never replaces it (BTESetUp). */
PetscErrorCode BTESetFromOptions(BTE bte)
{
  char      buf[PETSC_MAX_PATH_LEN];
  PetscBool flg;
  PetscReal memgb = bte->mem_limit / 1e9, v;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscObjectOptionsBegin((PetscObject)bte);
  PetscCall(PetscOptionsString("-bte_input", "Scattering table (HDF5, docs/format.md)", "BTESetInputFile", bte->input, buf, sizeof(buf), &flg));
  if (flg) PetscCall(BTESetInputFile(bte, buf));
  PetscCall(PetscOptionsFList("-bte_model", "Built-in model material", "BTESetModel", BTEModelList, bte->model, buf, sizeof(buf), &flg));
  if (flg) PetscCall(BTESetModel(bte, buf));
  PetscCall(PetscOptionsInt("-bte_grid", "k points per reciprocal direction (models)", "BTESetGrid", bte->ngrid, &bte->ngrid, &flg));
  if (flg) PetscCall(BTESetGrid(bte, bte->ngrid));
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
  PetscCall(PetscOptionsReal("-bte_memory_limit", "Memory a rank may use, GB (0: the machine's physical memory)", "BTESetMemoryLimit", memgb, &memgb, &flg));
  if (flg) PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "-bte_memory_limit", memgb, 0, 1e9, "GB", NULL));
  if (flg) PetscCall(BTESetMemoryLimit(bte, memgb * 1e9));
  PetscCall(PetscOptionsBool("-bte_memory_check", "Refuse a table or run whose memory estimate exceeds what a rank may use (0: go on anyway)", "BTESetUp", bte->memcheck, &bte->memcheck, NULL));
  PetscCall(PetscOptionsInt("-bte_io_chunk", "Channels per rank per I/O step when reading or writing tables", "BTESetUp", bte->iochunk, &bte->iochunk, NULL));
  PetscCheck(bte->iochunk >= 1, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_io_chunk must be >= 1, got %" PetscInt_FMT, bte->iochunk);
  PetscCall(PetscOptionsBool("-bte_generate_monitor", "Models: print progress of the channel search every 10%", "BTESetUp", bte->genmonitor, &bte->genmonitor, NULL));
  PetscCall(PetscOptionsInt("-bte_generate_batch", "Models: channels a rank holds at a time when writing a table while generating (0: 2^25, at most a quarter of its memory)", "BTEGenerateTable", bte->genbatch, &bte->genbatch, NULL));
  PetscCheck(bte->genbatch >= 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_generate_batch must be >= 0 (0: automatic), got %" PetscInt_FMT, bte->genbatch);
  PetscCall(PetscOptionsBool("-bte_diagnostics", "Diagnostics at setup (equilibrium defect, relaxation temperature, window edge) in views and outputs; 0 skips them (they cost a collision operator setup and ~10 applies)", "BTESetDiagnostics", bte->diagnostics, &bte->diagnostics, NULL));
  PetscOptionsEnd();
  PetscCall(BTEModelSetFromOptions(bte));
  PetscFunctionReturn(0);
}

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
  } else SETERRQ(PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "No scattering data: give a table with -bte_input FILE or a built-in model with -bte_model NAME");
  PetscCall(BTEValidateSettings(bte)); /* the table may have set the temperature and smearing */
  bte->setupcalled = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_SetUp, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTESetLoadChannels(BTE bte, PetscBool3 load)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(load == PETSC_BOOL3_TRUE || load == PETSC_BOOL3_FALSE || load == PETSC_BOOL3_UNKNOWN, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "BTESetLoadChannels() takes PETSC_BOOL3_TRUE, PETSC_BOOL3_FALSE or PETSC_BOOL3_UNKNOWN");
  PetscCheck(!bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetLoadChannels() before BTESetUp()");
  bte->loadchannels = load;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetChannelsLoaded(BTE bte, PetscBool *loaded)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  *loaded = bte->chcounted ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* Streaming generation: the model builder writes the table while generating (src/models/build.c,
   src/io/table_write.c), so the table may be larger than memory. */
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
