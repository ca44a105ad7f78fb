/* Internal structures of the BTE object, shared inside the library only. */
#pragma once

#include <bte.h>
#include <petsc/private/petscimpl.h>

/* PETSc 3.20 renamed PetscValidPointer; bte supports 3.18 onwards */
#if PETSC_VERSION_LT(3, 20, 0) && !defined(PetscAssertPointer)
  #define PetscAssertPointer(p, a) PetscValidPointer(p, a)
#endif

#define BTE_FORMAT_NAME    "bte-scattering-table"
#define BTE_FORMAT_VERSION 1
#define BTE_MAX_PARAMS     64

/* The k grid: a uniform Monkhorst-Pack-like grid of the full Brillouin zone,
   point (i0,i1,i2) at k = sum_a (i_a/nk_a) b_a, flattened ik = (i0*nk1 + i1)*nk2 + i2.
   In 2D nk[2] = 1 and the third lattice vector is the out-of-plane normal. */
typedef struct {
  PetscInt  dim;           /* 2 or 3 */
  PetscInt  nk[3];         /* points per reciprocal direction */
  PetscReal lattice[9];    /* rows a1, a2, a3 in Angstrom */
  PetscReal reciprocal[9]; /* rows b1, b2, b3 in 1/Angstrom, b_a . a_b = 2 pi delta_ab */
  PetscReal volume;        /* unit-cell volume, Angstrom^3 (area, Angstrom^2, in 2D) */
} BTEGrid;

/* Scattering channels held by this rank: each unordered pair {i,j} (i < j,
   global state indices) through one phonon mode. A rank holds every channel with
   at least one end it owns, so a channel whose ends live on two ranks is held by
   both; nglobal counts distinct channels. */
typedef struct {
  PetscCount n;
  PetscInt64 nglobal;
  PetscInt  *i, *j;  /* global state indices, i < j */
  PetscInt  *mode;   /* phonon branch 0..nmodes-1 */
  PetscReal *hw;     /* phonon energy hbar*w, eV */
  PetscReal *g2;     /* |g|^2, eV^2 (unit-cell normalised) */
} BTEChannels;

/* Provenance: model parameters (name = value [unit]) written as attributes of /model. */
typedef struct {
  PetscInt  n;
  char      name[BTE_MAX_PARAMS][64];
  char      unit[BTE_MAX_PARAMS][32];
  PetscReal value[BTE_MAX_PARAMS];
} BTEParams;

typedef struct _BTEOps *BTEOps;
struct _BTEOps {
  PetscErrorCode (*dummy)(BTE);
};

/* A built-in model (-bte_model NAME) is registered by a create function (BTEModelRegister) that
   sets these and bte->modeldata (its parameters at their defaults). setfromoptions (optional)
   reads the model's options into bte->modeldata, from BTESetFromOptions only; generate (required)
   fills the grid, states and channels at BTESetUp from bte->modeldata; destroy (optional; else
   PetscFree(bte->modeldata)) frees it. */
typedef struct {
  PetscErrorCode (*setfromoptions)(BTE);
  PetscErrorCode (*generate)(BTE);
  PetscErrorCode (*destroy)(BTE);
} BTEModelOps;

