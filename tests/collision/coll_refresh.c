static const char help[] = "A change of temperature on a set-up collision operator (BTECollisionSetTemperature with\n"
                           "BTECollisionSetTemperatureRefresh): at every temperature of -temps, Iv[f], J(f) x (direct and\n"
                           "through the Jacobian Mat made before the changes) and diag J of the one operator equal those of\n"
                           "a fresh operator built at that temperature, to the bit, and the rates were refreshed (pair) or\n"
                           "the operator rebuilt (other types, or -bte_collision_refresh 0) as -expect says.\n"
                           "Options: -temps T1,T2,... (K; default 150,600,300), -expect refresh|rebuild, -bte_model (else\n"
                           "the synthetic BTE of synth.h), the state Vec type (-vec_type cuda) and the collision options;\n"
                           "-refresh_after_setup changes the refresh flag after setup (an error).\n";

#include "synth.h"
#include <bte/private/collisionimpl.h>
#include "compare.h"

/* I, J x and diag J of coll at f, x; Jx also through the Mat J when given */
static PetscErrorCode Results(BTECollision coll, Mat J, Vec f, Vec x, Vec Iv, Vec Jx, Vec D, Vec JxMat)
{
  PetscFunctionBegin;
  PetscCall(BTECollisionApply(coll, f, Iv));
  PetscCall(BTECollisionJacobianApply(coll, f, x, Jx));
  PetscCall(BTECollisionGetScatteringRates(coll, f, D));
  if (J) {
    PetscCall(BTECollisionComputeJacobian(coll, f, J));
    PetscCall(MatMult(J, x, JxMat));
  }
  PetscFunctionReturn(0);
}

