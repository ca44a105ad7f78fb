/* Validation of bte's settings against the stated bounds of include/bte/private/validate.h
   (docs/validation.md), and the finite-state check the run modes use. */
#include <bte/private/validate.h>

PetscErrorCode BTECheckRange(MPI_Comm comm, const char what[], PetscReal v, PetscReal lo, PetscReal hi, const char units[], const char hint[])
{
  PetscFunctionBegin;
  if (PetscIsInfOrNanReal(v) || v < lo || v > hi) {
    const char *u = units && units[0] ? " " : "";
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s = %.6g%s%s %s: expected a finite value in [%.6g, %.6g]%s%s%s", what, (double)v, u, units ? units : "", PetscIsInfOrNanReal(v) ? "is not a finite number" : "is out of range", (double)lo, (double)hi, u, units ? units : "", hint ? hint : "");
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEValidateSettings(BTE bte)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)bte);

  PetscFunctionBegin;
  PetscCall(BTECheckRange(comm, "temperature (-bte_temperature)", bte->temperature, BTE_TEMPERATURE_MIN, BTE_TEMPERATURE_MAX, "K", NULL));
  PetscCall(BTECheckRange(comm, "smearing (-bte_smearing)", bte->smearing, BTE_SMEARING_MIN, BTE_SMEARING_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "energy window width (-bte_window)", bte->window, BTE_SMEARING_MIN, BTE_WINDOW_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "-bte_g2_cutoff", bte->g2_cutoff, 0, BTE_G2_MAX, "eV^2", NULL));
  PetscCall(BTECheckRange(comm, "-bte_phonon_min", bte->phonon_min, 0, BTE_PHONON_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "-bte_energy_tolerance", bte->tol_eta, 1e-3, BTE_ETOL_MAX, "(units of the smearing)", NULL));
  PetscCall(BTECheckRange(comm, "-bte_memory_limit", bte->mem_limit / 1e9, 0, 1e9, "GB", NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEStateCheck(Vec f, PetscReal tol, PetscBool *ok, PetscBool *finite, PetscReal *vmin, PetscReal *vmax)
{
  PetscScalar sum;
  PetscReal   lo = 0, hi = 0;

  PetscFunctionBegin;
  /* the sum is not finite when an entry is not (or when the entries overflow it: also a bad state) */
  PetscCall(VecSum(f, &sum));
  PetscCall(VecMin(f, NULL, &lo));
  PetscCall(VecMax(f, NULL, &hi));
  *ok = PetscIsInfOrNanScalar(sum) ? PETSC_FALSE : PETSC_TRUE;
  if (finite) *finite = *ok;
  if (*ok && tol >= 0 && (lo < -tol || hi > 1 + tol)) *ok = PETSC_FALSE;
  if (vmin) *vmin = lo;
  if (vmax) *vmax = hi;
  PetscFunctionReturn(0);
}
