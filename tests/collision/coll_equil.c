static const char help[] = "Fermi-Dirac occupations at the lattice temperature are an equilibrium of the collision\n"
                           "integral up to the smearing error: for each eta of -etas (default 0.02,0.01,0.005 eV) the\n"
                           "model (-bte_model, default parabolic) is rebuilt and R = sum|I[f0]| / sum f0 Gamma(f0) is\n"
                           "computed; R must decrease as eta decreases and stay below -rmax (default 0.05).\n"
                           "  -mu (eV, default 0.02)  -etas a,b,c  -rmax r  -types baseline,tgt,fused\n";

#include <bte/private/collisionimpl.h>

int main(int argc, char **argv)
{
  MPI_Comm   comm;
  PetscReal  etas[8] = {0.02, 0.01, 0.005}, R[8], mu = 0.02, rmax = 0.05;
  PetscInt   neta = 3;
  char       model[64] = "parabolic";

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  {
    PetscInt  n = 8;
    PetscBool flg;
    PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-etas", etas, &n, &flg));
    if (flg) neta = n;
  }
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-mu", &mu, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rmax", &rmax, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), NULL));
  for (PetscInt k = 0; k < neta; k++) {
    BTE          bte;
    BTECollision coll;
    Vec          f0, Iv, G;
    PetscReal    T, n1, flux, Imax;
    PetscInt     N;
    PetscInt64   nch;

    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetModel(bte, model));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetSmearing(bte, etas[k]));
    PetscCall(BTESetUp(bte));
    PetscCall(BTEGetTemperature(bte, &T));
    PetscCall(BTEGetNumStates(bte, NULL, &N));
    PetscCall(BTEGetNumChannels(bte, NULL, &nch));
    PetscCall(BTECollisionCreate(bte, &coll));
    PetscCall(BTECollisionSetFromOptions(coll));
    PetscCall(BTECollisionSetUp(coll));
    PetscCall(BTECreateStateVec(bte, &f0));
    PetscCall(VecDuplicate(f0, &Iv));
    PetscCall(VecDuplicate(f0, &G));
    PetscCall(BTEFermiDirac(bte, T, mu, f0));
    PetscCall(BTECollisionApply(coll, f0, Iv));
    PetscCall(BTECollisionGetScatteringRates(coll, f0, G));
    PetscCall(VecNorm(Iv, NORM_1, &n1));
    PetscCall(VecNorm(Iv, NORM_INFINITY, &Imax));
    PetscCall(VecDot(G, f0, &flux));
    R[k] = n1 / flux;
    PetscCall(PetscPrintf(comm, "%s, eta = %.4f eV: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels, T = %g K, mu = %g eV: sum|I[f0]| / sum f0 Gamma = %.4e\n", model, (double)etas[k], N, nch, (double)T, (double)mu, (double)R[k]));
    PetscCall(VecDestroy(&f0));
    PetscCall(VecDestroy(&Iv));
    PetscCall(VecDestroy(&G));
    PetscCall(BTECollisionDestroy(&coll));
    PetscCall(BTEDestroy(&bte));
  }
  for (PetscInt k = 1; k < neta; k++) PetscCheck(R[k] < R[k - 1], comm, PETSC_ERR_PLIB, "FAILED: the equilibrium residual did not decrease from eta = %g (%g) to eta = %g (%g)", (double)etas[k - 1], (double)R[k - 1], (double)etas[k], (double)R[k]);
  PetscCheck(R[neta - 1] < rmax, comm, PETSC_ERR_PLIB, "FAILED: residual %g at the smallest eta exceeds %g", (double)R[neta - 1], (double)rmax);
  PetscCall(PetscPrintf(comm, "equilibrium residual decreases with the smearing\n"));
  PetscCall(PetscFinalize());
  return 0;
}
