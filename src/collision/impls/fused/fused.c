/* fused: precomputed rates, one pass over a target-sorted (CSR) layout, no atomics.

   Per channel c: P_c = a N + b (N+1) (rate i -> j), Q_c = a (N+1) + b N (rate j -> i),
   computed once at setup (docs/theory.md eq. 3). Every channel is stored at each owned end t
   as an entry (o, out, in): o the local index of the other end, out the rate out of t,
   in the rate into t; i end: (j, P, Q), j end: (i, Q, P). Then

     I_t     = sum_e [ -out_e f_t (1 - f_o) + in_e f_o (1 - f_t) ]
             = -f_t sum_e out_e (1 - f_o) + (1 - f_t) sum_e in_e f_o
     (J x)_t = sum_e { [-out_e (1 - f_o) - in_e f_o] x_t + [out_e f_t + in_e (1 - f_t)] x_o }

   Arrays (plain, uploadable as they are): rowptr[nlocal+1] (PetscCount), col[nnz] (int32),
   w[2 nnz] interleaved (out, in) in double (16 B) or float (mixed, 8 B): 20 (12) bytes per
   entry, 40 (24) per channel with both ends on this rank. Rows are sorted by o. */
#include <bte/private/collisionimpl.h>
#include <stdlib.h>
#if defined(BTE_HAVE_CUDA)
  #include <bte/private/collisioncuda.h>
#endif

typedef struct {
  PetscCount  nnz;
  PetscCount *rowptr; /* nlocal+1 */
  int32_t    *col;    /* nnz */
  PetscReal  *w;      /* 2 nnz (double precision) */
  float      *ws;     /* 2 nnz (mixed precision) */
#if defined(BTE_HAVE_CUDA)
  BTEFusedCUDA cuda; /* device copy of the layout, made on the first apply on CUDA Vecs */
#endif
} BTECollision_Fused;

#if defined(BTE_HAVE_CUDA)
/* CUDA Vecs: the layout goes to the device once; *done tells the caller that the device did the work */
  #define FUSED_CUDA_DISPATCH(coll, fl, call) \
    do { \
      BTECollision_Fused *fu_ = (BTECollision_Fused *)(coll)->data; \
      PetscBool           dev_; \
      PetscCall(BTECollisionVecIsCUDA(fl, &dev_)); \
      if (dev_) { \
        if (!fu_->cuda) PetscCall(BTEFusedCUDACreate((coll)->nlocal, (coll)->nghost, fu_->nnz, fu_->rowptr, fu_->col, fu_->w, fu_->ws, &fu_->cuda)); \
        PetscCall(call); \
        PetscFunctionReturn(0); \
      } \
    } while (0)
#else
  #define FUSED_CUDA_DISPATCH(coll, fl, call) \
    do { \
    } while (0)
#endif

#define FUSED_APPLY_KERNEL(WT, W) \
  do { \
    _Pragma("omp parallel for schedule(dynamic, 32)") for (PetscInt t = 0; t < nlocal; t++) { \
      const WT  *wt = (W) + 2 * rp[t]; \
      const int32_t *ct = col + rp[t]; \
      PetscCount len = rp[t + 1] - rp[t]; \
      PetscReal  ao = 0, ai = 0, ft = f[t]; \
      for (PetscCount e = 0; e < len; e++) { \
        PetscReal fo = f[ct[e]]; \
        ao += (PetscReal)wt[2 * e] * (1.0 - fo); \
        ai += (PetscReal)wt[2 * e + 1] * fo; \
      } \
      y[t] = -ft * ao + (1.0 - ft) * ai; \
    } \
  } while (0)

