/* The Perturbo import's channels generated on the GPU (eprcuda.h: BTEEprCUDAChannelsCount, _Fill),
   for a table built in memory.

   The builder's path (build.c with coupling_grid_batch) lists every owned state's candidate pairs on
   the host, twice (a counting pass, then a filling pass), hands them to the device in batches of
   4,096 and places the channels that come back in host memory: at 5e8 channels that host work, not
   the couplings, is what an import waits for. Here the device does all of it once:
   1. Count (one thread per owned state): the state's candidates, as build.c's BTEPairsOfRange walks
      them (its bin and the two beside it, merged in ascending index; j != i, |e_j - e_i| <= W, j < i
      owned only from j, q != 0), those whose q is on the q grid and that have a mode passing the
      energy test (perturbo.c's PassingModes: two bisections over the modes sorted by hw), and those
      modes. The host gets the counts back, so it knows every state's offsets and can cut chunks.
   2. Per chunk of consecutive states (stream order, no host wait inside a chunk):
      candidates: one thread per (state, partner in its three bins), the same tests, keys (state,
      partner) sorted by CUB into the builder's order; then per candidate its ends, q, k slots and
      passing modes in ascending order (offsets by a scan);
      group: the candidates sorted by (k slot, q) (CUB), one group per distinct key;
      Vertex per group: epr_cuda.cu's kernel, unchanged (its values do not depend on how candidates
      are grouped);
      project: the candidates sorted by q (CUB) and ProjectRuns per run of one q: Project's sums in
      Project's order, u(q) read once per run;
      select: build.c's BTEModeSelect per listed mode; CUB packs the selected in order and they are
      written, as (lower index, upper index, mode, hw, g2), after the channels of earlier chunks.
   3. With CUDA Vecs the channels stay on the device for the pair layout (the host copy is made when
      something on the host reads them); otherwise each chunk's channels go to the host through two
      pinned buffers while the device works on the next chunks, and the host's threads place them.
   The channels, their order and their values are those of the builder's path on the device, bit for
   bit: the same candidates in the same order, the same operations on the same inputs. */
#include "epr_cuda_impl.cuh"
#include <bte/private/collisionimpl.h> /* collisioncuda.h needs it first */
#include <bte/private/collisioncuda.h>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#if defined(_OPENMP)
  #include <omp.h>
#endif


/* The search's arrays on the device */
typedef struct {
  BTEEprCUDASearch s; /* its arrays point to device copies */
  int              nm;
} GenDev;

struct EprGen {
  GenDev      g;
  PetscInt    nl;
  int32_t    *ncand, *nlist;   /* device, per owned state: candidates with a passing mode, their modes */
  int64_t    *hcoff, *hloff;   /* host: offsets (nl + 1) of the states' candidates and modes */
  int64_t    *huoff, *duoff;   /* host, device: offsets (nl + 1) of the states' partners in their three bins */
  PetscCount  upper, npairs;
  int32_t     maxcand, maxlist; /* the largest state's */
  int64_t     cmax, mmax;       /* a chunk's candidates and listed modes, at most */
  int64_t     mcut;             /* the listed modes at which chunks are cut (at most mmax) */
};

template <typename T>
static PetscErrorCode Up(const T *src, size_t n, T **dst)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)dst, PetscMax(n, (size_t)1) * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
  PetscFunctionReturn(0);
}

/* q point (on the q grid) of the offset ijk[hi] - ijk[lo], or -1 (perturbo.c's QPoint) */
__device__ static inline int QIndex(const BTEEprCUDASearch &s, PetscInt lo, PetscInt hi)
{
  int qi = 0;
  for (int a = 0; a < 3; a++) {
    PetscInt iq = (s.ijk[3 * hi + a] - s.ijk[3 * lo + a]) % s.nk[a];
    if (iq < 0) iq += s.nk[a];
    if (iq % s.qs[a]) return -1;
    qi = qi * (int)s.nq[a] + (int)(iq / s.qs[a]);
  }
  return qi;
}

/* The run [*lo, *lo + *k) of q point qi's hw-sorted modes that pass the energy test for de */
__device__ static inline void PassRun(const GenDev &g, int qi, double de, int *lo, int *k)
{
  const double  *h = g.s.hwq + (size_t)qi * g.nm;
  const int32_t *o = g.s.hsort + (size_t)qi * g.nm;
  int            a = 0, b = g.s.hvalid[qi];
  while (a < b) {
    int    c = a + (b - a) / 2;
    double w = h[o[c]];
    if (w >= g.s.mhwmin && de - w < g.s.mtol) b = c;
    else a = c + 1;
  }
  *lo = a;
  b   = g.s.hvalid[qi];
  while (a < b) {
    int c = a + (b - a) / 2;
    if (de - h[o[c]] > -g.s.mtol) a = c + 1;
    else b = c;
  }
  *k = a - *lo;
}

/* build.c's walk over state i's candidates, in ascending partner index: f(lo, hi, de) for each */
template <class F>
__device__ static inline void Walk(const BTEEprCUDASearch &s, PetscInt i, F &f)
{
  const PetscInt *L[3];
  PetscInt        len[3], pos[3] = {0, 0, 0}, b = s.bin[i];
  int             nl = 0;
  const double    ei = s.e[i];

  for (int t = 0; t < 3; t++) {
    PetscInt bb = b - 1 + t;
    if (bb < 0 || bb >= s.nbins) continue;
    L[nl]   = s.binlist + s.binstart[bb];
    len[nl] = s.binstart[bb + 1] - s.binstart[bb];
    nl++;
  }
  for (;;) {
    int      best = -1;
    PetscInt j    = PETSC_MAX_INT;
    for (int t = 0; t < nl; t++)
      if (pos[t] < len[t] && L[t][pos[t]] < j) {
        j    = L[t][pos[t]];
        best = t;
      }
    if (best < 0) break;
    pos[best]++;
    if (j == i) continue;
    const double de = fabs(s.e[j] - ei);
    if (de > s.W) continue;
    if (j < i && j >= s.rstart && j < s.rend) continue; /* kept by its lower (owned) end */
    if (s.kidx[j] == s.kidx[i]) continue;               /* q = 0 */
    f(j < i ? j : i, j < i ? i : j, de);
  }
}

struct CountF {
  const GenDev &g;
  int32_t       nc, nm;
  __device__ void operator()(PetscInt lo, PetscInt hi, double de)
  {
    int qi = QIndex(g.s, lo, hi), a, k;
    if (qi < 0) return;
    PassRun(g, qi, de, &a, &k);
    if (k) nc++, nm += k;
  }
};

__global__ static void CountKernel(GenDev g, PetscInt nl, int32_t *__restrict__ ncand, int32_t *__restrict__ nlist)
{
  for (PetscInt il = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; il < nl; il += (PetscInt)gridDim.x * blockDim.x) {
    CountF f = {g, 0, 0};
    Walk(g.s, g.s.rstart + il, f);
    ncand[il] = f.nc;
    nlist[il] = f.nm;
  }
}

/* A chunk's buffers (device) */
typedef struct {
  int32_t  *cst, *cends, *idx, *cqi, *perm[2], *moff, *head, *gid, *grp, *gk_of, *ng;
  double   *cde, *gq, *ph, *gw;
  uint64_t *key[2], *ckey[2];
  int32_t  *kc;
  unsigned *cnt;
  int32_t  *mode, *mc, *flag, *pos;
  int32_t  *rstart, *nr; /* runs of candidates with the same q (ProjectRuns) */
  double   *g2;
  void     *tmp;
  size_t    tmpbytes;
  int       smax, tw; /* ProjectRuns' shape */
  size_t    shbytes;
} Chunk;

