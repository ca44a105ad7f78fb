/* Unit tests of the drift operator on synthetic state spaces (no table, no collision):
   b-vector shells (sc 6, fcc 8, hexagonal 2D 6), the gradient (exact for linear functions,
   second order for smooth periodic ones), the drift term against -(F/hbar).grad f,
   carrier conservation (plain form exactly), the sign (+E_x pushes electrons to -x),
   and the Jacobian against finite differences. States are numbered in reverse k order
   so the (k, band) -> state lookup is exercised; run on 1 and 2 ranks. */
#include <bte/private/bteimpl.h>
#include <bte/private/dynamicsimpl.h>

static PetscInt nfail = 0;

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      nfail++; \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: " __VA_ARGS__)); \
    } \
  } while (0)

typedef struct {
  BTE        bte;
  PetscReal *k; /* Cartesian k of local states (unwrapped: fractional coordinates in [-1/2, 1/2)) */
} Synth;

#define EC 3.80998212 /* hbar^2/(2 m_e), eV A^2: parabolic band for energies/velocities */

/* lat: 0 sc, 1 fcc, 2 hexagonal 2D. w: keep states with all |fractional k| <= w (w >= 0.5: all). */
static PetscErrorCode SynthCreate(PetscInt lat, PetscInt n, PetscReal w, PetscInt nbands, PetscInt carrier, Synth *s)
{
  BTE         bte;
  PetscInt    nk[3] = {n, n, lat == 2 ? 1 : n}, ntot = nk[0] * nk[1] * nk[2], N = 0, *kid, *bd;
  PetscReal   L[9] = {0}, a;

  PetscFunctionBegin;
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  if (lat == 0) {
    a    = 5.0;
    L[0] = L[4] = L[8] = a;
  } else if (lat == 1) {
    a    = 5.65;
    L[1] = L[2] = L[3] = L[5] = L[6] = L[7] = a / 2;
  } else {
    a    = 2.46;
    L[0] = a;
    L[3] = a / 2;
    L[4] = a * PetscSqrtReal(3.0) / 2;
    L[8] = 1.0;
  }
  bte->grid.dim = lat == 2 ? 2 : 3;
  for (PetscInt c = 0; c < 3; c++) bte->grid.nk[c] = nk[c];
  PetscCall(PetscArraycpy(bte->grid.lattice, L, 9));
  {
    /* b_i = 2 pi (a_j x a_k) / (a_1 . (a_2 x a_3)) */
    const PetscReal *A = bte->grid.lattice;
    PetscReal        cr[9], det;
    for (PetscInt i = 0; i < 3; i++) {
      const PetscReal *u = &A[3 * ((i + 1) % 3)], *v = &A[3 * ((i + 2) % 3)];
      cr[3 * i]     = u[1] * v[2] - u[2] * v[1];
      cr[3 * i + 1] = u[2] * v[0] - u[0] * v[2];
      cr[3 * i + 2] = u[0] * v[1] - u[1] * v[0];
    }
    det = A[0] * cr[0] + A[1] * cr[1] + A[2] * cr[2];
    for (PetscInt q = 0; q < 9; q++) bte->grid.reciprocal[q] = 2 * PETSC_PI * cr[q] / det;
    bte->grid.volume = PetscAbsReal(det);
  }
  PetscCall(PetscMalloc2(ntot * nbands, &kid, ntot * nbands, &bd));
  for (PetscInt ik = 0; ik < ntot; ik++) {
    PetscInt  i[3] = {ik / (nk[1] * nk[2]), (ik / nk[2]) % nk[1], ik % nk[2]};
    PetscBool keep = PETSC_TRUE;
    for (PetscInt c = 0; c < 3; c++) {
      PetscReal fr = (PetscReal)i[c] / nk[c];
      if (fr >= 0.5) fr -= 1;
      if (PetscAbsReal(fr) > w + 1e-12) keep = PETSC_FALSE;
    }
    if (!keep) continue;
    for (PetscInt b = 0; b < nbands; b++) {
      kid[N] = ik;
      bd[N]  = b;
      N++;
    }
  }
  /* the state layout, as the table reader and the models make it */
  PetscCall(PetscLayoutCreate(PETSC_COMM_WORLD, &bte->states));
  PetscCall(PetscLayoutSetBlockSize(bte->states, 1));
  PetscCall(PetscLayoutSetSize(bte->states, N));
  PetscCall(PetscLayoutSetUp(bte->states));
  PetscCall(PetscLayoutGetLocalSize(bte->states, &bte->nlocal));
  PetscCall(PetscLayoutGetRange(bte->states, &bte->rstart, NULL));
  bte->nstates = N;
  PetscCall(PetscMalloc4(bte->nlocal, &bte->kindex, bte->nlocal, &bte->band, bte->nlocal, &bte->energy, 3 * bte->nlocal, &bte->velocity));
  PetscCall(PetscMalloc1(3 * bte->nlocal, &s->k));
  for (PetscInt il = 0; il < bte->nlocal; il++) {
    PetscInt  g = N - 1 - (bte->rstart + il); /* reverse order */
    PetscInt  ik = kid[g], i[3] = {ik / (nk[1] * nk[2]), (ik / nk[2]) % nk[1], ik % nk[2]};
    PetscReal kc[3] = {0, 0, 0}, k2 = 0;
    for (PetscInt c = 0; c < 3; c++) {
      PetscReal fr = (PetscReal)i[c] / nk[c];
      if (fr >= 0.5) fr -= 1;
      for (PetscInt d = 0; d < 3; d++) kc[d] += fr * bte->grid.reciprocal[3 * c + d];
    }
    bte->kindex[il] = ik;
    bte->band[il]   = bd[g];
    for (PetscInt d = 0; d < 3; d++) {
      s->k[3 * il + d] = kc[d];
      k2 += kc[d] * kc[d];
    }
    bte->energy[il] = EC * k2 + 0.1 * bd[g];
    for (PetscInt d = 0; d < 3; d++) bte->velocity[3 * il + d] = 2 * EC * kc[d] / BTE_HBAR;
  }
  PetscCall(PetscFree2(kid, bd));
  bte->nbands      = nbands;
  bte->nmodes      = 1;
  bte->spin        = 2;
  bte->carrier     = carrier;
  bte->setupcalled = PETSC_TRUE;
  s->bte           = bte;
  PetscFunctionReturn(0);
}

