/* The muscl drift form: the upwind flux with a limited linear reconstruction (MUSCL).

   The flux form of the drift term (drift.c) moves carriers across the face between a state i and
   its neighbour i + b. With a_b = -c_b = w_b (F.b)/hbar > 0 carriers move from i to i + b, and
   the plain form carries 2 a_b (f_i + f_{i+b})/2, the upwind form 2 a_b f_i. muscl carries
   2 a_b h_i, h_i = f_i + sigma_i / 2 the value of a linear profile through i at the face, with
   the limited slope sigma_i = L(f_i - f_{i-b}, f_{i+b} - f_i):
     van Leer  L(p, q) = 2 p q / (p + q) where p q > 0, else 0
     minmod    L(p, q) = the one of p, q smaller in size where p q > 0, else 0
   sigma_i = 0 where i - b or i + b is outside the window (first order at the window's edge). So
     D_i = (A_upwind f)_i + sum_{b: a_b > 0} a_b (sigma_{i-b} - sigma_i)
   (the first sum over the in-window i - b only). Each face's flux leaves one state and enters the
   other, so sum_i D_i = 0 to rounding. Both limiters keep h between f_i and f_{i+b} and give
   sigma = 0 at a local extremum, so at f_i = 0 the outflow is 0 and the inflows are >= 0 (f stays
   >= 0), and at f_i = 1 with all neighbours the outflow is 1 per a_b and the inflows <= 1 (f stays
   <= 1); as for upwind, a state at the window's top missing its downstream neighbour has no outflow.
   Where f is smooth and not at an extremum, h_i = f(k_i + b/2) + O(b^2): second order.

   The limiter makes D nonlinear in f. Its Jacobian is exact wherever L is differentiable:
     d sigma_i = alpha_i (x_i - x_{i-b}) + beta_i (x_{i+b} - x_i),
   alpha = dL/dp, beta = dL/dq at the state (van Leer: 2 q^2/(p+q)^2, 2 p^2/(p+q)^2; minmod: the
   chosen branch frozen, 1 or 0; both 0 where the slope is cut to 0), so
     J x = A_upwind x + sum_b a_b (d sigma_{i-b} - d sigma_i).
   Slopes of ghost states come through the drift term's VecScatter, one scatter per b with a_b > 0.
   Host loops, or with CUDA Vecs the same steps as kernels of drift_cuda.cu on the device (the
   neighbour table and the Jacobian state kept there; the slope formula shared, driftcuda.h). */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/driftcuda.h>

const char *const BTEDriftLimiters[] = {"vanleer", "minmod", "BTEDriftLimiter", "BTE_DRIFT_LIMITER_", NULL};

PetscErrorCode BTEDriftMUSCLDestroy(BTEDrift d)
{
  PetscFunctionBegin;
  PetscCall(PetscFree2(d->opp, d->down));
  PetscCall(PetscFree2(d->jal, d->jbe));
  PetscCall(VecDestroy(&d->msig));
  PetscCall(VecDestroy(&d->sghost));
  PetscCall(VecDestroy(&d->mdiag));
  PetscCall(VecDestroy(&d->mfg));
  PetscCall(VecDestroy(&d->mxg));
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTEDriftCUDAMUSCLDestroy((BTEDriftCUDAMUSCL *)&d->mcuda));
#endif
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* a sequential Vec of the ghosts on the device */
static PetscErrorCode BTEDriftMUSCLGhostVecCUDA(BTEDrift d, Vec *v)
{
  PetscFunctionBegin;
  PetscCall(VecCreate(PETSC_COMM_SELF, v));
  PetscCall(VecSetSizes(*v, d->nghost, d->nghost));
  PetscCall(VecSetType(*v, VECSEQCUDA));
  PetscFunctionReturn(0);
}
#endif

/* After the b-vectors, neighbours and c_b are known: the -b of each b and the b along which
   carriers move (they change with the field, so this runs on every setup). */
