/* One output file of bte (src/io/output.c): what every writer of results (dynamics, transport,
   high field) shares. Creating one refuses a name that would overwrite an input (outfile.c) and
   starts FILE.tmp with the provenance at its root; the run's k grid (/grid) and diagnostics
   (/diagnostics) are written the same way in every file; closing it marks it complete and puts it
   in place as FILE. A writer adds its own group with the h5util writers on rank 0, the only rank
   that holds the file, and reports their status through BTEOutputCheck. */
#pragma once
#include <bte/private/bteimpl.h>
#include <bte/private/h5util.h>

typedef struct _n_BTEOutput *BTEOutput;

/* Collective. Creates FILE.tmp (rank 0) with the root attributes creator, created, source and
   complete = 0. what names the output in messages ("transport"), opt the option that named the
   file. growing: a file that grows while the run goes on (HDF5 1.8 format, see h5util.c); it
   becomes FILE at BTEOutputPublish(), once it holds something complete. */
PETSC_INTERN PetscErrorCode BTEOutputCreate(BTE, const char file[], const char opt[], const char what[], PetscBool growing, BTEOutput *);
/* Collective. Opens an existing (growing) output FILE to append to it; complete = 0 until closed. */
PETSC_INTERN PetscErrorCode BTEOutputAppend(BTE, const char file[], const char what[], BTEOutput *);
/* Collective. Groups /grid (the k grid) and /diagnostics (computed with coll when it can: a run's
   operator; NULL builds a temporary one) */
PETSC_INTERN PetscErrorCode BTEOutputWriteRunInfo(BTEOutput, BTECollision coll);
/* The HDF5 file and the status its writers report into: on rank 0 only (elsewhere -1 and NULL) */
PETSC_INTERN PetscErrorCode BTEOutputGetFile(BTEOutput, hid_t *, BTEH5Status **);
/* Collective. Raises one error on every rank if rank 0's writers failed; the file is then
   abandoned (FILE.tmp removed; a published growing file keeps what it had, complete = 0). */
PETSC_INTERN PetscErrorCode BTEOutputCheck(BTEOutput);
/* Collective. Writes what the file holds to disk (a growing file then opens as it is now). */
PETSC_INTERN PetscErrorCode BTEOutputFlush(BTEOutput);
/* Collective. A growing file: flushes it and renames FILE.tmp to FILE (done once; the open file
   follows the rename). */
PETSC_INTERN PetscErrorCode BTEOutputPublish(BTEOutput);
/* Collective. Checks, sets complete = 1, closes and (if not yet) renames FILE.tmp to FILE. A
   growing file never published is removed instead: it holds nothing complete. */
PETSC_INTERN PetscErrorCode BTEOutputClose(BTEOutput *);
/* Collective. As BTEOutputClose, but complete stays 0: a run that stopped before its end (its
   snapshots so far are valid, a restart continues it) */
PETSC_INTERN PetscErrorCode BTEOutputCloseStopped(BTEOutput *);
/* Closes without marking it complete (an abandoned run): FILE.tmp is removed, a
   published file keeps what it had. Does nothing after BTEOutputClose. */
PETSC_INTERN PetscErrorCode BTEOutputDestroy(BTEOutput *);
/* Collective. Rank 0 writes every rank's part of a distributed array of the BTE's states (a slab
   of nlocal values at rstart) into dataset name: a row of a 2-D series (row >= 0) or a 1-D dataset
   (row < 0). local: PetscReal (written as double) or, with isint, PetscInt. */
PETSC_INTERN PetscErrorCode BTEOutputWriteStates(BTEOutput, hid_t group, const char name[], PetscInt row, PetscBool isint, const void *local);
