/* Internal structures of the collision operator (BTECollision), shared by its
   implementations in src/collision/impls/<type>/ (CPU .c and, later, CUDA .cu).

   Division of work:
   - the generic layer (src/collision/, *.c) owns the object, the options, the ghost
     states (local numbering, VecScatter), the physics constants, the Jacobian Mats
     and the TS callbacks;
   - an implementation owns a data layout built once in ops->setup from the held
     channels in local numbering, and the kernels that act on it.

   Local numbering: owned states 0..nlocal-1 (global rstart+l), then the ghosts
   nlocal..nlocal+nghost-1 (the off-rank other ends of held channels, sorted by
   global index). A "local vector" (Vec of type BTECollisionLocalVecType(), length
   nlocal+nghost) holds f on owned states followed by f on ghosts; it is filled by
   BTECollisionGlobalToLocal(). Outputs of the ops are global state Vecs (the owned
   part, nlocal entries).

   No CUDA header is included here. A device back end keeps an opaque handle in the
   implementation's data (made from the host layout on the first apply with CUDA Vecs)
   and the implementation's ops dispatch on the Vec type: with BTE_HAVE_CUDA, fused.c and
   tgt.c call the entry points of bte/private/collisioncuda.h when the local vector is a
   CUDA Vec (BTECollisionVecIsCUDA), else run the OpenMP kernels. The local vector type
   follows the input (BTECollisionLocalVecType: VECSEQCUDA for CUDA state Vecs). */
#pragma once

#include <bte/private/bteimpl.h>
#include <stdint.h>

PETSC_INTERN PetscFunctionList BTECollisionList;
PETSC_EXTERN PetscLogEvent     BTECOLL_Apply, BTECOLL_JacApply, BTECOLL_SetUp, BTECOLL_Ghost, BTECOLL_GhostAdd, BTECOLL_JacAssemble;
PETSC_EXTERN PetscLogEvent     BTECOLL_SetUpEnds, BTECOLL_LayoutPlace, BTECOLL_LayoutMerge, BTECOLL_LayoutIndex;
PETSC_EXTERN PetscLogEvent     BTECOLL_Inner, BTECOLL_Outer, BTECOLL_Refresh;

PETSC_EXTERN PetscErrorCode BTECollisionInitializePackage(void);
PETSC_INTERN PetscErrorCode BTECollisionRegisterAll(void);

typedef enum {
  BTE_COLLISION_PRECISION_DOUBLE = 0, /* weights and accumulation in double */
  BTE_COLLISION_PRECISION_MIXED  = 1  /* weights stored in single precision, accumulation in double (fused only) */
} BTECollisionPrecision;
PETSC_EXTERN const char *const BTECollisionPrecisions[];

/* Which rank computes a channel (-bte_partition). states: every rank computes all channels with an
   owned end, so a channel whose ends live on two ranks is computed (and stored) by both; pairs:
   exactly one of its two holders computes it (balanced, see BTECollisionPartitionSetUp_Private)
   and adds its contribution to the other end into that state's owner (reverse scatter). auto:
   pairs for the pair type on more than one rank, else states. */
typedef enum {
  BTE_COLLISION_PARTITION_AUTO   = 0,
  BTE_COLLISION_PARTITION_STATES = 1,
  BTE_COLLISION_PARTITION_PAIRS  = 2
} BTECollisionPartition;
PETSC_EXTERN const char *const BTECollisionPartitions[];
PETSC_EXTERN PetscErrorCode    BTECollisionSetPartition(BTECollision, BTECollisionPartition);
PETSC_EXTERN PetscErrorCode    BTECollisionGetPartition(BTECollision, BTECollisionPartition *);
/* How the ghost values and the ghosts' sums travel between ranks (-bte_exchange). scatter: PETSc's
   VecScatter (host arrays; for CUDA Vecs device buffers when the MPI is GPU-aware, else staged
   through host memory); nccl: NCCL point-to-point between the ranks' GPUs on a stream of its own,
   for CUDA Vecs with one GPU per rank (exchange.c, exchange_nccl.cu); ipc: CUDA IPC between the
   GPUs of one host, the packing storing into the peers' buffers (exchange_ipc.cu); auto: nccl where
   it can run (CUDA Vecs, several ranks, no two ranks on one GPU, the NCCL library loadable), else
   scatter. */
