/* State space and channel storage of the BTE object: allocation and accessors. */
#include <bte/private/bteimpl.h>

PetscErrorCode BTEAllocateStates(BTE bte, PetscInt nglobal, PetscInt nlocal)
{
  PetscFunctionBegin;
  PetscCall(BTEFreeStates(bte));
  PetscCall(PetscLayoutCreate(PetscObjectComm((PetscObject)bte), &bte->states));
  PetscCall(PetscLayoutSetBlockSize(bte->states, 1));
  if (nlocal >= 0) PetscCall(PetscLayoutSetLocalSize(bte->states, nlocal));
  PetscCall(PetscLayoutSetSize(bte->states, nglobal));
  PetscCall(PetscLayoutSetUp(bte->states));
  PetscCall(PetscLayoutGetSize(bte->states, &bte->nstates));
  PetscCall(PetscLayoutGetLocalSize(bte->states, &bte->nlocal));
  PetscCall(PetscLayoutGetRange(bte->states, &bte->rstart, NULL));
  PetscCall(PetscMalloc4(bte->nlocal, &bte->kindex, bte->nlocal, &bte->band, bte->nlocal, &bte->energy, 3 * bte->nlocal, &bte->velocity));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFreeStates(BTE bte)
{
  PetscFunctionBegin;
  PetscCall(PetscLayoutDestroy(&bte->states));
  PetscCall(PetscFree4(bte->kindex, bte->band, bte->energy, bte->velocity));
  PetscCall(PetscFree(bte->gpiece));
  bte->gpieces = -1;
  bte->nstates = bte->nlocal = bte->rstart = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEAllocateChannels(BTE bte, PetscCount n)
{
  PetscFunctionBegin;
  PetscCall(BTEFreeChannels(bte));
  bte->ch.n = n;
  PetscCall(PetscMalloc5(n, &bte->ch.i, n, &bte->ch.j, n, &bte->ch.mode, n, &bte->ch.hw, n, &bte->ch.g2));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEChannelsGetHost(BTE bte)
{
  PetscFunctionBegin;
  if (bte->chfill) {
    PetscErrorCode (*fill)(void *, PetscBool) = bte->chfill;
    void *ctx                                  = bte->chfillctx;
    bte->chfill                                = NULL;
    bte->chfillctx                             = NULL;
    PetscCall(fill(ctx, PETSC_TRUE));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFreeChannels(BTE bte)
{
  PetscFunctionBegin;
  if (bte->chfill) { /* a copy still pending is dropped, not made */
    PetscErrorCode (*fill)(void *, PetscBool) = bte->chfill;
    void *ctx                                  = bte->chfillctx;
    bte->chfill                                = NULL;
    bte->chfillctx                             = NULL;
    PetscCall(fill(ctx, PETSC_FALSE));
  }
  PetscCall(PetscFree5(bte->ch.i, bte->ch.j, bte->ch.mode, bte->ch.hw, bte->ch.g2));
  /* the device copy of these arrays (pair_build_cuda.cu's, found by the host arrays' addresses, which
     a new table may reuse) goes with them */
  PetscCall(PetscObjectCompose((PetscObject)bte, "BTEPairCUDAChannels", NULL));
  bte->ch.n       = 0;
  bte->ch.nglobal = 0;
  bte->chcounted  = PETSC_FALSE;
  bte->nheld      = 0;
  bte->gpieces    = -1;
  bte->diagdone   = PETSC_FALSE;
  PetscCall(PetscFree(bte->gpiece));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEStateOwner(BTE bte, PetscInt i, PetscMPIInt *rank)
{
  PetscFunctionBegin;
  PetscCall(PetscLayoutFindOwner(bte->states, i, rank));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEParamsAdd(BTE bte, const char name[], PetscReal value, const char unit[])
{
  BTEParams *p = &bte->params;
  PetscInt   k;

  PetscFunctionBegin;
  for (k = 0; k < p->n; k++) {
    PetscBool same;
    PetscCall(PetscStrcmp(p->name[k], name, &same));
    if (same) break;
  }
  PetscCheck(k < BTE_MAX_PARAMS, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Too many model parameters (max %d)", BTE_MAX_PARAMS);
  /* a longer name or unit would be cut in the table file (docs/format.md: 63 and 31 characters) */
  PetscCheck(strlen(name) < sizeof(p->name[k]), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Model parameter name %s is longer than %d characters", name, (int)sizeof(p->name[k]) - 1);
  PetscCheck(!unit || strlen(unit) < sizeof(p->unit[k]), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The unit of model parameter %s (%s) is longer than %d characters", name, unit, (int)sizeof(p->unit[k]) - 1);
  PetscCall(PetscStrncpy(p->name[k], name, sizeof(p->name[k])));
  PetscCall(PetscStrncpy(p->unit[k], unit ? unit : "", sizeof(p->unit[k])));
  p->value[k] = value;
  if (k == p->n) p->n++;
  PetscFunctionReturn(0);
}

/*@
   BTEGetStateLayout - Gets the layout of the states over the ranks

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  map - the PetscLayout: contiguous blocks of the global state numbering (not a copy)

   Level: intermediate

.seealso: `BTEGetNumStates()`, `BTECreateStateVec()`
@*/
PetscErrorCode BTEGetStateLayout(BTE bte, PetscLayout *map)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  PetscAssertPointer(map, 2);
  *map = bte->states;
  PetscFunctionReturn(0);
}

/*@
   BTEGetNumStates - Gets the number of states owned by this rank and in all

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameters:
+  nlocal  - states owned here (may be NULL)
-  nglobal - states in all (may be NULL)

   Level: beginner

.seealso: `BTEGetStateLayout()`
@*/
PetscErrorCode BTEGetNumStates(BTE bte, PetscInt *nlocal, PetscInt *nglobal)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  if (nlocal) *nlocal = bte->nlocal;
  if (nglobal) *nglobal = bte->nstates;
  PetscFunctionReturn(0);
}

/*@
   BTEGetNumChannels - Gets the number of channels held by this rank and of distinct channels in all

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameters:
+  nlocal  - channels held here, 0 when they were only counted (may be NULL)
-  nglobal - distinct channels (may be NULL)

   Notes:
   A rank holds every channel with an end it owns, so a channel between two ranks is held by both.

   Level: beginner

.seealso: `BTEGetNumStates()`
@*/
PetscErrorCode BTEGetNumChannels(BTE bte, PetscCount *nlocal, PetscInt64 *nglobal)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  if (nlocal) *nlocal = bte->ch.n;
  if (nglobal) *nglobal = bte->ch.nglobal;
  PetscFunctionReturn(0);
}

/*@
   BTEGetLocalStates - Gets the arrays of the states this rank owns

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameters:
+  energy   - energies, eV (may be NULL)
.  velocity - band velocities, 3 per state, Angstrom/fs (may be NULL)
.  kindex   - flattened full-grid k index (may be NULL)
-  band     - band index (may be NULL)

   Notes:
   The arrays belong to the BTE; do not free or change them.

   Level: intermediate

.seealso: `BTEGetGrid()`, `BTEGetNumStates()`
@*/
PetscErrorCode BTEGetLocalStates(BTE bte, const PetscReal *energy[], const PetscReal *velocity[], const PetscInt *kindex[], const PetscInt *band[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  if (energy) *energy = bte->energy;
  if (velocity) *velocity = bte->velocity;
  if (kindex) *kindex = bte->kindex;
  if (band) *band = bte->band;
  PetscFunctionReturn(0);
}

/*@
   BTEGetGrid - Gets the k grid

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameters:
+  dim        - 2 or 3 (may be NULL)
.  nk         - points per reciprocal direction (may be NULL)
.  lattice    - rows a1, a2, a3, Angstrom (may be NULL)
.  reciprocal - rows b1, b2, b3, 1/Angstrom (may be NULL)
-  volume     - cell volume, Angstrom^3 (area, Angstrom^2, in 2D; may be NULL)

   Level: intermediate

.seealso: `BTEGetLocalStates()`
@*/
PetscErrorCode BTEGetGrid(BTE bte, PetscInt *dim, PetscInt nk[3], PetscReal lattice[9], PetscReal reciprocal[9], PetscReal *volume)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  if (dim) *dim = bte->grid.dim;
  if (nk) for (PetscInt a = 0; a < 3; a++) nk[a] = bte->grid.nk[a];
  if (lattice) PetscCall(PetscArraycpy(lattice, bte->grid.lattice, 9));
  if (reciprocal) PetscCall(PetscArraycpy(reciprocal, bte->grid.reciprocal, 9));
  if (volume) *volume = bte->grid.volume;
  PetscFunctionReturn(0);
}

/*@
   BTEGetSpinDegeneracy - Gets the spin degeneracy s

   Not Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  s - 2 without spin-orbit coupling, 1 with it

   Level: intermediate

.seealso: `BTEComputeMoments()`
@*/
PetscErrorCode BTEGetSpinDegeneracy(BTE bte, PetscInt *s)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  PetscAssertPointer(s, 2);
  *s = bte->spin;
  PetscFunctionReturn(0);
}

/* A Vec over the states; its type follows -vec_type (cuda gives device vectors). */
/*@
   BTECreateStateVec - Creates a vector on the states (occupations, rates)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  v - the new vector, of the layout of BTEGetStateLayout() and the type of -vec_type

   Level: beginner

.seealso: `BTEGetStateLayout()`
@*/
PetscErrorCode BTECreateStateVec(BTE bte, Vec *v)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscAssertPointer(v, 2);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  /* every run needs the channels: refuse a BTE that only counted them rather than run without scattering */
  PetscCheck(!bte->chcounted, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "The BTE was set up with its %" PetscInt64_FMT " channels counted but not loaded (BTESetLoadChannels(), BTEGenerateTable()); set up a BTE that loads them (the default) for a run", bte->ch.nglobal);
  PetscCall(VecCreate(PetscObjectComm((PetscObject)bte), v));
  PetscCall(VecSetSizes(*v, bte->nlocal, bte->nstates));
  PetscCall(VecSetFromOptions(*v));
  PetscFunctionReturn(0);
}

/* f_i = 1/(exp((e_i - mu)/kT) + 1) for electrons; for holes the table stores hole
   energies (positive into the band), so the same form gives hole occupations. */
/*@
   BTEFermiDirac - Fills a vector with Fermi-Dirac occupations at the state energies

   Collective

   Input Parameters:
+  bte - the BTE
.  T   - temperature, K
-  mu  - chemical potential, eV (the table's energy zero)

   Output Parameter:
.  f - the occupations

   Level: beginner

.seealso: `BTEComputeDistribution()`, `BTEChemicalPotential()`
@*/
PetscErrorCode BTEFermiDirac(BTE bte, PetscReal T, PetscReal mu, Vec f)
{
  PetscScalar *a;
  PetscReal    kT = BTE_KB * T;
  PetscInt     n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  PetscValidHeaderSpecific(f, VEC_CLASSID, 4);
  PetscCheck(T > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive, got %g", (double)T);
  PetscCheck(!PetscIsInfOrNanReal(mu), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "The chemical potential is not a number");
  /* the loop below writes nlocal entries */
  PetscCall(VecGetLocalSize(f, &n));
  PetscCheck(n == bte->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "The vector has %" PetscInt_FMT " entries on this rank, the BTE %" PetscInt_FMT " states: make it with BTECreateStateVec()", n, bte->nlocal);
  PetscCall(VecGetArrayWrite(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) a[i] = 1.0 / (PetscExpReal((bte->energy[i] - mu) / kT) + 1.0);
  PetscCall(VecRestoreArrayWrite(f, &a));
  PetscFunctionReturn(0);
}
