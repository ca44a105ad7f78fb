/* Structural checks of a built-in model's table, from the BTE's private struct:
   - every held channel has i < j, both in [0, N), at least one end owned here, a valid mode,
     hw >= phonon_min, g2 > cutoff, and satisfies | |e_i - e_j| - hw | < tol * eta;
   - no channel is held twice on a rank; the distinct channels over all ranks number nglobal;
   - (-dump FILE) the whole table, gathered on rank 0 and sorted, written as text with full
     precision, so that runs on different rank or thread counts can be compared with cmp;
   - (-counts) per-mode channel counts and, for gaas, per-valley state counts;
   - (-gaas_minima) for gaas on an even grid: the L and X points are on the grid, with the
     valley offsets as energies and zero velocity; Gamma is the lowest state.
   - (-gaas_valleys TOL) for gaas: each state's energy is recomputed here from the parameters
     (all 8 L and 6 X centres searched, no shortcuts) and must match; states are counted per
     valley type and compared with the analytic number of grid points in the non-parabolic
     valleys below the window's top, Nk Z V_cell (4 pi/3) k_t^3 / (2 pi)^3 with
     hbar^2 k_t^2/2m* = E(1 + alpha E), E = window - offset, Z = 1, 4, 3 (Gamma, L, X). With
     anisotropic valleys (recorded longitudinal and transverse masses) the energy is
     recomputed on the ellipsoid, and the volume (4 pi/3) k_l k_t^2 of the ellipsoid is the
     same formula with m* = (m_l m_t^2)^(1/3), the recorded density-of-states mass.
   Usage: model_check -bte_model NAME -bte_grid N [-dump FILE] [-counts] [-gaas_minima] */
#include <bte/private/bteimpl.h>
#include <stdlib.h>

typedef struct {
  PetscInt  i, j, mode;
  PetscReal hw, g2;
} Chan;

static int cmpchan(const void *a, const void *b)
{
  const Chan *x = (const Chan *)a, *y = (const Chan *)b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  if (x->j != y->j) return x->j < y->j ? -1 : 1;
  if (x->mode != y->mode) return x->mode < y->mode ? -1 : 1;
  return 0;
}

static PetscReal Param(BTE bte, const char *name)
{
  for (PetscInt k = 0; k < bte->params.n; k++)
    if (!strcmp(bte->params.name[k], name)) return bte->params.value[k];
  printf("missing model parameter %s\n", name);
  exit(2);
}

/* A parameter that a model records only in some variants: def when absent */
static PetscReal ParamOr(BTE bte, const char *name, PetscReal def)
{
  for (PetscInt k = 0; k < bte->params.n; k++)
    if (!strcmp(bte->params.name[k], name)) return bte->params.value[k];
  return def;
}

static int fails = 0;
#define EXPECT(cond, ...) \
  do { \
    if (!(cond)) { \
      if (fails < 20) printf("FAIL: " __VA_ARGS__); \
      fails++; \
    } \
  } while (0)

