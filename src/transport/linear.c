/* The linear-response operator of docs/theory.md eq. 5 as a MATSHELL.

   Linearising eq. 1 about f0 with df = -e E.F D (D = -df0/de) gives
       A F = v,   A = Gamma - P = -D^{-1} J(f0) D,
   whose diagonal is -diag J(f0) = Gamma (the RTA out-scattering rate: for each
   channel -dx_c/df_i = P_c (1 - f_j) + Q_c f_j = a_c (N_c + f_j) + b_c (N_c + 1 - f_j)).

   Null spaces. Column sums of J vanish exactly (particle conservation), 1^T J = 0,
   so the LEFT null vector of A is w = D (w^T A = -1^T J D = 0), exactly. A shift of
   mu leaves f0 an equilibrium (up to the smearing error of G), so J(f0) df0/dmu =
   J D 1 ~ 0 and the RIGHT null vector of A is (nearly) the constant 1. The system is
   consistent when D^T v = 0, which holds by the k -> -k symmetry of the grid (v odd,
   e even); we project v onto D^perp anyway. The solution is fixed by requiring that
   the perturbation keeps the carrier number, sum_i df_i = 0 <=> D^T F = 0:
   F <- F - (D^T F / D^T 1) 1. The conductivity does not depend on this choice up to
   sum_i v_i D_i = 0.

   Symmetric form. With exact detailed balance, J(f0) D is symmetric (the rates
   P f0_i (1 - f0_j) = Q f0_j (1 - f0_i) of a channel make (J D)_ij = (J D)_ji), so
   S = -J D is symmetric positive semi-definite and S F = D v can use CG; both null
   vectors of S are then 1 (1^T S = 0 exactly). The Gaussian smearing breaks detailed
   balance channel by channel, so S is only nearly symmetric: GMRES on A is the default. */
#include "transportimpl.h"

typedef struct {
  BTELinearCtx *ctx;
  PetscBool     symmetric;
} BTELinearShell;

static PetscErrorCode MatMult_BTELinear(Mat A, Vec x, Vec y)
{
  BTELinearShell *sh;
  BTELinearCtx   *c;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &sh));
  c = sh->ctx;
  PetscCall(VecPointwiseMult(c->work, c->D, x));
  PetscCall(MatMult(c->J, c->work, y));
  c->applies++;
  if (sh->symmetric) PetscCall(VecScale(y, -1.0));
  else {
    PetscCall(VecPointwiseMult(y, y, c->Dinv));
    PetscCall(VecScale(y, -1.0));
  }
  /* identity on inactive states */
  PetscCall(VecPointwiseMult(c->work, c->inactive, x));
  PetscCall(VecAXPY(y, 1.0, c->work));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetDiagonal_BTELinear(Mat A, Vec d)
{
  BTELinearShell *sh;
  BTELinearCtx   *c;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &sh));
  c = sh->ctx;
  if (sh->symmetric) {
    PetscCall(VecPointwiseMult(d, c->D, c->gamma));
    PetscCall(VecAXPY(d, 1.0, c->inactive));
  } else PetscCall(VecCopy(c->gamma, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_BTELinear(Mat A)
{
  BTELinearShell *sh;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &sh));
  PetscCall(PetscFree(sh));
  PetscFunctionReturn(0);
}

