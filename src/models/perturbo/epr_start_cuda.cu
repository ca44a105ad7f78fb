/* The GPU's start during the Perturbo import (eprcuda.h: BTEEprCUDAStart, BTEEprCUDAAvailable).

   Creating the CUDA context and the cuBLAS/cuSOLVER handles takes a few tenths of a second, as long
   as the host's first steps of a small import (reading the file, the bands on the grid, the
   electron side). So the import starts them on a thread of their own before it reads the file and
   joins it before the phonons, the first step on the device. The thread uses the device PETSc will
   pick (-device_select, else rank mod the visible devices); handles made on another device
   than the one PETSc then uses are destroyed, not used. */
#include <bte/private/eprcuda.h>
#include <petscdevice_cuda.h>
#include <cublas_v2.h>
#include <cusolverDn.h>
#include <chrono>
#include <thread>

typedef struct {
  std::thread       *thread; /* never destroyed while joinable: a run that fails before the join exits without std::terminate */
  int                ndev, dev;
  int                ok;       /* context and handles made */
  cublasHandle_t     cb;
  cusolverDnHandle_t cs;
  double             seconds; /* the thread's time */
} Start;

static Start start;

static void StartWork(int want)
{
  const auto t0 = std::chrono::steady_clock::now(); /* not PetscTime: no MPI call on this thread */

  if (cudaGetDeviceCount(&start.ndev) != cudaSuccess || start.ndev < 1) {
    (void)cudaGetLastError();
    start.ndev = 0;
    return;
  }
  start.dev = want >= 0 ? want % start.ndev : start.dev % start.ndev;
  /* PETSc sets the flag before it sets its device; set first here, it is what PETSc asks for */
  if (cudaSetDeviceFlags(cudaDeviceMapHost) != cudaSuccess) (void)cudaGetLastError();
  if (cudaSetDevice(start.dev) != cudaSuccess || cudaFree(0) != cudaSuccess) {
    (void)cudaGetLastError();
    return;
  }
  if (cublasCreate(&start.cb) != CUBLAS_STATUS_SUCCESS) return;
  if (cusolverDnCreate(&start.cs) != CUSOLVER_STATUS_SUCCESS) {
    (void)cublasDestroy(start.cb);
    return;
  }
  start.ok      = 1;
  start.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

PetscErrorCode BTEEprCUDAStart(MPI_Comm comm)
{
  PetscInt    sel  = -1;
  PetscBool   set  = PETSC_FALSE;
  PetscMPIInt rank = 0;

  PetscFunctionBegin;
  if (start.thread || start.ok) PetscFunctionReturn(0); /* started, or its handles not yet taken */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-device_select", &sel, &set));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  (void)comm;
  start.dev = rank; /* reduced mod the device count on the thread, as PETSc does */
  try {
    start.thread = new std::thread(StartWork, set && sel >= 0 ? (int)sel : -1);
  } catch (...) {
    start.thread = NULL; /* no thread: BTEEprCUDAAvailable starts the GPU itself */
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDAAvailable(PetscBool *avail)
{
  int n = 0;

  PetscFunctionBegin;
  *avail = PETSC_FALSE;
  if (start.thread) {
    start.thread->join();
    delete start.thread;
    start.thread = NULL;
    PetscCall(PetscInfo(NULL, "perturbo: the GPU's start (context, cuBLAS and cuSOLVER handles on device %d of %d) took %.3f s beside the host's first steps\n", start.dev, start.ndev, start.seconds));
    n = start.ndev;
  } else if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the error of a machine without a GPU */
    n = 0;
  }
  if (n < 1) PetscFunctionReturn(0);
  PetscCall(PetscDeviceInitialize(PETSC_DEVICE_CUDA));
  *avail = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDATakeHandles(cublasHandle_t *cb, cusolverDnHandle_t *cs, PetscBool *got)
{
  int cur = -1;

  PetscFunctionBegin;
  *got = PETSC_FALSE;
  if (!start.ok) PetscFunctionReturn(0);
  start.ok = 0;
  PetscCallCUDA(cudaGetDevice(&cur));
  if (cur != start.dev) { /* PETSc chose another device: these handles belong to the other one */
    PetscCall(PetscInfo(NULL, "perturbo: handles made on device %d, PETSc uses device %d: made again\n", start.dev, cur));
    PetscCallCUDA(cudaSetDevice(start.dev));
    (void)cublasDestroy(start.cb);
    (void)cusolverDnDestroy(start.cs);
    PetscCallCUDA(cudaSetDevice(cur));
    PetscFunctionReturn(0);
  }
  *cb  = start.cb;
  *cs  = start.cs;
  *got = PETSC_TRUE;
  PetscFunctionReturn(0);
}