typedef enum {
  BTE_COLLISION_EXCHANGE_AUTO    = 0,
  BTE_COLLISION_EXCHANGE_SCATTER = 1,
  BTE_COLLISION_EXCHANGE_NCCL    = 2,
  BTE_COLLISION_EXCHANGE_IPC     = 3
} BTECollisionExchange;
PETSC_EXTERN const char *const BTECollisionExchanges[];
/* one line: type, precision, partition, ghost exchange (for the solvers' views) */
PETSC_EXTERN PetscErrorCode BTECollisionViewSummary(BTECollision, PetscViewer);

typedef struct _BTECollisionOps *BTECollisionOps;
struct _BTECollisionOps {
  /* optional: its own PetscObjectOptionsBegin/End block */
  PetscErrorCode (*setfromoptions)(BTECollision);
  /* build the layout from coll->ci/cj (local ends of held channels, in bte->ch order),
     coll->energy/kindex/band (local+ghost) and the constants; set coll->bytes and
     coll->nentries. coll->ci/cj are freed by the generic layer after setup. */
  PetscErrorCode (*setup)(BTECollision);
  /* optional: whether setup builds the layout on the device (*dev), so that the run's memory check
     before it leaves the host build out; setup then checks again if it falls back to the host.
     Absent: built on the host */
  PetscErrorCode (*layoutondevice)(BTECollision, PetscBool *dev);
  /* I = I[f]: fl is a local vector (owned + ghosts), I a global state Vec (owned part) */
  PetscErrorCode (*apply)(BTECollision, Vec fl, Vec Iout);
  /* optional: I[f] (mode 0) or J(f) x (mode 1) from the global Vecs f, x, the implementation
     exchanging the ghosts itself (to overlap the exchange with work that needs no ghost); sets
     *done to PETSC_FALSE when it leaves the call to apply/jacobian_apply */
  PetscErrorCode (*applyglobal)(BTECollision, int mode, Vec f, Vec x, Vec y, PetscBool *done);
  /* y = J(f) x: fl and xl local vectors (owned + ghosts), y global */
  PetscErrorCode (*jacobian_apply)(BTECollision, Vec fl, Vec xl, Vec y);
  /* d = diag J(f): fl local vector, d global */
  PetscErrorCode (*jacobian_diagonal)(BTECollision, Vec fl, Vec d);
  PetscErrorCode (*view)(BTECollision, PetscViewer);
  PetscErrorCode (*destroy)(BTECollision);
  /* optional: recompute the rates of the built layout at the operator's new temperature (coll->kT,
     coll->kTdb already set), everything else kept. Same result to the bit as a fresh build at that
     temperature. Sets *done to PETSC_FALSE when it cannot (nothing kept for it: coll->refresh was
     off at setup, or its data did not fit); the generic layer then rebuilds the operator. Not
     collective: the generic layer agrees the outcome over the ranks. */
  PetscErrorCode (*retemperature)(BTECollision, PetscBool *done);
  /* optional: bytes kept for retemperature on this rank (host and device) */
  PetscErrorCode (*refreshbytes)(BTECollision, PetscLogDouble *);
};

/* Data of an assembled (AIJ) Jacobian: COO pattern, per held channel with an owned end,
   values filled from per-channel P/Q. Built on the first BTECollisionCreateJacobian()
   with assembled matrices, freed with the BTECollision. */
typedef struct {
  PetscCount ncoo; /* COO entries on this rank */
  PetscCount nch;  /* held channels */
  PetscReal *P, *Q;
  PetscInt  *ci, *cj; /* local indices of the channel ends */
  PetscCount *off;   /* off[c]: first COO entry of channel c (n+1 entries) */
  PetscScalar *v;    /* COO values */
} BTECollisionAssembly;

struct _p_BTECollision {
  PETSCHEADER(struct _BTECollisionOps);
  BTE       bte;
  PetscBool setupcalled;
  void     *data; /* implementation */

  /* options */
  BTECollisionPrecision precision;
  PetscBool             assembled; /* -bte_jacobian_assembled: CreateJacobian gives AIJ */

