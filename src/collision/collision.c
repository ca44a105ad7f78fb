/* BTECollision: the collision operator object (lifecycle, type registry, options, view, applies).
   The ghost states and local numbering are in ghosts.c, the Jacobian Mats and TS callbacks in
   jacobian.c, the layouts in impls/<type>/. */
#include <bte/private/collisionimpl.h>
#include <bte/private/validate.h>

PetscClassId      BTECOLLISION_CLASSID;
PetscFunctionList BTECollisionList = NULL;
PetscLogEvent     BTECOLL_Apply, BTECOLL_JacApply, BTECOLL_SetUp, BTECOLL_Ghost, BTECOLL_GhostAdd, BTECOLL_JacAssemble;
PetscLogEvent     BTECOLL_SetUpEnds, BTECOLL_LayoutPlace, BTECOLL_LayoutMerge, BTECOLL_LayoutIndex;
PetscLogEvent     BTECOLL_Inner, BTECOLL_Outer, BTECOLL_Refresh;
const char *const BTECollisionPrecisions[] = {"double", "mixed", "BTECollisionPrecision", "BTE_COLLISION_PRECISION_", NULL};
const char *const BTECollisionPartitions[] = {"auto", "states", "pairs", "BTECollisionPartition", "BTE_COLLISION_PARTITION_", NULL};

static PetscBool BTECollisionPackageInitialized = PETSC_FALSE;