#define FUSED_JAC_KERNEL(WT, W) \
  do { \
    _Pragma("omp parallel for schedule(dynamic, 32)") for (PetscInt t = 0; t < nlocal; t++) { \
      const WT  *wt = (W) + 2 * rp[t]; \
      const int32_t *ct = col + rp[t]; \
      PetscCount len = rp[t + 1] - rp[t]; \
      PetscReal  ao = 0, ai = 0, so = 0, si = 0, ft = f[t]; \
      for (PetscCount e = 0; e < len; e++) { \
        PetscReal fo = f[ct[e]], xo = x[ct[e]], wo = (PetscReal)wt[2 * e], wi = (PetscReal)wt[2 * e + 1]; \
        ao += wo * (1.0 - fo); \
        ai += wi * fo; \
        so += wo * xo; \
        si += wi * xo; \
      } \
      y[t] = -(ao + ai) * x[t] + ft * so + (1.0 - ft) * si; \
    } \
  } while (0)

#define FUSED_DIAG_KERNEL(WT, W) \
  do { \
    _Pragma("omp parallel for schedule(dynamic, 32)") for (PetscInt t = 0; t < nlocal; t++) { \
      const WT  *wt = (W) + 2 * rp[t]; \
      const int32_t *ct = col + rp[t]; \
      PetscCount len = rp[t + 1] - rp[t]; \
      PetscReal  ao = 0, ai = 0; \
      for (PetscCount e = 0; e < len; e++) { \
        PetscReal fo = f[ct[e]]; \
        ao += (PetscReal)wt[2 * e] * (1.0 - fo); \
        ai += (PetscReal)wt[2 * e + 1] * fo; \
      } \
      y[t] = -(ao + ai); \
    } \
  } while (0)

static PetscErrorCode BTECollisionApply_Fused(BTECollision coll, Vec fl, Vec Iv)
{
  BTECollision_Fused *fu     = (BTECollision_Fused *)coll->data;
  const PetscCount   *rp     = fu->rowptr;
  const int32_t      *col    = fu->col;
  PetscInt            nlocal = coll->nlocal;
  const PetscScalar  *f;
  PetscScalar        *y;

  PetscFunctionBegin;
  FUSED_CUDA_DISPATCH(coll, fl, BTEFusedCUDAApply(fu_->cuda, fl, Iv));
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(Iv, &y));
  if (fu->ws) FUSED_APPLY_KERNEL(float, fu->ws);
  else FUSED_APPLY_KERNEL(PetscReal, fu->w);
  PetscCall(VecRestoreArrayWrite(Iv, &y));
  PetscCall(VecRestoreArrayRead(fl, &f));
  /* per entry: 1 - f_o, two multiply-adds; per row: 4 */
  PetscCall(PetscLogFlops(5.0 * (PetscLogDouble)fu->nnz + 4.0 * nlocal));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianApply_Fused(BTECollision coll, Vec fl, Vec xl, Vec Y)
{
  BTECollision_Fused *fu     = (BTECollision_Fused *)coll->data;
  const PetscCount   *rp     = fu->rowptr;
  const int32_t      *col    = fu->col;
  PetscInt            nlocal = coll->nlocal;
  const PetscScalar  *f, *x;
  PetscScalar        *y;

  PetscFunctionBegin;
  FUSED_CUDA_DISPATCH(coll, fl, BTEFusedCUDAJacobianApply(fu_->cuda, fl, xl, Y));
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(VecGetArrayRead(xl, &x));
  PetscCall(VecGetArrayWrite(Y, &y));
  if (fu->ws) FUSED_JAC_KERNEL(float, fu->ws);
  else FUSED_JAC_KERNEL(PetscReal, fu->w);
  PetscCall(VecRestoreArrayWrite(Y, &y));
  PetscCall(VecRestoreArrayRead(xl, &x));
  PetscCall(VecRestoreArrayRead(fl, &f));
  /* per entry: 1 - f_o, four multiply-adds; per row: 7 */
  PetscCall(PetscLogFlops(9.0 * (PetscLogDouble)fu->nnz + 7.0 * nlocal));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionJacobianDiagonal_Fused(BTECollision coll, Vec fl, Vec D)
{
  BTECollision_Fused *fu     = (BTECollision_Fused *)coll->data;
  const PetscCount   *rp     = fu->rowptr;
  const int32_t      *col    = fu->col;
  PetscInt            nlocal = coll->nlocal;
  const PetscScalar  *f;
  PetscScalar        *y;

  PetscFunctionBegin;
  FUSED_CUDA_DISPATCH(coll, fl, BTEFusedCUDAJacobianDiagonal(fu_->cuda, fl, D));
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(D, &y));
  if (fu->ws) FUSED_DIAG_KERNEL(float, fu->ws);
  else FUSED_DIAG_KERNEL(PetscReal, fu->w);
  PetscCall(VecRestoreArrayWrite(D, &y));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscCall(PetscLogFlops(5.0 * (PetscLogDouble)fu->nnz + 1.0 * nlocal));
  PetscFunctionReturn(0);
}

