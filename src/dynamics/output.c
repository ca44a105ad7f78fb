/* HDF5 output of bte dynamics (docs/format.md "Dynamics output"), on the output layer
   (src/io/output.c): a growing file, written as FILE.tmp until its first snapshot is complete.

   Only rank 0 holds the file; the other ranks send it their slab of the occupations in turn, so
   no rank holds the full state. Time series are extendable (chunked, unlimited time dimension)
   and the file is flushed after every snapshot, so a run stopped midway leaves a valid file of
   the snapshots so far. /dynamics/time is written last in a snapshot: a reader takes its length
   as the number of complete snapshots. The root attribute complete turns 1 when the run ends. */
#include <bte/private/dynamicsimpl.h>
#include <bte/private/validate.h>
#include <bte/private/h5util.h>
#include <bte/private/collisionimpl.h>
#include <stdint.h>
#include <string.h>

/* file types of PetscInt indices (i32, or i64 with 64-bit PetscInt) */
#define BTE_DYN_H5_INDEX (sizeof(PetscInt) == 8 ? H5T_STD_I64LE : H5T_STD_I32LE)


static int Differ(double a, double b)
{
  return PetscAbsReal(a - b) > 1e-12 * PetscMax(1.0, PetscMax(PetscAbsReal(a), PetscAbsReal(b)));
}

/* the collision operator's storage precision ("" without one: -bte_scattering 0) */
static const char *CollisionPrecisionName(BTEDynamics dyn)
{
  return dyn->coll ? BTECollisionPrecisions[dyn->coll->precision] : "";
}

/* the muscl drift's slope limiter ("" for the other forms and without a field) */
static const char *DriftLimiterName(BTEDynamics dyn)
{
  BTEDriftLimiter lim;

  if (dyn->driftform != BTE_DRIFT_MUSCL || !dyn->drift || BTEDriftGetLimiter(dyn->drift, &lim)) return "";
  return BTEDriftLimiters[lim];
}

/* What defines the run's collision operator beyond the states (which a restart checks bit for bit)
   and the settings CheckAppend compares already: the smearing, the delta and the table's channels.
   The table is identified by its channel count and a checksum of every channel (both ends, the mode,
   and the bits of hbar w and |g|^2), not by its file name or its source string: the same table may
   be read from another path or made in memory by its model (then it has the same channels bit for
   bit, as the restart requires of its energies), and a table with other couplings or phonons on the
   same states (-bte_gaas_lo 0) has a different sum. The checksum is a sum over the channels of a
   64-bit hash of each, modulo 2^64: independent of the channel order and of the number of ranks
   (every channel counted once, by the owner of its lower end), and one pass over the channels a rank
   holds, without I/O (the collision setup costs far more). Where the channels are only on the device
   (a Perturbo import on one rank on CUDA Vecs, whose host arrays are filled only when read) it is not
   computed (has = PETSC_FALSE), rather than copying the table to the host for it: an append then
   compares the table's source string instead. */
typedef struct {
  PetscInt64 nchannels;   /* the table's channels, global */
  PetscBool  has;         /* checksum computed */
  char       checksum[20]; /* 16 hex digits */
} BTEDynTableId;

static uint64_t Mix64(uint64_t x)
{
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

static uint64_t RealBits(PetscReal v)
{
  double   d = (double)v;
  uint64_t u;

  memcpy(&u, &d, sizeof(u));
  return u;
}

/* Collective: the table's identity (BTEDynTableId) */
static PetscErrorCode TableIdentity(BTE bte, BTEDynTableId *id)
{
  MPI_Comm   comm = PetscObjectComm((PetscObject)bte);
  uint64_t   sum  = 0;
  PetscInt64 cnt  = 0;
  int        ok   = !bte->chfill && !bte->chcounted && (bte->ch.n == 0 || (bte->ch.i && bte->ch.j && bte->ch.mode && bte->ch.hw && bte->ch.g2)), allok;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(id, sizeof(*id)));
  id->nchannels = bte->ch.nglobal;
  if (ok) {
    /* ~9 ns per channel on one thread: 1e9 channels would add 9 s to a run's start */
#if defined(_OPENMP)
  #pragma omp parallel for reduction(+ : sum, cnt) schedule(static)
#endif
    for (PetscCount c = 0; c < bte->ch.n; c++) {
      PetscInt lo = PetscMin(bte->ch.i[c], bte->ch.j[c]), hi = PetscMax(bte->ch.i[c], bte->ch.j[c]);
      uint64_t h;
      if (lo < bte->rstart || lo >= bte->rstart + bte->nlocal) continue; /* counted by its owner */
      h = Mix64((uint64_t)lo + 0x9e3779b97f4a7c15ULL);
      h = Mix64(h ^ (uint64_t)hi) + 0x9e3779b97f4a7c15ULL;
      h = Mix64(h ^ (uint64_t)bte->ch.mode[c]) + 0x9e3779b97f4a7c15ULL;
      h = Mix64(h ^ RealBits(bte->ch.hw[c])) + 0x9e3779b97f4a7c15ULL;
      h = Mix64(h ^ RealBits(bte->ch.g2[c]));
      sum += h;
      cnt++;
    }
  }
  PetscCall(MPIU_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &cnt, 1, MPIU_INT64, MPI_SUM, comm));
  /* every channel counted once, or no checksum */
  id->has = allok && cnt == bte->ch.nglobal ? PETSC_TRUE : PETSC_FALSE;
  if (id->has) PetscCall(PetscSNPrintf(id->checksum, sizeof(id->checksum), "%016llx", (unsigned long long)sum));
  PetscFunctionReturn(0);
}

/* Rank 0: the problem the file's run solved is this run's (note: 256 chars): temperature, field (and profile), pump,
   drift form, and the collision operator (smearing, delta, table: TableIdentity). For an append
   (reference = FALSE) every difference is refused, and a file that does not record the operator
   (written before bte did) too: an unchecked append can make one file of two runs. For a reference
   (-bte_reference, reference = TRUE) a difference in the drift form is allowed and named in note (a
   study may compare the forms), and what an older file does not record is not checked: a
   reference solved at 77 K in 3 kV/cm with the balanced delta was compared with a field-free 300 K
   run, its v_d error read 0 (projected on this run's zero field), exit 0. */
