/* Internal structures of bte's steady-state solvers (src/transport): the
   linear-response operator A = Gamma - P and the high-field residual. */
#pragma once

#include <bte/private/bteimpl.h>
#include <bte/private/validate.h>
#include <bte/transport.h>

/* Unit conversions (derivations in src/transport/carriers.c). */
#define BTE_E_CHARGE   1.602176634e-19 /* C */
#define BTE_VEL_CM_S   1.0e7           /* 1 Angstrom/fs = 1e7 cm/s */
#define BTE_FIELD_EV_A 1.0e-8          /* force of 1 V/cm on a unit charge, eV/Angstrom */

/* Linear-response operator of one (T, mu): A F = v with A = -D^{-1} J(f0) D
   (docs/theory.md eq. 5), or, for symmetric Krylov methods, S F = D v with
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

/* rate (may be NULL): -diag J(f0) of every state before the inactive ones are masked, 1/fs */
PETSC_INTERN PetscErrorCode BTELinearCtxSetUp(BTE, Mat J, Vec f0, PetscReal T, PetscReal mu, Vec rate, BTELinearCtx *);
PETSC_INTERN PetscErrorCode BTELinearCtxReset(BTELinearCtx *);
/* Shells on a BTELinearCtx: the nonsymmetric A (diagonal Gamma) and the symmetric S (diagonal D Gamma). */
PETSC_INTERN PetscErrorCode BTELinearCreateOperator(BTE, BTELinearCtx *, PetscBool symmetric, Mat *);

/* The two-level preconditioner of the ksp method (twolevel.c): the Gamma diagonal plus a coarse
   space u(i) = phi_{d,m}(v_i) chi_{group,bin}(i) (velocity x cubic harmonics x energy bins, per
   valley or band), Galerkin matrix U^T D A U from one pass over the channels. */
typedef enum {
  BTE_TWOLEVEL_SPLIT_NONE,
  BTE_TWOLEVEL_SPLIT_BAND,
  BTE_TWOLEVEL_SPLIT_VALLEY
} BTETwoLevelSplit;
PETSC_INTERN const char *const BTETwoLevelSplits[];
typedef enum {
  BTE_TWOLEVEL_MULTIPLICATIVE, /* coarse correction, then the Gamma diagonal on the remaining residual */
  BTE_TWOLEVEL_ADDITIVE
} BTETwoLevelForm;
PETSC_INTERN const char *const BTETwoLevelForms[];
typedef struct _n_BTETwoLevel *BTETwoLevel;
PETSC_INTERN PetscErrorCode BTETwoLevelCreate(BTETwoLevel *);
PETSC_INTERN PetscErrorCode BTETwoLevelDestroy(BTETwoLevel *);
PETSC_INTERN PetscErrorCode BTETwoLevelSetParameters(BTETwoLevel, PetscInt nbins, PetscInt angular, BTETwoLevelSplit, BTETwoLevelForm);
PETSC_INTERN PetscErrorCode BTETwoLevelGetParameters(BTETwoLevel, PetscInt *, PetscInt *, BTETwoLevelSplit *, BTETwoLevelForm *);
/* Builds the coarse space and matrix at f0 for the operator of ctx (A, or S = D A when sym);
   counts one apply in ctx->applies (the channel pass). */
PETSC_INTERN PetscErrorCode BTETwoLevelSetUp(BTETwoLevel, BTE, BTECollision, Vec f0, BTELinearCtx *ctx, PetscBool sym);
PETSC_INTERN PetscErrorCode BTETwoLevelSetPC(BTETwoLevel, PC);
PETSC_INTERN PetscErrorCode BTETwoLevelGetInfo(BTETwoLevel, PetscInt *nc, PetscInt *setups, PetscLogDouble *time);
PETSC_EXTERN PetscLogEvent  BTE_TwoLevelSetUp;

/* Velocity component a of the local states into a Vec (Angstrom/fs). */
PETSC_INTERN PetscErrorCode BTEVelocityVec(BTE, PetscInt, Vec);
/* Equilibrium f0 and D = -df0/de at (T, mu). */
PETSC_INTERN PetscErrorCode BTEEquilibrium(BTE, PetscReal, PetscReal, Vec, Vec);
/* Conversion factors: conductivity (S/m or S) per (s/(V Nk)) sum v F D in
   Angstrom^2/(fs eV) / V, and density (cm^-3 or cm^-2) per 1/V. */
PETSC_INTERN PetscErrorCode BTETransportUnits(BTE, PetscReal *, PetscReal *, PetscReal *);
PETSC_INTERN PetscInt       BTEListDefault(PetscBool, PetscInt, const PetscReal[], PetscInt, PetscReal[]);

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
  PetscReal           residual_max; /* ksp: a solve whose residual is above this is not a solution */
  PetscInt            symmetric; /* -1 decide from the KSP type, 0 no, 1 yes */
  PetscBool           solved_sym; /* the last solve used the symmetric form (the view says how its residual reads) */
  PetscReal           ksp_rtol;   /* the last solve's KSP relative tolerance (recorded in the output) */
  PetscBool           verbose;
  KSP                 ksp;
  BTETransportPCType  pctype;
  BTETwoLevel         tl;
  PetscInt            nres;
  BTETransportResult *res;
  Vec                 F[3];
  PetscBool           Fset[3]; /* F[b] holds this solve's answer for an earlier configuration (-ksp_initial_guess_nonzero starts from it) */
  Vec                *rate;         /* per configuration: Gamma_i = -diag J(f0), 1/fs (the output's scattering_rate) */
  char                ksp_type[64]; /* for the output file */
  BTECollision        col;          /* the operator of the next solve (BTETransportSetUp) */
  PetscBool           colready, colkeep; /* col is set up for it; its rates are refreshed per temperature */
};

