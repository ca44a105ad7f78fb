/* Error of a dynamics run against a reference run (-bte_reference REF.h5; docs/dynamics.md,
   "Cost and error against a reference").

   REF.h5 is a bte dynamics output of the same table (same states in the same order: number,
   k index, band, energy) and the same initial state. Every rank opens it read-only and reads its
   own slab of the reference snapshots it needs. At each snapshot of the run (time t) the reference
   is taken at t: its snapshot if one lies at t (within 1e-9 relative), else the linear interpolation
   between the two snapshots around t (second order in the reference's snapshot spacing). Errors:
   max_i |f_i - fref_i|, (sum_i (f_i - fref_i)^2)^(1/2) (also divided by ||fref||_2), and the
   absolute differences of the observables computed from f and fref in the same way as the output's
   (carriers per cell, carrier density, mean energy, drift velocity, the max-norm of the
   energy-resolved population). */
#include <bte/private/dynamicsimpl.h>
#include <hdf5.h>
#include <stdio.h>

#define BTE_REF_TIME_EPS(t) (1e-9 * PetscMax(1.0, PetscAbsReal(t)))

/* max(a, b) that keeps a NaN (PetscMax drops one: NaN < x and x < NaN are both false), so that a
   NaN difference is never reported as a smaller one, or as 0 */
static inline PetscReal BTERefMax2(PetscReal a, PetscReal b)
{
  return PetscIsNanReal(a) ? a : (PetscIsNanReal(b) ? b : PetscMax(a, b));
}

/* Row j of the reference just read into buf (this rank's slab): every occupation finite, as a
   restart requires of its snapshot; else the line saying which (0: finite) */
static int BTERefRowFinite(BTEDynamics dyn, PetscInt j, const PetscReal *buf, char msg[], size_t len)
{
  BTE bte = dyn->bte;

  for (PetscInt i = 0; i < bte->nlocal; i++)
    if (PetscIsInfOrNanReal(buf[i])) {
      snprintf(msg, len, "The reference %s (-bte_reference): /dynamics/occupations[%" PetscInt_FMT "][%" PetscInt_FMT "] = %g is not finite; the file is damaged: make the reference again", dyn->ref.file, j, bte->rstart + i, (double)buf[i]);
      return 1;
    }
  return 0;
}

/* Reads rows j of /dynamics/occupations (this rank's slab) into buf; 0 on success */
static int BTERefReadRow(BTE bte, hid_t fid, PetscInt j, PetscReal *buf)
{
  hid_t   ds, fs, ms;
  hsize_t start[2] = {(hsize_t)j, (hsize_t)bte->rstart}, count[2] = {1, (hsize_t)bte->nlocal};
  int     bad = 0;

  ds = H5Dopen2((hid_t)fid, "dynamics/occupations", H5P_DEFAULT);
  if (ds < 0) return 1;
  fs = H5Dget_space(ds);
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
  ms = H5Screate_simple(2, count, NULL);
  if (bte->nlocal && H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf) < 0) bad = 1;
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  return bad;
}

/* A 1D dataset's slab [c0, c0+n) as doubles or ints; 0 on success, 1 if absent or unreadable */
static int BTERefReadSlab(hid_t gid, const char name[], hid_t memtype, hsize_t c0, hsize_t n, void *buf, hsize_t *len)
{
  hid_t   ds, fs, ms;
  hsize_t dims[2] = {0, 0};
  int     bad = 0;

  ds = H5Dopen2(gid, name, H5P_DEFAULT);
  if (ds < 0) return 1;
  fs = H5Dget_space(ds);
  H5Sget_simple_extent_dims(fs, dims, NULL);
  if (len) *len = dims[0];
  if (n) {
    if (c0 + n > dims[0]) bad = 1;
    else {
      H5Sselect_hyperslab(fs, H5S_SELECT_SET, &c0, NULL, &n, NULL);
      ms = H5Screate_simple(1, &n, NULL);
      if (H5Dread(ds, memtype, ms, fs, H5P_DEFAULT, buf) < 0) bad = 1;
      H5Sclose(ms);
    }
  }
  H5Sclose(fs);
  H5Dclose(ds);
  return bad;
}

