/* HDF5 output of the steady-state solvers: /transport and /highfield groups,
   written by rank 0 with the serial HDF5 C API (works with serial or parallel
   HDF5 builds), every dataset with a "units" attribute. The file is written to
   FILE.tmp and renamed, so a failed run never leaves a half-written FILE. */
#include "transportimpl.h"
#include "transportio.h"
#include <bte/private/diagnostics.h>
#include <bte/private/latticeh5.h>
#include <bte/private/h5util.h>
#include <hdf5.h>
#include <stdio.h>

#if defined(PETSC_USE_64BIT_INDICES)
  #define BTE_TR_H5_INT H5T_NATIVE_INT64
#else
  #define BTE_TR_H5_INT H5T_NATIVE_INT32
#endif

/* Small writers; return 0 on success, -1 on failure with a message in err. */
static int BTEH5Attr(hid_t obj, const char name[], const char value[], char err[], size_t len)
{
  hid_t t, s, a;
  int   rc = -1;

  t = H5Tcopy(H5T_C_S1);
  if (t < 0) goto fail;
  H5Tset_size(t, strlen(value) > 0 ? strlen(value) : 1);
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  s = H5Screate(H5S_SCALAR);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  a = H5Acreate2(obj, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0 && H5Awrite(a, t, value[0] ? value : "") >= 0) rc = 0;
  if (a >= 0) H5Aclose(a);
  H5Sclose(s);
  H5Tclose(t);
fail:
  if (rc) snprintf(err, len, "cannot write attribute %s", name);
  return rc;
}

