/* Graphene model on a grid (BTEModelBuild; run on one rank):
   - the states are exactly the grid points with 0 <= e <= window (recounted with the band function);
   - cumulative state count N(E) against the Dirac-cone result N(E) = Nk^2 A_cell E^2 / (2 pi hbar^2 v_F^2)
     (two valleys, one band, per spin) at six energies; tolerance: the rigorous lattice-point bound for
     two disks of radius R = E/(hbar v_F): every grid point inside a disk has its Voronoi cell (a hexagon
     of circumradius d = |b|/(Nk sqrt 3)) inside the disk of radius R + d, and every point of the disk of
     radius R - d lies in the cell of a grid point inside: |N - N_an| <= N_an (2 d/R + d^2/R^2) (plus the
     trigonal-warping area change, O((a R)^2) < 1e-3, for the tight-binding band). N(E)/E^2 constant
     is the linear density of states g(E) = 2 E A_cell/(pi hbar^2 v_F^2) (spin included);
   - channels: i < j, no i == j, every K <-> K' channel is an A1' or E' (K-phonon) channel and every
     K-phonon channel joins K and K'; mode energies; acoustic hw = hbar v |q| with q from the grid;
     energy selection | |e_i - e_j| - hw | < 3 eta. */
#include "m2_common.h"

PETSC_EXTERN PetscErrorCode BTEModelSpecGraphene(BTE, BTEModelSpec *);

/* Cartesian k of grid index ik reduced to the Wigner-Seitz cell, and its valley: 0 = K, 1 = K' */
static int Valley(const BTE bte, PetscInt ik, PetscReal kout[2], PetscReal *kappa)
{
  const PetscReal *b = bte->grid.reciprocal, a = bte->grid.lattice[0];
  PetscInt         n = bte->grid.nk[0], i0 = ik / n, i1 = ik % n;
  PetscReal        k[2] = {(PetscReal)i0 / n * b[0] + (PetscReal)i1 / n * b[3], (PetscReal)i0 / n * b[1] + (PetscReal)i1 / n * b[4]};
  PetscReal        best = PETSC_MAX_REAL;
  int              valley = -1;
  /* zone corners at angles 0, 120, 240 (K) and 60, 180, 300 (K') degrees, |K| = 4 pi/(3a), plus translations */
  for (int c = 0; c < 6; c++)
    for (int n0 = -2; n0 <= 2; n0++)
      for (int n1 = -2; n1 <= 2; n1++) {
        PetscReal Kc[2] = {4 * PETSC_PI / (3 * a) * PetscCosReal(c * PETSC_PI / 3) + n0 * b[0] + n1 * b[3], 4 * PETSC_PI / (3 * a) * PetscSinReal(c * PETSC_PI / 3) + n0 * b[1] + n1 * b[4]};
        PetscReal d2 = (k[0] - Kc[0]) * (k[0] - Kc[0]) + (k[1] - Kc[1]) * (k[1] - Kc[1]);
        if (d2 < best) {
          best   = d2;
          valley = c % 2;
        }
      }
  if (kout) {
    kout[0] = k[0];
    kout[1] = k[1];
  }
  if (kappa) *kappa = PetscSqrtReal(best);
  return valley;
}

