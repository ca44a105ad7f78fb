/* Physics checks of the parabolic model against closed forms.

   -test dos  State count and density of states. For e = C k^2 (C = hbar^2/2m*) the k points
              of the (simple cubic, spacing dk = 2 pi/(a nk)) grid with e <= E are the lattice
              points in a ball of radius R = k(E)/dk grid units. Analytic (per spin):
                 N(E) = Nk V_cell k^3 / (6 pi^2) = (4/3) pi R^3.
              Rigorous bracket (unit cubes centred on the counted points lie inside the ball of
              radius R + sqrt(3)/2 and cover the ball of radius R - sqrt(3)/2):
                 (4/3) pi (R - sqrt3/2)^3 <= N <= (4/3) pi (R + sqrt3/2)^3,
              i.e. a relative band of about 2.6/R: a factor 2 in C (N off by 2^1.5) fails it.
              The histogram (DOS in energy bins vs the sqrt(e) law) is checked to -dos_tol
              (default 3%): the lattice-point error of a ball is O(R) on average (Gauss sphere
              problem; the rigorous O(R^2) above is the worst case), so a bin with ~4 pi R^2 dR
              points is good to ~1/(R dR), well below 3% for the grids used.
   -test lo|ac  Equilibrium out-scattering rates. With f -> 0 (non-degenerate) the rate out of
              state i is Gamma_i = sum of P_c over channels whose lower end is i plus Q_c over
              those whose upper end is i (docs/theory.md eq. 3), N at bte->temperature. Compared, in
              energy bins away from the window edges, with
              (a) the same golden-rule integral done by quadrature in the continuum, with the
                  Gaussian smearing, the 3 eta cut, the window and phonon_min: only the grid
                  sampling differs (tolerance -tol_smeared, default 3%);
              (b) the textbook closed forms (no smearing): Frohlich
                    1/tau = e^2 w_LO (1/eps_inf - 1/eps_0) / (4 pi eps0 hbar v)
                            [N ln|(sqrt(E+hw)+sqrt E)/(sqrt(E+hw)-sqrt E)|
                             + (N+1) ln|(sqrt E+sqrt(E-hw))/(sqrt E-sqrt(E-hw))| (E > hw)],
                  acoustic (equipartition, elastic) 1/tau = 2 pi D^2 kB T g(E) / (hbar rho v_s^2),
                  g(E) = (2 m* / hbar^2)^{3/2} sqrt(E) / (4 pi^2) per spin (tolerance -tol_textbook,
                  default 8%: smearing near the emission threshold, inelasticity and the exact
                  Bose factor of the acoustic phonons differ from the textbook at the percent
                  level).
              The checker is shown to reject a reference off by a factor 2.
   Units are converted here independently of the model (kg -> eV fs^2/A^2 route). */
#include <bte/private/bteimpl.h>

#define HBAR   0.6582119569   /* eV fs */
#define KB     8.617333262e-5 /* eV/K */
#define MEC2   510998.95      /* m_e c^2, eV */
#define CLIGHT 2997.92458     /* A/fs */
#define E2     14.399645      /* e^2/(4 pi eps0), eV A */
#define KG     6.241509074e28 /* 1 kg in eV fs^2/A^2 */

static PetscReal Param(BTE bte, const char *name)
{
  for (PetscInt k = 0; k < bte->params.n; k++)
    if (!strcmp(bte->params.name[k], name)) return bte->params.value[k];
  printf("missing model parameter %s\n", name);
  exit(2);
}

typedef struct {
  PetscReal C, V, hwlo, cfr, cac, hvs, eta, tol, hwmin, W, T, dac, rho, vs, epsinf, eps0, mstar;
} Model;

static PetscReal Gauss(PetscReal x, PetscReal eta)
{
  return PetscExpReal(-(x / eta) * (x / eta)) / (eta * PetscSqrtReal(PETSC_PI));
}

static PetscReal Bose(PetscReal hw, PetscReal T)
{
  return 1.0 / (PetscExpReal(hw / (KB * T)) - 1.0);
}

