/* The tgt layout (tgtlayout.h) built on the device.

   The host build (tgt.c) sorts the channels into (k, k+q) pairs and the channel ends into the
   target layer with parallel counting sorts; here the host only copies the table's channel
   arrays (ends, mode, hw, |g|^2) to the device in batches, through two pinned buffers that all
   threads fill, and the device does the rest with CUB:
     1. each channel's local ends (binary search in the ghosts), and the key (k point of i,
        k point of j); a stable radix sort of (key, channel) gives the pair order: the host's
        order, since its counting sorts are stable too;
     2. pair index of every channel (a scan of the key changes), the pair records, the q rows
        (a flag per q of the full grid, scanned: the distinct q in increasing order, as on the host);
     3. scatter_channels in pair order; the phonon table's hw from the first channel (in pair
        order: an atomicMin of the position) of each (row, mode), every channel compared with it
        (1e-10 relative, as on the host); the STORE_G2DT products with collisionimpl.h's
        formulas in the same order (the device's exp() may differ from the host's in the last bit);
     4. the target layer: the channel ends as (target, signed channel) in channel order, radix
        sorted by target (stable: rows in channel order, as on the host), row pointers from the
        sorted keys.
   The host gets back only the phonon table's hw, a flag, and the row pointers (nlocal + 1); it
   computes N and the order of the targets (small), and Finish makes the BTETgtCUDA. Device
   memory while building: up to ~88 B per channel (sort buffers and the layout), checked before
   anything is allocated. */
#include <bte/private/collisioncuda_device.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

struct _n_BTETgtCUDABuilder {
  cudaStream_t stream;
  int32_t      nlocal, n, nkp, nb, nm, bb;
  PetscInt     nghost, rstart, nk[3];
  int64_t      nch, pushed, batch, nq;
  double       pref, inveta, gnorm, kTdb;
  int          g2dt;
  PetscInt    *dghosts;                  /* nghost */
  int32_t     *dskp, *dband, *dkp;       /* state -> k point, state -> band, k point -> flattened k */
  double      *denergy;                  /* n */
  PetscInt    *di, *dj, *dmode;          /* a batch of the table's arrays */
  double      *dhw, *dg2;
  char        *stage[2];                 /* pinned host copies of a batch */
  cudaEvent_t  staged[2];
  int32_t     *li, *lj, *md;             /* nch, channel order */
  double      *hw, *g2;
  uint64_t    *key[2];                   /* nch: (k point of i) nkp + (k point of j), sort buffers */
  int32_t     *val[2];
  int         *dbad;                     /* 1: an end with no local index; 2: a mode out of range; 4: hw not a function of (q, mode) */
  /* the layout (device), handed to the BTETgtCUDA by Finish */
  int32_t     *scatter, *pairidx, *bands, *sources;
  double      *g2s, *hwch;
  double2     *g2dt_d;
};

static inline unsigned BTETgtBuildGrid(int64_t n)
{
  int64_t g = (n + 255) / 256;
  return (unsigned)(g < 1 ? 1 : (g > 65535 * 16 ? 65535 * 16 : g));
}

static int BTETgtBuildBits(uint64_t v) /* bits to hold 0..v */
{
  int b = 1;
  while (b < 64 && ((uint64_t)1 << b) <= v) b++;
  return b;
}

__device__ __forceinline__ PetscInt bte_tgt_local(PetscInt g, PetscInt rstart, int32_t nlocal, PetscInt nghost, const PetscInt *__restrict__ ghosts)
{
  PetscInt lo = 0, hi = nghost;
  if (g >= rstart && g < rstart + nlocal) return g - rstart;
  while (lo < hi) {
    PetscInt mid = lo + (hi - lo) / 2;
    if (ghosts[mid] < g) lo = mid + 1;
    else hi = mid;
  }
  return (lo < nghost && ghosts[lo] == g) ? nlocal + lo : -1;
}

/* BTECollQIndex (collisionimpl.h), the same integer arithmetic */
__device__ __forceinline__ PetscInt bte_tgt_qindex(PetscInt nk0, PetscInt nk1, PetscInt nk2, PetscInt ki, PetscInt kj)
{
  PetscInt a0 = ki / (nk1 * nk2), a1 = (ki / nk2) % nk1, a2 = ki % nk2;
  PetscInt b0 = kj / (nk1 * nk2), b1 = (kj / nk2) % nk1, b2 = kj % nk2;
  PetscInt q0 = (b0 - a0 + nk0) % nk0, q1 = (b1 - a1 + nk1) % nk1, q2 = (b2 - a2 + nk2) % nk2;
  return (q0 * nk1 + q1) * nk2 + q2;
}

