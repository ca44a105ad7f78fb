/* Finite-difference b-vectors on a uniform k grid (Marzari-Vanderbilt / Wannier90):
   shells of neighbours b with weights w_b such that sum_b w_b b_a b_c = delta_ac,
   so that grad u(k) = sum_b w_b b (u(k+b) - u(k)) + O(b^2) (exact for linear u).
   Candidate neighbours are grid steps m_a along the reciprocal vectors, sorted by
   length into shells; shells are added in order (skipping any that adds nothing
   new to the least-squares system) until the completeness condition holds. */
#include <bte/private/dynamicsimpl.h>
/* Completeness tolerance: Wannier90's kmesh_tol (1e-6). Lattices from first-principles relaxations
   carry noise of that order (a monoclinic cell with 1e-7 off-angles is formally triclinic), which a
   tighter tolerance would reject. */
#define BTE_BV_TOL 1e-6

#define BTE_BV_RANGE_3D 4
#define BTE_BV_RANGE_2D 6
#define BTE_BV_MAXSHELL 24

typedef struct {
  PetscInt  m[3];
  PetscReal b[3], len;
} BTECandidate;

static int BTECandidateCompare(const void *x, const void *y)
{
  const BTECandidate *a = (const BTECandidate *)x, *b = (const BTECandidate *)y;
  if (a->len < b->len) return -1;
  if (a->len > b->len) return 1;
  for (int k = 0; k < 3; k++) {
    if (a->m[k] < b->m[k]) return -1;
    if (a->m[k] > b->m[k]) return 1;
  }
  return 0;
}

/* Least squares min |A w - t| for the accepted columns (ncol <= neq <= 6) via modified
   Gram-Schmidt; returns the residual norm. A is column-major neq x ncol. */
static void BTELeastSquares(PetscInt neq, PetscInt ncol, const PetscReal *A, const PetscReal *t, PetscReal *w, PetscReal *res)
{
  PetscReal Q[6 * BTE_BV_MAXSHELL], R[BTE_BV_MAXSHELL * BTE_BV_MAXSHELL], y[BTE_BV_MAXSHELL], r[6];

  for (PetscInt j = 0; j < ncol; j++) {
    for (PetscInt i = 0; i < neq; i++) Q[j * neq + i] = A[j * neq + i];
    for (PetscInt k = 0; k < j; k++) {
      PetscReal d = 0;
      for (PetscInt i = 0; i < neq; i++) d += Q[k * neq + i] * Q[j * neq + i];
      R[k * ncol + j] = d;
      for (PetscInt i = 0; i < neq; i++) Q[j * neq + i] -= d * Q[k * neq + i];
    }
    {
      PetscReal nrm = 0;
      for (PetscInt i = 0; i < neq; i++) nrm += Q[j * neq + i] * Q[j * neq + i];
      nrm              = PetscSqrtReal(nrm);
      R[j * ncol + j] = nrm;
      for (PetscInt i = 0; i < neq; i++) Q[j * neq + i] /= nrm;
    }
  }
  for (PetscInt j = 0; j < ncol; j++) {
    y[j] = 0;
    for (PetscInt i = 0; i < neq; i++) y[j] += Q[j * neq + i] * t[i];
  }
  for (PetscInt j = ncol - 1; j >= 0; j--) {
    PetscReal s = y[j];
    for (PetscInt k = j + 1; k < ncol; k++) s -= R[j * ncol + k] * w[k];
    w[j] = s / R[j * ncol + j];
  }
  *res = 0;
  for (PetscInt i = 0; i < neq; i++) {
    r[i] = -t[i];
    for (PetscInt j = 0; j < ncol; j++) r[i] += A[j * neq + i] * w[j];
    *res += r[i] * r[i];
  }
  *res = PetscSqrtReal(*res);
}

