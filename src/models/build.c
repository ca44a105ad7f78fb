/* The generic model builder: a BTEModelSpec (band energies and couplings as functions of k)
   becomes the k grid, the states inside the energy window and the scattering channels of a BTE,
   with the selection rules of docs/theory.md section 2.

   Outline (every rank does the same, deterministically):
   1. grid: lattice from the spec, nk = spec->nk, or bte->ngrid per direction (1 along a3 in 2D), point
      (i0,i1,i2) at k = sum_a (i_a/nk_a) b_a, so Gamma (i = 0) is always on the grid.
   2. states: every rank enumerates the full grid (OpenMP over fixed chunks of k), reduces each
      k to the first Brillouin zone (minimal image among lattice translations), asks the model
      for the bands and keeps (k, n) with eedge <= e <= eedge + window, ordered by (kindex, band).
      The in-window states are kept replicated (a compact array) for the pair search only;
      the BTE keeps its owned block (BTEAllocateStates with PETSC_DECIDE).
   3. channels: for each owned state i, every other state j with |e_i - e_j| <= hwmax + tol*eta
      (energy bins of that width: candidates come from three bins, merged in index order), and
      every mode: hw >= phonon_min, | |e_i-e_j| - hw | < tol*eta, g2 > g2_cutoff, g2 > 0, q != 0.
      The coupling is always evaluated with the lower global index first, so that two ranks
      holding the same channel compute it bit for bit the same. A pair whose both ends are owned
      is kept once (from its lower end); a pair with the other end on another rank is kept by both.
      Two passes: count (per owned state), refuse if the table does not fit in memory, then fill
      at per-state offsets. The channel order, (owned state, other state, mode), and the result do
      not depend on the number of OpenMP threads. A model that evaluates couplings in batches
      (coupling_grid_batch) gets the candidates of runs of consecutive states together and answers
      with the modes that can pass only; neither changes the result.
   4. modes (bte->loadchannels, bte->streamfile): load (above); count only (pass 0, no arrays:
      BTESetLoadChannels, bte info); stream (BTEGenerateTable): pass 0 gives each owned state's
      count of channels whose lower end it is, hence every rank's offset in the file; then the
      rank fills its owned states in order in batches of at most -bte_generate_batch channels
      (a state larger than a batch is filled in pieces) and writes each batch at its offset, the
      ranks taking turns (src/io/table_write.c). The file is the one BTEWriteTable writes after a
      load, byte for byte in every dataset. Memory: the replicated states plus one batch.

   A spec with coupling == NULL gives states only (no channels).
   Models' callbacks run inside OpenMP parallel regions: they must be thread safe, and should not
   use PetscFunctionBegin/PetscFunctionReturn or PetscCall (PETSc's debug stack is not thread
   safe); return 0 on success, nonzero on failure. */
#include <bte/private/modelimpl.h>
#include <bte/private/validate.h>
#include <ctype.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

/* Bytes per state of the replicated generation arrays (kindex, band, ijk[3], k[3], e, v[3])
   and of the BTE's own state arrays (kindex, band, energy, velocity[3]). */
#define BTE_GEN_BYTES_PER_STATE (5 * sizeof(PetscInt) + 7 * sizeof(PetscReal))
#define BTE_BYTES_PER_STATE_OWN (2 * sizeof(PetscInt) + 4 * sizeof(PetscReal))
/* Bytes per channel held: i, j, mode, hw, g2 */
#define BTE_BYTES_PER_CHANNEL (3 * sizeof(PetscInt) + 2 * sizeof(PetscReal))

typedef struct {
  PetscInt  dim, nk[3];
  PetscReal b[9];       /* reciprocal vectors, rows */
  PetscInt  nG;         /* lattice translations for the minimal-image search */
  PetscReal G[26 * 3];
  PetscReal n[26 * 3];  /* their integer coordinates, and |G|^2 */
  PetscReal G2[26];
  PetscReal M[9];       /* metric b_a . b_b */
  PetscReal rin2;       /* |x|^2 below this: x is already its minimal image */
} BTEZone;

typedef struct {
  PetscInt   n;
  PetscInt  *kidx, *band, *ijk;
  PetscReal *k, *e, *v;
} BTEGenStates;

static PetscErrorCode BTEZoneSetUp(const BTEGrid *g, BTEZone *z)
{
  PetscInt  r3 = g->dim == 2 ? 0 : 1, R3 = g->dim == 2 ? 0 : 2;
  PetscReal gmin2 = PETSC_MAX_REAL;

  PetscFunctionBegin;
  z->dim = g->dim;
  for (PetscInt a = 0; a < 3; a++) z->nk[a] = g->nk[a];
  for (PetscInt a = 0; a < 9; a++) z->b[a] = g->reciprocal[a];
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt c = 0; c < 3; c++) z->M[3 * a + c] = z->b[3 * a] * z->b[3 * c] + z->b[3 * a + 1] * z->b[3 * c + 1] + z->b[3 * a + 2] * z->b[3 * c + 2];
  z->nG = 0;
  for (PetscInt n0 = -1; n0 <= 1; n0++)
    for (PetscInt n1 = -1; n1 <= 1; n1++)
      for (PetscInt n2 = -r3; n2 <= r3; n2++) {
        if (!n0 && !n1 && !n2) continue;
        for (PetscInt c = 0; c < 3; c++) z->G[3 * z->nG + c] = n0 * z->b[c] + n1 * z->b[3 + c] + n2 * z->b[6 + c];
        z->n[3 * z->nG]     = n0;
        z->n[3 * z->nG + 1] = n1;
        z->n[3 * z->nG + 2] = n2;
        z->G2[z->nG]        = PetscSqr(z->G[3 * z->nG]) + PetscSqr(z->G[3 * z->nG + 1]) + PetscSqr(z->G[3 * z->nG + 2]);
        z->nG++;
      }
  /* the shortest nonzero translation, searched in a wider range to be safe for skewed cells */
  for (PetscInt n0 = -2; n0 <= 2; n0++)
    for (PetscInt n1 = -2; n1 <= 2; n1++)
      for (PetscInt n2 = -R3; n2 <= R3; n2++) {
        PetscReal x[3], x2;
        if (!n0 && !n1 && !n2) continue;
        for (PetscInt c = 0; c < 3; c++) x[c] = n0 * z->b[c] + n1 * z->b[3 + c] + n2 * z->b[6 + c];
        x2    = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
        gmin2 = PetscMin(gmin2, x2);
      }
  /* |x| < |Gmin|/2 implies |x + G| >= |G| - |x| > |x| for every G != 0 */
  z->rin2 = 0.25 * gmin2 * (1 - 1e-12);
  PetscFunctionReturn(0);
}

/* Grid offset d in [0, nk) (or any integer) -> the representative in [-nk/2, nk/2). */
static inline PetscInt BTEWrap(PetscInt d, PetscInt nk)
{
  d %= nk;
  if (d < 0) d += nk;
  return 2 * d < nk ? d : d - nk;
}

/* Cartesian vector of the grid offset d (integers), reduced to the first Brillouin zone:
   the minimal image among x + G, G in the neighbouring translations. With fractional
   coordinates f and the metric M, |x + G_n|^2 - |x|^2 = 2 n.(M f) + |G_n|^2, so the search costs
   a few flops per G. Deterministic (ties keep the first found): the same d gives the same x. */
static inline void BTEZoneReduce(const BTEZone *z, const PetscInt d[3], PetscReal x[3])
{
  PetscReal f[3], x2, Mf[3], best = 0;
  PetscInt  gbest = -1;

  f[0] = BTEWrap(d[0], z->nk[0]) / (PetscReal)z->nk[0];
  f[1] = BTEWrap(d[1], z->nk[1]) / (PetscReal)z->nk[1];
  f[2] = z->nk[2] > 1 ? BTEWrap(d[2], z->nk[2]) / (PetscReal)z->nk[2] : 0.0;
  for (PetscInt c = 0; c < 3; c++) x[c] = f[0] * z->b[c] + f[1] * z->b[3 + c] + f[2] * z->b[6 + c];
  x2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
  if (x2 < z->rin2) return;
  for (PetscInt a = 0; a < 3; a++) Mf[a] = 2 * (z->M[3 * a] * f[0] + z->M[3 * a + 1] * f[1] + z->M[3 * a + 2] * f[2]);
  best = -1e-12 * x2;
  for (PetscInt g = 0; g < z->nG; g++) {
    PetscReal dl = z->n[3 * g] * Mf[0] + z->n[3 * g + 1] * Mf[1] + z->n[3 * g + 2] * Mf[2] + z->G2[g];
    if (dl < best) {
      best  = dl;
      gbest = g;
    }
  }
  if (gbest >= 0)
    for (PetscInt c = 0; c < 3; c++) x[c] += z->G[3 * gbest + c];
}

/* Memory this rank may use: -bte_memory_limit if given, else its share of 90% of the node's
   physical memory (or of the cgroup's limit when a container sets a smaller one): the kernel and
   the page cache keep the rest (a run sized to all of a 25.3 GB machine was killed at 24.3 GB). */
#define BTE_MEMORY_USABLE 0.9

/* a build that runs longer says how far it got (-bte_generate_monitor not given): seconds */
#define BTE_GEN_MONITOR_AFTER 10.0

