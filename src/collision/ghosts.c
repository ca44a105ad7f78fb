/* Ghost states of the collision operator: the off-rank other ends of the channels this rank
   holds, the local numbering (owned 0..nlocal-1, then ghosts) and the VecScatter that fills a
   local vector (owned + ghosts) from a global state Vec. */
#include <bte/private/collisionimpl.h>

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

/* The partition (-bte_partition). With pairs, a channel whose ends are owned by ranks r < s is held
   by both (the table is distributed that way) and computed by one: by r for a share pfrac[r][s]
   of the r-s channels, chosen by a hash of the pair of states (so that all channels of a pair of
   states go to the same rank and are still merged into one entry). The shares balance the
   pairs of states computed per rank (the entries a rank's pair layout streams): rank 0 gathers
   the counts (internal and per other rank; psize^2 numbers), moves shares between the two ranks
   of every r-s block towards the less loaded one until no move changes a rank's load by a pair,
   and broadcasts them. */
PetscErrorCode BTECollisionPartitionSetUp_Private(BTECollision coll)
{
  BTE                bte = coll->bte;
  const BTEChannels *ch  = &bte->ch;
  MPI_Comm           comm;
  PetscMPIInt        size, rank;
  const PetscInt    *ranges;
  PetscBool          ispair;
  PetscInt64        *cnt, *all = NULL;
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
  PetscCall(PetscMalloc1(size + 1, &coll->pranges));
  PetscCall(PetscLayoutGetRanges(bte->states, &ranges));
  PetscCall(PetscArraycpy(coll->pranges, ranges, size + 1));
  PetscCall(PetscObjectTypeCompare((PetscObject)coll, BTECOLLISIONPAIR, &ispair));
  coll->part = coll->partition;
  if (coll->part == BTE_COLLISION_PARTITION_AUTO) coll->part = ispair && size > 1 ? BTE_COLLISION_PARTITION_PAIRS : BTE_COLLISION_PARTITION_STATES;
  PetscCheck(coll->part != BTE_COLLISION_PARTITION_PAIRS || ispair, comm, PETSC_ERR_SUP, "-bte_partition pairs is implemented by the pair collision type only, not by %s; use -bte_partition states or auto", ((PetscObject)coll)->type_name);
  coll->ncomputed = ch->n;
  if (coll->part != BTE_COLLISION_PARTITION_PAIRS || size == 1) PetscFunctionReturn(0);

  /* cnt[rank]: pairs of states with both ends owned; cnt[s]: with the other end on s. pair streams
     one entry per pair of states, whatever its channel count (GaAs: 1 to ~1.2 channels per pair,
     varying with the state block), so the pairs are what is balanced. The channels of a pair are
     consecutive in the table (a pair's modes are emitted together), so a pair is counted at its
     first channel; where they are not, a pair counts more than once and the balance is that of
     the channels. */
  PetscCall(PetscCalloc1(size, &cnt));
#pragma omp parallel reduction(| : oom)
  {
    PetscInt64 *mine = (PetscInt64 *)calloc((size_t)size, sizeof(PetscInt64)); /* per thread: no PETSc calls inside the region */
#pragma omp for schedule(static)
    for (PetscCount c = 0; c < ch->n; c++) {
      PetscMPIInt oi, oj;
      if (c > 0 && ch->i[c] == ch->i[c - 1] && ch->j[c] == ch->j[c - 1]) continue;
      oi = BTECollOwner(coll, ch->i[c]);
      oj = BTECollOwner(coll, ch->j[c]);
      if (mine) mine[oi == rank ? oj : oi]++;
    }
#pragma omp critical
    for (PetscMPIInt r = 0; mine && r < size; r++) cnt[r] += mine[r];
    oom = mine ? 0 : 1;
    free(mine);
  }
  PetscCheck(!oom, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory counting the pairs per rank");
  PetscCall(PetscMalloc1((size_t)size * size, &coll->pfrac));
  if (rank == 0) PetscCall(PetscMalloc1((size_t)size * size, &all));
  PetscCallMPI(MPI_Gather(cnt, size, MPIU_INT64, all, size, MPIU_INT64, 0, comm));
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
