/* The ghost exchange between GPUs by NCCL (exchange.c chooses it; -bte_exchange).

   Why not PETSc's VecScatter: with an MPI that is not GPU-aware, PETSc stages every message of a
   CUDA Vec through host memory and waits for it on the host, so an exchange costs two PCIe copies
   and a host synchronisation per apply. NCCL moves device buffers between the GPUs of a host over
   NVLink (or PCIe, or the network between hosts) and is queued on a stream like a kernel.

   Ordering without host waits: the exchange has a stream of its own. Begin records an event on
   PETSc's stream after the work already queued there (which wrote the values to send and last read
   the buffers to be overwritten), makes the exchange stream wait for it, and queues there the
   packing kernel and the grouped ncclSend/ncclRecv; End makes PETSc's stream wait for an event
   recorded after them. Kernels queued on PETSc's stream between Begin and End (the owned chunks of
   the pair layout) run while the values travel.

   With -bte_exchange ipc the same object moves the values by CUDA IPC instead of NCCL's calls
   (exchange_ipc.cu): a kernel stores the values straight into the peers' buffers and sets their
   flags, which the peers' receiving kernels poll; the streams, events and Begin/End are the same.

   The library is loaded with dlopen at the first use, so bte builds without NCCL and a run on a
   machine without it falls back to VecScatter. The handful of NCCL types used are declared below
   as NCCL's ABI defines them (stable since NCCL 2.0); the functions are looked up by name. */
#include <bte/private/collisioncuda_device.h>
#include <dlfcn.h>

/* NCCL's ABI, as its nccl.h declares it */
typedef struct ncclComm *ncclComm_t;
typedef struct {
  char internal[128];
} ncclUniqueId;
typedef int ncclResult_t; /* ncclSuccess = 0 */
typedef int ncclDataType_t;
static const ncclDataType_t bte_ncclFloat64 = 8;

typedef struct {
  void *lib;
  ncclResult_t (*GetVersion)(int *);
  ncclResult_t (*GetUniqueId)(ncclUniqueId *);
  ncclResult_t (*CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
  ncclResult_t (*CommDestroy)(ncclComm_t);
  ncclResult_t (*GroupStart)(void);
  ncclResult_t (*GroupEnd)(void);
  ncclResult_t (*Send)(const void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  ncclResult_t (*Recv)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
  const char *(*GetErrorString)(ncclResult_t);
} BTENCCLLib;

#define PetscCallNCCL(L, call) \
  do { \
    ncclResult_t _r = (call); \
    PetscCheck(_r == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "NCCL error %d: %s", (int)_r, (L)->GetErrorString ? (L)->GetErrorString(_r) : "(no message)"); \
  } while (0)

/* Loads the library and its entry points; on failure *ok is false and why says what failed. */
static PetscErrorCode NCCLLoad(const char *path, BTENCCLLib *L, PetscBool *ok, char why[], size_t len)
{
  const char *names[] = {"ncclGetVersion", "ncclGetUniqueId", "ncclCommInitRank", "ncclCommDestroy", "ncclGroupStart", "ncclGroupEnd", "ncclSend", "ncclRecv", "ncclGetErrorString"};
  void      **slots[] = {(void **)&L->GetVersion, (void **)&L->GetUniqueId, (void **)&L->CommInitRank, (void **)&L->CommDestroy, (void **)&L->GroupStart, (void **)&L->GroupEnd, (void **)&L->Send, (void **)&L->Recv, (void **)&L->GetErrorString};

  PetscFunctionBegin;
  PetscCall(PetscMemzero(L, sizeof(*L)));
  *ok    = PETSC_FALSE;
  L->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!L->lib) {
    const char *e = dlerror();
    PetscCall(PetscSNPrintf(why, len, "the NCCL library %s did not load (%s)", path, e ? e : "?"));
    PetscFunctionReturn(0);
  }
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    *slots[i] = dlsym(L->lib, names[i]);
    if (!*slots[i]) {
      PetscCall(PetscSNPrintf(why, len, "%s has no %s (NCCL >= 2.7 is needed)", path, names[i]));
      dlclose(L->lib);
      L->lib = NULL;
      PetscFunctionReturn(0);
    }
  }
  *ok = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLProbe(MPI_Comm comm, const char *path, PetscBool *ok, char why[], size_t len)
{
  PetscMPIInt   size, rank;
  int           code = 0, worst = 0;
  unsigned char uuid[16];
  BTENCCLLib    L;
  PetscBool     loaded, shared;
  char          mine[192] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  /* NCCL refuses two ranks of a communicator on one GPU */
  PetscCall(BTECollCUDAGatherGPUs(comm, uuid, NULL, &shared));
  if (shared) code = 1;
  if (!code) {
    PetscCall(NCCLLoad(path, &L, &loaded, mine, sizeof(mine)));
    if (loaded) dlclose(L.lib);
    else code = 2;
  }
  PetscCallMPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm));
  *ok = worst == 0 ? PETSC_TRUE : PETSC_FALSE;
  why[0] = 0;
  if (worst == 1) PetscCall(PetscSNPrintf(why, len, "ranks share a GPU (NCCL needs one GPU per rank)"));
  else if (worst == 2) {
    /* the message of the lowest rank that failed to load it */
    int who = code == 2 ? rank : size, first;
    PetscCallMPI(MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm));
    PetscCallMPI(MPI_Bcast(mine, sizeof(mine), MPI_CHAR, first, comm));
    PetscCall(PetscStrncpy(why, mine, len));
  }
  PetscFunctionReturn(0);
}

