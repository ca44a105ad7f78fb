/* The Perturbo import's couplings on the GPU (src/models/perturbo/epr_cuda.cu), callable from C.
   The host computes the k and q caches (epr_interp.c, perturbo.c steps 1-3) and uploads them once;
   the device then evaluates the candidate pairs of states the builder hands over in batches
   (modelimpl.h's coupling_grid_batch): the phonon-side Fourier sum of the Wannier-gauge vertex,
   once per (k, q) of a batch, the long-range term on its diagonal, the rotation to the Bloch bands
   and the projection on the modes that pass the energy test (the host applies the test), with the CPU's formulas in the CPU's
   order of operations and no fused multiply-adds (the sums agree with the CPU to the last bits of
   cos/sin; docs/import.md states the tolerance). Everything declared here exists only when
   BTE_HAVE_CUDA is defined. */
#pragma once
#include <petscsys.h>
#include <stdint.h>

#if defined(BTE_HAVE_CUDA)
typedef struct {
  PetscInt         nw, nm, nat, nslot, nqtot, gksize, npr;
  const PetscInt  *poff, *pidx; /* nat nw nw + 1 offsets and the phonon-side vector indices */
  const PetscInt  *pR;          /* 3 npr, crystal */
  const PetscReal *gk;          /* nslot gksize: the electron-side sums per k slot */
  const PetscReal *U;           /* nslot 2 nw nw: Bloch eigenvectors */
  const PetscReal *om;          /* nqtot nm, Ry */
  const PetscReal *u;           /* nqtot 2 nm nm: displacement patterns */
  const PetscReal *glr;         /* nqtot 2 nm: long-range vertex (zero when off) */
  PetscBool        qdevice;     /* om, u, glr are device arrays (a BTEEprQCacheCUDA's), adopted on success */
  PetscReal        g2fac;       /* Ry^2 -> eV^2 times Nk/Nq */
} BTEEprCUDAData;

typedef struct _n_BTEEprCUDA *BTEEprCUDA;
/* Phonons at nq crystal points q[3 nq], as epr.h's BTEEprPhonons: om[nq 3nat], u[nq 2 (3nat)^2] (or
   NULL), with the eigenvectors in the device eigensolver's gauge (epr_phonons_cuda.cu) */
PETSC_INTERN PetscErrorCode BTEEprPhononsCUDA(struct _n_BTEEpr *, PetscInt nq, const PetscReal q[], PetscReal om[], PetscReal u[]);
/* The q cache made on the device: om (nqtot nm, Ry), u (nqtot 2 nm nm), glr (nqtot 2 nm) at every
   point of an nq grid, as perturbo.c's host steps make them (the points whose -q comes at or after
   them computed, the others filled by conjugation); the long-range vertex by epr_interp.c's sum in
   its order. */
typedef struct {
  double  *om, *u, *glr;
  PetscInt nqtot, nm;
  void    *job; /* the work Begin left in flight, until End */
} BTEEprQCacheCUDA;
/* minusq[iq]: the index of -q on the grid. Begin enqueues the work on the device and returns, so the
   host can do other work meanwhile; End waits for it and copies the frequencies to the host's
   om[nqtot nm] (unless NULL). *fits = PETSC_FALSE (nothing made, End does nothing) when the device lacks the
   memory. */
PETSC_INTERN PetscErrorCode BTEEprQCacheCUDABegin(struct _n_BTEEpr *, const PetscInt nq[3], const PetscInt minusq[], BTEEprQCacheCUDA *, PetscBool *fits);
PETSC_INTERN PetscErrorCode BTEEprQCacheCUDAEnd(BTEEprQCacheCUDA *, PetscReal om[]);
/* Copies u and glr to the host (for the host's couplings when the device's do not fit) */
PETSC_INTERN PetscErrorCode BTEEprQCacheCUDAGetHost(const BTEEprQCacheCUDA *, PetscReal u[], PetscReal glr[]);
PETSC_INTERN PetscErrorCode BTEEprQCacheCUDADestroy(BTEEprQCacheCUDA *);
/* Starts the GPU (context, cuBLAS and cuSOLVER handles) on a thread of its own, to overlap the
   host's first steps (epr_start_cuda.cu); BTEEprCUDAAvailable joins it */
PETSC_INTERN PetscErrorCode BTEEprCUDAStart(MPI_Comm);
/* PETSC_TRUE when a CUDA device is present (PETSc's device is then initialised) */
PETSC_INTERN PetscErrorCode BTEEprCUDAAvailable(PetscBool *);
  #if defined(__CUDACC__)
    #include <cublas_v2.h>
    #include <cusolverDn.h>
