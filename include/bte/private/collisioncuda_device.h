/* Helpers shared by the collision .cu files only (include after collisionimpl.h). */
#pragma once

#include <bte/private/collisionimpl.h>
#include <bte/private/collisioncuda.h>
#include <petscdevice_cuda.h>

/* While a layout queues work on a stream of its own (BTEPairCUDASideBegin/End, pair_cuda.cu),
   that stream; else NULL */
PETSC_INTERN cudaStream_t BTECollCUDASideStream;

/* The IPC transport (exchange_ipc.cu): one exchange of direction d (0 forward, 1 reverse) queued
   on stream s in two halves: Send in[idx[k]] to the destinations; Recv this rank's received entries
   to out (after Send of the same exchange) */
PETSC_INTERN PetscErrorCode BTECollIPCSend(BTECollIPC, int d, cudaStream_t s, const int *idx, const double *in);
PETSC_INTERN PetscErrorCode BTECollIPCRecv(BTECollIPC, int d, cudaStream_t s, double *out);

/* The stream of PETSc's current device context: kernels go where PETSc's own Vec kernels go, so
   they are ordered with the scatters and vector operations around them without a device sync.
   Between BTEPairCUDASideBegin and End: the side stream, so that the exchange's marks and waits
   and the kernels queued there order against it instead. */
static inline PetscErrorCode BTECollCUDAGetStream(cudaStream_t *s)
{
  PetscDeviceContext dctx;
  void              *h = NULL;

  PetscFunctionBegin;
  if (BTECollCUDASideStream) {
    *s = BTECollCUDASideStream;
    PetscFunctionReturn(0);
  }
  PetscCall(PetscDeviceContextGetCurrentContext(&dctx));
  PetscCall(PetscDeviceContextGetStreamHandle(dctx, &h));
  *s = h ? *(cudaStream_t *)h : (cudaStream_t)0;
  PetscFunctionReturn(0);
}

/* Upload helper: device copy of n elements of a host array (NULL when n == 0 or src NULL). */
template <typename T>
static inline PetscErrorCode BTECollCUDAUpload(const T *src, size_t n, T **dst, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  *dst = NULL;
  if (!src || !n) PetscFunctionReturn(0);
  PetscCallCUDA(cudaMalloc((void **)dst, n * sizeof(T)));
  PetscCallCUDA(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)(n * sizeof(T))));
  if (bytes) *bytes += (PetscLogDouble)(n * sizeof(T));
  PetscFunctionReturn(0);
}

PETSC_INTERN PetscErrorCode BTECollCUDARegisterEvents(void);

/* pair: the device layout from L's host index arrays (perm, sptr, slots: uploaded) and device
   arrays it takes over (chunks, rowptr, col, and exactly one of w, ws); pair_cuda.cu */
PETSC_INTERN PetscErrorCode BTEPairCUDACreateWith(const BTEPairLayout *, BTEPairChunk *, long long *, uint16_t *, double2 *, float2 *, BTEPairCUDA *);
/* pair: the device weights of a layout (exactly one is not NULL) and their count; pair_cuda.cu */
PETSC_INTERN PetscErrorCode BTEPairCUDAGetWeights(BTEPairCUDA, double2 **, float2 **, int64_t *nnz);

/* tgt: the device layout from the per-channel device arrays it takes over (exactly one of g2,
   g2dt; hwch only with L->hw_per_channel) and L's host arrays (kb2state, wqn, rowptr, order:
   uploaded); tgt_cuda.cu */
PETSC_INTERN PetscErrorCode BTETgtCUDACreateWith(const BTETgtLayout *, const BTETgtCUDAInfo *, int32_t *, int32_t *, int32_t *, double *, double2 *, double *, int32_t *, BTETgtCUDA *);

/* identical formulas to collisionimpl.h's host versions (same operation order) */
__device__ __forceinline__ double bte_gauss(double x, double inveta, double gnorm)
{
  double y = x * inveta;
  return gnorm * exp(-y * y);
}
/* BTECollBalance: -bte_delta balanced, effective weights a', b' (same operation order) */
__device__ __forceinline__ void bte_balance(double d, double hw, double kT, double *a, double *b)
{
  const double eu = exp(0.5 * d / kT), ev = exp(0.5 * hw / kT);
  const double c = (eu + 1.0 / eu) / (ev + 1.0 / ev), s = (eu - 1.0 / eu) / (ev - 1.0 / ev), h = 0.5 * (*a + *b);
  *a = h * (c - s);
  *b = h * (c + s);
}
__device__ __forceinline__ double bte_bose(double hw, double kT)
{
  return 1.0 / (exp(hw / kT) - 1.0);
}
