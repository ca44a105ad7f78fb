/* Unit checks of the transport library on a small parabolic table (options from the
   command line, e.g. -bte_model parabolic -bte_parabolic_a 40 -bte_grid 12):
   1. BTEChemicalPotential inverts BTECarrierDensity;
   2. the null spaces of eq. 5: 1^T J(f0) = 0 exactly (left null vector D of A),
      J(f0) D 1 ~ 0 up to the smearing error (right null vector 1 of A);
   3. BTETransport through the API: isotropic, symmetric tensors, mobility = sigma/(e n),
      the returned F keeps the carrier number (D^T F = 0), results identical when solved
      by chemical potential instead of density;
   4. options prefixes (BTETransportSetOptionsPrefix, BTEHighFieldSetOptionsPrefix) keep two
      solvers' options apart. */
#include <bte.h>
#include <bte/transport.h>

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: " __VA_ARGS__)); \
      nfail++; \
    } \
  } while (0)

int main(int argc, char **argv)
{
  BTE          bte;
  BTECollision col;
  Mat          J;
  Vec          f0, D, x, y, one;
  PetscReal    T = 300, mu, n, kT = BTE_KB * 300;
  PetscInt     nfail = 0, nl, dim;
  PetscRandom  rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  PetscCall(BTEGetNumStates(bte, &nl, NULL));
  PetscCall(BTEGetGrid(bte, &dim, NULL, NULL, NULL, NULL));

  /* 1. density <-> chemical potential */
  {
    const PetscReal dens[] = {1e14, 1e17, 1e19};
    for (int k = 0; k < 3; k++) {
      PetscCall(BTEChemicalPotential(bte, T, dens[k], &mu));
      PetscCall(BTECarrierDensity(bte, T, mu, &n));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "n = %g cm^-3: mu = %.6f eV, back to n = %.10g (rel. err %.1e)\n", (double)dens[k], (double)mu, (double)n, (double)PetscAbsReal(n / dens[k] - 1)));
      CHECK(PetscAbsReal(n / dens[k] - 1) < 1e-9, "density round trip %g -> %g\n", (double)dens[k], (double)n);
    }
  }

  /* 2. null spaces of J(f0) */
  PetscCall(BTEChemicalPotential(bte, T, 1e17, &mu));
  PetscCall(BTECreateStateVec(bte, &f0));
  PetscCall(VecDuplicate(f0, &D));
  PetscCall(VecDuplicate(f0, &x));
  PetscCall(VecDuplicate(f0, &y));
  PetscCall(VecDuplicate(f0, &one));
  PetscCall(VecSet(one, 1.0));
  PetscCall(BTEFermiDirac(bte, T, mu, f0));
  {
    /* D = f0 (1 - f0)/kT */
    PetscScalar       *d;
    const PetscScalar *f;
    PetscCall(VecGetArrayRead(f0, &f));
    PetscCall(VecGetArrayWrite(D, &d));
    for (PetscInt i = 0; i < nl; i++) d[i] = f[i] * (1 - f[i]) / kT;
    PetscCall(VecRestoreArrayRead(f0, &f));
    PetscCall(VecRestoreArrayWrite(D, &d));
  }
  PetscCall(BTESetTemperature(bte, T));
  PetscCall(BTECollisionCreate(bte, &col));
  PetscCall(BTECollisionSetFromOptions(col));
  PetscCall(BTECollisionSetUp(col));
  PetscCall(BTECollisionCreateJacobian(col, &J));
  PetscCall(BTECollisionComputeJacobian(col, f0, J));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  {
    PetscScalar s;
    PetscReal   n1;
    PetscCall(VecSetRandom(x, rnd));
    PetscCall(MatMult(J, x, y));
    PetscCall(VecSum(y, &s));
    PetscCall(VecNorm(y, NORM_1, &n1));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "left null vector: |1^T J x| / ||J x||_1 = %.2e (particle conservation)\n", (double)(PetscAbsScalar(s) / n1)));
    CHECK(PetscAbsScalar(s) / n1 < 1e-13, "1^T J x = %g is not zero\n", (double)PetscAbsScalar(s));
  }
  {
    /* J D 1 against the scale Gamma D */
    Vec       g;
    PetscReal a, b;
    PetscCall(VecDuplicate(f0, &g));
    PetscCall(MatMult(J, D, y));
    PetscCall(MatGetDiagonal(J, g));
    PetscCall(VecPointwiseMult(g, g, D));
    PetscCall(VecNorm(y, NORM_2, &a));
    PetscCall(VecNorm(g, NORM_2, &b));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "right null vector: ||J D 1|| / ||Gamma D|| = %.3e (smearing error of detailed balance)\n", (double)(a / b)));
    CHECK(a / b < 0.1, "J(f0) df0/dmu is not small: %g\n", (double)(a / b));
    PetscCall(VecDestroy(&g));
  }
  PetscCall(MatDestroy(&J));
  PetscCall(BTECollisionDestroy(&col));

  /* 3. BTETransport through the API */
  {
    BTETransport       tr;
    BTETransportResult r, r2;
    const PetscReal    Ts[] = {150, 300}, dens = 1e17;
    PetscInt           nres;
    Vec                F;
    PetscScalar        dF, dv;
    PetscReal          Fn;

    PetscCall(BTETransportCreate(bte, &tr));
    PetscCall(BTETransportSetTemperatures(tr, 2, Ts));
    PetscCall(BTETransportSetCarrierDensities(tr, 1, &dens));
    PetscCall(BTETransportSetFromOptions(tr));
    PetscCall(BTETransportSolve(tr));
    PetscCall(BTETransportView(tr, NULL));
    PetscCall(BTETransportGetNumResults(tr, &nres));
    CHECK(nres == 2, "expected 2 results, got %d\n", (int)nres);
    for (PetscInt k = 0; k < nres; k++) {
      PetscReal s0, off = 0, asym = 0, aniso;
      PetscCall(BTETransportGetResult(tr, k, &r));
      s0 = r.conductivity[0];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) {
          if (a != b) off = PetscMax(off, PetscAbsReal(r.conductivity[3 * a + b]));
          asym = PetscMax(asym, PetscAbsReal(r.conductivity[3 * a + b] - r.conductivity[3 * b + a]));
        }
      aniso = PetscMax(PetscAbsReal(r.conductivity[4] - s0), PetscAbsReal(r.conductivity[8] - s0)) / s0;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "T = %g K: sigma_xx = %g S/m, anisotropy %.1e, off-diagonal %.1e, asymmetry %.1e\n", (double)r.temperature, (double)s0, (double)aniso, (double)(off / s0), (double)(asym / s0)));
      CHECK(r.converged, "not converged at T = %g\n", (double)r.temperature);
      CHECK(aniso < 1e-7 && off / s0 < 1e-7 && asym / s0 < 1e-7, "tensor not isotropic/symmetric\n");
      CHECK(PetscAbsReal(r.carrier_density / dens - 1) < 1e-9, "density %g instead of %g\n", (double)r.carrier_density, (double)dens);
      /* mobility [cm^2/Vs] = sigma / (e n): sigma [S/m] / (1.602176634e-19 C * n [cm^-3] * 1e6) * 1e4 */
      {
        PetscReal m = r.conductivity[0] / (1.602176634e-19 * r.carrier_density * (dim == 2 ? 1e4 : 1e6)) * 1e4;
        CHECK(PetscAbsReal(m / r.mobility[0] - 1) < 1e-10, "mobility %g is not sigma/(e n) = %g\n", (double)r.mobility[0], (double)m);
      }
      for (int b = 0; b < 3; b++) CHECK(r.residual[b] <= 1e-8, "KSP residual %g > 1e-8 in direction %d\n", (double)r.residual[b], b);
      CHECK(r.applies > 0, "no operator applies counted\n");
    }
    /* the last configuration (300 K): F_x keeps the carrier number */
    PetscCall(BTETransportGetSolution(tr, 0, &F));
    PetscCall(BTEChemicalPotential(bte, 300, dens, &mu));
    PetscCall(BTEFermiDirac(bte, 300, mu, f0));
    {
      PetscScalar       *d;
      const PetscScalar *f;
      PetscCall(VecGetArrayRead(f0, &f));
      PetscCall(VecGetArrayWrite(D, &d));
      for (PetscInt i = 0; i < nl; i++) d[i] = f[i] * (1 - f[i]) / kT;
      PetscCall(VecRestoreArrayRead(f0, &f));
      PetscCall(VecRestoreArrayWrite(D, &d));
    }
    PetscCall(VecDot(F, D, &dF));
    PetscCall(VecPointwiseMult(y, F, D));
    PetscCall(VecNorm(y, NORM_1, &Fn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "carrier number of the perturbation: |D^T F| / ||D F||_1 = %.1e\n", (double)(PetscAbsScalar(dF) / Fn)));
    CHECK(PetscAbsScalar(dF) / Fn < 1e-10, "D^T F = %g is not zero\n", (double)PetscAbsScalar(dF));
    (void)dv;
    /* same configuration by chemical potential */
    PetscCall(BTETransportGetResult(tr, 1, &r));
    PetscCall(BTETransportSetTemperatures(tr, 1, &r.temperature));
    PetscCall(BTETransportSetChemicalPotentials(tr, 1, &r.chemical_potential));
    PetscCall(BTETransportSolve(tr));
    PetscCall(BTETransportGetResult(tr, 0, &r2));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "by mu: mobility %.8g vs by n: %.8g\n", (double)r2.mobility[0], (double)r.mobility[0]));
    CHECK(PetscAbsReal(r2.mobility[0] / r.mobility[0] - 1) < 1e-8, "mobility by mu %g != by n %g\n", (double)r2.mobility[0], (double)r.mobility[0]);
    PetscCall(BTETransportDestroy(&tr));
  }
  /* 4. two solvers apart by their options prefixes: a_ takes -a_bte_transport_ksp_type cg and
     -a_bte_transport_method rta, the unprefixed one neither; -bte_ita_tol is the unprefixed (ita)
     solver's, not a_'s, while -a_bte_ita_tol with a_'s rta is refused */
  {
    BTETransport       ta, tb;
    BTETransportMethod ma, mb;
    KSP                ka, kb;
    KSPType            kta, ktb;
    PetscErrorCode     e;
    PetscCall(PetscOptionsSetValue(NULL, "-a_bte_transport_ksp_type", "cg"));
    PetscCall(PetscOptionsSetValue(NULL, "-bte_ita_tol", "0.1"));
    PetscCall(BTETransportCreate(bte, &ta));
    PetscCall(BTETransportCreate(bte, &tb));
    PetscCall(BTETransportSetOptionsPrefix(ta, "a_"));
    PetscCall(BTETransportSetMethod(tb, BTE_TRANSPORT_ITA));
    PetscCall(BTETransportSetFromOptions(ta));
    PetscCall(BTETransportSetFromOptions(tb));
    PetscCall(BTETransportGetKSP(ta, &ka));
    PetscCall(BTETransportGetKSP(tb, &kb));
    PetscCall(KSPGetType(ka, &kta));
    PetscCall(KSPGetType(kb, &ktb));
    CHECK(!strcmp(kta, KSPCG) && strcmp(ktb, KSPCG), "prefixed KSP types: a_ %s, unprefixed %s\n", kta, ktb);
    PetscCall(PetscOptionsClearValue(NULL, "-a_bte_transport_ksp_type"));
    PetscCall(PetscOptionsSetValue(NULL, "-a_bte_transport_method", "rta"));
    PetscCall(BTETransportSetFromOptions(ta)); /* -bte_ita_tol is not a_'s: no refusal */
    PetscCall(BTETransportGetMethod(ta, &ma));
    PetscCall(BTETransportGetMethod(tb, &mb));
    CHECK(ma == BTE_TRANSPORT_RTA && mb == BTE_TRANSPORT_ITA, "prefixed methods: a_ %s, unprefixed %s\n", BTETransportMethods[ma], BTETransportMethods[mb]);
    PetscCall(PetscOptionsSetValue(NULL, "-a_bte_ita_tol", "0.1"));
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    e = BTETransportSetFromOptions(ta);
    PetscCall(PetscPopErrorHandler());
    CHECK(e != 0, "-a_bte_ita_tol with -a_bte_transport_method rta was accepted\n");
    PetscCall(PetscOptionsClearValue(NULL, "-a_bte_ita_tol"));
    PetscCall(PetscOptionsClearValue(NULL, "-bte_ita_tol"));
    PetscCall(PetscOptionsClearValue(NULL, "-a_bte_transport_method"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "options prefix a_: KSP %s, then method %s; unprefixed: KSP %s, method %s\n", kta, BTETransportMethods[ma], ktb, BTETransportMethods[mb]));
    PetscCall(BTETransportDestroy(&ta));
    PetscCall(BTETransportDestroy(&tb));
  }
  /* 5. the high-field solver's prefix reaches its SNES: -b_bte_highfield_snes_type newtontr */
  {
    BTEHighField hf;
    SNES         snes;
    SNESType     st;
    PetscCall(PetscOptionsSetValue(NULL, "-b_bte_highfield_snes_type", "newtontr"));
    PetscCall(PetscOptionsSetValue(NULL, "-b_bte_efield_list", "100"));
    PetscCall(BTEHighFieldCreate(bte, &hf));
    PetscCall(BTEHighFieldSetOptionsPrefix(hf, "b_"));
    PetscCall(BTEHighFieldSetFromOptions(hf));
    PetscCall(BTEHighFieldGetSNES(hf, &snes));
    PetscCall(SNESGetType(snes, &st));
    CHECK(!strcmp(st, SNESNEWTONTR), "prefixed high-field SNES type %s\n", st);
    {
      /* before a solve the view shows what it will do: the fields and the density */
      PetscViewer sv;
      char        buf[4096] = "";
      FILE       *fp;
      size_t      nr = 0;
      PetscCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, "hfview.txt", &sv));
      PetscCall(BTEHighFieldView(hf, sv));
      PetscCall(PetscViewerDestroy(&sv));
      PetscCall(PetscFOpen(PETSC_COMM_WORLD, "hfview.txt", "r", &fp));
      if (fp) nr = fread(buf, 1, sizeof(buf) - 1, fp); /* rank 0 reads it and sends it to the others */
      buf[nr] = 0;
      PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
      PetscCallMPI(MPI_Bcast(buf, (int)sizeof(buf), MPI_CHAR, 0, PETSC_COMM_WORLD));
      CHECK(strstr(buf, "fields (V/cm): 100") && strstr(buf, "carrier density: the default"), "high-field view before a solve:\n%s\n", buf);
    }
    PetscCall(PetscOptionsClearValue(NULL, "-b_bte_highfield_snes_type"));
    PetscCall(PetscOptionsClearValue(NULL, "-b_bte_efield_list"));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "options prefix b_: high-field SNES %s\n", st));
    PetscCall(BTEHighFieldDestroy(&hf));
  }
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&f0));
  PetscCall(VecDestroy(&D));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&one));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", nfail ? "FAILED" : "all checks passed"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
