/* Model "gaas": the conduction band of GaAs as the classic three-valley non-parabolic model
   (Gamma, 4 L, 3 X) placed on the fcc Brillouin zone, with acoustic (deformation potential),
   polar optical (Frohlich) and intervalley (zeroth-order deformation potential) scattering.

   Band: one band, the lowest valley energy at each k. In each valley
       e (1 + alpha e) = hbar^2 |k - k0|^2 / (2 m*),   e measured from the valley bottom,
   band energy = offset + e, velocity = hbar (k - k0) / (m* (1 + 2 alpha e)) (the gradient).
   Valley minima k0: Gamma; L = (pi/a)(+-1,+-1,+-1), 8 zone-face centres = 4 valleys (L and -L
   are one valley); X = (2 pi/a)(+-1,0,0) and permutations, 6 face centres = 3 valleys. For k in
   the first zone the nearest L is the one with k's sign pattern and the nearest X lies along
   k's largest Cartesian component, so the valley search is cheap.

   Modes (6, the paper's count for GaAs):
     0 acoustic (within a valley)  hw = hbar v_s |q|     g2 = hbar D_v^2 |q| / (2 rho V_cell v_s)
     1 LO, Frohlich (within a valley) hw_LO              g2 = e^2 hw_LO (1/eps_inf - 1/eps_0) / (2 eps0 V_cell |q|^2)
     2 Gamma-L intervalley                               g2 = hbar D_iv^2 / (2 rho V_cell w_iv)
     3 L-L (between different L valleys)
     4 L-X
     5 Gamma-X and X-X (the same phonon energy, 29.9 meV, with their own D_iv)
   The number of equivalent final valleys (Z_f) of the textbook rates comes out of the grid:
   final states are found in every valley of the right type. The overlap factor of the
   non-parabolic Frohlich matrix element is 1 by default; -bte_gaas_overlap multiplies it in
   (GaAsOverlap).

   -bte_gaas_masses anisotropic: the L and X valleys are ellipsoids along their axes ([111],
   [100]) with longitudinal and transverse masses, gamma = hbar^2 (dk_l^2/m_l + dk_t^2/m_t)/2;
   the band is then the lowest of Gamma and all 8 L and 6 X ellipsoids (an elongated valley's
   nearest centre need not be its lowest). The isotropic set stays the default (tables and tests
   depend on it).
   -bte_gaas_acoustic_floor equipartition: acoustic phonons below the builder's phonon floor are
   kept at the floor (BTEModelAcousticRaise) instead of dropped.

   Parameters (the standard Monte Carlo set; docs/models.md gives the sources): see the
   defaults below; each is recorded with BTEParamsAdd. */
#include <bte/private/modelimpl.h>

#define HBAR_SI   1.054571817e-34 /* J s */
#define HB2_2ME   3.80998212      /* hbar^2/(2 m_e), eV Angstrom^2 */
#define E2_4PIEPS 14.399645       /* e^2/(4 pi eps0), eV Angstrom */
#define GAAS_DIV_GAMMA_L_CLASSIC 1.8e8 /* eV/cm: the classic sets' Gamma-L coupling, the default */

enum {
  GAAS_G,
  GAAS_L,
  GAAS_X
};

typedef enum {
  GAAS_MASSES_ISOTROPIC,
  GAAS_MASSES_ANISOTROPIC
} GaAsMasses;
static const char *const GaAsMassesTypes[] = {"isotropic", "anisotropic", "GaAsMasses", "GAAS_MASSES_", NULL};

typedef struct {
  PetscReal a;
  PetscReal off[3], mstar[3], alpha[3], dac[3]; /* per valley type Gamma, L, X */
  PetscReal ml[3], mt[3];                       /* anisotropic: longitudinal, transverse masses (L, X) */
  PetscInt  masses;                             /* GaAsMasses */
  PetscReal hwlo, epsinf, eps0, vs, rho;
  PetscReal div[5], hwiv[5]; /* Gamma-L, L-L, L-X, Gamma-X, X-X: eV/cm, eV */
  PetscBool ac, lo, iv;
  PetscBool overlap; /* -bte_gaas_overlap: Frohlich times the Kane overlap factor */
  PetscInt  acfloor; /* BTEAcousticFloor */
  /* derived */
  PetscReal floor;  /* the builder's phonon floor, eV */
  PetscReal Cl[3], Ct[3]; /* anisotropic: hbar^2/(2 m_l), hbar^2/(2 m_t), eV A^2 */
  PetscReal C[3];   /* hbar^2/(2 m*), eV A^2 */
  PetscReal cac[3]; /* acoustic g2 / |q|, eV^2 A */
  PetscReal cfr;    /* Frohlich g2 |q|^2, eV^2 A^-2 */
  PetscReal civ[5]; /* intervalley g2, eV^2 */
  PetscReal hvs;    /* hbar v_s, eV A */
  PetscReal piA;    /* pi/a */
  /* valley label of each full-grid k point, filled on first use (255: not yet known) */
  PetscInt       nk;
  PetscReal      lat[9];
  unsigned char *label;
} GaAs;

