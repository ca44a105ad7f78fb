/* Stated bounds of bte's inputs (docs/validation.md) and the checks that enforce them.
   A value outside its bound (or not a finite number) is refused with one line that names
   the value, where it came from and the bound; nothing is clamped or dropped silently. The
   bounds are wide: each is far outside any physical value and far inside what overflows. */
#pragma once
#include <bte/private/bteimpl.h>

/* Lattice and table quantities */
#define BTE_TEMPERATURE_MIN 1e-2 /* K */
#define BTE_TEMPERATURE_MAX 1e5  /* K (kT = 8.6 eV) */
#define BTE_SMEARING_MIN    1e-6 /* eV */
#define BTE_SMEARING_MAX    1.0  /* eV */
#define BTE_PHONON_FLOOR    1e-6 /* eV: a channel's phonon energy must be at least this (hw -> 0 makes
                                    the Bose factor infinite); models drop channels below it */
#define BTE_PHONON_MAX      10.0 /* eV */
#define BTE_G2_MAX          1e6  /* eV^2 (|g| = 1000 eV) */
#define BTE_WINDOW_MAX      100.0 /* eV */
#define BTE_ENERGY_ABS_MAX  1e3  /* eV: energies given on the command line (e0, chemical potentials) */
#define BTE_ETOL_MAX        1e3  /* -bte_energy_tolerance, in units of eta */
/* Fields, times */
#define BTE_EFIELD_MAX       1e8  /* V/cm (10 V/nm) */
#define BTE_TIME_STEP_MIN    1e-6 /* fs */
#define BTE_TIME_STEP_MAX    1e6  /* fs */
#define BTE_TIME_MAX         1e9  /* fs (1 microsecond): |final time| */
#define BTE_INTERVAL_MIN     1e-6 /* fs */
#define BTE_MAX_SNAPSHOTS    1e7  /* output times in one run */
#define BTE_MAX_FIXED_STEPS  1e9  /* steps of a fixed-step run */
#define BTE_ESTEP_MIN        1e-6 /* eV: bin width of the energy-resolved population */
#define BTE_MAX_EBINS        1e7  /* bins of the energy-resolved population */
/* Built-in models' parameters (-bte_parabolic_*, _gaas_*, _graphene_*, _si_holes_*): upper bounds
   a few orders of magnitude beyond any real material's, so that a typo (-bte_parabolic_mass 1e300
   gave a conductivity of 0) is refused; phonon energies by BTE_PHONON_MAX, band energies by
   BTE_ENERGY_ABS_MAX. docs/models.md lists them. */
#define BTE_MODEL_MASS_MAX       1e3  /* effective masses, m_e (and 1/mass, hbar^2/2m_e: DKK A, B, C) */
#define BTE_MODEL_LATTICE_MAX    1e3  /* lattice constants, Angstrom */
#define BTE_MODEL_EPS_MAX        1e6  /* relative permittivities (SrTiO3: 2e4 at 4 K) */
#define BTE_MODEL_DAC_MAX        1e3  /* |acoustic deformation potentials|, eV */
#define BTE_MODEL_DOPT_MAX       1e12 /* |optical, intervalley deformation potentials|, eV/cm (1e4 eV/A) */
#define BTE_MODEL_SOUND_MAX      1e6  /* sound velocities, m/s (diamond: 1.8e4) */
#define BTE_MODEL_DENSITY_MAX    1e6  /* mass densities, kg/m^3 (osmium: 2.3e4) */
#define BTE_MODEL_DENSITY2D_MAX  1e-3 /* areal mass densities, kg/m^2 (graphene: 7.6e-7) */
#define BTE_MODEL_VELOCITY_MAX   1e7  /* Fermi velocities, m/s (graphene: 1e6) */
#define BTE_MODEL_HOPPING_MAX    100  /* tight-binding hoppings, eV (graphene: 2.7) */
/* Perturbo epr files (src/models/perturbo/epr_read.c): the physical inputs a few orders of
   magnitude beyond any real material's, so that a damaged value (a flipped exponent) or a file
   in other units is refused on reading, naming the dataset, rather than giving other phonons or
   couplings. In the file's Rydberg atomic units except the masses (amu; the file's Rydberg mass
   unit is 1/911.444 amu). docs/validation.md lists them. */