struct _p_BTE {
  PETSCHEADER(struct _BTEOps);
  /* where the table comes from */
  char      input[PETSC_MAX_PATH_LEN]; /* table file, or "" */
  char      model[64];                 /* built-in model name, or "" */
  char      source[512];               /* provenance string, e.g. "bte generate gaas" or a Perturbo prefix */
  char      caveat[512];               /* a built-in model's warning about its own physics (its view prints it), or "" */
  char      fieldcaveat[2][512];       /* a built-in model's warnings for runs under a field of at least fieldcaveat_min (BTEFieldCaveat()), or "" */
  PetscReal fieldcaveat_min[2];        /* V/cm */
  PetscInt  ngrid;                     /* requested k points per direction for models */
  BTEModelOps modelops;                /* the model's, once its create function ran (modelops.generate set) */
  void       *modeldata;               /* the model's parameters */
  /* physics settings */
  PetscReal temperature;   /* K, lattice temperature */
  PetscReal smearing;      /* eta, eV: G(x) = exp(-(x/eta)^2)/(eta sqrt(pi)) */
  BTEDelta  delta;         /* discretised delta: Perturbo's Gaussians, or balanced (detailed balance) */
  PetscReal emin, emax;    /* energy window, eV (absolute energies, as in the table) */
  PetscReal window;        /* window width above the band edge for models, eV */
  PetscReal g2_cutoff;     /* drop channels with |g|^2 below, eV^2 */
  PetscReal phonon_min;    /* drop channels with hbar*w below, eV (1 meV) */
  PetscReal tol_eta;       /* keep | |e_i-e_j| - hw | < tol_eta * eta (3) */
  PetscLogDouble mem_limit;/* bytes a rank may use, for the refuse-early check */
  PetscBool memcheck;      /* refuse what does not fit (-bte_memory_check; 0: inform and go on) */
  PetscBool runmem;        /* set by the objects that run (dynamics, transport, high field): the
                              checks at setup count the whole run, not the table alone */
  /* Set through the API or the options: a table's (or a model's default) value replaces these only
     while they are not set */
  PetscBool temperature_set, smearing_set, window_set, delta_set;
  PetscBool devlayout; /* the state Vecs will be CUDA Vecs (-vec_type, read by BTESetFromOptions): the
                          checks before the collision setup leave the layout's host build out (a
                          pair layout is built on the device where it fits); the setup's own check
                          counts it wherever it is built on the host */
  PetscBool grid_set;      /* BTESetGrid or -bte_grid: a model's grid chosen, not the default */
  /* I/O and generation settings (BTESetFromOptions) */
  PetscInt  iochunk;       /* -bte_io_chunk: channel rows per rank per I/O step */
  PetscInt  genbatch;      /* -bte_generate_batch: 0 automatic */
  PetscInt  pairbatch;     /* -bte_generate_pair_batch: pairs a model evaluates at once (coupling_grid_batch) */
  PetscBool pairbatch_set; /* given: a model without coupling_grid_batch refuses it */
  PetscBool genmonitor;    /* -bte_generate_monitor */
  PetscBool genmonauto;    /* the option not given: progress lines once a build has run BTE_GEN_MONITOR_AFTER s */
  PetscBool genreuse;      /* -bte_generate_reuse: keep the counting pass's channels when they fit */
  PetscBool genreuse_set;  /* given: else a model whose couplings are cheap to evaluate again (on a GPU) does not keep them */
  /* state space */
  BTEGrid   grid;
  PetscInt  nbands;        /* bands in the table */
  PetscInt  nmodes;        /* phonon branches */
  PetscInt  spin;          /* spin degeneracy s: 2 without spin-orbit, 1 with */
  PetscInt  carrier;       /* -1 electrons, +1 holes */
  PetscLayout states;      /* N global states, contiguous blocks per rank */
  PetscInt  nstates;       /* N */
  PetscInt  nlocal;        /* states owned here: [rstart, rstart+nlocal) */
  PetscInt  rstart;
  PetscInt *kindex;        /* local: flattened full-grid k index */
  PetscInt *band;          /* local: band index 0..nbands-1 */
  PetscReal *energy;       /* local: eV */
  PetscReal *velocity;     /* local: 3 per state, Angstrom/fs */
  BTEChannels ch;
  /* Channel arrays allocated but not filled yet: the GPU import keeps its channels on the device
     and copies them to ch.i, ch.j, ch.mode, ch.hw, ch.g2 only when something on the host reads
     them. chfill(chfillctx, PETSC_TRUE) fills them, chfill(chfillctx, PETSC_FALSE) drops the copy
     unread; every reader of those arrays calls BTEChannelsGetHost() first. */
  PetscErrorCode (*chfill)(void *, PetscBool);
  void           *chfillctx;
  BTEParams   params;
  PetscBool   setupcalled;
  /* Channels counted but not loaded (BTESetLoadChannels, BTEGenerateTable): what to do with the
     channel arrays at setup (PETSC_BOOL3_TRUE hold them, the default; FALSE count only; UNKNOWN
     hold them if they fit in memory, else count only); chcounted: set up that way (ch.n = 0, no
     arrays, ch.nglobal set), nheld: the channels this rank would hold in a run on this layout. */
  PetscBool3  loadchannels;
  PetscBool   chcounted;
  PetscCount  nheld;
  /* BTEGenerateTable: the model builder writes the table to this file while generating ("" otherwise) */
  char        streamfile[PETSC_MAX_PATH_LEN];
  /* BTEGetChannelGraph, computed on first use (gpieces < 0: not yet); gpiece: the piece
     (0..gpieces-1, numbered by lowest state index) of each owned state, gbig the largest */
  PetscInt    gpieces, gout, gbig;
  PetscReal   geout;
  PetscInt   *gpiece;
  /* BTEGetDiagnostics (src/bte/diagnostics.c): on unless -bte_diagnostics 0; computed on first use
     (diagdone) at diag.temperature; diagwhy says why they were not (empty when computed) */
  PetscBool      diagnostics, diagdone;
  BTEDiagnostics diag;
  char           diagwhy[160];
};

/* Internal helpers other parts of the library use */
PETSC_EXTERN PetscErrorCode BTEParamsAdd(BTE, const char[], PetscReal, const char[]);
PETSC_EXTERN PetscErrorCode BTEAllocateStates(BTE, PetscInt, PetscInt);
PETSC_EXTERN PetscErrorCode BTEAllocateChannels(BTE, PetscCount);
PETSC_EXTERN PetscErrorCode BTEFreeStates(BTE);
PETSC_EXTERN PetscErrorCode BTEFreeChannels(BTE);
/* The channel arrays filled on the host (a no-op unless they are still only on the device) */
PETSC_EXTERN PetscErrorCode BTEChannelsGetHost(BTE);
PETSC_EXTERN PetscErrorCode BTEGridSetReciprocal(BTEGrid *);
PETSC_EXTERN PetscErrorCode BTEStateOwner(BTE, PetscInt, PetscMPIInt *);
/* What to change for a finer k grid or a wider window, as advice ends an error or warning line:
   the table's maker for a table read from a file, else the model's own grid option (view.c) */
