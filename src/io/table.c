/* Public entry to the table writer. */
#include <bte/private/bteimpl.h>

/*@
   BTEWriteTable - Writes the BTE's table to an HDF5 file (docs/format.md)

   Collective

   Input Parameters:
+  bte  - the BTE
-  file - the file (written as FILE.tmp, then renamed)

   Level: intermediate

.seealso: `BTEGenerateTable()`, `BTESetInputFile()`
@*/
PetscErrorCode BTEWriteTable(BTE bte, const char file[])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() before BTEWriteTable()");
  PetscCall(PetscLogEventBegin(BTE_TableWrite, bte, 0, 0, 0));
  PetscCall(BTETableWrite(bte, file));
  PetscCall(PetscLogEventEnd(BTE_TableWrite, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}
