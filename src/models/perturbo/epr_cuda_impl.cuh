/* What the two files of the GPU couplings share (epr_cuda.cu: the builder's batches; epr_channels_cuda.cu:
   the channels generated on the device): the handle, its work slots, the two kernels of the
   couplings, Vertex and Project (their description: epr_cuda.cu), and Project's sums, which
   epr_channels_cuda.cu's ProjectRuns calls as well. CUDA only. */
#pragma once
#include <bte/private/eprcuda.h>
#include <petscdevice_cuda.h>

typedef struct {
  cudaStream_t stream;
  char        *hin, *din;  /* pinned host / device: one batch's inputs, packed (InputLayout) */
  double      *hg2, *dg2;  /* pinned host / device: one value per listed mode */
  double      *dph, *dgw;  /* per group: 2 npr phases, 2 nw nw nm vertex */
  int32_t     *htab;       /* host: open-addressing hash of (k slot, q) -> group + 1 (0: empty) */
  int32_t     *tgk, *tpos; /* host: per group its (k slot, q index) and its place in htab */
  double      *tq;         /* host: per group its q, crystal */
  int          hbits;      /* htab has 2^hbits entries */
  double       t[3];       /* seconds: packing and enqueueing, waiting, copying out (-info) */
} Slot;

struct _n_BTEEprCUDA {
  BTEEprCUDAData d; /* sizes and constants; its arrays point to the device copies */
  PetscInt       nslots, maxbatch;
  Slot          *slots;
  PetscLogDouble bytes;
  struct EprGen *gen; /* the channels generated on the device: ChannelsCount's lists (epr_channels_cuda.cu) */
};

#define MUL(a, b) __dmul_rn((a), (b))
#define ADD(a, b) __dadd_rn((a), (b))
#define SUB(a, b) __dsub_rn((a), (b))

/* Group g, by one block: phases, then gw = sum_p phase(p) gk(p) per (element, alpha), + gl on the diagonal */
static __device__ void VertexOf(const BTEEprCUDAData &d, int g, const int32_t *__restrict__ gk_of, const double *__restrict__ q, double *__restrict__ ph, double *__restrict__ gw)
{
  const int     sk = gk_of[2 * g], qi = gk_of[2 * g + 1], nw = (int)d.nw, nm = (int)d.nm, nel = (int)(d.nat * d.nw * d.nw);
  const double  q0 = q[3 * g], q1 = q[3 * g + 1], q2 = q[3 * g + 2];
  double       *P  = ph + 2 * (size_t)d.npr * g;
  double       *G  = gw + 2 * (size_t)nw * nw * nm * g;
  const double *gk = d.gk + (size_t)sk * d.gksize;
  const double *gl = d.glr + 2 * (size_t)nm * qi;

  for (int r = threadIdx.x; r < d.npr; r += blockDim.x) {
    /* epr_interp.c's Phases: 2 pi (k0 R0 + k1 R1 + k2 R2), the same roundings */
    double a = MUL(2 * PETSC_PI, ADD(ADD(MUL(q0, (double)d.pR[3 * r]), MUL(q1, (double)d.pR[3 * r + 1])), MUL(q2, (double)d.pR[3 * r + 2])));
    double s, c;
    sincos(a, &s, &c);
    P[2 * r]     = c;
    P[2 * r + 1] = s;
  }
  __syncthreads();
  for (int t = threadIdx.x; t < 3 * nel; t += blockDim.x) {
    const int     el = t / 3, x = t % 3, a = el / (nw * nw), jw = (el / nw) % nw, iw = el % nw;
    const int     p0 = (int)d.poff[el], np = (int)(d.poff[el + 1] - p0);
    const double *gg = gk + 6 * (size_t)p0;
    double        sr = 0, si = 0;
    for (int p = 0; p < np; p++) {
      const int    r = (int)d.pidx[p0 + p];
      const double c = P[2 * r], s = P[2 * r + 1], gr = gg[2 * (3 * p + x)], gi = gg[2 * (3 * p + x) + 1];
      sr = ADD(sr, SUB(MUL(gr, c), MUL(gi, s)));
      si = ADD(si, ADD(MUL(gr, s), MUL(gi, c)));
    }
    if (iw == jw) {
      sr = ADD(sr, gl[2 * (3 * a + x)]);
      si = ADD(si, gl[2 * (3 * a + x) + 1]);
    }
    G[2 * ((iw * nw + jw) * nm + 3 * a + x)]     = sr;
    G[2 * ((iw * nw + jw) * nm + 3 * a + x) + 1] = si;
  }
}

/* One block per group */
static __global__ void Vertex(BTEEprCUDAData d, int ngrp, const int32_t *__restrict__ gk_of, const double *__restrict__ q, double *__restrict__ ph, double *__restrict__ gw)
{
  if ((int)blockIdx.x < ngrp) VertexOf(d, (int)blockIdx.x, gk_of, q, ph, gw);
}

