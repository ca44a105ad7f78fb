/* The ghost exchange between the GPUs of one host by CUDA IPC (-bte_exchange ipc): the transport
   that the device exchange (exchange_nccl.cu) uses instead of NCCL's calls.

   Why: a message of NCCL is a kernel of NCCL's on both GPUs plus its protocol. Here every rank maps
   its peers' receive buffers and flags into its own address space once (cudaIpc*), and an exchange
   is two small kernels on the exchange's high-priority stream:
     - send: wait until each destination has acknowledged the previous message (its ack flag in
       this rank's memory), store the values straight into the destinations' receive buffers, fence,
       and write this message's sequence number into each destination's arrival flag;
     - receive: wait until every source's arrival flag holds this sequence number, copy the received
       values out of the receive buffer, and write the number into each source's ack flag.
   The flags are polled by the kernels (volatile loads of memory that peers write over NVLink), so
   a message is seen within a microsecond of its flag; the driver's stream wait operations
   (cuStreamWaitValue32), tried first, cost ~30 us more per apply on 4 GPUs. Stores are fenced
   (__threadfence_system) before the flag that announces them.

   Sequence numbers count the exchanges of each direction; every rank takes part in every exchange
   (they are collective), so the counts agree. Comparisons are cyclic ((int)(flag - value) >= 0),
   so they may wrap. The acknowledgements keep a sender from overwriting a receive buffer that its
   destination has not copied out yet, whatever the ranks' relative speed. Ranks sharing a GPU work
   too (their contexts take turns on it), only slowly: a spinning kernel holds its context's slice.
   A block of 256 threads polls the flags, so at most 256 peers. */
#include <bte/private/collisioncuda_device.h>
#include <cuda.h>

#define PetscCallCU(call) \
  do { \
    CUresult _r = (call); \
    if (_r != CUDA_SUCCESS) { \
      const char *_s = NULL; \
      cuGetErrorString(_r, &_s); \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "CUDA driver error %d: %s", (int)_r, _s ? _s : "(no message)"); \
    } \
  } while (0)

/* one direction of the exchange: what this rank sends and receives, and the peers' mapped memory */
typedef struct {
  PetscInt     nsend, nrecv;
  PetscMPIInt *scnt, *rcnt; /* size: entries sent to / received from each rank */
  int         *dpeer, *doff; /* device, nsend: the destination's slot in dbase and the offset there */
  double     **dbase;        /* device, npeer: the destinations' receive buffers, mapped here */
  double      *recv;         /* device, max(nrecv, 1): this rank's receive buffer */
  double     **hbase;        /* host: the mapped pointers, for closing */
  unsigned     seq;          /* exchanges of this direction so far */
  int          arrive, ack;  /* offsets of this direction's flags in a rank's flag array */
  int          ndst, nsrc;   /* ranks sent to, received from */
  unsigned   **dflags;       /* device, 2 ndst + 2 nsrc: per destination its ack here and its arrival
                                flag there; per source its arrival flag here and its ack there */
  unsigned    *done;         /* device, 2: blocks of the send and of the receive kernel finished */
} BTEIPCDir;

struct _n_BTECollIPC {
  PetscMPIInt size, rank;
  unsigned   *flags;  /* device, 4 size: per direction, the arrival flags (one per source) and the acks (one per destination) */
  unsigned  **pflags; /* host, size: the peers' flag arrays, mapped here (NULL: no traffic with that rank) */
  BTEIPCDir   dir[2]; /* 0 forward, 1 reverse */
};

/* Which ranks of comm share this node: all of them, or IPC cannot run */
PetscErrorCode BTECollIPCProbe(MPI_Comm comm, PetscBool *ok, char why[], size_t len)
{
  MPI_Comm    node;
  PetscMPIInt size, nsize;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  PetscCallMPI(MPI_Comm_size(node, &nsize));
  PetscCallMPI(MPI_Comm_free(&node));
  {
    PetscMPIInt all = nsize == size, every;
    PetscCallMPI(MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, comm));
    *ok = every ? PETSC_TRUE : PETSC_FALSE;
  }
  why[0] = 0;
  if (!*ok) PetscCall(PetscSNPrintf(why, len, "the ranks are on more than one host (CUDA IPC maps the memory of GPUs of one host)"));
  PetscFunctionReturn(0);
}

/* Every rank's GPU, by its UUID (PCI ids repeat across hosts; UUIDs do not): mine, the 16 bytes of
   this rank's device; all (PetscFree it, or pass NULL), 16 bytes per rank in rank order; shared, whether
   another rank uses this rank's GPU. Collective. The NCCL probe and auto's IPC probe both ask it. */
