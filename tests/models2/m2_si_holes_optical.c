/* Unit test of the si-holes optical coupling -bte_si_holes_optical bir-pikus (kp6 bands): the optical
   deformation potential d0 between the kp6 eigenvectors, against closed forms evaluated here in SI
   units (M = rho a0^3 / 4, w = hw_op / hbar, s = hbar / (2 M w)):
   - completeness: from every state (band n at k, any k'), summed over the final bands and the three
     optical modes, |g|^2 = 6 (d0/a0)^2 s, whatever the eigenvectors (tr over final bands is D^2, and
     D(e)^2 summed over three orthonormal polarisations is 2 (sqrt(3) d0/a0)^2 times 1);
   - the relation to the isotropic model: within the J = 3/2 states (spin-orbit splitting made
     1e6 eV, so hh and lh span them exactly), summed over the final hh and lh bands and averaged
     over the initial ones, the coupling is 3 (d0/a0)^2 s, which is the isotropic two-band model's
     (G = 1 to each of hh and lh) 2 (D_t K)^2 s for D_t K = sqrt(3/2) d0/a0: checked against the
     model's own isotropic option with that D_t K;
   - selection rules: for k and k' on the [001] axis the heavy holes are |3/2, +-3/2> along z and
     every optical mode has hh -> hh = 0 (the operators change m by +-1, +-2), while hh -> lh is
     allowed; on the [111] axis hh -> hh is zero for TO1 and TO2 (|dm| = 1, 2 in the frame of
     [111]) and (d0/a0)^2 s for LO (the trigonal term, diagonal there);
   - exchange symmetry, cubic invariance (LO, and TO1 + TO2), -bte_si_holes_soc partner sums. */
#include "m2_common.h"

static void RandK(PetscRandom r, PetscReal k[3])
{
  for (int x = 0; x < 3; x++) k[x] = 0.3 * (Rand(r) - 0.5);
}