/* e from gamma = e (1 + alpha e) */
static inline PetscReal GaAsEnergy(PetscReal gamma, PetscReal alpha)
{
  return alpha > 0 ? 2 * gamma / (1 + PetscSqrtReal(1 + 4 * alpha * gamma)) : gamma;
}

/* Valley label of k (first zone, Cartesian): 0 Gamma, 1..4 L, 5..7 X; energy, and k - k0. */
static inline PetscInt GaAsValley(const GaAs *p, const PetscReal k[3], PetscReal *e, PetscReal dk[3])
{
  PetscReal s[3], dL[3], dX[3], eG, eL, eX, k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2], ak[3];
  PetscInt  ax = 0, lab;

  for (int c = 0; c < 3; c++) {
    s[c]  = k[c] < 0 ? -1.0 : 1.0;
    ak[c] = PetscAbsReal(k[c]);
    dL[c] = k[c] - s[c] * p->piA;
    dX[c] = k[c];
  }
  if (ak[1] > ak[ax]) ax = 1;
  if (ak[2] > ak[ax]) ax = 2;
  dX[ax] = k[ax] - s[ax] * 2 * p->piA;
  eG     = GaAsEnergy(p->C[GAAS_G] * k2, p->alpha[GAAS_G]);
  eL     = p->off[GAAS_L] + GaAsEnergy(p->C[GAAS_L] * (dL[0] * dL[0] + dL[1] * dL[1] + dL[2] * dL[2]), p->alpha[GAAS_L]);
  eX     = p->off[GAAS_X] + GaAsEnergy(p->C[GAAS_X] * (dX[0] * dX[0] + dX[1] * dX[1] + dX[2] * dX[2]), p->alpha[GAAS_X]);
  if (eG <= eL && eG <= eX) {
    *e  = eG;
    lab = 0;
    for (int c = 0; c < 3; c++) dk[c] = k[c];
  } else if (eL <= eX) {
    /* L and -L are one valley: the pattern relative to the sign of kx */
    *e  = eL;
    lab = 1 + (s[1] * s[0] > 0 ? 0 : 1) + 2 * (s[2] * s[0] > 0 ? 0 : 1);
    for (int c = 0; c < 3; c++) dk[c] = dL[c];
  } else {
    *e  = eX;
    lab = 5 + ax;
    for (int c = 0; c < 3; c++) dk[c] = dX[c];
  }
  return lab;
}

/* Energy above the bottom of an ellipsoidal valley with axis n (unit vector): gamma =
   C_l (d.n)^2 + C_t (|d|^2 - (d.n)^2); grad gamma in g[3]. */
static inline PetscReal GaAsEllipsoid(PetscReal Cl, PetscReal Ct, const PetscReal n[3], const PetscReal d[3], PetscReal g[3])
{
  PetscReal dl = d[0] * n[0] + d[1] * n[1] + d[2] * n[2], d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];

  if (g)
    for (int c = 0; c < 3; c++) g[c] = 2 * Ct * d[c] + 2 * (Cl - Ct) * dl * n[c];
  return Cl * dl * dl + Ct * (d2 - dl * dl);
}

/* The Herring-Vogt vector u of d = k - k0 in an ellipsoidal valley with axis n: gamma = |u|^2
   (u = sqrt(C_l) (d.n) n + sqrt(C_t) (d - (d.n) n)); its angles are those of the valley's
   spherical frame */
static inline void GaAsHerringVogt(PetscReal Cl, PetscReal Ct, const PetscReal n[3], const PetscReal d[3], PetscReal u[3])
{
  const PetscReal dl = d[0] * n[0] + d[1] * n[1] + d[2] * n[2], sl = PetscSqrtReal(Cl), st = PetscSqrtReal(Ct);
  for (int c = 0; c < 3; c++) u[c] = sl * dl * n[c] + st * (d[c] - dl * n[c]);
}

/* Anisotropic L and X valleys (-bte_gaas_masses anisotropic): the lowest of Gamma, all 8 L and
   all 6 X centres (an elongated valley's nearest centre need not be its lowest), with the
   valley labels of GaAsValley. Sets e, and grad_k of the valley's gamma (eV A) in dg; hv (may be
   NULL) gets the valley's Herring-Vogt vector (GaAsHerringVogt). */
