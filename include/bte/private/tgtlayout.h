/* The `tgt` collision layout (src/collision/impls/tgt/): Perturbo v3's GPU data structure, two
   passes. Plain C, shared by tgt.c (host build, OpenMP kernels) and tgt_cuda.cu /
   tgt_build_cuda.cu (device kernels, device build).

   Perturbo v3 (pert-src/boltz_scatter.f90, boltz_scatter_integral_tgt.f90) keeps
     scatter(i)            per (k, k+q) pair: ik, ikq, iq                      -> scatter
     scatter_channels(ns)  per channel: scat_index, bands_index, eph_g2        -> pairidx, bands, g2
                           (with STORE_G2DT: g2_dt1, g2_dt2 instead of eph_g2) -> g2dt
     qgrid%freq(im, iq)    phonon energies of the selected q points            -> wqn (hw and N)
     scatter_targets(i)    per target: tgt_index, nsrc, src_start_index        -> order, rowptr
                           (CDYN_SORT_SCAT_TGTS: sorted by decreasing nsrc)
     scattgts_sources(j)   signed channel indices sorted by target             -> sources
     scatchan_mkq2nk(ns)   pass-1 value per channel                            -> sc_col (work)
   and an apply is pass 1 (one value per channel) then pass 2 (each target sums its signed
   sources). What differs from Perturbo, and why:
   - bands is bit-packed (m | n << bbits | mode << 2 bbits) instead of (mode*nb + n)*nb + m: the
     kernels decode it with shifts and masks, not three integer divisions by run-time values;
   - the phonon table holds N beside hw (bte's applies run at a fixed lattice temperature;
     Perturbo evaluates bose() per channel in every apply), interleaved so that a channel reads
     one 16-byte (hw, N) record;
   - targets are the owned states of this rank (bte distributes states, not k points), and the
     layout stores their order (decreasing source count with -bte_tgt_sort_targets) beside a row
     pointer indexed by state;
   - indices are 32-bit (channels < 2^31 per rank, sources < 2^32), as Perturbo's.
   A layout built on the device has its per-channel arrays (scatter, pairidx, bands, g2 or g2dt,
   hwch, sources) on the device only, until a host apply downloads them; the flags and the small
   arrays (wqn, kb2state, rowptr, order) are always on the host. */
#pragma once

#include <stdint.h>

typedef struct {
  int32_t  nlocal, n;              /* owned states (the targets), owned + ghosts */
  int32_t  nbands, nmodes, bbits;  /* bbits: bits of a band index in the packed bands */
  int32_t  nkp, nqc;               /* k points of local states, rows of the phonon table */
  int64_t  nch, npair, nentries;   /* channels, (k, k+q) pairs, sources */
  int32_t  store_g2dt;             /* g2dt instead of g2 (-bte_tgt_store_g2dt) */
  int32_t  hw_per_channel;         /* hwch instead of the table's hw */
  int32_t *scatter;                /* 3 npair: ik, ikq (k points), iq (row of the phonon table) */
  int32_t *pairidx;                /* nch: pair of each channel */
  int32_t *bands;                  /* nch: m | n << bbits | mode << (2 bbits) */
  double  *g2;                     /* nch: |g|^2, eV^2 (NULL with g2dt) */
  double  *g2dt;                   /* 2 nch: (a, b) = pref |g|^2 (G(d + hw), G(d - hw)) (STORE_G2DT), or NULL */
  double  *wqn;                    /* 2 nqc nmodes: (hw, N) of each (row, mode); hw < 0: no channel */
  double  *hwch;                   /* nch: hw per channel when hw is not a function of (q, mode); else NULL */
  int32_t *kb2state;               /* nkp nbands: local state of (k point, band), -1 if none */
  int64_t *rowptr;                 /* nlocal + 1: sources of owned state t are rowptr[t] .. rowptr[t+1]-1 */
  int32_t *order;                  /* nlocal: the targets in the order pass 2 runs them */
  int32_t *sources;                /* nentries: +(s+1) for the i end of channel s, -(s+1) for its j end */
} BTETgtLayout;

/* unpack a bands entry */
#define BTE_TGT_M(pk, bb)    ((pk) & ((1 << (bb)) - 1))
#define BTE_TGT_N(pk, bb)    (((pk) >> (bb)) & ((1 << (bb)) - 1))
#define BTE_TGT_MODE(pk, bb) ((pk) >> (2 * (bb)))
