/* The Jacobian J = dI/df of the collision operator as a Mat (MATSHELL or assembled AIJ), and the
   TS callbacks.

   MATSHELL: MatMult is y = scale * J(f) x + shift * x, with J applied by the implementation at the
   state f set by BTECollisionComputeJacobian() (which copies f with its ghosts and resets
   scale = 1, shift = 0). MatShift/MatScale act on (shift, scale) as TS does on RHS Jacobians;
   MatZeroEntries makes the matrix zero (scale = shift = 0) as TS's IMEX path expects before
   MatShift; MatGetDiagonal is the implementation's diagonal.

   AIJ (-bte_jacobian_assembled): COO pattern built once from the held channels (each owned end
   of a channel gives a diagonal and an off-diagonal entry; ghosts are off-process columns),
   values from per-channel P/Q at every BTECollisionComputeJacobian(). */
#include <bte/private/collisionimpl.h>

typedef struct {
  BTECollision coll;
  Vec          fl, xl, work;
  PetscScalar  shift, scale;
  PetscBool    have; /* a state f was set */
} BTEJacShell;

static PetscErrorCode MatMult_BTEJac(Mat A, Vec x, Vec y)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  if (ctx->scale != 0.0) {
    BTECollision coll = ctx->coll;
    PetscCheck(ctx->have, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Set the state of the Jacobian with BTECollisionComputeJacobian() before MatMult()");
    PetscCall(BTECollisionSetUp(coll));
    PetscCall(PetscLogEventBegin(BTECOLL_JacApply, coll, x, y, 0));
    PetscCall(BTECollisionGetLocalVec(coll, x, &ctx->xl));
    PetscCall(BTECollisionGlobalToLocal(coll, x, ctx->xl));
    PetscCall((*coll->ops->jacobian_apply)(coll, ctx->fl, ctx->xl, y));
    coll->njacapplies++;
    PetscCall(PetscLogEventEnd(BTECOLL_JacApply, coll, x, y, 0));
    if (ctx->scale != 1.0) PetscCall(VecScale(y, ctx->scale));
  } else PetscCall(VecSet(y, 0.0));
  if (ctx->shift != 0.0) PetscCall(VecAXPY(y, ctx->shift, x));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultAdd_BTEJac(Mat A, Vec x, Vec y, Vec z)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  if (!ctx->work) PetscCall(VecDuplicate(x, &ctx->work));
  PetscCall(MatMult_BTEJac(A, x, ctx->work));
  if (z != y) PetscCall(VecWAXPY(z, 1.0, ctx->work, y));
  else PetscCall(VecAXPY(z, 1.0, ctx->work));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_BTEJac(Mat A, Vec d)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  if (ctx->scale != 0.0) {
    PetscCheck(ctx->have, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Set the state of the Jacobian with BTECollisionComputeJacobian() before MatGetDiagonal()");
    PetscCall(BTECollisionSetUp(ctx->coll));
    PetscCall((*ctx->coll->ops->jacobian_diagonal)(ctx->coll, ctx->fl, d));
    if (ctx->scale != 1.0) PetscCall(VecScale(d, ctx->scale));
  } else PetscCall(VecSet(d, 0.0));
  if (ctx->shift != 0.0) PetscCall(VecShift(d, ctx->shift));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatShift_BTEJac(Mat A, PetscScalar a)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  ctx->shift += a;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatScale_BTEJac(Mat A, PetscScalar a)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  ctx->scale *= a;
  ctx->shift *= a;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatZeroEntries_BTEJac(Mat A)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  ctx->scale = 0.0;
  ctx->shift = 0.0;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatView_BTEJac(Mat A, PetscViewer viewer)
{
  BTEJacShell *ctx;
  PetscBool    iascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (iascii) PetscCall(PetscViewerASCIIPrintf(viewer, "BTECollision Jacobian (%s, matrix-free): %g * J(f) + %g * I\n", ((PetscObject)ctx->coll)->type_name, (double)PetscRealPart(ctx->scale), (double)PetscRealPart(ctx->shift)));
  PetscFunctionReturn(0);
}

/* What a preconditioner needs to rebuild the operator from the channels (PCBTETWOLEVEL): the
   collision operator, the state f (owned + ghost entries) and the scale and shift that TS applied. */
static PetscErrorCode MatGetLinearization_BTEJac(Mat A, BTECollision *coll, Vec *fl, PetscScalar *scale, PetscScalar *shift, PetscBool *whole)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCheck(ctx->have, PetscObjectComm((PetscObject)A), PETSC_ERR_ARG_WRONGSTATE, "Set the state of the Jacobian with BTECollisionComputeJacobian() before setting up its preconditioner");
  *coll  = ctx->coll;
  *fl    = ctx->fl;
  *scale = ctx->scale;
  *shift = ctx->shift;
  *whole = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_BTEJac(Mat A)
{
  BTEJacShell *ctx;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &ctx));
  PetscCall(VecDestroy(&ctx->fl));
  PetscCall(VecDestroy(&ctx->xl));
  PetscCall(VecDestroy(&ctx->work));
  PetscCall(PetscFree(ctx));
  PetscFunctionReturn(0);
}