PetscErrorCode BTECollCUDAGatherGPUs(MPI_Comm comm, unsigned char mine[16], unsigned char **all, PetscBool *shared)
{
  PetscMPIInt    size, rank;
  int            dev;
  unsigned char *a;
  cudaDeviceProp prop;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceProperties(&prop, dev));
  PetscCall(PetscMemcpy(mine, prop.uuid.bytes, 16));
  PetscCall(PetscMalloc1((size_t)16 * size, &a));
  PetscCallMPI(MPI_Allgather(mine, 16, MPI_UNSIGNED_CHAR, a, 16, MPI_UNSIGNED_CHAR, comm));
  *shared = PETSC_FALSE;
  for (PetscMPIInt r = 0; r < size; r++)
    if (r != rank && !memcmp(a + (size_t)16 * r, mine, 16)) *shared = PETSC_TRUE;
  if (all) *all = a;
  else PetscCall(PetscFree(a));
  PetscFunctionReturn(0);
}

/* What -bte_exchange auto asks before it takes IPC: all ranks on one host (BTECollIPCProbe), no two
   on one GPU (IPC works there but slowly: the contexts take turns while a kernel polls), and every
   rank's GPU able to map every other's memory (peer access; a GPU another rank uses but this one
   cannot see counts as not). Collective; why: the reason when not. */
PetscErrorCode BTECollIPCProbeAuto(MPI_Comm comm, PetscBool *ok, char why[], size_t len)
{
  PetscMPIInt   size, rank;
  int           dev, ndev, code = 0, worst = 0;
  unsigned char uuid[16], *all;
  PetscBool     shared;

  PetscFunctionBegin;
  PetscCall(BTECollIPCProbe(comm, ok, why, len));
  if (!*ok) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallCUDA(cudaGetDevice(&dev));
  PetscCallCUDA(cudaGetDeviceCount(&ndev));
  PetscCall(BTECollCUDAGatherGPUs(comm, uuid, &all, &shared));
  if (shared) code = 1;
  for (PetscMPIInt r = 0; r < size && !code; r++) {
    int other = -1, can = 0;
    if (r == rank) continue;
    for (int d = 0; d < ndev && other < 0; d++) {
      cudaDeviceProp prop;
      PetscCallCUDA(cudaGetDeviceProperties(&prop, d));
      if (!memcmp(prop.uuid.bytes, all + (size_t)16 * r, 16)) other = d;
    }
    if (other >= 0) PetscCallCUDA(cudaDeviceCanAccessPeer(&can, dev, other));
    if (!can) code = 2;
  }
  PetscCall(PetscFree(all));
  PetscCallMPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm));
  *ok = worst == 0 ? PETSC_TRUE : PETSC_FALSE;
  if (worst == 1) PetscCall(PetscSNPrintf(why, len, "ranks share a GPU"));
  else if (worst == 2) PetscCall(PetscSNPrintf(why, len, "a rank's GPU cannot map another rank's GPU memory (no peer access, or that GPU is not visible to it)"));
  PetscFunctionReturn(0);
}

static PetscErrorCode UploadInts(const int *src, PetscInt n, int **dst)
{
  PetscFunctionBegin;
  *dst = NULL;
  if (n > 0) PetscCall(BTECollCUDAUpload(src, (size_t)n, dst, NULL));
  PetscFunctionReturn(0);
}

/* One direction: each rank's receive buffer, laid out by rdsp (entries from rank r at rdsp[r]);
   a sender learns where its entries go in each destination's buffer (that rank's rdsp[me]). The
   buffers are mapped by the caller; here the per-entry destinations. */
static PetscErrorCode DirSetUp(MPI_Comm comm, BTEIPCDir *d, PetscInt nsend, const PetscMPIInt scnt[], const PetscMPIInt sdsp[], PetscInt nrecv, const PetscMPIInt rcnt[], const PetscMPIInt rdsp[], PetscMPIInt size, int *npeer, int peerof[], PetscMPIInt rdspat[])
{
  int *hpeer, *hoff;

  PetscFunctionBegin;
  d->nsend = nsend;
  d->nrecv = nrecv;
  PetscCall(PetscMalloc2(size, &d->scnt, size, &d->rcnt));
  PetscCall(PetscArraycpy(d->scnt, scnt, size));
  PetscCall(PetscArraycpy(d->rcnt, rcnt, size));
  /* rdspat[r]: where my entries start in rank r's receive buffer */
  PetscCallMPI(MPI_Alltoall((void *)rdsp, 1, MPI_INT, rdspat, 1, MPI_INT, comm));
  *npeer = 0;
  for (PetscMPIInt r = 0; r < size; r++) peerof[r] = scnt[r] ? (*npeer)++ : -1;
  PetscCall(PetscMalloc2(PetscMax(nsend, 1), &hpeer, PetscMax(nsend, 1), &hoff));
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscMPIInt k = 0; k < scnt[r]; k++) {
      hpeer[sdsp[r] + k] = peerof[r];
      hoff[sdsp[r] + k]  = rdspat[r] + k;
    }
  PetscCall(UploadInts(hpeer, nsend, &d->dpeer));
  PetscCall(UploadInts(hoff, nsend, &d->doff));
  PetscCall(PetscFree2(hpeer, hoff));
  PetscCallCUDA(cudaMalloc((void **)&d->recv, sizeof(double) * PetscMax(nrecv, 1)));
  PetscFunctionReturn(0);
}

