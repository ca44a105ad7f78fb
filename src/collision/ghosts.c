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
  PetscCall(VecScatterBegin(coll->scatter, x, fl, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(coll->scatter, x, fl, INSERT_VALUES, SCATTER_FORWARD));
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
  PetscInt           rstart = bte->rstart, rend = bte->rstart + bte->nlocal, nalloc = 0, ng = 0, *g, *idx;
  IS                 is;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)coll, &comm));
  coll->N      = bte->nstates;
  coll->nlocal = bte->nlocal;
  coll->rstart = bte->rstart;
  /* other ends of held channels that this rank does not own */
  {
    PetscCount bad = ch->n, cnt = 0; /* the first bad channel is reported */
#pragma omp parallel for schedule(static) reduction(+ : cnt) reduction(min : bad)
    for (PetscCount c = 0; c < ch->n; c++) {
      PetscBool oi = (PetscBool)(ch->i[c] >= rstart && ch->i[c] < rend), oj = (PetscBool)(ch->j[c] >= rstart && ch->j[c] < rend);
      if (!(oi || oj) || !(ch->i[c] < ch->j[c] && ch->i[c] >= 0 && ch->j[c] < bte->nstates)) bad = PetscMin(bad, c);
      if (!oi || !oj) cnt++;
    }
    if (bad < ch->n) {
      PetscCount c  = bad;
      PetscBool  oi = (PetscBool)(ch->i[c] >= rstart && ch->i[c] < rend), oj = (PetscBool)(ch->j[c] >= rstart && ch->j[c] < rend);
      PetscCheck(oi || oj, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscCount_FMT " {%" PetscInt_FMT ", %" PetscInt_FMT "} is held by a rank that owns neither end [%" PetscInt_FMT ", %" PetscInt_FMT ")", c, ch->i[c], ch->j[c], rstart, rend);
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Channel %" PetscCount_FMT " {%" PetscInt_FMT ", %" PetscInt_FMT "} must have 0 <= i < j < %" PetscInt_FMT, c, ch->i[c], ch->j[c], bte->nstates);
    }
    nalloc = (PetscInt)cnt;
  }
  PetscCall(PetscMalloc1(nalloc, &g));
  for (PetscCount c = 0; nalloc && c < ch->n; c++) { /* one rank: no ghosts, no pass */
    if (ch->i[c] < rstart || ch->i[c] >= rend) g[ng++] = ch->i[c];
    else if (ch->j[c] < rstart || ch->j[c] >= rend) g[ng++] = ch->j[c];
  }
  PetscCall(PetscSortRemoveDupsInt(&ng, g));
  PetscCheck((PetscInt64)coll->nlocal + ng < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "Owned plus ghost states (%" PetscInt64_FMT ") exceed 32-bit local indices; use more MPI ranks", (PetscInt64)coll->nlocal + ng);
  PetscCall(PetscMalloc1(ng, &coll->ghosts));
  PetscCall(PetscArraycpy(coll->ghosts, g, ng));
  PetscCall(PetscFree(g));
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
