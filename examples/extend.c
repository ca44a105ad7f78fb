/* extend: an application's own model and collision operator type, registered with bte and run
   (docs/extending.md). Built against an install like any application:

     cc=$(pkg-config --variable=ccompiler bte)
     $cc $(pkg-config --cflags bte) extend.c -o extend $(pkg-config --libs bte)
     mpiexec -n 2 ./extend -einstein_a 20 -bte_grid 12

   The model "einstein": one isotropic parabolic band e = hbar^2 k^2 / (2 m*) on a simple cubic
   lattice and one dispersionless (Einstein) phonon of energy hw0 with a constant coupling |g|^2.
   Its create function sets the model operations of bte/private/bteimpl.h; its generate operation
   hands a BTEModelSpec to BTEModelBuild, which applies bte's selection rules.

   The collision type "loop": the collision integral of docs/theory.md written out channel by
   channel (two Gaussians, the phonon occupation and the absorption and emission terms per
   channel, every apply), on the layout the generic layer hands to an implementation (local
   channel ends, owned states then ghosts).

   Checks (exit 1 if one fails): every channel of the model has the model's phonon energy and
   coupling; I[f], J(f) x and the scattering rates of "loop" agree with the built-in "pair" type
   on the same states (relative 1e-12); sum_i I_i = 0 (carrier conservation); a dynamics run with
   "loop" conserves the carrier number and relaxes the mean energy of a hot distribution. */
#include <bte/private/modelimpl.h>
#include <bte/private/collisionimpl.h>

static const char help[] = "Register an application's own model and collision operator type with bte.\n";

/* ---------------- the model ---------------- */
typedef struct {
  PetscReal a, mass, hw0, g2;
} Einstein;

#define HB2_2ME 3.80998212 /* hbar^2 / (2 m_e), eV Angstrom^2 */