/* Every rank: one line of what is wrong (first rank's), or nothing */
static PetscErrorCode BTERefCheck(MPI_Comm comm, int bad, char msg[], size_t len)
{
  PetscMPIInt rank, first;
  int         me;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  me = bad ? (int)rank : PETSC_MPI_INT_MAX;
  PetscCall(MPIU_Allreduce(&me, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == PETSC_MPI_INT_MAX) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)len, MPI_CHAR, first, comm));
  SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s", msg);
}

/* Opens and checks the reference for a run over [t0, tmax] that starts from f0 */
PetscErrorCode BTEDynamicsReferenceOpen(BTEDynamics dyn, PetscReal t0, PetscReal tmax, Vec f0)
{
  BTE                   bte  = dyn->bte;
  MPI_Comm              comm = PetscObjectComm((PetscObject)dyn);
  BTEDynamicsReference *r    = &dyn->ref;
  char                  msg[2 * PETSC_MAX_PATH_LEN + 256] = "";
  const char           *F    = r->file;
  H5E_auto2_t           func;
  void                 *data;
  hid_t                 fid = -1, gid = -1;
  hsize_t               nt = 0, dims[2] = {0, 0};
  int                   bad = 0;
  PetscBool             exists;

  PetscFunctionBegin;
  if (!r->file[0]) PetscFunctionReturn(0);
  PetscCall(BTEDynamicsReferenceClose(dyn));
  PetscCall(PetscTestFile(F, 'r', &exists));
  PetscCheck(exists, comm, PETSC_ERR_FILE_OPEN, "Reference file %s not found (-bte_reference)", F);
  H5Eget_auto2(H5E_DEFAULT, &func, &data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  fid = H5Fopen(F, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (fid < 0) {
    const char *why = BTEH5OpenFailReason();
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot open the reference %s (-bte_reference): %s", F, why ? why : "not an HDF5 file"));
    bad = 1;
  } else {
    r->fid  = (long long)fid; /* closed by BTEDynamicsReferenceClose, also after a refusal */
    r->open = PETSC_TRUE;
  }
  if (!bad && (gid = H5Gopen2(fid, "dynamics", H5P_DEFAULT)) < 0) {
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s has no /dynamics group: not a bte dynamics output (-bte_reference)", F));
    bad = 1;
  }
  if (!bad) {
    hid_t ds = H5Dopen2(gid, "occupations", H5P_DEFAULT), fs;
    if (ds >= 0) {
      fs = H5Dget_space(ds);
      H5Sget_simple_extent_dims(fs, dims, NULL);
      H5Sclose(fs);
      H5Dclose(ds);
    }
    if (BTERefReadSlab(gid, "time", H5T_NATIVE_DOUBLE, 0, 0, NULL, &nt) || nt == 0 || dims[0] < nt) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s holds no complete snapshot (-bte_reference)", F));
      bad = 1;
    } else if ((PetscInt)dims[1] != bte->nstates) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s has other states: %lld states, this run %" PetscInt_FMT " (-bte_reference needs a run of the same table)", F, (long long)dims[1], bte->nstates));
      bad = 1;
    }
  }
  PetscCall(BTERefCheck(comm, bad, msg, sizeof(msg)));
  /* the same states: k index and band exactly, energy to 1e-12 relative (this rank's slab) */
  {
    PetscInt  *ibuf;
    PetscReal *ebuf;
    PetscCall(PetscMalloc2(bte->nlocal + 1, &ibuf, bte->nlocal + 1, &ebuf));
    for (int q = 0; q < 2 && !bad; q++) {
      const char     *name = q == 0 ? "state_kindex" : "state_band";
      const PetscInt *mine = q == 0 ? bte->kindex : bte->band;
      if (BTERefReadSlab(gid, name, sizeof(PetscInt) == 8 ? H5T_NATIVE_LLONG : H5T_NATIVE_INT, (hsize_t)bte->rstart, (hsize_t)bte->nlocal, ibuf, NULL)) {
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s has no readable /dynamics/%s: not a bte dynamics output (-bte_reference)", F, name));
        bad = 1;
      }
      for (PetscInt i = 0; i < bte->nlocal && !bad; i++)
        if (ibuf[i] != mine[i]) {
          PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s has other states: state %" PetscInt_FMT " has %s %" PetscInt_FMT ", this run %" PetscInt_FMT " (-bte_reference needs a run of the same table)", F, bte->rstart + i, q == 0 ? "k index" : "band", ibuf[i], mine[i]));
          bad = 1;
        }
    }
    if (!bad && BTERefReadSlab(gid, "state_energy", H5T_NATIVE_DOUBLE, (hsize_t)bte->rstart, (hsize_t)bte->nlocal, ebuf, NULL)) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s has no readable /dynamics/state_energy: not a bte dynamics output (-bte_reference)", F));
      bad = 1;
    }
    for (PetscInt i = 0; i < bte->nlocal && !bad; i++)
      if (!(PetscAbsReal(ebuf[i] - bte->energy[i]) <= 1e-12 * PetscMax(1.0, PetscAbsReal(bte->energy[i])))) { /* a NaN differs too */
        PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s is of another table: state %" PetscInt_FMT " has energy %.15g eV there, %.15g eV here (-bte_reference needs a run of the same table)", F, bte->rstart + i, (double)ebuf[i], (double)bte->energy[i]));
        bad = 1;
      }
    PetscCall(PetscFree2(ibuf, ebuf));
  }
  PetscCall(BTERefCheck(comm, bad, msg, sizeof(msg)));
  PetscCall(BTEDynamicsCheckReferenceProblem(dyn, F, t0, tmax));
  /* times: the run's [t0, tmax] inside the reference's */
  r->ntref = (PetscInt)nt;
  PetscCall(PetscMalloc1(r->ntref, &r->tref));
  if (BTERefReadSlab(gid, "time", H5T_NATIVE_DOUBLE, 0, nt, r->tref, NULL)) {
    PetscCall(PetscSNPrintf(msg, sizeof(msg), "Cannot read the snapshot times of the reference %s", F));
    bad = 1;
  }
  for (PetscInt j = 0; j < r->ntref && !bad; j++)
    if (PetscIsInfOrNanReal(r->tref[j])) {
      snprintf(msg, sizeof(msg), "The reference %s (-bte_reference): /dynamics/time[%" PetscInt_FMT "] = %g is not finite; the file is damaged: make the reference again", F, j, (double)r->tref[j]);
      bad = 1;
    }
  for (PetscInt j = 1; j < r->ntref && !bad; j++)
    if (!(r->tref[j] > r->tref[j - 1])) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s has snapshot times that do not increase (%g then %g fs)", F, (double)r->tref[j - 1], (double)r->tref[j]));
      bad = 1;
    }
  if (!bad) {
    PetscReal a = r->tref[0], b = r->tref[r->ntref - 1];
    if (tmax < a - BTE_REF_TIME_EPS(a) || t0 > b + BTE_REF_TIME_EPS(b)) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s does not overlap this run in time: its snapshots cover [%g, %g] fs, this run [%g, %g] fs (-bte_reference)", F, (double)a, (double)b, (double)t0, (double)tmax));
      bad = 1;
    } else if (t0 < a - BTE_REF_TIME_EPS(a) || tmax > b + BTE_REF_TIME_EPS(b)) {
      PetscCall(PetscSNPrintf(msg, sizeof(msg), "The reference %s covers [%g, %g] fs, this run [%g, %g] fs: every snapshot must lie in the reference's range (-bte_reference; shorten the run or extend the reference)", F, (double)a, (double)b, (double)t0, (double)tmax));
      bad = 1;
    }
  }
  if (gid >= 0) H5Gclose(gid);
  H5Eset_auto2(H5E_DEFAULT, func, data);
  PetscCall(BTERefCheck(comm, bad, msg, sizeof(msg)));
  r->ja = r->jb = -1;
  r->n          = 0;
  PetscCall(PetscMalloc2(bte->nlocal + 1, &r->ra, bte->nlocal + 1, &r->rb));
  PetscCall(VecDuplicate(f0, &r->fref));
  /* the same initial state: the reference's snapshot at t0, where it has one. Not for a restarted
     run: its state is an earlier run's result (another method's, in a split run), whose difference
     from the reference is an error to report at t0, not another problem */
  {
    PetscInt j = -1;
    for (PetscInt k = 0; k < r->ntref; k++)
      if (PetscAbsReal(r->tref[k] - t0) <= BTE_REF_TIME_EPS(t0)) j = k;
    if (j >= 0) {
      const PetscScalar *a;
      PetscReal          d = 0, m = 0;
      H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
      if (BTERefReadRow(bte, (hid_t)r->fid, j, r->ra)) bad = 1;
      H5Eset_auto2(H5E_DEFAULT, func, data);
      {
        int nonfinite = !bad && BTERefRowFinite(dyn, j, r->ra, msg, sizeof(msg));
        PetscCall(BTERefCheck(comm, nonfinite, msg, sizeof(msg)));
      }
      r->ja = bad ? -1 : j;
      PetscCall(VecGetArrayRead(f0, &a));
      for (PetscInt i = 0; i < bte->nlocal && !bad; i++) {
        d = PetscMax(d, PetscAbsReal(PetscRealPart(a[i]) - r->ra[i]));
        m = PetscMax(m, PetscAbsReal(r->ra[i]));
      }
      PetscCall(VecRestoreArrayRead(f0, &a));
      {
        PetscReal dm[2] = {d, m};
        int       anybad;
        PetscCall(MPIU_Allreduce(MPI_IN_PLACE, dm, 2, MPIU_REAL, MPIU_MAX, comm));
        PetscCall(MPIU_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, comm));
        PetscCheck(!anybad, comm, PETSC_ERR_FILE_READ, "Cannot read the snapshot at %g fs of the reference %s", (double)t0, F);
        PetscCheck(dyn->init == BTE_INIT_RESTART || dm[0] <= 1e-12 * dm[1], comm, PETSC_ERR_USER_INPUT, "The reference %s starts from another state: at t = %g fs max |f - f_ref| = %.3e, max f_ref = %.3e (more than 1e-12 relative; -bte_reference needs a run of the same initial state)", F, (double)t0, (double)dm[0], (double)dm[1]);
      }
    }
  }
  PetscFunctionReturn(0);
}