/* 1. a batch of channels: local ends, mode, hw, g2 (channel order) and the pair key */
__global__ void bte_tgt_build_add(int64_t m, int64_t off, PetscInt rstart, int32_t nlocal, PetscInt nghost, int32_t nkp, const PetscInt *__restrict__ ghosts, const int32_t *__restrict__ skp, const PetscInt *__restrict__ ci, const PetscInt *__restrict__ cj, const PetscInt *__restrict__ mode, const double *__restrict__ hw, const double *__restrict__ g2, int32_t *__restrict__ li, int32_t *__restrict__ lj, int32_t *__restrict__ md, double *__restrict__ hwo, double *__restrict__ g2o, uint64_t *__restrict__ key, int32_t *__restrict__ val, int *bad)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < m; k += (int64_t)gridDim.x * blockDim.x) {
    const int64_t c = off + k;
    PetscInt      a = bte_tgt_local(ci[k], rstart, nlocal, nghost, ghosts), b = bte_tgt_local(cj[k], rstart, nlocal, nghost, ghosts);
    if (a < 0 || b < 0) {
      atomicOr(bad, 1);
      a = b = 0;
    }
    li[c]  = (int32_t)a;
    lj[c]  = (int32_t)b;
    md[c]  = (int32_t)mode[k];
    hwo[c] = hw[k];
    g2o[c] = g2[k];
    key[c] = (uint64_t)skp[a] * (uint64_t)nkp + (uint64_t)skp[b];
    val[c] = (int32_t)c;
  }
}

/* 2. pair starts: flag[s] = 1 where the key changes (0 at s = 0); scanned, the pair index */
__global__ void bte_tgt_build_heads(int64_t n, const uint64_t *__restrict__ key, int32_t *__restrict__ flag)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x) flag[s] = (s > 0 && key[s] != key[s - 1]) ? 1 : 0;
}

__global__ void bte_tgt_build_pairs(int64_t n, int32_t nkp, PetscInt nk0, PetscInt nk1, PetscInt nk2, const uint64_t *__restrict__ key, const int32_t *__restrict__ pairidx, const int32_t *__restrict__ kp, int32_t *__restrict__ scatter, int32_t *__restrict__ iqp, int32_t *__restrict__ qflag)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x) {
    const int32_t p = pairidx[s];
    if (s == 0 || pairidx[s - 1] != p) {
      const int32_t ik = (int32_t)(key[s] / (uint64_t)nkp), ikq = (int32_t)(key[s] % (uint64_t)nkp);
      const int32_t iq = (int32_t)bte_tgt_qindex(nk0, nk1, nk2, kp[ik], kp[ikq]);
      scatter[3 * (int64_t)p]     = ik;
      scatter[3 * (int64_t)p + 1] = ikq;
      iqp[p]                      = iq;
      qflag[iq]                   = 1;
    }
  }
}

__global__ void bte_tgt_build_rows(int64_t npair, const int32_t *__restrict__ iqp, const int32_t *__restrict__ qrow, int32_t *__restrict__ scatter)
{
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < npair; p += (int64_t)gridDim.x * blockDim.x) scatter[3 * p + 2] = qrow[iqp[p]];
}

/* 3. scatter_channels in pair order, the local ends in that order, and the first channel of each
   (row, mode) */
__global__ void bte_tgt_build_channels(int64_t n, int32_t nm, int32_t bb, const int32_t *__restrict__ perm, const int32_t *__restrict__ li, const int32_t *__restrict__ lj, const int32_t *__restrict__ md, const double *__restrict__ hw, const double *__restrict__ g2, const int32_t *__restrict__ band, const int32_t *__restrict__ pairidx, const int32_t *__restrict__ scatter, int32_t *__restrict__ bands, double *__restrict__ g2s, double *__restrict__ hws, int32_t *__restrict__ cis, int32_t *__restrict__ cjs, unsigned *__restrict__ rep, int *bad)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x) {
    const int32_t c = perm[s], a = li[c], b = lj[c];
    int32_t       mode = md[c];
    if (mode < 0 || mode >= nm) {
      atomicOr(bad, 2);
      mode = 0;
    }
    bands[s] = (int32_t)(((int64_t)mode << (2 * bb)) | ((int64_t)band[a] << bb) | (int64_t)band[b]);
    g2s[s]   = g2[c];
    hws[s]   = hw[c];
    cis[s]   = a;
    cjs[s]   = b;
    atomicMin(rep + ((int64_t)scatter[3 * (int64_t)pairidx[s] + 2] * nm + mode), (unsigned)s);
  }
}

