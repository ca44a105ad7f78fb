static const char help[] = "The balanced delta (BTESetDelta, -bte_delta balanced) against closed forms: for every\n"
                           "collision implementation, Fermi-Dirac at the lattice temperature is a steady state to rounding\n"
                           "(nondegenerate and degenerate chemical potentials), carriers are conserved, and every channel's\n"
                           "rates obey P/Q = exp((e_i - e_j)/kT) with sqrt(PQ) = (a + b) / (2 sinh(hw/2kT)), a and b\n"
                           "Perturbo's Gaussian weights recomputed here from the table. With Perturbo's delta (the\n"
                           "default) the same equilibrium has a defect above -min_defect (default 1e-3), so the test\n"
                           "sees the difference. The model or table comes from the options (-bte_model, -bte_input).\n";

#include <bte/private/collisionimpl.h>

#define NTYPES 5

/* D = sum_i |I_i[f0]| / sum_i Gamma_i f0_i at mu */
static PetscErrorCode Defect(BTE bte, BTECollision coll, PetscReal T, PetscReal mu, PetscReal *D, Vec I0)
{
  Vec         f0, G;
  PetscReal   n1;
  PetscScalar gross;

  PetscFunctionBegin;
  PetscCall(BTECreateStateVec(bte, &f0));
  PetscCall(VecDuplicate(f0, &G));
  PetscCall(BTEFermiDirac(bte, T, mu, f0));
  PetscCall(BTECollisionApply(coll, f0, I0));
  PetscCall(BTECollisionGetScatteringRates(coll, f0, G));
  PetscCall(VecNorm(I0, NORM_1, &n1));
  PetscCall(VecDot(G, f0, &gross));
  *D = n1 / PetscRealPart(gross);
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&f0));
  PetscFunctionReturn(0);
}

/* The largest relative deviation, over the held channels, of P/Q from exp((e_i - e_j)/kT) and of
   sqrt(PQ) from (a + b) / (2 sinh(hw / 2kT)), with a, b written out here (docs/collision.md) */