/* Rank 0, a reference: its field E_ref s_ref(t) is this run's E s(t) over [t0, tmax], where the two
   are compared (a run that restarts with a constant field after a step's time compares with the
   stepped reference: the same field there). At 256 midpoints and on both sides of each step. */
static int SameField(hid_t fid, BTEDynamics dyn, PetscReal t0, PetscReal tmax, BTEH5Status *st)
{
  double          e[3] = {0, 0, 0}, ft = 0, fw = 0, ts[5];
  char            s[64] = "constant";
  BTEFieldProfile p     = BTE_FIELD_CONSTANT;
  int             nt    = 0;

  (void)BTEH5ReadAttrReal3(fid, "dynamics", "efield", e);
  if (BTEH5AttrExists(fid, "dynamics", "efield_profile") == 1 && BTEH5ReadAttrString(fid, "dynamics", "efield_profile", s, sizeof(s), st)) return -1;
  for (int k = 0; BTEFieldProfiles[k] && k < 3; k++)
    if (!strcmp(s, BTEFieldProfiles[k])) p = (BTEFieldProfile)k;
  if (BTEH5AttrExists(fid, "dynamics", "efield_time") == 1 && BTEH5ReadAttrReal(fid, "dynamics", "efield_time", &ft, st)) return -1;
  if (BTEH5AttrExists(fid, "dynamics", "efield_fwhm") == 1 && BTEH5ReadAttrReal(fid, "dynamics", "efield_fwhm", &fw, st)) return -1;
  ts[nt++] = ft, ts[nt++] = dyn->src.ftime;
  for (int q = 0; q < 256 + 2 * nt; q++) {
    double t = q < 256 ? t0 + (q + 0.5) * (tmax - t0) / 256 : ts[(q - 256) / 2] + ((q - 256) % 2 ? 1 : -1) * 1e-6 * PetscMax(1.0, PetscAbsReal(ts[(q - 256) / 2]));
    double a = (double)BTEFieldProfileScale(p, (PetscReal)ft, (PetscReal)fw, (PetscReal)t), b = (double)BTEFieldProfileScale(dyn->src.fprofile, dyn->src.ftime, dyn->src.ffwhm, (PetscReal)t), scale = 1;
    int    differ = 0;
    if (t <= t0 || t >= tmax) continue;
    for (int c = 0; c < 3; c++) scale = PetscMax(scale, PetscMax(PetscAbsReal(e[c]), PetscAbsReal((double)dyn->efield[c])));
    for (int c = 0; c < 3; c++)
      if (PetscAbsReal(a * e[c] - b * (double)dyn->efield[c]) > 1e-9 * scale) differ = 1;
    if (differ) return BTEH5Fail(st, "its run's field differs from this one's within this run's [%g, %g] fs: at %g fs (%g, %g, %g) V/cm there, (%g, %g, %g) here (-bte_efield %g,%g,%g, profile %s there; %g,%g,%g, %s here)", (double)t0, (double)tmax, t, a * e[0], a * e[1], a * e[2], b * (double)dyn->efield[0], b * (double)dyn->efield[1], b * (double)dyn->efield[2], e[0], e[1], e[2], s, (double)dyn->efield[0], (double)dyn->efield[1], (double)dyn->efield[2], BTEFieldProfiles[dyn->src.fprofile]);
  }
  return 0;
}