/* the largest |a - b| (0: equal to the bit, up to the sign of zeros) */
static PetscErrorCode MaxDiff(Vec a, Vec b, PetscReal *d)
{
  Vec w;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(a, &w));
  PetscCall(VecWAXPY(w, -1.0, b, a));
  PetscCall(VecNorm(w, NORM_INFINITY, d));
  PetscCall(VecDestroy(&w));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm     comm;
  BTE          bte;
  BTECollision one;
  Mat          J1;
  Vec          f, x, Iv[2], Jx[2], D[2], JxM[2];
  char         model[64] = "", expect[16] = "refresh";
  PetscBool    hasmodel, same, refresh;
  PetscReal    temps[16] = {150, 600, 300}, d;
  PetscInt     nt = 3, nref, nreb;
  PetscInt64   rid;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-bte_model", model, sizeof(model), &hasmodel));
  {
    PetscBool flg;
    nt = 16;
    PetscCall(PetscOptionsGetRealArray(NULL, NULL, "-temps", temps, &nt, &flg));
    if (!flg) nt = 3;
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-expect", expect, sizeof(expect), NULL));
  if (hasmodel) {
    PetscCall(BTECreate(comm, &bte));
    PetscCall(BTESetFromOptions(bte));
    PetscCall(BTESetUp(bte));
  } else PetscCall(SynthCreateBTE(comm, &bte));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &x));
  PetscCall(SynthFillVec(f, 31));
  PetscCall(SynthFillVec(x, 32));
  PetscCall(VecShift(x, -0.5));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDuplicate(f, &Iv[k]));
    PetscCall(VecDuplicate(f, &Jx[k]));
    PetscCall(VecDuplicate(f, &D[k]));
    PetscCall(VecDuplicate(f, &JxM[k]));
  }

  /* the operator whose temperature changes: refresh on unless the options say otherwise; set up
     (and its Jacobian Mat made) at the BTE's temperature */
  PetscCall(BTECollisionCreate(bte, &one));
  PetscCall(BTECollisionSetTemperatureRefresh(one, PETSC_TRUE));
  PetscCall(BTECollisionSetFromOptions(one));
  PetscCall(BTECollisionGetTemperatureRefresh(one, &refresh));
  PetscCall(BTECollisionSetUp(one));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-refresh_after_setup", &same));
  if (same) PetscCall(BTECollisionSetTemperatureRefresh(one, refresh ? PETSC_FALSE : PETSC_TRUE)); /* misuse: must fail */
  PetscCall(BTECollisionCreateJacobian(one, &J1));
  PetscCall(Results(one, J1, f, x, Iv[0], Jx[0], D[0], JxM[0]));
  rid = one->ratesid;
  PetscCall(PetscPrintf(comm, "type %s, refresh %s, partition %s, %" PetscInt_FMT " temperatures\n", ((PetscObject)one)->type_name, refresh ? "on" : "off", BTECollisionPartitions[one->part], nt));

  for (PetscInt t = 0; t < nt; t++) {
    BTECollision fresh;
    Mat          Jf;
    char         what[128];

    PetscBool changed = temps[t] != one->temperature ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(BTECollisionSetTemperature(one, temps[t]));
    PetscCall(Results(one, J1, f, x, Iv[0], Jx[0], D[0], JxM[0]));
    PetscCheck(!changed || one->ratesid != rid, comm, PETSC_ERR_PLIB, "FAILED: the rates' id did not change at %g K", (double)temps[t]);
    rid = one->ratesid;
    /* a fresh operator at this temperature, the same options but no refresh data */
    PetscCall(BTECollisionCreate(bte, &fresh));
    PetscCall(BTECollisionSetFromOptions(fresh));
    PetscCall(BTECollisionSetTemperatureRefresh(fresh, PETSC_FALSE));
    PetscCall(BTECollisionSetTemperature(fresh, temps[t]));
    PetscCall(BTECollisionSetUp(fresh));
    PetscCall(BTECollisionCreateJacobian(fresh, &Jf));
    PetscCall(Results(fresh, Jf, f, x, Iv[1], Jx[1], D[1], JxM[1]));
    PetscCall(PetscPrintf(comm, "T = %g K:\n", (double)temps[t]));
    PetscCall(MaxDiff(Iv[0], Iv[1], &d));
    PetscCall(PetscSNPrintf(what, sizeof(what), "max |I - I fresh|"));
    PetscCall(Check(comm, what, d, 0));
    PetscCall(MaxDiff(Jx[0], Jx[1], &d));
    PetscCall(Check(comm, "max |J x - J x fresh|", d, 0));
    PetscCall(MaxDiff(JxM[0], JxM[1], &d));
    PetscCall(Check(comm, "max |MatMult(J) x - fresh MatMult(J) x| (J made before the change)", d, 0));
    PetscCall(MaxDiff(D[0], D[1], &d));
    PetscCall(Check(comm, "max |diag J - diag J fresh|", d, 0));
    PetscCall(VecEqual(Iv[0], Iv[1], &same));
    PetscCheck(same, comm, PETSC_ERR_PLIB, "FAILED: I differs from the fresh operator's at %g K (VecEqual)", (double)temps[t]);
    PetscCall(VecEqual(Jx[0], Jx[1], &same));
    PetscCheck(same, comm, PETSC_ERR_PLIB, "FAILED: J x differs from the fresh operator's at %g K (VecEqual)", (double)temps[t]);
    {
      PetscReal n;
      PetscCall(VecNorm(Iv[1], NORM_INFINITY, &n));
      PetscCheck(n > 0, comm, PETSC_ERR_PLIB, "FAILED: I = 0 at %g K: nothing compared", (double)temps[t]);
    }
    PetscCall(MatDestroy(&Jf));
    PetscCall(BTECollisionDestroy(&fresh));
  }
  PetscCall(BTECollisionGetTemperatureChanges(one, &nref, &nreb));
  PetscCall(PetscPrintf(comm, "temperature changes: %" PetscInt_FMT " refreshed, %" PetscInt_FMT " rebuilt\n", nref, nreb));
  PetscCall(BTECollisionView(one, PETSC_VIEWER_STDOUT_(comm)));
  {
    PetscBool want_refresh;
    PetscInt  changes = 0;
    PetscCall(PetscStrcmp(expect, "refresh", &want_refresh));
    for (PetscInt t = 0; t < nt; t++) changes += (t == 0 ? temps[0] != one->bte->temperature : temps[t] != temps[t - 1]);
    PetscCheck(nref + nreb == changes, comm, PETSC_ERR_PLIB, "FAILED: %" PetscInt_FMT " changes of temperature counted, %" PetscInt_FMT " made", nref + nreb, changes);
    PetscCheck(want_refresh ? nreb == 0 : nref == 0, comm, PETSC_ERR_PLIB, "FAILED: expected every change to %s, got %" PetscInt_FMT " refreshed and %" PetscInt_FMT " rebuilt", expect, nref, nreb);
  }
  PetscCall(PetscPrintf(comm, "ok\n"));

  PetscCall(MatDestroy(&J1));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecDestroy(&Iv[k]));
    PetscCall(VecDestroy(&Jx[k]));
    PetscCall(VecDestroy(&D[k]));
    PetscCall(VecDestroy(&JxM[k]));
  }
  PetscCall(VecDestroy(&f));
  PetscCall(VecDestroy(&x));
  PetscCall(BTECollisionDestroy(&one));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