static inline PetscInt GaAsValleyAniso(const GaAs *p, const PetscReal k[3], PetscReal *e, PetscReal dg[3], PetscInt *type, PetscReal hv[3])
{
  const PetscReal r3 = 1 / PetscSqrtReal(3.0);
  PetscReal       gam, g[3], d[3], n[3], best;
  PetscInt        lab = 0;

  gam  = p->C[GAAS_G] * (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  best = GaAsEnergy(gam, p->alpha[GAAS_G]);
  for (int c = 0; c < 3; c++) dg[c] = 2 * p->C[GAAS_G] * k[c];
  if (hv)
    for (int c = 0; c < 3; c++) hv[c] = PetscSqrtReal(p->C[GAAS_G]) * k[c];
  *type = GAAS_G;
  for (int sx = -1; sx <= 1; sx += 2)
    for (int sy = -1; sy <= 1; sy += 2)
      for (int sz = -1; sz <= 1; sz += 2) {
        PetscReal s[3] = {(PetscReal)sx, (PetscReal)sy, (PetscReal)sz}, eL;
        for (int c = 0; c < 3; c++) {
          d[c] = k[c] - s[c] * p->piA;
          n[c] = s[c] * r3;
        }
        gam = GaAsEllipsoid(p->Cl[GAAS_L], p->Ct[GAAS_L], n, d, g);
        eL  = p->off[GAAS_L] + GaAsEnergy(gam, p->alpha[GAAS_L]);
        if (eL < best) {
          best  = eL;
          *type = GAAS_L;
          /* L and -L are one valley: the pattern relative to the sign of the x component */
          lab = 1 + (sy * sx > 0 ? 0 : 1) + 2 * (sz * sx > 0 ? 0 : 1);
          for (int c = 0; c < 3; c++) dg[c] = g[c];
          if (hv) GaAsHerringVogt(p->Cl[GAAS_L], p->Ct[GAAS_L], n, d, hv);
        }
      }
  for (int ax = 0; ax < 3; ax++)
    for (int sg = -1; sg <= 1; sg += 2) {
      PetscReal eX;
      for (int c = 0; c < 3; c++) {
        d[c] = k[c];
        n[c] = 0;
      }
      d[ax] -= sg * 2 * p->piA;
      n[ax] = 1;
      gam   = GaAsEllipsoid(p->Cl[GAAS_X], p->Ct[GAAS_X], n, d, g);
      eX    = p->off[GAAS_X] + GaAsEnergy(gam, p->alpha[GAAS_X]);
      if (eX < best) {
        best  = eX;
        *type = GAAS_X;
        lab   = 5 + ax;
        for (int c = 0; c < 3; c++) dg[c] = g[c];
        if (hv) GaAsHerringVogt(p->Cl[GAAS_X], p->Ct[GAAS_X], n, d, hv);
      }
    }
  *e = best;
  return lab;
}

static inline PetscInt GaAsType(PetscInt lab)
{
  return lab == 0 ? GAAS_G : (lab <= 4 ? GAAS_L : GAAS_X);
}

/* Valley label of a grid point k (first zone, Cartesian), cached by its grid index
   i_a = round(nk k.a_a / 2 pi) mod nk. Threads may fill the same entry with the same value. */
static inline PetscInt GaAsLabel(const GaAs *p, const PetscReal k[3])
{
  PetscInt      ik = 0;
  unsigned char l;

  if (!p->label) {
    PetscReal e, dk[3];
    PetscInt  t;
    return p->masses == GAAS_MASSES_ANISOTROPIC ? GaAsValleyAniso(p, k, &e, dk, &t, NULL) : GaAsValley(p, k, &e, dk);
  }
  for (int a = 0; a < 3; a++) {
    PetscReal f = (k[0] * p->lat[3 * a] + k[1] * p->lat[3 * a + 1] + k[2] * p->lat[3 * a + 2]) * p->nk / (2 * PETSC_PI);
    PetscInt  i = (PetscInt)PetscFloorReal(f + 0.5); /* within a zone or two of [0, nk) */
    while (i < 0) i += p->nk;
    while (i >= p->nk) i -= p->nk;
    ik = ik * p->nk + i;
  }
#pragma omp atomic read
  l = p->label[ik];
  if (l == 255) {
    PetscReal e, dk[3];
    PetscInt  t;
    l = (unsigned char)(p->masses == GAAS_MASSES_ANISOTROPIC ? GaAsValleyAniso(p, k, &e, dk, &t, NULL) : GaAsValley(p, k, &e, dk));
#pragma omp atomic write
    p->label[ik] = l;
  }
  return l;
}

static PetscErrorCode GaAsBands(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[])
{
  const GaAs *p = (const GaAs *)ctx;
  PetscReal   dk[3], ev;
  PetscInt    t;

  if (p->masses == GAAS_MASSES_ANISOTROPIC) {
    /* v = grad gamma / (hbar (1 + 2 alpha e)) */
    (void)GaAsValleyAniso(p, k, e, dk, &t, NULL);
    ev = e[0] - p->off[t];
    for (int c = 0; c < 3; c++) v[c] = dk[c] / (BTE_HBAR * (1 + 2 * p->alpha[t] * ev));
    return 0;
  }
  t  = GaAsType(GaAsValley(p, k, e, dk));
  ev = e[0] - p->off[t];
  for (int c = 0; c < 3; c++) v[c] = 2 * p->C[t] * dk[c] / (BTE_HBAR * (1 + 2 * p->alpha[t] * ev));
  return 0;
}

/* -bte_gaas_overlap: the overlap of two states of one non-parabolic (Kane) valley,
   |a a' + c c' cos(theta)|^2 with a = sqrt((1 + alpha e)/(1 + 2 alpha e)), c = sqrt(alpha e/(1 + 2
   alpha e)), e above the valley's bottom and theta the angle between k - k0 and k' - k0 (in an
   ellipsoidal valley, between the Herring-Vogt vectors). 1 for e = e' and theta = 0; it weakens
   large-angle scattering of hot carriers. */
static PetscReal GaAsOverlap(const GaAs *p, const PetscReal k[3], const PetscReal kp[3])
{
  PetscReal e[2], u[2][3], a[2], c[2], uu = 0, n0 = 0, n1 = 0, cs = 0, ov;
  PetscInt  t[2];

  for (int s = 0; s < 2; s++) {
    const PetscReal *kk = s ? kp : k;
    PetscReal        dk[3], ev, al;
    if (p->masses == GAAS_MASSES_ANISOTROPIC) (void)GaAsValleyAniso(p, kk, &e[s], dk, &t[s], u[s]);
    else {
      t[s] = GaAsType(GaAsValley(p, kk, &e[s], dk));
      for (int d = 0; d < 3; d++) u[s][d] = PetscSqrtReal(p->C[t[s]]) * dk[d];
    }
    ev   = PetscMax(0.0, e[s] - p->off[t[s]]);
    al   = p->alpha[t[s]];
    a[s] = PetscSqrtReal((1 + al * ev) / (1 + 2 * al * ev));
    c[s] = PetscSqrtReal(al * ev / (1 + 2 * al * ev));
  }
  for (int d = 0; d < 3; d++) {
    uu += u[0][d] * u[1][d];
    n0 += u[0][d] * u[0][d];
    n1 += u[1][d] * u[1][d];
  }
  if (n0 > 0 && n1 > 0) cs = uu / PetscSqrtReal(n0 * n1);
  ov = a[0] * a[1] + c[0] * c[1] * cs;
  return ov * ov;
}

static PetscErrorCode GaAsCoupling(void *ctx, PetscInt n, const PetscReal k[3], PetscInt m, const PetscReal kp[3], const PetscReal q[3], PetscReal hw[], PetscReal g2[])
{
  const GaAs *p  = (const GaAs *)ctx;
  PetscInt    la = GaAsLabel(p, k), lb = GaAsLabel(p, kp);

  (void)n;
  (void)m;
  for (int nu = 0; nu < 6; nu++) g2[nu] = 0;
  hw[0] = 0; /* acoustic: set below where it couples */
  hw[1] = p->hwlo;
  hw[2] = p->hwiv[0];
  hw[3] = p->hwiv[1];
  hw[4] = p->hwiv[2];
  hw[5] = p->hwiv[3];
  if (la == lb) {
    PetscReal q2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2], qn = PetscSqrtReal(q2);
    hw[0]        = p->hvs * qn;
    g2[0]        = p->ac ? p->cac[GaAsType(la)] * qn : 0;
    if (p->acfloor == BTE_ACOUSTIC_FLOOR_EQUIPARTITION) BTEModelAcousticRaise(p->floor, &hw[0], &g2[0]);
    g2[1]        = p->lo && q2 > 0 ? p->cfr / q2 : 0;
    if (p->overlap && g2[1] > 0) g2[1] *= GaAsOverlap(p, k, kp);
  } else if (p->iv) {
    PetscInt ta = GaAsType(la), tb = GaAsType(lb), lo = PetscMin(ta, tb), hi = PetscMax(ta, tb);
    if (lo == GAAS_G && hi == GAAS_L) g2[2] = p->civ[0];
    else if (lo == GAAS_L && hi == GAAS_L) g2[3] = p->civ[1];
    else if (lo == GAAS_L && hi == GAAS_X) g2[4] = p->civ[2];
    else if (lo == GAAS_G && hi == GAAS_X) g2[5] = p->civ[3];
    else if (lo == GAAS_X && hi == GAAS_X) {
      g2[5] = p->civ[4];
      hw[5] = p->hwiv[4];
    }
  }
  return 0;
}

