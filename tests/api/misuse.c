/* Misuse of the API gives a PETSc error, as in PETSc itself: public functions called in a wrong
   order (getters before BTESetUp(), setters after it, results before a solve) or with bad
   arguments (out of range, NaN, a vector of another size, a NULL pointer) return a nonzero
   PetscErrorCode instead of crashing or answering silently; Destroy of a NULL handle and a second
   Destroy through the NULL-ing handle are no-ops; setup twice is one setup; objects made on a BTE
   not set up set it up themselves.
   One line per case: "ok|BAD <case>: <call>: expected ..., got ...", and the last line "all
   checks passed" or the count of BAD cases. -case NAME runs one case (and what it needs), -list
   names them. NULL-pointer and wrong-handle cases are checked by PETSc's argument macros, which a
   PETSc built without debugging compiles out: there they are listed as skip. */
#include <bte.h>
#include <bte/transport.h>

/* C's, not PETSc's: PETSC_INFINITY is a finite number on PETSc 3.18 */
#define NAN_R ((PetscReal)NAN)
#define INF_R ((PetscReal)INFINITY)

static PetscInt  nbad = 0, nrun = 0;
static char      only[64] = "";
static PetscBool list     = PETSC_FALSE;

typedef enum {
  WANT_ERROR, /* a nonzero PetscErrorCode */
  WANT_OK     /* 0 */
} Want;

static PetscBool Selected(const char name[])
{
  PetscBool same = PETSC_FALSE;

  if (list) {
    (void)PetscPrintf(PETSC_COMM_WORLD, "%s\n", name);
    return PETSC_FALSE;
  }
  if (!only[0]) return PETSC_TRUE;
  (void)PetscStrcmp(only, name, &same);
  return same;
}

static PetscErrorCode Report(const char name[], const char call[], Want want, PetscErrorCode ierr, PetscBool good)
{
  char got[32];

  PetscFunctionBegin;
  nrun++;
  if (ierr) PetscCall(PetscSNPrintf(got, sizeof(got), "error %d", (int)ierr));
  else PetscCall(PetscStrncpy(got, "0", sizeof(got)));
  if (!good) nbad++;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-3s %-40s %s: expected %s, got %s\n", good ? "ok" : "BAD", name, call, want == WANT_ERROR ? "error" : "0", got));
  PetscFunctionReturn(0);
}

/* Runs call with PETSc's error handler that returns the code without printing. extra: a further
   condition for a call expected to succeed (its result) */