#define BTE_EPR_MASS_MIN    0.1 /* atomic masses, amu (H: 1.008; a file written in amu, 12 for carbon, is 0.013 amu) */
#define BTE_EPR_MASS_MAX    1e4 /* amu (the heaviest element: 294) */
#define BTE_EPR_LENGTH_MIN  0.1 /* alat, thickness_2d, bohr */
#define BTE_EPR_LENGTH_MAX  1e4 /* bohr (0.5 um; a cell is at most 1e9 bohr^3) */
#define BTE_EPR_ZSTAR_MAX   1e2 /* |Born effective charge components|, e (anomalous charges reach ~10) */
#define BTE_EPR_EPSIL_MIN   1.0 /* diagonal of epsilon_inf: no medium screens less than vacuum (in 2D,
                                   eps_par < 1 makes the screening length negative and the long-range
                                   weight 1 / (1 + r |K|) singular) */
#define BTE_EPR_EPSIL_MAX   1e4 /* (PbTe: 33) */
#define BTE_EPR_HOPPING_MAX 1e3 /* |H(R)|, Ry (13.6 keV) */
#define BTE_EPR_IFC_MAX     1e4 /* |force constants|, Ry/bohr^2 (the stiffest bonds give a few; DNTT's largest: 1.4) */
#define BTE_EPR_EPH_MAX     1e3 /* |e-ph couplings in the Wannier basis|, Ry/bohr (25.7 keV/A; real: < 1) */
/* Laws the real-space arrays obey by construction (Fourier transforms of Hermitian H(k) and D(q)),
   which a damaged entry inside the bounds above breaks: H_ii(R) = conj H_ii(-R) and, for one atom
   with itself, C_aa(R) = C_aa(-R)^T, relative to the array's largest entry (a real file: ~1e-17).
   An acoustic sum rule imposed without symmetrising can leave C_aa(0) asymmetric by its residual
   (~1e-4 of the largest constant), hence the looser refusal and the warning in between. */
#define BTE_EPR_HERMITIAN_TOL 1e-6 /* refused above */
#define BTE_EPR_IFCSYM_WARN   1e-6 /* warned above */
#define BTE_EPR_IFCSYM_TOL    1e-2 /* refused above */
#define BTE_EPR_ASR_WARN      0.5  /* meV: acoustic frequencies at Gamma the force constants' sum-rule
                                      residual implies, warned above (DNTT: 3e-5 meV) */
/* Occupations during a run: finite and within [-tol, 1 + tol] (-bte_state_tolerance) */
#define BTE_STATE_TOLERANCE 0.5

/* v must be a finite number in [lo, hi]; else one collective error
   "<what> = <v> <units> is outside [lo, hi] <units><hint>". */
PETSC_INTERN PetscErrorCode BTECheckRange(MPI_Comm, const char what[], PetscReal v, PetscReal lo, PetscReal hi, const char units[], const char hint[]);
/* A caller's Vec must be a state vector (nlocal entries on this rank; argument number arg): loops
   over the owned states index it */
PETSC_INTERN PetscErrorCode BTECheckStateVec(Vec v, PetscInt nlocal, PetscInt arg);
/* the same for v in (lo, hi]: a parameter that must exceed lo (a mass, a density: 0) */
PETSC_INTERN PetscErrorCode BTECheckRangeAbove(MPI_Comm, const char what[], PetscReal v, PetscReal lo, PetscReal hi, const char units[], const char hint[]);
/* A comma-separated list option of obj's options database as given (name with its dash): refused
   when it is given with no value or with an empty entry ("100,,300", a comma at either end), which
   PETSc's list parsers skip, so that a typo cannot silently drop a point; example: a valid list */