static PetscErrorCode EinsteinBands(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[])
{
  const Einstein *p = (const Einstein *)ctx;
  PetscReal       C = HB2_2ME / p->mass;

  e[0] = C * (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  for (int c = 0; c < 3; c++) v[c] = 2 * C * k[c] / BTE_HBAR; /* group velocity (1/hbar) de/dk, Angstrom/fs */
  return 0;
}

static PetscErrorCode EinsteinCoupling(void *ctx, PetscInt n, const PetscReal k[3], PetscInt m, const PetscReal kp[3], const PetscReal q[3], PetscReal hw[], PetscReal g2[])
{
  const Einstein *p = (const Einstein *)ctx;

  (void)n, (void)k, (void)m, (void)kp, (void)q;
  hw[0] = p->hw0;
  g2[0] = p->g2;
  return 0;
}

/* read from BTESetFromOptions only, with the BTE's options prefix */
static PetscErrorCode EinsteinSetFromOptions(BTE bte)
{
  Einstein *p = (Einstein *)bte->modeldata;

  PetscFunctionBeginUser;
  PetscOptionsBegin(PetscObjectComm((PetscObject)bte), ((PetscObject)bte)->prefix, "Model einstein (examples/extend.c)", "BTE");
  PetscCall(PetscOptionsReal("-einstein_a", "Simple cubic lattice constant, Angstrom", "", p->a, &p->a, NULL));
  PetscCall(PetscOptionsReal("-einstein_mass", "Effective mass, electron masses", "", p->mass, &p->mass, NULL));
  PetscCall(PetscOptionsReal("-einstein_hw", "Phonon energy, eV", "", p->hw0, &p->hw0, NULL));
  PetscCall(PetscOptionsReal("-einstein_g2", "Coupling |g|^2, eV^2", "", p->g2, &p->g2, NULL));
  PetscOptionsEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode EinsteinGenerate(BTE bte)
{
  Einstein     p = *(const Einstein *)bte->modeldata;
  BTEModelSpec spec;

  PetscFunctionBeginUser;
  PetscCheck(p.a > 0 && p.mass > 0 && p.hw0 > 0 && p.g2 > 0, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_OUTOFRANGE, "Model einstein: a, mass, hw and g2 must be positive");
  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  spec.name       = "einstein";
  spec.dim        = 3;
  spec.nbands     = 1;
  spec.nmodes     = 1;
  spec.spin       = 2;
  spec.carrier    = -1;
  spec.lattice[0] = spec.lattice[4] = spec.lattice[8] = p.a;
  spec.eedge      = 0.0;
  spec.hwmax      = p.hw0;
  spec.ctx        = &p;
  spec.bands      = EinsteinBands;
  spec.coupling   = EinsteinCoupling;
  spec.source     = "examples/extend.c";
  PetscCall(BTEParamsAdd(bte, "lattice_constant", p.a, "Angstrom"));
  PetscCall(BTEParamsAdd(bte, "effective_mass", p.mass, "m_e"));
  PetscCall(BTEParamsAdd(bte, "hw0", p.hw0, "eV"));
  PetscCall(BTEParamsAdd(bte, "g2", p.g2, "eV^2"));
  PetscCall(BTEModelBuild(bte, &spec));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelCreate_Einstein(BTE bte)
{
  Einstein *p;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&p));
  p->a    = 20.0;
  p->mass = 0.2;
  p->hw0  = 0.03;
  p->g2   = 2e-3;
  bte->modeldata               = p; /* freed by bte (no destroy operation) */
  bte->modelops.setfromoptions = EinsteinSetFromOptions;
  bte->modelops.generate       = EinsteinGenerate;
  PetscFunctionReturn(0);
}

/* ---------------- the collision operator type ---------------- */
typedef struct {
  PetscCount n;
  PetscInt  *i, *j; /* local ends: owned states 0..nlocal-1, then ghosts */
  PetscReal *hw, *g2;
} Loop;

static PetscErrorCode LoopSetUp(BTECollision coll)
{
  Loop     *L;
  BTE       bte = coll->bte;

  PetscFunctionBeginUser;
  PetscCall(PetscNew(&L));
  L->n = coll->nch;
  PetscCall(PetscMalloc4(L->n, &L->i, L->n, &L->j, L->n, &L->hw, L->n, &L->g2));
  /* coll->ci, cj (freed after setup) are the local ends of the channels in bte->ch order */
  PetscCall(PetscArraycpy(L->i, coll->ci, L->n));
  PetscCall(PetscArraycpy(L->j, coll->cj, L->n));
  PetscCall(PetscArraycpy(L->hw, bte->ch.hw, L->n));
  PetscCall(PetscArraycpy(L->g2, bte->ch.g2, L->n));
  coll->data     = L;
  coll->nentries = 0;
  for (PetscCount c = 0; c < L->n; c++) coll->nentries += (L->i[c] < coll->nlocal) + (L->j[c] < coll->nlocal);
  coll->bytes = (PetscLogDouble)L->n * (2 * sizeof(PetscInt) + 2 * sizeof(PetscReal));
  PetscFunctionReturn(0);
}

/* absorption and emission weights a, b (1/fs) and the phonon occupation N of channel c */
static inline void LoopWeights(BTECollision coll, const Loop *L, PetscCount c, PetscReal *a, PetscReal *b, PetscReal *N)
{
  PetscReal d = coll->energy[L->i[c]] - coll->energy[L->j[c]], eta = coll->eta, hw = L->hw[c];
  PetscReal w = 2 * PETSC_PI / BTE_HBAR / (PetscReal)coll->nq * L->g2[c] / (eta * PetscSqrtReal(PETSC_PI));

  *a = w * PetscExpReal(-PetscSqr((d + hw) / eta));
  *b = w * PetscExpReal(-PetscSqr((d - hw) / eta));
  *N = 1 / (PetscExpReal(hw / coll->kT) - 1);
}

static PetscErrorCode LoopApply(BTECollision coll, Vec fl, Vec Iv)
{
  Loop              *L = (Loop *)coll->data;
  const PetscScalar *f;
  PetscScalar       *y;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(fl, &f));
  PetscCall(VecGetArrayWrite(Iv, &y));
  PetscCall(PetscArrayzero(y, coll->nlocal));
  for (PetscCount c = 0; c < L->n; c++) {
    PetscInt  i = L->i[c], j = L->j[c];
    PetscReal a, b, N, fi = PetscRealPart(f[i]), fj = PetscRealPart(f[j]), x;
    LoopWeights(coll, L, c, &a, &b, &N);
    /* absorption (i + phonon -> j) and emission (i -> j + phonon) against their reverses */
    x = -(a * (fi * (N + fj) - fj * (N + 1)) + b * (fi * (N + 1) - fj * (N + fi)));
    if (i < coll->nlocal) y[i] += x;
    if (j < coll->nlocal) y[j] -= x;
  }
  PetscCall(VecRestoreArrayWrite(Iv, &y));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscFunctionReturn(0);
}