static PetscErrorCode SynthDestroy(Synth *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(s->k));
  PetscCall(BTEDestroy(&s->bte));
  PetscFunctionReturn(0);
}

/* u(k) = sum_R cos(k.R) over the lattice vectors (a3 too in 3D): periodic on the zone */
static void Smooth(const BTE bte, const PetscReal k[3], PetscReal *u, PetscReal g[3])
{
  PetscInt nR = bte->grid.dim == 2 ? 2 : 3;
  *u          = 0;
  g[0] = g[1] = g[2] = 0;
  for (PetscInt r = 0; r < nR; r++) {
    const PetscReal *R  = &bte->grid.lattice[3 * r];
    PetscReal        kr = k[0] * R[0] + k[1] * R[1] + k[2] * R[2];
    *u += PetscCosReal(kr);
    for (PetscInt d = 0; d < 3; d++) g[d] -= R[d] * PetscSinReal(kr);
  }
}

static PetscErrorCode MaxAll(PetscReal *v)
{
  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, v, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscFunctionReturn(0);
}

/* gradient: exact for linear u at states with all neighbours in the window */
static PetscErrorCode TestLinear(PetscInt lat, const char *name, PetscInt n, PetscInt nbexpect)
{
  Synth        s;
  BTEDrift     d;
  Vec          u, g[3];
  PetscScalar *ua;
  const PetscScalar *ga[3];
  PetscReal    c[3] = {0.3, -0.7, lat == 2 ? 0.0 : 1.1}, err = 0;
  PetscInt     nb, interior = 0;

  PetscFunctionBegin;
  PetscCall(SynthCreate(lat, n, 0.3, lat == 0 ? 2 : 1, -1, &s));
  PetscCall(BTEDriftCreate(s.bte, &d));
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTEDriftGetBVectors(d, &nb, NULL, NULL));
  CHECK(nb == nbexpect, "%s: %" PetscInt_FMT " b-vectors, expected %" PetscInt_FMT "\n", name, nb, nbexpect);
  PetscCall(BTECreateStateVec(s.bte, &u));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDuplicate(u, &g[a]));
  PetscCall(VecGetArrayWrite(u, &ua));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) ua[i] = c[0] * s.k[3 * i] + c[1] * s.k[3 * i + 1] + c[2] * s.k[3 * i + 2] + 0.5 * s.bte->band[i];
  PetscCall(VecRestoreArrayWrite(u, &ua));
  PetscCall(BTEDriftGradient(d, u, g));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecGetArrayRead(g[a], &ga[a]));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    PetscBool all = PETSC_TRUE;
    for (PetscInt b = 0; b < nb; b++)
      if (d->nbr[i * nb + b] < 0) all = PETSC_FALSE;
    if (!all) continue;
    interior++;
    for (PetscInt a = 0; a < 3; a++) err = PetscMax(err, PetscAbsReal(PetscRealPart(ga[a][i]) - c[a]));
  }
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecRestoreArrayRead(g[a], &ga[a]));
  PetscCall(MaxAll(&err));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &interior, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-4s linear gradient: %" PetscInt_FMT " b-vectors in %" PetscInt_FMT " shell(s), %" PetscInt_FMT " interior states, max error %.2e\n", name, nb, d->bv.nshells, interior, (double)err));
  CHECK(interior > 0, "%s: no interior states\n", name);
  CHECK(err < 1e-10, "%s: gradient of a linear function off by %g\n", name, (double)err);
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&g[a]));
  PetscCall(VecDestroy(&u));
  PetscCall(BTEDriftDestroy(&d));
  PetscCall(SynthDestroy(&s));
  PetscFunctionReturn(0);
}