PETSC_INTERN const char *BTEGridAdvice(BTE);
PETSC_INTERN const char *BTEWindowAdvice(BTE);
/* What to change for a finer k grid alone (a wider window does not add states near the band edge) */
PETSC_INTERN const char *BTERefineAdvice(BTE);
/* The model's field caveat, printed when the run's largest field reaches its threshold (view.c) */
PETSC_INTERN PetscErrorCode BTEFieldCaveat(BTE, PetscReal);
/* The piece of the channel graph of each owned state and the largest piece (BTEGetChannelGraph;
   collective) */
PETSC_INTERN PetscErrorCode BTEGetChannelGraphPieces(BTE, const PetscInt *[], PetscInt *);

/* Table I/O (src/io) */
PETSC_INTERN PetscErrorCode BTETableRead(BTE, const char[]);
PETSC_INTERN PetscErrorCode BTETableWrite(BTE, const char[]);
/* Streaming writer (src/io/table_write.c), for a builder that never holds the whole table.
   Begin (collective): bte has its states, grid, settings and ch.nglobal; nown = the channels
   whose lower end this rank owns; rank 0 creates FILE.tmp with every dataset at its global size
   and the ranks write their states in turn. Write (collective, n may be 0 on some ranks): the
   ranks take turns appending their next n channel rows at their running offset. End
   (collective): checks that every rank wrote nown rows, sets complete = 1, renames FILE.tmp to
   FILE. Destroy without End (or after a failure) removes FILE.tmp. */
typedef struct _n_BTETableStream *BTETableStream;
PETSC_INTERN PetscErrorCode BTETableStreamBegin(BTE, const char[], PetscInt64, BTETableStream *);
PETSC_INTERN PetscErrorCode BTETableStreamWrite(BTETableStream, PetscInt64, const PetscInt[], const PetscInt[], const PetscInt[], const PetscReal[], const PetscReal[]);
PETSC_INTERN PetscErrorCode BTETableStreamEnd(BTETableStream);
/* On one rank a batch can be written by a helper thread while the caller fills the next one:
   WriteAsync returns at once (the arrays must stay untouched until the next WriteAsync, Wait or
   End); elsewhere it is Write. Async says which. */
PETSC_INTERN PetscErrorCode BTETableStreamAsync(BTETableStream, PetscBool *);
PETSC_INTERN PetscErrorCode BTETableStreamWriteAsync(BTETableStream, PetscInt64, const PetscInt[], const PetscInt[], const PetscInt[], const PetscReal[], const PetscReal[]);
PETSC_INTERN PetscErrorCode BTETableStreamWait(BTETableStream);
PETSC_INTERN PetscErrorCode BTETableStreamDestroy(BTETableStream *);
/* Built-in models (src/models): a generator fills grid, states and channels. */
PETSC_INTERN PetscFunctionList BTEModelList;
PETSC_INTERN PetscErrorCode BTEModelRegisterAll(void);
PETSC_INTERN PetscErrorCode BTEModelIsBuiltin(const char[], PetscBool *);
/* BTEModelRegister (bte.h): create sets bte->modelops and bte->modeldata (see BTEModelOps).
   A program that includes this header registers through BTEModelRegisterSized, which is given the
   size of struct _p_BTE the program was compiled with and refuses one that differs from the
   library's: a program built against the private headers of another bte would write its model
   operations at other offsets (memory the library reads as something else). */
PETSC_EXTERN PetscErrorCode BTEModelRegisterSized(const char[], PetscErrorCode (*)(BTE), size_t);
#define BTEModelRegister(name, create) BTEModelRegisterSized(name, create, sizeof(struct _p_BTE))
/* The names of a PetscFunctionList in registration order, without the NULL end PETSc < 3.19 counts (free with PetscFree) */
PETSC_EXTERN PetscErrorCode BTEFunctionListGetNames(PetscFunctionList, PetscInt *, const char **[]);
/* Records name as registered in *fl, so that GetNames lists in registration order on any PETSc */
PETSC_INTERN PetscErrorCode BTEFunctionListRecord(PetscFunctionList *, const char[]);
/* Runs the create function of bte->model if not yet done (error for an unknown name) */
PETSC_INTERN PetscErrorCode BTEModelSetUpType(BTE);
PETSC_INTERN PetscErrorCode BTEModelReset(BTE);
/* The model's options (BTESetFromOptions); with -help and no model, every model's */
PETSC_INTERN PetscErrorCode BTEModelSetFromOptions(BTE);
PETSC_INTERN PetscErrorCode BTEModelGenerate(BTE);

PETSC_EXTERN PetscLogEvent BTE_SetUp, BTE_TableRead, BTE_TableWrite, BTE_Generate, BTE_Diagnostics;

/* s as a JSON string, quotes, backslashes and control characters escaped (-bte_summary, the bench
   JSON; src/dynamics/cost.c) */
PETSC_EXTERN void BTEJSONString(FILE *, const char[]);
