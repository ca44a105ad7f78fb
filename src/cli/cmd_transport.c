/* bte transport: low-field conductivity and mobility tensors (physics.md eq. 5-6)
   at a list of temperatures and carrier densities or chemical potentials. */
#include "commands.h"
#include <bte/transport.h>

/* Fail before a long solve, not after it, when the output file cannot be written. */
PetscErrorCode BTECheckWritable(MPI_Comm comm, const char file[])
{
  PetscMPIInt rank;
  int         ok = 1;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    char  tmp[PETSC_MAX_PATH_LEN + 8];
    FILE *fp;
    PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", file));
    fp = fopen(tmp, "w");
    ok = fp ? 1 : 0;
    if (fp) {
      fclose(fp);
      remove(tmp);
    }
  }
  PetscCallMPI(MPI_Bcast(&ok, 1, MPI_INT, 0, comm));
  PetscCheck(ok, comm, PETSC_ERR_FILE_OPEN, "Cannot write the output file %s: check that its directory exists and is writable", file);
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandTransport(MPI_Comm comm)
{
  BTE          bte;
  BTETransport tr;
  char         out[PETSC_MAX_PATH_LEN] = "";
  PetscBool    flg, view = PETSC_TRUE, help;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte transport: low-field mobility (KSP, RTA, ITA)", "BTE");
  PetscCall(PetscOptionsString("-bte_output", "HDF5 file for /transport (docs/transport.md)", "BTETransportWriteHDF5", out, out, sizeof(out), &flg));
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary and the results", "BTETransportView", view, &view, NULL));
  PetscOptionsEnd();
  PetscCall(BTECommandHelpRequested(&help));
  if (out[0] && !help) PetscCall(BTECheckWritable(comm, out));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTETransportCreate(bte, &tr));
  PetscCall(BTETransportSetFromOptions(tr));
  PetscCall(BTECommandOptionsVec(comm));
  PetscCall(BTECommandOptionsCollision(bte, NULL));
  if (help) {
    PetscCall(BTETransportDestroy(&tr));
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  PetscCall(BTECommandCheckOptions(comm, "transport"));
  PetscCall(BTESetUp(bte));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTETransportSolve(tr));
  PetscCall(BTETransportView(tr, PETSC_VIEWER_STDOUT_(comm)));
  if (out[0]) {
    PetscCall(BTETransportWriteHDF5(tr, out));
    PetscCall(PetscPrintf(comm, "wrote %s\n", out));
  }
  PetscCall(BTETransportDestroy(&tr));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
