/* The built-in models; each lives in its own file. */
#include <bte/private/bteimpl.h>

PETSC_INTERN PetscErrorCode BTEModelGenerate_Parabolic(BTE);

PetscErrorCode BTEModelRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(BTEModelRegister("parabolic", BTEModelGenerate_Parabolic));
  PetscFunctionReturn(0);
}
