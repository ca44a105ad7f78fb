/* The SNES of a BTEHighField (BTEHighFieldGetSNES) keeps the absolute tolerance an application
   sets on it: BTEHighFieldSolve derives its own (-bte_highfield_tol times ||Gamma||) only when
   the atol was left alone. On the parabolic model at one field:
   1. nothing set: the solve takes Newton steps to ||r|| <= tol ||Gamma|| (converged, residual
      below -bte_highfield_tol, at least one step);
   2. an atol so loose that the starting state meets it, set through the API before and after
      BTEHighFieldSetFromOptions: no step is taken and the SNES still holds that atol after the
      solve (were it replaced by the derived one, the solve would take the steps of case 1); the
      starting state is then not counted as converged, as its residual is above
      -bte_highfield_residual_max (a field's answer is never the unsolved starting state);
   3. the same atol as the option -bte_highfield_snes_atol: also used as given;
   4. a second solve on a BTEHighField left at the default converges to the same tolerance. */
#include <bte.h>
#include <bte/transport.h>

static PetscInt nfail = 0;

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: " __VA_ARGS__)); \
      nfail++; \
    } \
  } while (0)

/* atol > 0: set on the SNES through the API, before (when = 1) or after (when = 2)
   BTEHighFieldSetFromOptions; solves nsolve times and returns the last result and the SNES's atol */
static PetscErrorCode Solve(BTE bte, PetscReal atol, PetscInt when, PetscInt nsolve, BTEHighFieldResult *res, PetscReal *atol_after, PetscInt *its_first)
{
  BTEHighField hf;
  SNES         snes;
  PetscReal    E = 500.0;

  PetscFunctionBegin;
  PetscCall(BTEHighFieldCreate(bte, &hf));
  PetscCall(BTEHighFieldSetFields(hf, 1, &E));
  PetscCall(BTEHighFieldGetSNES(hf, &snes));
  if (atol > 0 && when == 1) PetscCall(SNESSetTolerances(snes, atol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(BTEHighFieldSetFromOptions(hf));
  if (atol > 0 && when == 2) PetscCall(SNESSetTolerances(snes, atol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  for (PetscInt s = 0; s < nsolve; s++) {
    PetscCall(BTEHighFieldSolve(hf));
    PetscCall(BTEHighFieldGetResult(hf, 0, res));
    if (s == 0) *its_first = res->iterations;
  }
  PetscCall(SNESGetTolerances(snes, atol_after, NULL, NULL, NULL, NULL));
  PetscCall(BTEHighFieldDestroy(&hf));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  BTE                bte;
  BTEHighFieldResult r;
  PetscReal          loose = 1e30, atol, tol = 1e-8;
  PetscInt           its0, its;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "hf_atol: the SNES atol set by an application is used"));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetModel(bte, "parabolic"));
  PetscCall(BTESetFromOptions(bte)); /* the model's lattice constant, the grid */
  PetscCall(BTESetUp(bte));

  PetscCall(Solve(bte, 0, 0, 1, &r, &atol, &its0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "default atol:    its %" PetscInt_FMT ", ||r||/||Gamma|| %.3e, atol after %.3e\n", r.iterations, (double)r.residual, (double)atol));
  CHECK(r.converged && r.residual <= tol && r.iterations >= 1, "the default solve: converged %d, residual %g, %" PetscInt_FMT " steps\n", (int)r.converged, (double)r.residual, r.iterations);
  CHECK(atol < 1, "the derived atol %g is not tol ||Gamma||\n", (double)atol);

  for (PetscInt when = 1; when <= 2; when++) {
    PetscCall(Solve(bte, loose, when, 1, &r, &atol, &its));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "API atol (%s):  its %" PetscInt_FMT ", ||r||/||Gamma|| %.3e, atol after %.3e\n", when == 1 ? "before" : "after ", r.iterations, (double)r.residual, (double)atol));
    CHECK(atol == loose, "atol set through the API %s SetFromOptions: %g after the solve, set %g\n", when == 1 ? "before" : "after", (double)atol, (double)loose);
    CHECK(r.iterations == 0, "atol %g set through the API: %" PetscInt_FMT " steps (the default takes %" PetscInt_FMT ")\n", (double)loose, r.iterations, its0);
    CHECK(!r.converged && r.residual > 1e-3, "the unsolved starting state (residual %g) counted as converged\n", (double)r.residual);
  }

  PetscCall(PetscOptionsSetValue(NULL, "-bte_highfield_snes_atol", "1e30"));
  PetscCall(Solve(bte, 0, 0, 1, &r, &atol, &its));
  PetscCall(PetscOptionsClearValue(NULL, "-bte_highfield_snes_atol"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "option atol:     its %" PetscInt_FMT ", atol after %.3e\n", r.iterations, (double)atol));
  CHECK(atol == loose && r.iterations == 0, "-bte_highfield_snes_atol 1e30: atol %g, %" PetscInt_FMT " steps\n", (double)atol, r.iterations);

  PetscCall(Solve(bte, 0, 0, 2, &r, &atol, &its));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "two solves:      its %" PetscInt_FMT " then %" PetscInt_FMT ", ||r||/||Gamma|| %.3e\n", its, r.iterations, (double)r.residual));
  CHECK(its == its0 && r.converged && r.residual <= tol, "a second solve: %" PetscInt_FMT " steps then converged %d, residual %g\n", its, (int)r.converged, (double)r.residual);

  PetscCall(BTEDestroy(&bte));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " checks failed\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
