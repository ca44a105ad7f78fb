/* Built-in model: electrons in graphene (2D), the paper's "graphene (1 band, 6 modes)" in kind.

   Band: the conduction band of nearest-neighbour tight binding, e(k) = t |f(k)|,
   f(k) = 1 + exp(-i k.a1) + exp(-i k.a2), zero at the zone corners K and K' (the Dirac
   points, band edge 0); or the bare Dirac cone e = hbar v_F |k - K| (-bte_graphene_band dirac).
   t defaults to 2 hbar v_F / (sqrt(3) a), so that both bands have the slope hbar v_F at K.

   Phonons (6 modes; see docs/models.md):
     0 TA   intravalley acoustic, hw = hbar v_TA |q|, |g|^2 = hbar D_TA^2 |q| / (2 M v_TA) * (1+cos)/2
     1 LA   intravalley acoustic, the same with v_LA, D_LA
     2 TO   intravalley Gamma optical, hw_G, |g|^2 = hbar D_G^2 / (2 M w_G) * (1 + cos(th+th'-2 phi_q))/2
     3 LO   intravalley Gamma optical, hw_G, |g|^2 = hbar D_G^2 / (2 M w_G) * (1 - cos(th+th'-2 phi_q))/2
     4 A1'  intervalley K-point TO, hw_K,  |g|^2 = hbar D_K^2  / (2 M w_K)
     5 E'   intervalley K-point LO/LA, hw_K2, |g|^2 = hbar D_K2^2 / (2 M w_K2)
   M = rho_area * A_cell is the mass of the unit cell; th, th' are the angles of k - K and
   k' - K about their valley centre, phi_q the angle of q = k' - k (chirality factors of the
   Dirac states; -bte_graphene_chirality 0 replaces them by their angular averages).
   Intravalley modes couple only states in the same valley, intervalley modes only states
   in different valleys (|g|^2 = 0 otherwise). */
#include <bte/private/modelimpl.h>

#define GR_NMODES 6
/* unit conversions into eV, fs, Angstrom */
#define GR_MS_TO_AFS   1.0e-5           /* m/s -> Angstrom/fs */
#define GR_KGM2_TO_EVA 6.241509074e8    /* kg/m^2 -> eV fs^2 / Angstrom^4 */
#define GR_EVCM_TO_EVA 1.0e-8           /* eV/cm -> eV/Angstrom */

typedef enum {
  GR_BAND_TB,
  GR_BAND_DIRAC
} GrapheneBand;
static const char *const GrapheneBands[] = {"tb", "dirac", "GrapheneBand", "GR_BAND_", NULL};

typedef struct {
  GrapheneBand band;
  PetscBool    chirality;
  PetscReal    a, t, hvf, vf;       /* Angstrom, eV, eV Angstrom, Angstrom/fs */
  PetscReal    a1[2], a2[2];        /* lattice vectors (in-plane) */
  PetscReal    b1[2], b2[2];        /* reciprocal vectors */
  PetscReal    vs[2];               /* TA, LA sound velocities, Angstrom/fs */
  PetscReal    hw[GR_NMODES];       /* optical phonon energies (modes 2..5), eV */
  PetscReal    cac[2];              /* hbar D^2 / (2 M v), eV^2 Angstrom (acoustic, times |q|) */
  PetscReal    cop[GR_NMODES];      /* hbar D^2 / (2 M w), eV^2 (optical modes 2..5; 2,3 share D_G) */
} GrapheneCtx;

/* |k - K| (1/Angstrom), and |f(k)| of the tight-binding band, below which k is the Dirac point itself
   (rounding of a grid point on K); the nearest other grid point is ~1e-4 away even at N = 10^4 */
#define GR_DIRAC_TOL 1e-9

