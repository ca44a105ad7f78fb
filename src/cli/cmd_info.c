/* bte info: summary of a scattering table (grid, window, states, channels, memory). */
#include "commands.h"

PetscErrorCode BTECommandInfo(MPI_Comm comm)
{
  BTE bte;

  PetscFunctionBegin;
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