#define TRYX(name, want, extra, call) \
  do { \
    if (Selected(name)) { \
      PetscErrorCode e_; \
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
      e_ = (call); \
      PetscCall(PetscPopErrorHandler()); \
      PetscCall(Report(name, #call, want, e_, (want == WANT_ERROR) ? (e_ != 0) : (e_ == 0 && (extra)))); \
    } \
  } while (0)
#define TRY(name, want, call) TRYX(name, want, PETSC_TRUE, call)

/* Cases that only PETSc's debugging checks catch (NULL pointers, a handle of another class) */
#if PetscDefined(USE_DEBUG)
  #define TRY_DEBUG(name, call) TRY(name, WANT_ERROR, call)
#else
  #define TRY_DEBUG(name, call) \
    do { \
      if (Selected(name)) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "skip %-39s %s: PETSc without debugging does not check pointers\n", name, #call)); \
    } while (0)
#endif

/* the tiny model: parabolic, 8^3 k points, without the diagnostics (this test checks none) */
static PetscErrorCode NewBTE(PetscBool setup, BTE *bte)
{
  PetscFunctionBegin;
  PetscCall(BTECreate(PETSC_COMM_WORLD, bte));
  PetscCall(BTESetModel(*bte, "parabolic"));
  PetscCall(BTESetGrid(*bte, 8));
  PetscCall(BTESetFromOptions(*bte));
  PetscCall(BTESetDiagnostics(*bte, PETSC_FALSE));
  if (setup) PetscCall(BTESetUp(*bte));
  PetscFunctionReturn(0);
}

static PetscErrorCode NullHandles(void)
{
  BTE          bte = NULL;
  BTEDynamics  dyn = NULL;
  BTETransport tr  = NULL;
  BTEHighField hf  = NULL;
  BTEDrift     dr  = NULL;
  BTECollision co  = NULL;

  PetscFunctionBegin;
  TRY("destroy-null/bte", WANT_OK, BTEDestroy(&bte));
  TRY("destroy-null/dynamics", WANT_OK, BTEDynamicsDestroy(&dyn));
  TRY("destroy-null/transport", WANT_OK, BTETransportDestroy(&tr));
  TRY("destroy-null/highfield", WANT_OK, BTEHighFieldDestroy(&hf));
  TRY("destroy-null/drift", WANT_OK, BTEDriftDestroy(&dr));
  TRY("destroy-null/collision", WANT_OK, BTECollisionDestroy(&co));
  TRY("destroy-null-pointer/bte", WANT_OK, BTEDestroy(NULL));
  TRY("destroy-null-pointer/dynamics", WANT_OK, BTEDynamicsDestroy(NULL));
  TRY("destroy-null-pointer/transport", WANT_OK, BTETransportDestroy(NULL));
  TRY("destroy-null-pointer/highfield", WANT_OK, BTEHighFieldDestroy(NULL));
  TRY("destroy-null-pointer/drift", WANT_OK, BTEDriftDestroy(NULL));
  TRY_DEBUG("null-handle/create-output", BTECreate(PETSC_COMM_WORLD, NULL));
  TRY_DEBUG("null-handle/set-grid", BTESetGrid(NULL, 8));
  TRY_DEBUG("null-handle/set-temperature", BTESetTemperature(NULL, 300));
  TRY_DEBUG("null-handle/set-model", BTESetModel(NULL, "parabolic"));
  TRY_DEBUG("null-handle/setup", BTESetUp(NULL));
  TRY_DEBUG("null-handle/get-num-states", BTEGetNumStates(NULL, NULL, NULL));
  TRY_DEBUG("null-handle/transport-solve", BTETransportSolve(NULL));
  TRY_DEBUG("null-handle/highfield-solve", BTEHighFieldSolve(NULL));
  TRY_DEBUG("null-handle/dynamics-solve", BTEDynamicsSolve(NULL, NULL));
  TRY_DEBUG("null-handle/transport-create", BTETransportCreate(NULL, &tr));
  PetscFunctionReturn(0);
}

/* bad values through the BTE's setters, on a BTE not set up */
static PetscErrorCode BadValues(void)
{
  BTE bte;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_FALSE, &bte));
  TRY("bad-value/grid-zero", WANT_ERROR, BTESetGrid(bte, 0));
  TRY("bad-value/grid-negative", WANT_ERROR, BTESetGrid(bte, -3));
  TRY("bad-value/temperature-negative", WANT_ERROR, BTESetTemperature(bte, -10));
  TRY("bad-value/temperature-nan", WANT_ERROR, BTESetTemperature(bte, NAN_R));
  TRY("bad-value/temperature-inf", WANT_ERROR, BTESetTemperature(bte, INF_R));
  TRY("bad-value/smearing-zero", WANT_ERROR, BTESetSmearing(bte, 0));
  TRY("bad-value/smearing-nan", WANT_ERROR, BTESetSmearing(bte, NAN_R));
  TRY("bad-value/delta", WANT_ERROR, BTESetDelta(bte, (BTEDelta)7));
  TRY("bad-value/memory-limit-negative", WANT_ERROR, BTESetMemoryLimit(bte, -1));
  TRY("bad-value/memory-limit-nan", WANT_ERROR, BTESetMemoryLimit(bte, (PetscLogDouble)NAN_R));
  TRY("bad-value/load-channels", WANT_ERROR, BTESetLoadChannels(bte, (PetscBool3)5));
  PetscCall(BTEDestroy(&bte));
  {
    BTE b;
    PetscCall(BTECreate(PETSC_COMM_WORLD, &b));
    TRY("setup/no-model-no-table", WANT_ERROR, BTESetUp(b));
    PetscCall(BTESetModel(b, "nosuch"));
    TRY("setup/unknown-model", WANT_ERROR, BTESetUp(b));
    PetscCall(BTEDestroy(&b));
    PetscCall(BTECreate(PETSC_COMM_WORLD, &b));
    PetscCall(BTESetInputFile(b, "misuse-no-such-table.h5"));
    TRY("setup/missing-table", WANT_ERROR, BTESetUp(b));
    PetscCall(BTEDestroy(&b));
    PetscCall(BTECreate(PETSC_COMM_WORLD, &b));
    PetscCall(BTESetModel(b, "parabolic"));
    PetscCall(BTESetInputFile(b, "misuse-no-such-table.h5"));
    TRY("setup/model-and-table", WANT_ERROR, BTESetUp(b));
    PetscCall(BTEDestroy(&b));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode CollisionSetUp(BTE bte, BTECollision *co)
{
  PetscFunctionBegin;
  PetscCall(BTECollisionCreate(bte, co));
  PetscCall(BTECollisionSetUp(*co));
  PetscFunctionReturn(0);
}

/* what needs the states before BTESetUp(); what was set is there */
static PetscErrorCode BeforeSetUp(void)
{
  BTE            bte;
  PetscInt       n, N, dim, nk[3];
  PetscCount     nc;
  PetscInt64     NC;
  PetscReal      r, lat[9];
  PetscLogDouble m;
  PetscLayout    map;
  Vec            v, w = NULL;
  PetscBool      flg;
  const char    *model;
  BTEDelta       delta;
  BTEDiagnostics diag;
  BTEDrift       dr;
  BTECollision   co = NULL;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_FALSE, &bte));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 3, PETSC_DETERMINE, &v));
  TRY("before-setup/get-num-states", WANT_ERROR, BTEGetNumStates(bte, &n, &N));
  TRY("before-setup/get-num-channels", WANT_ERROR, BTEGetNumChannels(bte, &nc, &NC));
  TRY("before-setup/get-grid", WANT_ERROR, BTEGetGrid(bte, &dim, nk, lat, NULL, &r));
  TRY("before-setup/get-local-states", WANT_ERROR, BTEGetLocalStates(bte, NULL, NULL, NULL, NULL));
  TRY("before-setup/get-spin-degeneracy", WANT_ERROR, BTEGetSpinDegeneracy(bte, &n));
  TRY("before-setup/get-state-layout", WANT_ERROR, BTEGetStateLayout(bte, &map));
  TRY("before-setup/get-memory-estimate", WANT_ERROR, BTEGetMemoryEstimate(bte, &m, NULL));
  TRY("before-setup/get-channel-graph", WANT_ERROR, BTEGetChannelGraph(bte, &n, &N, &r));
  TRY("before-setup/get-channels-loaded", WANT_ERROR, BTEGetChannelsLoaded(bte, &flg));
  TRY("before-setup/get-diagnostics", WANT_ERROR, BTEGetDiagnostics(bte, &diag));
  TRY("before-setup/get-band-edge", WANT_ERROR, BTEGetBandEdge(bte, &r));
  TRY("before-setup/create-state-vec", WANT_ERROR, BTECreateStateVec(bte, &w));
  TRY("before-setup/fermi-dirac", WANT_ERROR, BTEFermiDirac(bte, 300, 0, v));
  TRY("before-setup/compute-moments", WANT_ERROR, BTEComputeMoments(bte, v, &r, NULL, NULL, NULL));
  TRY("before-setup/compute-distribution", WANT_ERROR, BTEComputeDistribution(bte, BTE_INIT_GAUSSIAN, 0.1, 0.02, 0.1, v));
  TRY("before-setup/carrier-density", WANT_ERROR, BTECarrierDensity(bte, 300, 0, &r));
  TRY("before-setup/chemical-potential", WANT_ERROR, BTEChemicalPotential(bte, 300, 1e17, &r));
  TRY("before-setup/write-table", WANT_ERROR, BTEWriteTable(bte, "misuse-table.h5"));
  TRYX("before-setup/get-temperature", WANT_OK, r == 300, BTEGetTemperature(bte, &r));
  TRYX("before-setup/get-smearing", WANT_OK, r == 0.01, BTEGetSmearing(bte, &r));
  TRY("before-setup/get-model", WANT_OK, BTEGetModel(bte, &model));
  TRYX("before-setup/get-delta", WANT_OK, delta == BTE_DELTA_PERTURBO, BTEGetDelta(bte, &delta));
  TRYX("before-setup/get-memory-limit", WANT_OK, m == 0, BTEGetMemoryLimit(bte, &m));
  TRY("before-setup/view", WANT_OK, BTEView(bte, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(BTEDriftCreate(bte, &dr));
  TRY("before-setup/drift-setup", WANT_ERROR, BTEDriftSetUp(dr));
  TRY("before-setup/drift-get-bvectors", WANT_ERROR, BTEDriftGetBVectors(dr, &n, NULL, NULL));
  TRY("before-setup/drift-apply", WANT_ERROR, BTEDriftApply(dr, v, v));
  TRY("bad-value/drift-form", WANT_ERROR, BTEDriftSetForm(dr, (BTEDriftForm)9));
  TRY("bad-value/drift-limiter", WANT_ERROR, BTEDriftSetLimiter(dr, (BTEDriftLimiter)9));
  TRY("bad-value/drift-field-nan", WANT_ERROR, BTEDriftSetField(dr, (PetscReal[3]){NAN_R, 0, 0}));
  PetscCall(BTEDriftDestroy(&dr));
  TRY("before-setup/collision-setup", WANT_ERROR, CollisionSetUp(bte, &co));
  PetscCall(BTECollisionDestroy(&co));
  /* NULL where an output is required */
  TRY_DEBUG("null-output/get-temperature", BTEGetTemperature(bte, NULL));
  TRY_DEBUG("null-output/get-smearing", BTEGetSmearing(bte, NULL));
  TRY_DEBUG("null-output/get-model", BTEGetModel(bte, NULL));
  TRY_DEBUG("null-output/get-memory-limit", BTEGetMemoryLimit(bte, NULL));
  TRY_DEBUG("null-output/get-delta", BTEGetDelta(bte, NULL));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&w));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}