/* A chunk's candidates, found in parallel over every (state, partner in its three bins) of its
   states (the three bins are consecutive in binlist), in no particular order: key (state in the
   chunk) << 32 | partner, so that sorting the keys gives the builder's order */
__global__ static void CandKernel(GenDev g, PetscInt a, PetscInt b, const int64_t *__restrict__ uoff, Chunk B)
{
  const BTEEprCUDASearch &s = g.s;
  const int64_t           T = uoff[b] - uoff[a];
  for (int64_t w = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; w < T; w += (int64_t)gridDim.x * blockDim.x) {
    PetscInt lo = a, hi = b; /* the state: the last il with uoff[il] - uoff[a] <= w */
    while (hi - lo > 1) {
      PetscInt mid = lo + (hi - lo) / 2;
      if (uoff[mid] - uoff[a] <= w) lo = mid;
      else hi = mid;
    }
    const PetscInt il = lo, i = s.rstart + il, bi = s.bin[i];
    const PetscInt j  = s.binlist[s.binstart[PetscMax(bi - 1, (PetscInt)0)] + (w - (uoff[il] - uoff[a]))];
    bool           keep = j != i;
    double         de   = 0;
    if (keep) {
      de   = fabs(s.e[j] - s.e[i]);
      keep = !(de > s.W) && !(j < i && j >= s.rstart && j < s.rend) && s.kidx[j] != s.kidx[i];
    }
    if (keep) {
      const int qi = QIndex(s, j < i ? j : i, j < i ? i : j);
      int       r0, k = 0;
      if (qi >= 0) PassRun(g, qi, de, &r0, &k);
      keep = k > 0;
    }
    if (keep) {
      unsigned p = atomicAdd(B.cnt, 1u);
      B.ckey[0][p] = ((uint64_t)(uint32_t)(il - a) << 32) | (uint32_t)j;
    }
  }
}

/* Per candidate, in the builder's order: its ends, q, (k slot, q) key and number of passing modes */
__global__ static void DetailKernel(GenDev g, PetscInt a, int64_t C, Chunk B)
{
  const BTEEprCUDASearch &s = g.s;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x) {
    const uint64_t key = B.ckey[1][c];
    const PetscInt i = s.rstart + a + (PetscInt)(key >> 32), j = (PetscInt)(key & 0xffffffffu), lo = j < i ? j : i, hi = j < i ? i : j;
    const double   de = fabs(s.e[j] - s.e[i]);
    const int      qi = QIndex(s, lo, hi);
    int            r0, k;
    PassRun(g, qi, de, &r0, &k);
    const PetscInt fk = (s.ijk[3 * lo] * s.nk[1] + s.ijk[3 * lo + 1]) * s.nk[2] + s.ijk[3 * lo + 2];
    const PetscInt fq = (s.ijk[3 * hi] * s.nk[1] + s.ijk[3 * hi + 1]) * s.nk[2] + s.ijk[3 * hi + 2];
    const int32_t  sk = (int32_t)s.kslot[fk], skq = (int32_t)s.kslot[fq];
    B.cst[c]           = (int32_t)i;
    B.cends[2 * c]     = (int32_t)lo;
    B.cends[2 * c + 1] = (int32_t)hi;
    B.cde[c]           = de;
    B.idx[4 * c]       = sk;
    B.idx[4 * c + 1]   = skq;
    B.idx[4 * c + 2]   = (int32_t)(s.band[lo] + s.bmin);
    B.idx[4 * c + 3]   = (int32_t)(s.band[hi] + s.bmin);
    B.cqi[c]           = qi;
    B.key[0][c]        = ((uint64_t)(uint32_t)sk << 32) | (uint32_t)qi;
    B.perm[0][c]       = (int32_t)c;
    B.kc[c]            = k;
  }
}

/* Keys to sort the candidates by q point */
__global__ static void QKeyKernel(int64_t C, const int32_t *__restrict__ cqi, uint64_t *__restrict__ key, int32_t *__restrict__ perm)
{
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x) {
    key[c]  = (uint64_t)(uint32_t)cqi[c];
    perm[c] = (int32_t)c;
  }
}

/* Per candidate, its passing modes in increasing order (the builder's contract) at moff[c] */
__global__ static void ModesKernel(GenDev g, int64_t C, Chunk B)
{
  const BTEEprCUDASearch &s = g.s;
  for (int64_t c = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; c < C; c += (int64_t)gridDim.x * blockDim.x) {
    const int      qi = B.cqi[c];
    const double   de = B.cde[c];
    const int64_t  m  = B.moff[c];
    const double  *h  = s.hwq + (size_t)qi * g.nm;
    const int32_t *o  = s.hsort + (size_t)qi * g.nm;
    int            a, k;
    PassRun(g, qi, de, &a, &k);
    if (k <= 32) {
      int32_t l[32];
      for (int r = 0; r < k; r++) {
        int32_t nu = o[a + r];
        int     x  = r;
        for (; x > 0 && l[x - 1] > nu; x--) l[x] = l[x - 1];
        l[x] = nu;
      }
      for (int r = 0; r < k; r++) B.mode[m + r] = l[r];
    } else { /* the same set, read off in mode order */
      int r = 0;
      for (int nu = 0; nu < g.nm; nu++) {
        double w = h[nu];
        if (w >= s.mhwmin && de - w < s.mtol && de - w > -s.mtol) B.mode[m + r++] = nu;
      }
    }
    for (int r = 0; r < k; r++) B.mc[m + r] = (int32_t)c;
  }
}

__global__ static void HeadKernel(int64_t n, const uint64_t *__restrict__ key, int32_t *__restrict__ head)
{
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) head[p] = (p == 0 || key[p] != key[p - 1]) ? 1 : 0;
}

/* group of every candidate, and per group its (k slot, q) and crystal q (perturbo.c's QPoint) */
__global__ static void GroupKernel(GenDev g, int64_t n, const uint64_t *__restrict__ key, const int32_t *__restrict__ perm, const int32_t *__restrict__ gid, int32_t *__restrict__ grp, int32_t *__restrict__ gk_of, double *__restrict__ gq, int32_t *__restrict__ ng)
{
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) {
    const int32_t G = gid[p] - 1;
    grp[perm[p]]    = G;
    if (p == n - 1) *ng = gid[p];
    if (p == 0 || key[p] != key[p - 1]) {
      const int32_t sk = (int32_t)(key[p] >> 32), qi = (int32_t)(key[p] & 0xffffffffu);
      const int32_t i2 = qi % (int32_t)g.s.nq[2], i1 = (qi / (int32_t)g.s.nq[2]) % (int32_t)g.s.nq[1], i0 = qi / (int32_t)(g.s.nq[1] * g.s.nq[2]);
      gk_of[2 * G]     = sk;
      gk_of[2 * G + 1] = qi;
      gq[3 * G]        = (double)(i0 * g.s.qs[0]) / (double)g.s.nk[0];
      gq[3 * G + 1]    = (double)(i1 * g.s.qs[1]) / (double)g.s.nk[1];
      gq[3 * G + 2]    = (double)(i2 * g.s.qs[2]) / (double)g.s.nk[2];
    }
  }
}

