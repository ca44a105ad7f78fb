/* What the models2 unit tests share: the failure count and CHECK, SI constants, a uniform random
   number, and the si-holes model's spec from a string of options. The si-holes options the tests
   vary are cleared before each spec, so that one spec's options do not leak into the next. */
#pragma once
#include <bte/private/modelimpl.h>

PETSC_EXTERN PetscErrorCode BTEModelSpecSiHoles(BTE, BTEModelSpec *);

static int nfail = 0;
#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      nfail++; \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: " __VA_ARGS__)); \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n")); \
    } \
  } while (0)

#define HBAR_SI 1.054571817e-34
#define E_SI    1.602176634e-19

static inline PetscReal Rand(PetscRandom r)
{
  PetscReal x;
  PetscRandomGetValueReal(r, &x);
  return x;
}

static inline PetscErrorCode SiHolesSpec(const char *opts, BTE *bte, BTEModelSpec *spec)
{
  const char *names[] = {"-bte_si_holes_soc", "-bte_si_holes_overlap", "-bte_si_holes_interband", "-bte_si_holes_bands", "-bte_si_holes_delta", "-bte_si_holes_dkk_c", "-bte_si_holes_acoustic", "-bte_si_holes_optical", "-bte_si_holes_bp_a", "-bte_si_holes_bp_b", "-bte_si_holes_bp_d", "-bte_si_holes_bp_d0", "-bte_si_holes_c11", "-bte_si_holes_c12", "-bte_si_holes_c44", "-bte_si_holes_dac", "-bte_si_holes_dop", "-bte_si_holes_vs"};

  PetscFunctionBegin;
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) PetscCall(PetscOptionsClearValue(NULL, names[i]));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(BTECreate(PETSC_COMM_SELF, bte));
  PetscCall(BTESetModel(*bte, "si-holes")); /* its options are read by BTESetFromOptions */
  PetscCall(BTESetFromOptions(*bte));
  PetscCall(BTEModelSpecSiHoles(*bte, spec));
  PetscFunctionReturn(0);
}
