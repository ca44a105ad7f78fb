static const char help[] = "The drift operator (stencil matrix + pointwise steps) against a direct loop over the b-vector\n"
                           "neighbours (the formulas of docs/theory.md section 5, as drift.c computed them before the matrix),\n"
                           "for the four forms (muscl with both limiters): D[f], y + D[f], J(f) x and diag J, on a model (-bte_model ...), 1 or more ranks.\n"
                           "States with f = 0 and f = 1e-18 exercise the clipping of g. With -cuda: the same on CUDA Vecs\n"
                           "through a MATAIJCUSPARSE stencil (GPU vs CPU to -tol), that the kernels ran (GPU flops) and, on\n"
                           "one rank, that no host<->device copy happened in the applies; Vecs of the other kind (host Vecs\n"
                           "with the GPU stencil, CUDA Vecs with the CPU one) go through host arrays and agree too.\n"
                           "-reps N times N applies of each. -E Ex,Ey,Ez (V/cm).\n";

#include <bte/private/bteimpl.h>
#include <bte/private/dynamicsimpl.h>
#include <bte/private/driftcuda.h>

#if defined(PETSC_HAVE_DEVICE)
  #define GPU_FLOPS petsc_gflops
  #define GTOC_CT   petsc_gtoc_ct
  #define CTOG_CT   petsc_ctog_ct
#else
  #define GPU_FLOPS 0.0
  #define GTOC_CT   0.0
  #define CTOG_CT   0.0
#endif

/* max|a - b| / max|b|, compared on the host */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *r)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  PetscReal          lo[2] = {0, 0}, gl[2];

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(a, &n));
  PetscCall(VecGetArrayRead(a, &x));
  PetscCall(VecGetArrayRead(b, &y));
  for (PetscInt i = 0; i < n; i++) {
    lo[0] = PetscMax(lo[0], PetscAbsScalar(x[i] - y[i]));
    lo[1] = PetscMax(lo[1], PetscAbsScalar(y[i]));
    if (PetscIsNanScalar(x[i])) lo[0] = PETSC_MAX_REAL;
  }
  PetscCall(VecRestoreArrayRead(a, &x));
  PetscCall(VecRestoreArrayRead(b, &y));
  PetscCall(MPIU_Allreduce(lo, gl, 2, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)a)));
  *r = gl[1] > 0 ? gl[0] / gl[1] : gl[0];
  PetscFunctionReturn(0);
}

static PetscInt nfail = 0;

static PetscErrorCode Check(const char what[], PetscReal value, PetscReal tol)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-58s %10.3e  (tol %.0e)%s\n", what, (double)value, (double)tol, value <= tol ? "" : "  FAILED"));
  if (!(value <= tol)) nfail++;
  PetscFunctionReturn(0);
}

/* dst (any type) <- src values, through the host */
static PetscErrorCode CopyValues(Vec src, Vec dst)
{
  const PetscScalar *s;
  PetscScalar       *d;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(src, &n));
  PetscCall(VecGetArrayRead(src, &s));
  PetscCall(VecGetArrayWrite(dst, &d));
  PetscCall(PetscArraycpy(d, s, n));
  PetscCall(VecRestoreArrayWrite(dst, &d));
  PetscCall(VecRestoreArrayRead(src, &s));
  PetscFunctionReturn(0);
}

/* muscl, written per face: the face between j and j + b (carriers moving along b, a_b = -c_b > 0)
   carries 2 a_b h(j, b), h = f_j + sigma/2, sigma = L(f_j - f_{j-b}, f_{j+b} - f_j) (0 without both
   neighbours), L van Leer or minmod; dL/dp, dL/dq give J. gn: the neighbour table of all states
   (global indices, -1 outside the window). */
static void RefSlope(BTEDriftLimiter lim, PetscReal p, PetscReal q, PetscReal *s, PetscReal *dp, PetscReal *dq)
{
  *s = *dp = *dq = 0;
  if (p * q <= 0) return;
  if (lim == BTE_DRIFT_LIMITER_VANLEER) {
    *s  = 2 * p * q / (p + q);
    *dp = 2 * q * q / ((p + q) * (p + q));
    *dq = 2 * p * p / ((p + q) * (p + q));
  } else if (PetscAbsReal(p) <= PetscAbsReal(q)) {
    *s  = p;
    *dp = 1;
  } else {
    *s  = q;
    *dq = 1;
  }
}