typedef struct {
  int32_t   col;
  PetscReal out, in;
} FusedEntry;

static int FusedEntryCmp(const void *a, const void *b)
{
  const FusedEntry *x = (const FusedEntry *)a, *y = (const FusedEntry *)b;
  if (x->col != y->col) return (x->col > y->col) - (x->col < y->col);
  if (x->out != y->out) return (x->out > y->out) - (x->out < y->out); /* ties (same other end, */
  return (x->in > y->in) - (x->in < y->in);                           /* several modes): a fixed order */
}

/* Built with the fewest copies of the channel data, so that ~1e9 channels fit in host memory:
   row counts, P/Q per channel, entries placed straight into their rows (float weights directly
   in mixed precision), then each row sorted by the other end (OpenMP over rows, for locality of
   the f gathers). Peak beyond the table and ci/cj: 16 B/channel (P, Q) + the layout itself. */
static PetscErrorCode BTECollisionSetUp_Fused(BTECollision coll)
{
  BTECollision_Fused *fu     = (BTECollision_Fused *)coll->data;
  PetscInt            nlocal = coll->nlocal;
  PetscCount          nch = coll->nch, maxlen = 0, *pos;
  const PetscInt     *ci = coll->ci, *cj = coll->cj;
  PetscReal          *P, *Q;
  PetscBool           mixed = coll->precision == BTE_COLLISION_PRECISION_MIXED ? PETSC_TRUE : PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nlocal + 1, &fu->rowptr));
  for (PetscCount c = 0; c < nch; c++) {
    if (ci[c] < nlocal) fu->rowptr[ci[c] + 1]++;
    if (cj[c] < nlocal) fu->rowptr[cj[c] + 1]++;
  }
  for (PetscInt t = 0; t < nlocal; t++) {
    maxlen = PetscMax(maxlen, fu->rowptr[t + 1]);
    fu->rowptr[t + 1] += fu->rowptr[t];
  }
  fu->nnz = fu->rowptr[nlocal];
  PetscCall(PetscMalloc2(nch, &P, nch, &Q));
  PetscCall(BTECollisionComputeChannelPQ_Private(coll, ci, cj, P, Q));
  PetscCall(PetscMalloc1(fu->nnz, &fu->col));
  if (mixed) PetscCall(PetscMalloc1(2 * fu->nnz, &fu->ws));
  else PetscCall(PetscMalloc1(2 * fu->nnz, &fu->w));
  PetscCall(PetscMalloc1(nlocal + 1, &pos));
  PetscCall(PetscArraycpy(pos, fu->rowptr, nlocal + 1));
#define FUSED_PLACE(W) \
  for (PetscCount c = 0; c < nch; c++) { \
    if (ci[c] < nlocal) { /* t is the i end: out = P, in = Q */ \
      PetscCount e = pos[ci[c]]++; \
      fu->col[e]   = (int32_t)cj[c]; \
      W[2 * e]     = P[c]; \
      W[2 * e + 1] = Q[c]; \
    } \
    if (cj[c] < nlocal) { /* t is the j end: out = Q, in = P */ \
      PetscCount e = pos[cj[c]]++; \
      fu->col[e]   = (int32_t)ci[c]; \
      W[2 * e]     = Q[c]; \
      W[2 * e + 1] = P[c]; \
    } \
  }
  if (mixed) FUSED_PLACE(fu->ws) else FUSED_PLACE(fu->w)
