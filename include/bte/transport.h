/* bte transport: steady states of the BTE (docs/theory.md section 4).
   - BTETransport: low-field (linear response) conductivity and mobility tensors,
     eq. 5 solved with KSP on A = Gamma - P = -D^{-1} J(f0) D, or Perturbo's RTA/ITA.
   - BTEHighField: the steady state of eq. 1 with a static field (collision + drift)
     by Newton (SNES) or pseudo-transient continuation, at a list of field strengths.
   Units as everywhere in bte: eV, fs, Angstrom, K; fields in V/cm, mobility in
   cm^2/(V s), conductivity in S/m (S for a 2D sheet), densities in cm^-3 (cm^-2 in 2D). */
#pragma once

#include <bte.h>
#include <petscksp.h>
#include <petscsnes.h>

/* ------------------------------------------------------------------------- */
/* Carrier statistics on the states of a (set up) BTE: n = s/(V Nk) sum_i f0_i.  */
/* Carrier density (cm^-3; cm^-2 in 2D) at temperature T (K) and chemical potential mu (eV). Collective. */
PETSC_EXTERN PetscErrorCode BTECarrierDensity(BTE, PetscReal, PetscReal, PetscReal *);
/* Chemical potential (eV) that gives carrier density n (cm^-3; cm^-2 in 2D) at T (K). Collective. */
PETSC_EXTERN PetscErrorCode BTEChemicalPotential(BTE, PetscReal, PetscReal, PetscReal *);

/* ------------------------------------------------------------------------- */
/* BTETransport: low-field transport at a set of (temperature, carrier density or
   chemical potential) configurations: the cross product of the temperature list
   (outer) and the density / chemical potential list (inner).                   */
typedef struct _p_BTETransport *BTETransport;
PETSC_EXTERN PetscClassId BTETRANSPORT_CLASSID;

typedef enum {
  BTE_TRANSPORT_KSP, /* Krylov solve of eq. 5, Gamma-diagonal (RTA) preconditioner */
  BTE_TRANSPORT_RTA, /* relaxation-time approximation F = v / Gamma */
  BTE_TRANSPORT_ITA  /* Perturbo's iterative approach F <- (v + P F) / Gamma */
} BTETransportMethod;
PETSC_EXTERN const char *const BTETransportMethods[];

/* Preconditioner of the ksp method (-bte_transport_pc). */
typedef enum {
  BTE_TRANSPORT_PC_JACOBI,  /* the KSP's own PC: PCJACOBI, the Gamma (RTA) diagonal, or any -bte_transport_pc_type */
  BTE_TRANSPORT_PC_TWOLEVEL /* "bte two-level": Gamma diagonal + a coarse space of velocity x cubic harmonics x energy
                               bins per valley, coarse matrix from one pass over the channels (docs/transport.md) */
} BTETransportPCType;
PETSC_EXTERN const char *const BTETransportPCTypes[];

/* Results of one configuration */
typedef struct {
  PetscReal  temperature;        /* K */
  PetscReal  chemical_potential; /* eV, in the table's energy convention */
  PetscReal  carrier_density;    /* cm^-3 (cm^-2 in 2D) */
  PetscReal  conductivity[9];    /* sigma_ab, row-major; S/m (S in 2D) */
  PetscReal  mobility[9];        /* sigma_ab / (e n_c), cm^2/(V s) */
  PetscInt   iterations[3];      /* per field direction: KSP or ITA iterations (0 for RTA) */
  PetscReal  residual[3];        /* per field direction: ||v - A F|| / ||v|| of the returned F */
  PetscInt64 applies;            /* collision Jacobian applies used by the solver (all directions) */
  PetscBool  converged;          /* every direction met its tolerance */
  PetscReal  edge_share;         /* the conducting carriers' (weight f0 (1 - f0)) share within 3 kT of the window's top; above 1e-3 warned */
  PetscReal  thermal_states;     /* the states they sit on in effect, (sum w)^2 / sum w^2 with w = f0 (1 - f0); below 100 warned */
} BTETransportResult;