/* gradient and drift term of a smooth periodic function against the analytic derivative */
static PetscErrorCode SmoothErrors(PetscInt lat, PetscInt n, BTEDriftForm form, PetscReal *gerr, PetscReal *derr)
{
  Synth        s;
  BTEDrift     d;
  Vec          u, g[3], D;
  PetscScalar *ua;
  const PetscScalar *ga[3], *Da;
  PetscReal    E[3] = {2000, -1000, lat == 2 ? 0 : 500}, F[3], gmax = 0, dmax = 0;

  PetscFunctionBegin;
  PetscCall(SynthCreate(lat, n, 1.0, 1, -1, &s));
  for (PetscInt a = 0; a < 3; a++) F[a] = -E[a] * 1e-8; /* electrons, eV/A */
  PetscCall(BTEDriftCreate(s.bte, &d));
  PetscCall(BTEDriftSetField(d, E));
  PetscCall(BTEDriftSetForm(d, form));
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTECreateStateVec(s.bte, &u));
  PetscCall(VecDuplicate(u, &D));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDuplicate(u, &g[a]));
  /* f = 0.3 + 0.05 u in (0,1) */
  PetscCall(VecGetArrayWrite(u, &ua));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    PetscReal v, gr[3];
    Smooth(s.bte, &s.k[3 * i], &v, gr);
    ua[i] = 0.3 + 0.05 * v;
  }
  PetscCall(VecRestoreArrayWrite(u, &ua));
  PetscCall(BTEDriftGradient(d, u, g));
  PetscCall(BTEDriftApply(d, u, D));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecGetArrayRead(g[a], &ga[a]));
  PetscCall(VecGetArrayRead(D, &Da));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    PetscReal v, gr[3], dex = 0;
    Smooth(s.bte, &s.k[3 * i], &v, gr);
    for (PetscInt a = 0; a < 3; a++) {
      gmax = PetscMax(gmax, PetscAbsReal(PetscRealPart(ga[a][i]) - 0.05 * gr[a]));
      dex -= F[a] * 0.05 * gr[a] / BTE_HBAR;
    }
    dmax = PetscMax(dmax, PetscAbsReal(PetscRealPart(Da[i]) - dex));
  }
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecRestoreArrayRead(g[a], &ga[a]));
  PetscCall(VecRestoreArrayRead(D, &Da));
  PetscCall(MaxAll(&gmax));
  PetscCall(MaxAll(&dmax));
  *gerr = gmax;
  *derr = dmax;
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecDestroy(&g[a]));
  PetscCall(VecDestroy(&u));
  PetscCall(VecDestroy(&D));
  PetscCall(BTEDriftDestroy(&d));
  PetscCall(SynthDestroy(&s));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestSmooth(PetscInt lat, const char *name)
{
  PetscReal g1, d1, g2, d2, l1, l2, scale;

  PetscFunctionBegin;
  PetscCall(SmoothErrors(lat, 12, BTE_DRIFT_PLAIN, &g1, &d1));
  PetscCall(SmoothErrors(lat, 24, BTE_DRIFT_PLAIN, &g2, &d2));
  PetscCall(SmoothErrors(lat, 24, BTE_DRIFT_LOG, &l1, &l2));
  (void)l1;
  /* scale of the exact drift term: |F| |a| 0.05 / hbar */
  scale = 2300e-8 * 6 * 0.05 / BTE_HBAR;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-4s smooth: gradient error %.3e (n=12) %.3e (n=24), ratio %.3f; drift error plain %.3e (n=24, %.2f%% of scale), log %.3e\n", name, (double)g1, (double)g2, (double)(g2 / g1), (double)d2, (double)(100 * d2 / scale), (double)l2));
  CHECK(g2 / g1 < 0.3, "%s: gradient not second order (error ratio %g on doubling the grid)\n", name, (double)(g2 / g1));
  CHECK(d2 / d1 < 0.3, "%s: drift term not second order (error ratio %g)\n", name, (double)(d2 / d1));
  CHECK(d2 < 0.05 * scale, "%s: plain drift term off the analytic -(F/hbar).grad f by %g\n", name, (double)d2);
  CHECK(l2 < 0.05 * scale, "%s: log drift term off the analytic -(F/hbar).grad f by %g\n", name, (double)l2);
  PetscFunctionReturn(0);
}

