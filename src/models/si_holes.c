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
   -bte_si_holes_bands kp6: the bands are instead the three Kramers pairs of the 6x6 k.p
   (Luttinger-Kohn) Hamiltonian with spin-orbit coupling built from the same A, B, C, Delta
   (SiKp6): non-parabolic and heavier at kT ~ Delta, as the real bands of Si; its eigenvectors
   give the overlaps of -bte_si_holes_overlap kp.

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
                                  split-off band and each of the others, 1 - 2 f_so within it;
     -bte_si_holes_overlap kp:    tr(P_n(k) P_m(k'))/2 with the kp6 projectors (kp6 only).
   With spin-orbit doubling each G is shared equally by the two Kramers partners of the final
   band, so that the rates summed over partners are those of the 3-band model.
   -bte_si_holes_acoustic bir-pikus (kp6 only): the acoustic modes are instead LA, TA1, TA2 of the
   cubic elastic continuum (c11, c12, c44), each with its own velocity and polarisation, coupled
   through the Bir-Pikus strain Hamiltonian (a, b, d) between the kp6 eigenvectors (SiBirPikus);
   the optical modes keep the coupling above.
   -bte_si_holes_optical bir-pikus (kp6 only): the optical modes are instead LO (polarised along q),
   TO1, TO2 coupled through the optical deformation potential d0 of Bir and Pikus between the same
   kp6 eigenvectors (SiBirPikusOptical), with its selection rules in place of D_t K and G. */
#include <bte/private/modelimpl.h>

#define SI_NMODES      6
#define SI_C           3.80998212      /* hbar^2 / (2 m0), eV Angstrom^2 */
#define SI_MS_TO_AFS   1.0e-5          /* m/s -> Angstrom/fs */
#define SI_KGM3_TO_EVA 6.241509074e-2  /* kg/m^3 -> eV fs^2 / Angstrom^5 */
#define SI_EVCM_TO_EVA 1.0e-8          /* eV/cm -> eV/Angstrom */
#define SI_GPA_TO_V2   1.0e-1          /* (GPa / (kg/m^3)) = 1e9 m^2/s^2 -> (Angstrom/fs)^2 */

typedef enum {
  SI_OVERLAP_CONST,
  SI_OVERLAP_WILEY,
  SI_OVERLAP_KP
} SiOverlap;
static const char *const SiOverlaps[] = {"const", "wiley", "kp", "SiOverlap", "SI_OVERLAP_", NULL};

typedef enum {
  SI_BANDS_DKK,
  SI_BANDS_KP6
} SiBands;
static const char *const SiBandsTypes[] = {"dkk", "kp6", "SiBands", "SI_BANDS_", NULL};

typedef enum {
  SI_ACOUSTIC_ISOTROPIC,
  SI_ACOUSTIC_BIR_PIKUS
} SiAcoustic;
static const char *const SiAcoustics[] = {"isotropic", "bir-pikus", "SiAcoustic", "SI_ACOUSTIC_", NULL};

typedef enum {
  SI_OPTICAL_ISOTROPIC,
  SI_OPTICAL_BIR_PIKUS
} SiOptical;
static const char *const SiOpticals[] = {"isotropic", "bir-pikus", "SiOptical", "SI_OPTICAL_", NULL};

/* the k grid from which the kp6 model's 300 K mobility is within 2 % of converged (docs/models.md) */
#define SI_GRID_CONVERGED 80

/* 6x6 complex Hermitian matrices of the kp6 bands, row-major, real and imaginary parts */
typedef struct {
  PetscReal re[36], im[36];
} SiMat6;

typedef struct {
  PetscBool soc;
  SiOverlap overlap;
  SiBands   bandmodel;
  PetscReal Lh, Mh, Nh;         /* kp6: the 3x3 k.p matrix of the hole energies, c (Lh kx^2 + Mh (ky^2 + kz^2)), c Nh kx ky, ... */
  PetscInt  nk;                 /* grid points per direction (projector cache) */
  PetscReal lat[9];             /* lattice vectors, rows (grid index of a k) */
  PetscInt *slot;               /* kp overlaps: cache slot of each grid point (-1: none), or NULL */
  SiMat6   *proj;               /* kp overlaps: projectors of the three bands at each cached k point */
  PetscReal acfloor;            /* > 0: acoustic phonons below it kept under equipartition at it (eV) */
  PetscReal A, B2, C2, delta;   /* |A|, B^2, C^2 (units of hbar^2/2m0), eV */
  PetscReal b[9];               /* reciprocal vectors, rows */
  PetscReal G[26 * 3];          /* neighbouring reciprocal lattice vectors */
  PetscReal rin2;               /* |k|^2 below this: k is in the first zone */
  PetscReal vs, hwop;           /* Angstrom/fs, eV */
  PetscReal cac, cop;           /* per branch: hbar D_ac^2/(2 M v_s)/3 (eV^2 Angstrom), hbar D_op^2/(2 M w)/3 (eV^2) */
  PetscReal finter, fso;        /* overlap parameters */
  SiAcoustic acoustic;          /* isotropic (cac, vs) or bir-pikus (the fields below) */
  PetscReal  bpl, bpm, bpn;     /* bir-pikus: the strain matrix D_aa = l e_aa + m (tr e - e_aa), D_ab = n e_ab, eV */
  PetscReal  v11, v12, v44;     /* bir-pikus: c11/rho, c12/rho, c44/rho, (Angstrom/fs)^2 */
  PetscReal  mcell;             /* bir-pikus: M = rho * cell volume, eV fs^2 / Angstrom^2 */
  SiOptical  optical;           /* isotropic (cop and G) or bir-pikus (bpn0) */
  PetscReal  bpn0;              /* optical bir-pikus: <X|H|Y> per unit u_z, sqrt(3) d0 / a0, eV/Angstrom */
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

/* kp6: the 6x6 k.p Hamiltonian of the hole energies in the basis (X, Y, Z) x (up, down),
     H = K(k) x 1 - (Delta/3) (L . sigma) + Delta/3,
   K_aa = c (Lh k_a^2 + Mh (k^2 - k_a^2)), K_ab = c Nh k_a k_b (Luttinger-Kohn; with the DKK
   constants Lh = |A| + 2|B|, Mh = |A| - |B|, Nh^2 = 3 C^2 + 9 B^2), (L_a)_bc = -i eps_abc.
   At k = 0: 0 (J = 3/2, four states) and Delta (split-off, two). For Delta >> c|A|k^2 the two
   upper bands are the DKK bands of SiBands3. Hd: the derivative along k_d when d >= 0. */
static void SiKp6(const SiHolesCtx *c, const PetscReal k[3], PetscInt d, SiMat6 *H)
{
  PetscReal K[9], k2 = k[0] * k[0] + k[1] * k[1] + k[2] * k[2];

  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      if (d < 0) K[3 * a + b] = a == b ? SI_C * (c->Lh * k[a] * k[a] + c->Mh * (k2 - k[a] * k[a])) : SI_C * c->Nh * k[a] * k[b];
      else if (a == b) K[3 * a + b] = SI_C * 2 * k[d] * (a == d ? c->Lh : c->Mh);
      else K[3 * a + b] = SI_C * c->Nh * ((a == d ? k[b] : 0) + (b == d ? k[a] : 0));
    }
  for (int i = 0; i < 36; i++) H->re[i] = H->im[i] = 0;
  for (int s = 0; s < 2; s++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) H->re[(3 * s + a) * 6 + 3 * s + b] = K[3 * a + b];
  if (d >= 0) return;
  {
    /* -(Delta/3) L.sigma, (L.sigma)_{(b s),(c t)} = sum_a (-i eps_abc) (sigma_a)_st; sigma_x = [[0,1],[1,0]],
       sigma_y = [[0,-i],[i,0]], sigma_z = diag(1,-1) */
    const PetscReal f = -c->delta / 3;
    for (int b = 0; b < 3; b++)
      for (int cc = 0; cc < 3; cc++)
        for (int a = 0; a < 3; a++) {
          PetscReal eps = (a == b || b == cc || a == cc) ? 0 : (((a + 1) % 3 == b) ? 1 : -1);
          if (eps == 0) continue;
          for (int s = 0; s < 2; s++)
            for (int t = 0; t < 2; t++) {
              /* sigma_a[s][t] as re + i im */
              PetscReal sr = 0, si = 0, mr, mi;
              if (a == 0) sr = s != t ? 1 : 0;
              else if (a == 1) si = s == t ? 0 : (s == 0 ? -1 : 1);
              else sr = s == t ? (s == 0 ? 1 : -1) : 0;
              /* (-i eps) (sr + i si) = eps si - i eps sr */
              mr = eps * si;
              mi = -eps * sr;
              H->re[(3 * s + b) * 6 + 3 * t + cc] += f * mr;
              H->im[(3 * s + b) * 6 + 3 * t + cc] += f * mi;
            }
        }
    for (int i = 0; i < 6; i++) H->re[7 * i] += c->delta / 3;
  }
}

static void SiMatMul(const SiMat6 *A, const SiMat6 *B, SiMat6 *C)
{
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      PetscReal r = 0, m = 0;
      for (int l = 0; l < 6; l++) {
        r += A->re[6 * i + l] * B->re[6 * l + j] - A->im[6 * i + l] * B->im[6 * l + j];
        m += A->re[6 * i + l] * B->im[6 * l + j] + A->im[6 * i + l] * B->re[6 * l + j];
      }
      C->re[6 * i + j] = r;
      C->im[6 * i + j] = m;
    }
}

/* Re tr(A B) */
static inline PetscReal SiTrace2(const SiMat6 *A, const SiMat6 *B)
{
  PetscReal t = 0;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) t += A->re[6 * i + j] * B->re[6 * j + i] - A->im[6 * i + j] * B->im[6 * j + i];
  return t;
}

