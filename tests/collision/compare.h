/* Comparison helpers shared by the C tests: relative max-norm difference of two Vecs and a
   checked, printed tolerance. */
#pragma once
#include <petscvec.h>

/* max|a - b| / max|b| (max|a - b| when b = 0) */
static inline PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *r)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBegin;
  *r = 0;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *r = nb > 0 ? nd / nb : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

/* prints "what value (tol)" and fails unless value <= tol */
static inline PetscErrorCode Check(MPI_Comm comm, const char what[], PetscReal value, PetscReal tol)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(comm, "  %-62s %10.3e  (tol %.0e)\n", what, (double)value, (double)tol));
  PetscCheck(value <= tol && !PetscIsNanReal(value), comm, PETSC_ERR_PLIB, "FAILED: %s = %g > %g", what, (double)value, (double)tol);
  PetscFunctionReturn(0);
}