/* Advection of a smooth periodic profile f0 = 0.3 + 0.05 u(k) on the full zone, no collisions, RK4 in
   time: the exact solution is f0(k - F t/hbar). Returns the mean and maximum errors at time T (the
   profile moved by about 1 radian of k.R), and the range of f over the run. */
static PetscErrorCode AdvectionErrors(PetscInt lat, PetscInt n, BTEDriftForm form, BTEDriftLimiter lim, PetscReal *l1, PetscReal *linf, PetscReal *fmin, PetscReal *fmax)
{
  Synth        s;
  BTEDrift     d;
  Vec          f, k1, k2, k3, k4, w;
  PetscScalar *fa;
  PetscReal    E[3] = {2000, -1000, lat == 2 ? 0 : 500}, F[3], Fn, rate = 0, T, dt, e1 = 0, emax = 0, lo = 1e300, hi = -1e300;
  PetscInt     nsteps;

  PetscFunctionBegin;
  PetscCall(SynthCreate(lat, n, 1.0, 1, -1, &s));
  for (PetscInt a = 0; a < 3; a++) F[a] = -E[a] * 1e-8; /* electrons, eV/A */
  Fn = PetscSqrtReal(F[0] * F[0] + F[1] * F[1] + F[2] * F[2]);
  PetscCall(BTEDriftCreate(s.bte, &d));
  PetscCall(BTEDriftSetField(d, E));
  PetscCall(BTEDriftSetForm(d, form));
  PetscCall(BTEDriftSetLimiter(d, lim));
  PetscCall(BTEDriftSetUp(d));
  for (PetscInt b = 0; b < d->bv.nb; b++) rate += PetscAbsReal(d->c[b]);
  T      = BTE_HBAR / (Fn * PetscSqrtReal(s.bte->grid.lattice[0] * s.bte->grid.lattice[0] + s.bte->grid.lattice[1] * s.bte->grid.lattice[1] + s.bte->grid.lattice[2] * s.bte->grid.lattice[2])); /* |F| T/hbar |a_1| = 1 */
  nsteps = (PetscInt)PetscCeilReal(T * rate / 0.2);    /* RK4 well inside its stability region */
  dt     = T / nsteps;
  PetscCall(BTECreateStateVec(s.bte, &f));
  PetscCall(VecDuplicate(f, &k1));
  PetscCall(VecDuplicate(f, &k2));
  PetscCall(VecDuplicate(f, &k3));
  PetscCall(VecDuplicate(f, &k4));
  PetscCall(VecDuplicate(f, &w));
  PetscCall(VecGetArrayWrite(f, &fa));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    PetscReal v, gr[3];
    Smooth(s.bte, &s.k[3 * i], &v, gr);
    fa[i] = 0.3 + 0.05 * v;
  }
  PetscCall(VecRestoreArrayWrite(f, &fa));
  for (PetscInt step = 0; step < nsteps; step++) {
    PetscReal m, M;
    PetscCall(BTEDriftApply(d, f, k1));
    PetscCall(VecWAXPY(w, dt / 2, k1, f));
    PetscCall(BTEDriftApply(d, w, k2));
    PetscCall(VecWAXPY(w, dt / 2, k2, f));
    PetscCall(BTEDriftApply(d, w, k3));
    PetscCall(VecWAXPY(w, dt, k3, f));
    PetscCall(BTEDriftApply(d, w, k4));
    PetscCall(VecAXPY(k1, 2, k2));
    PetscCall(VecAXPY(k1, 2, k3));
    PetscCall(VecAXPY(k1, 1, k4));
    PetscCall(VecAXPY(f, dt / 6, k1));
    PetscCall(VecMin(f, NULL, &m));
    PetscCall(VecMax(f, NULL, &M));
    lo = PetscMin(lo, m);
    hi = PetscMax(hi, M);
  }
  PetscCall(VecGetArrayWrite(f, &fa));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    PetscReal v, gr[3], k0[3], e;
    for (PetscInt a = 0; a < 3; a++) k0[a] = s.k[3 * i + a] - F[a] * T / BTE_HBAR;
    Smooth(s.bte, k0, &v, gr);
    e = PetscAbsReal(PetscRealPart(fa[i]) - (0.3 + 0.05 * v));
    e1 += e;
    emax = PetscMax(emax, e);
  }
  PetscCall(VecRestoreArrayWrite(f, &fa));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &e1, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  PetscCall(MaxAll(&emax));
  *l1   = e1 / s.bte->nstates;
  *linf = emax;
  *fmin = lo;
  *fmax = hi;
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&k1));
  PetscCall(VecDestroy(&k2));
  PetscCall(VecDestroy(&k3));
  PetscCall(VecDestroy(&k4));
  PetscCall(VecDestroy(&w));
  PetscCall(BTEDriftDestroy(&d));
  PetscCall(SynthDestroy(&s));
  PetscFunctionReturn(0);
}

