/* Test utility: a small synthetic random BTE built through the private API, identical for any
   number of ranks (every random number is a hash of a seed and global indices).

   States: (k, band) on an nk^3 grid with a random energy in [0, 1.2 emax) (band offset 0.02 eV
   per band); states with e < emax are kept, numbered k-major. Channels: pairs i < j of states
   at different k, one per mode nu, with hw = hw0[nu] (0.8 + 0.4 u(q, nu)) (a function of
   q = k_j - k_i and nu), kept when | |e_i - e_j| - hw | < tol eta and a random draw is below
   -synth_keep; |g|^2 random in [0.1, 1.1] * 1e-3 eV^2. A rank holds the channels with an
   owned end.
   Options: -synth_nk 6 -synth_nbands 2 -synth_nmodes 3 -synth_emax 0.25 -synth_keep 0.5 -synth_seed 1,
   -synth_hw_per_channel (hw also depends on the channel's ends, by up to 1e-6 relative: no longer a
   function of (q, nu), so that tgt keeps hw per channel), plus the BTE's -bte_smearing and
   -bte_temperature. */
#pragma once
#include <bte/private/bteimpl.h>
#include <stdint.h>
/* uses BTEAllocateStates, BTEAllocateChannels and BTEGridSetReciprocal (exported by libbte) */

