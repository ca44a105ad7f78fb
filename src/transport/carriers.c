/* Carrier statistics on the states of a BTE: Fermi-Dirac occupations, -df0/de,
   carrier density and its inverse (the chemical potential), and the unit
   conversions of docs/theory.md eq. 6.

   Units. Energies e, mu in eV; velocities v in Angstrom/fs; the transport
   solution F of eq. 5 in Angstrom (v times a time); D = -df0/de in 1/eV; the
   cell volume V in Angstrom^3 (3D) or the cell area in Angstrom^2 (2D); Nk the
   number of k points of the full grid; s the spin degeneracy.

   Conductivity, 3D:
     sigma = (s e^2 / (V Nk)) sum_i v_a F_b D_i
     [sum v F D / V] = (A/fs) A (1/eV) / A^3 = 1 / (A fs eV)
     e^2 / eV = e / V(olt) = 1.602176634e-19 C/V,  1/(A fs) = 1e10/m * 1e15/s
     => sigma[S/m] = 1.602176634e-19 * 1e25 * s/(V Nk) sum v F D = 1.602176634e6 * (...)
   Conductivity, 2D (sheet): [sum v F D / A] = 1/(fs eV)
     => sigma[S] = 1.602176634e-19 * 1e15 * (...) = 1.602176634e-4 * (...)
   Carrier density: n = s/(V Nk) sum_i f0_i in 1/A^3 = 1e24 cm^-3 (2D: 1/A^2 = 1e16 cm^-2).
   Mobility: mu = sigma / (e n). In bte units directly,
     mu = e sum v F D / sum f0, [A^2 / (fs eV)] * e = A^2/(fs V) = 1e-16 cm^2 / (1e-15 s V)
     => mu[cm^2/(V s)] = 0.1 * sum v F D / sum f0 (the same in 2D and 3D).
   Check (3D): sigma/(e n) = 1.602176634e6 X / (1.602176634e-19 * 1e24 Y * 1e6 m^-3) m^2/(V s)
     = 1e-5 X/Y m^2/(V s) = 0.1 X/Y cm^2/(V s), with X = s/(V Nk) sum vFD, Y = s/(V Nk) sum f0. */
#include "transportimpl.h"

PetscErrorCode BTETransportUnits(BTE bte, PetscReal *sigma_unit, PetscReal *density_unit, PetscReal *mobility_unit)
{
  PetscInt  dim, nk[3], s;
  PetscReal V, Nk;

  PetscFunctionBegin;
  PetscCall(BTEGetGrid(bte, &dim, nk, NULL, NULL, &V));
  PetscCall(BTEGetSpinDegeneracy(bte, &s));
  Nk = (PetscReal)nk[0] * nk[1] * nk[2];
  /* per sum_i (v F D) and per sum_i f0, i.e. including s/(V Nk) */
  if (sigma_unit) *sigma_unit = (dim == 2 ? 1.602176634e-4 : 1.602176634e6) * s / (V * Nk);
  if (density_unit) *density_unit = (dim == 2 ? 1e16 : 1e24) * s / (V * Nk);
  if (mobility_unit) *mobility_unit = 0.1;
  PetscFunctionReturn(0);
}

/* f0 = 1/(exp(x)+1) and D = -df0/de = 1/(kT 4 cosh^2(x/2)), x = (e - mu)/kT
   (the cosh form keeps D accurate where f0 is close to 1). */
