/* k grid geometry: reciprocal vectors and cell volume from the lattice. */
#include <bte/private/bteimpl.h>

PetscErrorCode BTEGridSetReciprocal(BTEGrid *g)
{
  const PetscReal *a = g->lattice;
  PetscReal        c[9], det;

  PetscFunctionBegin;
  /* b_i = 2 pi (a_j x a_k) / (a_1 . (a_2 x a_3)) */
  c[0] = a[4] * a[8] - a[5] * a[7];
  c[1] = a[5] * a[6] - a[3] * a[8];
  c[2] = a[3] * a[7] - a[4] * a[6];
  c[3] = a[7] * a[2] - a[8] * a[1];
  c[4] = a[8] * a[0] - a[6] * a[2];
  c[5] = a[6] * a[1] - a[7] * a[0];
  c[6] = a[1] * a[5] - a[2] * a[4];
  c[7] = a[2] * a[3] - a[0] * a[5];
  c[8] = a[0] * a[4] - a[1] * a[3];
  det  = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
  PetscCheck(PetscAbsReal(det) > 1e-12, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Lattice vectors are linearly dependent (cell volume %g)", (double)det);
  for (PetscInt k = 0; k < 9; k++) g->reciprocal[k] = 2 * PETSC_PI * c[k] / det;
  /* In 2D the third vector is the out-of-plane normal (unit length): the area is |a1 x a2|. */
  g->volume = PetscAbsReal(det);
  PetscFunctionReturn(0);
}