/* The same with the group count on the device (launched with as many blocks as there may be groups) */
static __global__ void VertexCounted(BTEEprCUDAData d, const int32_t *__restrict__ ngrp, const int32_t *__restrict__ gk_of, const double *__restrict__ q, double *__restrict__ ph, double *__restrict__ gw)
{
  if ((int)blockIdx.x < *ngrp) VertexOf(d, (int)blockIdx.x, gk_of, q, ph, gw);
}

/* What Project and epr_channels_cuda.cu's ProjectRuns compute, in one place so that the two give the
   same values bit for bit (every operation rounded as written: MUL, ADD, SUB).
   GmnOf: g_mn(mu) of candidate c = sum over Wannier pairs of conj(U_k+q[iw, m]) U_k[jw, n] G[iw, jw, mu],
   with G the vertex of the candidate's group. */
static __device__ inline void GmnOf(const BTEEprCUDAData &d, const int32_t *__restrict__ idx, int c, const double *__restrict__ G, int mu, double *gr, double *gi)
{
  const int     nw = (int)d.nw, nm = (int)d.nm;
  const int     sk = idx[4 * c], skq = idx[4 * c + 1], nn = idx[4 * c + 2], mm = idx[4 * c + 3];
  const double *Uk = d.U + 2 * (size_t)nw * nw * sk, *Ukq = d.U + 2 * (size_t)nw * nw * skq;
  double        xr_ = 0, xi_ = 0;
  for (int iw = 0; iw < nw; iw++)
    for (int jw = 0; jw < nw; jw++) {
      const double ar = Ukq[2 * (iw + mm * nw)], ai = -Ukq[2 * (iw + mm * nw) + 1], br = Uk[2 * (jw + nn * nw)], bi = Uk[2 * (jw + nn * nw) + 1];
      const double cr = SUB(MUL(ar, br), MUL(ai, bi)), ci = ADD(MUL(ar, bi), MUL(ai, br));
      const double xr = G[2 * ((iw * nw + jw) * nm + mu)], xi = G[2 * ((iw * nw + jw) * nm + mu) + 1];
      xr_ = ADD(xr_, SUB(MUL(cr, xr), MUL(ci, xi)));
      xi_ = ADD(xi_, ADD(MUL(cr, xi), MUL(ci, xr)));
    }
  *gr = xr_;
  *gi = xi_;
}

/* One term of g_nu = sum over mu of g_mn(mu) u_nu(mu), added to (*sr, *si) */
static __device__ inline void ProjectTerm(double gr, double gi, double ur, double ui, double *sr, double *si)
{
  *sr = ADD(*sr, SUB(MUL(gr, ur), MUL(gi, ui)));
  *si = ADD(*si, ADD(MUL(gr, ui), MUL(gi, ur)));
}

/* |g_nu|^2 / (2 omega_nu) * g2fac, as the host */
static __device__ inline double G2Of(const BTEEprCUDAData &d, double sr, double si, double om)
{
  return MUL(__ddiv_rn(ADD(MUL(sr, sr), MUL(si, si)), MUL(2.0, om)), d.g2fac);
}

/* One block per candidate c: g_mn(mu) into shared memory, then |g_nu|^2 / (2 omega) for its listed
   modes (those that pass the energy test, listed by the host: only they come back) */
static __global__ void Project(BTEEprCUDAData d, int nc, const int32_t *__restrict__ idx, const int32_t *__restrict__ grp, const int32_t *__restrict__ gk_of, const int32_t *__restrict__ moff, const int32_t *__restrict__ mode, const double *__restrict__ gw, double *__restrict__ g2)
{
  extern __shared__ double gmn[];
  const int c = blockIdx.x;
  if (c >= nc) return;
  const int     g = grp[c], qi = gk_of[2 * g + 1];
  const int     nw = (int)d.nw, nm = (int)d.nm, m0 = moff[c], nmc = moff[c + 1] - m0;
  const double *G  = gw + 2 * (size_t)nw * nw * nm * g;
  const double *om = d.om + (size_t)nm * qi, *u = d.u + 2 * (size_t)nm * nm * qi;

  for (int mu = threadIdx.x; mu < nm; mu += blockDim.x) GmnOf(d, idx, c, G, mu, &gmn[2 * mu], &gmn[2 * mu + 1]);
  __syncthreads();
  for (int t = threadIdx.x; t < nmc; t += blockDim.x) {
    const int     nu = mode[m0 + t];
    const double *un = u + 2 * (size_t)nu * nm;
    double        sr = 0, si = 0;
    for (int mu = 0; mu < nm; mu++) ProjectTerm(gmn[2 * mu], gmn[2 * mu + 1], un[2 * mu], un[2 * mu + 1], &sr, &si);
    g2[m0 + t] = G2Of(d, sr, si, om[nu]);
  }
}