PetscErrorCode BTEEquilibrium(BTE bte, PetscReal T, PetscReal mu, Vec f0, Vec D)
{
  const PetscReal *e;
  PetscInt         n;
  PetscScalar     *f = NULL, *d = NULL;
  PetscReal        kT = BTE_KB * T;

  PetscFunctionBegin;
  PetscCheck(T > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive (K), got %g", (double)T);
  PetscCall(BTEGetNumStates(bte, &n, NULL));
  PetscCall(BTEGetLocalStates(bte, &e, NULL, NULL, NULL));
  if (f0) PetscCall(VecGetArrayWrite(f0, &f));
  if (D) PetscCall(VecGetArrayWrite(D, &d));
  for (PetscInt i = 0; i < n; i++) {
    PetscReal x = (e[i] - mu) / kT;
    if (f) f[i] = 1.0 / (PetscExpReal(x) + 1.0);
    if (d) {
      PetscReal c = PetscCoshReal(0.5 * x);
      d[i] = 1.0 / (4.0 * kT * c * c);
    }
  }
  if (f0) PetscCall(VecRestoreArrayWrite(f0, &f));
  if (D) PetscCall(VecRestoreArrayWrite(D, &d));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEVelocityVec(BTE bte, PetscInt a, Vec v)
{
  const PetscReal *vel;
  PetscInt         n;
  PetscScalar     *x;

  PetscFunctionBegin;
  PetscCall(BTEGetNumStates(bte, &n, NULL));
  PetscCall(BTEGetLocalStates(bte, NULL, &vel, NULL, NULL));
  PetscCall(VecGetArrayWrite(v, &x));
  for (PetscInt i = 0; i < n; i++) x[i] = vel[3 * i + a];
  PetscCall(VecRestoreArrayWrite(v, &x));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTESumFermi(BTE bte, PetscReal T, PetscReal mu, PetscReal *sum)
{
  const PetscReal *e;
  PetscInt         n;
  PetscReal        kT = BTE_KB * T, s = 0;

  PetscFunctionBegin;
  PetscCall(BTEGetNumStates(bte, &n, NULL));
  PetscCall(BTEGetLocalStates(bte, &e, NULL, NULL, NULL));
  for (PetscInt i = 0; i < n; i++) s += 1.0 / (PetscExpReal((e[i] - mu) / kT) + 1.0);
  PetscCall(MPIU_Allreduce(&s, sum, 1, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)bte)));
  PetscFunctionReturn(0);
}

/*@
   BTECarrierDensity - Computes the carrier density at a temperature and chemical potential

   Collective

   Input Parameters:
+  bte - the BTE
.  T   - temperature, K
-  mu  - chemical potential, eV

   Output Parameter:
.  n - density, cm^-3 (cm^-2 in 2D): s/(V Nk) sum_i f0_i

   Level: beginner

.seealso: `BTEChemicalPotential()`
@*/
PetscErrorCode BTECarrierDensity(BTE bte, PetscReal T, PetscReal mu, PetscReal *n)
{
  PetscReal sum, unit = 0;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(T > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive (K), got %g", (double)T);
  PetscCheck(!PetscIsInfOrNanReal(mu), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "The chemical potential is not a number");
  PetscAssertPointer(n, 4);
  PetscCall(BTESumFermi(bte, T, mu, &sum));
  PetscCall(BTETransportUnits(bte, NULL, &unit, NULL));
  *n = sum * unit;
  PetscFunctionReturn(0);
}

/* Bisection on mu: n(mu) increases monotonically. 200 halvings of a bracket a
   few eV wide reach the double-precision resolution of mu. */
/*@
   BTEChemicalPotential - Finds the chemical potential that gives a carrier density at a temperature

   Collective

   Input Parameters:
+  bte - the BTE
.  T   - temperature, K
-  n   - density, cm^-3 (cm^-2 in 2D)

   Output Parameter:
.  mu - chemical potential, eV

   Level: beginner

.seealso: `BTECarrierDensity()`
@*/
PetscErrorCode BTEChemicalPotential(BTE bte, PetscReal T, PetscReal n, PetscReal *mu)
{
  MPI_Comm         comm = PetscObjectComm((PetscObject)bte);
  const PetscReal *e;
  PetscInt         nl, dim;
  PetscReal        emin = PETSC_MAX_REAL, emax = PETSC_MIN_REAL, kT = BTE_KB * T, lo, hi, nlo, nhi;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCheck(T > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Temperature must be positive (K), got %g", (double)T);
  PetscCall(BTEGetGrid(bte, &dim, NULL, NULL, NULL, NULL));
  PetscCheck(n > 0 && !PetscIsInfOrNanReal(n), comm, PETSC_ERR_ARG_OUTOFRANGE, "Carrier density must be positive (%s), got %g", dim == 2 ? "cm^-2" : "cm^-3", (double)n);
  PetscCall(BTEGetNumStates(bte, &nl, NULL));
  PetscCall(BTEGetLocalStates(bte, &e, NULL, NULL, NULL));
  for (PetscInt i = 0; i < nl; i++) {
    emin = PetscMin(emin, e[i]);
    emax = PetscMax(emax, e[i]);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emin, 1, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emax, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCheck(emin <= emax, comm, PETSC_ERR_ARG_WRONGSTATE, "The BTE has no states in its energy window");
  lo = emin - 2.0 - 200 * kT;
  hi = emax + 40 * kT;
  PetscCall(BTECarrierDensity(bte, T, lo, &nlo));
  PetscCall(BTECarrierDensity(bte, T, hi, &nhi));
  PetscCheck(n > nlo, comm, PETSC_ERR_ARG_OUTOFRANGE, "Carrier density %g %s is too small for these states at %g K (below %g)", (double)n, dim == 2 ? "cm^-2" : "cm^-3", (double)T, (double)nlo);
  PetscCheck(n < nhi, comm, PETSC_ERR_ARG_OUTOFRANGE, "Carrier density %g %s is more than the states in the energy window can hold (%g %s at %g K); lower it or %s", (double)n, dim == 2 ? "cm^-2" : "cm^-3", (double)nhi, dim == 2 ? "cm^-2" : "cm^-3", (double)T, BTEWindowAdvice(bte));
  for (PetscInt it = 0; it < 200 && hi - lo > 1e-13 * PetscMax(1.0, PetscAbsReal(lo)); it++) {
    PetscReal mid = 0.5 * (lo + hi), nm;
    PetscCall(BTECarrierDensity(bte, T, mid, &nm));
    if (nm < n) lo = mid;
    else hi = mid;
  }
  *mu = 0.5 * (lo + hi);
  PetscFunctionReturn(0);
}