static int SameProblem(hid_t fid, BTEDynamics dyn, const BTEDynTableId *id, PetscBool reference, PetscReal t0, PetscReal tmax, const char hint[], char note[], BTEH5Status *st)
{
  BTE bte = dyn->bte;

  {
    double v, e[3];
    char   s[64];
    if (BTEH5AttrExists(fid, "dynamics", "temperature") == 1 && !BTEH5ReadAttrReal(fid, "dynamics", "temperature", &v, st) && Differ(v, bte->temperature)) return BTEH5Fail(st, "its run was at %g K, this one at %g K%s", v, (double)bte->temperature, hint);
    if (BTEH5AttrExists(fid, "dynamics", "drift_form") == 1 && !BTEH5ReadAttrString(fid, "dynamics", "drift_form", s, sizeof(s), st) && strcmp(s, BTEDriftForms[dyn->driftform])) {
      if (!reference) return BTEH5Fail(st, "its run used -bte_drift_form %s, this one %s%s", s, BTEDriftForms[dyn->driftform], hint);
      if (note && (dyn->efield[0] != 0 || dyn->efield[1] != 0 || dyn->efield[2] != 0)) snprintf(note, 256, "the reference used -bte_drift_form %s, this run %s: the errors include the difference of the two forms", s, BTEDriftForms[dyn->driftform]);
    }
    if (reference) {
      if (SameField(fid, dyn, t0, tmax, st)) return -1;
    } else {
      if (BTEH5ReadAttrReal3(fid, "dynamics", "efield", e) && (Differ(e[0], dyn->efield[0]) || Differ(e[1], dyn->efield[1]) || Differ(e[2], dyn->efield[2]))) return BTEH5Fail(st, "its run had -bte_efield %g,%g,%g V/cm, this one %g,%g,%g%s", e[0], e[1], e[2], (double)dyn->efield[0], (double)dyn->efield[1], (double)dyn->efield[2], hint);
      if (BTEH5AttrExists(fid, "dynamics", "efield_profile") == 1 && !BTEH5ReadAttrString(fid, "dynamics", "efield_profile", s, sizeof(s), st) && strcmp(s, BTEFieldProfiles[dyn->src.fprofile])) return BTEH5Fail(st, "its run had -bte_efield_profile %s, this one %s%s", s, BTEFieldProfiles[dyn->src.fprofile], hint);
      if (st->bad) return -1;
      /* the profile's times too: a step moved from 50 to 150 fs was appended to a file that says 50 */
      if (dyn->src.fprofile != BTE_FIELD_CONSTANT && BTEH5AttrExists(fid, "dynamics", "efield_time") == 1) {
        if (BTEH5ReadAttrReal(fid, "dynamics", "efield_time", &v, st)) return -1;
        if (Differ(v, dyn->src.ftime)) return BTEH5Fail(st, "its run had -bte_efield_time %g fs, this one %g fs%s", v, (double)dyn->src.ftime, hint);
      }
      if (dyn->src.fprofile == BTE_FIELD_PULSE && BTEH5AttrExists(fid, "dynamics", "efield_fwhm") == 1) {
        if (BTEH5ReadAttrReal(fid, "dynamics", "efield_fwhm", &v, st)) return -1;
        if (Differ(v, dyn->src.ffwhm)) return BTEH5Fail(st, "its run had -bte_efield_fwhm %g fs, this one %g fs%s", v, (double)dyn->src.ffwhm, hint);
      }
    }
    v = 0;
    if (BTEH5AttrExists(fid, "dynamics", "pump_density") == 1 && BTEH5ReadAttrReal(fid, "dynamics", "pump_density", &v, st)) return -1;
    if (Differ(v, dyn->src.pdensity)) return BTEH5Fail(st, "its run had -bte_pump_density %g, this one %g%s", v, (double)dyn->src.pdensity, hint);
    if (dyn->src.pdensity > 0) {
      /* the pulse itself: a pump moved in time or energy injects other carriers at other times */
      const char *key[4] = {"pump_e0_edge", "pump_smear", "pump_time", "pump_fwhm"};
      const char *opt[4] = {"-bte_pump_e0_edge", "-bte_pump_smear", "-bte_pump_time", "-bte_pump_fwhm"};
      const char *unit[4] = {"eV", "eV", "fs", "fs"};
      double      mine[4] = {(double)dyn->src.pe0edge, (double)dyn->src.psmear, (double)dyn->src.ptime, (double)dyn->src.pfwhm};
      for (int q = 0; q < 4; q++) {
        if (BTEH5AttrExists(fid, "dynamics", key[q]) != 1) continue;
        if (BTEH5ReadAttrReal(fid, "dynamics", key[q], &v, st)) return -1;
        if (Differ(v, mine[q])) return BTEH5Fail(st, "its run had %s %g %s, this one %g %s%s", opt[q], v, unit[q], mine[q], unit[q], hint);
      }
    }
    /* collisions on or off (-bte_scattering 0 is another equation); recorded since 2026-11-30 */
    if (BTEH5AttrExists(fid, "dynamics", "scattering") == 1) {
      long long sc;
      if (BTEH5ReadAttrInt(fid, "dynamics", "scattering", &sc, st)) return -1;
      if ((sc != 0) != (dyn->scattering != 0)) return BTEH5Fail(st, "its run had -bte_scattering %d, this one %d%s", sc ? 1 : 0, dyn->scattering ? 1 : 0, hint);
    }
    if (!reference) {
      /* an append is one run: the drift's limiter and the renormalisation too (a reference may
         differ in these discretisation choices, as in its drift form) */
      if (BTEH5AttrExists(fid, "dynamics", "normalize") == 1) {
        long long nz;
        if (BTEH5ReadAttrInt(fid, "dynamics", "normalize", &nz, st)) return -1;
        if ((nz != 0) != (dyn->normalize != 0)) return BTEH5Fail(st, "its run had -bte_normalize %d, this one %d%s", nz ? 1 : 0, dyn->normalize ? 1 : 0, hint);
      }
      if (BTEH5AttrExists(fid, "dynamics", "drift_limiter") == 1) {
        const char *mine = DriftLimiterName(dyn);
        if (BTEH5ReadAttrString(fid, "dynamics", "drift_limiter", s, sizeof(s), st)) return -1;
        if (strcmp(s, mine)) return BTEH5Fail(st, "its run had -bte_drift_limiter %s, this one %s%s", s[0] ? s : "(none)", mine[0] ? mine : "(none)", hint);
      }
      /* float weights (mixed) move the trajectory by ~1e-10 relative: another run */
      if (BTEH5AttrExists(fid, "dynamics", "collision_precision") == 1) {
        const char *mine = CollisionPrecisionName(dyn);
        if (BTEH5ReadAttrString(fid, "dynamics", "collision_precision", s, sizeof(s), st)) return -1;
        if (s[0] && mine[0] && strcmp(s, mine)) return BTEH5Fail(st, "its run had -bte_collision_precision %s, this one %s%s", s, mine, hint);
      }
    }
    if (st->bad) return -1;
  }
  {
    /* the run's operator: smearing, delta, table (TableIdentity). A file written before these were
       recorded cannot show that this run continues its own (its /diagnostics may name the delta,
       but nothing names the smearing or the table), so it is refused rather than appended to with a
       warning: the continuation written to a new file loses nothing (it starts with the restart
       snapshot), while an unchecked append can make one file of two runs, which nothing in the
       file would show afterwards. */
    const char *need[4] = {"smearing", "delta", "table_channels", "table_source"};
    double      eta;
    long long   nch;
    char        s[64], src[sizeof(dyn->bte->source)];
    for (int q = 0; q < 4; q++)
      if (BTEH5AttrExists(fid, "dynamics", need[q]) != 1) {
        if (reference) return 0;
        return BTEH5Fail(st, "it does not record the smearing, delta and table of its run (no /dynamics attribute %s: written by an earlier bte), so an append cannot check that this run continues it; write this run to a new file (-bte_output NEW.h5, with -bte_restart this file)", need[q]);
      }
    if (BTEH5ReadAttrReal(fid, "dynamics", "smearing", &eta, st)) return -1;
    if (Differ(eta, bte->smearing)) return BTEH5Fail(st, "its run had -bte_smearing %g eV, this one %g eV%s", eta, (double)bte->smearing, hint);
    if (BTEH5ReadAttrString(fid, "dynamics", "delta", s, sizeof(s), st)) return -1;
    if (strcmp(s, BTEDeltas[bte->delta])) return BTEH5Fail(st, "its run had -bte_delta %s, this one %s%s", s, BTEDeltas[bte->delta], hint);
    if (BTEH5ReadAttrInt(fid, "dynamics", "table_channels", &nch, st)) return -1;
    if (nch != (long long)id->nchannels) return BTEH5Fail(st, "its run's table had %lld channels, this one's %lld: another table on the same states%s", nch, (long long)id->nchannels, hint);
    if (id->has && BTEH5AttrExists(fid, "dynamics", "table_checksum") == 1) {
      if (BTEH5ReadAttrString(fid, "dynamics", "table_checksum", s, sizeof(s), st)) return -1;
      if (strcmp(s, id->checksum)) return BTEH5Fail(st, "its run's table had channel checksum %s, this one's %s: another table on the same states (other couplings or phonon energies)%s", s, id->checksum, hint);
    } else {
      /* one of the two runs held its channels only on the device: the tables' sources instead */
      if (BTEH5ReadAttrString(fid, "dynamics", "table_source", src, sizeof(src), st)) return -1;
      if (strcmp(src, bte->source)) return BTEH5Fail(st, "its run's table came from '%.300s', this one's from '%.300s'%s", src, bte->source, hint);
    }
  }
  return 0;
}