/* (2 pi/hbar) V/(2 pi)^3 int d^3k' g2 [N G(E-E'+hw) + (N+1) G(E-E'-hw)] with the selection rules */
static PetscReal SmearedLO(const Model *m, PetscReal E)
{
  PetscReal k = PetscSqrtReal(E / m->C), N = Bose(m->hwlo, m->T), sum = 0, dE = m->eta / 100;
  for (PetscReal Ep = 0.5 * dE; Ep < m->W; Ep += dE) {
    PetscReal de = PetscAbsReal(E - Ep), kp, ang;
    if (!(PetscAbsReal(de - m->hwlo) < m->tol)) continue;
    kp  = PetscSqrtReal(Ep / m->C);
    ang = PetscLogReal((k + kp) / PetscAbsReal(k - kp)) / (k * kp); /* int dmu / q^2 */
    /* d^3k' = 2 pi k'^2 dk' dmu, dk' = dE'/(2 sqrt(C E')) */
    sum += 2 * PETSC_PI * kp * kp * (dE / (2 * PetscSqrtReal(m->C * Ep))) * m->cfr * ang * (N * Gauss(E - Ep + m->hwlo, m->eta) + (N + 1) * Gauss(E - Ep - m->hwlo, m->eta));
  }
  return (2 * PETSC_PI / HBAR) * m->V / PetscPowReal(2 * PETSC_PI, 3) * sum;
}

static PetscReal SmearedAC(const Model *m, PetscReal E)
{
  PetscReal k = PetscSqrtReal(E / m->C), sum = 0, dE = m->eta / 50;
  for (PetscReal Ep = 0.5 * dE; Ep < m->W; Ep += dE) {
    PetscReal kp = PetscSqrtReal(Ep / m->C), q0 = PetscAbsReal(k - kp), q1 = k + kp, dq = (q1 - q0) / 400, inner = 0;
    if (PetscAbsReal(E - Ep) > m->tol + m->hvs * q1) continue;
    for (PetscReal q = q0 + 0.5 * dq; q < q1; q += dq) {
      PetscReal hw = m->hvs * q, N;
      if (hw < m->hwmin || !(PetscAbsReal(PetscAbsReal(E - Ep) - hw) < m->tol)) continue;
      N = Bose(hw, m->T);
      /* int dmu F = int q dq F / (k k') */
      inner += dq * q / (k * kp) * m->cac * q * (N * Gauss(E - Ep + hw, m->eta) + (N + 1) * Gauss(E - Ep - hw, m->eta));
    }
    sum += 2 * PETSC_PI * kp * kp * (dE / (2 * PetscSqrtReal(m->C * Ep))) * inner;
  }
  return (2 * PETSC_PI / HBAR) * m->V / PetscPowReal(2 * PETSC_PI, 3) * sum;
}

static PetscReal TextbookLO(const Model *m, PetscReal E)
{
  PetscReal v = 2 * PetscSqrtReal(m->C * E) / HBAR, N = Bose(m->hwlo, m->T), w = m->hwlo / HBAR, hw = m->hwlo, r;
  r = N * PetscLogReal((PetscSqrtReal(E + hw) + PetscSqrtReal(E)) / (PetscSqrtReal(E + hw) - PetscSqrtReal(E)));
  if (E > hw) r += (N + 1) * PetscLogReal((PetscSqrtReal(E) + PetscSqrtReal(E - hw)) / (PetscSqrtReal(E) - PetscSqrtReal(E - hw)));
  return E2 * w * (1 / m->epsinf - 1 / m->eps0) / (HBAR * v) * r;
}

static PetscReal TextbookAC(const Model *m, PetscReal E)
{
  PetscReal g   = PetscSqrtReal(E) / (4 * PETSC_PI * PETSC_PI * PetscPowReal(m->C, 1.5)); /* 1/(eV A^3), per spin */
  PetscReal rv2 = m->rho * KG * 1e-30 * PetscSqr(m->vs * 1e-5);                           /* eV/A^3 */
  return 2 * PETSC_PI * m->dac * m->dac * KB * m->T * g / (HBAR * rv2);
}

