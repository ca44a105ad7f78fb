/* Wannier interpolation of a Perturbo epr file (the formulas of Perturbo's band_structure.f90,
   phonon_dispersion.f90, polar_correction.f90 and elphon_coupling_matrix.f90; docs/import.md):
     H(k)      = sum_R e^{i 2 pi k.R} H(R)                   (upper triangle stored, Hermitian)
     v_n(k)    = <n| dH/dk |n>, dH/dk = sum_R i R e^{i2pi k.R} H(R); bands closer than 0.1 meV
                 get the eigenvalues of dH/dk_a restricted to their subspace (Wannier90's
                 degenerate perturbation theory, as Perturbo)
     D(q)      = [sum_R e^{i2pi q.R} C(R) + D_LR(q)] / sqrt(M_a M_b), omega = sign(w2) sqrt|w2|,
                 displacement patterns u = e / sqrt(M)
     g^W(k,q)  = sum_Rp e^{i2pi q.Rp} sum_Re e^{i2pi k.Re} g(Re, Rp)   (+ g_LR(q) on iw == jw)
   All in Rydberg atomic units; k, q in crystal coordinates. The functions that run inside
   OpenMP regions use a per-thread work space and return nonzero on failure. */
#include <bte/private/epr.h>
#include <math.h>

#define E2 2.0 /* e^2 in Rydberg atomic units */

/* LAPACK (Fortran) Hermitian eigensolver */
extern void zheev_(const char *, const char *, const int *, double *, const int *, double *, double *, const int *, double *, int *, size_t, size_t);
/* BLAS Hermitian rank-k update */
extern void zherk_(const char *, const char *, const int *, const int *, const double *, const double *, const int *, const double *, double *, const int *, size_t, size_t);

struct _n_BTEEprWork {
  PetscInt   nmax;                /* largest matrix (max(nw, 3 nat)) */
  PetscReal *ph_h, *ph_e, *ph_p, *ph_f; /* phases (re, im) of the vector sets */
  PetscReal *A, *w, *work, *rwork;  /* eigensolver */
  int        lwork;
  PetscReal *dmat;                  /* 3x3 blocks of the short-range D (complex) */
  PetscReal *D, *V;                 /* dipole-dipole matrix, its factor (3nat x G vectors) */
  PetscReal *dH, *tmp, *sub, *subw; /* velocities: dH/dk, its rotation, a degenerate block */
};

/* Perturbo's Z_ij of atom a (i: field, j: displacement) from the stored array */
static inline PetscReal Z(const BTEEpr e, PetscInt a, int i, int j)
{
  return e->zstar[9 * a + 3 * j + i];
}

/* The box of reciprocal vectors m of the long-range sums over K = q + m (crystal), |m_i| <= nrx[i]:
   every K with Q = K.M.K below the Gaussian's cutoff 56 alpha, for any q in [0,1)^3 (M = eps in 3D,
   the identity in 2D, where Q = K.K). The coefficient of b_i in K is a_i.K, and its largest value
   under K.M.K <= g is sqrt(g a_i.M^-1.a_i); one more for q. Perturbo's box, ceil(sqrt(g / b_i.eps.b_i)),
   is complete in usual 3D cells (the same vectors, e.g. DNTT), but in 2D, where its cutoff has no eps,
   it drops vectors when eps_par > 1 and D(q) is then not periodic in q: bte sums the complete set.
   Directions with fewer than 2 coarse q points have no sum (Perturbo's rule). */
static void GRange(const BTEEpr e, PetscReal alpha, PetscInt nrx[3])
{
  PetscReal ggmax = 14.0 * 4.0 * alpha, Mi[9];

  if (e->sys2d) {
    for (int t = 0; t < 9; t++) Mi[t] = (t % 4 == 0) ? 1.0 : 0.0;
  } else { /* eps^-1 (symmetric, positive definite: checked on reading) */
    const PetscReal *m = e->epsil;
    PetscReal        det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6]);
    Mi[0] = (m[4] * m[8] - m[5] * m[7]) / det;
    Mi[1] = (m[2] * m[7] - m[1] * m[8]) / det;
    Mi[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    Mi[3] = (m[5] * m[6] - m[3] * m[8]) / det;
    Mi[4] = (m[0] * m[8] - m[2] * m[6]) / det;
    Mi[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    Mi[6] = (m[3] * m[7] - m[4] * m[6]) / det;
    Mi[7] = (m[1] * m[6] - m[0] * m[7]) / det;
    Mi[8] = (m[0] * m[4] - m[1] * m[3]) / det;
  }
  for (int i = 0; i < 3; i++) {
    const PetscReal *a  = e->at + 3 * i;
    PetscReal        aa = 0;
    for (int x = 0; x < 3; x++)
      for (int y = 0; y < 3; y++) aa += a[x] * Mi[3 * x + y] * a[y];
    PetscReal r = PetscCeilReal(PetscSqrtReal(ggmax * PetscMax(aa, 0))) + 1;
    nrx[i]      = r < 1e6 ? (PetscInt)r : 1000000; /* NaN or huge (a hostile alpha or eps): the reader refuses such a box */
    if (e->qc[i] < 2) nrx[i] = 0;
  }
}

