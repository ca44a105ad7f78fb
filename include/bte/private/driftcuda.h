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
#endif
