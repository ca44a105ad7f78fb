/* Unit test of the si-holes acoustic coupling -bte_si_holes_acoustic bir-pikus (kp6 bands), against
   closed forms evaluated here in SI units:
   - completeness: summed over the initial and the final band, tr(P_n D P_m D)/2 is tr(D^2) of the
     3x3 strain matrix whatever the eigenvectors, so for q along [100], [110], [111] and each branch
     (the two degenerate TA branches of [100] and [111] together) sum_nm |g|^2 is
     hbar tr(D^2) / (2 M w) with the textbook values
       [100] LA (3 a^2 + 6 b^2) q^2, c11;           TA1 + TA2  3 d^2 q^2, c44;
       [110] LA ((2a + b)^2/2 + (a - b)^2 + 3 d^2/2) q^2, (c11 + c12 + 2 c44)/2;
             TA [001] 3 d^2 q^2 / 2, c44;          TA [1-10]  9 b^2 q^2 / 2, (c11 - c12)/2;
       [111] LA (3 a^2 + 2 d^2) q^2, (c11 + 2 c12 + 4 c44)/3;  TA1 + TA2 (6 b^2 + d^2) q^2, (c11 - c12 + c44)/3
     (rho v^2 in the second column), and hw = hbar v |q| with those velocities;
   - the deformation-potential limit: b = d = 0 and an isotropic continuum (c12 = c11 - 2 c44): the TA
     couplings vanish and LA is the isotropic model's hbar D^2 |q| / (2 M v_s) times the kp overlap
     tr(P_n P_m)/2 (-bte_si_holes_overlap kp, D = a, v_s = sqrt(c11/rho)), and summed over final bands
     exactly hbar a^2 |q| / (2 M v_L);
   - exchange symmetry, invariance under the cubic group, -bte_si_holes_soc partner sums. */
#include "m2_common.h"