/* setup twice, setters after setup, bad vectors and values on a set-up BTE */
static PetscErrorCode AfterSetUp(void)
{
  BTE         bte;
  PetscInt    n = 0, N = 0;
  PetscReal   r;
  Vec         v, f;
  const char *model;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_TRUE, &bte));
  TRY("after-setup/setup-again", WANT_OK, BTESetUp(bte));
  TRYX("after-setup/get-num-states", WANT_OK, n > 0 && N >= n, BTEGetNumStates(bte, &n, &N));
  TRY("after-setup/set-grid", WANT_ERROR, BTESetGrid(bte, 10));
  TRY("after-setup/set-model-other", WANT_ERROR, BTESetModel(bte, "gaas"));
  TRYX("after-setup/set-model-same", WANT_OK, bte && BTEGetModel(bte, &model) == 0 && !strcmp(model, "parabolic"), BTESetModel(bte, "parabolic"));
  TRY("after-setup/set-input-file", WANT_ERROR, BTESetInputFile(bte, "misuse-table.h5"));
  TRY("after-setup/set-load-channels", WANT_ERROR, BTESetLoadChannels(bte, PETSC_BOOL3_FALSE));
  TRY("after-setup/set-temperature", WANT_OK, BTESetTemperature(bte, 200)); /* used by operators made later */
  TRY("after-setup/set-from-options", WANT_OK, BTESetFromOptions(bte));
  TRYX("after-setup/get-model", WANT_OK, !strcmp(model, "parabolic"), BTEGetModel(bte, &model));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 3, PETSC_DETERMINE, &v));
  PetscCall(BTECreateStateVec(bte, &f));
  TRY("wrong-vec/fermi-dirac", WANT_ERROR, BTEFermiDirac(bte, 300, 0, v));
  TRY("wrong-vec/compute-moments", WANT_ERROR, BTEComputeMoments(bte, v, &r, NULL, NULL, NULL));
  TRY("wrong-vec/compute-distribution", WANT_ERROR, BTEComputeDistribution(bte, BTE_INIT_GAUSSIAN, 0.1, 0.02, 0.1, v));
  TRY("bad-value/fermi-dirac-nan-temperature", WANT_ERROR, BTEFermiDirac(bte, NAN_R, 0, f));
  TRY("bad-value/fermi-dirac-nan-mu", WANT_ERROR, BTEFermiDirac(bte, 300, NAN_R, f));
  TRY("bad-value/distribution-type", WANT_ERROR, BTEComputeDistribution(bte, (BTEInitType)9, 0.1, 0.02, 0.1, f));
  TRY("bad-value/distribution-restart", WANT_ERROR, BTEComputeDistribution(bte, BTE_INIT_RESTART, 0.1, 0.02, 0.1, f));
  TRY("bad-value/carrier-density-temperature", WANT_ERROR, BTECarrierDensity(bte, -1, 0, &r));
  TRY("bad-value/carrier-density-nan-mu", WANT_ERROR, BTECarrierDensity(bte, 300, NAN_R, &r));
  TRY("bad-value/chemical-potential-density", WANT_ERROR, BTEChemicalPotential(bte, 300, -1, &r));
  TRY("bad-value/chemical-potential-nan", WANT_ERROR, BTEChemicalPotential(bte, 300, NAN_R, &r));
  TRY("bad-value/write-table-no-name", WANT_ERROR, BTEWriteTable(bte, NULL));
  TRY("bad-value/generate-table-no-name", WANT_ERROR, BTEGenerateTable(bte, NULL));
  TRY_DEBUG("null-output/get-spin-degeneracy", BTEGetSpinDegeneracy(bte, NULL));
  TRY_DEBUG("null-output/get-channels-loaded", BTEGetChannelsLoaded(bte, NULL));
  TRY_DEBUG("null-output/get-band-edge", BTEGetBandEdge(bte, NULL));
  TRY_DEBUG("null-output/create-state-vec", BTECreateStateVec(bte, NULL));
  TRY_DEBUG("null-output/carrier-density", BTECarrierDensity(bte, 300, 0, NULL));
  TRY_DEBUG("wrong-handle/setup", BTESetUp((BTE)v));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&f));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}

