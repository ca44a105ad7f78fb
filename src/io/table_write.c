/* STUB: replaced by the HDF5 writer. */
#include <bte/private/bteimpl.h>
PetscErrorCode BTETableWrite(BTE bte, const char file[])
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "not yet");
}