/* Maps the memory behind a handle of rank r's; *err is set (not raised) on failure, so that the
   ranks can agree on it before any of them raises */
static void OpenHandle(const cudaIpcMemHandle_t *hnd, void **ptr, cudaError_t *err)
{
  cudaError_t e = cudaIpcOpenMemHandle(ptr, *hnd, cudaIpcMemLazyEnablePeerAccess);
  if (e != cudaSuccess) {
    *ptr = NULL;
    if (*err == cudaSuccess) *err = e;
    (void)cudaGetLastError();
  }
}

PetscErrorCode BTECollIPCCreate(MPI_Comm comm, const BTECollNCCLLists *l, BTECollIPC *out, char why[], size_t len)
{
  BTECollIPC          h;
  PetscMPIInt         size, rank;
  int                *peerof[2], npeer[2];
  PetscMPIInt        *rdspat[2];
  cudaIpcMemHandle_t *mine, *all;
  cudaError_t         err = cudaSuccess;
  const PetscMPIInt  *zero;
  PetscMPIInt        *zbuf;

  PetscFunctionBegin;
  *out   = NULL;
  why[0] = 0;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscNew(&h));
  h->size = size;
  h->rank = rank;
  PetscCall(PetscCalloc1(size + 1, &zbuf));
  zero = zbuf;
  for (int d = 0; d < 2; d++) PetscCall(PetscMalloc2(size, &peerof[d], size, &rdspat[d]));
  PetscCall(DirSetUp(comm, &h->dir[0], l->nfsend, l->fscnt, l->fsdsp, l->nghost, l->frcnt, l->frdsp, size, &npeer[0], peerof[0], rdspat[0]));
  PetscCall(DirSetUp(comm, &h->dir[1], l->nrsend, l->rscnt ? l->rscnt : zero, l->rscnt ? l->rsdsp : zero, l->nrrecv, l->rscnt ? l->rrcnt : zero, l->rscnt ? l->rrdsp : zero, size, &npeer[1], peerof[1], rdspat[1]));
  h->dir[0].arrive = 0;
  h->dir[0].ack    = size;
  h->dir[1].arrive = 2 * size;
  h->dir[1].ack    = 3 * size;
  PetscCallCUDA(cudaMalloc((void **)&h->flags, sizeof(unsigned) * 4 * size));
  PetscCallCUDA(cudaMemset(h->flags, 0, sizeof(unsigned) * 4 * size));
  PetscCallCUDA(cudaDeviceSynchronize()); /* zeroed before any peer may write */

  /* handles of this rank's flags and two receive buffers, to every rank */
  PetscCall(PetscMalloc2(3, &mine, (size_t)3 * size, &all));
  PetscCallCUDA(cudaIpcGetMemHandle(&mine[0], h->flags));
  PetscCallCUDA(cudaIpcGetMemHandle(&mine[1], h->dir[0].recv));
  PetscCallCUDA(cudaIpcGetMemHandle(&mine[2], h->dir[1].recv));
  PetscCallMPI(MPI_Allgather(mine, (PetscMPIInt)(3 * sizeof(*mine)), MPI_BYTE, all, (PetscMPIInt)(3 * sizeof(*mine)), MPI_BYTE, comm));
  PetscCall(PetscCalloc1(size, &h->pflags));
  for (PetscMPIInt r = 0; r < size; r++) {
    PetscBool talk = PETSC_FALSE;
    for (int d = 0; d < 2; d++)
      if (h->dir[d].scnt[r] || h->dir[d].rcnt[r]) talk = PETSC_TRUE;
    if (r != rank && talk) OpenHandle(&all[3 * r], (void **)&h->pflags[r], &err);
  }
  for (int d = 0; d < 2; d++) {
    BTEIPCDir *D = &h->dir[d];
    PetscCall(PetscCalloc1(PetscMax(npeer[d], 1), &D->hbase));
    for (PetscMPIInt r = 0; r < size; r++)
      if (peerof[d][r] >= 0) {
        PetscCheck(r != rank, PETSC_COMM_SELF, PETSC_ERR_PLIB, "IPC exchange: a rank sends to itself");
        OpenHandle(&all[3 * r + 1 + d], (void **)&D->hbase[peerof[d][r]], &err);
      }
    if (npeer[d]) PetscCall(BTECollCUDAUpload(D->hbase, (size_t)npeer[d], &D->dbase, NULL));
  }
  /* the flags each direction's kernels poll and write */
  for (int d = 0; d < 2; d++) {
    BTEIPCDir *D = &h->dir[d];
    unsigned **p;
    int        nd = 0, ns = 0;
    for (PetscMPIInt r = 0; r < size; r++) {
      nd += D->scnt[r] ? 1 : 0;
      ns += D->rcnt[r] ? 1 : 0;
    }
    D->ndst = nd;
    D->nsrc = ns;
    PetscCheck(nd <= 256 && ns <= 256, PETSC_COMM_SELF, PETSC_ERR_SUP, "-bte_exchange ipc: more than 256 peers");
    PetscCall(PetscCalloc1(2 * (nd + ns) + 1, &p));
    nd = ns = 0;
    for (PetscMPIInt r = 0; r < size; r++) {
      if (D->scnt[r]) {
        p[nd]                    = h->flags + D->ack + r;
        p[D->ndst + nd++]        = h->pflags[r] ? h->pflags[r] + D->arrive + rank : NULL;
      }
      if (D->rcnt[r]) {
        p[2 * D->ndst + ns]            = h->flags + D->arrive + r;
        p[2 * D->ndst + D->nsrc + ns++] = h->pflags[r] ? h->pflags[r] + D->ack + rank : NULL;
      }
    }
    if (nd + ns) PetscCall(BTECollCUDAUpload(p, (size_t)(2 * (nd + ns)), &D->dflags, NULL));
    PetscCallCUDA(cudaMalloc((void **)&D->done, 2 * sizeof(unsigned)));
    PetscCallCUDA(cudaMemset(D->done, 0, 2 * sizeof(unsigned)));
    PetscCall(PetscFree(p));
  }
  PetscCall(PetscFree2(mine, all));
  for (int d = 0; d < 2; d++) PetscCall(PetscFree2(peerof[d], rdspat[d]));
  PetscCall(PetscFree(zbuf));
  {
    int code = err == cudaSuccess ? 0 : (int)err, worst, who = err == cudaSuccess ? size : rank, first;
    PetscCallMPI(MPI_Allreduce(&code, &worst, 1, MPI_INT, MPI_MAX, comm));
    PetscCallMPI(MPI_Allreduce(&who, &first, 1, MPI_INT, MPI_MIN, comm));
    if (worst) { /* on every rank: the caller raises, or (auto) falls back */
      PetscCall(BTECollIPCDestroy(&h));
      PetscCall(PetscSNPrintf(why, len, "rank %d could not map a peer's GPU memory (cudaIpcOpenMemHandle: %s)", (int)first, cudaGetErrorString((cudaError_t)worst)));
      PetscFunctionReturn(0);
    }
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  *out = h;
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollIPCDestroy(BTECollIPC *hp)
{
  BTECollIPC h = *hp;

  PetscFunctionBegin;
  if (!h) PetscFunctionReturn(0);
  /* the peers' last acknowledgements are written into this rank's flags after the exchanges it
     took part in: wait for them, so that no peer writes into memory freed below */
  if (h->flags) {
    cudaStream_t s;
    PetscCallCUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int d = 0; d < 2; d++)
      for (PetscMPIInt r = 0; h->dir[d].scnt && r < h->size; r++)
        if (h->dir[d].scnt[r]) PetscCallCU(cuStreamWaitValue32((CUstream)s, (CUdeviceptr)(h->flags + h->dir[d].ack + r), h->dir[d].seq, CU_STREAM_WAIT_VALUE_GEQ));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCallCUDA(cudaStreamDestroy(s));
  }
  for (PetscMPIInt r = 0; h->pflags && r < h->size; r++)
    if (h->pflags[r]) PetscCallCUDA(cudaIpcCloseMemHandle(h->pflags[r]));
  for (int d = 0; d < 2; d++) {
    BTEIPCDir *D = &h->dir[d];
    int        np = 0;
    for (PetscMPIInt r = 0; D->scnt && r < h->size; r++) np += D->scnt[r] ? 1 : 0;
    for (int p = 0; D->hbase && p < np; p++)
      if (D->hbase[p]) PetscCallCUDA(cudaIpcCloseMemHandle(D->hbase[p]));
    PetscCall(PetscFree(D->hbase));
    PetscCallCUDA(cudaFree(D->dbase));
    PetscCallCUDA(cudaFree(D->dpeer));
    PetscCallCUDA(cudaFree(D->doff));
    PetscCallCUDA(cudaFree(D->dflags));
    PetscCallCUDA(cudaFree(D->done));
    PetscCallCUDA(cudaFree(D->recv));
    PetscCall(PetscFree2(D->scnt, D->rcnt));
  }
  PetscCall(PetscFree(h->pflags));
  PetscCallCUDA(cudaFree(h->flags));
  PetscCall(PetscFree(*hp));
  PetscFunctionReturn(0);
}

