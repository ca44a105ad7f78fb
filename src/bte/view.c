/* BTEView and the memory estimate that bte info prints. */
#include <bte/private/diagnostics.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BTEGetMemoryEstimate: src/bte/memory.c */

static const char *BTEBytes(PetscLogDouble b, char buf[], size_t len)
{
  if (b >= 1e9) snprintf(buf, len, "%.2f GB", b / 1e9);
  else if (b >= 1e6) snprintf(buf, len, "%.2f MB", b / 1e6);
  else snprintf(buf, len, "%.2f kB", b / 1e3);
  return buf;
}

static PetscErrorCode BTEViewBytes(PetscViewer v, const char what[], PetscLogDouble b)
{
  char buf[32];

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(v, "%s: %s\n", what, BTEBytes(b, buf, sizeof(buf))));
  PetscFunctionReturn(0);
}

/*@
   BTEView - Prints a summary of the BTE: grid, states, channels, settings, memory and diagnostics

   Collective

   Input Parameters:
+  bte    - the BTE
-  viewer - an ASCII viewer, e.g. PETSC_VIEWER_STDOUT_WORLD

   Level: beginner

.seealso: `BTEGetDiagnostics()`
@*/
PetscErrorCode BTEView(BTE bte, PetscViewer viewer)
{
  PetscBool      iascii;
  PetscMPIInt    size;
  PetscLogDouble mtot, mloc, mmax, msum;
  PetscReal      emin = PETSC_MAX_REAL, emax = PETSC_MIN_REAL;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)bte), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  /* where the states and channels come from, instead of PETSc's "type not yet set" */
  if (bte->input[0] || bte->model[0]) PetscCall(PetscObjectChangeTypeName((PetscObject)bte, bte->input[0] ? "table" : "generated"));
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)bte, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (bte->input[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "table: %s\n", bte->input));
  if (bte->model[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "model: %s\n", bte->model));
  if (bte->source[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "source: %s\n", bte->source));
  if (bte->caveat[0]) PetscCall(PetscViewerASCIIPrintf(viewer, "model: WARNING %s\n", bte->caveat));
  if (!bte->setupcalled) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "(not set up)\n"));
    PetscCall(PetscViewerASCIIPopTab(viewer));
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)bte), &size));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    emin = PetscMin(emin, bte->energy[i]);
    emax = PetscMax(emax, bte->energy[i]);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emin, 1, MPIU_REAL, MPIU_MIN, PetscObjectComm((PetscObject)bte)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emax, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)bte)));
  PetscCall(PetscViewerASCIIPrintf(viewer, "grid: %" PetscInt_FMT "D, %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " k points (%" PetscInt64_FMT " in the full zone)\n", bte->grid.dim, bte->grid.nk[0], bte->grid.nk[1], bte->grid.nk[2], (PetscInt64)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2]));
  for (PetscInt a = 0; a < 3; a++) PetscCall(PetscViewerASCIIPrintf(viewer, "a%" PetscInt_FMT " = (%9.5f %9.5f %9.5f) A    b%" PetscInt_FMT " = (%9.5f %9.5f %9.5f) 1/A\n", a + 1, (double)bte->grid.lattice[3 * a], (double)bte->grid.lattice[3 * a + 1], (double)bte->grid.lattice[3 * a + 2], a + 1, (double)bte->grid.reciprocal[3 * a], (double)bte->grid.reciprocal[3 * a + 1], (double)bte->grid.reciprocal[3 * a + 2]));
  PetscCall(PetscViewerASCIIPrintf(viewer, "cell %s: %g %s\n", bte->grid.dim == 2 ? "area" : "volume", (double)bte->grid.volume, bte->grid.dim == 2 ? "A^2" : "A^3"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "energy window: [%g, %g] eV; states span [%g, %g] eV\n", (double)bte->emin, (double)bte->emax, (double)emin, (double)emax));
  PetscCall(PetscViewerASCIIPrintf(viewer, "carriers: %s, spin degeneracy %" PetscInt_FMT "\n", bte->carrier < 0 ? "electrons" : "holes", bte->spin));
  PetscCall(PetscViewerASCIIPrintf(viewer, "bands: %" PetscInt_FMT ", phonon modes: %" PetscInt_FMT "\n", bte->nbands, bte->nmodes));
  PetscCall(PetscViewerASCIIPrintf(viewer, "states (n,k) in window: %" PetscInt_FMT " on %d rank(s)\n", bte->nstates, size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "scattering channels: %" PetscInt64_FMT "%s\n", bte->ch.nglobal, bte->chcounted ? " (counted; channel arrays not loaded)" : ""));
  /* no channel at all: the graph of single states would read as "connected" */
  if (bte->ch.nglobal == 0) {
    /* a cutoff above the default may be what dropped every channel, not the grid */
    char cut[160] = "";
    if (bte->g2_cutoff > 0 || bte->phonon_min > 1e-3 * (1 + 1e-12)) PetscCall(PetscSNPrintf(cut, sizeof(cut), "; or the cutoffs dropped them (-bte_g2_cutoff %g eV^2, -bte_phonon_min %g eV): lower them", (double)bte->g2_cutoff, (double)bte->phonon_min));
    PetscCall(PetscViewerASCIIPrintf(viewer, "channel graph: WARNING no scattering channel: none of the %" PetscInt_FMT " states in the window scatters, so nothing relaxes (transport and high-field solves refuse this table); the k grid is too coarse for the window: %s%s\n", bte->nstates, BTEGridAdvice(bte), cut));
  }
  else if (!bte->chcounted) {
    PetscInt  np, nout;
    PetscReal eout;
    PetscCall(BTEGetChannelGraph(bte, &np, &nout, &eout));
    if (np == 1) PetscCall(PetscViewerASCIIPrintf(viewer, "channel graph: connected (every state reaches every other through channels)\n"));
    else {
      char where[64];
      if (eout - emin < 1e-12) PetscCall(PetscSNPrintf(where, sizeof(where), "the lowest state among them"));
      else PetscCall(PetscSNPrintf(where, sizeof(where), "from %.4g eV above the lowest state", (double)(eout - emin)));
      PetscCall(PetscViewerASCIIPrintf(viewer, "channel graph: WARNING %" PetscInt_FMT " disconnected pieces; %" PetscInt_FMT " of %" PetscInt_FMT " states (%s) are not connected to the largest: carriers there cannot relax with the rest and no single Fermi-Dirac equilibrium is reached, and a field drives carriers into pieces they cannot scatter back from (high-field and field-driven results are not those of the material); refine the grid or widen the window or smearing\n", np, nout, bte->nstates, where));
    }
    PetscCall(BTEDiagnosticsView(bte, viewer)); /* equilibrium defect, relaxation temperature, window edge */
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "smearing eta: %g eV (delta: %s), temperature: %g K\n", (double)bte->smearing, BTEDeltas[bte->delta], (double)bte->temperature));
  PetscCall(BTEGetMemoryEstimate(bte, &mtot, &mloc));
  PetscCall(MPIU_Allreduce(&mloc, &mmax, 1, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)bte)));
  PetscCall(MPIU_Allreduce(&mloc, &msum, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, PetscObjectComm((PetscObject)bte)));
  /* 1 rank: every channel once; P ranks (this layout): a channel whose ends live on two ranks is held by both */
  PetscCall(BTEViewBytes(viewer, bte->devlayout ? "memory for a run on 1 rank (table + host part of the collision operator, its layout built on the GPU)" : "memory for a run on 1 rank (table + collision operator)", mtot));
  if (size > 1) { /* on one rank the line above says it all */
    char b1[32], b2[32];
    PetscCall(PetscViewerASCIIPrintf(viewer, "memory for a run on %d rank(s): largest rank %s, %s in all\n", size, BTEBytes(mmax, b1, sizeof(b1)), BTEBytes(msum, b2, sizeof(b2))));
  }
  if (bte->params.n) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "model parameters:\n"));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    for (PetscInt k = 0; k < bte->params.n; k++) PetscCall(PetscViewerASCIIPrintf(viewer, "%s = %g %s\n", bte->params.name[k], (double)bte->params.value[k], bte->params.unit[k]));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