/* Order of accuracy in time-dependent advection: plain is second order, upwind first, muscl
   second in the mean error (the limiter cuts the slope to zero at the profile's extrema, so the
   maximum error converges more slowly there, and the mean error's order approaches 2 from below:
   van Leer 1.63, 1.84 on sc 12-24-48, 1.86, 1.92 on hex 24-48-96). The initial range of f must not widen (no new
   extrema) for upwind and muscl; plain may. */
static PetscErrorCode TestAdvection(PetscInt lat, const char *name, PetscInt n)
{
  const char *fname[4] = {"plain", "upwind", "muscl/vanleer", "muscl/minmod"};
  PetscReal   r1[4], e1[4];

  PetscFunctionBegin;
  for (PetscInt c = 0; c < 4; c++) {
    BTEDriftForm    form = c == 0 ? BTE_DRIFT_PLAIN : (c == 1 ? BTE_DRIFT_UPWIND : BTE_DRIFT_MUSCL);
    BTEDriftLimiter lim  = c == 3 ? BTE_DRIFT_LIMITER_MINMOD : BTE_DRIFT_LIMITER_VANLEER;
    PetscReal       a1, ai, b1, bi, lo, hi, lo2, hi2, u0 = lat == 2 ? 2 : 3; /* max |u|: number of lattice vectors */
    PetscCall(AdvectionErrors(lat, n, form, lim, &a1, &ai, &lo, &hi));
    PetscCall(AdvectionErrors(lat, 2 * n, form, lim, &b1, &bi, &lo2, &hi2));
    r1[c] = b1 / a1;
    e1[c] = b1;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-4s advection %-13s: mean error %.3e (n=%" PetscInt_FMT ") %.3e (n=%" PetscInt_FMT "), order %.2f; max error %.3e %.3e, order %.2f; f in [%.4f, %.4f] (initial within [%.4f, %.4f])\n", name, fname[c], (double)a1, n, (double)b1, 2 * n, (double)(PetscLog2Real(a1 / b1)), (double)ai, (double)bi, (double)(PetscLog2Real(ai / bi)), (double)PetscMin(lo, lo2), (double)PetscMax(hi, hi2), (double)(0.3 - 0.05 * u0), (double)(0.3 + 0.05 * u0)));
    if (c > 0) CHECK(PetscMin(lo, lo2) >= 0.3 - 0.05 * u0 - 1e-12 && PetscMax(hi, hi2) <= 0.3 + 0.05 * u0 + 1e-12, "%s %s: f left the initial range [%g, %g]: [%g, %g]\n", name, fname[c], (double)(0.3 - 0.05 * u0), (double)(0.3 + 0.05 * u0), (double)PetscMin(lo, lo2), (double)PetscMax(hi, hi2));
  }
  CHECK(r1[0] < 0.3, "%s: plain advection not second order (error ratio %g)\n", name, (double)r1[0]);
  CHECK(r1[1] > 0.4, "%s: upwind advection better than first order (error ratio %g): the order check cannot tell\n", name, (double)r1[1]);
  CHECK(r1[2] < 0.32, "%s: muscl (van Leer) advection not second order (error ratio %g)\n", name, (double)r1[2]);
  CHECK(r1[3] < 0.36, "%s: muscl (minmod) advection not second order (error ratio %g)\n", name, (double)r1[3]);
  CHECK(e1[2] < 0.25 * e1[1] && e1[3] < 0.5 * e1[1], "%s: muscl not much less diffusive than upwind (mean errors %g, %g against %g)\n", name, (double)e1[2], (double)e1[3], (double)e1[1]);
  PetscFunctionReturn(0);
}