PetscErrorCode BTEDriftMUSCLSetUp(BTEDrift d)
{
  const PetscInt nb = d->bv.nb;

  PetscFunctionBegin;
  if (!d->opp) {
    PetscCall(PetscMalloc2(nb, &d->opp, nb, &d->down));
    for (PetscInt b = 0; b < nb; b++) {
      const PetscInt *m = &d->bv.m[3 * b];
      d->opp[b]         = -1;
      for (PetscInt o = 0; o < nb; o++)
        if (d->bv.m[3 * o] == -m[0] && d->bv.m[3 * o + 1] == -m[1] && d->bv.m[3 * o + 2] == -m[2]) d->opp[b] = o;
      PetscCheck(d->opp[b] >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "b-vector %" PetscInt_FMT " has no opposite", b);
    }
    PetscCall(VecDuplicate(d->adiag, &d->msig)); /* of the stencil's kind, as the state */
    if (d->cuda) {
#if defined(BTE_HAVE_CUDA)
      PetscCall(BTEDriftMUSCLGhostVecCUDA(d, &d->sghost));
      PetscCall(BTEDriftMUSCLGhostVecCUDA(d, &d->mfg));
      PetscCall(BTEDriftMUSCLGhostVecCUDA(d, &d->mxg));
      PetscCall(BTEDriftCUDAMUSCLCreate(d->nlocal, nb, d->nbr, (BTEDriftCUDAMUSCL *)&d->mcuda));
#endif
    } else PetscCall(VecDuplicate(d->fghost, &d->sghost));
  }
  d->nd = 0;
  for (PetscInt b = 0; b < nb; b++)
    if (d->c[b] < 0) d->down[d->nd++] = b;
  PetscCall(PetscFree2(d->jal, d->jbe));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEDriftMUSCLGhosts(BTEDrift d, Vec v, Vec ghost)
{
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(d->scatter, v, ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(d->scatter, v, ghost, INSERT_VALUES, SCATTER_FORWARD));
  PetscFunctionReturn(0);
}

/* y += sum_b a_b (s_{i-b} - s_i), where d->msig holds s along b (scattered here to its ghosts) */
static PetscErrorCode BTEDriftMUSCLAddFaces(BTEDrift d, PetscInt b, PetscScalar *ya)
{
  const PetscInt     nb = d->bv.nb, nl = d->nlocal, ob = d->opp[b];
  const PetscReal    ab = -d->c[b];
  const PetscScalar *sa, *sg;

  PetscFunctionBegin;
  PetscCall(BTEDriftMUSCLGhosts(d, d->msig, d->sghost));
  PetscCall(VecGetArrayRead(d->msig, &sa));
  PetscCall(VecGetArrayRead(d->sghost, &sg));
  for (PetscInt i = 0; i < nl; i++) {
    const PetscInt jm = d->nbr[i * nb + ob];
    PetscReal      sm = jm < 0 ? 0 : PetscRealPart(jm < nl ? sa[jm] : sg[jm - nl]);
    ya[i] += ab * (sm - PetscRealPart(sa[i]));
  }
  PetscCall(VecRestoreArrayRead(d->sghost, &sg));
  PetscCall(VecRestoreArrayRead(d->msig, &sa));
  PetscCall(PetscLogFlops(3.0 * nl));
  PetscFunctionReturn(0);
}

#if defined(BTE_HAVE_CUDA)
/* The three steps on the device: per moving b the slopes (mode, as BTEDriftCUDAMUSCLSlopes), their
   ghosts, the faces into y (jac: and the Jacobian diagonal's own terms) */
static PetscErrorCode BTEDriftMUSCLCUDA(BTEDrift d, int mode, Vec f, Vec fg, Vec y, PetscBool jac)
{
  BTEDriftCUDAMUSCL m = (BTEDriftCUDAMUSCL)d->mcuda;

  PetscFunctionBegin;
  PetscCall(BTEDriftMUSCLGhosts(d, f, fg));
  for (PetscInt k = 0; k < d->nd; k++) {
    const PetscInt b = d->down[k], ob = d->opp[b];
    PetscCall(BTEDriftCUDAMUSCLSlopes(m, k, d->nd, b, ob, d->limiter == BTE_DRIFT_LIMITER_MINMOD, mode, f, fg, d->msig));
    PetscCall(BTEDriftMUSCLGhosts(d, d->msig, d->sghost));
    PetscCall(BTEDriftCUDAMUSCLFaces(m, k, ob, -d->c[b], jac, d->msig, d->sghost, y));
  }
  PetscFunctionReturn(0);
}
#endif

/* y += the limited correction at f (Vecs of the stencil's kind) */
PetscErrorCode BTEDriftMUSCLApplyAdd(BTEDrift d, Vec f, Vec y)
{
  const PetscInt     nb = d->bv.nb, nl = d->nlocal;
  const PetscScalar *fa, *fg;
  PetscScalar       *ya, *sa;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftMUSCLCUDA(d, 0, f, d->mfg, y, PETSC_FALSE));
    PetscFunctionReturn(0);
  }