static inline uint64_t SynthMix(uint64_t z)
{
  z += 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
/* uniform in [0,1) from (seed, a, b, c) */
static inline double SynthU(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
  uint64_t h = SynthMix(seed ^ SynthMix(a ^ SynthMix(b ^ SynthMix(c))));
  return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* f in (0.02, 0.98) from a seed and the global state index */
static inline double SynthOccupation(uint64_t seed, PetscInt g)
{
  return 0.02 + 0.96 * SynthU(seed, 77, (uint64_t)g, 3);
}

static PetscErrorCode SynthFillVec(Vec f, uint64_t seed)
{
  PetscInt     lo, hi;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(f, &lo, &hi));
  PetscCall(VecGetArrayWrite(f, &a));
  for (PetscInt g = lo; g < hi; g++) a[g - lo] = SynthOccupation(seed, g);
  PetscCall(VecRestoreArrayWrite(f, &a));
  PetscFunctionReturn(0);
}

static PetscErrorCode SynthCreateBTE(MPI_Comm comm, BTE *out)
{
  BTE        bte;
  PetscInt   nk = 6, nb = 2, nm = 3, nkt, N = 0, *kidx, *bidx, rstart, rend;
  PetscReal  emax = 0.25, keep = 0.5, *en;
  PetscInt   seedi = 1;
  PetscBool  hwch  = PETSC_FALSE;
  uint64_t   seed;
  PetscReal  hw0[8] = {0.006, 0.025, 0.036, 0.045, 0.015, 0.030, 0.050, 0.010};
  PetscCount nch = 0, cap;
  PetscInt64 nown = 0;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-synth_nk", &nk, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-synth_nbands", &nb, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-synth_nmodes", &nm, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-synth_emax", &emax, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-synth_keep", &keep, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-synth_seed", &seedi, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-synth_hw_per_channel", &hwch, NULL));
  PetscCheck(nm >= 1 && nm <= 8, comm, PETSC_ERR_ARG_OUTOFRANGE, "-synth_nmodes must be 1..8");
  seed = (uint64_t)seedi;
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  bte->grid.dim = 3;
  for (PetscInt a = 0; a < 3; a++) bte->grid.nk[a] = nk;
  for (PetscInt a = 0; a < 9; a++) bte->grid.lattice[a] = 0;
  bte->grid.lattice[0] = bte->grid.lattice[4] = bte->grid.lattice[8] = 5.65;
  PetscCall(BTEGridSetReciprocal(&bte->grid));
  bte->nbands  = nb;
  bte->nmodes  = nm;
  bte->spin    = 2;
  bte->carrier = -1;
  bte->emin    = 0;
  bte->emax    = emax;
  /* global state list, same on every rank */
  nkt = nk * nk * nk;
  PetscCall(PetscMalloc3(nkt * nb, &kidx, nkt * nb, &bidx, nkt * nb, &en));
  for (PetscInt k = 0; k < nkt; k++)
    for (PetscInt n = 0; n < nb; n++) {
      PetscReal e = 0.02 * n + 1.2 * emax * SynthU(seed, 1, (uint64_t)k, (uint64_t)n);
      if (e < emax) {
        kidx[N] = k;
        bidx[N] = n;
        en[N]   = e;
        N++;
      }
    }
  PetscCall(BTEAllocateStates(bte, N, PETSC_DECIDE));
  rstart = bte->rstart;
  rend   = rstart + bte->nlocal;
  for (PetscInt s = rstart; s < rend; s++) {
    bte->kindex[s - rstart] = kidx[s];
    bte->band[s - rstart]   = bidx[s];
    bte->energy[s - rstart] = en[s];
    for (PetscInt a = 0; a < 3; a++) bte->velocity[3 * (s - rstart) + a] = SynthU(seed, 2, (uint64_t)s, (uint64_t)a) - 0.5;
  }
  /* channels with an owned end: pairs (s owned, t any), each unordered pair once */
  cap = 1024;
  PetscCall(BTEAllocateChannels(bte, 0));
  {
    PetscInt  *ci, *cj, *cm;
    PetscReal *chw, *cg2;
    PetscReal  tol = bte->tol_eta * bte->smearing;

    PetscCall(PetscMalloc5(cap, &ci, cap, &cj, cap, &cm, cap, &chw, cap, &cg2));
    for (PetscInt s = rstart; s < rend; s++) {
      for (PetscInt t = 0; t < N; t++) {
        PetscInt i, j, qi, a0, a1, a2, b0, b1, b2;
        if (t == s || kidx[t] == kidx[s]) continue;
        if (t >= rstart && t < rend && t < s) continue; /* found from t */
        i  = PetscMin(s, t);
        j  = PetscMax(s, t);
        a0 = kidx[i] / (nk * nk), a1 = (kidx[i] / nk) % nk, a2 = kidx[i] % nk;
        b0 = kidx[j] / (nk * nk), b1 = (kidx[j] / nk) % nk, b2 = kidx[j] % nk;
        qi = (((b0 - a0 + nk) % nk) * nk + (b1 - a1 + nk) % nk) * nk + (b2 - a2 + nk) % nk;
        for (PetscInt nu = 0; nu < nm; nu++) {
          PetscReal hw = hw0[nu] * (0.8 + 0.4 * SynthU(seed, 3, (uint64_t)qi, (uint64_t)nu));
          if (hwch) hw *= 1.0 + 1e-6 * SynthU(seed, 5, (uint64_t)i * (uint64_t)N + (uint64_t)j, (uint64_t)nu);
          if (PetscAbsReal(PetscAbsReal(en[i] - en[j]) - hw) >= tol) continue;
          if (SynthU(seed, 4, (uint64_t)i * (uint64_t)N + (uint64_t)j, (uint64_t)nu) >= keep) continue;
          if (nch == cap) {
            PetscInt  *ni, *nj, *nmm;
            PetscReal *nhw, *ng2;
            PetscCall(PetscMalloc5(2 * cap, &ni, 2 * cap, &nj, 2 * cap, &nmm, 2 * cap, &nhw, 2 * cap, &ng2));
            PetscCall(PetscArraycpy(ni, ci, cap));
            PetscCall(PetscArraycpy(nj, cj, cap));
            PetscCall(PetscArraycpy(nmm, cm, cap));
            PetscCall(PetscArraycpy(nhw, chw, cap));
            PetscCall(PetscArraycpy(ng2, cg2, cap));
            PetscCall(PetscFree5(ci, cj, cm, chw, cg2));
            ci = ni, cj = nj, cm = nmm, chw = nhw, cg2 = ng2;
            cap *= 2;
          }
          ci[nch]  = i;
          cj[nch]  = j;
          cm[nch]  = nu;
          chw[nch] = hw;
          cg2[nch] = 1e-3 * (0.1 + SynthU(seed, 5, (uint64_t)i * (uint64_t)N + (uint64_t)j, (uint64_t)nu));
          if (i >= rstart && i < rend) nown++;
          nch++;
        }
      }
    }
    PetscCall(BTEAllocateChannels(bte, nch));
    PetscCall(PetscArraycpy(bte->ch.i, ci, nch));
    PetscCall(PetscArraycpy(bte->ch.j, cj, nch));
    PetscCall(PetscArraycpy(bte->ch.mode, cm, nch));
    PetscCall(PetscArraycpy(bte->ch.hw, chw, nch));
    PetscCall(PetscArraycpy(bte->ch.g2, cg2, nch));
    PetscCall(PetscFree5(ci, cj, cm, chw, cg2));
  }
  PetscCallMPI(MPI_Allreduce(&nown, &bte->ch.nglobal, 1, MPIU_INT64, MPI_SUM, comm));
  PetscCall(PetscFree3(kidx, bidx, en));
  PetscCall(PetscStrncpy(bte->source, "synthetic test BTE", sizeof(bte->source)));
  bte->setupcalled = PETSC_TRUE;
  *out             = bte;
  PetscFunctionReturn(0);
}
