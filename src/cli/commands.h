/* The driver's subcommands, one file each. */
#pragma once
#include <bte.h>

PetscErrorCode BTECommandGenerate(MPI_Comm);
PetscErrorCode BTECommandInfo(MPI_Comm);
PetscErrorCode BTECommandDynamics(MPI_Comm);
PetscErrorCode BTECommandTransport(MPI_Comm);
PetscErrorCode BTECommandHighfield(MPI_Comm);
PetscErrorCode BTECommandBench(MPI_Comm);

/* help.c: -help, and the options of the objects a run creates later (read up front) */
PetscErrorCode BTECommandHelpRequested(PetscBool *);
PetscErrorCode BTECommandOptionsCollision(BTE, const char[]);
PetscErrorCode BTECommandOptionsVec(MPI_Comm);
/* unused.c: options no object read. CheckOptions: those that must have been read once the
   command's objects read their options (an error naming them); CheckUnusedOptions: all, when
   the run ends (bad: a line was printed). -options_left 0 turns both off. */
PetscErrorCode BTECommandCheckOptions(MPI_Comm, const char[]);
PetscErrorCode BTECommandCheckFiniteOptions(MPI_Comm); /* a -bte_ option given NaN or Inf */
PetscErrorCode BTECommandCheckOptionValues(MPI_Comm); /* a -bte_ option that takes a value given none */
PetscErrorCode BTECommandCheckUnusedOptions(MPI_Comm, const char[], PetscBool *);
PetscErrorCode BTECommandCheckOptionsBeforeWrite(MPI_Comm, const char[], const char[]);
PetscErrorCode BTECommandCheckOptionsSetUp(MPI_Comm, const char[]);
/* dynamics with an explicit time integrator: its -snes_, -ksp_, -pc_ options are unused (unused.c) */
PetscErrorCode BTECommandCheckSolverOptionsExplicit(MPI_Comm, const char[], const char[]);
int            BTECommandIsIntegerOption(const char[]);
/* cores.c: a note when CPU binding leaves a rank far fewer cores than its share of the node */
PetscErrorCode BTECommandCheckCores(MPI_Comm);