static int BTEH5AttrNum(hid_t obj, const char name[], hid_t type, const void *value, char err[], size_t len)
{
  hid_t s, a;
  int   rc = -1;

  s = H5Screate(H5S_SCALAR);
  a = H5Acreate2(obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
  if (a >= 0 && H5Awrite(a, type, value) >= 0) rc = 0;
  if (a >= 0) H5Aclose(a);
  H5Sclose(s);
  if (rc) snprintf(err, len, "cannot write attribute %s", name);
  return rc;
}

int BTETrH5Write(hid_t g, const char name[], hid_t memtype, int rank, const hsize_t dims[], const void *data, const char units[], const char desc[], char err[], size_t len)
{
  hid_t s, d;
  int   rc = -1;

  s = H5Screate_simple(rank, dims, NULL);
  if (s < 0) goto fail;
  d = H5Dcreate2(g, name, memtype == H5T_NATIVE_DOUBLE ? H5T_IEEE_F64LE : (memtype == H5T_NATIVE_INT64 ? H5T_STD_I64LE : H5T_STD_I32LE), s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (d >= 0) {
    rc = 0;
    if (H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) rc = -1;
    if (!rc && units && BTEH5Attr(d, "units", units, err, len)) rc = -1;
    if (!rc && desc && BTEH5Attr(d, "description", desc, err, len)) rc = -1;
    H5Dclose(d);
  }
  H5Sclose(s);
fail:
  if (rc && !err[0]) snprintf(err, len, "cannot write dataset %s", name);
  return rc;
}

int BTETrH5WriteReal(hid_t g, const char name[], int rank, const hsize_t dims[], const PetscReal *data, const char units[], const char desc[], char err[], size_t len)
{
  return BTETrH5Write(g, name, H5T_NATIVE_DOUBLE, rank, dims, data, units, desc, err, len);
}

int BTETrH5WriteInt(hid_t g, const char name[], int rank, const hsize_t dims[], const PetscInt *data, const char units[], const char desc[], char err[], size_t len)
{
  return BTETrH5Write(g, name, BTE_TR_H5_INT, rank, dims, data, units, desc, err, len);
}

int BTETrH5WriteInt64(hid_t g, const char name[], int rank, const hsize_t dims[], const PetscInt64 *data, const char units[], const char desc[], char err[], size_t len)
{
  long long *buf;
  hsize_t    n = 1;
  int        rc;
  for (int k = 0; k < rank; k++) n *= dims[k];
  buf = (long long *)malloc((n ? n : 1) * sizeof(long long));
  for (hsize_t k = 0; k < n; k++) buf[k] = (long long)data[k];
  rc = BTETrH5Write(g, name, H5T_NATIVE_INT64, rank, dims, buf, units, desc, err, len);
  free(buf);
  return rc;
}

int BTETrH5AttrString(hid_t obj, const char name[], const char value[], char err[], size_t len)
{
  return BTEH5Attr(obj, name, value, err, len);
}

int BTETrH5AttrReal(hid_t obj, const char name[], double value, char err[], size_t len)
{
  return BTEH5AttrNum(obj, name, H5T_NATIVE_DOUBLE, &value, err, len);
}

int BTETrH5AttrInt(hid_t obj, const char name[], long long value, char err[], size_t len)
{
  return BTEH5AttrNum(obj, name, H5T_NATIVE_LLONG, &value, err, len);
}

/* Opens FILE.tmp for writing (rank 0); returns the file id or -1. */
hid_t BTETrH5Open(const char file[], char tmp[], size_t tmplen, char err[], size_t len)
{
  hid_t f;
  snprintf(tmp, tmplen, "%s.tmp", file);
  f = BTEH5FileCreate(tmp, PETSC_FALSE); /* the newest 1.10 format, like tables */
  if (f < 0) snprintf(err, len, "cannot create %s: check the directory exists and is writable", file);
  return f;
}

int BTETrH5Close(hid_t f, const char file[], const char tmp[], int ok, char err[], size_t len)
{
  if (H5Fclose(f) < 0 && ok) {
    snprintf(err, len, "cannot close %s", tmp);
    ok = 0;
  }
  if (!ok) {
    remove(tmp);
    return -1;
  }
  if (rename(tmp, file)) {
    snprintf(err, len, "cannot rename %s to %s", tmp, file);
    remove(tmp);
    return -1;
  }
  return 0;
}

/* Runs the writer on rank 0 with HDF5's own error printing off, then raises one
   collective error if it failed. */
PetscErrorCode BTETrH5Run(MPI_Comm comm, int (*writer)(void *, const char[], char[], size_t), void *ctx, const char file[])
{
  PetscMPIInt rank;
  char        err[1024] = "";
  int         rc        = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    H5E_auto2_t fn;
    void       *data;
    H5Eget_auto2(H5E_DEFAULT, &fn, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    rc = writer(ctx, file, err, sizeof(err));
    H5Eset_auto2(H5E_DEFAULT, fn, data);
  }
  PetscCallMPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(err, sizeof(err), MPI_CHAR, 0, comm));
  PetscCheck(!rc, comm, PETSC_ERR_FILE_WRITE, "Writing %s failed: %s", file, err);
  PetscFunctionReturn(0);
}

typedef struct {
  BTETransport tr;
  PetscInt     dim, nk[3], spin, nstates;
  PetscReal    eta;
  const char  *model;
  BTEDiagnostics diag;
  const char    *why;
} BTETransportWriteCtx;

static int BTETransportWriter(void *vctx, const char file[], char err[], size_t len)
{
  BTETransportWriteCtx *c  = (BTETransportWriteCtx *)vctx;
  BTETransport          tr = c->tr;
  PetscInt              n  = tr->nres;
  hid_t                 f, g;
  char                  tmp[PETSC_MAX_PATH_LEN + 8];
  int                   ok = 1;
  hsize_t               d1[1] = {(hsize_t)n}, d2[2] = {(hsize_t)n, 3}, d3[3] = {(hsize_t)n, 3, 3};
  PetscReal            *buf;
  PetscInt             *ibuf;
  PetscInt64           *lbuf;
  const char           *dunit = c->dim == 2 ? "cm^-2" : "cm^-3", *sunit = c->dim == 2 ? "S" : "S/m";

  f = BTETrH5Open(file, tmp, sizeof(tmp), err, len);
  if (f < 0) return -1;
  g = H5Gcreate2(f, "transport", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) {
    snprintf(err, len, "cannot create group /transport");
    BTETrH5Close(f, file, tmp, 0, err, len);
    return -1;
  }
  buf  = (PetscReal *)malloc((9 * n + 1) * sizeof(PetscReal));
  ibuf = (PetscInt *)malloc((3 * n + 1) * sizeof(PetscInt));
  lbuf = (PetscInt64 *)malloc((n + 1) * sizeof(PetscInt64));
#define FILL(expr) for (PetscInt k = 0; k < n; k++) buf[k] = tr->res[k].expr
  FILL(temperature);
  ok = ok && !BTETrH5WriteReal(g, "temperature", 1, d1, buf, "K", "lattice temperature of each configuration", err, len);
  FILL(chemical_potential);
  ok = ok && !BTETrH5WriteReal(g, "chemical_potential", 1, d1, buf, "eV", "chemical potential (table's energy convention)", err, len);
  FILL(carrier_density);
  ok = ok && !BTETrH5WriteReal(g, "carrier_density", 1, d1, buf, dunit, "n_c = s/(V Nk) sum_i f0_i", err, len);
#undef FILL
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt a = 0; a < 9; a++) buf[9 * k + a] = tr->res[k].conductivity[a];
  ok = ok && !BTETrH5WriteReal(g, "conductivity", 3, d3, buf, sunit, "sigma_ab (row a: current, column b: field)", err, len);
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt a = 0; a < 9; a++) buf[9 * k + a] = tr->res[k].mobility[a];
  ok = ok && !BTETrH5WriteReal(g, "mobility", 3, d3, buf, "cm^2/(V s)", "mu_ab = sigma_ab / (e n_c)", err, len);
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt a = 0; a < 3; a++) buf[3 * k + a] = tr->res[k].residual[a];
  ok = ok && !BTETrH5WriteReal(g, "residual", 2, d2, buf, "1", "||v_b - A F_b|| / ||v_b|| per field direction b", err, len);
  for (PetscInt k = 0; k < n; k++)
    for (PetscInt a = 0; a < 3; a++) ibuf[3 * k + a] = tr->res[k].iterations[a];
  ok = ok && !BTETrH5WriteInt(g, "iterations", 2, d2, ibuf, "1", "KSP or ITA iterations per field direction", err, len);
  for (PetscInt k = 0; k < n; k++) lbuf[k] = tr->res[k].applies;
  ok = ok && !BTETrH5WriteInt64(g, "operator_applies", 1, d1, lbuf, "1", "collision Jacobian applies by the solver, all three directions", err, len);
  for (PetscInt k = 0; k < n; k++) ibuf[k] = tr->res[k].converged ? 1 : 0;
  ok = ok && !BTETrH5WriteInt(g, "converged", 1, d1, ibuf, "1", "1 if every direction met its tolerance", err, len);
  ok = ok && !BTETrH5AttrString(g, "method", BTETransportMethods[tr->method], err, len);
  ok = ok && !BTETrH5AttrString(g, "ksp_type", tr->ksp_type, err, len);
  ok = ok && !BTETrH5AttrInt(g, "dimension", c->dim, err, len);
  ok = ok && !BTETrH5AttrInt(g, "spin_degeneracy", c->spin, err, len);
  ok = ok && !BTETrH5AttrInt(g, "num_states", c->nstates, err, len);
  {
    char grid[64];
    snprintf(grid, sizeof(grid), "%d x %d x %d", (int)c->nk[0], (int)c->nk[1], (int)c->nk[2]);
    ok = ok && !BTETrH5AttrString(g, "k_grid", grid, err, len);
  }
  ok = ok && !BTETrH5AttrReal(g, "smearing_eV", c->eta, err, len);
  ok = ok && !BTETrH5AttrString(g, "model", c->model ? c->model : "", err, len);
  if (tr->method == BTE_TRANSPORT_ITA) ok = ok && !BTETrH5AttrReal(g, "ita_tol", tr->ita_tol, err, len);
  ok = ok && !BTEDiagnosticsWriteH5(f, &c->diag, c->why, err, len);
  ok = ok && !BTELatticeWriteH5(f, &tr->bte->grid, err, len);
  free(buf);
  free(ibuf);
  free(lbuf);
  H5Gclose(g);
  return BTETrH5Close(f, file, tmp, ok, err, len);
}

