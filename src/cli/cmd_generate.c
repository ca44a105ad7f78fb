/* bte generate: build a model's scattering table and write it to HDF5. */
#include "commands.h"

PetscErrorCode BTECommandGenerate(MPI_Comm comm)
{
  BTE       bte;
  char      out[PETSC_MAX_PATH_LEN] = "";
  PetscBool flg, view = PETSC_TRUE, stream = PETSC_TRUE, help, batch;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte generate: build a model's scattering table", "BTE");
  PetscCall(PetscOptionsString("-bte_output", "Table file to write (HDF5)", "BTEGenerateTable", out, out, sizeof(out), &flg));
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary", "BTEView", view, &view, NULL));
  PetscCall(PetscOptionsBool("-bte_generate_stream", "Write the table while generating, -bte_generate_batch channels at a time (0: build it in memory, then write)", "BTEGenerateTable", stream, &stream, NULL));
  PetscOptionsEnd();
  PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_generate_batch", &batch));
  PetscCheck(stream || !batch, comm, PETSC_ERR_USER_INPUT, "-bte_generate_batch sets how much of the table is written at a time while generating; -bte_generate_stream 0 builds it in memory first: leave one out");
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTECommandHelpRequested(&help));
  if (help) {
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  PetscCall(BTECommandCheckOptions(comm, "generate"));
  {
    const char *model, **names;
    char        list[512] = "";
    PetscInt    n;

    PetscCall(BTEGetModel(bte, &model));
    PetscCall(BTEModelGetTypes(&n, &names));
    for (PetscInt k = 0; k < n; k++) {
      PetscCall(PetscStrlcat(list, k ? "|" : "", sizeof(list)));
      PetscCall(PetscStrlcat(list, names[k], sizeof(list)));
    }
    PetscCall(PetscFree(names));
    PetscCheck(model[0], comm, PETSC_ERR_USER_INPUT, "bte generate needs a model: -bte_model %s (perturbo with -bte_perturbo_epr prefix_epr.h5 for a real material, docs/import.md)", list);
  }
  PetscCheck(flg && out[0], comm, PETSC_ERR_USER_INPUT, "bte generate needs an output file: -bte_output FILE.h5");
  PetscCall(BTECheckOutputFile(bte, out, "-bte_output")); /* before anything is opened for writing */
  if (stream) {
    PetscCall(BTEGenerateTable(bte, out));
    if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  } else {
    PetscCall(BTESetUp(bte));
    if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
    PetscCall(BTEWriteTable(bte, out));
  }
  PetscCall(PetscPrintf(comm, "wrote %s\n", out));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
