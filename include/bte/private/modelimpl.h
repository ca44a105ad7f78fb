/* The interface a built-in model implements; BTEModelBuild (src/models/build.c) turns it
   into states and channels on a BTE, with the selection rules of docs/theory.md section 2. */
#pragma once
#include <bte/private/bteimpl.h>
#include <bte/private/validate.h>

/* One candidate pair of states for coupling_grid_batch: bands n (lower global index) and m, their
   grid indices, energies (eV) and q = kp - k on the grid (each component in [0, nk)). */
typedef struct _BTEModelPair {
  PetscInt  n, m;
  PetscInt  ik[3], ikp[3], iq[3];
  PetscReal en, em;
} BTEModelPair;

/* The builder's channel search and selection (docs/theory.md section 2), for a model that generates
   the channels itself (channels_count, channels_fill): the replicated in-window states, ordered by
   (k index, band); the owned ones [rstart, rend); the energy bins of width binw (state i in bin[i]; a
   state's candidates are those of its bin and the two beside it, binlist[binstart[b] ..
   binstart[b+1]) in ascending index); the rules: |e_i - e_j| <= W, j != i, j < i owned only from
   j, q != 0; a mode makes a channel when hw >= hwmin, |de - hw| < tol, g2 > 0 and g2 > g2min. */
typedef struct {
  PetscInt         n, rstart, rend, nk[3];
  const PetscInt  *kidx, *band, *ijk, *bin;
  const PetscReal *e;
  PetscInt         nbins;
  const PetscInt  *binstart, *binlist;
  PetscReal        W, tol, hwmin, g2min;
} BTEModelSearch;

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
  /* Optional, used instead of coupling when set (an interpolated material caches by grid point):
     the same, given the grid indices of k, kp and q = kp - k (each component in [0, nk)) and the
     two band energies (eV), so that modes that cannot pass the energy selection can be skipped
     (g2 = 0). */
  PetscErrorCode (*coupling_grid)(void *ctx, PetscInt n, const PetscInt ik[3], PetscReal en, PetscInt m, const PetscInt ikp[3], PetscReal em, const PetscInt iq[3], PetscReal hw[], PetscReal g2[]);
  /* Optional, used instead of coupling_grid when set: the same for np pairs at once (pairs[c]), so that
     a model can evaluate them together (on a GPU). Sparse out: the modes of pair c that can make a
     channel are mode[moff[c] .. moff[c+1]), in increasing order, with their hw and g2 at the same
     positions (moff[0] = 0; at most np nmodes in all); a mode not listed makes no channel (as g2 = 0
     would), so neither side spends work on the many modes that fail the energy test. The builder
     applies its selection to the listed modes only. It hands over the candidate pairs of a run of
     consecutive states at a time (several states per call when they are small), in the order
     coupling_grid would see them. Returns 0 on success. */
  int (*coupling_grid_batch)(void *ctx, PetscInt np, const struct _BTEModelPair *pairs, PetscInt moff[], PetscInt mode[], PetscReal hw[], PetscReal g2[]);
  /* The couplings cost less to evaluate again than to keep (the GPU import: the counting pass's
     channels are then not kept unless -bte_generate_reuse 1 is given) */
  PetscBool reevaluate;
  /* Optional (the GPU import): the channels of the owned states generated and selected by the model
     in one pass where its couplings live, the same channels in the same order as the builder's
     search would make with coupling_grid_batch. Used when the table is built in memory.
     channels_count: *upper >= the number of channels (the modes that pass the energy test), or
     *ok false where the model cannot (the builder then searches as usual). channels_fill: then
     fills bte->ch (allocated by the builder for *upper channels) and sets *n, and *nlow, those whose
     lower end is owned; *bad true where a channel has a value out of the stated bounds (the builder
     refuses the model as its own selection does). */
  PetscErrorCode (*channels_count)(void *ctx, BTE bte, const BTEModelSearch *search, PetscCount *upper, PetscBool *ok);
  PetscErrorCode (*channels_fill)(void *ctx, BTE bte, PetscCount *n, PetscCount *nlow, PetscBool *bad);
  PetscInt nk[3];         /* k points per direction; 0: bte->ngrid (1 along a3 in 2D) */
  PetscReal window;       /* window width, eV; 0: bte->window */
  const char *source;     /* provenance written to the table; NULL: the bte generate command line */
} BTEModelSpec;

/* Largest band and mode counts a model may have */
#define BTE_MAX_BANDS 64
#define BTE_MAX_MODES 768

/* States and channels from a spec (the generate operation of a model, built-in or an
   application's); collective */
PETSC_EXTERN PetscErrorCode BTEModelBuild(BTE, const BTEModelSpec *);

/* Acoustic phonons and the table's phonon floor (-bte_phonon_min, 1 meV): the builder drops
   channels whose hw is below it (Perturbo's rule), which for light carriers removes most of the
   small-q acoustic scattering. A model may instead keep them under equipartition: hw raised to
   the floor and |g|^2 scaled by floor/hw. The elastic rate ~ |g|^2 (2N + 1) ~ 2 |g|^2 kT/hw is
   then unchanged (to O((floor/kT)^2)), and each such channel exchanges the floor's energy,
   well inside the smearing. floor: the builder's effective floor (BTEModelPhononFloor). */
static inline void BTEModelAcousticRaise(PetscReal floor, PetscReal *hw, PetscReal *g2)
{
  if (*hw > 0 && *hw < floor && *g2 > 0) {
    *g2 *= floor / *hw;
    *hw = floor;
  }
}
/* The acoustic treatments a model offers (-bte_<model>_acoustic_floor) */
typedef enum {
  BTE_ACOUSTIC_FLOOR_DROP,
  BTE_ACOUSTIC_FLOOR_EQUIPARTITION
} BTEAcousticFloor;
static const char *const BTEAcousticFloors[] = {"drop", "equipartition", "BTEAcousticFloor", "BTE_ACOUSTIC_FLOOR_", NULL};
/* The phonon energy below which the builder drops a channel */
#define BTEModelPhononFloor(bte) PetscMax((bte)->phonon_min, BTE_PHONON_FLOOR)
/* Collective: refuse (one line with the figures and advice) when a rank needs more than slack times
   the memory it may use (-bte_memory_limit, else its share of the node); with fits, say instead. */
PETSC_EXTERN PetscErrorCode BTEModelCheckMemory(BTE, PetscLogDouble, PetscLogDouble, const char[], const char[], PetscBool *);
