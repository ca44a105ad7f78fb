/* Options of the objects a run creates only at setup or solve (the collision operator, the state
   vectors): each command reads them up front on scratch objects, so that
   - with -help their SetFromOptions list them with their defaults, and the command stops before
     any setup (the help needs no table);
   - the check for unused options (unused.c) can run before the work, not after it. */
#include "commands.h"

PetscErrorCode BTECommandHelpRequested(PetscBool *help)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsHasHelp(NULL, help));
  PetscFunctionReturn(0);
}

/* A collision operator of the given type (NULL: -bte_collision_type, default pair) */
PetscErrorCode BTECommandOptionsCollision(BTE bte, const char type[])
{
  BTECollision c;

  PetscFunctionBegin;
  PetscCall(BTECollisionCreate(bte, &c));
  if (type) PetscCall(BTECollisionSetType(c, type));
  PetscCall(BTECollisionSetFromOptions(c));
  {
    /* with -help, the options of the assembled Jacobian's matrix (-bte_jacobian_mat_type), which
       is made only at setup with -bte_jacobian_assembled; not otherwise: a scratch matrix would
       mark them used when the run makes none */
    PetscBool help;
    PetscCall(BTECommandHelpRequested(&help));
    if (help) {
      Mat         m;
      const char *prefix;
      PetscCall(PetscObjectGetOptionsPrefix((PetscObject)c, &prefix));
      PetscCall(MatCreate(PetscObjectComm((PetscObject)c), &m));
      PetscCall(MatSetOptionsPrefix(m, prefix));
      PetscCall(MatAppendOptionsPrefix(m, "bte_jacobian_"));
      PetscCall(MatSetFromOptions(m));
      PetscCall(MatDestroy(&m));
    }
  }
  PetscCall(BTECollisionDestroy(&c));
  PetscFunctionReturn(0);
}

/* The state vectors (BTECreateStateVec: -vec_type) */
PetscErrorCode BTECommandOptionsVec(MPI_Comm comm)
{
  Vec v;

  PetscFunctionBegin;
  PetscCall(VecCreate(comm, &v));
  PetscCall(VecSetSizes(v, PETSC_DECIDE, 1));
  PetscCall(VecSetFromOptions(v));
  PetscCall(VecDestroy(&v));
  PetscFunctionReturn(0);
}
