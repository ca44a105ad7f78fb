static const char help[] = "Table I/O round trip: builds a synthetic random BTE through the private API,\n"
                           "writes it with BTEWriteTable, reads it back with BTESetInputFile + BTESetUp and\n"
                           "compares everything bit for bit. The table is a function of the options only\n"
                           "(not of the rank count), so it can be written on P ranks and read on Q.\n"
                           "  -mode write|read|both   (default both)\n"
                           "  -file NAME              (default roundtrip.h5)\n"
                           "  -nstates N -nchannels M -seed S -dim 2|3\n\n";

#include <bte/private/bteimpl.h>
/* BTEAllocateStates, BTEAllocateChannels, BTEParamsAdd and BTEGridSetReciprocal are
   PETSC_INTERN (hidden in libbte.so): compile the library's own sources into this test,
   so the synthetic BTE is allocated exactly as the library does it. */
#include "bte/states.c"
#include "grid/grid.c"

static uint64_t Next(uint64_t *s) /* splitmix64 */
{
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static double Uniform(uint64_t *s)
{
  return (double)(Next(s) >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
  PetscInt N, M, dim, seed;
} Opts;

/* Fills a BTE as a model generator would: the same global table on any number of ranks. */
static PetscErrorCode BuildSynthetic(MPI_Comm comm, const Opts *o, BTE *out)
{
  BTE        bte;
  uint64_t   s = (uint64_t)o->seed;
  PetscInt   rend, nmine = 0, nktot;
  uint64_t   step, first;
  PetscInt  *gi, *gj, *gm;
  PetscReal *ghw, *gg2;

  PetscFunctionBegin;
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte)); /* -bte_io_chunk: the writer's batches */
  bte->grid.dim = o->dim;
  bte->grid.nk[0] = 6;
  bte->grid.nk[1] = 5;
  bte->grid.nk[2] = o->dim == 3 ? 4 : 1;
  {
    PetscReal a = 5.65 + 0.1 * Uniform(&s);
    PetscReal lat3[9] = {0, a / 2, a / 2, a / 2, 0, a / 2, a / 2, a / 2, 0};
    PetscReal lat2[9] = {a, 0, 0, -a / 2, a * 0.8660254037844386, 0, 0, 0, 1};
    PetscCall(PetscArraycpy(bte->grid.lattice, o->dim == 3 ? lat3 : lat2, 9));
  }
  PetscCall(BTEGridSetReciprocal(&bte->grid));
  nktot           = bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
  bte->nbands     = 3;
  bte->nmodes     = 4;
  bte->spin       = o->dim == 3 ? 1 : 2;
  bte->carrier    = o->dim == 3 ? 1 : -1;
  bte->emin       = -0.25;
  bte->emax       = 0.75 + Uniform(&s);
  bte->smearing   = 0.0123;
  bte->temperature = 77.5;
  bte->g2_cutoff  = 1e-12;
  bte->phonon_min = 0.002;
  bte->tol_eta    = 2.5;
  PetscCall(PetscStrncpy(bte->model, "synthetic", sizeof(bte->model)));
  PetscCall(PetscSNPrintf(bte->source, sizeof(bte->source), "io_roundtrip seed=%" PetscInt_FMT " N=%" PetscInt_FMT " M=%" PetscInt_FMT, o->seed, o->N, o->M));
  PetscCall(BTEParamsAdd(bte, "zeta_mass", 0.067, "m_e"));
  PetscCall(BTEParamsAdd(bte, "alpha_nonparabolic", 0.61 + Uniform(&s), "1/eV"));
  PetscCall(BTEParamsAdd(bte, "hw_LO", 0.03536, "eV"));
  PetscCall(BTEParamsAdd(bte, "count", 7, ""));
  PetscCall(BTEParamsAdd(bte, "tiny", 5e-324, "eV^2"));

  PetscCall(BTEAllocateStates(bte, o->N, PETSC_DECIDE));
  rend = bte->rstart + bte->nlocal;
  /* distinct (k, band) pairs, as a table needs: state g takes pair (g * step + first) mod 3 nktot,
     step coprime to 3 nktot (a bijection), first drawn */
  PetscCheck(o->N <= 3 * nktot, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-nstates %" PetscInt_FMT " exceeds the %" PetscInt_FMT " (k, band) pairs of the grid", o->N, 3 * nktot);
  {
    uint64_t np = 3 * (uint64_t)nktot, a, b;
    step = 1000003 % np;
    for (;;) { /* gcd(step, np) == 1 */
      for (a = step, b = np; b;) {
        uint64_t t = a % b;
        a = b;
        b = t;
      }
      if (step && a == 1) break;
      step = (step + 1) % np;
    }
    first = Next(&s) % np;
  }
  for (PetscInt g = 0; g < o->N; g++) { /* every rank draws all, keeps its own */
    uint64_t  pair = (first + (uint64_t)g * step) % (3 * (uint64_t)nktot);
    PetscInt  k = (PetscInt)(pair / 3), b = (PetscInt)(pair % 3);
    PetscReal e  = bte->emin + (bte->emax - bte->emin) * Uniform(&s);
    PetscReal v0 = Uniform(&s) - 0.5, v1 = Uniform(&s) - 0.5, v2 = o->dim == 3 ? Uniform(&s) - 0.5 : 0;
    if (g >= bte->rstart && g < rend) {
      PetscInt l              = g - bte->rstart;
      bte->kindex[l]          = k;
      bte->band[l]            = b;
      bte->energy[l]          = e;
      bte->velocity[3 * l]    = v0;
      bte->velocity[3 * l + 1] = v1;
      bte->velocity[3 * l + 2] = v2;
    }
  }
  PetscCall(PetscMalloc5(o->M, &gi, o->M, &gj, o->M, &gm, o->M, &ghw, o->M, &gg2));
  for (PetscInt c = 0; c < o->M; c++) {
    PetscInt i = (PetscInt)(Next(&s) % (uint64_t)o->N), j;
    do j = (PetscInt)(Next(&s) % (uint64_t)o->N);
    while (j == i);
    gi[c]  = PetscMin(i, j);
    gj[c]  = PetscMax(i, j);
    gm[c]  = (PetscInt)(Next(&s) % 4);
    ghw[c] = c % 17 == 0 ? 1e-6 : 1e-6 + 0.1 * Uniform(&s); /* 1e-6 eV: the smallest phonon energy a table may hold */
    gg2[c] = c % 13 == 0 ? 0.0 : (c % 29 == 0 ? 4.9e-324 : 1e-3 * Uniform(&s));
    if ((gi[c] >= bte->rstart && gi[c] < rend) || (gj[c] >= bte->rstart && gj[c] < rend)) nmine++;
  }
  PetscCall(BTEAllocateChannels(bte, nmine));
  nmine = 0;
  for (PetscInt c = 0; c < o->M; c++) {
    if ((gi[c] >= bte->rstart && gi[c] < rend) || (gj[c] >= bte->rstart && gj[c] < rend)) {
      bte->ch.i[nmine]    = gi[c];
      bte->ch.j[nmine]    = gj[c];
      bte->ch.mode[nmine] = gm[c];
      bte->ch.hw[nmine]   = ghw[c];
      bte->ch.g2[nmine]   = gg2[c];
      nmine++;
    }
  }
  bte->ch.nglobal = o->M;
  PetscCall(PetscFree5(gi, gj, gm, ghw, gg2));
  bte->setupcalled = PETSC_TRUE;
  *out             = bte;
  PetscFunctionReturn(0);
}

typedef struct {
  PetscInt  i, j, m;
  PetscReal hw, g2;
} Rec;

static int RecCmp(const void *pa, const void *pb)
{
  const Rec *a = (const Rec *)pa, *b = (const Rec *)pb;
  if (a->i != b->i) return a->i < b->i ? -1 : 1;
  if (a->j != b->j) return a->j < b->j ? -1 : 1;
  if (a->m != b->m) return a->m < b->m ? -1 : 1;
  return memcmp(&a->hw, &b->hw, 2 * sizeof(PetscReal));
}

static PetscErrorCode SortedChannels(BTE bte, Rec **out)
{
  Rec *r;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(bte->ch.n + 1, &r));
  for (PetscCount c = 0; c < bte->ch.n; c++) {
    r[c].i  = bte->ch.i[c];
    r[c].j  = bte->ch.j[c];
    r[c].m  = bte->ch.mode[c];
    r[c].hw = bte->ch.hw[c];
    r[c].g2 = bte->ch.g2[c];
  }
  qsort(r, (size_t)bte->ch.n, sizeof(Rec), RecCmp);
  *out = r;
  PetscFunctionReturn(0);
}