/* a drift and a collision operator on a set-up BTE: vectors of another size and values out of range
   are refused (a wrong-size gradient had written past its array) */
static PetscErrorCode DriftCollision(void)
{
  BTE          bte;
  BTEDrift     dr;
  BTECollision co;
  Vec          v, f, g[3], w[3];

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_TRUE, &bte));
  PetscCall(BTEDriftCreate(bte, &dr));
  PetscCall(BTEDriftSetField(dr, (PetscReal[3]){100, 0, 0}));
  PetscCall(BTEDriftSetUp(dr));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 3, PETSC_DETERMINE, &v));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecSet(f, 0.1));
  for (int a = 0; a < 3; a++) {
    PetscCall(VecDuplicate(f, &g[a]));
    w[a] = v;
  }
  TRY("wrong-vec/drift-apply", WANT_ERROR, BTEDriftApply(dr, v, f));
  TRY("wrong-vec/drift-apply-add-output", WANT_ERROR, BTEDriftApplyAdd(dr, f, v));
  TRY("wrong-vec/drift-gradient-output", WANT_ERROR, BTEDriftGradient(dr, f, w));
  TRY("wrong-vec/drift-gradient-input", WANT_ERROR, BTEDriftGradient(dr, v, g));
  TRY("wrong-vec/drift-jacobian-state", WANT_ERROR, BTEDriftSetJacobianState(dr, v));
  TRY("drift/jacobian-state", WANT_OK, BTEDriftSetJacobianState(dr, f));
  TRY("wrong-vec/drift-jacobian-mult", WANT_ERROR, BTEDriftJacobianMultAdd(dr, v, f));
  TRY("wrong-vec/drift-jacobian-diagonal", WANT_ERROR, BTEDriftJacobianDiagonalAdd(dr, v));
  TRY("drift/gradient", WANT_OK, BTEDriftGradient(dr, f, g));
  PetscCall(CollisionSetUp(bte, &co));
  TRY("bad-value/collision-temperature-huge", WANT_ERROR, BTECollisionSetTemperature(co, 1e9));
  TRY("bad-value/collision-temperature-tiny", WANT_ERROR, BTECollisionSetTemperature(co, 1e-9));
  TRY("collision/temperature", WANT_OK, BTECollisionSetTemperature(co, 250));
  /* a built operator's layout: options that would change it are refused, as the setters refuse them */
  PetscCall(PetscOptionsSetValue(NULL, "-bte_collision_precision", "mixed"));
  TRY("after-setup/collision-options-precision", WANT_ERROR, BTECollisionSetFromOptions(co));
  PetscCall(PetscOptionsClearValue(NULL, "-bte_collision_precision"));
  TRY("after-setup/collision-options-none", WANT_OK, BTECollisionSetFromOptions(co));
  for (int a = 0; a < 3; a++) PetscCall(VecDestroy(&g[a]));
  PetscCall(VecDestroy(&v));
  PetscCall(VecDestroy(&f));
  PetscCall(BTECollisionDestroy(&co));
  PetscCall(BTEDriftDestroy(&dr));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}

