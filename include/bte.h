/* bte: electron-phonon Boltzmann transport equation on PETSc.
   Public API: what an application that embeds bte includes. Units: eV, fs, Angstrom, K. */
#pragma once

#include <petscvec.h>
#include <petscmat.h>
#include <petscts.h>
#include <petscviewer.h>

#define BTE_VERSION_MAJOR 0
#define BTE_VERSION_MINOR 1
#define BTE_VERSION_PATCH 0

/* Physical constants in bte's units */
#define BTE_HBAR   0.6582119569     /* eV fs */
#define BTE_KB     8.617333262e-5   /* eV / K */
#define BTE_RY_EV  13.605693123     /* eV per Rydberg */

/* ------------------------------------------------------------------------- */
/* BTE: the state space (k grid, bands, energy window, states over ranks) and
   the scattering channels each rank owns.                                   */
typedef struct _p_BTE *BTE;
PETSC_EXTERN PetscClassId BTE_CLASSID;

PETSC_EXTERN PetscErrorCode BTEInitializePackage(void);
PETSC_EXTERN PetscErrorCode BTEFinalizePackage(void);

PETSC_EXTERN PetscErrorCode BTECreate(MPI_Comm, BTE *);
PETSC_EXTERN PetscErrorCode BTESetFromOptions(BTE);
PETSC_EXTERN PetscErrorCode BTESetUp(BTE);
PETSC_EXTERN PetscErrorCode BTEView(BTE, PetscViewer);
PETSC_EXTERN PetscErrorCode BTEViewWarnings(BTE, PetscViewer);
PETSC_EXTERN PetscErrorCode BTEDestroy(BTE *);

/* Where the table comes from: a file (-bte_input) or a built-in model (-bte_model). */
PETSC_EXTERN PetscErrorCode BTESetInputFile(BTE, const char[]);
PETSC_EXTERN PetscErrorCode BTESetModel(BTE, const char[]);
PETSC_EXTERN PetscErrorCode BTEGetModel(BTE, const char *[]);
/* An application's own model (docs/extending.md): its create function sets the model operations
   of bte/private/bteimpl.h; the names registered (built-in and the application's), freed with
   PetscFree() */
PETSC_EXTERN PetscErrorCode BTEModelRegister(const char[], PetscErrorCode (*)(BTE));
PETSC_EXTERN PetscErrorCode BTEModelGetTypes(PetscInt *, const char **[]);
PETSC_EXTERN PetscErrorCode BTESetGrid(BTE, PetscInt);
PETSC_EXTERN PetscErrorCode BTESetTemperature(BTE, PetscReal);
PETSC_EXTERN PetscErrorCode BTEGetTemperature(BTE, PetscReal *);
PETSC_EXTERN PetscErrorCode BTESetSmearing(BTE, PetscReal);
PETSC_EXTERN PetscErrorCode BTEGetSmearing(BTE, PetscReal *);
/* Temperature and smearing set here or by options are used as set: a table's values (its
   /channels smearing, its temperature) apply only to those never set. */
/* The discretised delta of energy conservation (-bte_delta, docs/collision.md):
   BTE_DELTA_PERTURBO (default) Perturbo's Gaussians at e_i - e_j -+ hw; BTE_DELTA_BALANCED the same
   Gaussian weight per channel, split between its two directions by exp((e_i - e_j)/kT), so that
   Fermi-Dirac at the lattice temperature is an exact steady state (detailed balance). */
typedef enum {
  BTE_DELTA_PERTURBO,
  BTE_DELTA_BALANCED
} BTEDelta;
PETSC_EXTERN const char *const BTEDeltas[];
PETSC_EXTERN PetscErrorCode BTESetDelta(BTE, BTEDelta);
PETSC_EXTERN PetscErrorCode BTEGetDelta(BTE, BTEDelta *);
/* Memory a rank may use, bytes (0, the default: the machine's; -bte_memory_limit in GB) */
PETSC_EXTERN PetscErrorCode BTESetMemoryLimit(BTE, PetscLogDouble);
PETSC_EXTERN PetscErrorCode BTEGetMemoryLimit(BTE, PetscLogDouble *);