#define SAME(what, cond) \
  do { \
    if (!(cond)) { \
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] MISMATCH: %s\n", rank, what)); \
      bad++; \
    } \
  } while (0)

/* Everything the reader fills must equal what was written, bit for bit. */
static PetscErrorCode Compare(BTE a, BTE b, PetscInt *nbad)
{
  PetscMPIInt rank;
  PetscInt    bad = 0;
  Rec        *ra, *rb;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)a), &rank));
  SAME("grid", !memcmp(&a->grid, &b->grid, sizeof(BTEGrid)));
  SAME("nbands", a->nbands == b->nbands);
  SAME("nmodes", a->nmodes == b->nmodes);
  SAME("spin", a->spin == b->spin);
  SAME("carrier", a->carrier == b->carrier);
  SAME("window", !memcmp(&a->emin, &b->emin, sizeof(PetscReal)) && !memcmp(&a->emax, &b->emax, sizeof(PetscReal)));
  SAME("smearing", !memcmp(&a->smearing, &b->smearing, sizeof(PetscReal)));
  SAME("temperature", !memcmp(&a->temperature, &b->temperature, sizeof(PetscReal)));
  SAME("g2_cutoff", !memcmp(&a->g2_cutoff, &b->g2_cutoff, sizeof(PetscReal)));
  SAME("phonon_min", !memcmp(&a->phonon_min, &b->phonon_min, sizeof(PetscReal)));
  SAME("tol_eta", !memcmp(&a->tol_eta, &b->tol_eta, sizeof(PetscReal)));
  SAME("source", !strcmp(a->source, b->source));
  SAME("params.n", a->params.n == b->params.n);
  for (PetscInt k = 0; k < PetscMin(a->params.n, b->params.n); k++) {
    SAME("params.name", !strcmp(a->params.name[k], b->params.name[k]));
    SAME("params.unit", !strcmp(a->params.unit[k], b->params.unit[k]));
    SAME("params.value", !memcmp(&a->params.value[k], &b->params.value[k], sizeof(PetscReal)));
  }
  SAME("nstates", a->nstates == b->nstates);
  SAME("state layout", a->nlocal == b->nlocal && a->rstart == b->rstart);
  if (a->nlocal == b->nlocal && a->nlocal > 0) { /* memcmp of NULL arrays is undefined even for 0 bytes */
    SAME("kindex", !memcmp(a->kindex, b->kindex, a->nlocal * sizeof(PetscInt)));
    SAME("band", !memcmp(a->band, b->band, a->nlocal * sizeof(PetscInt)));
    SAME("energy", !memcmp(a->energy, b->energy, a->nlocal * sizeof(PetscReal)));
    SAME("velocity", !memcmp(a->velocity, b->velocity, 3 * a->nlocal * sizeof(PetscReal)));
  }
  SAME("ch.nglobal", a->ch.nglobal == b->ch.nglobal);
  SAME("ch.n (channels held by this rank)", a->ch.n == b->ch.n);
  if (a->ch.n == b->ch.n) {
    PetscCall(SortedChannels(a, &ra));
    PetscCall(SortedChannels(b, &rb));
    for (PetscCount c = 0; c < a->ch.n; c++)
      if (RecCmp(&ra[c], &rb[c])) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] MISMATCH channel %" PetscCount_FMT ": (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.17g,%.17g) vs (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ",%.17g,%.17g)\n", rank, c, ra[c].i, ra[c].j, ra[c].m, (double)ra[c].hw, (double)ra[c].g2, rb[c].i, rb[c].j, rb[c].m, (double)rb[c].hw, (double)rb[c].g2));
        bad++;
        break;
      }
    PetscCall(PetscFree(ra));
    PetscCall(PetscFree(rb));
  }
  /* each channel held here has an end owned here */
  for (PetscCount c = 0; c < b->ch.n; c++) {
    PetscInt i = b->ch.i[c], j = b->ch.j[c], re = b->rstart + b->nlocal;
    if (!(i < j) || !((i >= b->rstart && i < re) || (j >= b->rstart && j < re))) {
      SAME("channel ownership / i < j", 0);
      break;
    }
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)a)));
  *nbad = bad;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Opts        o = {300, 4000, 3, 1};
  char        file[PETSC_MAX_PATH_LEN] = "roundtrip.h5", mode[16] = "both";
  PetscBool   w, r;
  PetscMPIInt size;
  BTE         a, b;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-file", file, sizeof(file), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-mode", mode, sizeof(mode), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nstates", &o.N, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nchannels", &o.M, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &o.dim, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-seed", &o.seed, NULL));
  PetscCall(PetscStrcmp(mode, "read", &r));
  PetscCall(PetscStrcmp(mode, "write", &w));
  if (!r && !w) r = w = PETSC_TRUE;
  else if (r) w = PETSC_FALSE;
  PetscCall(BuildSynthetic(PETSC_COMM_WORLD, &o, &a));
  if (w) {
    PetscCall(BTEWriteTable(a, file));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "io_roundtrip: wrote %s: %" PetscInt_FMT " states, %" PetscInt_FMT " channels on %d rank(s)\n", file, o.N, o.M, size));
  }
  if (r) {
    PetscInt bad = 0;
    PetscCall(BTECreate(PETSC_COMM_WORLD, &b));
    PetscCall(BTESetInputFile(b, file));
    PetscCall(BTESetFromOptions(b));
    PetscCall(BTESetUp(b));
    PetscCall(Compare(a, b, &bad));
    PetscCheck(!bad, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "io_roundtrip: %" PetscInt_FMT " mismatches between the table written and the table read", bad);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "io_roundtrip: read %s back on %d rank(s): identical (%" PetscInt_FMT " states, %" PetscInt64_FMT " channels)\n", file, size, b->nstates, b->ch.nglobal));
    PetscCall(BTEDestroy(&b));
  }
  PetscCall(BTEDestroy(&a));
  PetscCall(PetscFinalize());
  return 0;
}