static PetscErrorCode Transport(void)
{
  BTE                bte, none, counted;
  BTETransport       tr = NULL, trn;
  BTETransportResult res;
  PetscInt           n = -1;
  Vec                F;
  KSP                ksp;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_FALSE, &bte));
  TRY("transport/create-on-bte-not-set-up", WANT_OK, BTETransportCreate(bte, &tr));
  if (!tr) PetscCall(BTETransportCreate(bte, &tr));
  TRYX("transport/num-results-before-solve", WANT_OK, n == 0, BTETransportGetNumResults(tr, &n));
  TRY("transport/result-before-solve", WANT_ERROR, BTETransportGetResult(tr, 0, &res));
  TRY("transport/solution-before-solve", WANT_ERROR, BTETransportGetSolution(tr, 0, &F));
  TRY("transport/get-ksp", WANT_OK, BTETransportGetKSP(tr, &ksp));
  TRY("bad-value/transport-method", WANT_ERROR, BTETransportSetMethod(tr, (BTETransportMethod)9));
  TRY("bad-value/transport-pc-type", WANT_ERROR, BTETransportSetPCType(tr, (BTETransportPCType)9));
  TRY("bad-value/transport-temperatures-count", WANT_ERROR, BTETransportSetTemperatures(tr, -1, NULL));
  TRY("bad-value/transport-temperature-negative", WANT_ERROR, BTETransportSetTemperatures(tr, 1, (PetscReal[]){-5}));
  TRY("bad-value/transport-temperature-nan", WANT_ERROR, BTETransportSetTemperatures(tr, 1, (PetscReal[]){NAN_R}));
  TRY("bad-value/transport-densities-count", WANT_ERROR, BTETransportSetCarrierDensities(tr, -2, NULL));
  TRY("bad-value/transport-density-negative", WANT_ERROR, BTETransportSetCarrierDensities(tr, 1, (PetscReal[]){-1e17}));
  TRY("bad-value/transport-mu-nan", WANT_ERROR, BTETransportSetChemicalPotentials(tr, 1, (PetscReal[]){NAN_R}));
  TRY("bad-value/transport-ita-tolerance-nan", WANT_ERROR, BTETransportSetITATolerance(tr, NAN_R, 10));
  TRY("bad-value/transport-ita-max-it", WANT_ERROR, BTETransportSetITATolerance(tr, 1e-3, 0));
  TRY_DEBUG("null-array/transport-temperatures", BTETransportSetTemperatures(tr, 2, NULL));
  TRY_DEBUG("null-output/transport-num-results", BTETransportGetNumResults(tr, NULL));
  TRY_DEBUG("null-output/transport-get-ksp", BTETransportGetKSP(tr, NULL));
  TRY_DEBUG("wrong-handle/transport-solve", BTETransportSolve((BTETransport)bte));
  PetscCall(BTETransportSetMethod(tr, BTE_TRANSPORT_RTA));
  /* a solve sets up the BTE it was made on */
  TRY("transport/solve-on-bte-not-set-up", WANT_OK, BTETransportSolve(tr));
  PetscCall(BTETransportGetNumResults(tr, &n));
  if (!n) PetscCall(BTETransportSolve(tr)); /* -case picked another */
  TRYX("transport/num-results-after-solve", WANT_OK, n == 1, BTETransportGetNumResults(tr, &n));
  TRY("transport/result-out-of-range", WANT_ERROR, BTETransportGetResult(tr, 1, &res));
  TRY("transport/solution-direction", WANT_ERROR, BTETransportGetSolution(tr, 3, &F));
  TRYX("transport/solution-after-solve", WANT_OK, F != NULL, BTETransportGetSolution(tr, 0, &F));
  TRY("transport/set-temperatures-after-solve", WANT_OK, BTETransportSetTemperatures(tr, 1, (PetscReal[]){200}));
  TRY("transport/destroy", WANT_OK, BTETransportDestroy(&tr));
  TRYX("transport/destroy-again", WANT_OK, tr == NULL, BTETransportDestroy(&tr));
  PetscCall(BTEDestroy(&bte));
  /* on a BTE with no model or table, and on one whose channels were only counted */
  PetscCall(BTECreate(PETSC_COMM_WORLD, &none));
  PetscCall(BTETransportCreate(none, &trn));
  TRY("transport/setup-no-model", WANT_ERROR, BTETransportSetUp(trn));
  TRY("transport/solve-no-model", WANT_ERROR, BTETransportSolve(trn));
  PetscCall(BTETransportDestroy(&trn));
  PetscCall(BTEDestroy(&none));
  PetscCall(NewBTE(PETSC_FALSE, &counted));
  PetscCall(BTESetLoadChannels(counted, PETSC_BOOL3_FALSE));
  PetscCall(BTETransportCreate(counted, &trn));
  PetscCall(BTETransportSetMethod(trn, BTE_TRANSPORT_RTA));
  TRY("transport/solve-channels-counted-only", WANT_ERROR, BTETransportSolve(trn));
  PetscCall(BTETransportDestroy(&trn));
  PetscCall(BTEDestroy(&counted));
  PetscFunctionReturn(0);
}