int main(int argc, char **argv)
{
  BTE         bte;
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  char        dump[PETSC_MAX_PATH_LEN] = "";
  PetscBool   flg, counts = PETSC_FALSE, minima = PETSC_FALSE, valleys = PETSC_FALSE;
  PetscReal   vtol = 0.03;
  PetscReal  *eall;
  PetscInt   *kall, N;
  PetscMPIInt *rc, *rd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-dump", dump, sizeof(dump), &flg));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-counts", &counts, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gaas_minima", &minima, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-gaas_valleys", &vtol, &valleys));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  N = bte->nstates;

  /* all energies and k indices (small test sizes) */
  PetscCall(PetscMalloc4(N, &eall, N, &kall, size, &rc, size + 1, &rd));
  {
    PetscMPIInt nl = (PetscMPIInt)bte->nlocal;
    PetscCallMPI(MPI_Allgather(&nl, 1, MPI_INT, rc, 1, MPI_INT, comm));
    rd[0] = 0;
    for (int r = 0; r < size; r++) rd[r + 1] = rd[r] + rc[r];
    PetscCallMPI(MPI_Allgatherv(bte->energy, nl, MPIU_REAL, eall, rc, rd, MPIU_REAL, comm));
    PetscCallMPI(MPI_Allgatherv(bte->kindex, nl, MPIU_INT, kall, rc, rd, MPIU_INT, comm));
  }
  for (PetscInt s = 1; s < N; s++) EXPECT(kall[s] >= kall[s - 1], "states not ordered by k index at %" PetscInt_FMT "\n", s);
  for (PetscInt s = 0; s < N; s++) EXPECT(eall[s] >= bte->emin && eall[s] <= bte->emax, "state %" PetscInt_FMT " energy %g outside the window\n", s, (double)eall[s]);

  /* per-channel rules */
  {
    PetscReal tol = bte->tol_eta * bte->smearing;
    PetscInt  rend = bte->rstart + bte->nlocal;
    PetscCount nlow = 0;
    Chan     *c;
    PetscCall(PetscMalloc1(bte->ch.n + 1, &c));
    for (PetscCount k = 0; k < bte->ch.n; k++) {
      PetscInt  i = bte->ch.i[k], j = bte->ch.j[k], m = bte->ch.mode[k];
      PetscReal hw = bte->ch.hw[k], g2 = bte->ch.g2[k];
      EXPECT(i >= 0 && j < N && i < j, "channel %" PetscInt64_FMT ": bad ends %" PetscInt_FMT " %" PetscInt_FMT "\n", (PetscInt64)k, i, j);
      if (!(i >= 0 && j < N && i < j)) continue;
      EXPECT((i >= bte->rstart && i < rend) || (j >= bte->rstart && j < rend), "channel %" PetscInt64_FMT " has no owned end\n", (PetscInt64)k);
      EXPECT(m >= 0 && m < bte->nmodes, "channel %" PetscInt64_FMT " bad mode %" PetscInt_FMT "\n", (PetscInt64)k, m);
      EXPECT(hw >= bte->phonon_min, "channel %" PetscInt64_FMT " hw %g below phonon_min\n", (PetscInt64)k, (double)hw);
      EXPECT(g2 > 0 && g2 > bte->g2_cutoff, "channel %" PetscInt64_FMT " g2 %g\n", (PetscInt64)k, (double)g2);
      EXPECT(PetscAbsReal(PetscAbsReal(eall[i] - eall[j]) - hw) < tol, "channel %" PetscInt64_FMT " violates energy rule: de %g hw %g\n", (PetscInt64)k, (double)PetscAbsReal(eall[i] - eall[j]), (double)hw);
      EXPECT(kall[i] != kall[j], "channel %" PetscInt64_FMT " has q = 0\n", (PetscInt64)k);
      if (i >= bte->rstart && i < rend) nlow++;
      c[k].i    = i;
      c[k].j    = j;
      c[k].mode = m;
      c[k].hw   = hw;
      c[k].g2   = g2;
    }
    qsort(c, bte->ch.n, sizeof(Chan), cmpchan);
    for (PetscCount k = 1; k < bte->ch.n; k++) EXPECT(cmpchan(&c[k - 1], &c[k]) != 0, "channel (%" PetscInt_FMT ",%" PetscInt_FMT ",%" PetscInt_FMT ") held twice\n", c[k].i, c[k].j, c[k].mode);
    {
      PetscInt64 nl = (PetscInt64)nlow, ng;
      PetscCallMPI(MPI_Allreduce(&nl, &ng, 1, MPIU_INT64, MPI_SUM, comm));
      EXPECT(ng == bte->ch.nglobal, "nglobal %" PetscInt64_FMT " but %" PetscInt64_FMT " channels have their lower end owned\n", bte->ch.nglobal, ng);
    }
    /* gather the table on rank 0: the channels whose lower end each rank owns */
    {
      PetscInt64  nkeep = 0, *cnt64 = NULL;
      Chan       *keep, *all = NULL;
      MPI_Datatype t;
      PetscCall(PetscMalloc1(bte->ch.n + 1, &keep));
      for (PetscCount k = 0; k < bte->ch.n; k++)
        if (c[k].i >= bte->rstart && c[k].i < rend) keep[nkeep++] = c[k];
      PetscCallMPI(MPI_Type_contiguous(sizeof(Chan), MPI_BYTE, &t));
      PetscCallMPI(MPI_Type_commit(&t));
      if (!rank) PetscCall(PetscMalloc1(size, &cnt64));
      PetscCallMPI(MPI_Gather(&nkeep, 1, MPIU_INT64, cnt64, 1, MPIU_INT64, 0, comm));
      if (!rank) {
        PetscInt64 tot = 0;
        for (int r = 0; r < size; r++) tot += cnt64[r];
        PetscCall(PetscMalloc1(tot + 1, &all));
        PetscCall(PetscArraycpy(all, keep, nkeep));
        tot = nkeep;
        for (int r = 1; r < size; r++) {
          PetscCallMPI(MPI_Recv(all + tot, (int)cnt64[r], t, r, 7, comm, MPI_STATUS_IGNORE));
          tot += cnt64[r];
        }
        qsort(all, tot, sizeof(Chan), cmpchan);
        EXPECT(tot == bte->ch.nglobal, "gathered %" PetscInt64_FMT " channels, nglobal %" PetscInt64_FMT "\n", tot, bte->ch.nglobal);
        if (counts) {
          PetscInt64 per[64] = {0};
          for (PetscInt64 k = 0; k < tot; k++) per[all[k].mode]++;
          for (PetscInt m = 0; m < bte->nmodes; m++) printf("mode %" PetscInt_FMT ": %" PetscInt64_FMT " channels\n", m, per[m]);
        }
        if (dump[0]) {
          FILE *fp = fopen(dump, "w");
          PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", dump);
          fprintf(fp, "states %d channels %lld\n", (int)N, (long long)bte->ch.nglobal);
          for (PetscInt s = 0; s < N; s++) fprintf(fp, "s %d %d %.17g\n", (int)s, (int)kall[s], (double)eall[s]);
          for (PetscInt64 k = 0; k < tot; k++) fprintf(fp, "c %d %d %d %.17g %.17g\n", (int)all[k].i, (int)all[k].j, (int)all[k].mode, (double)all[k].hw, (double)all[k].g2);
          fclose(fp);
        }
        PetscCall(PetscFree(all));
        PetscCall(PetscFree(cnt64));
      } else PetscCallMPI(MPI_Send(keep, (int)nkeep, t, 0, 7, comm));
      PetscCallMPI(MPI_Type_free(&t));
      PetscCall(PetscFree(keep));
    }
    PetscCall(PetscFree(c));
  }

  /* gaas: valley minima on an even grid. L = b1/2 at grid (n/2, 0, 0), X = (b1+b2)/2 at (n/2, n/2, 0). */
  if (minima) {
    PetscInt  n = bte->grid.nk[0], kL = (n / 2) * n * n, kX = (n / 2) * n * n + (n / 2) * n;
    PetscReal found[3] = {-1, -1, -1}, vmax[3] = {0, 0, 0}, emin = PETSC_MAX_REAL;
    PetscInt  kmin = -1;
    for (PetscInt il = 0; il < bte->nlocal; il++) {
      PetscInt  ik = bte->kindex[il], w = ik == 0 ? 0 : (ik == kL ? 1 : (ik == kX ? 2 : -1));
      PetscReal v  = PetscSqrtReal(PetscSqr(bte->velocity[3 * il]) + PetscSqr(bte->velocity[3 * il + 1]) + PetscSqr(bte->velocity[3 * il + 2]));
      if (bte->energy[il] < emin) {
        emin = bte->energy[il];
        kmin = ik;
      }
      if (w < 0) continue;
      found[w] = bte->energy[il];
      vmax[w]  = v;
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, found, 3, MPIU_REAL, MPIU_MAX, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, vmax, 3, MPIU_REAL, MPIU_MAX, comm));
    {
      struct {
        double e;
        int    k;
      } in = {emin, (int)kmin}, out;
      PetscCallMPI(MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MINLOC, comm));
      emin = out.e;
      kmin = out.k;
    }
    PetscCheck(n % 2 == 0, comm, PETSC_ERR_ARG_WRONG, "-gaas_minima needs an even grid");
    if (!rank) printf("valley minima: Gamma %.6f eV, L %.6f eV, X %.6f eV; |v| there %.2e %.2e %.2e A/fs; lowest state %.6f eV at k index %d\n", (double)found[0], (double)found[1], (double)found[2], (double)vmax[0], (double)vmax[1], (double)vmax[2], (double)emin, (int)kmin);
    EXPECT(PetscAbsReal(found[0] - 0.0) < 1e-12, "Gamma minimum %g, expected 0\n", (double)found[0]);
    { /* -gaas_expect_offsets L,X: the minima the run's -bte_gaas_offsets should give (default the model's) */
      PetscReal want[2] = {0.29, 0.48};
      PetscInt  nw      = 2;
      PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-gaas_expect_offsets", want, &nw, NULL));
      EXPECT(PetscAbsReal(found[1] - want[0]) < 1e-12, "L minimum %g, expected %g\n", (double)found[1], (double)want[0]);
      EXPECT(PetscAbsReal(found[2] - want[1]) < 1e-12, "X minimum %g, expected %g\n", (double)found[2], (double)want[1]);
    }
    for (int w = 0; w < 3; w++) EXPECT(vmax[w] < 1e-12, "velocity %g at valley minimum %d\n", (double)vmax[w], w);
    EXPECT(kmin == 0 && emin == 0, "lowest state %g at k index %d, expected Gamma\n", (double)emin, (int)kmin);
  }

  if (valleys) {
    const char *tn[3] = {"Gamma", "L", "X"};
    PetscReal   off[3], ms[3], al[3], ml[3], mt[3], a = Param(bte, "lattice_constant"), cnt[3] = {0, 0, 0}, *b = bte->grid.reciprocal, maxerr = 0;
    PetscReal   axis[15][3], vmaxerr = 0;
    PetscInt   *nk = bte->grid.nk;
    PetscReal   cen[15][3];
    PetscInt    ctype[15], nc = 0;
    for (int t = 0; t < 3; t++) {
      char name[64];
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_offset", tn[t]));
      off[t] = Param(bte, name);
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_mass", tn[t]));
      ms[t] = Param(bte, name);
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_nonparabolicity", tn[t]));
      al[t] = Param(bte, name);
      /* anisotropic valleys (-bte_gaas_masses anisotropic): ellipsoids along the valley axis */
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_mass_longitudinal", tn[t]));
      ml[t] = ParamOr(bte, name, ms[t]);
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_mass_transverse", tn[t]));
      mt[t] = ParamOr(bte, name, ms[t]);
      if (!rank && ml[t] != ms[t]) printf("valley %s: m_l %g, m_t %g, density-of-states mass %g (recorded) vs (m_l m_t^2)^(1/3) = %g\n", tn[t], (double)ml[t], (double)mt[t], (double)ms[t], (double)PetscCbrtReal(ml[t] * mt[t] * mt[t]));
      EXPECT(PetscAbsReal(ms[t] - PetscCbrtReal(ml[t] * mt[t] * mt[t])) < 1e-12, "valley %s: recorded mass %g is not the density-of-states mass\n", tn[t], (double)ms[t]);
    }
    cen[nc][0] = cen[nc][1] = cen[nc][2] = 0;
    ctype[nc++]                           = 0;
    for (int sx = -1; sx <= 1; sx += 2)
      for (int sy = -1; sy <= 1; sy += 2)
        for (int sz = -1; sz <= 1; sz += 2) {
          cen[nc][0]  = sx * PETSC_PI / a;
          cen[nc][1]  = sy * PETSC_PI / a;
          cen[nc][2]  = sz * PETSC_PI / a;
          for (int c = 0; c < 3; c++) axis[nc][c] = cen[nc][c] / (PetscSqrtReal(3.0) * PETSC_PI / a);
          ctype[nc++] = 1;
        }
    for (int ax = 0; ax < 3; ax++)
      for (int sg = -1; sg <= 1; sg += 2) {
        cen[nc][0] = cen[nc][1] = cen[nc][2] = 0;
        cen[nc][ax]                          = sg * 2 * PETSC_PI / a;
        for (int c = 0; c < 3; c++) axis[nc][c] = c == ax ? 1 : 0;
        ctype[nc++] = 2;
      }
    for (PetscInt il = 0; il < bte->nlocal; il++) {
      PetscInt  ik = bte->kindex[il], id[3] = {ik / (nk[1] * nk[2]), (ik / nk[2]) % nk[1], ik % nk[2]};
      PetscReal f[3], k[3] = {0, 0, 0}, best = PETSC_MAX_REAL, ebest = PETSC_MAX_REAL, vbest[3] = {0, 0, 0};
      PetscInt  tbest = -1;
      for (int c = 0; c < 3; c++) f[c] = (2 * id[c] < nk[c] ? id[c] : id[c] - nk[c]) / (PetscReal)nk[c];
      /* minimal image by brute force over -1..1 */
      for (int n0 = -1; n0 <= 1; n0++)
        for (int n1 = -1; n1 <= 1; n1++)
          for (int n2 = -1; n2 <= 1; n2++) {
            PetscReal x[3], x2;
            for (int c = 0; c < 3; c++) x[c] = (f[0] + n0) * b[c] + (f[1] + n1) * b[3 + c] + (f[2] + n2) * b[6 + c];
            x2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];
            if (x2 < best - 1e-12) {
              best = x2;
              for (int c = 0; c < 3; c++) k[c] = x[c];
            }
          }
      for (PetscInt v = 0; v < nc; v++) {
        PetscInt  t  = ctype[v];
        PetscReal d[3] = {k[0] - cen[v][0], k[1] - cen[v][1], k[2] - cen[v][2]}, d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], dl = 0;
        PetscReal g, e;
        if (t) dl = d[0] * axis[v][0] + d[1] * axis[v][1] + d[2] * axis[v][2];
        g = 3.80998212 / ml[t] * dl * dl + 3.80998212 / mt[t] * (d2 - dl * dl);
        e = off[t] + (PetscSqrtReal(1 + 4 * al[t] * g) - 1) / (2 * al[t]);
        if (e < ebest) {
          /* v = grad_k gamma / (hbar (1 + 2 alpha (e - offset))), hbar = 0.6582119569 eV fs */
          for (int c = 0; c < 3; c++) vbest[c] = (2 * 3.80998212 / mt[t] * d[c] + 2 * (3.80998212 / ml[t] - 3.80998212 / mt[t]) * dl * (t ? axis[v][c] : 0)) / (0.6582119569 * (1 + 2 * al[t] * (e - off[t])));
          ebest = e;
          tbest = t;
        }
      }
      maxerr = PetscMax(maxerr, PetscAbsReal(ebest - bte->energy[il]));
      for (int c = 0; c < 3; c++) vmaxerr = PetscMax(vmaxerr, PetscAbsReal(vbest[c] - bte->velocity[3 * il + c]));
      cnt[tbest] += 1;
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, 3, MPIU_REAL, MPIU_SUM, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &maxerr, 1, MPIU_REAL, MPIU_MAX, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &vmaxerr, 1, MPIU_REAL, MPIU_MAX, comm));
    EXPECT(maxerr < 1e-10, "band energies differ from the valley formula by up to %g eV\n", (double)maxerr);
    EXPECT(vmaxerr < 1e-10, "velocities differ from the valley formula by up to %g A/fs\n", (double)vmaxerr);
    for (int t = 0; t < 3; t++) {
      PetscReal E = bte->emax - off[t], g = E * (1 + al[t] * E), kt = PetscSqrtReal(g / (3.80998212 / ms[t])), Z = t == 0 ? 1 : (t == 1 ? 4 : 3);
      PetscReal Na = (PetscReal)nk[0] * nk[1] * nk[2] * Z * bte->grid.volume * 4 * PETSC_PI / 3 * kt * kt * kt / PetscPowReal(2 * PETSC_PI, 3), d = cnt[t] / Na - 1;
      if (!rank) printf("valley %-5s: %7.0f states, analytic %9.1f, deviation %+6.2f%% (tolerance %.1f%%)\n", tn[t], (double)cnt[t], (double)Na, (double)(100 * d), (double)(100 * vtol));
      EXPECT(PetscAbsReal(d) < vtol, "valley %s count off by %.2f%%\n", tn[t], (double)(100 * d));
    }
    if (!rank) printf("band energies agree with the valley formula to %.1e eV, velocities to %.1e A/fs\n", (double)maxerr, (double)vmaxerr);
  }

  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, comm));
  if (!rank) printf("%s: %d states, %lld channels, %d failures\n", fails ? "FAIL" : "ok", (int)N, (long long)bte->ch.nglobal, fails);
  PetscCall(PetscFree4(eall, kall, rc, rd));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return fails ? 1 : 0;
}
