/* BTEDrift: the drift term -(F/hbar).grad_k f of a static field (docs/theory.md section 5).

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
   antisymmetric, so sum_i D_i = 0 exactly (no carriers leave through the window edge).

   The stencil is assembled at setup as a PETSc Mat A (rows: owned states; columns: their
   neighbours, off-rank ones included; COO assembly), c_b off the diagonal and +-sum_b c_b on it:
     plain D = A f                  (A_ii = +sum_b c_b)
     log   D = f(f-1) (A g)         (A_ii = -sum_b c_b)
   so an apply is a MatMult plus, for the log form, two pointwise passes (g from f, then the
   product), in host loops or in the CUDA kernels of drift_cuda.cu. The Mat's type follows the
   state Vec (MATAIJCUSPARSE for CUDA Vecs; -bte_drift_mat_type overrides), so with
   -vec_type cuda the drift term and its Jacobian run on the GPU without host<->device copies.
   The Jacobian: plain A; log J x = (2f-1) S x + f(f-1) A(u x), u = dg/df (driftcuda.h).
   muscl: A is the upwind stencil and a limited correction is added, by host loops or on the device
   (drift_muscl.c). */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/validate.h>
#include <bte/private/driftcuda.h>
#include <petscsf.h>

const char *const BTEDriftForms[] = {"log", "plain", "upwind", "muscl", "BTEDriftForm", "BTE_DRIFT_", NULL};