static PetscErrorCode BTEModelMemoryAvailable(BTE bte, PetscLogDouble *bytes, PetscBool *user)
{
  MPI_Comm       node;
  PetscMPIInt    nnode;
  PetscLogDouble phys = 0;
  long           pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  FILE          *fp;

  PetscFunctionBegin;
  if (bte->mem_limit > 0) {
    *bytes = bte->mem_limit;
    *user  = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  *user = PETSC_FALSE;
  if (pages > 0 && psize > 0) phys = (PetscLogDouble)pages * (PetscLogDouble)psize;
  fp = fopen("/sys/fs/cgroup/memory.max", "r");
  if (!fp) fp = fopen("/sys/fs/cgroup/memory/memory.limit_in_bytes", "r");
  if (fp) {
    double lim;
    if (fscanf(fp, "%lf", &lim) == 1 && lim > 0 && (phys <= 0 || lim < phys)) phys = lim;
    fclose(fp);
  }
  if (phys <= 0) phys = 1e18; /* unknown: do not refuse */
  phys *= BTE_MEMORY_USABLE;
  PetscCallMPI(MPI_Comm_split_type(PetscObjectComm((PetscObject)bte), MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nnode));
  PetscCallMPI(MPI_Comm_free(&node));
  *bytes = phys / nnode;
  PetscFunctionReturn(0);
}

/* Collective: refuse when any rank needs more than slack times what it may use (slack > 1 for
   estimates, which an exact check follows). With fits, tell instead of refusing. */
PetscErrorCode BTEModelCheckMemory(BTE bte, PetscLogDouble need, PetscLogDouble slack, const char what[], const char advice[], PetscBool *fits)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  PetscLogDouble avail = 0, in[2], out[2];
  PetscBool      user;

  PetscFunctionBegin;
  PetscCall(BTEModelMemoryAvailable(bte, &avail, &user));
  in[0] = need / avail;
  in[1] = need;
  PetscCall(MPIU_Allreduce(in, out, 2, MPIU_PETSCLOGDOUBLE, MPI_MAX, comm));
  if (fits) {
    *fits = out[0] > slack ? PETSC_FALSE : PETSC_TRUE;
    if (!*fits) PetscCall(PetscInfo(bte, "%s needs %.3g GB on the busiest rank, more than the %.3g GB a rank may use: not loaded\n", what, out[1] / 1e9, avail / 1e9));
    PetscFunctionReturn(0);
  }
  if (out[0] > slack) {
    PetscLogDouble tot = need;
    PetscCall(MPIU_Allreduce(&need, &tot, 1, MPIU_PETSCLOGDOUBLE, MPI_SUM, comm));
    if (!bte->memcheck) {
      PetscCall(PetscPrintf(comm, "WARNING: %s needs %.3g GB on the busiest rank, more than the %.3g GB a rank may use; going on (-bte_memory_check 0)\n", what, out[1] / 1e9, avail / 1e9));
      PetscFunctionReturn(0);
    }
    SETERRQ(comm, PETSC_ERR_MEM, "%s needs %.3g GB on the busiest rank (%.3g GB on all ranks), more than the %.3g GB a rank may use (%s); %s", what, out[1] / 1e9, tot / 1e9, avail / 1e9, user ? "-bte_memory_limit" : "90% of the physical memory, shared by the ranks of a node", advice);
  }
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------- */
/* States */

static PetscErrorCode BTEGenStatesFree(BTEGenStates *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree6(s->kidx, s->band, s->ijk, s->k, s->e, s->v));
  s->n = 0;
  PetscFunctionReturn(0);
}

/* Evaluates the bands on k points [k0, k1) of the full grid; counts states in the window, and
   stores them when s->kidx is allocated (from position pos). Returns nonzero on model error. */
static int BTEEnumerateRange(const BTEModelSpec *spec, const BTEZone *z, PetscReal emin, PetscReal emax, PetscInt64 k0, PetscInt64 k1, BTEGenStates *s, PetscInt pos, PetscInt *count)
{
  PetscInt  nb = spec->nbands, cnt = 0;
  PetscReal e[BTE_MAX_BANDS], v[3 * BTE_MAX_BANDS], k[3];

  for (PetscInt64 ik = k0; ik < k1; ik++) {
    PetscInt d[3];
    d[0] = (PetscInt)(ik / ((PetscInt64)z->nk[1] * z->nk[2]));
    d[1] = (PetscInt)((ik / z->nk[2]) % z->nk[1]);
    d[2] = (PetscInt)(ik % z->nk[2]);
    BTEZoneReduce(z, d, k);
    for (PetscInt n = 0; n < nb; n++) e[n] = v[3 * n] = v[3 * n + 1] = v[3 * n + 2] = PETSC_MAX_REAL; /* unfilled: refused below */
    if (spec->bands(spec->ctx, k, e, v)) return 1;
    for (PetscInt n = 0; n < nb; n++) {
      /* a band the callback did not fill, or left NaN, was once a state silently missing */
      if (!(PetscAbsReal(e[n]) < 1e10)) return 4;
      if (!(e[n] >= emin && e[n] <= emax)) continue;
      if (!(PetscAbsReal(v[3 * n]) < 1e10 && PetscAbsReal(v[3 * n + 1]) < 1e10 && PetscAbsReal(v[3 * n + 2]) < 1e10)) return 8;
      if (s->kidx) {
        PetscInt p = pos + cnt;
        s->kidx[p] = (PetscInt)ik;
        s->band[p] = n;
        for (PetscInt c = 0; c < 3; c++) {
          s->ijk[3 * p + c] = d[c];
          s->k[3 * p + c]   = k[c];
          s->v[3 * p + c]   = v[3 * n + c];
        }
        s->e[p] = e[n];
      }
      cnt++;
    }
  }
  *count = cnt;
  return 0;
}