/*@
   BTEViewWarnings - Prints only the WARNING lines of BTEView(): what a run without its summary
   (-bte_view 0) must still say about a table that cannot represent what it is asked for

   Collective

   Input Parameters:
+  bte    - the BTE
-  viewer - an ASCII viewer, e.g. PETSC_VIEWER_STDOUT_WORLD (NULL: stdout)

   Level: intermediate

.seealso: `BTEView()`, `BTEGetDiagnostics()`
@*/
PetscErrorCode BTEViewWarnings(BTE bte, PetscViewer viewer)
{
  MPI_Comm    comm;
  PetscViewer mem;
  PetscBool   iascii;
  char       *buf = NULL, *line, *save = NULL;
  size_t      len = 0;
  FILE       *fp;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  comm = PetscObjectComm((PetscObject)bte);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(comm, &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  /* the summary into memory (the lines are BTEView's own, so the two cannot disagree), then its
     warnings; only rank 0 writes, the other ranks' buffers stay empty */
  fp = open_memstream(&buf, &len);
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_SYS, "BTEViewWarnings: cannot open a memory stream");
  PetscCall(PetscViewerASCIIOpenWithFILE(comm, fp, &mem));
  PetscCall(BTEView(bte, mem));
  PetscCall(PetscViewerDestroy(&mem)); /* leaves fp open */
  fclose(fp);
  for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
    if (!strstr(line, "WARNING")) continue;
    while (*line == ' ') line++;
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s\n", line));
  }
  free(buf);
  PetscFunctionReturn(0);
}

/* What to change for a finer grid or a wider window (bteimpl.h) */
const char *BTEGridAdvice(BTE bte)
{
  if (bte->input[0]) return "make the table on a finer k grid (bte generate)";
  if (!strcmp(bte->model, "perturbo")) return "raise -bte_perturbo_kdim or -bte_window";
  return "raise -bte_grid or -bte_window";
}

const char *BTERefineAdvice(BTE bte)
{
  if (bte->input[0]) return "make the table on a finer k grid";
  if (!strcmp(bte->model, "perturbo")) return "raise -bte_perturbo_kdim";
  return "raise -bte_grid";
}

const char *BTEWindowAdvice(BTE bte)
{
  if (bte->input[0]) return "make the table with a wider energy window (bte generate -bte_window)";
  return "widen the window (-bte_window)";
}

/* A built-in model's warnings that hold only under a field (gaas's isotropic L and X masses above
   ~5 kV/cm, its classic Gamma-L coupling from ~3 kV/cm): the field-driven runs (highfield, dynamics
   with -bte_efield) call this once with their largest field, so that a low-field run stays quiet */
PetscErrorCode BTEFieldCaveat(BTE bte, PetscReal field)
{
  PetscFunctionBegin;
  for (int k = 0; k < 2; k++)
    if (bte->fieldcaveat[k][0] && PetscAbsReal(field) >= bte->fieldcaveat_min[k]) PetscCall(PetscPrintf(PetscObjectComm((PetscObject)bte), "WARNING: model at %g V/cm: %s\n", (double)PetscAbsReal(field), bte->fieldcaveat[k]));
  PetscFunctionReturn(0);
}
