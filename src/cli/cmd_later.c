/* Subcommands whose implementation has not landed yet: a clear message, nonzero exit. */
#include "commands.h"

#define BTE_NOT_YET(fn, what) \
  PetscErrorCode fn(MPI_Comm comm) \
  { \
    PetscFunctionBegin; \
    SETERRQ(comm, PETSC_ERR_SUP, "bte " what " is not implemented in this version"); \
  }

