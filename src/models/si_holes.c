/* Built-in model: holes in silicon (3D), the paper's "holes in Si (3 bands, 6 modes)" and, with
   -bte_si_holes_soc, "Si with spin-orbit (6 bands, 6 modes)" in kind.

   Bands (hole energies, positive into the valence band, zero at the top at Gamma; c = hbar^2/2m0):
     heavy hole  e_hh = c (|A| k^2 - sqrt(B^2 k^4 + C^2 (kx^2 ky^2 + ky^2 kz^2 + kz^2 kx^2)))
     light hole  e_lh = c (|A| k^2 + sqrt(...))
     split-off   e_so = Delta + c |A| k^2
   (the warped bands of Dresselhaus, Kip and Kittel, Phys. Rev. 98, 368 (1955)), k reduced to
   the first Brillouin zone of the fcc lattice. Velocities are grad_k e / hbar of the hole
   dispersion (the hole picture: a hole is a particle with energy e(k) and charge +e).
   With -bte_si_holes_soc each band is split into its two Kramers partners (6 bands, band
   index 2 b + s), listed as separate bands with spin degeneracy 1.

   Phonons (6 modes): LA, TA1, TA2 (acoustic, hw = hbar v_s |q|) and LO, TO1, TO2 (optical,
   hw = hw_op), the deformation-potential model of Jacoboni & Reggiani, Rev. Mod. Phys. 55, 645
   (1983): |g|^2 = hbar D_ac^2 |q| / (2 M v_s) and hbar (D_t K)^2 / (2 M w_op) (M = rho * cell
   volume), each shared equally by the three branches of its kind, times a band-overlap factor
   G(n, m) (see BTEModelSpecSiHoles and docs/models.md):
     -bte_si_holes_overlap const: G = 1 within a band, G = f (-bte_si_holes_interband, default 1)
                                  between bands;
     -bte_si_holes_overlap wiley: Wiley's factors for the heavy/light pair, (1 + 3 cos^2)/4
                                  within a band, 3 sin^2 / 4 between them, scaled by (1 - f_so),
                                  and f_so (-bte_si_holes_so_overlap, default 1/3) between the
                                  split-off band and each of the others, 1 - 2 f_so within it.
   With spin-orbit doubling each G is shared equally by the two Kramers partners of the final
   band, so that the rates summed over partners are those of the 3-band model. */
#include <bte/private/modelimpl.h>

#define SI_NMODES      6
#define SI_C           3.80998212      /* hbar^2 / (2 m0), eV Angstrom^2 */
#define SI_MS_TO_AFS   1.0e-5          /* m/s -> Angstrom/fs */
#define SI_KGM3_TO_EVA 6.241509074e-2  /* kg/m^3 -> eV fs^2 / Angstrom^5 */
#define SI_EVCM_TO_EVA 1.0e-8          /* eV/cm -> eV/Angstrom */

typedef enum {
  SI_OVERLAP_CONST,
  SI_OVERLAP_WILEY
} SiOverlap;
static const char *const SiOverlaps[] = {"const", "wiley", "SiOverlap", "SI_OVERLAP_", NULL};

typedef struct {
  PetscBool soc;
  SiOverlap overlap;
  PetscReal A, B2, C2, delta;   /* |A|, B^2, C^2 (units of hbar^2/2m0), eV */
  PetscReal b[9];               /* reciprocal vectors, rows */
  PetscReal G[26 * 3];          /* neighbouring reciprocal lattice vectors */
  PetscReal rin2;               /* |k|^2 below this: k is in the first zone */
  PetscReal vs, hwop;           /* Angstrom/fs, eV */
  PetscReal cac, cop;           /* per branch: hbar D_ac^2/(2 M v_s)/3 (eV^2 Angstrom), hbar D_op^2/(2 M w)/3 (eV^2) */
  PetscReal finter, fso;        /* overlap parameters */
} SiHolesCtx;

