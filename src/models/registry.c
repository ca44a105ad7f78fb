/* Registry of built-in model materials (-bte_model NAME). A model is registered by a create
   function that sets bte->modelops and bte->modeldata (its parameters at their defaults); its
   options are read by BTESetFromOptions only (modelops.setfromoptions), and BTESetUp generates
   the table from bte->modeldata (modelops.generate). */
#include <bte/private/bteimpl.h>
#include <string.h>

PetscFunctionList BTEModelList = NULL;

/*@
   BTEModelRegister - Adds a model that BTESetModel() and -bte_model can select

   Not Collective

   Input Parameters:
+  name   - the model's name
-  create - its create function

   Notes:
   The create function sets bte->modeldata (the model's parameters at their defaults) and
   bte->modelops (include/bte/private/bteimpl.h): generate (required) fills the states and channels
   at BTESetUp(), usually through BTEModelBuild(); setfromoptions (optional) reads the model's
   options; destroy (optional) frees modeldata. docs/extending.md and examples/extend.c show one.

   Level: advanced

.seealso: `BTESetModel()`, `BTEModelGetTypes()`, `BTECollisionRegister()`
@*/
PetscErrorCode(BTEModelRegister)(const char name[], PetscErrorCode (*create)(BTE))
{
  /* (BTEModelRegister): the definition, not the macro of bteimpl.h that passes the struct sizes */
  PetscFunctionBegin;
  PetscCheck(name && name[0] && create, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "BTEModelRegister needs a name and a create function");
  PetscCheck(strlen(name) < sizeof(((struct _p_BTE *)NULL)->model), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BTEModelRegister: the name \"%s\" is %zu characters long; a model name has at most %zu", name, strlen(name), sizeof(((struct _p_BTE *)NULL)->model) - 1);
  /* the built-in models first, so that an application's registration is not lost when the package
     initializes later (and may replace a built-in of the same name) */
  PetscCall(BTEInitializePackage());
  PetscCall(PetscFunctionListAdd(&BTEModelList, name, create));
  PetscCall(BTEFunctionListRecord(&BTEModelList, name));
  PetscFunctionReturn(0);
}

/* The order of registration, per list. PETSc 3.18 keeps a PetscFunctionList in that order; later
   releases keep it in a hash table, whose order is not (the collision types came out as "tgt pair
   fused half baseline"): the names are recorded here as they are registered, and GetNames lists
   them in that order. Static storage: nothing to free at finalize. */
#define BTE_REG_MAX 128
static PetscFunctionList *BTERegList[BTE_REG_MAX];
static char               BTERegName[BTE_REG_MAX][64];
static int                BTERegN;

