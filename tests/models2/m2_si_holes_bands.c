/* Unit test of the si-holes model's band and coupling functions (no grid, no builder):
   - heavy/light hole energies along [100], [110], [111] are hbar^2 k^2 / (2 m) with the masses of the
     warped-band formula, m = 1/(|A| -+ sqrt(B^2 + C^2 F)), F = 0, 1/4, 1/3; split-off Delta + |A| k^2;
   - energies invariant under k -> k + G (reduction to the first zone) and under the cubic group;
   - velocities = grad e / hbar (central differences);
   - couplings: exchange symmetry, hw (acoustic hbar v_s |q|, optical 63 meV), |g|^2 summed over the
     three branches of a kind against hbar D^2 |q|/(2 M v_s) and hbar (D_t K)^2/(2 M w) evaluated in SI
     units here, overlap factors (const: 1 within, f between bands; wiley: rows sum to 1);
   - -bte_si_holes_soc: 6 bands in degenerate pairs, |g|^2 summed over the final partner equals the
     3-band value;
   - -bte_si_holes_bands kp6 (6x6 k.p with spin-orbit): 0, 0, Delta at Gamma; the trace sum rule
     e_hh + e_lh + e_so = 3 c |A| k^2 + Delta; for Delta = 100 eV the hh/lh bands are the DKK bands
     (the large-Delta limit), for Delta -> 0 along [100] they are c(|A| - |B|) k^2 (twice) and
     c(|A| + 2|B|) k^2; velocities = grad e / hbar; kp overlaps: rows sum to 1, orthonormal at
     k' = k, and for spherical bands (C = 0) with Delta = 100 eV Wiley's (1 + 3 cos^2)/4 and
     3 sin^2/4. */
#include "m2_common.h"

#define M0_SI   9.1093837015e-31

