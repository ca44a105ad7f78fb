/* Model "parabolic": one isotropic parabolic conduction valley at Gamma, e = hbar^2 k^2/(2 m*),
   on a simple cubic lattice, with two phonon modes:
     mode 0  acoustic, deformation potential D, hw = hbar v_s |q| (isotropic, linear dispersion),
             |g|^2 = hbar D^2 |q| / (2 rho V_cell v_s)
     mode 1  LO, Frohlich, dispersionless hw_LO,
             |g|^2 = (e^2 hw_LO / (2 eps0 V_cell)) (1/eps_inf - 1/eps_0) / |q|^2
   Couplings are the bare |g|^2 normalised to the unit cell, so that
   rate = (2 pi/hbar) (1/Nq) sum_q |g|^2 [N delta(+hw) + (N+1) delta(-hw)] is the textbook Fermi
   golden rule with the crystal volume V = Nq V_cell (phonon numbers multiply at run time).
   Both mechanisms have closed-form rates (docs/models.md); the lattice constant only sets the
   k spacing of the grid (results do not depend on it once the window's sphere is well inside
   the zone), so -bte_parabolic_a lets a test resolve the valley finely on a small grid. */
#include <bte/private/modelimpl.h>

#define HBAR_SI   1.054571817e-34 /* J s */
#define HB2_2ME   3.80998212      /* hbar^2/(2 m_e), eV Angstrom^2 */
#define E2_4PIEPS 14.399645       /* e^2/(4 pi eps0), eV Angstrom */

typedef struct {
  PetscReal a, mstar, hwlo, epsinf, eps0, dac, vs, rho;
  PetscBool lo, ac;
  PetscInt  acfloor; /* BTEAcousticFloor: drop (Perturbo) or equipartition below the phonon floor */
  PetscReal floor;   /* the builder's phonon floor, eV */
  PetscReal C;    /* hbar^2/(2 m*), eV A^2 */
  PetscReal cfr;  /* Frohlich: g2 = cfr / |q|^2, eV^2 A^-2 */
  PetscReal cac;  /* acoustic: g2 = cac |q|, eV^2 A */
  PetscReal hvs;  /* hbar v_s, eV A */
} Parabolic;

static PetscErrorCode ParabolicBands(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[])
{
  const Parabolic *p = (const Parabolic *)ctx;

  e[0] = p->C * (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  for (int c = 0; c < 3; c++) v[c] = 2 * p->C * k[c] / BTE_HBAR; /* (1/hbar) de/dk, A/fs */
  return 0;
}

static PetscErrorCode ParabolicCoupling(void *ctx, PetscInt n, const PetscReal k[3], PetscInt m, const PetscReal kp[3], const PetscReal q[3], PetscReal hw[], PetscReal g2[])
{
  const Parabolic *p  = (const Parabolic *)ctx;
  PetscReal        q2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2], qn = PetscSqrtReal(q2);

  (void)n;
  (void)m;
  (void)k;
  (void)kp;
  hw[0] = p->hvs * qn;
  g2[0] = p->ac ? p->cac * qn : 0.0;
  if (p->acfloor == BTE_ACOUSTIC_FLOOR_EQUIPARTITION) BTEModelAcousticRaise(p->floor, &hw[0], &g2[0]);
  hw[1] = p->hwlo;
  g2[1] = p->lo && q2 > 0 ? p->cfr / q2 : 0.0;
  return 0;
}