/* y = J x, or the diagonal of J when x is NULL */
static PetscErrorCode LoopJacobian(BTECollision coll, Vec fl, Vec xl, Vec Y)
{
  Loop              *L = (Loop *)coll->data;
  const PetscScalar *f, *x = NULL;
  PetscScalar       *y;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(fl, &f));
  if (xl) PetscCall(VecGetArrayRead(xl, &x));
  PetscCall(VecGetArrayWrite(Y, &y));
  PetscCall(PetscArrayzero(y, coll->nlocal));
  for (PetscCount c = 0; c < L->n; c++) {
    PetscInt  i = L->i[c], j = L->j[c];
    PetscReal a, b, N, fi = PetscRealPart(f[i]), fj = PetscRealPart(f[j]);
    PetscReal dxi, dxj; /* derivatives of the channel's term by f_i and f_j */
    LoopWeights(coll, L, c, &a, &b, &N);
    dxi = -(a * (N + fj) + b * (N + 1 - fj));
    dxj = -(a * (fi - N - 1) + b * (-(N + fi)));
    if (x) {
      PetscReal dx = dxi * PetscRealPart(x[i]) + dxj * PetscRealPart(x[j]);
      if (i < coll->nlocal) y[i] += dx;
      if (j < coll->nlocal) y[j] -= dx;
    } else {
      if (i < coll->nlocal) y[i] += dxi;
      if (j < coll->nlocal) y[j] -= dxj;
    }
  }
  PetscCall(VecRestoreArrayWrite(Y, &y));
  if (xl) PetscCall(VecRestoreArrayRead(xl, &x));
  PetscCall(VecRestoreArrayRead(fl, &f));
  PetscFunctionReturn(0);
}