/* Refuses (collective, one line naming both files) an output file that would overwrite one of the
   run's inputs: the table (-bte_input) or a model's input file (-bte_perturbo_epr), by name or as
   the same file through a link (same device and inode), FILE.tmp (the temporary name outputs are
   written to) included. opt names the output's option in the message (NULL: -bte_output). Every
   writer of bte calls it; call it early to refuse before a long run. */
PETSC_EXTERN PetscErrorCode BTECheckOutputFile(BTE, const char[], const char[]);
/* Writes the (set up) table to an HDF5 file, docs/format.md. Collective. */
PETSC_EXTERN PetscErrorCode BTEWriteTable(BTE, const char[]);
/* Builds the model's table (-bte_model) and writes it to an HDF5 file while generating, holding
   at most -bte_generate_batch channels per rank at a time: tables larger than memory. Collective.
   The BTE ends up set up with its states and channel counts, but no channel arrays (as with
   BTESetLoadChannels(bte, PETSC_BOOL3_FALSE)): BTEView works, a run needs BTESetUp on the file.
   On a BTE already set up with its channels it is BTEWriteTable. */
PETSC_EXTERN PetscErrorCode BTEGenerateTable(BTE, const char[]);
/* What BTESetUp does with the channels: PETSC_BOOL3_TRUE (default) loads them, refusing a table
   that does not fit in memory; PETSC_BOOL3_FALSE counts them only (a table's states and channel
   count, a model's count pass without the fill): enough for BTEView and BTEGetMemoryEstimate, not
   for a run; PETSC_BOOL3_UNKNOWN loads them if they fit in memory, else counts them. */
PETSC_EXTERN PetscErrorCode BTESetLoadChannels(BTE, PetscBool3);
/* After setup: PETSC_FALSE if the channels were only counted */
PETSC_EXTERN PetscErrorCode BTEGetChannelsLoaded(BTE, PetscBool *);

/* State space. States i = (n,k) inside the window, numbered 0..N-1 globally,
   owned in contiguous blocks by the ranks (a PetscLayout). */
PETSC_EXTERN PetscErrorCode BTEGetStateLayout(BTE, PetscLayout *);
PETSC_EXTERN PetscErrorCode BTEGetNumStates(BTE, PetscInt *, PetscInt *);
/* Channels held by this rank (0 when they were only counted) and distinct channels in all */
PETSC_EXTERN PetscErrorCode BTEGetNumChannels(BTE, PetscCount *, PetscInt64 *);
/* Connected pieces of the channel graph (states joined by channels), the number of states outside
   the largest piece and the lowest energy among them (eV; PETSC_MAX_REAL if none). Collective; the
   channels must be loaded. Several pieces: carriers cannot move between them. */
PETSC_EXTERN PetscErrorCode BTEGetChannelGraph(BTE, PetscInt *, PetscInt *, PetscReal *);
/* Diagnostics at setup (docs/diagnostics.md): what a grid can represent, at the lattice
   temperature T, with Fermi-Dirac f0 at T and a nondegenerate chemical potential.
   defect: sum_i |I_i[f0]| / sum_i Gamma_i f0_i, the net share of the gross (out-scattering) flux:
     0 for an exact detailed-balance discretisation; relax_temperature: the Fermi-Dirac temperature
     with the mean energy of the stationary state f0 relaxes to (a run without a field ends there;
     the carriers of the largest piece of the channel graph; NaN if none was found); edge_share:
     share of the carriers of f0 in states within edge_width (3 kT) of the window's top;
   relax_velocity: the mean velocity of the stationary state, a current without a field (0 unless
     the couplings break k -> -k symmetry: a table from a Wannier interpolation evaluates each
     channel's coupling at one end), against thermal_speed; thermal_states: the participation number
     of f0, how many states sample the thermal distribution (below 100 mobilities and rates averaged
     over it are not converged with the grid).
   BTEGetDiagnostics computes them once (a collision operator setup, an apply and a GMRES solve of
   10-40 Jacobian applies) and caches them; collective. computed is PETSC_FALSE when they are
   switched off (-bte_diagnostics 0, BTESetDiagnostics) or need what the BTE lacks (loaded
   channels, memory for a collision operator). */
