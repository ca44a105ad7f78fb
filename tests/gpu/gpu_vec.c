/* Smoke test of a PETSc vector on the device: run with -vec_type cuda (and, on an MPI that is not
   GPU-aware, -use_gpu_aware_mpi 0). Prints the type and a few reductions whose values are known:
   x_i = i+1 (global index), y = 2x - 1 gives sum(y) = n^2 and ||x||_2^2 = n(n+1)(2n+1)/6. */
#include <petscvec.h>

int main(int argc, char **argv)
{
  Vec         x, y;
  PetscInt    n = 1000, lo, hi;
  PetscScalar *a, sum;
  PetscReal   nrm, ref;
  VecType     type;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "GPU vector smoke test"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, n));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = (PetscScalar)(i + 1);
  PetscCall(VecRestoreArrayWrite(x, &a));
  PetscCall(VecSet(y, -1.0));
  PetscCall(VecAXPY(y, 2.0, x)); /* on the device for a CUDA vector */
  PetscCall(VecSum(y, &sum));
  PetscCall(VecNorm(x, NORM_2, &nrm));
  PetscCall(VecGetType(x, &type));
  ref = PetscSqrtReal((PetscReal)n * (n + 1) * (2 * n + 1) / 6.0);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "type %s ranks %d n %" PetscInt_FMT " sum(2x-1) %.17g (expect %.17g) |x| rel err %.3e\n", type, size, n, (double)PetscRealPart(sum), (double)n * n, (double)(PetscAbsReal(nrm - ref) / ref)));
  PetscCheck(PetscAbsReal(PetscRealPart(sum) - (PetscReal)n * n) <= 1e-12 * n * n && PetscAbsReal(nrm - ref) <= 1e-12 * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "wrong vector arithmetic");
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(PetscFinalize());
  return 0;
}
