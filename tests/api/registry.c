/* The registries an application extends (BTECollisionRegister, BTEModelRegister) against what
   they report and refuse:
     -case list   : BTECollisionGetTypes and BTEModelGetTypes list the built-in types in
                    registration order followed by the application's; bte bench's default
                    -mixed variants (BTECollisionTypeHasMixedPrecision) are fused and pair only;
     -case ops    : a collision type whose create function leaves out a required operation is
                    refused by BTECollisionSetType with one error naming it (not a crash later);
     -case model  : a model whose create function sets no generate operation is refused at setup;
     -case unknown: an unknown collision type is refused with the registered types listed, the
                    application's included. */
#include <bte/private/collisionimpl.h>

static PetscErrorCode ApplyOnly(BTECollision coll, Vec fl, Vec Iv)
{
  PetscFunctionBeginUser;
  (void)coll, (void)fl;
  PetscCall(VecSet(Iv, 0.0));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionCreate_Half(BTECollision coll)
{
  PetscFunctionBeginUser;
  coll->ops->apply = ApplyOnly; /* no setup, no Jacobian */
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelCreate_NoGenerate(BTE bte)
{
  PetscFunctionBeginUser;
  (void)bte;
  PetscFunctionReturn(0);
}

static PetscErrorCode Join(PetscInt n, const char **names, char out[], size_t len)
{
  PetscFunctionBeginUser;
  out[0] = 0;
  for (PetscInt k = 0; k < n; k++) {
    PetscCall(PetscStrlcat(out, k ? " " : "", len));
    PetscCall(PetscStrlcat(out, names[k], len));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char         which[32] = "list", got[512];
  BTE          bte;
  BTECollision coll;
  PetscInt     n;
  const char **names;
  PetscBool    same;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "registry: what BTECollisionRegister and BTEModelRegister add and refuse"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", which, sizeof(which), NULL));
  PetscCall(BTECollisionRegister("half", BTECollisionCreate_Half));
  PetscCall(BTEModelRegister("nogenerate", BTEModelCreate_NoGenerate));
  PetscCall(PetscStrcmp(which, "list", &same));
  if (same) {
    const char *mixed[] = {"baseline", "tgt", "fused", "pair", "half"};
    PetscBool   expect[] = {PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE, PETSC_FALSE};

    PetscCall(BTECollisionGetTypes(&n, &names));
    PetscCall(Join(n, names, got, sizeof(got)));
    PetscCall(PetscFree(names));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "collision types: %s\n", got));
    PetscCall(PetscStrcmp(got, "baseline tgt fused pair half", &same));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "collision types '%s', expected 'baseline tgt fused pair half'", got);
    /* the built-in models first (those of docs/models.md; a new one may join them), then ours */
    PetscCall(BTEModelGetTypes(&n, &names));
    PetscCall(Join(n, names, got, sizeof(got)));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "models: %s\n", got));
    PetscCall(PetscStrncmp(got, "parabolic gaas graphene si-holes perturbo ", 42, &same));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "models '%s' do not start with the built-in 'parabolic gaas graphene si-holes perturbo'", got);
    PetscCall(PetscStrcmp(names[n - 1], "nogenerate", &same));
    PetscCheck(same, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "models '%s': the application's is not last", got);
    PetscCall(PetscFree(names));
    for (PetscInt k = 0; k < 5; k++) {
      PetscBool has;
      PetscCall(BTECollisionTypeHasMixedPrecision(mixed[k], &has));
      PetscCheck(has == expect[k], PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: mixed precision %d, expected %d", mixed[k], (int)has, (int)expect[k]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mixed precision: fused pair\n"));
  } else {
    PetscBool unknown;
    PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
    PetscCall(PetscStrcmp(which, "model", &same));
    PetscCall(PetscStrcmp(which, "unknown_model", &unknown));
    if (same || unknown) {
      PetscCall(BTESetModel(bte, unknown ? "nosuch" : "nogenerate"));
      PetscCall(BTESetUp(bte));
    } else {
      PetscCall(BTECollisionCreate(bte, &coll));
      PetscCall(PetscStrcmp(which, "ops", &same));
      PetscCall(BTECollisionSetType(coll, same ? "half" : "nosuch"));
      PetscCall(BTECollisionDestroy(&coll));
    }
    PetscCall(BTEDestroy(&bte));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