/*@
   BTEDriftCreate - Creates the drift term -(F/hbar).grad_k f of a static field (docs/theory.md section 5)

   Collective

   Input Parameter:
.  bte - the BTE

   Output Parameter:
.  drift - the new drift term

   Level: intermediate

.seealso: `BTEDriftSetField()`, `BTEDriftApply()`, `BTEDriftDestroy()`
@*/
PetscErrorCode BTEDriftCreate(BTE bte, BTEDrift *drift)
{
  BTEDrift d;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  PetscCall(BTEDynamicsPackageInitialize());
  PetscCall(PetscHeaderCreate(d, BTEDRIFT_CLASSID, "BTEDrift", "Drift term of a static field", "BTE", PetscObjectComm((PetscObject)bte), BTEDriftDestroy, BTEDriftView));
  PetscCall(PetscObjectReference((PetscObject)bte));
  d->bte  = bte;
  d->form = BTE_DRIFT_MUSCL;
  *drift  = d;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftDestroy - Destroys a drift term

   Collective

   Input Parameter:
.  drift - the drift term (set to NULL)

   Level: intermediate

.seealso: `BTEDriftCreate()`
@*/
PetscErrorCode BTEDriftDestroy(BTEDrift *drift)
{
  BTEDrift d;

  PetscFunctionBegin;
  if (!drift || !*drift) PetscFunctionReturn(0);
  PetscValidHeaderSpecific(*drift, BTEDRIFT_CLASSID, 1);
  d = *drift;
  if (--((PetscObject)d)->refct > 0) {
    *drift = NULL;
    PetscFunctionReturn(0);
  }
  PetscCall(BTEDriftMUSCLDestroy(d));
  PetscCall(BTEBVectorsDestroy(&d->bv));
  PetscCall(PetscFree(d->c));
  PetscCall(PetscFree2(d->nbr, d->ghosts));
  PetscCall(VecScatterDestroy(&d->scatter));
  PetscCall(VecDestroy(&d->fghost));
  PetscCall(VecDestroy(&d->xghost));
  PetscCall(MatDestroy(&d->A));
  PetscCall(VecDestroy(&d->adiag));
  PetscCall(VecDestroy(&d->w1));
  PetscCall(VecDestroy(&d->w2));
  PetscCall(VecDestroy(&d->g));
  PetscCall(VecDestroy(&d->S));
  PetscCall(VecDestroy(&d->ju));
  PetscCall(VecDestroy(&d->jp));
  PetscCall(VecDestroy(&d->jd));
  PetscCall(VecDestroy(&d->jdiag));
  PetscCall(VecDestroy(&d->jt));
  PetscCall(VecDestroy(&d->jz));
  PetscCall(BTEDestroy(&d->bte));
  PetscCall(PetscHeaderDestroy(drift));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftSetField - Sets the electric field

   Logically Collective

   Input Parameters:
+  d - the drift term
-  E - the field, V/cm (Cartesian)

   Options Database Key:
.  -bte_efield <Ex,Ey,Ez> - the field, V/cm

   Notes:
   The force is -eE for electrons, +eE for holes.

   Level: intermediate

.seealso: `BTEDriftGetField()`
@*/
PetscErrorCode BTEDriftSetField(BTEDrift d, const PetscReal E[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  for (PetscInt a = 0; a < 3; a++) {
    PetscCheck(!PetscIsInfOrNanReal(E[a]), PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_OUTOFRANGE, "Electric field component E%c is not a finite number", (char)('x' + a));
    PetscCheck(PetscAbsReal(E[a]) <= BTE_EFIELD_MAX, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_OUTOFRANGE, "Electric field component E%c = %g V/cm is outside [%g, %g] V/cm", (char)('x' + a), (double)E[a], -(double)BTE_EFIELD_MAX, (double)BTE_EFIELD_MAX);
    d->efield[a] = E[a];
  }
  d->setupcalled = PETSC_FALSE; /* coefficients depend on the field */
  d->jstate      = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftGetField - Gets the electric field

   Not Collective

   Input Parameter:
.  d - the drift term

   Output Parameter:
.  E - the field, V/cm

   Level: intermediate

.seealso: `BTEDriftSetField()`
@*/
PetscErrorCode BTEDriftGetField(BTEDrift d, PetscReal E[3])
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  for (PetscInt a = 0; a < 3; a++) E[a] = d->efield[a];
  PetscFunctionReturn(0);
}

/*@
   BTEDriftSetForm - Sets the discretisation of the drift term

   Logically Collective

   Input Parameters:
+  d    - the drift term
-  form - BTE_DRIFT_MUSCL (the default: conservative upwind with a limited linear
          reconstruction, second order where f is smooth, keeps f >= 0), BTE_DRIFT_LOG
          (Perturbo's, keeps f in (0,1), does not conserve carriers), BTE_DRIFT_PLAIN (flux form,
          conserves carriers) or BTE_DRIFT_UPWIND (conservative first-order upwind, keeps f >= 0)

   Options Database Key:
.  -bte_drift_form <log,plain,upwind,muscl> - the form

   Notes:
   muscl is nonlinear in f; its Jacobian is exact wherever the limiter is differentiable (the
   limiter's branch at the state is frozen), so implicit TS methods and the high-field Newton
   solve can use it (docs/dynamics.md).

   Level: intermediate

.seealso: `BTEDriftGetForm()`
@*/
PetscErrorCode BTEDriftSetForm(BTEDrift d, BTEDriftForm form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCheck(form >= BTE_DRIFT_LOG && form <= BTE_DRIFT_MUSCL, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_OUTOFRANGE, "Unknown drift form %d: log, plain, upwind or muscl", (int)form);
  if (form != d->form) {
    d->setupcalled = PETSC_FALSE; /* the diagonal of the stencil matrix depends on the form */
    d->jstate      = PETSC_FALSE;
  }
  d->form = form;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftSetLimiter - Sets the slope limiter of the muscl drift form

   Logically Collective

   Input Parameters:
+  d       - the drift term
-  limiter - BTE_DRIFT_LIMITER_VANLEER (default; smooth, less diffusive) or BTE_DRIFT_LIMITER_MINMOD
             (the most diffusive second-order TVD limiter)

   Options Database Key:
.  -bte_drift_limiter <vanleer,minmod> - the limiter

   Level: intermediate

.seealso: `BTEDriftSetForm()`, `BTEDriftGetLimiter()`
@*/
PetscErrorCode BTEDriftSetLimiter(BTEDrift d, BTEDriftLimiter limiter)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCheck(limiter == BTE_DRIFT_LIMITER_VANLEER || limiter == BTE_DRIFT_LIMITER_MINMOD, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_OUTOFRANGE, "Unknown drift limiter %d: vanleer or minmod", (int)limiter);
  if (limiter != d->limiter) d->jstate = PETSC_FALSE;
  d->limiter = limiter;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftGetLimiter - Gets the slope limiter of the muscl drift form

   Not Collective

   Input Parameter:
.  d - the drift term

   Output Parameter:
.  limiter - the limiter

   Level: intermediate

.seealso: `BTEDriftSetLimiter()`
@*/
PetscErrorCode BTEDriftGetLimiter(BTEDrift d, BTEDriftLimiter *limiter)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  *limiter = d->limiter;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftGetForm - Gets the discretisation of the drift term

   Not Collective

   Input Parameter:
.  d - the drift term

   Output Parameter:
.  form - the form

   Level: intermediate

.seealso: `BTEDriftSetForm()`
@*/
PetscErrorCode BTEDriftGetForm(BTEDrift d, BTEDriftForm *form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  *form = d->form;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftSetFromOptions - Reads the drift term's options

   Collective

   Input Parameter:
.  d - the drift term

   Options Database Keys:
+  -bte_efield <Ex,Ey,Ez>                   - the field, V/cm
.  -bte_drift_form <log,plain,upwind,muscl> - the form
.  -bte_drift_limiter <vanleer,minmod>      - the muscl form's slope limiter
-  -bte_drift_mat_type <type>               - Mat type of the drift stencil (default: aijcusparse for CUDA state Vecs, else aij)

   Level: intermediate

.seealso: `BTEDriftCreate()`
@*/
PetscErrorCode BTEDriftSetFromOptions(BTEDrift d)
{
  PetscReal E[4];
  PetscInt  n = 4; /* one more than needed: a fourth component is an error, not dropped */
  PetscBool flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  for (PetscInt a = 0; a < 3; a++) E[a] = d->efield[a];
  PetscObjectOptionsBegin((PetscObject)d);
  if (!d->ownerfield) {
    PetscCall(PetscOptionsRealArray("-bte_efield", "Static electric field Ex,Ey,Ez, V/cm", "BTEDriftSetField", E, &n, &flg));
    if (flg) {
      PetscCheck(n == 3, PetscObjectComm((PetscObject)d), PETSC_ERR_USER_INPUT, "-bte_efield needs three components Ex,Ey,Ez (V/cm), got %" PetscInt_FMT, n);
      PetscCall(BTEDriftSetField(d, E));
    }
  }
  if (!d->ownerform) {
    BTEDriftForm form = d->form;
    PetscCall(PetscOptionsEnum("-bte_drift_form", "Discretisation of the drift term: muscl (conserves carriers, 0 <= f <= 1), log (Perturbo's), plain or upwind", "BTEDriftSetForm", BTEDriftForms, (PetscEnum)form, (PetscEnum *)&form, NULL));
    PetscCall(BTEDriftSetForm(d, form));
  }
  {
    BTEDriftLimiter lim = d->limiter;
    PetscCall(PetscOptionsEnum("-bte_drift_limiter", "Slope limiter of the muscl drift form", "BTEDriftSetLimiter", BTEDriftLimiters, (PetscEnum)lim, (PetscEnum *)&lim, &flg));
    /* the other forms have no slopes: the limiter would be ignored */
    PetscCheck(!flg || d->form == BTE_DRIFT_MUSCL, PetscObjectComm((PetscObject)d), PETSC_ERR_USER_INPUT, "-bte_drift_limiter is an option of the muscl drift form; -bte_drift_form %s has no slopes to limit: leave it out", BTEDriftForms[d->form]);
    PetscCall(BTEDriftSetLimiter(d, lim));
  }
  {
    char mt[64];
    PetscCall(PetscOptionsString("-bte_drift_mat_type", "Mat type of the drift stencil (default: aijcusparse for CUDA state Vecs, else aij)", "BTEDriftSetUp", d->mattype, mt, sizeof(mt), &flg));
    if (flg) {
      PetscCheck(!d->A, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_WRONGSTATE, "-bte_drift_mat_type must be set before BTEDriftSetUp()");
      PetscCall(PetscStrncpy(d->mattype, mt, sizeof(d->mattype)));
    }
  }
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

/* A drift inside another object: a dynamics reads -bte_efield and -bte_drift_form itself (and lists
   them in -help), a high-field solve sets each field of its list; they set these through the API,
   so the drift's SetFromOptions leaves them out (no option listed twice, none read and ignored) */
PetscErrorCode BTEDriftSetOwned(BTEDrift d, PetscBool field, PetscBool form)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  d->ownerfield = field;
  d->ownerform  = form;
  PetscFunctionReturn(0);
}

/* Full-grid neighbour lookup through a distributed directory of (kindex, band) keys. */
static PetscErrorCode BTEDriftBuildNeighbours(BTEDrift d)
{
  BTE            bte = d->bte;
  MPI_Comm       comm = PetscObjectComm((PetscObject)d);
  const PetscInt nb = d->bv.nb, nl = bte->nlocal, nbands = bte->nbands;
  const PetscInt *nk = bte->grid.nk;
  PetscReal      K64 = (PetscReal)nk[0] * nk[1] * nk[2] * nbands; /* in double: cannot overflow */
  PetscInt       K, ndir, *keys, *gidx, *dir, *cnt, *ones, *nkeys, *nglob, nghost = 0, *ghosts, rend = bte->rstart + nl;
  PetscLayout    kl;
  PetscSF        sf;
  int            dup = 0;

  PetscFunctionBegin;
  PetscCheck(K64 < (PetscReal)PETSC_MAX_INT, comm, PETSC_ERR_SUP, "k grid x bands (%.4g) exceeds 32-bit indices; build PETSc with --with-64-bit-indices", (double)K64);
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

static PetscErrorCode BTEDriftVecIsCUDA(Vec v, PetscBool *cuda)
{
  PetscFunctionBegin;
  *cuda = PETSC_FALSE;
#if defined(BTE_HAVE_CUDA)
  PetscCall(PetscObjectTypeCompareAny((PetscObject)v, cuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
#else
  (void)v;
#endif
  PetscFunctionReturn(0);
}

/* The stencil matrix: rows are the owned states, in COO order per row its diagonal, then its
   in-window neighbours in b order (a neighbour reached by two b-vectors, possible on tiny grids, is
   summed). Its type: -bte_drift_mat_type, else AIJCUSPARSE when the state Vec v is a CUDA Vec. */
static PetscErrorCode BTEDriftCreateMatrix(BTEDrift d, Vec v)
{
  BTE            bte = d->bte;
  const PetscInt nb = d->bv.nb, nl = d->nlocal;
  PetscInt      *ci, *cj;
  PetscCount     n = nl, q = 0;
  PetscBool      cuda = PETSC_FALSE;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < nl * nb; k++)
    if (d->nbr[k] >= 0) n++;
  PetscCall(PetscMalloc2(n, &ci, n, &cj));
  for (PetscInt i = 0; i < nl; i++) {
    ci[q]   = bte->rstart + i;
    cj[q++] = bte->rstart + i;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt j = d->nbr[i * nb + b];
      if (j < 0) continue;
      ci[q]   = bte->rstart + i;
      cj[q++] = j < nl ? bte->rstart + j : d->ghosts[j - nl];
    }
  }
  d->ncoo = n;
  if (!d->mattype[0]) { /* none given (-bte_drift_mat_type, read by BTEDriftSetFromOptions) */
    PetscCall(BTEDriftVecIsCUDA(v, &cuda));
    PetscCall(PetscStrncpy(d->mattype, cuda ? MATAIJCUSPARSE : MATAIJ, sizeof(d->mattype)));
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)d), &d->A));
  PetscCall(MatSetSizes(d->A, nl, nl, bte->nstates, bte->nstates));
  PetscCall(MatSetType(d->A, d->mattype));
  PetscCall(PetscObjectSetName((PetscObject)d->A, "drift stencil"));
  PetscCall(MatSetPreallocationCOO(d->A, n, ci, cj));
  PetscCall(PetscFree2(ci, cj));
  PetscCall(MatCreateVecs(d->A, &d->adiag, NULL));
  PetscCall(BTEDriftVecIsCUDA(d->adiag, &d->cuda));
  PetscFunctionReturn(0);
}

/* The values: c_b off the diagonal, +sum_b c_b (plain) or -sum_b c_b (log) on it, summed in b order.
   upwind: the flux from i to j = i + b, -c_b (f_i + f_j) in the plain form, takes twice the f of
   the upwind end instead: 2 max(c_b, 0) off the diagonal (inflow from j) and -2 sum_b max(-c_b, 0)
   on it (outflow). That is plain + sum_b |c_b| (f_j - f_i), a diffusion along the field of
   strength |c_b| (first order in the grid step); still a flux form (b and -b have the same
   |c_b|, so sum_i D_i = 0 exactly), with no negative coefficient off the diagonal, so f >= 0 is
   kept; at f = 1 a state with all its neighbours has D_i <= 0 (the c_b of b and -b cancel), so f <= 1
   too; a state at the window's edge missing a downstream neighbour can pile up. muscl uses the
   upwind values here and adds its limited correction (drift_muscl.c). */
static PetscErrorCode BTEDriftFillMatrix(BTEDrift d)
{
  const PetscInt  nb = d->bv.nb, nl = d->nlocal;
  const PetscReal sign = d->form == BTE_DRIFT_PLAIN ? 1.0 : -1.0;
  const PetscBool up   = d->form == BTE_DRIFT_UPWIND || d->form == BTE_DRIFT_MUSCL ? PETSC_TRUE : PETSC_FALSE;
  PetscScalar    *v;
  PetscCount      q = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(d->ncoo, &v));
  for (PetscInt i = 0; i < nl; i++) {
    PetscCount qd = q++;
    PetscReal  s  = 0;
    for (PetscInt b = 0; b < nb; b++) {
      if (d->nbr[i * nb + b] < 0) continue;
      v[q++] = up ? 2 * PetscMax(d->c[b], 0) : d->c[b];
      s += up ? 2 * PetscMax(-d->c[b], 0) : d->c[b];
    }
    v[qd] = sign * s;
  }
  PetscCall(MatSetValuesCOO(d->A, v, INSERT_VALUES));
  PetscCall(PetscFree(v));
  PetscCall(MatGetDiagonal(d->A, d->adiag));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftSetUp - Finds the b-vectors and builds the neighbour stencil

   Collective

   Input Parameter:
.  d - the drift term

   Level: intermediate

.seealso: `BTEDriftGetBVectors()`
@*/
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
    Vec v;
    IS  is;
    PetscCall(BTEBVectorsCompute(&bte->grid, &d->bv));
    PetscCall(BTEDriftBuildNeighbours(d));
    PetscCall(PetscMalloc1(d->bv.nb, &d->c));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, d->nghost, &d->fghost));
    PetscCall(VecDuplicate(d->fghost, &d->xghost));
    PetscCall(BTECreateStateVec(bte, &v));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, d->nghost, d->ghosts, PETSC_USE_POINTER, &is));
    PetscCall(VecScatterCreate(v, is, d->fghost, NULL, &d->scatter));
    PetscCall(ISDestroy(&is));
    PetscCall(BTEDriftCreateMatrix(d, v));
    PetscCall(VecDestroy(&v));
  }
  /* F = q E: q = -e for electrons (carrier -1), +e for holes; eV/Angstrom = 1e-8 V/cm */
  for (PetscInt a = 0; a < 3; a++) F[a] = (bte->carrier < 0 ? -1.0 : 1.0) * d->efield[a] * 1e-8;
  for (PetscInt b = 0; b < d->bv.nb; b++) {
    const PetscReal *bb = &d->bv.b[3 * b];
    d->c[b]             = -d->bv.w[b] * (F[0] * bb[0] + F[1] * bb[1] + F[2] * bb[2]) / BTE_HBAR;
  }
  PetscCall(BTEDriftFillMatrix(d));
  if (d->form == BTE_DRIFT_MUSCL) PetscCall(BTEDriftMUSCLSetUp(d));
  d->jstate      = PETSC_FALSE;
  d->setupcalled = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_DriftSetUp, d, 0, 0, 0));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftGetBVectors - Gets the finite-difference b-vectors (after setup)

   Not Collective

   Input Parameter:
.  d - the drift term

   Output Parameters:
+  nb - their number
.  b  - Cartesian b, 3 per vector, 1/Angstrom
-  w  - weights w_b, Angstrom^2, with sum_b w_b b_a b_c = delta_ac

   Level: advanced

.seealso: `BTEDriftGradient()`
@*/
PetscErrorCode BTEDriftGetBVectors(BTEDrift d, PetscInt *nb, const PetscReal *b[], const PetscReal *w[])
{
  PetscFunctionBegin;
  PetscCall(BTEDriftSetUp(d));
  if (nb) *nb = d->bv.nb;
  if (b) *b = d->bv.b;
  if (w) *w = d->bv.w;
  PetscFunctionReturn(0);
}

/*@
   BTEDriftView - Prints the drift term: field, form, b-vectors

   Collective

   Input Parameters:
+  d      - the drift term
-  viewer - the viewer (NULL: standard output)

   Level: intermediate

.seealso: `BTEDriftCreate()`
@*/
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
  PetscCall(PetscViewerASCIIPrintf(viewer, "field: (%g, %g, %g) V/cm, form: %s%s%s\n", (double)d->efield[0], (double)d->efield[1], (double)d->efield[2], BTEDriftForms[d->form], d->form == BTE_DRIFT_MUSCL ? ", limiter " : "", d->form == BTE_DRIFT_MUSCL ? BTEDriftLimiters[d->limiter] : ""));
  if (d->setupcalled) {
    PetscInt ng = d->nghost, ngmax, missing = 0;
    for (PetscInt q = 0; q < d->nlocal * d->bv.nb; q++)
      if (d->nbr[q] < 0) missing++;
    PetscCall(MPIU_Allreduce(&ng, &ngmax, 1, MPIU_INT, MPI_MAX, PetscObjectComm((PetscObject)d)));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &missing, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)d)));
    PetscCall(PetscViewerASCIIPrintf(viewer, "b-vectors: %" PetscInt_FMT " in %" PetscInt_FMT " shell(s)\n", d->bv.nb, d->bv.nshells));
    for (PetscInt b = 0; b < d->bv.nb; b++) PetscCall(PetscViewerASCIIPrintf(viewer, "  b = (%9.5f %9.5f %9.5f) 1/A  w = %g A^2  (steps %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ")\n", (double)d->bv.b[3 * b], (double)d->bv.b[3 * b + 1], (double)d->bv.b[3 * b + 2], (double)d->bv.w[b], d->bv.m[3 * b], d->bv.m[3 * b + 1], d->bv.m[3 * b + 2]));
    PetscCall(PetscViewerASCIIPrintf(viewer, "neighbours outside the window: %" PetscInt_FMT "; ghosts on the busiest rank: %" PetscInt_FMT "\n", missing, ngmax));
    {
      MatType mt;
      MatInfo info;
      PetscCall(MatGetType(d->A, &mt));
      PetscCall(MatGetInfo(d->A, MAT_GLOBAL_SUM, &info));
      PetscCall(PetscViewerASCIIPrintf(viewer, "stencil matrix: %s, %.0f nonzeros; pointwise steps on the %s\n", mt, (double)info.nz_used, d->cuda ? "GPU (CUDA)" : "host"));
    }
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

/* A work Vec of the stencil matrix's kind, made on first use */
static PetscErrorCode BTEDriftWork(BTEDrift d, Vec *w)
{
  PetscFunctionBegin;
  if (!*w) PetscCall(VecDuplicate(d->adiag, w));
  PetscFunctionReturn(0);
}

/* PETSC_TRUE when x is of the stencil matrix's kind (CUDA or not) and is used in place */
static PetscErrorCode BTEDriftSameKind(BTEDrift d, Vec x, PetscBool *same)
{
  PetscBool cuda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BTEDriftVecIsCUDA(x, &cuda));
  *same = cuda == d->cuda ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* dst = src (add: dst += src) through host arrays: between Vecs of different kinds */
static PetscErrorCode BTEDriftCopyValues(Vec src, Vec dst, PetscBool add)
{
  const PetscScalar *s;
  PetscScalar       *t;
  PetscInt           n, m;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetLocalSize(dst, &m));
  PetscCheck(n == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vec of %" PetscInt_FMT " local entries, expected %" PetscInt_FMT, m, n);
  PetscCall(VecGetArrayRead(src, &s));
  if (add) PetscCall(VecGetArray(dst, &t));
  else PetscCall(VecGetArrayWrite(dst, &t));
  for (PetscInt i = 0; i < n; i++) t[i] = add ? t[i] + s[i] : s[i];
  if (add) PetscCall(VecRestoreArray(dst, &t));
  else PetscCall(VecRestoreArrayWrite(dst, &t));
  PetscCall(VecRestoreArrayRead(src, &s));
  PetscFunctionReturn(0);
}

/* x of the matrix's kind: x itself, or its values in the work Vec d->w1 */
static PetscErrorCode BTEDriftIn(BTEDrift d, Vec x, Vec *xw)
{
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BTEDriftSameKind(d, x, &same));
  if (same) *xw = x;
  else {
    PetscCall(BTEDriftWork(d, &d->w1));
    PetscCall(BTEDriftCopyValues(x, d->w1, PETSC_FALSE));
    *xw = d->w1;
  }
  PetscFunctionReturn(0);
}