__global__ void bte_tgt_build_table(int64_t nslot, const unsigned *__restrict__ rep, const double *__restrict__ hws, double *__restrict__ wq)
{
  for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < nslot; k += (int64_t)gridDim.x * blockDim.x) wq[k] = rep[k] != 0xffffffffu ? hws[rep[k]] : -1.0;
}

__global__ void bte_tgt_build_check(int64_t n, int32_t nm, int32_t bb, const int32_t *__restrict__ bands, const int32_t *__restrict__ pairidx, const int32_t *__restrict__ scatter, const double *__restrict__ hws, const double *__restrict__ wq, int *bad)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x) {
    const double w = wq[(int64_t)scatter[3 * (int64_t)pairidx[s] + 2] * nm + BTE_TGT_MODE(bands[s], bb)];
    if (fabs(w - hws[s]) > 1e-10 * fabs(hws[s])) atomicOr(bad, 4);
  }
}

/* STORE_G2DT: a_c, b_c as BTECollWeightsAB, with the hw the apply uses */
__global__ void bte_tgt_build_g2dt(int64_t n, int32_t nm, int32_t bb, double pref, double inveta, double gnorm, double kTdb, const int32_t *__restrict__ bands, const int32_t *__restrict__ pairidx, const int32_t *__restrict__ scatter, const double *__restrict__ wq, const double *__restrict__ hwch, const double *__restrict__ e, const int32_t *__restrict__ cis, const int32_t *__restrict__ cjs, const double *__restrict__ g2s, double2 *__restrict__ g2dt)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x) {
    const double hw = hwch ? hwch[s] : wq[(int64_t)scatter[3 * (int64_t)pairidx[s] + 2] * nm + BTE_TGT_MODE(bands[s], bb)];
    const double d = e[cis[s]] - e[cjs[s]], w = pref * g2s[s];
    double       a = w * bte_gauss(d + hw, inveta, gnorm), b = w * bte_gauss(d - hw, inveta, gnorm);
    if (kTdb > 0) bte_balance(d, hw, kTdb, &a, &b);
    g2dt[s] = make_double2(a, b);
  }
}

/* 4. the channel ends as (target, signed channel), channel order; nlocal for an end not owned */
__global__ void bte_tgt_build_ends(int64_t n, int32_t nlocal, const int32_t *__restrict__ cis, const int32_t *__restrict__ cjs, uint32_t *__restrict__ tkey, int32_t *__restrict__ tval)
{
  for (int64_t s = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; s < n; s += (int64_t)gridDim.x * blockDim.x) {
    tkey[2 * s]     = (uint32_t)(cis[s] < nlocal ? cis[s] : nlocal);
    tval[2 * s]     = (int32_t)(s + 1);
    tkey[2 * s + 1] = (uint32_t)(cjs[s] < nlocal ? cjs[s] : nlocal);
    tval[2 * s + 1] = -(int32_t)(s + 1);
  }
}

/* row pointers from the sorted targets: rowptr[t] = first entry with target >= t */
__global__ void bte_tgt_build_rowptr(int64_t ne, int32_t nlocal, const uint32_t *__restrict__ tkey, long long *__restrict__ rowptr)
{
  for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < ne; e += (int64_t)gridDim.x * blockDim.x) {
    const int64_t k = tkey[e], kprev = e ? (int64_t)tkey[e - 1] : -1;
    for (int64_t t = kprev + 1; t <= k && t <= nlocal; t++) rowptr[t] = e;
    if (e == ne - 1)
      for (int64_t t = (k < nlocal ? k : nlocal) + 1; t <= nlocal; t++) rowptr[t] = ne;
  }
}