/* conservation, sign, Jacobian on a windowed parabolic valley */
static PetscErrorCode TestDrift(PetscInt lat, const char *name, PetscInt carrier)
{
  Synth        s;
  BTEDrift     d;
  Vec          f, fs, D, x, y, fp, fm, Dp, Dm, diag;
  PetscScalar *fa, *xa;
  PetscReal    E[3] = {1000, 0, 0}, sumD, sumabs, vrate, num, den;
  /* |q| E / m_e in cm/s per fs: (E 1e-8 eV/A) (2 EC / hbar^2) A/fs^2, times 1e7 */
  const PetscReal accel = E[0] * 1e-8 * 2 * EC / (BTE_HBAR * BTE_HBAR) * 1e7;
  const PetscScalar *Da;

  PetscFunctionBegin;
  PetscCall(SynthCreate(lat, lat == 2 ? 24 : 14, 0.3, 1, carrier, &s));
  PetscCall(BTECreateStateVec(s.bte, &f));
  PetscCall(VecDuplicate(f, &D));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(VecDuplicate(f, &y));
  PetscCall(VecDuplicate(f, &fp));
  PetscCall(VecDuplicate(f, &fm));
  PetscCall(VecDuplicate(f, &Dp));
  PetscCall(VecDuplicate(f, &Dm));
  PetscCall(VecDuplicate(f, &diag));
  PetscCall(VecGetArrayWrite(f, &fa));
  PetscCall(VecGetArrayWrite(x, &xa));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    /* narrow isotropic valley population: the acceleration check; the asymmetric one below for the rest */
    fa[i] = 0.2 * PetscExpReal(-s.bte->energy[i] / 0.05);
    xa[i] = PetscSinReal(1.0 + 7.0 * (s.bte->rstart + i));
  }
  PetscCall(VecRestoreArrayWrite(f, &fa));
  PetscCall(VecRestoreArrayWrite(x, &xa));
  /* fs: the narrow population, filled on its own (not a VecCopy of f, whose host array is
     rewritten next: with CUDA vectors that raced with the copy on PETSc 3.25) */
  PetscCall(VecDuplicate(f, &fs));
  PetscCall(VecGetArrayWrite(fs, &fa));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) fa[i] = 0.2 * PetscExpReal(-s.bte->energy[i] / 0.05);
  PetscCall(VecRestoreArrayWrite(fs, &fa));
  PetscCall(VecGetArrayWrite(f, &fa));
  for (PetscInt i = 0; i < s.bte->nlocal; i++) {
    const PetscReal *k = &s.k[3 * i];
    fa[i] = 0.2 * PetscExpReal(-s.bte->energy[i] / 0.3) * (1 + 0.3 * PetscSinReal(3 * k[0] + 2 * k[1] + k[2])) + 1e-3;
  }
  PetscCall(VecRestoreArrayWrite(f, &fa));
  for (PetscInt cfg = 0; cfg < 5; cfg++) { /* log, plain, upwind, muscl (van Leer), muscl (minmod) */
    BTEDriftForm    form = cfg < 4 ? (BTEDriftForm)cfg : BTE_DRIFT_MUSCL;
    BTEDriftLimiter lim  = cfg == 4 ? BTE_DRIFT_LIMITER_MINMOD : BTE_DRIFT_LIMITER_VANLEER;
    const char     *fname = cfg == 3 ? "muscl/vanleer" : (cfg == 4 ? "muscl/minmod" : BTEDriftForms[form]);
    PetscReal       h = 1e-6, jerr, jn, derr = 0;
    PetscCall(BTEDriftCreate(s.bte, &d));
    PetscCall(BTEDriftSetField(d, E));
    PetscCall(BTEDriftSetForm(d, form));
    PetscCall(BTEDriftSetLimiter(d, lim));
    PetscCall(BTEDriftSetUp(d));
    /* d<v_x>/dt = sum_i D_i v_x,i / sum_i f_i; exact: qE/m with m = m_e here */
    PetscCall(BTEDriftApply(d, fs, D));
    PetscCall(VecGetArrayRead(D, &Da));
    vrate = 0;
    for (PetscInt i = 0; i < s.bte->nlocal; i++) vrate += PetscRealPart(Da[i]) * s.bte->velocity[3 * i];
    PetscCall(VecRestoreArrayRead(D, &Da));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vrate, 1, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
    PetscCall(VecSum(fs, &den));
    num = vrate / den * 1e7; /* cm/s per fs */
    /* conservation with an asymmetric population */
    PetscCall(BTEDriftApply(d, f, D));
    PetscCall(VecSum(D, &sumD));
    PetscCall(VecNorm(D, NORM_1, &sumabs));
    /* Jacobian vs central differences */
    PetscCall(BTEDriftSetJacobianState(d, f));
    /* muscl's limiter has kinks (where two differences of f tie, or one is 0); f is nearly flat near
       the window's edge, so there the direction is scaled by f and the step kept small, so that
       no difference of f changes sign or order within the step */
    if (form == BTE_DRIFT_MUSCL) {
      PetscCall(VecPointwiseMult(x, x, f));
      h = 1e-9;
    }
    PetscCall(VecZeroEntries(y));
    PetscCall(BTEDriftJacobianMultAdd(d, x, y));
    PetscCall(VecWAXPY(fp, h, x, f));
    PetscCall(VecWAXPY(fm, -h, x, f));
    PetscCall(BTEDriftApply(d, fp, Dp));
    PetscCall(BTEDriftApply(d, fm, Dm));
    PetscCall(VecAXPY(Dp, -1, Dm));
    PetscCall(VecScale(Dp, 1 / (2 * h)));
    PetscCall(VecNorm(y, NORM_INFINITY, &jn));
    PetscCall(VecAXPY(Dp, -1, y));
    PetscCall(VecNorm(Dp, NORM_INFINITY, &jerr));
    /* diagonal vs J e_i for three states */
    PetscCall(VecZeroEntries(diag));
    PetscCall(BTEDriftJacobianDiagonalAdd(d, diag));
    for (PetscInt q = 0; q < 3; q++) {
      PetscInt  gi = q * (s.bte->nstates - 1) / 2;
      PetscReal yi = 0, di = 0;
      PetscCall(VecZeroEntries(x));
      if (gi >= s.bte->rstart && gi < s.bte->rstart + s.bte->nlocal) PetscCall(VecSetValue(x, gi, 1.0, INSERT_VALUES));
      PetscCall(VecAssemblyBegin(x));
      PetscCall(VecAssemblyEnd(x));
      PetscCall(VecZeroEntries(y));
      PetscCall(BTEDriftJacobianMultAdd(d, x, y));
      if (gi >= s.bte->rstart && gi < s.bte->rstart + s.bte->nlocal) {
        const PetscScalar *ya, *da;
        PetscCall(VecGetArrayRead(y, &ya));
        PetscCall(VecGetArrayRead(diag, &da));
        yi = PetscRealPart(ya[gi - s.bte->rstart]);
        di = PetscRealPart(da[gi - s.bte->rstart]);
        PetscCall(VecRestoreArrayRead(y, &ya));
        PetscCall(VecRestoreArrayRead(diag, &da));
      }
      derr = PetscMax(derr, PetscAbsReal(yi - di));
    }
    PetscCall(MaxAll(&derr));
    /* restore x */
    PetscCall(VecGetArrayWrite(x, &xa));
    for (PetscInt i = 0; i < s.bte->nlocal; i++) xa[i] = PetscSinReal(1.0 + 7.0 * (s.bte->rstart + i));
    PetscCall(VecRestoreArrayWrite(x, &xa));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-4s %-9s %-13s: sum D / sum|D| = %9.2e, d<v_x>/dt = %10.3e cm/s/fs (qE/m %10.3e), Jacobian vs differences %.2e (of %.2e), diagonal %.1e\n", name, carrier < 0 ? "electrons" : "holes", fname, (double)(sumD / sumabs), (double)num, (double)(carrier * accel), (double)jerr, (double)jn, (double)derr));
    if (form != BTE_DRIFT_LOG) CHECK(PetscAbsReal(sumD) < 1e-13 * sumabs, "%s %s drift does not conserve carriers: sum D = %g (sum |D| = %g)\n", name, fname, (double)sumD, (double)sumabs);
    CHECK(PetscAbsReal(num / (carrier * accel) - 1) < 0.03, "%s %s: d<v_x>/dt = %g cm/s/fs, expected qE/m = %g\n", name, fname, (double)num, (double)(carrier * accel));
    CHECK(carrier < 0 ? num < 0 : num > 0, "%s: +E_x accelerates %s the wrong way (d<v_x>/dt = %g)\n", name, carrier < 0 ? "electrons" : "holes", (double)num);
    CHECK(jerr < 1e-6 * jn, "%s %s: Jacobian off finite differences by %g (|Jx| %g)\n", name, fname, (double)jerr, (double)jn);
    CHECK(derr < 1e-12 * (jn + 1), "%s %s: Jacobian diagonal off by %g\n", name, fname, (double)derr);
    PetscCall(BTEDriftDestroy(&d));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&fs));
  PetscCall(VecDestroy(&D));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&fp));
  PetscCall(VecDestroy(&fm));
  PetscCall(VecDestroy(&Dp));
  PetscCall(VecDestroy(&Dm));
  PetscCall(VecDestroy(&diag));
  PetscCall(SynthDestroy(&s));
  PetscFunctionReturn(0);
}