PETSC_INTERN PetscErrorCode BTECheckListOption(PetscObject obj, const char name[], const char example[]);
/* The BTE's physics settings (options or API) against their bounds; at BTESetUp. */
PETSC_INTERN PetscErrorCode BTEValidateSettings(BTE);
/* The finite-state guard of the run modes: ok when every entry of f is finite and, with tol >= 0,
   within [-tol, 1 + tol]; finite: every entry finite; the smallest and largest entries (the
   last three may be NULL). Collective; one pass over the entries (one device reduction for CUDA
   vectors whose entries are on the device) and one MPI_Allreduce: one host synchronisation
   (statecheck.h). Logged as BTEStateCheck. */
PETSC_EXTERN PetscLogEvent   BTE_StateCheck;
PETSC_EXTERN PetscErrorCode BTEStateCheck(Vec, PetscReal tol, PetscBool *ok, PetscBool *finite, PetscReal *vmin, PetscReal *vmax);

/* Run memory (src/bte/memory.c). Bytes this rank needs for a run on the loaded table: the
   table, the collision operator's layout, its ghosts, work vectors and, if assembled, the
   Jacobian. BTECheckRunMemory refuses (collective, one line naming the estimate and the limit)
   when the busiest rank needs more than it may use (-bte_memory_limit, else its share of the
   node's memory), unless -bte_memory_check 0. */
/* the operator's setup at its peak, beside the table: the pair layout's host build holds the local
   ends (8 B per channel), P and Q (16 B), the sort entries (24 B) and the layout as it is filled
   (~16 B); measured: GaAs 80^3, 3.03e7 channels, bte highfield peaks at 2.78 GB resident, 92 B per
   channel with the table's 28 (the fused layout, 40 B per channel, stays below it) */
#define BTE_RUN_BYTES_PER_CHANNEL_OP (2 * sizeof(PetscInt) /* ends */ + 2 * sizeof(PetscReal) /* P, Q */ + (2 * sizeof(uint32_t) + 2 * sizeof(double)) /* sort entry */ + 16 /* layout */)
/* assembled AIJ from COO: four entries per channel (ii, ij, ji, jj) as (i, j, value) and PETSc's
   permutation of them, the value buffer, and the matrix's two off-diagonal entries; GaAs 50^3 and
   60^3 measured 132-142 B per channel above the shell run (48 B had been assumed) */
#define BTE_RUN_BYTES_PER_CHANNEL_JAC (4 * (2 * sizeof(PetscInt) + sizeof(PetscScalar) + sizeof(PetscCount)) + 2 * (sizeof(PetscInt) + sizeof(PetscScalar)) + 4 * sizeof(PetscScalar))
#define BTE_RUN_VECTORS               8                                                     /* state-sized work vectors */
#define BTE_RUN_BYTES_PER_STATE       (BTE_RUN_VECTORS * sizeof(PetscScalar) + sizeof(PetscInt) + sizeof(PetscScalar)) /* + a ghost */
/* hostlayout: count the collision layout's host build (BTE_RUN_BYTES_PER_CHANNEL_OP); for a pair
   layout built on the device only BTE_RUN_BYTES_PER_CHANNEL_DEV beside the table. Measured on one
   H200 host: GaAs 160^3 (1.99e9 channels) 58.4 GB resident, 29 B per channel in all, against the
   183 GB a host build would take; 180^3 (4.08e9) was killed at the host's 135 GB, more than 33 B
   per channel. 16 B covers both. */
#define BTE_RUN_BYTES_PER_CHANNEL_DEV 16
PETSC_INTERN PetscErrorCode BTERunMemoryEstimate(BTE, PetscCount nheld, PetscInt nlocal, PetscBool assembled, PetscBool hostlayout, PetscLogDouble *table, PetscLogDouble *run);
PETSC_INTERN PetscErrorCode BTECheckRunMemory(BTE, PetscBool assembled, PetscBool hostlayout, const char what[]);
