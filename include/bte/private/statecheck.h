/* The finite-state guard's one-pass reduction (src/bte/validate.c, src/bte/statecheck_cuda.cu).
   One pass over the local entries gives their sum, smallest and largest finite entries and the
   number of entries that are not finite; the ranks then combine all four in one MPI_Allreduce.
   Min and max alone would not do: they skip NaN. No CUDA header here: the .cu file includes it. */
#pragma once

#include <petscvec.h>

typedef struct {
  PetscReal sum;       /* of all entries (NaN or Inf when one is) */
  PetscReal min, max;  /* over the finite entries; +-PETSC_MAX_REAL when there is none */
  PetscReal nonfinite; /* number of entries that are NaN or +-Inf */
} BTEStateStats;

#if defined(BTE_HAVE_CUDA)
/* Local statistics of a CUDA Vec's device array: one kernel, one 32-byte copy back, no host loop. */
PETSC_INTERN PetscErrorCode BTEStateStatsCUDA(Vec, BTEStateStats *);
#endif
