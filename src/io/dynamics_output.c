/* HDF5 output of bte dynamics and restart reading (docs/dynamics.md, "Output file").

   Only rank 0 opens the output file; the other ranks send it their slab of the
   occupations in turn, so no rank holds the full state and no MPI-IO is needed
   (serial or parallel HDF5 both work). Time series are extendable (chunked, unlimited
   time dimension) and the file is flushed after every snapshot, so a run stopped
   midway leaves a valid file of the snapshots so far. /dynamics/time is written last
   in a snapshot: a reader takes its length as the number of complete snapshots.
   Restart: every rank reads its own slab of the last complete snapshot. */
#include <bte/private/dynamicsimpl.h>
#include <hdf5.h>
#include <stdio.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <bte/private/validate.h>
#include <bte/private/diagnostics.h>
#include <bte/private/latticeh5.h>
#include <bte/private/h5util.h>

#define BTE_DYN_FORMAT_NAME    "bte-dynamics"
#define BTE_DYN_FORMAT_VERSION 1

#define H5CALL(call, ...) \
  do { \
    if ((call) < 0) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, __VA_ARGS__); \
  } while (0)

static PetscErrorCode H5AttrString(hid_t obj, const char name[], const char value[])
{
  hid_t       type, space, attr;
  const char *v = value ? value : "";

  PetscFunctionBegin;
  type = BTEH5StringType(v); /* fixed-length UTF-8 (src/io/h5util.c says why) */
  H5CALL(type, "HDF5: string type");
  space = H5Screate(H5S_SCALAR);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5CALL(attr, "HDF5: cannot create attribute %s", name);
  H5CALL(H5Awrite(attr, type, v), "HDF5: cannot write attribute %s", name);
  H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  PetscFunctionReturn(0);
}

static PetscErrorCode H5AttrReals(hid_t obj, const char name[], hsize_t n, const double v[])
{
  hid_t space, attr;

  PetscFunctionBegin;
  space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  attr = H5Acreate2(obj, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT);
  H5CALL(attr, "HDF5: cannot create attribute %s", name);
  H5CALL(H5Awrite(attr, H5T_NATIVE_DOUBLE, v), "HDF5: cannot write attribute %s", name);
  H5Aclose(attr);
  H5Sclose(space);
  PetscFunctionReturn(0);
}

static PetscErrorCode H5AttrInts(hid_t obj, const char name[], hsize_t n, const long long v[])
{
  hid_t space, attr;

  PetscFunctionBegin;
  space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  attr = H5Acreate2(obj, name, H5T_NATIVE_LLONG, space, H5P_DEFAULT, H5P_DEFAULT);
  H5CALL(attr, "HDF5: cannot create attribute %s", name);
  H5CALL(H5Awrite(attr, H5T_NATIVE_LLONG, v), "HDF5: cannot write attribute %s", name);
  H5Aclose(attr);
  H5Sclose(space);
  PetscFunctionReturn(0);
}