PETSC_EXTERN PetscErrorCode BTETransportCreate(BTE, BTETransport *);
PETSC_EXTERN PetscErrorCode BTETransportSetMethod(BTETransport, BTETransportMethod);
PETSC_EXTERN PetscErrorCode BTETransportGetMethod(BTETransport, BTETransportMethod *);
/* Temperatures (K). Default: the BTE's own temperature. */
PETSC_EXTERN PetscErrorCode BTETransportSetTemperatures(BTETransport, PetscInt, const PetscReal[]);
/* Either carrier densities (cm^-3; cm^-2 in 2D) or chemical potentials (eV); the last call wins.
   Default: one density, 1e17 cm^-3 (1e12 cm^-2 in 2D). */
PETSC_EXTERN PetscErrorCode BTETransportSetCarrierDensities(BTETransport, PetscInt, const PetscReal[]);
PETSC_EXTERN PetscErrorCode BTETransportSetChemicalPotentials(BTETransport, PetscInt, const PetscReal[]);
/* ITA stopping tolerance on the relative change of the conductivity (2e-3) and iteration cap. */
PETSC_EXTERN PetscErrorCode BTETransportSetITATolerance(BTETransport, PetscReal, PetscInt);
/* The ksp method's acceptance: a solve whose own relative residual ||v - A F||/||v|| (before the
   carrier-number projection) is above this is not converged, whatever the KSP's tolerances (1e-3). */
PETSC_EXTERN PetscErrorCode BTETransportSetMaxResidual(BTETransport, PetscReal);
/* The preconditioner of the ksp method (default BTE_TRANSPORT_PC_JACOBI). */
PETSC_EXTERN PetscErrorCode BTETransportSetPCType(BTETransport, BTETransportPCType);
PETSC_EXTERN PetscErrorCode BTETransportGetPCType(BTETransport, BTETransportPCType *);
/* Options: -bte_transport_method, -bte_transport_pc (jacobi, twolevel) and its -bte_transport_pc_bins,
   -bte_transport_pc_angular, -bte_transport_pc_split, -bte_transport_pc_form, -bte_temperatures, -bte_carrier_densities,
   -bte_chemical_potentials, -bte_ita_tol, -bte_ita_max_it, -bte_transport_residual_max, and the KSP's with
   prefix -bte_transport_ (e.g. -bte_transport_ksp_type bcgs). */
PETSC_EXTERN PetscErrorCode BTETransportSetFromOptions(BTETransport);
/* The KSP used by the ksp method (prefix bte_transport_); valid after BTETransportCreate. */
PETSC_EXTERN PetscErrorCode BTETransportGetKSP(BTETransport, KSP *);
/* Builds the collision operator at each temperature and solves every configuration. Collective. */
PETSC_EXTERN PetscErrorCode BTETransportSetUp(BTETransport);
PETSC_EXTERN PetscErrorCode BTETransportSolve(BTETransport);
PETSC_EXTERN PetscErrorCode BTETransportGetNumResults(BTETransport, PetscInt *);
PETSC_EXTERN PetscErrorCode BTETransportGetResult(BTETransport, PetscInt, BTETransportResult *);
/* The solution F (Angstrom) of the last configuration solved, for field direction 0..2 (not a copy: do not destroy). */
PETSC_EXTERN PetscErrorCode BTETransportGetSolution(BTETransport, PetscInt, Vec *);
PETSC_EXTERN PetscErrorCode BTETransportView(BTETransport, PetscViewer);
/* Writes /transport/... (docs/transport.md) to an HDF5 file (created or truncated). Collective; rank 0 writes. */
PETSC_EXTERN PetscErrorCode BTETransportWriteHDF5(BTETransport, const char[]);
PETSC_EXTERN PetscErrorCode BTETransportDestroy(BTETransport *);
PETSC_EXTERN PetscErrorCode BTETransportSetOptionsPrefix(BTETransport, const char[]);

/* ------------------------------------------------------------------------- */
/* BTEHighField: steady state of df/dt = drift(f; E) + I[f] at fixed carrier number,
   for a list of field strengths along one direction, each solve starting from the
   previous field's solution.                                                   */
typedef struct _p_BTEHighField *BTEHighField;
PETSC_EXTERN PetscClassId BTEHIGHFIELD_CLASSID;

