/* Internal structures of the dynamics objects (BTEDrift, BTEDynamics) and the
   dynamics output (src/dynamics/output.c). Library-internal. */
#pragma once
#include <bte/private/bteimpl.h>
#include <bte/private/output.h>

/* Portable MatShellSetOperation cast (PETSc >= 3.24 takes PetscErrorCodeFn *, older void (*)(void);
   both are void (*)(void)). */
#define BTE_MATOP(f) ((void (*)(void))(f))

/* Finite-difference b-vectors of a k grid (Wannier90's scheme). */
typedef struct {
  PetscInt   nb;      /* number of b-vectors */
  PetscInt   nshells; /* shells used */
  PetscInt  *m;       /* 3 per b: offsets in grid steps along the reciprocal vectors */
  PetscReal *b;       /* 3 per b: Cartesian, 1/Angstrom */
  PetscReal *w;       /* weight per b, Angstrom^2 */
  PetscInt  *shell;   /* shell of each b */
} BTEBVectors;

PETSC_INTERN PetscErrorCode BTEBVectorsCompute(const BTEGrid *, BTEBVectors *);
PETSC_INTERN PetscErrorCode BTEBVectorsDestroy(BTEBVectors *);

typedef struct _BTEDriftOps *BTEDriftOps;
struct _BTEDriftOps {
  PetscErrorCode (*dummy)(BTEDrift);
};

/* The stencil is assembled once as a PETSc Mat A over the states (rows owned states, columns their
   in-window neighbours, off-rank ones included): off-diagonal entries c_b, diagonal +sum_b c_b (plain:
   D = A f) or -sum_b c_b (log: S = A g, D = f(f-1) S). Its type follows the state Vec (AIJCUSPARSE for
   CUDA Vecs, AIJ otherwise; -bte_drift_mat_type), and so do the work Vecs: with CUDA Vecs every apply
   runs on the device (MatMult + the kernels of drift_cuda.cu). Vecs of the other kind are accepted and
   go through host arrays. */
struct _p_BTEDrift {
  PETSCHEADER(struct _BTEDriftOps);
  BTE          bte;
  PetscReal    efield[3]; /* V/cm */
  BTEDriftForm form;
  PetscBool    ownerfield, ownerform; /* set by the owner (a dynamics, a high-field solve): SetFromOptions leaves -bte_efield / -bte_drift_form to it */
  BTEBVectors  bv;
  PetscReal   *c;         /* per b: -(w_b F.b)/hbar, 1/fs */
  PetscInt     nlocal, nghost;
  PetscInt    *nbr;       /* nlocal*nb: local index, nlocal+ghost index, or -1 (outside the window) */
  PetscInt    *ghosts;    /* global state indices of the ghosts, sorted */
  VecScatter   scatter;   /* global state Vec -> ghost Vec (BTEDriftGradient) */
  Vec          fghost, xghost;
  /* the stencil matrix */
  char         mattype[64]; /* "" until setup: from -bte_drift_mat_type or the state Vec */
  Mat          A;
  PetscCount   ncoo;        /* COO entries: per owned state its diagonal, then its in-window neighbours */
  PetscBool    cuda;        /* A and the work Vecs are CUDA: pointwise steps by drift_cuda.cu */
  Vec          adiag;       /* diag(A) */
  Vec          w1, w2;      /* inputs / outputs of the other Vec kind */
  Vec          g, S;        /* log form: g(f), A g */
  Vec          ju, jp, jd, jdiag, jt, jz; /* log Jacobian state: u, p, (2f-1)S, diagonal; work u x, A(u x) */
  PetscBool    jstate;
  PetscBool    setupcalled;
  /* muscl form (drift_muscl.c): A holds the upwind stencil, the limited correction is added by host
     loops or, with CUDA Vecs, by kernels of drift_cuda.cu */
  BTEDriftLimiter limiter;
  PetscInt       *opp;      /* per b: the index of -b */
  PetscInt        nd;       /* b-vectors along which carriers move (c_b < 0) */
  PetscInt       *down;     /* their indices */
  Vec             msig;     /* a slope (or its linearisation) along one b, on the owned states */
  Vec             sghost;   /* its ghosts */
  PetscReal      *jal, *jbe; /* Jacobian state, nd x nlocal: d sigma / d(backward, forward difference) */
  Vec             mdiag;    /* Jacobian diagonal: diag(A) + that of the correction */
  Vec             mfg, mxg; /* CUDA: the ghosts of f and of x on the device (sghost is there too) */
  void           *mcuda;    /* CUDA: the neighbour table and the Jacobian state on the device (BTEDriftCUDAMUSCL) */
};