static __device__ inline void bte_ipc_wait(const unsigned *flag, unsigned q)
{
  while ((int)(*(const volatile unsigned *)flag - q) < 0) { }
}

/* Whether this block is the last of the grid to get here (done counts them and is reset by the
   last); every thread's earlier stores are fenced before it counts */
static __device__ inline bool bte_ipc_last(unsigned *done)
{
  __shared__ bool last;
  __threadfence_system();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(done, 1u) == gridDim.x - 1;
    if (last) *done = 0;
  }
  __syncthreads();
  return last;
}

/* Waits for each destination's ack of message q - 1 (flags[j]), then dbase[dpeer[k]][doff[k]] =
   in[idx[k]], straight into the destinations' buffers; the last block, once every block's stores
   are fenced, writes the arrival flags (flags[ndst + j] = q). Many blocks: one would be bound by
   the latency of its few loads in flight. */
__global__ void bte_ipc_send(unsigned q, int n, const int *__restrict__ idx, const double *__restrict__ in, double *const *__restrict__ dbase, const int *__restrict__ dpeer, const int *__restrict__ doff, int ndst, unsigned *const *flags, unsigned *done)
{
  if ((int)threadIdx.x < ndst) bte_ipc_wait(flags[threadIdx.x], q - 1);
  __syncthreads();
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) dbase[dpeer[k]][doff[k]] = in[idx[k]];
  if (bte_ipc_last(done) && (int)threadIdx.x < ndst) *(volatile unsigned *)flags[ndst + threadIdx.x] = q;
}