typedef struct {
  PetscBool computed;
  PetscReal temperature;       /* K, the lattice temperature they refer to */
  BTEDelta  delta;             /* the discretised delta they refer to (BTESetDelta) */
  PetscInt  pieces;            /* connected pieces of the channel graph */
  PetscInt  states_cut;        /* states outside its largest piece */
  PetscReal defect;            /* equilibrium defect, 1 */
  PetscReal relax_temperature; /* K */
  PetscReal edge_share;        /* 1 */
  PetscReal edge_width;        /* eV */
  PetscInt  applies;           /* collision applies they took */
  PetscLogDouble time;         /* seconds they took (collision setup included) */
  PetscReal relax_velocity[3]; /* cm/s: mean velocity of that stationary state (0 when the table is symmetric under k -> -k) */
  PetscReal thermal_speed;     /* cm/s: mean speed |v| of f0, the scale of relax_velocity */
  PetscReal thermal_states;    /* states the carriers of f0 sit on in effect: (sum_i f0_i)^2 / sum_i f0_i^2 */
} BTEDiagnostics;
PETSC_EXTERN PetscErrorCode BTESetDiagnostics(BTE, PetscBool);
PETSC_EXTERN PetscErrorCode BTEGetDiagnostics(BTE, BTEDiagnostics *);
PETSC_EXTERN PetscErrorCode BTEGetLocalStates(BTE, const PetscReal *[], const PetscReal *[], const PetscInt *[], const PetscInt *[]);
PETSC_EXTERN PetscErrorCode BTEGetGrid(BTE, PetscInt *, PetscInt[3], PetscReal[9], PetscReal[9], PetscReal *);
PETSC_EXTERN PetscErrorCode BTEGetSpinDegeneracy(BTE, PetscInt *);
PETSC_EXTERN PetscErrorCode BTECreateStateVec(BTE, Vec *);

/* Estimated memory (bytes) of a run (table + collision operator + ghosts + work vectors, the figure
   the runs check before allocating, docs/validation.md): on one rank, and on this rank of this
   layout (also when the channels were only counted). */
PETSC_EXTERN PetscErrorCode BTEGetMemoryEstimate(BTE, PetscLogDouble *, PetscLogDouble *);

/* Occupation helpers */
PETSC_EXTERN PetscErrorCode BTEFermiDirac(BTE, PetscReal, PetscReal, Vec);

/* ------------------------------------------------------------------------- */
/* BTECollision: the collision integral I[f] (docs/theory.md eq. 2) and its Jacobian
   (eq. 4) on the states of a BTE. Implementations (-bte_collision_type):
   baseline (Perturbo v2.2, per (k,q) pair records, atomics), tgt (Perturbo v3's
   target layer, two passes), fused (precomputed P/Q, one pass over a
   target-sorted layout), pair (each pair of states stored once and updating both
   ends: half the bytes of fused; the default). Vectors come from BTECreateStateVec().  */
typedef struct _p_BTECollision *BTECollision;
typedef const char             *BTECollisionType;
#define BTECOLLISIONBASELINE "baseline"
#define BTECOLLISIONTGT      "tgt"
#define BTECOLLISIONFUSED    "fused"
#define BTECOLLISIONPAIR     "pair"
PETSC_EXTERN PetscClassId BTECOLLISION_CLASSID;

PETSC_EXTERN PetscErrorCode BTECollisionCreate(BTE, BTECollision *);
PETSC_EXTERN PetscErrorCode BTECollisionSetType(BTECollision, BTECollisionType);
PETSC_EXTERN PetscErrorCode BTECollisionGetType(BTECollision, BTECollisionType *);
PETSC_EXTERN PetscErrorCode BTECollisionSetFromOptions(BTECollision);
PETSC_EXTERN PetscErrorCode BTECollisionSetUp(BTECollision);
PETSC_EXTERN PetscErrorCode BTECollisionView(BTECollision, PetscViewer);
PETSC_EXTERN PetscErrorCode BTECollisionDestroy(BTECollision *);
/* An application's own implementation (docs/extending.md): its create function sets the
   operations of bte/private/collisionimpl.h; the types registered, freed with PetscFree() */
