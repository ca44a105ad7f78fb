/* The interface a built-in model implements; BTEModelBuild (src/models/build.c) turns it
   into states and channels on a BTE, with the selection rules of physics.md section 2. */
#pragma once
#include <bte/private/bteimpl.h>

typedef struct {
  const char *name;
  PetscInt    dim;        /* 2 or 3 */
  PetscInt    nbands;     /* bands in the model */
  PetscInt    nmodes;     /* phonon branches */
  PetscInt    spin;       /* spin degeneracy (2, or 1 with spin-orbit) */
  PetscInt    carrier;    /* -1 electrons, +1 holes (energies measured into the band) */
  PetscReal   lattice[9]; /* rows a1 a2 a3, Angstrom; 2D: a3 = (0,0,1) */
  PetscReal   eedge;      /* band edge: the window is [eedge, eedge + bte->window] */
  PetscReal   hwmax;      /* largest phonon energy, eV (prunes pair search) */
  void       *ctx;
  /* Energies e[n] (eV) and velocities v[3n+a] (Angstrom/fs) of all bands at Cartesian k (1/Angstrom). */
  PetscErrorCode (*bands)(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[]);
  /* Phonon energies hw[nu] (eV) and couplings g2[nu] (eV^2) for (n,k) -> (m,kp), q = kp - k
     reduced to the first Brillouin zone (Cartesian, 1/Angstrom). Must be symmetric under
     exchanging the two ends (q -> -q). g2 = 0 means no channel. */
  PetscErrorCode (*coupling)(void *ctx, PetscInt n, const PetscReal k[3], PetscInt m, const PetscReal kp[3], const PetscReal q[3], PetscReal hw[], PetscReal g2[]);
} BTEModelSpec;

PETSC_INTERN PetscErrorCode BTEModelBuild(BTE, const BTEModelSpec *);