static PetscErrorCode HighField(void)
{
  BTE                bte;
  BTEHighField       hf = NULL;
  BTEHighFieldResult res;
  PetscInt           n = -1;
  const PetscReal   *occ;
  Vec                f;
  SNES               snes;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_FALSE, &bte));
  TRY("highfield/create-on-bte-not-set-up", WANT_OK, BTEHighFieldCreate(bte, &hf));
  if (!hf) PetscCall(BTEHighFieldCreate(bte, &hf));
  TRYX("highfield/num-results-before-solve", WANT_OK, n == 0, BTEHighFieldGetNumResults(hf, &n));
  TRY("highfield/result-before-solve", WANT_ERROR, BTEHighFieldGetResult(hf, 0, &res));
  TRY("highfield/solution-before-solve", WANT_ERROR, BTEHighFieldGetSolution(hf, &f));
  TRY("highfield/valleys-before-solve", WANT_ERROR, BTEHighFieldGetValleys(hf, &n, NULL, NULL));
  TRY("highfield/valley-occupations-before-solve", WANT_ERROR, BTEHighFieldGetValleyOccupations(hf, 0, &occ));
  TRY("highfield/get-snes", WANT_OK, BTEHighFieldGetSNES(hf, &snes));
  TRY("highfield/solve-without-fields", WANT_ERROR, BTEHighFieldSolve(hf));
  TRY("bad-value/highfield-method", WANT_ERROR, BTEHighFieldSetMethod(hf, (BTEHighFieldMethod)9));
  TRY("bad-value/highfield-fields-count", WANT_ERROR, BTEHighFieldSetFields(hf, -1, NULL));
  TRY("bad-value/highfield-field-negative", WANT_ERROR, BTEHighFieldSetFields(hf, 1, (PetscReal[]){-100}));
  TRY("bad-value/highfield-field-nan", WANT_ERROR, BTEHighFieldSetFields(hf, 1, (PetscReal[]){NAN_R}));
  TRY("bad-value/highfield-direction-zero", WANT_ERROR, BTEHighFieldSetDirection(hf, (PetscReal[3]){0, 0, 0}));
  TRY("bad-value/highfield-direction-nan", WANT_ERROR, BTEHighFieldSetDirection(hf, (PetscReal[3]){NAN_R, 1, 0}));
  TRY("bad-value/highfield-density-negative", WANT_ERROR, BTEHighFieldSetCarrierDensity(hf, -1));
  TRY("bad-value/highfield-density-nan", WANT_ERROR, BTEHighFieldSetCarrierDensity(hf, NAN_R));
  TRY_DEBUG("null-array/highfield-fields", BTEHighFieldSetFields(hf, 2, NULL));
  TRY_DEBUG("null-array/highfield-direction", BTEHighFieldSetDirection(hf, NULL));
  TRY_DEBUG("null-output/highfield-num-results", BTEHighFieldGetNumResults(hf, NULL));
  TRY_DEBUG("wrong-handle/highfield-solve", BTEHighFieldSolve((BTEHighField)bte));
  TRY("highfield/setup-on-bte-not-set-up", WANT_OK, BTEHighFieldSetUp(hf));
  TRY("highfield/destroy", WANT_OK, BTEHighFieldDestroy(&hf));
  TRYX("highfield/destroy-again", WANT_OK, hf == NULL, BTEHighFieldDestroy(&hf));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}