/* Makes row j of the reference available in ra or rb, keeping row keep (-1: none) held */
static PetscErrorCode BTERefRow(BTEDynamics dyn, PetscInt j, PetscInt keep, const PetscReal **row)
{
  BTEDynamicsReference *r = &dyn->ref;
  H5E_auto2_t           func;
  void                 *data;
  int                   bad = 0, anybad;

  PetscFunctionBegin;
  if (r->ja == j) {
    *row = r->ra;
    PetscFunctionReturn(0);
  }
  if (r->jb == j) {
    *row = r->rb;
    PetscFunctionReturn(0);
  }
  /* replace the row not kept (the lower one if neither is: the run moves forward in time) */
  {
    PetscBool  usea = (r->jb == keep && keep >= 0) || (r->ja != keep && (r->ja < 0 || (r->jb >= 0 && r->ja < r->jb))) ? PETSC_TRUE : PETSC_FALSE;
    PetscReal *buf  = usea ? r->ra : r->rb;
    H5Eget_auto2(H5E_DEFAULT, &func, &data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    bad = BTERefReadRow(dyn->bte, (hid_t)r->fid, j, buf);
    H5Eset_auto2(H5E_DEFAULT, func, data);
    PetscCall(MPIU_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, PetscObjectComm((PetscObject)dyn)));
    PetscCheck(!anybad, PetscObjectComm((PetscObject)dyn), PETSC_ERR_FILE_READ, "Cannot read snapshot %" PetscInt_FMT " of the reference %s", j, r->file);
    {
      /* a damaged snapshot (NaN, Inf) would make every error NaN: refused when read */
      char msg[PETSC_MAX_PATH_LEN + 256] = "";
      if (usea) r->ja = -1; /* not held until it is known to be finite */
      else r->jb = -1;
      PetscCall(BTERefCheck(PetscObjectComm((PetscObject)dyn), BTERefRowFinite(dyn, j, buf, msg, sizeof(msg)), msg, sizeof(msg)));
    }
    if (usea) r->ja = j;
    else r->jb = j;
    *row = buf;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode BTERefGrow(BTEDynamicsReference *r)
{
  PetscReal **arrs[10] = {&r->t, &r->fmax, &r->f2, &r->f2rel, &r->carriers, &r->density, &r->emean, &r->vdrift, &r->popmax, NULL};

  PetscFunctionBegin;
  if (r->n < r->cap) PetscFunctionReturn(0);
  r->cap = PetscMax(16, 2 * r->cap);
  for (int q = 0; arrs[q]; q++) PetscCall(PetscRealloc(sizeof(PetscReal) * r->cap, arrs[q]));
  PetscFunctionReturn(0);
}

/* The energy-resolved population of u as the output bins it (bins e0 + j de from the band edge) */
static PetscErrorCode BTERefPopulation(BTEDynamics dyn, Vec u, PetscInt ne, PetscReal e0, PetscReal de, PetscReal *pop)
{
  BTE                bte = dyn->bte;
  const PetscScalar *a;
  PetscReal          nk  = (PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(pop, ne));
  PetscCall(VecGetArrayRead(u, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    PetscInt j = (PetscInt)PetscFloorReal((bte->energy[i] - e0) / de);
    j          = PetscMax(0, PetscMin(ne - 1, j));
    pop[j] += bte->spin * PetscRealPart(a[i]) / (nk * de);
  }
  PetscCall(VecRestoreArrayRead(u, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, pop, (PetscMPIInt)ne, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)dyn)));
  PetscFunctionReturn(0);
}

/* The errors of snapshot f at time t */
PetscErrorCode BTEDynamicsReferenceCompare(BTEDynamics dyn, PetscReal t, Vec f)
{
  BTE                   bte  = dyn->bte;
  MPI_Comm              comm = PetscObjectComm((PetscObject)dyn);
  BTEDynamicsReference *r    = &dyn->ref;
  PetscInt              j = -1, k, n;
  const PetscReal      *A, *B = NULL;
  PetscReal             w = 0, s[3] = {0, 0, 0}, m = 0;
  PetscScalar          *fr;
  const PetscScalar    *a;

  PetscFunctionBegin;
  if (!r->open) PetscFunctionReturn(0);
  /* the reference at t: its snapshot there, or the two around t */
  for (k = 0; k < r->ntref; k++)
    if (PetscAbsReal(r->tref[k] - t) <= BTE_REF_TIME_EPS(t)) j = k;
  if (j < 0) {
    PetscCheck(t > r->tref[0] && t < r->tref[r->ntref - 1], comm, PETSC_ERR_USER_INPUT, "The snapshot at t = %g fs lies outside the reference %s ([%g, %g] fs)", (double)t, r->file, (double)r->tref[0], (double)r->tref[r->ntref - 1]);
    for (k = 0; k + 1 < r->ntref && r->tref[k + 1] < t; k++) {}
    PetscCall(BTERefRow(dyn, k, -1, &A));
    PetscCall(BTERefRow(dyn, k + 1, k, &B));
    w = (t - r->tref[k]) / (r->tref[k + 1] - r->tref[k]);
  } else PetscCall(BTERefRow(dyn, j, -1, &A));
  PetscCall(VecGetArrayWrite(r->fref, &fr));
  if (B)
    for (PetscInt i = 0; i < bte->nlocal; i++) fr[i] = (1 - w) * A[i] + w * B[i];
  else
    for (PetscInt i = 0; i < bte->nlocal; i++) fr[i] = A[i];
  PetscCall(VecGetArrayRead(f, &a));
  {
    /* the reference rows are finite (BTERefRow) and so is the state (the finite-state guard); a
       difference that is not is refused all the same, never reported as a number (nor dropped by a
       max: PetscMax and MPI's MAX lose a NaN) */
    char     msg[PETSC_MAX_PATH_LEN + 256] = "";
    PetscInt bi                              = -1;
    for (PetscInt i = 0; i < bte->nlocal; i++) {
      PetscReal d = PetscAbsReal(PetscRealPart(a[i]) - PetscRealPart(fr[i]));
      if (PetscIsInfOrNanReal(d) && bi < 0) bi = i;
      m = BTERefMax2(m, d);
      s[0] += d * d;
      s[1] += PetscRealPart(fr[i]) * PetscRealPart(fr[i]);
    }
    if (bi >= 0) snprintf(msg, sizeof(msg), "The difference from the reference %s at t = %g fs is not finite at state %" PetscInt_FMT " (f = %g, f_ref = %g): no error can be reported (-bte_reference)", r->file, (double)t, bte->rstart + bi, (double)PetscRealPart(a[bi]), (double)PetscRealPart(fr[bi]));
    PetscCall(VecRestoreArrayRead(f, &a));
    PetscCall(VecRestoreArrayWrite(r->fref, &fr));
    PetscCall(BTERefCheck(comm, bi >= 0, msg, sizeof(msg)));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, s, 2, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &m, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(BTERefGrow(r));
  n           = r->n;
  r->t[n]     = t;
  r->fmax[n]  = m;
  r->f2[n]    = PetscSqrtReal(s[0]);
  r->f2rel[n] = s[1] > 0 ? PetscSqrtReal(s[0] / s[1]) : 0;
  {
    PetscReal n1, d1, e1, v1[3], n2, d2, e2, v2[3], vd1 = 0, vd2 = 0, Emag, edge, emax = PETSC_MIN_REAL, pm = 0, de;
    PetscReal *p1, *p2;
    PetscInt   ne;
    PetscCall(BTEComputeMoments(bte, f, &n1, &d1, &e1, v1));
    PetscCall(BTEComputeMoments(bte, r->fref, &n2, &d2, &e2, v2));
    Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
    if (Emag > 0) {
      vd1 = (v1[0] * dyn->efield[0] + v1[1] * dyn->efield[1] + v1[2] * dyn->efield[2]) / Emag;
      vd2 = (v2[0] * dyn->efield[0] + v2[1] * dyn->efield[1] + v2[2] * dyn->efield[2]) / Emag;
    }
    r->carriers[n] = PetscAbsReal(n1 - n2);
    r->density[n]  = PetscAbsReal(d1 - d2);
    r->emean[n]    = PetscAbsReal(e1 - e2);
    r->vdrift[n]   = PetscAbsReal(vd1 - vd2);
    /* population on the output's bins (the same bins without an output file) */
    PetscCall(BTEGetBandEdge(bte, &edge));
    for (PetscInt i = 0; i < bte->nlocal; i++) emax = PetscMax(emax, bte->energy[i]);
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &emax, 1, MPIU_REAL, MPIU_MAX, comm));
    de = dyn->de;
    ne = (PetscInt)PetscFloorReal((emax - edge) / de) + 1;
    PetscCall(PetscMalloc2(ne, &p1, ne, &p2));
    PetscCall(BTERefPopulation(dyn, f, ne, edge, de, p1));
    PetscCall(BTERefPopulation(dyn, r->fref, ne, edge, de, p2));
    for (PetscInt q = 0; q < ne; q++) pm = BTERefMax2(pm, PetscAbsReal(p1[q] - p2[q]));
    PetscCall(PetscFree2(p1, p2));
    r->popmax[n] = pm;
  }
  r->n++;
  PetscFunctionReturn(0);
}

