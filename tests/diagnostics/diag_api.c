static const char help[] = "BTEGetDiagnostics through the public API: computed once and cached (a second call\n"
                           "returns the same values without a second computation), recomputed at a new\n"
                           "temperature, not computed when switched off (BTESetDiagnostics).\n";

#include <bte.h>

int main(int argc, char **argv)
{
  BTE            bte;
  BTEDiagnostics a, b, c, off;
  MPI_Comm       comm;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetModel(bte, "parabolic"));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTEGetDiagnostics(bte, &a));
  PetscCall(BTEGetDiagnostics(bte, &b));
  PetscCall(PetscPrintf(comm, "T %g K: computed %d, pieces %" PetscInt_FMT ", defect %.6f, relaxation %.4f K, edge share %.4e (width %.5f eV), %" PetscInt_FMT " applies\n", (double)a.temperature, (int)a.computed, a.pieces, (double)a.defect, (double)a.relax_temperature, (double)a.edge_share, (double)a.edge_width, a.applies));
  PetscCheck(a.computed && a.defect > 0 && a.relax_temperature > 0 && a.applies > 2, comm, PETSC_ERR_PLIB, "FAILED: not computed");
  PetscCheck(a.time == b.time && a.defect == b.defect && a.relax_temperature == b.relax_temperature, comm, PETSC_ERR_PLIB, "FAILED: a second call computed them again");
  PetscCall(BTESetTemperature(bte, 200.0));
  PetscCall(BTEGetDiagnostics(bte, &c));
  PetscCall(PetscPrintf(comm, "T %g K: defect %.6f, relaxation %.4f K, edge share %.4e (width %.5f eV)\n", (double)c.temperature, (double)c.defect, (double)c.relax_temperature, (double)c.edge_share, (double)c.edge_width));
  PetscCheck(c.computed && c.temperature == 200.0 && c.defect != a.defect && PetscAbsReal(c.edge_width / a.edge_width - 2.0 / 3.0) < 1e-12, comm, PETSC_ERR_PLIB, "FAILED: not recomputed at the new temperature");
  PetscCall(BTESetDiagnostics(bte, PETSC_FALSE));
  PetscCall(BTEGetDiagnostics(bte, &off));
  PetscCheck(!off.computed, comm, PETSC_ERR_PLIB, "FAILED: computed although switched off");
  PetscCall(PetscPrintf(comm, "switched off: computed %d\n", (int)off.computed));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
