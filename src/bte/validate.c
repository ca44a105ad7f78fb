/* Validation of bte's settings against the stated bounds of include/bte/private/validate.h
   (docs/validation.md), and the finite-state check the run modes use. */
#include <bte/private/validate.h>
#include <bte/private/statecheck.h>

PetscLogEvent BTE_StateCheck;

static PetscErrorCode CheckRange(MPI_Comm comm, const char what[], PetscReal v, PetscReal lo, PetscBool open, PetscReal hi, const char units[], const char hint[])
{
  PetscFunctionBegin;
  if (PetscIsInfOrNanReal(v) || v < lo || (open && v == lo) || v > hi) {
    const char *u = units && units[0] ? " " : "";
    SETERRQ(comm, PETSC_ERR_ARG_OUTOFRANGE, "%s = %.6g%s%s %s: expected a finite value in %s%.6g, %.6g]%s%s%s", what, (double)v, u, units ? units : "", PetscIsInfOrNanReal(v) ? "is not a finite number" : "is out of range", open ? "(" : "[", (double)lo, (double)hi, u, units ? units : "", hint ? hint : "");
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckRange(MPI_Comm comm, const char what[], PetscReal v, PetscReal lo, PetscReal hi, const char units[], const char hint[])
{
  PetscFunctionBegin;
  PetscCall(CheckRange(comm, what, v, lo, PETSC_FALSE, hi, units, hint));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckRangeAbove(MPI_Comm comm, const char what[], PetscReal v, PetscReal lo, PetscReal hi, const char units[], const char hint[])
{
  PetscFunctionBegin;
  PetscCall(CheckRange(comm, what, v, lo, PETSC_TRUE, hi, units, hint));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckStateVec(Vec v, PetscInt nlocal, PetscInt arg)
{
  PetscInt n;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(v, VEC_CLASSID, arg);
  PetscCall(VecGetLocalSize(v, &n));
  PetscCheck(n == nlocal, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Vec argument %" PetscInt_FMT " has local size %" PetscInt_FMT " but this rank owns %" PetscInt_FMT " states; create it with BTECreateStateVec()", arg, n, nlocal);
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckListOption(PetscObject obj, const char name[], const char example[])
{
  char      val[4096];
  size_t    len;
  PetscBool flg, empty = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(obj->options, obj->prefix, name, val, sizeof(val), &flg));
  if (!flg) PetscFunctionReturn(0);
  PetscCall(PetscStrlen(val, &len));
  PetscCheck(len, PetscObjectComm(obj), PETSC_ERR_USER_INPUT, "%s needs a comma-separated list of values, e.g. %s %s", name, name, example);
  if (val[0] == ',' || val[len - 1] == ',') empty = PETSC_TRUE;
  for (size_t i = 1; i < len; i++)
    if (val[i] == ',' && val[i - 1] == ',') empty = PETSC_TRUE;
  PetscCheck(!empty, PetscObjectComm(obj), PETSC_ERR_USER_INPUT, "%s %s: an empty entry (two commas in a row, or a comma at an end); give a comma-separated list, e.g. %s %s", name, val, name, example);
  PetscFunctionReturn(0);
}

PetscErrorCode BTEValidateSettings(BTE bte)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)bte);

  PetscFunctionBegin;
  PetscCall(BTECheckRange(comm, "temperature (-bte_temperature)", bte->temperature, BTE_TEMPERATURE_MIN, BTE_TEMPERATURE_MAX, "K", NULL));
  PetscCall(BTECheckRange(comm, "smearing (-bte_smearing)", bte->smearing, BTE_SMEARING_MIN, BTE_SMEARING_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "energy window width (-bte_window)", bte->window, BTE_SMEARING_MIN, BTE_WINDOW_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "-bte_g2_cutoff", bte->g2_cutoff, 0, BTE_G2_MAX, "eV^2", NULL));
  PetscCall(BTECheckRange(comm, "-bte_phonon_min", bte->phonon_min, 0, BTE_PHONON_MAX, "eV", NULL));
  PetscCall(BTECheckRange(comm, "-bte_energy_tolerance", bte->tol_eta, 1e-3, BTE_ETOL_MAX, "(units of the smearing)", NULL));
  PetscCall(BTECheckRange(comm, "-bte_memory_limit", bte->mem_limit / 1e9, 0, 1e9, "GB", NULL));
  PetscFunctionReturn(0);
}

/* Local statistics over a host array: one loop. The comparisons are false for NaN, so NaN is
   counted by isfinite and leaves min and max alone, as VecMin/VecMax did. */
static void BTEStateStatsHost(const PetscScalar *a, PetscInt n, BTEStateStats *st)
{
  PetscReal sum = 0, lo = PETSC_MAX_REAL, hi = -PETSC_MAX_REAL, bad = 0;

  for (PetscInt i = 0; i < n; i++) {
    PetscReal v = PetscRealPart(a[i]);
    sum += v;
    if (!isfinite(v)) {
      bad += 1;
      continue;
    }
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  st->sum       = sum;
  st->min       = lo;
  st->max       = hi;
  st->nonfinite = bad;
}

/* MPI reduction of BTEStateStats: sum, min, max, sum (one Allreduce for all four) */
static MPI_Datatype BTEStateStatsType = MPI_DATATYPE_NULL;
static MPI_Op       BTEStateStatsOp   = MPI_OP_NULL;

static void MPIAPI BTEStateStatsCombine(void *in, void *inout, int *len, MPI_Datatype *type)
{
  BTEStateStats *a = (BTEStateStats *)in, *b = (BTEStateStats *)inout;
  (void)type;
  for (int i = 0; i < *len; i++) {
    b[i].sum += a[i].sum;
    b[i].min = PetscMin(a[i].min, b[i].min);
    b[i].max = PetscMax(a[i].max, b[i].max);
    b[i].nonfinite += a[i].nonfinite;
  }
}

static PetscErrorCode BTEStateStatsFinalize(void)
{
  PetscFunctionBegin;
  if (BTEStateStatsOp != MPI_OP_NULL) PetscCallMPI(MPI_Op_free(&BTEStateStatsOp));
  if (BTEStateStatsType != MPI_DATATYPE_NULL) PetscCallMPI(MPI_Type_free(&BTEStateStatsType));
  PetscFunctionReturn(0);
}

static PetscErrorCode BTEStateStatsAllreduce(MPI_Comm comm, BTEStateStats *st)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(0);
  if (BTEStateStatsOp == MPI_OP_NULL) {
    PetscCallMPI(MPI_Type_contiguous(4, MPIU_REAL, &BTEStateStatsType));
    PetscCallMPI(MPI_Type_commit(&BTEStateStatsType));
    PetscCallMPI(MPI_Op_create(BTEStateStatsCombine, 1, &BTEStateStatsOp));
    PetscCall(PetscRegisterFinalize(BTEStateStatsFinalize));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, st, 1, BTEStateStatsType, BTEStateStatsOp, comm));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEStateCheck(Vec f, PetscReal tol, PetscBool *ok, PetscBool *finite, PetscReal *vmin, PetscReal *vmax)
{
  BTEStateStats st;
  PetscBool     cuda = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(BTE_StateCheck, f, 0, 0, 0));
#if defined(BTE_HAVE_CUDA)
  /* with the entries on the device, read them there: the host copy would be a full download */
  {
    PetscOffloadMask mask;
    PetscCall(PetscObjectTypeCompareAny((PetscObject)f, &cuda, VECSEQCUDA, VECMPICUDA, VECCUDA, ""));
    if (cuda) {
      PetscCall(VecGetOffloadMask(f, &mask));
      if (mask == PETSC_OFFLOAD_CPU) cuda = PETSC_FALSE;
    }
  }
  if (cuda) PetscCall(BTEStateStatsCUDA(f, &st));
#endif
  if (!cuda) {
    const PetscScalar *a;
    PetscInt           n;
    PetscCall(VecGetLocalSize(f, &n));
    PetscCall(VecGetArrayRead(f, &a));
    BTEStateStatsHost(a, n, &st);
    PetscCall(VecRestoreArrayRead(f, &a));
    PetscCall(PetscLogFlops(3.0 * n));
  }
  PetscCall(BTEStateStatsAllreduce(PetscObjectComm((PetscObject)f), &st));
  PetscCall(PetscLogEventEnd(BTE_StateCheck, f, 0, 0, 0));
  /* not finite: an entry is NaN or Inf, or the finite entries overflow the sum (also a bad state) */
  *ok = (st.nonfinite > 0 || !isfinite(st.sum)) ? PETSC_FALSE : PETSC_TRUE;
  if (finite) *finite = *ok;
  if (*ok && tol >= 0 && (st.min < -tol || st.max > 1 + tol)) *ok = PETSC_FALSE;
  if (vmin) *vmin = st.min;
  if (vmax) *vmax = st.max;
  PetscFunctionReturn(0);
}