void BTEEprGRange(const BTEEpr e, PetscReal alpha, PetscInt nrx[3])
{
  GRange(e, alpha, nrx);
}

PetscErrorCode BTEEprWorkCreate(BTEEpr e, BTEEprWork *wk)
{
  BTEEprWork w;
  PetscInt   nm = 3 * e->nat, n = PetscMax(e->nw, nm), nf = e->nat * (e->nat + 1) / 2;

  PetscFunctionBegin;
  PetscCall(PetscNew(&w));
  w->nmax  = n;
  w->lwork = (int)(4 * n);
  PetscCall(PetscMalloc4(2 * e->hR.nr, &w->ph_h, 2 * e->eR.nr, &w->ph_e, 2 * e->pR.nr, &w->ph_p, 2 * e->fR.nr, &w->ph_f));
  PetscCall(PetscMalloc4(2 * n * n, &w->A, n, &w->w, 2 * (size_t)w->lwork, &w->work, 3 * n, &w->rwork));
  PetscCall(PetscMalloc1(18 * nf, &w->dmat));
  {
    PetscInt nrx[3], ng = 0;
    if (e->lr_ph) { /* only then is V used (DynLR); a non-polar file's loto_alpha and epsil may be anything */
      GRange(e, e->loto_alpha, nrx);
      ng = (2 * nrx[0] + 1) * (2 * nrx[1] + 1) * (2 * nrx[2] + 1);
    }
    PetscCall(PetscMalloc2(2 * nm * nm, &w->D, 2 * nm * ng, &w->V));
  }
  PetscCall(PetscMalloc4(6 * e->nw * e->nw, &w->dH, 2 * e->nw * e->nw, &w->tmp, 2 * e->nw * e->nw, &w->sub, e->nw, &w->subw));
  *wk = w;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprWorkDestroy(BTEEprWork *wk)
{
  BTEEprWork w = *wk;

  PetscFunctionBegin;
  if (!w) PetscFunctionReturn(0);
  PetscCall(PetscFree4(w->ph_h, w->ph_e, w->ph_p, w->ph_f));
  PetscCall(PetscFree4(w->A, w->w, w->work, w->rwork));
  PetscCall(PetscFree(w->dmat));
  PetscCall(PetscFree2(w->D, w->V));
  PetscCall(PetscFree4(w->dH, w->tmp, w->sub, w->subw));
  PetscCall(PetscFree(w));
  *wk = NULL;
  PetscFunctionReturn(0);
}

static void Phases(const BTEEprRSet *s, const PetscReal k[3], PetscReal ph[])
{
  for (PetscInt r = 0; r < s->nr; r++) {
    PetscReal a = 2 * PETSC_PI * (k[0] * s->R[3 * r] + k[1] * s->R[3 * r + 1] + k[2] * s->R[3 * r + 2]);
    ph[2 * r]     = cos(a);
    ph[2 * r + 1] = sin(a);
  }
}

/* Eigen-decomposition of the n x n Hermitian matrix in w->A (column-major, upper triangle
   used): eigenvalues ascending in ev, eigenvectors overwrite A. */
static int Heev(BTEEprWork w, int n, PetscReal ev[])
{
  int info = 0;
  zheev_("V", "U", &n, w->A, &n, ev, w->work, &w->lwork, w->rwork, &info, 1, 1);
  return info != 0;
}

int BTEEprBands(BTEEpr e, BTEEprWork w, const PetscReal k[3], PetscReal en[], PetscReal U[], PetscReal v[])
{
  const PetscInt nw = e->nw;
  PetscReal     *A  = w->A;
  PetscInt       m  = 0;

  Phases(&e->hR, k, w->ph_h);
  for (PetscInt jw = 0; jw < nw; jw++)
    for (PetscInt iw = 0; iw <= jw; iw++, m++) {
      PetscReal hr = 0, hi = 0, dr[3] = {0, 0, 0}, di[3] = {0, 0, 0};
      for (PetscInt t = e->hoff[m]; t < e->hoff[m + 1]; t++) {
        PetscInt  r  = e->hidx[t];
        PetscReal c  = w->ph_h[2 * r], s = w->ph_h[2 * r + 1];
        PetscReal vr = e->hval_re[t] * c - e->hval_im[t] * s, vi = e->hval_re[t] * s + e->hval_im[t] * c;
        hr += vr;
        hi += vi;
        if (v) {
          /* i R_cart (bohr) times the term */
          for (int a = 0; a < 3; a++) {
            PetscReal Rc = (e->hR.R[3 * r] * e->at[a] + e->hR.R[3 * r + 1] * e->at[3 + a] + e->hR.R[3 * r + 2] * e->at[6 + a]) * e->alat;
            dr[a] -= Rc * vi;
            di[a] += Rc * vr;
          }
        }
      }
      A[2 * (iw + jw * nw)]     = hr;
      A[2 * (iw + jw * nw) + 1] = iw == jw ? 0 : hi;
      if (v)
        for (int a = 0; a < 3; a++) {
          PetscReal *D = w->dH + 2 * nw * nw * a;
          D[2 * (iw + jw * nw)]     = dr[a];
          D[2 * (iw + jw * nw) + 1] = iw == jw ? 0 : di[a];
          D[2 * (jw + iw * nw)]     = dr[a];
          D[2 * (jw + iw * nw) + 1] = iw == jw ? 0 : -di[a];
        }
    }
  if (Heev(w, (int)nw, en)) return 1;
  if (U)
    for (PetscInt t = 0; t < 2 * nw * nw; t++) U[t] = A[t];
  if (v) {
    const PetscReal thr = 0.1e-3 / BTE_RY_EV; /* 0.1 meV in Ry */
    for (int a = 0; a < 3; a++) {
      const PetscReal *D = w->dH + 2 * nw * nw * a;
      PetscReal       *T = w->tmp;
      /* T = D U; Vbar(n,m) = sum_w conj(U(w,n)) T(w,m) */
      for (PetscInt c = 0; c < nw; c++)
        for (PetscInt r = 0; r < nw; r++) {
          PetscReal sr = 0, si = 0;
          for (PetscInt l = 0; l < nw; l++) {
            PetscReal ar = D[2 * (r + l * nw)], ai = D[2 * (r + l * nw) + 1], br = A[2 * (l + c * nw)], bi = A[2 * (l + c * nw) + 1];
            sr += ar * br - ai * bi;
            si += ar * bi + ai * br;
          }
          T[2 * (r + c * nw)]     = sr;
          T[2 * (r + c * nw) + 1] = si;
        }
      for (PetscInt n = 0; n < nw;) {
        PetscInt n1 = n + 1;
        while (n1 < nw && en[n1] - en[n1 - 1] < thr) n1++;
        if (n1 == n + 1) {
          PetscReal sr = 0;
          for (PetscInt l = 0; l < nw; l++) sr += A[2 * (l + n * nw)] * T[2 * (l + n * nw)] + A[2 * (l + n * nw) + 1] * T[2 * (l + n * nw) + 1];
          v[3 * n + a] = sr;
        } else {
          /* the degenerate block: eigenvalues of Vbar restricted to bands [n, n1) */
          int        d = (int)(n1 - n), info = 0;
          PetscReal *sub = w->sub, *sw = w->subw;
          for (PetscInt c = n; c < n1; c++)
            for (PetscInt r = n; r < n1; r++) {
              PetscReal sr = 0, si = 0;
              for (PetscInt l = 0; l < nw; l++) {
                PetscReal ar = A[2 * (l + r * nw)], ai = -A[2 * (l + r * nw) + 1], br = T[2 * (l + c * nw)], bi = T[2 * (l + c * nw) + 1];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
              }
              sub[2 * ((r - n) + (c - n) * d)]     = sr;
              sub[2 * ((r - n) + (c - n) * d) + 1] = si;
            }
          zheev_("N", "U", &d, sub, &d, sw, w->work, &w->lwork, w->rwork, &info, 1, 1);
          if (info) return 1;
          for (PetscInt r = n; r < n1; r++) v[3 * r + a] = sw[r - n];
        }
        n = n1;
      }
    }
  }
  return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Long-range terms (Perturbo's polar_correction.f90; 3D, and 2D for system_2d files) */

/* Weight of one reciprocal vector K = q + G (Cartesian, 2 pi/alat) in the long-range sums, 0 for a
   vector left out (Perturbo's polar_correction.f90). 3D: Q = K.eps.K, w = e^{-Q/4a}/Q. 2D (system_2d):
   Q = K.K, w = e^{-Q/4a}/(sqrt(Q) (1 + r sqrt(Q))) with r = K_par.reff.K_par/|K_par|^2, reff the
   effective screening length of the phonon (ph) or the e-ph term. */
static inline PetscReal LRWeight(const BTEEpr e, PetscBool ph, const PetscReal xc[3])
{
  const PetscReal alpha = ph ? e->loto_alpha : e->polar_alpha, falph = 4.0 * alpha, ggmax = 14.0 * falph;
  PetscReal       qeq = 0;

  if (!e->sys2d) {
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) qeq += xc[i] * e->epsil[3 * i + j] * xc[j];
    if (qeq < 1e-14 || qeq > ggmax) return 0;
    return exp(-qeq / falph) / qeq;
  } else {
    const PetscReal *reff = ph ? e->reff_ph : e->reff_eph;
    PetscReal        gp2  = xc[0] * xc[0] + xc[1] * xc[1], r = 0, sq;
    qeq                   = gp2 + xc[2] * xc[2];
    if (gp2 > 1e-8) r = (xc[0] * (reff[0] * xc[0] + reff[1] * xc[1]) + xc[1] * (reff[2] * xc[0] + reff[3] * xc[1])) / gp2;
    if (qeq < 1e-14 || qeq > ggmax) return 0;
    sq = PetscSqrtReal(qeq);
    return exp(-qeq / falph) / sq / (1 + r * sq);
  }
}

/* The factor of the dipole-dipole term at q: V[(3a + j), K] = sqrt(w_K) (K.Z_a)_j e^{i 2 pi K.tau_a}
   (column-major, complex, in w->V) over the reciprocal vectors K = q + G of positive weight; returns
   their number. D = fac V V^dagger with fac = 4 pi e^2 / V (in 2D times alat / (2 b3_z)). */
static int DynLRFactor(const BTEEpr e, BTEEprWork w, const PetscReal q[3], PetscReal *fac)
{
  const PetscInt na = e->nat;
  const int      nm = (int)(3 * na);
  PetscInt       nrx[3];
  int            ncol = 0;
  PetscReal     *V = w->V;

  *fac = 4 * PETSC_PI * E2 / e->volume * (e->sys2d ? 0.5 * e->alat / e->bg[8] : 1.0);
  GRange(e, e->loto_alpha, nrx);
  for (PetscInt m1 = -nrx[0]; m1 <= nrx[0]; m1++)
    for (PetscInt m2 = -nrx[1]; m2 <= nrx[1]; m2++)
      for (PetscInt m3 = -nrx[2]; m3 <= nrx[2]; m3++) {
        PetscReal x[3] = {q[0] + m1, q[1] + m2, q[2] + m3}, xc[3], wk, sf;
        PetscReal *col = V + 2 * (size_t)nm * ncol;
        for (int c = 0; c < 3; c++) xc[c] = x[0] * e->bg[c] + x[1] * e->bg[3 + c] + x[2] * e->bg[6 + c];
        wk = LRWeight(e, PETSC_TRUE, xc);
        if (!(wk > 0)) continue;
        sf = PetscSqrtReal(wk);
        for (PetscInt a = 0; a < na; a++) {
          PetscReal arg = 2 * PETSC_PI * (xc[0] * e->tau[3 * a] + xc[1] * e->tau[3 * a + 1] + xc[2] * e->tau[3 * a + 2]);
          PetscReal c = cos(arg) * sf, s = sin(arg) * sf;
          for (int j = 0; j < 3; j++) {
            PetscReal kz = xc[0] * Z(e, a, 0, j) + xc[1] * Z(e, a, 1, j) + xc[2] * Z(e, a, 2, j);
            col[2 * (3 * a + j)]     = kz * c;
            col[2 * (3 * a + j) + 1] = kz * s;
          }
        }
        ncol++;
      }
  return ncol;
}

/* The dipole-dipole term as a full Hermitian (3 nat)^2 matrix D (column-major, complex), without the
   on-site correction: D = fac V V^dagger, one zherk. */
static int DynLR(const BTEEpr e, BTEEprWork w, const PetscReal q[3], PetscReal D[])
{
  const int       nm = (int)(3 * e->nat);
  const PetscReal zero = 0;
  PetscReal       fac;
  PetscReal      *V    = w->V;
  int             ncol = DynLRFactor(e, w, q, &fac);

  if (!ncol) {
    for (PetscInt t = 0; t < 2 * nm * nm; t++) D[t] = 0;
    return 0;
  }
  zherk_("U", "N", &nm, &ncol, &fac, V, &nm, &zero, D, &nm, 1, 1);
  /* lower triangle from the upper */
  for (int c = 0; c < nm; c++)
    for (int r = c + 1; r < nm; r++) {
      D[2 * (r + c * nm)]     = D[2 * (c + r * nm)];
      D[2 * (r + c * nm) + 1] = -D[2 * (c + r * nm) + 1];
    }
  return 0;
}

/* The on-site correction (acoustic sum rule of the dipole-dipole term), 9 per atom:
   onsite(ia) = - sum_ja Re D_LR(q = 0)(ia, ja). With D = fac V V^dagger the sum over ja factors:
   sum_ja D(3ia+i, 3ja+j) = fac sum_K V(3ia+i, K) conj(S_j(K)), S_j(K) = sum_ja V(3ja+j, K), so it
   costs 3 nat per reciprocal vector instead of the (3 nat)^2 of forming D (for DNTT's 72 atoms and
   4,095 vectors, ~1e7 operations instead of ~4e8). */
static PetscErrorCode OnsiteCorrection(BTEEpr e, PetscReal **corr)
{
  const PetscInt  na = e->nat, nm = 3 * na;
  const PetscReal q0[3] = {0, 0, 0};
  PetscReal      *c, *S, fac;
  BTEEprWork      w;
  int             ncol;

  PetscFunctionBegin;
  PetscCall(BTEEprWorkCreate(e, &w));
  PetscCall(PetscCalloc1(9 * na, &c));
  ncol = DynLRFactor(e, w, q0, &fac);
  PetscCall(PetscCalloc1(6 * (size_t)PetscMax(ncol, 1), &S));
  for (int k = 0; k < ncol; k++) {
    const PetscReal *col = w->V + 2 * (size_t)nm * k;
    for (PetscInt ja = 0; ja < na; ja++)
      for (int j = 0; j < 3; j++) {
        S[6 * k + 2 * j] += col[2 * (3 * ja + j)];
        S[6 * k + 2 * j + 1] += col[2 * (3 * ja + j) + 1];
      }
  }
  for (int k = 0; k < ncol; k++) {
    const PetscReal *col = w->V + 2 * (size_t)nm * k;
    for (PetscInt ia = 0; ia < na; ia++)
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) c[9 * ia + 3 * i + j] -= fac * (col[2 * (3 * ia + i)] * S[6 * k + 2 * j] + col[2 * (3 * ia + i) + 1] * S[6 * k + 2 * j + 1]);
  }
  PetscCall(PetscFree(S));
  PetscCall(BTEEprWorkDestroy(&w));
  *corr = c;
  PetscFunctionReturn(0);
}

int BTEEprCouplingLR(BTEEpr e, const PetscReal q[3], PetscReal gl[])
{
  const PetscInt na = e->nat;
  PetscInt       nrx[3];

  for (PetscInt t = 0; t < 6 * na; t++) gl[t] = 0;
  if (!e->lr_eph) return 0;
  if (PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]) < 1e-8) return 0;
  GRange(e, e->polar_alpha, nrx);
  for (PetscInt m1 = -nrx[0]; m1 <= nrx[0]; m1++)
    for (PetscInt m2 = -nrx[1]; m2 <= nrx[1]; m2++)
      for (PetscInt m3 = -nrx[2]; m3 <= nrx[2]; m3++) {
        PetscReal x[3] = {q[0] + m1, q[1] + m2, q[2] + m3}, xc[3], wk;
        for (int c = 0; c < 3; c++) xc[c] = x[0] * e->bg[c] + x[1] * e->bg[3 + c] + x[2] * e->bg[6 + c];
        wk = LRWeight(e, PETSC_FALSE, xc);
        if (!(wk > 0)) continue;
        for (PetscInt a = 0; a < na; a++) {
          PetscReal arg = -2 * PETSC_PI * (xc[0] * e->tau[3 * a] + xc[1] * e->tau[3 * a + 1] + xc[2] * e->tau[3 * a + 2]);
          PetscReal c = cos(arg) * wk, s = sin(arg) * wk;
          for (int j = 0; j < 3; j++) {
            PetscReal qz = xc[0] * Z(e, a, 0, j) + xc[1] * Z(e, a, 1, j) + xc[2] * Z(e, a, 2, j);
            gl[2 * (3 * a + j)] += qz * c;
            gl[2 * (3 * a + j) + 1] += qz * s;
          }
        }
      }
  {
    /* prefactor i 4 pi e^2 / (V tpiba) in 3D, i 2 pi e^2 alat / (V b3_z) in 2D */
    PetscReal p = e->sys2d ? 2 * PETSC_PI * E2 / e->volume * e->alat / e->bg[8] : 4 * PETSC_PI * E2 / (e->volume * (2 * PETSC_PI / e->alat));
    for (PetscInt t = 0; t < 3 * na; t++) {
      PetscReal re = gl[2 * t], im = gl[2 * t + 1];
      gl[2 * t]     = -p * im;
      gl[2 * t + 1] = p * re;
    }
  }
  return 0;
}