/* Valley of k: 0 for K, 1 for K'; kappa = k - (nearest K or K' image), Cartesian. */
static inline int GrapheneValley(const GrapheneCtx *c, const PetscReal k[3], PetscReal kappa[2])
{
  /* reduced coordinates u_i = k.a_i / 2pi, folded into [0,1); K = (2/3,1/3), K' = (1/3,2/3) */
  const PetscReal Kr[2][2] = {
    {2.0 / 3.0, 1.0 / 3.0},
    {1.0 / 3.0, 2.0 / 3.0}
  };
  PetscReal u1 = (k[0] * c->a1[0] + k[1] * c->a1[1]) / (2 * PETSC_PI), u2 = (k[0] * c->a2[0] + k[1] * c->a2[1]) / (2 * PETSC_PI);
  PetscReal best = PETSC_MAX_REAL;
  int       valley = 0;

  kappa[0] = kappa[1] = 0;
  u1 -= PetscFloorReal(u1);
  u2 -= PetscFloorReal(u2);
  for (int v = 0; v < 2; v++)
    for (int n1 = -1; n1 <= 1; n1++)
      for (int n2 = -1; n2 <= 1; n2++) {
        PetscReal d1 = u1 - Kr[v][0] - n1, d2 = u2 - Kr[v][1] - n2;
        PetscReal x = d1 * c->b1[0] + d2 * c->b2[0], y = d1 * c->b1[1] + d2 * c->b2[1];
        PetscReal r2 = x * x + y * y;
        if (r2 < best) {
          best     = r2;
          valley   = v;
          kappa[0] = x;
          kappa[1] = y;
        }
      }
  return valley;
}

static PetscErrorCode GrapheneBands_Fn(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[])
{
  const GrapheneCtx *c = (const GrapheneCtx *)ctx;

  if (c->band == GR_BAND_DIRAC) {
    PetscReal kappa[2], r;
    (void)GrapheneValley(c, k, kappa);
    r    = PetscSqrtReal(kappa[0] * kappa[0] + kappa[1] * kappa[1]);
    e[0] = c->hvf * r;
    /* At the Dirac point itself the cone has no gradient and its velocity is 0 (the mean over
       directions, as k -> -k symmetry needs). A grid with N a multiple of 3 has that point, where
       rounding leaves r ~ 1e-16 rather than 0: kappa / r would then be a unit vector in an arbitrary
       direction, a velocity v_F that breaks the symmetry (a current without a field, a singular
       linear response). The smallest r of a grid point off K is ~|b|/N ~ 1e-4 1/Angstrom. */
    v[0] = r > GR_DIRAC_TOL ? c->vf * kappa[0] / r : 0;
    v[1] = r > GR_DIRAC_TOL ? c->vf * kappa[1] / r : 0;
    v[2] = 0;
  } else {
    /* f = 1 + exp(-i p1) + exp(-i p2), p_i = k.a_i; grad f = -i a1 exp(-i p1) - i a2 exp(-i p2) */
    PetscReal p1 = k[0] * c->a1[0] + k[1] * c->a1[1], p2 = k[0] * c->a2[0] + k[1] * c->a2[1];
    PetscReal c1 = PetscCosReal(p1), s1 = PetscSinReal(p1), c2 = PetscCosReal(p2), s2 = PetscSinReal(p2);
    PetscReal fr = 1 + c1 + c2, fi = -s1 - s2, af = PetscSqrtReal(fr * fr + fi * fi);

    e[0] = c->t * af;
    v[2] = 0;
    if (af > GR_DIRAC_TOL) { /* |f| ~ (sqrt(3)/2) a |kappa| near K: at K itself 0 (above) */
      for (int d = 0; d < 2; d++) {
        /* d f / d k_d = -i a1_d (c1 - i s1) - i a2_d (c2 - i s2) = (-a1_d s1 - a2_d s2) + i (-a1_d c1 - a2_d c2) */
        PetscReal gr = -c->a1[d] * s1 - c->a2[d] * s2, gi = -c->a1[d] * c1 - c->a2[d] * c2;
        v[d] = c->t * (fr * gr + fi * gi) / af / BTE_HBAR;
      }
    } else v[0] = v[1] = 0;
  }
  return 0;
}

/* e^{i theta} of a 2-vector as (cos, sin); returns 0 for the zero vector */
static inline int GrapheneUnit(const PetscReal x[2], PetscReal z[2])
{
  PetscReal r = PetscSqrtReal(x[0] * x[0] + x[1] * x[1]);
  z[0] = z[1] = 0;
  if (!(r > 1e-12)) return 0;
  z[0] = x[0] / r;
  z[1] = x[1] / r;
  return 1;
}