/* Per-channel data of the assembled Jacobian (once per BTECollision). */
static PetscErrorCode BTECollisionAssemblySetUp(BTECollision coll)
{
  BTECollisionAssembly *as;
  PetscInt             *ci, *cj, nlocal = coll->nlocal;
  PetscCount            nch = coll->bte->ch.n;

  PetscFunctionBegin;
  PetscCall(PetscNew(&as));
  as->nch = nch;
  PetscCall(PetscMalloc4(nch, &as->P, nch, &as->Q, nch, &as->ci, nch, &as->cj));
  PetscCall(BTECollisionComputeLocalEnds(coll, &ci, &cj));
  PetscCall(PetscArraycpy(as->ci, ci, nch));
  PetscCall(PetscArraycpy(as->cj, cj, nch));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(BTECollisionComputeChannelPQ_Private(coll, as->ci, as->cj, as->P, as->Q));
  PetscCall(PetscMalloc1(nch + 1, &as->off));
  as->off[0] = nlocal;
  for (PetscCount c = 0; c < nch; c++) as->off[c + 1] = as->off[c] + 2 * ((as->ci[c] < nlocal) + (as->cj[c] < nlocal));
  as->ncoo = as->off[nch];
  PetscCall(PetscMalloc1(as->ncoo, &as->v));
  coll->assembly = as;
  PetscFunctionReturn(0);
}

/* COO pattern (global indices): the diagonal of every owned row, then per held channel, for
   each owned end t (other end o): (t,t) and (t,o). The caller frees with PetscFree2. */
static PetscErrorCode BTECollisionAssemblyPattern(BTECollision coll, PetscInt **coo_i, PetscInt **coo_j)
{
  BTECollisionAssembly *as     = coll->assembly;
  PetscInt              nlocal = coll->nlocal, *Iv, *J;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(as->ncoo, &Iv, as->ncoo, &J));
  for (PetscInt t = 0; t < nlocal; t++) Iv[t] = J[t] = coll->rstart + t;
  for (PetscCount c = 0; c < as->nch; c++) {
    PetscCount k  = as->off[c];
    PetscInt   li = as->ci[c], lj = as->cj[c];
    PetscInt   gi = li < nlocal ? coll->rstart + li : coll->ghosts[li - nlocal];
    PetscInt   gj = lj < nlocal ? coll->rstart + lj : coll->ghosts[lj - nlocal];
    if (li < nlocal) {
      Iv[k] = gi, J[k] = gi, k++;
      Iv[k] = gi, J[k] = gj, k++;
    }
    if (lj < nlocal) {
      Iv[k] = gj, J[k] = gj, k++;
      Iv[k] = gj, J[k] = gi, k++;
    }
  }
  *coo_i = Iv;
  *coo_j = J;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionAssemblyFill(BTECollision coll, Vec fl, Mat J)
{
  BTECollisionAssembly *as     = coll->assembly;
  PetscInt              nlocal = coll->nlocal;
  const PetscScalar    *f;
  PetscScalar          *v = as->v;

  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(fl, &f));
  for (PetscInt t = 0; t < nlocal; t++) v[t] = 0.0;
#pragma omp parallel for schedule(static)
  for (PetscCount c = 0; c < as->nch; c++) {
    PetscCount k  = as->off[c];
    PetscInt   i  = as->ci[c], j = as->cj[c];
    PetscReal  fi = PetscRealPart(f[i]), fj = PetscRealPart(f[j]), P = as->P[c], Q = as->Q[c];
    PetscReal  dxi = -(P * (1.0 - fj) + Q * fj), dxj = P * fi + Q * (1.0 - fi);
    if (i < nlocal) {
      v[k++] = dxi;
      v[k++] = dxj;
    }
    if (j < nlocal) {
      v[k++] = -dxj;
      v[k++] = -dxi;
    }
  }
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(PetscLogFlops(10.0 * (PetscLogDouble)as->nch));
  PetscCall(MatSetValuesCOO(J, v, INSERT_VALUES));
  PetscFunctionReturn(0);
}