/* Runs of candidates with the same q point (the candidates sorted by q: rperm): their starts and count */
__global__ static void RunKernel(int64_t n, const uint64_t *__restrict__ key, const int32_t *__restrict__ rid, int32_t *__restrict__ rstart, int32_t *__restrict__ nrun)
{
  for (int64_t p = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; p < n; p += (int64_t)gridDim.x * blockDim.x) {
    if (p == 0 || key[p] != key[p - 1]) rstart[rid[p] - 1] = (int32_t)p;
    if (p == n - 1) {
      *nrun         = rid[p];
      rstart[rid[p]] = (int32_t)n;
    }
  }
}

/* Project's sums, by q point: one block per run of candidates with the same q, in batches of at most
   smax candidates and PROJ_ITEMS listed modes. The rows of u(q) the batch's modes need are read once
   per batch, a tile of tw columns at a time, into shared memory, and every (candidate, mode) item sums
   over mu in order: the same operations in the same order as Project, so the same values bit for bit,
   while u(q) is read from memory once per run instead of once per candidate. Measured on an H200 at
   5e8 channels (DNTT 16^3): Project, one block per candidate, 0.89 s (in the candidates' q order as
   well: the reads of scattered rows, not their source, bound it); ProjectRuns 0.37 s. */
#define PROJ_THREADS 256
#define PROJ_R       4 /* items per thread */
#define PROJ_ITEMS   (PROJ_THREADS * PROJ_R)
__global__ static void __launch_bounds__(PROJ_THREADS) ProjectRuns(BTEEprCUDAData d, const int32_t *__restrict__ nrun, const int32_t *__restrict__ rstart, const int32_t *__restrict__ rperm, const int32_t *__restrict__ cqi, const int32_t *__restrict__ idx, const int32_t *__restrict__ grp, const int32_t *__restrict__ moff, const int32_t *__restrict__ mode, const double *__restrict__ gw, double *__restrict__ g2, int smax, int tw)
{
  extern __shared__ double sh[];
  const int r = blockIdx.x;
  if (r >= *nrun) return;
  const int     nw = (int)d.nw, nm = (int)d.nm, ts = 2 * tw + 1; /* a tile row: tw complex and a pad */
  double       *gmn = sh, *tile = sh + 2 * (size_t)smax * nm;
  int          *cand = (int *)(tile + (size_t)nm * ts), *pre = cand + smax, *lim = pre + smax + 1;
  const int     p1 = rstart[r + 1], qi = cqi[rperm[rstart[r]]];
  const double *u = d.u + 2 * (size_t)nm * nm * qi, *om = d.om + (size_t)nm * qi;

  for (int p0 = rstart[r]; p0 < p1;) {
    int nb = 0, ni = 0; /* the batch: candidates rperm[p0 .. p0 + nb), ni items */
    while (p0 + nb < p1 && nb < smax) {
      const int c = rperm[p0 + nb], k = moff[c + 1] - moff[c];
      if (nb && ni + k > PROJ_ITEMS) break;
      ni += k;
      nb++;
    }
    __syncthreads(); /* the previous batch is done with the shared arrays */
    if (threadIdx.x == 0) {
      int a = 0;
      for (int s = 0; s < nb; s++) {
        const int c = rperm[p0 + s];
        cand[s] = c;
        pre[s]  = a;
        a += moff[c + 1] - moff[c];
      }
      pre[nb] = a;
      lim[0]  = nm;
      lim[1]  = -1;
    }
    __syncthreads();
    /* g_mn(mu) of each candidate, as Project */
    for (int w = threadIdx.x; w < nb * nm; w += blockDim.x) {
      const int s = w / nm, mu = w % nm, c = cand[s];
      GmnOf(d, idx, c, gw + 2 * (size_t)nw * nw * nm * grp[c], mu, &gmn[2 * ((size_t)s * nm + mu)], &gmn[2 * ((size_t)s * nm + mu) + 1]);
    }
    /* this thread's items: candidate (in the batch), mode, where its value goes */
    int    is[PROJ_R], inu[PROJ_R], io[PROJ_R];
    double sr[PROJ_R], si[PROJ_R];
#pragma unroll
    for (int x = 0; x < PROJ_R; x++) {
      const int it = threadIdx.x + x * PROJ_THREADS;
      is[x]        = -1;
      sr[x] = si[x] = 0;
      if (it < ni) {
        int s = 0;
        while (pre[s + 1] <= it) s++;
        const int c = cand[s];
        is[x]       = s;
        io[x]       = moff[c] + it - pre[s];
        inu[x]      = mode[io[x]];
        atomicMin(&lim[0], inu[x]);
        atomicMax(&lim[1], inu[x]);
      }
    }
    __syncthreads();
    const int lo = lim[0], nrow = lim[1] - lo + 1;
    for (int mu0 = 0; mu0 < nm; mu0 += tw) {
      const int w = min(tw, nm - mu0);
      __syncthreads(); /* the previous tile is used */
      for (int e = threadIdx.x; e < nrow * w; e += blockDim.x) {
        const int row = e / w, m = e % w;
        tile[row * ts + 2 * m]     = u[2 * ((size_t)(lo + row) * nm + mu0 + m)];
        tile[row * ts + 2 * m + 1] = u[2 * ((size_t)(lo + row) * nm + mu0 + m) + 1];
      }
      __syncthreads();
#pragma unroll
      for (int x = 0; x < PROJ_R; x++) {
        if (is[x] < 0) continue;
        const double *gm = gmn + 2 * ((size_t)is[x] * nm + mu0), *un = tile + (inu[x] - lo) * ts;
        double        a = sr[x], b = si[x];
        for (int m = 0; m < w; m++) ProjectTerm(gm[2 * m], gm[2 * m + 1], un[2 * m], un[2 * m + 1], &a, &b);
        sr[x] = a;
        si[x] = b;
      }
    }
#pragma unroll
    for (int x = 0; x < PROJ_R; x++)
      if (is[x] >= 0) g2[io[x]] = G2Of(d, sr[x], si[x], om[inu[x]]);
    p0 += nb;
  }
}

/* ProjectRuns' batch size and tile width for nm modes, and its shared memory */
static inline void ProjectRunsShape(int nm, int *smax, int *tw, size_t *bytes)
{
  /* measured on an H200 (DNTT, 216 modes; 4 / 8 / 16 / 32 candidates x 8 / 16 / 32 columns): 16 x 16
     best, with two blocks per multiprocessor */
  *smax  = PetscMax(1, PetscMin(16, 57344 / (16 * nm)));
  *tw    = PetscMax(1, PetscMin(16, (65536 / (8 * nm) - 1) / 2));
  *bytes = sizeof(double) * (2 * (size_t)*smax * nm + (size_t)nm * (2 * *tw + 1)) + sizeof(int) * (2 * (size_t)*smax + 3);
}

