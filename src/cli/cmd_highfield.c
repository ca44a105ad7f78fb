/* bte highfield: velocity-field curves, the steady state of eq. 1 with a static
   field at a list of field strengths (SNES; pseudo-transient continuation). */
#include "commands.h"
#include <bte/transport.h>

PetscErrorCode BTECommandHighfield(MPI_Comm comm)
{
  BTE          bte;
  BTEHighField hf;
  char         out[PETSC_MAX_PATH_LEN] = "";
  PetscBool    flg, view = PETSC_TRUE, allow = PETSC_FALSE, help;
  PetscInt     nres, nbad = 0;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte highfield: steady state in a static field", "BTE");
  PetscCall(PetscOptionsString("-bte_output", "HDF5 file for /highfield (docs/transport.md)", "BTEHighFieldWriteHDF5", out, out, sizeof(out), &flg));
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary (the results, and the summary's WARNING lines, are always printed)", "BTEView", view, &view, NULL));
  PetscCall(PetscOptionsBool("-bte_allow_unconverged", "Write the results and exit 0 although a field did not converge (else: exit 1, nothing written)", "BTEHighFieldSolve", allow, &allow, NULL));
  PetscOptionsEnd();
  PetscCall(BTECommandHelpRequested(&help));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  if (out[0] && !help) PetscCall(BTECheckOutputFile(bte, out, "-bte_output")); /* before anything is opened for writing */
  PetscCall(BTEHighFieldCreate(bte, &hf));
  PetscCall(BTEHighFieldSetFromOptions(hf));
  PetscCall(BTECommandOptionsVec(comm));
  PetscCall(BTECommandOptionsCollision(bte, NULL));
  if (help) {
    PetscCall(BTEHighFieldDestroy(&hf));
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  /* each solve sets its own field: -bte_efield, which bte dynamics takes, would be ignored */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_efield", &flg));
  PetscCheck(!flg, comm, PETSC_ERR_USER_INPUT, "bte highfield does not use -bte_efield: give the field strengths with -bte_efield_list (V/cm) and the direction with -bte_efield_direction");
  PetscCall(BTECommandCheckOptions(comm, "highfield"));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_efield_list", &flg));
  PetscCheck(flg, comm, PETSC_ERR_USER_INPUT, "bte highfield needs field strengths: -bte_efield_list 500,1000,2000 (V/cm)");
  PetscCall(BTESetUp(bte));
  /* set up first: the summary's diagnostics then come from the run's collision operator */
  PetscCall(BTEHighFieldSetUp(hf));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  else PetscCall(BTEViewWarnings(bte, PETSC_VIEWER_STDOUT_(comm))); /* no summary, but its warnings */
  PetscCall(BTEHighFieldSolve(hf));
  PetscCall(BTEHighFieldView(hf, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEHighFieldGetNumResults(hf, &nres));
  for (PetscInt k = 0; k < nres; k++) {
    BTEHighFieldResult r;
    PetscCall(BTEHighFieldGetResult(hf, k, &r));
    if (!r.converged) nbad++;
  }
  PetscCheck(!nbad || allow, comm, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT " of %" PetscInt_FMT " high-field solves did not converge (NOT CONVERGED above)%s; where a 'high field:' line above names the cause, follow it; else raise -bte_highfield_snes_max_it or -bte_highfield_ptc_max_it or use smaller field steps; or give -bte_allow_unconverged to accept the results", nbad, nres, out[0] ? " and nothing was written" : "");
  if (nbad) PetscCall(PetscPrintf(comm, "WARNING: %" PetscInt_FMT " of %" PetscInt_FMT " high-field solves did not converge (-bte_allow_unconverged)\n", nbad, nres));
  if (out[0]) {
    PetscCall(BTECommandCheckOptionsBeforeWrite(comm, "highfield", out));
    PetscCall(BTEHighFieldWriteHDF5(hf, out));
    PetscCall(PetscPrintf(comm, "wrote %s\n", out));
  }
  PetscCall(BTEHighFieldDestroy(&hf));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