  /* BTECollisionSetTemperature: the lattice temperature of this operator (0: the BTE's) */
  PetscReal  Tset;
  /* BTECollisionSetTemperatureRefresh (-bte_collision_refresh): the setup keeps what a change of
     temperature needs to recompute the rates only (ops->retemperature); tstale: the temperature
     was changed after setup, the next BTECollisionSetUp refreshes (or rebuilds) the operator */
  PetscBool  refresh, tstale;
  PetscBool  optionsset;  /* BTECollisionSetFromOptions was called (a rebuild reads the type's options again) */
  PetscInt   nrefresh, nrebuild; /* temperature changes after setup: rates refreshed / operator rebuilt */
  PetscInt64 ratesid;     /* changes whenever the rates change (setup, refresh): key of caches of P, Q */
  /* physics constants (taken from the BTE, and Tset, at setup) */
  PetscReal  temperature; /* K */
  PetscReal  kT;          /* eV */
  PetscReal  eta;         /* smearing, eV */
  PetscReal  inveta;      /* 1/eta */
  PetscReal  gnorm;       /* 1/(eta sqrt(pi)): G(x) = gnorm exp(-(x/eta)^2) */
  PetscReal  pref;        /* (2 pi / hbar) / Nq, 1/(eV fs) */
  PetscReal  kTdb;        /* -bte_delta balanced: kT (eV) of the detailed balance the weights obey; 0: Perturbo's delta */
  PetscInt64 nq;          /* q points of the full grid */
  PetscInt   nbands, nmodes;
  PetscInt   nk[3];

  /* states: owned + ghosts */
  PetscInt   N, nlocal, rstart, nghost;
  PetscInt  *ghosts; /* global indices of ghosts, sorted */
  PetscReal *energy; /* nlocal+nghost: eV */
  PetscInt  *kindex; /* nlocal+nghost: flattened k index */
  PetscInt  *band;   /* nlocal+nghost */
  VecScatter scatter;  /* global state Vec -> local vector */
  Vec        fl, xl;   /* work local vectors */
  Vec        gtemplate;/* a global state Vec (standard type), template for the scatter */

  /* held channels (bte->ch order), local ends; valid during ops->setup only, and NULL there for a
     type that sets ownends (its setup computes the ends it needs itself, with BTECollLocalIndex) */
  PetscCount nch;
  PetscInt  *ci, *cj;
  PetscBool  ownends;
  PetscCount nentries; /* channel ends stored by the implementation (owned ends) */
  PetscLogDouble bytes; /* memory of the implementation's layout on this rank */
  PetscInt64 napplies, njacapplies; /* BTECollisionApply and Jacobian applies so far (cost accounting) */

  BTECollisionAssembly *assembly;

  /* -bte_partition: as set (partition), and as resolved at setup (part: STATES or PAIRS). With
     PAIRS, the channel {i, j} whose ends are owned by ranks r < s is computed by r when
     BTECollPairHash(i, j) < pfrac[r * psize + s], else by s, or in tile blocks (below) as its
     tile pair's bit says (BTECollComputes). */
  BTECollisionPartition partition, part;
  PetscMPIInt           psize, prank;
  PetscInt             *pranges;   /* psize+1 ownership ranges of the states */
  PetscReal            *pfrac;     /* psize*psize: share of the r-s channels computed by r < s */
  PetscCount            ncomputed; /* channels this rank computes */
  /* PAIRS in tile blocks (ptile > 0, set by the pair type: its tile): every state has a global slot,
     gslot = (first tile of its owner) * ptile + its place among its owner's states by energy, the
     tile its owner's pair layout puts it in; the channels between two such tiles of ranks r < s are
     computed all by r or all by s, by the bit of the tile pair in ptab (set: r), so that a rank's
     chunks are as full as on one rank (BTECollComputesIn) */
  PetscInt  ptile, ntg; /* tile length; tiles of all ranks */
  PetscInt *ptoff;      /* psize + 1: first tile of each rank */
  int32_t  *gslot;      /* global state -> global slot (all states) */
  uint32_t *ptab;       /* ntg x ntg bits, row the lower rank's tile */
  /* PAIRS: the reverse exchange (reverse.c): the ghosts' sums to their owners, one receive slot per
     (state, sending rank), added by the owner in rank order */
  VecScatter                   rscatter; /* local vector (its ghosts that get sums) -> rbuf slots */
  Vec                          rbuf;     /* receive slots, host or CUDA like the output */
  PetscInt                     nrsend, nrrecv;
  PetscInt64                  *rptr;  /* nlocal+1: slots of owned state s are rbuf[rptr[s] .. rptr[s+1]) */
  struct _n_BTECollCUDAReverse *rcuda; /* its device copy (CUDA builds) */
  PetscMPIInt                 *rscnt, *rsdsp, *rrcnt, *rrdsp; /* psize, psize+1: sums sent to / received from each rank */
  PetscInt                    *rfrom, *rpos; /* nrsend local ghost indices sent (by owner); nrrecv slots of the values received (by sender) */

