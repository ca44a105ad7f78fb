static const char help[] = "rt-BTE relaxation df/dt = I[f] under PETSc TS with the collision operator's TS callbacks:\n"
                           "the integrator chosen by the options (-ts_type ...; shell Jacobian by default, assembled with\n"
                           "-bte_jacobian_assembled) is compared with an accurate explicit reference (rk 5dp), and\n"
                           "the particle number is checked.\n"
                           "  -tfinal 20 (fs)  -tol 1e-4 (max |f - f_ref|); the particle number must hold to 1e-10 (implicit\n"
                           "  methods conserve it up to the linear solver tolerance)\n";

#include "synth.h"
#include <bte/private/collisionimpl.h>

static PetscErrorCode Integrate(BTECollision coll, Vec f, PetscReal tfinal, PetscBool reference, PetscInt *steps)
{
  TS        ts;
  Mat       J = NULL;
  SNES      snes;
  KSP       ksp;
  PC        pc;
  PetscBool assembled;

  PetscFunctionBegin;
  PetscCall(TSCreate(PetscObjectComm((PetscObject)coll), &ts));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  PetscCall(TSSetRHSFunction(ts, NULL, BTECollisionTSRHSFunction, coll));
  PetscCall(TSSetMaxTime(ts, tfinal));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  PetscCall(TSSetTimeStep(ts, 0.01));
  if (reference) {
    PetscCall(TSSetType(ts, TSRK));
    PetscCall(TSRKSetType(ts, TSRK5DP));
    PetscCall(TSSetTolerances(ts, 1e-12, NULL, 1e-10, NULL));
    PetscCall(TSSetOptionsPrefix(ts, "ref_"));
  } else {
    PetscCall(BTECollisionCreateJacobian(coll, &J));
    PetscCall(TSSetRHSJacobian(ts, J, J, BTECollisionTSRHSJacobian, coll));
    PetscCall(BTECollisionGetJacobianAssembled(coll, &assembled));
    PetscCall(TSGetSNES(ts, &snes));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, assembled ? PCILU : PCJACOBI));
    PetscCall(TSSetTolerances(ts, 1e-9, NULL, 1e-7, NULL));
  }
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSolve(ts, f));
  PetscCall(TSGetStepNumber(ts, steps));
  PetscCall(TSDestroy(&ts));
  PetscCall(MatDestroy(&J));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm     comm;
  BTE          bte;
  BTECollision coll;
  Vec          f, fref, f0;
  PetscReal    tfinal = 20.0, tol = 1e-4, err, dn, change;
  PetscScalar  n0, n1;
  PetscInt     nref, nsteps;
  const char  *type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tfinal", &tfinal, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTECollisionCreate(bte, &coll));
  PetscCall(BTECollisionSetFromOptions(coll));
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(BTECreateStateVec(bte, &f0));
  PetscCall(SynthFillVec(f0, 21));
  PetscCall(VecDuplicate(f0, &f));
  PetscCall(VecDuplicate(f0, &fref));
  PetscCall(VecCopy(f0, fref));
  PetscCall(Integrate(coll, fref, tfinal, PETSC_TRUE, &nref));
  PetscCall(VecCopy(f0, f));
  PetscCall(Integrate(coll, f, tfinal, PETSC_FALSE, &nsteps));
  PetscCall(VecSum(f0, &n0));
  PetscCall(VecSum(f, &n1));
  dn = PetscAbsScalar(n1 - n0) / PetscAbsScalar(n0);
  PetscCall(VecAXPY(fref, -1.0, f0));
  PetscCall(VecNorm(fref, NORM_INFINITY, &change));
  PetscCall(VecAXPY(fref, 1.0, f0));
  PetscCall(VecAXPY(f, -1.0, fref));
  PetscCall(VecNorm(f, NORM_INFINITY, &err));
  type = ((PetscObject)coll)->type_name;
  PetscCall(PetscPrintf(comm, "%s collision, t = %g fs: reference %" PetscInt_FMT " rk5dp steps, %" PetscInt_FMT " steps; max|f - f_ref| = %.3e (max change %.3e); particle number drift %.3e\n", type, (double)tfinal, nref, nsteps, (double)err, (double)change, (double)dn));
  PetscCheck(change > 0.05, comm, PETSC_ERR_PLIB, "FAILED: f hardly relaxed (max change %g): the test is too weak", (double)change);
  PetscCheck(err < tol, comm, PETSC_ERR_PLIB, "FAILED: max|f - f_ref| = %g > %g", (double)err, (double)tol);
  PetscCheck(dn < 1e-10, comm, PETSC_ERR_PLIB, "FAILED: particle number changed by %g relative", (double)dn);
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&fref));
  PetscCall(VecDestroy(&f0));
  PetscCall(BTECollisionDestroy(&coll));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