PETSC_INTERN PetscErrorCode BTEDriftSetOwned(BTEDrift, PetscBool, PetscBool);
PETSC_INTERN PetscErrorCode BTEDriftMUSCLSetUp(BTEDrift);
PETSC_INTERN PetscErrorCode BTEDriftMUSCLDestroy(BTEDrift);
PETSC_INTERN PetscErrorCode BTEDriftMUSCLApplyAdd(BTEDrift, Vec, Vec);
PETSC_INTERN PetscErrorCode BTEDriftMUSCLSetJacobianState(BTEDrift, Vec);
PETSC_INTERN PetscErrorCode BTEDriftMUSCLJacobianMultAdd(BTEDrift, Vec, Vec);

typedef struct _BTEDynamicsOps *BTEDynamicsOps;
struct _BTEDynamicsOps {
  PetscErrorCode (*dummy)(BTEDynamics);
};

/* The HDF5 output of a run (src/dynamics/output.c, on the output layer of src/io/output.c) */
typedef struct {
  BTEOutput file;       /* NULL when the run writes none (or once it is closed) */
  PetscInt  nt;         /* snapshots in the file */
  PetscInt  nt0;        /* of them, those it held before this run (an append) */
  PetscInt  ne;         /* energy grid points */
  PetscReal e0, de;     /* energy grid: e0 + (j+1/2) de, bin centres */
  PetscBool hasdt;      /* the file has the step-size series (time_step, time_step_unclipped) */
} BTEDynamicsOutput;

/* What identifies a dynamics output: /dynamics attributes format and version */
#define BTE_DYN_FORMAT_NAME    "bte-dynamics"
#define BTE_DYN_FORMAT_VERSION 1

/* What a restart reads from the last complete snapshot of a dynamics output. */
typedef struct {
  PetscReal t;         /* fs */
  PetscReal tfirst;    /* the file's first snapshot, fs: its output times are tfirst + k interval */
  PetscInt  step;      /* TS step number */
  PetscBool hasdt;     /* the file has the step sizes (older files do not) */
  PetscReal dt;        /* the step the run was about to take, fs */
  PetscReal dtclip;    /* > 0: dt was shortened to land on an output time from this step */
  /* for -bte_steady_threshold: the drift velocities of the last two snapshots and the field they
     are along, so that a restart goes on counting the intervals below the threshold */
  PetscInt  nsnap;     /* the file's complete snapshots */
  PetscInt  complete;  /* its root attribute complete: 1, 0 (a run stopped or killed), -1 absent */
  PetscBool hasv;      /* two snapshots and the field were read */
  PetscReal tprev;     /* the snapshot before the last, fs */
  PetscReal vprev, vlast; /* cm/s */
  PetscReal efield[3]; /* V/cm */
} BTEDynamicsRestartState;

/* Cost of a run (src/dynamics/cost.c): counts over BTEDynamicsSolve, wall times in seconds. */
typedef struct {
  PetscInt       steps, rejects, snes_its, ksp_its;
  PetscInt64     coll_applies, jac_applies;     /* BTECollisionApply / BTECollisionJacobianApply during the solve */
  PetscInt64     coll0, jac0;                   /* the collision's counters when the solve started */
  PetscLogDouble tcreate;                       /* PetscTime at BTEDynamicsCreate */
  PetscLogDouble setup, stepping, output, total; /* s */
  PetscLogDouble tsnap;                          /* time in snapshots (output, monitor, reference) so far */
  PetscInt       leg_rejects, leg_snes_its, leg_ksp_its, leg_snes_fails; /* of the first TS, once the run switched (-bte_switch_time) */
  char           summary[PETSC_MAX_PATH_LEN];   /* -bte_summary FILE.json ("" none) */
} BTEDynamicsCost;