static PetscErrorCode BTEModelSetFromOptions_Parabolic(BTE bte)
{
  Parabolic *p = (Parabolic *)bte->modeldata;

  PetscFunctionBegin;
  PetscOptionsBegin(PetscObjectComm((PetscObject)bte), ((PetscObject)bte)->prefix, "Model parabolic: one isotropic parabolic valley, LO (Frohlich) and acoustic (deformation potential) phonons", "BTE");
  PetscCall(PetscOptionsReal("-bte_parabolic_a", "Simple cubic lattice constant, Angstrom (sets the k spacing only)", "BTESetModel", p->a, &p->a, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_mass", "Effective mass, electron masses", "BTESetModel", p->mstar, &p->mstar, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_hw_lo", "LO phonon energy, eV", "BTESetModel", p->hwlo, &p->hwlo, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_eps_inf", "High-frequency relative permittivity", "BTESetModel", p->epsinf, &p->epsinf, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_eps_0", "Static relative permittivity", "BTESetModel", p->eps0, &p->eps0, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_dac", "Acoustic deformation potential, eV", "BTESetModel", p->dac, &p->dac, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_vs", "Sound velocity, m/s", "BTESetModel", p->vs, &p->vs, NULL));
  PetscCall(PetscOptionsReal("-bte_parabolic_density", "Mass density, kg/m^3", "BTESetModel", p->rho, &p->rho, NULL));
  PetscCall(PetscOptionsBool("-bte_parabolic_lo", "Include LO (Frohlich) scattering", "BTESetModel", p->lo, &p->lo, NULL));
  PetscCall(PetscOptionsBool("-bte_parabolic_acoustic", "Include acoustic deformation-potential scattering", "BTESetModel", p->ac, &p->ac, NULL));
  PetscCall(PetscOptionsEList("-bte_parabolic_acoustic_floor", "Acoustic phonons below -bte_phonon_min: drop (Perturbo) or equipartition (kept at the floor, |g|^2 scaled to keep the elastic rate)", "BTESetModel", BTEAcousticFloors, 2, BTEAcousticFloors[p->acfloor], &p->acfloor, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelGenerate_Parabolic(BTE bte)
{
  Parabolic    p = *(const Parabolic *)bte->modeldata; /* the parameters; derived values below */
  BTEModelSpec spec;
  PetscReal    V, kwin, qmax;

  PetscFunctionBegin;
  PetscCheck(p.a > 0 && p.mstar > 0 && p.hwlo > 0 && p.vs > 0 && p.rho > 0 && p.epsinf > 0 && p.eps0 > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Model parabolic: a, mass, hw_lo, eps_inf, eps_0, vs and density must be positive");
  { /* upper bounds far beyond any material's: a typo is refused, not turned into a table */
    MPI_Comm comm = PetscObjectComm((PetscObject)bte);
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_a", p.a, 0, BTE_MODEL_LATTICE_MAX, "Angstrom", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_mass", p.mstar, 0, BTE_MODEL_MASS_MAX, "m_e", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_hw_lo", p.hwlo, 0, BTE_PHONON_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_eps_inf", p.epsinf, 0, BTE_MODEL_EPS_MAX, "", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_eps_0", p.eps0, 0, BTE_MODEL_EPS_MAX, "", NULL));
    /* the Frohlich strength is 1/eps_inf - 1/eps_0: zero or negative (its channels dropped, as if
       -bte_parabolic_lo 0) is no polar crystal */
    PetscCheck(!p.lo || p.eps0 > p.epsinf, comm, PETSC_ERR_USER_INPUT, "-bte_parabolic_eps_0 %g is not above -bte_parabolic_eps_inf %g: the LO (Frohlich) coupling 1/eps_inf - 1/eps_0 would be %s (a polar crystal has eps_0 > eps_inf); -bte_parabolic_lo 0 turns LO scattering off", (double)p.eps0, (double)p.epsinf, p.eps0 == p.epsinf ? "zero" : "negative");
    PetscCall(BTECheckRange(comm, "-bte_parabolic_dac", p.dac, -BTE_MODEL_DAC_MAX, BTE_MODEL_DAC_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_vs", p.vs, 0, BTE_MODEL_SOUND_MAX, "m/s", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_parabolic_density", p.rho, 0, BTE_MODEL_DENSITY_MAX, "kg/m^3", NULL));
  }

  V     = p.a * p.a * p.a;
  p.C   = HB2_2ME / p.mstar;
  p.hvs = BTE_HBAR * p.vs * 1e-5; /* v_s: m/s = 1e10 A / 1e15 fs = 1e-5 A/fs */
  /* Frohlich: e^2/eps0 = 4 pi * 14.399645 eV A, so e^2 hw/(2 eps0 V) = 2 pi * 14.399645 * hw / V
     [eV A * eV / A^3] = eV^2 / A^2, divided by |q|^2 [1/A^2] -> eV^2. */
  p.cfr = 2 * PETSC_PI * E2_4PIEPS * p.hwlo * (1 / p.epsinf - 1 / p.eps0) / V;
  /* Acoustic: hbar D^2 |q| / (2 rho V v_s) in SI is [J s][eV^2][1/m] / ([kg/m^3][m^3][m/s])
     = eV^2 (J s)/(kg m^2/s) = eV^2 (J = kg m^2/s^2). With |q| in 1/A (x 1e10 1/m) and V in A^3
     (x 1e-30 m^3): cac = hbar_SI D^2 1e40 / (2 rho V v_s), eV^2 A. */
  p.cac = HBAR_SI * p.dac * p.dac * 1e40 / (2 * p.rho * V * p.vs);
  p.floor = BTEModelPhononFloor(bte);

  /* The largest acoustic |q| between two states of the window: 2 k_window, or the zone's
     largest minimal image sqrt(3) pi/a. */
  kwin = PetscSqrtReal(bte->window / p.C);
  qmax = PetscMin(2 * kwin, PetscSqrtReal(3.0) * PETSC_PI / p.a);
  if (2 * kwin > PETSC_PI / p.a) PetscCall(PetscInfo(bte, "parabolic: 2 k_window = %g 1/A exceeds pi/a = %g 1/A: some q are umklapp (folded into the zone)\n", (double)(2 * kwin), (double)(PETSC_PI / p.a)));

  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  spec.name    = "parabolic";
  spec.dim     = 3;
  spec.nbands  = 1;
  spec.nmodes  = 2;
  spec.spin    = 2;
  spec.carrier = -1;
  spec.lattice[0] = p.a;
  spec.lattice[4] = p.a;
  spec.lattice[8] = p.a;
  spec.eedge      = 0.0;
  spec.hwmax      = PetscMax(p.lo ? p.hwlo : 0.0, p.ac ? PetscMax(p.hvs * qmax, p.acfloor ? p.floor : 0.0) : 0.0);
  spec.ctx        = &p;
  spec.bands      = ParabolicBands;
  spec.coupling   = p.lo || p.ac ? ParabolicCoupling : NULL; /* both off: states only */

  PetscCall(BTEParamsAdd(bte, "lattice_constant", p.a, "Angstrom"));
  PetscCall(BTEParamsAdd(bte, "effective_mass", p.mstar, "m_e"));
  PetscCall(BTEParamsAdd(bte, "hw_LO", p.hwlo, "eV"));
  PetscCall(BTEParamsAdd(bte, "eps_inf", p.epsinf, ""));
  PetscCall(BTEParamsAdd(bte, "eps_0", p.eps0, ""));
  PetscCall(BTEParamsAdd(bte, "D_acoustic", p.dac, "eV"));
  PetscCall(BTEParamsAdd(bte, "sound_velocity", p.vs, "m/s"));
  PetscCall(BTEParamsAdd(bte, "density", p.rho, "kg/m^3"));
  PetscCall(BTEParamsAdd(bte, "LO_on", p.lo ? 1.0 : 0.0, ""));
  PetscCall(BTEParamsAdd(bte, "acoustic_on", p.ac ? 1.0 : 0.0, ""));
  if (p.acfloor) PetscCall(BTEParamsAdd(bte, "acoustic_floor_equipartition", 1.0, ""));
  PetscCall(BTEModelBuild(bte, &spec));
  PetscFunctionReturn(0);
}

/* The parameters at their GaAs-like defaults: a Gamma valley like the three-valley set's (gaas.c),
   but not its values (m* 0.067 without non-parabolicity, rho 5317, D 7.0 against gaas's 0.063 with
   alpha 0.61, 5360, 7.01; docs/models.md, gaas) */
PetscErrorCode BTEModelCreate_Parabolic(BTE bte)
{
  Parabolic *p;

  PetscFunctionBegin;
  PetscCall(PetscNew(&p));
  p->a                         = 5.65;
  p->mstar                     = 0.067;
  p->hwlo                      = 0.03536;
  p->epsinf                    = 10.92;
  p->eps0                      = 12.9;
  p->dac                       = 7.0;
  p->vs                        = 5240.0;
  p->rho                       = 5317.0;
  p->lo                        = PETSC_TRUE;
  p->ac                        = PETSC_TRUE;
  bte->modeldata               = p;
  bte->modelops.setfromoptions = BTEModelSetFromOptions_Parabolic;
  bte->modelops.generate       = BTEModelGenerate_Parabolic;
  PetscFunctionReturn(0);
}
