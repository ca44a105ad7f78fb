/* HDF5 output of the linear-response solver: group /transport of an output file made by the
   output layer (src/io/output.c: FILE.tmp renamed when complete, provenance, /grid, /diagnostics),
   written by rank 0, every dataset with a "units" and a "description" attribute
   (docs/transport.md, "Output files"). */
#include "transportimpl.h"
#include <bte/private/output.h>

/* file types of the integers: PetscInt as it is (i32, or i64 with 64-bit PetscInt), counts as i64 */
#define BTE_TR_H5_INT (sizeof(PetscInt) == 8 ? H5T_STD_I64LE : H5T_STD_I32LE)

typedef struct {
  BTETransport tr;
  PetscInt     dim, nk[3], spin, nstates;
  PetscReal    eta;
  const char  *model;
} BTETransportWriteCtx;

/* Rank 0: group /transport */
static int BTETransportWriter(const BTETransportWriteCtx *c, hid_t f, BTEH5Status *st)
{
  BTETransport tr = c->tr;
  PetscInt     n  = tr->nres;
  hid_t        g;
  hsize_t      d1[1] = {(hsize_t)n}, d2[2] = {(hsize_t)n, 3}, d3[3] = {(hsize_t)n, 3, 3};
  PetscReal   *buf;
  PetscInt    *ibuf;
  long long   *lbuf;
  const char  *dunit = c->dim == 2 ? "cm^-2" : "cm^-3", *sunit = c->dim == 2 ? "S" : "S/m";
  char         grid[64];

  g = H5Gcreate2(f, "transport", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "cannot create group /transport");
  buf  = (PetscReal *)malloc((9 * n + 1) * sizeof(PetscReal));
  ibuf = (PetscInt *)malloc((3 * n + 1) * sizeof(PetscInt));
  lbuf = (long long *)malloc((n + 1) * sizeof(long long));
  if (!buf || !ibuf || !lbuf) BTEH5Fail(st, "out of memory");
#define REAL(name, rank, dims, units, desc) \
  if (!st->bad) (void)BTEH5WriteDataset(g, name, H5T_IEEE_F64LE, BTE_H5_NATIVE_REAL, rank, dims, buf, units, desc, st)
#define FILL(expr) \
  for (PetscInt k = 0; !st->bad && k < n; k++) buf[k] = tr->res[k].expr
  FILL(temperature);
  REAL("temperature", 1, d1, "K", "lattice temperature of each configuration");
  FILL(chemical_potential);
  REAL("chemical_potential", 1, d1, "eV", "chemical potential (table's energy convention)");
  FILL(carrier_density);
  REAL("carrier_density", 1, d1, dunit, "n_c = s/(V Nk) sum_i f0_i");
  FILL(edge_share);
  REAL("edge_share", 1, d1, "1", "share of the conducting carriers (weight f0 (1 - f0)) within 3 kT of the window's top; above 1e-3 the window cuts the distribution");
  FILL(thermal_states);
  REAL("thermal_states", 1, d1, "1", "states the conducting carriers sit on in effect: (sum_i w_i)^2 / sum_i w_i^2, w = f0 (1 - f0); below 100 the grid samples them too coarsely for a converged mobility");
#undef FILL
  for (PetscInt k = 0; !st->bad && k < n; k++)
    for (PetscInt a = 0; a < 9; a++) buf[9 * k + a] = tr->res[k].conductivity[a];
  REAL("conductivity", 3, d3, sunit, "sigma_ab (row a: current, column b: field)");
  for (PetscInt k = 0; !st->bad && k < n; k++)
    for (PetscInt a = 0; a < 9; a++) buf[9 * k + a] = tr->res[k].mobility[a];
  REAL("mobility", 3, d3, "cm^2/(V s)", "mu_ab = sigma_ab / (e n_c)");
  for (PetscInt k = 0; !st->bad && k < n; k++)
    for (PetscInt a = 0; a < 3; a++) buf[3 * k + a] = tr->res[k].residual[a];
  REAL("residual", 2, d2, "1", tr->method == BTE_TRANSPORT_KSP && tr->solved_sym ? "||D v_b - S F_b|| / ||D v_b|| per field direction b: the symmetric form S F = D v (S = D A) its KSP solved" : "||v_b - A F_b|| / ||v_b|| per field direction b");
#undef REAL
  for (PetscInt k = 0; !st->bad && k < n; k++)
    for (PetscInt a = 0; a < 3; a++) ibuf[3 * k + a] = tr->res[k].iterations[a];
  if (!st->bad) BTEH5WriteDataset(g, "iterations", BTE_TR_H5_INT, BTE_H5_NATIVE_INT, 2, d2, ibuf, "1", "KSP or ITA iterations per field direction", st);
  for (PetscInt k = 0; !st->bad && k < n; k++) lbuf[k] = (long long)tr->res[k].applies;
  if (!st->bad) BTEH5WriteDataset(g, "operator_applies", H5T_STD_I64LE, H5T_NATIVE_LLONG, 1, d1, lbuf, "1", "collision Jacobian applies by the solver, all three directions", st);
  for (PetscInt k = 0; !st->bad && k < n; k++) ibuf[k] = tr->res[k].converged ? 1 : 0;
  if (!st->bad) BTEH5WriteDataset(g, "converged", BTE_TR_H5_INT, BTE_H5_NATIVE_INT, 1, d1, ibuf, "1", tr->method == BTE_TRANSPORT_KSP ? "1 if, in every direction, the KSP reported convergence (at ksp_rtol, or another of its tests: -bte_transport_ksp_*) and the residual before the carrier-number projection was at most residual_max" : tr->method == BTE_TRANSPORT_ITA ? "1 if every direction met the ITA rule (ita_tol)" : "1 (RTA is not iterative)", st);
  snprintf(grid, sizeof(grid), "%d x %d x %d", (int)c->nk[0], (int)c->nk[1], (int)c->nk[2]);
  if (!st->bad) BTEH5WriteAttrString(g, "method", BTETransportMethods[tr->method], st);
  if (!st->bad) BTEH5WriteAttrString(g, "ksp_type", tr->ksp_type, st);
  if (!st->bad) BTEH5WriteAttrInts(g, "dimension", 1, (long long[]){c->dim}, st);
  if (!st->bad) BTEH5WriteAttrInts(g, "spin_degeneracy", 1, (long long[]){c->spin}, st);
  if (!st->bad) BTEH5WriteAttrInts(g, "num_states", 1, (long long[]){c->nstates}, st);
  if (!st->bad) BTEH5WriteAttrString(g, "k_grid", grid, st);
  if (!st->bad) BTEH5WriteAttrReals(g, "smearing_eV", 1, (double[]){c->eta}, "eV", st);
  if (!st->bad) BTEH5WriteAttrString(g, "model", c->model ? c->model : "", st);
  if (!st->bad) BTEH5WriteAttrString(g, "delta", BTEDeltas[tr->bte->delta], st);
  /* which of the two was given: the rows of a chemical-potential sweep have densities that change
     with the temperature, and a reader groups them by the one held fixed */
  if (!st->bad) BTEH5WriteAttrString(g, "fixed", tr->use_mu ? "chemical_potential" : "carrier_density", st);
  if (!st->bad && tr->method == BTE_TRANSPORT_ITA) BTEH5WriteAttrReals(g, "ita_tol", 1, (double[]){tr->ita_tol}, NULL, st);
  if (!st->bad && tr->method == BTE_TRANSPORT_KSP) BTEH5WriteAttrReals(g, "ksp_rtol", 1, (double[]){tr->ksp_rtol}, "1", st);
  if (!st->bad && tr->method == BTE_TRANSPORT_KSP) BTEH5WriteAttrReals(g, "residual_max", 1, (double[]){tr->residual_max}, "1", st);
  if (!st->bad && tr->method == BTE_TRANSPORT_KSP) BTEH5WriteAttrInts(g, "symmetric_form", 1, (long long[]){tr->solved_sym ? 1 : 0}, st);
  {
    /* per state: filled by every rank's slab after this (BTETransportWriteHDF5) */
    hsize_t N = (hsize_t)c->nstates, dr[2] = {(hsize_t)n, (hsize_t)c->nstates};
    if (!st->bad && !BTEH5CreateDataset(g, "scattering_rate", H5T_IEEE_F64LE, 2, dr, 0, NULL, st)) BTEH5DescribeDataset(g, "scattering_rate", "1/fs", "Gamma_i = -diag J(f0) of each configuration: the out-scattering rate of each state at equilibrium, the inverse RTA lifetime (2 Im Sigma / hbar, Perturbo's imsigma)", st);
    if (!st->bad && !BTEH5CreateDataset(g, "state_energy", H5T_IEEE_F64LE, 1, &N, 0, NULL, st)) BTEH5DescribeDataset(g, "state_energy", "eV", "energy of each state (the table's energy convention)", st);
    if (!st->bad && !BTEH5CreateDataset(g, "state_kindex", BTE_TR_H5_INT, 1, &N, 0, NULL, st)) BTEH5DescribeDataset(g, "state_kindex", "", "full-grid k index of each state", st);
    if (!st->bad && !BTEH5CreateDataset(g, "state_band", BTE_TR_H5_INT, 1, &N, 0, NULL, st)) BTEH5DescribeDataset(g, "state_band", "", "band index of each state", st);
  }
  free(buf);
  free(ibuf);
  free(lbuf);
  H5Gclose(g);
  return st->bad ? -1 : 0;
}