PetscErrorCode BTELinearCreateOperator(BTE bte, BTELinearCtx *ctx, PetscBool symmetric, Mat *A)
{
  BTELinearShell *sh;
  PetscInt        nl, N;
  MatNullSpace    right, left;
  Vec             w;
  PetscReal       nrm;

  PetscFunctionBegin;
  PetscCall(PetscNew(&sh));
  sh->ctx       = ctx;
  sh->symmetric = symmetric;
  PetscCall(BTEGetNumStates(bte, &nl, &N));
  PetscCall(MatCreateShell(PetscObjectComm((PetscObject)bte), nl, nl, N, N, sh, A));
  PetscCall(MatShellSetOperation(*A, MATOP_MULT, (void (*)(void))MatMult_BTELinear));
  PetscCall(MatShellSetOperation(*A, MATOP_GET_DIAGONAL, (void (*)(void))MatGetDiagonal_BTELinear));
  PetscCall(MatShellSetOperation(*A, MATOP_DESTROY, (void (*)(void))MatDestroy_BTELinear));
  PetscCall(MatShellSetVecType(*A, ((PetscObject)ctx->D)->type_name));
  if (symmetric) PetscCall(MatSetOption(*A, MAT_SYMMETRIC, PETSC_TRUE));
  /* Right null vector: 1 on active states. */
  PetscCall(VecDuplicate(ctx->D, &w));
  PetscCall(VecCopy(ctx->active, w));
  PetscCall(VecNormalize(w, &nrm));
  if (nrm > 0) {
    PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)bte), PETSC_FALSE, 1, &w, &right));
    PetscCall(MatSetNullSpace(*A, right));
    if (symmetric) PetscCall(MatSetTransposeNullSpace(*A, right));
    PetscCall(MatNullSpaceDestroy(&right));
  }
  PetscCall(VecDestroy(&w));
  /* Left null vector of A: D. */
  if (!symmetric) {
    PetscCall(VecDuplicate(ctx->D, &w));
    PetscCall(VecCopy(ctx->D, w));
    PetscCall(VecNormalize(w, &nrm));
    if (nrm > 0) {
      PetscCall(MatNullSpaceCreate(PetscObjectComm((PetscObject)bte), PETSC_FALSE, 1, &w, &left));
      PetscCall(MatSetTransposeNullSpace(*A, left));
      PetscCall(MatNullSpaceDestroy(&left));
    }
    PetscCall(VecDestroy(&w));
  }
  PetscFunctionReturn(0);
}

/* Builds D, Gamma and the active-state masks at f0. J must already hold J(f0)
   (BTECollisionComputeJacobian). */
PetscErrorCode BTELinearCtxSetUp(BTE bte, Mat J, Vec f0, PetscReal T, PetscReal mu, Vec rate, BTELinearCtx *c)
{
  PetscScalar *d, *di, *g, *in, *ac;
  PetscInt     n, nin = 0;

  PetscFunctionBegin;
  PetscCall(BTELinearCtxReset(c));
  PetscCall(PetscObjectReference((PetscObject)J));
  c->J = J;
  PetscCall(VecDuplicate(f0, &c->D));
  PetscCall(VecDuplicate(f0, &c->Dinv));
  PetscCall(VecDuplicate(f0, &c->inactive));
  PetscCall(VecDuplicate(f0, &c->active));
  PetscCall(VecDuplicate(f0, &c->gamma));
  PetscCall(VecDuplicate(f0, &c->work));
  /* D = -df0/de at (T, mu), the same f0 the Jacobian was computed at */
  PetscCall(BTEEquilibrium(bte, T, mu, NULL, c->D));
  PetscCall(VecGetLocalSize(c->D, &n));
  PetscCall(MatGetDiagonal(J, c->gamma));
  PetscCall(VecScale(c->gamma, -1.0));
  if (rate) PetscCall(VecCopy(c->gamma, rate));
  PetscCall(VecGetArray(c->D, &d));
  PetscCall(VecGetArrayWrite(c->Dinv, &di));
  PetscCall(VecGetArray(c->gamma, &g));
  PetscCall(VecGetArrayWrite(c->inactive, &in));
  PetscCall(VecGetArrayWrite(c->active, &ac));
  for (PetscInt i = 0; i < n; i++) {
    PetscBool act = (PetscRealPart(g[i]) > 0 && PetscRealPart(d[i]) > 0) ? PETSC_TRUE : PETSC_FALSE;
    if (act) {
      di[i] = 1.0 / d[i];
      in[i] = 0;
      ac[i] = 1;
    } else {
      d[i]  = 0;
      di[i] = 0;
      g[i]  = 1;
      in[i] = 1;
      ac[i] = 0;
      nin++;
    }
  }
  PetscCall(VecRestoreArray(c->D, &d));
  PetscCall(VecRestoreArrayWrite(c->Dinv, &di));
  PetscCall(VecRestoreArray(c->gamma, &g));
  PetscCall(VecRestoreArrayWrite(c->inactive, &in));
  PetscCall(VecRestoreArrayWrite(c->active, &ac));
  PetscCall(MPIU_Allreduce(&nin, &c->ninactive, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)bte)));
  c->applies = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTELinearCtxReset(BTELinearCtx *c)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&c->J));
  PetscCall(VecDestroy(&c->D));
  PetscCall(VecDestroy(&c->Dinv));
  PetscCall(VecDestroy(&c->inactive));
  PetscCall(VecDestroy(&c->active));
  PetscCall(VecDestroy(&c->gamma));
  PetscCall(VecDestroy(&c->work));
  c->applies   = 0;
  c->ninactive = 0;
  PetscFunctionReturn(0);
}
