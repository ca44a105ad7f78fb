/* bte highfield: velocity-field curves, the steady state of eq. 1 with a static
   field at a list of field strengths (SNES; pseudo-transient continuation). */
#include "commands.h"
#include <bte/transport.h>

PetscErrorCode BTECheckWritable(MPI_Comm, const char[]); /* cmd_transport.c */

PetscErrorCode BTECommandHighfield(MPI_Comm comm)
{
  BTE          bte;
  BTEHighField hf;
  char         out[PETSC_MAX_PATH_LEN] = "";
  PetscBool    flg, view = PETSC_TRUE, help;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte highfield: steady state in a static field", "BTE");
  PetscCall(PetscOptionsString("-bte_output", "HDF5 file for /highfield (docs/transport.md)", "BTEHighFieldWriteHDF5", out, out, sizeof(out), &flg));
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary and the results", "BTEHighFieldView", view, &view, NULL));
  PetscOptionsEnd();
  PetscCall(BTECommandHelpRequested(&help));
  if (out[0] && !help) PetscCall(BTECheckWritable(comm, out));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTEHighFieldCreate(bte, &hf));
  PetscCall(BTEHighFieldSetFromOptions(hf));
  PetscCall(BTECommandOptionsVec(comm));
  PetscCall(BTECommandOptionsCollision(bte, NULL));
  PetscCall(BTECommandOptionsDrift(bte));
  if (help) {
    PetscCall(BTEHighFieldDestroy(&hf));
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  PetscCall(BTECommandCheckOptions(comm, "highfield"));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_efield_list", &flg));
  PetscCheck(flg, comm, PETSC_ERR_USER_INPUT, "bte highfield needs field strengths: -bte_efield_list 500,1000,2000 (V/cm)");
  PetscCall(BTESetUp(bte));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEHighFieldSolve(hf));
  PetscCall(BTEHighFieldView(hf, PETSC_VIEWER_STDOUT_(comm)));
  if (out[0]) {
    PetscCall(BTEHighFieldWriteHDF5(hf, out));
    PetscCall(PetscPrintf(comm, "wrote %s\n", out));
  }
  PetscCall(BTEHighFieldDestroy(&hf));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