  /* -bte_exchange (exchange.c): as asked, and as chosen on the first CUDA Vec (xsel: 0 not yet,
     1 scatter, 2 the device exchange, by NCCL or by CUDA IPC); xwhy says why nccl was not chosen;
     ncclpath: the library to load */
  BTECollisionExchange exchange;
  int                  xsel;
  /* -bte_exchange_work_first: NCCL's Begin only marks the inputs ready, and the transfers are queued
     by Post (or End) after the work launched in between; xfpend/xrpend: a Post is owed for these Vecs */
  PetscBool            xwork;
  PetscBool            xfpend, xrpend;
  Vec                  xfx, xfxl, xryl;
  char                 xwhy[192], xdesc[320], ncclpath[PETSC_MAX_PATH_LEN];
  struct _n_BTECollNCCL *nccl; /* the NCCL exchange's communicator, streams and device lists */
};

/* ---- physics kernels shared by all implementations (bitwise identical formulas) ---- */
/* G(x) = exp(-(x/eta)^2) / (eta sqrt(pi)) */
static inline PetscReal BTECollGauss(PetscReal x, PetscReal inveta, PetscReal gnorm)
{
  PetscReal y = x * inveta;
  return gnorm * PetscExpReal(-y * y);
}
/* N = 1/(exp(hw/kT) - 1) */
static inline PetscReal BTECollBose(PetscReal hw, PetscReal kT)
{
  return 1.0 / (PetscExpReal(hw / kT) - 1.0);
}
/* -bte_delta balanced (docs/collision.md): the channel's Gaussian weight a + b is split between
   its two directions by the Boltzmann factor of the states' own energy difference d = e_i - e_j,

     P = (a + b) e^u / (2 sinh v),  Q = (a + b) e^-u / (2 sinh v),  u = d / 2kT,  v = hw / 2kT,

   so P / Q = exp(d / kT): every channel obeys detailed balance at kT and Fermi-Dirac at the lattice
   temperature is an exact steady state. Where the channel conserves energy (d = -hw, b = 0, or
   d = +hw, a = 0) this is Perturbo's a N, a (N + 1) (or b (N + 1), b N) exactly. The rates are
   returned as the effective weights a', b' for which eq. 3 (BTECollWeightsPQ) and BTECollXabs give
   these P and Q, so every implementation, and a layout that stores a, b (tgt's STORE_G2DT), keeps
   its form and its bytes:

     a' + b' = (P + Q) / (2N + 1) = (a + b) cosh u / cosh v,   b' - a' = P - Q = (a + b) sinh u / sinh v

   (a' may be negative). collisioncuda_device.h's bte_balance mirrors it. */
