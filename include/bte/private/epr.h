/* Perturbo's prefix_epr.h5 (electron Hamiltonian, force constants and e-ph couplings in a
   Wannier basis) and its interpolation onto arbitrary k and q: src/models/perturbo/.
   Everything here is in Perturbo's units (Rydberg atomic units: energy Ry, length bohr, mass in
   Rydberg mass units, hbar = 1) except where a name says otherwise; the model generator
   (perturbo.c) converts to bte's eV and Angstrom. docs/import.md describes the file and the
   formulas. These functions are exported (not installed) so that tests can check them. */
#pragma once
#include <bte/private/modelimpl.h>

/* A set of real-space lattice vectors (crystal coordinates, integers) shared by several arrays */
typedef struct {
  PetscInt  nr;
  PetscInt *R; /* 3 per vector */
} BTEEprRSet;

typedef struct _n_BTEEpr *BTEEpr;
struct _n_BTEEpr {
  char      file[PETSC_MAX_PATH_LEN];
  /* /basic_data */
  PetscReal  alat;         /* bohr */
  PetscReal  at[9];        /* rows a_i / alat */
  PetscReal  bg[9];        /* rows b_i in 2 pi / alat */
  PetscReal  volume;       /* bohr^3 */
  PetscInt   nat, nw;      /* atoms, Wannier functions */
  PetscInt   kc[3], qc[3]; /* coarse grids */
  PetscReal *tau;          /* nat x 3, Cartesian / alat */
  PetscReal *ctau;         /* nat x 3, crystal */
  PetscReal *mass;         /* nat, Rydberg mass units */
  PetscReal *wc, *wcc;     /* nw x 3, Wannier centres, Cartesian / alat and crystal */
  PetscReal  epsil[9];     /* epsilon_infinity, [i][j] */
  PetscReal *zstar;        /* nat x 3 x 3, as stored (h5 order [ia][j][i] = Z_ij of Perturbo) */
  PetscBool  spinor, sys2d, polar;
  PetscReal  thickness2d;  /* bohr (2D only; < 0 if absent) */
  PetscReal  polar_alpha;  /* Ewald parameter of the long-range e-ph term */
  PetscReal  loto_alpha;   /* Ewald parameter of the dipole-dipole phonon term */
  /* H(R): Wannier pair m (iw <= jw, jw outer): entries [hoff[m], hoff[m+1]) with vector hidx
     (into hR) and value (Ry), 1/ndeg included */
  BTEEprRSet hR;
  PetscInt  *hoff, *hidx;
  PetscReal *hval_re, *hval_im;
  /* force constants: atom pair m (ia <= ja, ja outer): entries [foff[m], foff[m+1]), vector
     fidx (into fR), 9 values as stored (h5 [b][a] = Perturbo's ifc(a,b)), Ry/bohr^2 */
  BTEEprRSet fR;
  PetscInt  *foff, *fidx;
  PetscReal *fval;
  /* consistency of the force constants (BTEEprRead): the largest asymmetry |C_aa(R) - C_aa(-R)^T|
     relative to the largest |C| (in pair ifc{ifcsym_pair}), and the acoustic sum rule's residual
     max |sum_b sum_R C_ab(R)| of atom asr_atom (Ry/bohr^2) and the frequency scale
     sqrt(residual / M) it implies (Ry) */
  PetscReal  ifcsym, asr_res, asr_omega;
  PetscInt   ifcsym_pair, asr_atom;
  /* e-ph element el = (ia*nw + jw)*nw + iw: electron vectors [eoff[el], eoff[el+1]) (eidx into
     eR), phonon vectors [poff[el], poff[el+1]) (pidx into pR), values [doff[el], ...) as stored
     (h5 [irp][ire][alpha]), Ry/bohr */
  BTEEprRSet eR, pR;
  PetscInt  *eoff, *poff, *doff, *eidx, *pidx;
  PetscReal *ep_re, *ep_im;
  PetscBool  lr_eph; /* add the long-range (Frohlich) e-ph term (default: when polar) */
  PetscBool  lr_ph;  /* add the dipole-dipole term to D(q) (default: when polar) */
  PetscReal *onsite; /* on-site correction of the dipole-dipole term, 9 per atom (BTEEprSetUpLR) */
  PetscReal  reff_ph[4], reff_eph[4]; /* 2D: screening lengths of the long-range terms (BTEEprSetUpLR) */
};

PETSC_EXTERN PetscErrorCode BTEEprRead(MPI_Comm, const char[], BTEEpr *);
PETSC_EXTERN PetscErrorCode BTEEprDestroy(BTEEpr *);

/* Work space of one thread (the interpolation is thread safe with one per thread). */
typedef struct _n_BTEEprWork *BTEEprWork;
PETSC_EXTERN PetscErrorCode BTEEprWorkCreate(BTEEpr, BTEEprWork *);
PETSC_EXTERN PetscErrorCode BTEEprWorkDestroy(BTEEprWork *);

/* The box |m_i| <= nrx[i] of reciprocal vectors the long-range sums with Ewald parameter alpha
   run over (for any q) */
PETSC_INTERN void BTEEprGRange(const BTEEpr, PetscReal alpha, PetscInt nrx[3]);

/* After changing lr_ph (or reading): prepares the long-range terms. */
PETSC_EXTERN PetscErrorCode BTEEprSetUpLR(BTEEpr);

/* Interpolation at crystal coordinates (Rydberg atomic units). These return 0 on success and
   make no PETSc calls (they run in OpenMP regions, one work space per thread). Complex numbers
   are interleaved (re, im); matrices are column-major. */
/* Bands: e[nw] ascending (Ry); U[2 nw nw] eigenvectors (column n = band n) or NULL;
   v[3 nw] velocities dE/dk (Ry bohr, Cartesian) or NULL. */
PETSC_EXTERN int BTEEprBands(BTEEpr, BTEEprWork, const PetscReal k[3], PetscReal e[], PetscReal U[], PetscReal v[]);
/* Phonons: w[3 nat] signed frequencies (Ry; negative: imaginary), u[2 (3nat)^2] displacement
   patterns e/sqrt(M) (row 3 ia + alpha, column mode) or NULL. */
PETSC_EXTERN int BTEEprPhonons(BTEEpr, BTEEprWork, const PetscReal q[3], PetscReal w[], PetscReal u[]);
/* Long-range e-ph vertex in the atom basis, gl[2 (3 nat)] (Ry/bohr), added on the Wannier
   diagonal; zero unless lr_eph. */
PETSC_EXTERN int BTEEprCouplingLR(BTEEpr, const PetscReal q[3], PetscReal gl[]);
/* The coupling in two steps: the k part gk[BTEEprCouplingKSize()] (reals), then for a q the
   Wannier-gauge vertex gw[2 ((iw nw + jw) 3nat + 3 ia + alpha)] (Ry/bohr, short-range part). */
PETSC_EXTERN PetscInt BTEEprCouplingKSize(BTEEpr);
PETSC_EXTERN int      BTEEprCouplingK(BTEEpr, BTEEprWork, const PetscReal k[3], PetscReal gk[]);
PETSC_EXTERN int      BTEEprCouplingKQ(BTEEpr, BTEEprWork, const PetscReal gk[], const PetscReal q[3], PetscReal gw[]);
