static const char help[] = "The pair operator under -bte_partition states and pairs on any number of ranks:\n"
                           "Iv[f], J(f) x (direct and through the MATSHELL) and diag J against fused on the states\n"
                           "partition, conservation, the pairs stored over all ranks, the balance of the computed\n"
                           "channels, and (-write FILE / -compare FILE) against a run on another number of ranks.\n"
                           "Options: -bte_model (else the synthetic BTE of synth.h), -compare_tol T (1e-12; 0: to the bit),\n"
                           "-fused_tol T (against fused; 1e-12), -max_imbalance R (largest rank's\n"
                           "computed channels over the mean), -set_after_setup (changes the partition after setup:\n"
                           "an error), and the collision options (-bte_partition, -bte_pair_tile, ...).\n";

#include "synth.h"
#include <bte/private/collisionimpl.h>
#include "compare.h"

int main(int argc, char **argv)
{
  MPI_Comm              comm;
  BTE                   bte;
  BTECollision          pair, ref;
  BTECollisionPartition part;
  Vec                   f, x, Iv[2], Jx[2], D[2], z;
  Mat                   J;
  char                  model[64] = "", wfile[PETSC_MAX_PATH_LEN] = "", cfile[PETSC_MAX_PATH_LEN] = "";
  PetscBool             hasmodel, haswrite, hascompare, late = PETSC_FALSE;
  PetscReal             r, maximb = 0, ctol = 1e-12, ftol = 1e-12;
  PetscInt              N;
  PetscInt64            nglob;
  PetscCount            npairs, ncomp, nheld;
  PetscMPIInt           size;
  double                loc[3], sum[3], mx[3];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), &hasmodel));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write", wfile, sizeof(wfile), &haswrite));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-compare", cfile, sizeof(cfile), &hascompare));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_imbalance", &maximb, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-compare_tol", &ctol, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-fused_tol", &ftol, NULL)); /* mixed precision rounds pairs and channels apart */
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-set_after_setup", &late, NULL));
  if (hasmodel) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetUp(bte));
  } else PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTEGetNumStates(bte, NULL, &N));
  PetscCall(BTEGetNumChannels(bte, &nheld, &nglob));
  PetscCall(PetscPrintf(comm, "BTE: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels, %d rank(s)\n", N, nglob, size));

  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(VecDuplicate(f, &z));
  PetscCall(SynthFillVec(f, 21));
  PetscCall(SynthFillVec(x, 22));
  PetscCall(VecShift(x, -0.5));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDuplicate(f, &Iv[k]));
    PetscCall(VecDuplicate(f, &Jx[k]));
    PetscCall(VecDuplicate(f, &D[k]));
  }

  /* the operator under test, as the options say; the reference: fused, every channel at both ends */
  PetscCall(BTECollisionCreate(bte, &pair));
  PetscCall(BTECollisionSetType(pair, BTECOLLISIONPAIR));
  PetscCall(BTECollisionSetFromOptions(pair));
  PetscCall(BTECollisionSetUp(pair));
  PetscCall(BTECollisionView(pair, PETSC_VIEWER_STDOUT_(comm)));
  PetscCall(BTECollisionCreate(bte, &ref));
  PetscCall(BTECollisionSetType(ref, BTECOLLISIONFUSED));
  PetscCall(BTECollisionSetPartition(ref, BTE_COLLISION_PARTITION_STATES));
  PetscCall(BTECollisionSetUp(ref));
  PetscCall(BTECollisionGetPartition(pair, &part));
  PetscCall(PetscPrintf(comm, "partition: %s\n", BTECollisionPartitions[part]));
  if (late) PetscCall(BTECollisionSetPartition(pair, part == BTE_COLLISION_PARTITION_PAIRS ? BTE_COLLISION_PARTITION_STATES : BTE_COLLISION_PARTITION_PAIRS)); /* misuse: must fail */

  /* bookkeeping: with pairs every held channel is computed by exactly one rank, so the computed
     channels add up to the distinct ones; the stored pairs add up to those of one rank
     (-compare) */
  PetscCall(BTECollisionGetInfo(pair, NULL, &npairs, NULL, NULL));
  ncomp  = pair->ncomputed;
  loc[0] = (double)npairs;
  loc[1] = (double)ncomp;
  loc[2] = (double)nheld;
  PetscCallMPI(MPI_Allreduce(loc, sum, 3, MPI_DOUBLE, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(loc, mx, 3, MPI_DOUBLE, MPI_MAX, comm));
  PetscCall(PetscPrintf(comm, "pairs stored: %.0f over all ranks; channels computed: %.0f (largest rank %.0f, mean %.1f); held: %.0f\n", sum[0], sum[1], mx[1], sum[1] / size, sum[2]));
  if (part == BTE_COLLISION_PARTITION_PAIRS) {
    PetscCall(Check(comm, "pairs: |channels computed over all ranks - distinct channels|", PetscAbsReal(sum[1] - (double)nglob), 0));
    if (maximb > 0) PetscCall(Check(comm, "pairs: largest rank's computed channels / mean - 1", mx[1] * size / sum[1] - 1.0, maximb - 1.0));
  } else PetscCall(Check(comm, "states: |channels computed - held|", PetscAbsReal(sum[1] - sum[2]), 0));

  /* Iv[f], J(f) x, diag J: against fused and conservation */
  PetscCall(BTECollisionApply(pair, f, Iv[0]));
  PetscCall(BTECollisionApply(ref, f, Iv[1]));
  PetscCall(RelDiff(Iv[0], Iv[1], &r));
  PetscCall(Check(comm, "pair vs fused: max|dI| / max|I|", r, ftol));
  {
    PetscScalar s;
    PetscReal   n1;
    PetscCall(VecSum(Iv[0], &s));
    PetscCall(VecNorm(Iv[0], NORM_1, &n1));
    PetscCall(Check(comm, "pair: |sum I| / sum |I|", PetscAbsScalar(s) / n1, 1e-13));
  }
  PetscCall(BTECollisionJacobianApply(pair, f, x, Jx[0]));
  PetscCall(BTECollisionJacobianApply(ref, f, x, Jx[1]));
  PetscCall(RelDiff(Jx[0], Jx[1], &r));
  PetscCall(Check(comm, "pair vs fused: J x", r, ftol));
  PetscCall(BTECollisionCreateJacobian(pair, &J));
  PetscCall(BTECollisionComputeJacobian(pair, f, J));
  PetscCall(MatMult(J, x, z));
  PetscCall(RelDiff(z, Jx[0], &r));
  /* MatMult takes the unsplit path (every ghost value first, no overlap); the reverse exchange
     adds each state's contributions in rank order in both, so the two agree to the bit */
  PetscCall(Check(comm, "pair: MATSHELL MatMult vs BTECollisionJacobianApply", r, 0));
  PetscCall(MatGetDiagonal(J, D[0]));
  PetscCall(BTECollisionGetScatteringRates(ref, f, D[1]));
  PetscCall(VecScale(D[1], -1.0));
  PetscCall(RelDiff(D[0], D[1], &r));
  PetscCall(Check(comm, "pair vs fused: diag J", r, ftol));
  /* a second apply reuses the work vectors: the same result to the bit */
  PetscCall(BTECollisionApply(pair, f, z));
  PetscCall(RelDiff(z, Iv[0], &r));
  PetscCall(Check(comm, "pair: a second apply vs the first", r, 0));

  if (haswrite) {
    PetscViewer v;
    PetscCall(PetscViewerBinaryOpen(comm, wfile, FILE_MODE_WRITE, &v));
    PetscCall(VecView(Iv[0], v));
    PetscCall(VecView(Jx[0], v));
    PetscCall(VecView(D[0], v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(PetscViewerASCIIOpen(comm, "pairs.txt", &v)); /* the stored pairs of this run */
    PetscCall(PetscViewerASCIIPrintf(v, "%.0f\n", sum[0]));
    PetscCall(PetscViewerDestroy(&v));
  }
  if (hascompare) {
    PetscViewer v;
    Vec         a, b, c;
    PetscCall(VecDuplicate(f, &a));
    PetscCall(VecDuplicate(f, &b));
    PetscCall(VecDuplicate(f, &c));
    PetscCall(PetscViewerBinaryOpen(comm, cfile, FILE_MODE_READ, &v));
    PetscCall(VecLoad(a, v));
    PetscCall(VecLoad(b, v));
    PetscCall(VecLoad(c, v));
    PetscCall(PetscViewerDestroy(&v));
    PetscCall(RelDiff(Iv[0], a, &r));
    PetscCall(Check(comm, "I vs the reference run", r, ctol));
    PetscCall(RelDiff(Jx[0], b, &r));
    PetscCall(Check(comm, "J x vs the reference run", r, ctol));
    PetscCall(RelDiff(D[0], c, &r));
    PetscCall(Check(comm, "diag J vs the reference run", r, ctol));
    PetscCall(VecDestroy(&a));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&c));
  }

  PetscCall(MatDestroy(&J));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&Iv[k]));
    PetscCall(VecDestroy(&Jx[k]));
    PetscCall(VecDestroy(&D[k]));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&z));
  PetscCall(BTECollisionDestroy(&pair));
  PetscCall(BTECollisionDestroy(&ref));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