static PetscErrorCode GrapheneCoupling_Fn(void *ctx, PetscInt n, const PetscReal k[3], PetscInt m, const PetscReal kp[3], const PetscReal qin[3], PetscReal hw[], PetscReal g2[])
{
  const GrapheneCtx *c = (const GrapheneCtx *)ctx;
  PetscReal          kap[2], kapp[2];
  int                vk, vp;

  (void)n;
  (void)m;
  (void)qin; /* q is recomputed from the valley-centred k's, which is exchange-symmetric by construction */
  vk = GrapheneValley(c, k, kap);
  vp = GrapheneValley(c, kp, kapp);
  for (int nu = 0; nu < GR_NMODES; nu++) {
    hw[nu] = c->hw[nu];
    g2[nu] = 0;
  }
  if (vk == vp) {
    PetscReal q[2] = {kapp[0] - kap[0], kapp[1] - kap[1]}, aq = PetscSqrtReal(q[0] * q[0] + q[1] * q[1]);
    PetscReal z[2], zp[2], w[2], fac = 1.0, X = 0.0;
    int       hz = GrapheneUnit(kap, z), hzp = GrapheneUnit(kapp, zp), hq = GrapheneUnit(q, w);

    if (c->chirality) {
      /* acoustic: |<k'|k>|^2 = (1 + cos(th - th'))/2; optical: X = cos(th + th' - 2 phi_q) = Re(z z' conj(w)^2) */
      fac = (hz && hzp) ? 0.5 * (1 + z[0] * zp[0] + z[1] * zp[1]) : 0.5;
      if (hz && hzp && hq) {
        PetscReal pr = z[0] * zp[0] - z[1] * zp[1], pi = z[0] * zp[1] + z[1] * zp[0]; /* z z' */
        PetscReal wr = w[0] * w[0] - w[1] * w[1], wi = 2 * w[0] * w[1];               /* w^2 */
        X = PetscMax(-1.0, PetscMin(1.0, pr * wr + pi * wi));                       /* Re(z z' conj(w^2)) */
      }
    } else fac = 0.5; /* angular average of (1+cos)/2; optical: X = 0 gives 1/2 each */
    for (int nu = 0; nu < 2; nu++) {
      hw[nu] = BTE_HBAR * c->vs[nu] * aq;
      g2[nu] = c->cac[nu] * aq * (c->chirality ? fac : 1.0);
    }
    g2[2] = c->cop[2] * 0.5 * (1 + X); /* TO */
    g2[3] = c->cop[3] * 0.5 * (1 - X); /* LO */
  } else {
    g2[4] = c->cop[4];
    g2[5] = c->cop[5];
  }
  return 0;
}

/* The model's parameters (BTEModelCreate_Graphene: defaults; -bte_graphene_* options) */
typedef struct {
  PetscInt  band;
  PetscBool chir, tset;
  PetscReal a, vf, t, rho, vta, vla, dta, dla, hwg, dg, hwk, dk, hwk2, dk2;
} GrapheneParams;

