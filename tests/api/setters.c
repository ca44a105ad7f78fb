/* An application that embeds bte sets the temperature and the smearing through the API on a
   table (-table FILE, written at T_file, eta_file: -table_temperature, -table_smearing) and
   checks that they are used, not the table's:
   1. getters after BTESetUp: the API values, whatever the table holds; with nothing set, the
      table's; options (BTESetFromOptions) count as set; a setter after BTESetFromOptions wins,
      BTESetFromOptions without the options keeps what a setter set;
   2. the scattering rates Gamma = -J_tt(0) (phonon occupations at T, Gaussians of width eta) of
      a BTE set through the API equal those of a BTE given the same values as options, and differ
      from the table's;
   3. BTETransportSolve at a list of temperatures leaves the BTE's temperature as it was (the
      per-temperature value belongs to the solve), and with no list solves at the BTE's
      temperature set through the API: the same mobility as a solve at that temperature (a list
      of one) on a BTE left at the table's temperature. */
#include <bte.h>
#include <bte/transport.h>
#include "../collision/compare.h"

static PetscInt nfail = 0;

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL: " __VA_ARGS__)); \
      nfail++; \
    } \
  } while (0)

/* A BTE on the table with options prefix pre (NULL: none): T and eta through the API when > 0;
   SetFromOptions before (when = 1) or after (when = 2) them, or never (0) */
static PetscErrorCode Open(const char table[], const char pre[], PetscReal T, PetscReal eta, PetscInt when, BTE *bte)
{
  PetscFunctionBegin;
  PetscCall(BTECreate(PETSC_COMM_WORLD, bte));
  if (pre) PetscCall(PetscObjectSetOptionsPrefix((PetscObject)*bte, pre));
  PetscCall(BTESetInputFile(*bte, table));
  if (when == 1) PetscCall(BTESetFromOptions(*bte));
  if (T > 0) PetscCall(BTESetTemperature(*bte, T));
  if (eta > 0) PetscCall(BTESetSmearing(*bte, eta));
  if (when == 2) PetscCall(BTESetFromOptions(*bte));
  PetscCall(BTESetUp(*bte));
  PetscFunctionReturn(0);
}

static PetscErrorCode Expect(BTE bte, const char what[], PetscReal T, PetscReal eta)
{
  PetscReal t, e;

  PetscFunctionBegin;
  PetscCall(BTEGetTemperature(bte, &t));
  PetscCall(BTEGetSmearing(bte, &e));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-44s T = %g K, eta = %g eV\n", what, (double)t, (double)e));
  CHECK(t == T && e == eta, "%s: T = %g K, eta = %g eV; expected %g K, %g eV\n", what, (double)t, (double)e, (double)T, (double)eta);
  PetscFunctionReturn(0);
}

/* Gamma = -J_tt(f = 0), 1/fs */
static PetscErrorCode Rates(BTE bte, Vec *G)
{
  BTECollision c;
  Vec          f;

  PetscFunctionBegin;
  PetscCall(BTECollisionCreate(bte, &c));
  PetscCall(BTECollisionSetUp(c));
  PetscCall(BTECreateStateVec(bte, &f));
  PetscCall(VecDuplicate(f, G));
  PetscCall(VecSet(f, 0));
  PetscCall(BTECollisionGetScatteringRates(c, f, *G));
  PetscCall(VecDestroy(&f));
  PetscCall(BTECollisionDestroy(&c));
  PetscFunctionReturn(0);
}

