/* The Perturbo import's couplings on the GPU (eprcuda.h).

   A batch of candidate pairs of states (from one or several consecutive states, from the builder)
   is grouped by (k slot, q) with a hash on the host: the pairs of one k point with the same q share
   a group wherever they sit in the batch (the bands of one k point are consecutive states). Per
   group (kernel Vertex, one block): the phases e^{i 2 pi q.Rp} of the phonon-side vectors, then the
   Wannier-gauge vertex gw(iw, jw, mu) = sum_Rp phase gk(Rp), plus the long-range vertex on the
   Wannier diagonal. Per candidate (kernel Project, one block): g_mn(mu) =
   sum_{iw,jw} conj(U_k+q(iw, m)) U_k(jw, n) gw(iw, jw, mu), then for each mode that passes the
   energy test (the host lists them: only their values come back, a few of the 3 nat) |g_nu|^2 /
   (2 omega_nu) with g_nu = sum_mu g_mn(mu) u_nu(mu). The batch's inputs go over in one copy from
   one pinned buffer, the values come back in another, and the host waits once per batch. These are
   BTEEprCouplingKQ's and perturbo.c's PerturboCoupling's sums, in their order, with every product
   and sum rounded on its own (__dmul_rn/__dadd_rn: no fused multiply-add), so the device agrees with
   the host to the last bits of the device's cos/sin; how the pairs are grouped does not change a
   value. */
#include "epr_cuda_impl.cuh"
#include <chrono>

/* Where the arrays of a batch of nc pairs, nmode listed modes and ng groups sit in the packed input
   (bytes): idx (4 nc), grp (nc), moff (nc + 1), mode (nmode), gk (2 ng) as int32, then q (3 ng) as
   doubles, 8-byte aligned. Returns the size. */
typedef struct {
  size_t idx, grp, moff, mode, gk, q;
} InputLayout;

static size_t Layout(size_t nc, size_t nmode, size_t ng, InputLayout *L)
{
  L->idx  = 0;
  L->grp  = L->idx + 4 * nc * sizeof(int32_t);
  L->moff = L->grp + nc * sizeof(int32_t);
  L->mode = L->moff + (nc + 1) * sizeof(int32_t);
  L->gk   = L->mode + nmode * sizeof(int32_t);
  L->q    = (L->gk + 2 * ng * sizeof(int32_t) + 7) & ~(size_t)7;
  return L->q + 3 * ng * sizeof(double);
}