/* Collective: the reference of -bte_reference solved this run's problem (SameProblem); a drift form
   of its own is named in one line */
PetscErrorCode BTEDynamicsCheckReferenceProblem(BTEDynamics dyn, const char file[], PetscReal t0, PetscReal tmax)
{
  MPI_Comm      comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt   rank;
  BTEDynTableId id;
  BTEH5Status   st;
  char          note[256] = "";

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(TableIdentity(dyn->bte, &id));
  PetscCall(PetscMemzero(&st, sizeof(st)));
  if (rank == 0) {
    BTEH5Auto h5auto;
    hid_t     fid;
    BTEH5Silence(&h5auto);
    fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (fid >= 0) {
      (void)SameProblem(fid, dyn, &id, PETSC_TRUE, t0, tmax, ": -bte_reference compares runs of one problem (the same table, temperature, field, pump, smearing and delta)", note, &st);
      H5Fclose(fid);
    }
    BTEH5Restore(&h5auto);
  }
  PetscCall(BTEH5SyncStatus(comm, &st));
  PetscCheck(!st.bad, comm, PETSC_ERR_USER_INPUT, "The reference %s: %s", file, st.msg);
  PetscCallMPI(MPI_Bcast(note, (PetscMPIInt)sizeof(note), MPI_CHAR, 0, comm));
  if (note[0]) PetscCall(PetscPrintf(comm, "dynamics: note: %s\n", note));
  PetscFunctionReturn(0);
}

/* Rank 0, appending: the file must hold the states and energy bins of this run, and its attributes
   of the physics (one set for the whole file) must describe this run too: a restart in a field
   appended to a field-free run's file said efield 0 beside a drift velocity of -7.9e6 cm/s. (The
   output interval may change: the time series says when each snapshot is.) */
static int CheckAppend(hid_t fid, BTEDynamics dyn, const BTEDynTableId *id, long long *nt, PetscBool *hasdt, BTEH5Status *st)
{
  BTE     bte = dyn->bte;
  hsize_t pop[2], occ[2], t[2];
  const char *hint = ": the file's attributes describe the run that made it; write this run to a new file (-bte_output NEW.h5, with -bte_restart this file)";

  if (BTEH5Exists(fid, "dynamics") != 1) return BTEH5Fail(st, "it has no /dynamics group: not a bte dynamics file");
  if (BTEH5DatasetExtent(fid, "dynamics/occupations", occ) != 2 || BTEH5DatasetExtent(fid, "dynamics/population", pop) != 2 || BTEH5DatasetExtent(fid, "dynamics/time", t) != 1) return BTEH5Fail(st, "its /dynamics lacks time, occupations or population: not a complete bte dynamics file");
  if ((PetscInt)occ[1] != bte->nstates) return BTEH5Fail(st, "it holds %lld states per snapshot, this table has %" PetscInt_FMT ": not the same table", (long long)occ[1], bte->nstates);
  if ((PetscInt)pop[1] != dyn->out.ne) return BTEH5Fail(st, "it has %lld energy grid points, this run %" PetscInt_FMT ": append with the same -bte_output_energy_step", (long long)pop[1], dyn->out.ne);
  {
    /* the same number of bins is not the same bins: a step of 0.00495 eV instead of 0.005 made as
       many, and its populations were appended under the file's energy_grid */
    double  bw, e0;
    hsize_t ng[1];
    if (BTEH5DatasetShape(fid, "dynamics/energy_grid", H5T_FLOAT, 1, "[nE]", ng, st) || ng[0] != pop[1]) return st->bad ? -1 : BTEH5Fail(st, "its /dynamics/energy_grid does not match its population's bins: the file is damaged");
    if (BTEH5ReadRows(fid, "dynamics/energy_grid", H5T_NATIVE_DOUBLE, 0, 1, 0, &e0, st) || BTEH5ReadAttrReal(fid, "dynamics/energy_grid", "bin_width", &bw, st)) return -1;
    if (Differ(bw, dyn->de)) return BTEH5Fail(st, "its energy bins are %g eV wide, this run's %g eV: append with the same -bte_output_energy_step", bw, (double)dyn->de);
    if (Differ(e0, dyn->out.e0 + 0.5 * dyn->de)) return BTEH5Fail(st, "its energy bins start at %g eV, this run's at %g eV (the band edge of another table)", e0 - 0.5 * bw, (double)dyn->out.e0);
  }
  {
    /* the groups an append does not rewrite, which the file's readers need (/grid places the states
       in k space): an append to a file that lost them would be a damaged file reported complete */
    hsize_t d[1], l[2];
    int     nk[3];
    double  L[9];
    if (BTEH5DatasetShape(fid, "grid/nk", H5T_INTEGER, 1, "[3]", d, st) || BTEH5DatasetShape(fid, "grid/lattice", H5T_FLOAT, 2, "[3][3]", l, st)) return -1;
    if (d[0] != 3 || l[0] != 3 || l[1] != 3) return BTEH5Fail(st, "its /grid/nk or /grid/lattice is not of shape [3] and [3][3]: the file is damaged");
    if (BTEH5ReadRows(fid, "grid/nk", H5T_NATIVE_INT, 0, 3, 0, nk, st) || BTEH5ReadRows(fid, "grid/lattice", H5T_NATIVE_DOUBLE, 0, 3, 3, L, st)) return -1;
    for (int a = 0; a < 3; a++)
      if (nk[a] != bte->grid.nk[a]) return BTEH5Fail(st, "its /grid is %d x %d x %d, this table's %d x %d x %d: not the same table", nk[0], nk[1], nk[2], (int)bte->grid.nk[0], (int)bte->grid.nk[1], (int)bte->grid.nk[2]);
    for (int a = 0; a < 9; a++)
      if (L[a] != (double)bte->grid.lattice[a]) return BTEH5Fail(st, "its /grid/lattice differs from this table's lattice: not the same table, or the file is damaged");
    if (BTEH5AttrExists(fid, "diagnostics", "computed") != 1) return BTEH5Fail(st, "it has no /diagnostics group (with attribute computed), which every bte output holds: the file is damaged");
  }
  if (SameProblem(fid, dyn, id, PETSC_FALSE, 0, 0, hint, NULL, st)) return -1;
  *nt    = (long long)t[0];
  *hasdt = BTEH5Exists(fid, "dynamics/time_step") == 1 && BTEH5Exists(fid, "dynamics/time_step_unclipped") == 1 ? PETSC_TRUE : PETSC_FALSE; /* older files have no step sizes */
  return 0;
}