static PetscErrorCode BTECollisionFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(PetscFunctionListDestroy(&BTECollisionList));
  BTECollisionPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionInitializePackage(void)
{
  PetscFunctionBegin;
  if (BTECollisionPackageInitialized) PetscFunctionReturn(0);
  BTECollisionPackageInitialized = PETSC_TRUE;
  PetscCall(BTEInitializePackage());
  PetscCall(PetscClassIdRegister("BTECollision", &BTECOLLISION_CLASSID));
  PetscCall(PetscLogEventRegister("BTECollApply", BTECOLLISION_CLASSID, &BTECOLL_Apply));
  PetscCall(PetscLogEventRegister("BTECollJacApply", BTECOLLISION_CLASSID, &BTECOLL_JacApply));
  PetscCall(PetscLogEventRegister("BTECollSetUp", BTECOLLISION_CLASSID, &BTECOLL_SetUp));
  PetscCall(PetscLogEventRegister("BTECollGhost", BTECOLLISION_CLASSID, &BTECOLL_Ghost));
  /* -bte_partition pairs: the contributions to ghost states added into their owners */
  PetscCall(PetscLogEventRegister("BTECollGhostAdd", BTECOLLISION_CLASSID, &BTECOLL_GhostAdd));
  PetscCall(PetscLogEventRegister("BTECollJacAsm", BTECOLLISION_CLASSID, &BTECOLL_JacAssemble));
  /* -bte_partition pairs: the work that needs no ghost value (it hides the exchanges) and the work
     that does; with BTECollGhost and BTECollGhostAdd, -log_view's max/min over ranks of these
     tells imbalance of work from waiting in the exchanges (on CUDA Vecs they time the launches;
     the kernels' time shows in the GPU columns) */
  PetscCall(PetscLogEventRegister("BTECollInner", BTECOLLISION_CLASSID, &BTECOLL_Inner));
  PetscCall(PetscLogEventRegister("BTECollOuter", BTECOLLISION_CLASSID, &BTECOLL_Outer));
  /* the phases of BTECollSetUp: ghosts and local channel ends; a layout's placement of the
     channels (rates and grouping), its merge/sort, and its index structures (chunks, slots) */
  PetscCall(PetscLogEventRegister("BTECollSetUpEnds", BTECOLLISION_CLASSID, &BTECOLL_SetUpEnds));
  PetscCall(PetscLogEventRegister("BTECollLayPlace", BTECOLLISION_CLASSID, &BTECOLL_LayoutPlace));
  PetscCall(PetscLogEventRegister("BTECollLayMerge", BTECOLLISION_CLASSID, &BTECOLL_LayoutMerge));
  PetscCall(PetscLogEventRegister("BTECollLayIndex", BTECOLLISION_CLASSID, &BTECOLL_LayoutIndex));
  /* a change of temperature after setup that recomputes only the rates (BTECollisionSetTemperature
     with BTECollisionSetTemperatureRefresh); a full rebuild shows as BTECollSetUp instead */
  PetscCall(PetscLogEventRegister("BTECollRefresh", BTECOLLISION_CLASSID, &BTECOLL_Refresh));
  PetscCall(BTECollisionRegisterAll());
  PetscCall(PetscRegisterFinalize(BTECollisionFinalizePackage));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionRegister - Adds a collision operator implementation that BTECollisionSetType() and -bte_collision_type can select

   Not Collective

   Input Parameters:
+  name   - the type's name
-  create - its create function

   Notes:
   The create function fills coll->ops (include/bte/private/collisionimpl.h): setup, apply,
   jacobian_apply and jacobian_diagonal are required. docs/extending.md and examples/extend.c show
   one.

   Level: advanced

.seealso: `BTECollisionSetType()`, `BTECollisionGetTypes()`, `BTEModelRegister()`
@*/
PetscErrorCode(BTECollisionRegister)(const char name[], PetscErrorCode (*create)(BTECollision))
{
  /* (BTECollisionRegister): the definition, not the macro of collisionimpl.h that passes the struct sizes */
  PetscFunctionBegin;
  PetscCall(BTECollisionInitializePackage());
  PetscCall(PetscFunctionListAdd(&BTECollisionList, name, create));
  PetscCall(BTEFunctionListRecord(&BTECollisionList, name));
  PetscFunctionReturn(0);
}

/* BTECollisionRegister of a program that includes bte/private/collisionimpl.h (its macro) */
PetscErrorCode BTECollisionRegisterSized(const char name[], PetscErrorCode (*create)(BTECollision), size_t csize, size_t bsize)
{
  PetscFunctionBegin;
  PetscCheck(csize == sizeof(struct _p_BTECollision) && bsize == sizeof(struct _p_BTE), PETSC_COMM_SELF, PETSC_ERR_LIB, "BTECollisionRegister(\"%s\"): this program was compiled against the private headers of another bte (struct _p_BTECollision of %zu bytes and struct _p_BTE of %zu, %zu and %zu in the library it runs with): rebuild it against the installed bte (docs/extending.md)", name ? name : "", csize, bsize, sizeof(struct _p_BTECollision), sizeof(struct _p_BTE));
  PetscCall((BTECollisionRegister)(name, create));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionCreate - Creates the collision operator I[f] on the states of a BTE (docs/theory.md eq. 2)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  coll - the new operator

   Notes:
   Its type is the pair layout unless BTECollisionSetType() or -bte_collision_type says otherwise;
   the BTE must be set up before BTECollisionSetUp().

   Level: beginner

.seealso: `BTECollisionSetType()`, `BTECollisionApply()`, `BTECollisionDestroy()`
@*/
PetscErrorCode BTECollisionCreate(BTE bte, BTECollision *coll)
{
  BTECollision c;
  const char  *prefix;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(coll, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null pointer for the BTECollision");
  PetscCall(BTECollisionInitializePackage());
  PetscCall(PetscHeaderCreate(c, BTECOLLISION_CLASSID, "BTECollision", "Electron-phonon collision operator", "BTE", PetscObjectComm((PetscObject)bte), BTECollisionDestroy, BTECollisionView));
  PetscCall(PetscObjectReference((PetscObject)bte));
  c->bte       = bte;
  c->precision = BTE_COLLISION_PRECISION_DOUBLE;
  c->assembled = PETSC_FALSE;
  c->exchange  = BTE_COLLISION_EXCHANGE_AUTO;
  PetscCall(PetscStrncpy(c->ncclpath, "libnccl.so.2", sizeof(c->ncclpath)));
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)bte, &prefix));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)c, prefix));
  *coll = c;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionReset(BTECollision coll)
{
  PetscFunctionBegin;
  if (coll->ops->destroy) PetscCall((*coll->ops->destroy)(coll));
  coll->data = NULL;
  PetscCall(PetscFree(coll->ghosts));
  PetscCall(PetscFree3(coll->energy, coll->kindex, coll->band));
  PetscCall(PetscFree2(coll->ci, coll->cj));
  PetscCall(VecScatterDestroy(&coll->scatter));
  PetscCall(BTECollisionReverseReset_Private(coll));
  PetscCall(VecDestroy(&coll->fl));
  PetscCall(VecDestroy(&coll->xl));
  PetscCall(VecDestroy(&coll->gtemplate));
  PetscCall(PetscFree(coll->pranges));
  PetscCall(PetscFree(coll->pfrac));
  PetscCall(PetscFree3(coll->ptoff, coll->gslot, coll->ptab));
  if (coll->assembly) {
    BTECollisionAssembly *as = coll->assembly;
    PetscCall(PetscFree4(as->P, as->Q, as->ci, as->cj));
    PetscCall(PetscFree(as->off));
    PetscCall(PetscFree(as->v));
    PetscCall(PetscFree(coll->assembly));
  }
  coll->nghost      = 0;
  coll->nentries    = 0;
  coll->bytes       = 0;
  coll->setupcalled = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionDestroy - Destroys a collision operator

   Collective

   Input Parameter:
.  coll - the operator (set to NULL)

   Level: beginner

.seealso: `BTECollisionCreate()`
@*/
PetscErrorCode BTECollisionDestroy(BTECollision *coll)
{
  PetscFunctionBegin;
  if (!coll || !*coll) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(*coll, BTECOLLISION_CLASSID, 1);
  if (--((PetscObject)(*coll))->refct > 0) {
    *coll = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(BTECollisionReset(*coll));
  PetscCall(BTEDestroy(&(*coll)->bte));
  PetscCall(PetscHeaderDestroy(coll));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetType - Sets the implementation of the collision operator

   Collective

   Input Parameters:
+  coll - the collision operator
-  type - BTECOLLISIONBASELINE, BTECOLLISIONTGT, BTECOLLISIONFUSED, BTECOLLISIONPAIR or a type
          registered with BTECollisionRegister()

   Options Database Key:
.  -bte_collision_type <type> - the implementation

   Level: intermediate

.seealso: `BTECollisionGetType()`, `BTECollisionGetTypes()`, `BTECollisionRegister()`
@*/
PetscErrorCode BTECollisionSetType(BTECollision coll, BTECollisionType type)
{
  PetscErrorCode (*create)(BTECollision) = NULL;
  PetscBool same;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCall(PetscObjectTypeCompare((PetscObject)coll, type, &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(PetscFunctionListFind(BTECollisionList, type, &create));
  if (!create) {
    char         names[256] = "";
    const char **list;
    PetscInt     n;

    PetscCall(BTECollisionGetTypes(&n, &list));
    for (PetscInt k = 0; k < n; k++) {
      PetscCall(PetscStrlcat(names, " ", sizeof(names)));
      PetscCall(PetscStrlcat(names, list[k], sizeof(names)));
    }
    PetscCall(PetscFree(list));
    SETERRQ(PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown collision operator type '%s'; -bte_collision_type takes one of:%s", type, names);
  }
  PetscCall(BTECollisionReset(coll));
  PetscCall(PetscMemzero(coll->ops, sizeof(struct _BTECollisionOps)));
  coll->ownends = PETSC_FALSE;
  PetscCall((*create)(coll));
  /* an application's type (BTECollisionRegister) is refused here, not by a call through NULL later */
  PetscCheck(coll->ops->setup && coll->ops->apply && coll->ops->jacobian_apply && coll->ops->jacobian_diagonal, PetscObjectComm((PetscObject)coll), PETSC_ERR_PLIB, "Collision type %s: its create function must set the setup, apply, jacobian_apply and jacobian_diagonal operations (docs/extending.md)", type);
  PetscCall(PetscObjectChangeTypeName((PetscObject)coll, type));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetType - Gets the implementation of the collision operator

   Not Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameter:
.  type - the type name

   Level: intermediate

.seealso: `BTECollisionSetType()`
@*/
PetscErrorCode BTECollisionGetType(BTECollision coll, BTECollisionType *type)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  *type = ((PetscObject)coll)->type_name;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetTemperature - Sets the lattice temperature of this operator's phonon occupations

   Logically Collective

   Input Parameters:
+  coll - the collision operator
-  T    - temperature, K (> 0)

   Notes:
   Default: the BTE's at setup. The BTE is not changed, so operators at several temperatures can
   share it.

   On an operator already set up, a new temperature takes effect at the next BTECollisionSetUp()
   (called by every apply and by the Jacobian Mats): only the phonon occupations, hence the rates
   P, Q of the channels, depend on it. With BTECollisionSetTemperatureRefresh() before setup, a type
   that implements it (pair, built on the host or on the device) recomputes just the rates and
   re-sums them in the order of its build, giving to the bit the operator a fresh build at that
   temperature gives (logged as BTECollRefresh); otherwise the operator is rebuilt (BTECollSetUp;
   the type's options are read again from the options database if BTECollisionSetFromOptions()
   was called). Jacobian Mats made by BTECollisionCreateJacobian() stay valid; set their state
   again with BTECollisionComputeJacobian().

   Level: intermediate

.seealso: `BTESetTemperature()`, `BTECollisionSetTemperatureRefresh()`
@*/
PetscErrorCode BTECollisionSetTemperature(BTECollision coll, PetscReal T)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscValidLogicalCollectiveReal(coll, T, 2);
  PetscCheck(T > 0 && !PetscIsInfOrNanReal(T), PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive (K), got %g", (double)T);
  PetscCall(BTECheckRange(PetscObjectComm((PetscObject)coll), "temperature", T, BTE_TEMPERATURE_MIN, BTE_TEMPERATURE_MAX, "K", NULL)); /* as BTESetTemperature */
  coll->Tset = T;
  if (coll->setupcalled && T != coll->temperature) coll->tstale = PETSC_TRUE;
  else if (coll->setupcalled) coll->tstale = PETSC_FALSE; /* back to the temperature it was built at */
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetTemperatureRefresh - Keeps, at setup, what a later change of temperature needs to recompute only the rates

   Logically Collective

   Input Parameters:
+  coll - the collision operator
-  flg  - PETSC_TRUE to keep it

   Options Database Key:
.  -bte_collision_refresh <bool> - keep it (default false; the transport solver turns it on when it
                                   solves at more than one temperature)

   Notes:
   Call before BTECollisionSetUp(). Then BTECollisionSetTemperature() on the set-up operator makes
   the next BTECollisionSetUp() recompute the channels' rates P, Q and re-sum the merged entries in
   the order of the build, instead of rebuilding the layout (grouping, sorting and merging the
   channels, cutting chunks, slots, ghosts): the result is the same to the bit. Implemented by the
   pair type (docs/collision.md); the other types rebuild. Memory kept, pair type: built on the
   host, 8 bytes per computed channel and 8 per stored pair; built on the device, 4 bytes per
   channel on the device (beside the channel arrays the BTE keeps there) and a device copy of the
   local states' energies.

   Level: advanced

.seealso: `BTECollisionSetTemperature()`, `BTECollisionGetTemperatureRefresh()`
@*/
PetscErrorCode BTECollisionSetTemperatureRefresh(BTECollision coll, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscValidLogicalCollectiveBool(coll, flg, 2);
  PetscCheck(!coll->setupcalled || flg == coll->refresh, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "Call BTECollisionSetTemperatureRefresh() (-bte_collision_refresh) before BTECollisionSetUp()");
  coll->refresh = flg;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetTemperatureRefresh - Tells whether the setup keeps what a change of temperature needs to recompute only the rates

   Not Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameter:
.  flg - PETSC_TRUE when it does

   Level: advanced

.seealso: `BTECollisionSetTemperatureRefresh()`
@*/
PetscErrorCode BTECollisionGetTemperatureRefresh(BTECollision coll, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscAssertPointer(flg, 2);
  *flg = coll->refresh;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetTemperatureChanges - Counts the changes of temperature after setup: refreshed rates and full rebuilds

   Not Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameters:
+  nrefresh - changes that recomputed only the rates (may be NULL)
-  nrebuild - changes that rebuilt the operator (may be NULL)

   Level: advanced

.seealso: `BTECollisionSetTemperature()`, `BTECollisionSetTemperatureRefresh()`
@*/
PetscErrorCode BTECollisionGetTemperatureChanges(BTECollision coll, PetscInt *nrefresh, PetscInt *nrebuild)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  if (nrefresh) *nrefresh = coll->nrefresh;
  if (nrebuild) *nrebuild = coll->nrebuild;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetJacobianAssembled - Chooses an assembled AIJ Jacobian instead of a MATSHELL

   Logically Collective

   Input Parameters:
+  coll - the collision operator
-  flg  - PETSC_TRUE for AIJ

   Options Database Key:
.  -bte_jacobian_assembled <bool> - AIJ Jacobian

   Level: intermediate

.seealso: `BTECollisionCreateJacobian()`
@*/
PetscErrorCode BTECollisionSetJacobianAssembled(BTECollision coll, PetscBool flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  coll->assembled = flg;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetJacobianAssembled - Tells whether the Jacobian is an assembled AIJ matrix

   Not Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameter:
.  flg - PETSC_TRUE for AIJ

   Level: intermediate

.seealso: `BTECollisionSetJacobianAssembled()`
@*/
PetscErrorCode BTECollisionGetJacobianAssembled(BTECollision coll, PetscBool *flg)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  *flg = coll->assembled;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetPartition - Chooses which rank computes a channel whose ends live on two ranks

   Logically Collective

   Input Parameters:
+  coll - the collision operator
-  part - BTE_COLLISION_PARTITION_STATES (both ranks), BTE_COLLISION_PARTITION_PAIRS (one of them,
          its contribution to the other end sent to that end's owner; pair type only) or
          BTE_COLLISION_PARTITION_AUTO (pairs for the pair type on several ranks, else states)

   Options Database Key:
.  -bte_partition <auto,states,pairs> - the partition

   Notes:
   Call before BTECollisionSetUp(). Declared in bte/private/collisionimpl.h. See docs/collision.md.

   Level: advanced

.seealso: `BTECollisionGetPartition()`, `BTECollisionSetFromOptions()`
@*/
PetscErrorCode BTECollisionSetPartition(BTECollision coll, BTECollisionPartition part)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCheck(part >= BTE_COLLISION_PARTITION_AUTO && part <= BTE_COLLISION_PARTITION_PAIRS, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "Unknown partition %d", (int)part);
  PetscCheck(!coll->setupcalled || part == coll->partition, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "Set the partition before BTECollisionSetUp()");
  coll->partition = part;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetPartition - The partition in use after setup (states or pairs); before setup the one set (possibly auto)

   Not Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameter:
.  part - the partition

   Level: advanced

.seealso: `BTECollisionSetPartition()`
@*/
PetscErrorCode BTECollisionGetPartition(BTECollision coll, BTECollisionPartition *part)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  *part = coll->setupcalled ? coll->part : coll->partition;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetFromOptions - Reads the collision operator's options, its type's own included

   Collective

   Input Parameter:
.  coll - the collision operator

   Options Database Keys:
+  -bte_collision_type <type>              - implementation
.  -bte_collision_precision <double,mixed> - weight storage
.  -bte_partition <auto,states,pairs>      - which rank computes a channel whose ends live on two ranks
.  -bte_exchange <auto,scatter,nccl,ipc>   - how ghost values and sums move between the ranks' GPUs
.  -bte_exchange_nccl_library <lib>        - the NCCL library to load (default libnccl.so.2)
.  -bte_exchange_work_first <bool>         - NCCL or IPC: launch the hiding work before the exchange's own launches and calls
.  -bte_collision_refresh <bool>           - keep what a change of temperature after setup needs to recompute only the rates
.  -bte_jacobian_assembled <bool>          - AIJ Jacobian
-  -bte_collision_view [viewer]            - view the operator after setup

   Level: beginner

.seealso: `BTECollisionSetType()`
@*/
PetscErrorCode BTECollisionSetFromOptions(BTECollision coll)
{
  char        type[256];
  const char *deft = ((PetscObject)coll)->type_name ? ((PetscObject)coll)->type_name : BTECOLLISIONPAIR;
  PetscBool   flg;
  PetscEnum   prec = (PetscEnum)coll->precision, part = (PetscEnum)coll->partition, xchg = (PetscEnum)coll->exchange;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCall(BTECollisionInitializePackage());
  PetscObjectOptionsBegin((PetscObject)coll);
  PetscCall(PetscOptionsFList("-bte_collision_type", "Collision operator implementation", "BTECollisionSetType", BTECollisionList, deft, type, sizeof(type), &flg));
  if (flg || !((PetscObject)coll)->type_name) PetscCall(BTECollisionSetType(coll, flg ? type : deft));
  PetscCall(PetscOptionsEnum("-bte_collision_precision", "Storage precision of the fused and pair weights (mixed: float weights, double sums)", "BTECollision", BTECollisionPrecisions, prec, &prec, NULL));
  /* a built operator keeps its layout: a different precision, partition or exchange is refused, as
     the setters refuse it (BTECollisionSetMixedPrecision, BTECollisionSetPartition) */
  PetscCheck(!coll->setupcalled || prec == (PetscEnum)coll->precision, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "-bte_collision_precision: set the precision before BTECollisionSetUp()");
  coll->precision = (BTECollisionPrecision)prec;
  PetscCall(PetscOptionsEnum("-bte_partition", "Which rank computes a channel whose ends live on two ranks: both (states), one of them with its contribution to the other end sent back (pairs; pair type only), or auto (pairs for the pair type on several ranks)", "BTECollisionSetPartition", BTECollisionPartitions, part, &part, NULL));
  PetscCall(BTECollisionSetPartition(coll, (BTECollisionPartition)part));
  PetscCall(PetscOptionsEnum("-bte_exchange", "How ghost values and sums move between ranks with CUDA Vecs: scatter (PETSc's VecScatter; staged through host memory unless the MPI is GPU-aware), nccl (NCCL between the ranks' GPUs; one GPU per rank), ipc (CUDA IPC between the GPUs of one host), or auto (ipc on one host with a GPU per rank, else nccl where it can run)", "BTECollision", BTECollisionExchanges, xchg, &xchg, &flg));
  PetscCheck(!coll->setupcalled || xchg == (PetscEnum)coll->exchange, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "-bte_exchange: set the exchange before BTECollisionSetUp()");
#if !defined(BTE_HAVE_CUDA)
  /* without CUDA every exchange is PETSc's VecScatter: nccl or ipc would be ignored on one rank */
  PetscCheck(!flg || (xchg != (PetscEnum)BTE_COLLISION_EXCHANGE_NCCL && xchg != (PetscEnum)BTE_COLLISION_EXCHANGE_IPC), PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "-bte_exchange %s moves CUDA Vecs between GPUs: bte was built without CUDA (docs/gpu.md), and host Vecs always use PETSc's VecScatter; leave it out", BTECollisionExchanges[xchg]);
#endif
  coll->exchange = (BTECollisionExchange)xchg;
  {
    /* options of the NCCL and IPC exchanges only: without CUDA they would be read and ignored */
    PetscBool set[2];
    PetscCall(PetscOptionsBool("-bte_exchange_work_first", "NCCL or IPC exchange: launch the work that hides an exchange before the exchange's own launches and calls are made (the transfers still wait for the values they send)", "BTECollision", coll->xwork, &coll->xwork, &set[0]));
    PetscCall(PetscOptionsString("-bte_exchange_nccl_library", "The NCCL shared library loaded for -bte_exchange nccl/auto (a name searched like any shared library, or a path)", "BTECollision", coll->ncclpath, coll->ncclpath, sizeof(coll->ncclpath), &set[1]));
#if !defined(BTE_HAVE_CUDA)
    PetscCheck(!set[0] && !set[1], PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "%s is an option of the NCCL and IPC exchanges between GPUs: bte was built without CUDA (docs/gpu.md); leave it out", set[0] ? "-bte_exchange_work_first" : "-bte_exchange_nccl_library");
#else
    (void)set;
#endif
  }
  PetscCall(PetscOptionsBool("-bte_jacobian_assembled", "Jacobian as an assembled AIJ matrix instead of a MATSHELL", "BTECollisionSetJacobianAssembled", coll->assembled, &coll->assembled, NULL));
  {
    PetscBool r = coll->refresh;
    PetscCall(PetscOptionsBool("-bte_collision_refresh", "Keep what a change of temperature after setup needs to recompute only the rates (pair type: 8 B per channel and 8 per pair on the host, or 4 B per channel on the device); the transport solver turns it on for more than one temperature", "BTECollisionSetTemperatureRefresh", r, &r, NULL));
    PetscCall(BTECollisionSetTemperatureRefresh(coll, r));
  }
  {
    /* read by BTECollisionSetUp (PetscObjectViewFromOptions); named here so that -help lists it */
    PetscBool v;
    PetscCall(PetscOptionsName("-bte_collision_view", "View the operator after setup (type, channels, ghosts, layout bytes per rank)", "BTECollisionView", &v));
  }
  PetscOptionsEnd();
  coll->optionsset = PETSC_TRUE;
  if (coll->ops->setfromoptions) PetscCall((*coll->ops->setfromoptions)(coll));
  PetscFunctionReturn(0);
}

/* A new temperature on a set-up operator (BTECollisionSetTemperature): the constants that depend on
   it, then the type's refresh of the rates where every rank can do it, else a full rebuild (the
   type's data made again, its options read again if they were read before). Collective. */
static PetscErrorCode BTECollisionRetemperature_Private(BTECollision coll)
{
  BTE       bte  = coll->bte;
  PetscBool done = PETSC_FALSE, all;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_Refresh, coll, 0, 0, 0));
  coll->temperature = coll->Tset > 0 ? coll->Tset : bte->temperature;
  coll->kT          = BTE_KB * coll->temperature;
  coll->kTdb        = bte->delta == BTE_DELTA_BALANCED ? coll->kT : 0.0;
  if (coll->refresh && coll->ops->retemperature) PetscCall((*coll->ops->retemperature)(coll, &done));
  {
    PetscMPIInt d = done ? 1 : 0, a;
    PetscCallMPI(MPI_Allreduce(&d, &a, 1, MPI_INT, MPI_LAND, PetscObjectComm((PetscObject)coll)));
    all = a ? PETSC_TRUE : PETSC_FALSE;
  }
  if (all && coll->assembly) { /* the assembled Jacobian's rates: its pattern does not change */
    BTECollisionAssembly *as = coll->assembly;
    PetscCall(BTECollisionComputeChannelPQ_Private(coll, as->ci, as->cj, as->P, as->Q));
  }
  PetscCall(PetscLogEventEnd(BTECOLL_Refresh, coll, 0, 0, 0));
  coll->tstale = PETSC_FALSE;
  if (all) {
    coll->nrefresh++;
    coll->ratesid++;
    PetscCall(PetscInfo(coll, "collision operator: rates refreshed at %g K\n", (double)coll->temperature));
  } else {
    const char *name = ((PetscObject)coll)->type_name;
    char       *type;
    PetscErrorCode (*create)(BTECollision) = NULL;
    PetscInt    nref = coll->nrefresh, nreb = coll->nrebuild + 1;
    PetscInt64  rid  = coll->ratesid;

    PetscCall(PetscInfo(coll, "collision operator: rebuilt at %g K (%s)\n", (double)coll->temperature, coll->refresh ? "its type or this run cannot refresh the rates alone" : "-bte_collision_refresh is off"));
    PetscCall(PetscStrallocpy(name, &type));
    PetscCall(PetscFunctionListFind(BTECollisionList, type, &create));
    PetscCheck(create, PetscObjectComm((PetscObject)coll), PETSC_ERR_PLIB, "Collision type %s is no longer registered", type);
    PetscCall(BTECollisionReset(coll));
    PetscCall(PetscMemzero(coll->ops, sizeof(struct _BTECollisionOps)));
    coll->ownends = PETSC_FALSE;
    PetscCall((*create)(coll));
    PetscCall(PetscFree(type));
    if (coll->optionsset && coll->ops->setfromoptions) PetscCall((*coll->ops->setfromoptions)(coll));
    PetscCall(BTECollisionSetUp(coll));
    coll->nrefresh = nref;
    coll->nrebuild = nreb;
    coll->ratesid  = PetscMax(coll->ratesid, rid + 1);
  }
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetUp - Builds the operator's layout from the BTE's channels at the operator's temperature

   Collective

   Input Parameter:
.  coll - the collision operator

   Notes:
   Called by the applies if needed. The BTE must be set up. Refuses a run that does not fit in
   memory.

   Level: intermediate

.seealso: `BTECollisionCreate()`, `BTECollisionSetTemperature()`
@*/
PetscErrorCode BTECollisionSetUp(BTECollision coll)
{
  BTE bte;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  if (coll->setupcalled && coll->tstale) PetscCall(BTECollisionRetemperature_Private(coll));
  if (coll->setupcalled) PetscFunctionReturn(0);
  bte = coll->bte;
  PetscCheck(bte->setupcalled, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "Set up the BTE (BTESetUp()) before its collision operator");
  if (!((PetscObject)coll)->type_name) PetscCall(BTECollisionSetType(coll, BTECOLLISIONPAIR));
  if (coll->precision == BTE_COLLISION_PRECISION_MIXED) {
    PetscBool ok;
    PetscCall(BTECollisionTypeHasMixedPrecision(((PetscObject)coll)->type_name, &ok));
    if (!ok) {
      char         names[256] = "";
      const char **list;
      PetscInt     n;

      PetscCall(BTECollisionGetTypes(&n, &list));
      for (PetscInt k = 0; k < n; k++) {
        PetscBool mixed;
        PetscCall(BTECollisionTypeHasMixedPrecision(list[k], &mixed));
        if (!mixed) continue;
        PetscCall(PetscStrlcat(names, names[0] ? " and " : "", sizeof(names)));
        PetscCall(PetscStrlcat(names, list[k], sizeof(names)));
      }
      PetscCall(PetscFree(list));
      SETERRQ(PetscObjectComm((PetscObject)coll), PETSC_ERR_SUP, "Mixed precision (-bte_collision_precision mixed) is implemented by the %s types, not by %s", names, ((PetscObject)coll)->type_name);
    }
  }
  PetscCall(PetscLogEventBegin(BTECOLL_SetUp, coll, 0, 0, 0));
  /* constants of docs/theory.md section 2 */
  coll->temperature = coll->Tset > 0 ? coll->Tset : bte->temperature;
  PetscCheck(coll->temperature > 0, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive, got %g K", (double)coll->temperature);
  PetscCheck(bte->smearing > 0, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_OUTOFRANGE, "Smearing must be positive, got %g eV", (double)bte->smearing);
  for (PetscInt a = 0; a < 3; a++) PetscCheck(bte->grid.nk[a] >= 1, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "The BTE has no k grid (nk[%" PetscInt_FMT "] = %" PetscInt_FMT ")", a, bte->grid.nk[a]);
  coll->kT          = BTE_KB * coll->temperature;
  coll->eta         = bte->smearing;
  coll->inveta      = 1.0 / bte->smearing;
  coll->gnorm       = 1.0 / (bte->smearing * PetscSqrtReal(PETSC_PI));
  coll->nq          = (PetscInt64)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
  coll->pref        = 2.0 * PETSC_PI / BTE_HBAR / (PetscReal)coll->nq;
  coll->kTdb        = bte->delta == BTE_DELTA_BALANCED ? coll->kT : 0.0;
  coll->nbands      = bte->nbands;
  coll->nmodes      = bte->nmodes;
  for (PetscInt a = 0; a < 3; a++) coll->nk[a] = bte->grid.nk[a];
  /* the whole run must fit before its layout is allocated */
  {
    char what[96];
    PetscBool dev = PETSC_FALSE;
    if (coll->ops->layoutondevice) PetscCall((*coll->ops->layoutondevice)(coll, &dev));
    PetscCall(PetscSNPrintf(what, sizeof(what), "the %s collision operator%s", ((PetscObject)coll)->type_name, dev ? " (its layout built on the device)" : ""));
    PetscCall(BTECheckRunMemory(bte, coll->assembled, (PetscBool)!dev, what));
  }
  /* ghosts, local numbering, scatter; local ends of the held channels */
  PetscCall(PetscLogEventBegin(BTECOLL_SetUpEnds, coll, 0, 0, 0));
  PetscCall(BTECollisionSetUpGhosts_Private(coll));
  PetscCall(BTECollisionPartitionSetUp_Private(coll));
  if (!coll->ownends) PetscCall(BTECollisionComputeLocalEnds(coll, &coll->ci, &coll->cj));
  PetscCall(PetscLogEventEnd(BTECOLL_SetUpEnds, coll, 0, 0, 0));
  coll->nch = bte->ch.n;
  PetscCall((*coll->ops->setup)(coll));
  PetscCall(PetscFree2(coll->ci, coll->cj));
  coll->setupcalled = PETSC_TRUE;
  coll->tstale      = PETSC_FALSE;
  coll->ratesid++;
  PetscCall(PetscLogEventEnd(BTECOLL_SetUp, coll, 0, 0, 0));
  PetscCall(PetscObjectViewFromOptions((PetscObject)coll, NULL, "-bte_collision_view"));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetInfo - Gets the size of the operator's layout on this rank

   Not Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameters:
+  nch      - held channels (may be NULL)
.  nentries - stored channel ends (may be NULL)
.  nghost   - ghost states (may be NULL)
-  bytes    - bytes of the layout (may be NULL)

   Notes:
   Sets the operator up if needed (then collective).

   Level: advanced

.seealso: `BTECollisionView()`
@*/
PetscErrorCode BTECollisionGetInfo(BTECollision coll, PetscCount *nch, PetscCount *nentries, PetscInt *nghost, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCall(BTECollisionSetUp(coll));
  if (nch) *nch = coll->nch;
  if (nentries) *nentries = coll->nentries;
  if (nghost) *nghost = coll->nghost;
  if (bytes) *bytes = coll->bytes;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionCheckVec(BTECollision coll, Vec v, PetscInt arg)
{
  PetscFunctionBegin;
  PetscCall(BTECheckStateVec(v, coll->nlocal, arg));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionApply - Computes the collision integral I = I[f]

   Collective

   Input Parameters:
+  coll - the collision operator
-  f    - occupations (a vector of BTECreateStateVec())

   Output Parameter:
.  Iv - I[f], 1/fs

   Notes:
   Sets the operator up on first use. Sum_i I_i = 0 to rounding.

   Level: beginner

.seealso: `BTECollisionJacobianApply()`, `BTECollisionTSRHSFunction()`
@*/
PetscErrorCode BTECollisionApply(BTECollision coll, Vec f, Vec Iv)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(BTECollisionCheckVec(coll, f, 2));
  PetscCall(BTECollisionCheckVec(coll, Iv, 3));
  PetscCheck(f != Iv, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_IDN, "f and I must be different vectors");
  PetscCall(PetscLogEventBegin(BTECOLL_Apply, coll, f, Iv, 0));
  if (coll->ops->applyglobal) PetscCall((*coll->ops->applyglobal)(coll, 0, f, NULL, Iv, &done));
  if (!done) {
    PetscCall(BTECollisionGetLocalVec(coll, f, &coll->fl));
    PetscCall(BTECollisionGlobalToLocal(coll, f, coll->fl));
    PetscCall((*coll->ops->apply)(coll, coll->fl, Iv));
  }
  coll->napplies++;
  PetscCall(PetscLogEventEnd(BTECOLL_Apply, coll, f, Iv, 0));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionJacobianApply - Computes y = J(f) x with J = dI/df

   Collective

   Input Parameters:
+  coll - the collision operator
.  f    - the occupations J is taken at
-  x    - the vector J multiplies

   Output Parameter:
.  y - J(f) x

   Level: intermediate

.seealso: `BTECollisionApply()`, `BTECollisionCreateJacobian()`
@*/
PetscErrorCode BTECollisionJacobianApply(BTECollision coll, Vec f, Vec x, Vec y)
{
  PetscBool done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(BTECollisionCheckVec(coll, f, 2));
  PetscCall(BTECollisionCheckVec(coll, x, 3));
  PetscCall(BTECollisionCheckVec(coll, y, 4));
  PetscCheck(y != x && y != f, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_IDN, "y must differ from f and x");
  PetscCall(PetscLogEventBegin(BTECOLL_JacApply, coll, f, x, y));
  if (coll->ops->applyglobal) PetscCall((*coll->ops->applyglobal)(coll, 1, f, x, y, &done));
  if (!done) {
    PetscCall(BTECollisionGetLocalVec(coll, f, &coll->fl));
    PetscCall(BTECollisionGetLocalVec(coll, x, &coll->xl));
    PetscCall(BTECollisionGlobalToLocal(coll, f, coll->fl));
    PetscCall(BTECollisionGlobalToLocal(coll, x, coll->xl));
    PetscCall((*coll->ops->jacobian_apply)(coll, coll->fl, coll->xl, y));
  }
  coll->njacapplies++;
  PetscCall(PetscLogEventEnd(BTECOLL_JacApply, coll, f, x, y));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionGetScatteringRates - Computes the out-scattering rates Gamma_t = -J_tt(f)

   Collective

   Input Parameters:
+  coll - the collision operator
-  f    - the occupations

   Output Parameter:
.  Gamma - the rates, 1/fs (the inverse RTA lifetimes at f = f0)

   Level: intermediate

.seealso: `BTECollisionJacobianApply()`
@*/
PetscErrorCode BTECollisionGetScatteringRates(BTECollision coll, Vec f, Vec Gamma)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(BTECollisionCheckVec(coll, f, 2));
  PetscCall(BTECollisionCheckVec(coll, Gamma, 3));
  PetscCall(BTECollisionGetLocalVec(coll, f, &coll->fl));
  PetscCall(BTECollisionGlobalToLocal(coll, f, coll->fl));
  PetscCall((*coll->ops->jacobian_diagonal)(coll, coll->fl, Gamma));
  PetscCall(VecScale(Gamma, -1.0));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionViewBytes(PetscViewer v, const char what[], PetscLogDouble b)
{
  PetscFunctionBegin;
  if (b >= 1e9) PetscCall(PetscViewerASCIIPrintf(v, "%s: %.3f GB\n", what, b / 1e9));
  else if (b >= 1e6) PetscCall(PetscViewerASCIIPrintf(v, "%s: %.3f MB\n", what, b / 1e6));
  else PetscCall(PetscViewerASCIIPrintf(v, "%s: %.3f kB\n", what, b / 1e3));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionView - Prints the collision operator: type, channels, ghosts and layout bytes per rank

   Collective

   Input Parameters:
+  coll   - the collision operator
-  viewer - an ASCII viewer, e.g. PETSC_VIEWER_STDOUT_WORLD

   Options Database Key:
.  -bte_collision_view - view after setup

   Level: beginner

.seealso: `BTECollisionGetInfo()`
@*/
PetscErrorCode BTECollisionView(BTECollision coll, PetscViewer viewer)
{
  PetscBool   iascii;
  MPI_Comm    comm;
  PetscMPIInt size;
  double      loc[6], sum[6], mx[6];

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)coll);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)coll, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (!coll->setupcalled) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "(not set up)\n"));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_size(comm, &size));
  loc[0] = (double)coll->nch;
  loc[1] = (double)coll->nentries;
  loc[2] = (double)coll->nghost;
  loc[3] = (double)coll->bytes;
  loc[4] = (double)coll->ncomputed;
  loc[5] = coll->ncomputed > 0 ? (double)coll->bytes / (double)coll->ncomputed : 0;
  PetscCallMPI(MPI_Allreduce(loc, sum, 6, MPI_DOUBLE, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(loc, mx, 6, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(PetscViewerASCIIPrintf(viewer, "temperature %g K, smearing eta %g eV (delta: %s), Nq %" PetscInt64_FMT "\n", (double)coll->temperature, (double)coll->eta, coll->kTdb > 0 ? "balanced, exact detailed balance" : "perturbo", coll->nq));
  PetscCall(PetscViewerASCIIPrintf(viewer, "states: %" PetscInt_FMT " on %d rank(s)\n", coll->N, size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "channels: %" PetscInt64_FMT " distinct; held %.0f in all (largest rank %.0f)\n", coll->bte->ch.nglobal, sum[0], mx[0]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "layout entries (channel ends, or pairs for pair): %.0f (largest rank %.0f)\n", sum[1], mx[1]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "ghost states: %.0f in all (largest rank %.0f)\n", sum[2], mx[2]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "partition: %s (%s)\n", BTECollisionPartitions[coll->part], coll->part == BTE_COLLISION_PARTITION_PAIRS ? "a channel with ends on two ranks is computed by one of them; its contribution to the other end is added into that end's owner" : "a channel with ends on two ranks is computed by both"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "channels computed: %.0f in all, largest rank %.0f (%.3f x the mean); layout bytes per computed channel, largest rank: %.1f\n", sum[4], mx[4], sum[4] > 0 ? mx[4] * size / sum[4] : 0.0, mx[5]));
  {
    Vec         v;
    const char *desc;
    PetscCall(BTECreateStateVec(coll->bte, &v));
    PetscCall(BTECollisionExchangeDescribe(coll, v, &desc));
    PetscCall(VecDestroy(&v));
    PetscCall(PetscViewerASCIIPrintf(viewer, "ghost exchange: %s\n", desc));
  }
  if (coll->bte->ch.nglobal > 0) PetscCall(PetscViewerASCIIPrintf(viewer, "layout bytes per channel: %.1f\n", sum[3] / (double)coll->bte->ch.nglobal));
  PetscCall(BTECollisionViewBytes(viewer, "layout memory, all ranks", sum[3]));
  PetscCall(BTECollisionViewBytes(viewer, "layout memory, largest rank", mx[3]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "Jacobian: %s\n", coll->assembled ? "assembled AIJ" : "MATSHELL (matrix-free)"));
  if (coll->refresh || coll->nrefresh || coll->nrebuild) {
    PetscLogDouble kb = 0, kbs;
    if (coll->refresh && coll->ops->refreshbytes) PetscCall((*coll->ops->refreshbytes)(coll, &kb));
    PetscCallMPI(MPI_Allreduce(&kb, &kbs, 1, MPI_DOUBLE, MPI_SUM, comm));
    PetscCall(PetscViewerASCIIPrintf(viewer, "temperature changes after setup: %" PetscInt_FMT " refreshed the rates only, %" PetscInt_FMT " rebuilt the operator (-bte_collision_refresh %s)\n", coll->nrefresh, coll->nrebuild, coll->refresh ? "true" : "false"));
    if (coll->refresh) PetscCall(BTECollisionViewBytes(viewer, "kept for a refresh of the rates, all ranks", kbs));
  }
  if (coll->ops->view) PetscCall((*coll->ops->view)(coll, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

/* One line for the views of the solvers that use the operator (-bte_view): type, partition over the
   ranks and how the ghost exchange moves data. Collective. */
PetscErrorCode BTECollisionViewSummary(BTECollision coll, PetscViewer viewer)
{
  Vec         v;
  const char *desc;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  if (!coll->setupcalled) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)coll), &size));
  PetscCall(BTECreateStateVec(coll->bte, &v));
  PetscCall(BTECollisionExchangeDescribe(coll, v, &desc));
  PetscCall(VecDestroy(&v));
  PetscCall(PetscViewerASCIIPrintf(viewer, "collision operator: %s (%s), partition %s on %d rank(s), ghost exchange: %s\n", ((PetscObject)coll)->type_name, BTECollisionPrecisions[coll->precision], BTECollisionPartitions[coll->part], (int)size, desc));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionSetMixedPrecision - Stores the weights in single precision, summing in double (types that implement it)

   Logically Collective

   Input Parameters:
+  coll  - the collision operator
-  mixed - PETSC_TRUE for single-precision weights

   Options Database Key:
.  -bte_collision_precision <double,mixed> - weight storage

   Level: advanced

.seealso: `BTECollisionTypeHasMixedPrecision()`
@*/
PetscErrorCode BTECollisionSetMixedPrecision(BTECollision coll, PetscBool mixed)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCheck(!coll->setupcalled, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONGSTATE, "Set the precision before BTECollisionSetUp()");
  coll->precision = mixed ? BTE_COLLISION_PRECISION_MIXED : BTE_COLLISION_PRECISION_DOUBLE;
  PetscFunctionReturn(0);
}
