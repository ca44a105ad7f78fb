/* Registry of collision operator implementations (-bte_collision_type): the built-in types,
   registered once per package initialization (BTECollisionInitializePackage), and the queries
   on the registry. An application adds its own with BTECollisionRegister (docs/extending.md). */
#include <bte/private/collisionimpl.h>

PETSC_INTERN PetscErrorCode BTECollisionCreate_Baseline(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionCreate_Tgt(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionCreate_Fused(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionCreate_Pair(BTECollision);

PetscErrorCode BTECollisionRegisterAll(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONBASELINE, BTECollisionCreate_Baseline));
  PetscCall(BTEFunctionListRecord(&BTECollisionList, BTECOLLISIONBASELINE));
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONTGT, BTECollisionCreate_Tgt));
  PetscCall(BTEFunctionListRecord(&BTECollisionList, BTECOLLISIONTGT));
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONFUSED, BTECollisionCreate_Fused));
  PetscCall(BTEFunctionListRecord(&BTECollisionList, BTECOLLISIONFUSED));
  PetscCall(PetscFunctionListAdd(&BTECollisionList, BTECOLLISIONPAIR, BTECollisionCreate_Pair));
  PetscCall(BTEFunctionListRecord(&BTECollisionList, BTECOLLISIONPAIR));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetTypes - Gets the names of the registered collision operator types

   Not Collective

   Output Parameters:
+  n     - the number of types
-  types - their names, in registration order; free the array (not the names) with PetscFree()

   Level: intermediate

.seealso: `BTECollisionRegister()`, `BTECollisionTypeHasMixedPrecision()`
@*/
PetscErrorCode BTECollisionGetTypes(PetscInt *n, const char **types[])
{
  PetscFunctionBegin;
  PetscAssertPointer(n, 1);
  PetscAssertPointer(types, 2);
  PetscCall(BTECollisionInitializePackage());
  PetscCall(BTEFunctionListGetNames(BTECollisionList, n, types));
  PetscFunctionReturn(0);
}

/* The types whose layouts can hold their weights in single precision (their setup reads
   coll->precision); an application's type never does. */
/*@
   BTECollisionTypeHasMixedPrecision - Tells whether a collision operator type implements single-precision weights

   Not Collective

   Input Parameter:
.  type - a type name

   Output Parameter:
.  flg - PETSC_TRUE if it does

   Level: advanced

.seealso: `BTECollisionSetMixedPrecision()`, `BTECollisionGetTypes()`
@*/
PetscErrorCode BTECollisionTypeHasMixedPrecision(BTECollisionType type, PetscBool *flg)
{
  PetscBool f, p;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(type, BTECOLLISIONFUSED, &f));
  PetscCall(PetscStrcmp(type, BTECOLLISIONPAIR, &p));
  *flg = (PetscBool)(f || p);
  PetscFunctionReturn(0);
}