#endif
  PetscCall(BTEDriftMUSCLGhosts(d, f, d->fghost));
  PetscCall(VecGetArrayRead(f, &fa));
  PetscCall(VecGetArrayRead(d->fghost, &fg));
  for (PetscInt k = 0; k < d->nd; k++) {
    const PetscInt b = d->down[k], ob = d->opp[b];
    PetscCall(VecGetArrayWrite(d->msig, &sa));
    for (PetscInt i = 0; i < nl; i++) {
      const PetscInt jp = d->nbr[i * nb + b], jm = d->nbr[i * nb + ob];
      PetscReal      s = 0, dp, dq;
      if (jp >= 0 && jm >= 0) {
        const PetscReal fi = PetscRealPart(fa[i]);
        const PetscReal fp = PetscRealPart(jp < nl ? fa[jp] : fg[jp - nl]);
        const PetscReal fm = PetscRealPart(jm < nl ? fa[jm] : fg[jm - nl]);
        BTEDriftSlope(d->limiter == BTE_DRIFT_LIMITER_MINMOD, fi - fm, fp - fi, &s, &dp, &dq);
      }
      sa[i] = s;
    }
    PetscCall(VecRestoreArrayWrite(d->msig, &sa));
    PetscCall(VecGetArray(y, &ya));
    PetscCall(BTEDriftMUSCLAddFaces(d, b, ya));
    PetscCall(VecRestoreArray(y, &ya));
  }
  PetscCall(VecRestoreArrayRead(d->fghost, &fg));
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscCall(PetscLogFlops(8.0 * nl * d->nd));
  PetscFunctionReturn(0);
}

/* The slopes' derivatives at f, and the Jacobian diagonal diag(A) + sum_b a_b (beta_{i-b} - alpha_i + beta_i) */
PetscErrorCode BTEDriftMUSCLSetJacobianState(BTEDrift d, Vec f)
{
  const PetscInt     nb = d->bv.nb, nl = d->nlocal;
  const PetscScalar *fa, *fg;
  PetscScalar       *ya, *sa;

  PetscFunctionBegin;
  if (!d->mdiag) PetscCall(VecDuplicate(d->adiag, &d->mdiag));
  PetscCall(VecCopy(d->adiag, d->mdiag));
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftMUSCLCUDA(d, 1, f, d->mfg, d->mdiag, PETSC_TRUE));
    PetscFunctionReturn(0);
  }
