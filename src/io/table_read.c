/* STUB: replaced by the HDF5 reader. */
#include <bte/private/bteimpl.h>
PetscErrorCode BTETableRead(BTE bte, const char file[])
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "not yet");
}
