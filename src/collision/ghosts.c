/* Ghost states of the collision operator: the off-rank other ends of the channels this rank
   holds, the local numbering (owned 0..nlocal-1, then ghosts) and the VecScatter that fills a
   local vector (owned + ghosts) from a global state Vec. */
#include <bte/private/collisionimpl.h>
#if defined(_OPENMP)
  #include <omp.h>
#endif

/* The one place where the type of local vectors is chosen. */
PetscErrorCode BTECollisionLocalVecType(Vec x, VecType *type)
{
  PetscBool iscuda = PETSC_FALSE;

  PetscFunctionBegin;
  if (x) PetscCall(PetscObjectTypeCompareAny((PetscObject)x, &iscuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
  *type = iscuda ? VECSEQCUDA : VECSEQ;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionGetLocalVec(BTECollision coll, Vec x, Vec *fl)
{
  VecType   want = VECSEQ;
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BTECollisionLocalVecType(x, &want));
  if (*fl) PetscCall(PetscObjectTypeCompare((PetscObject)*fl, want, &same));
  if (same) PetscFunctionReturn(0);
  PetscCall(VecDestroy(fl));
  PetscCall(VecCreate(PETSC_COMM_SELF, fl));
  PetscCall(VecSetSizes(*fl, coll->nlocal + coll->nghost, coll->nlocal + coll->nghost));
  PetscCall(VecSetType(*fl, want));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionGlobalToLocal(BTECollision coll, Vec x, Vec fl)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTECOLL_Ghost, coll, x, fl, 0));
  PetscCall(BTECollisionGhostBegin(coll, x, fl));
  PetscCall(BTECollisionGhostEnd(coll, x, fl));
  PetscCall(PetscLogEventEnd(BTECOLL_Ghost, coll, x, fl, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionGlobalToLocalIndex(BTECollision coll, PetscInt g, PetscInt *l)
{
  PetscInt loc;

  PetscFunctionBegin;
  if (g >= coll->rstart && g < coll->rstart + coll->nlocal) {
    *l = g - coll->rstart;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscFindInt(g, coll->nghost, coll->ghosts, &loc));
  *l = loc >= 0 ? coll->nlocal + loc : -1;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionComputeLocalEnds(BTECollision coll, PetscInt **ci, PetscInt **cj)
{
  const BTEChannels *ch  = &coll->bte->ch;
  PetscInt          *a, *b;
  PetscCount         bad = -1;

  PetscFunctionBegin;
  PetscCall(BTEChannelsGetHost(coll->bte)); /* the GPU import may not have filled them yet */
  PetscCall(PetscMalloc2(ch->n, &a, ch->n, &b));
#pragma omp parallel for schedule(static) reduction(max : bad)
  for (PetscCount c = 0; c < ch->n; c++) {
    a[c] = BTECollLocalIndex(coll, ch->i[c]);
    b[c] = BTECollLocalIndex(coll, ch->j[c]);
    if (a[c] < 0 || b[c] < 0) bad = c;
  }
  PetscCheck(bad < 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Channel %" PetscCount_FMT " has an end with no local index", bad);
  *ci = a;
  *cj = b;
  PetscFunctionReturn(0);
}

/* Scatter an owned-state array of reals (or integers, exact as reals) to local + ghost. */
static PetscErrorCode ScatterStateArray(BTECollision coll, const PetscReal *rsrc, const PetscInt *isrc, PetscReal *rdst, PetscInt *idst)
{
  PetscScalar       *g;
  const PetscScalar *l;
  PetscInt           n = coll->nlocal + coll->nghost;

  PetscFunctionBegin;
  PetscCall(VecGetArrayWrite(coll->gtemplate, &g));
  for (PetscInt i = 0; i < coll->nlocal; i++) g[i] = rsrc ? rsrc[i] : (PetscScalar)isrc[i];
  PetscCall(VecRestoreArrayWrite(coll->gtemplate, &g));
  PetscCall(VecScatterBegin(coll->scatter, coll->gtemplate, coll->fl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(coll->scatter, coll->gtemplate, coll->fl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(coll->fl, &l));
  for (PetscInt i = 0; i < n; i++) {
    if (rdst) rdst[i] = PetscRealPart(l[i]);
    else idst[i] = (PetscInt)PetscRealPart(l[i]);
  }
  PetscCall(VecRestoreArrayRead(coll->fl, &l));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionSetUpGhosts_Private(BTECollision coll)
{
  BTE                bte = coll->bte;
  const BTEChannels *ch  = &bte->ch;
  MPI_Comm           comm;
  PetscInt           rstart = bte->rstart, rend = bte->rstart + bte->nlocal, ng = 0, *idx;
  IS                 is;
  PetscBool          foreign = PETSC_FALSE;
  unsigned char     *mark;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)coll, &comm));
  coll->N      = bte->nstates;
  coll->nlocal = bte->nlocal;
  coll->rstart = bte->rstart;
  /* other ends of held channels that this rank does not own: a flag per global state (states are
     1e4-1e6 where channels are 1e8-1e9), set in one parallel pass, then read in order, so the ghost
     list comes out sorted without collecting and sorting one index per channel (that serial sort
     took 47 s of a 4-rank setup at 1.3e9 channels) */
  PetscCall(PetscCalloc1(PetscMax(bte->nstates, 1), &mark));
  {
    /* channels still only on the device (the GPU import's, valid by construction): on one rank
       every state is owned, so there is no ghost to find and nothing to read on the host */
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(comm, &size));
    if (size > 1 || !bte->chfill) PetscCall(BTEChannelsGetHost(bte));
  }
  if (!bte->chfill) {
    PetscCount bad = ch->n, cnt = 0; /* the first bad channel is reported */
#pragma omp parallel for schedule(static) reduction(+ : cnt) reduction(min : bad)
    for (PetscCount c = 0; c < ch->n; c++) {
      PetscBool oi = (PetscBool)(ch->i[c] >= rstart && ch->i[c] < rend), oj = (PetscBool)(ch->j[c] >= rstart && ch->j[c] < rend);
      if (!(oi || oj) || !(ch->i[c] < ch->j[c] && ch->i[c] >= 0 && ch->j[c] < bte->nstates)) bad = PetscMin(bad, c);
      else if (!oi || !oj) {
        PetscInt g = oi ? ch->j[c] : ch->i[c];
        cnt++;
#pragma omp atomic write
        mark[g] = 1;
      }
    }
    if (bad < ch->n) {
      PetscCount c  = bad;
      PetscBool  oi = (PetscBool)(ch->i[c] >= rstart && ch->i[c] < rend), oj = (PetscBool)(ch->j[c] >= rstart && ch->j[c] < rend);
      PetscCall(PetscFree(mark));
      PetscCheck(oi || oj, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscCount_FMT " {%" PetscInt_FMT ", %" PetscInt_FMT "} is held by a rank that owns neither end [%" PetscInt_FMT ", %" PetscInt_FMT ")", c, ch->i[c], ch->j[c], rstart, rend);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscCount_FMT " {%" PetscInt_FMT ", %" PetscInt_FMT "} must have 0 <= i < j < %" PetscInt_FMT, c, ch->i[c], ch->j[c], bte->nstates);
    }
    foreign = cnt > 0 ? PETSC_TRUE : PETSC_FALSE;
  }
  for (PetscInt g = 0; foreign && g < bte->nstates; g++) ng += mark[g];
  PetscCheck((PetscInt64)coll->nlocal + ng < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Owned plus ghost states (%" PetscInt64_FMT ") exceed 32-bit local indices; use more MPI ranks", (PetscInt64)coll->nlocal + ng);
  PetscCall(PetscMalloc1(ng, &coll->ghosts));
  for (PetscInt g = 0, k = 0; foreign && g < bte->nstates; g++)
    if (mark[g]) coll->ghosts[k++] = g;
  PetscCall(PetscFree(mark));
  coll->nghost = ng;
  /* scatter: global state Vec -> local vector [owned | ghosts] */
  PetscCall(PetscMalloc1(coll->nlocal + ng, &idx));
  for (PetscInt i = 0; i < coll->nlocal; i++) idx[i] = rstart + i;
  for (PetscInt i = 0; i < ng; i++) idx[coll->nlocal + i] = coll->ghosts[i];
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, coll->nlocal + ng, idx, PETSC_OWN_POINTER, &is));
  PetscCall(VecCreateMPI(comm, coll->nlocal, coll->N, &coll->gtemplate));
  PetscCall(BTECollisionGetLocalVec(coll, coll->gtemplate, &coll->fl));
  PetscCall(VecScatterCreate(coll->gtemplate, is, coll->fl, NULL, &coll->scatter));
  PetscCall(ISDestroy(&is));
  /* energies (for the Gaussians), k indices and bands of owned and ghost states, once */
  PetscCall(PetscMalloc3(coll->nlocal + ng, &coll->energy, coll->nlocal + ng, &coll->kindex, coll->nlocal + ng, &coll->band));
  PetscCall(ScatterStateArray(coll, bte->energy, NULL, coll->energy, NULL));
  PetscCall(ScatterStateArray(coll, NULL, bte->kindex, NULL, coll->kindex));
  PetscCall(ScatterStateArray(coll, NULL, bte->band, NULL, coll->band));
  PetscFunctionReturn(0);
}

/* owned states by energy (ties by global index): the order of the pair layout's owned tiles */
typedef struct {
  PetscReal e;
  PetscInt  g;
} EnergyIndex;
static int CompareEnergyIndex(const void *a, const void *b)
{
  const EnergyIndex *x = (const EnergyIndex *)a, *y = (const EnergyIndex *)b;
  if (x->e != y->e) return x->e < y->e ? -1 : 1;
  return x->g < y->g ? -1 : (x->g > y->g ? 1 : 0);
}

/* Tile blocks (coll->ptile > 0): every state's global slot (its owner's tiles, filled by energy),
   shared by all ranks. Leaves gslot NULL (pairs of states hashed one by one) where the tile pairs
   would be too many to count. Collective. */
static PetscErrorCode PartitionSlots(BTECollision coll, MPI_Comm comm)
{
  const PetscMPIInt size = coll->psize, rank = coll->prank;
  const PetscInt    tile = coll->ptile, N = coll->pranges[size];
  PetscInt          ntg  = 0;
  EnergyIndex      *own;
  int32_t          *mine;
  PetscMPIInt      *cnts, *dsp;

  PetscFunctionBegin;
  for (PetscMPIInt r = 0; r < size; r++) ntg += (coll->pranges[r + 1] - coll->pranges[r] + tile - 1) / tile;
  if ((PetscInt64)ntg * ntg > ((PetscInt64)1 << 26) || (PetscInt64)ntg * tile >= (PetscInt64)INT32_MAX || N > PETSC_MPI_INT_MAX) {
    PetscCall(PetscInfo(coll, "pairs partition: %" PetscInt_FMT " tiles of %" PetscInt_FMT " states are too many tile pairs to count; pairs of states assigned one by one\n", ntg, tile));
    PetscFunctionReturn(0);
  }
  coll->ntg = ntg;
  PetscCall(PetscMalloc3(size + 1, &coll->ptoff, PetscMax(N, 1), &coll->gslot, ((size_t)ntg * ntg + 31) / 32, &coll->ptab));
  coll->ptoff[0] = 0;
  for (PetscMPIInt r = 0; r < size; r++) coll->ptoff[r + 1] = coll->ptoff[r] + (coll->pranges[r + 1] - coll->pranges[r] + tile - 1) / tile;
  PetscCall(PetscMalloc4(PetscMax(coll->nlocal, 1), &own, PetscMax(coll->nlocal, 1), &mine, size, &cnts, size, &dsp));
  for (PetscInt l = 0; l < coll->nlocal; l++) {
    own[l].e = coll->energy[l];
    own[l].g = coll->rstart + l;
  }
  qsort(own, (size_t)coll->nlocal, sizeof(EnergyIndex), CompareEnergyIndex);
  for (PetscInt p = 0; p < coll->nlocal; p++) mine[own[p].g - coll->rstart] = (int32_t)(coll->ptoff[rank] * tile + p);
  for (PetscMPIInt r = 0; r < size; r++) {
    cnts[r] = (PetscMPIInt)(coll->pranges[r + 1] - coll->pranges[r]);
    dsp[r]  = (PetscMPIInt)coll->pranges[r];
  }
  PetscCallMPI(MPI_Allgatherv(mine, (PetscMPIInt)coll->nlocal, MPI_INT32_T, coll->gslot, cnts, dsp, MPI_INT32_T, comm));
  PetscCall(PetscFree4(own, mine, cnts, dsp));
  PetscFunctionReturn(0);
}

/* a tile pair between two ranks: its pairs of states, a hash (ties), its index into ptab */
typedef struct {
  PetscReal h;
  PetscInt  key;
  int32_t   c;
} TilePair;
static int CompareTilePair(const void *a, const void *b)
{
  const TilePair *x = (const TilePair *)a, *y = (const TilePair *)b;
  if (x->c != y->c) return x->c > y->c ? -1 : 1;
  if (x->h != y->h) return x->h < y->h ? -1 : 1;
  return x->key < y->key ? -1 : (x->key > y->key ? 1 : 0);
}

/* Tile blocks: the bits of ptab from the pairs of states per tile pair (tcnt, summed over ranks;
   row the lower rank's tile). Each rank starts with its internal pairs; the tile pairs between two
   ranks, largest first, go to whichever of the two has fewer pairs so far. *ok is false where that
   leaves the largest rank more than 1 % above the balance of the shares pfrac (which hand out single
   pairs of states: too few tile pairs). Every rank computes the same bits. */
static PetscErrorCode PartitionBits(BTECollision coll, const int32_t *tcnt, const PetscInt64 *all, PetscBool *ok)
{
  const PetscMPIInt size = coll->psize;
  const PetscInt    ntg  = coll->ntg;
  PetscInt          nb   = 0;
  TilePair         *tp;
  PetscMPIInt      *owner;
  PetscReal        *want, *got, mwant = 0, mgot = 0;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(coll->ptab, ((size_t)ntg * ntg + 31) / 32));
  PetscCall(PetscMalloc1(PetscMax(ntg, 1), &owner));
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt a = coll->ptoff[r]; a < coll->ptoff[r + 1]; a++) owner[a] = r;
  for (PetscInt k = 0; k < ntg * ntg; k++) nb += tcnt[k] > 0;
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &tp));
  nb = 0;
  for (PetscInt k = 0; k < ntg * ntg; k++)
    if (tcnt[k] > 0) {
      tp[nb].h   = BTECollPairHash(k / ntg, k % ntg);
      tp[nb].key = k;
      tp[nb].c   = tcnt[k];
      nb++;
    }
  qsort(tp, (size_t)nb, sizeof(*tp), CompareTilePair);
  PetscCall(PetscCalloc2(size, &want, size, &got));
  for (PetscMPIInt r = 0; r < size; r++) want[r] = got[r] = (PetscReal)all[(size_t)r * size + r];
  for (PetscInt k = 0; k < nb; k++) {
    const PetscMPIInt r = owner[tp[k].key / ntg], t = owner[tp[k].key % ntg]; /* r < t */
    const PetscReal   g = coll->pfrac[(size_t)r * size + t];
    want[r] += g * tp[k].c;
    want[t] += (1 - g) * tp[k].c;
    if (got[r] <= got[t]) {
      coll->ptab[tp[k].key >> 5] |= 1u << (tp[k].key & 31);
      got[r] += tp[k].c;
    } else got[t] += tp[k].c;
  }
  for (PetscMPIInt r = 0; r < size; r++) {
    mwant = PetscMax(mwant, want[r]);
    mgot  = PetscMax(mgot, got[r]);
  }
  *ok = mgot <= 1.01 * mwant ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscInfo(coll, "pairs partition in tile blocks: %" PetscInt_FMT " tiles of %" PetscInt_FMT " states, %" PetscInt_FMT " tile pairs between ranks; largest rank's pairs %.4f x with the shares handed out per pair of states%s\n", ntg, coll->ptile, nb, mwant > 0 ? (double)(mgot / mwant) : 1.0, *ok ? "" : ": more than 1 % more, so pairs of states are handed out one by one instead"));
  PetscCall(PetscFree2(want, got));
  PetscCall(PetscFree(tp));
  PetscCall(PetscFree(owner));
  PetscFunctionReturn(0);
}

