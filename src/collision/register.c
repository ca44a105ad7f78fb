/* Registry of collision operator implementations (-bte_collision_type); called once per
   package initialization (BTECollisionInitializePackage). */
#include <bte/private/collisionimpl.h>

PETSC_INTERN PetscErrorCode BTECollisionCreate_Baseline(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionCreate_Tgt(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionCreate_Fused(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionCreate_Pair(BTECollision);

PetscErrorCode BTECollisionRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONBASELINE, BTECollisionCreate_Baseline));
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONTGT, BTECollisionCreate_Tgt));
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONFUSED, BTECollisionCreate_Fused));
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONPAIR, BTECollisionCreate_Pair));
  PetscFunctionReturn(0);
}
