/* bte info: summary of a scattering table (grid, window, states, channels, memory).
   The summary needs the channel count, not the channels: -bte_info_channels auto (default) loads
   them only when they fit in memory (and so validates every row), else counts them (a table's
   count, or a model's count pass without the fill), so that tables larger than memory have a
   summary too. With a memory limit (-bte_memory_limit > 0), the default means 1: info answers "does it
   fit in that much per rank?" as a run would, refusing with the figures (an explicit
   -bte_info_channels auto counts instead). */
#include "commands.h"

PetscErrorCode BTECommandInfo(MPI_Comm comm)
{
  BTE         bte;
  const char *choices[] = {"auto", "0", "1"};
  PetscInt    which     = 0;
  PetscBool   set, help, view = PETSC_TRUE;
  PetscLogDouble limit;

  PetscFunctionBegin;
  PetscOptionsBegin(comm, NULL, "bte info: summary of a scattering table", "BTE");
  /* as in the other commands; 0: the table is read and checked, nothing printed (a check of a file) */
  PetscCall(PetscOptionsBool("-bte_view", "Print the summary (0: only read and check the table or model)", "BTEView", view, &view, NULL));
  PetscCall(PetscOptionsEList("-bte_info_channels", "Load the channel arrays: auto (if they fit in memory), 0 (count only), 1 (load, refuse if they do not fit)", "BTESetLoadChannels", choices, 3, choices[which], &which, &set));
  PetscOptionsEnd();
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTECommandHelpRequested(&help));
  if (help) {
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  PetscCall(BTECommandCheckOptions(comm, "info"));
  PetscCall(BTECommandCheckOptionsSetUp(comm, "info")); /* info reads nothing later: every option is checked before the table is read */
  PetscCall(BTEGetMemoryLimit(bte, &limit)); /* > 0: a limit was given (-bte_memory_limit) */
  PetscCall(BTESetLoadChannels(bte, which == 1 ? PETSC_BOOL3_FALSE : (which == 2 || (limit > 0 && !set)) ? PETSC_BOOL3_TRUE : PETSC_BOOL3_UNKNOWN));
  PetscCall(BTESetUp(bte));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
