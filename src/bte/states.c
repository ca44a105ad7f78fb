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

PetscErrorCode BTEFreeChannels(BTE bte)
{
  PetscFunctionBegin;
  PetscCall(PetscFree5(bte->ch.i, bte->ch.j, bte->ch.mode, bte->ch.hw, bte->ch.g2));
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
  PetscCall(PetscStrncpy(p->name[k], name, sizeof(p->name[k])));
  PetscCall(PetscStrncpy(p->unit[k], unit ? unit : "", sizeof(p->unit[k])));
  p->value[k] = value;
  if (k == p->n) p->n++;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetStateLayout(BTE bte, PetscLayout *map)
{
  PetscFunctionBegin;
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  *map = bte->states;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetNumStates(BTE bte, PetscInt *nlocal, PetscInt *nglobal)
{
  PetscFunctionBegin;
  if (nlocal) *nlocal = bte->nlocal;
  if (nglobal) *nglobal = bte->nstates;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetNumChannels(BTE bte, PetscCount *nlocal, PetscInt64 *nglobal)
{
  PetscFunctionBegin;
  if (nlocal) *nlocal = bte->ch.n;
  if (nglobal) *nglobal = bte->ch.nglobal;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetLocalStates(BTE bte, const PetscReal *energy[], const PetscReal *velocity[], const PetscInt *kindex[], const PetscInt *band[])
{
  PetscFunctionBegin;
  if (energy) *energy = bte->energy;
  if (velocity) *velocity = bte->velocity;
  if (kindex) *kindex = bte->kindex;
  if (band) *band = bte->band;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetGrid(BTE bte, PetscInt *dim, PetscInt nk[3], PetscReal lattice[9], PetscReal reciprocal[9], PetscReal *volume)
{
  PetscFunctionBegin;
  if (dim) *dim = bte->grid.dim;
  if (nk) for (PetscInt a = 0; a < 3; a++) nk[a] = bte->grid.nk[a];
  if (lattice) PetscCall(PetscArraycpy(lattice, bte->grid.lattice, 9));
  if (reciprocal) PetscCall(PetscArraycpy(reciprocal, bte->grid.reciprocal, 9));
  if (volume) *volume = bte->grid.volume;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEGetSpinDegeneracy(BTE bte, PetscInt *s)
{
  PetscFunctionBegin;
  *s = bte->spin;
  PetscFunctionReturn(0);
}

/* A Vec over the states; its type follows -vec_type (cuda gives device vectors). */
PetscErrorCode BTECreateStateVec(BTE bte, Vec *v)
{
  PetscFunctionBegin;
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
PetscErrorCode BTEFermiDirac(BTE bte, PetscReal T, PetscReal mu, Vec f)
{
  PetscScalar *a;
  PetscReal    kT = BTE_KB * T;

  PetscFunctionBegin;
  PetscCheck(T > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive, got %g", (double)T);
  PetscCall(VecGetArrayWrite(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) a[i] = 1.0 / (PetscExpReal((bte->energy[i] - mu) / kT) + 1.0);
  PetscCall(VecRestoreArrayWrite(f, &a));
  PetscFunctionReturn(0);
}
