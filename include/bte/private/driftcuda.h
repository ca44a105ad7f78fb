/* Pointwise parts of the drift operator (src/dynamics/drift.c) shared by the host loops and the CUDA
   kernels (src/dynamics/drift_cuda.cu), and the C-callable CUDA entry points. No CUDA header is
   included: under nvcc the formulas are compiled for host and device (BTE_DRIFT_HD), in C they are
   plain static inline functions. The stencil itself is a PETSc Mat (AIJ or AIJCUSPARSE), applied
   with MatMult; only the pointwise steps of the log form need code of ours.

   log form, with g = ln((1-f)/f) clipped to +-35, u = dg/df (0 where clipped), p = f(f-1),
   S = G g (G: the stencil with off-diagonal c_b and diagonal -sum_b c_b):
     D       = p S
     J x     = (2f-1) S x + p G(u x)          (dd = (2f-1) S, z = G(u x))
     diag J  = dd + p u diag(G)                                                    */
#pragma once

#include <petscvec.h>

#if defined(__CUDACC__)
  #define BTE_DRIFT_HD __host__ __device__
#else
  #define BTE_DRIFT_HD
#endif

#define BTE_GCLIP 35.0

/* g = ln((1-f)/f) clipped to +-BTE_GCLIP; u = dg/df, 0 where clipped */
static inline BTE_DRIFT_HD void BTEDriftLogOcc(double f, double *g, double *u)
{
  double x;
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
  x = log((1 - f) / f);
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

/* muscl (drift_muscl.c): the limited slope sigma = L(p, q) and its partial derivatives; van Leer
   L = 2pq/(p+q), minmod the one of p, q smaller in size; both 0 where p q <= 0 */
static inline BTE_DRIFT_HD void BTEDriftSlope(int minmod, double p, double q, double *s, double *dp, double *dq)
{
  if (!(p * q > 0)) {
    *s = *dp = *dq = 0;
    return;
  }
  if (minmod) {
    const int usep = (p < 0 ? -p : p) <= (q < 0 ? -q : q);
    *s             = usep ? p : q;
    *dp            = usep ? 1 : 0;
    *dq            = usep ? 0 : 1;
  } else {
    const double r = 1 / (p + q);
    *s             = 2 * p * q * r;
    *dp            = 2 * q * q * r * r;
    *dq            = 2 * p * p * r * r;
  }
}

#if defined(BTE_HAVE_CUDA)
/* All Vecs are CUDA Vecs (VECSEQCUDA/VECMPICUDA) of the same local size; their device arrays are used in
   place on the stream of PETSc's current device context (no host<->device copy). */
/* g = clip(ln((1-f)/f)), u = dg/df (u may be NULL) */
PETSC_INTERN PetscErrorCode BTEDriftCUDALogOcc(Vec f, Vec g, Vec u);
/* y = p S (add: y += p S), p = f(f-1) */
PETSC_INTERN PetscErrorCode BTEDriftCUDALogApply(Vec f, Vec S, Vec y, PetscBool add);
/* p = f(f-1), dd = (2f-1) S, diag = dd + p u adiag */
PETSC_INTERN PetscErrorCode BTEDriftCUDALogJacobianState(Vec f, Vec S, Vec u, Vec adiag, Vec p, Vec dd, Vec diag);
/* y = dd x + p z (add: y += ...) */
PETSC_INTERN PetscErrorCode BTEDriftCUDALogJacobianMult(Vec dd, Vec x, Vec p, Vec z, Vec y, PetscBool add);

/* muscl on the device (drift_muscl.c holds the algorithm): the neighbour table and the Jacobian
   state (nd x nl: d sigma / d(backward, forward difference) per moving b) in device memory. The
   owned Vecs (f, s, y) have nl entries, the ghost Vecs (fg, sg) the drift term's ghosts, in the
   table's numbering (an index >= nl is ghost index - nl, < 0 outside the window). */
typedef struct _n_BTEDriftCUDAMUSCL *BTEDriftCUDAMUSCL;
PETSC_INTERN PetscErrorCode BTEDriftCUDAMUSCLCreate(PetscInt nl, PetscInt nb, const PetscInt nbr[], BTEDriftCUDAMUSCL *);
PETSC_INTERN PetscErrorCode BTEDriftCUDAMUSCLDestroy(BTEDriftCUDAMUSCL *);
/* Along b (opposite ob), per owned state, into s: mode 0 the slope at f; 1 the slope's derivatives at
   f, kept as row k of nd of the Jacobian state, and s = the forward one; 2 the slope's linearisation
   at x = f (row k of the kept state) */
PETSC_INTERN PetscErrorCode BTEDriftCUDAMUSCLSlopes(BTEDriftCUDAMUSCL, PetscInt k, PetscInt nd, PetscInt b, PetscInt ob, PetscBool minmod, int mode, Vec f, Vec fg, Vec s);
/* y += ab (s_{i-ob} - s_i); with jac also ab (2 beta - alpha) of row k (the Jacobian diagonal) */
PETSC_INTERN PetscErrorCode BTEDriftCUDAMUSCLFaces(BTEDriftCUDAMUSCL, PetscInt k, PetscInt ob, PetscReal ab, PetscBool jac, Vec s, Vec sg, Vec y);
#endif
