/* RK4 trajectories on the CPU and on the GPU: the same model, the same initial state, N fixed
   steps of TSRK4 with the collision integral as the RHS, once on standard Vecs and once on CUDA
   Vecs; the final occupations must agree to 1e-12 (max-norm relative) for each implementation. */
#include <bte.h>

static PetscErrorCode Run(BTE bte, BTECollisionType type, VecType vtype, Vec f0, PetscInt nsteps, PetscReal dt, Vec *fout)
{
  BTECollision c;
  TS           ts;
  Vec          f;
  PetscInt     n, N;

  PetscFunctionBegin;
  PetscCall(BTEGetNumStates(bte, &n, &N));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)bte), &f));
  PetscCall(VecSetSizes(f, n, N));
  PetscCall(VecSetType(f, vtype));
  PetscCall(VecCopy(f0, f));
  PetscCall(BTECollisionCreate(bte, &c));
  PetscCall(BTECollisionSetType(c, type));
  PetscCall(BTECollisionSetUp(c));
  PetscCall(TSCreate(PetscObjectComm((PetscObject)bte), &ts));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  PetscCall(TSSetType(ts, TSRK));
  PetscCall(TSRKSetType(ts, TSRK4));
  PetscCall(TSSetRHSFunction(ts, NULL, BTECollisionTSRHSFunction, c));
  PetscCall(TSSetTimeStep(ts, dt));
  PetscCall(TSSetMaxSteps(ts, nsteps));
  PetscCall(TSSetMaxTime(ts, 1e30));
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_STEPOVER));
  PetscCall(TSSolve(ts, f));
  PetscCall(VecCreate(PetscObjectComm((PetscObject)bte), fout));
  PetscCall(VecSetSizes(*fout, n, N));
  PetscCall(VecSetType(*fout, VECSTANDARD));
  PetscCall(VecCopy(f, *fout));
  PetscCall(TSDestroy(&ts));
  PetscCall(BTECollisionDestroy(&c));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  BTE              bte;
  Vec              f0, fc, fg, d;
  PetscInt         nsteps = 50;
  PetscReal        dt = 1.0, worst = 0, tol = 1e-12;
  BTECollisionType types[] = {BTECOLLISIONTGT, BTECOLLISIONFUSED, BTECOLLISIONPAIR};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-steps", &nsteps, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dt", &dt, NULL));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTECreateStateVec(bte, &f0));
  PetscCall(BTEFermiDirac(bte, 2000.0, 0.15, f0)); /* hot carriers relaxing toward the lattice */
  for (int k = 0; k < 3; k++) {
    PetscReal nd, nf, r;
    PetscCall(Run(bte, types[k], VECSTANDARD, f0, nsteps, dt, &fc));
    PetscCall(Run(bte, types[k], VECCUDA, f0, nsteps, dt, &fg));
    PetscCall(VecDuplicate(fc, &d));
    PetscCall(VecWAXPY(d, -1.0, fg, fc));
    PetscCall(VecNorm(d, NORM_INFINITY, &nd));
    PetscCall(VecNorm(fc, NORM_INFINITY, &nf));
    r = nd / nf;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " RK4 steps of %g fs, CPU vs GPU final f: max-norm relative %.3e\n", types[k], nsteps, (double)dt, (double)r));
    worst = PetscMax(worst, r);
    PetscCall(VecDestroy(&d));
    PetscCall(VecDestroy(&fc));
    PetscCall(VecDestroy(&fg));
  }
  PetscCheck(worst <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "CPU and GPU RK4 trajectories differ by %.3e > %.1e", (double)worst, (double)tol);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok: worst %.3e <= %.1e\n", (double)worst, (double)tol));
  PetscCall(VecDestroy(&f0));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