int main(int argc, char **argv)
{
  BTE             bte, bte6, btel, btei;
  BTEModelSpec    spec, spec6, specl, speci;
  PetscRandom     rnd;
  const PetscReal a = 2.46, b = -2.10, d = -4.85, c11 = 165.7e9, c12 = 63.9e9, c44 = 79.6e9, rho = 2329, alat = 5.431e-10; /* defaults, SI */
  const PetscReal Mcell = rho * alat * alat * alat / 4;
  PetscReal       hw[6], g2[6];

  PetscCall(PetscInitialize(&argc, &argv, NULL, "si-holes Bir-Pikus acoustic coupling unit test"));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 1717));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_optical isotropic", &bte, &spec));
  PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_optical isotropic -bte_si_holes_soc", &bte6, &spec6));

  /* 1. completeness sums against the closed forms */
  {
    const PetscReal dirs[3][3] = {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}};
    /* per direction: groups of branches (mask), tr(D^2)/q^2 in eV^2, rho v^2 */
    const struct {
      int       dir, mask;
      PetscReal trd2, rv2;
      const char *name;
    } cases[] = {
      {0, 1, 3 * a * a + 6 * b * b, c11, "[100] LA"},
      {0, 6, 3 * d * d, c44, "[100] TA1+TA2"},
      {1, 1, (2 * a + b) * (2 * a + b) / 2 + (a - b) * (a - b) + 1.5 * d * d, (c11 + c12 + 2 * c44) / 2, "[110] LA"},
      {1, 2, 1.5 * d * d, c44, "[110] TA [001]"},
      {1, 4, 4.5 * b * b, (c11 - c12) / 2, "[110] TA [1-10]"},
      {2, 1, 3 * a * a + 2 * d * d, (c11 + 2 * c12 + 4 * c44) / 3, "[111] LA"},
      {2, 6, 6 * b * b + d * d, (c11 - c12 + c44) / 3, "[111] TA1+TA2"},
    };
    PetscReal maxg = 0, maxhw = 0;
    for (size_t ic = 0; ic < sizeof(cases) / sizeof(cases[0]); ic++) {
      for (int trial = 0; trial < 4; trial++) {
        PetscReal nrm = 0, u[3], k1[3], k2[3], q[3], aq = 0.02 + 0.1 * Rand(rnd), sum = 0, want, v, qsi;
        for (int x = 0; x < 3; x++) nrm += dirs[cases[ic].dir][x] * dirs[cases[ic].dir][x];
        for (int x = 0; x < 3; x++) {
          u[x]  = dirs[cases[ic].dir][x] / PetscSqrtReal(nrm) * (trial % 2 ? -1 : 1);
          k1[x] = 0.2 * (Rand(rnd) - 0.5);
          q[x]  = aq * u[x];
          k2[x] = k1[x] + q[x];
        }
        for (int n = 0; n < 3; n++)
          for (int m = 0; m < 3; m++) {
            PetscCall(spec.coupling(spec.ctx, n, k1, m, k2, q, hw, g2));
            for (int nu = 0; nu < 3; nu++)
              if (cases[ic].mask & (1 << nu)) sum += g2[nu];
          }
        v    = PetscSqrtReal(cases[ic].rv2 / rho);
        qsi  = aq * 1e10;
        want = HBAR_SI / (2 * Mcell * v * qsi) * cases[ic].trd2 * qsi * qsi; /* eV^2 */
        maxg = PetscMax(maxg, PetscAbsReal(sum - want) / want);
        for (int nu = 0; nu < 3; nu++)
          if (cases[ic].mask & (1 << nu)) maxhw = PetscMax(maxhw, PetscAbsReal(hw[nu] - HBAR_SI * v * qsi / E_SI) / (HBAR_SI * v * qsi / E_SI));
        if (trial == 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s v = %6.0f m/s  sum_nm |g|^2 = %.6e eV^2 (closed form %.6e)\n", cases[ic].name, (double)v, (double)sum, (double)want));
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "completeness sums vs closed forms: max rel err %.1e; hw vs hbar v |q|: %.1e\n", (double)maxg, (double)maxhw));
    CHECK(maxg < 1e-8, "sum over bands of the Bir-Pikus |g|^2 differs from hbar tr(D^2)/(2 M w): %g", (double)maxg);
    CHECK(maxhw < 1e-8, "acoustic phonon energies differ from hbar v |q| of the elastic continuum: %g", (double)maxhw);
  }

  /* 2. deformation-potential limit: b = d = 0, isotropic continuum */
  {
    const PetscReal cc11 = 165.7, cc44 = 50.0, vL = PetscSqrtReal(cc11 * 1e9 / rho);
    char            opts[512], optsi[512];
    PetscReal       maxta = 0, maxov = 0, maxsum = 0;
    PetscCall(PetscSNPrintf(opts, sizeof(opts), "-bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_optical isotropic -bte_si_holes_bp_b 0 -bte_si_holes_bp_d 0 -bte_si_holes_c11 %g -bte_si_holes_c12 %g -bte_si_holes_c44 %g", (double)cc11, (double)(cc11 - 2 * cc44), (double)cc44));
    PetscCall(PetscSNPrintf(optsi, sizeof(optsi), "-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_si_holes_overlap kp -bte_si_holes_dac %g -bte_si_holes_vs %.17g", (double)a, (double)vL));
    PetscCall(SiHolesSpec(opts, &btel, &specl));
    PetscCall(SiHolesSpec(optsi, &btei, &speci));
    for (int t = 0; t < 200; t++) {
      PetscReal k1[3], k2[3], q[3], aq, sum = 0, want, hwi[6], g2i[6];
      int       n = t % 3;
      for (int x = 0; x < 3; x++) {
        k1[x] = 0.3 * (Rand(rnd) - 0.5);
        k2[x] = 0.3 * (Rand(rnd) - 0.5);
        q[x]  = k2[x] - k1[x];
      }
      aq   = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
      want = HBAR_SI / (2 * Mcell * vL * aq * 1e10) * a * a * (aq * 1e10) * (aq * 1e10);
      for (int m = 0; m < 3; m++) {
        PetscCall(specl.coupling(specl.ctx, n, k1, m, k2, q, hw, g2));
        PetscCall(speci.coupling(speci.ctx, n, k1, m, k2, q, hwi, g2i));
        maxta = PetscMax(maxta, PetscMax(g2[1], g2[2]) / want);
        maxov = PetscMax(maxov, PetscAbsReal(g2[0] - (g2i[0] + g2i[1] + g2i[2])) / want);
        maxov = PetscMax(maxov, PetscAbsReal(hw[0] - hwi[0]) / hwi[0]);
        sum += g2[0];
      }
      maxsum = PetscMax(maxsum, PetscAbsReal(sum - want) / want);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "b = d = 0, isotropic continuum: TA |g|^2 / LA scale %.1e; LA vs isotropic model with kp overlaps %.1e; sum over final bands vs hbar a^2 |q|/(2 M v_L) %.1e\n", (double)maxta, (double)maxov, (double)maxsum));
    CHECK(maxta < 1e-12, "TA couplings do not vanish without shear deformation potentials: %g", (double)maxta);
    CHECK(maxov < 1e-9, "LA coupling differs from the deformation-potential formula times the kp overlap: %g", (double)maxov);
    CHECK(maxsum < 1e-8, "LA coupling summed over final bands differs from hbar a^2 |q| / (2 M v_L): %g", (double)maxsum);
    PetscCall(PetscFree(specl.ctx));
    PetscCall(PetscFree(speci.ctx));
    PetscCall(BTEDestroy(&btel));
    PetscCall(BTEDestroy(&btei));
  }

  /* 3. exchange symmetry, cubic invariance (LA; TA summed, as they may be degenerate), soc partner sums */
  {
    PetscReal maxsym = 0, maxcub = 0, maxsoc = 0;
    for (int t = 0; t < 200; t++) {
      PetscReal k1[3], k2[3], q[3], mq[3], r1[3], r2[3], rq[3], hw2[6], g2b[6], scale;
      int       n = t % 3, m = (t / 3) % 3;
      for (int x = 0; x < 3; x++) {
        k1[x] = 0.3 * (Rand(rnd) - 0.5);
        k2[x] = 0.3 * (Rand(rnd) - 0.5);
        q[x]  = k2[x] - k1[x];
        mq[x] = -q[x];
      }
      /* a cubic operation: (x, y, z) -> (-y, z, x) */
      r1[0] = -k1[1], r1[1] = k1[2], r1[2] = k1[0];
      r2[0] = -k2[1], r2[1] = k2[2], r2[2] = k2[0];
      rq[0] = -q[1], rq[1] = q[2], rq[2] = q[0];
      PetscCall(spec.coupling(spec.ctx, n, k1, m, k2, q, hw, g2));
      scale = g2[0] + g2[1] + g2[2] + 1e-300;
      PetscCall(spec.coupling(spec.ctx, m, k2, n, k1, mq, hw2, g2b));
      for (int nu = 0; nu < 6; nu++) maxsym = PetscMax(maxsym, PetscAbsReal(g2[nu] - g2b[nu]) / (nu < 3 ? scale : g2[nu]));
      PetscCall(spec.coupling(spec.ctx, n, r1, m, r2, rq, hw2, g2b));
      maxcub = PetscMax(maxcub, PetscMax(PetscAbsReal(g2[0] - g2b[0]), PetscAbsReal(g2[1] + g2[2] - g2b[1] - g2b[2])) / scale);
      {
        PetscReal s[3] = {0, 0, 0};
        for (int sp = 0; sp < 2; sp++) {
          PetscCall(spec6.coupling(spec6.ctx, 2 * n + (t % 2), k1, 2 * m + sp, k2, q, hw2, g2b));
          for (int nu = 0; nu < 3; nu++) s[nu] += g2b[nu];
        }
        for (int nu = 0; nu < 3; nu++) maxsoc = PetscMax(maxsoc, PetscAbsReal(s[nu] - g2[nu]) / scale);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "exchange symmetry %.1e, cubic invariance %.1e, soc partner sums %.1e\n", (double)maxsym, (double)maxcub, (double)maxsoc));
    CHECK(maxsym < 1e-12, "Bir-Pikus coupling not symmetric under exchange: %g", (double)maxsym);
    CHECK(maxcub < 1e-9, "Bir-Pikus coupling not invariant under a cubic operation: %g", (double)maxcub);
    CHECK(maxsoc < 1e-12, "soc couplings summed over partners differ from the 3-band model: %g", (double)maxsoc);
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