/* ---- pointwise steps of the log form: host loops, or the CUDA kernels when the work Vecs are CUDA ---- */

/* g = clip(ln((1-f)/f)), u = dg/df (u may be NULL) */
static PetscErrorCode BTEDriftLogOccVec(BTEDrift d, Vec f, Vec g, Vec u)
{
  const PetscScalar *fa;
  PetscScalar       *ga, *ua = NULL;
  PetscInt           n;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftCUDALogOcc(f, g, u));
    PetscFunctionReturn(0);
  }
#else
  (void)d;
#endif
  PetscCall(VecGetLocalSize(f, &n));
  PetscCall(VecGetArrayRead(f, &fa));
  PetscCall(VecGetArrayWrite(g, &ga));
  if (u) PetscCall(VecGetArrayWrite(u, &ua));
#pragma omp parallel for
  for (PetscInt i = 0; i < n; i++) {
    double gi, ui;
    BTEDriftLogOcc(PetscRealPart(fa[i]), &gi, &ui);
    ga[i] = gi;
    if (ua) ua[i] = ui;
  }
  if (u) PetscCall(VecRestoreArrayWrite(u, &ua));
  PetscCall(VecRestoreArrayWrite(g, &ga));
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(PetscLogFlops(25.0 * n));
  PetscFunctionReturn(0);
}