static PetscErrorCode BTEModelSetFromOptions_GaAs(BTE bte)
{
  GaAs *p = (GaAs *)bte->modeldata;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)bte), ((PetscObject)bte)->prefix, "Model gaas: three-valley (Gamma, L, X) non-parabolic GaAs conduction band", "BTE");
  PetscCall(PetscOptionsBool("-bte_gaas_acoustic", "Include acoustic deformation-potential scattering", "BTESetModel", p->ac, &p->ac, NULL));
  PetscCall(PetscOptionsBool("-bte_gaas_lo", "Include polar optical (Frohlich) scattering", "BTESetModel", p->lo, &p->lo, NULL));
  PetscCall(PetscOptionsBool("-bte_gaas_intervalley", "Include intervalley scattering", "BTESetModel", p->iv, &p->iv, NULL));
  PetscCall(PetscOptionsBool("-bte_gaas_overlap", "Polar optical (Frohlich) scattering within a valley times the overlap factor of the non-parabolic (Kane) valley, |a a' + c c' cos theta|^2 (Fawcett, Boardman and Swain 1970); off: the factor is 1", "BTESetModel", p->overlap, &p->overlap, NULL));
  PetscCall(PetscOptionsEList("-bte_gaas_acoustic_floor", "Acoustic phonons below -bte_phonon_min: drop (Perturbo) or equipartition (kept at the floor, |g|^2 scaled to keep the elastic rate)", "BTESetModel", BTEAcousticFloors, 2, BTEAcousticFloors[p->acfloor], &p->acfloor, NULL));
  PetscCall(PetscOptionsEList("-bte_gaas_masses", "L and X valleys: isotropic (density-of-states masses, the classic set) or anisotropic (longitudinal and transverse masses)", "BTESetModel", GaAsMassesTypes, 2, GaAsMassesTypes[p->masses], &p->masses, NULL));
  {
    PetscInt  n = 3; /* one more than needed: a third value is an error, not dropped */
    PetscReal m[3];
    PetscBool set;
    m[0] = p->ml[GAAS_L];
    m[1] = p->mt[GAAS_L];
    char      txt[256]; /* the whole default in the text: -help shows a list's first value only */
    PetscCall(PetscSNPrintf(txt, sizeof(txt), "L valley longitudinal,transverse masses (m_e), with -bte_gaas_masses anisotropic (default %g,%g)", (double)m[0], (double)m[1]));
    PetscCall(PetscOptionsRealArray("-bte_gaas_l_masses", txt, "BTESetModel", m, &n, &set));
    if (set) {
      PetscCheck(n == 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_SIZ, "-bte_gaas_l_masses needs two values (longitudinal,transverse), got %" PetscInt_FMT, n);
      PetscCheck(p->masses == GAAS_MASSES_ANISOTROPIC, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_INCOMP, "-bte_gaas_l_masses needs -bte_gaas_masses anisotropic (the isotropic valleys use the density-of-states masses)");
      p->ml[GAAS_L] = m[0];
      p->mt[GAAS_L] = m[1];
    }
    n    = 3;
    m[0] = p->ml[GAAS_X];
    m[1] = p->mt[GAAS_X];
    PetscCall(PetscSNPrintf(txt, sizeof(txt), "X valley longitudinal,transverse masses (m_e), with -bte_gaas_masses anisotropic (default %g,%g)", (double)m[0], (double)m[1]));
    PetscCall(PetscOptionsRealArray("-bte_gaas_x_masses", txt, "BTESetModel", m, &n, &set));
    if (set) {
      PetscCheck(n == 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_SIZ, "-bte_gaas_x_masses needs two values (longitudinal,transverse), got %" PetscInt_FMT, n);
      PetscCheck(p->masses == GAAS_MASSES_ANISOTROPIC, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_INCOMP, "-bte_gaas_x_masses needs -bte_gaas_masses anisotropic (the isotropic valleys use the density-of-states masses)");
      p->ml[GAAS_X] = m[0];
      p->mt[GAAS_X] = m[1];
    }
  }
  {
    /* Published three-valley sets differ most in the Gamma-L coupling (1.8e8 here, 1e9 in others),
       a factor 31 in the Gamma -> L rate: let a run use another set. */
    PetscInt  n = 6; /* one more than needed: a sixth value is an error, not dropped */
    PetscReal D[6];
    PetscBool set;
    for (int c = 0; c < 5; c++) D[c] = p->div[c];
    char      txt[256]; /* the whole default in the text: -help shows a list's first value only */
    PetscCall(PetscSNPrintf(txt, sizeof(txt), "Intervalley deformation potentials Gamma-L,L-L,L-X,Gamma-X,X-X (eV/cm; default %g,%g,%g,%g,%g)", (double)D[0], (double)D[1], (double)D[2], (double)D[3], (double)D[4]));
    PetscCall(PetscOptionsRealArray("-bte_gaas_intervalley_d", txt, "BTESetModel", D, &n, &set));
    if (set) {
      PetscCheck(n == 5, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_SIZ, "-bte_gaas_intervalley_d needs five values Gamma-L,L-L,L-X,Gamma-X,X-X (eV/cm), got %" PetscInt_FMT, n);
      for (int c = 0; c < 5; c++) {
        PetscCheck(D[c] >= 0 && D[c] <= 1e12, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_gaas_intervalley_d: value %d is %g eV/cm, must be in [0, 1e12]", c + 1, (double)D[c]);
        p->div[c] = D[c];
      }
    }
  }
  {
    PetscInt  n = 3; /* one more than needed: a third value is an error, not dropped */
    PetscReal o[3] = {p->off[GAAS_L], p->off[GAAS_X], 0};
    PetscBool set;
    char      txt[128]; /* the whole default in the text: -help shows a list's first value only */
    PetscCall(PetscSNPrintf(txt, sizeof(txt), "L and X valley minima above the Gamma minimum L,X (eV; default %g,%g)", (double)o[0], (double)o[1]));
    PetscCall(PetscOptionsRealArray("-bte_gaas_offsets", txt, "BTESetModel", o, &n, &set));
    if (set) {
      PetscCheck(n == 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_SIZ, "-bte_gaas_offsets needs two values L,X (eV), got %" PetscInt_FMT, n);
      PetscCheck(o[0] > 0 && o[0] < o[1] && o[1] <= 2, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_gaas_offsets: need 0 < L < X <= 2 eV, got L = %g, X = %g", (double)o[0], (double)o[1]);
      p->off[GAAS_L] = o[0];
      p->off[GAAS_X] = o[1];
    }
  }
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelGenerate_GaAs(BTE bte)
{
  GaAs         p = *(const GaAs *)bte->modeldata; /* the parameters; derived values below */
  BTEModelSpec spec;
  PetscReal    V, qmax = 0, hwmax;
  const char  *tname[3] = {"Gamma", "L", "X"};
  const char  *ivname[5] = {"Gamma_L", "L_L", "L_X", "Gamma_X", "X_X"};

  PetscFunctionBegin;
  /* The model's default window covers the three valleys: 0.7 eV, unless a window was set (-bte_window). */
  if (!bte->window_set) bte->window = 0.7;

  V     = p.a * p.a * p.a / 4; /* fcc primitive cell */
  p.piA = PETSC_PI / p.a;
  p.hvs = BTE_HBAR * p.vs * 1e-5; /* v_s: 1 m/s = 1e-5 A/fs */
  /* Frohlich: e^2/eps0 = 4 pi 14.399645 eV A, so e^2 hw/(2 eps0 V) = 2 pi 14.399645 hw / V, eV^2 A^-2 */
  p.cfr = 2 * PETSC_PI * E2_4PIEPS * p.hwlo * (1 / p.epsinf - 1 / p.eps0) / V;
  p.floor = BTEModelPhononFloor(bte);
  if (p.masses == GAAS_MASSES_ANISOTROPIC) {
    PetscCheck(p.ml[GAAS_L] > 0 && p.mt[GAAS_L] > 0 && p.ml[GAAS_X] > 0 && p.mt[GAAS_X] > 0 && !PetscIsInfOrNanReal(p.ml[GAAS_L] + p.mt[GAAS_L] + p.ml[GAAS_X] + p.mt[GAAS_X]), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Model gaas: the L and X masses (-bte_gaas_l_masses, -bte_gaas_x_masses) must be positive and finite");
    for (int t = GAAS_L; t <= GAAS_X; t++) {
      const char *opt = t == GAAS_L ? "-bte_gaas_l_masses" : "-bte_gaas_x_masses";
      char        what[64];
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s (longitudinal)", opt));
      PetscCall(BTECheckRangeAbove(PetscObjectComm((PetscObject)bte), what, p.ml[t], 0, BTE_MODEL_MASS_MAX, "m_e", NULL));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s (transverse)", opt));
      PetscCall(BTECheckRangeAbove(PetscObjectComm((PetscObject)bte), what, p.mt[t], 0, BTE_MODEL_MASS_MAX, "m_e", NULL));
    }
    /* Gamma stays isotropic; the density-of-states mass of an ellipsoid, (m_l m_t^2)^(1/3),
       replaces the isotropic mass (recorded, used for the acoustic q bound) */
    for (int t = GAAS_L; t <= GAAS_X; t++) p.mstar[t] = PetscCbrtReal(p.ml[t] * p.mt[t] * p.mt[t]);
  }
  p.ml[GAAS_G] = p.mt[GAAS_G] = p.mstar[GAAS_G];
  for (int t = 0; t < 3; t++) {
    p.Cl[t] = HB2_2ME / (p.masses == GAAS_MASSES_ANISOTROPIC ? p.ml[t] : p.mstar[t]);
    p.Ct[t] = HB2_2ME / (p.masses == GAAS_MASSES_ANISOTROPIC ? p.mt[t] : p.mstar[t]);
  }
  for (int t = 0; t < 3; t++) {
    p.C[t] = HB2_2ME / p.mstar[t];
    /* acoustic: hbar_SI [J s] D^2 [eV^2] |q| [1e10/m] / (2 rho [kg/m^3] V [1e-30 m^3] v_s [m/s])
       = eV^2 (J s / (kg m^2 / s)) = eV^2; per |q| in 1/A: factor 1e40 */
    p.cac[t] = HBAR_SI * p.dac[t] * p.dac[t] * 1e40 / (2 * p.rho * V * p.vs);
  }
  for (int c = 0; c < 5; c++) {
    /* intervalley: hbar_SI [J s] (D [eV/m])^2 / (2 rho [kg/m^3] V [m^3] w [1/s]) = eV^2 J s^2/(kg m^2) = eV^2,
       D: eV/cm -> eV/m (x 100), w = hw / hbar (hbar in eV s) */
    PetscReal Dm = p.div[c] * 100, w = p.hwiv[c] / (BTE_HBAR * 1e-15);
    p.civ[c]     = HBAR_SI * Dm * Dm / (2 * p.rho * V * 1e-30 * w);
  }
  /* the largest acoustic |q| within a valley: twice the valley radius at the window's top */
  for (int t = 0; t < 3; t++) {
    PetscReal e = bte->window - p.off[t];
    if (e > 0) qmax = PetscMax(qmax, 2 * PetscSqrtReal(e * (1 + p.alpha[t] * e) / PetscMin(p.C[t], PetscMin(p.Cl[t], p.Ct[t])))); /* the longest semi-axis */
  }
  qmax  = PetscMin(qmax, 2 * PetscSqrtReal(3.0) * p.piA);
  hwmax = PetscMax(p.hwlo, p.hvs * qmax);
  if (p.acfloor == BTE_ACOUSTIC_FLOOR_EQUIPARTITION) hwmax = PetscMax(hwmax, p.floor);
  for (int c = 0; c < 5; c++) hwmax = PetscMax(hwmax, p.hwiv[c]);

  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  spec.name       = "gaas";
  spec.dim        = 3;
  spec.nbands     = 1;
  spec.nmodes     = 6;
  spec.spin       = 2;
  spec.carrier    = -1;
  spec.lattice[0] = 0;
  spec.lattice[1] = p.a / 2;
  spec.lattice[2] = p.a / 2;
  spec.lattice[3] = p.a / 2;
  spec.lattice[4] = 0;
  spec.lattice[5] = p.a / 2;
  spec.lattice[6] = p.a / 2;
  spec.lattice[7] = p.a / 2;
  spec.lattice[8] = 0;
  spec.eedge      = 0.0;
  spec.hwmax      = hwmax;
  spec.ctx        = &p;
  spec.bands      = GaAsBands;
  spec.coupling   = p.ac || p.lo || p.iv ? GaAsCoupling : NULL; /* all off: states only */
  p.nk            = bte->ngrid;
  for (int c = 0; c < 9; c++) p.lat[c] = spec.lattice[c];

  PetscCall(BTEParamsAdd(bte, "lattice_constant", p.a, "Angstrom"));
  /* the isotropic L valleys conduct with their density-of-states mass, twice the ellipsoids'
     conductivity mass, and above ~5 kV/cm the L electrons carry the current (docs/models.md, gaas,
     cause 3): say so in every run under such a field */
  if (p.masses == GAAS_MASSES_ISOTROPIC) {
    PetscCall(PetscStrncpy(bte->fieldcaveat[0], "the gaas model's default isotropic L and X masses (-bte_gaas_masses isotropic) let the L valleys conduct with their density-of-states mass, 0.23 m_e, twice the 0.110 of the real ellipsoids; above ~5 kV/cm, where the L electrons carry the current, the drift velocity comes out up to 2x low (8 kV/cm on 100^3: 0.54 against 0.77 x 10^7 cm/s; measured ~1 x 10^7); use -bte_gaas_masses anisotropic (options/velocity-field.opts; docs/models.md, gaas)", sizeof(bte->fieldcaveat[0])));
    bte->fieldcaveat_min[0] = 5000;
  } else bte->fieldcaveat[0][0] = 0;
  /* the classic Gamma-L coupling: converged, the peak near 3.5 kV/cm is 29 % below the measured
     curve, 6 % with the measured coupling (docs/models.md, "The converged curve") */
  if (p.div[0] == GAAS_DIV_GAMMA_L_CLASSIC) {
    PetscCall(PetscStrncpy(bte->fieldcaveat[1], "the gaas model's classic Gamma-L coupling (1.8e8 eV/cm, its default) puts the converged velocity peak near 3.5 kV/cm at 1.42 x 10^7 cm/s, 29% below the measured ~2 x 10^7; the measured 6.5e8 eV/cm (Shah et al. 1987; -bte_gaas_intervalley_d 6.5e8,1e9,5e8,1e9,7e8, as in options/velocity-field.opts) gives 1.88 x 10^7 (docs/models.md, gaas)", sizeof(bte->fieldcaveat[1])));
    bte->fieldcaveat_min[1] = 3000;
  } else bte->fieldcaveat[1][0] = 0;
  for (int t = 0; t < 3; t++) {
    char name[64];
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_offset", tname[t]));
    PetscCall(BTEParamsAdd(bte, name, p.off[t], "eV"));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_mass", tname[t]));
    PetscCall(BTEParamsAdd(bte, name, p.mstar[t], "m_e"));
    if (p.masses == GAAS_MASSES_ANISOTROPIC && t != GAAS_G) {
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_mass_longitudinal", tname[t]));
      PetscCall(BTEParamsAdd(bte, name, p.ml[t], "m_e"));
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s_mass_transverse", tname[t]));
      PetscCall(BTEParamsAdd(bte, name, p.mt[t], "m_e"));
    }
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_nonparabolicity", tname[t]));
    PetscCall(BTEParamsAdd(bte, name, p.alpha[t], "1/eV"));
    PetscCall(PetscSNPrintf(name, sizeof(name), "%s_D_acoustic", tname[t]));
    PetscCall(BTEParamsAdd(bte, name, p.dac[t], "eV"));
  }
  PetscCall(BTEParamsAdd(bte, "hw_LO", p.hwlo, "eV"));
  PetscCall(BTEParamsAdd(bte, "eps_inf", p.epsinf, ""));
  PetscCall(BTEParamsAdd(bte, "eps_0", p.eps0, ""));
  PetscCall(BTEParamsAdd(bte, "sound_velocity", p.vs, "m/s"));
  PetscCall(BTEParamsAdd(bte, "density", p.rho, "kg/m^3"));
  for (int c = 0; c < 5; c++) {
    char name[64];
    PetscCall(PetscSNPrintf(name, sizeof(name), "D_%s", ivname[c]));
    PetscCall(BTEParamsAdd(bte, name, p.div[c], "eV/cm"));
    PetscCall(PetscSNPrintf(name, sizeof(name), "hw_%s", ivname[c]));
    PetscCall(BTEParamsAdd(bte, name, p.hwiv[c], "eV"));
  }
  PetscCall(BTEParamsAdd(bte, "acoustic_on", p.ac ? 1.0 : 0.0, ""));
  PetscCall(BTEParamsAdd(bte, "LO_on", p.lo ? 1.0 : 0.0, ""));
  PetscCall(BTEParamsAdd(bte, "Frohlich_overlap", p.overlap ? 1.0 : 0.0, ""));
  PetscCall(BTEParamsAdd(bte, "intervalley_on", p.iv ? 1.0 : 0.0, ""));
  if (p.acfloor) PetscCall(BTEParamsAdd(bte, "acoustic_floor_equipartition", 1.0, ""));
  /* a byte per k point; for absurd grids no cache (BTEModelBuild refuses them with the figure) */
  p.label = NULL;
  if ((PetscInt64)p.nk * p.nk * p.nk <= 2000000000) {
    PetscCall(PetscMalloc1((size_t)p.nk * p.nk * p.nk, &p.label));
    for (size_t c = 0; c < (size_t)p.nk * p.nk * p.nk; c++) p.label[c] = 255;
  }
  PetscCall(BTEModelBuild(bte, &spec));
  PetscCall(PetscFree(p.label));
  PetscFunctionReturn(0);
}

/* The parameters at their defaults */
PetscErrorCode BTEModelCreate_GaAs(BTE bte)
{
  GaAs *p;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  p->a = 5.65325;
  /* valleys: offset above Gamma (eV), effective mass (m_e), alpha (1/eV), acoustic D (eV) */
  p->off[GAAS_G]   = 0.0;
  p->mstar[GAAS_G] = 0.063;
  p->alpha[GAAS_G] = 0.61;
  p->dac[GAAS_G]   = 7.01;
  p->off[GAAS_L]   = 0.29;
  p->mstar[GAAS_L] = 0.23;
  p->alpha[GAAS_L] = 0.46;
  p->dac[GAAS_L]   = 9.2;
  p->off[GAAS_X]   = 0.48;
  p->mstar[GAAS_X] = 0.58;
  p->alpha[GAAS_X] = 0.20;
  p->dac[GAAS_X]   = 9.0;
  p->hwlo          = 0.03536;
  p->epsinf        = 10.92;
  p->eps0          = 12.90;
  p->vs            = 5240.0;
  p->rho           = 5360.0;
  /* intervalley: Gamma-L, L-L, L-X, Gamma-X, X-X */
  p->div[0]  = GAAS_DIV_GAMMA_L_CLASSIC;
  p->hwiv[0] = 0.0278;
  p->div[1]  = 1.0e9;
  p->hwiv[1] = 0.0290;
  p->div[2]  = 5.0e8;
  p->hwiv[2] = 0.0293;
  p->div[3]  = 1.0e9;
  p->hwiv[3] = 0.0299;
  p->div[4]  = 7.0e8;
  p->hwiv[4] = 0.0299;
  /* anisotropic L and X (-bte_gaas_masses anisotropic): M. Levinshtein, S. Rumyantsev and
     M. Shur (eds.), Handbook Series on Semiconductor Parameters, vol. 1, World Scientific (1996):
     L m_l = 1.9, m_t = 0.0754 (density of states per valley 0.222, the classic isotropic value);
     X m_l = 1.3, m_t = 0.23 (0.410) */
  p->ml[GAAS_L] = 1.9;
  p->mt[GAAS_L] = 0.0754;
  p->ml[GAAS_X] = 1.3;
  p->mt[GAAS_X] = 0.23;
  p->masses     = GAAS_MASSES_ISOTROPIC;
  p->ac      = PETSC_TRUE;
  p->lo      = PETSC_TRUE;
  p->iv      = PETSC_TRUE;
  bte->modeldata               = p;
  bte->modelops.setfromoptions = BTEModelSetFromOptions_GaAs;
  bte->modelops.generate       = BTEModelGenerate_GaAs;
  PetscFunctionReturn(0);
}
