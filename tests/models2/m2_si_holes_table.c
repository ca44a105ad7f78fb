/* si-holes model on a grid (BTEModelBuild; run on one rank):
   - 3 bands (6 with -bte_si_holes_soc), spin 2 (1), holes, window [0, W];
   - the built states are exactly the grid points with 0 <= e_n <= W (recounted with the band function);
   - states per band against the analytic DOS-mass estimate N_n = Nk^3 Omega/(2 pi)^3 V_n(W), V_n the
     k-space volume inside e_n = W: (1/3) (W/c)^{3/2} \int f_n^{-3/2} dOmega for the warped bands
     (f = |A| -+ sqrt(B^2 + C^2 (x^2 y^2 + ...)), integrated here on a 400 x 800 angular grid) and
     (4 pi/3) ((W - Delta)/(c |A|))^{3/2} for the split-off band; counted directly on a fine grid
     (-count_grid, default 240). Two tolerances: a rigorous one (every counted point's Voronoi cell, of
     circumradius d = sqrt(10)/4 * 4 pi/(a Nk), lies in e <= W + d max|grad e|, and the cells of the
     points inside cover e <= W - d max|grad e|, with V_n(E) ~ E^{3/2}), and the expected one, 2%: the
     lattice-point discrepancy of a smooth body falls off faster than the surface-layer fraction
     (measured: below 0.5% for Nk >= 200 with these bands);
   - channels: i < j, no i == j, mode energies (acoustic hbar v_s |q| from the grid, optical 63 meV),
     equal counts for LA/TA1/TA2 and for LO/TO1/TO2, energy selection. */
#include "m2_common.h"

/* Cartesian k of grid offsets d (wrapped to [-N/2, N/2)) */
static void GridK(const BTE bte, const PetscInt d[3], PetscReal k[3])
{
  PetscInt N = bte->grid.nk[0];
  for (int x = 0; x < 3; x++) k[x] = 0;
  for (int j = 0; j < 3; j++) {
    PetscInt dd = ((d[j] % N) + N) % N;
    if (2 * dd >= N) dd -= N;
    for (int x = 0; x < 3; x++) k[x] += (PetscReal)dd / N * bte->grid.reciprocal[3 * j + x];
  }
}