PETSC_EXTERN PetscErrorCode BTECollisionRegister(const char[], PetscErrorCode (*)(BTECollision));
PETSC_EXTERN PetscErrorCode BTECollisionGetTypes(PetscInt *, const char **[]);
/* I = I[f] */
PETSC_EXTERN PetscErrorCode BTECollisionApply(BTECollision, Vec, Vec);
/* y = J(f) x, J = dI/df at f */
PETSC_EXTERN PetscErrorCode BTECollisionJacobianApply(BTECollision, Vec, Vec, Vec);
/* A Mat for J: MATSHELL by default (with MatMult, MatGetDiagonal), AIJ with
   -bte_jacobian_assembled; BTECollisionComputeJacobian sets its state f. */
PETSC_EXTERN PetscErrorCode BTECollisionCreateJacobian(BTECollision, Mat *);
PETSC_EXTERN PetscErrorCode BTECollisionComputeJacobian(BTECollision, Vec, Mat);
/* Out-scattering rates Gamma_t = -J_tt(f) (the RTA inverse lifetimes at f0), 1/fs. */
PETSC_EXTERN PetscErrorCode BTECollisionGetScatteringRates(BTECollision, Vec, Vec);
/* Lattice temperature (K) of this operator's phonon occupations; default: the BTE's at setup.
   Call before BTECollisionSetUp(); the BTE is not changed (a solve at several temperatures). */
PETSC_EXTERN PetscErrorCode BTECollisionSetTemperature(BTECollision, PetscReal);
PETSC_EXTERN PetscErrorCode BTECollisionSetTemperatureRefresh(BTECollision, PetscBool);
PETSC_EXTERN PetscErrorCode BTECollisionGetTemperatureRefresh(BTECollision, PetscBool *);
PETSC_EXTERN PetscErrorCode BTECollisionGetTemperatureChanges(BTECollision, PetscInt *, PetscInt *);
PETSC_EXTERN PetscErrorCode BTECollisionSetJacobianAssembled(BTECollision, PetscBool);
PETSC_EXTERN PetscErrorCode BTECollisionGetJacobianAssembled(BTECollision, PetscBool *);
/* fused only: weights stored in single precision, sums in double (-bte_collision_precision mixed) */
PETSC_EXTERN PetscErrorCode BTECollisionSetMixedPrecision(BTECollision, PetscBool);
/* whether a registered type implements it */
PETSC_EXTERN PetscErrorCode BTECollisionTypeHasMixedPrecision(BTECollisionType, PetscBool *);
/* held channels, stored channel ends, ghost states, bytes of the layout on this rank */
PETSC_EXTERN PetscErrorCode BTECollisionGetInfo(BTECollision, PetscCount *, PetscCount *, PetscInt *, PetscLogDouble *);
/* TS callbacks with the BTECollision as context */
PETSC_EXTERN PetscErrorCode BTECollisionTSRHSFunction(TS, PetscReal, Vec, Vec, void *);
PETSC_EXTERN PetscErrorCode BTECollisionTSRHSJacobian(TS, PetscReal, Vec, Mat, Mat, void *);