/* build.c's BTEModeSelect per listed mode: flag 1 for a channel; a value out of bounds sets *bad */
__global__ static void SelectKernel(GenDev g, int64_t M, const int32_t *__restrict__ mc, const int32_t *__restrict__ mode, const int32_t *__restrict__ cqi, const double *__restrict__ cde, const double *__restrict__ g2, int32_t *__restrict__ flag, int *bad)
{
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < M; t += (int64_t)gridDim.x * blockDim.x) {
    const int32_t c = mc[t];
    const double  hw = g.s.hwq[(size_t)cqi[c] * g.nm + mode[t]], x = g2[t], de = cde[c];
    int           r  = 1;
    if (isnan(x) || isinf(x) || x < -1e-12 || isnan(hw)) { /* as build.c: refused, not dropped */
      r    = 0;
      *bad = 1;
    } else if (!(x > 0) || !(x > g.s.g2min) || !(hw >= g.s.hwmin) || !(fabs(de - hw) < g.s.tol)) r = 0;
    else if (!(x <= g.s.g2max) || !(hw <= g.s.hwbound)) {
      r    = 0;
      *bad = 1;
    }
    flag[t] = r;
  }
}

/* The selected, in order, after the channels so far (*base); the count of those whose lower end is
   not their state (another rank's) into *notlow */
__global__ static void WriteKernel(GenDev g, int64_t M, const int32_t *__restrict__ flag, const int32_t *__restrict__ pos, const int32_t *__restrict__ mc, const int32_t *__restrict__ cst, const int32_t *__restrict__ cends, const int32_t *__restrict__ cqi, const int32_t *__restrict__ mode, const double *__restrict__ g2, const long long *__restrict__ base, PetscInt *__restrict__ oi, PetscInt *__restrict__ oj, PetscInt *__restrict__ om, double *__restrict__ ohw, double *__restrict__ og2, unsigned long long *notlow)
{
  const long long b0 = *base;
  for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < M; t += (int64_t)gridDim.x * blockDim.x) {
    if (!flag[t]) continue;
    const int32_t   c = mc[t], nu = mode[t];
    const long long o = b0 + pos[t];
    oi[o]             = cends[2 * c];
    oj[o]             = cends[2 * c + 1];
    om[o]             = nu;
    ohw[o]            = g.s.hwq[(size_t)cqi[c] * g.nm + nu];
    og2[o]            = g2[t];
    if (cends[2 * c] != cst[c]) atomicAdd(notlow, 1ull);
  }
}

/* After a chunk: its channel count, and the base of the next */
__global__ static void AdvanceKernel(int64_t M, const int32_t *__restrict__ flag, const int32_t *__restrict__ pos, long long *base, long long *count)
{
  const long long n = M ? (long long)pos[M - 1] + flag[M - 1] : 0;
  *count            = n;
  *base += n;
}

static inline unsigned Grid(int64_t n, int t)
{
  return (unsigned)PetscMax((int64_t)1, PetscMin((n + t - 1) / t, (int64_t)65536));
}

/* Bytes of a chunk's buffers per candidate (a group each at most) and per listed mode */
static inline size_t ChunkBytesPerCand(const BTEEprCUDAData *d)
{
  return 22 * sizeof(int32_t) + 4 * sizeof(double) + 4 * sizeof(uint64_t) + 2 * sizeof(double) * ((size_t)PetscMax(d->npr, 1) + (size_t)d->nw * d->nw * d->nm);
}
#define CHUNK_BYTES_PER_MODE (4 * sizeof(int32_t) + sizeof(double))
#define CHAN_BYTES (3 * sizeof(PetscInt) + 2 * sizeof(double))

