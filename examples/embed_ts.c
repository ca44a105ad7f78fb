/* embed_ts: a user's own PETSc program that drives bte's collision operator with its own TS.

   Only <bte.h> is included, as in any application that embeds bte:
     BTE            the state space and scattering channels, from a table (-bte_input FILE.h5)
                    or a built-in model generated in memory (-bte_model NAME -bte_grid N ...)
     BTECollision   I[f] and its Jacobian (-bte_collision_type ...)
     TS             created, configured and owned here; every -ts_* option works

   Hot electrons start as a Gaussian e0 above the band edge (-e0, eV, default 0.1) with width
   -smear (eV, default 0.02) and peak occupation -peak (default 0.1); the program prints the
   carrier number and mean energy every -every fs (default 100) and at the final time.

     mpiexec -n 2 build/examples/embed_ts -bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 \
        -ts_max_time 500 -ts_dt 1
*/
#include <bte.h>

static const char help[] = "Drive bte's collision operator with your own PETSc TS.\n";

typedef struct {
  BTE       bte;
  PetscReal every, next, edge;
} AppCtx;

/* A monitor of our own: moments of f at every 'every' fs. */
static PetscErrorCode Monitor(TS ts, PetscInt step, PetscReal t, Vec f, void *ctx)
{
  AppCtx   *app = (AppCtx *)ctx;
  PetscReal ncell, density, emean, v[3];

  PetscFunctionBeginUser;
  (void)ts;
  if (t < app->next - 1e-9) PetscFunctionReturn(0);
  while (app->next <= t + 1e-9) app->next += app->every;
  PetscCall(BTEComputeMoments(app->bte, f, &ncell, &density, &emean, v));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "t = %8.2f fs  step %5" PetscInt_FMT "  carriers %.12e /cell  <E> - edge = %.6f eV\n", (double)t, step, (double)ncell, (double)(emean - app->edge)));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  AppCtx       app;
  BTE          bte;
  BTECollision coll;
  TS           ts;
  TSAdapt      adapt;
  Mat          J;
  Vec          f;
  PetscReal    e0 = 0.1, smear = 0.02, peak = 0.1, ncell, density, emean, v[3], t;
  PetscInt     nstates;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "embed_ts options", NULL);
  PetscCall(PetscOptionsReal("-e0", "Initial Gaussian centre above the band edge, eV", NULL, e0, &e0, NULL));
  PetscCall(PetscOptionsReal("-smear", "Initial Gaussian width, eV", NULL, smear, &smear, NULL));
  PetscCall(PetscOptionsReal("-peak", "Initial peak occupation", NULL, peak, &peak, NULL));
  app.every = 100;
  PetscCall(PetscOptionsReal("-every", "Print every this many fs", NULL, app.every, &app.every, NULL));
  PetscOptionsEnd();

  /* 1. the state space and channels: -bte_input FILE or -bte_model NAME */
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTEGetNumStates(bte, NULL, &nstates));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " states\n", nstates));

  /* 2. the collision operator */
  PetscCall(BTECollisionCreate(bte, &coll));
  PetscCall(BTECollisionSetFromOptions(coll));
  PetscCall(BTECollisionSetUp(coll));

  /* 3. the initial state */
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(BTEGetBandEdge(bte, &app.edge));
  PetscCall(BTEComputeDistribution(bte, BTE_INIT_GAUSSIAN, app.edge + e0, smear, peak, f));

  /* 4. our own TS: RHS I[f], Jacobian dI/df (for implicit methods), fixed-step RK4 unless told otherwise */
  PetscCall(TSCreate(PETSC_COMM_WORLD, &ts));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  PetscCall(TSSetRHSFunction(ts, NULL, BTECollisionTSRHSFunction, coll));
  PetscCall(BTECollisionCreateJacobian(coll, &J));
  PetscCall(TSSetRHSJacobian(ts, J, J, BTECollisionTSRHSJacobian, coll));
  PetscCall(TSRHSJacobianSetReuse(ts, PETSC_TRUE));
  PetscCall(TSSetType(ts, TSRK));
  PetscCall(TSRKSetType(ts, TSRK4));
  PetscCall(TSGetAdapt(ts, &adapt));
  PetscCall(TSAdaptSetType(adapt, TSADAPTNONE));
  PetscCall(TSSetTimeStep(ts, 1.0));  /* fs */
  PetscCall(TSSetMaxTime(ts, 500.0)); /* fs */
  PetscCall(TSSetExactFinalTime(ts, TS_EXACTFINALTIME_MATCHSTEP));
  app.bte  = bte;
  app.next = 0;
  PetscCall(TSMonitorSet(ts, Monitor, &app, NULL));
  PetscCall(TSSetFromOptions(ts));
  PetscCall(TSSolve(ts, f));

  PetscCall(TSGetTime(ts, &t));
  PetscCall(BTEComputeMoments(bte, f, &ncell, &density, &emean, v));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "final: t = %.6f fs  carriers %.12e /cell  mean energy %.12f eV\n", (double)t, (double)ncell, (double)emean));

  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&f));
  PetscCall(TSDestroy(&ts));
  PetscCall(BTECollisionDestroy(&coll));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