/* ------------------------------------------------------------------------- */
/* Real-time dynamics (docs/dynamics.md):  df/dt = -(F/hbar).grad_k f + I[f].

   BTEDrift: the drift term of a static field E (V/cm); F = -eE for electrons,
   +eE for holes (F in eV/Angstrom = 1e-8 E[V/cm]). grad_k by Wannier90-style
   finite-difference b-vectors on the full k grid (docs/theory.md section 5); the
   neighbour (n,k+b) of (n,k) contributes only if it is in the energy window.
   Forms (-bte_drift_form): muscl (the default: upwind flux with a limited linear
   reconstruction, -bte_drift_limiter: conserves carriers exactly, keeps f >= 0,
   and f <= 1 wherever a state has all its neighbours; second order where f is
   smooth; on CUDA Vecs too), log (Perturbo's: differentiates ln((1-f)/f) clipped
   to +-35, keeps f in (0,1) but does not conserve carriers; for comparisons with
   Perturbo), plain (differentiates f in flux form: carriers are conserved
   exactly, also at the window's edge, but f can leave [0, 1]) and upwind (flux
   form with the upwind state's f: muscl's conservation and bounds, first order). */
typedef struct _p_BTEDrift *BTEDrift;
typedef enum {
  BTE_DRIFT_LOG,
  BTE_DRIFT_PLAIN,
  BTE_DRIFT_UPWIND,
  BTE_DRIFT_MUSCL
} BTEDriftForm;
PETSC_EXTERN const char *const BTEDriftForms[];
/* The slope limiter of the muscl form */
typedef enum {
  BTE_DRIFT_LIMITER_VANLEER,
  BTE_DRIFT_LIMITER_MINMOD
} BTEDriftLimiter;
PETSC_EXTERN const char *const BTEDriftLimiters[];
PETSC_EXTERN PetscClassId      BTEDRIFT_CLASSID;

PETSC_EXTERN PetscErrorCode BTEDriftCreate(BTE, BTEDrift *);
PETSC_EXTERN PetscErrorCode BTEDriftSetField(BTEDrift, const PetscReal[3]);
PETSC_EXTERN PetscErrorCode BTEDriftGetField(BTEDrift, PetscReal[3]);
PETSC_EXTERN PetscErrorCode BTEDriftSetForm(BTEDrift, BTEDriftForm);
PETSC_EXTERN PetscErrorCode BTEDriftGetForm(BTEDrift, BTEDriftForm *);
PETSC_EXTERN PetscErrorCode BTEDriftSetLimiter(BTEDrift, BTEDriftLimiter);
PETSC_EXTERN PetscErrorCode BTEDriftGetLimiter(BTEDrift, BTEDriftLimiter *);
PETSC_EXTERN PetscErrorCode BTEDriftSetFromOptions(BTEDrift);
PETSC_EXTERN PetscErrorCode BTEDriftSetUp(BTEDrift);
PETSC_EXTERN PetscErrorCode BTEDriftView(BTEDrift, PetscViewer);
PETSC_EXTERN PetscErrorCode BTEDriftDestroy(BTEDrift *);
/* The b-vectors (after setup): count, Cartesian b (3 per b, 1/Angstrom), weights w_b (Angstrom^2),
   sum_b w_b b_a b_c = delta_ac */
PETSC_EXTERN PetscErrorCode BTEDriftGetBVectors(BTEDrift, PetscInt *, const PetscReal *[], const PetscReal *[]);
/* D = drift term at f (1/fs); ApplyAdd: y += D[f] */
PETSC_EXTERN PetscErrorCode BTEDriftApply(BTEDrift, Vec, Vec);
PETSC_EXTERN PetscErrorCode BTEDriftApplyAdd(BTEDrift, Vec, Vec);
/* Jacobian dD/df: SetJacobianState fixes f, then y += J x and d += diag(J) */
PETSC_EXTERN PetscErrorCode BTEDriftSetJacobianState(BTEDrift, Vec);
PETSC_EXTERN PetscErrorCode BTEDriftJacobianMultAdd(BTEDrift, Vec, Vec);
PETSC_EXTERN PetscErrorCode BTEDriftJacobianDiagonalAdd(BTEDrift, Vec);
/* The b-vector gradient g_a = sum_b w_b b_a (u(k+b) - u(k)) over neighbours in the window
   (units of u times Angstrom) */
PETSC_EXTERN PetscErrorCode BTEDriftGradient(BTEDrift, Vec, Vec[3]);