/* Waits for every source's arrival flag of message q, copies the received entries to out (past
   L1, which may hold the buffer's old lines); the last block, once every block has read, writes
   the acks (flags[nsrc + j] = q). */
__global__ void bte_ipc_recv(unsigned q, int n, const double *recv, double *__restrict__ out, int nsrc, unsigned *const *flags, unsigned *done)
{
  if ((int)threadIdx.x < nsrc) bte_ipc_wait(flags[threadIdx.x], q);
  __syncthreads();
  __threadfence_system();
  for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x) out[k] = __ldcg(recv + k);
  if (bte_ipc_last(done) && (int)threadIdx.x < nsrc) *(volatile unsigned *)flags[nsrc + threadIdx.x] = q;
}

static inline int IPCBlocks(PetscInt n)
{
  return (int)PetscMax(1, PetscMin((n + 255) / 256, 64));
}

/* One exchange of direction d on stream s, in two halves. Send: in[idx[k]] (nsend entries, by
   destination) into the destinations' buffers, and their arrival flags; Recv: wait for every
   source's flag, copy this rank's received entries (laid out by source) to out, acknowledge. */
PetscErrorCode BTECollIPCSend(BTECollIPC h, int d, cudaStream_t s, const int *idx, const double *in)
{
  BTEIPCDir *D = &h->dir[d];

  PetscFunctionBegin;
  ++D->seq;
  if (D->ndst) {
    bte_ipc_send<<<IPCBlocks(D->nsend), 256, 0, s>>>(D->seq, (int)D->nsend, idx, in, D->dbase, D->dpeer, D->doff, D->ndst, D->dflags, D->done);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTECollIPCRecv(BTECollIPC h, int d, cudaStream_t s, double *out)
{
  BTEIPCDir *D = &h->dir[d];

  PetscFunctionBegin;
  if (D->nsrc) {
    bte_ipc_recv<<<IPCBlocks(D->nrecv), 256, 0, s>>>(D->seq, (int)D->nrecv, D->recv, out, D->nsrc, D->dflags + 2 * D->ndst, D->done + 1);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscFunctionReturn(0);
}