static PetscErrorCode BTEModelEnumerate(BTE bte, const BTEModelSpec *spec, const BTEZone *z, BTEGenStates *s)
{
  MPI_Comm   comm  = PetscObjectComm((PetscObject)bte);
  PetscInt64 nktot = (PetscInt64)z->nk[0] * z->nk[1] * z->nk[2];
  PetscInt   nchunk, *cnt, *off;
  PetscInt64 total = 0;
  int        err   = 0;

  PetscFunctionBegin;
  nchunk = (PetscInt)PetscMin((PetscInt64)1024, nktot);
  PetscCall(PetscCalloc2(nchunk, &cnt, nchunk + 1, &off));
  s->kidx = NULL;
  for (int pass = 0; pass < 2; pass++) {
#pragma omp parallel for schedule(dynamic, 1) reduction(| : err)
    for (PetscInt c = 0; c < nchunk; c++) {
      PetscInt64 k0 = nktot * c / nchunk, k1 = nktot * (c + 1) / nchunk;
      PetscInt   m  = 0;
      if (err) continue;
      err |= BTEEnumerateRange(spec, z, bte->emin, bte->emax, k0, k1, s, pass ? off[c] : 0, &m);
      if (!pass) cnt[c] = m;
      else if (m != cnt[c]) err |= 2;
    }
    PetscCheck(!(err & 1), comm, PETSC_ERR_LIB, "Model %s: band evaluation failed", spec->name);
    PetscCheck(!(err & 2), comm, PETSC_ERR_PLIB, "Model %s: band energies are not reproducible (two evaluations at the same k differ)", spec->name);
    PetscCheck(!(err & 4), comm, PETSC_ERR_USER_INPUT, "Model %s: its bands callback left an energy unset, NaN or infinite (every one of its %" PetscInt_FMT " bands must be set to a finite value in eV at every k)", spec->name, spec->nbands);
    PetscCheck(!(err & 8), comm, PETSC_ERR_USER_INPUT, "Model %s: its bands callback left a velocity of a state in the window unset, NaN or infinite (3 finite components in Angstrom/fs per band)", spec->name);
    if (!pass) {
      off[0] = 0;
      for (PetscInt c = 0; c < nchunk; c++) total += cnt[c];
      PetscCheck(total <= PETSC_MAX_INT, comm, PETSC_ERR_SUP, "%" PetscInt64_FMT " states in the window do not fit a 32-bit PetscInt; use a smaller -bte_grid or -bte_window", total);
      PetscCheck(total > 0, comm, PETSC_ERR_USER_INPUT, "No states of model %s in the energy window [%g, %g] eV on the %" PetscInt_FMT "^%" PetscInt_FMT " grid; widen -bte_window or refine -bte_grid", spec->name, (double)bte->emin, (double)bte->emax, z->nk[0], spec->dim);
      for (PetscInt c = 0; c < nchunk; c++) off[c + 1] = off[c] + cnt[c];
      s->n = (PetscInt)total;
      PetscCall(BTEModelCheckMemory(bte, (PetscLogDouble)total * BTE_GEN_BYTES_PER_STATE, 1.0, "The states in the energy window", "use a smaller -bte_grid or -bte_window", NULL));
      PetscCall(PetscMalloc6(s->n, &s->kidx, s->n, &s->band, 3 * s->n, &s->ijk, 3 * s->n, &s->k, s->n, &s->e, 3 * s->n, &s->v));
    }
  }
  PetscCall(PetscFree2(cnt, off));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------- */
/* Channels */

/* Per thread: the buffers of the batched path (coupling_grid_batch), made once per build: one batch
   of candidate pairs (their state, ends, energy difference) and the model's sparse answer. The mode
   arrays have room for every mode of every pair, but only the listed modes are touched. */
typedef struct {
  BTEModelPair *cand;
  PetscInt     *cst, *cends, *moff, *mode;
  PetscReal    *cde, *hw, *g2;
} BTEBatchBuf;

typedef struct {
  const BTEModelSpec *spec;
  const BTEZone      *z;
  const BTEGenStates *s;
  PetscInt            rstart, rend;
  PetscReal           W;                    /* |e_i - e_j| <= W can make a channel */
  PetscReal           span;                 /* emax - emin: the largest |e_i - e_j| of the window */
  PetscReal           tol, hwmin, g2min;    /* tol*eta, phonon_min, g2_cutoff */
  PetscInt            nbins, *binstart, *binlist;
  PetscReal           emin, binw;
  PetscInt            pairbatch;            /* pairs per coupling_grid_batch call */
  PetscInt            chunk;                /* consecutive states whose candidates share batches */
  PetscInt            nbuf;
  BTEBatchBuf        *buf;                  /* per thread (batched models) */
  PetscReal          *qtab;                 /* Cartesian q of every grid offset, reduced (or NULL) */
} BTEPairSearch;

/* Grids of at most this many k points get the table of reduced q (BTEPairSearch.qtab): 100 MB at the
   limit, 161^3 */
#define BTE_QTAB_MAX ((PetscInt64)1 << 22)

static inline PetscInt BTEBinOf(const BTEPairSearch *p, PetscReal e)
{
  PetscInt b = (PetscInt)PetscFloorReal((e - p->emin) / p->binw);
  return PetscMax(0, PetscMin(p->nbins - 1, b));
}

/* Stores channel number *n (when in [skip, skip + take), take < 0: all) and counts it */
static inline void BTEPairPut(PetscInt i, PetscInt lo, PetscInt hi, PetscInt nu, PetscReal hw, PetscReal g2, PetscCount skip, PetscCount take, PetscInt *out_i, PetscInt *out_j, PetscInt *out_mode, PetscReal *out_hw, PetscReal *out_g2, PetscCount *n, PetscCount *low)
{
  if (out_i && *n >= skip && (take < 0 || *n < skip + take)) {
    PetscCount o = *n - skip;
    out_i[o]     = lo;
    out_j[o]     = hi;
    out_mode[o]  = nu;
    out_hw[o]    = hw;
    out_g2[o]    = g2;
  }
  (*n)++;
  if (lo == i) (*low)++;
}

/* The selection of one mode (docs/theory.md section 2): 0 no channel, 1 a channel, 4 a value out of
   the stated bounds (or not finite: a NaN or negative |g|^2 was once dropped as "no channel", and a
   model's bug became a table with fewer channels), 16 a coupled phonon energy above the model's
   hwmax that a pair of the window could conserve energy with: pairs farther apart than hwmax are not
   searched, so such channels would be lost without a word */
static inline int BTEModeSelect(const BTEPairSearch *p, PetscReal de, PetscReal hw, PetscReal g2)
{
  if (PetscIsInfOrNanReal(g2) || g2 < -1e-12 || PetscIsNanReal(hw)) return 4; /* -1e-12 eV^2: the rounding of a vanishing coupling, e.g. graphene's (1 + cos)/2 at backscattering */
  if (!(g2 > 0) || !(g2 > p->g2min) || !(hw >= p->hwmin)) return 0;
  if (hw > p->spec->hwmax && hw - p->tol < p->span) return 16;
  if (!(PetscAbsReal(de - hw) < p->tol)) return 0;
  if (!(g2 <= BTE_G2_MAX) || !(hw <= BTE_PHONON_MAX)) return 4;
  return 1;
}

/* The channels of one pair of states (lo < hi, energy difference de) from its modes' hw and g2:
   appends those that pass the selection to out (from number skip on, at most take; take < 0: all),
   counting them in *n and, when lo == i, in *low. Returns nonzero on a value out of bounds. */
static inline int BTEPairModes(const BTEPairSearch *p, PetscInt i, PetscInt lo, PetscInt hi, PetscReal de, const PetscReal hw[], const PetscReal g2[], PetscCount skip, PetscCount take, PetscInt *out_i, PetscInt *out_j, PetscInt *out_mode, PetscReal *out_hw, PetscReal *out_g2, PetscCount *n, PetscCount *low)
{
  for (PetscInt nu = 0; nu < p->spec->nmodes; nu++) {
    int r = BTEModeSelect(p, de, hw[nu], g2[nu]);
    if (r & 20) return r;
    if (r) BTEPairPut(i, lo, hi, nu, hw[nu], g2[nu], skip, take, out_i, out_j, out_mode, out_hw, out_g2, n, low);
  }
  return 0;
}

/* The same from a model's sparse list (coupling_grid_batch): the listed modes only, which must
   increase (else 1: the model broke its contract) */
static inline int BTEPairModesSparse(const BTEPairSearch *p, PetscInt i, PetscInt lo, PetscInt hi, PetscReal de, PetscInt nlist, const PetscInt mode[], const PetscReal hw[], const PetscReal g2[], PetscCount skip, PetscCount take, PetscInt *out_i, PetscInt *out_j, PetscInt *out_mode, PetscReal *out_hw, PetscReal *out_g2, PetscCount *n, PetscCount *low)
{
  PetscInt prev = -1;
  for (PetscInt t = 0; t < nlist; t++) {
    PetscInt nu = mode[t];
    int      r;
    if (nu <= prev || nu >= p->spec->nmodes) return 1;
    prev = nu;
    r    = BTEModeSelect(p, de, hw[t], g2[t]);
    if (r & 20) return r;
    if (r) BTEPairPut(i, lo, hi, nu, hw[t], g2[t], skip, take, out_i, out_j, out_mode, out_hw, out_g2, n, low);
  }
  return 0;
}

/* Pairs handed to a model's coupling_grid_batch at once: at most BTE_PAIR_BATCH (the per-thread
   buffers), -bte_generate_pair_batch */
#define BTE_PAIR_BATCH 4096

/* The states [*ic, upto) of a range are done: their counts (n - *n0 for the first, 0 for the rest:
   channels come in state order) to cnt, checked against expect (2 on a difference) */
static inline int BTERangeFinish(PetscInt *ic, PetscInt upto, PetscInt i0, PetscCount n, PetscCount *n0, PetscCount cnt[], const PetscCount expect[])
{
  int err = 0;
  for (; *ic < upto; (*ic)++) {
    PetscCount c = n - *n0;
    if (cnt) cnt[*ic - i0] = c;
    if (expect && c != expect[*ic - i0 + 1] - expect[*ic - i0]) err = 2;
    *n0 = n;
  }
  return err;
}

/* Channels generated from the owned states [i0, i1) (global indices), in state order. With out ==
   NULL only counts them. With lower, only those whose lower end is their state (the other end
   j > i): the channels a rank writes to a table, in the same order. Of the channels generated, the
   ones numbered [skip, skip + take) (take < 0: all) are stored, from out[0]: a state's channels can
   be filled in pieces. cnt[s] and low[s] (s = 0 .. i1 - i0 - 1, either may be NULL) get each
   state's count and the number whose lower end it is; with expect (offsets of the states'
   channels, i1 - i0 + 1 of them), a state whose count differs is an error (2). *count and *nlow:
   the totals. A model with coupling_grid_batch gets the candidate pairs in batches (the same pairs,
   in the same order) that may span several of the states: one call of the model then serves
   them all. Returns nonzero on model error. */
static int BTEPairsOfRange(const BTEPairSearch *p, PetscInt i0, PetscInt i1, PetscBool lower, PetscCount skip, PetscCount take, PetscInt *out_i, PetscInt *out_j, PetscInt *out_mode, PetscReal *out_hw, PetscReal *out_g2, PetscCount cnt[], PetscCount low[], const PetscCount expect[], PetscCount *count, PetscCount *nlow)
{
  const BTEGenStates *s      = p->s;
  const PetscInt      nmodes = p->spec->nmodes;
  const PetscBool     batch  = p->spec->coupling_grid_batch ? PETSC_TRUE : PETSC_FALSE;
  PetscCount          n = 0, nlo = 0;
  PetscReal           hw[BTE_MAX_MODES], g2[BTE_MAX_MODES];
  BTEBatchBuf        *B  = NULL;
  PetscInt            nc = 0, ic = i0; /* candidates collected; the first state not yet counted */
  PetscCount          n0 = 0;          /* channels before state ic */
  int                 err = 0;

  if (cnt)
    for (PetscInt i = i0; i < i1; i++) cnt[i - i0] = 0;
  if (low)
    for (PetscInt i = i0; i < i1; i++) low[i - i0] = 0;
  if (batch) {
    int t = 0;
#if defined(_OPENMP)
    t = omp_get_thread_num();
#endif
    if (t >= p->nbuf) return 1;
    B = &p->buf[t];
  }
  for (PetscInt i = i0; i <= i1 && !err; i++) {
    PetscInt        b = i < i1 ? BTEBinOf(p, s->e[i]) : 0;
    const PetscInt *L[3];
    PetscInt        len[3], pos[3] = {0, 0, 0}, nl = 0;
    PetscReal       ei   = i < i1 ? s->e[i] : 0;
    PetscCount      lowi = 0; /* the channels whose lower end is i (unbatched path) */

    for (PetscInt t = 0; t < 3 && i < i1; t++) {
      PetscInt bb = b - 1 + t;
      if (bb < 0 || bb >= p->nbins) continue;
      L[nl]   = p->binlist + p->binstart[bb];
      len[nl] = p->binstart[bb + 1] - p->binstart[bb];
      nl++;
    }
    while (!err) {
      PetscInt  best = -1, j = PETSC_MAX_INT, lo = 0, hi = 0, d[3];
      PetscReal de = 0, q[3];

      for (PetscInt t = 0; t < nl; t++)
        if (pos[t] < len[t] && L[t][pos[t]] < j) {
          j    = L[t][pos[t]];
          best = t;
        }
      if (best >= 0) {
        pos[best]++;
        if (j == i || (lower && j < i)) continue;
        de = PetscAbsReal(s->e[j] - ei);
        if (de > p->W) continue;
        if (j < i && j >= p->rstart && j < p->rend) continue; /* kept by its lower (owned) end */
        if (s->kidx[j] == s->kidx[i]) continue;                /* q = 0 */
        lo = PetscMin(i, j);
        hi = PetscMax(i, j);
        for (PetscInt c = 0; c < 3; c++) d[c] = s->ijk[3 * hi + c] - s->ijk[3 * lo + c];
      }
      if (batch) {
        /* collect; evaluate the batch when full or after the last state, then make its channels in
           order, state by state */
        if (best >= 0) {
          BTEModelPair *c      = B->cand + nc;
          B->cst[nc]           = i;
          B->cends[2 * nc]     = lo;
          B->cends[2 * nc + 1] = hi;
          B->cde[nc++]         = de;
          c->n                 = s->band[lo];
          c->m                 = s->band[hi];
          c->en                = s->e[lo];
          c->em                = s->e[hi];
          for (PetscInt a = 0; a < 3; a++) {
            c->ik[a]  = s->ijk[3 * lo + a];
            c->ikp[a] = s->ijk[3 * hi + a];
            c->iq[a]  = d[a] % p->z->nk[a];
            if (c->iq[a] < 0) c->iq[a] += p->z->nk[a];
          }
        }
        if (nc == p->pairbatch || (i == i1 && nc)) {
          B->moff[0] = 0;
          if (p->spec->coupling_grid_batch(p->spec->ctx, nc, B->cand, B->moff, B->mode, B->hw, B->g2)) {
            err = 1;
            break;
          }
          PetscInt   lst  = -1; /* low[] gets a state's count once per run of its candidates: */
          PetscCount lacc = 0;  /* the threads' states are neighbours in low[] (false sharing) */
          for (PetscInt c = 0; c < nc && !err; c++) {
            PetscInt   a = B->moff[c], e = B->moff[c + 1], st = B->cst[c];
            PetscCount l = 0;
            if (a < 0 || e < a || e > (PetscInt)((size_t)nc * nmodes)) {
              err = 1;
              break;
            }
            err |= BTERangeFinish(&ic, st, i0, n, &n0, cnt, expect);
            err |= BTEPairModesSparse(p, st, B->cends[2 * c], B->cends[2 * c + 1], B->cde[c], e - a, B->mode + a, B->hw + a, B->g2 + a, skip, take, out_i, out_j, out_mode, out_hw, out_g2, &n, &l);
            nlo += l;
            if (st != lst) {
              if (low && lst >= 0) low[lst - i0] += lacc;
              lst  = st;
              lacc = 0;
            }
            lacc += l;
          }
          if (low && lst >= 0) low[lst - i0] += lacc;
          nc = 0;
        }
        if (best < 0) break;
        continue;
      }
      if (best < 0) break;
      {
        PetscCount l = 0;
        if (p->spec->coupling_grid) {
          PetscInt iq[3];
          for (PetscInt c = 0; c < 3; c++) {
            iq[c] = d[c] % p->z->nk[c];
            if (iq[c] < 0) iq[c] += p->z->nk[c];
          }
          if (p->spec->coupling_grid(p->spec->ctx, s->band[lo], &s->ijk[3 * lo], s->e[lo], s->band[hi], &s->ijk[3 * hi], s->e[hi], iq, hw, g2)) {
            err = 1;
            break;
          }
        } else {
          if (p->qtab) { /* d in (-nk, nk) */
            PetscInt64 t = 0;
            for (PetscInt c = 0; c < 3; c++) t = t * p->z->nk[c] + (d[c] < 0 ? d[c] + p->z->nk[c] : d[c]);
            for (PetscInt c = 0; c < 3; c++) q[c] = p->qtab[3 * t + c];
          } else BTEZoneReduce(p->z, d, q);
          if (p->spec->coupling(p->spec->ctx, s->band[lo], &s->k[3 * lo], s->band[hi], &s->k[3 * hi], q, hw, g2)) {
            err = 1;
            break;
          }
        }
        err |= BTEPairModes(p, i, lo, hi, de, hw, g2, skip, take, out_i, out_j, out_mode, out_hw, out_g2, &n, &l);
        nlo += l;
        lowi += l;
      }
    }
    if (low && !batch && i < i1) low[i - i0] += lowi; /* once per state: neighbouring states are other threads' */
    if (!batch && i < i1 && !err) err |= BTERangeFinish(&ic, i + 1, i0, n, &n0, cnt, expect);
  }
  if (!err) err |= BTERangeFinish(&ic, i1, i0, n, &n0, cnt, expect); /* the last batch's states, and those with no candidates */
  *count = n;
  *nlow  = nlo;
  return err;
}

/* BTEPairsOfRange for one state */
static int BTEPairsOf(const BTEPairSearch *p, PetscInt i, PetscBool lower, PetscCount skip, PetscCount take, PetscInt *out_i, PetscInt *out_j, PetscInt *out_mode, PetscReal *out_hw, PetscReal *out_g2, PetscCount *count, PetscCount *nlow)
{
  return BTEPairsOfRange(p, i, i + 1, lower, skip, take, out_i, out_j, out_mode, out_hw, out_g2, NULL, NULL, NULL, count, nlow);
}

/* The channels of each owned state kept from the counting pass (-bte_generate_reuse), so that
   the fill (or the writing) copies them instead of evaluating every coupling a second time: one
   block per state, hw and g2 first (alignment), then i, j, mode. Per thread, a scratch that grows
   to the largest state seen (a state larger than it is evaluated again into the grown scratch). */
typedef struct {
  void      *buf;
  PetscCount n; /* -1: not kept */
} BTEMemo;

typedef struct {
  PetscLogDouble budget, bytes; /* kept so far (all threads) */
} BTEKeep;

typedef struct {
  PetscInt  *i, *j, *mode;
  PetscReal *hw, *g2;
  PetscCount cap;
} BTEScratch;

static inline void BTEMemoArrays(void *buf, PetscCount n, PetscReal **hw, PetscReal **g2, PetscInt **i, PetscInt **j, PetscInt **mode)
{
  *hw   = (PetscReal *)buf;
  *g2   = *hw + n;
  *i    = (PetscInt *)(*g2 + n);
  *j    = *i + n;
  *mode = *j + n;
}

static int BTEScratchGrow(BTEScratch *w, PetscCount n)
{
  if (n <= w->cap) return 0;
  n = PetscMax(n, 2 * w->cap);
  free(w->i);
  free(w->j);
  free(w->mode);
  free(w->hw);
  free(w->g2);
  w->i    = (PetscInt *)malloc((size_t)n * sizeof(PetscInt));
  w->j    = (PetscInt *)malloc((size_t)n * sizeof(PetscInt));
  w->mode = (PetscInt *)malloc((size_t)n * sizeof(PetscInt));
  w->hw   = (PetscReal *)malloc((size_t)n * sizeof(PetscReal));
  w->g2   = (PetscReal *)malloc((size_t)n * sizeof(PetscReal));
  w->cap  = n;
  if (!w->i || !w->j || !w->mode || !w->hw || !w->g2) {
    w->cap = 0;
    return 8;
  }
  return 0;
}

/* Counts the channels of owned state i (BTEPairsOf, all of them) and keeps them in *m while the
   budget allows (else m->n stays -1): all of them, or with lower only those whose lower end is i
   (what a table file gets, in its order). Returns BTEPairsOf's error bits, or 8 when the scratch
   cannot grow. */
static int BTEPairsOfKeep(const BTEPairSearch *p, PetscInt i, PetscBool lower, BTEKeep *keep, BTEScratch *w, BTEMemo *m, PetscCount *count, PetscCount *nlow)
{
  PetscCount     c = 0, l = 0, nk = 0;
  PetscReal     *hw, *g2;
  PetscInt      *mi, *mj, *mm;
  PetscLogDouble bytes, before;
  int            err;

  if (!w->cap && BTEScratchGrow(w, 4096)) return 8;
  err = BTEPairsOf(p, i, PETSC_FALSE, 0, w->cap, w->i, w->j, w->mode, w->hw, w->g2, &c, &l);
  if (!err && c > w->cap) {
    if (BTEScratchGrow(w, c)) return 8;
    err = BTEPairsOf(p, i, PETSC_FALSE, 0, w->cap, w->i, w->j, w->mode, w->hw, w->g2, &c, &l);
  }
  *count = c;
  *nlow  = l;
  if (err) return err;
  nk    = lower ? l : c;
  bytes = (PetscLogDouble)nk * (2 * sizeof(PetscReal) + 3 * sizeof(PetscInt));
#pragma omp atomic capture
  {
    before = keep->bytes;
    keep->bytes += bytes;
  }
  if (before + bytes > keep->budget || !(m->buf = nk ? malloc((size_t)bytes) : NULL, !nk || m->buf)) {
    /* over budget (or no memory): evaluated again later, and not counted as kept */
#pragma omp atomic
    keep->bytes -= bytes;
    return 0;
  }
  m->n = nk;
  BTEMemoArrays(m->buf, nk, &hw, &g2, &mi, &mj, &mm);
  for (PetscCount t = 0, o = 0; t < c; t++) {
    if (lower && w->i[t] != i) continue;
    mi[o]   = w->i[t];
    mj[o]   = w->j[t];
    mm[o]   = w->mode[t];
    hw[o]   = w->hw[t];
    g2[o++] = w->g2[t];
  }
  return 0;
}

/* Copies channels [a, e) of a kept state to out */
static void BTEMemoCopy(const BTEMemo *m, PetscCount a, PetscCount e, PetscInt *oi, PetscInt *oj, PetscInt *om, PetscReal *ohw, PetscReal *og2)
{
  PetscReal *hw, *g2;
  PetscInt  *mi, *mj, *mm;

  if (e <= a) return;
  BTEMemoArrays(m->buf, m->n, &hw, &g2, &mi, &mj, &mm);
  memcpy(oi, mi + a, (size_t)(e - a) * sizeof(PetscInt));
  memcpy(oj, mj + a, (size_t)(e - a) * sizeof(PetscInt));
  memcpy(om, mm + a, (size_t)(e - a) * sizeof(PetscInt));
  memcpy(ohw, hw + a, (size_t)(e - a) * sizeof(PetscReal));
  memcpy(og2, g2 + a, (size_t)(e - a) * sizeof(PetscReal));
}

#define BTE_GEN_ADVICE "use a smaller -bte_grid or -bte_window, a larger -bte_g2_cutoff, or more MPI ranks on more nodes"

/* First k in [0, n] with a[k] > v (a nondecreasing, length n + 1) */
static PetscInt BTEUpperBound(const PetscCount a[], PetscInt n, PetscCount v)
{
  PetscInt lo = 0, hi = n + 1;
  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;
    if (a[mid] > v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/* The channel search over the owned states: pass 0 counts (cnt[il] = channels state il holds,
   low[il] = those whose lower end it is), pass 1 stores them at the offsets cnt (load mode). With
   memo, pass 0 also keeps them (only those whose lower end the state is, with keeplower) and pass 1
   copies them from there. */
static PetscErrorCode BTEModelPass(BTE bte, const BTEPairSearch *p, const char name[], int pass, BTEMemo memo[], PetscBool keeplower, BTEKeep *keep, PetscCount cnt[], PetscCount low[], PetscCount *nlowtot, PetscBool monitor, PetscLogDouble t0)
{
  MPI_Comm       comm   = PetscObjectComm((PetscObject)bte);
  const PetscInt nl = bte->nlocal;
  PetscInt       nblock, nchunk, S, nthr = 1;
  PetscInt       lastpct = 0;
  int            err     = 0;
  PetscCount     nlowsum = 0;
  PetscMPIInt    rank;
  PetscLogDouble t1;
  BTEScratch    *scratch = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
#if defined(_OPENMP)
  nthr = omp_get_max_threads();
#endif
  /* chunks of consecutive states, whose candidates a batched model evaluates together (one state
     each with memo: the kept channels are per state); blocks (for the progress lines) of at least
     4 chunks per thread: with few, expensive states (an interpolated material) small blocks left
     most threads idle */
  S      = memo ? 1 : PetscMax(1, p->chunk);
  nchunk = (nl + S - 1) / S;
  nblock = PetscMax(1, PetscMin(100, nchunk / (4 * nthr)));
  if (memo && !pass) PetscCall(PetscCalloc1(nthr, &scratch));
  for (PetscInt blk = 0; blk < nblock; blk++) {
    PetscInt b0 = (PetscInt)(((PetscInt64)blk * nchunk) / nblock), b1 = (PetscInt)(((PetscInt64)(blk + 1) * nchunk) / nblock);
#pragma omp parallel for schedule(dynamic, 1) reduction(| : err) reduction(+ : nlowsum)
    for (PetscInt ic = b0; ic < b1; ic++) {
      PetscInt   il = ic * S, ie = PetscMin(il + S, nl);
      PetscCount c = 0, l = 0;
      if (err) continue;
      if (!pass) {
        if (memo) {
          int t = 0;
  #if defined(_OPENMP)
          t = omp_get_thread_num();
  #endif
          err |= BTEPairsOfKeep(p, p->rstart + il, keeplower, keep, &scratch[t], &memo[il], &c, &l);
          cnt[il] = c;
          low[il] = l;
        } else err |= BTEPairsOfRange(p, p->rstart + il, p->rstart + ie, PETSC_FALSE, 0, -1, NULL, NULL, NULL, NULL, NULL, cnt + il, low + il, NULL, &c, &l);
      } else if (memo && memo[il].n >= 0) {
        PetscCount o = cnt[il];
        c            = memo[il].n;
        l            = low[il + 1] - low[il];
        BTEMemoCopy(&memo[il], 0, c, bte->ch.i + o, bte->ch.j + o, bte->ch.mode + o, bte->ch.hw + o, bte->ch.g2 + o);
        free(memo[il].buf);
        memo[il].buf = NULL;
        if (c != cnt[il + 1] - o) err |= 2;
      } else {
        PetscCount o = cnt[il];
        err |= BTEPairsOfRange(p, p->rstart + il, p->rstart + ie, PETSC_FALSE, 0, -1, bte->ch.i + o, bte->ch.j + o, bte->ch.mode + o, bte->ch.hw + o, bte->ch.g2 + o, NULL, NULL, cnt + il, &c, &l);
        if (c != cnt[ie] - o) err |= 2;
      }
      nlowsum += l;
    }
    if (err) break;
    {
      PetscInt pct = (PetscInt)((100 * (blk + 1)) / nblock);
      if (pct / 10 > lastpct / 10 || blk == nblock - 1) {
        PetscCall(PetscTime(&t1));
        if ((monitor || (bte->genmonauto && t1 - t0 >= BTE_GEN_MONITOR_AFTER)) && pct / 10 > lastpct / 10 && !rank) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  generate %s: %s channels %3" PetscInt_FMT "%% of %" PetscInt_FMT " states on rank 0, %.1f s\n", name, pass ? "storing" : "counting", pct, nl, t1 - t0));
        lastpct = pct;
      }
    }
  }
  if (scratch) {
    for (PetscInt t = 0; t < nthr; t++) {
      free(scratch[t].i);
      free(scratch[t].j);
      free(scratch[t].mode);
      free(scratch[t].hw);
      free(scratch[t].g2);
    }
    PetscCall(PetscFree(scratch));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_BOR, comm));
  if (err && memo)
    for (PetscInt il = 0; il < nl; il++) {
      free(memo[il].buf);
      memo[il].buf = NULL;
    }
  PetscCheck(!(err & 4), comm, PETSC_ERR_USER_INPUT, "Model %s: a channel has |g|^2 or a phonon energy out of range (expected |g|^2 in [0, %g] eV^2, up to -1e-12 of rounding, and a phonon energy <= %g eV, both finite): check the model's parameters", name, (double)BTE_G2_MAX, (double)BTE_PHONON_MAX);
  PetscCheck(!(err & 16), comm, PETSC_ERR_USER_INPUT, "Model %s: a coupled phonon energy exceeds the model's hwmax = %g eV within the window's energy range: pairs of states farther apart than hwmax are not searched, so their channels would be lost; the model must set hwmax to at least its largest coupled phonon energy", name, (double)p->spec->hwmax);
  PetscCheck(!(err & 8), comm, PETSC_ERR_MEM, "Model %s: out of memory keeping the channels of the counting pass; give -bte_generate_reuse 0 (every coupling is then evaluated twice, in less memory)", name);
  PetscCheck(!(err & 1), comm, PETSC_ERR_LIB, "Model %s: coupling evaluation failed", name);
  PetscCheck(!(err & 2), comm, PETSC_ERR_PLIB, "Model %s: coupling is not reproducible (two evaluations of a pair differ)", name);
  *nlowtot = nlowsum;
  PetscFunctionReturn(0);
}

/* BTEGenerateTable: fill the channels whose lower end this rank owns in batches of at most
   `batch` channels (whole states where they fit, else pieces of one state) and write each batch
   at its offset; off[il] are the offsets of the owned states' lower channels (off[nl] = nown).
   With memo, the channels come from the counting pass (each state's block freed once written). */
static PetscErrorCode BTEModelStream(BTE bte, const BTEPairSearch *p, const BTEGenStates *s, const char name[], const PetscCount off[], BTEMemo memo[], PetscInt64 batch, PetscBool monitor, PetscLogDouble t0)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  const PetscInt nl   = bte->nlocal;
  PetscCount     nown = off[nl], nb, c0 = 0;
  PetscInt64     nbatch = 0, nrounds, lastpct = 0, nown64 = (PetscInt64)nown, nglobal = bte->ch.nglobal;
  PetscInt      *bi[2] = {NULL, NULL}, *bj[2] = {NULL, NULL}, *bm[2] = {NULL, NULL};
  PetscReal     *bhw[2] = {NULL, NULL}, *bg2[2] = {NULL, NULL};
  PetscMPIInt    rank, size;
  PetscInt       nbuf, S;
  PetscErrorCode ierr = 0;
  PetscLogDouble t1;
  BTETableStream ts = NULL;
  char           what[256];

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  nbuf = size == 1 ? 2 : 1; /* one rank: a helper thread writes a batch while the next is filled */
  if (batch <= 0) {        /* default: 2^25 channels in all (0.94 GB), at most a quarter of the rank's memory */
    PetscLogDouble avail;
    PetscBool      user;
    PetscCall(BTEModelMemoryAvailable(bte, &avail, &user));
    batch = ((PetscInt64)1 << 25) / nbuf;
    if ((PetscLogDouble)batch * nbuf * BTE_BYTES_PER_CHANNEL > avail / 4) batch = PetscMax((PetscInt64)1024, (PetscInt64)(avail / 4 / (nbuf * BTE_BYTES_PER_CHANNEL)));
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "Generating the table in batches of %" PetscInt64_FMT " channels (-bte_generate_batch; %" PetscInt_FMT " in memory)", batch, nbuf));
  PetscCall(BTEModelCheckMemory(bte, (PetscLogDouble)batch * nbuf * BTE_BYTES_PER_CHANNEL + (PetscLogDouble)s->n * BTE_GEN_BYTES_PER_STATE + (PetscLogDouble)nl * (BTE_BYTES_PER_STATE_OWN + 2 * sizeof(PetscCount)), 1.0, what, "use a smaller -bte_generate_batch, or fewer ranks per node", NULL));
  nb = (PetscCount)PetscMax(1, PetscMin(batch, nown64));

  /* batches: [c0, c1) ends at the last state boundary within c0 + batch, or splits a state */
  for (PetscCount a = 0; a < nown; nbatch++) {
    PetscCount t = PetscMin(a + (PetscCount)batch, nown), k = BTEUpperBound(off, nl, t) - 1;
    a = off[k] > a ? off[k] : t;
  }
  if (nbatch < 2) nbuf = 1;
  for (PetscInt k = 0; k < nbuf; k++) PetscCall(PetscMalloc5(nb, &bi[k], nb, &bj[k], nb, &bm[k], nb, &bhw[k], nb, &bg2[k]));
  PetscCallMPI(MPI_Allreduce(&nbatch, &nrounds, 1, MPI_INT64_T, MPI_MAX, comm));
  PetscCall(PetscInfo(bte, "model %s: writing %" PetscInt64_FMT " channels from this rank in %" PetscInt64_FMT " batch(es) of at most %" PetscInt64_FMT "\n", name, nown64, nbatch, batch));

  ierr = BTETableStreamBegin(bte, bte->streamfile, nown64, &ts);
  for (PetscInt64 r = 0; r < nrounds && !ierr; r++) {
    PetscCount c1 = c0;
    PetscInt   k  = (PetscInt)(r % nbuf);
    int        err = 0;
    if (c0 < nown) {
      PetscCount t = PetscMin(c0 + (PetscCount)batch, nown), kk = BTEUpperBound(off, nl, t) - 1;
      PetscInt   s0, s1;
      PetscInt  *oi = bi[k], *oj = bj[k], *om = bm[k];
      PetscReal *ohw = bhw[k], *og2 = bg2[k];
      c1 = off[kk] > c0 ? off[kk] : t;
      s0 = BTEUpperBound(off, nl, c0) - 1;     /* off[s0] <= c0 < off[s0+1] */
      s1 = BTEUpperBound(off, nl, c1 - 1) - 1; /* the state holding row c1 - 1 */
      /* chunks of consecutive states (BTEModelPass), one state each with memo */
      S = memo ? 1 : PetscMax(1, p->chunk);
#pragma omp parallel for schedule(dynamic, 1) reduction(| : err)
      for (PetscInt ic = 0; ic < (s1 - s0 + S) / S; ic++) {
        PetscInt   il = s0 + ic * S, ie = PetscMin(il + S, s1 + 1);
        PetscCount a = PetscMax(c0, off[il]), e = PetscMin(c1, off[ie]), c = 0, l = 0, o = a - c0;
        if (err || e <= a) continue;
        if (memo && memo[il].n >= 0) {
          if (memo[il].n != off[il + 1] - off[il]) err |= 2;
          else BTEMemoCopy(&memo[il], a - off[il], e - off[il], oi + o, oj + o, om + o, ohw + o, og2 + o);
          if (e == off[il + 1]) {
            free(memo[il].buf);
            memo[il].buf = NULL;
          }
          continue;
        }
        err |= BTEPairsOfRange(p, p->rstart + il, p->rstart + ie, PETSC_TRUE, a - off[il], e - a, oi + o, oj + o, om + o, ohw + o, og2 + o, NULL, NULL, off + il, &c, &l);
        if (c != off[ie] - off[il]) err |= 2;
      }
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_BOR, comm));
    if (err) {
      if (memo)
        for (PetscInt il = 0; il < nl; il++) {
          free(memo[il].buf);
          memo[il].buf = NULL;
        }
      PetscCall(BTETableStreamDestroy(&ts));
      for (k = 0; k < nbuf; k++) PetscCall(PetscFree5(bi[k], bj[k], bm[k], bhw[k], bg2[k]));
      PetscCheck(!(err & 4), comm, PETSC_ERR_USER_INPUT, "Model %s: a channel has |g|^2 or a phonon energy out of range (expected |g|^2 in [0, %g] eV^2, up to -1e-12 of rounding, and a phonon energy <= %g eV, both finite): check the model's parameters", name, (double)BTE_G2_MAX, (double)BTE_PHONON_MAX);
      PetscCheck(!(err & 16), comm, PETSC_ERR_USER_INPUT, "Model %s: a coupled phonon energy exceeds the model's hwmax = %g eV within the window's energy range: pairs of states farther apart than hwmax are not searched, so their channels would be lost; the model must set hwmax to at least its largest coupled phonon energy", name, (double)p->spec->hwmax);
      PetscCheck(!(err & 1), comm, PETSC_ERR_LIB, "Model %s: coupling evaluation failed", name);
      SETERRQ(comm, PETSC_ERR_PLIB, "Model %s: coupling is not reproducible (two evaluations of a pair differ)", name);
    }
    if (nbuf > 1) ierr = BTETableStreamWriteAsync(ts, (PetscInt64)(c1 - c0), bi[k], bj[k], bm[k], bhw[k], bg2[k]);
    else ierr = BTETableStreamWrite(ts, (PetscInt64)(c1 - c0), bi[k], bj[k], bm[k], bhw[k], bg2[k]);
    c0 = c1;
    if ((monitor || bte->genmonauto) && !rank && !ierr) {
      PetscInt64 pct = nown64 ? (100 * (PetscInt64)c0) / nown64 : 100;
      if (pct / 10 > lastpct / 10) PetscCall(PetscTime(&t1));
      if (pct / 10 > lastpct / 10) {
        if (monitor || t1 - t0 >= BTE_GEN_MONITOR_AFTER) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  generate %s: writing channels %3" PetscInt64_FMT "%% of %" PetscInt64_FMT " on rank 0 (batch %" PetscInt64_FMT " of %" PetscInt64_FMT "), %.1f s\n", name, pct, nown64, r + 1, nrounds, t1 - t0));
        lastpct = pct;
      }
    }
  }
  if (!ierr) ierr = BTETableStreamEnd(ts); /* waits for the last batch */
  PetscCall(BTETableStreamDestroy(&ts));
  for (PetscInt k = 0; k < nbuf; k++) PetscCall(PetscFree5(bi[k], bj[k], bm[k], bhw[k], bg2[k]));
  PetscCall(ierr);
  PetscCall(PetscInfo(bte, "model %s: wrote %" PetscInt64_FMT " channels to %s\n", name, nglobal, bte->streamfile));
  PetscFunctionReturn(0);
}