PetscErrorCode BTEEprSetUpLR(BTEEpr e)
{
  PetscFunctionBegin;
  if (e->sys2d) {
    /* Perturbo's 2D screening lengths (2 pi/alat units): the phonon term from eps_par and the cell
       height c = 1/b3_z; the e-ph term from the layer thickness t (alat units) */
    PetscReal c = 1.0 / e->bg[8], t = (e->thickness2d > 0 ? e->thickness2d : 6.0 / 0.52917721092) / e->alat;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        PetscReal eps = e->epsil[3 * i + j], d = i == j ? 1.0 : 0.0;
        e->reff_ph[2 * i + j]  = (eps - d) * PETSC_PI * c;
        e->reff_eph[2 * i + j] = (d + (eps - d) * c / t) * PETSC_PI * t;
      }
  }
  PetscCall(PetscFree(e->onsite));
  if (e->lr_ph) PetscCall(OnsiteCorrection(e, &e->onsite));
  PetscFunctionReturn(0);
}

int BTEEprPhonons(BTEEpr e, BTEEprWork w, const PetscReal q[3], PetscReal om[], PetscReal u[])
{
  const PetscInt na = e->nat, nm = 3 * na, nf = na * (na + 1) / 2;
  PetscReal     *dm = w->dmat, *A = w->A;

  Phases(&e->fR, q, w->ph_f);
  for (PetscInt m = 0; m < nf; m++) {
    PetscReal *b = dm + 18 * m;
    for (int t = 0; t < 18; t++) b[t] = 0;
    for (PetscInt t = e->foff[m]; t < e->foff[m + 1]; t++) {
      PetscInt         r = e->fidx[t];
      PetscReal        c = w->ph_f[2 * r], s = w->ph_f[2 * r + 1];
      const PetscReal *f = e->fval + 9 * t;
      for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
          PetscReal x = f[3 * j + i]; /* Perturbo's ifc(i,j) */
          b[2 * (3 * i + j)] += c * x;
          b[2 * (3 * i + j) + 1] += s * x;
        }
    }
  }
  if (e->lr_ph && DynLR(e, w, q, w->D)) return 1;
  for (PetscInt jj = 0; jj < nm; jj++)
    for (PetscInt ii = 0; ii <= jj; ii++) {
      PetscInt  ia = ii / 3, ja = jj / 3, i = ii % 3, j = jj % 3, m = ja * (ja + 1) / 2 + ia;
      PetscReal mf = 1.0 / PetscSqrtReal(e->mass[ia] * e->mass[ja]), re, im;
      if (ia != ja) {
        re = dm[18 * m + 2 * (3 * i + j)];
        im = dm[18 * m + 2 * (3 * i + j) + 1];
      } else { /* hermitised diagonal blocks, as Perturbo */
        re = 0.5 * (dm[18 * m + 2 * (3 * i + j)] + dm[18 * m + 2 * (3 * j + i)]);
        im = 0.5 * (dm[18 * m + 2 * (3 * i + j) + 1] - dm[18 * m + 2 * (3 * j + i) + 1]);
      }
      if (e->lr_ph) {
        re += w->D[2 * (ii + jj * nm)];
        im += w->D[2 * (ii + jj * nm) + 1];
        if (ia == ja) re += 0.5 * (e->onsite[9 * ia + 3 * i + j] + e->onsite[9 * ia + 3 * j + i]);
      }
      A[2 * (ii + jj * nm)]     = re * mf;
      A[2 * (ii + jj * nm) + 1] = ii == jj ? 0 : im * mf;
    }
  if (Heev(w, (int)nm, w->w)) return 1;
  for (PetscInt n = 0; n < nm; n++) om[n] = w->w[n] >= 0 ? PetscSqrtReal(w->w[n]) : -PetscSqrtReal(-w->w[n]);
  if (u)
    for (PetscInt n = 0; n < nm; n++)
      for (PetscInt r = 0; r < nm; r++) {
        PetscReal s = 1.0 / PetscSqrtReal(e->mass[r / 3]);
        u[2 * (r + n * nm)]     = A[2 * (r + n * nm)] * s;
        u[2 * (r + n * nm) + 1] = A[2 * (r + n * nm) + 1] * s;
      }
  return 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Couplings */

