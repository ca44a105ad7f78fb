/* The built-in models; each lives in its own file. */
#include <bte/private/bteimpl.h>

PETSC_INTERN PetscErrorCode BTEModelCreate_Parabolic(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_GaAs(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_Graphene(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_SiHoles(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_Perturbo(BTE);

PetscErrorCode BTEModelRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(BTEModelRegister("parabolic", BTEModelCreate_Parabolic));
  PetscCall(BTEModelRegister("gaas", BTEModelCreate_GaAs));
  PetscCall(BTEModelRegister("graphene", BTEModelCreate_Graphene));
  PetscCall(BTEModelRegister("si-holes", BTEModelCreate_SiHoles));
  PetscCall(BTEModelRegister("perturbo", BTEModelCreate_Perturbo));
  PetscFunctionReturn(0);
}