/* An extendable time series: dims [0] or [0][n], chunked along time. */
static PetscErrorCode H5CreateSeries(hid_t gid, const char name[], hid_t type, PetscInt n, const char units[], const char desc[])
{
  hsize_t dims[2] = {0, (hsize_t)n}, maxd[2] = {H5S_UNLIMITED, (hsize_t)n}, chunk[2];
  int     rank = n > 0 ? 2 : 1;
  hid_t   space, dcpl, ds;

  PetscFunctionBegin;
  chunk[0] = n > 0 ? 1 : 256;
  chunk[1] = n > 0 ? (hsize_t)PetscMin(n, 65536) : 1;
  space    = H5Screate_simple(rank, dims, maxd);
  dcpl     = H5Pcreate(H5P_DATASET_CREATE);
  H5CALL(H5Pset_chunk(dcpl, rank, chunk), "HDF5: chunk");
  ds = H5Dcreate2(gid, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5CALL(ds, "HDF5: cannot create dataset %s", name);
  if (units) PetscCall(H5AttrString(ds, "units", units));
  if (desc) PetscCall(H5AttrString(ds, "description", desc));
  H5Dclose(ds);
  H5Pclose(dcpl);
  H5Sclose(space);
  PetscFunctionReturn(0);
}

/* Row t (columns [c0, c0+nc)) of a series, extending it to t+1 rows when extend is set. */
static PetscErrorCode H5WriteRow(hid_t gid, const char name[], hid_t memtype, hsize_t t, hsize_t c0, hsize_t nc, PetscBool extend, const void *buf)
{
  hid_t   ds, fs, ms;
  int     rank;
  hsize_t dims[2], start[2] = {t, c0}, count[2] = {1, nc};

  PetscFunctionBegin;
  ds = H5Dopen2(gid, name, H5P_DEFAULT);
  H5CALL(ds, "HDF5: cannot open dataset %s", name);
  fs   = H5Dget_space(ds);
  rank = H5Sget_simple_extent_ndims(fs);
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  if (extend) {
    dims[0] = t + 1;
    H5CALL(H5Dset_extent(ds, dims), "HDF5: cannot extend %s", name);
  }
  fs = H5Dget_space(ds);
  if (rank == 1) count[0] = 1;
  H5CALL(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "HDF5: selection in %s", name);
  ms = H5Screate_simple(rank, count, NULL);
  if (nc > 0 || rank == 1) H5CALL(H5Dwrite(ds, memtype, ms, fs, H5P_DEFAULT, buf), "HDF5: cannot write %s", name);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  PetscFunctionReturn(0);
}

/* A fixed 1D dataset of length N written in slabs (state properties). */
static PetscErrorCode H5CreateFixed(hid_t gid, const char name[], hid_t type, hsize_t n, const char units[], const char desc[])
{
  hid_t space, ds;

  PetscFunctionBegin;
  space = H5Screate_simple(1, &n, NULL);
  ds    = H5Dcreate2(gid, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5CALL(ds, "HDF5: cannot create dataset %s", name);
  if (units) PetscCall(H5AttrString(ds, "units", units));
  if (desc) PetscCall(H5AttrString(ds, "description", desc));
  H5Dclose(ds);
  H5Sclose(space);
  PetscFunctionReturn(0);
}

static PetscErrorCode H5WriteSlab1(hid_t gid, const char name[], hid_t memtype, hsize_t c0, hsize_t nc, const void *buf)
{
  hid_t ds, fs, ms;

  PetscFunctionBegin;
  if (!nc) PetscFunctionReturn(0);
  ds = H5Dopen2(gid, name, H5P_DEFAULT);
  H5CALL(ds, "HDF5: cannot open dataset %s", name);
  fs = H5Dget_space(ds);
  H5CALL(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &c0, NULL, &nc, NULL), "HDF5: selection in %s", name);
  ms = H5Screate_simple(1, &nc, NULL);
  H5CALL(H5Dwrite(ds, memtype, ms, fs, H5P_DEFAULT, buf), "HDF5: cannot write %s", name);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  PetscFunctionReturn(0);
}

/* Rank 0 writes everyone's slab of a local array of doubles (stride 1) into a row of
   a series (row >= 0) or into a fixed dataset (row < 0); others send theirs in turn. */
static PetscErrorCode BTEDynamicsWriteSlabs(BTEDynamics dyn, hid_t gid, const char name[], PetscInt row, const PetscReal *local, PetscBool isint, const PetscInt *ilocal)
{
  BTE             bte  = dyn->bte;
  MPI_Comm        comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt     rank, size;
  const PetscInt *ranges;
  PetscInt        nmax = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscLayoutGetRanges(bte->states, &ranges));
  for (PetscMPIInt r = 0; r < size; r++) nmax = PetscMax(nmax, ranges[r + 1] - ranges[r]);
  if (rank == 0) {
    void *buf;
    if (isint) PetscCall(PetscMalloc(sizeof(PetscInt) * (nmax + 1), &buf));
    else PetscCall(PetscMalloc(sizeof(PetscReal) * (nmax + 1), &buf));
    for (PetscMPIInt r = 0; r < size; r++) {
      PetscInt    n = ranges[r + 1] - ranges[r];
      const void *src;
      if (r == 0) src = isint ? (const void *)ilocal : (const void *)local;
      else {
        if (isint) PetscCallMPI(MPI_Recv(buf, (PetscMPIInt)n, MPIU_INT, r, 77, comm, MPI_STATUS_IGNORE));
        else PetscCallMPI(MPI_Recv(buf, (PetscMPIInt)n, MPIU_REAL, r, 77, comm, MPI_STATUS_IGNORE));
        src = buf;
      }
      if (row >= 0) PetscCall(H5WriteRow(gid, name, H5T_NATIVE_DOUBLE, (hsize_t)row, (hsize_t)ranges[r], (hsize_t)n, PETSC_FALSE, src));
      else PetscCall(H5WriteSlab1(gid, name, isint ? (sizeof(PetscInt) == 8 ? H5T_NATIVE_LLONG : H5T_NATIVE_INT) : H5T_NATIVE_DOUBLE, (hsize_t)ranges[r], (hsize_t)n, src));
    }
    PetscCall(PetscFree(buf));
  } else {
    PetscInt n = ranges[rank + 1] - ranges[rank];
    if (isint) PetscCallMPI(MPI_Send((void *)ilocal, (PetscMPIInt)n, MPIU_INT, 0, 77, comm));
    else PetscCallMPI(MPI_Send((void *)local, (PetscMPIInt)n, MPIU_REAL, 0, 77, comm));
  }
  PetscFunctionReturn(0);
}

static hsize_t H5SeriesLength(hid_t gid, const char name[])
{
  hid_t   ds, fs;
  hsize_t dims[2] = {0, 0};

  ds = H5Dopen2(gid, name, H5P_DEFAULT);
  if (ds < 0) return 0;
  fs = H5Dget_space(ds);
  H5Sget_simple_extent_dims(fs, dims, NULL);
  H5Sclose(fs);
  H5Dclose(ds);
  return dims[0];
}