/* y = f(f-1) S (add: y += ...) */
static PetscErrorCode BTEDriftLogApplyVec(BTEDrift d, Vec f, Vec S, Vec y, PetscBool add)
{
  const PetscScalar *fa, *sa;
  PetscScalar       *ya;
  PetscInt           n;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftCUDALogApply(f, S, y, add));
    PetscFunctionReturn(0);
  }
#else
  (void)d;
#endif
  PetscCall(VecGetLocalSize(f, &n));
  PetscCall(VecGetArrayRead(f, &fa));
  PetscCall(VecGetArrayRead(S, &sa));
  if (add) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
#pragma omp parallel for
  for (PetscInt i = 0; i < n; i++) {
    PetscReal fi = PetscRealPart(fa[i]), s = PetscRealPart(sa[i]) * (fi * (fi - 1));
    ya[i]        = add ? ya[i] + s : s;
  }
  if (add) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(S, &sa));
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(PetscLogFlops((add ? 4.0 : 3.0) * n));
  PetscFunctionReturn(0);
}

/* p = f(f-1), dd = (2f-1) S, diag = dd + p u adiag */
static PetscErrorCode BTEDriftLogJacobianStateVec(BTEDrift d, Vec f, Vec S, Vec u, Vec adiag, Vec p, Vec dd, Vec diag)
{
  const PetscScalar *fa, *sa, *ua, *aa;
  PetscScalar       *pa, *da, *ga;
  PetscInt           n;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftCUDALogJacobianState(f, S, u, adiag, p, dd, diag));
    PetscFunctionReturn(0);
  }