/* Bin-averaged comparison: returns the worst relative deviation of mean(num)/mean(ref) - 1. */
static PetscReal Compare(const char *what, PetscInt nbin, const PetscReal *e0, const PetscReal *e1, const PetscReal *num, const PetscReal *ref, const PetscInt *cnt, PetscReal scale, PetscBool print)
{
  PetscReal worst = 0;
  for (PetscInt b = 0; b < nbin; b++) {
    PetscReal d;
    if (!cnt[b]) continue;
    d = num[b] / (scale * ref[b]) - 1;
    if (print) printf("  %-9s E in [%.3f, %.3f] eV: %4d states, bte %.5e 1/fs, reference %.5e 1/fs, deviation %+6.2f%%\n", what, (double)e0[b], (double)e1[b], (int)cnt[b], (double)(num[b] / cnt[b]), (double)(scale * ref[b] / cnt[b]), (double)(100 * d));
    worst = PetscMax(worst, PetscAbsReal(d));
  }
  return worst;
}

int main(int argc, char **argv)
{
  BTE         bte;
  MPI_Comm    comm;
  PetscMPIInt rank;
  char        test[16] = "dos";
  PetscReal   dostol = 0.03, tols = 0.03, tolt = 0.08, elo = 0.04, ehi = 0.22;
  PetscInt    nbin = 6;
  Model       m;
  int         fail = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-test", test, sizeof(test), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-dos_tol", &dostol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol_smeared", &tols, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol_textbook", &tolt, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-elo", &elo, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-ehi", &ehi, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nbin", &nbin, NULL));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetModel(bte, "parabolic"));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));

  m.mstar  = Param(bte, "effective_mass");
  m.C      = HBAR * HBAR / (2 * m.mstar * MEC2 / (CLIGHT * CLIGHT));
  m.V      = bte->grid.volume;
  m.hwlo   = Param(bte, "hw_LO");
  m.epsinf = Param(bte, "eps_inf");
  m.eps0   = Param(bte, "eps_0");
  m.dac    = Param(bte, "D_acoustic");
  m.rho    = Param(bte, "density");
  m.vs     = Param(bte, "sound_velocity");
  m.cfr    = 4 * PETSC_PI * E2 * m.hwlo * (1 / m.epsinf - 1 / m.eps0) / (2 * m.V);
  m.cac    = HBAR * m.dac * m.dac / (2 * m.rho * KG * 1e-30 * m.V * m.vs * 1e-5);
  m.hvs    = HBAR * m.vs * 1e-5;
  m.eta    = bte->smearing;
  m.tol    = bte->tol_eta * bte->smearing;
  m.hwmin  = bte->phonon_min;
  /* -bte_parabolic_acoustic_floor equipartition keeps the phonons below the floor at the floor's
     energy with |g|^2 x floor/hw, i.e. |g|^2 (2N + 1) of the phonon itself to O((floor/kT)^2):
     the reference is then the integral over all q */
  for (PetscInt k = 0; k < bte->params.n; k++)
    if (!strcmp(bte->params.name[k], "acoustic_floor_equipartition")) m.hwmin = 0;
  m.W      = bte->emax;
  m.T      = bte->temperature;

  if (!strcmp(test, "dos")) {
    PetscInt   nk = bte->grid.nk[0], nE = 6;
    PetscReal  dk = 2 * PETSC_PI / (bte->grid.lattice[0] * nk), Es[6] = {0.05, 0.1, 0.15, 0.2, 0.25, 0.29};
    PetscInt64 cnt[6] = {0}, hist[64] = {0};
    PetscInt   nh = 10;
    PetscReal  h0 = 0.04, h1 = 0.29, worst = 0;
    PetscCheck(bte->grid.lattice[1] == 0 && bte->grid.lattice[4] == bte->grid.lattice[0], comm, PETSC_ERR_ARG_WRONG, "expects the simple cubic lattice");
    for (PetscInt i = 0; i < bte->nlocal; i++) {
      for (PetscInt e = 0; e < nE; e++)
        if (bte->energy[i] <= Es[e]) cnt[e]++;
      if (bte->energy[i] >= h0 && bte->energy[i] < h1) hist[(PetscInt)((bte->energy[i] - h0) / (h1 - h0) * nh)]++;
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, cnt, (int)nE, MPIU_INT64, MPI_SUM, comm));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, hist, (int)nh, MPIU_INT64, MPI_SUM, comm));
    if (!rank) printf("parabolic DOS: %" PetscInt_FMT "^3 grid, a = %g A, dk = %.5f 1/A, C = hbar^2/2m* = %.4f eV A^2\n", nk, (double)bte->grid.lattice[0], (double)dk, (double)m.C);
    for (PetscInt e = 0; e < nE; e++) {
      PetscReal R = PetscSqrtReal(Es[e] / m.C) / dk, Na = 4 * PETSC_PI / 3 * R * R * R;
      PetscReal lo = 4 * PETSC_PI / 3 * PetscPowReal(PetscMax(0, R - PetscSqrtReal(3.0) / 2), 3), hi = 4 * PETSC_PI / 3 * PetscPowReal(R + PetscSqrtReal(3.0) / 2, 3);
      /* the same via V_cell Nk/(6 pi^2) (2 m* E/hbar^2)^{3/2} */
      PetscReal Nb = bte->grid.volume * nk * nk * nk / (6 * PETSC_PI * PETSC_PI) * PetscPowReal(Es[e] / m.C, 1.5);
      int       ok = cnt[e] >= lo && cnt[e] <= hi && PetscAbsReal(Na / Nb - 1) < 1e-10;
      if (!rank) printf("  N(E <= %.2f eV) = %7lld, analytic %10.1f (R = %5.2f grid units), rigorous band [%.0f, %.0f], deviation %+6.2f%%  %s\n", (double)Es[e], (long long)cnt[e], (double)Na, (double)R, (double)lo, (double)hi, (double)(100 * (cnt[e] / Na - 1)), ok ? "ok" : "FAIL");
      fail |= !ok;
    }
    for (PetscInt b = 0; b < nh; b++) {
      PetscReal a = h0 + (h1 - h0) * b / nh, c = h0 + (h1 - h0) * (b + 1) / nh;
      PetscReal Na = 4 * PETSC_PI / 3 * (PetscPowReal(c / m.C, 1.5) - PetscPowReal(a / m.C, 1.5)) / (dk * dk * dk), d = hist[b] / Na - 1;
      if (!rank) printf("  DOS bin [%.3f, %.3f] eV: %6lld states, sqrt(e) law %9.1f, deviation %+6.2f%%\n", (double)a, (double)c, (long long)hist[b], (double)Na, (double)(100 * d));
      worst = PetscMax(worst, PetscAbsReal(d));
    }
    if (!rank) printf("  worst DOS bin deviation %.2f%% (tolerance %.1f%%)\n", (double)(100 * worst), (double)(100 * dostol));
    fail |= worst > dostol;
  } else {
    PetscBool lo = !strcmp(test, "lo");
    PetscReal *G, *num, *refs, *reft, *e0, *e1, kT = KB * bte->temperature, Nq = (PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
    PetscInt  *cnt, ntab = 0;
    PetscReal *tabE, *tabR, dtab = 0.001;
    PetscCheck(lo || !strcmp(test, "ac"), comm, PETSC_ERR_ARG_WRONG, "-test dos|lo|ac");
    PetscCall(PetscCalloc1(bte->nlocal, &G));
    for (PetscCount c = 0; c < bte->ch.n; c++) {
      PetscInt  i = bte->ch.i[c], j = bte->ch.j[c];
      PetscReal ei, ej, hw = bte->ch.hw[c], g2 = bte->ch.g2[c], a, b, N, P, Q;
      PetscBool own_i = i >= bte->rstart && i < bte->rstart + bte->nlocal, own_j = j >= bte->rstart && j < bte->rstart + bte->nlocal;
      PetscCheck(bte->ch.mode[c] == (lo ? 1 : 0), comm, PETSC_ERR_PLIB, "channel of mode %" PetscInt_FMT " with the other mechanism off", bte->ch.mode[c]);
      /* energies of both ends: the test runs where both are known (1 rank) or looks them up */
      PetscCheck(own_i && own_j, comm, PETSC_ERR_SUP, "run this test on one rank");
      ei = bte->energy[i - bte->rstart];
      ej = bte->energy[j - bte->rstart];
      a  = 2 * PETSC_PI / HBAR / Nq * g2 * Gauss(ei - ej + hw, m.eta);
      b  = 2 * PETSC_PI / HBAR / Nq * g2 * Gauss(ei - ej - hw, m.eta);
      N  = 1 / (PetscExpReal(hw / kT) - 1);
      P  = a * N + b * (N + 1);
      Q  = a * (N + 1) + b * N;
      G[i - bte->rstart] += P;
      G[j - bte->rstart] += Q;
    }
    /* smeared reference on a table, interpolated */
    ntab = (PetscInt)(ehi / dtab) + 3;
    PetscCall(PetscMalloc2(ntab, &tabE, ntab, &tabR));
    for (PetscInt t = 0; t < ntab; t++) {
      tabE[t] = PetscMax(1e-4, t * dtab);
      tabR[t] = lo ? SmearedLO(&m, tabE[t]) : SmearedAC(&m, tabE[t]);
    }
    PetscCall(PetscCalloc6(nbin, &num, nbin, &refs, nbin, &reft, nbin, &e0, nbin, &e1, nbin, &cnt));
    for (PetscInt b = 0; b < nbin; b++) {
      e0[b] = elo + (ehi - elo) * b / nbin;
      e1[b] = elo + (ehi - elo) * (b + 1) / nbin;
    }
    for (PetscInt i = 0; i < bte->nlocal; i++) {
      PetscReal E = bte->energy[i], x, r;
      PetscInt  b, t;
      if (E < elo || E >= ehi) continue;
      b = (PetscInt)((E - elo) / (ehi - elo) * nbin);
      t = (PetscInt)(E / dtab);
      x = (E - tabE[t]) / (tabE[t + 1] - tabE[t]);
      r = (1 - x) * tabR[t] + x * tabR[t + 1];
      num[b] += G[i];
      refs[b] += r;
      reft[b] += lo ? TextbookLO(&m, E) : TextbookAC(&m, E);
      cnt[b]++;
    }
    {
      PetscReal ws, wt, w2;
      printf("parabolic %s rates: %" PetscInt_FMT "^3 grid, a = %g A, eta = %g eV, T = %g K, %" PetscInt_FMT " states, %" PetscInt64_FMT " channels\n", lo ? "LO (Frohlich)" : "acoustic", bte->grid.nk[0], (double)bte->grid.lattice[0], (double)m.eta, (double)m.T, bte->nstates, bte->ch.nglobal);
      ws = Compare("smeared", nbin, e0, e1, num, refs, cnt, 1.0, PETSC_TRUE);
      wt = Compare("textbook", nbin, e0, e1, num, reft, cnt, 1.0, PETSC_TRUE);
      w2 = Compare("x2", nbin, e0, e1, num, refs, cnt, 2.0, PETSC_FALSE);
      printf("  worst deviation: %.2f%% from the smeared integral (tolerance %.1f%%), %.2f%% from the textbook formula (tolerance %.1f%%)\n", (double)(100 * ws), (double)(100 * tols), (double)(100 * wt), (double)(100 * tolt));
      printf("  the checker against a reference off by a factor 2: worst deviation %.1f%%, %s\n", (double)(100 * w2), w2 > tols ? "rejected (as it must be)" : "ACCEPTED (the check is too weak)");
      fail |= ws > tols || wt > tolt || !(w2 > tols);
    }
    PetscCall(PetscFree6(num, refs, reft, e0, e1, cnt));
    PetscCall(PetscFree2(tabE, tabR));
    PetscCall(PetscFree(G));
  }
  if (!rank) printf("%s\n", fail ? "FAIL" : "ok");
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return fail ? 1 : 0;
}