/* the face value h(j, b) at f and its derivative along x */
static void RefFace(BTEDrift d, const PetscInt *gn, PetscInt j, PetscInt b, PetscInt ob, const PetscScalar *fa, const PetscScalar *xa, PetscReal *h, PetscReal *dh, PetscReal *al, PetscReal *be)
{
  const PetscInt nb = d->bv.nb, jm = gn[j * nb + ob], jp = gn[j * nb + b];
  PetscReal      s = 0, dp = 0, dq = 0, fj = PetscRealPart(fa[j]), xj = PetscRealPart(xa[j]);

  if (jm >= 0 && jp >= 0) RefSlope(d->limiter, fj - PetscRealPart(fa[jm]), PetscRealPart(fa[jp]) - fj, &s, &dp, &dq);
  *h  = fj + s / 2;
  *dh = xj + (jm >= 0 && jp >= 0 ? (dp * (xj - PetscRealPart(xa[jm])) + dq * (PetscRealPart(xa[jp]) - xj)) / 2 : 0);
  *al = dp;
  *be = dq;
}

static PetscErrorCode ReferenceMUSCL(BTEDrift d, const PetscScalar *fa, const PetscScalar *xa, PetscScalar *Da, PetscScalar *Ja, PetscScalar *Ga)
{
  const PetscInt nb = d->bv.nb, nl = d->nlocal, rstart = d->bte->rstart;
  MPI_Comm       comm = PetscObjectComm((PetscObject)d);
  PetscInt      *mine, *gn, N = d->bte->nstates;
  PetscMPIInt    size, *cnt, *dsp, n = (PetscMPIInt)(nl * nb);

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMalloc4(nl * nb, &mine, N * nb, &gn, size, &cnt, size, &dsp));
  for (PetscInt q = 0; q < nl * nb; q++) {
    PetscInt j = d->nbr[q];
    mine[q]    = j < 0 ? -1 : (j < nl ? rstart + j : d->ghosts[j - nl]);
  }
  PetscCallMPI(MPI_Allgather(&n, 1, MPI_INT, cnt, 1, MPI_INT, comm));
  dsp[0] = 0;
  for (PetscMPIInt r = 1; r < size; r++) dsp[r] = dsp[r - 1] + cnt[r - 1];
  PetscCallMPI(MPI_Allgatherv(mine, n, MPIU_INT, gn, cnt, dsp, MPIU_INT, comm));
  for (PetscInt i = 0; i < nl; i++) {
    const PetscInt gi = rstart + i;
    PetscReal      D = 0, J = 0, G = 0;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt  ob = -1, jm, jp;
      PetscReal ab = -d->c[b], h, dh, al, be;
      if (!(ab > 0)) continue;
      for (PetscInt o = 0; o < nb; o++)
        if (d->bv.m[3 * o] == -d->bv.m[3 * b] && d->bv.m[3 * o + 1] == -d->bv.m[3 * b + 1] && d->bv.m[3 * o + 2] == -d->bv.m[3 * b + 2]) ob = o;
      jm = gn[gi * nb + ob];
      jp = gn[gi * nb + b];
      if (jm >= 0) { /* inflow through the face (i - b, i) */
        RefFace(d, gn, jm, b, ob, fa, xa, &h, &dh, &al, &be);
        D += 2 * ab * h;
        J += 2 * ab * dh;
        if (gn[jm * nb + b] == gi && gn[jm * nb + ob] >= 0) G += ab * be; /* dh(i - b)/df_i = beta/2 */
      }
      if (jp >= 0) { /* outflow through the face (i, i + b) */
        RefFace(d, gn, gi, b, ob, fa, xa, &h, &dh, &al, &be);
        D -= 2 * ab * h;
        J -= 2 * ab * dh;
        G -= 2 * ab * (1 + (al - be) / 2);
      }
    }
    Da[i] = D;
    Ja[i] = J;
    Ga[i] = G;
  }
  PetscCall(PetscFree4(mine, gn, cnt, dsp));
  PetscFunctionReturn(0);
}