PetscErrorCode BTEEprCUDAChannelsFree(BTEEprCUDA E)
{
  struct EprGen *G = E ? E->gen : NULL;

  PetscFunctionBegin;
  if (!G) PetscFunctionReturn(0);
  PetscCallCUDA(cudaFree((void *)G->g.s.kidx));
  PetscCallCUDA(cudaFree((void *)G->g.s.band));
  PetscCallCUDA(cudaFree((void *)G->g.s.ijk));
  PetscCallCUDA(cudaFree((void *)G->g.s.bin));
  PetscCallCUDA(cudaFree((void *)G->g.s.binstart));
  PetscCallCUDA(cudaFree((void *)G->g.s.binlist));
  PetscCallCUDA(cudaFree((void *)G->g.s.kslot));
  PetscCallCUDA(cudaFree((void *)G->g.s.e));
  PetscCallCUDA(cudaFree((void *)G->g.s.hwq));
  PetscCallCUDA(cudaFree((void *)G->g.s.hsort));
  PetscCallCUDA(cudaFree((void *)G->g.s.hvalid));
  PetscCallCUDA(cudaFree(G->ncand));
  PetscCallCUDA(cudaFree(G->nlist));
  PetscCallCUDA(cudaFree(G->duoff));
  PetscCall(PetscFree3(G->hcoff, G->hloff, G->huoff));
  PetscCall(PetscFree(G));
  E->gen = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDAChannelsCount(BTEEprCUDA E, const BTEEprCUDASearch *in, PetscCount *upper, PetscCount *npairs, PetscBool *ok)
{
  struct EprGen *G;
  const PetscInt nl = in->rend - in->rstart, n = in->n, nm = E->d.nm, nq = in->nqtot;
  int32_t       *hc, *hm;
  size_t         freeb, totalb, need;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  *ok     = PETSC_FALSE;
  *upper  = 0;
  *npairs = 0;
  PetscCall(BTEEprCUDAChannelsFree(E));
  need = (size_t)n * (3 * sizeof(PetscInt) + 3 * sizeof(PetscInt) + sizeof(double)) + (size_t)in->nktot * sizeof(PetscInt) + (size_t)nq * nm * (sizeof(double) + sizeof(int32_t)) + (size_t)nl * (2 * sizeof(int32_t) + 2 * sizeof(int64_t));
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  if (need > freeb / 2) PetscFunctionReturn(0);
  PetscCall(PetscNew(&G));
  E->gen = G;
  G->nl  = nl;
  G->g.s = *in;
  G->g.nm = (int)nm;
  PetscCall(Up(in->kidx, (size_t)n, (PetscInt **)&G->g.s.kidx));
  PetscCall(Up(in->band, (size_t)n, (PetscInt **)&G->g.s.band));
  PetscCall(Up(in->ijk, 3 * (size_t)n, (PetscInt **)&G->g.s.ijk));
  PetscCall(Up(in->bin, (size_t)n, (PetscInt **)&G->g.s.bin));
  PetscCall(Up(in->binstart, (size_t)in->nbins + 1, (PetscInt **)&G->g.s.binstart));
  PetscCall(Up(in->binlist, (size_t)n, (PetscInt **)&G->g.s.binlist));
  PetscCall(Up(in->kslot, (size_t)in->nktot, (PetscInt **)&G->g.s.kslot));
  PetscCall(Up(in->e, (size_t)n, (PetscReal **)&G->g.s.e));
  PetscCall(Up(in->hwq, (size_t)nq * nm, (PetscReal **)&G->g.s.hwq));
  PetscCall(Up(in->hsort, (size_t)nq * nm, (int32_t **)&G->g.s.hsort));
  PetscCall(Up(in->hvalid, (size_t)nq, (int32_t **)&G->g.s.hvalid));
  PetscCallCUDA(cudaMalloc((void **)&G->ncand, PetscMax((size_t)nl, (size_t)1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&G->nlist, PetscMax((size_t)nl, (size_t)1) * sizeof(int32_t)));
  if (nl) CountKernel<<<Grid(nl, 128), 128>>>(G->g, nl, G->ncand, G->nlist);
  PetscCallCUDA(cudaGetLastError());
  PetscCall(PetscMalloc3(nl + 1, &G->hcoff, nl + 1, &G->hloff, nl + 1, &G->huoff));
  PetscCall(PetscMalloc2(nl, &hc, nl, &hm));
  if (nl) {
    PetscCallCUDA(cudaMemcpy(hc, G->ncand, (size_t)nl * sizeof(int32_t), cudaMemcpyDeviceToHost));
    PetscCallCUDA(cudaMemcpy(hm, G->nlist, (size_t)nl * sizeof(int32_t), cudaMemcpyDeviceToHost));
  }
  G->hcoff[0] = G->hloff[0] = G->huoff[0] = 0;
  for (PetscInt il = 0; il < nl; il++) {
    const PetscInt b = in->bin[in->rstart + il];
    G->huoff[il + 1] = G->huoff[il] + in->binstart[PetscMin(b + 2, in->nbins)] - in->binstart[PetscMax(b - 1, (PetscInt)0)];
    G->hcoff[il + 1] = G->hcoff[il] + hc[il];
    G->hloff[il + 1] = G->hloff[il] + hm[il];
    G->maxcand       = PetscMax(G->maxcand, hc[il]);
    G->maxlist       = PetscMax(G->maxlist, hm[il]);
  }
  PetscCall(PetscFree2(hc, hm));
  PetscCall(Up(G->huoff, (size_t)nl + 1, &G->duoff));
  G->upper  = G->hloff[nl];
  G->npairs = G->hcoff[nl];
  {
    /* the channels' device arrays (upper of them), a chunk's buffers (pairs, one group each at most,
       and listed modes), 256 MB spare: where these do not fit the builder's path runs instead */
    const double full = (double)G->upper * CHAN_BYTES, pc = (double)ChunkBytesPerCand(&E->d), pm = (double)CHUNK_BYTES_PER_MODE;
    double       avail;
    PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
    avail   = (double)freeb - full - 256e6;
    G->mmax = PetscMax((int64_t)G->maxlist, PetscMin((int64_t)G->upper, (int64_t)1 << 23));
    G->mmax += G->mmax % 2; /* the staging buffers' doubles after three PetscInt arrays stay aligned */
    G->cmax = PetscMax((int64_t)G->maxcand, PetscMin((int64_t)G->npairs, PetscMin((int64_t)1 << 20, (int64_t)(0.5 * PetscMax(avail - G->mmax * pm, 0.0) / pc))));
    G->cmax = PetscMax(G->cmax, (int64_t)1);
    if (avail < G->cmax * pc + G->mmax * pm || G->cmax >= INT32_MAX / 4 || G->mmax >= INT32_MAX) {
      PetscCall(PetscInfo(NULL, "GPU channels: %.3g GB of device memory needed, %.3g GB free: the builder's passes instead\n", (full + G->cmax * pc + G->mmax * pm + 256e6) / 1e9, (double)freeb / 1e9));
      PetscCall(BTEEprCUDAChannelsFree(E));
      PetscFunctionReturn(0);
    }
  }
  *upper  = G->upper;
  *npairs = G->npairs;
  *ok     = PETSC_TRUE;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(NULL, "GPU channels: %" PetscInt64_FMT " pairs of states and %" PetscInt64_FMT " modes passing the energy test listed in %.3f s\n", (PetscInt64)G->npairs, (PetscInt64)G->upper, t1 - t0));
  PetscFunctionReturn(0);
}

static PetscErrorCode ChunkAlloc(const BTEEprCUDAData *d, int64_t C, int64_t M, Chunk *B)
{
  size_t t1 = 0, t2 = 0, t3 = 0;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(B, sizeof(*B)));
  C = PetscMax(C, (int64_t)1);
  M = PetscMax(M, (int64_t)1);
  PetscCallCUDA(cudaMalloc((void **)&B->cst, C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->cends, 2 * C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->idx, 4 * C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->cqi, C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->perm[0], C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->perm[1], C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->moff, (C + 1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->head, C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->gid, C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->grp, C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->gk_of, 2 * C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->ng, sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->cde, C * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->gq, 3 * C * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->ph, 2 * C * PetscMax(d->npr, 1) * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->gw, 2 * C * d->nw * d->nw * d->nm * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->key[0], C * sizeof(uint64_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->key[1], C * sizeof(uint64_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->ckey[0], C * sizeof(uint64_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->ckey[1], C * sizeof(uint64_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->kc, C * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->cnt, sizeof(unsigned)));
  PetscCallCUDA(cudaMalloc((void **)&B->mode, M * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->mc, M * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->flag, M * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->pos, M * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->g2, M * sizeof(double)));
  PetscCallCUDA(cudaMalloc((void **)&B->rstart, (C + 1) * sizeof(int32_t)));
  PetscCallCUDA(cudaMalloc((void **)&B->nr, sizeof(int32_t)));
  ProjectRunsShape((int)d->nm, &B->smax, &B->tw, &B->shbytes);
  PetscCallCUDA(cudaFuncSetAttribute(ProjectRuns, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)B->shbytes));
  size_t t4 = 0;
  PetscCallCUDA(cub::DeviceRadixSort::SortPairs(NULL, t1, B->key[0], B->key[1], B->perm[0], B->perm[1], (int)C));
  PetscCallCUDA(cub::DeviceScan::InclusiveSum(NULL, t2, B->head, B->gid, (int)C));
  PetscCallCUDA(cub::DeviceScan::ExclusiveSum(NULL, t3, B->flag, B->pos, (int)M));
  PetscCallCUDA(cub::DeviceRadixSort::SortKeys(NULL, t4, B->ckey[0], B->ckey[1], (int)C));
  B->tmpbytes = PetscMax(PetscMax(t1, t4), PetscMax(t2, t3));
  PetscCallCUDA(cudaMalloc(&B->tmp, B->tmpbytes));
  PetscFunctionReturn(0);
}

static PetscErrorCode ChunkFree(Chunk *B)
{
  void *p[] = {B->cst, B->cends, B->idx, B->cqi, B->perm[0], B->perm[1], B->moff, B->head, B->gid, B->grp, B->gk_of, B->ng, B->cde, B->gq, B->ph, B->gw, B->key[0], B->key[1], B->ckey[0], B->ckey[1], B->kc, B->cnt, B->mode, B->mc, B->flag, B->pos, B->rstart, B->nr, B->g2, B->tmp};

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(p) / sizeof(p[0]); k++) PetscCallCUDA(cudaFree(p[k]));
  PetscFunctionReturn(0);
}

/* The stages of a chunk, timed by events when -info is on (one line at the end, summed over chunks) */
#define NSTAGE 7
static const char *const StageName[NSTAGE] = {"candidates", "their sort", "details and modes", "groups", "Vertex", "Project", "selection and write"};
#define MARK(s) \
  do { \
    if (ev) PetscCallCUDA(cudaEventRecord(ev[s], st)); \
  } while (0)

/* One chunk, states [a, b) (owned indices), enqueued on stream st: nothing waits for the device.
   ev: NULL, or NSTAGE + 1 events to record at the stages' bounds */
static PetscErrorCode ChunkRun(struct EprGen *G, const BTEEprCUDAData *d, cudaStream_t st, PetscInt a, PetscInt b, Chunk *B, PetscInt *oi, PetscInt *oj, PetscInt *om, double *ohw, double *og2, long long *dv, cudaEvent_t *ev)
{
  const int64_t C = G->hcoff[b] - G->hcoff[a], M = G->hloff[b] - G->hloff[a];
  size_t        tb = B->tmpbytes;
  long long    *base = dv, *count = dv + 1;
  unsigned long long *notlow = (unsigned long long *)(dv + 2);
  int          *bad = (int *)(dv + 3);

  PetscFunctionBegin;
  MARK(0);
  if (C) {
    int endbit = 32, cbits = 32; /* keys: (k slot) << 32 | q, (state in the chunk) << 32 | partner */
    for (PetscInt x = d->nslot; x > 0; x >>= 1) endbit++;
    for (PetscInt x = b - a; x > 0; x >>= 1) cbits++;
    PetscCallCUDA(cudaMemsetAsync(B->cnt, 0, sizeof(unsigned), st));
    CandKernel<<<Grid(G->huoff[b] - G->huoff[a], 256), 256, 0, st>>>(G->g, a, b, G->duoff, *B);
    MARK(1);
    PetscCallCUDA(cub::DeviceRadixSort::SortKeys(B->tmp, tb, B->ckey[0], B->ckey[1], (int)C, 0, PetscMin(cbits, 64), st));
    MARK(2);
    DetailKernel<<<Grid(C, 256), 256, 0, st>>>(G->g, a, C, *B);
    PetscCallCUDA(cudaMemsetAsync(B->moff, 0, sizeof(int32_t), st));
    PetscCallCUDA(cub::DeviceScan::InclusiveSum(B->tmp, tb, B->kc, B->moff + 1, (int)C, st));
    ModesKernel<<<Grid(C, 128), 128, 0, st>>>(G->g, C, *B);
    MARK(3);
    PetscCallCUDA(cub::DeviceRadixSort::SortPairs(B->tmp, tb, B->key[0], B->key[1], B->perm[0], B->perm[1], (int)C, 0, PetscMin(endbit, 64), st));
    HeadKernel<<<Grid(C, 256), 256, 0, st>>>(C, B->key[1], B->head);
    PetscCallCUDA(cub::DeviceScan::InclusiveSum(B->tmp, tb, B->head, B->gid, (int)C, st));
    GroupKernel<<<Grid(C, 256), 256, 0, st>>>(G->g, C, B->key[1], B->perm[1], B->gid, B->grp, B->gk_of, B->gq, B->ng);
    MARK(4);
    VertexCounted<<<(unsigned)C, 128, 0, st>>>(*d, B->ng, B->gk_of, B->gq, B->ph, B->gw);
    MARK(5);
    /* the candidates by q point (the group sort's buffers are free again), their runs, the sums */
    {
      int qbits = 1;
      for (PetscInt x = d->nqtot; x > 0; x >>= 1) qbits++;
      QKeyKernel<<<Grid(C, 256), 256, 0, st>>>(C, B->cqi, B->key[0], B->perm[0]);
      PetscCallCUDA(cub::DeviceRadixSort::SortPairs(B->tmp, tb, B->key[0], B->key[1], B->perm[0], B->perm[1], (int)C, 0, PetscMin(qbits, 64), st));
    }
    HeadKernel<<<Grid(C, 256), 256, 0, st>>>(C, B->key[1], B->head);
    PetscCallCUDA(cub::DeviceScan::InclusiveSum(B->tmp, tb, B->head, B->gid, (int)C, st));
    RunKernel<<<Grid(C, 256), 256, 0, st>>>(C, B->key[1], B->gid, B->rstart, B->nr);
    ProjectRuns<<<(unsigned)C, PROJ_THREADS, B->shbytes, st>>>(*d, B->nr, B->rstart, B->perm[1], B->cqi, B->idx, B->grp, B->moff, B->mode, B->gw, B->g2, B->smax, B->tw);
  } else {
    for (int x = 1; x < 6; x++) MARK(x);
  }
  MARK(6);
  if (M) {
    SelectKernel<<<Grid(M, 256), 256, 0, st>>>(G->g, M, B->mc, B->mode, B->cqi, B->cde, B->g2, B->flag, bad);
    PetscCallCUDA(cub::DeviceScan::ExclusiveSum(B->tmp, tb, B->flag, B->pos, (int)M, st));
    WriteKernel<<<Grid(M, 256), 256, 0, st>>>(G->g, M, B->flag, B->pos, B->mc, B->cst, B->cends, B->cqi, B->mode, B->g2, base, oi, oj, om, ohw, og2, notlow);
  }
  AdvanceKernel<<<1, 1, 0, st>>>(M, B->flag, B->pos, base, count);
  MARK(7);
  PetscCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

/* The channels on the device, to be copied to the host arrays (now, or when first read there) */
struct EprCopy {
  PetscInt   *di, *dj, *dm;
  double     *dhw, *dg2;
  PetscInt   *ci, *cj, *cm;
  double     *chw, *cg2;
  PetscCount  n;
  PetscObject hold; /* the pair layout's device copy, which owns di, dj, dhw, dg2; NULL: owned here */
};

/* Channels [o, o + m) of the device arrays into a staging buffer laid out for M channels, on stream cs */
static PetscErrorCode StageOut(const struct EprCopy *C, int64_t o, int64_t m, char *h, size_t M, cudaStream_t cs)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMemcpyAsync(h, C->di + o, m * sizeof(PetscInt), cudaMemcpyDeviceToHost, cs));
  PetscCallCUDA(cudaMemcpyAsync(h + M * sizeof(PetscInt), C->dj + o, m * sizeof(PetscInt), cudaMemcpyDeviceToHost, cs));
  PetscCallCUDA(cudaMemcpyAsync(h + 2 * M * sizeof(PetscInt), C->dm + o, m * sizeof(PetscInt), cudaMemcpyDeviceToHost, cs));
  PetscCallCUDA(cudaMemcpyAsync(h + 3 * M * sizeof(PetscInt), C->dhw + o, m * sizeof(double), cudaMemcpyDeviceToHost, cs));
  PetscCallCUDA(cudaMemcpyAsync(h + 3 * M * sizeof(PetscInt) + M * sizeof(double), C->dg2 + o, m * sizeof(double), cudaMemcpyDeviceToHost, cs));
  PetscFunctionReturn(0);
}

/* A staging buffer's m channels into the host arrays at o, by all threads */
static void PlaceStaged(const struct EprCopy *C, int64_t o, int64_t m, const char *h, size_t M)
{
  const PetscInt *si = (const PetscInt *)h, *sj = si + M, *sm = sj + M;
  const double   *sh = (const double *)(h + 3 * M * sizeof(PetscInt)), *sg = sh + M;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < m; t++) {
    C->ci[o + t]  = si[t];
    C->cj[o + t]  = sj[t];
    C->cm[o + t]  = sm[t];
    C->chw[o + t] = sh[t];
    C->cg2[o + t] = sg[t];
  }
}

/* Through two pinned buffers: the device copies one piece while the host's threads place the other */
static PetscErrorCode CopyOut(struct EprCopy *C)
{
  const int64_t  n = (int64_t)C->n, M = PetscMax(PetscMin(n, (int64_t)1 << 21), (int64_t)2) & ~(int64_t)1;
  char          *stage[2];
  cudaStream_t   cs;
  cudaEvent_t    ev[2];
  PetscLogDouble t0, t1, twait = 0, ta, tb;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCallCUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  for (int x = 0; x < 2; x++) {
    PetscCallCUDA(cudaHostAlloc((void **)&stage[x], (size_t)M * CHAN_BYTES, cudaHostAllocDefault));
    PetscCallCUDA(cudaEventCreateWithFlags(&ev[x], cudaEventDisableTiming));
  }
  for (int64_t k = 0, np = (n + M - 1) / M; k <= np; k++) {
    if (k < np) { /* piece k on its way */
      const int     x = (int)(k % 2);
      const int64_t o = k * M, m = PetscMin(M, n - o);
      PetscCall(StageOut(C, o, m, stage[x], (size_t)M, cs));
      PetscCallCUDA(cudaEventRecord(ev[x], cs));
    }
    if (k > 0) { /* piece k - 1 into place */
      const int     y = (int)((k - 1) % 2);
      const int64_t o = (k - 1) * M, m = PetscMin(M, n - o);
      PetscCall(PetscTime(&ta));
      PetscCallCUDA(cudaEventSynchronize(ev[y]));
      PetscCall(PetscTime(&tb));
      twait += tb - ta;
      PlaceStaged(C, o, m, stage[y], (size_t)M);
    }
  }
  PetscCallCUDA(cudaStreamSynchronize(cs));
  for (int x = 0; x < 2; x++) {
    PetscCallCUDA(cudaFreeHost(stage[x]));
    PetscCallCUDA(cudaEventDestroy(ev[x]));
  }
  PetscCallCUDA(cudaStreamDestroy(cs));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)n * CHAN_BYTES));
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(NULL, "GPU channels: %" PetscCount_FMT " channels copied to the host in %.3f s (%.3f s waiting for the device)\n", C->n, t1 - t0, twait));
  PetscFunctionReturn(0);
}

