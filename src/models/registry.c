/* Registry of built-in model materials (-bte_model NAME). */
#include <bte/private/bteimpl.h>

PetscFunctionList BTEModelList = NULL;

PetscErrorCode BTEModelRegister(const char name[], PetscErrorCode (*generate)(BTE))
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListAdd(&BTEModelList, name, generate));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEModelGenerate(BTE bte)
{
  PetscErrorCode (*generate)(BTE) = NULL;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListFind(BTEModelList, bte->model, &generate));
  if (!generate) {
    char         names[512] = "";
    const char **list;
    int          n;

    PetscCall(PetscFunctionListGet(BTEModelList, &list, &n));
    for (int k = 0; k < n; k++) {
      PetscCall(PetscStrlcat(names, " ", sizeof(names)));
      PetscCall(PetscStrlcat(names, list[k], sizeof(names)));
    }
    PetscCall(PetscFree(list));
    SETERRQ(PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown model '%s'; built-in models are:%s", bte->model, names);
  }
  PetscCall(PetscLogEventBegin(BTE_Generate, bte, 0, 0, 0));
  PetscCall((*generate)(bte));
  PetscCall(PetscLogEventEnd(BTE_Generate, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}