/* Relative size of the part of column c not in the span of the accepted columns. */
static PetscReal BTENewDirection(PetscInt neq, PetscInt ncol, const PetscReal *A, const PetscReal *c)
{
  PetscReal Q[6 * BTE_BV_MAXSHELL], v[6], n0 = 0, n1 = 0;

  for (PetscInt j = 0; j < ncol; j++) {
    for (PetscInt i = 0; i < neq; i++) Q[j * neq + i] = A[j * neq + i];
    for (PetscInt k = 0; k < j; k++) {
      PetscReal d = 0;
      for (PetscInt i = 0; i < neq; i++) d += Q[k * neq + i] * Q[j * neq + i];
      for (PetscInt i = 0; i < neq; i++) Q[j * neq + i] -= d * Q[k * neq + i];
    }
    {
      PetscReal nrm = 0;
      for (PetscInt i = 0; i < neq; i++) nrm += Q[j * neq + i] * Q[j * neq + i];
      nrm = PetscSqrtReal(nrm);
      for (PetscInt i = 0; i < neq; i++) Q[j * neq + i] /= nrm;
    }
  }
  for (PetscInt i = 0; i < neq; i++) {
    v[i] = c[i];
    n0 += c[i] * c[i];
  }
  for (PetscInt k = 0; k < ncol; k++) {
    PetscReal d = 0;
    for (PetscInt i = 0; i < neq; i++) d += Q[k * neq + i] * v[i];
    for (PetscInt i = 0; i < neq; i++) v[i] -= d * Q[k * neq + i];
  }
  for (PetscInt i = 0; i < neq; i++) n1 += v[i] * v[i];
  return n0 > 0 ? PetscSqrtReal(n1 / n0) : 0;
}

