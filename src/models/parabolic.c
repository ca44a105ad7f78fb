/* STUB: replaced by the parabolic model. */
#include <bte/private/bteimpl.h>
PetscErrorCode BTEModelGenerate_Parabolic(BTE bte)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "not yet");
}
