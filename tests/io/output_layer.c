/* Writes a transport (-write transport) or high-field (-write highfield) result through the API
   to -file FILE, on the output layer (src/io/output.c); output_layer.sh checks what a write that
   fails leaves (FILE as it was) and what one that succeeds writes. Other options from the
   command line (a small parabolic model). */
#include <bte.h>
#include <bte/transport.h>

int main(int argc, char **argv)
{
  BTE             bte;
  BTETransport    tr;
  BTEHighField    hf;
  const PetscReal T[] = {300}, E[] = {1000};
  char            what[32] = "transport", file[PETSC_MAX_PATH_LEN] = "out.h5";
  PetscBool       high;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "output_layer: write a transport or high-field result to -file"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write", what, sizeof(what), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-file", file, sizeof(file), NULL));
  PetscCall(PetscStrcmp(what, "highfield", &high));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  if (high) {
    PetscCall(BTEHighFieldCreate(bte, &hf));
    PetscCall(BTEHighFieldSetFields(hf, 1, E));
    PetscCall(BTEHighFieldSolve(hf));
    PetscCall(BTEHighFieldWriteHDF5(hf, file));
    PetscCall(BTEHighFieldDestroy(&hf));
  } else {
    PetscCall(BTETransportCreate(bte, &tr));
    PetscCall(BTETransportSetTemperatures(tr, 1, T));
    PetscCall(BTETransportSolve(tr));
    PetscCall(BTETransportWriteHDF5(tr, file));
    PetscCall(BTETransportDestroy(&tr));
  }
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "wrote %s\n", file));
  PetscCall(PetscFinalize());
  return 0;
}