struct _n_BTECollNCCL {
  BTENCCLLib  L;
  ncclComm_t  comm;
  int         size, version;
  cudaStream_t xs;               /* the exchange's stream */
  cudaEvent_t  fready, rready, fdone, rdone; /* on PETSc's stream: the inputs are ready; on the exchange's: done */
  PetscInt     nlocal, nghost, nfsend, nrsend, nrrecv;
  int         *fsend, *rfrom, *rpos; /* device */
  double      *fbuf, *rsbuf, *rrbuf; /* device send/receive buffers */
  PetscMPIInt *fscnt, *fsdsp, *frcnt, *frdsp, *rscnt, *rsdsp, *rrcnt, *rrdsp; /* host */
  Vec          xl;               /* the local vector of the forward exchange in flight */
  BTECollIPC   ipc;              /* -bte_exchange ipc: the transport instead of NCCL's calls */
};

static PetscErrorCode UploadInt(const PetscInt *src, PetscInt n, int **dst)
{
  int *tmp;

  PetscFunctionBegin;
  *dst = NULL;
  if (n <= 0) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(n, &tmp));
  for (PetscInt i = 0; i < n; i++) tmp[i] = (int)src[i];
  PetscCall(BTECollCUDAUpload(tmp, (size_t)n, dst, NULL));
  PetscCall(PetscFree(tmp));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLCreate(MPI_Comm comm, const char *path, PetscBool ipc, const BTECollNCCLLists *l, BTECollNCCL *out, char ipcwhy[], size_t ipclen)
{
  BTECollNCCL  h;
  PetscBool    ok;
  char         why[192];
  PetscMPIInt  rank, size;
  ncclUniqueId id;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCheck(l->nlocal + l->nghost < INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "The device exchange (NCCL or IPC) uses 32-bit local indices");
  *out = NULL;
  PetscCall(PetscNew(&h));
  if (ipc) {
    PetscCall(BTECollIPCCreate(comm, l, &h->ipc, ipcwhy, ipclen));
    if (!h->ipc) { /* collective: no rank goes on */
      PetscCall(PetscFree(h));
      PetscFunctionReturn(0);
    }
  } else {
    PetscCall(NCCLLoad(path, &h->L, &ok, why, sizeof(why)));
    PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", why);
    PetscCallNCCL(&h->L, h->L.GetVersion(&h->version));
    if (rank == 0) PetscCallNCCL(&h->L, h->L.GetUniqueId(&id));
    PetscCallMPI(MPI_Bcast(&id, (PetscMPIInt)sizeof(id), MPI_BYTE, 0, comm));
    PetscCallNCCL(&h->L, h->L.CommInitRank(&h->comm, size, id, rank));
  }
  h->size   = size;
  h->nlocal = l->nlocal;
  h->nghost = l->nghost;
  h->nfsend = l->nfsend;
  h->nrsend = l->nrsend;
  h->nrrecv = l->nrrecv;
  /* the exchange's kernels (packing, NCCL's copies) at the highest priority: queued behind the
     chunks' blocks they would start only when the device drains, and an NCCL transfer waits for
     its kernel to run on both GPUs, so the chunks meant to hide the exchange would delay it */
  {
    int lo, hi;
    PetscCallCUDA(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    PetscCallCUDA(cudaStreamCreateWithPriority(&h->xs, cudaStreamNonBlocking, hi));
  }
  PetscCallCUDA(cudaEventCreateWithFlags(&h->fready, cudaEventDisableTiming));
  PetscCallCUDA(cudaEventCreateWithFlags(&h->rready, cudaEventDisableTiming));
  PetscCallCUDA(cudaEventCreateWithFlags(&h->fdone, cudaEventDisableTiming));
  PetscCallCUDA(cudaEventCreateWithFlags(&h->rdone, cudaEventDisableTiming));
  PetscCall(UploadInt(l->fsend, l->nfsend, &h->fsend));
  PetscCall(UploadInt(l->rfrom, l->nrsend, &h->rfrom));
  PetscCall(UploadInt(l->rpos, l->nrrecv, &h->rpos));
  if (l->nfsend && !ipc) PetscCallCUDA(cudaMalloc((void **)&h->fbuf, sizeof(double) * l->nfsend));
  if (l->nrsend && !ipc) PetscCallCUDA(cudaMalloc((void **)&h->rsbuf, sizeof(double) * l->nrsend));
  if (l->nrrecv) PetscCallCUDA(cudaMalloc((void **)&h->rrbuf, sizeof(double) * l->nrrecv));
  PetscCall(PetscMalloc4(size, &h->fscnt, size + 1, &h->fsdsp, size, &h->frcnt, size + 1, &h->frdsp));
  PetscCall(PetscArraycpy(h->fscnt, l->fscnt, size));
  PetscCall(PetscArraycpy(h->fsdsp, l->fsdsp, size + 1));
  PetscCall(PetscArraycpy(h->frcnt, l->frcnt, size));
  PetscCall(PetscArraycpy(h->frdsp, l->frdsp, size + 1));
  PetscCall(PetscMalloc4(size, &h->rscnt, size + 1, &h->rsdsp, size, &h->rrcnt, size + 1, &h->rrdsp));
  if (l->rscnt) {
    PetscCall(PetscArraycpy(h->rscnt, l->rscnt, size));
    PetscCall(PetscArraycpy(h->rsdsp, l->rsdsp, size + 1));
    PetscCall(PetscArraycpy(h->rrcnt, l->rrcnt, size));
    PetscCall(PetscArraycpy(h->rrdsp, l->rrdsp, size + 1));
  } else {
    PetscCall(PetscArrayzero(h->rscnt, size));
    PetscCall(PetscArrayzero(h->rsdsp, size + 1));
    PetscCall(PetscArrayzero(h->rrcnt, size));
    PetscCall(PetscArrayzero(h->rrdsp, size + 1));
  }
  PetscCallCUDA(cudaDeviceSynchronize()); /* the uploads (pageable) complete before any stream uses them */
  *out = h;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLDestroy(BTECollNCCL *hp)
{
  BTECollNCCL h = *hp;

  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(0);
  PetscCallCUDA(cudaStreamSynchronize(h->xs));
  if (h->comm) PetscCallNCCL(&h->L, h->L.CommDestroy(h->comm));
  PetscCall(BTECollIPCDestroy(&h->ipc));
  PetscCallCUDA(cudaStreamDestroy(h->xs));
  PetscCallCUDA(cudaEventDestroy(h->fready));
  PetscCallCUDA(cudaEventDestroy(h->rready));
  PetscCallCUDA(cudaEventDestroy(h->fdone));
  PetscCallCUDA(cudaEventDestroy(h->rdone));
  PetscCallCUDA(cudaFree(h->fsend));
  PetscCallCUDA(cudaFree(h->rfrom));
  PetscCallCUDA(cudaFree(h->rpos));
  PetscCallCUDA(cudaFree(h->fbuf));
  PetscCallCUDA(cudaFree(h->rsbuf));
  PetscCallCUDA(cudaFree(h->rrbuf));
  PetscCall(PetscFree4(h->fscnt, h->fsdsp, h->frcnt, h->frdsp));
  PetscCall(PetscFree4(h->rscnt, h->rsdsp, h->rrcnt, h->rrdsp));
  if (h->L.lib) dlclose(h->L.lib);
  PetscCall(PetscFree(*hp));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLVersion(BTECollNCCL h, int *v)
{
  PetscFunctionBegin;
  *v = h ? h->version : 0;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLIsIPC(BTECollNCCL h, PetscBool *ipc)
{
  PetscFunctionBegin;
  *ipc = h && h->ipc ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* out[k] = in[idx[k]] */
__global__ void bte_xchg_gather(int n, const int *__restrict__ idx, const double *__restrict__ in, double *__restrict__ out)
{
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) out[k] = in[idx[k]];
}
/* out[idx[k]] = in[k] */
__global__ void bte_xchg_scatter(int n, const int *__restrict__ idx, const double *__restrict__ in, double *__restrict__ out)
{
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) out[idx[k]] = in[k];
}

static inline int Blocks(PetscInt n)
{
  return (int)PetscMax(1, PetscMin((n + 255) / 256, 65535 * 4));
}

/* Mark: an event on PETSc's stream after the work that writes the values to send (and last reads
   the buffers the exchange overwrites). v is made current on the device first, so that an upload
   it may need is queued before the event. Post: the exchange's stream waits for that event, then
   packs and transfers. Begin = Mark + Post; between the two, work queued on PETSc's stream that
   neither writes the values sent nor touches the buffers received into runs while NCCL is
   called (-bte_exchange_work_first). */
static PetscErrorCode Mark(cudaEvent_t ev, Vec v)
{
  const PetscScalar *a;
  cudaStream_t       s;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayRead(v, &a));
  PetscCall(VecCUDARestoreArrayRead(v, &a));
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCallCUDA(cudaEventRecord(ev, s));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLForwardMark(BTECollNCCL h, Vec x)
{
  PetscFunctionBegin;
  PetscCall(Mark(h->fready, x));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLForwardPost(BTECollNCCL h, Vec x, Vec xl)
{
  const PetscScalar *a;
  PetscScalar       *b;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayRead(x, &a));
  PetscCall(VecCUDAGetArrayWrite(xl, &b));
  PetscCallCUDA(cudaStreamWaitEvent(h->xs, h->fready, 0));
  if (h->ipc) { /* the ghosts first: the owned values' copy can wait */
    PetscCall(BTECollIPCSend(h->ipc, 0, h->xs, h->fsend, a));
    PetscCall(BTECollIPCRecv(h->ipc, 0, h->xs, b + h->nlocal));
    if (h->nlocal) PetscCallCUDA(cudaMemcpyAsync(b, a, sizeof(double) * h->nlocal, cudaMemcpyDeviceToDevice, h->xs));
    PetscCallCUDA(cudaEventRecord(h->fdone, h->xs));
    PetscCall(VecCUDARestoreArrayWrite(xl, &b));
    PetscCall(VecCUDARestoreArrayRead(x, &a));
    PetscFunctionReturn(0);
  }
  if (h->nlocal) PetscCallCUDA(cudaMemcpyAsync(b, a, sizeof(double) * h->nlocal, cudaMemcpyDeviceToDevice, h->xs));
  if (h->nfsend) {
    bte_xchg_gather<<<Blocks(h->nfsend), 256, 0, h->xs>>>((int)h->nfsend, h->fsend, a, h->fbuf);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallNCCL(&h->L, h->L.GroupStart());
  for (int r = 0; r < h->size; r++) {
    if (h->fscnt[r]) PetscCallNCCL(&h->L, h->L.Send(h->fbuf + h->fsdsp[r], (size_t)h->fscnt[r], bte_ncclFloat64, r, h->comm, h->xs));
    if (h->frcnt[r]) PetscCallNCCL(&h->L, h->L.Recv(b + h->nlocal + h->frdsp[r], (size_t)h->frcnt[r], bte_ncclFloat64, r, h->comm, h->xs));
  }
  PetscCallNCCL(&h->L, h->L.GroupEnd());
  PetscCallCUDA(cudaEventRecord(h->fdone, h->xs));
  PetscCall(VecCUDARestoreArrayWrite(xl, &b));
  PetscCall(VecCUDARestoreArrayRead(x, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLForwardBegin(BTECollNCCL h, Vec x, Vec xl)
{
  PetscFunctionBegin;
  PetscCall(BTECollNCCLForwardMark(h, x));
  PetscCall(BTECollNCCLForwardPost(h, x, xl));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLForwardEnd(BTECollNCCL h)
{
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCallCUDA(cudaStreamWaitEvent(s, h->fdone, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLReverseMark(BTECollNCCL h, Vec yl)
{
  PetscFunctionBegin;
  PetscCall(Mark(h->rready, yl));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLReversePost(BTECollNCCL h, Vec yl)
{
  const PetscScalar *a;

  PetscFunctionBegin;
  PetscCall(VecCUDAGetArrayRead(yl, &a));
  PetscCallCUDA(cudaStreamWaitEvent(h->xs, h->rready, 0));
  if (h->ipc) {
    PetscCall(BTECollIPCSend(h->ipc, 1, h->xs, h->rfrom, a));
    PetscCall(BTECollIPCRecv(h->ipc, 1, h->xs, h->rrbuf));
    PetscCallCUDA(cudaEventRecord(h->rdone, h->xs));
    PetscCall(VecCUDARestoreArrayRead(yl, &a));
    PetscFunctionReturn(0);
  }
  if (h->nrsend) {
    bte_xchg_gather<<<Blocks(h->nrsend), 256, 0, h->xs>>>((int)h->nrsend, h->rfrom, a, h->rsbuf);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallNCCL(&h->L, h->L.GroupStart());
  for (int r = 0; r < h->size; r++) {
    if (h->rscnt[r]) PetscCallNCCL(&h->L, h->L.Send(h->rsbuf + h->rsdsp[r], (size_t)h->rscnt[r], bte_ncclFloat64, r, h->comm, h->xs));
    if (h->rrcnt[r]) PetscCallNCCL(&h->L, h->L.Recv(h->rrbuf + h->rrdsp[r], (size_t)h->rrcnt[r], bte_ncclFloat64, r, h->comm, h->xs));
  }
  PetscCallNCCL(&h->L, h->L.GroupEnd());
  PetscCallCUDA(cudaEventRecord(h->rdone, h->xs));
  PetscCall(VecCUDARestoreArrayRead(yl, &a));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollNCCLReverseBegin(BTECollNCCL h, Vec yl)
{
  PetscFunctionBegin;
  PetscCall(BTECollNCCLReverseMark(h, yl));
  PetscCall(BTECollNCCLReversePost(h, yl));
  PetscFunctionReturn(0);
}

/* the received sums go to their slots (rbuf[rpos[k]]), on PETSc's stream after the transfers */
PetscErrorCode BTECollNCCLReverseEnd(BTECollNCCL h, Vec rbuf)
{
  PetscScalar *b;
  cudaStream_t s;

  PetscFunctionBegin;
  PetscCall(BTECollCUDAGetStream(&s));
  PetscCallCUDA(cudaStreamWaitEvent(s, h->rdone, 0));
  PetscCall(VecCUDAGetArrayWrite(rbuf, &b));
  if (h->nrrecv) {
    bte_xchg_scatter<<<Blocks(h->nrrecv), 256, 0, s>>>((int)h->nrrecv, h->rpos, h->rrbuf, b);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCall(VecCUDARestoreArrayWrite(rbuf, &b));
  PetscFunctionReturn(0);
}