/* minimal image of x among x + G */
static inline void SiReduce(const SiHolesCtx *c, const PetscReal x[3], PetscReal y[3])
{
  PetscReal x2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2];

  y[0] = x[0];
  y[1] = x[1];
  y[2] = x[2];
  if (x2 < c->rin2) return;
  for (int g = 0; g < 26; g++) {
    PetscReal z0 = x[0] + c->G[3 * g], z1 = x[1] + c->G[3 * g + 1], z2 = x[2] + c->G[3 * g + 2];
    PetscReal z2n = z0 * z0 + z1 * z1 + z2 * z2;
    if (z2n < x2 * (1 - 1e-12)) {
      x2   = z2n;
      y[0] = z0;
      y[1] = z1;
      y[2] = z2;
    }
  }
}

/* The three hole bands (hh, lh, so) and their gradients (eV Angstrom) at k in the first zone. */
static inline void SiBands3(const SiHolesCtx *c, const PetscReal k[3], PetscReal e[3], PetscReal de[9])
{
  PetscReal x2 = k[0] * k[0], y2 = k[1] * k[1], z2 = k[2] * k[2], k2 = x2 + y2 + z2;
  PetscReal P = x2 * y2 + y2 * z2 + z2 * x2, S = c->B2 * k2 * k2 + c->C2 * P, R = PetscSqrtReal(S);

  e[0] = SI_C * (c->A * k2 - R);
  e[1] = SI_C * (c->A * k2 + R);
  e[2] = c->delta + SI_C * c->A * k2;
  for (int a = 0; a < 3; a++) {
    /* dS/dk_a = 4 B^2 k^2 k_a + 2 C^2 k_a (k^2 - k_a^2) */
    PetscReal ka = k[a], dS = 4 * c->B2 * k2 * ka + 2 * c->C2 * ka * (k2 - ka * ka);
    PetscReal dR = R > 0 ? dS / (2 * R) : 0;
    de[0 * 3 + a] = SI_C * (2 * c->A * ka - dR);
    de[1 * 3 + a] = SI_C * (2 * c->A * ka + dR);
    de[2 * 3 + a] = SI_C * 2 * c->A * ka;
  }
}

static PetscErrorCode SiHolesBands_Fn(void *ctx, const PetscReal kin[3], PetscReal e[], PetscReal v[])
{
  const SiHolesCtx *c = (const SiHolesCtx *)ctx;
  PetscReal         k[3], e3[3], de[9];

  SiReduce(c, kin, k);
  SiBands3(c, k, e3, de);
  if (!c->soc) {
    for (int n = 0; n < 3; n++) {
      e[n] = e3[n];
      for (int a = 0; a < 3; a++) v[3 * n + a] = de[3 * n + a] / BTE_HBAR;
    }
  } else {
    for (int n = 0; n < 6; n++) {
      e[n] = e3[n / 2];
      for (int a = 0; a < 3; a++) v[3 * n + a] = de[3 * (n / 2) + a] / BTE_HBAR;
    }
  }
  return 0;
}

/* Band-overlap factor of the 3-band model between bands b (at k) and bp (at kp). */
static inline PetscReal SiOverlap3(const SiHolesCtx *c, int b, int bp, const PetscReal k[3], const PetscReal kp[3])
{
  if (c->overlap == SI_OVERLAP_CONST) return b == bp ? 1.0 : c->finter;
  if (b == 2 || bp == 2) return b == bp ? 1 - 2 * c->fso : c->fso;
  {
    PetscReal kk = k[0] * k[0] + k[1] * k[1] + k[2] * k[2], pp = kp[0] * kp[0] + kp[1] * kp[1] + kp[2] * kp[2];
    PetscReal kp_ = k[0] * kp[0] + k[1] * kp[1] + k[2] * kp[2];
    PetscReal cos2 = (kk > 0 && pp > 0) ? kp_ * kp_ / (kk * pp) : 1.0 / 3.0; /* Gamma: angular average */
    return (1 - c->fso) * (b == bp ? 0.25 * (1 + 3 * cos2) : 0.75 * (1 - cos2));
  }
}