static PetscErrorCode CopyFree(struct EprCopy *C)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaFree(C->dm));
  if (C->hold) PetscCall(PetscObjectDereference(C->hold));
  else {
    PetscCallCUDA(cudaFree(C->di));
    PetscCallCUDA(cudaFree(C->dj));
    PetscCallCUDA(cudaFree(C->dhw));
    PetscCallCUDA(cudaFree(C->dg2));
  }
  PetscCall(PetscFree(C));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDAChannelsCopy(void *ctx, PetscBool fill)
{
  struct EprCopy *C = (struct EprCopy *)ctx;

  PetscFunctionBegin;
  if (fill) PetscCall(CopyOut(C));
  else PetscCall(PetscInfo(NULL, "GPU channels: the host copy of %" PetscCount_FMT " channels was never needed\n", C->n));
  PetscCall(CopyFree(C));
  PetscFunctionReturn(0);
}

/* The chunks, with the host arrays filled while the device runs: chunk k is computed two chunks
   ahead of the host, its channels go to stage[k % 2] on a second stream and the host's threads copy
   them into place while the device computes the next (the fresh host pages' first touch bounds it) */
static PetscErrorCode PlaceWhileRunning(struct EprGen *G, const BTEEprCUDAData *d, cudaStream_t st, PetscInt nchunk, const PetscInt cut[], Chunk *B, struct EprCopy *C, long long *dv, cudaEvent_t *ev)
{
  const size_t   M = (size_t)G->mcut;
  char          *stage[2];
  long long     *hcnt;
  cudaStream_t   cs;
  cudaEvent_t    evc[2], evd[2];
  PetscCount     off[2] = {0, 0}, cnt[2] = {0, 0}, total = 0;
  PetscLogDouble thost = 0, twait = 0, ta, tb;

  PetscFunctionBegin;
  PetscCallCUDA(cudaHostAlloc((void **)&hcnt, 2 * sizeof(long long), cudaHostAllocDefault));
  for (int x = 0; x < 2; x++) {
    PetscCallCUDA(cudaHostAlloc((void **)&stage[x], M * CHAN_BYTES, cudaHostAllocDefault));
    PetscCallCUDA(cudaEventCreateWithFlags(&evc[x], cudaEventDisableTiming));
    PetscCallCUDA(cudaEventCreateWithFlags(&evd[x], cudaEventDisableTiming));
  }
  PetscCallCUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
  for (PetscInt k = 0; k < PetscMin(nchunk, 2); k++) {
    PetscCall(ChunkRun(G, d, st, cut[k], cut[k + 1], B, C->di, C->dj, C->dm, C->dhw, C->dg2, dv, ev ? ev + k * (NSTAGE + 1) : NULL));
    PetscCallCUDA(cudaMemcpyAsync(&hcnt[k % 2], dv + 1, sizeof(long long), cudaMemcpyDeviceToHost, st));
    PetscCallCUDA(cudaEventRecord(evc[k % 2], st));
  }
  for (PetscInt k = 0; k < nchunk; k++) {
    const int x = (int)(k % 2);
    PetscCall(PetscTime(&ta));
    PetscCallCUDA(cudaEventSynchronize(evc[x]));
    PetscCall(PetscTime(&tb));
    twait += tb - ta;
    cnt[x] = (PetscCount)hcnt[x];
    off[x] = total;
    total += cnt[x];
    PetscCheck(total <= G->upper, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU channels: more channels than listed modes");
    PetscCallCUDA(cudaStreamWaitEvent(cs, evc[x], 0));
    PetscCall(StageOut(C, (int64_t)off[x], (int64_t)cnt[x], stage[x], M, cs));
    PetscCallCUDA(cudaEventRecord(evd[x], cs));
    if (k + 2 < nchunk) { /* its count lands in hcnt[x], read above */
      PetscCall(ChunkRun(G, d, st, cut[k + 2], cut[k + 3], B, C->di, C->dj, C->dm, C->dhw, C->dg2, dv, ev ? ev + (k + 2) * (NSTAGE + 1) : NULL));
      PetscCallCUDA(cudaMemcpyAsync(&hcnt[x], dv + 1, sizeof(long long), cudaMemcpyDeviceToHost, st));
      PetscCallCUDA(cudaEventRecord(evc[x], st));
    }
    for (int last = 0; last < 2; last++) { /* the previous chunk's, and at the end this one's */
      const PetscInt kk = last ? k : k - 1;
      if (kk < 0 || (last && k != nchunk - 1)) continue;
      const int y = (int)(kk % 2);
      PetscCall(PetscTime(&ta));
      PetscCallCUDA(cudaEventSynchronize(evd[y]));
      PetscCall(PetscTime(&tb));
      twait += tb - ta;
      PlaceStaged(C, (int64_t)off[y], (int64_t)cnt[y], stage[y], M);
      PetscCall(PetscTime(&ta));
      thost += ta - tb;
    }
  }
  PetscCallCUDA(cudaStreamSynchronize(cs));
  for (int x = 0; x < 2; x++) {
    PetscCallCUDA(cudaFreeHost(stage[x]));
    PetscCallCUDA(cudaEventDestroy(evc[x]));
    PetscCallCUDA(cudaEventDestroy(evd[x]));
  }
  PetscCallCUDA(cudaFreeHost(hcnt));
  PetscCallCUDA(cudaStreamDestroy(cs));
  PetscCall(PetscLogGpuToCpu((PetscLogDouble)total * CHAN_BYTES));
  PetscCall(PetscInfo(NULL, "GPU channels: %" PetscCount_FMT " channels placed on the host while the device ran (host: %.3f s waiting for the device, %.3f s placing them)\n", total, twait, thost));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDAChannelsFill(BTEEprCUDA E, PetscCount cap, PetscInt ci[], PetscInt cj[], PetscInt cmode[], PetscReal chw[], PetscReal cg2[], PetscObject keepon, PetscCount *n, PetscCount *nlow, PetscBool *bad, void **pending)
{
  struct EprGen  *G = E->gen;
  const PetscInt  nl = G ? G->nl : 0;
  PetscInt        nchunk = 0, *cut;
  long long      *dv, hv[4];
  Chunk           B;
  cudaStream_t    st;
  struct EprCopy *C;
  PetscBool       kept = PETSC_FALSE, prof;
  cudaEvent_t    *ev = NULL;
  PetscLogDouble  t0, t1, t2;

  PetscFunctionBegin;
  PetscCheck(G, PETSC_COMM_SELF, PETSC_ERR_ORDER, "BTEEprCUDAChannelsCount() first");
  PetscCheck(cap >= G->upper, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "room for %" PetscCount_FMT " channels, %" PetscCount_FMT " may come", cap, G->upper);
  *pending = NULL;
  PetscCall(PetscTime(&t0));
  /* chunks of consecutive states: at most cmax candidates and mcut listed modes each (or one state).
     Kept on the device, large chunks (8M modes): ProjectRuns reads u(q) once per run of candidates
     with the same q, so the longer the runs the better (DNTT 16^3: 0.42 s against 0.48 s with 2M).
     Placed on the host on the way, 2M: smaller pinned buffers, and more of the placement overlapped. */
  G->mcut = keepon ? G->mmax : PetscMin(G->mmax, PetscMax((int64_t)G->maxlist, (int64_t)1 << 21));
  G->mcut += G->mcut % 2; /* as mmax: the staging buffers' doubles stay aligned */
  PetscCall(PetscMalloc1(nl + 2, &cut));
  cut[nchunk++] = 0;
  for (PetscInt il = 0; il < nl; il++) {
    const PetscInt a = cut[nchunk - 1];
    if (il > a && (G->hcoff[il + 1] - G->hcoff[a] > G->cmax || G->hloff[il + 1] - G->hloff[a] > G->mcut)) cut[nchunk++] = il;
  }
  cut[nchunk] = nl; /* chunk k: [cut[k], cut[k + 1]) */
  PetscCall(PetscNew(&C));
  C->ci  = ci;
  C->cj  = cj;
  C->cm  = cmode;
  C->chw = chw;
  C->cg2 = cg2;
  {
    const size_t u = (size_t)PetscMax(G->upper, (PetscCount)1);
    PetscCallCUDA(cudaMalloc((void **)&C->di, u * sizeof(PetscInt)));
    PetscCallCUDA(cudaMalloc((void **)&C->dj, u * sizeof(PetscInt)));
    PetscCallCUDA(cudaMalloc((void **)&C->dm, u * sizeof(PetscInt)));
    PetscCallCUDA(cudaMalloc((void **)&C->dhw, u * sizeof(double)));
    PetscCallCUDA(cudaMalloc((void **)&C->dg2, u * sizeof(double)));
  }
  PetscCall(ChunkAlloc(&E->d, G->cmax, G->mmax, &B));
  PetscCallCUDA(cudaMalloc((void **)&dv, 4 * sizeof(long long)));
  PetscCallCUDA(cudaMemset(dv, 0, 4 * sizeof(long long)));
  PetscCallCUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  /* every chunk in stream order, each after the channels of the ones before (a count kept on the
     device); without keepon the host arrays are filled on the way (PlaceWhileRunning), else the host
     waits once, at the end */
  PetscCall(PetscInfoEnabled(PETSC_SMALLEST_CLASSID, &prof));
  if (prof) {
    PetscCall(PetscMalloc1((size_t)nchunk * (NSTAGE + 1), &ev));
    for (PetscInt k = 0; k < nchunk * (NSTAGE + 1); k++) PetscCallCUDA(cudaEventCreate(&ev[k]));
  }
  if (!keepon) PetscCall(PlaceWhileRunning(G, &E->d, st, nchunk, cut, &B, C, dv, ev));
  else
    for (PetscInt k = 0; k < nchunk; k++) PetscCall(ChunkRun(G, &E->d, st, cut[k], cut[k + 1], &B, C->di, C->dj, C->dm, C->dhw, C->dg2, dv, ev ? ev + k * (NSTAGE + 1) : NULL));
  PetscCallCUDA(cudaMemcpyAsync(hv, dv, 4 * sizeof(long long), cudaMemcpyDeviceToHost, st));
  PetscCallCUDA(cudaStreamSynchronize(st));
  if (prof) { /* the device's time per stage, summed over the chunks */
    double ts[NSTAGE] = {0};
    char   line[512];
    size_t len = 0;
    for (PetscInt k = 0; k < nchunk; k++)
      for (int x = 0; x < NSTAGE; x++) {
        float ms;
        PetscCallCUDA(cudaEventElapsedTime(&ms, ev[k * (NSTAGE + 1) + x], ev[k * (NSTAGE + 1) + x + 1]));
        ts[x] += ms / 1e3;
      }
    line[0] = 0;
    for (int x = 0; x < NSTAGE; x++) {
      PetscCall(PetscSNPrintf(line + len, sizeof(line) - len, "%s%s %.3f s", x ? ", " : "", StageName[x], ts[x]));
      PetscCall(PetscStrlen(line, &len));
    }
    PetscCall(PetscInfo(NULL, "GPU channels, the device's time by stage over %" PetscInt_FMT " chunks: %s\n", nchunk, line));
    for (PetscInt k = 0; k < nchunk * (NSTAGE + 1); k++) PetscCallCUDA(cudaEventDestroy(ev[k]));
    PetscCall(PetscFree(ev));
  }
  PetscCallCUDA(cudaStreamDestroy(st));
  PetscCallCUDA(cudaFree(dv));
  PetscCall(ChunkFree(&B));
  PetscCall(PetscFree(cut));
  C->n = (PetscCount)hv[0];
  PetscCheck(C->n <= cap, PETSC_COMM_SELF, PETSC_ERR_PLIB, "GPU channels: more channels than listed modes");
  *n    = C->n;
  *nlow = C->n - (PetscCount)((unsigned long long *)hv)[2];
  *bad  = ((int *)(hv + 3))[0] ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscTime(&t1));
  /* with CUDA Vecs the pair layout takes the device copy; the host arrays are filled when something
     reads them (BTEChannelsGetHost), which a run on one GPU may never do */
  if (keepon && !*bad) PetscCall(BTEPairCUDAAdoptChannels(keepon, C->n, ci, cg2, C->di, C->dj, C->dhw, C->dg2, &C->hold, &kept));
  if (kept) *pending = C;
  else if (keepon) PetscCall(BTEEprCUDAChannelsCopy(C, PETSC_TRUE));
  else PetscCall(CopyFree(C)); /* the host arrays were filled on the way */
  PetscCall(PetscTime(&t2));
  PetscCall(PetscInfo(NULL, "GPU channels: %" PetscCount_FMT " channels from %" PetscCount_FMT " pairs of states in %.3f s on the device (%" PetscInt_FMT " chunks)%s\n", *n, G->npairs, t1 - t0, nchunk, kept ? "; kept there for the collision layout, copied to the host when read there" : ""));
  PetscCall(BTEEprCUDAChannelsFree(E));
  PetscFunctionReturn(0);
}