static PetscErrorCode ChannelRates(BTECollision coll, PetscReal *ratio, PetscReal *mean)
{
  const BTEChannels *ch = &coll->bte->ch;
  PetscReal         *P, *Q, kT = coll->kT, eta = coll->eta;

  PetscFunctionBegin;
  *ratio = *mean = 0;
  PetscCall(PetscMalloc2(PetscMax(ch->n, 1), &P, PetscMax(ch->n, 1), &Q));
  PetscCall(BTECollisionComputeChannelPQ(coll, P, Q));
  for (PetscCount c = 0; c < ch->n; c++) {
    PetscInt  i = BTECollLocalIndex(coll, ch->i[c]), j = BTECollLocalIndex(coll, ch->j[c]);
    PetscReal d = coll->energy[i] - coll->energy[j], hw = ch->hw[c];
    PetscReal w = 2 * PETSC_PI / BTE_HBAR * ch->g2[c] / (PetscReal)coll->nq / (eta * PetscSqrtReal(PETSC_PI));
    PetscReal ab = w * (PetscExpReal(-PetscSqr((d + hw) / eta)) + PetscExpReal(-PetscSqr((d - hw) / eta)));
    PetscReal want = ab / (2 * PetscSinhReal(hw / (2 * kT)));
    if (ab <= 1e-300 * w) continue; /* both Gaussians underflow: nothing to compare */
    *ratio = PetscMax(*ratio, PetscAbsReal(P[c] / Q[c] / PetscExpReal(d / kT) - 1));
    *mean  = PetscMax(*mean, PetscAbsReal(PetscSqrtReal(P[c] * Q[c]) / want - 1));
  }
  PetscCall(PetscFree2(P, Q));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, ratio, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)coll)));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, mean, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)coll)));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  BTE            bte;
  const char    *types[NTYPES] = {BTECOLLISIONBASELINE, BTECOLLISIONTGT, BTECOLLISIONTGT, BTECOLLISIONFUSED, BTECOLLISIONPAIR};
  const char    *g2dt[NTYPES]  = {"0", "0", "1", "0", "0"};
  PetscReal      T, emin = PETSC_MAX_REAL, mindef = 1e-3, tol = 1e-13;
  const PetscReal *e;
  PetscInt       nlocal;
  Vec            f, I0, Iref = NULL, Ik;
  BTEDiagnostics diag;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-min_defect", &mindef, NULL));
  PetscCall(BTECreate(comm, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTEGetTemperature(bte, &T));
  PetscCall(BTEGetNumStates(bte, &nlocal, NULL));
  PetscCall(BTEGetLocalStates(bte, &e, NULL, NULL, NULL));
  for (PetscInt i = 0; i < nlocal; i++) emin = PetscMin(emin, e[i]);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emin, 1, MPIU_REAL, MPIU_MIN, comm));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, &I0));
  PetscCall(VecDuplicate(f, &Ik));
  PetscCall(VecSetRandom(f, NULL));

  for (int db = 0; db < 2; db++) {
    const BTEDelta delta = db ? BTE_DELTA_BALANCED : BTE_DELTA_PERTURBO;
    BTEDelta       got;

    PetscCall(BTESetDelta(bte, delta));
    PetscCall(BTEGetDelta(bte, &got));
    PetscCheck(got == delta, comm, PETSC_ERR_PLIB, "FAILED: BTEGetDelta gives %d after BTESetDelta(%d)", (int)got, (int)delta);
    for (int k = 0; k < NTYPES; k++) {
      BTECollision coll;
      PetscReal    Dn, Dd, ratio, mean, cons, n1, diff;
      PetscScalar  s;

      PetscCall(PetscOptionsSetValue(NULL, "-bte_tgt_store_g2dt", g2dt[k]));
      PetscCall(BTECollisionCreate(bte, &coll));
      PetscCall(BTECollisionSetType(coll, types[k]));
      PetscCall(BTECollisionSetFromOptions(coll));
      PetscCall(BTECollisionSetUp(coll));
      PetscCall(Defect(bte, coll, T, emin - 20 * BTE_KB * T, &Dn, I0));      /* nondegenerate */
      PetscCall(Defect(bte, coll, T, emin + 4 * BTE_KB * T, &Dd, I0));       /* degenerate: f0 ~ 1 at the bottom */
      PetscCall(BTECollisionApply(coll, f, Ik));
      PetscCall(VecSum(Ik, &s));
      PetscCall(VecNorm(Ik, NORM_1, &n1));
      cons = PetscAbsScalar(s) / n1;
      if (!Iref) {
        PetscCall(VecDuplicate(f, &Iref));
        PetscCall(VecCopy(Ik, Iref));
      }
      PetscCall(VecAXPY(Ik, -1.0, Iref));
      PetscCall(VecNorm(Ik, NORM_INFINITY, &diff));
      PetscCall(VecNorm(Iref, NORM_INFINITY, &n1));
      diff /= n1;
      PetscCall(ChannelRates(coll, &ratio, &mean));
      PetscCall(PetscPrintf(comm, "%-8s %-8s%s: defect %.1e (nondegenerate) %.1e (degenerate), |sum I[f]|/sum|I[f]| %.0e", BTEDeltas[delta], types[k], g2dt[k][0] == '1' ? " g2dt" : "     ", (double)Dn, (double)Dd, (double)cons));
      if (delta == BTE_DELTA_BALANCED) PetscCall(PetscPrintf(comm, ", channels: P/Q vs exp(de/kT) %.0e, sqrt(PQ) vs closed form %.0e, I[f] vs baseline %.0e\n", (double)ratio, (double)mean, (double)diff));
      else PetscCall(PetscPrintf(comm, "\n"));
      PetscCheck(cons < tol, comm, PETSC_ERR_PLIB, "FAILED: carriers not conserved (%g)", (double)cons);
      if (delta == BTE_DELTA_BALANCED) {
        PetscCheck(Dn < tol && Dd < tol, comm, PETSC_ERR_PLIB, "FAILED: Fermi-Dirac is not a steady state of the balanced delta (defect %g, %g)", (double)Dn, (double)Dd);
        PetscCheck(ratio < 1e-12 && mean < 1e-12, comm, PETSC_ERR_PLIB, "FAILED: channel rates off their closed forms (%g, %g)", (double)ratio, (double)mean);
        PetscCheck(diff < 1e-12, comm, PETSC_ERR_PLIB, "FAILED: %s differs from baseline by %g", types[k], (double)diff);
      } else PetscCheck(Dn > mindef && Dd > mindef, comm, PETSC_ERR_PLIB, "FAILED: Perturbo's delta has a defect below %g (%g, %g): the test cannot tell the two apart", (double)mindef, (double)Dn, (double)Dd);
      PetscCall(BTECollisionDestroy(&coll));
    }
    PetscCall(VecDestroy(&Iref));
    /* the diagnostics follow the setting (recomputed when it changes) */
    PetscCall(BTEGetDiagnostics(bte, &diag));
    PetscCall(PetscPrintf(comm, "%-8s diagnostics: delta %s, defect %.1e, relaxation temperature %.4f K\n", BTEDeltas[delta], BTEDeltas[diag.delta], (double)diag.defect, (double)diag.relax_temperature));
    PetscCheck(diag.computed && diag.delta == delta, comm, PETSC_ERR_PLIB, "FAILED: diagnostics not computed for this delta");
    if (delta == BTE_DELTA_BALANCED) PetscCheck(diag.defect < tol && diag.relax_temperature == T, comm, PETSC_ERR_PLIB, "FAILED: balanced diagnostics: defect %g, relaxation temperature %g", (double)diag.defect, (double)diag.relax_temperature);
    else PetscCheck(diag.defect > mindef, comm, PETSC_ERR_PLIB, "FAILED: Perturbo diagnostics: defect %g", (double)diag.defect);
  }
  PetscCall(VecDestroy(&Ik));
  PetscCall(VecDestroy(&I0));
  PetscCall(VecDestroy(&f));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
