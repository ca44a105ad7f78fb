/* Restart of bte dynamics from the last complete snapshot of a dynamics output (docs/dynamics.md,
   docs/validation.md "Restart files"): every rank reads its own slab, and the file gets every
   check a table gets. */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/validate.h>
#include <bte/private/h5util.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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
  double      tt, t1, dts[2];
  long long   stp, v;
  char        s[64];
  PetscInt   *ibuf = NULL;
  PetscReal  *ebuf = NULL;
  const hsize_t n  = (hsize_t)bte->nlocal, c0 = (hsize_t)bte->rstart;
  int         ret = -1;

  if (BTEH5CheckRegularFile(file, st)) return -1;
  fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) {
    char        m[256];
    const char *why = BTEH5OpenFailReason();
    if (why) return BTEH5Fail(st, "%s", why);
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
  if (ReadElements(fid, "/dynamics/time", H5T_NATIVE_DOUBLE, 0, 0, 1, 1, &t1, st)) goto done;
  if (!(t1 >= -BTE_TIME_MAX && t1 <= tt)) {
    BTEH5Fail(st, "/dynamics/time[0] = %g fs is not a time in [%g, %g] fs (the last snapshot's); the file is damaged", t1, -BTE_TIME_MAX, tt);
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
  /* the last two drift velocities and their field (-bte_steady_threshold), where the file has them */
  rs->hasv = PETSC_FALSE;
  if (nt >= 2 && BTEH5Exists(fid, "/dynamics/drift_velocity")) {
    double tp, vv[2], e[3];
    if (BTEH5ReadAttrReal3(fid, "dynamics", "efield", e) && !SeriesShape(fid, "/dynamics/drift_velocity", H5T_FLOAT, &nt, st) && !ReadElements(fid, "/dynamics/time", H5T_NATIVE_DOUBLE, nt - 2, 0, 1, 1, &tp, st) && !ReadElements(fid, "/dynamics/drift_velocity", H5T_NATIVE_DOUBLE, nt - 2, 0, 1, 1, &vv[0], st) && !ReadElements(fid, "/dynamics/drift_velocity", H5T_NATIVE_DOUBLE, nt - 1, 0, 1, 1, &vv[1], st) && !PetscIsInfOrNanReal(tp) && !PetscIsInfOrNanReal(vv[0]) && !PetscIsInfOrNanReal(vv[1])) {
      rs->hasv  = PETSC_TRUE;
      rs->tprev = (PetscReal)tp;
      rs->vprev = (PetscReal)vv[0];
      rs->vlast = (PetscReal)vv[1];
      for (int c = 0; c < 3; c++) rs->efield[c] = (PetscReal)e[c];
    }
    if (st->bad) goto done;
  }
  rs->nsnap    = (PetscInt)nt;
  rs->complete = -1;
  if (BTEH5AttrExists(fid, "/", "complete") == 1) {
    long long c;
    if (BTEH5ReadAttrInt(fid, "/", "complete", &c, st)) goto done;
    rs->complete = c ? 1 : 0;
  }
  rs->t     = (PetscReal)tt;
  rs->tfirst = (PetscReal)t1;
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