int main(int argc, char **argv)
{
  BTE             bte, bte6;
  BTEModelSpec    spec, spec6;
  PetscRandom     rnd;
  const PetscReal d0 = 26.61, rho = 2329, alat = 5.431e-10, hwop = 0.063; /* defaults, SI */
  const PetscReal Mcell = rho * alat * alat * alat / 4, w = hwop * E_SI / HBAR_SI;
  const PetscReal s  = HBAR_SI / (2 * Mcell * w);                    /* m^2: |g|^2 (eV^2) = s (d0/a0 in eV/m)^2 */
  const PetscReal da = d0 / alat;                                    /* d0 / a0, eV/m */
  PetscReal       hw[6], g2[6];

  PetscCall(PetscInitialize(&argc, &argv, NULL, "si-holes Bir-Pikus optical coupling unit test"));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 2025));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical bir-pikus", &bte, &spec));
  PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical bir-pikus -bte_si_holes_soc", &bte6, &spec6));

  /* 1. completeness from every state, and phonon energies */
  {
    const PetscReal want = 6 * da * da * s; /* eV^2 */
    PetscReal       maxc = 0, maxhw = 0;
    for (int t = 0; t < 300; t++) {
      PetscReal k1[3], k2[3], q[3];
      int       n = t % 3;
      RandK(rnd, k1);
      RandK(rnd, k2);
      if (t % 50 == 0)
        for (int x = 0; x < 3; x++) k2[x] = k1[x]; /* q = 0 too */
      for (int x = 0; x < 3; x++) q[x] = k2[x] - k1[x];
      {
        PetscReal sum = 0;
        for (int m = 0; m < 3; m++) {
          PetscCall(spec.coupling(spec.ctx, n, k1, m, k2, q, hw, g2));
          for (int nu = 3; nu < 6; nu++) {
            sum += g2[nu];
            maxhw = PetscMax(maxhw, PetscAbsReal(hw[nu] - hwop) / hwop);
          }
        }
        maxc = PetscMax(maxc, PetscAbsReal(sum - want) / want);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "completeness: sum over final bands and LO, TO1, TO2 = 6 (d0/a0)^2 hbar/(2 M w) = %.6e eV^2 from every state: max rel err %.1e; hw = %g eV: %.1e\n", (double)want, (double)maxc, (double)hwop, (double)maxhw));
    CHECK(maxc < 1e-8, "optical |g|^2 summed over final bands and modes differs from 6 (d0/a0)^2 hbar/(2 M w): %g", (double)maxc);
    CHECK(maxhw < 1e-14, "optical phonon energy differs from hw_op: %g", (double)maxhw);
  }

  /* 2. the two-band (J = 3/2) sum against the isotropic model with D_t K = sqrt(3/2) d0/a0: at Gamma
     (hh + lh is the J = 3/2 quartet exactly) with the real Delta, and for random k, k' (|k| < 0.05
     per component) with Delta = 1e3 eV, where the split-off admixture of hh and lh is ~1e-5; with
     the real Delta at those k (printed, not asserted) the split-off band takes part of it */
  {
    const PetscReal dtk = PetscSqrtReal(1.5) * d0 / (alat * 100), want = 3 * da * da * s; /* eV/cm; eV^2 */
    const char     *deltas[3] = {"0.044", "1e3", "0.044"};
    PetscReal       maxr[3] = {0, 0, 0}, maxw[3] = {0, 0, 0};
    for (int id = 0; id < 3; id++) {
      BTE          btej, btei;
      BTEModelSpec specj, speci;
      char         opts[256];
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical bir-pikus -bte_si_holes_delta %s", deltas[id]));
      PetscCall(SiHolesSpec(opts, &btej, &specj));
      PetscCall(PetscSNPrintf(opts, sizeof(opts), "-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_si_holes_delta %s -bte_si_holes_dop %.17g", deltas[id], (double)dtk));
      PetscCall(SiHolesSpec(opts, &btei, &speci));
      for (int t = 0; t < (id ? 200 : 1); t++) {
        PetscReal k1[3] = {0, 0, 0}, k2[3] = {0, 0, 0}, q[3], bp = 0, iso = 0, hwi[6], g2i[6];
        if (id)
          for (int x = 0; x < 3; x++) {
            k1[x] = 0.1 * (Rand(rnd) - 0.5);
            k2[x] = 0.1 * (Rand(rnd) - 0.5);
          }
        for (int x = 0; x < 3; x++) q[x] = k2[x] - k1[x];
        for (int n = 0; n < 2; n++)
          for (int m = 0; m < 2; m++) {
            PetscCall(specj.coupling(specj.ctx, n, k1, m, k2, q, hw, g2));
            PetscCall(speci.coupling(speci.ctx, n, k1, m, k2, q, hwi, g2i));
            for (int nu = 3; nu < 6; nu++) {
              bp += 0.5 * g2[nu]; /* averaged over the two initial bands */
              iso += 0.5 * g2i[nu];
            }
          }
        maxr[id] = PetscMax(maxr[id], PetscAbsReal(bp - iso) / iso);
        maxw[id] = PetscMax(maxw[id], PetscAbsReal(bp - want) / want);
      }
      PetscCall(PetscFree(specj.ctx));
      PetscCall(PetscFree(speci.ctx));
      PetscCall(BTEDestroy(&btej));
      PetscCall(BTEDestroy(&btei));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "J = 3/2 sums against the isotropic two-band model with D_t K = sqrt(3/2) d0/a0 = %.5g eV/cm (and against 3 (d0/a0)^2 hbar/(2 M w)): at Gamma %.1e (%.1e); random k, k', Delta = 1e3 eV: %.1e (%.1e); the same k with the real Delta: %.2f\n", (double)dtk, (double)maxr[0], (double)maxw[0], (double)maxr[1], (double)maxw[1], (double)maxr[2]));
    CHECK(maxr[0] < 1e-12 && maxw[0] < 1e-8, "J = 3/2 optical sum at Gamma differs from the isotropic model with D_t K = sqrt(3/2) d0/a0: %g (%g)", (double)maxr[0], (double)maxw[0]);
    CHECK(maxr[1] < 1e-6 && maxw[1] < 1e-6, "J = 3/2 optical sum (Delta = 1e3 eV) differs from the isotropic model with D_t K = sqrt(3/2) d0/a0: %g (%g)", (double)maxr[1], (double)maxw[1]);
  }

  /* 3. selection rules on the [001] and [111] axes */
  {
    const PetscReal scale = 6 * da * da * s, lo111 = da * da * s;
    const PetscReal ax[2][3] = {{0, 0, 1}, {1 / PetscSqrtReal(3.0), 1 / PetscSqrtReal(3.0), 1 / PetscSqrtReal(3.0)}};
    const PetscReal ks[4][2] = {{0.05, 0.11}, {0.05, -0.08}, {-0.13, 0.02}, {0.1, 0.1}};
    PetscReal       hh001 = 0, hl001 = PETSC_MAX_REAL, to111 = 0, lo111err = 0;
    for (int dir = 0; dir < 2; dir++)
      for (int i = 0; i < 4; i++) {
        PetscReal k1[3], k2[3], q[3], hl = 0;
        for (int x = 0; x < 3; x++) {
          k1[x] = ks[i][0] * ax[dir][x];
          k2[x] = ks[i][1] * ax[dir][x];
          q[x]  = k2[x] - k1[x];
        }
        PetscCall(spec.coupling(spec.ctx, 0, k1, 0, k2, q, hw, g2));
        if (dir == 0) {
          for (int nu = 3; nu < 6; nu++) hh001 = PetscMax(hh001, g2[nu] / scale);
          PetscCall(spec.coupling(spec.ctx, 0, k1, 1, k2, q, hw, g2));
          for (int nu = 3; nu < 6; nu++) hl += g2[nu];
          hl001 = PetscMin(hl001, hl / scale);
        } else if (i < 3) { /* q != 0 along [111]: LO along it */
          to111    = PetscMax(to111, (g2[4] + g2[5]) / scale);
          lo111err = PetscMax(lo111err, PetscAbsReal(g2[3] - lo111) / lo111);
        } else lo111err = PetscMax(lo111err, PetscAbsReal(g2[3] + g2[4] + g2[5] - lo111) / lo111); /* q = 0: x, y, z, whose sum is LO's */
      }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "selection rules: [001] hh -> hh %.1e, hh -> lh >= %.3f (of the completeness sum); [111] hh -> hh TO1 + TO2 %.1e, LO vs (d0/a0)^2 hbar/(2 M w) = %.5e eV^2: %.1e\n", (double)hh001, (double)hl001, (double)to111, (double)lo111, (double)lo111err));
    CHECK(hh001 < 1e-13, "hh -> hh optical coupling along [001] does not vanish: %g", (double)hh001);
    CHECK(hl001 > 0.05, "hh -> lh optical coupling along [001] is missing: %g", (double)hl001);
    CHECK(to111 < 1e-13, "hh -> hh TO coupling along [111] does not vanish: %g", (double)to111);
    CHECK(lo111err < 1e-8, "hh -> hh LO coupling along [111] differs from (d0/a0)^2 hbar/(2 M w): %g", (double)lo111err);
  }

  /* 4. exchange symmetry, cubic invariance (LO; TO1 + TO2, a degenerate pair), soc partner sums */
  {
    PetscReal maxsym = 0, maxcub = 0, maxsoc = 0;
    for (int t = 0; t < 200; t++) {
      PetscReal k1[3], k2[3], q[3], mq[3], r1[3], r2[3], rq[3], hw2[6], g2b[6], scale;
      int       n = t % 3, m = (t / 3) % 3;
      RandK(rnd, k1);
      RandK(rnd, k2);
      for (int x = 0; x < 3; x++) {
        q[x]  = k2[x] - k1[x];
        mq[x] = -q[x];
      }
      /* a cubic operation: (x, y, z) -> (-y, z, x) */
      r1[0] = -k1[1], r1[1] = k1[2], r1[2] = k1[0];
      r2[0] = -k2[1], r2[1] = k2[2], r2[2] = k2[0];
      rq[0] = -q[1], rq[1] = q[2], rq[2] = q[0];
      PetscCall(spec.coupling(spec.ctx, n, k1, m, k2, q, hw, g2));
      scale = 6 * da * da * s;
      PetscCall(spec.coupling(spec.ctx, m, k2, n, k1, mq, hw2, g2b));
      for (int nu = 3; nu < 6; nu++) maxsym = PetscMax(maxsym, PetscAbsReal(g2[nu] - g2b[nu]) / scale);
      PetscCall(spec.coupling(spec.ctx, n, r1, m, r2, rq, hw2, g2b));
      maxcub = PetscMax(maxcub, PetscMax(PetscAbsReal(g2[3] - g2b[3]), PetscAbsReal(g2[4] + g2[5] - g2b[4] - g2b[5])) / scale);
      {
        PetscReal sp6[6] = {0, 0, 0, 0, 0, 0};
        for (int sp = 0; sp < 2; sp++) {
          PetscCall(spec6.coupling(spec6.ctx, 2 * n + (t % 2), k1, 2 * m + sp, k2, q, hw2, g2b));
          for (int nu = 3; nu < 6; nu++) sp6[nu] += g2b[nu];
        }
        for (int nu = 3; nu < 6; nu++) maxsoc = PetscMax(maxsoc, PetscAbsReal(sp6[nu] - g2[nu]) / scale);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "exchange symmetry %.1e, cubic invariance %.1e, soc partner sums %.1e\n", (double)maxsym, (double)maxcub, (double)maxsoc));
    CHECK(maxsym < 1e-12, "optical coupling not symmetric under exchange: %g", (double)maxsym);
    CHECK(maxcub < 1e-9, "optical coupling not invariant under a cubic operation: %g", (double)maxcub);
    CHECK(maxsoc < 1e-12, "soc optical couplings summed over partners differ from the 3-band model: %g", (double)maxsoc);
  }

  PetscCall(PetscFree(spec.ctx));
  PetscCall(PetscFree(spec6.ctx));
  PetscCall(BTEDestroy(&bte));
  PetscCall(BTEDestroy(&bte6));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