PetscInt BTEEprCouplingKSize(BTEEpr e)
{
  return 6 * e->poff[e->nat * e->nw * e->nw];
}

int BTEEprCouplingK(BTEEpr e, BTEEprWork w, const PetscReal k[3], PetscReal gk[])
{
  const PetscInt ne = e->nat * e->nw * e->nw;

  Phases(&e->eR, k, w->ph_e);
  for (PetscInt el = 0; el < ne; el++) {
    PetscInt         nre = e->eoff[el + 1] - e->eoff[el], nrp = e->poff[el + 1] - e->poff[el];
    const PetscInt  *ei = e->eidx + e->eoff[el];
    const PetscReal *dr = e->ep_re + e->doff[el], *di = e->ep_im + e->doff[el];
    PetscReal       *o  = gk + 6 * e->poff[el];
    for (PetscInt p = 0; p < nrp; p++)
      for (int a = 0; a < 3; a++) {
        PetscReal sr = 0, si = 0;
        for (PetscInt r = 0; r < nre; r++) {
          PetscReal c = w->ph_e[2 * ei[r]], s = w->ph_e[2 * ei[r] + 1], xr = dr[3 * (p * nre + r) + a], xi = di[3 * (p * nre + r) + a];
          sr += xr * c - xi * s;
          si += xr * s + xi * c;
        }
        o[2 * (3 * p + a)]     = sr;
        o[2 * (3 * p + a) + 1] = si;
      }
  }
  return 0;
}