typedef enum {
  BTE_HIGHFIELD_NEWTON, /* SNES Newton-Krylov; falls back to pseudo-transient continuation on failure */
  BTE_HIGHFIELD_PTC     /* pseudo-transient continuation only */
} BTEHighFieldMethod;
PETSC_EXTERN const char *const BTEHighFieldMethods[];

typedef struct {
  PetscReal  field;            /* |E|, V/cm */
  PetscReal  drift_velocity;   /* v_d = sum f v.E_hat / sum f, cm/s (negative for electrons) */
  PetscReal  velocity[3];      /* sum f v / sum f, cm/s */
  PetscReal  mean_energy;      /* sum f (e - e_min) / sum f, eV above the lowest state */
  PetscReal  edge_occupation;  /* fraction of the carriers on states at the window's edge (a grid
                                  neighbour outside the window): more than ~1e-3 means the window is
                                  too narrow for this field */
  PetscReal  residual;         /* ||r|| / ||Gamma|| at the returned state (r: residual scaled to rates) */
  PetscReal  number_error;     /* |sum f - N0| / N0 */
  PetscReal  number_source;    /* sum_i D_i / sum_i f_i, 1/fs: carriers the discretised drift creates per
                                  carrier and fs at the steady state (0 for a conserving drift), removed
                                  by the carrier-number constraint */
  PetscInt   iterations;       /* Newton (or pseudo-time) steps */
  PetscInt64 applies;          /* collision Jacobian applies */
  PetscBool  converged;
  PetscBool  used_ptc;         /* the result came from pseudo-transient continuation */
} BTEHighFieldResult;

PETSC_EXTERN PetscErrorCode BTEHighFieldCreate(BTE, BTEHighField *);
PETSC_EXTERN PetscErrorCode BTEHighFieldSetMethod(BTEHighField, BTEHighFieldMethod);
/* Field strengths, V/cm */
PETSC_EXTERN PetscErrorCode BTEHighFieldSetFields(BTEHighField, PetscInt, const PetscReal[]);
/* Field direction (Cartesian; normalised internally). Default (1,0,0). */
PETSC_EXTERN PetscErrorCode BTEHighFieldSetDirection(BTEHighField, const PetscReal[3]);
/* Carrier density (cm^-3; cm^-2 in 2D) that fixes the carrier number. Default 1e17 (1e12). */
PETSC_EXTERN PetscErrorCode BTEHighFieldSetCarrierDensity(BTEHighField, PetscReal);
/* Options: -bte_highfield_method, -bte_efield_list, -bte_efield_direction,
   -bte_carrier_density, -bte_highfield_ptc_dt, ... and the SNES's with prefix -bte_highfield_. */
PETSC_EXTERN PetscErrorCode BTEHighFieldSetFromOptions(BTEHighField);
PETSC_EXTERN PetscErrorCode BTEHighFieldGetSNES(BTEHighField, SNES *);
PETSC_EXTERN PetscErrorCode BTEHighFieldSetUp(BTEHighField);
PETSC_EXTERN PetscErrorCode BTEHighFieldSolve(BTEHighField);
PETSC_EXTERN PetscErrorCode BTEHighFieldGetNumResults(BTEHighField, PetscInt *);
PETSC_EXTERN PetscErrorCode BTEHighFieldGetResult(BTEHighField, PetscInt, BTEHighFieldResult *);
/* Valley (basin of a band minimum) occupations of result i: nv valley groups, occ[nv] fractions. */
PETSC_EXTERN PetscErrorCode BTEHighFieldGetValleys(BTEHighField, PetscInt *, const char *const *[], const PetscReal *[]);
PETSC_EXTERN PetscErrorCode BTEHighFieldGetValleyOccupations(BTEHighField, PetscInt, const PetscReal *[]);
/* The steady-state occupations at the last field solved (not a copy). */
PETSC_EXTERN PetscErrorCode BTEHighFieldGetSolution(BTEHighField, Vec *);
PETSC_EXTERN PetscErrorCode BTEHighFieldView(BTEHighField, PetscViewer);
PETSC_EXTERN PetscErrorCode BTEHighFieldWriteHDF5(BTEHighField, const char[]);
PETSC_EXTERN PetscErrorCode BTEHighFieldDestroy(BTEHighField *);
PETSC_EXTERN PetscErrorCode BTEHighFieldSetOptionsPrefix(BTEHighField, const char[]);
