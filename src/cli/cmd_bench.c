/* bte bench: times the collision operator implementations on one problem.
   Median of repeated applies after warm-up; ns per channel; effective bandwidth
   against a measured copy bandwidth; speed-up against baseline; the median Jacobian
   apply and RK4 step. A table on stdout and, with -bte_bench_json FILE, JSON; a part
   not timed is "-" in the table and null in the JSON (never a time of 0). */
#include "commands.h"
#include <bte/private/modelimpl.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif
#if defined(BTE_HAVE_CUDA)
  #include <petscdevice.h>
#endif

#define BTE_BENCH_MAXTYPES 8

typedef struct {
  char           type[32];
  PetscLogDouble apply, jac, rk4, setup; /* seconds: median apply, Jacobian apply, RK4 step; setup */
  PetscLogDouble layout_bytes;           /* the implementation's channel layout, all ranks (also its device copy) */
  PetscLogDouble papply, pjac;           /* seconds, -bte_bench_pipelined: per apply back to back, median of batches (printed only when timed) */
  PetscLogDouble lapply, ljac;           /* seconds: the host's time in the synced apply's call (its launches), median, slowest rank */
} BenchResult;

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  {
    PetscDeviceContext dctx;
    PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
    PetscCall(PetscDeviceContextSynchronize(dctx));
  }
#endif
  PetscFunctionReturn(0);
}

static int NumThreads(void)
{
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

static int CmpDouble(const void *a, const void *b)
{
  PetscLogDouble x = *(const PetscLogDouble *)a, y = *(const PetscLogDouble *)b;
  return (x > y) - (x < y);
}

static PetscLogDouble Median(PetscLogDouble *t, PetscInt n)
{
  qsort(t, n, sizeof(*t), CmpDouble);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Device-to-device (or host) copy bandwidth: bytes read + written per second. */
static PetscErrorCode CopyBandwidth(MPI_Comm comm, PetscInt n, PetscInt reps, PetscLogDouble *gbs)
{
  Vec            x, y;
  PetscLogDouble *t, t0, t1;

  PetscFunctionBegin;
  PetscCall(VecCreate(comm, &x));
  PetscCall(VecSetSizes(x, n, PETSC_DETERMINE));
  PetscCall(VecSetFromOptions(x));
  PetscCall(VecDuplicate(x, &y));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(PetscMalloc1(reps, &t));
  for (PetscInt r = 0; r < 2; r++) PetscCall(VecCopy(x, y));
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(VecCopy(x, y));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t[r] = t1 - t0;
  }
  *gbs = 2.0 * 8.0 * n / Median(t, reps) / 1e9;
  PetscCall(PetscFree(t));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(0);
}

/* I[f] into y, or J(f) x into y */
static PetscErrorCode Apply(BTECollision c, PetscBool jacobian, Vec f, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(jacobian ? BTECollisionJacobianApply(c, f, x, y) : BTECollisionApply(c, f, y));
  PetscFunctionReturn(0);
}

/* The median of reps synced applies (slowest rank), and of the host's time inside the call: with
   the device idle at the call, that is the time to queue the apply's work (its launches, stream
   operations and any host waits). Back to back, a device that finishes an apply sooner than this
   waits for the host. */
static PetscErrorCode TimeApplies(BTECollision c, Vec f, Vec x, Vec y, PetscInt reps, PetscBool jacobian, PetscLogDouble *med, PetscLogDouble *lmed)
{
  PetscLogDouble *t, *tl, t0, tm, t1;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(reps, &t, reps, &tl));
  for (PetscInt r = 0; r < 3; r++) PetscCall(Apply(c, jacobian, f, x, y));
  for (PetscInt r = 0; r < reps; r++) {
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(Apply(c, jacobian, f, x, y));
    PetscCall(PetscTime(&tm));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    t[r]  = t1 - t0;
    tl[r] = tm - t0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t, reps, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)c)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, tl, reps, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)c)));
  *med  = Median(t, reps);
  *lmed = Median(tl, reps);
  PetscCall(PetscFree2(t, tl));
  PetscFunctionReturn(0);
}

