/* bte dynamics: real-time BTE (collision + drift) under PETSc TS, snapshots to HDF5. */
#include "commands.h"

PetscErrorCode BTECommandDynamics(MPI_Comm comm)
{
  BTE            bte;
  BTEDynamics    dyn;
  PetscBool      view = PETSC_TRUE, help;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscOptionsBegin(comm, NULL, "bte dynamics: real-time Boltzmann dynamics (docs/dynamics.md)", "BTE");
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's and the run's summary (its WARNING lines are always printed)", "BTEView", view, &view, NULL));
  PetscOptionsEnd();
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTEDynamicsCreate(bte, &dyn));
  PetscCall(BTEDynamicsSetFromOptions(dyn));
  PetscCall(BTECommandOptionsVec(comm));
  PetscCall(BTECommandHelpRequested(&help));
  {
    /* drift only (-bte_scattering 0) makes no collision operator: its options are then unused */
    PetscBool scattering = PETSC_TRUE;
    PetscCall(PetscOptionsGetBool(NULL, NULL, "-bte_scattering", &scattering, NULL));
    if (scattering || help) PetscCall(BTECommandOptionsCollision(bte, NULL));
  }
  if (help) {
    PetscCall(BTEDynamicsDestroy(&dyn));
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  PetscCall(BTECommandCheckOptions(comm, "dynamics"));
  PetscCall(BTESetUp(bte));
  /* set up first: the summary's diagnostics then come from the run's collision operator */
  PetscCall(BTEDynamicsSetUp(dyn));
  /* every option but the end-of-run viewers has been read now: a misspelled one stops the run
     before its output file is opened, not after the run */
  PetscCall(BTECommandCheckOptionsSetUp(comm, "dynamics"));
  {
    TS        ts;
    TSType    tt;
    PetscBool expl;
    PetscCall(BTEDynamicsGetTS(dyn, &ts));
    PetscCall(TSGetType(ts, &tt));
    PetscCall(PetscObjectTypeCompareAny((PetscObject)ts, &expl, TSRK, TSEULER, TSSSP, TSMPRK, ""));
    if (expl) PetscCall(BTECommandCheckSolverOptionsExplicit(comm, "dynamics", tt));
    if (expl) {
      /* the Jacobian's options: used only by an implicit method (here the second one of a switch) */
      PetscReal sw = -1;
      PetscBool set, asm_, mt;
      PetscCall(PetscOptionsGetReal(NULL, NULL, "-bte_switch_time", &sw, &set));
      PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_jacobian_assembled", &asm_));
      PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_jacobian_mat_type", &mt));
      PetscCheck(sw >= 0 || (!asm_ && !mt), comm, PETSC_ERR_USER_INPUT, "%s: the explicit method -ts_type %s applies no Jacobian; it takes effect with an implicit method (e.g. -options_file options/implicit.opts): leave it out", asm_ ? "-bte_jacobian_assembled" : "-bte_jacobian_mat_type", tt);
    }
  }
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  else PetscCall(BTEViewWarnings(bte, PETSC_VIEWER_STDOUT_(comm))); /* no summary, but its warnings */
  if (view) PetscCall(BTEDynamicsView(dyn, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEDynamicsSolve(dyn, NULL));
  PetscCall(BTEDynamicsDestroy(&dyn));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscPrintf(comm, "dynamics: total %.2f s\n", (double)(t1 - t0)));
  PetscFunctionReturn(0);
}