/* The three Kramers-degenerate eigenvalues e[0] <= e[1] <= e[2] of H (hh, lh, so) and, when P
   is given, the projectors P[n] = (H - e_a)(H - e_b)/((e_n - e_a)(e_n - e_b)) onto each pair.
   The characteristic polynomial of H is the square of a cubic whose power sums are
   tr(H^j)/2, j = 1, 2, 3 (Newton's identities give its coefficients; trigonometric roots). */
static void SiKp6Eig(const SiHolesCtx *c, const PetscReal k[3], PetscReal e[3], SiMat6 *P)
{
  SiMat6    H, H2;
  PetscReal s1 = 0, s2, s3, e1, e2, e3, p, q, r, phi, m;

  SiKp6(c, k, -1, &H);
  if (k[0] == 0 && k[1] == 0 && k[2] == 0) {
    /* Gamma: exactly 0, 0, Delta; hh and lh degenerate, each gets half of the J = 3/2 projector */
    e[0] = e[1] = 0;
    e[2]        = c->delta;
    if (P)
      for (int i = 0; i < 36; i++) {
        /* H = Delta (1 - P_{3/2}) at k = 0 */
        P[2].re[i] = c->delta > 0 ? H.re[i] / c->delta : (i % 7 == 0 ? 1.0 / 3 : 0);
        P[2].im[i] = c->delta > 0 ? H.im[i] / c->delta : 0;
        P[0].re[i] = P[1].re[i] = 0.5 * ((i % 7 == 0 ? 1 : 0) - P[2].re[i]);
        P[0].im[i] = P[1].im[i] = -0.5 * P[2].im[i];
      }
    return;
  }
  SiMatMul(&H, &H, &H2);
  for (int i = 0; i < 6; i++) s1 += H.re[7 * i];
  s2 = SiTrace2(&H, &H);
  s3 = SiTrace2(&H2, &H);
  s1 /= 2;
  s2 /= 2;
  s3 /= 2;
  e1 = s1;
  e2 = (s1 * s1 - s2) / 2;
  e3 = (s1 * s1 * s1 - 3 * s1 * s2 + 2 * s3) / 6;
  /* x^3 - e1 x^2 + e2 x - e3 = 0, x = y + e1/3: y^3 + p y + q = 0 */
  m = e1 / 3;
  p = e2 - e1 * e1 / 3;
  q = -2 * e1 * e1 * e1 / 27 + e1 * e2 / 3 - e3;
  if (p > -1e-300) p = -1e-300; /* three real roots: p <= 0 */
  r   = 2 * PetscSqrtReal(-p / 3);
  phi = 3 * q / (p * r);         /* cos(3 theta) */
  phi = PetscAcosReal(PetscMax(-1.0, PetscMin(1.0, phi))) / 3;
  e[2] = m + r * PetscCosReal(phi);
  e[0] = m + r * PetscCosReal(phi + 2 * PETSC_PI / 3);
  e[1] = m + r * PetscCosReal(phi + 4 * PETSC_PI / 3);
  if (e[1] < e[0]) {
    PetscReal t = e[0];
    e[0]        = e[1];
    e[1]        = t;
  }
  if (!P) return;
  /* k != 0: the three pairs are split (Delta > 0; with Delta = 0 the lh and so bands of the
     k.p matrix stay degenerate along some lines, where these projectors are not defined) */
  for (int n = 0; n < 3; n++) {
    int       a = (n + 1) % 3, b = (n + 2) % 3;
    PetscReal den = (e[n] - e[a]) * (e[n] - e[b]);
    for (int i = 0; i < 36; i++) {
      P[n].re[i] = (H2.re[i] - (e[a] + e[b]) * H.re[i] + (i % 7 == 0 ? e[a] * e[b] : 0)) / den;
      P[n].im[i] = (H2.im[i] - (e[a] + e[b]) * H.im[i]) / den;
    }
  }
}

