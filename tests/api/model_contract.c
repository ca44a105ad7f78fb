/* model_contract: an application's model that breaks one rule of the BTEModelSpec contract
   (docs/extending.md, include/bte/private/modelimpl.h) on purpose, selected by -break; the build
   (BTEModelBuild) must refuse each with one line naming the rule. Each of these was once accepted
   and gave a table without a word: states or channels silently missing (NaN energies, a band left
   unset, NaN or negative |g|^2, a phonon energy above hwmax), or a table bte's own reader refuses
   (NaN velocities, spin 0, carrier 0).

     -break none        : a valid model (one parabolic band, one Einstein phonon): it builds, and
                          every channel has the model's phonon energy and coupling
     -break nan_energy  : NaN energy at some k
     -break unset_band  : nbands = 2, the callback fills only band 0
     -break nan_velocity: NaN velocity at some k
     -break neg_g2      : |g|^2 < 0 for some pairs
     -break nan_g2      : |g|^2 NaN for some pairs
     -break nan_hw      : phonon energy NaN for some pairs
     -break hwmax       : hwmax below the phonon energy the coupling returns
     -break spin        : spin degeneracy 0
     -break carrier     : carrier 0
     -break eedge       : band edge NaN
     -break nobuild     : a generate function that returns without building
     -break longname    : a name longer than bte keeps (it was cut, then "unknown model")
     -break abi         : registered with a struct _p_BTE size other than the library's (a program
                          built against the private headers of another bte) */
#include <bte/private/modelimpl.h>
#include <math.h>
#include <string.h>

static const char help[] = "A model breaking one rule of the model contract (-break).\n";

static char breakwhat[32] = "none";

#define HB2_2ME 3.80998212 /* hbar^2 / (2 m_e), eV Angstrom^2 */
#define C_MASS  (HB2_2ME / 0.2)
#define HW0     0.03

static PetscErrorCode ContractBands(void *ctx, const PetscReal k[3], PetscReal e[], PetscReal v[])
{
  (void)ctx;
  e[0] = C_MASS * (k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
  for (int c = 0; c < 3; c++) v[c] = 2 * C_MASS * k[c] / BTE_HBAR;
  if (k[0] > 0.05 && !strcmp(breakwhat, "nan_energy")) e[0] = NAN;
  if (k[0] > 0.05 && !strcmp(breakwhat, "nan_velocity")) v[1] = NAN;
  return 0; /* unset_band: band 1 is left as it is */
}

static PetscErrorCode ContractCoupling(void *ctx, PetscInt n, const PetscReal k[3], PetscInt m, const PetscReal kp[3], const PetscReal q[3], PetscReal hw[], PetscReal g2[])
{
  (void)ctx, (void)n, (void)k, (void)m, (void)kp;
  hw[0] = HW0;
  g2[0] = 2e-3;
  if (q[0] > 0.02) {
    if (!strcmp(breakwhat, "neg_g2")) g2[0] = -1e-3;
    if (!strcmp(breakwhat, "nan_g2")) g2[0] = NAN;
    if (!strcmp(breakwhat, "nan_hw")) hw[0] = NAN;
  }
  return 0;
}

static PetscErrorCode ContractGenerate(BTE bte)
{
  BTEModelSpec spec;

  PetscFunctionBeginUser;
  if (!strcmp(breakwhat, "nobuild")) PetscFunctionReturn(0); /* forgets BTEModelBuild */
  PetscCall(PetscMemzero(&spec, sizeof(spec)));
  spec.name       = "contract";
  spec.dim        = 3;
  spec.nbands     = !strcmp(breakwhat, "unset_band") ? 2 : 1;
  spec.nmodes     = 1;
  spec.spin       = !strcmp(breakwhat, "spin") ? 0 : 2;
  spec.carrier    = !strcmp(breakwhat, "carrier") ? 0 : -1;
  spec.lattice[0] = spec.lattice[4] = spec.lattice[8] = 20.0;
  spec.eedge      = !strcmp(breakwhat, "eedge") ? NAN : 0.0;
  spec.hwmax      = !strcmp(breakwhat, "hwmax") ? 0.001 : HW0;
  spec.bands      = ContractBands;
  spec.coupling   = ContractCoupling;
  spec.source     = NULL; /* the table's source: this program's command line, not "bte generate" */
  PetscCall(BTEModelBuild(bte, &spec));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEModelCreate_Contract(BTE bte)
{
  PetscFunctionBeginUser;
  bte->modelops.generate = ContractGenerate;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  BTE      bte;
  PetscInt n = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-break", breakwhat, sizeof(breakwhat), NULL));
  /* abi: as a program compiled against other private headers would register (a struct size that
     is not the library's); the checked registration refuses it */
  if (!strcmp(breakwhat, "longname")) PetscCall(BTEModelRegister("a_model_name_of_seventy_characters_is_longer_than_a_name_may_be_xxxxx", BTEModelCreate_Contract));
  if (!strcmp(breakwhat, "abi")) PetscCall(BTEModelRegisterSized("contract", BTEModelCreate_Contract, sizeof(struct _p_BTE) + 256));
  PetscCall(BTEModelRegister("contract", BTEModelCreate_Contract));
  PetscCall(BTECreate(PETSC_COMM_WORLD, &bte));
  PetscCall(BTESetModel(bte, "contract"));
  PetscCall(BTESetGrid(bte, 12));
  PetscCall(BTESetFromOptions(bte));
  PetscCall(BTESetUp(bte));
  for (PetscCount c = 0; c < bte->ch.n; c++)
    if (bte->ch.hw[c] != HW0 || bte->ch.g2[c] != 2e-3) n++;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &n, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCheck(n == 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%" PetscInt_FMT " channels without the model's phonon energy and coupling", n);
  PetscCheck(bte->nstates > 0 && bte->ch.nglobal > 0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "no states or channels");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "model contract (-break %s): %" PetscInt_FMT " states, %" PetscInt64_FMT " channels, built; source: %s\n", breakwhat, bte->nstates, bte->ch.nglobal, bte->source));
  PetscCall(BTEDestroy(&bte));
  PetscCall(PetscFinalize());
  return 0;
}
