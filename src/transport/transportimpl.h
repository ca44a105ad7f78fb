/* Internal structures of bte's steady-state solvers (src/transport): the
   linear-response operator A = Gamma - P and the high-field residual. */
#pragma once

#include <bte/private/bteimpl.h>
#include <bte/transport.h>

/* Unit conversions (derivations in src/transport/carriers.c). */
#define BTE_E_CHARGE   1.602176634e-19 /* C */
#define BTE_VEL_CM_S   1.0e7           /* 1 Angstrom/fs = 1e7 cm/s */
#define BTE_FIELD_EV_A 1.0e-8          /* force of 1 V/cm on a unit charge, eV/Angstrom */

/* Linear-response operator of one (T, mu): A F = v with A = -D^{-1} J(f0) D
   (physics.md eq. 5), or, for symmetric Krylov methods, S F = D v with
   S = -J(f0) D (symmetric when f0 satisfies detailed balance). States without
   channels (Gamma = 0) or with D = 0 carry no current: they are inactive, the
   operator is the identity there and the right-hand side is zero. */
typedef struct {
  Mat        J;         /* collision Jacobian dI/df at f0 */
  Vec        D;         /* -df0/de = f0 (1 - f0) / kT, 1/eV; 0 on inactive states */
  Vec        Dinv;      /* 1/D on active states, 0 on inactive */
  Vec        inactive;  /* 1 on inactive states, 0 on active */
  Vec        active;    /* 1 on active states */
  Vec        gamma;     /* Gamma = -diag J(f0), 1/fs; 1 on inactive */
  Vec        work;
  PetscInt64 applies;   /* MatMult(J) calls */
  PetscInt   ninactive; /* global */
} BTELinearCtx;

PETSC_INTERN PetscErrorCode BTELinearCtxSetUp(BTE, Mat J, Vec f0, PetscReal T, PetscReal mu, BTELinearCtx *);
PETSC_INTERN PetscErrorCode BTELinearCtxReset(BTELinearCtx *);
/* Shells on a BTELinearCtx: the nonsymmetric A (diagonal Gamma) and the symmetric S (diagonal D Gamma). */
PETSC_INTERN PetscErrorCode BTELinearCreateOperator(BTE, BTELinearCtx *, PetscBool symmetric, Mat *);

/* Velocity component a of the local states into a Vec (Angstrom/fs). */
PETSC_INTERN PetscErrorCode BTEVelocityVec(BTE, PetscInt, Vec);
/* Equilibrium f0 and D = -df0/de at (T, mu). */
PETSC_INTERN PetscErrorCode BTEEquilibrium(BTE, PetscReal, PetscReal, Vec, Vec);
/* Conversion factors: conductivity (S/m or S) per (s/(V Nk)) sum v F D in
   Angstrom^2/(fs eV) / V, and density (cm^-3 or cm^-2) per 1/V. */
PETSC_INTERN PetscErrorCode BTETransportUnits(BTE, PetscReal *, PetscReal *, PetscReal *);

/* Log events */
PETSC_EXTERN PetscLogEvent BTE_TransportSolve, BTE_TransportIO, BTE_HighFieldSolve;
PETSC_INTERN PetscErrorCode BTETransportInitializePackage(void);

typedef struct _BTETransportOps *BTETransportOps;
struct _BTETransportOps {
  PetscErrorCode (*dummy)(BTETransport);
};

struct _p_BTETransport {
  PETSCHEADER(struct _BTETransportOps);
  BTE                 bte;
  BTETransportMethod  method;
  PetscInt            nT;
  PetscReal          *T;        /* K; NULL: the BTE's temperature */
  PetscInt            nc;
  PetscReal          *conc;     /* densities (cm^-3 / cm^-2) or chemical potentials (eV) */
  PetscBool           use_mu;   /* conc holds chemical potentials */
  PetscReal           ita_tol;
  PetscInt            ita_max_it;
  PetscInt            symmetric; /* -1 decide from the KSP type, 0 no, 1 yes */
  PetscBool           verbose;
  KSP                 ksp;
  PetscInt            nres;
  BTETransportResult *res;
  Vec                 F[3];
  char                ksp_type[64]; /* for the output file */
};