PetscErrorCode BTEBVectorsCompute(const BTEGrid *g, BTEBVectors *bv)
{
  const PetscInt dim = g->dim, M = dim == 2 ? BTE_BV_RANGE_2D : BTE_BV_RANGE_3D;
  const PetscInt neq = dim == 2 ? 3 : 6;
  BTECandidate  *cand;
  PetscInt       nc = 0, ns = 0, nacc = 0, shellstart[BTE_BV_MAXSHELL + 1], acc[BTE_BV_MAXSHELL];
  PetscReal      A[6 * BTE_BV_MAXSHELL], w[BTE_BV_MAXSHELL], t[6], res = PETSC_MAX_REAL, step[9], scale = 0;
  PetscBool      done = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCheck(dim == 2 || dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "k grid dimension must be 2 or 3, got %" PetscInt_FMT, dim);
  /* a step m along direction a is kept only if 2|m| < nk_a (below): with fewer than 3 points there
     is no step along it, and no gradient along it */
  for (PetscInt a = 0; a < dim; a++) PetscCheck(g->nk[a] >= 3, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "The drift term of a field needs a k grid of at least 3 points along each reciprocal direction for its finite differences (b-vectors), got %" PetscInt_FMT " along direction %" PetscInt_FMT ": make the table with -bte_grid at least 3 (-bte_perturbo_kdim for a Perturbo table; a finer grid for accurate results)", g->nk[a], a + 1);
  /* grid steps: b_a / nk_a */
  for (PetscInt a = 0; a < 3; a++)
    for (PetscInt c = 0; c < 3; c++) step[3 * a + c] = (a < dim) ? g->reciprocal[3 * a + c] / g->nk[a] : 0;
  PetscCall(PetscMalloc1(dim == 2 ? (2 * M + 1) * (2 * M + 1) : (2 * M + 1) * (2 * M + 1) * (2 * M + 1), &cand));
  for (PetscInt i0 = -M; i0 <= M; i0++)
    for (PetscInt i1 = -M; i1 <= M; i1++)
      for (PetscInt i2 = (dim == 3 ? -M : 0); i2 <= (dim == 3 ? M : 0); i2++) {
        BTECandidate *c = &cand[nc];
        if (!i0 && !i1 && !i2) continue;
        /* skip a step that wraps onto itself on a small grid (|m_a| >= nk_a / 2 is ambiguous) */
        if (2 * PetscAbsInt(i0) >= g->nk[0] || 2 * PetscAbsInt(i1) >= g->nk[1] || (dim == 3 && 2 * PetscAbsInt(i2) >= g->nk[2])) continue;
        c->m[0] = i0;
        c->m[1] = i1;
        c->m[2] = i2;
        for (PetscInt d = 0; d < 3; d++) c->b[d] = i0 * step[d] + i1 * step[3 + d] + i2 * step[6 + d];
        c->len = PetscSqrtReal(c->b[0] * c->b[0] + c->b[1] * c->b[1] + c->b[2] * c->b[2]);
        nc++;
      }
  PetscCheck(nc > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "k grid too small for finite-difference b-vectors");
  qsort(cand, nc, sizeof(BTECandidate), BTECandidateCompare);
  /* shells: equal lengths within a relative tolerance */
  for (PetscInt i = 0; i < nc && ns < BTE_BV_MAXSHELL;) {
    PetscInt j = i + 1;
    while (j < nc && cand[j].len - cand[i].len < 1e-6 * cand[i].len) j++;
    shellstart[ns++] = i;
    shellstart[ns]   = j;
    i                = j;
  }
  for (PetscInt i = 0; i < neq; i++) t[i] = (i < dim) ? 1.0 : 0.0;
  for (PetscInt s = 0; s < ns && !done; s++) {
    PetscReal col[6] = {0, 0, 0, 0, 0, 0}, l2 = cand[shellstart[s]].len * cand[shellstart[s]].len;
    for (PetscInt i = shellstart[s]; i < shellstart[s + 1]; i++) {
      const PetscReal *b = cand[i].b;
      /* rows: xx yy (zz) xy (xz yz), scaled by 1/|b|^2 so all columns are O(#b) */
      if (dim == 2) {
        col[0] += b[0] * b[0] / l2;
        col[1] += b[1] * b[1] / l2;
        col[2] += b[0] * b[1] / l2;
      } else {
        col[0] += b[0] * b[0] / l2;
        col[1] += b[1] * b[1] / l2;
        col[2] += b[2] * b[2] / l2;
        col[3] += b[0] * b[1] / l2;
        col[4] += b[0] * b[2] / l2;
        col[5] += b[1] * b[2] / l2;
      }
    }
    if (nacc >= neq) break;
    if (BTENewDirection(neq, nacc, A, col) < 1e-6) continue; /* adds nothing: skip this shell */
    for (PetscInt i = 0; i < neq; i++) A[nacc * neq + i] = col[i];
    acc[nacc++] = s;
    BTELeastSquares(neq, nacc, A, t, w, &res);
    if (res < BTE_BV_TOL) done = PETSC_TRUE;
  }
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_LIB, "Could not find b-vector shells satisfying the completeness condition sum_b w_b b b^T = 1 (residual %g after %" PetscInt_FMT " shells); the k grid is too anisotropic", (double)res, nacc);
  bv->nshells = nacc;
  bv->nb      = 0;
  for (PetscInt s = 0; s < nacc; s++) bv->nb += shellstart[acc[s] + 1] - shellstart[acc[s]];
  PetscCall(PetscMalloc4(3 * bv->nb, &bv->m, 3 * bv->nb, &bv->b, bv->nb, &bv->w, bv->nb, &bv->shell));
  {
    PetscInt k = 0;
    for (PetscInt s = 0; s < nacc; s++) {
      PetscInt  first = shellstart[acc[s]];
      PetscReal l2    = cand[first].len * cand[first].len;
      for (PetscInt i = first; i < shellstart[acc[s] + 1]; i++, k++) {
        for (PetscInt d = 0; d < 3; d++) {
          bv->m[3 * k + d] = cand[i].m[d];
          bv->b[3 * k + d] = cand[i].b[d];
        }
        bv->w[k]     = w[s] / l2;
        bv->shell[k] = s;
      }
    }
  }
  /* check completeness directly */
  for (PetscInt a = 0; a < dim; a++)
    for (PetscInt c = 0; c < dim; c++) {
      PetscReal s = 0;
      for (PetscInt k = 0; k < bv->nb; k++) s += bv->w[k] * bv->b[3 * k + a] * bv->b[3 * k + c];
      scale = PetscMax(scale, PetscAbsReal(s - (a == c ? 1.0 : 0.0)));
    }
  PetscCheck(scale < BTE_BV_TOL, PETSC_COMM_SELF, PETSC_ERR_PLIB, "b-vector completeness violated by %g", (double)scale);
  PetscCall(PetscFree(cand));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEBVectorsDestroy(BTEBVectors *bv)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(bv->m, bv->b, bv->w, bv->shell));
  bv->nb = bv->nshells = 0;
  PetscFunctionReturn(0);
}