/* Mat type for an assembled Jacobian over state Vecs like x: AIJ, or AIJCUSPARSE for CUDA Vecs
   (-bte_jacobian_mat_type overrides). */
static PetscErrorCode BTECollisionJacobianMatType(Vec x, MatType *type)
{
  PetscBool iscuda = PETSC_FALSE;

  PetscFunctionBegin;
  if (x) PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &iscuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  *type = iscuda ? MATAIJCUSPARSE : MATAIJ;
  PetscFunctionReturn(0);
}

/*@
   BTECollisionCreateJacobian - Creates a matrix for the Jacobian J = dI/df

   Collective

   Input Parameter:
.  coll - the collision operator

   Output Parameter:
.  J - a MATSHELL (MatMult, MatGetDiagonal) by default, an assembled AIJ matrix with
       BTECollisionSetJacobianAssembled()

   Level: intermediate

.seealso: `BTECollisionComputeJacobian()`, `BTECollisionSetJacobianAssembled()`
@*/
PetscErrorCode BTECollisionCreateJacobian(BTECollision coll, Mat *J)
{
  MPI_Comm comm;
  Vec      x;
  VecType  vtype;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscCheck(J, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "Null Mat pointer");
  PetscCall(BTECollisionSetUp(coll));
  comm = PetscObjectComm((PetscObject)coll);
  PetscCall(BTECreateStateVec(coll->bte, &x));
  PetscCall(VecGetType(x, &vtype));
  if (!coll->assembled) {
    BTEJacShell *ctx;

    PetscCall(PetscNew(&ctx));
    ctx->coll  = coll;
    ctx->scale = 1.0;
    ctx->shift = 0.0;
    PetscCall(MatCreateShell(comm, coll->nlocal, coll->nlocal, coll->N, coll->N, ctx, J));
    PetscCall(MatShellSetManageScalingShifts(*J));
    PetscCall(MatShellSetOperation(*J, MATOP_MULT, (void (*)(void))MatMult_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_MULT_ADD, (void (*)(void))MatMultAdd_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_SHIFT, (void (*)(void))MatShift_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_SCALE, (void (*)(void))MatScale_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_ZERO_ENTRIES, (void (*)(void))MatZeroEntries_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_VIEW, (void (*)(void))MatView_BTEJac));
    PetscCall(MatShellSetOperation(*J, MATOP_DESTROY, (void (*)(void))MatDestroy_BTEJac));
    PetscCall(MatShellSetVecType(*J, vtype));
    PetscCall(MatSetOption(*J, MAT_STRUCTURALLY_SYMMETRIC, PETSC_TRUE));
    PetscCall(PetscObjectComposeFunction((PetscObject)*J, BTE_JAC_LINEARIZATION, MatGetLinearization_BTEJac));
  } else {
    const char *prefix;
    MatType     mtype = MATAIJ;
    PetscInt   *Iv, *Jc;

    PetscCall(PetscObjectGetOptionsPrefix((PetscObject)coll, &prefix));
    PetscCall(BTECollisionJacobianMatType(x, &mtype));
    PetscCall(MatCreate(comm, J));
    PetscCall(MatSetSizes(*J, coll->nlocal, coll->nlocal, coll->N, coll->N));
    PetscCall(MatSetType(*J, mtype));
    PetscCall(MatSetOptionsPrefix(*J, prefix));
    PetscCall(MatAppendOptionsPrefix(*J, "bte_jacobian_"));
    PetscCall(MatSetFromOptions(*J));
    PetscCall(PetscLogEventBegin(BTECOLL_JacAssemble, coll, *J, 0, 0));
    if (!coll->assembly) PetscCall(BTECollisionAssemblySetUp(coll));
    PetscCall(BTECollisionAssemblyPattern(coll, &Iv, &Jc));
    PetscCall(MatSetPreallocationCOO(*J, coll->assembly->ncoo, Iv, Jc));
    PetscCall(PetscFree2(Iv, Jc));
    /* start from zero values so the matrix is assembled */
    PetscCall(PetscArrayzero(coll->assembly->v, coll->assembly->ncoo));
    PetscCall(MatSetValuesCOO(*J, coll->assembly->v, INSERT_VALUES));
    PetscCall(MatSetOption(*J, MAT_STRUCTURALLY_SYMMETRIC, PETSC_TRUE));
    PetscCall(PetscLogEventEnd(BTECOLL_JacAssemble, coll, *J, 0, 0));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(PetscObjectCompose((PetscObject)*J, "BTECollision", (PetscObject)coll));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionComputeJacobian - Sets the state f at which a Jacobian matrix acts (and assembles it if it is AIJ)

   Collective

   Input Parameters:
+  coll - the collision operator
.  f    - the occupations
-  J    - a matrix from BTECollisionCreateJacobian()

   Level: intermediate

.seealso: `BTECollisionCreateJacobian()`
@*/
PetscErrorCode BTECollisionComputeJacobian(BTECollision coll, Vec f, Mat J)
{
  PetscObject obj;
  PetscBool   isshell;
  PetscInt    n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(coll, BTECOLLISION_CLASSID, 1);
  PetscValidHeaderSpecific(f, VEC_CLASSID, 2);
  PetscValidHeaderSpecific(J, MAT_CLASSID, 3);
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(PetscObjectQuery((PetscObject)J, "BTECollision", &obj));
  PetscCheck(obj == (PetscObject)coll, PetscObjectComm((PetscObject)coll), PETSC_ERR_ARG_WRONG, "The Mat was not created by BTECollisionCreateJacobian() of this collision operator");
  PetscCall(VecGetLocalSize(f, &n));
  PetscCheck(n == coll->nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "f has local size %" PetscInt_FMT ", expected %" PetscInt_FMT, n, coll->nlocal);
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSHELL, &isshell));
  if (isshell) {
    BTEJacShell *ctx;

    PetscCall(MatShellGetContext(J, &ctx));
    PetscCall(BTECollisionGetLocalVec(coll, f, &ctx->fl));
    PetscCall(BTECollisionGlobalToLocal(coll, f, ctx->fl));
    ctx->scale = 1.0;
    ctx->shift = 0.0;
    ctx->have  = PETSC_TRUE;
    PetscCall(PetscObjectStateIncrease((PetscObject)J));
  } else {
    PetscCall(PetscLogEventBegin(BTECOLL_JacAssemble, coll, f, J, 0));
    PetscCall(BTECollisionGetLocalVec(coll, f, &coll->fl));
    PetscCall(BTECollisionGlobalToLocal(coll, f, coll->fl));
    if (!coll->assembly) PetscCall(BTECollisionAssemblySetUp(coll)); /* after a type change: same pattern */
    PetscCall(BTECollisionAssemblyFill(coll, coll->fl, J));
    PetscCall(PetscLogEventEnd(BTECOLL_JacAssemble, coll, f, J, 0));
  }
  PetscFunctionReturn(0);
}