#undef FUSED_PLACE
  PetscCall(PetscFree(pos));
  PetscCall(PetscFree2(P, Q));
  {
    PetscErrorCode ierr = 0;
#pragma omp parallel reduction(| : ierr)
    {
      FusedEntry *tmp = (FusedEntry *)malloc((size_t)PetscMax(maxlen, 1) * sizeof(FusedEntry));
      if (!tmp) ierr = PETSC_ERR_MEM;
#pragma omp for schedule(dynamic, 64)
      for (PetscInt t = 0; t < nlocal; t++) {
        PetscCount r0 = fu->rowptr[t], len = fu->rowptr[t + 1] - r0;
        if (!tmp) continue;
        for (PetscCount e = 0; e < len; e++) {
          tmp[e].col = fu->col[r0 + e];
          tmp[e].out = mixed ? fu->ws[2 * (r0 + e)] : fu->w[2 * (r0 + e)];
          tmp[e].in  = mixed ? fu->ws[2 * (r0 + e) + 1] : fu->w[2 * (r0 + e) + 1];
        }
        qsort(tmp, (size_t)len, sizeof(FusedEntry), FusedEntryCmp);
        for (PetscCount e = 0; e < len; e++) {
          fu->col[r0 + e] = tmp[e].col;
          if (mixed) {
            fu->ws[2 * (r0 + e)]     = (float)tmp[e].out;
            fu->ws[2 * (r0 + e) + 1] = (float)tmp[e].in;
          } else {
            fu->w[2 * (r0 + e)]     = tmp[e].out;
            fu->w[2 * (r0 + e) + 1] = tmp[e].in;
          }
        }
      }
      free(tmp);
    }
    PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_MEM, "Out of memory for the per-thread row buffers of the fused layout (%" PetscCount_FMT " entries per row)", maxlen);
  }
  coll->nentries = fu->nnz;
  coll->bytes    = (PetscLogDouble)(nlocal + 1) * sizeof(PetscCount) + (PetscLogDouble)fu->nnz * (sizeof(int32_t) + 2 * (fu->ws ? sizeof(float) : sizeof(PetscReal)));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionView_Fused(BTECollision coll, PetscViewer viewer)
{
  BTECollision_Fused *fu = (BTECollision_Fused *)coll->data;

  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "fused layout: target-sorted CSR, entry = (int32 other end, out rate, in rate) in %s: %d bytes per entry\n", fu->ws ? "float (mixed precision)" : "double", (int)(sizeof(int32_t) + 2 * (fu->ws ? sizeof(float) : sizeof(PetscReal)))));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionDestroy_Fused(BTECollision coll)
{
  BTECollision_Fused *fu = (BTECollision_Fused *)coll->data;

  PetscFunctionBegin;
  if (!fu) PetscFunctionReturn(0);
#if defined(BTE_HAVE_CUDA)
  PetscCall(BTEFusedCUDADestroy(&fu->cuda));
#endif
  PetscCall(PetscFree(fu->rowptr));
  PetscCall(PetscFree(fu->col));
  PetscCall(PetscFree(fu->w));
  PetscCall(PetscFree(fu->ws));
  PetscCall(PetscFree(coll->data));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode BTECollisionCreate_Fused(BTECollision coll)
{
  BTECollision_Fused *fu;

  PetscFunctionBegin;
  PetscCall(PetscNew(&fu));
  coll->data                    = fu;
  coll->ops->setup              = BTECollisionSetUp_Fused;
  coll->ops->apply              = BTECollisionApply_Fused;
  coll->ops->jacobian_apply     = BTECollisionJacobianApply_Fused;
  coll->ops->jacobian_diagonal  = BTECollisionJacobianDiagonal_Fused;
  coll->ops->view               = BTECollisionView_Fused;
  coll->ops->destroy            = BTECollisionDestroy_Fused;
  PetscFunctionReturn(0);
}