static PetscErrorCode LoopJacobianApply(BTECollision coll, Vec fl, Vec xl, Vec y)
{
  PetscFunctionBeginUser;
  PetscCall(LoopJacobian(coll, fl, xl, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode LoopJacobianDiagonal(BTECollision coll, Vec fl, Vec d)
{
  PetscFunctionBeginUser;
  PetscCall(LoopJacobian(coll, fl, NULL, d));
  PetscFunctionReturn(0);
}

static PetscErrorCode LoopDestroy(BTECollision coll)
{
  Loop *L = (Loop *)coll->data;

  PetscFunctionBeginUser;
  if (L) PetscCall(PetscFree4(L->i, L->j, L->hw, L->g2));
  PetscCall(PetscFree(coll->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTECollisionCreate_Loop(BTECollision coll)
{
  PetscFunctionBeginUser;
  coll->ops->setup             = LoopSetUp;
  coll->ops->apply             = LoopApply;
  coll->ops->jacobian_apply    = LoopJacobianApply;
  coll->ops->jacobian_diagonal = LoopJacobianDiagonal;
  coll->ops->destroy           = LoopDestroy;
  PetscFunctionReturn(0);
}

/* ---------------- the application ---------------- */
static PetscInt nfail = 0;

static PetscErrorCode Check(PetscBool ok, const char what[], PetscReal value, PetscReal bound)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-52s %10.3e  (bound %.1e)%s\n", what, (double)value, (double)bound, ok ? "" : "  FAILED"));
  if (!ok) nfail++;
  PetscFunctionReturn(0);
}

/* max |a - b| / max |b| */
static PetscErrorCode RelDiff(Vec a, Vec b, PetscReal *r)
{
  Vec       d;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(a, &d));
  PetscCall(VecWAXPY(d, -1.0, b, a));
  PetscCall(VecNorm(d, NORM_INFINITY, &nd));
  PetscCall(VecNorm(b, NORM_INFINITY, &nb));
  *r = nb > 0 ? nd / nb : nd;
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  BTE           bte;
  BTECollision  loop, pair;
  BTEDynamics   dyn;
  Vec           f, x, I1, I2, f1;
  PetscInt      nstates, ntypes;
  PetscInt64    nch;
  PetscReal     t0, edge, r, hwdev = 0, g2dev = 0, hw0 = 0.03, g2 = 2e-3, n0, n1, e0, e1, nI, nf;
  PetscScalar   s;
  const char  **types;
  PetscBool     found = PETSC_FALSE;
  PetscRandom   rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(BTEModelRegister("einstein", BTEModelCreate_Einstein));
  PetscCall(BTECollisionRegister("loop", BTECollisionCreate_Loop));
  PetscCall(BTECollisionGetTypes(&ntypes, &types));
  for (PetscInt k = 0; k < ntypes && !found; k++) PetscCall(PetscStrcmp(types[k], "loop", &found));
  PetscCall(PetscFree(types));
  PetscCall(Check(found, "collision type 'loop' registered (1 = no)", found ? 0 : 1, 0));

  /* the model, with its options read by BTESetFromOptions */
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetModel(bte, "einstein"));
  PetscCall(BTESetGrid(bte, 12));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTEGetNumStates(bte, NULL, &nstates));
  PetscCall(BTEGetNumChannels(bte, NULL, &nch));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model einstein: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels\n", nstates, nch));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-einstein_hw", &hw0, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-einstein_g2", &g2, NULL));
  for (PetscCount c = 0; c < bte->ch.n; c++) {
    hwdev = PetscMax(hwdev, PetscAbsReal(bte->ch.hw[c] - hw0));
    g2dev = PetscMax(g2dev, PetscAbsReal(bte->ch.g2[c] - g2) / g2);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &hwdev, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &g2dev, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  PetscCall(Check((PetscBool)(nch > 0), "channels built (1 = none)", nch > 0 ? 0 : 1, 0));
  PetscCall(Check((PetscBool)(hwdev <= 1e-15), "channel phonon energies: max |hw - hw0|, eV", hwdev, 1e-15));
  PetscCall(Check((PetscBool)(g2dev <= 1e-15), "channel couplings: max |g2 - g2_0| / g2_0", g2dev, 1e-15));

  /* the two operators on the same states */
  PetscCall(BTECollisionCreate(bte, &loop));
  PetscCall(BTECollisionSetType(loop, "loop"));
  PetscCall(BTECollisionCreate(bte, &pair));
  PetscCall(BTECollisionSetType(pair, BTECOLLISIONPAIR));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(VecDuplicate(f, &I1));
  PetscCall(VecDuplicate(f, &I2));
  PetscCall(BTEGetBandEdge(bte, &edge));
  PetscCall(BTEComputeDistribution(bte, BTE_INIT_GAUSSIAN, edge + 0.1, 0.03, 0.2, f));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(PetscRandomDestroy(&rnd));

  PetscCall(BTECollisionApply(loop, f, I1));
  PetscCall(BTECollisionApply(pair, f, I2));
  PetscCall(RelDiff(I1, I2, &r));
  PetscCall(Check((PetscBool)(r <= 1e-12), "I[f]: loop vs pair, max|d| / max|I|", r, 1e-12));
  PetscCall(VecSum(I1, &s));
  PetscCall(VecNorm(I1, NORM_1, &nI));
  PetscCall(Check((PetscBool)(PetscAbsScalar(s) <= 1e-12 * nI), "sum_i I_i / sum_i |I_i| (carrier conservation)", PetscAbsScalar(s) / nI, 1e-12));
  PetscCall(BTECollisionJacobianApply(loop, f, x, I1));
  PetscCall(BTECollisionJacobianApply(pair, f, x, I2));
  PetscCall(RelDiff(I1, I2, &r));
  PetscCall(Check((PetscBool)(r <= 1e-12), "J(f) x: loop vs pair", r, 1e-12));
  PetscCall(BTECollisionGetScatteringRates(loop, f, I1));
  PetscCall(BTECollisionGetScatteringRates(pair, f, I2));
  PetscCall(RelDiff(I1, I2, &r));
  PetscCall(Check((PetscBool)(r <= 1e-12), "scattering rates at f: loop vs pair", r, 1e-12));

  /* a run with the application's type: 100 fs of relaxation of hot electrons */
  PetscCall(BTEDynamicsCreate(bte, &dyn));
  PetscCall(BTEDynamicsSetCollision(dyn, loop));
  PetscCall(BTEDynamicsSetInitialState(dyn, BTE_INIT_GAUSSIAN, edge + 0.1, 0.03));
  PetscCall(BTEDynamicsSetPeakOccupation(dyn, 0.2));
  PetscCall(BTEDynamicsSetTimes(dyn, 2.0, 100.0));
  PetscCall(BTEDynamicsSetOutput(dyn, NULL, 25.0));
  PetscCall(BTEDynamicsSetFromOptions(dyn));
  PetscCall(BTEDynamicsSetUp(dyn));
  PetscCall(BTECreateStateVec(bte, &f1));
  PetscCall(BTEDynamicsComputeInitialState(dyn, f, &t0));
  PetscCall(BTEComputeMoments(bte, f, &n0, NULL, &e0, NULL));
  PetscCall(BTEDynamicsSolve(dyn, f1));
  PetscCall(BTEComputeMoments(bte, f1, &n1, NULL, &e1, NULL));
  PetscCall(VecNorm(f1, NORM_INFINITY, &nf));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "dynamics with 'loop': <E> - edge %.5f -> %.5f eV in 100 fs\n", (double)(e0 - edge), (double)(e1 - edge)));
  PetscCall(Check((PetscBool)(PetscAbsReal(n1 - n0) <= 1e-10 * n0), "carriers after 100 fs: |n1 - n0| / n0", PetscAbsReal(n1 - n0) / n0, 1e-10));
  PetscCall(Check((PetscBool)(e1 < e0 - 0.005), "mean energy lost in 100 fs, eV (at least)", e0 - e1, 0.005));

  PetscCall(BTEDynamicsDestroy(&dyn));
  PetscCall(VecDestroy(&f1));
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&I1));
  PetscCall(VecDestroy(&I2));
  PetscCall(BTECollisionDestroy(&loop));
  PetscCall(BTECollisionDestroy(&pair));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, nfail ? "%" PetscInt_FMT " checks failed\n" : "all checks passed\n", nfail));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