/* The channels generated by the model itself (spec->channels_count, channels_fill: the GPU import),
   for a table built in memory: the same channels in the same order as the passes below make. *done
   false where the model cannot or, for a table loaded only if it fits, where the model's bound on
   the channels does not fit (the passes then count exactly and decide). */
static PetscErrorCode BTEModelChannelsByModel(BTE bte, const BTEModelSpec *spec, const BTEPairSearch *p, const BTEGenStates *s, PetscBool3 load, PetscLogDouble t0, PetscBool *done)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  BTEModelSearch m;
  PetscInt      *bin;
  PetscCount     upper = 0, n = 0, nlow = 0;
  PetscBool      ok = PETSC_FALSE, bad = PETSC_FALSE;
  PetscInt64     nlow64, nglobal;
  int            flag;
  PetscLogDouble t1;
  char           what[256];

  PetscFunctionBegin;
  *done = PETSC_FALSE;
  PetscCall(PetscMalloc1(s->n, &bin));
  for (PetscInt i = 0; i < s->n; i++) bin[i] = BTEBinOf(p, s->e[i]);
  m.n        = s->n;
  m.rstart   = p->rstart;
  m.rend     = p->rend;
  m.kidx     = s->kidx;
  m.band     = s->band;
  m.ijk      = s->ijk;
  m.bin      = bin;
  m.e        = s->e;
  m.nbins    = p->nbins;
  m.binstart = p->binstart;
  m.binlist  = p->binlist;
  m.W        = p->W;
  m.tol      = p->tol;
  m.hwmin    = p->hwmin;
  m.g2min    = p->g2min;
  for (int a = 0; a < 3; a++) m.nk[a] = p->z->nk[a];
  PetscCall(spec->channels_count(spec->ctx, bte, &m, &upper, &ok));
  PetscCall(PetscFree(bin));
  flag = ok ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_LAND, comm)); /* all ranks one way */
  if (!flag) PetscFunctionReturn(0);
  {
    PetscLogDouble need = (PetscLogDouble)upper * BTE_BYTES_PER_CHANNEL + (PetscLogDouble)s->n * BTE_GEN_BYTES_PER_STATE + (PetscLogDouble)bte->nlocal * (BTE_BYTES_PER_STATE_OWN + 2 * sizeof(PetscCount));
    PetscCall(PetscSNPrintf(what, sizeof(what), "The scattering table (at most %" PetscInt64_FMT " channels on this rank)", (PetscInt64)upper));
    if (load == PETSC_BOOL3_UNKNOWN) {
      PetscBool fits;
      PetscCall(BTEModelCheckMemory(bte, need, 1.0, what, BTE_GEN_ADVICE, &fits));
      if (!fits) PetscFunctionReturn(0);
    } else {
      if (bte->runmem) {
        PetscLogDouble run;
        PetscCall(BTERunMemoryEstimate(bte, upper, bte->nlocal, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, &run));
        if (run > need) PetscCall(PetscSNPrintf(what, sizeof(what), "A run on the scattering table (at most %" PetscInt64_FMT " channels on this rank; table, collision operator and work vectors)", (PetscInt64)upper));
        need = PetscMax(need, run);
      }
      PetscCall(BTEModelCheckMemory(bte, need, 1.0, what, bte->runmem ? BTE_GEN_ADVICE ", or give -bte_memory_check 0 to try anyway" : BTE_GEN_ADVICE, NULL));
    }
  }
  PetscCall(BTEAllocateChannels(bte, upper));
  PetscCall(spec->channels_fill(spec->ctx, bte, &n, &nlow, &bad));
  flag = bad ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_LOR, comm));
  PetscCheck(!flag, comm, PETSC_ERR_USER_INPUT, "Model %s: a channel has |g|^2 or a phonon energy out of range (expected |g|^2 in [0, %g] eV^2, up to -1e-12 of rounding, and a phonon energy <= %g eV, both finite): check the model's parameters", spec->name, (double)BTE_G2_MAX, (double)BTE_PHONON_MAX);
  PetscCheck(n <= upper && nlow <= n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Model %s: %" PetscInt64_FMT " channels (%" PetscInt64_FMT " from their lower end) where at most %" PetscInt64_FMT " could come", spec->name, (PetscInt64)n, (PetscInt64)nlow, (PetscInt64)upper);
  bte->ch.n = n; /* the arrays have room for upper */
  nlow64    = (PetscInt64)nlow;
  PetscCallMPI(MPI_Allreduce(&nlow64, &nglobal, 1, MPIU_INT64, MPI_SUM, comm));
  bte->ch.nglobal = nglobal;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(bte, "model %s: %" PetscInt64_FMT " channels (%" PetscInt64_FMT " held here) generated by the model in %.2f s\n", spec->name, nglobal, (PetscInt64)n, t1 - t0));
  *done = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelChannels(BTE bte, const BTEModelSpec *spec, const BTEZone *z, const BTEGenStates *s, PetscBool monitor, PetscInt64 batch)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  BTEPairSearch  p;
  PetscCount    *cnt, *low, total = 0, nlowtot = 0;
  PetscInt64     nglobal;
  PetscLogDouble t0, t1;
  PetscInt       nl     = bte->nlocal;
  PetscBool      stream = bte->streamfile[0] ? PETSC_TRUE : PETSC_FALSE;
  PetscBool3     load   = stream ? PETSC_BOOL3_FALSE : bte->loadchannels;
  PetscBool      reuse  = (bte->genreuse_set ? bte->genreuse : !spec->reevaluate) && (stream || load != PETSC_BOOL3_FALSE) ? PETSC_TRUE : PETSC_FALSE;
  BTEMemo       *memo   = NULL;
  BTEKeep        keep   = {0, 0};

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  p.spec   = spec;
  p.z      = z;
  p.s      = s;
  p.rstart = bte->rstart;
  p.rend   = bte->rstart + bte->nlocal;
  p.tol    = bte->tol_eta * bte->smearing;
  p.W      = spec->hwmax + p.tol;
  p.span   = bte->emax - bte->emin;
  p.pairbatch = PetscMin(PetscMax(bte->pairbatch, 1), BTE_PAIR_BATCH);
  p.hwmin  = PetscMax(bte->phonon_min, BTE_PHONON_FLOOR); /* hw -> 0: infinite Bose factor */
  p.g2min  = bte->g2_cutoff;
  p.emin   = bte->emin;
  p.binw   = p.W * (1 + 1e-9);
  {
    PetscReal span = bte->emax - bte->emin, nb = PetscFloorReal(span / p.binw) + 1;
    p.nbins        = (PetscInt)PetscMin(nb, (PetscReal)PetscMax(1, s->n));
    if (p.nbins < nb) p.binw = span / (p.nbins - 0.5); /* more bins than states: wider bins, same rule */
  }
  PetscCall(PetscCalloc2(p.nbins + 1, &p.binstart, s->n, &p.binlist));
  for (PetscInt i = 0; i < s->n; i++) p.binstart[BTEBinOf(&p, s->e[i]) + 1]++;
  for (PetscInt b = 0; b < p.nbins; b++) p.binstart[b + 1] += p.binstart[b];
  {
    PetscInt *fill;
    PetscCall(PetscCalloc1(p.nbins, &fill));
    for (PetscInt i = 0; i < s->n; i++) {
      PetscInt b                          = BTEBinOf(&p, s->e[i]);
      p.binlist[p.binstart[b] + fill[b]++] = i; /* ascending within each bin */
    }
    PetscCall(PetscFree(fill));
  }
  if (spec->channels_count && spec->channels_fill && load != PETSC_BOOL3_FALSE) {
    PetscBool done;
    PetscCall(BTEModelChannelsByModel(bte, spec, &p, s, load, t0, &done));
    if (done) {
      PetscCall(PetscFree2(p.binstart, p.binlist));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscMalloc2(nl + 1, &cnt, nl + 1, &low));

  /* Models that take a Cartesian q (coupling): the reduced q of every grid offset, made once (the
     search over lattice translations, per candidate pair, was a quarter of the pass); the values are
     BTEZoneReduce's, which depends on the offset modulo the grid only */
  p.qtab = NULL;
  if (spec->coupling && !spec->coupling_grid && !spec->coupling_grid_batch) {
    const PetscInt64 nt = (PetscInt64)z->nk[0] * z->nk[1] * z->nk[2];
    if (nt <= BTE_QTAB_MAX) {
      PetscCall(PetscMalloc1(3 * nt, &p.qtab));
#pragma omp parallel for schedule(static)
      for (PetscInt64 t = 0; t < nt; t++) {
        PetscInt d[3];
        d[0] = (PetscInt)(t / ((PetscInt64)z->nk[1] * z->nk[2]));
        d[1] = (PetscInt)((t / z->nk[2]) % z->nk[1]);
        d[2] = (PetscInt)(t % z->nk[2]);
        BTEZoneReduce(z, d, p.qtab + 3 * t);
      }
    }
  }

  /* A batched model (the GPU import) gets the candidates of several consecutive states per call
     when one state has fewer than a batch: fewer round trips to the device. Chunks of states of
     about a batch of candidates (a state's candidates: its bin and the two beside it, about half
     of them evaluated from this end). The table does not depend on the chunks. */
  p.chunk = 1;
  p.nbuf  = 0;
  p.buf   = NULL;
  if (spec->coupling_grid_batch) {
    PetscLogDouble cand = 0;
    PetscInt       nthr = 1;
    for (PetscInt b = 0; b < p.nbins; b++) {
      PetscLogDouble nb = p.binstart[b + 1] - p.binstart[b], near = nb;
      if (b > 0) near += p.binstart[b] - p.binstart[b - 1];
      if (b + 1 < p.nbins) near += p.binstart[b + 2] - p.binstart[b + 1];
      cand += nb * near;
    }
    cand    = cand / (2.0 * PetscMax(1, s->n));
#if defined(_OPENMP)
    nthr = omp_get_max_threads();
#endif
    /* and at least 4 chunks per thread (the threads share the states) */
    p.chunk = (PetscInt)PetscMax(1.0, PetscMin(PetscMin(256.0, (PetscReal)(nl / (4 * nthr))), PetscFloorReal(p.pairbatch / PetscMax(cand, 1.0))));
    p.nbuf = nthr;
    PetscCall(PetscCalloc1(nthr, &p.buf));
    for (PetscInt t = 0; t < nthr; t++) {
      BTEBatchBuf *B  = &p.buf[t];
      size_t       np = (size_t)p.pairbatch, nm = np * spec->nmodes;
      PetscCall(PetscMalloc4(np, &B->cand, np, &B->cst, 2 * np, &B->cends, np + 1, &B->moff));
      PetscCall(PetscMalloc4(nm, &B->mode, np, &B->cde, nm, &B->hw, nm, &B->g2));
    }
    PetscCall(PetscInfo(bte, "model %s: couplings in batches of up to %" PetscInt_FMT " pairs from up to %" PetscInt_FMT " consecutive states (about %.0f candidates per state)\n", spec->name, p.pairbatch, p.chunk, (double)cand));
  }

  /* A quick estimate from a sample of owned states, so that a table far too large is refused
     before the (long) counting pass. Not when the channels are only counted or streamed to a
     file: then the memory does not grow with the table. */
  if (load == PETSC_BOOL3_TRUE) {
    PetscInt   nsample = PetscMin(bte->nlocal, 256);
    PetscCount sum     = 0;
    int        err     = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : sum) reduction(| : err)
    for (PetscInt t = 0; t < nsample; t++) {
      PetscInt   i = p.rstart + (PetscInt)(((PetscInt64)t * bte->nlocal) / nsample);
      PetscCount c = 0, l;
      err |= BTEPairsOf(&p, i, PETSC_FALSE, 0, -1, NULL, NULL, NULL, NULL, NULL, &c, &l);
      sum += c;
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_INT, MPI_BOR, comm)); /* all ranks stop together */
    PetscCheck(!(err & 4), comm, PETSC_ERR_USER_INPUT, "Model %s: a channel has |g|^2 or a phonon energy out of range (expected |g|^2 in [0, %g] eV^2, up to -1e-12 of rounding, and a phonon energy <= %g eV, both finite): check the model's parameters", spec->name, (double)BTE_G2_MAX, (double)BTE_PHONON_MAX);
    PetscCheck(!(err & 16), comm, PETSC_ERR_USER_INPUT, "Model %s: a coupled phonon energy exceeds the model's hwmax = %g eV within the window's energy range: pairs of states farther apart than hwmax are not searched, so their channels would be lost; the model must set hwmax to at least its largest coupled phonon energy", spec->name, (double)spec->hwmax);
    PetscCheck(!err, comm, PETSC_ERR_LIB, "Model %s: coupling evaluation failed", spec->name);
    {
      /* collective: every rank checks, also one that owns no state */
      PetscLogDouble est = nsample ? (PetscLogDouble)sum * bte->nlocal / nsample : 0;
      char           what[256];
      PetscCall(PetscInfo(bte, "estimated %g channels on this rank from %" PetscInt_FMT " sampled states\n", (double)est, nsample));
      PetscCall(PetscSNPrintf(what, sizeof(what), "The scattering table (about %.3g channels on this rank, estimated from %" PetscInt_FMT " sampled states)", (double)est, nsample));
      /* margin 1.25 (the sampling error of 256 states is a few %): the exact check follows the counting pass */
      if (bte->runmem) { /* a run follows: its collision operator and work vectors too */
        PetscLogDouble run;
        PetscCall(BTERunMemoryEstimate(bte, (PetscCount)est, bte->nlocal, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, &run));
        PetscCall(PetscSNPrintf(what, sizeof(what), "A run on the scattering table (about %.3g channels on this rank, estimated from %" PetscInt_FMT " sampled states; table, collision operator and work vectors)", (double)est, nsample));
        PetscCall(BTEModelCheckMemory(bte, run, 1.25, what, BTE_GEN_ADVICE ", or give -bte_memory_check 0 to try anyway", NULL));
      } else PetscCall(BTEModelCheckMemory(bte, est * BTE_BYTES_PER_CHANNEL, 1.25, what, BTE_GEN_ADVICE, NULL));
    }
  }

  /* Keep the counting pass's channels, up to 40% of the memory this rank may use (a table in
     memory then needs as much again while it is filled; a stream keeps only what it writes):
     their couplings are evaluated once. The states past that budget are evaluated again. */
  if (reuse) {
    PetscBool user;
    PetscCall(BTEModelMemoryAvailable(bte, &keep.budget, &user));
    keep.budget *= 0.4;
    PetscCall(PetscMalloc1(nl + 1, &memo));
    for (PetscInt il = 0; il <= nl; il++) {
      memo[il].buf = NULL;
      memo[il].n   = -1;
    }
  }

  /* Pass 0 counts: per owned state, the channels it holds and those whose lower end it is. */
  PetscCall(BTEModelPass(bte, &p, spec->name, 0, memo, stream, &keep, cnt, low, &nlowtot, monitor, t0));
  if (memo) {
    PetscLogDouble kept = 0, tot[2];
    for (PetscInt il = 0; il < nl; il++) kept += memo[il].n >= 0 ? 1 : 0;
    tot[0] = kept;
    tot[1] = nl;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPIU_PETSCLOGDOUBLE, MPI_SUM, comm));
    PetscCall(PetscInfo(bte, "model %s: kept the channels of %.0f of %.0f states from the counting pass (%.3g GB on this rank, budget %.3g GB)\n", spec->name, tot[0], tot[1], keep.bytes / 1e9, keep.budget / 1e9));
  }
  total = 0; /* cnt, low -> offsets */
  for (PetscInt il = 0, ol = 0; il < nl; il++) {
    PetscCount c = cnt[il], l = low[il];
    cnt[il]      = total;
    low[il]      = ol;
    total += c;
    ol += l;
  }
  cnt[nl] = total;
  low[nl] = nlowtot;
  {
    PetscInt64 nl64 = (PetscInt64)nlowtot;
    PetscCallMPI(MPI_Allreduce(&nl64, &nglobal, 1, MPIU_INT64, MPI_SUM, comm));
  }
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(bte, "model %s: counted %" PetscInt64_FMT " channels (%" PetscInt64_FMT " held here) in %.2f s\n", spec->name, nglobal, (PetscInt64)total, t1 - t0));

  {
    char           what[256];
    PetscLogDouble need = (PetscLogDouble)total * BTE_BYTES_PER_CHANNEL + (PetscLogDouble)s->n * BTE_GEN_BYTES_PER_STATE + (PetscLogDouble)bte->nlocal * (BTE_BYTES_PER_STATE_OWN + 2 * sizeof(PetscCount));
    PetscCall(PetscSNPrintf(what, sizeof(what), "The scattering table (%" PetscInt64_FMT " channels on this rank)", (PetscInt64)total));
    if (memo && load != PETSC_BOOL3_FALSE) {
      /* the counting pass's kept channels are held while the table is filled beside them: both
         must fit (info on gaas 120^3 passed the table's check at 17 GB and was killed at 24 GB);
         where only the table fits, they are dropped and evaluated again */
      PetscBool both;
      PetscCall(BTEModelCheckMemory(bte, need + keep.bytes, 1.0, what, BTE_GEN_ADVICE, &both));
      if (!both) {
        for (PetscInt il = 0; il < nl; il++) {
          free(memo[il].buf);
          memo[il].buf = NULL;
          memo[il].n   = -1;
        }
        PetscCall(PetscInfo(bte, "model %s: the table and the kept channels (%.3g GB on this rank) do not fit together: the kept channels dropped\n", spec->name, keep.bytes / 1e9));
        keep.bytes = 0;
      }
    }
    if (load == PETSC_BOOL3_UNKNOWN) {
      PetscBool fits;
      if (bte->diagnostics) { /* a loaded table gets the setup diagnostics, which build the run's collision operator */
        PetscLogDouble run;
        PetscCall(BTERunMemoryEstimate(bte, total, bte->nlocal, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, &run));
        need = PetscMax(need, run);
      }
      PetscCall(BTEModelCheckMemory(bte, need, 1.0, what, BTE_GEN_ADVICE, &fits));
      load = fits ? PETSC_BOOL3_TRUE : PETSC_BOOL3_FALSE;
    } else if (load == PETSC_BOOL3_TRUE) {
      if (bte->runmem) { /* a run follows: the larger of building the table and running on it */
        PetscLogDouble run;
        PetscCall(BTERunMemoryEstimate(bte, total, bte->nlocal, PETSC_FALSE, (PetscBool)!bte->devlayout, NULL, &run));
        if (run > need) PetscCall(PetscSNPrintf(what, sizeof(what), "A run on the scattering table (%" PetscInt64_FMT " channels on this rank; table, collision operator and work vectors)", (PetscInt64)total));
        need = PetscMax(need, run);
      }
      PetscCall(BTEModelCheckMemory(bte, need, 1.0, what, bte->runmem ? BTE_GEN_ADVICE ", or give -bte_memory_check 0 to try anyway" : BTE_GEN_ADVICE, NULL));
    }
  }
  if (load == PETSC_BOOL3_TRUE) { /* pass 1 stores them at per-state offsets */
    PetscCount nlow1;
    PetscCall(BTEAllocateChannels(bte, total));
    PetscCall(BTEModelPass(bte, &p, spec->name, 1, memo, PETSC_FALSE, &keep, cnt, low, &nlow1, monitor, t0));
    bte->ch.nglobal = nglobal;
  } else { /* counted only, or streamed to the file */
    PetscCall(BTEFreeChannels(bte));
    bte->ch.nglobal = nglobal;
    bte->nheld      = total;
    bte->chcounted  = PETSC_TRUE;
    if (memo && !stream) /* counted only: the kept channels are not needed */
      for (PetscInt il = 0; il < nl; il++) {
        free(memo[il].buf);
        memo[il].buf = NULL;
      }
    if (stream) PetscCall(BTEModelStream(bte, &p, s, spec->name, low, memo, batch, monitor, t0));
  }
  PetscCall(PetscFree(memo));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(bte, "model %s: %" PetscInt64_FMT " channels (%" PetscInt64_FMT " held here%s) in %.2f s\n", spec->name, nglobal, (PetscInt64)total, bte->chcounted ? ", not loaded" : "", t1 - t0));
  PetscCall(PetscFree2(cnt, low));
  PetscCall(PetscFree2(p.binstart, p.binlist));
  PetscCall(PetscFree(p.qtab));
  for (PetscInt t = 0; t < p.nbuf; t++) {
    PetscCall(PetscFree4(p.buf[t].cand, p.buf[t].cst, p.buf[t].cends, p.buf[t].moff));
    PetscCall(PetscFree4(p.buf[t].mode, p.buf[t].cde, p.buf[t].hw, p.buf[t].g2));
  }
  PetscCall(PetscFree(p.buf));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------- */