/* -bte_bench_pipelined: the reps applies back to back in 5 batches (fewer when reps < 5), each after
   a device sync and a barrier and ended by one device sync; per batch the slowest rank's mean per
   apply, and the median of the batches (a stall of a busy machine spoils one batch, not the
   figure). The device runs ahead of the host within a batch, as in a solver's steps, and the ranks
   start together, so the time holds neither the host's launch latency after each sync nor the
   ranks' skew that the median of synced applies carries. */
static PetscErrorCode TimePipelined(BTECollision c, Vec f, Vec x, Vec y, PetscInt reps, PetscBool jacobian, PetscLogDouble *med)
{
  const PetscInt  nb = PetscMin(reps, 5);
  PetscLogDouble  t0, t1, tb[5];
  MPI_Comm        comm = PetscObjectComm((PetscObject)c);

  PetscFunctionBegin;
  for (PetscInt r = 0; r < 3; r++) PetscCall(Apply(c, jacobian, f, x, y));
  for (PetscInt b = 0; b < nb; b++) {
    const PetscInt n = (reps * (b + 1)) / nb - (reps * b) / nb;
    PetscCall(Sync());
    PetscCallMPI(MPI_Barrier(comm));
    PetscCall(PetscTime(&t0));
    for (PetscInt r = 0; r < n; r++) PetscCall(Apply(c, jacobian, f, x, y));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    tb[b] = (t1 - t0) / n;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, tb, (PetscMPIInt)nb, MPIU_PETSCLOGDOUBLE, MPI_MAX, comm));
  *med = Median(tb, nb);
  PetscFunctionReturn(0);
}

/* The RK4 column's repetitions: an RK4 step costs 4 applies, so half the reps (at least 3) */
static PetscInt RK4Reps(PetscInt reps)
{
  return PetscMax(3, reps / 2);
}

/* v in fmt into buf, or "-" for a part not timed: a 0 would read as a measurement */
static void Cell(char *buf, size_t len, PetscBool timed, const char *fmt, double v)
{
  if (timed) snprintf(buf, len, fmt, v);
  else snprintf(buf, len, "-");
}

/* The same for the JSON: null for a part not timed */
static void JSONNum(char *buf, size_t len, PetscBool timed, const char *fmt, double v)
{
  if (timed) snprintf(buf, len, fmt, v);
  else snprintf(buf, len, "null");
}

