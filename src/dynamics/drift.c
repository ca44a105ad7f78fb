/* BTEDrift: the drift term -(F/hbar).grad_k f of a static field (physics.md section 5).

   grad_k by finite-difference b-vectors (bvectors.c). The neighbour (n,k+b) of a state
   (n,k) is looked up once at setup: the full-grid key kindex*nbands + band of every
   state is registered in a directory distributed over the ranks (PetscSF), then each
   rank asks for the keys of its states' neighbours. Neighbours owned elsewhere are
   ghosts, fetched by a VecScatter built once.

   With c_b = -w_b (F.b)/hbar (1/fs) and j = (n,k+b) in the window:
     log   D_i = f_i (f_i - 1) sum_b c_b [g_j - g_i],  g = ln((1-f)/f) clipped to +-35
     plain D_i = sum_b c_b (f_j + f_i)
   The plain form equals sum_b c_b (f_j - f_i) wherever all neighbours are in the window
   (sum_b c_b = 0 over complete shells) and is a flux form: the flux between i and j is
   antisymmetric, so sum_i D_i = 0 exactly (no carriers leave through the window edge). */
#include <bte/private/dynamicsimpl.h>
#include <petscsf.h>

const char *const BTEDriftForms[] = {"log", "plain", "BTEDriftForm", "BTE_DRIFT_", NULL};

#define BTE_GCLIP 35.0

static inline void BTELogOcc(PetscReal f, PetscReal *g, PetscReal *u)
{
  PetscReal x;
  if (f <= 0) {
    *g = BTE_GCLIP;
    *u = 0;
    return;
  }
  if (f >= 1) {
    *g = -BTE_GCLIP;
    *u = 0;
    return;
  }
  x = PetscLogReal((1 - f) / f);
  if (x > BTE_GCLIP) {
    *g = BTE_GCLIP;
    *u = 0;
  } else if (x < -BTE_GCLIP) {
    *g = -BTE_GCLIP;
    *u = 0;
  } else {
    *g = x;
    *u = 1.0 / (f * (f - 1)); /* dg/df */
  }
}