PetscErrorCode BTEFunctionListRecord(PetscFunctionList *fl, const char name[])
{
  PetscFunctionBegin;
  for (int r = 0; r < BTERegN; r++)
    if (BTERegList[r] == fl && !strcmp(BTERegName[r], name)) PetscFunctionReturn(0);
  if (BTERegN < BTE_REG_MAX && strlen(name) < sizeof(BTERegName[0])) {
    BTERegList[BTERegN] = fl;
    PetscCall(PetscStrncpy(BTERegName[BTERegN++], name, sizeof(BTERegName[0])));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEFunctionListGetNames(PetscFunctionList fl, PetscInt *n, const char **names[])
{
  const char **list, **out;
  int          m, k = 0, o = 0;
  PetscBool   *used;

  PetscFunctionBegin;
  PetscCall(PetscFunctionListGet(fl, &list, &m));
  for (int j = 0; j < m; j++)
    if (list[j]) list[k++] = list[j]; /* PETSc < 3.19 counts the list's NULL end */
  /* the recorded names first, in the order they were registered; any other after them */
  PetscCall(PetscMalloc2(PetscMax(k, 1), &out, PetscMax(k, 1), &used));
  for (int j = 0; j < k; j++) used[j] = PETSC_FALSE;
  for (int r = 0; r < BTERegN; r++)
    if (*BTERegList[r] == fl)
      for (int j = 0; j < k; j++)
        if (!used[j] && !strcmp(list[j], BTERegName[r])) {
          used[j]  = PETSC_TRUE;
          out[o++] = list[j];
          break;
        }
  for (int j = 0; j < k; j++)
    if (!used[j]) out[o++] = list[j];
  for (int j = 0; j < k; j++) list[j] = out[j];
  PetscCall(PetscFree2(out, used));
  *n     = k;
  *names = list;
  PetscFunctionReturn(0);
}

/*@
   BTEModelGetTypes - Gets the names of the registered models, built-in and an application's

   Not Collective

   Output Parameters:
+  n     - the number of models
-  names - their names, in registration order; free the array (not the names) with PetscFree()

   Level: intermediate

.seealso: `BTEModelRegister()`, `BTESetModel()`
@*/
PetscErrorCode BTEModelGetTypes(PetscInt *n, const char **names[])
{
  PetscFunctionBegin;
  PetscAssertPointer(n, 1);
  PetscAssertPointer(names, 2);
  PetscCall(BTEInitializePackage());
  PetscCall(BTEFunctionListGetNames(BTEModelList, n, names));
  PetscFunctionReturn(0);
}

/* Frees the model's data; the model name stays. */
PetscErrorCode BTEModelReset(BTE bte)
{
  PetscFunctionBegin;
  if (bte->modelops.destroy) PetscCall((*bte->modelops.destroy)(bte));
  else PetscCall(PetscFree(bte->modeldata));
  bte->modeldata = NULL;
  PetscCall(PetscMemzero(&bte->modelops, sizeof(bte->modelops)));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEModelSetUpType(BTE bte)
{
  PetscErrorCode (*create)(BTE) = NULL;

  PetscFunctionBegin;
  if (bte->modelops.generate) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListFind(BTEModelList, bte->model, &create));
  if (!create) {
    char         names[512] = "";
    const char **list;
    PetscInt     n;

    PetscCall(BTEFunctionListGetNames(BTEModelList, &n, &list));
    for (PetscInt k = 0; k < n; k++) {
      PetscCall(PetscStrlcat(names, " ", sizeof(names)));
      PetscCall(PetscStrlcat(names, list[k], sizeof(names)));
    }
    PetscCall(PetscFree(list));
    SETERRQ(PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown model '%s'; -bte_model takes one of the registered models (built in or registered with BTEModelRegister()):%s", bte->model, names);
  }
  PetscCall(BTEModelReset(bte));
  PetscCall((*create)(bte));
  PetscCheck(bte->modelops.generate, PetscObjectComm((PetscObject)bte), PETSC_ERR_PLIB, "Model %s: its create function set no generate function", bte->model);
  PetscFunctionReturn(0);
}

/* The options of the chosen model; with -help and no model chosen, those of every model (each
   on a scratch BTE, so that nothing is kept), so that 'bte <command> -help' documents them all. */
PetscErrorCode BTEModelSetFromOptions(BTE bte)
{
  PetscBool help = PETSC_FALSE;

  PetscFunctionBegin;
  if (bte->model[0]) {
    PetscCall(BTEModelSetUpType(bte));
    if (bte->modelops.setfromoptions) PetscCall((*bte->modelops.setfromoptions)(bte));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscOptionsHasHelp(((PetscObject)bte)->options, &help));
  if (help) {
    const char **list;
    PetscInt     n;
    const char  *prefix;

    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)bte, &prefix));
    PetscCall(BTEFunctionListGetNames(BTEModelList, &n, &list));
    for (PetscInt k = 0; k < n; k++) {
      BTE t;
      PetscCall(BTECreate(PetscObjectComm((PetscObject)bte), &t));
      PetscCall(PetscObjectSetOptionsPrefix((PetscObject)t, prefix));
      PetscCall(BTESetModel(t, list[k]));
      PetscCall(BTEModelSetUpType(t));
      if (t->modelops.setfromoptions) PetscCall((*t->modelops.setfromoptions)(t));
      PetscCall(BTEDestroy(&t));
    }
    PetscCall(PetscFree(list));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEModelGenerate(BTE bte)
{
  PetscFunctionBegin;
  PetscCall(BTEModelSetUpType(bte));
  PetscCall(PetscLogEventBegin(BTE_Generate, bte, 0, 0, 0));
  PetscCall((*bte->modelops.generate)(bte));
  PetscCall(PetscLogEventEnd(BTE_Generate, bte, 0, 0, 0));
  /* an application's generate that returned without building (else: "call BTESetUp() first" later) */
  PetscCheck(bte->states && bte->nstates > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "Model %s: its generate function made no states: it must fill the states and channels, usually by describing the model in a BTEModelSpec and calling BTEModelBuild (docs/extending.md)", bte->model);
  PetscFunctionReturn(0);
}

/* BTEModelRegister of a program that includes bte/private/bteimpl.h (its macro): size is the
   program's sizeof(struct _p_BTE) */
PetscErrorCode BTEModelRegisterSized(const char name[], PetscErrorCode (*create)(BTE), size_t size)
{
  PetscFunctionBegin;
  PetscCheck(size == sizeof(struct _p_BTE), PETSC_COMM_SELF, PETSC_ERR_LIB, "BTEModelRegister(\"%s\"): this program was compiled against the private headers of another bte (struct _p_BTE of %zu bytes, %zu in the library it runs with): rebuild it against the installed bte (docs/extending.md)", name ? name : "", size, sizeof(struct _p_BTE));
  PetscCall((BTEModelRegister)(name, create));
  PetscFunctionReturn(0);
}