int main(int argc, char **argv)
{
  BTE             bte, bte6, btew, btef;
  BTEModelSpec    spec, spec6, specw, specf;
  PetscRandom     rnd;
  const PetscReal c = 3.80998212, A = 4.28, B = 0.68, C = 4.87, Delta = 0.044, a = 5.431; /* hbar^2/2m0 in eV A^2; defaults */
  PetscReal       e[6], v[18], G[3][3];

  PetscCall(PetscInitialize(&argc, &argv, NULL, "si-holes model unit test"));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 4242));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(SiHolesSpec("-bte_si_holes_bands dkk", &bte, &spec));
  PetscCall(SiHolesSpec("-bte_si_holes_bands dkk -bte_si_holes_soc", &bte6, &spec6));
  PetscCall(SiHolesSpec("-bte_si_holes_bands dkk -bte_si_holes_overlap wiley", &btew, &specw));
  PetscCall(SiHolesSpec("-bte_si_holes_bands dkk -bte_si_holes_interband 0.25", &btef, &specf));
  CHECK(spec.dim == 3 && spec.nbands == 3 && spec.nmodes == 6 && spec.spin == 2 && spec.carrier == 1, "spec shape");
  CHECK(spec6.nbands == 6 && spec6.spin == 1 && spec6.nmodes == 6, "soc spec shape: %d bands, spin %d", (int)spec6.nbands, (int)spec6.spin);
  CHECK(PetscAbsReal(spec.lattice[1] - a / 2) < 1e-14 && spec.lattice[0] == 0, "fcc lattice");
  /* reciprocal vectors (2 pi/a)(-1,1,1), (1,-1,1), (1,1,-1) */
  for (int i = 0; i < 3; i++)
    for (int d = 0; d < 3; d++) G[i][d] = 2 * PETSC_PI / a * (i == d ? -1 : 1);

  /* 1. energies along [100], [110], [111] */
  {
    const PetscReal dirs[3][3] = {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}, F[3] = {0, 0.25, 1.0 / 3};
    const char     *names[3]   = {"[100]", "[110]", "[111]"};
    PetscReal       maxerr     = 0;
    for (int d = 0; d < 3; d++) {
      PetscReal n = PetscSqrtReal(dirs[d][0] * dirs[d][0] + dirs[d][1] * dirs[d][1] + dirs[d][2] * dirs[d][2]);
      PetscReal mhh = 1 / (A - PetscSqrtReal(B * B + C * C * F[d])), mlh = 1 / (A + PetscSqrtReal(B * B + C * C * F[d]));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: m_hh = %.4f m0, m_lh = %.4f m0\n", names[d], (double)mhh, (double)mlh));
      for (int ik = 1; ik <= 30; ik++) {
        PetscReal kk = 0.01 * ik, k[3], want[3];
        for (int x = 0; x < 3; x++) k[x] = kk * dirs[d][x] / n;
        want[0] = c * kk * kk / mhh;
        want[1] = c * kk * kk / mlh;
        want[2] = Delta + c * A * kk * kk;
        PetscCall(spec.bands(spec.ctx, k, e, v));
        for (int b = 0; b < 3; b++) maxerr = PetscMax(maxerr, PetscAbsReal(e[b] - want[b]) / want[b]);
        /* the same at k + G and at a cubic image (-ky, kz, kx) */
        {
          PetscReal kg[3] = {k[0] + G[0][0] - G[2][0], k[1] + G[0][1] - G[2][1], k[2] + G[0][2] - G[2][2]}, kc[3] = {-k[1], k[2], k[0]}, e2[3], e3[3];
          PetscCall(spec.bands(spec.ctx, kg, e2, v));
          PetscCall(spec.bands(spec.ctx, kc, e3, v));
          for (int b = 0; b < 3; b++) maxerr = PetscMax(maxerr, PetscMax(PetscAbsReal(e2[b] - want[b]), PetscAbsReal(e3[b] - want[b])) / want[b]);
        }
      }
    }
    /* Gamma */
    {
      PetscReal k0[3] = {0, 0, 0};
      PetscCall(spec.bands(spec.ctx, k0, e, v));
      CHECK(e[0] == 0 && e[1] == 0 && PetscAbsReal(e[2] - Delta) < 1e-15, "energies at Gamma %g %g %g", (double)e[0], (double)e[1], (double)e[2]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "band energies vs hbar^2 k^2/2m along [100], [110], [111] (and k+G, cubic images): max rel err %.2e\n", (double)maxerr));
    CHECK(maxerr < 1e-8, "band energies deviate from the warped-band formula: %g", (double)maxerr);
  }

  /* 2. velocities by central differences */
  {
    PetscReal maxerr = 0, h = 1e-6;
    for (int t = 0; t < 300; t++) {
      PetscReal k[3], vfd[9], ep[3], em[3];
      for (int x = 0; x < 3; x++) k[x] = 0.4 * (Rand(rnd) - 0.5);
      PetscCall(spec.bands(spec.ctx, k, e, v));
      for (int x = 0; x < 3; x++) {
        PetscReal kp[3] = {k[0], k[1], k[2]}, km[3] = {k[0], k[1], k[2]}, w[9];
        kp[x] += h;
        km[x] -= h;
        PetscCall(spec.bands(spec.ctx, kp, ep, w));
        PetscCall(spec.bands(spec.ctx, km, em, w));
        for (int b = 0; b < 3; b++) vfd[3 * b + x] = (ep[b] - em[b]) / (2 * h) / BTE_HBAR;
      }
      PetscCall(spec.bands(spec.ctx, k, e, v));
      for (int b = 0; b < 3; b++) {
        PetscReal vn = PetscSqrtReal(v[3 * b] * v[3 * b] + v[3 * b + 1] * v[3 * b + 1] + v[3 * b + 2] * v[3 * b + 2]);
        for (int x = 0; x < 3; x++) maxerr = PetscMax(maxerr, PetscAbsReal(v[3 * b + x] - vfd[3 * b + x]) / vn);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "velocity vs finite differences: max relative error %.2e\n", (double)maxerr));
    CHECK(maxerr < 1e-6, "velocities differ from grad e / hbar by %g", (double)maxerr);
  }

  /* 3. couplings */
  {
    const PetscReal M = 2329.0 * (a * 1e-10) * (a * 1e-10) * (a * 1e-10) / 4, vs = 9.0e3, Dac = 5.0 * E_SI, Dop = 6.0e10 * E_SI, w = 0.063 * E_SI / HBAR_SI;
    const PetscReal g2op = HBAR_SI * Dop * Dop / (2 * M * w) / (E_SI * E_SI);
    PetscReal       maxsym = 0, maxg = 0, maxrow = 0, maxsoc = 0, maxf = 0, hw[6], g2[6], hw2[6], g2b[6];
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "expected optical |g|^2 (sum of LO, TO1, TO2, overlap 1): %.5f eV^2\n", (double)g2op));
    for (int t = 0; t < 3000; t++) {
      PetscReal k1[3], k2[3], q[3], mq[3], aq, ov[3][3], roww[3] = {0, 0, 0};
      int       n = t % 3, m = (t / 3) % 3;
      for (int x = 0; x < 3; x++) {
        k1[x] = 0.3 * (Rand(rnd) - 0.5);
        k2[x] = 0.3 * (Rand(rnd) - 0.5);
        q[x]  = k2[x] - k1[x];
        mq[x] = -q[x];
      }
      aq = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
      PetscCall(spec.coupling(spec.ctx, n, k1, m, k2, q, hw, g2));
      PetscCall(spec.coupling(spec.ctx, m, k2, n, k1, mq, hw2, g2b));
      for (int nu = 0; nu < 6; nu++) maxsym = PetscMax(maxsym, PetscAbsReal(g2[nu] - g2b[nu]) / g2[nu] + PetscAbsReal(hw[nu] - hw2[nu]) / hw[nu]);
      {
        PetscReal want_ac = HBAR_SI * Dac * Dac * (aq * 1e10) / (2 * M * vs) / (E_SI * E_SI), hwac = HBAR_SI * vs * aq * 1e10 / E_SI;
        maxg = PetscMax(maxg, PetscAbsReal(g2[0] + g2[1] + g2[2] - want_ac) / want_ac);
        maxg = PetscMax(maxg, PetscAbsReal(g2[3] + g2[4] + g2[5] - g2op) / g2op);
        for (int nu = 0; nu < 3; nu++) {
          maxg = PetscMax(maxg, PetscAbsReal(hw[nu] - hwac) / hwac);
          CHECK(hw[nu + 3] == 0.063, "optical hw %g", (double)hw[nu + 3]);
          CHECK(g2[nu] == g2[0] && g2[nu + 3] == g2[3], "branches of a kind differ");
        }
      }
      /* const overlap with f = 0.25 */
      PetscCall(specf.coupling(specf.ctx, n, k1, m, k2, q, hw2, g2b));
      maxf = PetscMax(maxf, PetscAbsReal(g2b[3] / g2[3] - (n == m ? 1 : 0.25)));
      /* wiley: sum over final bands of the overlap is 1 */
      for (int mm = 0; mm < 3; mm++) {
        PetscCall(specw.coupling(specw.ctx, n, k1, mm, k2, q, hw2, g2b));
        ov[n][mm] = (g2b[3] + g2b[4] + g2b[5]) / g2op;
        roww[n] += ov[n][mm];
      }
      maxrow = PetscMax(maxrow, PetscAbsReal(roww[n] - 1));
      /* soc: partners degenerate; sum over final partners = 3-band coupling */
      PetscCall(spec6.bands(spec6.ctx, k1, e, v));
      CHECK(e[0] == e[1] && e[2] == e[3] && e[4] == e[5], "soc bands not in degenerate pairs");
      for (int s = 0; s < 2; s++) {
        PetscReal sum[6] = {0};
        for (int sp = 0; sp < 2; sp++) {
          PetscCall(spec6.coupling(spec6.ctx, 2 * n + s, k1, 2 * m + sp, k2, q, hw2, g2b));
          for (int nu = 0; nu < 6; nu++) sum[nu] += g2b[nu];
        }
        for (int nu = 0; nu < 6; nu++) maxsoc = PetscMax(maxsoc, PetscAbsReal(sum[nu] - g2[nu]) / g2[nu]);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "couplings: exchange symmetry %.1e, |g|^2 and hw vs formulas %.1e, const f=0.25 ratio %.1e, wiley row sums - 1: %.1e, soc partner sums %.1e\n", (double)maxsym, (double)maxg, (double)maxf, (double)maxrow, (double)maxsoc));
    CHECK(maxsym < 1e-14, "coupling not symmetric under exchange: %g", (double)maxsym);
    CHECK(maxg < 1e-8, "couplings differ from the deformation-potential formulas: %g", (double)maxg);
    CHECK(maxf < 1e-14, "const overlap with -bte_si_holes_interband 0.25 wrong: %g", (double)maxf);
    CHECK(maxrow < 1e-8, "wiley overlaps do not sum to 1 over final bands: %g", (double)maxrow);
    CHECK(maxsoc < 1e-14, "soc couplings summed over partners differ from the 3-band model: %g", (double)maxsoc);
    /* wiley: heavy->heavy forward 1 - f_so = 2/3, heavy->light forward 0 */
    {
      PetscReal k1[3] = {0.1, 0.02, 0.03}, k2[3] = {0.2, 0.04, 0.06}, q[3] = {0.1, 0.02, 0.03};
      PetscCall(specw.coupling(specw.ctx, 0, k1, 0, k2, q, hw, g2));
      PetscCall(specw.coupling(specw.ctx, 0, k1, 1, k2, q, hw2, g2b));
      CHECK(PetscAbsReal(3 * g2[3] / g2op - 2.0 / 3) < 1e-8 && g2b[3] < 1e-14, "wiley forward overlaps %g %g", (double)(3 * g2[3] / g2op), (double)(3 * g2b[3] / g2op));
    }
  }
  /* 4. kp6 bands and kp overlaps */
  {
    BTE          bk, bl, bs, bsph;
    BTEModelSpec sk, sl, ss, ssph;
    PetscReal    maxsum = 0, maxlarge = 0, maxsmall = 0, maxv = 0, maxrow = 0, maxorth = 0, maxwiley = 0;
    PetscReal    g2one; /* an optical branch's |g|^2 with overlap 1 (const, within a band) */
    {
      PetscReal k1[3] = {0.01, 0.02, 0.03}, k2[3] = {0.03, 0.01, -0.02}, q[3] = {0.02, -0.01, -0.05}, hw[6], g2[6];
      PetscCall(spec.coupling(spec.ctx, 0, k1, 0, k2, q, hw, g2));
      g2one = g2[3];
    }
    PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_si_holes_overlap kp", &bk, &sk));
    PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_si_holes_overlap kp -bte_si_holes_delta 100", &bl, &sl));
    PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_si_holes_overlap kp -bte_si_holes_delta 1e-7", &bs, &ss));
    PetscCall(SiHolesSpec("-bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_si_holes_overlap kp -bte_si_holes_delta 100 -bte_si_holes_dkk_c 0", &bsph, &ssph));
    {
      PetscReal k0[3] = {0, 0, 0};
      PetscCall(sk.bands(sk.ctx, k0, e, v));
      CHECK(e[0] == 0 && e[1] == 0 && e[2] == Delta, "kp6 at Gamma: %g %g %g, expected 0 0 Delta", (double)e[0], (double)e[1], (double)e[2]);
    }
    for (int t = 0; t < 300; t++) {
      PetscReal k[3], k2, vfd[3], ep[6], em[6], w[18], h = 1e-6;
      for (int x = 0; x < 3; x++) k[x] = 0.25 * (Rand(rnd) - 0.5);
      k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];
      PetscCall(sk.bands(sk.ctx, k, e, v));
      maxsum = PetscMax(maxsum, PetscAbsReal(e[0] + e[1] + e[2] - (3 * c * A * k2 + Delta)));
      CHECK(e[0] <= e[1] && e[1] <= e[2], "kp6 bands not ordered");
      for (int b = 0; b < 3; b++) {
        PetscReal vn = 0;
        for (int x = 0; x < 3; x++) {
          PetscReal kp[3] = {k[0], k[1], k[2]}, km[3] = {k[0], k[1], k[2]};
          kp[x] += h;
          km[x] -= h;
          PetscCall(sk.bands(sk.ctx, kp, ep, w));
          PetscCall(sk.bands(sk.ctx, km, em, w));
          vfd[x] = (ep[b] - em[b]) / (2 * h) / 0.6582119569;
          vn += v[3 * b + x] * v[3 * b + x];
        }
        for (int x = 0; x < 3; x++) maxv = PetscMax(maxv, PetscAbsReal(v[3 * b + x] - vfd[x]) / PetscSqrtReal(vn));
      }
    }
    {
      const PetscReal dirs[3][3] = {{1, 0, 0}, {1, 1, 0}, {1, 1, 1}}, F[3] = {0, 0.25, 1.0 / 3};
      for (int d = 0; d < 3; d++) {
        PetscReal n = PetscSqrtReal(dirs[d][0] * dirs[d][0] + dirs[d][1] * dirs[d][1] + dirs[d][2] * dirs[d][2]), k[3], kk = 0.02;
        PetscReal ehh, elh;
        for (int x = 0; x < 3; x++) k[x] = kk * dirs[d][x] / n;
        ehh = c * (A - PetscSqrtReal(B * B + C * C * F[d])) * kk * kk;
        elh = c * (A + PetscSqrtReal(B * B + C * C * F[d])) * kk * kk;
        PetscCall(sl.bands(sl.ctx, k, e, v));
        maxlarge = PetscMax(maxlarge, PetscMax(PetscAbsReal(e[0] / ehh - 1), PetscAbsReal(e[1] / elh - 1)));
      }
      {
        PetscReal k[3] = {0.1, 0, 0};
        PetscCall(ss.bands(ss.ctx, k, e, v));
        maxsmall = PetscMax(PetscAbsReal(e[0] - c * (A - B) * 0.01), PetscMax(PetscAbsReal(e[1] - c * (A - B) * 0.01), PetscAbsReal(e[2] - c * (A + 2 * B) * 0.01)));
      }
    }
    for (int t = 0; t < 300; t++) {
      PetscReal k1[3], k2[3], q[3], hw[6], g2[6], row[3] = {0, 0, 0}, cos2, a1 = 0, a2 = 0, d12 = 0;
      for (int x = 0; x < 3; x++) {
        k1[x] = 0.25 * (Rand(rnd) - 0.5);
        k2[x] = 0.25 * (Rand(rnd) - 0.5);
        q[x]  = k2[x] - k1[x];
      }
      for (int n = 0; n < 3; n++)
        for (int m = 0; m < 3; m++) {
          PetscCall(sk.coupling(sk.ctx, n, k1, m, k2, q, hw, g2));
          row[n] += g2[3] / g2one;
          PetscCall(sk.coupling(sk.ctx, n, k1, m, k1, q, hw, g2));
          maxorth = PetscMax(maxorth, PetscAbsReal(g2[3] / g2one - (n == m ? 1 : 0)));
        }
      for (int n = 0; n < 3; n++) maxrow = PetscMax(maxrow, PetscAbsReal(row[n] - 1));
      /* spherical bands, large Delta: Wiley's overlaps of the J = 3/2 states, at small k */
      for (int x = 0; x < 3; x++) {
        k1[x] *= 0.1;
        k2[x] *= 0.1;
        a1 += k1[x] * k1[x];
        a2 += k2[x] * k2[x];
        d12 += k1[x] * k2[x];
      }
      cos2 = d12 * d12 / (a1 * a2);
      PetscCall(ssph.coupling(ssph.ctx, 0, k1, 0, k2, q, hw, g2));
      maxwiley = PetscMax(maxwiley, PetscAbsReal(g2[3] / g2one - (1 + 3 * cos2) / 4));
      PetscCall(ssph.coupling(ssph.ctx, 0, k1, 1, k2, q, hw, g2));
      maxwiley = PetscMax(maxwiley, PetscAbsReal(g2[3] / g2one - 3 * (1 - cos2) / 4));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "kp6: sum rule %.1e eV, large-Delta vs DKK %.1e (relative), Delta -> 0 along [100] %.1e eV, velocities vs finite differences %.1e; kp overlaps: row sums - 1 %.1e, k' = k orthonormality %.1e, spherical vs Wiley %.1e\n", (double)maxsum, (double)maxlarge, (double)maxsmall, (double)maxv, (double)maxrow, (double)maxorth, (double)maxwiley));
    CHECK(maxsum < 1e-12, "kp6 sum rule off by %g eV", (double)maxsum);
    CHECK(maxlarge < 1e-3, "kp6 with Delta = 100 eV differs from the DKK bands by %g", (double)maxlarge);
    CHECK(maxsmall < 1e-6, "kp6 with Delta -> 0 differs from the k.p matrix's eigenvalues along [100] by %g eV", (double)maxsmall);
    CHECK(maxv < 1e-6, "kp6 velocities differ from grad e / hbar by %g", (double)maxv);
    CHECK(maxrow < 1e-8, "kp overlaps do not sum to 1 over final bands: %g", (double)maxrow);
    CHECK(maxorth < 1e-8, "kp overlaps at k' = k are not orthonormal: %g", (double)maxorth);
    CHECK(maxwiley < 1e-3, "kp overlaps of spherical bands differ from Wiley's by %g", (double)maxwiley);
    PetscCall(PetscFree(sk.ctx));
    PetscCall(PetscFree(sl.ctx));
    PetscCall(PetscFree(ss.ctx));
    PetscCall(PetscFree(ssph.ctx));
    PetscCall(BTEDestroy(&bk));
    PetscCall(BTEDestroy(&bl));
    PetscCall(BTEDestroy(&bs));
    PetscCall(BTEDestroy(&bsph));
  }
  PetscCall(PetscFree(spec.ctx));
  PetscCall(PetscFree(spec6.ctx));
  PetscCall(PetscFree(specw.ctx));
  PetscCall(PetscFree(specf.ctx));
  PetscCall(BTEDestroy(&bte));
  PetscCall(BTEDestroy(&bte6));
  PetscCall(BTEDestroy(&btew));
  PetscCall(BTEDestroy(&btef));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