/*@
   BTETransportWriteHDF5 - Writes the results to an HDF5 file (/transport, docs/transport.md)

   Collective

   Input Parameters:
+  tr   - the transport object
-  file - the file (created or truncated)

   Level: beginner

.seealso: `BTETransportSolve()`
@*/
PetscErrorCode BTETransportWriteHDF5(BTETransport tr, const char file[])
{
  BTETransportWriteCtx c;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(tr, BTETRANSPORT_CLASSID, 1);
  PetscCheck(tr->nres > 0, PetscObjectComm((PetscObject)tr), PETSC_ERR_ARG_WRONGSTATE, "Call BTETransportSolve() before BTETransportWriteHDF5()");
  PetscCall(BTECheckOutputFile(tr->bte, file, NULL));
  PetscCall(PetscLogEventBegin(BTE_TransportIO, tr, 0, 0, 0));
  c.tr = tr;
  PetscCall(BTEGetGrid(tr->bte, &c.dim, c.nk, NULL, NULL, NULL));
  PetscCall(BTEGetSpinDegeneracy(tr->bte, &c.spin));
  PetscCall(BTEGetNumStates(tr->bte, NULL, &c.nstates));
  PetscCall(BTEGetSmearing(tr->bte, &c.eta));
  PetscCall(BTEGetModel(tr->bte, &c.model));
  PetscCall(BTEDiagnosticsCompute(tr->bte, NULL, &c.diag));
  PetscCall(BTEDiagnosticsGetReason(tr->bte, &c.why));
  PetscCall(BTETrH5Run(PetscObjectComm((PetscObject)tr), BTETransportWriter, &c, file));
  PetscCall(PetscLogEventEnd(BTE_TransportIO, tr, 0, 0, 0));
  PetscFunctionReturn(0);
}