int main(int argc, char **argv)
{
  BTE             bte;
  BTEModelSpec    spec;
  PetscMPIInt     size;
  PetscBool       soc = PETSC_FALSE;
  PetscInt        N, Nc = 240, nb;
  const PetscReal c = 3.80998212, A = 4.28, B = 0.68, C = 4.87, Delta = 0.044, a = 5.431;
  PetscReal       W, Vn[3], Omega;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "si-holes model on a grid"));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "run on one rank");
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-bte_si_holes_soc", &soc, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-count_grid", &Nc, NULL));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetModel(bte, "si-holes"));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  N     = bte->grid.nk[0];
  W     = bte->window;
  nb    = soc ? 6 : 3;
  Omega = bte->grid.volume;
  CHECK(bte->grid.dim == 3 && bte->grid.nk[1] == N && bte->grid.nk[2] == N, "grid");
  CHECK(PetscAbsReal(Omega - a * a * a / 4) < 1e-9, "cell volume %g", (double)Omega);
  CHECK(bte->nbands == nb && bte->nmodes == 6 && bte->spin == (soc ? 1 : 2) && bte->carrier == 1, "shape: %d bands, %d modes, spin %d, carrier %d", (int)bte->nbands, (int)bte->nmodes, (int)bte->spin, (int)bte->carrier);
  CHECK(bte->emin == 0 && bte->emax == W, "window [%g, %g]", (double)bte->emin, (double)bte->emax);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "si-holes (%d bands), %d^3 grid, window %g eV: %d states, %lld channels\n", (int)nb, (int)N, (double)W, (int)bte->nstates, (long long)bte->ch.nglobal));
  PetscCall(BTEModelSpecSiHoles(bte, &spec));

  /* built states == grid points in the window */
  {
    PetscInt cnt[6] = {0}, built[6] = {0}, tot = 0;
    for (PetscInt i0 = 0; i0 < N; i0++)
      for (PetscInt i1 = 0; i1 < N; i1++)
        for (PetscInt i2 = 0; i2 < N; i2++) {
          PetscInt  d[3] = {i0, i1, i2};
          PetscReal k[3], e[6], v[18];
          GridK(bte, d, k);
          PetscCall(spec.bands(spec.ctx, k, e, v));
          for (int b = 0; b < nb; b++)
            if (e[b] >= 0 && e[b] <= W) cnt[b]++;
        }
    for (PetscInt i = 0; i < bte->nlocal; i++) {
      built[bte->band[i]]++;
      CHECK(bte->energy[i] >= 0 && bte->energy[i] <= W, "state %d energy %g outside the window", (int)i, (double)bte->energy[i]);
    }
    for (int b = 0; b < nb; b++) {
      CHECK(cnt[b] == built[b], "band %d: built %d states, band function gives %d", b, (int)built[b], (int)cnt[b]);
      tot += cnt[b];
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  states per band:"));
    for (int b = 0; b < nb; b++) PetscCall(PetscPrintf(PETSC_COMM_SELF, " %d", (int)built[b]));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
    if (soc)
      for (int b = 0; b < 3; b++) CHECK(built[2 * b] == built[2 * b + 1], "Kramers partners have different state counts");
  }

  /* analytic DOS-mass estimate vs a direct count on a fine grid */
  {
    PetscReal Iang[2] = {0, 0}, md[2], gmax[3] = {0, 0, 0};
    const int nt = 400, np = 800;
    long      cnt[3] = {0, 0, 0};
    PetscReal L = 4 * PETSC_PI / a / Nc, d = PetscSqrtReal(10.0) / 4 * L;
    for (int it = 0; it < nt; it++) {
      PetscReal ct = -1 + 2 * (it + 0.5) / nt, st = PetscSqrtReal(1 - ct * ct);
      for (int ip = 0; ip < np; ip++) {
        PetscReal ph = 2 * PETSC_PI * (ip + 0.5) / np, x = st * PetscCosReal(ph), y = st * PetscSinReal(ph), z = ct;
        PetscReal R = PetscSqrtReal(B * B + C * C * (x * x * y * y + y * y * z * z + z * z * x * x));
        Iang[0] += PetscPowReal(A - R, -1.5);
        Iang[1] += PetscPowReal(A + R, -1.5);
      }
    }
    for (int n = 0; n < 2; n++) {
      Iang[n] *= 4 * PETSC_PI / ((PetscReal)nt * np);
      md[n] = PetscPowReal(Iang[n] / (4 * PETSC_PI), 2.0 / 3);
      Vn[n] = Iang[n] / 3 * PetscPowReal(W / c, 1.5);
    }
    Vn[2] = 4 * PETSC_PI / 3 * PetscPowReal((W - Delta) / (c * A), 1.5);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  density-of-states masses: heavy %.4f m0, light %.4f m0, split-off %.4f m0\n", (double)md[0], (double)md[1], (double)(1 / A)));
    for (PetscInt i0 = 0; i0 < Nc; i0++)
      for (PetscInt i1 = 0; i1 < Nc; i1++)
        for (PetscInt i2 = 0; i2 < Nc; i2++) {
          PetscReal k[3] = {0, 0, 0}, e[6], v[18];
          PetscInt  dd[3] = {i0, i1, i2};
          for (int j = 0; j < 3; j++) {
            PetscInt w = 2 * dd[j] >= Nc ? dd[j] - Nc : dd[j];
            for (int x = 0; x < 3; x++) k[x] += (PetscReal)w / Nc * bte->grid.reciprocal[3 * j + x];
          }
          if (k[0] * k[0] + k[1] * k[1] + k[2] * k[2] > 0.5) continue; /* e > 0.9 eV there */
          PetscCall(spec.bands(spec.ctx, k, e, v));
          for (int b = 0; b < 3; b++) {
            int bb = soc ? 2 * b : b;
            if (e[bb] <= W) {
              PetscReal g = BTE_HBAR * PetscSqrtReal(v[3 * bb] * v[3 * bb] + v[3 * bb + 1] * v[3 * bb + 1] + v[3 * bb + 2] * v[3 * bb + 2]);
              cnt[b]++;
              gmax[b] = PetscMax(gmax[b], g);
            }
          }
        }
    for (int b = 0; b < 3; b++) {
      PetscReal an = (PetscReal)Nc * Nc * Nc * Omega / (8 * PETSC_PI * PETSC_PI * PETSC_PI) * Vn[b], E0 = b == 2 ? W - Delta : W;
      /* gmax grows as sqrt(E) beyond W: 1.2 covers E up to 1.44 W */
      PetscReal delta = d * 1.2 * gmax[b], lo = PetscPowReal(PetscMax(0, 1 - delta / E0), 1.5) - 1, hi = PetscPowReal(1 + delta / E0, 1.5) - 1, rel = cnt[b] / an - 1;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s band on %d^3: %ld states, DOS-mass estimate %.1f, rel. diff %+.4f (rigorous [%+.3f, %+.3f], expected 0.02)\n", b == 0 ? "heavy" : b == 1 ? "light" : "split-off", (int)Nc, cnt[b], (double)an, (double)rel, (double)lo, (double)hi));
      CHECK(rel >= lo && rel <= hi, "band %d count outside the rigorous lattice bound", b);
      CHECK(PetscAbsReal(rel) < 0.02, "band %d count differs from the DOS-mass estimate by %g", b, (double)rel);
    }
  }

  /* channels */
  {
    PetscInt64 nmode[6] = {0}, bad = 0;
    PetscReal  tol = bte->tol_eta * bte->smearing, vs = 0.09;
    CHECK(bte->ch.n == bte->ch.nglobal, "one rank holds %lld of %lld channels", (long long)bte->ch.n, (long long)bte->ch.nglobal);
    for (PetscCount ch = 0; ch < bte->ch.n; ch++) {
      PetscInt i = bte->ch.i[ch], j = bte->ch.j[ch], nu = bte->ch.mode[ch];
      if (!(i < j && i >= 0 && j < bte->nstates && nu >= 0 && nu < 6)) {
        if (bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: channel %lld: i %d j %d mode %d\n", (long long)ch, (int)i, (int)j, (int)nu));
        continue;
      }
      nmode[nu]++;
      if (nu >= 3) {
        if (bte->ch.hw[ch] != 0.063 && bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: optical hw %g\n", (double)bte->ch.hw[ch]));
      } else {
        PetscInt  ki = bte->kindex[i], kj = bte->kindex[j], d[3];
        PetscReal q[3], want;
        d[0] = kj / (N * N) - ki / (N * N);
        d[1] = (kj / N) % N - (ki / N) % N;
        d[2] = kj % N - ki % N;
        GridK(bte, d, q);
        want = BTE_HBAR * vs * PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (PetscAbsReal(bte->ch.hw[ch] - want) > 1e-9 * want && bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: acoustic hw %g, hbar v_s |q| = %g\n", (double)bte->ch.hw[ch], (double)want));
      }
      if (!(PetscAbsReal(PetscAbsReal(bte->energy[j] - bte->energy[i]) - bte->ch.hw[ch]) < tol && bte->ch.g2[ch] > 0 && bte->ch.hw[ch] >= bte->phonon_min) && bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: channel %lld violates the selection rules\n", (long long)ch));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  channels per mode: LA %lld, TA1 %lld, TA2 %lld, LO %lld, TO1 %lld, TO2 %lld\n", (long long)nmode[0], (long long)nmode[1], (long long)nmode[2], (long long)nmode[3], (long long)nmode[4], (long long)nmode[5]));
    CHECK(!bad, "%lld bad channels", (long long)bad);
    CHECK(nmode[0] > 0 && nmode[3] > 0 && nmode[0] == nmode[1] && nmode[1] == nmode[2] && nmode[3] == nmode[4] && nmode[4] == nmode[5], "mode counts");
  }
  PetscCall(PetscFree(spec.ctx));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