/* Moments of occupations f: carriers per unit cell (s/Nk sum f), carrier density (cm^-3; cm^-2
   in 2D), mean energy (eV, the table's energy zero), mean velocity (cm/s). Outputs may be NULL. */
PETSC_EXTERN PetscErrorCode BTEComputeMoments(BTE, Vec, PetscReal *, PetscReal *, PetscReal *, PetscReal[3]);
/* Lowest state energy in the window (the band edge of the table's carriers), eV */
PETSC_EXTERN PetscErrorCode BTEGetBandEdge(BTE, PetscReal *);

/* Initial distributions (Perturbo's), on the table's energies e_i (eV):
   fermi    f = 1/(exp((e-e0)/smear) + 1)        (smear = kT)
   gaussian f = A exp(-((e-e0)/smear)^2)
   lorentz  f = A / (((e-e0)/smear)^2 + 1)
   restart  the last snapshot of a dynamics output file (BTEDynamicsSetRestart)
   BTEComputeDistribution(bte, type, e0, smear, A, f) fills f for the first three. */
typedef enum {
  BTE_INIT_FERMI,
  BTE_INIT_GAUSSIAN,
  BTE_INIT_LORENTZ,
  BTE_INIT_RESTART
} BTEInitType;
PETSC_EXTERN const char *const BTEInitTypes[];
PETSC_EXTERN PetscErrorCode    BTEComputeDistribution(BTE, BTEInitType, PetscReal, PetscReal, PetscReal, Vec);

/* BTEDynamics: rt-BTE under a PETSc TS. RHS = collision (+ drift when a field is set),
   RHS Jacobian = collision Jacobian (+ drift Jacobian), so every TS type and adaptor
   works (-ts_type, -ts_adapt_type). Times in fs. Options: docs/dynamics.md.        */
typedef struct _p_BTEDynamics *BTEDynamics;
/* PC type for the linear systems of implicit integrators (BDF, ARKIMEX, Rosenbrock-W) on bte's
   matrix-free Jacobian: Jacobi plus a coarse space of (valley, energy bin) populations, built
   from the channels at the TS's shift (-pc_type bte_twolevel; docs/timestepping.md) */
#define PCBTETWOLEVEL "bte_twolevel"
PETSC_EXTERN PetscClassId BTEDYNAMICS_CLASSID;

PETSC_EXTERN PetscErrorCode BTEDynamicsCreate(BTE, BTEDynamics *);
/* Optional: a collision operator made by the caller (else one is made from the options) */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetCollision(BTEDynamics, BTECollision);
PETSC_EXTERN PetscErrorCode BTEDynamicsGetCollision(BTEDynamics, BTECollision *);
PETSC_EXTERN PetscErrorCode BTEDynamicsSetField(BTEDynamics, const PetscReal[3]);
PETSC_EXTERN PetscErrorCode BTEDynamicsGetDrift(BTEDynamics, BTEDrift *);
/* Initial state: type, e0 (eV, the table's energy zero), smear (eV); the carrier number from a
   density (cm^-3, cm^-2 in 2D) or a peak occupation A (gaussian, lorentz) */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetInitialState(BTEDynamics, BTEInitType, PetscReal, PetscReal);
PETSC_EXTERN PetscErrorCode BTEDynamicsSetCarrierDensity(BTEDynamics, PetscReal);
PETSC_EXTERN PetscErrorCode BTEDynamicsSetPeakOccupation(BTEDynamics, PetscReal);
PETSC_EXTERN PetscErrorCode BTEDynamicsSetRestart(BTEDynamics, const char[]);
/* Time step and final time, fs */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetTimes(BTEDynamics, PetscReal, PetscReal);
/* HDF5 output file (NULL or "" for none) and the interval between snapshots, fs */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetOutput(BTEDynamics, const char[], PetscReal);
PETSC_EXTERN PetscErrorCode BTEDynamicsSetFromOptions(BTEDynamics);
PETSC_EXTERN PetscErrorCode BTEDynamicsSetUp(BTEDynamics);
PETSC_EXTERN PetscErrorCode BTEDynamicsGetTS(BTEDynamics, TS *);
/* f = the initial state; t0 = its time (0, or the restart snapshot's) */
PETSC_EXTERN PetscErrorCode BTEDynamicsComputeInitialState(BTEDynamics, Vec, PetscReal *);
/* Integrate from the initial state to the final time, writing snapshots; f (may be NULL) gets the final state */
PETSC_EXTERN PetscErrorCode BTEDynamicsSolve(BTEDynamics, Vec);
PETSC_EXTERN PetscErrorCode BTEDynamicsView(BTEDynamics, PetscViewer);
PETSC_EXTERN PetscErrorCode BTEDynamicsDestroy(BTEDynamics *);
/* Time-dependent field E(t) = s(t) E (BTEDynamicsSetField gives E): constant s = 1; step s = 0
   before t0 and 1 from t0 on (steps land on t0); pulse s = exp(-4 ln2 (t - t0)^2 / fwhm^2) */