/* ||a - b|| / ||b|| */
/* RTA mobility mu_xx at the given temperatures (NULL: the BTE's own) */
static PetscErrorCode Mobility(BTE bte, PetscInt nT, const PetscReal T[], PetscReal mob[], PetscReal Tres[])
{
  BTETransport tr;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(BTETransportCreate(bte, &tr));
  PetscCall(BTETransportSetMethod(tr, BTE_TRANSPORT_RTA));
  if (T) PetscCall(BTETransportSetTemperatures(tr, nT, T));
  PetscCall(BTETransportSolve(tr));
  PetscCall(BTETransportGetNumResults(tr, &n));
  CHECK(n == nT, "%" PetscInt_FMT " transport results, expected %" PetscInt_FMT "\n", n, nT);
  for (PetscInt k = 0; k < PetscMin(n, nT); k++) {
    BTETransportResult r;
    PetscCall(BTETransportGetResult(tr, k, &r));
    mob[k]  = r.mobility[0];
    Tres[k] = r.temperature;
  }
  PetscCall(BTETransportDestroy(&tr));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  char      table[PETSC_MAX_PATH_LEN] = "";
  PetscReal Tf = 300, etaf = 0.01, T = 77, eta = 0.005, r;
  BTE       api, opt, file, keep, late;
  Vec       Gapi, Gopt, Gfile, Gafter;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "setters: values set through the API are used, not the table's"));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-table", table, sizeof(table), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-table_temperature", &Tf, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-table_smearing", &etaf, NULL));
  PetscCheck(table[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "give -table FILE");
  /* the option-based BTEs: prefix opt_ */
  PetscCall(PetscOptionsSetValue(NULL, "-opt_bte_temperature", "77"));
  PetscCall(PetscOptionsSetValue(NULL, "-opt_bte_smearing", "0.005"));

  /* 1. getters */
  PetscCall(Open(table, NULL, T, eta, 0, &api));
  PetscCall(Expect(api, "set through the API:", T, eta));
  PetscCall(Open(table, "opt_", 0, 0, 1, &opt));
  PetscCall(Expect(opt, "set as options:", T, eta));
  PetscCall(Open(table, NULL, 0, 0, 0, &file));
  PetscCall(Expect(file, "nothing set (the table's):", Tf, etaf));
  PetscCall(Open(table, "none_", T, eta, 2, &keep));
  PetscCall(Expect(keep, "API, then SetFromOptions without options:", T, eta));
  PetscCall(BTEDestroy(&keep));
  PetscCall(Open(table, "opt_", 150, 0.02, 1, &late));
  PetscCall(Expect(late, "options, then the API:", 150, 0.02));
  PetscCall(BTEDestroy(&late));
  {
    BTE t;
    PetscCall(Open(table, NULL, T, 0, 0, &t));
    PetscCall(Expect(t, "temperature set, smearing the table's:", T, etaf));
    PetscCall(BTEDestroy(&t));
    PetscCall(Open(table, NULL, 0, eta, 0, &t));
    PetscCall(Expect(t, "smearing set, temperature the table's:", Tf, eta));
    PetscCall(BTEDestroy(&t));
  }

  /* 2. a quantity that depends on them */
  PetscCall(Rates(api, &Gapi));
  PetscCall(Rates(opt, &Gopt));
  PetscCall(Rates(file, &Gfile));
  PetscCall(RelDiff(Gapi, Gopt, &r));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rates, API vs options: relative difference %.2e\n", (double)r));
  CHECK(r < 1e-14, "the rates of the BTE set through the API differ from those set as options by %g\n", (double)r);
  PetscCall(RelDiff(Gapi, Gfile, &r));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rates, API vs the table's values: relative difference %.2e\n", (double)r));
  CHECK(r > 1e-2, "the rates of the BTE set through the API are those of the table's values (difference %g)\n", (double)r);

  /* 3. transport */
  {
    const PetscReal Ts[2] = {100, 200};
    PetscReal       m[2], Tr[2], mapi, Tapi, mref, Tref, t;
    BTE             ref;

    PetscCall(Mobility(api, 2, Ts, m, Tr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "transport at %g and %g K: mobility %g, %g cm^2/(V s)\n", (double)Tr[0], (double)Tr[1], (double)m[0], (double)m[1]));
    CHECK(Tr[0] == Ts[0] && Tr[1] == Ts[1], "transport solved at %g, %g K, not at %g, %g K\n", (double)Tr[0], (double)Tr[1], (double)Ts[0], (double)Ts[1]);
    PetscCall(BTEGetTemperature(api, &t));
    CHECK(t == T, "after a transport solve at 100 and 200 K the BTE's temperature is %g K, not the %g K set\n", (double)t, (double)T);
    PetscCall(Rates(api, &Gafter));
    PetscCall(RelDiff(Gafter, Gapi, &r));
    CHECK(r < 1e-14, "after a transport solve a new collision operator differs from one made before by %g\n", (double)r);
    PetscCall(Mobility(api, 1, NULL, &mapi, &Tapi));
    PetscCall(Open(table, NULL, 0, eta, 0, &ref)); /* the same smearing, the table's temperature */
    PetscCall(Mobility(ref, 1, &T, &mref, &Tref));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "transport at the BTE's temperature set through the API: %g K, mobility %g; at %g K on a BTE at the table's %g K: %g cm^2/(V s)\n", (double)Tapi, (double)mapi, (double)Tref, (double)Tf, (double)mref));
    CHECK(Tapi == T, "transport with no temperature list solved at %g K, not at the %g K set\n", (double)Tapi, (double)T);
    CHECK(PetscAbsReal(mapi - mref) <= 1e-12 * PetscAbsReal(mref), "mobility at the temperature set %g differs from the one at %g K on a BTE at the table's temperature %g\n", (double)mapi, (double)T, (double)mref);
    PetscCall(BTEGetTemperature(ref, &t));
    CHECK(t == Tf, "after a transport solve at %g K the BTE at the table's temperature has %g K, not %g K\n", (double)T, (double)t, (double)Tf);
    PetscCall(BTEDestroy(&ref));
  }

  PetscCall(VecDestroy(&Gapi));
  PetscCall(VecDestroy(&Gopt));
  PetscCall(VecDestroy(&Gfile));
  PetscCall(VecDestroy(&Gafter));
  PetscCall(BTEDestroy(&api));
  PetscCall(BTEDestroy(&opt));
  PetscCall(BTEDestroy(&file));
  if (nfail) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%" PetscInt_FMT " check(s) failed\n", nfail));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all checks passed\n"));
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
