/* Unit test of the graphene model's band and coupling functions (no grid, no builder):
   - Dirac band: e(K + kappa) = hbar v_F |kappa| at K, K' and their images;
   - tight-binding band: the same slope at K, trigonal warping of the size a|kappa|/(4 sqrt 3);
   - velocities = grad e / hbar (central differences) for both bands;
   - couplings: exchange symmetry, valley selection (intravalley: TA, LA, TO, LO; intervalley:
     A1', E' only), acoustic hw = hbar v |q|, |g|^2 against the deformation-potential formulas
     evaluated here independently in SI units, LO/TO chirality (backscattering is LO only).
   Prints the numbers it checks; exits nonzero on the first failure. */
#include "m2_common.h"

PETSC_EXTERN PetscErrorCode BTEModelSpecGraphene(BTE, BTEModelSpec *);

int main(int argc, char **argv)
{
  BTE          bte;
  BTEModelSpec spec;
  PetscRandom  rnd;
  PetscBool    dirac = PETSC_FALSE;
  char         band[16] = "tb";
  const PetscReal a = 2.46, hvf = BTE_HBAR * 10.0; /* defaults: a = 2.46 A, v_F = 1e6 m/s = 10 A/fs */
  PetscReal    K[2][2], b1[2], b2[2], e[1], v[3];

  PetscCall(PetscInitialize(&argc, &argv, NULL, "graphene model unit test"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_graphene_band", band, sizeof(band), NULL));
  dirac = (PetscBool)!strcmp(band, "dirac");
  PetscCall(BTECreate(PETSC_COMM_SELF, &bte));
  PetscCall(BTESetModel(bte, "graphene")); /* its options are read by BTESetFromOptions */
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTEModelSpecGraphene(bte, &spec));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 12345));
  PetscCall(PetscRandomSeed(rnd));

  CHECK(spec.dim == 2 && spec.nbands == 1 && spec.nmodes == 6 && spec.spin == 2 && spec.carrier == -1, "spec shape dim %d bands %d modes %d spin %d carrier %d", (int)spec.dim, (int)spec.nbands, (int)spec.nmodes, (int)spec.spin, (int)spec.carrier);
  CHECK(PetscAbsReal(spec.lattice[0] - a) < 1e-14 && PetscAbsReal(spec.lattice[8] - 1) < 1e-14, "lattice");
  /* reciprocal vectors of a1 = a(1,0), a2 = a(1/2, sqrt3/2); K at 0 degrees, K' at 60 degrees, |K| = 4 pi / 3a */
  b1[0] = 2 * PETSC_PI / a;
  b1[1] = -2 * PETSC_PI / (a * PetscSqrtReal(3.0));
  b2[0] = 0;
  b2[1] = 4 * PETSC_PI / (a * PetscSqrtReal(3.0));
  for (int vly = 0; vly < 2; vly++) {
    K[vly][0] = 4 * PETSC_PI / (3 * a) * PetscCosReal(vly * PETSC_PI / 3);
    K[vly][1] = 4 * PETSC_PI / (3 * a) * PetscSinReal(vly * PETSC_PI / 3);
  }

  /* 1. band energy at and near the Dirac points (several images of K and K') */
  {
    PetscReal maxdev = 0, maxwarp = 0, maxnorm = 0;
    const PetscReal shifts[4][2] = {{0, 0}, {1, 0}, {0, -1}, {-1, 1}};
    for (int vly = 0; vly < 2; vly++)
      for (int s = 0; s < 4; s++) {
        PetscReal c[2] = {K[vly][0] + shifts[s][0] * b1[0] + shifts[s][1] * b2[0], K[vly][1] + shifts[s][0] * b1[1] + shifts[s][1] * b2[1]};
        PetscReal k[3] = {c[0], c[1], 0};
        PetscCall(spec.bands(spec.ctx, k, e, v));
        CHECK(PetscAbsReal(e[0]) < 1e-12, "e(K) = %g, valley %d image %d", (double)e[0], vly, s);
        for (int ir = 0; ir < 4; ir++) {
          const PetscReal r = (ir == 0 ? 1e-3 : ir == 1 ? 0.01 : ir == 2 ? 0.03 : 0.05);
          PetscReal        lo = PETSC_MAX_REAL, hi = PETSC_MIN_REAL;
          for (int ip = 0; ip < 72; ip++) {
            PetscReal phi = 2 * PETSC_PI * (ip + 0.37) / 72, ratio;
            k[0] = c[0] + r * PetscCosReal(phi);
            k[1] = c[1] + r * PetscSinReal(phi);
            PetscCall(spec.bands(spec.ctx, k, e, v));
            ratio = e[0] / (hvf * r);
            lo    = PetscMin(lo, ratio);
            hi    = PetscMax(hi, ratio);
            if (dirac) {
              maxdev = PetscMax(maxdev, PetscAbsReal(ratio - 1));
              /* velocity v_F along kappa */
              maxnorm = PetscMax(maxnorm, PetscAbsReal(v[0] - 10.0 * PetscCosReal(phi)) + PetscAbsReal(v[1] - 10.0 * PetscSinReal(phi)));
            } else {
              /* trigonal warping: |ratio - 1| <= eps (1 + O(eps)), eps = a r / (4 sqrt 3) */
              PetscReal eps = a * r / (4 * PetscSqrtReal(3.0));
              maxdev        = PetscMax(maxdev, PetscAbsReal(ratio - 1) / eps);
            }
          }
          if (!dirac) {
            /* the cos(3 phi) amplitude is eps to first order */
            PetscReal eps = a * r / (4 * PetscSqrtReal(3.0)), amp = 0.5 * (hi - lo);
            maxwarp       = PetscMax(maxwarp, PetscAbsReal(amp / eps - 1));
            CHECK(PetscAbsReal(amp / eps - 1) < 0.02 + 2 * eps, "tb warping amplitude %g vs a r/(4 sqrt3) = %g at r = %g", (double)amp, (double)eps, (double)r);
          }
        }
      }
    if (dirac) {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "dirac: max |e/(hbar v_F |k-K|) - 1| = %.2e, max |v - v_F khat| = %.2e A/fs\n", (double)maxdev, (double)maxnorm));
      CHECK(maxdev < 1e-10, "dirac cone energies deviate by %g", (double)maxdev);
      CHECK(maxnorm < 1e-9, "dirac velocities deviate by %g", (double)maxnorm);
    } else {
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "tb: max |e/(hbar v_F |k-K|) - 1| / (a|k-K|/(4 sqrt3)) = %.4f (<= 1 + O(a k)), warping amplitude error %.4f\n", (double)maxdev, (double)maxwarp));
      CHECK(maxdev < 1.05, "tb band deviates from the cone by more than the trigonal warping: %g", (double)maxdev);
    }
  }

  /* 2. velocities = grad e / hbar by central differences, random points within 0.06 1/A of K or K' */
  {
    PetscReal maxerr = 0, h = 1e-6;
    for (int t = 0; t < 200; t++) {
      int       vly = t % 2;
      PetscReal r = 0.005 + 0.055 * Rand(rnd), phi = 2 * PETSC_PI * Rand(rnd);
      PetscReal k[3] = {K[vly][0] + r * PetscCosReal(phi), K[vly][1] + r * PetscSinReal(phi), 0}, vfd[2];
      PetscCall(spec.bands(spec.ctx, k, e, v));
      for (int d = 0; d < 2; d++) {
        PetscReal kp[3] = {k[0], k[1], 0}, km[3] = {k[0], k[1], 0}, ep, em;
        kp[d] += h;
        km[d] -= h;
        PetscCall(spec.bands(spec.ctx, kp, &ep, v + 0));
        PetscCall(spec.bands(spec.ctx, km, &em, v + 0));
        vfd[d] = (ep - em) / (2 * h) / BTE_HBAR;
      }
      PetscCall(spec.bands(spec.ctx, k, e, v));
      maxerr = PetscMax(maxerr, PetscMax(PetscAbsReal(v[0] - vfd[0]), PetscAbsReal(v[1] - vfd[1])) / 10.0);
      CHECK(v[2] == 0, "v_z = %g", (double)v[2]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "velocity vs finite differences: max relative error %.2e\n", (double)maxerr));
    CHECK(maxerr < 1e-5, "velocities differ from grad e / hbar by %g (relative)", (double)maxerr);
  }

  /* 3. couplings */
  {
    /* independent evaluation in SI units: M = rho * A_cell; |g|^2 = hbar D^2 / (2 M w) [J^2] */
    const PetscReal rho = 7.6e-7, Acell = 0.5 * PetscSqrtReal(3.0) * (a * 1e-10) * (a * 1e-10), M = rho * Acell;
    const PetscReal vs[2] = {1.4e4, 2.1e4}, Dac = 4.5 * E_SI;
    const PetscReal hwopt[4] = {0.196, 0.196, 0.162, 0.150}, Dopt[4] = {1.0e11 * E_SI, 1.0e11 * E_SI, 1.4e11 * E_SI, 3.5e10 * E_SI}; /* eV/cm -> J/m */
    PetscReal       g2opt[4], maxsym = 0, maxim = 0, maxac = 0, maxop = 0, hw[6], g2[6], hw2[6], g2b[6], hw3[6], g2c[6];
    int             nintra = 0, ninter = 0;

    for (int j = 0; j < 4; j++) {
      PetscReal w = hwopt[j] * E_SI / HBAR_SI;
      g2opt[j]    = HBAR_SI * Dopt[j] * Dopt[j] / (2 * M * w) / (E_SI * E_SI);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "expected |g|^2: Gamma (LO+TO) %.5f eV^2, A1'(K) %.5f eV^2, E'(K) %.5f eV^2\n", (double)g2opt[0], (double)g2opt[2], (double)g2opt[3]));
    for (int t = 0; t < 2000; t++) {
      int       v1 = (int)(2 * Rand(rnd)), v2 = (int)(2 * Rand(rnd));
      PetscReal r1 = 0.045 * Rand(rnd), p1 = 2 * PETSC_PI * Rand(rnd), r2 = 0.045 * Rand(rnd), p2 = 2 * PETSC_PI * Rand(rnd);
      PetscReal k1[3] = {K[v1][0] + r1 * PetscCosReal(p1), K[v1][1] + r1 * PetscSinReal(p1), 0};
      PetscReal k2[3] = {K[v2][0] + r2 * PetscCosReal(p2), K[v2][1] + r2 * PetscSinReal(p2), 0};
      PetscReal q[3] = {k2[0] - k1[0], k2[1] - k1[1], 0}, mq[3] = {-q[0], -q[1], 0};
      /* a reciprocal lattice vector added to one end must not matter */
      PetscReal k2s[3] = {k2[0] + b1[0] - b2[0], k2[1] + b1[1] - b2[1], 0};

      if (t == 0) { /* backscattering within K: kappa' = -kappa, q along kappa */
        v2 = v1;
        k2[0] = K[v1][0] - r1 * PetscCosReal(p1);
        k2[1] = K[v1][1] - r1 * PetscSinReal(p1);
        k2s[0] = k2[0]; k2s[1] = k2[1];
      }
      PetscCall(spec.coupling(spec.ctx, 0, k1, 0, k2, q, hw, g2));
      PetscCall(spec.coupling(spec.ctx, 0, k2, 0, k1, mq, hw2, g2b));
      PetscCall(spec.coupling(spec.ctx, 0, k1, 0, k2s, q, hw3, g2c));
      for (int nu = 0; nu < 6; nu++) {
        maxsym = PetscMax(maxsym, PetscAbsReal(g2[nu] - g2b[nu]) / (PetscAbsReal(g2[nu]) + 1e-300));
        maxsym = PetscMax(maxsym, PetscAbsReal(hw[nu] - hw2[nu]) / (PetscAbsReal(hw[nu]) + 1e-300));
        maxim  = PetscMax(maxim, PetscAbsReal(g2[nu] - g2c[nu]) / (PetscAbsReal(g2[nu]) + 1e-12));
        maxim  = PetscMax(maxim, PetscAbsReal(hw[nu] - hw3[nu]) / (PetscAbsReal(hw[nu]) + 1e-12));
      }
      if (v1 == v2) {
        PetscReal kap1[2] = {k1[0] - K[v1][0], k1[1] - K[v1][1]}, kap2[2] = {k2[0] - K[v1][0], k2[1] - K[v1][1]};
        PetscReal dq = PetscSqrtReal((kap2[0] - kap1[0]) * (kap2[0] - kap1[0]) + (kap2[1] - kap1[1]) * (kap2[1] - kap1[1]));
        PetscReal n1 = PetscSqrtReal(kap1[0] * kap1[0] + kap1[1] * kap1[1]), n2 = PetscSqrtReal(kap2[0] * kap2[0] + kap2[1] * kap2[1]);
        PetscReal cth = (n1 > 0 && n2 > 0) ? (kap1[0] * kap2[0] + kap1[1] * kap2[1]) / (n1 * n2) : 0;
        nintra++;
        CHECK(g2[4] == 0 && g2[5] == 0, "intravalley pair has intervalley coupling %g %g", (double)g2[4], (double)g2[5]);
        for (int nu = 0; nu < 2; nu++) {
          PetscReal want = HBAR_SI * Dac * Dac * (dq * 1e10) / (2 * M * vs[nu]) / (E_SI * E_SI) * 0.5 * (1 + cth);
          PetscReal hwant = HBAR_SI * vs[nu] * dq * 1e10 / E_SI;
          if (dq > 1e-6) {
            maxac = PetscMax(maxac, PetscAbsReal(g2[nu] - want) / want);
            maxac = PetscMax(maxac, PetscAbsReal(hw[nu] - hwant) / hwant);
          }
        }
        maxop = PetscMax(maxop, PetscAbsReal(g2[2] + g2[3] - g2opt[0]) / g2opt[0]);
        CHECK(hw[2] == 0.196 && hw[3] == 0.196, "Gamma phonon energies %g %g", (double)hw[2], (double)hw[3]);
        if (t == 0) {
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "backscattering: |g_TO|^2 = %.3e, |g_LO|^2 = %.5f eV^2, acoustic (1+cos)/2 factor -> %.3e\n", (double)g2[2], (double)g2[3], (double)g2[1]));
          CHECK(g2[2] >= 0 && g2[2] < 1e-12 * g2opt[0] && PetscAbsReal(g2[3] - g2opt[0]) < 1e-8 * g2opt[0], "backscattering is not pure LO: TO %g LO %g", (double)g2[2], (double)g2[3]);
          CHECK(g2[0] < 1e-12 && g2[1] < 1e-12, "acoustic backscattering not suppressed: %g %g", (double)g2[0], (double)g2[1]);
        }
      } else {
        ninter++;
        for (int nu = 0; nu < 4; nu++) CHECK(g2[nu] == 0, "intervalley pair has intravalley mode %d coupling %g", nu, (double)g2[nu]);
        maxop = PetscMax(maxop, PetscAbsReal(g2[4] - g2opt[2]) / g2opt[2]);
        maxop = PetscMax(maxop, PetscAbsReal(g2[5] - g2opt[3]) / g2opt[3]);
        CHECK(hw[4] == 0.162 && hw[5] == 0.150, "K phonon energies %g %g", (double)hw[4], (double)hw[5]);
      }
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "couplings: %d intravalley, %d intervalley pairs; exchange symmetry max rel diff %.1e; k -> k+G %.1e; acoustic |g|^2, hw max rel err %.1e; optical %.1e\n", nintra, ninter, (double)maxsym, (double)maxim, (double)maxac, (double)maxop));
    CHECK(nintra > 100 && ninter > 100, "too few pairs of a kind");
    CHECK(maxsym < 1e-14, "coupling not symmetric under exchange: %g", (double)maxsym);
    CHECK(maxim < 1e-6, "coupling changes when k' is replaced by an image k' + G: %g", (double)maxim);
    CHECK(maxac < 1e-8, "acoustic couplings differ from hbar D^2 |q| (1+cos)/(4 M v): %g", (double)maxac);
    CHECK(maxop < 1e-8, "optical couplings differ from hbar D^2/(2 M w): %g", (double)maxop);
  }

  PetscCall(PetscFree(spec.ctx));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