/* Rank 0, a new file: the run's attributes, the static datasets and the empty series */
static int WriteHeader(hid_t fid, BTEDynamics dyn, const BTEDynTableId *id, PetscReal edge, const PetscReal *egrid, BTEH5Status *st)
{
  BTE         bte = dyn->bte;
  const char *dunit = bte->grid.dim == 2 ? "cm^-2" : "cm^-3";
  double      ef[3], bw = dyn->de;
  long long   nk[3];
  hid_t       g;
  hsize_t     ne = (hsize_t)dyn->out.ne, N = (hsize_t)bte->nstates;
  int         r = -1;

  for (int a = 0; a < 3; a++) ef[a] = dyn->efield[a], nk[a] = bte->grid.nk[a];
  g = H5Gcreate2(fid, "dynamics", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "cannot create group /dynamics");
  if (BTEH5WriteAttrString(g, "format", BTE_DYN_FORMAT_NAME, st)) goto done;
  if (BTEH5WriteAttrInts(g, "version", 1, (long long[]){BTE_DYN_FORMAT_VERSION}, st)) goto done;
  if (BTEH5WriteAttrString(g, "source", bte->input[0] ? bte->input : bte->model, st)) goto done;
  if (BTEH5WriteAttrString(g, "carriers", bte->carrier < 0 ? "electrons" : "holes", st)) goto done;
  if (BTEH5WriteAttrString(g, "init", BTEInitTypes[dyn->init], st)) goto done;
  if (BTEH5WriteAttrString(g, "drift_form", BTEDriftForms[dyn->driftform], st)) goto done;
  if (BTEH5WriteAttrString(g, "drift_limiter", DriftLimiterName(dyn), st)) goto done;
  if (BTEH5WriteAttrString(g, "collision_precision", CollisionPrecisionName(dyn), st)) goto done;
  if (BTEH5WriteAttrInts(g, "normalize", 1, (long long[]){dyn->normalize ? 1 : 0}, st)) goto done;
  if (BTEH5WriteAttrInts(g, "scattering", 1, (long long[]){dyn->scattering ? 1 : 0}, st)) goto done;
  if (BTEH5WriteAttrReals(g, "temperature", 1, (double[]){bte->temperature}, "K", st)) goto done;
  /* what defines the collision operator, so that an append can check it (TableIdentity) */
  if (BTEH5WriteAttrReals(g, "smearing", 1, (double[]){bte->smearing}, "eV", st)) goto done;
  if (BTEH5WriteAttrString(g, "delta", BTEDeltas[bte->delta], st)) goto done;
  if (BTEH5WriteAttrString(g, "table_source", bte->source, st)) goto done;
  if (BTEH5WriteAttrInts(g, "table_channels", 1, (long long[]){(long long)id->nchannels}, st)) goto done;
  if (id->has && BTEH5WriteAttrString(g, "table_checksum", id->checksum, st)) goto done;
  if (BTEH5WriteAttrReals(g, "efield", 3, ef, "V/cm", st)) goto done;
  /* the time dependence of the field and the pump pulse, so that the file describes the run */
  if (BTEH5WriteAttrString(g, "efield_profile", BTEFieldProfiles[dyn->src.fprofile], st)) goto done;
  if (dyn->src.fprofile != BTE_FIELD_CONSTANT && BTEH5WriteAttrReals(g, "efield_time", 1, (double[]){dyn->src.ftime}, "fs", st)) goto done;
  if (dyn->src.fprofile == BTE_FIELD_PULSE && BTEH5WriteAttrReals(g, "efield_fwhm", 1, (double[]){dyn->src.ffwhm}, "fs", st)) goto done;
  if (dyn->src.pdensity > 0) {
    if (BTEH5WriteAttrReals(g, "pump_density", 1, (double[]){dyn->src.pdensity}, dunit, st)) goto done;
    if (BTEH5WriteAttrReals(g, "pump_e0_edge", 1, (double[]){dyn->src.pe0edge}, "eV", st)) goto done;
    if (BTEH5WriteAttrReals(g, "pump_smear", 1, (double[]){dyn->src.psmear}, "eV", st)) goto done;
    if (BTEH5WriteAttrReals(g, "pump_time", 1, (double[]){dyn->src.ptime}, "fs", st)) goto done;
    if (BTEH5WriteAttrReals(g, "pump_fwhm", 1, (double[]){dyn->src.pfwhm}, "fs", st)) goto done;
  }
  if (BTEH5WriteAttrReals(g, "band_edge", 1, (double[]){edge}, "eV", st)) goto done;
  if (BTEH5WriteAttrReals(g, "cell_volume", 1, (double[]){bte->grid.volume}, bte->grid.dim == 2 ? "Angstrom^2" : "Angstrom^3", st)) goto done;
  if (BTEH5WriteAttrInts(g, "nk", 3, nk, st)) goto done;
  if (BTEH5WriteAttrInts(g, "dim", 1, (long long[]){bte->grid.dim}, st)) goto done;
  if (BTEH5WriteAttrInts(g, "spin_degeneracy", 1, (long long[]){bte->spin}, st)) goto done;
  if (BTEH5WriteAttrInts(g, "nstates", 1, (long long[]){bte->nstates}, st)) goto done;
  if (BTEH5WriteAttrReals(g, "output_interval", 1, (double[]){dyn->interval}, "fs", st)) goto done;
  if (BTEH5CreateSeries(g, "time", H5T_IEEE_F64LE, 0, "fs", "time of each snapshot; its length is the number of complete snapshots", st)) goto done;
  if (BTEH5CreateSeries(g, "step", H5T_STD_I64LE, 0, "", "TS step number of each snapshot", st)) goto done;
  if (BTEH5CreateSeries(g, "time_step", H5T_IEEE_F64LE, 0, "fs", "the step the integrator takes next (a restart continues with it)", st)) goto done;
  if (BTEH5CreateSeries(g, "time_step_unclipped", H5T_IEEE_F64LE, 0, "fs", "when time_step was shortened to land on an output time, the step it was shortened from, else 0", st)) goto done;
  if (BTEH5CreateSeries(g, "carriers", H5T_IEEE_F64LE, 0, "1/cell", "carriers per unit cell, s/Nk sum_i f_i", st)) goto done;
  if (BTEH5CreateSeries(g, "carrier_density", H5T_IEEE_F64LE, 0, dunit, "carriers per volume (area in 2D)", st)) goto done;
  if (BTEH5CreateSeries(g, "mean_energy", H5T_IEEE_F64LE, 0, "eV", "sum f e / sum f, on the table's energy zero (see the band_edge attribute)", st)) goto done;
  if (BTEH5CreateSeries(g, "drift_velocity", H5T_IEEE_F64LE, 0, "cm/s", "sum f v.E_hat / sum f (0 without a field)", st)) goto done;
  if (BTEH5CreateSeries(g, "velocity", H5T_IEEE_F64LE, 3, "cm/s", "mean velocity sum f v / sum f", st)) goto done;
  if (BTEH5CreateSeries(g, "population", H5T_IEEE_F64LE, ne, "1/(eV cell)", "energy-resolved population: s/Nk sum over states in each bin of f, divided by the bin width", st)) goto done;
  if (BTEH5CreateSeries(g, "occupations", H5T_IEEE_F64LE, N, "", "occupation f_i of every state at each snapshot", st)) goto done;
  if (BTEH5WriteDataset(g, "energy_grid", H5T_IEEE_F64LE, BTE_H5_NATIVE_REAL, 1, &ne, egrid, "eV", "centres of the population's energy bins", st)) goto done;
  {
    hid_t d = H5Dopen2(g, "energy_grid", H5P_DEFAULT);
    if (d < 0) {
      BTEH5Fail(st, "cannot open dataset energy_grid");
      goto done;
    }
    BTEH5WriteAttrReals(d, "bin_width", 1, &bw, "eV", st);
    H5Dclose(d);
    if (st->bad) goto done;
  }
  if (BTEH5CreateDataset(g, "state_energy", H5T_IEEE_F64LE, 1, &N, 0, NULL, st) || BTEH5DescribeDataset(g, "state_energy", "eV", "energy of each state", st)) goto done;
  if (BTEH5CreateDataset(g, "state_kindex", BTE_DYN_H5_INDEX, 1, &N, 0, NULL, st) || BTEH5DescribeDataset(g, "state_kindex", "", "full-grid k index of each state", st)) goto done;
  if (BTEH5CreateDataset(g, "state_band", BTE_DYN_H5_INDEX, 1, &N, 0, NULL, st) || BTEH5DescribeDataset(g, "state_band", "", "band index of each state", st)) goto done;
  r = 0;
done:
  H5Gclose(g);
  return r;
}

