static const char help[] = "Misuse of the collision operator must give a clear error (-case NAME):\n"
                           "  nosetup   BTECollisionSetUp before BTESetUp\n"
                           "  badvec    BTECollisionApply with a Vec of the wrong size\n"
                           "  foreign   BTECollisionComputeJacobian on a Mat it did not create\n"
                           "  nostate   MatMult on the shell Jacobian before BTECollisionComputeJacobian\n"
                           "  type      BTECollisionSetType with an unknown type\n"
                           "  ok        a correct use, with -bte_collision_view (default)\n";

#include "synth.h"
#include <bte/private/collisionimpl.h>

int main(int argc, char **argv)
{
  MPI_Comm     comm;
  BTE          bte;
  BTECollision coll;
  char         c[32] = "ok";
  PetscBool    is;
  Vec          f, Iv;
  Mat          J;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", c, sizeof(c), NULL));
  PetscCall(PetscStrcmp(c, "nosetup", &is));
  if (is) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTECollisionCreate(bte, &coll));
    PetscCall(BTECollisionSetUp(coll));
  }
  PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTECollisionCreate(bte, &coll));
  PetscCall(PetscStrcmp(c, "type", &is));
  if (is) PetscCall(BTECollisionSetType(coll, "nonesuch"));
  PetscCall(BTECollisionSetFromOptions(coll));
  PetscCall(BTECollisionSetUp(coll));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &Iv));
  PetscCall(SynthFillVec(f, 1));
  PetscCall(PetscStrcmp(c, "badvec", &is));
  if (is) {
    Vec w;
    PetscCall(VecCreateMPI(comm, PETSC_DECIDE, 7, &w));
    PetscCall(BTECollisionApply(coll, w, Iv));
  }
  PetscCall(PetscStrcmp(c, "foreign", &is));
  if (is) {
    Mat A;
    PetscCall(MatCreateAIJ(comm, PETSC_DECIDE, PETSC_DECIDE, 7, 7, 1, NULL, 0, NULL, &A));
    PetscCall(BTECollisionComputeJacobian(coll, f, A));
  }
  PetscCall(BTECollisionCreateJacobian(coll, &J));
  PetscCall(PetscStrcmp(c, "nostate", &is));
  if (is) PetscCall(MatMult(J, f, Iv));
  PetscCall(BTECollisionApply(coll, f, Iv));
  PetscCall(BTECollisionComputeJacobian(coll, f, J));
  PetscCall(MatView(J, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(MatDestroy(&J));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&Iv));
  PetscCall(BTECollisionDestroy(&coll));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(comm, "done\n"));
  PetscCall(PetscFinalize());
  return 0;
}
