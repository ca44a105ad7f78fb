/* The built-in models; each lives in its own file. */
#include <bte/private/bteimpl.h>

PETSC_INTERN PetscErrorCode BTEModelGenerate_Parabolic(BTE);
PETSC_INTERN PetscErrorCode BTEModelGenerate_GaAs(BTE);
PETSC_INTERN PetscErrorCode BTEModelGenerate_Graphene(BTE);
PETSC_INTERN PetscErrorCode BTEModelGenerate_SiHoles(BTE);
PETSC_INTERN PetscErrorCode BTEModelGenerate_Perturbo(BTE);

PetscErrorCode BTEModelRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(BTEModelRegister("parabolic", BTEModelGenerate_Parabolic));
  PetscCall(BTEModelRegister("gaas", BTEModelGenerate_GaAs));
  PetscCall(BTEModelRegister("graphene", BTEModelGenerate_Graphene));
  PetscCall(BTEModelRegister("si-holes", BTEModelGenerate_SiHoles));
  PetscCall(BTEModelRegister("perturbo", BTEModelGenerate_Perturbo));
  PetscFunctionReturn(0);
}