/* kp6 energies and gradients (eV A): Hellmann-Feynman, de_n/dk_d = tr(P_n dH/dk_d)/2 */
static void SiBandsKp6(const SiHolesCtx *c, const PetscReal k[3], PetscReal e[3], PetscReal de[9])
{
  SiMat6 P[3], Hd;

  SiKp6Eig(c, k, e, P);
  for (int d = 0; d < 3; d++) {
    SiKp6(c, k, d, &Hd);
    for (int n = 0; n < 3; n++) de[3 * n + d] = 0.5 * SiTrace2(&P[n], &Hd);
  }
}

static PetscErrorCode SiHolesBands_Fn(void *ctx, const PetscReal kin[3], PetscReal e[], PetscReal v[])
{
  const SiHolesCtx *c = (const SiHolesCtx *)ctx;
  PetscReal         k[3], e3[3], de[9];

  SiReduce(c, kin, k);
  if (c->bandmodel == SI_BANDS_KP6) SiBandsKp6(c, k, e3, de);
  else SiBands3(c, k, e3, de);
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

/* Grid index of a k point (any image): i_a = round(nk k.a_a / 2 pi) mod nk */
static inline PetscInt SiGridIndex(const SiHolesCtx *c, const PetscReal k[3])
{
  PetscInt ik = 0;
  for (int a = 0; a < 3; a++) {
    PetscReal f = (k[0] * c->lat[3 * a] + k[1] * c->lat[3 * a + 1] + k[2] * c->lat[3 * a + 2]) * c->nk / (2 * PETSC_PI);
    PetscInt  i = (PetscInt)PetscFloorReal(f + 0.5) % c->nk;
    if (i < 0) i += c->nk;
    ik = ik * c->nk + i;
  }
  return ik;
}

/* kp overlaps: the projectors at k (first zone), from the cache of the grid's points in the
   window when there is one, else computed */
static inline const SiMat6 *SiProjectors(const SiHolesCtx *c, const PetscReal k[3], SiMat6 P[3])
{
  PetscReal e[3];
  if (c->slot) {
    PetscInt s = c->slot[SiGridIndex(c, k)];
    if (s >= 0) return &c->proj[3 * s];
  }
  SiKp6Eig(c, k, e, P);
  return P;
}

/* Bir-Pikus acoustic coupling. The acoustic branches at q: the eigenpairs of the Christoffel
   matrix of the cubic elastic continuum, rho v^2 e = Gam(n) e with n = q/|q|,
     Gam_aa = c11 n_a^2 + c44 (1 - n_a^2),  Gam_ab = (c12 + c44) n_a n_b,
   by cyclic Jacobi rotations (exact to rounding, robust where the two TA branches are degenerate,
   along [100] and [111]). v2[0] >= v2[1] >= v2[2] (LA, TA1, TA2), e[3 nu + a] the unit
   polarisations. */
static void SiChristoffel(const SiHolesCtx *c, const PetscReal n[3], PetscReal v2[3], PetscReal e[9])
{
  PetscReal A[3][3], V[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  int       ord[3] = {0, 1, 2};

  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) A[a][b] = a == b ? c->v11 * n[a] * n[a] + c->v44 * (1 - n[a] * n[a]) : (c->v12 + c->v44) * n[a] * n[b];
  for (int sweep = 0; sweep < 50; sweep++) {
    PetscReal off = A[0][1] * A[0][1] + A[0][2] * A[0][2] + A[1][2] * A[1][2], dia = A[0][0] * A[0][0] + A[1][1] * A[1][1] + A[2][2] * A[2][2];
    if (off <= 1e-32 * dia) break;
    for (int p = 0; p < 2; p++)
      for (int r = p + 1; r < 3; r++) {
        PetscReal th, t, cs, sn;
        if (A[p][r] == 0) continue;
        th = (A[r][r] - A[p][p]) / (2 * A[p][r]);
        t  = (th >= 0 ? 1 : -1) / (PetscAbsReal(th) + PetscSqrtReal(th * th + 1));
        cs = 1 / PetscSqrtReal(t * t + 1);
        sn = t * cs;
        for (int k = 0; k < 3; k++) { /* columns p, r of A and V */
          PetscReal akp = A[k][p], akr = A[k][r], vkp = V[k][p], vkr = V[k][r];
          A[k][p] = cs * akp - sn * akr;
          A[k][r] = sn * akp + cs * akr;
          V[k][p] = cs * vkp - sn * vkr;
          V[k][r] = sn * vkp + cs * vkr;
        }
        for (int k = 0; k < 3; k++) { /* rows p, r */
          PetscReal apk = A[p][k], ark = A[r][k];
          A[p][k] = cs * apk - sn * ark;
          A[r][k] = sn * apk + cs * ark;
        }
      }
  }
  for (int i = 0; i < 2; i++)
    for (int j = i + 1; j < 3; j++)
      if (A[ord[j]][ord[j]] > A[ord[i]][ord[i]]) {
        int t  = ord[i];
        ord[i] = ord[j];
        ord[j] = t;
      }
  for (int nu = 0; nu < 3; nu++) {
    v2[nu] = A[ord[nu]][ord[nu]];
    for (int a = 0; a < 3; a++) e[3 * nu + a] = V[a][ord[nu]];
  }
}

/* |<u_bk|D|u_bp k'>|^2 summed over the final Kramers pair and averaged over the initial one, for
   an operator D x 1 (D a real symmetric 3x3 matrix on the orbital part (X, Y, Z), 1 in spin):
   Re tr(P_b(k) D P_bp(k') D)/2. The acoustic (strain) and the optical (sublattice displacement)
   couplings of the Bir-Pikus options are both of this form. */
static PetscReal SiOrbitalElement(const SiMat6 *Pk, const SiMat6 *Pkp, const PetscReal D[3][3])
{
  SiMat6    X, Y;
  PetscReal w;

  /* X = P_b(k) (D x 1), Y = P_bp(k') (D x 1); w = Re tr(X Y) / 2 */
  for (int i = 0; i < 6; i++)
    for (int t = 0; t < 2; t++)
      for (int b = 0; b < 3; b++) {
        PetscReal xr = 0, xi = 0, yr = 0, yi = 0;
        for (int cc = 0; cc < 3; cc++) {
          xr += Pk->re[6 * i + 3 * t + cc] * D[cc][b];
          xi += Pk->im[6 * i + 3 * t + cc] * D[cc][b];
          yr += Pkp->re[6 * i + 3 * t + cc] * D[cc][b];
          yi += Pkp->im[6 * i + 3 * t + cc] * D[cc][b];
        }
        X.re[6 * i + 3 * t + b] = xr;
        X.im[6 * i + 3 * t + b] = xi;
        Y.re[6 * i + 3 * t + b] = yr;
        Y.im[6 * i + 3 * t + b] = yi;
      }
  w = 0.5 * SiTrace2(&X, &Y);
  return w < 0 ? 0 : w; /* rounding of a vanishing element */
}

/* The acoustic |g|^2 and hw of the three branches between band b at k and band bp at k' (first
   zone, q = k' - k reduced, aq = |q| > 0), from the Bir-Pikus strain Hamiltonian of the valence
   band: the strain of branch nu, e_ab = (q_a e_b + q_b e_a)/2, acts on the orbital part as the
   3x3 matrix D_aa = l e_aa + m (tr e - e_aa), D_ab = n e_ab (l = a + 2b, m = a - b, n = sqrt(3) d;
   the k.p matrix with k_a k_b -> e_ab), times 1 in spin, and
     |g|^2 = hbar / (2 M w) tr(P_b(k) D P_bp(k') D) / 2,   hw = hbar v_nu |q|,
   |<u_bk|D|u_bp k'>|^2 summed over the final Kramers pair and averaged over the initial one. */
static void SiBirPikus(const SiHolesCtx *c, const SiMat6 *Pk, const SiMat6 *Pkp, const PetscReal q[3], PetscReal aq, PetscReal hw[3], PetscReal g2[3])
{
  PetscReal n[3] = {q[0] / aq, q[1] / aq, q[2] / aq}, v2[3], e[9];

  SiChristoffel(c, n, v2, e);
  for (int nu = 0; nu < 3; nu++) {
    PetscReal eps[3][3], D[3][3], tr, v = PetscSqrtReal(PetscMax(v2[nu], 0));
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) eps[a][b] = 0.5 * (q[a] * e[3 * nu + b] + q[b] * e[3 * nu + a]);
    tr = eps[0][0] + eps[1][1] + eps[2][2];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) D[a][b] = a == b ? c->bpl * eps[a][a] + c->bpm * (tr - eps[a][a]) : c->bpn * eps[a][b];
    hw[nu] = BTE_HBAR * v * aq;
    g2[nu] = v > 0 ? BTE_HBAR / (2 * c->mcell * v * aq) * SiOrbitalElement(Pk, Pkp, D) : 0;
  }
}

