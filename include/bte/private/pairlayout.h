/* The `pair` collision layout (src/collision/impls/pair/): every unordered pair of states is
   stored ONCE and updates both of its ends, so an apply streams half the entries of `fused`
   (which stores each channel at both ends). Plain C, shared by pair.c and pair_cuda.cu.

   States (owned + ghosts) are renumbered by energy ("layout index") and cut into tiles of
   `tile` states. A pair (a, b), a < b in layout index, is a row entry of row a%tile in the
   block of tile pair (a/tile, b/tile); the entry holds the column b%tile as uint16 and the
   merged rates of all channels of that pair (P, Q summed over modes; eq. 3 is linear in them),
   oriented a -> b. Blocks are cut into chunks of whole rows of at most ~chunk entries; one
   chunk is one unit of work (one CUDA block, one OpenMP iteration): its row sums and its
   column sums (accumulated in per-warp / per-thread private tile arrays: no atomics) go to
   `slots` of a partial buffer, and a second pass adds the slots of every owned state in a
   fixed order. Both passes are deterministic. */
#pragma once

#include <stdint.h>

typedef struct {
  int32_t tile_i, tile_j; /* tiles of the row end and of the column end */
  int32_t row0, nrows;    /* rows row0 .. row0+nrows-1 of tile_i */
  int64_t rp;             /* rowptr[rp .. rp+nrows]: entry range of each row */
  int64_t slot;           /* partial[slot .. slot+nrows-1]: row sums; then tile column sums */
} BTEPairChunk;

typedef struct {
  int32_t       tile, ntile;  /* states per tile, number of tiles */
  int32_t       nlocal, n;    /* owned states, owned + ghosts */
  int32_t       unroll;       /* CUDA: entries per lane loaded before use (2, 4, 8) */
  int32_t       rbatch;       /* CUDA: partial sums each thread of the reduction loads before adding them (1, 4, 8) */
  int32_t       rlanes;       /* CUDA: threads that load one state's partial sums together in the reduction (1, 4, 8, 32) */
  int32_t      *perm;         /* ntile*tile: local state of each layout index, -1 past n */
  int64_t       nchunk;
  BTEPairChunk *chunks;
  int64_t       nrowptr;      /* sum over chunks of nrows + 1 */
  int64_t      *rowptr;
  int64_t       nnz;          /* stored pairs */
  uint16_t     *col;          /* nnz */
  double       *w;            /* 2 nnz: (P, Q) of each pair, double, or NULL */
  float        *ws;           /* 2 nnz in float (mixed precision), or NULL */
  int64_t       npartial;     /* partial buffer length */
  int64_t      *sptr;         /* nlocal+1 */
  int32_t      *slots;        /* sptr[nlocal]: partial entries to add for each owned state */
  /* -bte_pair_one_rate (balanced delta): w / ws hold one rate D per pair (nnz): with r = z[b] (cf /
     z[a]) = exp((e_b - e_a) / kT), z[l] = exp((e_l - zref[tile of l]) / kT) and cf = exp((zref[tile_j]
     - zref[tile_i]) / kT), the detailed balance every pair obeys, D is the downhill rate: r >= 1
     (e_b >= e_a): Q = D, P = D / r; else P = D, Q = D r */
  int32_t       onerate;
  double        kT;           /* eV */
  double       *z;            /* ntile*tile (1 past n) */
  double       *zref;         /* ntile: energy of each tile's first state, eV */
} BTEPairLayout;
