/* The finite-state guard (BTEStateCheck) against states with one bad entry: NaN, +Inf or -Inf (not
   finite, whatever the tolerance), and -0.6 or 1.6 (outside [-0.5, 1.5] with the default tolerance,
   accepted with tol < 0), at the first, second, middle, second-to-last and last global positions;
   also a clean state (accepted, with its exact min and max), and finite entries whose sum overflows
   (not finite, as the sum-based check said before the one-pass form). Run on several ranks the
   positions fall on every rank and on rank boundaries. With -vec_type cuda the entries are uploaded
   before each check, so the device reduction is the one tested ("device" in the output).
   Prints one line per case; any mismatch is counted and the program exits 1. */
#include <bte/private/validate.h>

static PetscInt nfail = 0, ncase = 0;

/* x = 0.25 + 0.5 i / n, entry p replaced by bad (p < 0: none); uploaded for a CUDA Vec */
static PetscErrorCode Fill(Vec x, PetscInt p, PetscReal bad, PetscBool *device)
{
  PetscInt     lo, hi, N;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetSize(x, &N));
  PetscCall(VecGetOwnershipRange(x, &lo, &hi));
  PetscCall(VecGetArrayWrite(x, &a));
  for (PetscInt i = lo; i < hi; i++) a[i - lo] = (i == p) ? bad : 0.25 + 0.5 * (PetscReal)i / (PetscReal)N;
  PetscCall(VecRestoreArrayWrite(x, &a));
  *device = PETSC_FALSE;
#if defined(PETSC_HAVE_CUDA)
  {
    PetscBool cuda;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &cuda, VECSEQCUDA, VECMPICUDA, ""));
    if (cuda) {
      const PetscScalar *d;
      PetscCall(VecCUDAGetArrayRead(x, &d)); /* upload: the check then reads the device copy */
      PetscCall(VecCUDARestoreArrayRead(x, &d));
      *device = PETSC_TRUE;
    }
  }
#endif
  PetscFunctionReturn(0);
}

static PetscErrorCode Case(Vec x, const char *what, PetscInt p, PetscReal bad, PetscReal tol, PetscBool want_ok, PetscBool want_finite)
{
  PetscBool ok, finite, device;
  PetscReal lo, hi;

  PetscFunctionBegin;
  PetscCall(Fill(x, p, bad, &device));
  PetscCall(BTEStateCheck(x, tol, &ok, &finite, &lo, &hi));
  ncase++;
  if (ok != want_ok || finite != want_finite) {
    nfail++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: %s at %" PetscInt_FMT " (tol %g, %s): ok %d finite %d, expected %d %d (min %g max %g)\n", what, p, (double)tol, device ? "device" : "host", (int)ok, (int)finite, (int)want_ok, (int)want_finite, (double)lo, (double)hi));
  } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok: %s at %" PetscInt_FMT " (tol %g, %s): ok %d finite %d\n", what, p, (double)tol, device ? "device" : "host", (int)ok, (int)finite));
  /* a finite out-of-range entry is the reported min or max, as the run's message prints it */
  if (want_finite && !want_ok && !((bad < 0 && lo == bad) || (bad > 1 && hi == bad))) {
    nfail++;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: %s at %" PetscInt_FMT ": min %g max %g do not show the entry %g\n", what, p, (double)lo, (double)hi, (double)bad));
  }
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Vec       x;
  PetscInt  n = 1001, N, pos[5];
  PetscReal nan, inf;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "BTEStateCheck against bad entries"));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(VecCreate(PETSC_COMM_WORLD, &x));
  PetscCall(VecSetSizes(x, PETSC_DECIDE, n));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecGetSize(x, &N));
  pos[0] = 0;
  pos[1] = 1;
  pos[2] = N / 2;
  pos[3] = N - 2;
  pos[4] = N - 1;
  nan    = (PetscReal)NAN;
  inf    = (PetscReal)INFINITY;
  /* clean: accepted, min and max exact */
  {
    PetscBool ok, finite, device;
    PetscReal lo, hi;
    PetscCall(Fill(x, -1, 0, &device));
    PetscCall(BTEStateCheck(x, BTE_STATE_TOLERANCE, &ok, &finite, &lo, &hi));
    ncase++;
    if (!ok || !finite || lo != 0.25 || hi != 0.25 + 0.5 * (PetscReal)(N - 1) / (PetscReal)N) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: clean state (%s): ok %d finite %d min %.17g max %.17g\n", device ? "device" : "host", (int)ok, (int)finite, (double)lo, (double)hi));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok: clean state (%s): min %g max %g\n", device ? "device" : "host", (double)lo, (double)hi));
  }
  for (int k = 0; k < 5; k++) {
    PetscCall(Case(x, "NaN", pos[k], nan, BTE_STATE_TOLERANCE, PETSC_FALSE, PETSC_FALSE));
    PetscCall(Case(x, "NaN", pos[k], nan, -1, PETSC_FALSE, PETSC_FALSE));
    PetscCall(Case(x, "+Inf", pos[k], inf, BTE_STATE_TOLERANCE, PETSC_FALSE, PETSC_FALSE));
    PetscCall(Case(x, "-Inf", pos[k], -inf, -1, PETSC_FALSE, PETSC_FALSE));
    PetscCall(Case(x, "-0.6", pos[k], -0.6, BTE_STATE_TOLERANCE, PETSC_FALSE, PETSC_TRUE));
    PetscCall(Case(x, "1.6", pos[k], 1.6, BTE_STATE_TOLERANCE, PETSC_FALSE, PETSC_TRUE));
    PetscCall(Case(x, "1.6", pos[k], 1.6, -1, PETSC_TRUE, PETSC_TRUE)); /* finiteness only */
    PetscCall(Case(x, "1.4", pos[k], 1.4, BTE_STATE_TOLERANCE, PETSC_TRUE, PETSC_TRUE));
  }
  /* finite entries whose sum overflows: not finite (two entries of 1e308) */
  {
    PetscBool ok, finite, device;
    PetscCall(Fill(x, -1, 0, &device));
    PetscCall(VecSetValue(x, 0, 1e308, INSERT_VALUES));
    PetscCall(VecSetValue(x, N - 1, 1e308, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
    PetscCall(BTEStateCheck(x, -1, &ok, &finite, NULL, NULL));
    ncase++;
    if (ok || finite) {
      nfail++;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: an overflowing sum passed the check\n"));
    } else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok: an overflowing sum is not finite\n"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " cases, %" PetscInt_FMT " failed\n", ncase, nfail));
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