static PetscErrorCode BTEModelSetFromOptions_Graphene(BTE bte)
{
  GrapheneParams *g = (GrapheneParams *)bte->modeldata;
  PetscReal       t;
  PetscBool       tset, vfset, dtaset, dlaset;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)bte), ((PetscObject)bte)->prefix, "Graphene model (-bte_model graphene)", "BTE");
  PetscCall(PetscOptionsEList("-bte_graphene_band", "Conduction band: tb (nearest-neighbour tight binding, trigonal warping) or dirac (cone)", "BTEModelSpecGraphene", GrapheneBands, 2, GrapheneBands[g->band], &g->band, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_a", "Lattice constant, Angstrom", "BTEModelSpecGraphene", g->a, &g->a, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_vf", "Fermi velocity, m/s", "BTEModelSpecGraphene", g->vf, &g->vf, &vfset));
  t = g->tset ? g->t : 2 * BTE_HBAR * g->vf * GR_MS_TO_AFS / (PetscSqrtReal(3.0) * g->a);
  PetscCall(PetscOptionsReal("-bte_graphene_t", "Hopping of the tb band, eV (default 2 hbar v_F/(sqrt(3) a); setting it sets v_F)", "BTEModelSpecGraphene", t, &t, &tset));
  /* the hopping sets v_F: with both, -bte_graphene_vf was ignored without a word */
  PetscCheck(!tset || !vfset, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "Give either -bte_graphene_vf or -bte_graphene_t (the hopping sets v_F = sqrt(3) a t / (2 hbar)), not both");
  if (tset) {
    g->t    = t;
    g->tset = PETSC_TRUE;
  }
  PetscCall(PetscOptionsBool("-bte_graphene_chirality", "Include the Dirac-state overlap (chirality) factors", "BTEModelSpecGraphene", g->chir, &g->chir, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_rho", "Mass density, kg/m^2", "BTEModelSpecGraphene", g->rho, &g->rho, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_v_ta", "TA sound velocity, m/s", "BTEModelSpecGraphene", g->vta, &g->vta, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_v_la", "LA sound velocity, m/s", "BTEModelSpecGraphene", g->vla, &g->vla, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_d_ta", "TA intravalley acoustic deformation potential, eV", "BTEModelSpecGraphene", g->dta, &g->dta, &dtaset));
  PetscCall(PetscOptionsReal("-bte_graphene_d_la", "LA intravalley acoustic deformation potential, eV", "BTEModelSpecGraphene", g->dla, &g->dla, &dlaset));
  {
    /* Transport experiments fit one LA-like mode of sound velocity v_LA with one D (Chen et al. 2008:
       18 eV). Acoustic rates go as D^2/v^2, so TA and LA with the same D give that one mode's
       scattering when D^2 (1 + v_LA^2/v_TA^2) = D_eff^2. */
    /* shown as the D_eff of the couplings in use (8.11 eV for the defaults), so that giving the
       value -help shows changes nothing; 0 had been shown, which switches the acoustic modes off */
    PetscReal deff = g->dta == g->dla && g->vta > 0 ? g->dta * PetscSqrtReal(1 + (g->vla * g->vla) / (g->vta * g->vta)) : 0;
    PetscBool set;
    PetscCall(PetscOptionsReal("-bte_graphene_d_ac_eff", "Acoustic deformation potential of one LA-like mode as fitted to transport (e.g. 18 eV); sets D_TA = D_LA = D_eff/sqrt(1 + v_LA^2/v_TA^2), eV (default: that of -bte_graphene_d_ta and _d_la where they are equal)", "BTEModelSpecGraphene", deff, &deff, &set));
    if (set) {
      PetscCheck(!dtaset && !dlaset, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "Give either -bte_graphene_d_ac_eff or -bte_graphene_d_ta/-bte_graphene_d_la, not both");
      PetscCheck(deff >= 0 && !PetscIsInfOrNanReal(deff), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "-bte_graphene_d_ac_eff must be >= 0 (eV), got %g", (double)deff);
      PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "-bte_graphene_d_ac_eff", deff, 0, BTE_MODEL_DAC_MAX, "eV", NULL));
      PetscCheck(g->vta > 0 && g->vla > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "graphene: sound velocities must be positive");
      g->dta = g->dla = deff / PetscSqrtReal(1 + (g->vla * g->vla) / (g->vta * g->vta));
    }
  }
  PetscCall(PetscOptionsReal("-bte_graphene_hw_gamma", "Gamma-point optical phonon energy (LO, TO), eV", "BTEModelSpecGraphene", g->hwg, &g->hwg, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_d_gamma", "Gamma optical deformation potential (LO+TO), eV/cm", "BTEModelSpecGraphene", g->dg, &g->dg, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_hw_k", "K-point A1' (TO) phonon energy, eV", "BTEModelSpecGraphene", g->hwk, &g->hwk, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_d_k", "K-point A1' intervalley deformation potential, eV/cm", "BTEModelSpecGraphene", g->dk, &g->dk, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_hw_k2", "K-point E' (LO/LA) phonon energy, eV", "BTEModelSpecGraphene", g->hwk2, &g->hwk2, NULL));
  PetscCall(PetscOptionsReal("-bte_graphene_d_k2", "K-point E' intervalley deformation potential, eV/cm", "BTEModelSpecGraphene", g->dk2, &g->dk2, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* Fills a BTEModelSpec for graphene from the parameters of bte (-bte_model graphene, its options
   read by BTESetFromOptions) and records them. The caller frees spec->ctx with PetscFree().
   Exported for the unit tests (tests/models2). */
PETSC_EXTERN PetscErrorCode BTEModelSpecGraphene(BTE bte, BTEModelSpec *spec)
{
  GrapheneCtx    *c;
  GrapheneParams *g;
  PetscReal       a, vf, t, rho, vta, vla, dta, dla, hwg, dg, hwk, dk, hwk2, dk2;
  PetscInt        band;
  PetscBool       chir, tset;
  PetscReal       mcell, acell;
  PetscBool       isg;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(bte->model, "graphene", &isg));
  PetscCheck(isg, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "BTEModelSpecGraphene() needs a BTE of model graphene (BTESetModel(bte, \"graphene\") or -bte_model graphene), not '%s'", bte->model);
  PetscCall(BTEModelSetUpType(bte));
  g    = (GrapheneParams *)bte->modeldata;
  band = g->band;
  chir = g->chir;
  tset = g->tset;
  a    = g->a;
  vf   = g->vf;
  t    = tset ? g->t : 2 * BTE_HBAR * vf * GR_MS_TO_AFS / (PetscSqrtReal(3.0) * a);
  rho  = g->rho;
  vta  = g->vta;
  vla  = g->vla;
  dta  = g->dta;
  dla  = g->dla;
  hwg  = g->hwg;
  dg   = g->dg;
  hwk  = g->hwk;
  dk   = g->dk;
  hwk2 = g->hwk2;
  dk2  = g->dk2;
  PetscCall(PetscMemzero(spec, sizeof(*spec)));
  PetscCheck(a > 0 && rho > 0 && vta > 0 && vla > 0 && t > 0 && vf > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "graphene: lattice constant, density, velocities and hopping must be positive");
  PetscCheck(hwg > 0 && hwk > 0 && hwk2 > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "graphene: phonon energies must be positive (eV)");
  { /* upper bounds far beyond any material's: a typo is refused, not turned into a table */
    MPI_Comm comm = PetscObjectComm((PetscObject)bte);
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_a", a, 0, BTE_MODEL_LATTICE_MAX, "Angstrom", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_vf", vf, 0, BTE_MODEL_VELOCITY_MAX, "m/s", NULL));
    if (tset) PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_t", t, 0, BTE_MODEL_HOPPING_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_rho", rho, 0, BTE_MODEL_DENSITY2D_MAX, "kg/m^2", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_v_ta", vta, 0, BTE_MODEL_SOUND_MAX, "m/s", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_v_la", vla, 0, BTE_MODEL_SOUND_MAX, "m/s", NULL));
    PetscCall(BTECheckRange(comm, "-bte_graphene_d_ta", dta, -BTE_MODEL_DAC_MAX, BTE_MODEL_DAC_MAX, "eV", NULL));
    PetscCall(BTECheckRange(comm, "-bte_graphene_d_la", dla, -BTE_MODEL_DAC_MAX, BTE_MODEL_DAC_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_hw_gamma", hwg, 0, BTE_PHONON_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_hw_k", hwk, 0, BTE_PHONON_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_graphene_hw_k2", hwk2, 0, BTE_PHONON_MAX, "eV", NULL));
    PetscCall(BTECheckRange(comm, "-bte_graphene_d_gamma", dg, -BTE_MODEL_DOPT_MAX, BTE_MODEL_DOPT_MAX, "eV/cm", NULL));
    PetscCall(BTECheckRange(comm, "-bte_graphene_d_k", dk, -BTE_MODEL_DOPT_MAX, BTE_MODEL_DOPT_MAX, "eV/cm", NULL));
    PetscCall(BTECheckRange(comm, "-bte_graphene_d_k2", dk2, -BTE_MODEL_DOPT_MAX, BTE_MODEL_DOPT_MAX, "eV/cm", NULL));
  }
  if (tset) vf = PetscSqrtReal(3.0) * a * t / (2 * BTE_HBAR) / GR_MS_TO_AFS;

  PetscCall(PetscNew(&c));
  c->band      = (GrapheneBand)band;
  c->chirality = chir;
  c->a         = a;
  c->t         = t;
  c->vf        = vf * GR_MS_TO_AFS;
  c->hvf       = BTE_HBAR * c->vf;
  c->a1[0]     = a;
  c->a1[1]     = 0;
  c->a2[0]     = 0.5 * a;
  c->a2[1]     = 0.5 * PetscSqrtReal(3.0) * a;
  /* b1 = (2pi/a)(1, -1/sqrt3), b2 = (2pi/a)(0, 2/sqrt3) */
  c->b1[0] = 2 * PETSC_PI / a;
  c->b1[1] = -2 * PETSC_PI / (a * PetscSqrtReal(3.0));
  c->b2[0] = 0;
  c->b2[1] = 4 * PETSC_PI / (a * PetscSqrtReal(3.0));
  acell    = 0.5 * PetscSqrtReal(3.0) * a * a;
  mcell    = rho * GR_KGM2_TO_EVA * acell; /* eV fs^2 / Angstrom^2 */
  c->vs[0] = vta * GR_MS_TO_AFS;
  c->vs[1] = vla * GR_MS_TO_AFS;
  c->cac[0] = BTE_HBAR * dta * dta / (2 * mcell * c->vs[0]);
  c->cac[1] = BTE_HBAR * dla * dla / (2 * mcell * c->vs[1]);
  c->hw[0] = c->hw[1] = 0;
  c->hw[2] = c->hw[3] = hwg;
  c->hw[4]            = hwk;
  c->hw[5]            = hwk2;
  {
    const PetscReal D[GR_NMODES] = {0, 0, dg, dg, dk, dk2};
    for (int nu = 2; nu < GR_NMODES; nu++) {
      PetscReal Da = D[nu] * GR_EVCM_TO_EVA, w = c->hw[nu] / BTE_HBAR;
      c->cop[nu] = BTE_HBAR * Da * Da / (2 * mcell * w);
    }
  }

  spec->name    = "graphene";
  spec->dim     = 2;
  spec->nbands  = 1;
  spec->nmodes  = GR_NMODES;
  spec->spin    = 2;
  spec->carrier = -1;
  PetscCall(PetscArrayzero(spec->lattice, 9));
  spec->lattice[0] = c->a1[0];
  spec->lattice[1] = c->a1[1];
  spec->lattice[3] = c->a2[0];
  spec->lattice[4] = c->a2[1];
  spec->lattice[8] = 1.0;
  spec->eedge      = 0.0;
  /* acoustic phonons inside a window W have |q| <= 2 W / (hbar v_F) (twice, for warping) */
  spec->hwmax    = PetscMax(PetscMax(hwg, hwk), PetscMax(hwk2, BTE_HBAR * c->vs[1] * 4 * bte->window / c->hvf));
  spec->ctx      = c;
  spec->bands    = GrapheneBands_Fn;
  spec->coupling = GrapheneCoupling_Fn;

  PetscCall(BTEParamsAdd(bte, "band_tight_binding", band == GR_BAND_TB ? 1.0 : 0.0, "1 = tb, 0 = dirac"));
  PetscCall(BTEParamsAdd(bte, "lattice_constant", a, "Angstrom"));
  PetscCall(BTEParamsAdd(bte, "fermi_velocity", vf, "m/s"));
  PetscCall(BTEParamsAdd(bte, "hopping_t", t, "eV"));
  PetscCall(BTEParamsAdd(bte, "chirality_factors", chir ? 1.0 : 0.0, "1 = on"));
  PetscCall(BTEParamsAdd(bte, "mass_density", rho, "kg/m^2"));
  PetscCall(BTEParamsAdd(bte, "sound_velocity_TA", vta, "m/s"));
  PetscCall(BTEParamsAdd(bte, "sound_velocity_LA", vla, "m/s"));
  PetscCall(BTEParamsAdd(bte, "D_TA", dta, "eV"));
  PetscCall(BTEParamsAdd(bte, "D_LA", dla, "eV"));
  PetscCall(BTEParamsAdd(bte, "hw_Gamma", hwg, "eV"));
  PetscCall(BTEParamsAdd(bte, "D_Gamma", dg, "eV/cm"));
  PetscCall(BTEParamsAdd(bte, "hw_K_A1", hwk, "eV"));
  PetscCall(BTEParamsAdd(bte, "D_K_A1", dk, "eV/cm"));
  PetscCall(BTEParamsAdd(bte, "hw_K_E", hwk2, "eV"));
  PetscCall(BTEParamsAdd(bte, "D_K_E", dk2, "eV/cm"));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelGenerate_Graphene(BTE bte)
{
  BTEModelSpec spec;

  PetscFunctionBegin;
  PetscCall(BTEModelSpecGraphene(bte, &spec));
  PetscCall(BTEModelBuild(bte, &spec));
  PetscCall(PetscFree(spec.ctx));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEModelCreate_Graphene(BTE bte)
{
  GrapheneParams *g;

  PetscFunctionBegin;
  PetscCall(PetscNew(&g));
  g->band                      = GR_BAND_TB;
  g->chir                      = PETSC_TRUE;
  g->a                         = 2.46;
  g->vf                        = 1.0e6;
  g->rho                       = 7.6e-7;
  g->vta                       = 1.4e4;
  g->vla                       = 2.1e4;
  g->dta                       = 4.5;
  g->dla                       = 4.5;
  g->hwg                       = 0.196;
  g->dg                        = 1.0e9;
  g->hwk                       = 0.162;
  g->dk                        = 1.4e9;
  g->hwk2                      = 0.150;
  g->dk2                       = 3.5e8;
  bte->modeldata               = g;
  bte->modelops.setfromoptions = BTEModelSetFromOptions_Graphene;
  bte->modelops.generate       = BTEModelGenerate_Graphene;
  PetscFunctionReturn(0);
}