/* Errors against a reference run (src/dynamics/reference.c), one entry per compared snapshot. */
typedef struct {
  char       file[PETSC_MAX_PATH_LEN]; /* -bte_reference ("" none) */
  PetscBool  open;
  long long  fid;                      /* hid_t, every rank (read-only) */
  PetscInt   ntref;                    /* reference snapshots */
  PetscReal *tref;                     /* their times */
  PetscInt   ja, jb;                   /* reference rows held in ra, rb (-1 none) */
  PetscReal *ra, *rb;                  /* this rank's slab of rows ja, jb */
  Vec        fref;                     /* the reference at the snapshot time */
  PetscInt   n, cap;                   /* compared snapshots */
  PetscReal *t, *fmax, *f2, *f2rel, *carriers, *density, *emean, *vdrift, *popmax;
} BTEDynamicsReference;

/* Time-dependent sources and stopping rules (src/dynamics/sources.c). */
typedef struct {
  /* field profile E(t) = s(t) E: constant, a sharp step at ftime, a Gaussian pulse centred at ftime */
  BTEFieldProfile fprofile;
  PetscReal       ftime, ffwhm; /* fs */
  PetscReal       jscale;       /* s(t) at the last RHS Jacobian evaluation */
  Vec             work;         /* drift term or drift Jacobian product before scaling */
  /* pump: S_i(t) = K p(t) g_i, g_i = exp(-((e_i - e0)/w)^2), p a normalised Gaussian in time */
  PetscReal pdensity;           /* injected carriers, cm^-3 (cm^-2 in 2D); 0: no pump */
  PetscReal pe0edge, psmear;    /* eV above the band edge, eV */
  PetscReal ptime, pfwhm;       /* fs: centre and full width at half maximum of p(t) */
  PetscReal pamp;               /* K: the occupation one carrier pulse adds at g_i = 1 */
  PetscReal psum;               /* K sum_i g_i: sum_i f_i injected by the whole pulse */
  Vec       pshape;             /* g */
  /* steady-state stop: |dv_d/dt| < sthr (cm/s^2) over the last two output intervals */
  PetscReal sthr;
  PetscInt  shits;              /* consecutive output intervals below the threshold */
  PetscBool sprev;              /* vprev, tprev hold the previous output time's drift velocity */
  PetscReal vprev, tprev;
  PetscBool steady;             /* the run stopped at a steady state */
  PetscReal steadyt, steadyv, steadyacc, lastacc;
  /* positivity: a step whose result leaves [0, 1] is rolled back and retried at half the step */
  PetscBool positivity;
  Vec       fsaved;             /* the state at the start of the step */
  PetscReal tsaved;
  PetscInt  npositivity;        /* steps rolled back by the positivity check */
  PetscInt  nguard;             /* stages rejected by the finite-state guard (TSSetFunctionDomainError) */
  PetscInt  nguardstep;         /* steps rolled back by the finite-state guard (-bte_state_check step) */
  PetscInt  nretry;             /* consecutive rollbacks of one step */
  PetscBool adaptive;           /* the TS adapts its steps (not TSADAPTNONE): set before each step */
  PetscBool saved;              /* fsaved holds the state at the start of the step being taken */
  PetscInt  rejseen;            /* TSGetStepRejections when the step started or was last restored */
  PetscBool retrycheck;         /* the step is being retried: the step guard checks its stages too */
} BTEDynamicsSources;

