/* The owner's side of the reverse exchange on the device (reverse.c): one thread per owned state
   adds its received slots in their fixed order (by sending rank), so that the sum does not depend
   on the order in which messages or atomics land. */
#include <bte/private/collisioncuda_device.h>

struct _n_BTECollCUDAReverse {
  PetscInt   nlocal;
  long long *rptr; /* nlocal+1 */
};

__global__ void bte_reverse_add(PetscInt n, const long long *__restrict__ rptr, const double *__restrict__ own, const double *__restrict__ r, double *__restrict__ y)
{
  for (PetscInt s = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; s < n; s += (PetscInt)gridDim.x * blockDim.x) {
    double a = own ? own[s] : y[s];
    for (long long k = rptr[s]; k < rptr[s + 1]; k++) a += r[k];
    y[s] = a;
  }
}

PetscErrorCode BTECollCUDAReverseAdd(struct _n_BTECollCUDAReverse **h, PetscInt nlocal, const PetscInt64 rptr[], Vec own, Vec rbuf, Vec y)
{
  const PetscScalar *o = NULL, *r;
  PetscScalar       *v;
  cudaStream_t       s;

  PetscFunctionBegin;
  static_assert(sizeof(long long) == sizeof(PetscInt64), "64-bit offsets");
  if (*h && (*h)->nlocal != nlocal) PetscCall(BTECollCUDAReverseDestroy(h));
  if (!*h) {
    PetscCall(PetscNew(h));
    (*h)->nlocal = nlocal;
    PetscCall(BTECollCUDAUpload((const long long *)rptr, (size_t)nlocal + 1, &(*h)->rptr, NULL));
    PetscCallCUDA(cudaDeviceSynchronize()); /* the upload may still be in flight on the legacy stream */
  }
  if (nlocal == 0) PetscFunctionReturn(0);
  if (own) PetscCall(VecCUDAGetArrayRead(own, &o));
  PetscCall(VecCUDAGetArrayRead(rbuf, &r));
  if (own) PetscCall(VecCUDAGetArrayWrite(y, &v));
  else PetscCall(VecCUDAGetArray(y, &v));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCall(PetscLogGpuTimeBegin());
  {
    const int block = 256, grid = (int)PetscMin(((long long)nlocal + block - 1) / block, 65535LL * 8);
    bte_reverse_add<<<grid, block, 0, s>>>(nlocal, (*h)->rptr, o, r, v);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(PetscLogGpuTimeEnd());
  if (own) PetscCall(VecCUDARestoreArrayWrite(y, &v));
  else PetscCall(VecCUDARestoreArray(y, &v));
  PetscCall(VecCUDARestoreArrayRead(rbuf, &r));
  if (own) PetscCall(VecCUDARestoreArrayRead(own, &o));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollCUDAReverseDestroy(struct _n_BTECollCUDAReverse **h)
{
  PetscFunctionBegin;
  if (!*h) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree((*h)->rptr));
  PetscCall(PetscFree(*h));
  PetscFunctionReturn(0);
}
