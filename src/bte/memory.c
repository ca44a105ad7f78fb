/* Memory estimate of a run and the check against what a rank may use.

   bte info prints it (BTEGetMemoryEstimate, view.c); a run checks it twice: at setup, before the
   channel arrays are allocated, when an object that runs (dynamics, transport, high field) made
   the BTE (bte->runmem), and in BTECollisionSetUp before the operator's layout is built (every
   run, also of an application that sets up a BTECollision of its own). */
#include <bte/private/validate.h>
#include <bte/private/modelimpl.h>

/* table storage: channels (i, j, mode, hw, g2) and owned states (kindex, band, energy, velocity) */
#define BTE_TABLE_BYTES_PER_CHANNEL (3 * sizeof(PetscInt) + 2 * sizeof(PetscReal))
#define BTE_TABLE_BYTES_PER_STATE   (2 * sizeof(PetscInt) + 4 * sizeof(PetscReal))

PetscErrorCode BTERunMemoryEstimate(BTE bte, PetscCount nheld, PetscInt nlocal, PetscBool assembled, PetscBool hostlayout, PetscLogDouble *table, PetscLogDouble *run)
{
  PetscLogDouble t, r, nghost;

  PetscFunctionBegin;
  /* ghosts: the other ends of held channels, at most one per channel and per state not owned */
  nghost = PetscMax(0, PetscMin((PetscLogDouble)nheld, (PetscLogDouble)bte->nstates - nlocal));
  t      = (PetscLogDouble)nheld * BTE_TABLE_BYTES_PER_CHANNEL + (PetscLogDouble)nlocal * BTE_TABLE_BYTES_PER_STATE;
  r      = t + (PetscLogDouble)nheld * (hostlayout ? BTE_RUN_BYTES_PER_CHANNEL_OP : BTE_RUN_BYTES_PER_CHANNEL_DEV) + (PetscLogDouble)nlocal * BTE_RUN_VECTORS * sizeof(PetscScalar) + nghost * (sizeof(PetscInt) + sizeof(PetscScalar));
  if (assembled) r += (PetscLogDouble)nheld * BTE_RUN_BYTES_PER_CHANNEL_JAC + (PetscLogDouble)nlocal * 2 * (sizeof(PetscInt) + sizeof(PetscScalar));
  if (table) *table = t;
  if (run) *run = r;
  PetscFunctionReturn(0);
}

/*@
   BTEGetMemoryEstimate - Gets the estimated memory of a run: table, collision operator, ghosts and work vectors

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameters:
+  total - bytes on one rank (may be NULL)
-  local - bytes on this rank of this layout (may be NULL)

   Notes:
   The figure the runs check before allocating (docs/validation.md); also when the channels were
   only counted.

   Level: intermediate

.seealso: `BTESetMemoryLimit()`
@*/
PetscErrorCode BTEGetMemoryEstimate(BTE bte, PetscLogDouble *total, PetscLogDouble *local)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() first");
  if (total) { /* one rank: every channel once, every state owned */
    PetscInt n = bte->nstates;
    PetscCall(BTERunMemoryEstimate(bte, (PetscCount)bte->ch.nglobal, n, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, total));
  }
  if (local) PetscCall(BTERunMemoryEstimate(bte, bte->chcounted ? bte->nheld : bte->ch.n, bte->nlocal, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, local));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckRunMemory(BTE bte, PetscBool assembled, PetscBool hostlayout, const char what[])
{
  PetscLogDouble table, run;
  char           msg[256];

  PetscFunctionBegin;
  PetscCall(BTERunMemoryEstimate(bte, bte->ch.n, bte->nlocal, assembled, hostlayout, &table, &run));
  PetscCall(PetscSNPrintf(msg, sizeof(msg), "A run with %s (table %.3g GB + %scollision operator%s, ghosts and %d work vectors %.3g GB on this rank)", what, table / 1e9, hostlayout ? "" : "host part of the ", assembled ? ", assembled Jacobian" : "", BTE_RUN_VECTORS, (run - table) / 1e9));
  PetscCall(BTEModelCheckMemory(bte, run, 1.0, msg, "run on more ranks (or nodes), or give -bte_memory_check 0 to try anyway", NULL));
  PetscFunctionReturn(0);
}
