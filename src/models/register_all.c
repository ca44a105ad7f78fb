/* The built-in models; each lives in its own file. */
#include <bte/private/bteimpl.h>
#include <string.h>

PETSC_INTERN PetscErrorCode BTEModelCreate_Parabolic(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_GaAs(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_Graphene(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_SiHoles(BTE);
PETSC_INTERN PetscErrorCode BTEModelCreate_Perturbo(BTE);

static const struct {
  const char *name;
  PetscErrorCode (*create)(BTE);
} BTEBuiltinModels[] = {
  {"parabolic", BTEModelCreate_Parabolic},
  {"gaas",      BTEModelCreate_GaAs     },
  {"graphene",  BTEModelCreate_Graphene },
  {"si-holes",  BTEModelCreate_SiHoles  },
  {"perturbo",  BTEModelCreate_Perturbo },
};

PetscErrorCode BTEModelRegisterAll(void)
{
  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(BTEBuiltinModels) / sizeof(BTEBuiltinModels[0]); k++) PetscCall(BTEModelRegister(BTEBuiltinModels[k].name, BTEBuiltinModels[k].create));
  PetscFunctionReturn(0);
}

/* Whether the model registered as name now is a built-in one (not an application's, nor an
   application's that replaced a built-in's name): bte's driver knows it */
PetscErrorCode BTEModelIsBuiltin(const char name[], PetscBool *flg)
{
  PetscErrorCode (*fn)(BTE) = NULL;

  PetscFunctionBegin;
  *flg = PETSC_FALSE;
  PetscCall(PetscFunctionListFind(BTEModelList, name, &fn));
  for (size_t k = 0; k < sizeof(BTEBuiltinModels) / sizeof(BTEBuiltinModels[0]); k++)
    if (fn && fn == BTEBuiltinModels[k].create && !strcmp(name, BTEBuiltinModels[k].name)) *flg = PETSC_TRUE;
  PetscFunctionReturn(0);
}
