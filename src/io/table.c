/* Public entry to the table writer. */
#include <bte/private/bteimpl.h>

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