/* ------------------------------------------------------------------------- */
/* High field (highfield.c). The drift term of eq. 1 comes from the dynamics
   module; internally the solver sees it through this small interface. */
typedef struct {
  void *ctx;
  /* field vector E in V/cm */
  PetscErrorCode (*setfield)(void *, const PetscReal[3]);
  /* D = drift part of df/dt at f */
  PetscErrorCode (*apply)(void *, Vec f, Vec D);
  /* Jacobian dD/df at f: setstate fixes f, jacmultadd y += J x, diagadd d += diag J.
     jacmultadd NULL: finite differences of apply; diagadd NULL: no diagonal. */
  PetscErrorCode (*setstate)(void *, Vec f);
  PetscErrorCode (*jacmultadd)(void *, Vec x, Vec y);
  PetscErrorCode (*diagadd)(void *, Vec d);
  PetscErrorCode (*destroy)(void *);
  PetscBool positive; /* the discretisation keeps f in [0,1] (log, upwind, muscl; not plain) */
  PetscInt  nsteps;   /* grid steps of the neighbours the drift uses (for the window-edge check); */
  PetscInt  steps[3 * 64]; /* 0: the 6 axis neighbours */
} BTEHighFieldDrift;
/* Replaces the drift operator (tests and embedding applications); the object takes ownership. */
PETSC_EXTERN PetscErrorCode BTEHighFieldSetDrift(BTEHighField, const BTEHighFieldDrift *);
/* The default: the dynamics module's drift operator on this BTE. */
PETSC_INTERN PetscErrorCode BTEHighFieldCreateDefaultDrift(BTEHighField, BTEHighFieldDrift *);

typedef struct _BTEHighFieldOps *BTEHighFieldOps;
struct _BTEHighFieldOps {
  PetscErrorCode (*dummy)(BTEHighField);
};

struct _p_BTEHighField {
  PETSCHEADER(struct _BTEHighFieldOps);
  BTE                bte;
  BTEHighFieldMethod method;
  PetscInt           nE;
  PetscReal         *E;         /* V/cm */
  PetscReal          dir[3];    /* unit vector */
  PetscReal          density;   /* cm^-3 (cm^-2); 0: default */
  PetscReal          tol;       /* converged when ||r|| <= tol ||Gamma|| */
  PetscReal          residual_max; /* and never above residual_max ||Gamma||, whatever the SNES's atol */
  PetscReal          ptc_dt0;   /* fs; 0: 1/<Gamma> */
  PetscReal          ptc_dtmax; /* fs */
  PetscInt           ptc_max_it;
  PetscReal          ptc_switch; /* newton after ptc once ||r|| < ptc_switch ||r0|| */
  PetscBool          monitor;
  SNES               snes;
  PetscReal          snes_atol; /* the SNES atol bte last set itself; any other value was set by the
                                   application (BTEHighFieldGetSNES) or -bte_highfield_snes_atol */
  KSP                ptc_ksp;
  BTEHighFieldDrift  drift;
  PetscBool          have_drift;
  char               driftname[64]; /* written to the output: the default drift's form (and limiter), or "application" */
  /* results */
  PetscInt            nres;
  BTEHighFieldResult *res;
  PetscReal          *valley_occ; /* nres x nvalley */
  PetscReal          *band_occ;   /* nres x nbands */
  void               *valleys;    /* BTEValleys */
  PetscReal           T, mu, n;   /* temperature, equilibrium chemical potential and density */
  PetscReal           emin;       /* lowest state energy, eV */
  /* solve-time state */
  BTECollision col;
  PetscBool    colready; /* col set up by BTEHighFieldSetUp() for the next solve */
  Mat          Jc;           /* collision Jacobian (at the current f) */
  Mat          Jr;           /* shell: Jacobian of the scaled residual in g */
  Mat          Jptc;         /* shell: I/dt + Jr */
  Vec          g, r, f, W, R, gamma0, work, work2, one;
  Vec          fJ, WJ, RJ;   /* f, S, R at the Jacobian's state */
  Vec          mJ, TJ, dJ, dSJ; /* row multiplier, df/dx, diagonal term, dS/dx (highfield.c) */
  Vec          Sfix;         /* row scale of the linear variables */
  PetscBool    logvars;      /* unknowns g = ln((1-f)/f) (else f) */
  PetscInt     vars;         /* -1 auto (log unless the drift is plain), 0 log, 1 linear */
  PetscReal    N0, c, sW, sR, sWJ, sRJ, gnorm0, ptc_shift;
  PetscReal    field[3];     /* V/cm */
  PetscInt64   applies;
};