static inline void BTECollBalance(PetscReal d, PetscReal hw, PetscReal kT, PetscReal *a, PetscReal *b)
{
  PetscReal eu = PetscExpReal(0.5 * d / kT), ev = PetscExpReal(0.5 * hw / kT);
  PetscReal c = (eu + 1.0 / eu) / (ev + 1.0 / ev), s = (eu - 1.0 / eu) / (ev - 1.0 / ev), h = 0.5 * (*a + *b);
  *a = h * (c - s);
  *b = h * (c + s);
}
/* absorption a and emission b weights (1/fs), docs/theory.md eq. 2; kTdb > 0: balanced (above) */
static inline void BTECollWeightsAB(PetscReal pref, PetscReal inveta, PetscReal gnorm, PetscReal kTdb, PetscReal ei, PetscReal ej, PetscReal hw, PetscReal g2, PetscReal *a, PetscReal *b)
{
  PetscReal d = ei - ej, w = pref * g2;
  *a = w * BTECollGauss(d + hw, inveta, gnorm);
  *b = w * BTECollGauss(d - hw, inveta, gnorm);
  if (kTdb > 0) BTECollBalance(d, hw, kTdb, a, b);
}
/* P = a N + b (N+1) (rate i -> j), Q = a (N+1) + b N (rate j -> i), eq. 3 */
static inline void BTECollWeightsPQ(PetscReal a, PetscReal b, PetscReal N, PetscReal *P, PetscReal *Q)
{
  *P = a * N + b * (N + 1.0);
  *Q = a * (N + 1.0) + b * N;
}
/* x_c of eq. 2 from a, b, N (Perturbo's F_abs / F_em form) */
static inline PetscReal BTECollXabs(PetscReal a, PetscReal b, PetscReal N, PetscReal fi, PetscReal fj)
{
  PetscReal Fabs = fi * (N + fj) - fj * (N + 1.0);
  PetscReal Fem  = fi * (N + 1.0) - fj * (N + fi);
  return -(a * Fabs + b * Fem);
}

/* ---- generic helpers (src/collision) ---- */
/* ghost set, local numbering, scatter, local+ghost energies/kindex/band (called by BTECollisionSetUp) */
PETSC_INTERN PetscErrorCode BTECollisionSetUpGhosts_Private(BTECollision);
/* Vec type of local vectors for a given global state Vec: VECSEQ, or VECSEQCUDA for CUDA Vecs.
   The one place where the local vector type is chosen. */
