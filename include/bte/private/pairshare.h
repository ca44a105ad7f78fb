/* -bte_pair_share_node (src/collision/impls/pair/pair_share.c): the ranks of one node take over each
   other's chunks. A static partition balances the work, not the time: on a
   shared machine one rank's core is often slower for a whole run (GaAs 90^3, 16 ranks on 16 cores:
   the slowest rank's work 1.2-1.5x the fastest's, a different rank in every run), and every rank
   then waits for it in the exchange. OpenMP's dynamic schedule absorbs that on one rank; this does
   the same across ranks, for all of an apply's chunks. Each rank's layout arrays, its f and x in layout order and its partial
   buffer live in an MPI shared-memory window of the node; a chunk is claimed through an atomic counter
   of its rank and written to that rank's partial slots by whoever runs it, so every sum is the
   same to the bit. Host Vecs only. */
#pragma once
#include <bte/private/pairlayout.h>
#include <petscsys.h>

typedef struct _n_BTEPairShare *BTEPairShare;

/* one chunk c of L into partial (pair.c's host kernels; acc: L->tile doubles of scratch) */
typedef void (*BTEPairShareChunkFn)(const BTEPairLayout *L, int64_t c, int mode, const double *fp, const double *xp, double *acc, double *partial);

/* Collective on comm. *sh is NULL when no other rank of comm shares this rank's node. Otherwise the
   layout's chunks, rowptr, col, w / ws, z / zref, the nf-long fp and xp and the partial buffer are
   copied into the window: BTEPairShareArrays gives their new places (the caller frees the old
   ones). */
PETSC_INTERN PetscErrorCode BTEPairShareCreate(MPI_Comm comm, const BTEPairLayout *L, int64_t nf, const double *fp, const double *xp, const double *partial, BTEPairShareChunkFn fn, BTEPairShare *sh);
PETSC_INTERN PetscErrorCode BTEPairShareArrays(BTEPairShare sh, BTEPairLayout *L, double **fp, double **xp, double **partial);
/* One phase: runs this rank's chunks k0 .. k1-1 (their f, and x for mode 1, already in fp / xp),
   takes over the other ranks' of the same phase while any are left, and returns when every one of
   this rank's is done, by whomever. Collective on the node: every rank calls it as often, with its
   own range. stall_ms > 0 (a test's diagnostic): rank 0 of the node waits that long before its own
   chunks. */
PETSC_INTERN PetscErrorCode BTEPairShareRun(BTEPairShare sh, int64_t k0, int64_t k1, int mode, PetscBool hasx, PetscReal stall_ms);
/* chunks of this rank run by others, and of others run here, summed over the applies so far */
PETSC_INTERN PetscErrorCode BTEPairShareCounts(BTEPairShare sh, int64_t *byothers, int64_t *forothers, PetscMPIInt *nodesize);
PETSC_INTERN PetscErrorCode BTEPairShareDestroy(BTEPairShare *sh);