#else
  (void)d;
#endif
  PetscCall(VecGetLocalSize(f, &n));
  PetscCall(VecGetArrayRead(f, &fa));
  PetscCall(VecGetArrayRead(S, &sa));
  PetscCall(VecGetArrayRead(u, &ua));
  PetscCall(VecGetArrayRead(adiag, &aa));
  PetscCall(VecGetArrayWrite(p, &pa));
  PetscCall(VecGetArrayWrite(dd, &da));
  PetscCall(VecGetArrayWrite(diag, &ga));
#pragma omp parallel for
  for (PetscInt i = 0; i < n; i++) {
    PetscReal fi = PetscRealPart(fa[i]), pi = fi * (fi - 1), di = (2 * fi - 1) * PetscRealPart(sa[i]);
    pa[i] = pi;
    da[i] = di;
    ga[i] = di + pi * PetscRealPart(ua[i]) * PetscRealPart(aa[i]);
  }
  PetscCall(VecRestoreArrayWrite(diag, &ga));
  PetscCall(VecRestoreArrayWrite(dd, &da));
  PetscCall(VecRestoreArrayWrite(p, &pa));
  PetscCall(VecRestoreArrayRead(adiag, &aa));
  PetscCall(VecRestoreArrayRead(u, &ua));
  PetscCall(VecRestoreArrayRead(S, &sa));
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(PetscLogFlops(8.0 * n));
  PetscFunctionReturn(0);
}