#endif
  if (!d->jal) PetscCall(PetscMalloc2(d->nd * nl, &d->jal, d->nd * nl, &d->jbe));
  PetscCall(BTEDriftMUSCLGhosts(d, f, d->fghost));
  PetscCall(VecGetArrayRead(f, &fa));
  PetscCall(VecGetArrayRead(d->fghost, &fg));
  for (PetscInt k = 0; k < d->nd; k++) {
    const PetscInt  b = d->down[k], ob = d->opp[b];
    const PetscReal ab = -d->c[b];
    PetscReal      *al = &d->jal[k * nl], *be = &d->jbe[k * nl];
    PetscCall(VecGetArrayWrite(d->msig, &sa));
    for (PetscInt i = 0; i < nl; i++) {
      const PetscInt jp = d->nbr[i * nb + b], jm = d->nbr[i * nb + ob];
      PetscReal      s;
      al[i] = be[i] = 0;
      if (jp >= 0 && jm >= 0) {
        const PetscReal fi = PetscRealPart(fa[i]);
        const PetscReal fp = PetscRealPart(jp < nl ? fa[jp] : fg[jp - nl]);
        const PetscReal fm = PetscRealPart(jm < nl ? fa[jm] : fg[jm - nl]);
        BTEDriftSlope(d->limiter == BTE_DRIFT_LIMITER_MINMOD, fi - fm, fp - fi, &s, &al[i], &be[i]);
      }
      sa[i] = be[i]; /* d sigma_i / d f_{i+b}: the i-b term of the next state's diagonal */
    }
    PetscCall(VecRestoreArrayWrite(d->msig, &sa));
    /* the faces add a_b (beta_{i-b} - beta_i); the rest of a_b (beta_{i-b} - alpha_i + beta_i) here */
    PetscCall(VecGetArray(d->mdiag, &ya));
    PetscCall(BTEDriftMUSCLAddFaces(d, b, ya));
    for (PetscInt i = 0; i < nl; i++) ya[i] += ab * (2 * be[i] - al[i]);
    PetscCall(VecRestoreArray(d->mdiag, &ya));
  }
  PetscCall(VecRestoreArrayRead(d->fghost, &fg));
  PetscCall(VecRestoreArrayRead(f, &fa));
  PetscFunctionReturn(0);
}

/* y += the correction's Jacobian times x (A x is added by the caller) */
PetscErrorCode BTEDriftMUSCLJacobianMultAdd(BTEDrift d, Vec x, Vec y)
{
  const PetscInt     nb = d->bv.nb, nl = d->nlocal;
  const PetscScalar *xa, *xg;
  PetscScalar       *ya, *sa;

  PetscFunctionBegin;
#if defined(BTE_HAVE_CUDA)
  if (d->cuda) {
    PetscCall(BTEDriftMUSCLCUDA(d, 2, x, d->mxg, y, PETSC_FALSE));
    PetscFunctionReturn(0);
  }
#endif
  PetscCall(BTEDriftMUSCLGhosts(d, x, d->xghost));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayRead(d->xghost, &xg));
  for (PetscInt k = 0; k < d->nd; k++) {
    const PetscInt   b = d->down[k], ob = d->opp[b];
    const PetscReal *al = &d->jal[k * nl], *be = &d->jbe[k * nl];
    PetscCall(VecGetArrayWrite(d->msig, &sa));
    for (PetscInt i = 0; i < nl; i++) {
      const PetscInt jp = d->nbr[i * nb + b], jm = d->nbr[i * nb + ob];
      PetscReal      s  = 0;
      if (jp >= 0 && jm >= 0) {
        const PetscReal xi = PetscRealPart(xa[i]);
        const PetscReal xp = PetscRealPart(jp < nl ? xa[jp] : xg[jp - nl]);
        const PetscReal xm = PetscRealPart(jm < nl ? xa[jm] : xg[jm - nl]);
        s                  = al[i] * (xi - xm) + be[i] * (xp - xi);
      }
      sa[i] = s;
    }
    PetscCall(VecRestoreArrayWrite(d->msig, &sa));
    PetscCall(VecGetArray(y, &ya));
    PetscCall(BTEDriftMUSCLAddFaces(d, b, ya));
    PetscCall(VecRestoreArray(y, &ya));
  }
  PetscCall(VecRestoreArrayRead(d->xghost, &xg));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(PetscLogFlops(6.0 * nl * d->nd));
  PetscFunctionReturn(0);
}