int main(int argc, char **argv)
{
  BTE         bte;
  PetscMPIInt size;
  char        band[16] = "tb";
  PetscBool   dirac;
  PetscInt    N;
  PetscReal   W, hvf = BTE_HBAR * 10.0, A;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "graphene model on a grid"));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "run on one rank");
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_graphene_band", band, sizeof(band), NULL));
  dirac = (PetscBool)!strcmp(band, "dirac");
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetModel(bte, "graphene"));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  N = bte->grid.nk[0];
  W = bte->window;
  A = bte->grid.volume;
  CHECK(bte->grid.dim == 2 && bte->grid.nk[1] == N && bte->grid.nk[2] == 1, "grid %d: %d x %d x %d", (int)bte->grid.dim, (int)N, (int)bte->grid.nk[1], (int)bte->grid.nk[2]);
  CHECK(PetscAbsReal(A - 0.5 * PetscSqrtReal(3.0) * 2.46 * 2.46) < 1e-10, "cell area %g", (double)A);
  CHECK(bte->nbands == 1 && bte->nmodes == 6 && bte->spin == 2 && bte->carrier == -1, "shape");
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "graphene (%s band), %d x %d grid, window %g eV: %d states, %lld channels\n", band, (int)N, (int)N, (double)W, (int)bte->nstates, (long long)bte->ch.nglobal));

  /* states: recount with the model's band function at the (unreduced) grid points */
  {
    BTEModelSpec spec;
    PetscInt     cnt = 0;
    PetscCall(BTEModelSpecGraphene(bte, &spec));
    for (PetscInt ik = 0; ik < N * N; ik++) {
      PetscReal k[3], e, v[3];
      PetscInt  i0 = ik / N, i1 = ik % N;
      for (int c = 0; c < 3; c++) k[c] = (PetscReal)i0 / N * bte->grid.reciprocal[c] + (PetscReal)i1 / N * bte->grid.reciprocal[3 + c];
      PetscCall(spec.bands(spec.ctx, k, &e, v));
      if (e >= 0 && e <= W) cnt++;
    }
    PetscCall(PetscFree(spec.ctx));
    CHECK(cnt == bte->nstates, "built %d states, the band function gives %d on the grid", (int)bte->nstates, (int)cnt);
  }

  /* cumulative count and linear DOS */
  {
    PetscReal blen = PetscSqrtReal(bte->grid.reciprocal[0] * bte->grid.reciprocal[0] + bte->grid.reciprocal[1] * bte->grid.reciprocal[1]);
    PetscReal d = blen / N / PetscSqrtReal(3.0), ratio0 = 0;
    for (int s = 1; s <= 6; s++) {
      PetscReal E = W * s / 6, R = E / hvf, an = (PetscReal)N * N * A * E * E / (2 * PETSC_PI * hvf * hvf);
      PetscReal tol = 2 * d / R + d * d / (R * R) + (dirac ? 0 : 1e-3);
      PetscInt  cnt = 0;
      for (PetscInt i = 0; i < bte->nlocal; i++)
        if (bte->energy[i] <= E) cnt++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  N(E <= %.3f eV) = %5d, Dirac cone %8.1f, rel. diff %+.4f (bound %.4f); N/E^2 = %.1f\n", (double)E, (int)cnt, (double)an, (double)(cnt / an - 1), (double)tol, (double)(cnt / (E * E))));
      CHECK(PetscAbsReal(cnt / an - 1) <= tol, "state count %d vs %g at E = %g beyond the lattice bound %g", (int)cnt, (double)an, (double)E, (double)tol);
      if (s == 6) ratio0 = cnt / an;
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  g(E)/E on the grid at the window edge: %.5f 1/(eV^2 cell) vs 2 A/(pi hbar^2 v_F^2) = %.5f\n", (double)(ratio0 * 2 * A / (PETSC_PI * hvf * hvf)), (double)(2 * A / (PETSC_PI * hvf * hvf))));
  }

  /* channels */
  {
    const PetscReal hwopt[6] = {0, 0, 0.196, 0.196, 0.162, 0.150}, vs[2] = {0.14, 0.21}, tol = bte->tol_eta * bte->smearing;
    PetscInt64      nmode[6] = {0}, ninter = 0, bad = 0;
    CHECK(bte->ch.n == bte->ch.nglobal, "one rank holds %lld of %lld channels", (long long)bte->ch.n, (long long)bte->ch.nglobal);
    for (PetscCount c = 0; c < bte->ch.n; c++) {
      PetscInt  i = bte->ch.i[c], j = bte->ch.j[c], nu = bte->ch.mode[c];
      PetscReal ki[2], kj[2], de;
      int       vi, vj;
      if (!(i < j && i >= 0 && j < bte->nstates && nu >= 0 && nu < 6)) {
        if (bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: channel %lld: i %d j %d mode %d\n", (long long)c, (int)i, (int)j, (int)nu));
        continue;
      }
      nmode[nu]++;
      vi = Valley(bte, bte->kindex[i], ki, NULL);
      vj = Valley(bte, bte->kindex[j], kj, NULL);
      if (vi != vj) ninter++;
      if ((vi != vj) != (nu >= 4)) {
        if (bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: channel %lld mode %d joins valleys %d and %d\n", (long long)c, (int)nu, vi, vj));
      }
      if (nu >= 2) {
        if (bte->ch.hw[c] != hwopt[nu] && bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: channel %lld mode %d hw %g\n", (long long)c, (int)nu, (double)bte->ch.hw[c]));
      } else {
        /* q = k_j - k_i minimal image: both are within 0.1 1/A of the same K point */
        PetscInt  ni = bte->kindex[i], nj = bte->kindex[j], d0 = nj / N - ni / N, d1 = nj % N - ni % N;
        PetscReal best = PETSC_MAX_REAL, want;
        for (int n0 = -1; n0 <= 1; n0++)
          for (int n1 = -1; n1 <= 1; n1++) {
            PetscReal f0 = (PetscReal)d0 / N + n0, f1 = (PetscReal)d1 / N + n1;
            PetscReal x = f0 * bte->grid.reciprocal[0] + f1 * bte->grid.reciprocal[3], y = f0 * bte->grid.reciprocal[1] + f1 * bte->grid.reciprocal[4];
            best = PetscMin(best, x * x + y * y);
          }
        want = BTE_HBAR * vs[nu] * PetscSqrtReal(best);
        if (PetscAbsReal(bte->ch.hw[c] - want) > 1e-9 * want && bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: acoustic channel %lld hw %g, hbar v |q| = %g\n", (long long)c, (double)bte->ch.hw[c], (double)want));
      }
      de = PetscAbsReal(bte->energy[j] - bte->energy[i]);
      if (!(PetscAbsReal(de - bte->ch.hw[c]) < tol && bte->ch.g2[c] > 0) && bad++ < 5) PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL: channel %lld violates the selection rules\n", (long long)c));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  channels per mode: TA %lld, LA %lld, TO %lld, LO %lld, A1'(K) %lld, E'(K) %lld; K<->K' %lld\n", (long long)nmode[0], (long long)nmode[1], (long long)nmode[2], (long long)nmode[3], (long long)nmode[4], (long long)nmode[5], (long long)ninter));
    CHECK(!bad, "%lld bad channels", (long long)bad);
    for (int nu = 0; nu < 6; nu++) CHECK(nmode[nu] > 0, "no channels of mode %d", nu);
    CHECK(ninter == nmode[4] + nmode[5], "K<->K' channels %lld != K-phonon channels %lld", (long long)ninter, (long long)(nmode[4] + nmode[5]));
    /* the number of states in valley K equals that in K' (time reversal), both nonzero */
    {
      PetscInt nv[2] = {0, 0};
      for (PetscInt i = 0; i < bte->nlocal; i++) nv[Valley(bte, bte->kindex[i], NULL, NULL)]++;
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "  states in K: %d, in K': %d\n", (int)nv[0], (int)nv[1]));
      CHECK(nv[0] == nv[1] && nv[0] > 0, "valley populations differ: %d %d", (int)nv[0], (int)nv[1]);
    }
  }
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