/* The direct loop: D, J x and diag J at f from the neighbour table of d (all values gathered) */
static PetscErrorCode Reference(BTEDrift d, Vec f, Vec x, Vec D, Vec Jx, Vec Jd)
{
  const PetscInt     nb = d->bv.nb, nl = d->nlocal, rstart = d->bte->rstart;
  VecScatter         sc;
  Vec                fall, xall;
  const PetscScalar *fa, *xa;
  PetscScalar       *Da, *Ja, *Ga;
  PetscReal         *g, *u;
  PetscInt           N;

  PetscFunctionBegin;
  PetscCall(VecScatterCreateToAll(f, &sc, &fall));
  PetscCall(VecDuplicate(fall, &xall));
  PetscCall(VecScatterBegin(sc, f, fall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, f, fall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(sc, x, xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(sc, x, xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetSize(fall, &N));
  PetscCall(VecGetArrayRead(fall, &fa));
  PetscCall(VecGetArrayRead(xall, &xa));
  PetscCall(PetscMalloc2(N, &g, N, &u));
  for (PetscInt k = 0; k < N; k++) BTEDriftLogOcc(PetscRealPart(fa[k]), &g[k], &u[k]);
  PetscCall(VecGetArrayWrite(D, &Da));
  PetscCall(VecGetArrayWrite(Jx, &Ja));
  PetscCall(VecGetArrayWrite(Jd, &Ga));
  if (d->form == BTE_DRIFT_MUSCL) PetscCall(ReferenceMUSCL(d, fa, xa, Da, Ja, Ga));
  for (PetscInt i = 0; i < nl && d->form != BTE_DRIFT_MUSCL; i++) {
    PetscInt  gi = rstart + i;
    PetscReal fi = PetscRealPart(fa[gi]), s = 0, S = 0, C = 0, Cout = 0, sx = 0, jd;
    for (PetscInt b = 0; b < nb; b++) {
      PetscInt j = d->nbr[i * nb + b], gj;
      if (j < 0) continue;
      gj = j < nl ? rstart + j : d->ghosts[j - nl];
      if (d->form == BTE_DRIFT_PLAIN) {
        s += d->c[b] * (PetscRealPart(fa[gj]) + fi);
        sx += d->c[b] * PetscRealPart(xa[gj]);
      } else if (d->form == BTE_DRIFT_UPWIND) { /* the flux carries the upwind end's f, twice */
        const PetscReal in = d->c[b] > 0 ? 2 * d->c[b] : 0, out = d->c[b] < 0 ? -2 * d->c[b] : 0;
        s += in * PetscRealPart(fa[gj]) - out * fi;
        sx += in * PetscRealPart(xa[gj]);
        Cout += out;
      } else {
        S += d->c[b] * (g[gj] - g[gi]);
        sx += d->c[b] * u[gj] * PetscRealPart(xa[gj]);
      }
      C += d->c[b];
    }
    if (d->form != BTE_DRIFT_LOG) {
      Da[i] = s;
      jd    = d->form == BTE_DRIFT_UPWIND ? -Cout : C;
      Ja[i] = jd * PetscRealPart(xa[gi]) + sx;
    } else {
      PetscReal p = fi * (fi - 1);
      Da[i]       = p * S;
      jd          = (2 * fi - 1) * S - p * u[gi] * C;
      Ja[i]       = jd * PetscRealPart(xa[gi]) + p * sx;
    }
    Ga[i] = jd;
  }
  PetscCall(VecRestoreArrayWrite(D, &Da));
  PetscCall(VecRestoreArrayWrite(Jx, &Ja));
  PetscCall(VecRestoreArrayWrite(Jd, &Ga));
  PetscCall(PetscFree2(g, u));
  PetscCall(VecRestoreArrayRead(fall, &fa));
  PetscCall(VecRestoreArrayRead(xall, &xa));
  PetscCall(VecDestroy(&fall));
  PetscCall(VecDestroy(&xall));
  PetscCall(VecScatterDestroy(&sc));
  PetscFunctionReturn(0);
}

/* D = D[f], A = x + D[f] (ApplyAdd), J = J(f) x, G = diag J(f), each from zero or x */
typedef struct {
  Vec D, A, J, G;
} Results;

static PetscErrorCode ResultsCreate(Vec like, Results *r)
{
  PetscFunctionBegin;
  PetscCall(VecDuplicate(like, &r->D));
  PetscCall(VecDuplicate(like, &r->A));
  PetscCall(VecDuplicate(like, &r->J));
  PetscCall(VecDuplicate(like, &r->G));
  PetscFunctionReturn(0);
}

static PetscErrorCode ResultsDestroy(Results *r)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&r->D));
  PetscCall(VecDestroy(&r->A));
  PetscCall(VecDestroy(&r->J));
  PetscCall(VecDestroy(&r->G));
  PetscFunctionReturn(0);
}