PetscErrorCode BTEDriftCreate(BTE bte, BTEDrift *drift)
{
  BTEDrift d;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(BTEDynamicsPackageInitialize());
  PetscCall(PetscHeaderCreate(d, BTEDRIFT_CLASSID, "BTEDrift", "Drift term of a static field", "BTE", PetscObjectComm((PetscObject)bte), BTEDriftDestroy, BTEDriftView));
  PetscCall(PetscObjectReference((PetscObject)bte));
  d->bte  = bte;
  d->form = BTE_DRIFT_LOG;
  *drift  = d;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftDestroy(BTEDrift *drift)
{
  BTEDrift d;

  PetscFunctionBegin;
  if (!*drift) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(*drift, BTEDRIFT_CLASSID, 1);
  d = *drift;
  if (--((PetscObject)d)->refct > 0) {
    *drift = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(BTEBVectorsDestroy(&d->bv));
  PetscCall(PetscFree(d->c));
  PetscCall(PetscFree2(d->nbr, d->ghosts));
  PetscCall(VecScatterDestroy(&d->scatter));
  PetscCall(VecDestroy(&d->fghost));
  PetscCall(VecDestroy(&d->xghost));
  PetscCall(PetscFree2(d->gl, d->gg));
  PetscCall(PetscFree4(d->jdiag, d->jp, d->jul, d->jug));
  PetscCall(BTEDestroy(&d->bte));
  PetscCall(PetscHeaderDestroy(drift));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftSetField(BTEDrift d, const PetscReal E[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  for (PetscInt a = 0; a < 3; a++) {
    PetscCheck(!PetscIsInfOrNanReal(E[a]), PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_OUTOFRANGE, "Electric field component %" PetscInt_FMT " is not a number", a);
    d->efield[a] = E[a];
  }
  d->setupcalled = PETSC_FALSE; /* coefficients depend on the field */
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftGetField(BTEDrift d, PetscReal E[3])
{
  PetscFunctionBegin;
  for (PetscInt a = 0; a < 3; a++) E[a] = d->efield[a];
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftSetForm(BTEDrift d, BTEDriftForm form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  d->form = form;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftGetForm(BTEDrift d, BTEDriftForm *form)
{
  PetscFunctionBegin;
  *form = d->form;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftSetFromOptions(BTEDrift d)
{
  PetscReal E[3];
  PetscInt  n = 3;
  PetscBool flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  for (PetscInt a = 0; a < 3; a++) E[a] = d->efield[a];
  PetscObjectOptionsBegin((PetscObject)d);
  PetscCall(PetscOptionsRealArray("-bte_efield", "Static electric field Ex,Ey,Ez, V/cm", "BTEDriftSetField", E, &n, &flg));
  if (flg) {
    PetscCheck(n == 3, PetscObjectComm((PetscObject)d), PETSC_ERR_USER_INPUT, "-bte_efield needs three components Ex,Ey,Ez (V/cm), got %" PetscInt_FMT, n);
    PetscCall(BTEDriftSetField(d, E));
  }
  PetscCall(PetscOptionsEnum("-bte_drift_form", "Discretisation of the drift term", "BTEDriftSetForm", BTEDriftForms, (PetscEnum)d->form, (PetscEnum *)&d->form, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* Full-grid neighbour lookup through a distributed directory of (kindex, band) keys. */
static PetscErrorCode BTEDriftBuildNeighbours(BTEDrift d)
{
  BTE            bte = d->bte;
  MPI_Comm       comm = PetscObjectComm((PetscObject)d);
  const PetscInt nb = d->bv.nb, nl = bte->nlocal, nbands = bte->nbands;
  const PetscInt *nk = bte->grid.nk;
  PetscInt64     K64 = (PetscInt64)nk[0] * nk[1] * nk[2] * nbands;
  PetscInt       K, ndir, *keys, *gidx, *dir, *cnt, *ones, *nkeys, *nglob, nghost = 0, *ghosts, rend = bte->rstart + nl;
  PetscLayout    kl;
  PetscSF        sf;
  int            dup = 0;

  PetscFunctionBegin;
  PetscCheck(K64 < PETSC_MAX_INT, comm, PETSC_ERR_SUP, "k grid x bands (%" PetscInt64_FMT ") exceeds 32-bit indices; build PETSc with --with-64-bit-indices", K64);
  K = (PetscInt)K64;
  PetscCall(PetscLayoutCreateFromSizes(comm, PETSC_DECIDE, K, 1, &kl));
  PetscCall(PetscLayoutGetLocalSize(kl, &ndir));
  PetscCall(PetscMalloc5(nl, &keys, nl, &gidx, ndir, &dir, ndir, &cnt, nl, &ones));
  for (PetscInt i = 0; i < nl; i++) {
    PetscCheck(bte->kindex[i] >= 0 && bte->kindex[i] < K / nbands && bte->band[i] >= 0 && bte->band[i] < nbands, PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "State %" PetscInt_FMT " has k index %" PetscInt_FMT " / band %" PetscInt_FMT " outside the grid", bte->rstart + i, bte->kindex[i], bte->band[i]);
    keys[i] = bte->kindex[i] * nbands + bte->band[i];
    gidx[i] = bte->rstart + i;
    ones[i] = 1;
  }
  for (PetscInt r = 0; r < ndir; r++) {
    dir[r] = -1;
    cnt[r] = 0;
  }
  PetscCall(PetscSFCreate(comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, kl, nl, NULL, PETSC_COPY_VALUES, keys));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, gidx, dir, MPI_REPLACE));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, gidx, dir, MPI_REPLACE));
  PetscCall(PetscSFReduceBegin(sf, MPIU_INT, ones, cnt, MPI_SUM));
  PetscCall(PetscSFReduceEnd(sf, MPIU_INT, ones, cnt, MPI_SUM));
  PetscCall(PetscSFDestroy(&sf));
  for (PetscInt r = 0; r < ndir; r++)
    if (cnt[r] > 1) dup = 1;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &dup, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(!dup, comm, PETSC_ERR_ARG_CORRUPT, "The table has two states with the same (k index, band): cannot find drift neighbours");

  /* neighbour keys */
  PetscCall(PetscMalloc2(nl * nb, &nkeys, nl * nb, &nglob));
  for (PetscInt i = 0; i < nl; i++) {
    PetscInt ik = bte->kindex[i], i2 = ik % nk[2], i1 = (ik / nk[2]) % nk[1], i0 = ik / (nk[2] * nk[1]);
    for (PetscInt b = 0; b < nb; b++) {
      const PetscInt *m  = &d->bv.m[3 * b];
      PetscInt        j0 = ((i0 + m[0]) % nk[0] + nk[0]) % nk[0];
      PetscInt        j1 = ((i1 + m[1]) % nk[1] + nk[1]) % nk[1];
      PetscInt        j2 = ((i2 + m[2]) % nk[2] + nk[2]) % nk[2];
      nkeys[i * nb + b]  = ((j0 * nk[1] + j1) * nk[2] + j2) * nbands + bte->band[i];
    }
  }
  PetscCall(PetscSFCreate(comm, &sf));
  PetscCall(PetscSFSetGraphLayout(sf, kl, nl * nb, NULL, PETSC_COPY_VALUES, nkeys));
  PetscCall(PetscSFBcastBegin(sf, MPIU_INT, dir, nglob, MPI_REPLACE));
  PetscCall(PetscSFBcastEnd(sf, MPIU_INT, dir, nglob, MPI_REPLACE));
  PetscCall(PetscSFDestroy(&sf));
  PetscCall(PetscLayoutDestroy(&kl));
  PetscCall(PetscFree5(keys, gidx, dir, cnt, ones));

  /* local / ghost / missing */
  for (PetscInt q = 0; q < nl * nb; q++)
    if (nglob[q] >= 0 && (nglob[q] < bte->rstart || nglob[q] >= rend)) nghost++;
  PetscCall(PetscMalloc2(nl * nb, &d->nbr, nghost, &ghosts));
  nghost = 0;
  for (PetscInt q = 0; q < nl * nb; q++)
    if (nglob[q] >= 0 && (nglob[q] < bte->rstart || nglob[q] >= rend)) ghosts[nghost++] = nglob[q];
  PetscCall(PetscSortRemoveDupsInt(&nghost, ghosts));
  for (PetscInt q = 0; q < nl * nb; q++) {
    PetscInt g = nglob[q];
    if (g < 0) d->nbr[q] = -1;
    else if (g >= bte->rstart && g < rend) d->nbr[q] = g - bte->rstart;
    else {
      PetscInt loc;
      PetscCall(PetscFindInt(g, nghost, ghosts, &loc));
      PetscCheck(loc >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ghost not found");
      d->nbr[q] = nl + loc;
    }
  }
  d->ghosts = ghosts;
  d->nghost = nghost;
  d->nlocal = nl;
  PetscCall(PetscFree2(nkeys, nglob));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftSetUp(BTEDrift d)
{
  BTE       bte;
  MPI_Comm  comm;
  PetscReal F[3], vmax = 0, Emag;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  if (d->setupcalled) PetscFunctionReturn(0);
  bte  = d->bte;
  comm = PetscObjectComm((PetscObject)d);
  PetscCheck(bte->setupcalled, comm, PETSC_ERR_ARG_WRONGSTATE, "Call BTESetUp() before BTEDriftSetUp()");
  PetscCall(PetscLogEventBegin(BTE_DriftSetUp, d, 0, 0, 0));
  Emag = PetscSqrtReal(d->efield[0] * d->efield[0] + d->efield[1] * d->efield[1] + d->efield[2] * d->efield[2]);
  if (Emag > 0) {
    for (PetscInt i = 0; i < 3 * bte->nlocal; i++) vmax = PetscMax(vmax, PetscAbsReal(bte->velocity[i]));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &vmax, 1, MPIU_REAL, MPIU_MAX, comm));
    PetscCheck(vmax > 0, comm, PETSC_ERR_USER_INPUT, "An electric field was given (-bte_efield) but the table has no band velocities (all zero): regenerate the table with velocities, or run without a field");
    if (bte->grid.dim == 2) PetscCheck(PetscAbsReal(d->efield[2]) <= 1e-12 * Emag, comm, PETSC_ERR_USER_INPUT, "2D material: the field must lie in the plane (Ez = 0), got Ez = %g V/cm", (double)d->efield[2]);
  }
  if (!d->bv.nb) {
    PetscCall(BTEBVectorsCompute(&bte->grid, &d->bv));
    PetscCall(BTEDriftBuildNeighbours(d));
    PetscCall(PetscMalloc1(d->bv.nb, &d->c));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, d->nghost, &d->fghost));
    PetscCall(VecDuplicate(d->fghost, &d->xghost));
    {
      Vec v;
      IS  is;
      PetscCall(BTECreateStateVec(bte, &v));
      PetscCall(ISCreateGeneral(PETSC_COMM_SELF, d->nghost, d->ghosts, PETSC_USE_POINTER, &is));
      PetscCall(VecScatterCreate(v, is, d->fghost, NULL, &d->scatter));
      PetscCall(ISDestroy(&is));
      PetscCall(VecDestroy(&v));
    }
    PetscCall(PetscMalloc2(d->nlocal, &d->gl, d->nghost, &d->gg));
    PetscCall(PetscMalloc4(d->nlocal, &d->jdiag, d->nlocal, &d->jp, d->nlocal, &d->jul, d->nghost, &d->jug));
  }
  /* F = q E: q = -e for electrons (carrier -1), +e for holes; eV/Angstrom = 1e-8 V/cm */
  for (PetscInt a = 0; a < 3; a++) F[a] = (bte->carrier < 0 ? -1.0 : 1.0) * d->efield[a] * 1e-8;
  for (PetscInt b = 0; b < d->bv.nb; b++) {
    const PetscReal *bb = &d->bv.b[3 * b];
    d->c[b]             = -d->bv.w[b] * (F[0] * bb[0] + F[1] * bb[1] + F[2] * bb[2]) / BTE_HBAR;
  }
  d->jstate      = PETSC_FALSE;
  d->setupcalled = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_DriftSetUp, d, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftGetBVectors(BTEDrift d, PetscInt *nb, const PetscReal *b[], const PetscReal *w[])
{
  PetscFunctionBegin;
  PetscCall(BTEDriftSetUp(d));
  if (nb) *nb = d->bv.nb;
  if (b) *b = d->bv.b;
  if (w) *w = d->bv.w;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftView(BTEDrift d, PetscViewer viewer)
{
  PetscBool iascii;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  if (!viewer) PetscCall(PetscViewerASCIIGetStdout(PetscObjectComm((PetscObject)d), &viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCall(PetscObjectChangeTypeName((PetscObject)d, BTEDriftForms[d->form]));
  PetscCall(PetscObjectPrintClassNamePrefixType((PetscObject)d, viewer));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PetscViewerASCIIPrintf(viewer, "field: (%g, %g, %g) V/cm, form: %s\n", (double)d->efield[0], (double)d->efield[1], (double)d->efield[2], BTEDriftForms[d->form]));
  if (d->setupcalled) {
    PetscInt ng = d->nghost, ngmax, missing = 0;
    for (PetscInt q = 0; q < d->nlocal * d->bv.nb; q++)
      if (d->nbr[q] < 0) missing++;
    PetscCall(MPIU_Allreduce(&ng, &ngmax, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)d)));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &missing, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)d)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "b-vectors: %" PetscInt_FMT " in %" PetscInt_FMT " shell(s)\n", d->bv.nb, d->bv.nshells));
    for (PetscInt b = 0; b < d->bv.nb; b++) PetscCall(PetscViewerASCIIPrintf(viewer, "  b = (%9.5f %9.5f %9.5f) 1/A  w = %g A^2  (steps %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ")\n", (double)d->bv.b[3 * b], (double)d->bv.b[3 * b + 1], (double)d->bv.b[3 * b + 2], (double)d->bv.w[b], d->bv.m[3 * b], d->bv.m[3 * b + 1], d->bv.m[3 * b + 2]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "neighbours outside the window: %" PetscInt_FMT "; ghosts on the busiest rank: %" PetscInt_FMT "\n", missing, ngmax));
  }
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDriftGhosts(BTEDrift d, Vec f, Vec ghost)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(d->scatter, f, ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(d->scatter, f, ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDriftApply_Private(BTEDrift d, Vec f, Vec y, PetscBool add)
{
  const PetscInt     nb = d->bv.nb, nl = d->nlocal, *nbr = d->nbr;
  const PetscReal   *c  = d->c;
  const PetscScalar *fl, *fg;
  PetscScalar       *ya;

  PetscFunctionBegin;
  PetscCall(BTEDriftSetUp(d));
  PetscCall(PetscLogEventBegin(BTE_DriftApply, d, f, y, 0));
  PetscCall(BTEDriftGhosts(d, f, d->fghost));
  PetscCall(VecGetArrayRead(f, &fl));
  PetscCall(VecGetArrayRead(d->fghost, &fg));
  PetscCall(VecGetArray(y, &ya));
  if (d->form == BTE_DRIFT_PLAIN) {
#pragma omp parallel for
    for (PetscInt i = 0; i < nl; i++) {
      PetscReal s = 0, fi = PetscRealPart(fl[i]);
      for (PetscInt b = 0; b < nb; b++) {
        PetscInt j = nbr[i * nb + b];
        if (j < 0) continue;
        s += c[b] * ((j < nl ? PetscRealPart(fl[j]) : PetscRealPart(fg[j - nl])) + fi);
      }
      ya[i] = add ? ya[i] + s : s;
    }
    PetscCall(PetscLogFlops(3.0 * nl * nb));
  } else {
    PetscReal *gl = d->gl, *gg = d->gg, dummy;
#pragma omp parallel for private(dummy)
    for (PetscInt i = 0; i < nl; i++) BTELogOcc(PetscRealPart(fl[i]), &gl[i], &dummy);
#pragma omp parallel for private(dummy)
    for (PetscInt i = 0; i < d->nghost; i++) BTELogOcc(PetscRealPart(fg[i]), &gg[i], &dummy);
#pragma omp parallel for
    for (PetscInt i = 0; i < nl; i++) {
      PetscReal s = 0, fi = PetscRealPart(fl[i]);
      for (PetscInt b = 0; b < nb; b++) {
        PetscInt j = nbr[i * nb + b];
        if (j < 0) continue;
        s += c[b] * ((j < nl ? gl[j] : gg[j - nl]) - gl[i]);
      }
      s *= fi * (fi - 1);
      ya[i] = add ? ya[i] + s : s;
    }
    PetscCall(PetscLogFlops(3.0 * nl * nb + 25.0 * (nl + d->nghost) + 3.0 * nl));
  }
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(d->fghost, &fg));
  PetscCall(VecRestoreArrayRead(f, &fl));
  PetscCall(PetscLogEventEnd(BTE_DriftApply, d, f, y, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftApply(BTEDrift d, Vec f, Vec y)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftApply_Private(d, f, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftApplyAdd(BTEDrift d, Vec f, Vec y)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftApply_Private(d, f, y, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Jacobian state. plain: J_ii = sum_b c_b, J_ij = c_b (independent of f).
   log: with p_i = f_i(f_i-1), S_i = sum_b c_b (g_j - g_i), u = dg/df (0 where clipped):
   J_ii = (2 f_i - 1) S_i - p_i u_i sum_b c_b,  J_ij = p_i c_b u_j. */
PetscErrorCode BTEDriftSetJacobianState(BTEDrift d, Vec f)
{
  const PetscScalar *fl, *fg;
  PetscInt           nb, nl;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftSetUp(d));
  nb = d->bv.nb;
  nl = d->nlocal;
  PetscCall(PetscLogEventBegin(BTE_DriftJacobian, d, f, 0, 0));
  if (d->form == BTE_DRIFT_PLAIN) {
    for (PetscInt i = 0; i < nl; i++) {
      PetscReal s = 0;
      for (PetscInt b = 0; b < nb; b++)
        if (d->nbr[i * nb + b] >= 0) s += d->c[b];
      d->jdiag[i] = s;
    }
  } else {
    PetscCall(BTEDriftGhosts(d, f, d->fghost));
    PetscCall(VecGetArrayRead(f, &fl));
    PetscCall(VecGetArrayRead(d->fghost, &fg));
    for (PetscInt i = 0; i < nl; i++) BTELogOcc(PetscRealPart(fl[i]), &d->gl[i], &d->jul[i]);
    for (PetscInt i = 0; i < d->nghost; i++) BTELogOcc(PetscRealPart(fg[i]), &d->gg[i], &d->jug[i]);
#pragma omp parallel for
    for (PetscInt i = 0; i < nl; i++) {
      PetscReal S = 0, C = 0, fi = PetscRealPart(fl[i]);
      for (PetscInt b = 0; b < nb; b++) {
        PetscInt j = d->nbr[i * nb + b];
        if (j < 0) continue;
        S += d->c[b] * ((j < nl ? d->gl[j] : d->gg[j - nl]) - d->gl[i]);
        C += d->c[b];
      }
      d->jp[i]    = fi * (fi - 1);
      d->jdiag[i] = (2 * fi - 1) * S - d->jp[i] * d->jul[i] * C;
    }
    PetscCall(VecRestoreArrayRead(d->fghost, &fg));
    PetscCall(VecRestoreArrayRead(f, &fl));
  }
  d->jstate = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_DriftJacobian, d, f, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftJacobianMultAdd(BTEDrift d, Vec x, Vec y)
{
  const PetscScalar *xl, *xg;
  PetscScalar       *ya;
  PetscInt           nb, nl;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCheck(d->jstate, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_WRONGSTATE, "Call BTEDriftSetJacobianState() first");
  nb = d->bv.nb;
  nl = d->nlocal;
  PetscCall(PetscLogEventBegin(BTE_DriftApply, d, x, y, 0));
  PetscCall(BTEDriftGhosts(d, x, d->xghost));
  PetscCall(VecGetArrayRead(x, &xl));
  PetscCall(VecGetArrayRead(d->xghost, &xg));
  PetscCall(VecGetArray(y, &ya));
  if (d->form == BTE_DRIFT_PLAIN) {
#pragma omp parallel for
    for (PetscInt i = 0; i < nl; i++) {
      PetscReal s = d->jdiag[i] * PetscRealPart(xl[i]);
      for (PetscInt b = 0; b < nb; b++) {
        PetscInt j = d->nbr[i * nb + b];
        if (j < 0) continue;
        s += d->c[b] * (j < nl ? PetscRealPart(xl[j]) : PetscRealPart(xg[j - nl]));
      }
      ya[i] += s;
    }
  } else {
#pragma omp parallel for
    for (PetscInt i = 0; i < nl; i++) {
      PetscReal s = 0;
      for (PetscInt b = 0; b < nb; b++) {
        PetscInt j = d->nbr[i * nb + b];
        if (j < 0) continue;
        s += d->c[b] * (j < nl ? d->jul[j] * PetscRealPart(xl[j]) : d->jug[j - nl] * PetscRealPart(xg[j - nl]));
      }
      ya[i] += d->jdiag[i] * PetscRealPart(xl[i]) + d->jp[i] * s;
    }
  }
  PetscCall(PetscLogFlops(3.0 * nl * nb + 3.0 * nl));
  PetscCall(VecRestoreArray(y, &ya));
  PetscCall(VecRestoreArrayRead(d->xghost, &xg));
  PetscCall(VecRestoreArrayRead(x, &xl));
  PetscCall(PetscLogEventEnd(BTE_DriftApply, d, x, y, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftJacobianDiagonalAdd(BTEDrift d, Vec diag)
{
  PetscScalar *a;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCheck(d->jstate, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_WRONGSTATE, "Call BTEDriftSetJacobianState() first");
  PetscCall(VecGetArray(diag, &a));
  for (PetscInt i = 0; i < d->nlocal; i++) a[i] += d->jdiag[i];
  PetscCall(VecRestoreArray(diag, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDriftGradient(BTEDrift d, Vec u, Vec grad[3])
{
  const PetscScalar *ul, *ug;
  PetscScalar       *ga[3];
  PetscInt           nb, nl;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftSetUp(d));
  nb = d->bv.nb;
  nl = d->nlocal;
  PetscCall(BTEDriftGhosts(d, u, d->xghost));
  PetscCall(VecGetArrayRead(u, &ul));
  PetscCall(VecGetArrayRead(d->xghost, &ug));
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecGetArrayWrite(grad[a], &ga[a]));
  for (PetscInt i = 0; i < nl; i++) {
    PetscReal s[3] = {0, 0, 0};
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt  j = d->nbr[i * nb + b];
      PetscReal du;
      if (j < 0) continue;
      du = (j < nl ? PetscRealPart(ul[j]) : PetscRealPart(ug[j - nl])) - PetscRealPart(ul[i]);
      for (PetscInt a = 0; a < 3; a++) s[a] += d->bv.w[b] * d->bv.b[3 * b + a] * du;
    }
    for (PetscInt a = 0; a < 3; a++) ga[a][i] = s[a];
  }
  for (PetscInt a = 0; a < 3; a++) PetscCall(VecRestoreArrayWrite(grad[a], &ga[a]));
  PetscCall(VecRestoreArrayRead(d->xghost, &ug));
  PetscCall(VecRestoreArrayRead(u, &ul));
  PetscFunctionReturn(0);
}
