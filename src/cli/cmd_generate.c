/* bte generate: build a model's scattering table and write it to HDF5. */
#include "commands.h"

PetscErrorCode BTECommandGenerate(MPI_Comm comm)
{
  BTE       bte;
  char      out[PETSC_MAX_PATH_LEN] = "";
  PetscBool flg, view = PETSC_TRUE;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte generate: build a model's scattering table", "BTE");
  PetscCall(PetscOptionsString("-bte_output", "Table file to write (HDF5)", "BTEWriteTable", out, out, sizeof(out), &flg));
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary", "BTEView", view, &view, NULL));
  PetscOptionsEnd();
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  {
    const char *model;
    PetscCall(BTEGetModel(bte, &model));
    PetscCheck(model[0], comm, PETSC_ERR_USER_INPUT, "bte generate needs a model: -bte_model parabolic|gaas|graphene|si-holes");
  }
  PetscCheck(flg && out[0], comm, PETSC_ERR_USER_INPUT, "bte generate needs an output file: -bte_output FILE.h5");
  PetscCall(BTESetUp(bte));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEWriteTable(bte, out));
  PetscCall(PetscPrintf(comm, "wrote %s\n", out));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
