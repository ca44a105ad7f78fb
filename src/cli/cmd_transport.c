/* bte transport: low-field conductivity and mobility tensors (docs/theory.md eq. 5-6)
   at a list of temperatures and carrier densities or chemical potentials. */
#include "commands.h"
#include <bte/transport.h>

PetscErrorCode BTECommandTransport(MPI_Comm comm)
{
  BTE          bte;
  BTETransport tr;
  char         out[PETSC_MAX_PATH_LEN] = "";
  PetscBool    flg, view = PETSC_TRUE, allow = PETSC_FALSE, help;
  PetscInt     nres, nbad = 0;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte transport: low-field mobility (KSP, RTA, ITA)", "BTE");
  PetscCall(PetscOptionsString("-bte_output", "HDF5 file for /transport (docs/transport.md)", "BTETransportWriteHDF5", out, out, sizeof(out), &flg));
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary (the results, and the summary's WARNING lines, are always printed)", "BTEView", view, &view, NULL));
  PetscCall(PetscOptionsBool("-bte_allow_unconverged", "Write the results and exit 0 although a solve did not converge (else: exit 1, nothing written)", "BTETransportSolve", allow, &allow, NULL));
  PetscOptionsEnd();
  PetscCall(BTECommandHelpRequested(&help));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  if (out[0] && !help) PetscCall(BTECheckOutputFile(bte, out, "-bte_output")); /* before anything is opened for writing */
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
  /* set up first: the summary's diagnostics then come from the run's collision operator */
  PetscCall(BTETransportSetUp(tr));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  else PetscCall(BTEViewWarnings(bte, PETSC_VIEWER_STDOUT_(comm))); /* no summary, but its warnings */
  PetscCall(BTETransportSolve(tr));
  PetscCall(BTETransportView(tr, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTETransportGetNumResults(tr, &nres));
  for (PetscInt k = 0; k < nres; k++) {
    BTETransportResult r;
    PetscCall(BTETransportGetResult(tr, k, &r));
    if (!r.converged) nbad++;
  }
  PetscCheck(!nbad || allow, comm, PETSC_ERR_NOT_CONVERGED, "%" PetscInt_FMT " of %" PetscInt_FMT " transport solves did not converge (NOT CONVERGED above)%s; the 'transport: field direction' lines above say why and what helps; or give -bte_allow_unconverged to accept the results", nbad, nres, out[0] ? " and nothing was written" : "");
  if (nbad) PetscCall(PetscPrintf(comm, "WARNING: %" PetscInt_FMT " of %" PetscInt_FMT " transport solves did not converge (-bte_allow_unconverged)\n", nbad, nres));
  if (out[0]) {
    PetscCall(BTECommandCheckOptionsBeforeWrite(comm, "transport", out));
    PetscCall(BTETransportWriteHDF5(tr, out));
    PetscCall(PetscPrintf(comm, "wrote %s\n", out));
  }
  PetscCall(BTETransportDestroy(&tr));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