int BTEEprCouplingKQ(BTEEpr e, BTEEprWork w, const PetscReal gk[], const PetscReal q[3], PetscReal gw[])
{
  const PetscInt nw = e->nw, nm = 3 * e->nat;

  Phases(&e->pR, q, w->ph_p);
  for (PetscInt a = 0; a < e->nat; a++)
    for (PetscInt jw = 0; jw < nw; jw++)
      for (PetscInt iw = 0; iw < nw; iw++) {
        PetscInt         el = (a * nw + jw) * nw + iw, nrp = e->poff[el + 1] - e->poff[el];
        const PetscInt  *pi = e->pidx + e->poff[el];
        const PetscReal *g  = gk + 6 * e->poff[el];
        PetscReal        sr[3] = {0, 0, 0}, si[3] = {0, 0, 0};
        for (PetscInt p = 0; p < nrp; p++) {
          PetscReal c = w->ph_p[2 * pi[p]], s = w->ph_p[2 * pi[p] + 1];
          for (int x = 0; x < 3; x++) {
            PetscReal gr = g[2 * (3 * p + x)], gi = g[2 * (3 * p + x) + 1];
            sr[x] += gr * c - gi * s;
            si[x] += gr * s + gi * c;
          }
        }
        for (int x = 0; x < 3; x++) {
          gw[2 * ((iw * nw + jw) * nm + 3 * a + x)]     = sr[x];
          gw[2 * ((iw * nw + jw) * nm + 3 * a + x) + 1] = si[x];
        }
      }
  return 0;
}