/* The optical |g|^2 of LO, TO1, TO2 between band b at k and band bp at k' (q = k' - k reduced,
   aq = |q|), from the optical deformation potential d0 of Bir and Pikus. A zone-centre optical
   phonon of the diamond lattice (Gamma_25') displaces the two sublattices against each other by u;
   on the p-like orbitals (X, Y, Z) it acts as the 3x3 matrix
     D_ab = n0 u_c for {a, b, c} = {x, y, z},  D_aa = 0,  n0 = sqrt(3) d0 / a0,
   times 1 in spin. In the diamond lattice u is not a polar vector: it transforms as Gamma_25'
   (as (yz, zx, xy)), which the symmetric square Gamma_25' x Gamma_25' = Gamma_1 + Gamma_12 +
   Gamma_25' holds once, so one constant fixes the coupling; the matrix is the shear term of the
   strain matrix with e_ab -> u_c / a0 and d -> d0.
   On the J = 3/2 states it is (2 / sqrt(3)) (d0 / a0) ({J_x J_y} u_z + c.p.) up to sign, Bir and
   Pikus's form. u is normalised as the isotropic model's displacement (M = rho * cell volume), so
     |g|^2 = hbar / (2 M w_op) tr(P_b(k) D(e) P_bp(k') D(e)) / 2
   for a unit polarisation e, w_op the (dispersionless) optical phonon. Summed over the three
   polarisations and the final bands it is 6 (d0/a0)^2 hbar/(2 M w_op) from every state, exactly
   (tr over the final bands is D^2 and sum_e D(e)^2 = 2 n0^2 1); within the J = 3/2 states alone,
   3 (d0/a0)^2 hbar/(2 M w_op), which is the isotropic two-band (G = 1) model's 2 (D_t K)^2
   hbar/(2 M w_op) for D_t K = sqrt(3/2) d0/a0. The three optical modes are degenerate, so only
   their sum is physical; the polarisations are LO along q, TO1 perpendicular to q in the plane of
   q and the axis least aligned with it, TO2 = q x TO1 (x, y, z at q = 0); each is even or odd in
   q, so |g|^2 is the same for the exchanged pair. */