static PetscReal BTERefMax(PetscInt n, const PetscReal *v)
{
  PetscReal m = 0;
  for (PetscInt i = 0; i < n; i++) m = BTERefMax2(m, v[i]);
  return m;
}

/* The short table at the end of a run: the final snapshot and the largest error over the run */
PetscErrorCode BTEDynamicsReferenceView(BTEDynamics dyn)
{
  MPI_Comm              comm = PetscObjectComm((PetscObject)dyn);
  BTEDynamicsReference *r    = &dyn->ref;
  PetscInt              n    = r->n;

  PetscFunctionBegin;
  if (!r->file[0] || !n) PetscFunctionReturn(0);
  PetscCall(PetscPrintf(comm, "dynamics: error against the reference %s (%" PetscInt_FMT " snapshots; the reference interpolated linearly in time between its snapshots)\n", r->file, n));
  PetscCall(PetscPrintf(comm, "  %-12s %11s %11s %11s %11s %11s %11s %11s\n", "", "max|df|", "||df||_2", "rel ||df||", "carriers", "<E>(eV)", "v_d(cm/s)", "population"));
  PetscCall(PetscPrintf(comm, "  t=%-10.4g %11.3e %11.3e %11.3e %11.3e %11.3e %11.3e %11.3e\n", (double)r->t[n - 1], (double)r->fmax[n - 1], (double)r->f2[n - 1], (double)r->f2rel[n - 1], (double)r->carriers[n - 1], (double)r->emean[n - 1], (double)r->vdrift[n - 1], (double)r->popmax[n - 1]));
  PetscCall(PetscPrintf(comm, "  %-12s %11.3e %11.3e %11.3e %11.3e %11.3e %11.3e %11.3e\n", "max over t", (double)BTERefMax(n, r->fmax), (double)BTERefMax(n, r->f2), (double)BTERefMax(n, r->f2rel), (double)BTERefMax(n, r->carriers), (double)BTERefMax(n, r->emean), (double)BTERefMax(n, r->vdrift), (double)BTERefMax(n, r->popmax)));
  PetscFunctionReturn(0);
}

/* Closes the reference file (the errors stay) */
PetscErrorCode BTEDynamicsReferenceClose(BTEDynamics dyn)
{
  BTEDynamicsReference *r = &dyn->ref;

  PetscFunctionBegin;
  if (!r->open) PetscFunctionReturn(0);
  r->open = PETSC_FALSE;
  H5Fclose((hid_t)r->fid);
  PetscCall(PetscFree(r->tref));
  PetscCall(PetscFree2(r->ra, r->rb));
  PetscCall(VecDestroy(&r->fref));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsReferenceDestroy(BTEDynamics dyn)
{
  BTEDynamicsReference *r = &dyn->ref;

  PetscFunctionBegin;
  PetscCall(BTEDynamicsReferenceClose(dyn));
  PetscCall(PetscFree(r->t));
  PetscCall(PetscFree(r->fmax));
  PetscCall(PetscFree(r->f2));
  PetscCall(PetscFree(r->f2rel));
  PetscCall(PetscFree(r->carriers));
  PetscCall(PetscFree(r->density));
  PetscCall(PetscFree(r->emean));
  PetscCall(PetscFree(r->vdrift));
  PetscCall(PetscFree(r->popmax));
  r->n = r->cap = 0;
  PetscFunctionReturn(0);
}
