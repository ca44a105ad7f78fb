/* The driver's subcommands, one file each. */
#pragma once
#include <bte.h>

PetscErrorCode BTECommandGenerate(MPI_Comm);
PetscErrorCode BTECommandInfo(MPI_Comm);
PetscErrorCode BTECommandDynamics(MPI_Comm);
PetscErrorCode BTECommandTransport(MPI_Comm);
PetscErrorCode BTECommandHighfield(MPI_Comm);
PetscErrorCode BTECommandBench(MPI_Comm);
