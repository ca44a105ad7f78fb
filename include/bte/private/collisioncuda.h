/* CUDA back ends of the collision implementations (src/collision/impls/<type>/<type>_cuda.cu), callable
   from C. No CUDA header is included: the device data sit behind opaque handles, and the entry points
   take PETSc Vecs of type VECSEQCUDA (local vectors, owned + ghosts) and VECSEQCUDA/VECMPICUDA (global
   state Vecs), whose device arrays they use in place (VecCUDAGetArrayRead/Write): no host<->device
   copy in an apply. Kernels run on the stream of PETSc's current device context.

   An implementation's .c file dispatches on the Vec:
     #if defined(BTE_HAVE_CUDA)
       PetscBool dev;
       PetscCall(BTECollisionVecIsCUDA(fl, &dev));
       if (dev) { ... create the handle once from the host layout, then call ..._CUDA ...; return }
     #endif
   Everything declared here exists only when BTE_HAVE_CUDA is defined (a PETSc configured with CUDA). */
#pragma once

#include <petscvec.h>
#include <stdint.h>
#include <bte/private/pairlayout.h>
#include <bte/private/tgtlayout.h>

/* PETSC_TRUE when v is a CUDA Vec (its arrays for the collision kernels live on the device). */
static inline PetscErrorCode BTECollisionVecIsCUDA(Vec v, PetscBool *iscuda)
{
  PetscFunctionBegin;
  *iscuda = PETSC_FALSE;
  if (v) PetscCall(PetscObjectTypeCompareAny((PetscObject)v, iscuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
PETSC_EXTERN PetscLogEvent BTECOLL_CUDAUpload;

/* ---- fused: target-sorted CSR, entry (int32 other end, out rate, in rate) ----
   Host layout as src/collision/impls/fused/fused.c builds it: rowptr[nlocal+1], col[nnz],
   weights interleaved w[2 nnz] = (out, in) in double, or ws[2 nnz] in float (mixed precision:
   float weights, double sums). Exactly one of w, ws is non-NULL. The arrays are copied to the
   device once (BTEFusedCUDACreate) and may be freed by the caller afterwards. */
typedef struct _n_BTEFusedCUDA *BTEFusedCUDA;
PETSC_INTERN PetscErrorCode BTEFusedCUDACreate(PetscInt nlocal, PetscInt nghost, PetscCount nnz, const PetscCount rowptr[], const int32_t col[], const PetscReal w[], const float ws[], BTEFusedCUDA *);
PETSC_INTERN PetscErrorCode BTEFusedCUDADestroy(BTEFusedCUDA *);
/* Iout = I[f]; fl local (owned + ghosts, VECSEQCUDA), I global (CUDA) */
PETSC_INTERN PetscErrorCode BTEFusedCUDAApply(BTEFusedCUDA, Vec fl, Vec Iout);
/* y = J(f) x; fl, xl local; y global */
PETSC_INTERN PetscErrorCode BTEFusedCUDAJacobianApply(BTEFusedCUDA, Vec fl, Vec xl, Vec y);
/* d = diag J(f) */
PETSC_INTERN PetscErrorCode BTEFusedCUDAJacobianDiagonal(BTEFusedCUDA, Vec fl, Vec d);
PETSC_INTERN PetscErrorCode BTEFusedCUDAGetBytes(BTEFusedCUDA, PetscLogDouble *);

/* ---- pair: one entry per pair of states, tile-private column sums (pairlayout.h) ----
   The host layout is copied to the device once; mode 0: Y = I[f]; 1: Y = J(f) x; 2: Y = diag J(f). */
typedef struct _n_BTEPairCUDA *BTEPairCUDA;
PETSC_INTERN PetscErrorCode BTEPairCUDACreate(const BTEPairLayout *, BTEPairCUDA *);
PETSC_INTERN PetscErrorCode BTEPairCUDADestroy(BTEPairCUDA *);
PETSC_INTERN PetscErrorCode BTEPairCUDARun(BTEPairCUDA, int mode, Vec fl, Vec xl, Vec Y, PetscBool mark);
/* the two halves of Run, for the overlap of the pairs partition: the chunks c0..c1-1 (f, x indexed
   by local state: local vectors, or the global Vecs for chunks of owned tiles only), and the sums
   of the local states s0..s1-1 into y (a local vector, or the global Vec for owned states) */
PETSC_INTERN PetscErrorCode BTEPairCUDAChunks(BTEPairCUDA, int mode, PetscInt64 c0, PetscInt64 c1, Vec f, Vec x);
PETSC_INTERN PetscErrorCode BTEPairCUDAReduce(BTEPairCUDA, PetscInt s0, PetscInt s1, Vec y);
PETSC_INTERN PetscErrorCode BTEPairCUDAGetBytes(BTEPairCUDA, PetscLogDouble *);
/* Side stream (-bte_pair_side_stream): between Begin and End the layout's kernels and the
   exchange's marks and waits go to a stream of the layout's own, at the highest priority; End
   makes PETSc's stream wait for what was queued there. */
PETSC_INTERN PetscErrorCode BTEPairCUDASideBegin(BTEPairCUDA);
PETSC_INTERN PetscErrorCode BTEPairCUDASideEnd(BTEPairCUDA);
/* -bte_pair_timeline: device events at the marks of an apply (mark 0 starts one; the marks are
   BTE_PAIR_MARK_*), and the mean time of each mark after the start over the applies after the
   first (ms, -1 where never recorded) */
#define BTE_PAIR_MARKS 7
enum {
  BTE_PAIR_MARK_START,
  BTE_PAIR_MARK_OWNED,       /* the owned chunks done (PETSc's stream) */
  BTE_PAIR_MARK_GHOSTS_IN,   /* the ghost values arrived (side stream) */
  BTE_PAIR_MARK_GHOST_WORK,  /* the chunks that need them done (side stream) */
  BTE_PAIR_MARK_GHOST_SUMS,  /* the ghosts' sums made (side stream) */
  BTE_PAIR_MARK_OWNED_SUMS,  /* the owned states' sums made (PETSc's stream) */
  BTE_PAIR_MARK_END          /* the ghosts' sums received and added (PETSc's stream) */
};
PETSC_INTERN PetscErrorCode BTEPairCUDAMark(BTEPairCUDA, int);
PETSC_INTERN PetscErrorCode BTEPairCUDAMarksGet(BTEPairCUDA, double ms[], long *napply);
/* host col and w/ws of a layout built on the device (L's host index arrays must be there) */
PETSC_INTERN PetscErrorCode BTEPairCUDADownload(BTEPairCUDA, BTEPairLayout *);

/* ---- pair layout built on the device (pair_build_cuda.cu) ----
   Create (fits = PETSC_FALSE and no builder when the device lacks the memory); Add the held
   channels (the table's arrays, global ends; in one call when an owner keeps them); Merge sorts and merges on
   the device and returns the non-empty rows (row key = tile pair * tile + row, and entry count;
   host arrays, PetscFree2). The host cuts chunks and row pointers from them (L->chunks,
   L->rowptr); Touched returns each chunk's column bitmap ((tile+31)/32 words per chunk,
   PetscFree); the host makes the slot lists; Finish creates the BTEPairCUDA and destroys the
   builder. */
typedef struct {
  PetscInt         n, nlocal, rstart, nghost; /* local states: owned, then ghosts */
  const PetscInt  *ghosts;                    /* nghost global indices, ascending */
  const int32_t   *inv;                       /* n: layout index of each local state */
  const PetscReal *energy;                    /* n: eV */
  PetscReal        pref, inveta, gnorm, kT;   /* as BTECollision */
  PetscReal        kTdb;                      /* as BTECollision: > 0 balanced delta */
} BTEPairCUDABuildInfo;
typedef struct _n_BTEPairCUDABuilder *BTEPairCUDABuilder;
typedef struct _n_BTEPairCUDARates   *BTEPairCUDARates; /* below */
/* keep: keep what a refresh of the rates at another temperature needs (BTEPairCUDARates below;
   possible only when Add is given an owner that keeps the channel arrays on the device) */
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderCreate(const BTEPairLayout *, const BTEPairCUDABuildInfo *, PetscCount nch, PetscBool mixed, PetscBool keep, PetscBool *fits, BTEPairCUDABuilder *);
/* owner (may be NULL): an object on which a device copy of the arrays is kept (composed) when the
   device has room for it, and found again by the next build with the same arrays */
/* The device copy of a BTE's channel arrays made elsewhere (the GPU import's channels: device arrays
   of n channels, cudaMalloc'ed, equal to the host arrays hi[] (ends i) and hg2[] ... of owner's
   table), handed over as if an earlier build had kept them: the next device build of the pair layout
   on owner's table then moves nothing to the device. *kept false (nothing taken) without an owner.
   With hold, *hold gets a reference to the object holding them (PetscObjectDereference it). */
PETSC_INTERN PetscErrorCode BTEPairCUDAAdoptChannels(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], PetscInt *di, PetscInt *dj, double *dhw, double *dg2, PetscObject *hold, PetscBool *kept);
/* Whether owner keeps a device copy of its n channels hi[] (ends i), hg2[] */
PETSC_INTERN PetscErrorCode BTEPairCUDAHasChannels(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], PetscBool *has);
/* The channel graph's pieces from that device copy: par[v] = the smallest state index of v's piece
   (N states); *done false where there is no copy */
PETSC_INTERN PetscErrorCode BTEPairCUDAChannelComponents(PetscObject owner, PetscCount n, const PetscInt hi[], const PetscReal hg2[], PetscInt N, PetscInt par[], PetscBool *done);
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderAdd(BTEPairCUDABuilder, PetscObject owner, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[]);
/* all n held channels to the device (kept on owner), the ones this rank computes selected there and
   keyed (as many as the builder has left to receive); *done false, nothing pushed, where they do
   not fit */
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderAddSelected(BTEPairCUDABuilder, PetscObject owner, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscReal hw[], const PetscReal g2[], const BTECollPartitionRule *, PetscBool *done);
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderMerge(BTEPairCUDABuilder, PetscInt64 *nnz, PetscInt64 *nrows, uint64_t **rowkey, int32_t **rowcount);
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderTouched(BTEPairCUDABuilder, const BTEPairLayout *, uint32_t **bits);
/* *rates: what a refresh needs, when the builder was asked to keep it and could (else NULL) */
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderFinish(BTEPairCUDABuilder *, const BTEPairLayout *, BTEPairCUDA *, BTEPairCUDARates *rates);
PETSC_INTERN PetscErrorCode BTEPairCUDABuilderDestroy(BTEPairCUDABuilder *);
/* An identifier of the GPU this process uses, the same in every process that uses it (its PCI
   domain, bus and device), so that the ranks sharing one GPU can find each other */
PETSC_INTERN PetscErrorCode BTEPairCUDADeviceKey(int *key);
/* A refresh of the device-built layout's rates at another temperature (-bte_collision_refresh):
   the sort permutation of the build (4 B per channel) and the local states' data on the device.
   Refresh recomputes every channel's key and rates from the channel arrays the owner keeps on the
   device (BuilderAdd), puts them in the sorted order of the build and merges them with the
   build's own reduction, so the weights are those of a fresh device build at kT, to the bit;
   *done is PETSC_FALSE (nothing changed) when the owner no longer keeps those arrays or the device
   lacks the memory (48 B per channel while it runs). */
PETSC_INTERN PetscErrorCode BTEPairCUDARatesRefresh(BTEPairCUDARates, PetscObject owner, PetscCount n, const PetscInt ci[], const PetscReal g2[], PetscReal kT, PetscReal kTdb, BTEPairCUDA, PetscBool *done);
PETSC_INTERN PetscErrorCode BTEPairCUDARatesGetBytes(BTEPairCUDARates, PetscLogDouble *);
PETSC_INTERN PetscErrorCode BTEPairCUDARatesDestroy(BTEPairCUDARates *);

/* ---- the reverse exchange of the pairs partition (reverse.c; reverse_cuda.cu) ----
   y[s] = own[s] (or y[s] when own is NULL) + rbuf[rptr[s] .. rptr[s+1]) added in that order, for
   the nlocal owned states, on the device; the handle keeps rptr's device copy (made on first use). */
PETSC_INTERN PetscErrorCode BTECollCUDAReverseAdd(struct _n_BTECollCUDAReverse **, PetscInt nlocal, const PetscInt64 rptr[], Vec own, Vec rbuf, Vec y);
PETSC_INTERN PetscErrorCode BTECollCUDAReverseDestroy(struct _n_BTECollCUDAReverse **);

/* ---- the NCCL exchange (exchange_nccl.cu; chosen by exchange.c, -bte_exchange) ----
   The ghost values (forward) and the ghosts' sums (reverse, pairs partition) go between the ranks'
   GPUs by NCCL point-to-point calls on a stream of the exchange's own, ordered against PETSc's
   stream by events: Begin queues the packing and the transfers behind the work already queued,
   End makes the work queued after it wait for them. Neither waits on the host. The library is
   loaded at run time (dlopen), so a build needs no NCCL and a run without one falls back. */
typedef struct {
  PetscInt           nlocal, nghost;
  PetscInt           nfsend;                     /* forward: owned values sent, by destination rank */
  const PetscInt    *fsend;                      /* nfsend owned local indices */
  const PetscMPIInt *fscnt, *fsdsp, *frcnt, *frdsp; /* psize (+1): sent to / received from each rank; frdsp within the ghosts */
  PetscInt           nrsend, nrrecv;             /* reverse: ghosts' sums sent, slots received */
  const PetscInt    *rfrom, *rpos;               /* nrsend local ghost indices; nrrecv receive slots */
  const PetscMPIInt *rscnt, *rsdsp, *rrcnt, *rrdsp;
} BTECollNCCLLists;
typedef struct _n_BTECollNCCL *BTECollNCCL;
/* collective: can NCCL run here (no two ranks on one GPU, the library loads on every rank)? why: the reason when not */
PETSC_INTERN PetscErrorCode BTECollNCCLProbe(MPI_Comm, const char *library, PetscBool *ok, char why[], size_t len);
/* ipc: move the values by CUDA IPC (exchange_ipc.cu) instead of NCCL's calls; library is then not
   loaded, and *out is NULL on every rank (why: the reason) when a rank cannot map a peer's memory */
PETSC_INTERN PetscErrorCode BTECollNCCLCreate(MPI_Comm, const char *library, PetscBool ipc, const BTECollNCCLLists *, BTECollNCCL *out, char why[], size_t len);
PETSC_INTERN PetscErrorCode BTECollNCCLDestroy(BTECollNCCL *);
PETSC_INTERN PetscErrorCode BTECollNCCLVersion(BTECollNCCL, int *);
PETSC_INTERN PetscErrorCode BTECollNCCLIsIPC(BTECollNCCL, PetscBool *);
/* xl (local, CUDA) <- the owned values of x (global, CUDA) and the ghosts from their owners */
PETSC_INTERN PetscErrorCode BTECollNCCLForwardBegin(BTECollNCCL, Vec x, Vec xl);
/* Begin in two halves (-bte_exchange_work_first): Mark records that x is ready on PETSc's stream,
   Post queues the transfers behind that mark (work queued between them runs meanwhile) */
PETSC_INTERN PetscErrorCode BTECollNCCLForwardMark(BTECollNCCL, Vec x);
PETSC_INTERN PetscErrorCode BTECollNCCLForwardPost(BTECollNCCL, Vec x, Vec xl);
PETSC_INTERN PetscErrorCode BTECollNCCLForwardEnd(BTECollNCCL);
/* the ghost entries of yl (local, CUDA) to their owners, into the receive slots of rbuf (CUDA) */
PETSC_INTERN PetscErrorCode BTECollNCCLReverseBegin(BTECollNCCL, Vec yl);
PETSC_INTERN PetscErrorCode BTECollNCCLReverseMark(BTECollNCCL, Vec yl);
PETSC_INTERN PetscErrorCode BTECollNCCLReversePost(BTECollNCCL, Vec yl);
PETSC_INTERN PetscErrorCode BTECollNCCLReverseEnd(BTECollNCCL, Vec rbuf);

/* ---- the CUDA IPC transport of the device exchange (exchange_ipc.cu; -bte_exchange ipc) ----
   Each rank maps its peers' receive buffers and flags once; an exchange is a send kernel that
   stores into the peers' buffers and sets their arrival flags, and a receive kernel that polls this
   rank's flags, copies out and acknowledges (no host wait). Works for ranks on one host, also
   several on one GPU. */
typedef struct _n_BTECollIPC *BTECollIPC;
/* collective: are all ranks on one host? why: the reason when not */
PETSC_INTERN PetscErrorCode BTECollIPCProbe(MPI_Comm, PetscBool *ok, char why[], size_t len);
/* collective: every rank's GPU UUID (all: 16 bytes per rank, PetscFree it; NULL: not kept) and whether
   another rank uses this rank's GPU */
PETSC_INTERN PetscErrorCode BTECollCUDAGatherGPUs(MPI_Comm, unsigned char mine[16], unsigned char **all, PetscBool *shared);
/* collective: what -bte_exchange auto needs besides: one GPU per rank, and peer access between them all */
PETSC_INTERN PetscErrorCode BTECollIPCProbeAuto(MPI_Comm, PetscBool *ok, char why[], size_t len);
/* collective; *out NULL on every rank (why: the reason) when a rank cannot map a peer's memory */
PETSC_INTERN PetscErrorCode BTECollIPCCreate(MPI_Comm, const BTECollNCCLLists *, BTECollIPC *out, char why[], size_t len);
PETSC_INTERN PetscErrorCode BTECollIPCDestroy(BTECollIPC *);
/* (BTECollIPCSend and BTECollIPCRecv, which take a stream, are declared in collisioncuda_device.h) */

/* ---- tgt: Perturbo v3's layout (tgtlayout.h), two passes: pass 1 per channel into sc_col, pass 2
   per target in the layout's order ----
   Create uploads a host-built layout (its arrays may be freed afterwards); a layout built on the
   device (below) is made by BTETgtCUDABuilderFinish. Run: mode 0 Y = I[f]; 1 Y = J(f) x; 2 Y = diag J.
   Download gives a device-built layout its host per-channel arrays (for a host apply). */
typedef struct {
  PetscReal        pref, inveta, gnorm, kT; /* as BTECollision */
  PetscReal        kTdb;                    /* as BTECollision: > 0 balanced delta */
  const PetscReal *energy;                  /* n = owned + ghosts, eV */
  PetscInt         lanes;                   /* -bte_tgt_lanes: threads per target in pass 2 (0: chosen here) */
} BTETgtCUDAInfo;
typedef struct _n_BTETgtCUDA *BTETgtCUDA;
PETSC_INTERN PetscErrorCode BTETgtCUDACreate(const BTETgtLayout *, const BTETgtCUDAInfo *, BTETgtCUDA *);
PETSC_INTERN PetscErrorCode BTETgtCUDADestroy(BTETgtCUDA *);
PETSC_INTERN PetscErrorCode BTETgtCUDARun(BTETgtCUDA, int mode, Vec fl, Vec xl, Vec Y);
PETSC_INTERN PetscErrorCode BTETgtCUDADownload(BTETgtCUDA, BTETgtLayout *);
PETSC_INTERN PetscErrorCode BTETgtCUDAGetBytes(BTETgtCUDA, PetscLogDouble *);

/* ---- tgt layout built on the device (tgt_build_cuda.cu) ----
   Create (fits = PETSC_FALSE and no builder when the device lacks the memory; L's sizes and
   kb2state must be set); Add the held channels (the table's arrays, global ends; one call);
   Layout sorts them into pairs on the device and builds scatter, scatter_channels, the phonon
   table's hw (L->wqn on the host, N left to the caller), hw per channel when the table does not
   describe the channels (consistent = PETSC_FALSE), the products of STORE_G2DT and the sources,
   and returns L->npair, L->nqc, L->nentries and L->rowptr (host); the caller sets N and L->order;
   Finish creates the BTETgtCUDA (uploading wqn, kb2state and the target records) and destroys the
   builder. The result is the host build's layout (tgt.c), up to the last bits of the device's
   exp() in the STORE_G2DT products. */
typedef struct {
  PetscInt         nlocal, nghost, rstart;
  const PetscInt  *ghosts;          /* nghost global indices, ascending */
  const PetscInt  *state_kp, *band; /* n: k point and band of each local state */
  const PetscInt  *kp;              /* nkp: flattened k index of each k point */
  const PetscReal *energy;          /* n: eV */
  PetscInt64       nq;              /* points of the full q grid */
  PetscInt         nk[3];
  PetscReal        pref, inveta, gnorm;
  PetscReal        kTdb;            /* as BTECollision: > 0 balanced delta */
  PetscBool        g2dt;            /* store the products (STORE_G2DT) instead of |g|^2 */
} BTETgtCUDABuildInfo;
typedef struct _n_BTETgtCUDABuilder *BTETgtCUDABuilder;
PETSC_INTERN PetscErrorCode BTETgtCUDABuilderCreate(const BTETgtLayout *, const BTETgtCUDABuildInfo *, PetscBool *fits, BTETgtCUDABuilder *);
PETSC_INTERN PetscErrorCode BTETgtCUDABuilderAdd(BTETgtCUDABuilder, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscInt mode[], const PetscReal hw[], const PetscReal g2[]);
PETSC_INTERN PetscErrorCode BTETgtCUDABuilderLayout(BTETgtCUDABuilder, BTETgtLayout *, PetscBool *consistent);
PETSC_INTERN PetscErrorCode BTETgtCUDABuilderFinish(BTETgtCUDABuilder *, const BTETgtLayout *, const BTETgtCUDAInfo *, BTETgtCUDA *);
PETSC_INTERN PetscErrorCode BTETgtCUDABuilderDestroy(BTETgtCUDABuilder *);
#endif