template <typename T>
static PetscErrorCode Upload(const T *src, size_t n, T **dst, PetscLogDouble *bytes)
{
  PetscFunctionBegin;
  PetscCallCUDA(cudaMalloc((void **)dst, PetscMax(n, (size_t)1) * sizeof(T)));
  if (n) PetscCallCUDA(cudaMemcpy(*dst, src, n * sizeof(T), cudaMemcpyHostToDevice));
  *bytes += (PetscLogDouble)(n * sizeof(T));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDACreate(const BTEEprCUDAData *in, PetscInt nslots, PetscInt maxbatch, BTEEprCUDA *out, PetscBool *fits)
{
  BTEEprCUDA     E;
  const size_t   nel = (size_t)in->nat * in->nw * in->nw, B = (size_t)maxbatch;
  const size_t   vtx = 2 * (size_t)in->nw * in->nw * in->nm;
  PetscLogDouble need, slotb;
  size_t         freeb, totalb;
  PetscInt      *pidx;
  PetscInt       npidx;
  PetscLogDouble t0, t1, t2;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  *out  = NULL;
  *fits = PETSC_FALSE;
  PetscCheck(in->nm <= 1024, PETSC_COMM_SELF, PETSC_ERR_SUP, "GPU couplings support at most 1024 phonon modes, got %" PetscInt_FMT, in->nm);
  npidx = in->poff[nel];
  /* a q cache already on the device is not counted: it is in use already */
  need  = (PetscLogDouble)sizeof(double) * ((size_t)in->nslot * (in->gksize + 2 * in->nw * in->nw) + (in->qdevice ? 0 : (size_t)in->nqtot * (in->nm + 2 * in->nm * in->nm + 2 * in->nm))) + sizeof(PetscInt) * (nel + 1 + npidx + 3 * in->npr);
  slotb = (PetscLogDouble)B * (sizeof(double) * (vtx + 2 * in->npr + in->nm + 3) + sizeof(int32_t) * (8 + in->nm));
  need += nslots * slotb;
  PetscCallCUDA(cudaMemGetInfo(&freeb, &totalb));
  if (need > 0.9 * (PetscLogDouble)freeb) {
    PetscCall(PetscInfo(NULL, "GPU couplings need %.3g GB of device memory, %.3g GB free: not used\n", need / 1e9, (double)freeb / 1e9));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscNew(&E));
  E->d        = *in;
  E->nslots   = nslots;
  E->maxbatch = maxbatch;
  PetscCall(Upload(in->poff, nel + 1, (PetscInt **)&E->d.poff, &E->bytes));
  pidx = NULL;
  PetscCall(Upload(in->pidx, (size_t)npidx, &pidx, &E->bytes));
  E->d.pidx = pidx;
  PetscCall(Upload(in->pR, 3 * (size_t)in->npr, (PetscInt **)&E->d.pR, &E->bytes));
  PetscCall(Upload(in->gk, (size_t)in->nslot * in->gksize, (PetscReal **)&E->d.gk, &E->bytes));
  PetscCall(Upload(in->U, (size_t)in->nslot * 2 * in->nw * in->nw, (PetscReal **)&E->d.U, &E->bytes));
  if (!in->qdevice) {
    PetscCall(Upload(in->om, (size_t)in->nqtot * in->nm, (PetscReal **)&E->d.om, &E->bytes));
    PetscCall(Upload(in->u, (size_t)in->nqtot * 2 * in->nm * in->nm, (PetscReal **)&E->d.u, &E->bytes));
    PetscCall(Upload(in->glr, (size_t)in->nqtot * 2 * in->nm, (PetscReal **)&E->d.glr, &E->bytes));
  }
  PetscCall(PetscLogCpuToGpu(E->bytes));
  PetscCall(PetscTime(&t1));
  if (in->qdevice) E->bytes += (PetscLogDouble)sizeof(double) * in->nqtot * (in->nm + 2 * in->nm * in->nm + 2 * in->nm);
  /* the work slots' buffers are made by a slot's first batch: an import whose channels are made on
     the device (epr_channels_cuda.cu) never uses them (16 slots: ~0.1 s of pinning) */
  PetscCall(PetscCalloc1(nslots, &E->slots));
  E->bytes += nslots * slotb;
  PetscCall(PetscTime(&t2));
  PetscCall(PetscInfo(NULL, "GPU couplings: caches uploaded in %.3f s, room for %" PetscInt_FMT " work slots (streams, pinned and device buffers of %.3g MB each, made when first used), %.3f s\n", t1 - t0, nslots, slotb / 1e6, t2 - t1));
  *out  = E;
  *fits = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDADestroy(BTEEprCUDA *e)
{
  BTEEprCUDA E = *e;

  PetscFunctionBegin;
  if (!E) PetscFunctionReturn(0);
  for (PetscInt t = 0; t < E->nslots; t++) {
    Slot *s = &E->slots[t];
    if (!s->hin) continue; /* never used */
    PetscCallCUDA(cudaStreamSynchronize(s->stream));
    PetscCallCUDA(cudaStreamDestroy(s->stream));
    PetscCallCUDA(cudaFreeHost(s->hin));
    PetscCallCUDA(cudaFreeHost(s->hg2));
    PetscCallCUDA(cudaFree(s->din));
    PetscCallCUDA(cudaFree(s->dg2));
    PetscCallCUDA(cudaFree(s->dph));
    PetscCallCUDA(cudaFree(s->dgw));
    free(s->htab);
    free(s->tgk);
    free(s->tpos);
    free(s->tq);
  }
  PetscCall(PetscFree(E->slots));
  PetscCall(BTEEprCUDAChannelsFree(E));
  PetscCallCUDA(cudaFree((void *)E->d.poff));
  PetscCallCUDA(cudaFree((void *)E->d.pidx));
  PetscCallCUDA(cudaFree((void *)E->d.pR));
  PetscCallCUDA(cudaFree((void *)E->d.gk));
  PetscCallCUDA(cudaFree((void *)E->d.U));
  PetscCallCUDA(cudaFree((void *)E->d.om));
  PetscCallCUDA(cudaFree((void *)E->d.u));
  PetscCallCUDA(cudaFree((void *)E->d.glr));
  PetscCall(PetscFree(E));
  *e = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEEprCUDAGetBytes(BTEEprCUDA E, PetscLogDouble *b)
{
  PetscFunctionBegin;
  *b = E ? E->bytes : 0;
  PetscFunctionReturn(0);
}

/* A work slot's stream and buffers, at its first batch (called by the slot's own thread: plain
   allocations, an error code and no PETSc calls, as BTEEprCUDACouplings) */
static int SlotMake(BTEEprCUDA E, Slot *s)
{
  const size_t B = (size_t)E->maxbatch, vtx = 2 * (size_t)E->d.nw * E->d.nw * E->d.nm;
  InputLayout  L;
  const size_t inb = Layout(B, B * E->d.nm, B, &L);

  if (cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking) != cudaSuccess) return 1;
  if (cudaHostAlloc((void **)&s->hin, inb, cudaHostAllocDefault) != cudaSuccess) return 1;
  if (cudaHostAlloc((void **)&s->hg2, B * E->d.nm * sizeof(double), cudaHostAllocDefault) != cudaSuccess) return 1;
  if (cudaMalloc((void **)&s->din, inb) != cudaSuccess) return 1;
  if (cudaMalloc((void **)&s->dg2, B * E->d.nm * sizeof(double)) != cudaSuccess) return 1;
  if (cudaMalloc((void **)&s->dph, B * 2 * PetscMax(E->d.npr, 1) * sizeof(double)) != cudaSuccess) return 1;
  if (cudaMalloc((void **)&s->dgw, B * vtx * sizeof(double)) != cudaSuccess) return 1;
  for (s->hbits = 1; ((size_t)1 << s->hbits) < 2 * B; s->hbits++) { }
  s->htab = (int32_t *)calloc((size_t)1 << s->hbits, sizeof(int32_t));
  s->tgk  = (int32_t *)malloc(2 * B * sizeof(int32_t));
  s->tpos = (int32_t *)malloc(B * sizeof(int32_t));
  s->tq   = (double *)malloc(3 * B * sizeof(double));
  return !s->htab || !s->tgk || !s->tpos || !s->tq;
}

int BTEEprCUDACouplings(BTEEprCUDA E, int slot, PetscInt nc, const int32_t idx[], const int32_t qi[], const double q[], const PetscInt moff[], const PetscInt mode[], double g2[])
{
  Slot          *s;
  const int      nm = (int)E->d.nm;
  int            ng = 0, threads;
  PetscInt       nmode;
  InputLayout    L;
  size_t         bytes;
  int32_t       *hidx, *hgrp, *hmoff, *hmode, *hgk;
  double        *hq;
  const char    *d;

  if (nc <= 0) return 0;
  if (nc > E->maxbatch || slot < 0 || slot >= E->nslots) return 1;
  const auto t0 = std::chrono::steady_clock::now();
  s             = &E->slots[slot];
  if (!s->hin && SlotMake(E, s)) return 1;
  nmode = moff[nc];
  if (moff[0] != 0 || nmode < 0 || nmode > nc * nm) return 1;
  /* groups: the pairs with the same (k slot, q), by a hash (linear probing), in order of first
     appearance */
  {
    const uint64_t hmask = ((uint64_t)1 << s->hbits) - 1;
    (void)Layout((size_t)nc, (size_t)nmode, 0, &L); /* the candidates' part does not depend on ng */
    hidx  = (int32_t *)(s->hin + L.idx);
    hgrp  = (int32_t *)(s->hin + L.grp);
    hmoff = (int32_t *)(s->hin + L.moff);
    hmode = (int32_t *)(s->hin + L.mode);
    for (PetscInt c = 0; c < nc; c++) {
      const int32_t sk = idx[4 * c], iq = qi[c];
      uint64_t      h  = (((uint64_t)(uint32_t)sk << 32) | (uint32_t)iq) * 0x9E3779B97F4A7C15ull;
      int32_t       g;
      h >>= 64 - s->hbits;
      while (s->htab[h] && (s->tgk[2 * (s->htab[h] - 1)] != sk || s->tgk[2 * (s->htab[h] - 1) + 1] != iq)) h = (h + 1) & hmask;
      if (!s->htab[h]) {
        s->htab[h]         = ng + 1;
        s->tgk[2 * ng]     = sk;
        s->tgk[2 * ng + 1] = iq;
        s->tpos[ng]        = (int32_t)h;
        for (int a = 0; a < 3; a++) s->tq[3 * ng + a] = q[3 * c + a];
        ng++;
      }
      g       = s->htab[h] - 1;
      hgrp[c] = g;
      for (int a = 0; a < 4; a++) hidx[4 * c + a] = idx[4 * c + a];
      hmoff[c] = (int32_t)moff[c];
    }
    hmoff[nc] = (int32_t)nmode;
    for (PetscInt t = 0; t < nmode; t++) hmode[t] = (int32_t)mode[t];
    for (int g = 0; g < ng; g++) s->htab[s->tpos[g]] = 0; /* empty again for the next batch */
  }
  bytes = Layout((size_t)nc, (size_t)nmode, (size_t)ng, &L);
  hgk   = (int32_t *)(s->hin + L.gk);
  hq    = (double *)(s->hin + L.q);
  memcpy(hgk, s->tgk, 2 * (size_t)ng * sizeof(int32_t));
  memcpy(hq, s->tq, 3 * (size_t)ng * sizeof(double));
  if (cudaMemcpyAsync(s->din, s->hin, bytes, cudaMemcpyHostToDevice, s->stream) != cudaSuccess) return 1;
  d       = s->din;
  threads = 128;
  Vertex<<<ng, threads, 0, s->stream>>>(E->d, ng, (const int32_t *)(d + L.gk), (const double *)(d + L.q), s->dph, s->dgw);
  Project<<<(int)nc, threads, 2 * nm * sizeof(double), s->stream>>>(E->d, (int)nc, (const int32_t *)(d + L.idx), (const int32_t *)(d + L.grp), (const int32_t *)(d + L.gk), (const int32_t *)(d + L.moff), (const int32_t *)(d + L.mode), s->dgw, s->dg2);
  if (cudaGetLastError() != cudaSuccess) return 1;
  if (nmode && cudaMemcpyAsync(s->hg2, s->dg2, (size_t)nmode * sizeof(double), cudaMemcpyDeviceToHost, s->stream) != cudaSuccess) return 1;
  const auto t1 = std::chrono::steady_clock::now();
  if (cudaStreamSynchronize(s->stream) != cudaSuccess) return 1;
  const auto t2 = std::chrono::steady_clock::now();
  memcpy(g2, s->hg2, (size_t)nmode * sizeof(double));
  const auto t3 = std::chrono::steady_clock::now();
  s->t[0] += std::chrono::duration<double>(t1 - t0).count();
  s->t[1] += std::chrono::duration<double>(t2 - t1).count();
  s->t[2] += std::chrono::duration<double>(t3 - t2).count();
  return 0;
}

PetscErrorCode BTEEprCUDAGetTimes(BTEEprCUDA E, double t[3])
{
  PetscFunctionBegin;
  t[0] = t[1] = t[2] = 0;
  for (PetscInt i = 0; E && i < E->nslots; i++)
    for (int a = 0; a < 3; a++) t[a] += E->slots[i].t[a];
  PetscFunctionReturn(0);
}