static PetscErrorCode TimeRK4(BTECollision c, Vec f0, PetscInt reps, PetscLogDouble *med)
{
  TS             ts;
  Vec            f;
  PetscLogDouble *t, t0, t1;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(f0, &f));
  PetscCall(VecCopy(f0, f));
  PetscCall(TSCreate(PetscObjectComm((PetscObject)c), &ts));
  PetscCall(TSSetProblemType(ts, TS_NONLINEAR));
  PetscCall(TSSetType(ts, TSRK));
  PetscCall(TSRKSetType(ts, TSRK4));
  PetscCall(TSSetRHSFunction(ts, NULL, BTECollisionTSRHSFunction, c));
  PetscCall(TSSetTimeStep(ts, 1.0));
  PetscCall(TSSetMaxSteps(ts, reps + 2));
  PetscCall(TSSetSolution(ts, f));
  PetscCall(TSSetUp(ts));
  PetscCall(PetscMalloc1(reps, &t));
  for (PetscInt r = 0; r < reps + 2; r++) {
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(TSStep(ts));
    PetscCall(Sync());
    PetscCall(PetscTime(&t1));
    if (r >= 2) t[r - 2] = t1 - t0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, t, reps, MPIU_PETSCLOGDOUBLE, MPI_MAX, PetscObjectComm((PetscObject)c)));
  *med = Median(t, reps);
  PetscCall(PetscFree(t));
  PetscCall(TSDestroy(&ts));
  PetscCall(VecDestroy(&f));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandBench(MPI_Comm comm)
{
  BTE            bte;
  char          *types[BTE_BENCH_MAXTYPES + 1], json[PETSC_MAX_PATH_LEN] = ""; /* one more than taken: a ninth is an error, not dropped */
  PetscInt       ntypes = BTE_BENCH_MAXTYPES + 1, reps = 10, copyn = 1 << 25;
  PetscBool      copyset = PETSC_FALSE;
  PetscBool      flg, hasjson, dork4 = PETSC_TRUE, dojac = PETSC_TRUE, help, pipe = PETSC_FALSE, view = PETSC_FALSE;
  BenchResult    res[BTE_BENCH_MAXTYPES];
  PetscLogDouble bw = 0;
  PetscInt64     nch;
  PetscInt       nstates;
  PetscMPIInt    size;
  VecType        vtype;
  Vec            f, x, y;
  PetscRandom    rnd;
  PetscReal      eta, T;
  const char    *model;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  {
    /* the types and precisions timed are -bte_bench_types' (the collision options of -help are
       the types' own): these two would be ignored without a word */
    static const char *const ignored[] = {"-bte_collision_type", "-bte_collision_precision"};
    for (size_t k = 0; k < sizeof(ignored) / sizeof(ignored[0]); k++) {
      PetscCall(PetscOptionsHasName(NULL, NULL, ignored[k], &flg));
      PetscCheck(!flg, comm, PETSC_ERR_USER_INPUT, "bte bench times the types of -bte_bench_types (e.g. -bte_bench_types pair,pair-mixed), not %s: give the types there", ignored[k]);
    }
  }
  PetscOptionsBegin(comm, NULL, "bte bench: time the collision operator implementations", "BTE");
  PetscCall(PetscOptionsStringArray("-bte_bench_types", "Implementations to time (comma-separated; default: every registered type; <type>-mixed = that type with single-precision weights, for the types that have them)", "BTECollisionSetType", types, &ntypes, &flg));
  PetscCheck(!flg || ntypes <= BTE_BENCH_MAXTYPES, comm, PETSC_ERR_USER_INPUT, "-bte_bench_types takes at most %d types, got more", BTE_BENCH_MAXTYPES);
  if (flg) { /* named as the option the user gave, not as -bte_collision_type */
    const char **reg;
    PetscInt     nreg;
    char         list[256] = "";

    PetscCall(BTECollisionGetTypes(&nreg, &reg));
    for (PetscInt k = 0; k < nreg; k++) {
      PetscCall(PetscStrlcat(list, " ", sizeof(list)));
      PetscCall(PetscStrlcat(list, reg[k], sizeof(list)));
    }
    for (PetscInt t = 0; t < ntypes; t++) {
      char      base[64];
      size_t    len;
      PetscBool known = PETSC_FALSE;
      PetscCall(PetscStrncpy(base, types[t], sizeof(base)));
      PetscCall(PetscStrlen(base, &len));
      if (len > 6 && !strcmp(base + len - 6, "-mixed")) base[len - 6] = 0;
      for (PetscInt k = 0; k < nreg; k++)
        if (!strcmp(base, reg[k])) known = PETSC_TRUE;
      if (!known) PetscCall(PetscFree(reg));
      PetscCheck(known, comm, PETSC_ERR_USER_INPUT, "-bte_bench_types: unknown type '%s'; the types are%s, each also as <type>-mixed where it has single-precision weights", types[t], list);
    }
    PetscCall(PetscFree(reg));
  }
  if (!flg) { /* every registered type, and its -mixed form where it has one */
    const char **reg;
    PetscInt     nreg;

    PetscCall(BTECollisionGetTypes(&nreg, &reg));
    ntypes = 0;
    for (PetscInt k = 0; k < nreg; k++) {
      PetscBool mixed;
      char      name[64];

      PetscCall(BTECollisionTypeHasMixedPrecision(reg[k], &mixed));
      for (PetscInt m = 0; m < (mixed ? 2 : 1) && ntypes < BTE_BENCH_MAXTYPES; m++) {
        PetscCall(PetscSNPrintf(name, sizeof(name), "%s%s", reg[k], m ? "-mixed" : ""));
        PetscCall(PetscStrallocpy(name, &types[ntypes++]));
      }
    }
    PetscCall(PetscFree(reg));
  }
  PetscCall(PetscOptionsInt("-bte_bench_reps", "Timed repetitions (median taken) after 3 warm-up applies", "", reps, &reps, NULL));
  PetscCheck(reps >= 1 && reps <= 1000000, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_bench_reps must be in [1, 1000000], got %" PetscInt_FMT, reps);
  PetscCall(PetscOptionsInt("-bte_bench_copy_size", "Doubles per rank in the copy-bandwidth measurement", "", copyn, &copyn, &copyset));
  PetscCheck(copyn >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_bench_copy_size must be >= 1 (doubles per rank), got %" PetscInt_FMT, copyn);
  PetscCall(PetscOptionsBool("-bte_bench_rk4", "Also time RK4 steps (median of max(3, reps/2) after 2 untimed steps)", "", dork4, &dork4, NULL));
  PetscCall(PetscOptionsBool("-bte_bench_jacobian", "Also time Jacobian applies J(f)x (as the applies: median of reps after 3 warm-up)", "", dojac, &dojac, NULL));
  PetscCall(PetscOptionsBool("-bte_bench_pipelined", "Also time the applies back to back: -bte_bench_reps of them in 5 batches, each started together on all ranks and ended by one device sync; the median of the batches' time per apply", "", pipe, &pipe, NULL));
  PetscCall(PetscOptionsString("-bte_bench_json", "Write the results as JSON to this file", "", json, json, sizeof(json), &hasjson));
  /* as the other commands take it (a command line shared by all of them stays valid); off here */
  PetscCall(PetscOptionsBool("-bte_view", "Print the table's summary before the timings", "BTEView", view, &view, NULL));
  PetscOptionsEnd();

  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  /* the options of the state vectors, the random numbers and each implementation timed */
  PetscCall(BTECommandOptionsVec(comm));
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(PetscRandomDestroy(&rnd));
  for (PetscInt k = 0; k < ntypes; k++) {
    char   type[32];
    size_t len;
    PetscCall(PetscStrncpy(type, types[k], sizeof(type)));
    PetscCall(PetscStrlen(type, &len));
    PetscCall(PetscStrendswith(type, "-mixed", &flg));
    if (flg) type[len - 6] = 0;
    PetscCall(BTECommandOptionsCollision(bte, type));
  }
  PetscCall(BTECommandHelpRequested(&help));
  if (help) {
    for (PetscInt k = 0; k < ntypes; k++) PetscCall(PetscFree(types[k]));
    PetscCall(BTEDestroy(&bte));
    PetscFunctionReturn(0);
  }
  PetscCall(BTECommandCheckOptions(comm, "bench"));
  PetscCall(BTECommandCheckOptionsSetUp(comm, "bench")); /* the scratch objects above read every option of the timed ones: checked before the timings */
  if (hasjson && json[0]) PetscCall(BTECheckOutputFile(bte, json, "-bte_bench_json"));
  PetscCall(BTESetUp(bte));
  if (view) PetscCall(BTEView(bte, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTEGetNumChannels(bte, NULL, &nch));
  PetscCall(BTEGetNumStates(bte, NULL, &nstates));
  PetscCall(BTEGetSmearing(bte, &eta));
  PetscCall(BTEGetTemperature(bte, &T));
  PetscCall(BTEGetModel(bte, &model));
  PetscCheck(nch > 0, comm, PETSC_ERR_ARG_WRONG, "The problem has no scattering channels; nothing to time");
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecGetType(f, &vtype));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(VecDuplicate(f, &y));
  PetscCall(PetscRandomCreate(comm, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, 0.01, 0.99));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(f, rnd));
  PetscCall(VecSetRandom(x, rnd));
  /* two buffers of copyn doubles per rank, as given: refused in one line where they cannot fit (an
     allocation failure deep in VecCreate, or swapping, otherwise); the default's 0.5 GB is checked
     with the run that follows */
  if (copyset) PetscCall(BTEModelCheckMemory(bte, 2.0 * 8.0 * (PetscLogDouble)copyn, 1.0, "The copy-bandwidth measurement (-bte_bench_copy_size, two buffers of that many doubles per rank)", "use a smaller -bte_bench_copy_size", NULL));
  PetscCall(CopyBandwidth(comm, copyn, 10, &bw));

  /* No column of the resident memory a type's setup adds: that growth depends on what the types
     timed before it freed (the allocator reuses it), i.e. on the order of -bte_bench_types. The
     layout's bytes, which the operator counts itself, are the memory figure. */
  for (PetscInt k = 0; k < ntypes; k++) {
    BTECollision   c;
    PetscLogDouble t0, t1;

    PetscCall(PetscMemzero(&res[k], sizeof(res[k])));
    PetscCall(PetscStrncpy(res[k].type, types[k], sizeof(res[k].type)));
    PetscCall(PetscTime(&t0));
    {
      PetscBool mixed;
      char      type[32];
      size_t    len;

      /* "<type>-mixed": that implementation with single-precision weights */
      PetscCall(PetscStrncpy(type, types[k], sizeof(type)));
      PetscCall(PetscStrlen(type, &len));
      PetscCall(PetscStrendswith(type, "-mixed", &mixed));
      if (mixed) type[len - 6] = 0;
      PetscCall(BTECollisionCreate(bte, &c));
      PetscCall(BTECollisionSetType(c, type));
      PetscCall(BTECollisionSetFromOptions(c));
      PetscCall(BTECollisionSetType(c, type)); /* the list wins over -bte_collision_type */
      PetscCall(BTECollisionSetMixedPrecision(c, mixed));
      PetscCall(BTECollisionSetUp(c));
      PetscCall(BTECollisionGetInfo(c, NULL, NULL, NULL, &res[k].layout_bytes));
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &res[k].layout_bytes, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, comm));
    }
    PetscCall(PetscTime(&t1));
    res[k].setup = t1 - t0;
    PetscCall(TimeApplies(c, f, x, y, reps, PETSC_FALSE, &res[k].apply, &res[k].lapply));
    if (dojac) PetscCall(TimeApplies(c, f, x, y, reps, PETSC_TRUE, &res[k].jac, &res[k].ljac));
    if (dork4) PetscCall(TimeRK4(c, f, RK4Reps(reps), &res[k].rk4));
    if (pipe) {
      PetscCall(TimePipelined(c, f, x, y, reps, PETSC_FALSE, &res[k].papply));
      if (dojac) PetscCall(TimePipelined(c, f, x, y, reps, PETSC_TRUE, &res[k].pjac));
    }
    PetscCall(BTECollisionDestroy(&c));
  }

  {
    PetscLogDouble tbase = 0;
    PetscBool      hasbase = PETSC_FALSE, dev;
    char           what[256];
    for (PetscInt k = 0; k < ntypes; k++) {
      PetscBool isb;
      PetscCall(PetscStrcmp(res[k].type, "baseline", &isb));
      if (isb) {
        tbase   = res[k].apply;
        hasbase = PETSC_TRUE;
      }
    }
    /* the copy is a VecCopy of the state vectors' type: on the host one thread's memcpy, which the
       threads of an apply can outrun, so that %copy is no fraction of the machine's bandwidth there */
    PetscCall(PetscObjectTypeCompareAny((PetscObject)f, &dev, VECSEQCUDA, VECMPICUDA, VECCUDA, VECSEQHIP, VECMPIHIP, VECHIP, VECSEQKOKKOS, VECMPIKOKKOS, VECKOKKOS, ""));
    PetscCall(PetscPrintf(comm, "bte bench: %s, %" PetscInt_FMT " states, %" PetscInt64_FMT " channels, %d rank(s), vec type %s, %d OpenMP thread(s)\n", model[0] ? model : "table", nstates, nch, size, vtype, NumThreads()));
    PetscCall(PetscPrintf(comm, "copy bandwidth (read+write): %.1f GB/s; eta %g eV, T %g K\n", bw, (double)eta, (double)T));
    /* each column's repetitions, as timed (times: the slowest rank's) */
    PetscCall(PetscSNPrintf(what, sizeof(what), "%s: median of %" PetscInt_FMT " synced applies after 3 warm-up", dojac ? "apply, jac" : "apply", reps));
    if (dork4) {
      char r4[64];
      PetscCall(PetscSNPrintf(r4, sizeof(r4), "; rk4 step: median of %" PetscInt_FMT " steps after 2 untimed", RK4Reps(reps)));
      PetscCall(PetscStrlcat(what, r4, sizeof(what)));
    }
    if (!dojac || !dork4) PetscCall(PetscStrlcat(what, "; -: not timed", sizeof(what)));
    PetscCall(PetscPrintf(comm, "%s\n", what));
    PetscCall(PetscPrintf(comm, "(layout B/chan: bytes of the channel layout an apply streams, per distinct channel; GB/s and %%copy: those bytes per apply time)\n"));
    PetscCall(PetscPrintf(comm, "%-12s %11s %9s %11s %12s %10s %8s %7s %9s %8s\n", "type", "apply (ms)", "ns/chan", "jac (ms)", "rk4 step(ms)", "layout B/c", "GB/s", "%copy", "setup (s)", "vs base"));
    for (PetscInt k = 0; k < ntypes; k++) {
      PetscLogDouble gbs = res[k].layout_bytes / res[k].apply / 1e9;
      char           vs[32], jac[32], rk4[32], pc[32];
      Cell(vs, sizeof(vs), hasbase, "%.2f", (double)(tbase / res[k].apply)); /* no baseline timed: no ratio */
      Cell(jac, sizeof(jac), dojac, "%.4f", res[k].jac * 1e3);
      Cell(rk4, sizeof(rk4), dork4, "%.4f", res[k].rk4 * 1e3);
      Cell(pc, sizeof(pc), dev, "%.1f", 100 * gbs / bw);
      PetscCall(PetscPrintf(comm, "%-12s %11.4f %9.3f %11s %12s %10.1f %8.1f %7s %9.2f %8s\n", res[k].type, res[k].apply * 1e3, res[k].apply * 1e9 / (double)nch, jac, rk4, res[k].layout_bytes / (double)nch, gbs, pc, res[k].setup, vs));
    }
    if (!dev) PetscCall(PetscPrintf(comm, "(%%copy: - on the host, where the copy bandwidth is one thread's memcpy, not a bound on an apply's threads)\n"));
    for (PetscInt k = 0; pipe && k < ntypes; k++) {
      char pj[32], lj[32];
      Cell(pj, sizeof(pj), dojac, "%.4f ms", res[k].pjac * 1e3);
      Cell(lj, sizeof(lj), dojac, "%.4f ms", res[k].ljac * 1e3);
      PetscCall(PetscPrintf(comm, "pipelined %-12s apply %.4f ms, jac %s (%" PetscInt_FMT " back to back in %" PetscInt_FMT " batches, each started together and ended by one device sync; median of the batches); the host's launches per apply %.4f ms, jac %s\n", res[k].type, res[k].papply * 1e3, pj, reps, PetscMin(reps, 5), res[k].lapply * 1e3, lj));
    }
    if (hasjson && json[0]) {
      /* written as FILE.tmp and renamed, every write checked: a full disk or a failing device must
         not leave a cut-off JSON reported as written */
      char        r4n[32], why[2 * PETSC_MAX_PATH_LEN + 256] = "";
      PetscMPIInt jrank;
      JSONNum(r4n, sizeof(r4n), dork4, "%.0f", (double)RK4Reps(reps));
      PetscCallMPI(MPI_Comm_rank(comm, &jrank));
      if (!jrank) {
        char  tmp[PETSC_MAX_PATH_LEN + 8];
        FILE *fp;
        snprintf(tmp, sizeof(tmp), "%s.tmp", json);
        fp = fopen(tmp, "w");
        if (!fp) snprintf(why, sizeof(why), "creating %s failed: %s", tmp, strerror(errno));
        else {
          errno = 0;
          fprintf(fp, "{\n  \"model\": \"%s\", \"states\": %" PetscInt_FMT ", \"channels\": %" PetscInt64_FMT ", \"ranks\": %d, \"vec_type\": \"%s\", \"omp_threads\": %d,\n", model, nstates, nch, size, vtype, NumThreads());
          /* what was timed: the table file (-bte_input) and the command that makes its table */
          fprintf(fp, "  \"input\": ");
          BTEJSONString(fp, bte->input);
          fprintf(fp, ", \"table_source\": ");
          BTEJSONString(fp, bte->source);
          fprintf(fp, ", \"temperature_K\": %.17g, \"smearing_eV\": %.17g,\n", (double)bte->temperature, (double)bte->smearing);
          fprintf(fp, "  \"copy_bandwidth_GBs\": %.3f, \"reps\": %" PetscInt_FMT ", \"rk4_reps\": %s,\n  \"results\": [\n", bw, reps, r4n);
          for (PetscInt k = 0; k < ntypes; k++) {
            char jac[32], rk4[32], sp[32], pa[32], pj[32], lj[32];
            JSONNum(jac, sizeof(jac), dojac, "%.6e", res[k].jac);
            JSONNum(rk4, sizeof(rk4), dork4, "%.6e", res[k].rk4);
            JSONNum(sp, sizeof(sp), hasbase, "%.3f", (double)(tbase / res[k].apply));
            JSONNum(pa, sizeof(pa), pipe, "%.6e", res[k].papply);
            JSONNum(pj, sizeof(pj), (PetscBool)(pipe && dojac), "%.6e", res[k].pjac);
            JSONNum(lj, sizeof(lj), dojac, "%.6e", res[k].ljac);
            fprintf(fp, "    {\"type\": \"%s\", \"apply_s\": %.6e, \"ns_per_channel\": %.4f, \"jacobian_s\": %s, \"rk4_step_s\": %s, \"layout_bytes_per_channel\": %.2f, \"effective_GBs\": %.2f, \"setup_s\": %.3f, \"speedup_vs_baseline\": %s, \"apply_pipelined_s\": %s, \"jacobian_pipelined_s\": %s, \"apply_launch_s\": %.6e, \"jacobian_launch_s\": %s}%s\n", res[k].type, res[k].apply, res[k].apply * 1e9 / (double)nch, jac, rk4, res[k].layout_bytes / (double)nch, res[k].layout_bytes / res[k].apply / 1e9, res[k].setup, sp, pa, pj, res[k].lapply, lj, k + 1 < ntypes ? "," : "");
          }
          fprintf(fp, "  ]\n}\n");
          int bad = ferror(fp);
          if (fclose(fp) || bad) snprintf(why, sizeof(why), "writing %s failed: %s", tmp, errno ? strerror(errno) : "write error");
          else if (rename(tmp, json)) snprintf(why, sizeof(why), "renaming %s to it failed: %s", tmp, strerror(errno));
          if (why[0]) (void)unlink(tmp);
        }
      }
      PetscCallMPI(MPI_Bcast(why, (PetscMPIInt)sizeof(why), MPI_CHAR, 0, comm));
      PetscCheck(!why[0], comm, PETSC_ERR_FILE_WRITE, "Cannot write the JSON file %s (-bte_bench_json): %s", json, why);
      PetscCall(PetscPrintf(comm, "wrote %s\n", json));
    }
  }
  for (PetscInt k = 0; k < ntypes; k++) PetscCall(PetscFree(types[k]));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(BTEDestroy(&bte));
  PetscFunctionReturn(0);
}