/* a field and no velocities: a clear error */
static PetscErrorCode TestNoVelocities(void)
{
  Synth          s;
  BTEDrift       d;
  PetscReal      E[3] = {100, 0, 0};
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(SynthCreate(0, 6, 1.0, 1, -1, &s));
  for (PetscInt i = 0; i < 3 * s.bte->nlocal; i++) s.bte->velocity[i] = 0;
  PetscCall(BTEDriftCreate(s.bte, &d));
  PetscCall(BTEDriftSetField(d, E));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = BTEDriftSetUp(d);
  PetscCall(PetscPopErrorHandler());
  CHECK(ierr == PETSC_ERR_USER_INPUT, "a field with no velocities was accepted (error %d)\n", (int)ierr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "field with no velocities: refused (error %d)\n", (int)ierr));
  PetscCall(BTEDriftDestroy(&d));
  PetscCall(SynthDestroy(&s));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const char *names[3] = {"sc", "fcc", "hex"};
  PetscInt    nbs[3]   = {6, 8, 6};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (PetscInt lat = 0; lat < 3; lat++) PetscCall(TestLinear(lat, names[lat], lat == 2 ? 20 : 12, nbs[lat]));
  for (PetscInt lat = 0; lat < 3; lat++) PetscCall(TestSmooth(lat, names[lat]));
  PetscCall(TestAdvection(0, names[0], 24));
  PetscCall(TestAdvection(2, names[2], 48));
  for (PetscInt lat = 0; lat < 3; lat++) {
    PetscCall(TestDrift(lat, names[lat], -1));
    PetscCall(TestDrift(lat, names[lat], +1));
  }
  PetscCall(TestNoVelocities());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " failure(s)\n", nfail ? "FAILED" : "PASSED", nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