/*@
   BTECollisionTSRHSFunction - TS right-hand side function F = I[U], with a BTECollision as context

   Collective

   Input Parameters:
+  ts  - the TS
.  t   - time, fs (unused: the operator does not depend on time)
.  U   - the occupations
-  ctx - the BTECollision

   Output Parameter:
.  F - I[U]

   Level: intermediate

.seealso: `BTECollisionTSRHSJacobian()`, `BTEDynamicsTSRHSFunction()`
@*/
PetscErrorCode BTECollisionTSRHSFunction(TS ts, PetscReal t, Vec U, Vec F, void *ctx)
{
  PetscFunctionBegin;
  (void)ts;
  (void)t;
  PetscCall(BTECollisionApply((BTECollision)ctx, U, F));
  PetscFunctionReturn(0);
}

/*@
   BTECollisionTSRHSJacobian - TS right-hand side Jacobian dI/df at U, with a BTECollision as context

   Collective

   Input Parameters:
+  ts  - the TS
.  t   - time, fs (unused)
.  U   - the occupations
.  A   - the Jacobian (from BTECollisionCreateJacobian())
.  B   - the matrix to build the preconditioner from (A, or another of BTECollisionCreateJacobian())
-  ctx - the BTECollision

   Level: intermediate

.seealso: `BTECollisionTSRHSFunction()`, `BTECollisionCreateJacobian()`
@*/
PetscErrorCode BTECollisionTSRHSJacobian(TS ts, PetscReal t, Vec U, Mat A, Mat B, void *ctx)
{
  BTECollision coll = (BTECollision)ctx;

  PetscFunctionBegin;
  (void)ts;
  (void)t;
  PetscCall(BTECollisionComputeJacobian(coll, U, A));
  if (B && B != A) PetscCall(BTECollisionComputeJacobian(coll, U, B));
  PetscFunctionReturn(0);
}