static PetscErrorCode Dynamics(void)
{
  BTE          bte, none;
  BTEDynamics  dyn = NULL, dn;
  BTEDrift     dr = NULL;
  BTECollision co = NULL;
  TS           ts;
  Vec          v, f;
  PetscReal    t0;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_FALSE, &bte));
  TRY("dynamics/create-on-bte-not-set-up", WANT_OK, BTEDynamicsCreate(bte, &dyn));
  if (!dyn) PetscCall(BTEDynamicsCreate(bte, &dyn)); /* -case picked another */
  PetscCall(BTEDynamicsSetFromOptions(dyn));
  TRYX("dynamics/get-drift-before-setup", WANT_OK, dr == NULL, BTEDynamicsGetDrift(dyn, &dr));
  TRY("dynamics/get-ts-before-setup", WANT_OK, BTEDynamicsGetTS(dyn, &ts));
  TRY("bad-value/dynamics-time-step-negative", WANT_ERROR, BTEDynamicsSetTimes(dyn, -1, 10));
  TRY("bad-value/dynamics-time-step-nan", WANT_ERROR, BTEDynamicsSetTimes(dyn, NAN_R, 10));
  TRY("bad-value/dynamics-final-time-nan", WANT_ERROR, BTEDynamicsSetTimes(dyn, 1, NAN_R));
  TRY("bad-value/dynamics-output-interval", WANT_ERROR, BTEDynamicsSetOutput(dyn, NULL, 0));
  TRY("bad-value/dynamics-density-negative", WANT_ERROR, BTEDynamicsSetCarrierDensity(dyn, -1));
  TRY("bad-value/dynamics-density-nan", WANT_ERROR, BTEDynamicsSetCarrierDensity(dyn, NAN_R));
  TRY("bad-value/dynamics-peak-occupation", WANT_ERROR, BTEDynamicsSetPeakOccupation(dyn, 2));
  TRY("bad-value/dynamics-peak-occupation-nan", WANT_ERROR, BTEDynamicsSetPeakOccupation(dyn, NAN_R));
  TRY("bad-value/dynamics-initial-type", WANT_ERROR, BTEDynamicsSetInitialState(dyn, (BTEInitType)9, 0.1, 0.02));
  TRY("bad-value/dynamics-initial-smear-nan", WANT_ERROR, BTEDynamicsSetInitialState(dyn, BTE_INIT_GAUSSIAN, 0.1, NAN_R));
  TRY("bad-value/dynamics-field-nan", WANT_ERROR, BTEDynamicsSetField(dyn, (PetscReal[3]){NAN_R, 0, 0}));
  TRY("bad-value/dynamics-field-profile", WANT_ERROR, BTEDynamicsSetFieldProfile(dyn, (BTEFieldProfile)9, 0, 10));
  TRY("bad-value/dynamics-pump-density", WANT_ERROR, BTEDynamicsSetPump(dyn, -1, 0.1, 0.02, 10, 10));
  TRY("bad-value/dynamics-steady-threshold", WANT_ERROR, BTEDynamicsSetSteadyStateThreshold(dyn, -1));
  TRY("bad-value/dynamics-state-check", WANT_ERROR, BTEDynamicsSetStateCheck(dyn, (BTEStateCheckType)9));
  TRY_DEBUG("null-array/dynamics-field", BTEDynamicsSetField(dyn, NULL));
  TRY_DEBUG("null-output/dynamics-get-ts", BTEDynamicsGetTS(dyn, NULL));
  TRY_DEBUG("wrong-handle/dynamics-setup", BTEDynamicsSetUp((BTEDynamics)bte));
  PetscCall(BTEDynamicsSetTimes(dyn, 1, 2));
  PetscCall(BTEDynamicsSetOutput(dyn, NULL, 1));
  TRY("dynamics/solve-on-bte-not-set-up", WANT_OK, BTEDynamicsSolve(dyn, NULL));
  PetscCall(BTEDynamicsSetUp(dyn)); /* -case picked another */
  TRY("dynamics/set-field-after-setup", WANT_ERROR, BTEDynamicsSetField(dyn, (PetscReal[3]){100, 0, 0}));
  TRY("dynamics/set-state-check-after-setup", WANT_ERROR, BTEDynamicsSetStateCheck(dyn, BTE_STATE_CHECK_STEP));
  TRY("dynamics/set-pump-after-setup", WANT_ERROR, BTEDynamicsSetPump(dyn, 1e15, 0.1, 0.02, 10, 10));
  TRY("dynamics/set-collision-after-setup", WANT_ERROR, BTEDynamicsSetCollision(dyn, co));
  TRY("dynamics/set-times-after-setup", WANT_OK, BTEDynamicsSetTimes(dyn, 1, 3));
  TRY("dynamics/set-field-profile-after-setup", WANT_ERROR, BTEDynamicsSetFieldProfile(dyn, BTE_FIELD_PULSE, 2, 1));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, 3, PETSC_DETERMINE, &v));
  TRY("wrong-vec/dynamics-initial-state", WANT_ERROR, BTEDynamicsComputeInitialState(dyn, v, &t0));
  TRY("wrong-vec/dynamics-solve-output", WANT_ERROR, BTEDynamicsSolve(dyn, v));
  PetscCall(VecDestroy(&v));
  PetscCall(BTESetUp(bte));
  PetscCall(BTECreateStateVec(bte, &f));
  TRY("dynamics/solve-again", WANT_OK, BTEDynamicsSolve(dyn, f));
  PetscCall(VecDestroy(&f));
  TRY("dynamics/destroy", WANT_OK, BTEDynamicsDestroy(&dyn));
  TRYX("dynamics/destroy-again", WANT_OK, dyn == NULL, BTEDynamicsDestroy(&dyn));
  PetscCall(BTEDestroy(&bte));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &none));
  PetscCall(BTEDynamicsCreate(none, &dn));
  TRY("dynamics/solve-no-model", WANT_ERROR, BTEDynamicsSolve(dn, NULL));
  PetscCall(BTEDynamicsDestroy(&dn));
  PetscCall(BTEDestroy(&none));
  PetscFunctionReturn(0);
}