/* The model's own options as given (-bte_<model>_*, e.g. -bte_si_holes_bands kp6) appended to the
   table's source, so that the command it shows makes the same table; " ..." ends a list that does
   not fit. */
static PetscErrorCode AppendModelOptions(BTE bte, const char *model, char *buf, size_t len)
{
  char   pre[64], *all, *tok, *save = NULL;
  size_t n;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(pre, sizeof(pre), "-bte_%s_", model));
  for (char *c = pre; *c; c++)
    if (*c == '-' && c != pre) *c = '_';
  n = strlen(pre);
  PetscCall(PetscOptionsGetAll(((PetscObject)bte)->options, &all));
  for (tok = strtok_r(all, " \t\n", &save); tok;) {
    char  *val = strtok_r(NULL, " \t\n", &save);
    size_t used = strlen(buf);
    int    isname = val && val[0] == '-' && isalpha((unsigned char)val[1]);
    if (!strncmp(tok, pre, n)) {
      size_t need = strlen(tok) + 1 + (val && !isname ? strlen(val) + 1 : 0);
      if (used + need + 5 > len) {
        if (used + 5 <= len) PetscCall(PetscStrlcat(buf, " ...", len));
        break;
      }
      PetscCall(PetscStrlcat(buf, " ", len));
      PetscCall(PetscStrlcat(buf, tok, len));
      if (val && !isname) {
        PetscCall(PetscStrlcat(buf, " ", len));
        PetscCall(PetscStrlcat(buf, val, len));
      }
    }
    tok = val && !isname ? strtok_r(NULL, " \t\n", &save) : val;
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}
PetscErrorCode BTEModelBuild(BTE bte, const BTEModelSpec *spec)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  BTEZone        z;
  BTEGenStates   s = {0};
  PetscInt64     nktot;
  PetscBool      monitor = bte->genmonitor;
  PetscInt       batch   = bte->genbatch;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(PetscTime(&t0));
  PetscCheck(spec->dim == 2 || spec->dim == 3, comm, PETSC_ERR_ARG_WRONG, "Model %s: dimension must be 2 or 3", spec->name);
  PetscCheck(spec->nbands >= 1 && spec->nbands <= BTE_MAX_BANDS, comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: nbands must be 1..%d", spec->name, BTE_MAX_BANDS);
  PetscCheck(spec->nmodes >= 1 && spec->nmodes <= BTE_MAX_MODES, comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: nmodes must be 1..%d", spec->name, BTE_MAX_MODES);
  PetscCheck(spec->bands, comm, PETSC_ERR_ARG_NULL, "Model %s: the bands callback is required", spec->name);
  PetscCheck(!bte->pairbatch_set || spec->coupling_grid_batch || !spec->coupling, comm, PETSC_ERR_USER_INPUT, "-bte_generate_pair_batch sets how many pairs a model that evaluates its couplings in batches gets at once (the Perturbo import on a GPU or with -bte_perturbo_device host_batch); model %s evaluates them one pair at a time: leave it out", spec->name);
  PetscCheck(spec->hwmax >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: hwmax must be >= 0", spec->name);
  PetscCheck(spec->spin == 1 || spec->spin == 2, comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: spin (the spin degeneracy) must be 1 or 2, got %" PetscInt_FMT, spec->name, (PetscInt)spec->spin);
  PetscCheck(spec->carrier == -1 || spec->carrier == 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: carrier must be -1 (electrons) or +1 (holes), got %" PetscInt_FMT, spec->name, (PetscInt)spec->carrier);
  PetscCheck(!PetscIsInfOrNanReal(spec->eedge), comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: eedge (the band edge, the window's bottom) must be finite", spec->name);
  PetscCheck(batch >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_generate_batch must be >= 0 (0: automatic), got %" PetscInt_FMT, batch);

  PetscCall(BTEFreeStates(bte));
  PetscCall(BTEFreeChannels(bte));
  /* grid and state-space description */
  PetscCall(PetscMemzero(&bte->grid, sizeof(bte->grid)));
  bte->grid.dim = spec->dim;
  for (PetscInt a = 0; a < 9; a++) bte->grid.lattice[a] = spec->lattice[a];
  bte->grid.nk[0] = bte->grid.nk[1] = bte->ngrid;
  bte->grid.nk[2]                   = spec->dim == 3 ? bte->ngrid : 1;
  if (spec->nk[0] > 0) {
    for (PetscInt a = 0; a < 3; a++) bte->grid.nk[a] = spec->nk[a];
    PetscCheck(spec->nk[1] > 0 && spec->nk[2] > 0 && (spec->dim == 3 || spec->nk[2] == 1), comm, PETSC_ERR_ARG_OUTOFRANGE, "Model %s: k grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " must be positive (1 along a3 in 2D)", spec->name, spec->nk[0], spec->nk[1], spec->nk[2]);
  }
  PetscCall(BTEGridSetReciprocal(&bte->grid));
  bte->nbands  = spec->nbands;
  bte->nmodes  = spec->nmodes;
  bte->spin    = spec->spin;
  bte->carrier = spec->carrier;
  bte->emin    = spec->eedge;
  bte->emax    = spec->eedge + (spec->window > 0 ? spec->window : bte->window);
  {
    char extra[128] = "";
    if (bte->tol_eta != 3.0) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " -bte_energy_tolerance %g", (double)bte->tol_eta);
    if (bte->phonon_min != 0.001) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " -bte_phonon_min %g", (double)bte->phonon_min);
    if (bte->g2_cutoff != 0) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " -bte_g2_cutoff %g", (double)bte->g2_cutoff);
    /* the table records its temperature and delta too (the defaults of runs from it) */
    if (bte->temperature != 300.0) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " -bte_temperature %g", (double)bte->temperature);
    if (bte->delta != BTE_DELTA_PERTURBO) snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra), " -bte_delta %s", BTEDeltas[bte->delta]);
    if (spec->source) PetscCall(PetscStrncpy(bte->source, spec->source, sizeof(bte->source)));
    else {
      /* the command: bte's driver for its own models (whichever program built the table), the
         program that registered and built an application's model ("bte generate" would name a
         command that does not know it) */
      char        prog[PETSC_MAX_PATH_LEN] = "bte";
      const char *base;
      PetscBool   builtin;
      PetscCall(BTEModelIsBuiltin(bte->model, &builtin));
      if (!builtin) PetscCall(PetscGetProgramName(prog, sizeof(prog)));
      base = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;
      /* snprintf: PETSc writes %g of a whole number as "4.", which would not read back as typed */
      snprintf(bte->source, sizeof(bte->source), "%s%s -bte_model %s -bte_grid %" PetscInt_FMT " -bte_window %g -bte_smearing %g%s", strcmp(base, "bte") ? base : "bte", strcmp(base, "bte") ? "" : " generate", spec->name, bte->ngrid, (double)bte->window, (double)bte->smearing, extra);
      PetscCall(AppendModelOptions(bte, spec->name, bte->source, sizeof(bte->source)));
    }
  }

  /* Refuse a grid whose states could not be held, before enumerating it (worst case: every
     (k, n) of the full grid inside the window). */
  /* The count in double first: -bte_grid 2^21 already makes nk^3 overflow a 64-bit integer. */
  {
    char      what[160];
    PetscReal nkr = (PetscReal)bte->grid.nk[0] * (PetscReal)bte->grid.nk[1] * (PetscReal)bte->grid.nk[2];
    PetscCall(PetscSNPrintf(what, sizeof(what), "The %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " k grid (%.4g k points x %" PetscInt_FMT " bands, worst case all in the window)", bte->grid.nk[0], bte->grid.nk[1], bte->grid.nk[2], (double)nkr, spec->nbands));
    PetscCall(BTEModelCheckMemory(bte, (PetscLogDouble)nkr * spec->nbands * BTE_GEN_BYTES_PER_STATE, 1.0, what, "use a smaller -bte_grid", NULL));
    PetscCheck(nkr <= (PetscReal)PETSC_MAX_INT, comm, PETSC_ERR_SUP, "The %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " k grid has %.4g points; flattened k indices must fit a 32-bit PetscInt: use a smaller -bte_grid", bte->grid.nk[0], bte->grid.nk[1], bte->grid.nk[2], (double)nkr);
  }
  nktot = (PetscInt64)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];

  PetscCall(BTEZoneSetUp(&bte->grid, &z));
  PetscCall(BTEModelEnumerate(bte, spec, &z, &s));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(bte, "model %s: %" PetscInt_FMT " states in [%g, %g] eV from %" PetscInt64_FMT " k points, %.2f s\n", spec->name, s.n, (double)bte->emin, (double)bte->emax, nktot, t1 - t0));
  if (monitor) PetscCall(PetscPrintf(comm, "  generate %s: %" PetscInt_FMT " states in the window from %" PetscInt64_FMT " k points, %.1f s\n", spec->name, s.n, nktot, t1 - t0));

  PetscCall(BTEAllocateStates(bte, s.n, PETSC_DECIDE));
  for (PetscInt il = 0; il < bte->nlocal; il++) {
    PetscInt g        = bte->rstart + il;
    bte->kindex[il]   = s.kidx[g];
    bte->band[il]     = s.band[g];
    bte->energy[il]   = s.e[g];
    for (PetscInt c = 0; c < 3; c++) bte->velocity[3 * il + c] = s.v[3 * g + c];
  }
  if (spec->coupling || spec->coupling_grid || spec->coupling_grid_batch) PetscCall(BTEModelChannels(bte, spec, &z, &s, monitor, batch));
  else { /* a model without scattering (coupling == NULL) */
    PetscCall(BTEAllocateChannels(bte, 0));
    if (bte->streamfile[0]) {
      PetscCount *off;
      PetscCall(PetscCalloc1(bte->nlocal + 1, &off));
      PetscCall(BTEModelStream(bte, NULL, &s, spec->name, off, NULL, 1, PETSC_FALSE, t0));
      PetscCall(PetscFree(off));
      bte->chcounted = PETSC_TRUE;
    }
  }
  PetscCall(BTEGenStatesFree(&s));
  PetscCall(PetscTime(&t1));
  if (monitor || (bte->genmonauto && t1 - t0 >= BTE_GEN_MONITOR_AFTER)) PetscCall(PetscPrintf(comm, "  generate %s: %" PetscInt64_FMT " channels, %.1f s\n", spec->name, bte->ch.nglobal, t1 - t0));
  PetscFunctionReturn(0);
}