PetscErrorCode BTETgtCUDABuilderCreate(const BTETgtLayout *L, const BTETgtCUDABuildInfo *info, PetscBool *fits, BTETgtCUDABuilder *builder)
{
  BTETgtCUDABuilder B;
  size_t            freeb, totalb, need, batch = (size_t)1 << 22, nch = (size_t)L->nch;
  int32_t          *h;

  PetscFunctionBegin;
  *builder = NULL;
  PetscCall(BTECollCUDARegisterEvents());
  if (nch < batch) batch = PetscMax(nch, (size_t)1);
  batch += batch & 1; /* even: the doubles of a staged batch follow 3 batch PetscInts 8-byte aligned */
  /* peak: the target sort (2 x 16 B per channel) beside the layout and the local ends (at most
     56 B per channel); ~5% for CUB's temporaries; the batches, the q flags, the state arrays */
  need = nch * 88 + batch * (3 * sizeof(PetscInt) + 2 * sizeof(double));
  need += need / 20 + ((size_t)64 << 20) + (size_t)info->nq * 3 * sizeof(int32_t) + (size_t)L->n * (3 * sizeof(int32_t) + sizeof(double)) + (size_t)info->nghost * sizeof(PetscInt);
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  *fits = need <= freeb ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscInfo(NULL, "tgt device build: %" PetscInt64_FMT " channels need ~%.2f GB on the device, %.2f GB free\n", (PetscInt64)L->nch, (double)need / 1e9, (double)freeb / 1e9));
  if (!*fits) PetscFunctionReturn(0);
  PetscCheck(info->nq < (PetscInt64)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt: a q grid of %" PetscInt64_FMT " points exceeds 32-bit indices", (PetscInt64)info->nq);
  PetscCall(PetscNew(&B));
  B->nlocal = L->nlocal;
  B->n      = L->n;
  B->nkp    = L->nkp;
  B->nb     = L->nbands;
  B->nm     = L->nmodes;
  B->bb     = L->bbits;
  B->nghost = info->nghost;
  B->rstart = info->rstart;
  for (int a = 0; a < 3; a++) B->nk[a] = info->nk[a];
  B->nch    = (int64_t)nch;
  B->batch  = (int64_t)batch;
  B->nq     = (int64_t)info->nq;
  B->pref   = info->pref;
  B->inveta = info->inveta;
  B->gnorm  = info->gnorm;
  B->kTdb   = info->kTdb;
  B->g2dt   = info->g2dt ? 1 : 0;
  PetscCallCUDA(cudaStreamCreateWithFlags(&B->stream, cudaStreamNonBlocking));
  PetscCallCUDA(cudaMalloc((void **)&B->dbad, sizeof(int)));
  PetscCallCUDA(cudaMemsetAsync(B->dbad, 0, sizeof(int), B->stream));
  PetscCall(BTECollCUDAUpload(info->ghosts, (size_t)info->nghost, &B->dghosts, NULL));
  PetscCall(BTECollCUDAUpload(info->energy, (size_t)L->n, &B->denergy, NULL));
  /* the small state tables as int32 */
  PetscCall(PetscMalloc1(PetscMax((size_t)L->n, (size_t)L->nkp) + 1, &h));
  for (int32_t s = 0; s < L->n; s++) h[s] = (int32_t)info->state_kp[s];
  PetscCall(BTECollCUDAUpload(h, (size_t)L->n, &B->dskp, NULL));
  for (int32_t s = 0; s < L->n; s++) h[s] = (int32_t)info->band[s];
  PetscCall(BTECollCUDAUpload(h, (size_t)L->n, &B->dband, NULL));
  for (int32_t k = 0; k < L->nkp; k++) h[k] = (int32_t)info->kp[k];
  PetscCall(BTECollCUDAUpload(h, (size_t)L->nkp, &B->dkp, NULL));
  PetscCall(PetscFree(h));
  PetscCallCUDA(cudaMalloc((void **)&B->di, batch * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&B->dj, batch * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&B->dmode, batch * sizeof(PetscInt)));
  PetscCallCUDA(cudaMalloc((void **)&B->dhw, batch * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->dg2, batch * sizeof(double)));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaHostAlloc((void **)&B->stage[i], batch * (3 * sizeof(PetscInt) + 2 * sizeof(double)), cudaHostAllocDefault));
    PetscCallCUDA(cudaEventCreateWithFlags(&B->staged[i], cudaEventDisableTiming));
  }
  nch = PetscMax(nch, (size_t)1);
  PetscCallCUDA(cudaMalloc((void **)&B->li, nch * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->lj, nch * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->md, nch * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->hw, nch * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->g2, nch * sizeof(double)));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaMalloc((void **)&B->key[i], nch * sizeof(uint64_t)));
    PetscCallCUDA(cudaMalloc((void **)&B->val[i], nch * sizeof(int32_t)));
  }
  *builder = B;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDABuilderAdd(BTETgtCUDABuilder B, PetscCount n, const PetscInt ci[], const PetscInt cj[], const PetscInt mode[], const PetscReal hw[], const PetscReal g2[])
{
  PetscFunctionBegin;
  static_assert(sizeof(PetscReal) == sizeof(double), "double tables");
  PetscCheck(B->pushed + (int64_t)n <= B->nch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt device build: more channels than announced");
  /* batches through two pinned buffers: the threads fill one while the other is on its way;
     copies and kernels go in stream order, so one device copy of a batch suffices */
  for (int64_t s = 0, x = 0; s < (int64_t)n; s += B->batch, x = 1 - x) {
    const int64_t m = PetscMin(B->batch, (int64_t)n - s);
    char         *h = B->stage[x];
    PetscInt     *hi = (PetscInt *)h, *hj = hi + B->batch, *hm = hj + B->batch;
    double       *hhw = (double *)(hm + B->batch), *hg2 = hhw + B->batch;
    PetscCallCUDA(cudaEventSynchronize(B->staged[x]));
#pragma omp parallel for schedule(static)
    for (int64_t k = 0; k < m; k++) {
      hi[k]  = ci[s + k];
      hj[k]  = cj[s + k];
      hm[k]  = mode[s + k];
      hhw[k] = hw[s + k];
      hg2[k] = g2[s + k];
    }
    PetscCallCUDA(cudaMemcpyAsync(B->di, hi, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(B->dj, hj, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(B->dmode, hm, (size_t)m * sizeof(PetscInt), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(B->dhw, hhw, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(B->dg2, hg2, (size_t)m * sizeof(double), cudaMemcpyHostToDevice, B->stream));
    PetscCallCUDA(cudaEventRecord(B->staged[x], B->stream));
    bte_tgt_build_add<<<BTETgtBuildGrid(m), 256, 0, B->stream>>>(m, B->pushed + s, B->rstart, B->nlocal, B->nghost, B->nkp, B->dghosts, B->dskp, B->di, B->dj, B->dmode, B->dhw, B->dg2, B->li, B->lj, B->md, B->hw, B->g2, B->key[0], B->val[0], B->dbad);
    PetscCallCUDA(cudaGetLastError());
  }
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCall(PetscLogCpuToGpu((PetscLogDouble)n * (3 * sizeof(PetscInt) + 2 * sizeof(double))));
  B->pushed += (int64_t)n;
  PetscFunctionReturn(0);
}

/* free a device pointer and clear it */
template <typename T>
static PetscErrorCode BTETgtFree(T **p)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(*p));
  *p = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDABuilderLayout(BTETgtCUDABuilder B, BTETgtLayout *L, PetscBool *consistent)
{
  const int64_t n = B->nch;
  void         *tmp = NULL;
  size_t        tbytes = 0;
  int           hbad = 0, sel;
  int32_t      *perm, *iqp, *qflag, *qrow, *cis, *cjs;
  double       *hws, *wq;
  unsigned     *rep;

  PetscFunctionBegin;
  PetscCheck(B->pushed == B->nch, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt device build: %" PetscInt64_FMT " of %" PetscInt64_FMT " channels pushed", (PetscInt64)B->pushed, (PetscInt64)B->nch);
  PetscCallCUDA(cudaMemcpyAsync(&hbad, B->dbad, sizeof(int), cudaMemcpyDeviceToHost, B->stream));
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  PetscCheck(!(hbad & 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt device build: a channel has an end with no local index");
  /* the batch copies and the ghosts are no longer needed */
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFreeHost(B->stage[i]));
    B->stage[i] = NULL;
  }
  PetscCall(BTETgtFree(&B->di));
  PetscCall(BTETgtFree(&B->dj));
  PetscCall(BTETgtFree(&B->dmode));
  PetscCall(BTETgtFree(&B->dhw));
  PetscCall(BTETgtFree(&B->dg2));
  PetscCall(BTETgtFree(&B->dghosts));
  L->store_g2dt = B->g2dt;

  /* 1. pair order: stable radix sort of (key, channel) */
  {
    const int                   endbit = BTETgtBuildBits((uint64_t)B->nkp * (uint64_t)B->nkp);
    cub::DoubleBuffer<uint64_t> k(B->key[0], B->key[1]);
    cub::DoubleBuffer<int32_t>  v(B->val[0], B->val[1]);
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, tbytes, k, v, n, 0, endbit, B->stream));
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, tbytes, k, v, n, 0, endbit, B->stream));
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(tmp));
    tmp = NULL;
    sel = k.selector;
    PetscCheck(v.selector == sel, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt device build: sort buffers out of step");
  }
  perm        = B->val[sel];
  B->val[sel] = NULL;
  PetscCall(BTETgtFree(&B->key[1 - sel]));
  PetscCall(BTETgtFree(&B->val[1 - sel]));

  /* 2. pair index of each channel (flags of the key changes, scanned in place), pair records, q rows */
  PetscCallCUDA(cudaMalloc((void **)&B->pairidx, PetscMax(n, (int64_t)1) * sizeof(int32_t)));
  L->npair = 0;
  if (n > 0) {
    int32_t last = 0;
    bte_tgt_build_heads<<<BTETgtBuildGrid(n), 256, 0, B->stream>>>(n, B->key[sel], B->pairidx);
    PetscCallCUDA(cudaGetLastError());
    tbytes = 0;
    PetscCallCUDA(cub::DeviceScan::InclusiveSum(NULL, tbytes, B->pairidx, B->pairidx, n, B->stream));
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceScan::InclusiveSum(tmp, tbytes, B->pairidx, B->pairidx, n, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(&last, B->pairidx + (n - 1), sizeof(int32_t), cudaMemcpyDeviceToHost, B->stream));
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(tmp));
    tmp      = NULL;
    L->npair = (int64_t)last + 1;
  }
  PetscCallCUDA(cudaMalloc((void **)&B->scatter, 3 * PetscMax(L->npair, (int64_t)1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&iqp, PetscMax(L->npair, (int64_t)1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&qflag, (size_t)PetscMax(B->nq, (int64_t)1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&qrow, (size_t)PetscMax(B->nq, (int64_t)1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMemsetAsync(qflag, 0, (size_t)PetscMax(B->nq, (int64_t)1) * sizeof(int32_t), B->stream));
  L->nqc = 0;
  if (n > 0) {
    int32_t hq[2] = {0, 0};
    bte_tgt_build_pairs<<<BTETgtBuildGrid(n), 256, 0, B->stream>>>(n, B->nkp, B->nk[0], B->nk[1], B->nk[2], B->key[sel], B->pairidx, B->dkp, B->scatter, iqp, qflag);
    PetscCallCUDA(cudaGetLastError());
    tbytes = 0;
    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, tbytes, qflag, qrow, B->nq, B->stream));
    PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(tmp, tbytes, qflag, qrow, B->nq, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(&hq[0], qrow + (B->nq - 1), sizeof(int32_t), cudaMemcpyDeviceToHost, B->stream));
    PetscCallCUDA(cudaMemcpyAsync(&hq[1], qflag + (B->nq - 1), sizeof(int32_t), cudaMemcpyDeviceToHost, B->stream));
    bte_tgt_build_rows<<<BTETgtBuildGrid(L->npair), 256, 0, B->stream>>>(L->npair, iqp, qrow, B->scatter);
    PetscCallCUDA(cudaGetLastError());
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(tmp));
    tmp    = NULL;
    L->nqc = hq[0] + hq[1];
  }
  PetscCallCUDA(cudaFree(iqp));
  PetscCallCUDA(cudaFree(qflag));
  PetscCallCUDA(cudaFree(qrow));
  PetscCall(BTETgtFree(&B->key[sel]));
  PetscCheck((int64_t)L->nqc * L->nmodes < (int64_t)INT32_MAX, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt: the phonon table (%d q rows, %d modes) exceeds 32-bit indices", (int)L->nqc, (int)L->nmodes);

  /* 3. scatter_channels, the ends in pair order, the phonon table */
  {
    const int64_t nslots = PetscMax((int64_t)L->nqc * L->nmodes, (int64_t)1);
    const size_t  nc     = (size_t)PetscMax(n, (int64_t)1);
    PetscCallCUDA(cudaMalloc((void **)&B->bands, nc * sizeof(int32_t)));
    PetscCallCUDA(cudaMalloc((void **)&B->g2s, nc * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&hws, nc * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&cis, nc * sizeof(int32_t)));
    PetscCallCUDA(cudaMalloc((void **)&cjs, nc * sizeof(int32_t)));
    PetscCallCUDA(cudaMalloc((void **)&rep, (size_t)nslots * sizeof(unsigned)));
    PetscCallCUDA(cudaMalloc((void **)&wq, (size_t)nslots * sizeof(double)));
    PetscCallCUDA(cudaMemsetAsync(rep, 0xff, (size_t)nslots * sizeof(unsigned), B->stream));
    if (n > 0) {
      bte_tgt_build_channels<<<BTETgtBuildGrid(n), 256, 0, B->stream>>>(n, B->nm, B->bb, perm, B->li, B->lj, B->md, B->hw, B->g2, B->dband, B->pairidx, B->scatter, B->bands, B->g2s, hws, cis, cjs, rep, B->dbad);
      PetscCallCUDA(cudaGetLastError());
    }
    bte_tgt_build_table<<<BTETgtBuildGrid(nslots), 256, 0, B->stream>>>(nslots, rep, hws, wq);
    PetscCallCUDA(cudaGetLastError());
    if (n > 0) {
      bte_tgt_build_check<<<BTETgtBuildGrid(n), 256, 0, B->stream>>>(n, B->nm, B->bb, B->bands, B->pairidx, B->scatter, hws, wq, B->dbad);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(rep));
    PetscCallCUDA(cudaFree(perm));
    PetscCall(BTETgtFree(&B->li));
    PetscCall(BTETgtFree(&B->lj));
    PetscCall(BTETgtFree(&B->md));
    PetscCall(BTETgtFree(&B->hw));
    PetscCall(BTETgtFree(&B->g2));
    PetscCallCUDA(cudaMemcpy(&hbad, B->dbad, sizeof(int), cudaMemcpyDeviceToHost));
    PetscCheck(!(hbad & 2), PETSC_COMM_SELF, PETSC_ERR_ARG_CORRUPT, "A channel has a phonon mode outside 0..%d", (int)L->nmodes - 1);
    /* the table's hw to the host (N is the caller's) */
    PetscCall(PetscMalloc1(2 * (size_t)nslots, &L->wqn));
    {
      double *h;
      PetscCall(PetscMalloc1((size_t)nslots, &h));
      PetscCallCUDA(cudaMemcpy(h, wq, (size_t)nslots * sizeof(double), cudaMemcpyDeviceToHost));
      for (int64_t k = 0; k < nslots; k++) {
        L->wqn[2 * k]     = h[k];
        L->wqn[2 * k + 1] = 0.0;
      }
      PetscCall(PetscFree(h));
    }
    *consistent       = (hbad & 4) ? PETSC_FALSE : PETSC_TRUE;
    L->hw_per_channel = (hbad & 4) ? 1 : 0;
    if (L->hw_per_channel) B->hwch = hws;
    if (B->g2dt && n > 0) {
      PetscCallCUDA(cudaMalloc((void **)&B->g2dt_d, (size_t)n * sizeof(double2)));
      bte_tgt_build_g2dt<<<BTETgtBuildGrid(n), 256, 0, B->stream>>>(n, B->nm, B->bb, B->pref, B->inveta, B->gnorm, B->kTdb, B->bands, B->pairidx, B->scatter, wq, B->hwch, B->denergy, cis, cjs, B->g2s, B->g2dt_d);
      PetscCallCUDA(cudaGetLastError());
      PetscCallCUDA(cudaStreamSynchronize(B->stream));
    }
    if (B->g2dt) PetscCall(BTETgtFree(&B->g2s));
    if (!L->hw_per_channel) PetscCallCUDA(cudaFree(hws));
    PetscCallCUDA(cudaFree(wq));
  }

  /* 4. the target layer: ends sorted by target (stable), row pointers, sources */
  {
    const int64_t ne     = 2 * n;
    const int     endbit = BTETgtBuildBits((uint64_t)B->nlocal);
    uint32_t     *tkey[2];
    int32_t      *tval[2];
    long long    *drp;
    int           ts;
    PetscCall(PetscMalloc1((size_t)B->nlocal + 1, &L->rowptr));
    PetscCallCUDA(cudaMalloc((void **)&drp, ((size_t)B->nlocal + 1) * sizeof(long long)));
    PetscCallCUDA(cudaMemsetAsync(drp, 0, ((size_t)B->nlocal + 1) * sizeof(long long), B->stream));
    for (int i = 0; i < 2; i++) {
      PetscCallCUDA(cudaMalloc((void **)&tkey[i], (size_t)PetscMax(ne, (int64_t)1) * sizeof(uint32_t)));
      PetscCallCUDA(cudaMalloc((void **)&tval[i], (size_t)PetscMax(ne, (int64_t)1) * sizeof(int32_t)));
    }
    ts = 0;
    if (n > 0) {
      cub::DoubleBuffer<uint32_t> k(tkey[0], tkey[1]);
      cub::DoubleBuffer<int32_t>  v(tval[0], tval[1]);
      bte_tgt_build_ends<<<BTETgtBuildGrid(n), 256, 0, B->stream>>>(n, B->nlocal, cis, cjs, tkey[0], tval[0]);
      PetscCallCUDA(cudaGetLastError());
      tbytes = 0;
      PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, tbytes, k, v, ne, 0, endbit, B->stream));
      PetscCallCUDA(cudaMalloc(&tmp, PetscMax(tbytes, (size_t)1)));
      PetscCallCUDA(cub::DeviceRadixSort::SortPairs(tmp, tbytes, k, v, ne, 0, endbit, B->stream));
      PetscCheck(k.selector == v.selector, PETSC_COMM_SELF, PETSC_ERR_PLIB, "tgt device build: sort buffers out of step");
      ts = k.selector;
      bte_tgt_build_rowptr<<<BTETgtBuildGrid(ne), 256, 0, B->stream>>>(ne, B->nlocal, tkey[ts], drp);
      PetscCallCUDA(cudaGetLastError());
    }
    PetscCallCUDA(cudaMemcpyAsync(L->rowptr, drp, ((size_t)B->nlocal + 1) * sizeof(long long), cudaMemcpyDeviceToHost, B->stream));
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    PetscCallCUDA(cudaFree(tmp));
    tmp         = NULL;
    L->nentries = L->rowptr[B->nlocal];
    PetscCheck(L->nentries <= (int64_t)UINT32_MAX - 4096, PETSC_COMM_SELF, PETSC_ERR_SUP, "tgt: %" PetscInt64_FMT " sources on one rank exceed its 32-bit offsets; use more ranks", (PetscInt64)L->nentries);
    PetscCallCUDA(cudaMalloc((void **)&B->sources, (size_t)PetscMax(L->nentries, (int64_t)1) * sizeof(int32_t)));
    if (L->nentries) PetscCallCUDA(cudaMemcpyAsync(B->sources, tval[ts], (size_t)L->nentries * sizeof(int32_t), cudaMemcpyDeviceToDevice, B->stream));
    PetscCallCUDA(cudaStreamSynchronize(B->stream));
    for (int i = 0; i < 2; i++) {
      PetscCallCUDA(cudaFree(tkey[i]));
      PetscCallCUDA(cudaFree(tval[i]));
    }
    PetscCallCUDA(cudaFree(drp));
    PetscCallCUDA(cudaFree(cis));
    PetscCallCUDA(cudaFree(cjs));
    PetscCall(PetscLogGpuToCpu((PetscLogDouble)(B->nlocal + 1) * sizeof(long long) + (PetscLogDouble)L->nqc * L->nmodes * sizeof(double)));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDABuilderFinish(BTETgtCUDABuilder *builder, const BTETgtLayout *L, const BTETgtCUDAInfo *info, BTETgtCUDA *dev)
{
  BTETgtCUDABuilder B = *builder;

  PetscFunctionBegin;
  PetscCall(BTETgtCUDACreateWith(L, info, B->scatter, B->pairidx, B->bands, B->g2dt ? NULL : B->g2s, B->g2dt ? B->g2dt_d : NULL, B->hwch, B->sources, dev));
  B->scatter = B->pairidx = B->bands = B->sources = NULL; /* owned by the BTETgtCUDA now */
  B->g2s = B->hwch = NULL;
  B->g2dt_d        = NULL;
  PetscCall(BTETgtCUDABuilderDestroy(builder));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETgtCUDABuilderDestroy(BTETgtCUDABuilder *builder)
{
  BTETgtCUDABuilder B = *builder;

  PetscFunctionBegin;
  if (!B) PetscFunctionReturn(0);
  PetscCallCUDA(cudaStreamSynchronize(B->stream));
  for (int i = 0; i < 2; i++) {
    PetscCallCUDA(cudaFree(B->key[i]));
    PetscCallCUDA(cudaFree(B->val[i]));
    PetscCallCUDA(cudaFreeHost(B->stage[i]));
    PetscCallCUDA(cudaEventDestroy(B->staged[i]));
  }
  PetscCallCUDA(cudaFree(B->dbad));
  PetscCallCUDA(cudaFree(B->dghosts));
  PetscCallCUDA(cudaFree(B->dskp));
  PetscCallCUDA(cudaFree(B->dband));
  PetscCallCUDA(cudaFree(B->dkp));
  PetscCallCUDA(cudaFree(B->denergy));
  PetscCallCUDA(cudaFree(B->di));
  PetscCallCUDA(cudaFree(B->dj));
  PetscCallCUDA(cudaFree(B->dmode));
  PetscCallCUDA(cudaFree(B->dhw));
  PetscCallCUDA(cudaFree(B->dg2));
  PetscCallCUDA(cudaFree(B->li));
  PetscCallCUDA(cudaFree(B->lj));
  PetscCallCUDA(cudaFree(B->md));
  PetscCallCUDA(cudaFree(B->hw));
  PetscCallCUDA(cudaFree(B->g2));
  PetscCallCUDA(cudaFree(B->scatter));
  PetscCallCUDA(cudaFree(B->pairidx));
  PetscCallCUDA(cudaFree(B->bands));
  PetscCallCUDA(cudaFree(B->sources));
  PetscCallCUDA(cudaFree(B->g2s));
  PetscCallCUDA(cudaFree(B->hwch));
  PetscCallCUDA(cudaFree(B->g2dt_d));
  PetscCallCUDA(cudaStreamDestroy(B->stream));
  PetscCall(PetscFree(*builder));
  PetscFunctionReturn(0);
}