PetscErrorCode BTEDynamicsOutputOpen(BTEDynamics dyn, const char file[], PetscBool append)
{
  BTE          bte  = dyn->bte;
  MPI_Comm     comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt  rank;
  PetscReal    edge, emax = PETSC_MIN_REAL;
  long long    nt   = 0;
  hid_t        fid;
  BTEH5Status *st;
  BTEDynTableId id;

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
  dyn->out.ne    = (PetscInt)PetscFloorReal((emax - edge) / dyn->de) + 1;
  dyn->out.hasdt = PETSC_TRUE;
  PetscCall(TableIdentity(bte, &id));
  if (append) {
    PetscBool hasdt = PETSC_FALSE;
    long long info[2];
    {
      /* checked first on the file opened read-only, so that a refused append leaves it as it was
         (opening it to append marks it complete = 0); a file HDF5 cannot open is reported below */
      BTEH5Status st0;
      BTEH5Auto   h5auto;
      PetscCall(PetscMemzero(&st0, sizeof(st0)));
      if (rank == 0) {
        BTEH5Silence(&h5auto);
        fid = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
        if (fid >= 0) {
          (void)CheckAppend(fid, dyn, &id, &nt, &hasdt, &st0);
          H5Fclose(fid);
        }
        BTEH5Restore(&h5auto);
      }
      PetscCall(BTEH5SyncStatus(comm, &st0));
      PetscCheck(!st0.bad, comm, PETSC_ERR_USER_INPUT, "Cannot append to the dynamics output %s: %s", file, st0.msg);
    }
    PetscCall(BTEOutputAppend(bte, file, "dynamics", &dyn->out.file));
    PetscCall(BTEOutputGetFile(dyn->out.file, &fid, &st));
    if (rank == 0 && !CheckAppend(fid, dyn, &id, &nt, &hasdt, st) && !dyn->ref.file[0] && BTEH5Exists(fid, "dynamics/reference_error") == 1 && H5Ldelete(fid, "dynamics/reference_error", H5P_DEFAULT) < 0)
      /* the errors of the run that wrote the file, against its reference: a run without one
         appending would leave them beside its own snapshots, read as the whole file's */
      BTEH5Fail(st, "cannot remove its /dynamics/reference_error, which describes only the run that wrote it");
    PetscCall(BTEOutputCheck(dyn->out.file));
    info[0] = nt;
    info[1] = hasdt;
    PetscCallMPI(MPI_Bcast(info, 2, MPI_LONG_LONG, 0, comm));
    dyn->out.nt    = (PetscInt)info[0];
    dyn->out.nt0   = dyn->out.nt;
    dyn->out.hasdt = info[1] ? PETSC_TRUE : PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  /* the 1.8 file format: it has no "open for writing" flag, so a run killed midway leaves a file
     that opens as it was at its last flush */
  PetscCall(BTEOutputCreate(bte, file, "-bte_output", "dynamics", PETSC_TRUE, &dyn->out.file));
  dyn->out.nt  = 0;
  dyn->out.nt0 = 0;
  PetscCall(BTEOutputWriteRunInfo(dyn->out.file, dyn->coll)); /* the run's operator when it can */
  PetscCall(BTEOutputGetFile(dyn->out.file, &fid, &st));
  if (rank == 0) {
    PetscReal *egrid;
    PetscCall(PetscMalloc1(dyn->out.ne, &egrid));
    for (PetscInt j = 0; j < dyn->out.ne; j++) egrid[j] = edge + (j + 0.5) * dyn->de;
    (void)WriteHeader(fid, dyn, &id, edge, egrid, st);
    PetscCall(PetscFree(egrid));
  }
  PetscCall(BTEOutputCheck(dyn->out.file));
  PetscCall(BTEOutputWriteStates(dyn->out.file, rank ? -1 : fid, "dynamics/state_energy", -1, PETSC_FALSE, bte->energy));
  PetscCall(BTEOutputWriteStates(dyn->out.file, rank ? -1 : fid, "dynamics/state_kindex", -1, PETSC_TRUE, bte->kindex));
  PetscCall(BTEOutputWriteStates(dyn->out.file, rank ? -1 : fid, "dynamics/state_band", -1, PETSC_TRUE, bte->band));
  PetscCall(BTEOutputFlush(dyn->out.file));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEDynamicsOutputWrite(BTEDynamics dyn, PetscReal t, PetscInt step, Vec f)
{
  BTE                bte  = dyn->bte;
  MPI_Comm           comm = PetscObjectComm((PetscObject)dyn);
  PetscMPIInt        rank;
  PetscReal          ncell, dens, emean, v[3], vd = 0, Emag, nk, *pop, *loc;
  const PetscScalar *a;
  hid_t              fid;
  BTEH5Status       *st;
  hsize_t            row = (hsize_t)dyn->out.nt;

  PetscFunctionBegin;
  PetscCheck(dyn->out.file, comm, PETSC_ERR_ARG_WRONGSTATE, "Dynamics output not open");
  PetscCall(PetscLogEventBegin(BTE_DynamicsOutput, dyn, f, 0, 0));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(BTEComputeMoments(bte, f, &ncell, &dens, &emean, v));
  Emag = PetscSqrtReal(dyn->efield[0] * dyn->efield[0] + dyn->efield[1] * dyn->efield[1] + dyn->efield[2] * dyn->efield[2]);
  if (Emag > 0) vd = (v[0] * dyn->efield[0] + v[1] * dyn->efield[1] + v[2] * dyn->efield[2]) / Emag;
  /* energy-resolved population */
  nk = (PetscReal)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
  PetscCall(PetscCalloc1(dyn->out.ne, &pop));
  PetscCall(PetscMalloc1(bte->nlocal + 1, &loc));
  PetscCall(VecGetArrayRead(f, &a));
  for (PetscInt i = 0; i < bte->nlocal; i++) {
    PetscInt j = (PetscInt)PetscFloorReal((bte->energy[i] - dyn->out.e0) / dyn->out.de);
    j          = PetscMax(0, PetscMin(dyn->out.ne - 1, j));
    pop[j] += bte->spin * PetscRealPart(a[i]) / (nk * dyn->out.de);
    loc[i] = PetscRealPart(a[i]);
  }
  PetscCall(VecRestoreArrayRead(f, &a));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, pop, (PetscMPIInt)dyn->out.ne, MPIU_REAL, MPIU_SUM, comm));
  /* the occupations first (extended to this row, then every rank's slab), the series after */
  PetscCall(BTEOutputGetFile(dyn->out.file, &fid, &st));
  if (rank == 0) (void)BTEH5WriteSeriesRow(fid, "dynamics/occupations", BTE_H5_NATIVE_REAL, row, 0, 0, 1, NULL, st);
  PetscCall(BTEOutputCheck(dyn->out.file));
  PetscCall(BTEOutputWriteStates(dyn->out.file, fid, "dynamics/occupations", (PetscInt)row, PETSC_FALSE, loc));
  PetscCall(PetscFree(loc));
  PetscCall(BTEOutputGetFile(dyn->out.file, &fid, &st));
  if (rank == 0) {
    double    tt = t, dts[2] = {0, 0}, r[4] = {ncell, dens, emean, vd}, vv[3] = {v[0], v[1], v[2]};
    long long sn = step;
    /* the series of this snapshot, time last: its length is what a reader counts as complete */
    const struct {
      const char *name;
      hid_t       memtype;
      hsize_t     ncols;
      const void *v;
    } series[] = {
      {"dynamics/population", BTE_H5_NATIVE_REAL, (hsize_t)dyn->out.ne, pop},
      {"dynamics/step", H5T_NATIVE_LLONG, 1, &sn},
      {"dynamics/time_step", H5T_NATIVE_DOUBLE, 1, &dts[0]},
      {"dynamics/time_step_unclipped", H5T_NATIVE_DOUBLE, 1, &dts[1]},
      {"dynamics/carriers", H5T_NATIVE_DOUBLE, 1, &r[0]},
      {"dynamics/carrier_density", H5T_NATIVE_DOUBLE, 1, &r[1]},
      {"dynamics/mean_energy", H5T_NATIVE_DOUBLE, 1, &r[2]},
      {"dynamics/drift_velocity", H5T_NATIVE_DOUBLE, 1, &r[3]},
      {"dynamics/velocity", H5T_NATIVE_DOUBLE, 3, vv},
      {"dynamics/time", H5T_NATIVE_DOUBLE, 1, &tt},
    };
    if (dyn->out.hasdt) {
      /* what a restart from this snapshot needs to take the same steps as this run */
      PetscReal dtn;
      PetscCall(TSGetTimeStep(dyn->ts, &dtn));
      dts[0] = dtn;
      dts[1] = dyn->clipped ? dyn->dtsaved : 0;
    }
    for (size_t q = 0; q < sizeof(series) / sizeof(series[0]) && !st->bad; q++) {
      if (!dyn->out.hasdt && (q == 2 || q == 3)) continue; /* a file from before step sizes were saved */
      (void)BTEH5WriteSeriesRow(fid, series[q].name, series[q].memtype, row, 0, series[q].ncols, 1, series[q].v, st);
    }
  }
  PetscCall(PetscFree(pop));
  /* on disk after every snapshot; the first one makes the new file FILE */
  PetscCall(BTEOutputFlush(dyn->out.file));
  PetscCall(BTEOutputPublish(dyn->out.file));
  dyn->out.nt++;
  PetscCall(PetscLogEventEnd(BTE_DynamicsOutput, dyn, f, 0, 0));
  PetscFunctionReturn(0);
}