/*@
   BTETransportWriteHDF5 - Writes the results to an HDF5 file (/transport, docs/transport.md)

   Collective

   Input Parameters:
+  tr   - the transport object
-  file - the file (created or truncated)

   Notes:
   The file is written as FILE.tmp and renamed to FILE when complete, with the root attribute
   complete = 1: a run that fails never leaves a half-written FILE.

   Level: beginner

.seealso: `BTETransportSolve()`
@*/
PetscErrorCode BTETransportWriteHDF5(BTETransport tr, const char file[])
{
  BTETransportWriteCtx c;
  BTEOutput            out;
  hid_t                f;
  BTEH5Status         *st;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(tr->nres > 0, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_WRONGSTATE, "Call BTETransportSolve() before BTETransportWriteHDF5()");
  PetscCall(PetscLogEventBegin(BTE_TransportIO, tr, 0, 0, 0));
  c.tr = tr;
  PetscCall(BTEGetGrid(tr->bte, &c.dim, c.nk, NULL, NULL, NULL));
  PetscCall(BTEGetSpinDegeneracy(tr->bte, &c.spin));
  PetscCall(BTEGetNumStates(tr->bte, NULL, &c.nstates));
  PetscCall(BTEGetSmearing(tr->bte, &c.eta));
  PetscCall(BTEGetModel(tr->bte, &c.model));
  PetscCall(BTEOutputCreate(tr->bte, file, NULL, "transport", PETSC_FALSE, &out));
  PetscCall(BTEOutputWriteRunInfo(out, NULL));
  PetscCall(BTEOutputGetFile(out, &f, &st));
  if (st) (void)BTETransportWriter(&c, f, st);
  PetscCall(BTEOutputCheck(out));
  {
    BTE         bte = tr->bte;
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)tr), &rank));
    PetscCall(BTEOutputWriteStates(out, rank ? -1 : f, "transport/state_energy", -1, PETSC_FALSE, bte->energy));
    PetscCall(BTEOutputWriteStates(out, rank ? -1 : f, "transport/state_kindex", -1, PETSC_TRUE, bte->kindex));
    PetscCall(BTEOutputWriteStates(out, rank ? -1 : f, "transport/state_band", -1, PETSC_TRUE, bte->band));
    for (PetscInt k = 0; k < tr->nres; k++) {
      const PetscScalar *a;
      PetscCall(VecGetArrayRead(tr->rate[k], &a));
      PetscCall(BTEOutputWriteStates(out, rank ? -1 : f, "transport/scattering_rate", k, PETSC_FALSE, (const PetscReal *)a));
      PetscCall(VecRestoreArrayRead(tr->rate[k], &a));
    }
  }
  PetscCall(BTEOutputClose(&out));
  PetscCall(PetscLogEventEnd(BTE_TransportIO, tr, 0, 0, 0));
  PetscFunctionReturn(0);
}