/* The started handles, if made on the device PETSc uses (*got); the caller destroys them */
PETSC_INTERN PetscErrorCode BTEEprCUDATakeHandles(cublasHandle_t *, cusolverDnHandle_t *, PetscBool *got);
  #endif
/* Uploads the caches; nslots work slots (one per OpenMP thread) of at most maxbatch pairs each.
   *fits = PETSC_FALSE (and no object) when the device lacks the memory. */
PETSC_INTERN PetscErrorCode BTEEprCUDACreate(const BTEEprCUDAData *, PetscInt nslots, PetscInt maxbatch, BTEEprCUDA *, PetscBool *fits);
PETSC_INTERN PetscErrorCode BTEEprCUDADestroy(BTEEprCUDA *);
PETSC_INTERN PetscErrorCode BTEEprCUDAGetBytes(BTEEprCUDA, PetscLogDouble *);
/* Seconds over all work slots: packing and enqueueing, waiting for the device, copying out */
PETSC_INTERN PetscErrorCode BTEEprCUDAGetTimes(BTEEprCUDA, double t[3]);
/* Thread-safe for distinct slots (each has its own stream and buffers). nc <= maxbatch pairs, pair
   c given by idx[4c..4c+3] = (k slot, k+q slot, band n, band m) (Wannier band indices), its q point
   qi[c] on the q grid and q[3c..] its crystal coordinates; its modes that pass the energy test are
   mode[moff[c] .. moff[c+1]) (moff[0] = 0, moff[nc] in all). The pairs may come from several states:
   those with the same (k slot, q) share one Wannier-gauge vertex wherever they sit in the batch.
   Out: g2[moff[c] + t] (eV^2) for those modes. One copy to the device, one back and one wait per
   call. Returns 0 on success (no PETSc calls: it runs inside OpenMP regions). */
PETSC_INTERN int BTEEprCUDACouplings(BTEEprCUDA, int slot, PetscInt nc, const int32_t idx[], const int32_t qi[], const double q[], const PetscInt moff[], const PetscInt mode[], double g2[]);

/* The channels generated on the device (epr_channels_cuda.cu): the builder's search (modelimpl.h's
   BTEModelSearch) and selection, the couplings of Vertex and Project, in one pass over the owned
   states, for a table built in memory. */
typedef struct {
  PetscInt         n, rstart, rend, nbins, nk[3], nq[3], qs[3], bmin, nktot, nqtot;
  const PetscInt  *kidx, *band, *ijk, *bin, *binstart, *binlist, *kslot;
  const PetscReal *e, *hwq;               /* hwq: nqtot nm phonon energies, eV */
  const int32_t   *hsort, *hvalid;        /* per q the non-NaN modes sorted by hw, and their count */
  PetscReal        W, tol, hwmin, g2min;  /* the builder's search and selection */
  PetscReal        g2max, hwbound;        /* its bounds (validate.h's BTE_G2_MAX, BTE_PHONON_MAX) */
  PetscReal        mtol, mhwmin;          /* the model's energy test (perturbo.c's PassingModes) */
} BTEEprCUDASearch;
/* Lists every owned state's candidate pairs and their modes that pass the energy test on the device:
   *upper (those modes: at least the channels), *npairs (the pairs with such a mode); *ok false,
   nothing kept, where the device lacks the memory. */
PETSC_INTERN PetscErrorCode BTEEprCUDAChannelsCount(BTEEprCUDA, const BTEEprCUDASearch *, PetscCount *upper, PetscCount *npairs, PetscBool *ok);
/* Then the couplings and the selection on the device, chunk by chunk of states, in the builder's
   order: *n channels, *nlow of them with their lower end owned, *bad where one has a value out of
   bounds; for the host arrays ci.. (room for cap channels). With keepon, the device copy of (i, j,
   hw, g2) goes to the pair layout's device build (BTEPairCUDAAdoptChannels) and the host arrays are
   not filled yet: *pending is then the copy to make, by BTEEprCUDAChannelsCopy(*pending, PETSC_TRUE)
   when the host reads them (or dropped with PETSC_FALSE); else they are filled and *pending NULL. */
PETSC_INTERN PetscErrorCode BTEEprCUDAChannelsFill(BTEEprCUDA, PetscCount cap, PetscInt ci[], PetscInt cj[], PetscInt cmode[], PetscReal chw[], PetscReal cg2[], PetscObject keepon, PetscCount *n, PetscCount *nlow, PetscBool *bad, void **pending);
PETSC_INTERN PetscErrorCode BTEEprCUDAChannelsCopy(void *pending, PetscBool fill);
/* Frees what ChannelsCount kept (BTEEprCUDADestroy calls it) */
PETSC_INTERN PetscErrorCode BTEEprCUDAChannelsFree(BTEEprCUDA);
#endif