static PetscErrorCode SiHolesCoupling_Fn(void *ctx, PetscInt n, const PetscReal kin[3], PetscInt m, const PetscReal kpin[3], const PetscReal qin[3], PetscReal hw[], PetscReal g2[])
{
  const SiHolesCtx *c = (const SiHolesCtx *)ctx;
  PetscReal         k[3], kp[3], d[3], q[3], aq, G;
  int               b = (int)n, bp = (int)m;

  (void)qin; /* q is recomputed from the reduced k's: exactly antisymmetric under exchange */
  SiReduce(c, kin, k);
  SiReduce(c, kpin, kp);
  for (int a = 0; a < 3; a++) d[a] = kp[a] - k[a];
  SiReduce(c, d, q);
  aq = PetscSqrtReal(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
  if (c->soc) {
    b /= 2;
    bp /= 2;
  }
  G = SiOverlap3(c, b, bp, k, kp);
  if (c->soc) G *= 0.5; /* shared by the two Kramers partners of the final band */
  for (int nu = 0; nu < 3; nu++) {
    hw[nu]     = BTE_HBAR * c->vs * aq;
    g2[nu]     = c->cac * aq * G;
    hw[nu + 3] = c->hwop;
    g2[nu + 3] = c->cop * G;
  }
  return 0;
}

/* The model's parameters (BTEModelCreate_SiHoles: defaults; -bte_si_holes_* options) */
typedef struct {
  PetscReal a, A, B, C, delta, rho, vs, dac, hwop, dop, finter, fso;
  PetscBool soc;
  PetscInt  overlap;
} SiHolesParams;

static PetscErrorCode BTEModelSetFromOptions_SiHoles(BTE bte)
{
  SiHolesParams *p = (SiHolesParams *)bte->modeldata;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)bte), ((PetscObject)bte)->prefix, "Holes in silicon (-bte_model si-holes)", "BTE");
  PetscCall(PetscOptionsBool("-bte_si_holes_soc", "Spin-orbit doubling: 6 bands (Kramers partners separate), spin degeneracy 1", "BTEModelSpecSiHoles", p->soc, &p->soc, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_lattice", "Lattice constant (fcc), Angstrom", "BTEModelSpecSiHoles", p->a, &p->a, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_dkk_a", "Valence band parameter |A| (Dresselhaus-Kip-Kittel), hbar^2/2m0", "BTEModelSpecSiHoles", p->A, &p->A, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_dkk_b", "Valence band parameter |B| (Dresselhaus-Kip-Kittel), hbar^2/2m0", "BTEModelSpecSiHoles", p->B, &p->B, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_dkk_c", "Valence band parameter |C| (Dresselhaus-Kip-Kittel), hbar^2/2m0", "BTEModelSpecSiHoles", p->C, &p->C, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_delta", "Spin-orbit splitting of the split-off band, eV", "BTEModelSpecSiHoles", p->delta, &p->delta, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_rho", "Mass density, kg/m^3", "BTEModelSpecSiHoles", p->rho, &p->rho, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_vs", "Sound velocity (all acoustic branches), m/s", "BTEModelSpecSiHoles", p->vs, &p->vs, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_dac", "Acoustic deformation potential, eV (shared by LA, TA1, TA2)", "BTEModelSpecSiHoles", p->dac, &p->dac, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_hwop", "Optical phonon energy, eV", "BTEModelSpecSiHoles", p->hwop, &p->hwop, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_dop", "Optical deformation potential D_t K, eV/cm (shared by LO, TO1, TO2)", "BTEModelSpecSiHoles", p->dop, &p->dop, NULL));
  PetscCall(PetscOptionsEList("-bte_si_holes_overlap", "Band-overlap factors: const (1 within a band, -bte_si_holes_interband between) or wiley (angular, heavy/light)", "BTEModelSpecSiHoles", SiOverlaps, 2, SiOverlaps[p->overlap], &p->overlap, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_interband", "Overlap factor between different bands (overlap const)", "BTEModelSpecSiHoles", p->finter, &p->finter, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_so_overlap", "Overlap factor between the split-off band and each other band (overlap wiley)", "BTEModelSpecSiHoles", p->fso, &p->fso, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* Fills a BTEModelSpec for holes in Si from the parameters of bte (-bte_model si-holes, its
   options read by BTESetFromOptions) and records them. The caller frees spec->ctx with
   PetscFree(). Exported for the unit tests (tests/models2). */
PETSC_EXTERN PetscErrorCode BTEModelSpecSiHoles(BTE bte, BTEModelSpec *spec)
{
  SiHolesCtx          *c;
  const SiHolesParams *p;
  PetscReal            a, A, B, C, delta, rho, vs, dac, hwop, dop, finter, fso;
  PetscBool            soc, iss;
  PetscInt             overlap;
  PetscReal            vol, mcell, kmax, gmin2 = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCall(PetscStrcmp(bte->model, "si-holes", &iss));
  PetscCheck(iss, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_WRONGSTATE, "BTEModelSpecSiHoles() needs a BTE of model si-holes (BTESetModel(bte, \"si-holes\") or -bte_model si-holes), not '%s'", bte->model);
  PetscCall(BTEModelSetUpType(bte));
  p       = (const SiHolesParams *)bte->modeldata;
  a       = p->a;
  A       = p->A;
  B       = p->B;
  C       = p->C;
  delta   = p->delta;
  rho     = p->rho;
  vs      = p->vs;
  dac     = p->dac;
  hwop    = p->hwop;
  dop     = p->dop;
  finter  = p->finter;
  fso     = p->fso;
  soc     = p->soc;
  overlap = p->overlap;
  PetscCall(PetscMemzero(spec, sizeof(*spec)));
  PetscCheck(a > 0 && A > 0 && rho > 0 && vs > 0 && hwop > 0 && delta >= 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: lattice constant, |A|, density, sound velocity, optical phonon energy must be positive and Delta >= 0");
  PetscCheck(A * A > B * B + C * C / 3, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: the heavy-hole band is not convex (need A^2 > B^2 + C^2/3); check -bte_si_holes_dkk_a/b/c");
  PetscCheck(finter >= 0 && fso >= 0 && fso <= 0.5, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: overlap factors must be >= 0 (and -bte_si_holes_so_overlap <= 1/2)");

  PetscCall(PetscNew(&c));
  c->soc     = soc;
  c->overlap = (SiOverlap)overlap;
  c->A       = A;
  c->B2      = B * B;
  c->C2      = C * C;
  c->delta   = delta;
  c->finter  = finter;
  c->fso     = fso;
  /* fcc: a1 = a/2 (0,1,1), a2 = a/2 (1,0,1), a3 = a/2 (1,1,0); b_i: (2pi/a) (-1,1,1), (1,-1,1), (1,1,-1) */
  PetscCall(PetscArrayzero(spec->lattice, 9));
  spec->lattice[1] = spec->lattice[2] = 0.5 * a;
  spec->lattice[3] = spec->lattice[5] = 0.5 * a;
  spec->lattice[6] = spec->lattice[7] = 0.5 * a;
  {
    const PetscReal s[9] = {-1, 1, 1, 1, -1, 1, 1, 1, -1};
    int             ng   = 0;
    for (int i = 0; i < 9; i++) c->b[i] = 2 * PETSC_PI / a * s[i];
    for (int n0 = -1; n0 <= 1; n0++)
      for (int n1 = -1; n1 <= 1; n1++)
        for (int n2 = -1; n2 <= 1; n2++) {
          PetscReal x2 = 0;
          if (!n0 && !n1 && !n2) continue;
          for (int d = 0; d < 3; d++) {
            c->G[3 * ng + d] = n0 * c->b[d] + n1 * c->b[3 + d] + n2 * c->b[6 + d];
            x2 += c->G[3 * ng + d] * c->G[3 * ng + d];
          }
          gmin2 = PetscMin(gmin2, x2);
          ng++;
        }
    c->rin2 = 0.25 * gmin2 * (1 - 1e-12);
  }
  vol      = a * a * a / 4;
  mcell    = rho * SI_KGM3_TO_EVA * vol; /* eV fs^2 / Angstrom^2 */
  c->vs    = vs * SI_MS_TO_AFS;
  c->hwop  = hwop;
  c->cac   = BTE_HBAR * dac * dac / (2 * mcell * c->vs) / 3;
  c->cop   = BTE_HBAR * (dop * SI_EVCM_TO_EVA) * (dop * SI_EVCM_TO_EVA) / (2 * mcell * (hwop / BTE_HBAR)) / 3;
  /* the largest k in the window is along the heaviest direction of the heavy-hole band */
  kmax = PetscSqrtReal(bte->window / (SI_C * (A - PetscSqrtReal(B * B + C * C / 3))));

  spec->name     = "si-holes";
  spec->dim      = 3;
  spec->nbands   = soc ? 6 : 3;
  spec->nmodes   = SI_NMODES;
  spec->spin     = soc ? 1 : 2;
  spec->carrier  = +1;
  spec->eedge    = 0.0;
  spec->hwmax    = PetscMax(hwop, BTE_HBAR * c->vs * 2 * kmax);
  spec->ctx      = c;
  spec->bands    = SiHolesBands_Fn;
  spec->coupling = SiHolesCoupling_Fn;

  PetscCall(BTEParamsAdd(bte, "spin_orbit_doubling", soc ? 1.0 : 0.0, "1 = 6 bands, spin 1"));
  PetscCall(BTEParamsAdd(bte, "lattice_constant", a, "Angstrom"));
  PetscCall(BTEParamsAdd(bte, "A", A, "hbar^2/2m0"));
  PetscCall(BTEParamsAdd(bte, "B", B, "hbar^2/2m0"));
  PetscCall(BTEParamsAdd(bte, "C", C, "hbar^2/2m0"));
  PetscCall(BTEParamsAdd(bte, "split_off_Delta", delta, "eV"));
  PetscCall(BTEParamsAdd(bte, "mass_density", rho, "kg/m^3"));
  PetscCall(BTEParamsAdd(bte, "sound_velocity", vs, "m/s"));
  PetscCall(BTEParamsAdd(bte, "D_acoustic", dac, "eV"));
  PetscCall(BTEParamsAdd(bte, "hw_optical", hwop, "eV"));
  PetscCall(BTEParamsAdd(bte, "DtK_optical", dop, "eV/cm"));
  PetscCall(BTEParamsAdd(bte, "overlap_wiley", overlap == SI_OVERLAP_WILEY ? 1.0 : 0.0, "1 = wiley, 0 = const"));
  if (overlap == SI_OVERLAP_CONST) PetscCall(BTEParamsAdd(bte, "overlap_interband", finter, ""));
  else PetscCall(BTEParamsAdd(bte, "overlap_split_off", fso, ""));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelGenerate_SiHoles(BTE bte)
{
  BTEModelSpec spec;

  PetscFunctionBegin;
  PetscCall(BTEModelSpecSiHoles(bte, &spec));
  PetscCall(BTEModelBuild(bte, &spec));
  PetscCall(PetscFree(spec.ctx));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEModelCreate_SiHoles(BTE bte)
{
  SiHolesParams *p;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  p->a                         = 5.431;
  p->A                         = 4.28;
  p->B                         = 0.68;
  p->C                         = 4.87;
  p->delta                     = 0.044;
  p->rho                       = 2329;
  p->vs                        = 9.0e3;
  p->dac                       = 5.0;
  p->hwop                      = 0.063;
  p->dop                       = 6.0e8;
  p->finter                    = 1.0;
  p->fso                       = 1.0 / 3.0;
  p->soc                       = PETSC_FALSE;
  p->overlap                   = SI_OVERLAP_CONST;
  bte->modeldata               = p;
  bte->modelops.setfromoptions = BTEModelSetFromOptions_SiHoles;
  bte->modelops.generate       = BTEModelGenerate_SiHoles;
  PetscFunctionReturn(0);
}