PetscErrorCode BTEDynamicsOutputOpen(BTEDynamics dyn, const char file[], PetscBool append)
{
  BTE         bte  = dyn->bte;
  MPI_Comm    comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt rank;
  PetscReal   edge, emax = PETSC_MIN_REAL;
  long long   info[3] = {0, 0, 0}; /* ok, nt, ne */
  char        msg[PETSC_MAX_PATH_LEN + 256] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(BTEGetBandEdge(bte, &edge));
  for (PetscInt i = 0; i < bte->nlocal; i++) emax = PetscMax(emax, bte->energy[i]);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emax, 1, MPIU_REAL, MPIU_MAX, comm));
  dyn->out.de = dyn->de;
  dyn->out.e0 = edge;
  {
    char hint[96];
    PetscCall(PetscSNPrintf(hint, sizeof(hint), ": raise -bte_output_energy_step (now %g eV)", (double)dyn->de));
    PetscCall(BTECheckRange(comm, "bins of the energy-resolved population (energy span / -bte_output_energy_step)", PetscFloorReal((emax - edge) / dyn->de) + 1, 1, BTE_MAX_EBINS, "", hint));
  }
  dyn->out.ne = (PetscInt)PetscFloorReal((emax - edge) / dyn->de) + 1;
  PetscCall(PetscStrncpy(dyn->out.file, file, sizeof(dyn->out.file)));
  PetscCall(PetscSNPrintf(dyn->out.tmp, sizeof(dyn->out.tmp), "%s.tmp", file));
  dyn->out.renamed = append; /* a new file is FILE.tmp until its first snapshot is complete */
  if (rank == 0) {
    H5E_auto2_t func;
    void       *data;
    hid_t       fid = -1, gid = -1;

    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    if (append) {
      fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
      if (fid < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot open the dynamics output %s to append to it", file));
      else {
        gid = H5Gopen2(fid, "dynamics", H5P_DEFAULT);
        if (gid < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s has no /dynamics group: not a bte dynamics file", file));
        else {
          hid_t   ds = H5Dopen2(gid, "population", H5P_DEFAULT);
          hsize_t dims[2] = {0, 0}, nstate[2] = {0, 0};
          hid_t   fs;
          if (ds >= 0) {
            fs = H5Dget_space(ds);
            H5Sget_simple_extent_dims(fs, dims, NULL);
            H5Sclose(fs);
            H5Dclose(ds);
          }
          ds = H5Dopen2(gid, "occupations", H5P_DEFAULT);
          if (ds >= 0) {
            fs = H5Dget_space(ds);
            H5Sget_simple_extent_dims(fs, nstate, NULL);
            H5Sclose(fs);
            H5Dclose(ds);
          }
          if ((PetscInt)nstate[1] != bte->nstates) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s holds %lld states per snapshot, this table has %" PetscInt_FMT ": not the same table", file, (long long)nstate[1], bte->nstates));
          else if ((PetscInt)dims[1] != dyn->out.ne) PetscCall(PetscSNPrintf(msg, sizeof(msg), "%s has %lld energy grid points, this run %" PetscInt_FMT ": append with the same -bte_output_energy_step", file, (long long)dims[1], dyn->out.ne));
          else {
            info[0] = 1;
            info[1] = (long long)H5SeriesLength(gid, "time");
            info[2] = H5Lexists(gid, "time_step", H5P_DEFAULT) > 0 && H5Lexists(gid, "time_step_unclipped", H5P_DEFAULT) > 0; /* older files have no step sizes */
          }
        }
      }
    } else {
      /* the 1.8 file format: it has no "open for writing" flag, so a run killed midway leaves a
         file that opens as it was at its last flush */
      fid = BTEH5FileCreate(dyn->out.tmp, PETSC_TRUE);
      if (fid < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot create the dynamics output file %s (-bte_output; written as %s until its first snapshot): check the directory exists and is writable", file, dyn->out.tmp));
      else {
        gid = H5Gcreate2(fid, "dynamics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (gid < 0) PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot create /dynamics in %s", file));
        else info[0] = 1;
      }
    }
    H5Eset_auto2(H5E_DEFAULT, func, data);
    if (!info[0]) {
      if (gid >= 0) H5Gclose(gid);
      if (fid >= 0) H5Fclose(fid);
      if (fid >= 0 && !append) (void)remove(dyn->out.tmp);
    } else {
      dyn->out.fid = (long long)fid;
      H5Gclose(gid);
    }
  }
  PetscCallMPI(MPI_Bcast(info, 3, MPI_LONG_LONG, 0, comm));
  PetscCallMPI(MPI_Bcast(msg, sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(info[0], comm, PETSC_ERR_FILE_OPEN, "%s", msg);
  dyn->out.nt    = (PetscInt)info[1];
  dyn->out.hasdt = append ? (PetscBool)(info[2] != 0) : PETSC_TRUE;
  dyn->out.open  = PETSC_TRUE;
  if (!append) {
    /* metadata, static datasets and empty series */
    hid_t          gid = -1;
    PetscReal     *egrid;
    BTEDiagnostics diag;
    const char    *why;
    PetscCall(BTEDiagnosticsCompute(bte, dyn->coll, &diag)); /* collective; the run's operator when it can */
    PetscCall(BTEDiagnosticsGetReason(bte, &why));
    PetscCall(PetscMalloc1(dyn->out.ne, &egrid));
    for (PetscInt j = 0; j < dyn->out.ne; j++) egrid[j] = edge + (j + 0.5) * dyn->de;
    if (rank == 0) {
      double    d[3];
      long long l[3];
      {
        char err[256];
        PetscCheck(!BTEDiagnosticsWriteH5((hid_t)dyn->out.fid, &diag, why, err, sizeof(err)), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Writing %s: %s", dyn->out.tmp, err);
        PetscCheck(!BTELatticeWriteH5((hid_t)dyn->out.fid, &bte->grid, err, sizeof(err)), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Writing %s: %s", dyn->out.tmp, err);
      }
      gid = H5Gopen2((hid_t)dyn->out.fid, "dynamics", H5P_DEFAULT);
      PetscCall(H5AttrString(gid, "format", BTE_DYN_FORMAT_NAME));
      l[0] = BTE_DYN_FORMAT_VERSION;
      PetscCall(H5AttrInts(gid, "version", 1, l));
      PetscCall(H5AttrString(gid, "source", bte->input[0] ? bte->input : (bte->model[0] ? bte->model : "")));
      PetscCall(H5AttrString(gid, "carriers", bte->carrier < 0 ? "electrons" : "holes"));
      PetscCall(H5AttrString(gid, "init", BTEInitTypes[dyn->init]));
      PetscCall(H5AttrString(gid, "drift_form", BTEDriftForms[dyn->driftform]));
      d[0] = bte->temperature;
      PetscCall(H5AttrReals(gid, "temperature", 1, d));
      PetscCall(H5AttrString(gid, "temperature_units", "K"));
      for (int a = 0; a < 3; a++) d[a] = dyn->efield[a];
      PetscCall(H5AttrReals(gid, "efield", 3, d));
      PetscCall(H5AttrString(gid, "efield_units", "V/cm"));
      d[0] = edge;
      PetscCall(H5AttrReals(gid, "band_edge", 1, d));
      PetscCall(H5AttrString(gid, "band_edge_units", "eV"));
      d[0] = bte->grid.volume;
      PetscCall(H5AttrReals(gid, "cell_volume", 1, d));
      PetscCall(H5AttrString(gid, "cell_volume_units", bte->grid.dim == 2 ? "Angstrom^2" : "Angstrom^3"));
      for (int a = 0; a < 3; a++) l[a] = bte->grid.nk[a];
      PetscCall(H5AttrInts(gid, "nk", 3, l));
      l[0] = bte->grid.dim;
      PetscCall(H5AttrInts(gid, "dim", 1, l));
      l[0] = bte->spin;
      PetscCall(H5AttrInts(gid, "spin_degeneracy", 1, l));
      l[0] = bte->nstates;
      PetscCall(H5AttrInts(gid, "nstates", 1, l));
      d[0] = dyn->interval;
      PetscCall(H5AttrReals(gid, "output_interval", 1, d));
      PetscCall(H5CreateSeries(gid, "time", H5T_NATIVE_DOUBLE, 0, "fs", "time of each snapshot; its length is the number of complete snapshots"));
      PetscCall(H5CreateSeries(gid, "step", H5T_NATIVE_LLONG, 0, "", "TS step number of each snapshot"));
      PetscCall(H5CreateSeries(gid, "time_step", H5T_NATIVE_DOUBLE, 0, "fs", "the step the integrator takes next (a restart continues with it)"));
      PetscCall(H5CreateSeries(gid, "time_step_unclipped", H5T_NATIVE_DOUBLE, 0, "fs", "when time_step was shortened to land on an output time, the step it was shortened from, else 0"));
      PetscCall(H5CreateSeries(gid, "carriers", H5T_NATIVE_DOUBLE, 0, "1/cell", "carriers per unit cell, s/Nk sum_i f_i"));
      PetscCall(H5CreateSeries(gid, "carrier_density", H5T_NATIVE_DOUBLE, 0, bte->grid.dim == 2 ? "cm^-2" : "cm^-3", "carriers per volume (area in 2D)"));
      PetscCall(H5CreateSeries(gid, "mean_energy", H5T_NATIVE_DOUBLE, 0, "eV", "sum f e / sum f, on the table's energy zero (see the band_edge attribute)"));
      PetscCall(H5CreateSeries(gid, "drift_velocity", H5T_NATIVE_DOUBLE, 0, "cm/s", "sum f v.E_hat / sum f (0 without a field)"));
      PetscCall(H5CreateSeries(gid, "velocity", H5T_NATIVE_DOUBLE, 3, "cm/s", "mean velocity sum f v / sum f"));
      PetscCall(H5CreateSeries(gid, "population", H5T_NATIVE_DOUBLE, dyn->out.ne, "1/(eV cell)", "energy-resolved population: s/Nk sum over states in each bin of f, divided by the bin width"));
      PetscCall(H5CreateSeries(gid, "occupations", H5T_NATIVE_DOUBLE, bte->nstates, "", "occupation f_i of every state at each snapshot"));
      PetscCall(H5CreateFixed(gid, "energy_grid", H5T_NATIVE_DOUBLE, (hsize_t)dyn->out.ne, "eV", "centres of the population's energy bins"));
      PetscCall(H5WriteSlab1(gid, "energy_grid", H5T_NATIVE_DOUBLE, 0, (hsize_t)dyn->out.ne, egrid));
      {
        hid_t ds = H5Dopen2(gid, "energy_grid", H5P_DEFAULT);
        d[0]     = dyn->de;
        PetscCall(H5AttrReals(ds, "bin_width", 1, d));
        H5Dclose(ds);
      }
      PetscCall(H5CreateFixed(gid, "state_energy", H5T_NATIVE_DOUBLE, (hsize_t)bte->nstates, "eV", "energy of each state"));
      PetscCall(H5CreateFixed(gid, "state_kindex", sizeof(PetscInt) == 8 ? H5T_NATIVE_LLONG : H5T_NATIVE_INT, (hsize_t)bte->nstates, "", "full-grid k index of each state"));
      PetscCall(H5CreateFixed(gid, "state_band", sizeof(PetscInt) == 8 ? H5T_NATIVE_LLONG : H5T_NATIVE_INT, (hsize_t)bte->nstates, "", "band index of each state"));
    }
    PetscCall(BTEDynamicsWriteSlabs(dyn, gid, "state_energy", -1, bte->energy, PETSC_FALSE, NULL));
    PetscCall(BTEDynamicsWriteSlabs(dyn, gid, "state_kindex", -1, NULL, PETSC_TRUE, bte->kindex));
    PetscCall(BTEDynamicsWriteSlabs(dyn, gid, "state_band", -1, NULL, PETSC_TRUE, bte->band));
    if (rank == 0) {
      H5Gclose(gid);
      H5CALL(H5Fflush((hid_t)dyn->out.fid, H5F_SCOPE_GLOBAL), "HDF5: flush");
    }
    PetscCall(PetscFree(egrid));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsOutputWrite(BTEDynamics dyn, PetscReal t, PetscInt step, Vec f)
{
  BTE                bte  = dyn->bte;
  MPI_Comm           comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt        rank;
  PetscReal          ncell, dens, emean, v[3], vd = 0, Emag, nk, *pop;
  const PetscScalar *a;
  hid_t              gid = -1;
  hsize_t            row = (hsize_t)dyn->out.nt;

  PetscFunctionBegin;
  PetscCheck(dyn->out.open, comm, PETSC_ERR_ARG_WRONGSTATE, "Dynamics output not open");
  PetscCall(PetscLogEventBegin(BTE_DynamicsOutput, dyn, f, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(BTEComputeMoments(bte, f, &ncell, &dens, &emean, v));
  Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
  if (Emag > 0) vd = (v[0] * dyn->efield[0] + v[1] * dyn->efield[1] + v[2] * dyn->efield[2]) / Emag;
  /* energy-resolved population */
  nk = (PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
  PetscCall(PetscCalloc1(dyn->out.ne, &pop));
  PetscCall(VecGetArrayRead(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    PetscInt j = (PetscInt)PetscFloorReal((bte->energy[i] - dyn->out.e0) / dyn->out.de);
    j          = PetscMax(0, PetscMin(dyn->out.ne - 1, j));
    pop[j] += bte->spin * PetscRealPart(a[i]) / (nk * dyn->out.de);
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, pop, (PetscMPIInt)dyn->out.ne, MPIU_REAL, MPIU_SUM, comm));
  if (rank == 0) {
    gid = H5Gopen2((hid_t)dyn->out.fid, "dynamics", H5P_DEFAULT);
    H5CALL(gid, "HDF5: cannot open /dynamics");
    {
      /* extend the occupations first; slabs follow */
      hid_t   ds = H5Dopen2(gid, "occupations", H5P_DEFAULT);
      hsize_t dims[2];
      hid_t   fs = H5Dget_space(ds);
      H5Sget_simple_extent_dims(fs, dims, NULL);
      H5Sclose(fs);
      dims[0] = row + 1;
      H5CALL(H5Dset_extent(ds, dims), "HDF5: cannot extend occupations");
      H5Dclose(ds);
    }
  }
  {
    /* occupations as doubles */
    PetscReal *loc;
    PetscCall(PetscMalloc1(bte->nlocal + 1, &loc));
    for (PetscInt i = 0; i < bte->nlocal; i++) loc[i] = PetscRealPart(a[i]);
    PetscCall(BTEDynamicsWriteSlabs(dyn, gid, "occupations", (PetscInt)row, loc, PETSC_FALSE, NULL));
    PetscCall(PetscFree(loc));
  }
  PetscCall(VecRestoreArrayRead(f, &a));
  if (rank == 0) {
    double    tt = t;
    long long st = step;
    PetscCall(H5WriteRow(gid, "population", H5T_NATIVE_DOUBLE, row, 0, (hsize_t)dyn->out.ne, PETSC_TRUE, pop));
    PetscCall(H5WriteRow(gid, "step", H5T_NATIVE_LLONG, row, 0, 1, PETSC_TRUE, &st));
    if (dyn->out.hasdt) {
      /* what a restart from this snapshot needs to take the same steps as this run */
      double dts[2] = {0, 0};
      PetscReal dtn;
      PetscCall(TSGetTimeStep(dyn->ts, &dtn));
      dts[0] = dtn;
      dts[1] = dyn->clipped ? dyn->dtsaved : 0;
      PetscCall(H5WriteRow(gid, "time_step", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &dts[0]));
      PetscCall(H5WriteRow(gid, "time_step_unclipped", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &dts[1]));
    }
    PetscCall(H5WriteRow(gid, "carriers", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &ncell));
    PetscCall(H5WriteRow(gid, "carrier_density", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &dens));
    PetscCall(H5WriteRow(gid, "mean_energy", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &emean));
    PetscCall(H5WriteRow(gid, "drift_velocity", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &vd));
    PetscCall(H5WriteRow(gid, "velocity", H5T_NATIVE_DOUBLE, row, 0, 3, PETSC_TRUE, v));
    PetscCall(H5WriteRow(gid, "time", H5T_NATIVE_DOUBLE, row, 0, 1, PETSC_TRUE, &tt)); /* last: completes the snapshot */
    H5Gclose(gid);
    H5CALL(H5Fflush((hid_t)dyn->out.fid, H5F_SCOPE_GLOBAL), "HDF5: cannot flush the dynamics output");
  }
  if (!dyn->out.renamed) {
    /* the first snapshot is complete: the new file replaces FILE (the open file follows the rename) */
    int rc = 0;
    if (rank == 0) rc = rename(dyn->out.tmp, dyn->out.file) ? errno : 0;
    PetscCallMPI(MPI_Bcast(&rc, 1, MPI_INT, 0, comm));
    PetscCheck(!rc, comm, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s: %s", dyn->out.tmp, dyn->out.file, strerror(rc));
    dyn->out.renamed = PETSC_TRUE;
  }
  PetscCall(PetscFree(pop));
  dyn->out.nt++;
  PetscCall(PetscLogEventEnd(BTE_DynamicsOutput, dyn, f, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsOutputClose(BTEDynamics dyn)
{
  PetscMPIInt rank;

  PetscFunctionBegin;
  if (!dyn->out.open) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dyn), &rank));
  dyn->out.open = PETSC_FALSE;
  if (rank == 0) {
    herr_t e = H5Fclose((hid_t)dyn->out.fid);
    if (!dyn->out.renamed) (void)remove(dyn->out.tmp); /* no snapshot: FILE (if any) stays as it was */
    H5CALL(e, "HDF5: cannot close the dynamics output");
  }
  PetscFunctionReturn(0);
}

/* One element (row) of a 1-D dataset, or this rank's columns [c0, c0 + nc) of a row of a 2-D one. */
static int ReadElements(hid_t fid, const char path[], hid_t memtype, hsize_t row, hsize_t c0, hsize_t nc, int rank, void *buf, BTEH5Status *st)
{
  hid_t   ds, fs, ms;
  hsize_t start[2] = {row, c0}, count[2] = {1, nc};
  int     ret = 0;

  if (rank == 2 && !nc) return 0;
  ds = H5Dopen2(fid, path, H5P_DEFAULT);
  if (ds < 0) return BTEH5Fail(st, "dataset %s cannot be opened; the file is damaged", path);
  fs = H5Dget_space(ds);
  ms = H5Screate_simple(rank, count, NULL);
  if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) < 0 || H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, buf) < 0) ret = BTEH5Fail(st, "reading row %llu of dataset %s failed; the file is damaged or truncated", (unsigned long long)row, path);
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  H5Dclose(ds);
  return ret;
}

/* A 1-D series of class cls with at least nt rows (nt = 0: learn it, must be >= 1). */
static int SeriesShape(hid_t fid, const char path[], H5T_class_t cls, hsize_t *nt, BTEH5Status *st)
{
  hsize_t d[1];

  if (BTEH5DatasetShape(fid, path, cls, 1, "[nt]", d, st)) return -1;
  if (!*nt) {
    if (!d[0]) return BTEH5Fail(st, "it holds no complete snapshot (%s is empty)", path);
    *nt = d[0];
  } else if (d[0] < *nt) return BTEH5Fail(st, "dataset %s has %llu rows but /dynamics/time has %llu: the file is damaged", path, (unsigned long long)d[0], (unsigned long long)*nt);
  return 0;
}

/* The restart snapshot on this rank; every check a table gets (docs/validation.md): the file a
   regular file and a bte dynamics output, every dataset read of the expected class (standard
   integer or IEEE float types), shape and length, the same table (its states: number, k index,
   band and energy, bit for bit), time finite and bounded, step an integer in [0, PETSC_MAX_INT],
   occupations finite (their range is the run's state check), step sizes finite and bounded. */
static int RestartReadLocal(BTE bte, const char file[], PetscReal *f, BTEDynamicsRestartState *rs, BTEH5Status *st)
{
  hid_t       fid = -1;
  hsize_t     nt = 0, d[2];
  double      tt, dts[2];
  long long   stp, v;
  char        s[64];
  PetscInt   *ibuf = NULL;
  PetscReal  *ebuf = NULL;
  const hsize_t n  = (hsize_t)bte->nlocal, c0 = (hsize_t)bte->rstart;
  int         ret = -1;

  if (BTEH5CheckRegularFile(file, st)) return -1;
  fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) {
    char m[256];
    BTEH5StackMessage(m, sizeof(m));
    return BTEH5Fail(st, "HDF5 cannot open it (HDF5: %s): not an HDF5 file, or truncated or damaged", m);
  }
  if (!BTEH5Exists(fid, "/dynamics")) {
    BTEH5Fail(st, "it has no /dynamics group: not a bte dynamics output");
    goto done;
  }
  if (BTEH5AttrExists(fid, "/dynamics", "format")) {
    if (BTEH5ReadAttrString(fid, "/dynamics", "format", s, sizeof(s), st)) goto done;
    if (strcmp(s, BTE_DYN_FORMAT_NAME)) {
      BTEH5Fail(st, "/dynamics attribute format = '%s', expected '%s': not a bte dynamics output", s, BTE_DYN_FORMAT_NAME);
      goto done;
    }
    if (BTEH5ReadAttrInt(fid, "/dynamics", "version", &v, st)) goto done;
    if (v != BTE_DYN_FORMAT_VERSION) {
      BTEH5Fail(st, "/dynamics attribute version = %lld; this bte reads version %d", v, BTE_DYN_FORMAT_VERSION);
      goto done;
    }
  }
  /* the snapshot: time (its length is the number of complete snapshots), step, occupations */
  if (SeriesShape(fid, "/dynamics/time", H5T_FLOAT, &nt, st) || SeriesShape(fid, "/dynamics/step", H5T_INTEGER, &nt, st)) goto done;
  if (BTEH5DatasetShape(fid, "/dynamics/occupations", H5T_FLOAT, 2, "[nt][N]", d, st)) goto done;
  if (d[1] != (hsize_t)bte->nstates) {
    BTEH5Fail(st, "it holds %llu states per snapshot, this table has %" PetscInt_FMT ": restart with the table (or model and grid) of the original run", (unsigned long long)d[1], bte->nstates);
    goto done;
  }
  if (d[0] < nt) {
    BTEH5Fail(st, "dataset /dynamics/occupations has %llu rows but /dynamics/time has %llu: the file is damaged", (unsigned long long)d[0], (unsigned long long)nt);
    goto done;
  }
  if (ReadElements(fid, "/dynamics/time", H5T_NATIVE_DOUBLE, nt - 1, 0, 1, 1, &tt, st) || ReadElements(fid, "/dynamics/step", H5T_NATIVE_LLONG, nt - 1, 0, 1, 1, &stp, st)) goto done;
  if (!(tt >= -BTE_TIME_MAX && tt <= BTE_TIME_MAX)) {
    BTEH5Fail(st, "/dynamics/time[%llu] = %g fs is not a time in [%g, %g] fs; the file is damaged", (unsigned long long)(nt - 1), tt, -BTE_TIME_MAX, BTE_TIME_MAX);
    goto done;
  }
  if (stp < 0 || stp > PETSC_MAX_INT) {
    BTEH5Fail(st, "/dynamics/step[%llu] = %lld is not a step number in [0, %lld]; the file is damaged", (unsigned long long)(nt - 1), stp, (long long)PETSC_MAX_INT);
    goto done;
  }
  /* the same table: its states in the same order, with the same energies */
  {
    const char     *names[3] = {"/dynamics/state_kindex", "/dynamics/state_band", "/dynamics/state_energy"};
    const PetscInt *mine[2]  = {bte->kindex, bte->band};
    if (PetscMalloc2(n + 1, &ibuf, n + 1, &ebuf)) {
      BTEH5Fail(st, "out of memory");
      goto done;
    }
    for (int q = 0; q < 3; q++) {
      if (BTEH5DatasetShape(fid, names[q], q < 2 ? H5T_INTEGER : H5T_FLOAT, 1, "[N]", d, st)) goto done;
      if (d[0] != (hsize_t)bte->nstates) {
        BTEH5Fail(st, "dataset %s has %llu entries, this table %" PetscInt_FMT " states: restart with the table of the original run", names[q], (unsigned long long)d[0], bte->nstates);
        goto done;
      }
      if (!n) continue;
      if (q < 2 && BTEH5ReadRows(fid, names[q], BTE_H5_NATIVE_INT, c0, n, 0, ibuf, st)) goto done;
      if (q == 2 && BTEH5ReadRows(fid, names[q], BTE_H5_NATIVE_REAL, c0, n, 0, ebuf, st)) goto done;
      for (hsize_t i = 0; i < n; i++)
        if (q < 2 ? ibuf[i] != mine[q][i] : ebuf[i] != bte->energy[i]) {
          BTEH5Fail(st, "state %lld differs from this table's (%s): restart with the table of the original run", (long long)(c0 + i), names[q] + 10);
          goto done;
        }
    }
  }
  if (ReadElements(fid, "/dynamics/occupations", H5T_NATIVE_DOUBLE, nt - 1, c0, n, 2, f, st)) goto done;
  for (hsize_t i = 0; i < n; i++)
    if (PetscIsInfOrNanReal(f[i])) {
      BTEH5Fail(st, "/dynamics/occupations[%llu][%lld] = %g is not finite; the file is damaged", (unsigned long long)(nt - 1), (long long)(c0 + i), (double)f[i]);
      goto done;
    }
  /* step sizes (files written before they were saved have none: the run's own step is used) */
  rs->hasdt = BTEH5Exists(fid, "/dynamics/time_step") && BTEH5Exists(fid, "/dynamics/time_step_unclipped") ? PETSC_TRUE : PETSC_FALSE;
  if (rs->hasdt) {
    if (SeriesShape(fid, "/dynamics/time_step", H5T_FLOAT, &nt, st) || SeriesShape(fid, "/dynamics/time_step_unclipped", H5T_FLOAT, &nt, st)) goto done;
    if (ReadElements(fid, "/dynamics/time_step", H5T_NATIVE_DOUBLE, nt - 1, 0, 1, 1, &dts[0], st) || ReadElements(fid, "/dynamics/time_step_unclipped", H5T_NATIVE_DOUBLE, nt - 1, 0, 1, 1, &dts[1], st)) goto done;
    if (!(dts[0] > 0 && dts[0] <= BTE_TIME_STEP_MAX) || !(dts[1] == 0 || (dts[1] > 0 && dts[1] <= BTE_TIME_STEP_MAX))) {
      BTEH5Fail(st, "/dynamics/time_step[%llu] = %g fs or time_step_unclipped = %g fs is outside (0, %g] fs; the file is damaged", (unsigned long long)(nt - 1), dts[0], dts[1], BTE_TIME_STEP_MAX);
      goto done;
    }
    rs->dt     = (PetscReal)dts[0];
    rs->dtclip = (PetscReal)dts[1];
  }
  rs->t    = (PetscReal)tt;
  rs->step = (PetscInt)stp;
  ret      = 0;
done:
  PetscFree2(ibuf, ebuf);
  H5Fclose(fid);
  return ret;
}

/* Every rank reads its own slab of the last complete snapshot. */
PetscErrorCode BTEDynamicsRestartRead(BTE bte, const char file[], Vec f, BTEDynamicsRestartState *rs)
{
  MPI_Comm     comm = PetscObjectComm((PetscObject)bte);
  BTEH5Status  st;
  BTEH5Auto    h5auto;
  PetscReal   *buf;
  PetscScalar *a;

  PetscFunctionBegin;
  PetscCheck(file && file[0], comm, PETSC_ERR_USER_INPUT, "-bte_init restart needs the file to restart from: -bte_restart FILE.h5 (a bte dynamics output)");
  {
    struct stat sb;
    PetscCheck(!stat(file, &sb) || errno != ENOENT, comm, PETSC_ERR_FILE_OPEN, "Restart file %s not found (-bte_restart)", file);
  }
  PetscCall(PetscLogEventBegin(BTE_DynamicsRestart, bte, 0, 0, 0));
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCall(PetscMemzero(rs, sizeof(*rs)));
  PetscCall(PetscMalloc1(bte->nlocal + 1, &buf));
  BTEH5Silence(&h5auto);
  (void)RestartReadLocal(bte, file, buf, rs, &st);
  BTEH5Restore(&h5auto);
  PetscCall(BTEH5SyncStatus(comm, &st));
  if (st.bad) {
    PetscCall(PetscFree(buf));
    SETERRQ(comm, PETSC_ERR_FILE_READ, "Restart file %s (-bte_restart): %s", file, st.msg);
  }
  PetscCall(VecGetArrayWrite(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) a[i] = buf[i];
  PetscCall(VecRestoreArrayWrite(f, &a));
  PetscCall(PetscFree(buf));
  PetscCall(PetscLogEventEnd(BTE_DynamicsRestart, bte, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* /dynamics/cost: the cost of the run that wrote (or last appended to) the file, as attributes
   (src/dynamics/cost.c). Written before the file is closed: the output time excludes the close. */
PetscErrorCode BTEDynamicsOutputWriteCost(BTEDynamics dyn)
{
  PetscMPIInt            rank;
  const BTEDynamicsCost *c = &dyn->cost;

  PetscFunctionBegin;
  if (!dyn->out.open) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dyn), &rank));
  if (rank == 0) {
    hid_t       fid = (hid_t)dyn->out.fid, gid;
    const char *inames[6] = {"steps", "rejected_steps", "collision_applies", "jacobian_applies", "nonlinear_iterations", "linear_iterations"};
    long long   ivals[6]  = {c->steps, c->rejects, c->coll_applies, c->jac_applies, c->snes_its, c->ksp_its};
    const char *rnames[4] = {"wall_time_setup", "wall_time_stepping", "wall_time_output", "wall_time_total"};
    double      rvals[4]  = {c->setup, c->stepping, c->output, c->total};
    TSType      type;
    TSAdapt     adapt;
    TSAdaptType atype;
    PetscCall(TSGetType(dyn->ts, &type));
    PetscCall(TSGetAdapt(dyn->ts, &adapt));
    PetscCall(TSAdaptGetType(adapt, &atype));
    if (H5Lexists(fid, "dynamics/cost", H5P_DEFAULT) > 0) gid = H5Gopen2(fid, "dynamics/cost", H5P_DEFAULT);
    else gid = H5Gcreate2(fid, "dynamics/cost", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5CALL(gid, "HDF5: cannot create /dynamics/cost");
    for (int q = 0; q < 6; q++) PetscCall(H5AttrInts(gid, inames[q], 1, &ivals[q]));
    for (int q = 0; q < 4; q++) PetscCall(H5AttrReals(gid, rnames[q], 1, &rvals[q]));
    PetscCall(H5AttrString(gid, "wall_time_units", "s"));
    PetscCall(H5AttrString(gid, "ts_type", type ? type : ""));
    PetscCall(H5AttrString(gid, "ts_adapt_type", atype ? atype : ""));
    PetscCall(H5AttrString(gid, "description", "cost of the run that last wrote this file: TS steps (accepted) and rejected steps, collision and collision Jacobian applies, nonlinear and linear iterations; wall time of setup, stepping and output (s)"));
    H5Gclose(gid);
    H5CALL(H5Fflush(fid, H5F_SCOPE_GLOBAL), "HDF5: flush");
  }
  PetscFunctionReturn(0);
}

/* /dynamics/reference_error: per compared snapshot, the errors against -bte_reference
   (src/dynamics/reference.c); replaced by each run that appends to the file. */
PetscErrorCode BTEDynamicsOutputWriteReferenceError(BTEDynamics dyn)
{
  PetscMPIInt                 rank;
  const BTEDynamicsReference *r = &dyn->ref;

  PetscFunctionBegin;
  if (!dyn->out.open || !r->file[0]) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)dyn), &rank));
  if (rank == 0) {
    hid_t            fid      = (hid_t)dyn->out.fid, gid;
    const char      *names[9] = {"time", "f_max", "f_l2", "f_l2_relative", "carriers", "carrier_density", "mean_energy", "drift_velocity", "population_max"};
    const PetscReal *vals[9]  = {r->t, r->fmax, r->f2, r->f2rel, r->carriers, r->density, r->emean, r->vdrift, r->popmax};
    const char      *units[9] = {"fs", "", "", "", "1/cell", dyn->bte->grid.dim == 2 ? "cm^-2" : "cm^-3", "eV", "cm/s", "1/(eV cell)"};
    const char      *desc[9]  = {"time of each compared snapshot", "max_i |f_i - fref_i|", "(sum_i (f_i - fref_i)^2)^(1/2)", "||f - fref||_2 / ||fref||_2", "|carriers - carriers_ref|", "|density - density_ref|", "|mean energy - mean energy_ref|", "|drift velocity - drift velocity_ref|", "max over bins |population - population_ref|"};
    if (H5Lexists(fid, "dynamics/reference_error", H5P_DEFAULT) > 0) H5Ldelete(fid, "dynamics/reference_error", H5P_DEFAULT);
    gid = H5Gcreate2(fid, "dynamics/reference_error", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5CALL(gid, "HDF5: cannot create /dynamics/reference_error");
    PetscCall(H5AttrString(gid, "reference", r->file));
    PetscCall(H5AttrString(gid, "interpolation", "linear in time between the reference's snapshots (second order in their spacing); exact where the times coincide"));
    for (int q = 0; q < 9; q++) {
      PetscCall(H5CreateFixed(gid, names[q], H5T_NATIVE_DOUBLE, (hsize_t)r->n, units[q], desc[q]));
      PetscCall(H5WriteSlab1(gid, names[q], H5T_NATIVE_DOUBLE, 0, (hsize_t)r->n, vals[q]));
    }
    H5Gclose(gid);
    H5CALL(H5Fflush(fid, H5F_SCOPE_GLOBAL), "HDF5: flush");
  }
  PetscFunctionReturn(0);
}