static PetscErrorCode Run(BTEDrift d, Vec f, Vec x, Results *r)
{
  PetscFunctionBegin;
  PetscCall(VecSet(r->D, -7.0)); /* poison: every entry must be written */
  PetscCall(BTEDriftApply(d, f, r->D));
  PetscCall(VecCopy(x, r->A));
  PetscCall(BTEDriftApplyAdd(d, f, r->A));
  PetscCall(BTEDriftSetJacobianState(d, f));
  PetscCall(VecZeroEntries(r->J));
  PetscCall(BTEDriftJacobianMultAdd(d, x, r->J));
  PetscCall(VecZeroEntries(r->G));
  PetscCall(BTEDriftJacobianDiagonalAdd(d, r->G));
  PetscFunctionReturn(0);
}

static PetscErrorCode Compare(const char *who, const char *ref, Results *a, Results *b, PetscReal tol)
{
  PetscReal r;
  char      what[128];

  PetscFunctionBegin;
  PetscCall(RelDiff(a->D, b->D, &r));
  PetscCall(PetscSNPrintf(what, sizeof(what), "D[f]      %s vs %s", who, ref));
  PetscCall(Check(what, r, tol));
  PetscCall(RelDiff(a->A, b->A, &r));
  PetscCall(PetscSNPrintf(what, sizeof(what), "x + D[f]  %s vs %s", who, ref));
  PetscCall(Check(what, r, tol));
  PetscCall(RelDiff(a->J, b->J, &r));
  PetscCall(PetscSNPrintf(what, sizeof(what), "J(f) x    %s vs %s", who, ref));
  PetscCall(Check(what, r, tol));
  PetscCall(RelDiff(a->G, b->G, &r));
  PetscCall(PetscSNPrintf(what, sizeof(what), "diag J(f) %s vs %s", who, ref));
  PetscCall(Check(what, r, tol));
  PetscFunctionReturn(0);
}

static PetscErrorCode DriftCreate(BTE bte, const char *prefix, const char *mattype, const PetscReal E[3], BTEDriftForm form, BTEDrift *d)
{
  char opt[64];

  PetscFunctionBegin;
  PetscCall(BTEDriftCreate(bte, d));
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*d, prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%sbte_drift_mat_type", prefix));
  PetscCall(PetscOptionsSetValue(NULL, opt, mattype));
  PetscCall(BTEDriftSetFromOptions(*d));
  PetscCall(BTEDriftSetField(*d, E));
  PetscCall(BTEDriftSetForm(*d, form));
  PetscCall(BTEDriftSetUp(*d));
  PetscFunctionReturn(0);
}