/* End of a run: the file is complete, unless the run stopped before its final time (a run that
   fails leaves complete = 0 too) */
PetscErrorCode BTEDynamicsOutputClose(BTEDynamics dyn)
{
  PetscFunctionBegin;
  if (dyn->stopped) PetscCall(BTEOutputCloseStopped(&dyn->out.file));
  else PetscCall(BTEOutputClose(&dyn->out.file));
  PetscFunctionReturn(0);
}

/* /dynamics/cost: the cost of the run that wrote (or last appended to) the file, as attributes
   (src/dynamics/cost.c). Written before the file is closed: the output time excludes the close. */
static int WriteCost(hid_t fid, const BTEDynamicsCost *c, const char type[], const char atype[], BTEH5Status *st)
{
  const char *inames[6] = {"steps", "rejected_steps", "collision_applies", "jacobian_applies", "nonlinear_iterations", "linear_iterations"};
  long long   ivals[6]  = {c->steps, c->rejects, c->coll_applies, c->jac_applies, c->snes_its, c->ksp_its};
  const char *rnames[4] = {"wall_time_setup", "wall_time_stepping", "wall_time_output", "wall_time_total"};
  double      rvals[4]  = {c->setup, c->stepping, c->output, c->total};
  hid_t       g;

  if (BTEH5Exists(fid, "dynamics/cost") == 1) g = H5Gopen2(fid, "dynamics/cost", H5P_DEFAULT);
  else g = H5Gcreate2(fid, "dynamics/cost", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "cannot create group /dynamics/cost");
  for (int q = 0; q < 6 && !st->bad; q++) BTEH5WriteAttrInts(g, inames[q], 1, &ivals[q], st);
  for (int q = 0; q < 4 && !st->bad; q++) BTEH5WriteAttrReals(g, rnames[q], 1, &rvals[q], "s", st);
  if (!st->bad) BTEH5WriteAttrString(g, "wall_time_units", "s", st); /* the one unit of all four, as files before each had its own */
  if (!st->bad) BTEH5WriteAttrString(g, "ts_type", type ? type : "", st);
  if (!st->bad) BTEH5WriteAttrString(g, "ts_adapt_type", atype ? atype : "", st);
  if (!st->bad)
    BTEH5WriteAttrString(g, "description", "cost of the run that last wrote this file: TS steps (accepted) and rejected steps, collision and collision Jacobian applies, nonlinear and linear iterations; wall time of setup, stepping and output (s)", st);
  H5Gclose(g);
  return st->bad ? -1 : 0;
}