struct _p_BTEDynamics {
  PETSCHEADER(struct _BTEDynamicsOps);
  BTE          bte;
  BTECollision coll;
  PetscBool    scattering; /* include the collision integral */
  BTEDrift     drift;      /* NULL without a field */
  PetscReal    efield[3];  /* V/cm */
  BTEDriftForm driftform;
  /* initial state */
  BTEInitType  init;
  PetscReal    e0;         /* eV, absolute (the table's energy zero) */
  PetscReal    e0edge;     /* eV above the band edge (used when e0set is false and this is set) */
  PetscBool    e0set, e0edgeset;
  PetscReal    smear;      /* eV; 0: kB T */
  PetscReal    density;    /* cm^-3 (cm^-2 in 2D); 0: use peak */
  PetscReal    peak;       /* peak occupation A */
  char         restart[PETSC_MAX_PATH_LEN];
  char         restartunused[160]; /* initial-state options given with -bte_init restart (said once, when the run starts) */
  /* times, fs */
  PetscReal    dt, tfinal, interval;
  char         output[PETSC_MAX_PATH_LEN];
  PetscReal    de;         /* energy grid step of the population, eV */
  PetscBool    monitor;
  PetscBool    normalize;  /* rescale f to the initial carrier number after every step */
  PetscReal    sum0;       /* sum_i f_i of the initial state */
  PetscBool    warned;     /* carrier-number warning printed */
  PetscReal    nrel, nrelmax; /* once warned: the carrier number's relative change at the latest snapshot, and its largest |value| (said again at the run's end) */
  PetscBool    stopped;    /* the run ended before its final time (-ts_max_steps), not at a steady state: its file stays complete = 0 */
  PetscReal    tend;       /* the final time the run was asked for (fs) */
  PetscBool    warnedf;    /* occupations-outside-[0,1] warning printed */
  PetscReal    statetol;   /* occupations must stay finite and in [-statetol, 1 + statetol] (< 0: finite only) */
  BTEStateCheckType scheck;    /* where the guard looks, as set (auto, stage, step, none) */
  BTEStateCheckType scheckuse; /* as used: auto resolved by BTEDynamicsSetUp from the state Vec's type */
  /* TS and its operators */
  TS           ts;         /* the TS stepping now */
  TS           tssw;       /* -bte_switch_time: the second method (options prefix sw_) until the switch, the first after it */
  PetscReal    tswitch;    /* fs; < 0: no switch */
  PetscBool    switched;   /* dyn->ts is the second method */
  Mat          Jc;         /* collision Jacobian */
  Mat          A, P;       /* RHS Jacobian operator and preconditioning matrix */
  PetscScalar  Ascale, Ashift; /* the combined shell A = Ascale (J_coll + J_drift) + Ashift I */
  Vec          f;          /* state */
  PetscReal    t0;
  PetscInt     step0;
  BTEDynamicsRestartState rs; /* read from -bte_restart (init restart) */
  /* output bookkeeping */
  BTEDynamicsOutput out;
  PetscReal    tnext;      /* next output time */
  PetscReal    tlast;      /* time of the last snapshot written */
  PetscLogDouble wsolve;   /* PetscTime when the stepping started (the monitor's estimate of the time left) */
  PetscLogDouble weta;     /* PetscTime of the last such estimate */
  PetscReal    tsolve[2];  /* simulated start and end of the stepping, fs */
  PetscBool    clipped;    /* the last step was shortened to hit an output time */
  PetscReal    dtsaved;    /* the step before clipping */
  PetscBool    landfinal;  /* steps land on the final time too (matchstep, done by bte) */
  PetscBool    setupcalled;
  BTEDynamicsCost      cost;
  BTEDynamicsReference ref;
  BTEDynamicsSources   src;
};

PETSC_INTERN PetscErrorCode BTEDynamicsPackageInitialize(void);
/* The preconditioner of implicit time steps on bte's Jacobian (pc_twolevel.c), registered as
   PCBTETWOLEVEL by BTEInitializePackage */
