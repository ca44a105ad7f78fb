/* Layout builders shared by the implementations: the target layer (channels sorted by the
   owned state they update), the k-point table and the (k, k+q) pair grouping. */
#include <bte/private/collisionimpl.h>

PetscErrorCode BTECollisionCountingSort(PetscCount n, const PetscCount perm_in[], const PetscInt key[], PetscInt nkey, PetscCount perm_out[])
{
  PetscCount *cnt;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nkey + 1, &cnt));
  for (PetscCount p = 0; p < n; p++) {
    PetscCount e = perm_in ? perm_in[p] : p;
    PetscCheck(key[e] >= 0 && key[e] < nkey, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Key %" PetscInt_FMT " out of range [0, %" PetscInt_FMT ")", key[e], nkey);
    cnt[key[e] + 1]++;
  }
  for (PetscInt k = 0; k < nkey; k++) cnt[k + 1] += cnt[k];
  for (PetscCount p = 0; p < n; p++) {
    PetscCount e            = perm_in ? perm_in[p] : p;
    perm_out[cnt[key[e]]++] = e;
  }
  PetscCall(PetscFree(cnt));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionBuildTargets(PetscInt nlocal, PetscCount nch, const PetscInt ci[], const PetscInt cj[], PetscCount **rowptr, int64_t **src)
{
  PetscCount *rp, *pos;
  int64_t    *s;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nlocal + 1, &rp));
  for (PetscCount c = 0; c < nch; c++) {
    if (ci[c] < nlocal) rp[ci[c] + 1]++;
    if (cj[c] < nlocal) rp[cj[c] + 1]++;
  }
  for (PetscInt t = 0; t < nlocal; t++) rp[t + 1] += rp[t];
  PetscCall(PetscMalloc1(rp[nlocal], &s));
  PetscCall(PetscMalloc1(nlocal + 1, &pos));
  PetscCall(PetscArraycpy(pos, rp, nlocal + 1));
  for (PetscCount c = 0; c < nch; c++) {
    if (ci[c] < nlocal) s[pos[ci[c]]++] = (int64_t)(c + 1);
    if (cj[c] < nlocal) s[pos[cj[c]]++] = -(int64_t)(c + 1);
  }
  PetscCall(PetscFree(pos));
  *rowptr = rp;
  *src    = s;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionKTableCreate(BTECollision coll, BTECollisionKTable *kt)
{
  PetscInt n = coll->nlocal + coll->nghost, nkp = n, *kp;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(kt, sizeof(*kt)));
  PetscCall(PetscMalloc1(n, &kp));
  PetscCall(PetscArraycpy(kp, coll->kindex, n));
  PetscCall(PetscSortRemoveDupsInt(&nkp, kp));
  kt->nkp = nkp;
  PetscCall(PetscMalloc1(nkp, &kt->kp));
  PetscCall(PetscArraycpy(kt->kp, kp, nkp));
  PetscCall(PetscFree(kp));
  PetscCall(PetscMalloc1(n, &kt->state_kp));
  PetscCheck((PetscInt64)nkp * coll->nbands < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "k-point table too large for 32-bit indices");
  PetscCall(PetscMalloc1(nkp * coll->nbands, &kt->kb2state));
  for (PetscInt k = 0; k < nkp * coll->nbands; k++) kt->kb2state[k] = -1;
  for (PetscInt s = 0; s < n; s++) {
    PetscInt loc;
    PetscCall(PetscFindInt(coll->kindex[s], nkp, kt->kp, &loc));
    PetscCheck(coll->band[s] >= 0 && coll->band[s] < coll->nbands, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "State %" PetscInt_FMT " has band %" PetscInt_FMT ", outside 0..%" PetscInt_FMT, s, coll->band[s], coll->nbands - 1);
    PetscCheck(kt->kb2state[loc * coll->nbands + coll->band[s]] < 0, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "Two states with k index %" PetscInt_FMT " and band %" PetscInt_FMT, coll->kindex[s], coll->band[s]);
    kt->state_kp[s]                                = loc;
    kt->kb2state[loc * coll->nbands + coll->band[s]] = (int32_t)s;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionKTableDestroy(BTECollisionKTable *kt)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(kt->kp));
  PetscCall(PetscFree(kt->state_kp));
  PetscCall(PetscFree(kt->kb2state));
  kt->nkp = 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionPairsCreate(BTECollision coll, const BTECollisionKTable *kt, BTECollisionPairs *pr)
{
  PetscCount  nch = coll->nch, np = 0, *tmp;
  PetscInt   *key;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(pr, sizeof(*pr)));
  PetscCall(PetscMalloc1(nch, &key));
  PetscCall(PetscMalloc1(nch, &tmp));
  PetscCall(PetscMalloc1(nch, &pr->perm));
  /* sort by (kp of i, kp of j): stable counting sort by the minor key, then the major key */
  for (PetscCount c = 0; c < nch; c++) key[c] = kt->state_kp[coll->cj[c]];
  PetscCall(BTECollisionCountingSort(nch, NULL, key, kt->nkp, tmp));
  for (PetscCount c = 0; c < nch; c++) key[c] = kt->state_kp[coll->ci[c]];
  PetscCall(BTECollisionCountingSort(nch, tmp, key, kt->nkp, pr->perm));
  PetscCall(PetscFree(key));
  PetscCall(PetscFree(tmp));
  for (PetscCount p = 0; p < nch; p++) {
    PetscCount c = pr->perm[p], c0 = p ? pr->perm[p - 1] : -1;
    if (!p || kt->state_kp[coll->ci[c]] != kt->state_kp[coll->ci[c0]] || kt->state_kp[coll->cj[c]] != kt->state_kp[coll->cj[c0]]) np++;
  }
  pr->npair = np;
  PetscCall(PetscMalloc1(np + 1, &pr->pairptr));
  PetscCall(PetscMalloc3(np, &pr->ik, np, &pr->ikq, np, &pr->iq));
  np = 0;
  for (PetscCount p = 0; p < nch; p++) {
    PetscCount c = pr->perm[p], c0 = p ? pr->perm[p - 1] : -1;
    if (!p || kt->state_kp[coll->ci[c]] != kt->state_kp[coll->ci[c0]] || kt->state_kp[coll->cj[c]] != kt->state_kp[coll->cj[c0]]) {
      pr->pairptr[np] = p;
      pr->ik[np]      = (int32_t)kt->state_kp[coll->ci[c]];
      pr->ikq[np]     = (int32_t)kt->state_kp[coll->cj[c]];
      pr->iq[np]      = BTECollQIndex(coll->nk, coll->kindex[coll->ci[c]], coll->kindex[coll->cj[c]]);
      np++;
    }
  }
  pr->pairptr[np] = nch;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionPairsDestroy(BTECollisionPairs *pr)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(pr->perm));
  PetscCall(PetscFree(pr->pairptr));
  PetscCall(PetscFree3(pr->ik, pr->ikq, pr->iq));
  pr->npair = 0;
  PetscFunctionReturn(0);
}

