static const char help[] = "tgt's build switches change no result (synthetic random BTE, tests/collision/synth.h):\n"
                           "I[f], J(f) x and the rates -diag J with every combination of -bte_tgt_sort_targets and\n"
                           "-bte_tgt_store_g2dt equal the default's to 1e-14 (the same expressions: bitwise on this\n"
                           "CPU unless the compiler contracts them differently) and agree with fused to 1e-12.\n"
                           "-write FILE / -compare FILE: the default's three results across runs, compared exactly\n"
                           "(the host build's layout does not depend on the number of threads).\n";

#include "synth.h"
#include <bte/private/collisionimpl.h>
#include "compare.h"

/* I[f], J(f) x, Gamma = -diag J(f) of one operator */
static PetscErrorCode Results(BTE bte, const char type[], const char sort[], const char g2dt[], Vec f, Vec x, Vec out[3])
{
  BTECollision c;

  PetscFunctionBegin;
  if (sort) PetscCall(PetscOptionsSetValue(NULL, "-bte_tgt_sort_targets", sort));
  if (g2dt) PetscCall(PetscOptionsSetValue(NULL, "-bte_tgt_store_g2dt", g2dt));
  PetscCall(BTECollisionCreate(bte, &c));
  PetscCall(BTECollisionSetType(c, type));
  PetscCall(BTECollisionSetFromOptions(c));
  PetscCall(BTECollisionSetUp(c));
  for (int k = 0; k < 3; k++) PetscCall(VecDuplicate(f, &out[k]));
  PetscCall(BTECollisionApply(c, f, out[0]));
  PetscCall(BTECollisionJacobianApply(c, f, x, out[1]));
  PetscCall(BTECollisionGetScatteringRates(c, f, out[2]));
  PetscCall(BTECollisionDestroy(&c));
  if (sort) PetscCall(PetscOptionsClearValue(NULL, "-bte_tgt_sort_targets"));
  if (g2dt) PetscCall(PetscOptionsClearValue(NULL, "-bte_tgt_store_g2dt"));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  BTE         bte;
  Vec         f, x, def[3], fu[3], v[3];
  const char *what[3] = {"I[f]", "J(f) x", "-diag J"};
  const char *sorts[3] = {"0", "1", "0"}, *g2dts[3] = {"0", "1", "1"};
  char        wfile[PETSC_MAX_PATH_LEN] = "", cfile[PETSC_MAX_PATH_LEN] = "", buf[160];
  PetscBool   haswrite, hascompare;
  PetscReal   r;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-write", wfile, sizeof(wfile), &haswrite));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-compare", cfile, sizeof(cfile), &hascompare));
  PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(SynthFillVec(f, 11));
  PetscCall(SynthFillVec(x, 12));
  PetscCall(VecShift(x, -0.5));

  PetscCall(Results(bte, BTECOLLISIONTGT, NULL, NULL, f, x, def)); /* defaults: sorted targets, |g|^2 stored */
  PetscCall(Results(bte, BTECOLLISIONFUSED, NULL, NULL, f, x, fu));
  for (int k = 0; k < 3; k++) {
    PetscCall(RelDiff(def[k], fu[k], &r));
    PetscCall(PetscSNPrintf(buf, sizeof(buf), "tgt (defaults) vs fused: %s", what[k]));
    PetscCall(Check(comm, buf, r, 1e-12));
  }
  for (int o = 0; o < 3; o++) {
    PetscCall(Results(bte, BTECOLLISIONTGT, sorts[o], g2dts[o], f, x, v));
    for (int k = 0; k < 3; k++) {
      PetscCall(RelDiff(v[k], def[k], &r));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "sort_targets %s, store_g2dt %s vs the defaults: %s", sorts[o], g2dts[o], what[k]));
      PetscCall(Check(comm, buf, r, 1e-14));
      PetscCall(VecDestroy(&v[k]));
    }
  }
  if (haswrite) {
    PetscViewer vw;
    PetscCall(PetscViewerBinaryOpen(comm, wfile, FILE_MODE_WRITE, &vw));
    for (int k = 0; k < 3; k++) PetscCall(VecView(def[k], vw));
    PetscCall(PetscViewerDestroy(&vw));
  }
  if (hascompare) {
    PetscViewer vw;
    PetscCall(PetscViewerBinaryOpen(comm, cfile, FILE_MODE_READ, &vw));
    for (int k = 0; k < 3; k++) {
      Vec ref;
      PetscCall(VecDuplicate(f, &ref));
      PetscCall(VecLoad(ref, vw));
      PetscCall(RelDiff(def[k], ref, &r));
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "tgt (defaults) vs the reference run: %s", what[k]));
      PetscCall(Check(comm, buf, r, 0.0));
      PetscCall(VecDestroy(&ref));
    }
    PetscCall(PetscViewerDestroy(&vw));
  }
  for (int k = 0; k < 3; k++) {
    PetscCall(VecDestroy(&def[k]));
    PetscCall(VecDestroy(&fu[k]));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