PETSC_INTERN PetscErrorCode PCCreate_BTETwoLevel(PC);
PETSC_EXTERN PetscLogEvent  BTE_DriftApply, BTE_DriftJacobian, BTE_DriftSetUp, BTE_DynamicsOutput, BTE_DynamicsRestart;

/* Output (src/dynamics/output.c) */
PETSC_INTERN PetscErrorCode BTEDynamicsOutputOpen(BTEDynamics, const char[], PetscBool);
PETSC_INTERN PetscErrorCode BTEDynamicsOutputWrite(BTEDynamics, PetscReal, PetscInt, Vec);
PETSC_INTERN PetscErrorCode BTEDynamicsOutputClose(BTEDynamics);
/* Restart (src/dynamics/restart.c): the last snapshot of a dynamics file into f (validated: docs/validation.md); its time,
   step and step sizes */
PETSC_INTERN PetscErrorCode BTEDynamicsRestartRead(BTE, const char[], Vec, BTEDynamicsRestartState *);
/* Cost and reference-error records in the open output (src/dynamics/output.c) */
PETSC_INTERN PetscErrorCode BTEDynamicsOutputWriteCost(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsOutputWriteReferenceError(BTEDynamics);

/* Cost accounting (src/dynamics/cost.c) */
PETSC_INTERN PetscErrorCode BTEDynamicsCostBegin(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsCostEnd(BTEDynamics, PetscLogDouble, PetscLogDouble, PetscLogDouble);
PETSC_INTERN PetscErrorCode BTEDynamicsCostView(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsCostWriteJSON(BTEDynamics);
/* Sources and stopping rules (src/dynamics/sources.c) */
PETSC_INTERN PetscErrorCode BTEDynamicsFieldScale(BTEDynamics, TS, PetscReal, PetscReal *);
/* s(t) of a field profile (step time or pulse centre t0, pulse FWHM) without a TS: a step is on from t0 */
PETSC_INTERN PetscReal BTEFieldProfileScale(BTEFieldProfile, PetscReal, PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode BTEDynamicsSourcesCheck(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsSourcesSetUp(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsSourcesDestroy(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsPumpAdd(BTEDynamics, PetscReal, Vec);
PETSC_INTERN PetscReal      BTEDynamicsPumpInjected(BTEDynamics, PetscReal, PetscReal);
PETSC_INTERN PetscReal      BTEDynamicsNextEvent(BTEDynamics, PetscReal);
PETSC_INTERN PetscErrorCode BTEDynamicsSteadyCheck(BTEDynamics, TS, PetscReal, Vec);
PETSC_INTERN PetscErrorCode BTEDynamicsSteadySeed(BTEDynamics, PetscReal, Vec);
PETSC_INTERN PetscErrorCode BTEDynamicsPreStep(TS);
PETSC_INTERN PetscErrorCode BTEDynamicsPreStage(TS, PetscReal);
PETSC_INTERN PetscErrorCode BTEDynamicsPostEvaluate(TS);
/* The finite-state guard's failure: a one-line error naming the state, time and step (dynamics.c) */
PETSC_INTERN PetscErrorCode BTEDynamicsCheckState(BTEDynamics, Vec, PetscReal, PetscInt, const char[]);
PETSC_INTERN PetscErrorCode BTEDynamicsSourcesView(BTEDynamics, PetscViewer);
/* Error against a reference (src/dynamics/reference.c) */
PETSC_INTERN PetscErrorCode BTEDynamicsReferenceOpen(BTEDynamics, PetscReal, PetscReal, Vec);
/* The reference's run solved this run's problem (output.c; collective) */
PETSC_INTERN PetscErrorCode BTEDynamicsCheckReferenceProblem(BTEDynamics, const char[], PetscReal, PetscReal);
PETSC_INTERN PetscErrorCode BTEDynamicsReferenceCompare(BTEDynamics, PetscReal, Vec);
PETSC_INTERN PetscErrorCode BTEDynamicsReferenceView(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsReferenceClose(BTEDynamics);
PETSC_INTERN PetscErrorCode BTEDynamicsReferenceDestroy(BTEDynamics);