/* values set through the dynamics' API, and on its TS, that SetFromOptions keeps when no option
   names them; combinations the options refuse are refused through the API too (at setup); the
   right-hand side of a dynamics not set up is refused, not zero */
static PetscErrorCode DynamicsAPI(void)
{
  BTE         bte;
  BTEDynamics d1, d2;
  TS          ts;
  Vec         f1, f2, F;
  PetscReal   edge, t0, dt = 0, tmax = 0;
  PetscBool   same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(NewBTE(PETSC_TRUE, &bte));
  PetscCall(BTEGetBandEdge(bte, &edge));
  PetscCall(BTECreateStateVec(bte, &f1));
  PetscCall(VecDuplicate(f1, &f2));
  PetscCall(VecDuplicate(f1, &F));
  PetscCall(BTEDynamicsCreate(bte, &d1));
  PetscCall(BTEDynamicsCreate(bte, &d2));
  PetscCall(BTEDynamicsSetInitialState(d1, BTE_INIT_GAUSSIAN, edge + 0.05, 0.02));
  PetscCall(BTEDynamicsSetInitialState(d2, BTE_INIT_GAUSSIAN, edge + 0.05, 0.02));
  PetscCall(BTEDynamicsSetFromOptions(d1));
  PetscCall(BTEDynamicsComputeInitialState(d1, f1, &t0));
  PetscCall(BTEDynamicsComputeInitialState(d2, f2, &t0));
  PetscCall(VecEqual(f1, f2, &same));
  TRYX("api-kept/dynamics-initial-energy", WANT_OK, same, BTEDynamicsSetFromOptions(d1));
  PetscCall(BTEDynamicsGetTS(d2, &ts));
  PetscCall(TSSetTimeStep(ts, 0.25));
  PetscCall(TSSetMaxTime(ts, 7));
  PetscCall(BTEDynamicsSetFromOptions(d2));
  PetscCall(TSGetTimeStep(ts, &dt));
  PetscCall(TSGetMaxTime(ts, &tmax));
  TRYX("api-kept/dynamics-ts-step-and-final-time", WANT_OK, dt == 0.25 && tmax == 7, BTEDynamicsSetFromOptions(d2));
  TRY("dynamics/rhs-before-setup", WANT_ERROR, BTEDynamicsTSRHSFunction(ts, 0, f1, F, d2));
  PetscCall(BTEDynamicsDestroy(&d1));
  PetscCall(BTEDynamicsDestroy(&d2));
  PetscCall(BTEDynamicsCreate(bte, &d1));
  PetscCall(BTEDynamicsSetRestart(d1, "misuse-no-such-restart.h5"));
  TRY("api-combination/dynamics-restart-file-gaussian", WANT_ERROR, BTEDynamicsSetUp(d1));
  PetscCall(BTEDynamicsDestroy(&d1));
  PetscCall(BTEDynamicsCreate(bte, &d1));
  PetscCall(BTEDynamicsSetSteadyStateThreshold(d1, 1e30));
  TRY("api-combination/dynamics-steady-no-field", WANT_ERROR, BTEDynamicsSetUp(d1));
  PetscCall(BTEDynamicsDestroy(&d1));
  PetscCall(VecDestroy(&f1));
  PetscCall(VecDestroy(&f2));
  PetscCall(VecDestroy(&F));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, "misuse: wrong calls to the API return PETSc errors"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", only, sizeof(only), NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-list", &list));
  /* the valley resolved on the small grid (as tests/api/hf_atol.sh); runs quiet */
  PetscCall(PetscOptionsSetValue(NULL, "-bte_parabolic_a", "40"));
  PetscCall(PetscOptionsSetValue(NULL, "-bte_dynamics_monitor", "0"));
  PetscCall(NullHandles());
  PetscCall(BadValues());
  PetscCall(BeforeSetUp());
  PetscCall(AfterSetUp());
  PetscCall(Transport());
  PetscCall(HighField());
  PetscCall(Dynamics());
  PetscCall(DriftCollision());
  PetscCall(DynamicsAPI());
  if (!list) {
    if (nbad) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " of %" PetscInt_FMT " case(s) BAD\n", nbad, nrun));
    else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed (%" PetscInt_FMT " cases)\n", nrun));
  }
  PetscCall(PetscFinalize());
  return nbad ? 1 : 0;
}