static void SiBirPikusOptical(const SiHolesCtx *c, const SiMat6 *Pk, const SiMat6 *Pkp, const PetscReal q[3], PetscReal aq, PetscReal g2[3])
{
  PetscReal e[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, pre = BTE_HBAR / (2 * c->mcell * (c->hwop / BTE_HBAR));

  if (aq > 0) {
    int       r = 0;
    PetscReal dot, nt;
    for (int a = 0; a < 3; a++) e[0][a] = q[a] / aq;
    for (int a = 1; a < 3; a++)
      if (PetscAbsReal(e[0][a]) < PetscAbsReal(e[0][r])) r = a;
    dot = e[0][r];
    for (int a = 0; a < 3; a++) e[1][a] = (a == r ? 1 : 0) - dot * e[0][a];
    nt = PetscSqrtReal(e[1][0] * e[1][0] + e[1][1] * e[1][1] + e[1][2] * e[1][2]); /* >= sqrt(2/3) */
    for (int a = 0; a < 3; a++) e[1][a] /= nt;
    e[2][0] = e[0][1] * e[1][2] - e[0][2] * e[1][1];
    e[2][1] = e[0][2] * e[1][0] - e[0][0] * e[1][2];
    e[2][2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
  }
  for (int nu = 0; nu < 3; nu++) {
    PetscReal D[3][3];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) D[a][b] = a == b ? 0 : c->bpn0 * e[nu][3 - a - b];
    g2[nu] = pre * SiOrbitalElement(Pk, Pkp, D);
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
  if (c->overlap == SI_OVERLAP_KP || c->acoustic == SI_ACOUSTIC_BIR_PIKUS || c->optical == SI_OPTICAL_BIR_PIKUS) {
    SiMat6        Pa[3], Pb[3];
    const SiMat6 *A = SiProjectors(c, k, Pa), *B = SiProjectors(c, kp, Pb);
    if (c->overlap == SI_OVERLAP_KP) {
      /* |<u_nk|u_mk'>|^2 summed over the final pair, averaged over the initial pair:
         tr(P_n(k) P_m(k'))/2; rows sum to 1 over the three final bands */
      G = 0.5 * SiTrace2(&A[b], &B[bp]);
      if (G < 0) G = 0; /* rounding of a vanishing overlap */
    } else G = SiOverlap3(c, b, bp, k, kp);
    if (c->acoustic == SI_ACOUSTIC_BIR_PIKUS) {
      if (aq > 0) SiBirPikus(c, &A[b], &B[bp], q, aq, hw, g2);
      else hw[0] = hw[1] = hw[2] = g2[0] = g2[1] = g2[2] = 0;
    }
    if (c->optical == SI_OPTICAL_BIR_PIKUS) SiBirPikusOptical(c, &A[b], &B[bp], q, aq, &g2[3]);
  } else G = SiOverlap3(c, b, bp, k, kp);
  if (c->soc) G *= 0.5; /* shared by the two Kramers partners of the final band */
  for (int nu = 0; nu < 3; nu++) {
    if (c->acoustic == SI_ACOUSTIC_BIR_PIKUS) {
      if (c->soc) g2[nu] *= 0.5;
    } else {
      hw[nu] = BTE_HBAR * c->vs * aq;
      g2[nu] = c->cac * aq * G;
    }
    if (c->acfloor > 0) BTEModelAcousticRaise(c->acfloor, &hw[nu], &g2[nu]);
    hw[nu + 3] = c->hwop;
    if (c->optical == SI_OPTICAL_BIR_PIKUS) {
      if (c->soc) g2[nu + 3] *= 0.5; /* shared by the two Kramers partners of the final band */
    } else g2[nu + 3] = c->cop * G;
  }
  return 0;
}

/* The model's parameters (BTEModelCreate_SiHoles: defaults; -bte_si_holes_* options) */
typedef struct {
  PetscReal a, A, B, C, delta, rho, vs, dac, hwop, dop, finter, fso;
  PetscReal bpa, bpb, bpd, c11, c12, c44; /* bir-pikus: eV; GPa */
  PetscReal bpd0;                         /* optical bir-pikus: eV */
  PetscBool soc;
  PetscInt  overlap, bands, acfloor, acoustic, optical;
  PetscBool acoustic_set, optical_set; /* given as options; else they follow the bands */
} SiHolesParams;

static PetscErrorCode BTEModelSetFromOptions_SiHoles(BTE bte)
{
  SiHolesParams *p = (SiHolesParams *)bte->modeldata;
  PetscBool      acset = PETSC_FALSE, opset = PETSC_FALSE, ovset = PETSC_FALSE;

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
  PetscCall(PetscOptionsEList("-bte_si_holes_bands", "Hole bands: kp6 (6x6 k.p with spin-orbit: non-parabolic, coupled; the default) or dkk (parabolic warped heavy/light, parabolic split-off: about 4x the measured mobility)", "BTEModelSpecSiHoles", SiBandsTypes, 2, SiBandsTypes[p->bands], &p->bands, NULL));
  PetscCall(PetscOptionsEList("-bte_si_holes_overlap", "Band-overlap factors of the isotropic couplings: const (1 within a band, -bte_si_holes_interband between), wiley (angular, heavy/light) or kp (from the kp6 eigenvectors)", "BTEModelSpecSiHoles", SiOverlaps, 3, SiOverlaps[p->overlap], &p->overlap, &ovset));
  /* the couplings' defaults follow the bands: bir-pikus takes its matrix elements from the kp6
     eigenvectors, so with the dkk bands the isotropic couplings are the default */
  if (!p->acoustic_set) p->acoustic = p->bands == SI_BANDS_KP6 ? SI_ACOUSTIC_BIR_PIKUS : SI_ACOUSTIC_ISOTROPIC;
  if (!p->optical_set) p->optical = p->bands == SI_BANDS_KP6 ? SI_OPTICAL_BIR_PIKUS : SI_OPTICAL_ISOTROPIC;
  PetscCall(PetscOptionsEList("-bte_si_holes_acoustic", "Acoustic coupling: bir-pikus (per branch from the valence-band strain Hamiltonian with the kp6 eigenvectors and the elastic constants; the default with the kp6 bands) or isotropic (one deformation potential -bte_si_holes_dac shared by LA, TA1, TA2 at -bte_si_holes_vs, times the overlap; the default with dkk)", "BTEModelSpecSiHoles", SiAcoustics, 2, SiAcoustics[p->acoustic], &p->acoustic, &acset));
  PetscCall(PetscOptionsReal("-bte_si_holes_bp_a", "Bir-Pikus hydrostatic deformation potential a of the valence band, eV (acoustic bir-pikus)", "BTEModelSpecSiHoles", p->bpa, &p->bpa, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_bp_b", "Bir-Pikus tetragonal shear deformation potential b, eV (acoustic bir-pikus)", "BTEModelSpecSiHoles", p->bpb, &p->bpb, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_bp_d", "Bir-Pikus rhombohedral shear deformation potential d, eV (acoustic bir-pikus)", "BTEModelSpecSiHoles", p->bpd, &p->bpd, NULL));
  PetscCall(PetscOptionsEList("-bte_si_holes_optical", "Optical coupling: bir-pikus (the optical deformation potential d0 between the kp6 eigenvectors, with its selection rules; the default with the kp6 bands) or isotropic (one D_t K -bte_si_holes_dop shared by LO, TO1, TO2 and all band pairs, times the overlap G; the default with dkk)", "BTEModelSpecSiHoles", SiOpticals, 2, SiOpticals[p->optical], &p->optical, &opset));
  PetscCall(PetscOptionsReal("-bte_si_holes_bp_d0", "Optical deformation potential d0 of the valence band (Bir-Pikus), eV (optical bir-pikus; default sqrt(2/3) D_t K a0 with Jacoboni and Reggiani's D_t K = 6e8 eV/cm)", "BTEModelSpecSiHoles", p->bpd0, &p->bpd0, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_c11", "Elastic constant c11, GPa (acoustic bir-pikus: branch velocities and polarisations)", "BTEModelSpecSiHoles", p->c11, &p->c11, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_c12", "Elastic constant c12, GPa (acoustic bir-pikus)", "BTEModelSpecSiHoles", p->c12, &p->c12, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_c44", "Elastic constant c44, GPa (acoustic bir-pikus)", "BTEModelSpecSiHoles", p->c44, &p->c44, NULL));
  PetscCall(PetscOptionsEList("-bte_si_holes_acoustic_floor", "Acoustic phonons below -bte_phonon_min: drop (Perturbo) or equipartition (kept at the floor, |g|^2 scaled to keep the elastic rate)", "BTEModelSpecSiHoles", BTEAcousticFloors, 2, BTEAcousticFloors[p->acfloor], &p->acfloor, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_interband", "Overlap factor between different bands (overlap const)", "BTEModelSpecSiHoles", p->finter, &p->finter, NULL));
  PetscCall(PetscOptionsReal("-bte_si_holes_so_overlap", "Overlap factor between the split-off band and each other band (overlap wiley)", "BTEModelSpecSiHoles", p->fso, &p->fso, NULL));
  PetscOptionsEnd();
  /* a coupling given once stays given (SetFromOptions may run again without the option) */
  if (acset) p->acoustic_set = PETSC_TRUE;
  if (opset) p->optical_set = PETSC_TRUE;
  {
    /* parameters of a coupling the run does not select: they would change nothing (while the
       model's parameter list printed them), so they are refused */
    static const struct {
      const char *name, *needs;
      int         kind, value; /* kind 0: acoustic, 1: optical, 2: overlap */
    } uses[] = {
      {"-bte_si_holes_dac", "-bte_si_holes_acoustic isotropic", 0, SI_ACOUSTIC_ISOTROPIC},
      {"-bte_si_holes_vs", "-bte_si_holes_acoustic isotropic", 0, SI_ACOUSTIC_ISOTROPIC},
      {"-bte_si_holes_bp_a", "-bte_si_holes_acoustic bir-pikus", 0, SI_ACOUSTIC_BIR_PIKUS},
      {"-bte_si_holes_bp_b", "-bte_si_holes_acoustic bir-pikus", 0, SI_ACOUSTIC_BIR_PIKUS},
      {"-bte_si_holes_bp_d", "-bte_si_holes_acoustic bir-pikus", 0, SI_ACOUSTIC_BIR_PIKUS},
      {"-bte_si_holes_c11", "-bte_si_holes_acoustic bir-pikus", 0, SI_ACOUSTIC_BIR_PIKUS},
      {"-bte_si_holes_c12", "-bte_si_holes_acoustic bir-pikus", 0, SI_ACOUSTIC_BIR_PIKUS},
      {"-bte_si_holes_c44", "-bte_si_holes_acoustic bir-pikus", 0, SI_ACOUSTIC_BIR_PIKUS},
      {"-bte_si_holes_dop", "-bte_si_holes_optical isotropic", 1, SI_OPTICAL_ISOTROPIC},
      {"-bte_si_holes_bp_d0", "-bte_si_holes_optical bir-pikus", 1, SI_OPTICAL_BIR_PIKUS},
      {"-bte_si_holes_interband", "-bte_si_holes_overlap const", 2, SI_OVERLAP_CONST},
      {"-bte_si_holes_so_overlap", "-bte_si_holes_overlap wiley", 2, SI_OVERLAP_WILEY},
    };
    for (size_t k = 0; k < sizeof(uses) / sizeof(uses[0]); k++) {
      int       sel = uses[k].kind == 0 ? (int)p->acoustic : uses[k].kind == 1 ? (int)p->optical : (int)p->overlap;
      PetscBool flg;
      PetscCall(PetscOptionsHasName(((PetscObject)bte)->options, ((PetscObject)bte)->prefix, uses[k].name, &flg));
      PetscCheck(!flg || sel == uses[k].value, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "%s is a parameter of %s, which this run does not use: leave it out, or select that coupling", uses[k].name, uses[k].needs);
      PetscCheck(!flg || uses[k].kind != 2 || p->acoustic == SI_ACOUSTIC_ISOTROPIC || p->optical == SI_OPTICAL_ISOTROPIC, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "%s is a parameter of the band overlaps of the isotropic couplings, and this run's acoustic and optical couplings are both bir-pikus (their own matrix elements): leave it out, or select -bte_si_holes_acoustic or -bte_si_holes_optical isotropic", uses[k].name);
    }
    PetscCheck(!ovset || p->acoustic == SI_ACOUSTIC_ISOTROPIC || p->optical == SI_OPTICAL_ISOTROPIC, PetscObjectComm((PetscObject)bte), PETSC_ERR_USER_INPUT, "-bte_si_holes_overlap sets the band overlaps of the isotropic couplings, and this run's acoustic and optical couplings are both bir-pikus (their own matrix elements): leave it out, or select -bte_si_holes_acoustic or -bte_si_holes_optical isotropic");
  }
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
  PetscInt             overlap, bands;
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
  bands   = p->bands;
  PetscCall(PetscMemzero(spec, sizeof(*spec)));
  PetscCheck(p->acoustic != SI_ACOUSTIC_BIR_PIKUS || bands == SI_BANDS_KP6, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_INCOMP, "si-holes: -bte_si_holes_acoustic bir-pikus needs -bte_si_holes_bands kp6 (the matrix elements use its eigenvectors)");
  if (p->acoustic == SI_ACOUSTIC_BIR_PIKUS) { /* bounds far outside any crystal's: a typo is refused, not turned into a table */
    MPI_Comm comm = PetscObjectComm((PetscObject)bte);
    PetscCall(BTECheckRange(comm, "-bte_si_holes_c11", p->c11, -1e4, 1e4, "GPa", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_c12", p->c12, -1e4, 1e4, "GPa", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_c44", p->c44, -1e4, 1e4, "GPa", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_bp_a", p->bpa, -100, 100, "eV", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_bp_b", p->bpb, -100, 100, "eV", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_bp_d", p->bpd, -100, 100, "eV", NULL));
  }
  PetscCheck(p->optical != SI_OPTICAL_BIR_PIKUS || bands == SI_BANDS_KP6, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_INCOMP, "si-holes: -bte_si_holes_optical bir-pikus needs -bte_si_holes_bands kp6 (the matrix elements use its eigenvectors)");
  if (p->optical == SI_OPTICAL_BIR_PIKUS) PetscCall(BTECheckRange(PetscObjectComm((PetscObject)bte), "-bte_si_holes_bp_d0", p->bpd0, -1000, 1000, "eV", NULL)); /* tens of eV in crystals */
  PetscCheck(p->acoustic != SI_ACOUSTIC_BIR_PIKUS || (p->c44 > 0 && p->c11 > PetscAbsReal(p->c12) && p->c11 + 2 * p->c12 > 0), PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: elastic constants must be those of a stable cubic crystal (c44 > 0, c11 > |c12|, c11 + 2 c12 > 0); check -bte_si_holes_c11/c12/c44");
  PetscCheck(overlap != SI_OVERLAP_KP || bands == SI_BANDS_KP6, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_INCOMP, "si-holes: -bte_si_holes_overlap kp needs -bte_si_holes_bands kp6 (the overlaps come from its eigenvectors)");
  PetscCheck(bands != SI_BANDS_KP6 || delta > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: -bte_si_holes_bands kp6 needs a spin-orbit splitting -bte_si_holes_delta > 0");
  PetscCheck(a > 0 && A > 0 && rho > 0 && vs > 0 && hwop > 0 && delta >= 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: lattice constant, |A|, density, sound velocity, optical phonon energy must be positive and Delta >= 0");
  PetscCheck(A * A > B * B + C * C / 3, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: the heavy-hole band is not convex (need A^2 > B^2 + C^2/3); check -bte_si_holes_dkk_a/b/c");
  PetscCheck(finter >= 0 && fso >= 0 && fso <= 0.5, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: overlap factors must be >= 0 (and -bte_si_holes_so_overlap <= 1/2)");
  { /* upper bounds far beyond any crystal's: a typo is refused, not turned into a table */
    MPI_Comm comm = PetscObjectComm((PetscObject)bte);
    PetscCall(BTECheckRangeAbove(comm, "-bte_si_holes_lattice", a, 0, BTE_MODEL_LATTICE_MAX, "Angstrom", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_si_holes_dkk_a", A, 0, BTE_MODEL_MASS_MAX, "hbar^2/2m_e", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_dkk_b", B, -BTE_MODEL_MASS_MAX, BTE_MODEL_MASS_MAX, "hbar^2/2m_e", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_dkk_c", C, -BTE_MODEL_MASS_MAX, BTE_MODEL_MASS_MAX, "hbar^2/2m_e", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_delta", delta, 0, BTE_ENERGY_ABS_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_si_holes_rho", rho, 0, BTE_MODEL_DENSITY_MAX, "kg/m^3", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_si_holes_vs", vs, 0, BTE_MODEL_SOUND_MAX, "m/s", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_dac", dac, -BTE_MODEL_DAC_MAX, BTE_MODEL_DAC_MAX, "eV", NULL));
    PetscCall(BTECheckRangeAbove(comm, "-bte_si_holes_hwop", hwop, 0, BTE_PHONON_MAX, "eV", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_dop", dop, -BTE_MODEL_DOPT_MAX, BTE_MODEL_DOPT_MAX, "eV/cm", NULL));
    PetscCall(BTECheckRange(comm, "-bte_si_holes_interband", finter, 0, 1, "", " (an overlap factor)"));
  }

  PetscCall(PetscNew(&c));
  c->soc     = soc;
  c->overlap = (SiOverlap)overlap;
  c->A       = A;
  c->B2      = B * B;
  c->C2      = C * C;
  c->delta   = delta;
  c->finter  = finter;
  c->fso     = fso;
  c->bandmodel = (SiBands)bands;
  c->Lh        = A + 2 * PetscAbsReal(B);
  c->Mh        = A - PetscAbsReal(B);
  c->Nh        = PetscSqrtReal(3 * C * C + 9 * B * B);
  c->acfloor   = p->acfloor == BTE_ACOUSTIC_FLOOR_EQUIPARTITION ? BTEModelPhononFloor(bte) : 0;
  c->nk        = bte->ngrid;
  c->slot      = NULL;
  c->proj      = NULL;
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
  c->acoustic = (SiAcoustic)p->acoustic;
  c->mcell    = mcell;
  c->bpl      = p->bpa + 2 * p->bpb;
  c->bpm      = p->bpa - p->bpb;
  c->bpn      = PetscSqrtReal(3.0) * p->bpd;
  c->v11      = p->c11 * SI_GPA_TO_V2 / rho;
  c->v12      = p->c12 * SI_GPA_TO_V2 / rho;
  c->v44      = p->c44 * SI_GPA_TO_V2 / rho;
  c->optical  = (SiOptical)p->optical;
  c->bpn0     = PetscSqrtReal(3.0) * p->bpd0 / a;
  /* the largest k in the window is along the heaviest direction of the heavy-hole band */
  kmax = PetscSqrtReal(bte->window / (SI_C * (A - PetscSqrtReal(B * B + C * C / 3))));
  if (bands == SI_BANDS_KP6) {
    /* e_hh(k) >= lowest eigenvalue of K(k) (the spin-orbit term is >= 0), = c k^2 lam(k/|k|):
       lam's minimum over 4,000 directions (Fibonacci sphere), with a 10 % margin */
    SiHolesCtx c0 = *c;
    PetscReal  lam = PETSC_MAX_REAL;
    c0.delta       = 0;
    for (int i = 0; i < 4000; i++) {
      PetscReal z = 1 - (2 * i + 1) / 4000.0, r = PetscSqrtReal(1 - z * z), ph = i * PETSC_PI * (3 - PetscSqrtReal(5.0)), u[3] = {r * PetscCosReal(ph), r * PetscSinReal(ph), z}, e[3];
      SiKp6Eig(&c0, u, e, NULL);
      lam = PetscMin(lam, e[0] / SI_C);
    }
    PetscCheck(lam > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "si-holes: the kp6 heavy-hole band is not convex; check -bte_si_holes_dkk_a/b/c");
    kmax = PetscSqrtReal(bte->window / (SI_C * 0.9 * lam));
  }

  spec->name     = "si-holes";
  spec->dim      = 3;
  spec->nbands   = soc ? 6 : 3;
  spec->nmodes   = SI_NMODES;
  spec->spin     = soc ? 1 : 2;
  spec->carrier  = +1;
  spec->eedge    = 0.0;
  spec->hwmax    = PetscMax(hwop, BTE_HBAR * c->vs * 2 * kmax);
  if (c->acoustic == SI_ACOUSTIC_BIR_PIKUS) {
    /* the fastest branch (LA): the Christoffel matrix's largest eigenvalue is below its largest
       absolute row sum, max(c11, c44) + |c12 + c44| |n_a| (|n_b| + |n_c|) <= the bound used here */
    PetscReal vmax2 = PetscMax(c->v11, c->v44) + 2 * PetscAbsReal(c->v12 + c->v44);
    spec->hwmax     = PetscMax(hwop, BTE_HBAR * PetscSqrtReal(vmax2) * 2 * kmax);
  }
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
  /* only the parameters of the couplings in use (a list with the others would describe a model
     that was not built) */
  if (c->acoustic == SI_ACOUSTIC_ISOTROPIC) {
    PetscCall(BTEParamsAdd(bte, "sound_velocity", vs, "m/s"));
    PetscCall(BTEParamsAdd(bte, "D_acoustic", dac, "eV"));
  }
  PetscCall(BTEParamsAdd(bte, "hw_optical", hwop, "eV"));
  if (c->optical == SI_OPTICAL_ISOTROPIC) PetscCall(BTEParamsAdd(bte, "DtK_optical", dop, "eV/cm"));
  if (bands == SI_BANDS_KP6) PetscCall(BTEParamsAdd(bte, "bands_kp6", 1.0, "1 = 6x6 k.p with spin-orbit"));
  /* the parabolic bands are 4x off the measured mobility (docs/models.md, si-holes): say so in
     every summary of a run that builds them */
  if (bands == SI_BANDS_DKK) PetscCall(PetscStrncpy(bte->caveat, "the si-holes model's parabolic bands (-bte_si_holes_bands dkk; density-of-states mass 0.59 m_e, Si's is 0.81-1.15) give about 4x the measured 300 K hole mobility of Si (1,837 against 450-500 cm^2/(V s) on 60^3); the default kp6 bands with their k.p couplings give 1.37x, converged (docs/models.md, si-holes)", sizeof(bte->caveat)));
  /* the kp6 mobility converges slowly with the grid, far past the thermal-sampling check (which
     40^3 passes with 115 states): measured at 300 K with the default couplings (docs/models.md) */
  else if (c->nk < SI_GRID_CONVERGED) PetscCall(PetscSNPrintf(bte->caveat, sizeof(bte->caveat), "the si-holes model's mobility converges slowly with the k grid, past the thermal-sampling check: at 300 K 434 on 40^3 (-34%%), 620 on 60^3 (-5%%), 640 on 80^3 (-2%%) against 652.6 cm^2/(V s) on 140^3 (docs/models.md, si-holes); this table's grid is %" PetscInt_FMT "^3, use -bte_grid %d or more for mobilities within a few per cent", c->nk, SI_GRID_CONVERGED));
  else bte->caveat[0] = 0;
  if (c->acoustic == SI_ACOUSTIC_ISOTROPIC || c->optical == SI_OPTICAL_ISOTROPIC) { /* the overlaps of the isotropic couplings */
    PetscCall(BTEParamsAdd(bte, "overlap_wiley", overlap == SI_OVERLAP_WILEY ? 1.0 : 0.0, "1 = wiley, 0 = const"));
    if (overlap == SI_OVERLAP_KP) PetscCall(BTEParamsAdd(bte, "overlap_kp", 1.0, "1 = from the k.p eigenvectors"));
    else if (overlap == SI_OVERLAP_CONST) PetscCall(BTEParamsAdd(bte, "overlap_interband", finter, ""));
    else PetscCall(BTEParamsAdd(bte, "overlap_split_off", fso, ""));
  }
  if (c->acoustic == SI_ACOUSTIC_BIR_PIKUS) {
    PetscCall(BTEParamsAdd(bte, "acoustic_bir_pikus", 1.0, ""));
    PetscCall(BTEParamsAdd(bte, "bir_pikus_a", p->bpa, "eV"));
    PetscCall(BTEParamsAdd(bte, "bir_pikus_b", p->bpb, "eV"));
    PetscCall(BTEParamsAdd(bte, "bir_pikus_d", p->bpd, "eV"));
    PetscCall(BTEParamsAdd(bte, "c11", p->c11, "GPa"));
    PetscCall(BTEParamsAdd(bte, "c12", p->c12, "GPa"));
    PetscCall(BTEParamsAdd(bte, "c44", p->c44, "GPa"));
  }
  if (c->optical == SI_OPTICAL_BIR_PIKUS) {
    PetscCall(BTEParamsAdd(bte, "optical_bir_pikus", 1.0, ""));
    PetscCall(BTEParamsAdd(bte, "bir_pikus_d0", p->bpd0, "eV"));
  }
  if (c->acfloor > 0) PetscCall(BTEParamsAdd(bte, "acoustic_floor_equipartition", 1.0, ""));
  PetscFunctionReturn(0);
}

/* kp overlaps on a grid: the projectors of every grid point with a band in the window, computed
   once (the pair search asks for each k many times). c->lat must hold the lattice. A grid too
   large for the index (4 bytes per k point) gets no cache: the projectors are then computed
   per pair. */
static PetscErrorCode SiHolesProjectorCacheBuild(BTE bte, SiHolesCtx *c)
{
  PetscInt64 nk3 = (PetscInt64)c->nk * c->nk * c->nk;
  PetscInt   n   = 0;

  PetscFunctionBegin;
  if (nk3 > 500000000) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(nk3, &c->slot));
  for (int pass = 0; pass < 2; pass++) {
    if (pass) PetscCall(PetscMalloc1(3 * (size_t)PetscMax(n, 1), &c->proj));
    for (PetscInt64 ik = 0; ik < nk3; ik++) {
      PetscInt  i[3] = {(PetscInt)(ik / ((PetscInt64)c->nk * c->nk)), (PetscInt)((ik / c->nk) % c->nk), (PetscInt)(ik % c->nk)};
      PetscReal f[3], kin[3], k[3], e[3];
      if (pass && c->slot[ik] < 0) continue;
      for (int a = 0; a < 3; a++) f[a] = (PetscReal)(2 * i[a] < c->nk ? i[a] : i[a] - c->nk) / c->nk;
      for (int d = 0; d < 3; d++) kin[d] = f[0] * c->b[d] + f[1] * c->b[3 + d] + f[2] * c->b[6 + d];
      SiReduce(c, kin, k);
      if (!pass) {
        SiKp6Eig(c, k, e, NULL);
        c->slot[ik] = e[0] <= bte->window * (1 + 1e-9) + 1e-9 ? n++ : -1; /* the window is [0, window] */
      } else SiKp6Eig(c, k, e, &c->proj[3 * c->slot[ik]]);
    }
  }
  PetscCall(PetscInfo(bte, "si-holes: kp projectors cached at %" PetscInt_FMT " k points\n", n));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelGenerate_SiHoles(BTE bte)
{
  BTEModelSpec spec;
  SiHolesCtx  *c;

  PetscFunctionBegin;
  PetscCall(BTEModelSpecSiHoles(bte, &spec));
  c = (SiHolesCtx *)spec.ctx;
  if (c->overlap == SI_OVERLAP_KP || c->acoustic == SI_ACOUSTIC_BIR_PIKUS || c->optical == SI_OPTICAL_BIR_PIKUS) {
    /* the grid (BTEModelBuild sets it up from the same lattice) */
    for (int i = 0; i < 9; i++) c->lat[i] = spec.lattice[i];
    PetscCall(SiHolesProjectorCacheBuild(bte, c));
  }
  PetscCall(BTEModelBuild(bte, &spec));
  PetscCall(PetscFree(c->slot));
  PetscCall(PetscFree(c->proj));
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
  /* the default: every coupling from the k.p eigenvectors with literature constants, the
     variant closest to the measured mobility without a fit (docs/models.md, si-holes); the
     couplings follow -bte_si_holes_bands unless given (SetFromOptions) */
  p->bands                     = SI_BANDS_KP6;
  p->acoustic                  = SI_ACOUSTIC_BIR_PIKUS;
  p->bpa                       = 2.46;
  p->bpb                       = -2.10;
  p->bpd                       = -4.85;
  p->c11                       = 165.7;
  p->c12                       = 63.9;
  p->c44                       = 79.6;
  p->optical                   = SI_OPTICAL_BIR_PIKUS;
  /* d0 with the strength of the isotropic model's D_t K = 6e8 eV/cm (Jacoboni and Reggiani 1983)
     through D_t K = sqrt(3/2) d0 / a0 (a0 = 5.431 Angstrom), so that the two options differ only
     in the selection rules (docs/models.md); ab initio values for Si are larger (~29-31 eV,
     W. Poetz and P. Vogl, PRB 24, 2025 (1981)) */
  p->bpd0                      = 26.61;
  bte->modeldata               = p;
  bte->modelops.setfromoptions = BTEModelSetFromOptions_SiHoles;
  bte->modelops.generate       = BTEModelGenerate_SiHoles;
  PetscFunctionReturn(0);
}