static PetscErrorCode Time(BTEDrift d, Vec f, Vec x, Vec y, PetscInt reps, const char *who)
{
  PetscLogDouble t0, t1, t2;
  PetscReal      nrm;

  PetscFunctionBegin;
  PetscCall(BTEDriftApply(d, f, y));
  PetscCall(VecNorm(y, NORM_2, &nrm)); /* sync */
  PetscCall(PetscTime(&t0));
  for (PetscInt k = 0; k < reps; k++) PetscCall(BTEDriftApplyAdd(d, f, y));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t1));
  PetscCall(BTEDriftSetJacobianState(d, f));
  for (PetscInt k = 0; k < reps; k++) PetscCall(BTEDriftJacobianMultAdd(d, x, y));
  PetscCall(VecNorm(y, NORM_2, &nrm));
  PetscCall(PetscTime(&t2));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s y += D[f] %8.4f ms, y += J x %8.4f ms (mean of %" PetscInt_FMT ")\n", who, 1e3 * (t1 - t0) / reps, 1e3 * (t2 - t1) / reps, reps));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  BTE         bte;
  PetscMPIInt size;
  PetscBool   cuda = PETSC_FALSE;
  PetscInt    reps = 0, nE = 3;
  PetscReal   tol = 1e-12, E[3] = {2000, -700, 300};
  Vec         fh, xh, fd = NULL, xd = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cuda", &cuda, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-E", E, &nE, NULL));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  if (bte->grid.dim == 2) E[2] = 0;
  PetscCall(PetscPrintf(comm, "BTE: %" PetscInt_FMT " states, %d rank(s); field (%g, %g, %g) V/cm\n", bte->nstates, size, (double)E[0], (double)E[1], (double)E[2]));

  /* host Vecs; f in (0, 1) with some f = 0 and f = 1e-18 (g clipped at +35), x of both signs */
  PetscCall(VecCreateMPI(comm, bte->nlocal, bte->nstates, &fh));
  PetscCall(VecDuplicate(fh, &xh));
  {
    PetscScalar *fa, *xa;
    PetscReal    edge;
    PetscCall(BTEGetBandEdge(bte, &edge));
    PetscCall(VecGetArrayWrite(fh, &fa));
    PetscCall(VecGetArrayWrite(xh, &xa));
    for (PetscInt i = 0; i < bte->nlocal; i++) {
      PetscInt gi = bte->rstart + i;
      fa[i]       = 0.4 * PetscExpReal(-(bte->energy[i] - edge) / 0.08) * (1 + 0.3 * PetscSinReal(0.37 * gi)) + 1e-4;
      if (gi % 97 == 5) fa[i] = 0;
      if (gi % 89 == 7) fa[i] = 1e-18;
      xa[i] = 1e-3 * PetscSinReal(1.0 + 7.0 * gi);
    }
    PetscCall(VecRestoreArrayWrite(fh, &fa));
    PetscCall(VecRestoreArrayWrite(xh, &xa));
  }
  if (cuda) {
    VecType vt;
    PetscCall(VecCreate(comm, &fd));
    PetscCall(VecSetSizes(fd, bte->nlocal, bte->nstates));
    PetscCall(VecSetType(fd, VECCUDA));
    PetscCall(VecGetType(fd, &vt));
    PetscCall(PetscPrintf(comm, "device Vec type: %s\n", vt));
    PetscCall(VecDuplicate(fd, &xd));
    PetscCall(CopyValues(fh, fd));
    PetscCall(CopyValues(xh, xd));
  }

  for (PetscInt cfg = 0; cfg < 5; cfg++) { /* log, plain, upwind, muscl (van Leer), muscl (minmod) */
    BTEDriftForm form = cfg < 4 ? (BTEDriftForm)cfg : BTE_DRIFT_MUSCL;
    BTEDrift     dh, dd = NULL;
    Results      ref, rh, rd, rx;
    MatType      mt;

    PetscCall(DriftCreate(bte, "cpu_", MATAIJ, E, form, &dh));
    if (cfg == 4) PetscCall(BTEDriftSetLimiter(dh, BTE_DRIFT_LIMITER_MINMOD));
    PetscCall(MatGetType(dh->A, &mt));
    PetscCall(PetscPrintf(comm, "%s%s form (stencil %s, %" PetscInt_FMT " b-vectors):\n", BTEDriftForms[form], form == BTE_DRIFT_MUSCL ? (cfg == 4 ? " (minmod)" : " (van Leer)") : "", mt, dh->bv.nb));
    PetscCall(ResultsCreate(fh, &ref));
    PetscCall(ResultsCreate(fh, &rh));
    PetscCall(Reference(dh, fh, xh, ref.D, ref.J, ref.G));
    PetscCall(VecCopy(xh, ref.A));
    PetscCall(VecAXPY(ref.A, 1.0, ref.D));
    PetscCall(Run(dh, fh, xh, &rh));
    PetscCall(Compare("CPU", "direct loop", &rh, &ref, tol));
    if (cuda) {
      PetscLogDouble gf0, gf1, g2c0, g2c1, c2g0, c2g1;
      PetscCall(DriftCreate(bte, "gpu_", MATAIJCUSPARSE, E, form, &dd));
      if (cfg == 4) PetscCall(BTEDriftSetLimiter(dd, BTE_DRIFT_LIMITER_MINMOD));
      PetscCall(MatGetType(dd->A, &mt));
      PetscCall(PetscPrintf(comm, "  GPU stencil %s, pointwise steps on the %s\n", mt, dd->cuda ? "GPU" : "host"));
      PetscCheck(dd->cuda, comm, PETSC_ERR_PLIB, "FAILED: the AIJCUSPARSE stencil did not give CUDA work Vecs");
      PetscCall(ResultsCreate(fd, &rd));
      PetscCall(Run(dd, fd, xd, &rd)); /* warm-up: work Vecs made, first MatMult on the device */
      g2c0 = GTOC_CT;
      c2g0 = CTOG_CT;
      gf0  = GPU_FLOPS;
      PetscCall(Run(dd, fd, xd, &rd));
      gf1  = GPU_FLOPS;
      g2c1 = GTOC_CT;
      c2g1 = CTOG_CT;
      PetscCall(PetscPrintf(comm, "  GPU flops logged: %.0f; copies device->host %.0f, host->device %.0f (rank 0)\n", gf1 - gf0, g2c1 - g2c0, c2g1 - c2g0));
      if (!(gf1 > gf0)) {
        PetscCall(PetscPrintf(comm, "  FAILED: no GPU flops logged: the drift did not run on the GPU\n"));
        nfail++;
      }
      if (size == 1 && (g2c1 != g2c0 || c2g1 != c2g0)) {
        PetscCall(PetscPrintf(comm, "  FAILED: the GPU applies copied between host and device (%.0f d->h, %.0f h->d)\n", g2c1 - g2c0, c2g1 - c2g0));
        nfail++;
      }
      PetscCall(Compare("GPU", "CPU", &rd, &rh, tol));
      PetscCall(Compare("GPU", "direct loop", &rd, &ref, tol));
      /* Vecs of the other kind: host Vecs with the GPU stencil, CUDA Vecs with the CPU stencil */
      PetscCall(ResultsCreate(fh, &rx));
      PetscCall(Run(dd, fh, xh, &rx));
      PetscCall(Compare("GPU stencil, host Vecs", "CPU", &rx, &rh, tol));
      PetscCall(ResultsDestroy(&rx));
      PetscCall(ResultsCreate(fd, &rx));
      PetscCall(Run(dh, fd, xd, &rx));
      PetscCall(Compare("CPU stencil, CUDA Vecs", "CPU", &rx, &rh, tol));
      PetscCall(ResultsDestroy(&rx));
      if (reps > 0) {
        PetscCall(Time(dd, fd, xd, rd.A, reps, "GPU"));
        PetscCall(Time(dh, fd, xd, rd.A, reps, "CPU stencil, CUDA Vecs"));
      }
      PetscCall(ResultsDestroy(&rd));
      PetscCall(BTEDriftDestroy(&dd));
    }
    if (reps > 0) PetscCall(Time(dh, fh, xh, rh.A, reps, "CPU"));
    PetscCall(ResultsDestroy(&ref));
    PetscCall(ResultsDestroy(&rh));
    PetscCall(BTEDriftDestroy(&dh));
  }
  PetscCall(VecDestroy(&fh));
  PetscCall(VecDestroy(&xh));
  PetscCall(VecDestroy(&fd));
  PetscCall(VecDestroy(&xd));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " failure(s)\n", nfail ? "FAILED" : "PASSED", nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
