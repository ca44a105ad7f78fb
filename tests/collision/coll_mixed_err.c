/* Error of the mixed-precision fused or pair operator (-type) (float weights, double sums) against double,
   on a built-in model: max-norm relative difference of Iv[f] and of J(f)x, for random f and for
   a hot Fermi-Dirac f. The requirement is <= 1e-6; float weights alone should give ~1e-7 or less. */
#include <bte.h>
#include "compare.h"

int main(int argc, char **argv)
{
  BTE          bte;
  BTECollision c[2];
  Vec          f, x, Iv[2], Jv[2];
  PetscRandom  rnd;
  PetscReal    worst = 0, tol = 1e-6;
  char         type[32] = BTECOLLISIONFUSED;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  for (int k = 0; k < 2; k++) {
    PetscCall(BTECollisionCreate(bte, &c[k]));
    PetscCall(BTECollisionSetType(c[k], type));
    PetscCall(BTECollisionSetMixedPrecision(c[k], k ? PETSC_TRUE : PETSC_FALSE));
    PetscCall(BTECollisionSetUp(c[k]));
  }
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDuplicate(f, &Iv[k]));
    PetscCall(VecDuplicate(f, &Jv[k]));
  }
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.01, 0.99));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(x, rnd));
  for (int trial = 0; trial < 2; trial++) {
    PetscReal rI, rJ;
    if (trial == 0) PetscCall(VecSetRandom(f, rnd));
    else PetscCall(BTEFermiDirac(bte, 1500.0, 0.1, f)); /* a hot distribution */
    for (int k = 0; k < 2; k++) {
      PetscCall(BTECollisionApply(c[k], f, Iv[k]));
      PetscCall(BTECollisionJacobianApply(c[k], f, x, Jv[k]));
    }
    PetscCall(RelDiff(Iv[1], Iv[0], &rI));
    PetscCall(RelDiff(Jv[1], Jv[0], &rJ));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s, %s f: mixed vs double, max-norm relative: I[f] %.3e, J(f)x %.3e\n", type, trial ? "hot Fermi-Dirac" : "random", (double)rI, (double)rJ));
    worst = PetscMax(worst, PetscMax(rI, rJ));
  }
  PetscCheck(worst <= tol, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mixed precision error %.3e exceeds %.1e", (double)worst, (double)tol);
  PetscCheck(worst > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "mixed and double gave identical results: mixed precision not in effect");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok: worst %.3e <= %.1e\n", (double)worst, (double)tol));
  PetscCall(PetscRandomDestroy(&rnd));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&Iv[k]));
    PetscCall(VecDestroy(&Jv[k]));
    PetscCall(BTECollisionDestroy(&c[k]));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
