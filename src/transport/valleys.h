/* Valley analysis of the states of a BTE (valleys.c). */
#pragma once
#include <bte/private/bteimpl.h>

#define BTE_MAX_VALLEYS  16
#define BTE_VALLEY_LABEL 64

typedef struct _n_BTEValleys *BTEValleys;
struct _n_BTEValleys {
  PetscInt   nkind;                                /* valley kinds */
  PetscInt   kind_first[BTE_MAX_VALLEYS];          /* first minimum of each kind */
  PetscInt   kind_count[BTE_MAX_VALLEYS];          /* equivalent minima of each kind */
  PetscInt   kind_band[BTE_MAX_VALLEYS];
  PetscReal  kind_e[BTE_MAX_VALLEYS];              /* energy of the minimum, eV */
  PetscReal  kind_red[BTE_MAX_VALLEYS][3];         /* its first minimum's k, crystal coordinates */
  char       label[BTE_MAX_VALLEYS][BTE_VALLEY_LABEL];
  const char *labelp[BTE_MAX_VALLEYS];
  PetscInt   nmin;                                 /* all minima (global) */
  PetscInt  *min_kind, *min_band;
  PetscReal *min_k;                                /* Cartesian k of each minimum, 1/Angstrom */
  PetscInt   nlocal;
  PetscInt  *state_kind;                           /* valley kind of each local state */
  PetscInt  *state_min;                            /* nearest minimum (valley, 0..nmin-1) of each local state */
  PetscBool *edge;                                 /* local state has a grid neighbour outside the window */
};

/* steps: nsteps grid steps (3 each) of the neighbours that define the window's edge (the
   drift's b-vectors); nsteps = 0: the 6 axis neighbours */
PETSC_INTERN PetscErrorCode BTEValleysCreate(BTE, PetscInt nsteps, const PetscInt steps[], BTEValleys *);
PETSC_INTERN PetscErrorCode BTEValleysOccupation(BTE, BTEValleys, Vec, PetscReal[], PetscReal *);
PETSC_INTERN PetscErrorCode BTEValleysDestroy(BTEValleys *);