PETSC_INTERN PetscErrorCode BTECollisionLocalVecType(Vec, VecType *);
/* Make sure *fl is a local vector compatible with x (creates or recreates it). */
PETSC_EXTERN PetscErrorCode BTECollisionGetLocalVec(BTECollision, Vec x, Vec *fl);
/* fl <- owned entries and ghosts of the global state Vec x (logged as BTECollGhost) */
PETSC_INTERN PetscErrorCode BTECollisionGlobalToLocal(BTECollision, Vec x, Vec fl);
/* local index of a global state (owned or ghost); -1 if neither */
PETSC_INTERN PetscErrorCode BTECollisionGlobalToLocalIndex(BTECollision, PetscInt g, PetscInt *l);
/* local index of a global state (owned or ghost), -1 if neither; usable in OpenMP loops */
static inline PetscInt BTECollLocalIndex(BTECollision coll, PetscInt g)
{
  PetscInt lo = 0, hi = coll->nghost;
  if (g >= coll->rstart && g < coll->rstart + coll->nlocal) return g - coll->rstart;
  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;
    if (coll->ghosts[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return (lo < coll->nghost && coll->ghosts[lo] == g) ? coll->nlocal + lo : -1;
}
/* The pairs partition's rules, for the host and (compiled by nvcc) the device: the same code decides
   which rank computes a channel in both places. */
#if defined(__CUDACC__)
  #define BTE_HOST_DEVICE __host__ __device__
#else
  #define BTE_HOST_DEVICE
/* BTECollisionRegister (bte.h) of a program that includes this header: it passes the sizes of
   struct _p_BTECollision and struct _p_BTE it was compiled with, which the library compares with
   its own (see BTEModelRegisterSized) */
PETSC_EXTERN PetscErrorCode BTECollisionRegisterSized(const char[], PetscErrorCode (*)(BTECollision), size_t, size_t);
#define BTECollisionRegister(name, create) BTECollisionRegisterSized(name, create, sizeof(struct _p_BTECollision), sizeof(struct _p_BTE))
#endif
/* uniform in [0, 1) from the two global ends of a channel (the same for all channels of a pair
   of states, so that the pair layout still merges them) */
static inline BTE_HOST_DEVICE PetscReal BTECollPairHash(PetscInt i, PetscInt j)
{
  uint64_t z = ((uint64_t)(uint32_t)i << 32 | (uint64_t)(uint32_t)j) + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  z ^= z >> 31;
  return (PetscReal)(z >> 11) * (1.0 / 9007199254740992.0);
}
/* rank that owns global state g: the largest r with pranges[r] <= g (psize + 1 ranges) */
static inline BTE_HOST_DEVICE PetscMPIInt BTECollOwnerIn(const PetscInt *pranges, PetscMPIInt psize, PetscInt g)
{
  PetscMPIInt lo = 0, hi = psize;
  while (hi - lo > 1) {
    PetscMPIInt mid = (lo + hi) / 2;
    if (g >= pranges[mid]) lo = mid;
    else hi = mid;
  }
  return lo;
}
/* What decides which rank computes a channel under the pairs partition (pointers valid where it
   is evaluated: host, or device copies) */
typedef struct {
  PetscMPIInt      psize, prank;
  const PetscInt  *pranges; /* psize + 1 */
  const PetscReal *pfrac;   /* psize x psize: used when gslot is NULL */
  const int32_t   *gslot;   /* tile blocks: global slot of every state */
  const uint32_t  *ptab;    /* tile blocks: ntg x ntg bits */
  int64_t          ptile, ntg;
} BTECollPartitionRule;
/* Does rank prank compute the channel {i, j} under the pairs partition? Per pair of states by a hash
   and the shares pfrac, or, in tile blocks, by the bit of the tile pair of its two ends */
static inline BTE_HOST_DEVICE PetscBool BTECollComputesIn(const BTECollPartitionRule *p, PetscInt i, PetscInt j)
{
  PetscMPIInt oi = BTECollOwnerIn(p->pranges, p->psize, i), oj = BTECollOwnerIn(p->pranges, p->psize, j), lo, hi;
  PetscBool   bylo;
  if (oi == oj) return PETSC_TRUE;
  lo = oi < oj ? oi : oj;
  hi = oi < oj ? oj : oi;
  if (p->gslot) {
    const int64_t a = p->gslot[oi == lo ? i : j] / p->ptile, b = p->gslot[oi == lo ? j : i] / p->ptile, bit = a * p->ntg + b;
    bylo = (p->ptab[bit >> 5] >> (bit & 31)) & 1u ? PETSC_TRUE : PETSC_FALSE;
  } else bylo = BTECollPairHash(i, j) < p->pfrac[(size_t)lo * p->psize + hi] ? PETSC_TRUE : PETSC_FALSE;
  return bylo == (p->prank == lo) ? PETSC_TRUE : PETSC_FALSE;
}
/* rank that owns global state g (pranges: set up by BTECollisionPartitionSetUp_Private) */
static inline PetscMPIInt BTECollOwner(const BTECollision coll, PetscInt g)
{
  return BTECollOwnerIn(coll->pranges, coll->psize, g);
}
/* the rule of this rank (host pointers) */
static inline void BTECollPartitionRuleGet(const BTECollision coll, BTECollPartitionRule *p)
{
  p->psize   = coll->psize;
  p->prank   = coll->prank;
  p->pranges = coll->pranges;
  p->pfrac   = coll->pfrac;
  p->gslot   = coll->gslot;
  p->ptab    = coll->ptab;
  p->ptile   = coll->ptile;
  p->ntg     = coll->ntg;
}
/* Does this rank compute the held channel with global ends i, j? (every held channel with the
   states partition) */
static inline PetscBool BTECollComputes(const BTECollision coll, PetscInt i, PetscInt j)
{
  BTECollPartitionRule p;
  if (coll->part != BTE_COLLISION_PARTITION_PAIRS || coll->psize == 1) return PETSC_TRUE;
  BTECollPartitionRuleGet(coll, &p);
  return BTECollComputesIn(&p, i, j);
}
/* resolves the partition (coll->part) and, for pairs, the shares pfrac (collective) */
PETSC_INTERN PetscErrorCode BTECollisionPartitionSetUp_Private(BTECollision);
/* the reverse exchange's host side for an exchange that moves the sums itself (pair's
   -bte_pair_exchange_peers): the receive slots to fill, then the adds of BTECollisionReverseEnd */
PETSC_INTERN PetscErrorCode BTECollisionReverseGetSlots_Private(BTECollision, Vec y, PetscScalar **);
PETSC_INTERN PetscErrorCode BTECollisionReverseRestoreSlots_Private(BTECollision, PetscScalar **);
PETSC_INTERN PetscErrorCode BTECollisionReverseAddHost_Private(BTECollision, Vec own, Vec y);
/* how the ghost exchange moves the values of Vecs like x (for views) */
PETSC_EXTERN PetscErrorCode BTECollisionExchangeDescribe(BTECollision, Vec x, const char **desc);
/* y (global) <- sum over ranks of the local vector yl (owned + ghost entries), logged as BTECollGhostAdd */
PETSC_INTERN PetscErrorCode BTECollisionLocalToGlobalAdd(BTECollision, Vec yl, Vec y);
/* the reverse exchange of the pairs partition (reverse.c): set up from the ghosts that get sums
   (sends[nghost]; collective), and split in two so that owned work can run between the halves */
PETSC_INTERN PetscErrorCode BTECollisionReverseSetUp_Private(BTECollision, const PetscBool sends[]);
PETSC_INTERN PetscErrorCode BTECollisionReverseReset_Private(BTECollision);
PETSC_EXTERN PetscErrorCode BTECollisionReverseBegin(BTECollision, Vec yl, Vec y);
PETSC_EXTERN PetscErrorCode BTECollisionReverseEnd(BTECollision, Vec yl, Vec own, Vec y);
/* the forward (ghost) exchange, split in two like VecScatterBegin/End: xl <- x's owned values and
   ghosts; xl must not be read and x not written until End (exchange.c) */
PETSC_EXTERN PetscErrorCode BTECollisionGhostBegin(BTECollision, Vec x, Vec xl);
PETSC_EXTERN PetscErrorCode BTECollisionGhostEnd(BTECollision, Vec x, Vec xl);
/* with -bte_exchange_work_first and NCCL: queue the transfers that Begin only marked (else nothing);
   call after launching the work that is to run first */
PETSC_INTERN PetscErrorCode BTECollisionGhostPost(BTECollision);
PETSC_INTERN PetscErrorCode BTECollisionReversePost(BTECollision);
/* chooses the exchange for Vecs like x (collective; once for CUDA Vecs) */
PETSC_INTERN PetscErrorCode BTECollisionExchangeSelect_Private(BTECollision, Vec x);
/* whether Vecs like x are exchanged by NCCL (collective on the first call, which chooses) */
PETSC_INTERN PetscErrorCode BTECollisionExchangeIsNCCL_Private(BTECollision, Vec x, PetscBool *);
PETSC_EXTERN PetscErrorCode BTECollisionExchangeReset_Private(BTECollision);

/* Composed on bte's matrix-free Jacobians (the collision MATSHELL, the dynamics' collision + drift
   shell): PetscErrorCode f(Mat, BTECollision *, Vec *fl, PetscScalar *scale, PetscScalar *shift,
   PetscBool *whole), the Mat being scale * J_coll(f) + shift * I (+ scale * J_drift; whole is false
   when there is such a term), fl the state's owned + ghost entries. The dynamics preconditioner
   (PCBTETWOLEVEL) rebuilds the operator from it. */
#define BTE_JAC_LINEARIZATION "BTEJacobianGetLinearization_C"
/* local ends (ci, cj) of the held channels, in bte->ch order (caller frees with PetscFree2) */
PETSC_INTERN PetscErrorCode BTECollisionComputeLocalEnds(BTECollision, PetscInt **ci, PetscInt **cj);
/* q index on the full grid of q = k_j - k_i, from two flattened k indices */
static inline PetscInt BTECollQIndex(const PetscInt nk[3], PetscInt ki, PetscInt kj)
{
  PetscInt a0 = ki / (nk[1] * nk[2]), a1 = (ki / nk[2]) % nk[1], a2 = ki % nk[2];
  PetscInt b0 = kj / (nk[1] * nk[2]), b1 = (kj / nk[2]) % nk[1], b2 = kj % nk[2];
  PetscInt q0 = (b0 - a0 + nk[0]) % nk[0], q1 = (b1 - a1 + nk[1]) % nk[1], q2 = (b2 - a2 + nk[2]) % nk[2];
  return (q0 * nk[1] + q1) * nk[2] + q2;
}

/* Target layer (Perturbo v3's `targets` / `stargets_sources`): for every owned state t,
   the signed channel indices (+(c+1) for the i end, -(c+1) for the j end) of the
   channels that update it, rows in channel order. rowptr has nlocal+1 entries. */
PETSC_INTERN PetscErrorCode BTECollisionBuildTargets(PetscInt nlocal, PetscCount nch, const PetscInt ci[], const PetscInt cj[], PetscCount **rowptr, int64_t **src);

/* k-point table of the local+ghost states: distinct k indices (sorted), the k point
   of every local state, and kb2state[kp*nbands + n] = local state or -1. */
typedef struct {
  PetscInt  nkp;
  PetscInt *kp;       /* nkp distinct flattened k indices */
  PetscInt *state_kp; /* nlocal+nghost: k point of each local state */
  int32_t  *kb2state; /* nkp*nbands */
} BTECollisionKTable;
PETSC_INTERN PetscErrorCode BTECollisionKTableCreate(BTECollision, BTECollisionKTable *);
PETSC_INTERN PetscErrorCode BTECollisionKTableDestroy(BTECollisionKTable *);

/* (k, k+q) pairs of the held channels (baseline records, tgt `scatter`): channels
   sorted by (k point of i, k point of j); perm[p] = channel (bte->ch order) at sorted
   position p; pairs have offsets pairptr[0..npair]; ik, ikq k points, iq grid q index. */
typedef struct {
  PetscCount  npair;
  PetscCount *perm;
  PetscCount *pairptr;
  int32_t    *ik, *ikq;
  PetscInt   *iq;
} BTECollisionPairs;
PETSC_INTERN PetscErrorCode BTECollisionPairsCreate(BTECollision, const BTECollisionKTable *, BTECollisionPairs *);
PETSC_INTERN PetscErrorCode BTECollisionPairsDestroy(BTECollisionPairs *);
/* stable counting sort: perm_out lists perm_in reordered by key[perm_in[p]] (0 <= key < nkey) */
PETSC_INTERN PetscErrorCode BTECollisionCountingSort(PetscCount n, const PetscCount perm_in[], const PetscInt key[], PetscInt nkey, PetscCount perm_out[]);

/* Out-scattering rates Gamma_t = -J_tt(f) = sum over channel ends at t of
   [out (1 - f_o) + in f_o] (the RTA inverse lifetime at f = f0), 1/fs. For the
   transport solver (docs/theory.md eq. 5). f and Gamma are global state Vecs. */
/* (declared in bte.h) */
/* Choose MATSHELL (PETSC_FALSE, default) or assembled AIJ (PETSC_TRUE) for BTECollisionCreateJacobian(). */
/* (declared in bte.h) */
/* (declared in bte.h) */
/* Per held channel (bte->ch order) P_c and Q_c of eq. 3 (arrays of length bte->ch.n). */
PETSC_EXTERN PetscErrorCode BTECollisionComputeChannelPQ(BTECollision, PetscReal P[], PetscReal Q[]);
PETSC_INTERN PetscErrorCode BTECollisionComputeChannelPQ_Private(BTECollision, const PetscInt ci[], const PetscInt cj[], PetscReal P[], PetscReal Q[]);
/* The channel ends of the nl owned states, grouped by state (a counting sort, channels in order):
   state t's ends are [endptr[t], endptr[t+1]), each with its other end eo (a local index), the rate
   out of t ePt and into t eQt (P and Q of the channel, swapped at its j end). Freed with PetscFree
   (endptr) and PetscFree3 (eo, ePt, eQt). */
PETSC_INTERN PetscErrorCode BTECollisionEndLists_Private(PetscInt nl, PetscCount nch, const PetscInt ci[], const PetscInt cj[], const PetscReal P[], const PetscReal Q[], PetscCount **endptr, PetscInt **eo, PetscReal **ePt, PetscReal **eQt);
/* Numbers for views and benchmarks: held channels, stored entries, ghosts, bytes of the layout */
/* (declared in bte.h) */