PetscErrorCode BTEDynamicsOutputWriteCost(BTEDynamics dyn)
{
  hid_t        fid;
  BTEH5Status *st;
  TSType       type;
  TSAdapt      adapt;
  TSAdaptType  atype;

  PetscFunctionBegin;
  if (!dyn->out.file) PetscFunctionReturn(0);
  PetscCall(TSGetType(dyn->ts, &type));
  PetscCall(TSGetAdapt(dyn->ts, &adapt));
  PetscCall(TSAdaptGetType(adapt, &atype));
  PetscCall(BTEOutputGetFile(dyn->out.file, &fid, &st));
  if (st) (void)WriteCost(fid, &dyn->cost, type, atype, st);
  PetscCall(BTEOutputFlush(dyn->out.file));
  PetscFunctionReturn(0);
}

/* /dynamics/reference_error: per compared snapshot, the errors against -bte_reference
   (src/dynamics/reference.c); replaced by each run that appends to the file. */
static int WriteReferenceError(hid_t fid, const BTEDynamicsReference *r, PetscInt dim, BTEH5Status *st)
{
  const char      *names[9] = {"time", "f_max", "f_l2", "f_l2_relative", "carriers", "carrier_density", "mean_energy", "drift_velocity", "population_max"};
  const PetscReal *vals[9]  = {r->t, r->fmax, r->f2, r->f2rel, r->carriers, r->density, r->emean, r->vdrift, r->popmax};
  const char      *units[9] = {"fs", "", "", "", "1/cell", dim == 2 ? "cm^-2" : "cm^-3", "eV", "cm/s", "1/(eV cell)"};
  const char      *desc[9]  = {"time of each compared snapshot", "max_i |f_i - fref_i|", "(sum_i (f_i - fref_i)^2)^(1/2)", "||f - fref||_2 / ||fref||_2", "|carriers - carriers_ref|", "|density - density_ref|", "|mean energy - mean energy_ref|", "|drift velocity - drift velocity_ref|", "max over bins |population - population_ref|"};
  hsize_t          n        = (hsize_t)r->n;
  hid_t            g;

  if (BTEH5Exists(fid, "dynamics/reference_error") == 1) H5Ldelete(fid, "dynamics/reference_error", H5P_DEFAULT);
  g = H5Gcreate2(fid, "dynamics/reference_error", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "cannot create group /dynamics/reference_error");
  if (!BTEH5WriteAttrString(g, "reference", r->file, st)) BTEH5WriteAttrString(g, "interpolation", "linear in time between the reference's snapshots (second order in their spacing); exact where the times coincide", st);
  for (int q = 0; q < 9 && !st->bad; q++) BTEH5WriteDataset(g, names[q], H5T_IEEE_F64LE, BTE_H5_NATIVE_REAL, 1, &n, vals[q], units[q], desc[q], st);
  H5Gclose(g);
  return st->bad ? -1 : 0;
}

PetscErrorCode BTEDynamicsOutputWriteReferenceError(BTEDynamics dyn)
{
  hid_t        fid;
  BTEH5Status *st;

  PetscFunctionBegin;
  if (!dyn->out.file || !dyn->ref.file[0]) PetscFunctionReturn(0);
  PetscCall(BTEOutputGetFile(dyn->out.file, &fid, &st));
  if (st) (void)WriteReferenceError(fid, &dyn->ref, dyn->bte->grid.dim, st);
  PetscCall(BTEOutputFlush(dyn->out.file));
  PetscFunctionReturn(0);
}