/* The partition (-bte_partition). With pairs, a channel whose ends are owned by ranks r < s is held
   by both (the table is distributed that way) and computed by one: by r for a share pfrac[r][s]
   of the r-s channels, chosen by a hash of the pair of states (so that all channels of a pair of
   states go to the same rank and are still merged into one entry). The shares balance the
   pairs of states computed per rank (the entries a rank's pair layout streams): rank 0 gathers
   the counts (internal and per other rank; psize^2 numbers), moves shares between the two ranks
   of every r-s block towards the less loaded one until no move changes a rank's load by a pair,
   and broadcasts them. With tile blocks (the pair type's -bte_pair_partition_tiles) the same pass
   also counts the pairs per tile pair of two ranks, and whole tile pairs are handed out instead
   (PartitionSlots, PartitionBits), unless that would unbalance the ranks by more than 1 %. */
PetscErrorCode BTECollisionPartitionSetUp_Private(BTECollision coll)
{
  BTE                bte = coll->bte;
  const BTEChannels *ch  = &bte->ch;
  MPI_Comm           comm;
  PetscMPIInt        size, rank;
  const PetscInt    *ranges;
  PetscBool          ispair;
  PetscInt64        *cnt, *all = NULL;
  int32_t           *tcnt = NULL;
  PetscCount         ncomp = 0;
  int                oom   = 0;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)coll, &comm));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  coll->psize = size;
  coll->prank = rank;
  PetscCall(PetscFree(coll->pranges));
  PetscCall(PetscFree(coll->pfrac));
  PetscCall(PetscFree3(coll->ptoff, coll->gslot, coll->ptab));
  coll->ntg = 0;
  PetscCall(PetscMalloc1(size + 1, &coll->pranges));
  PetscCall(PetscLayoutGetRanges(bte->states, &ranges));
  PetscCall(PetscArraycpy(coll->pranges, ranges, size + 1));
  PetscCall(PetscObjectTypeCompare((PetscObject)coll, BTECOLLISIONPAIR, &ispair));
  coll->part = coll->partition;
  if (coll->part == BTE_COLLISION_PARTITION_AUTO) coll->part = ispair && size > 1 ? BTE_COLLISION_PARTITION_PAIRS : BTE_COLLISION_PARTITION_STATES;
  PetscCheck(coll->part != BTE_COLLISION_PARTITION_PAIRS || ispair, comm, PETSC_ERR_SUP, "-bte_partition pairs is implemented by the pair collision type only, not by %s; use -bte_partition states or auto", ((PetscObject)coll)->type_name);
  coll->ncomputed = ch->n;
  if (coll->part != BTE_COLLISION_PARTITION_PAIRS || size == 1) PetscFunctionReturn(0);
  PetscCall(BTEChannelsGetHost(bte));

  /* cnt[rank]: pairs of states with both ends owned; cnt[s]: with the other end on s. pair streams
     one entry per pair of states, whatever its channel count (GaAs: 1 to ~1.2 channels per pair,
     varying with the state block), so the pairs are what is balanced. The channels of a pair are
     consecutive in the table (a pair's modes are emitted together), so a pair is counted at its
     first channel; where they are not, a pair counts more than once and the balance is that of
     the channels. */
  PetscCall(PetscCalloc1(size, &cnt));
  /* tile blocks: the same pass counts the pairs of states per tile pair of two ranks (each by the
     lower rank, which holds them as the higher one does) */
  if (coll->ptile > 0) PetscCall(PartitionSlots(coll, comm));
  if (coll->gslot) PetscCall(PetscCalloc1((size_t)coll->ntg * coll->ntg, &tcnt));
  {
    /* the tile pairs' counts per thread where they are small beside memory (else atomic adds) */
    const size_t ntp = tcnt ? (size_t)coll->ntg * coll->ntg : 0;
    int          nthr = 1;
#if defined(_OPENMP)
    nthr = omp_get_max_threads();
#endif
    const PetscBool priv = ntp > 0 && nthr > 1 && ntp * nthr <= ((size_t)1 << 26) ? PETSC_TRUE : PETSC_FALSE;
#pragma omp parallel reduction(| : oom)
    {
      PetscInt64 *mine = (PetscInt64 *)calloc((size_t)size, sizeof(PetscInt64)); /* per thread: no PETSc calls inside the region */
      int32_t    *tmine = priv ? (int32_t *)calloc(ntp, sizeof(int32_t)) : NULL;
      const int   ok    = mine && (!priv || tmine);
#pragma omp for schedule(static)
      for (PetscCount c = 0; c < ch->n; c++) {
        PetscMPIInt oi, oj;
        if (!ok || (c > 0 && ch->i[c] == ch->i[c - 1] && ch->j[c] == ch->j[c - 1])) continue;
        oi = BTECollOwner(coll, ch->i[c]);
        oj = BTECollOwner(coll, ch->j[c]);
        mine[oi == rank ? oj : oi]++;
        if (tcnt && oi != oj && PetscMin(oi, oj) == rank) {
          const int64_t a = coll->gslot[oi == rank ? ch->i[c] : ch->j[c]] / coll->ptile, b = coll->gslot[oi == rank ? ch->j[c] : ch->i[c]] / coll->ptile;
          if (tmine) tmine[a * coll->ntg + b]++;
          else {
#pragma omp atomic
            tcnt[a * coll->ntg + b]++;
          }
        }
      }
#pragma omp critical
      {
        for (PetscMPIInt r = 0; ok && r < size; r++) cnt[r] += mine[r];
        for (size_t k = 0; ok && tmine && k < ntp; k++) tcnt[k] += tmine[k];
      }
      oom = ok ? 0 : 1;
      free(mine);
      free(tmine);
    }
  }
  PetscCheck(!oom, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory counting the pairs per rank");
  PetscCall(PetscMalloc1((size_t)size * size, &coll->pfrac));
  PetscCall(PetscMalloc1((size_t)size * size, &all));
  PetscCallMPI(MPI_Allgather(cnt, size, MPIU_INT64, all, size, MPIU_INT64, comm));
  if (rank == 0) {
    PetscReal *load, *g = coll->pfrac;
    PetscCall(PetscMalloc1(size, &load));
    for (PetscMPIInt r = 0; r < size; r++) load[r] = (PetscReal)all[(size_t)r * size + r];
    for (PetscMPIInt r = 0; r < size; r++)
      for (PetscMPIInt s = 0; s < size; s++) {
        g[(size_t)r * size + s] = 0.5;
        if (r < s) {
          load[r] += 0.5 * (PetscReal)all[(size_t)r * size + s];
          load[s] += 0.5 * (PetscReal)all[(size_t)r * size + s];
        }
      }
    for (PetscInt sweep = 0; sweep < 1000; sweep++) {
      PetscReal moved = 0;
      for (PetscMPIInt r = 0; r < size; r++)
        for (PetscMPIInt s = r + 1; s < size; s++) {
          PetscReal X = (PetscReal)all[(size_t)r * size + s], *gr = &g[(size_t)r * size + s], gn, d;
          if (X <= 0) continue;
          gn  = PetscMin(1.0, PetscMax(0.0, *gr - 0.5 * (load[r] - load[s]) / X));
          d   = (gn - *gr) * X;
          *gr = gn;
          load[r] += d;
          load[s] -= d;
          moved = PetscMax(moved, PetscAbsReal(d));
        }
      if (moved < 1.0) break;
    }
    PetscCall(PetscFree(load));
  }
  PetscCallMPI(MPI_Bcast(coll->pfrac, size * size, MPIU_REAL, 0, comm));
  if (tcnt) {
    PetscBool ok = PETSC_FALSE;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, tcnt, (PetscMPIInt)(coll->ntg * coll->ntg), MPI_INT32_T, MPI_SUM, comm));
    PetscCall(PartitionBits(coll, tcnt, all, &ok));
    PetscCall(PetscFree(tcnt));
    if (!ok) { /* the same decision on every rank (same bits, same loads) */
      PetscCall(PetscFree3(coll->ptoff, coll->gslot, coll->ptab));
      coll->ntg = 0;
    }
  }
  PetscCall(PetscFree(all));
  PetscCall(PetscFree(cnt));
#pragma omp parallel for schedule(static) reduction(+ : ncomp)
  for (PetscCount c = 0; c < ch->n; c++) ncomp += BTECollComputes(coll, ch->i[c], ch->j[c]);
  coll->ncomputed = ncomp;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionLocalToGlobalAdd(BTECollision coll, Vec yl, Vec y)
{
  PetscFunctionBegin;
  PetscCall(BTECollisionReverseBegin(coll, yl, y));
  PetscCall(BTECollisionReverseEnd(coll, yl, yl, y));
  PetscFunctionReturn(0);
}