typedef enum {
  BTE_FIELD_CONSTANT,
  BTE_FIELD_STEP,
  BTE_FIELD_PULSE
} BTEFieldProfile;
PETSC_EXTERN const char *const BTEFieldProfiles[];
PETSC_EXTERN PetscErrorCode    BTEDynamicsSetFieldProfile(BTEDynamics, BTEFieldProfile, PetscReal, PetscReal);
/* Pump pulse: density (cm^-3, cm^-2 in 2D; 0: none) injected at e0 above the band edge with
   energy width w (eV; exp(-((e - e0)/w)^2)) and a Gaussian time profile centred at tc (fs) with
   full width at half maximum fwhm (fs) */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetPump(BTEDynamics, PetscReal, PetscReal, PetscReal, PetscReal, PetscReal);
/* Stop at a steady state: |dv_d/dt| below the threshold (cm/s^2; 0: off) over two output intervals */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetSteadyStateThreshold(BTEDynamics, PetscReal);
/* After a solve: whether it stopped at a steady state, the time (fs) and drift velocity (cm/s) */
PETSC_EXTERN PetscErrorCode BTEDynamicsGetSteadyState(BTEDynamics, PetscBool *, PetscReal *, PetscReal *);
/* Positivity: an adaptive step whose result has an occupation outside [0, 1] is retried at half the step */
PETSC_EXTERN PetscErrorCode BTEDynamicsSetPositivity(BTEDynamics, PetscBool);
/* The finite-state guard (occupations finite and in [-tol, 1 + tol]): where it looks.
   auto  stage on host vectors, step on CUDA vectors (the default)
   stage every stage of an adaptive step (TSSetFunctionDomainError: a bad stage rejects the step
         before it is finished) and every step's result; one host synchronisation per stage on a GPU
   step  every step's result, once: an adaptive step that fails is rolled back and retried at half
         the step, a fixed-step run stops; stages are checked only in the retries of a rejected
         step, so a step that passes synchronises once
   none  only the states written (snapshots, the final state) */
typedef enum {
  BTE_STATE_CHECK_AUTO,
  BTE_STATE_CHECK_STAGE,
  BTE_STATE_CHECK_STEP,
  BTE_STATE_CHECK_NONE
} BTEStateCheckType;
PETSC_EXTERN const char *const BTEStateCheckTypes[];
PETSC_EXTERN PetscErrorCode    BTEDynamicsSetStateCheck(BTEDynamics, BTEStateCheckType);
/* the type set, or after BTEDynamicsSetUp the one auto chose */
PETSC_EXTERN PetscErrorCode BTEDynamicsGetStateCheck(BTEDynamics, BTEStateCheckType *);
/* TS callbacks with a set-up BTEDynamics as context: collision + drift */
PETSC_EXTERN PetscErrorCode BTEDynamicsTSRHSFunction(TS, PetscReal, Vec, Vec, void *);
PETSC_EXTERN PetscErrorCode BTEDynamicsTSRHSJacobian(TS, PetscReal, Vec, Mat, Mat, void *);

/* Steady-state transport (linear response, high field) */
#include <bte/transport.h>
