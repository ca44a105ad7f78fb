/* STUB: replaced by the model. */
#include <bte/private/bteimpl.h>
PetscErrorCode BTEModelGenerate_GaAs(BTE bte)
{
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "not yet");
}