/* P_c, Q_c of the held channels (bte->ch order) */
PetscErrorCode BTECollisionComputeChannelPQ(BTECollision coll, PetscReal P[], PetscReal Q[])
{
  PetscInt *ci, *cj;
  PetscBool own = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BTECollisionSetUp(coll));
  ci = coll->ci;
  cj = coll->cj;
  if (!ci) {
    PetscCall(BTECollisionComputeLocalEnds(coll, &ci, &cj));
    own = PETSC_TRUE;
  }
  PetscCall(BTECollisionComputeChannelPQ_Private(coll, ci, cj, P, Q));
  if (own) PetscCall(PetscFree2(ci, cj));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionComputeChannelPQ_Private(BTECollision coll, const PetscInt ci[], const PetscInt cj[], PetscReal P[], PetscReal Q[])
{
  const BTEChannels *ch = &coll->bte->ch;
  const PetscReal   *e  = coll->energy;
  PetscReal          pref = coll->pref, inveta = coll->inveta, gnorm = coll->gnorm, kT = coll->kT, kTdb = coll->kTdb;

  PetscFunctionBegin;
  PetscCall(BTEChannelsGetHost(coll->bte)); /* the GPU import may not have filled them yet */
#pragma omp parallel for schedule(static)
  for (PetscCount c = 0; c < ch->n; c++) {
    PetscReal a, b, N = BTECollBose(ch->hw[c], kT);
    BTECollWeightsAB(pref, inveta, gnorm, kTdb, e[ci[c]], e[cj[c]], ch->hw[c], ch->g2[c], &a, &b);
    BTECollWeightsPQ(a, b, N, &P[c], &Q[c]);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollisionEndLists_Private(PetscInt nl, PetscCount nch, const PetscInt ci[], const PetscInt cj[], const PetscReal P[], const PetscReal Q[], PetscCount **endptr, PetscInt **eo, PetscReal **ePt, PetscReal **eQt)
{
  PetscCount *ptr, *pos;
  PetscInt   *o;
  PetscReal  *pt, *qt;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nl + 1, &ptr));
  for (PetscCount c = 0; c < nch; c++) {
    if (ci[c] < nl) ptr[ci[c] + 1]++;
    if (cj[c] < nl) ptr[cj[c] + 1]++;
  }
  for (PetscInt t = 0; t < nl; t++) ptr[t + 1] += ptr[t];
  PetscCall(PetscMalloc3(ptr[nl] + 1, &o, ptr[nl] + 1, &pt, ptr[nl] + 1, &qt));
  PetscCall(PetscMalloc1(nl + 1, &pos));
  PetscCall(PetscArraycpy(pos, ptr, nl + 1));
  for (PetscCount c = 0; c < nch; c++) {
    PetscInt i = ci[c], j = cj[c];
    if (i < nl) {
      PetscCount s = pos[i]++;
      o[s]         = j;
      pt[s]        = P[c];
      qt[s]        = Q[c];
    }
    if (j < nl) {
      PetscCount s = pos[j]++;
      o[s]         = i;
      pt[s]        = Q[c];
      qt[s]        = P[c];
    }
  }
  PetscCall(PetscFree(pos));
  *endptr = ptr;
  *eo     = o;
  *ePt    = pt;
  *eQt    = qt;
  PetscFunctionReturn(0);
}