/* y = dd x + p z (add: y += ...) */
static PetscErrorCode BTEDriftLogJacobianMultVec(BTEDrift d, Vec dd, Vec x, Vec p, Vec z, Vec y, PetscBool add)
{
  const PetscScalar *da, *xa, *pa, *za;
  PetscScalar       *ya;
  PetscInt           n;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftCUDALogJacobianMult(dd, x, p, z, y, add));
    PetscFunctionReturn(0);
  }
#else
  (void)d;
#endif
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(dd, &da));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(p, &pa));
  PetscCall(VecGetArrayRead(z, &za));
  if (add) PetscCall(VecGetArray(y, &ya));
  else PetscCall(VecGetArrayWrite(y, &ya));
#pragma omp parallel for
  for (PetscInt i = 0; i < n; i++) {
    PetscScalar s = da[i] * xa[i] + pa[i] * za[i];
    ya[i]         = add ? ya[i] + s : s;
  }
  if (add) PetscCall(VecRestoreArray(y, &ya));
  else PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(z, &za));
  PetscCall(VecRestoreArrayRead(p, &pa));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(VecRestoreArrayRead(dd, &da));
  PetscCall(PetscLogFlops((add ? 4.0 : 3.0) * n));
  PetscFunctionReturn(0);
}

/* A Vec of the caller must be a state vector: the host loops index it by the owned states */
static PetscErrorCode BTEDriftCheckVec(BTEDrift d, Vec v, PetscInt arg)
{
  PetscFunctionBegin;
  PetscCall(BTECheckStateVec(v, d->nlocal, arg));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDriftApply_Private(BTEDrift d, Vec f, Vec y, PetscBool add)
{
  Vec       fw, out;
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTEDriftCheckVec(d, f, 2));
  PetscCall(BTEDriftCheckVec(d, y, 3));
  PetscCall(PetscLogEventBegin(BTE_DriftApply, d, f, y, 0));
  PetscCall(BTEDriftIn(d, f, &fw));
  PetscCall(BTEDriftSameKind(d, y, &same));
  if (!same) PetscCall(BTEDriftWork(d, &d->w2));
  out = same ? y : d->w2;
  if (d->form != BTE_DRIFT_LOG) { /* plain, upwind: D = A f; muscl: D = A f + its correction */
    if (same && add) PetscCall(MatMultAdd(d->A, fw, y, y));
    else PetscCall(MatMult(d->A, fw, out));
    if (d->form == BTE_DRIFT_MUSCL) PetscCall(BTEDriftMUSCLApplyAdd(d, fw, out));
  } else {
    PetscCall(BTEDriftWork(d, &d->g));
    PetscCall(BTEDriftWork(d, &d->S));
    PetscCall(BTEDriftLogOccVec(d, fw, d->g, NULL));
    PetscCall(MatMult(d->A, d->g, d->S));
    PetscCall(BTEDriftLogApplyVec(d, fw, d->S, out, same ? add : PETSC_FALSE));
  }
  if (!same) PetscCall(BTEDriftCopyValues(d->w2, y, add));
  PetscCall(PetscLogEventEnd(BTE_DriftApply, d, f, y, 0));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftApply - Computes the drift term D[f]

   Collective

   Input Parameters:
+  d - the drift term
-  f - the occupations

   Output Parameter:
.  y - D[f], 1/fs

   Level: intermediate

.seealso: `BTEDriftApplyAdd()`
@*/
PetscErrorCode BTEDriftApply(BTEDrift d, Vec f, Vec y)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftApply_Private(d, f, y, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftApplyAdd - Adds the drift term: y += D[f]

   Collective

   Input Parameters:
+  d - the drift term
.  f - the occupations
-  y - the vector D[f] is added to

   Level: intermediate

.seealso: `BTEDriftApply()`
@*/
PetscErrorCode BTEDriftApplyAdd(BTEDrift d, Vec f, Vec y)
{
  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftApply_Private(d, f, y, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/* Jacobian state. plain, upwind: J = A (independent of f). muscl: A plus the correction's
   derivative at f (drift_muscl.c). log: with p_i = f_i(f_i-1), S = A g,
   u = dg/df (0 where clipped): J x = (2f-1) S x + p A(u x), so J_ii = (2 f_i - 1) S_i + p_i u_i A_ii
   (A_ii = -sum_b c_b) and J_ij = p_i c_b u_j. */
/*@
   BTEDriftSetJacobianState - Fixes the state f of the drift Jacobian dD/df

   Collective

   Input Parameters:
+  d - the drift term
-  f - the occupations

   Level: advanced

.seealso: `BTEDriftJacobianMultAdd()`, `BTEDriftJacobianDiagonalAdd()`
@*/
PetscErrorCode BTEDriftSetJacobianState(BTEDrift d, Vec f)
{
  Vec fw;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTEDriftCheckVec(d, f, 2));
  PetscCall(PetscLogEventBegin(BTE_DriftJacobian, d, f, 0, 0));
  if (d->form == BTE_DRIFT_LOG) {
    PetscCall(BTEDriftIn(d, f, &fw));
    PetscCall(BTEDriftWork(d, &d->g));
    PetscCall(BTEDriftWork(d, &d->S));
    PetscCall(BTEDriftWork(d, &d->ju));
    PetscCall(BTEDriftWork(d, &d->jp));
    PetscCall(BTEDriftWork(d, &d->jd));
    PetscCall(BTEDriftWork(d, &d->jdiag));
    PetscCall(BTEDriftLogOccVec(d, fw, d->g, d->ju));
    PetscCall(MatMult(d->A, d->g, d->S));
    PetscCall(BTEDriftLogJacobianStateVec(d, fw, d->S, d->ju, d->adiag, d->jp, d->jd, d->jdiag));
  } else if (d->form == BTE_DRIFT_MUSCL) {
    PetscCall(BTEDriftIn(d, f, &fw));
    PetscCall(BTEDriftMUSCLSetJacobianState(d, fw));
  }
  d->jstate = PETSC_TRUE;
  PetscCall(PetscLogEventEnd(BTE_DriftJacobian, d, f, 0, 0));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftJacobianMultAdd - Adds the drift Jacobian product: y += J x

   Collective

   Input Parameters:
+  d - the drift term
.  x - the vector J multiplies
-  y - the vector J x is added to

   Level: advanced

.seealso: `BTEDriftSetJacobianState()`
@*/
PetscErrorCode BTEDriftJacobianMultAdd(BTEDrift d, Vec x, Vec y)
{
  Vec       xw, out;
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCheck(d->jstate && d->setupcalled, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_WRONGSTATE, "Call BTEDriftSetJacobianState() first");
  PetscCall(BTEDriftCheckVec(d, x, 2));
  PetscCall(BTEDriftCheckVec(d, y, 3));
  PetscCall(PetscLogEventBegin(BTE_DriftApply, d, x, y, 0));
  PetscCall(BTEDriftIn(d, x, &xw));
  PetscCall(BTEDriftSameKind(d, y, &same));
  if (!same) PetscCall(BTEDriftWork(d, &d->w2));
  out = same ? y : d->w2;
  if (d->form != BTE_DRIFT_LOG) {
    if (same) PetscCall(MatMultAdd(d->A, xw, y, y));
    else PetscCall(MatMult(d->A, xw, out));
    if (d->form == BTE_DRIFT_MUSCL) PetscCall(BTEDriftMUSCLJacobianMultAdd(d, xw, out));
  } else {
    PetscCall(BTEDriftWork(d, &d->jt));
    PetscCall(BTEDriftWork(d, &d->jz));
    PetscCall(VecPointwiseMult(d->jt, d->ju, xw));
    PetscCall(MatMult(d->A, d->jt, d->jz));
    PetscCall(BTEDriftLogJacobianMultVec(d, d->jd, xw, d->jp, d->jz, out, same));
  }
  if (!same) PetscCall(BTEDriftCopyValues(d->w2, y, PETSC_TRUE));
  PetscCall(PetscLogEventEnd(BTE_DriftApply, d, x, y, 0));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftJacobianDiagonalAdd - Adds the diagonal of the drift Jacobian: diag += diag(J)

   Collective

   Input Parameters:
+  d    - the drift term
-  diag - the vector diag(J) is added to

   Level: advanced

.seealso: `BTEDriftSetJacobianState()`
@*/
PetscErrorCode BTEDriftJacobianDiagonalAdd(BTEDrift d, Vec diag)
{
  Vec       dv;
  PetscBool same = PETSC_FALSE;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCheck(d->jstate && d->setupcalled, PetscObjectComm((PetscObject)d), PETSC_ERR_ARG_WRONGSTATE, "Call BTEDriftSetJacobianState() first");
  PetscCall(BTEDriftCheckVec(d, diag, 2));
  dv = d->form == BTE_DRIFT_LOG ? d->jdiag : (d->form == BTE_DRIFT_MUSCL ? d->mdiag : d->adiag);
  PetscCall(BTEDriftSameKind(d, diag, &same));
  if (same) PetscCall(VecAXPY(diag, 1.0, dv));
  else PetscCall(BTEDriftCopyValues(dv, diag, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*@
   BTEDriftGradient - Computes the b-vector gradient g_a = sum_b w_b b_a (u(k+b) - u(k)) over neighbours in the window

   Collective

   Input Parameters:
+  d - the drift term
-  u - a quantity on the states

   Output Parameter:
.  grad - the three Cartesian components, units of u times Angstrom

   Level: advanced

.seealso: `BTEDriftGetBVectors()`
@*/
PetscErrorCode BTEDriftGradient(BTEDrift d, Vec u, Vec grad[3])
{
  const PetscScalar *ul, *ug;
  PetscScalar       *ga[3];
  PetscInt           nb, nl;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(d, BTEDRIFT_CLASSID, 1);
  PetscCall(BTEDriftSetUp(d));
  PetscCall(BTEDriftCheckVec(d, u, 2));
  for (PetscInt a = 0; a < 3; a++) PetscCall(BTEDriftCheckVec(d, grad[a], 3));
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
