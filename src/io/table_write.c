/* HDF5 scattering-table writer (layout: docs/format.md).

   Works with a serial HDF5 as well as a parallel one: no MPI-IO. Rank 0 creates
   FILE.tmp with every group, attribute and dataset at its global size, then the
   ranks take turns (rank order) opening the file and writing their own rows:
   states [rstart, rstart+nlocal), and the channels whose lower end i they own
   (a channel with ends on two ranks is held by both, written by one). Rank 0
   then sets the root attribute complete = 1 and renames FILE.tmp to FILE, so an
   interrupted write never leaves a file that looks complete.

   BTETableWrite writes a BTE that holds its channels. The stream (BTETableStream*)
   writes the same file for a builder that never holds them all: the header and the
   states first, then batches of channel rows, each rank at its running offset
   (exclusive prefix sum of the ranks' counts), the ranks taking turns per batch. */
#include <bte/private/bteimpl.h>
#include <bte/private/h5util.h>
#include <bte/private/latticeh5.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define BTE_H5_CHANNEL_CHUNK ((hsize_t)1 << 20) /* storage chunk of the channel datasets, rows */

typedef struct {
  BTE        bte;
  PetscInt64 M;          /* channels in the file */
  PetscInt64 off, nown;  /* this rank writes channel rows [off, off+nown) */
  PetscInt   batch;      /* channels per write when filtering */
  PetscInt  *bi, *bj, *bm;
  PetscReal *bhw, *bg2;  /* batch buffers (NULL when every local channel is written) */
} WriteCtx;

static hid_t IntFileType(PetscInt64 maxval)
{
  return maxval > INT32_MAX ? H5T_STD_I64LE : H5T_STD_I32LE;
}

static int WriteStatesHeader(hid_t f, BTE bte, BTEH5Status *st)
{
  hid_t      g     = H5Gcreate2(f, "states", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t    d1[1] = {(hsize_t)bte->nstates}, d2[2] = {(hsize_t)bte->nstates, 3};
  PetscInt64 nktot = (PetscInt64)bte->grid.nk[0] * bte->grid.nk[1] * bte->grid.nk[2];
  int        r     = -1;

  if (g < 0) return BTEH5Fail(st, "cannot create group /states");
  if (BTEH5WriteAttrInt(g, "nbands", bte->nbands, st)) goto done;
  if (BTEH5WriteAttrInt(g, "spin_degeneracy", bte->spin, st)) goto done;
  if (BTEH5WriteAttrString(g, "carrier", bte->carrier > 0 ? "holes" : "electrons", st)) goto done;
  if (BTEH5WriteAttrReal(g, "window_min", bte->emin, "eV", st)) goto done;
  if (BTEH5WriteAttrReal(g, "window_max", bte->emax, "eV", st)) goto done;
  if (BTEH5CreateDataset(g, "kindex", IntFileType(nktot - 1), 1, d1, 0, NULL, st)) goto done;
  if (BTEH5CreateDataset(g, "band", H5T_STD_I32LE, 1, d1, 0, NULL, st)) goto done;
  if (BTEH5CreateDataset(g, "energy", H5T_IEEE_F64LE, 1, d1, 0, "eV", st)) goto done;
  if (BTEH5CreateDataset(g, "velocity", H5T_IEEE_F64LE, 2, d2, 0, "Angstrom/fs", st)) goto done;
  r = 0;
done:
  H5Gclose(g);
  return r;
}

static int WriteChannelsHeader(hid_t f, BTE bte, PetscInt64 M, BTEH5Status *st)
{
  hid_t   g     = H5Gcreate2(f, "channels", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  hsize_t d1[1] = {(hsize_t)M};
  hid_t   it    = IntFileType(bte->nstates - 1);
  int     r     = -1;

  if (g < 0) return BTEH5Fail(st, "cannot create group /channels");
  if (BTEH5WriteAttrReal(g, "smearing", bte->smearing, "eV", st)) goto done;
  if (BTEH5WriteAttrReal(g, "g2_cutoff", bte->g2_cutoff, "eV^2", st)) goto done;
  if (BTEH5WriteAttrReal(g, "phonon_min", bte->phonon_min, "eV", st)) goto done;
  if (BTEH5WriteAttrReal(g, "energy_tolerance", bte->tol_eta, "eta", st)) goto done;
  if (BTEH5WriteAttrString(g, "delta", BTEDeltas[bte->delta], st)) goto done; /* a run from the file takes it */
  if (BTEH5CreateDataset(g, "i", it, 1, d1, BTE_H5_CHANNEL_CHUNK, NULL, st)) goto done;
  if (BTEH5CreateDataset(g, "j", it, 1, d1, BTE_H5_CHANNEL_CHUNK, NULL, st)) goto done;
  if (BTEH5CreateDataset(g, "mode", H5T_STD_I32LE, 1, d1, BTE_H5_CHANNEL_CHUNK, NULL, st)) goto done;
  if (BTEH5CreateDataset(g, "phonon_energy", H5T_IEEE_F64LE, 1, d1, BTE_H5_CHANNEL_CHUNK, "eV", st)) goto done;
  if (BTEH5CreateDataset(g, "g2", H5T_IEEE_F64LE, 1, d1, BTE_H5_CHANNEL_CHUNK, "eV^2", st)) goto done;
  r = 0;
done:
  H5Gclose(g);
  return r;
}

static int WriteModel(hid_t f, BTE bte, BTEH5Status *st)
{
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g;
  int   r    = -1;

  /* keep the parameters in the order the model added them */
  H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
  g = H5Gcreate2(f, "model", H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  if (g < 0) return BTEH5Fail(st, "cannot create group /model");
  if (BTEH5WriteAttrString(g, "name", bte->model, st)) goto done;
  for (PetscInt k = 0; k < bte->params.n; k++)
    if (BTEH5WriteAttrReal(g, bte->params.name[k], bte->params.value[k], bte->params.unit[k], st)) goto done;
  r = 0;
done:
  H5Gclose(g);
  return r;
}

/* Rank 0: everything but the rows of the big datasets and the complete flag. */
static int WriteHeader(hid_t f, BTE bte, PetscInt64 M, BTEH5Status *st)
{
  char  err[BTE_H5_MSGLEN];
  hid_t g;
  int   r;

  if (BTEH5WriteAttrString(f, "format", BTE_FORMAT_NAME, st)) return -1;
  if (BTEH5WriteAttrInt(f, "format_version", BTE_FORMAT_VERSION, st)) return -1;
  if (BTEH5WriteCreator(f, st)) return -1;
  if (BTEH5WriteAttrString(f, "source", bte->source, st)) return -1;
  /* a model's warnings travel with its table, so that a run from the file repeats them */
  if (bte->caveat[0] && BTEH5WriteAttrString(f, "caveat", bte->caveat, st)) return -1;
  if (bte->fieldcaveat[0][0] && (BTEH5WriteAttrString(f, "field_caveat", bte->fieldcaveat[0], st) || BTEH5WriteAttrReal(f, "field_caveat_min", bte->fieldcaveat_min[0], "V/cm", st))) return -1;
  if (bte->fieldcaveat[1][0] && (BTEH5WriteAttrString(f, "field_caveat_2", bte->fieldcaveat[1], st) || BTEH5WriteAttrReal(f, "field_caveat_2_min", bte->fieldcaveat_min[1], "V/cm", st))) return -1;
  if (BTEH5WriteAttrReal(f, "temperature", bte->temperature, "K", st)) return -1;
  if (BTELatticeWriteH5(f, &bte->grid, err, sizeof(err))) return BTEH5Fail(st, "%s", err); /* the /grid of every output */
  if (WriteStatesHeader(f, bte, st)) return -1;
  g = H5Gcreate2(f, "phonons", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (g < 0) return BTEH5Fail(st, "cannot create group /phonons");
  r = BTEH5WriteAttrInt(g, "nmodes", bte->nmodes, st);
  H5Gclose(g);
  if (r) return -1;
  if (WriteChannelsHeader(f, bte, M, st)) return -1;
  return WriteModel(f, bte, st);
}

static int WriteChannelRows(hid_t f, hsize_t off, hsize_t n, const PetscInt *i, const PetscInt *j, const PetscInt *m, const PetscReal *hw, const PetscReal *g2, BTEH5Status *st)
{
  if (BTEH5WriteRows(f, "/channels/i", BTE_H5_NATIVE_INT, off, n, 0, i, st)) return -1;
  if (BTEH5WriteRows(f, "/channels/j", BTE_H5_NATIVE_INT, off, n, 0, j, st)) return -1;
  if (BTEH5WriteRows(f, "/channels/mode", BTE_H5_NATIVE_INT, off, n, 0, m, st)) return -1;
  if (BTEH5WriteRows(f, "/channels/phonon_energy", BTE_H5_NATIVE_REAL, off, n, 0, hw, st)) return -1;
  return BTEH5WriteRows(f, "/channels/g2", BTE_H5_NATIVE_REAL, off, n, 0, g2, st);
}

/* This rank's rows: its states, and the channels whose lower end it owns. */
static int WriteSlabs(hid_t f, WriteCtx *c, BTEH5Status *st)
{
  BTE         bte = c->bte;
  BTEChannels *ch = &bte->ch;
  hsize_t     s = (hsize_t)bte->rstart, n = (hsize_t)bte->nlocal, off = (hsize_t)c->off;
  PetscInt    rend = bte->rstart + bte->nlocal, b = 0;

  if (BTEH5WriteRows(f, "/states/kindex", BTE_H5_NATIVE_INT, s, n, 0, bte->kindex, st)) return -1;
  if (BTEH5WriteRows(f, "/states/band", BTE_H5_NATIVE_INT, s, n, 0, bte->band, st)) return -1;
  if (BTEH5WriteRows(f, "/states/energy", BTE_H5_NATIVE_REAL, s, n, 0, bte->energy, st)) return -1;
  if (BTEH5WriteRows(f, "/states/velocity", BTE_H5_NATIVE_REAL, s, n, 3, bte->velocity, st)) return -1;
  if (!c->bi) return WriteChannelRows(f, off, (hsize_t)c->nown, ch->i, ch->j, ch->mode, ch->hw, ch->g2, st);
  for (PetscCount k = 0; k < ch->n; k++) {
    if (ch->i[k] < bte->rstart || ch->i[k] >= rend) continue;
    c->bi[b]  = ch->i[k];
    c->bj[b]  = ch->j[k];
    c->bm[b]  = ch->mode[k];
    c->bhw[b] = ch->hw[k];
    c->bg2[b] = ch->g2[k];
    if (++b == c->batch) {
      if (WriteChannelRows(f, off, (hsize_t)b, c->bi, c->bj, c->bm, c->bhw, c->bg2, st)) return -1;
      off += (hsize_t)b;
      b = 0;
    }
  }
  if (b && WriteChannelRows(f, off, (hsize_t)b, c->bi, c->bj, c->bm, c->bhw, c->bg2, st)) return -1;
  return 0;
}

static int FileFail(BTEH5Status *st, const char what[], const char tmp[])
{
  char m[256];
  if (BTEH5TmpProblem(tmp)) return BTEH5Fail(st, "cannot %s %s: %s", what, tmp, BTEH5TmpProblem(tmp));
  BTEH5StackMessage(m, sizeof(m));
  return BTEH5Fail(st, "cannot %s %s (HDF5: %s); check that its directory exists, is writable and has free space", what, tmp, m);
}

PetscErrorCode BTETableWrite(BTE bte, const char file[])
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)bte);
  PetscMPIInt rank, size;
  BTEH5Status st;
  BTEH5Auto   h5auto;
  WriteCtx    c;
  PetscInt    rend = bte->rstart + bte->nlocal, batch = bte->iochunk;
  PetscInt64  M    = 0;
  char        tmp[PETSC_MAX_PATH_LEN + 8];
  size_t      len;
  int         made = 0; /* rank 0 created FILE.tmp: only then is it removed on failure */

  PetscFunctionBegin;
  PetscCall(BTEChannelsGetHost(bte)); /* the GPU import may not have filled them yet */
  PetscCall(BTECheckOutputFile(bte, file, NULL));
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCall(PetscMemzero(&c, sizeof(c)));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscStrlen(file, &len));
  PetscCheck(file && len > 0, comm, PETSC_ERR_ARG_NULL, "BTEWriteTable() needs a file name");
  PetscCheck(len < PETSC_MAX_PATH_LEN, comm, PETSC_ERR_ARG_SIZ, "Table file name too long: %s", file);
  PetscCheck(bte->states, comm, PETSC_ERR_ARG_WRONGSTATE, "Cannot write scattering table %s: the BTE has no states (call BTESetUp() first)", file);

  /* What the file will say must be what the BTE holds: check the channel invariants. */
  for (PetscInt k = 0; k < bte->params.n; k++) {
    size_t n;
    PetscCall(PetscStrlen(bte->params.name[k], &n));
    if (!n || !strcmp(bte->params.name[k], "name") || (n > 6 && !strcmp(bte->params.name[k] + n - 6, "_units"))) {
      BTEH5Fail(&st, "model parameter '%s' has a name reserved by the file format (empty, 'name', or ending in '_units'); rename it", bte->params.name[k]);
      break;
    }
  }
  for (PetscCount k = 0; k < bte->ch.n && !st.bad; k++) {
    PetscInt i = bte->ch.i[k], j = bte->ch.j[k];
    if (i < 0 || j >= bte->nstates || i >= j) {
      BTEH5Fail(&st, "channel %lld held by rank %d joins states (%lld, %lld); the BTE needs 0 <= i < j < N = %lld (bug in the table builder)", (long long)k, rank, (long long)i, (long long)j, (long long)bte->nstates);
    } else if (i >= bte->rstart && i < rend) c.nown++;
    else if (j < bte->rstart || j >= rend) {
      BTEH5Fail(&st, "channel %lld (%lld, %lld) is held by rank %d, which owns neither end (states [%lld, %lld)); bug in the table builder", (long long)k, (long long)i, (long long)j, rank, (long long)bte->rstart, (long long)rend);
    }
  }
  PetscCall(BTEH5SyncStatus(comm, &st));
  PetscCheck(!st.bad, comm, PETSC_ERR_PLIB, "Cannot write scattering table %s: %s", file, st.msg);
  PetscCallMPI(MPI_Exscan(&c.nown, &c.off, 1, MPI_INT64_T, MPI_SUM, comm));
  if (rank == 0) c.off = 0;
  PetscCallMPI(MPI_Allreduce(&c.nown, &M, 1, MPI_INT64_T, MPI_SUM, comm));
  PetscCheck(M == bte->ch.nglobal, comm, PETSC_ERR_PLIB, "Cannot write scattering table %s: the ranks hold %" PetscInt64_FMT " distinct channels (each counted at the rank owning its lower end) but ch.nglobal = %" PetscInt64_FMT "; bug in the table builder", file, M, bte->ch.nglobal);

  PetscCheck(batch >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-bte_io_chunk must be >= 1, got %" PetscInt_FMT, batch);
  c.bte   = bte;
  c.M     = M;
  c.batch = batch;
  if (c.nown != (PetscInt64)bte->ch.n) {
    PetscInt nb = (PetscInt)PetscMin((PetscInt64)batch, c.nown);
    PetscCall(PetscMalloc5(nb, &c.bi, nb, &c.bj, nb, &c.bm, nb, &c.bhw, nb, &c.bg2));
    c.batch = PetscMax(nb, 1);
  }

  BTEH5Silence(&h5auto);
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", file));
  for (PetscMPIInt r = 0; r < size; r++) {
    if (rank == r) {
      hid_t f = r == 0 ? BTEH5FileCreate(tmp, PETSC_FALSE) : H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
      if (f < 0) FileFail(&st, r == 0 ? "create" : "reopen", tmp);
      else {
        if (r == 0) made = 1;
        if (r == 0) WriteHeader(f, bte, M, &st);
        if (!st.bad) WriteSlabs(f, &c, &st);
        if (!st.bad && size == 1) BTEH5WriteAttrInt(f, "complete", 1, &st);
        if (BTEH5FileClose(f) < 0 && !st.bad) FileFail(&st, "close", tmp);
      }
    }
    PetscCall(BTEH5SyncStatus(comm, &st)); /* also orders the turns */
    if (st.bad) break;
  }
  if (!st.bad && rank == 0) {
    if (size > 1) {
      hid_t f = H5Fopen(tmp, H5F_ACC_RDWR, H5P_DEFAULT);
      if (f < 0) FileFail(&st, "reopen", tmp);
      else {
        BTEH5WriteAttrInt(f, "complete", 1, &st);
        if (BTEH5FileClose(f) < 0 && !st.bad) FileFail(&st, "close", tmp);
      }
    }
    if (!st.bad && rename(tmp, file)) BTEH5Fail(&st, "cannot rename %s to %s: %s", tmp, file, strerror(errno));
  }
  PetscCall(BTEH5SyncStatus(comm, &st));
  BTEH5Restore(&h5auto);
  if (st.bad && rank == 0 && made) (void)remove(tmp); /* a FILE.tmp in the way that bte did not create stays */
  PetscCall(PetscFree5(c.bi, c.bj, c.bm, c.bhw, c.bg2));
  PetscCheck(!st.bad, comm, PETSC_ERR_FILE_WRITE, "Cannot write scattering table %s: %s", file, st.msg);
  PetscCall(PetscInfo(bte, "Wrote %s: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels\n", file, bte->nstates, M));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------- */
/* Streaming writer                                                          */

struct _n_BTETableStream {
  BTE         bte;
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  char        file[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8];
  PetscInt64  M, off, nown, written; /* this rank writes rows [off, off+nown); written so far */
  hid_t       f;                     /* one rank: the file stays open between batches */
  PetscBool   ended;
  PetscBool   made; /* rank 0 created FILE.tmp: only then is it removed on failure (a FILE.tmp in the way is not bte's) */
  /* one rank: a batch is written by a helper thread while the caller fills the next one */
  pthread_t        thr;
  PetscBool        busy;
  BTEH5Status      ast;
  hsize_t          aoff, an;
  const PetscInt  *ai, *aj, *am;
  const PetscReal *ahw, *ag2;
};

/* Collective: if any rank failed, close and remove FILE.tmp and raise the first message. */
static PetscErrorCode StreamCheck(BTETableStream s, BTEH5Status *st)
{
  PetscFunctionBegin;
  PetscCall(BTEH5SyncStatus(s->comm, st));
  if (st->bad) {
    char msg[BTE_H5_MSGLEN];
    PetscCall(PetscStrncpy(msg, st->msg, sizeof(msg)));
    if (s->f >= 0) BTEH5FileClose(s->f);
    s->f = -1;
    if (s->rank == 0 && s->made) (void)remove(s->tmp);
    s->ended = PETSC_TRUE; /* nothing left to clean up */
    SETERRQ(s->comm, PETSC_ERR_FILE_WRITE, "Cannot write scattering table %s: %s", s->file, msg);
  }
  PetscFunctionReturn(0);
}

/* Opens FILE.tmp for this rank's turn (or returns the handle kept open on one rank). */
static hid_t StreamOpen(BTETableStream s, BTEH5Status *st)
{
  if (s->f >= 0) return s->f;
  s->f = H5Fopen(s->tmp, H5F_ACC_RDWR, H5P_DEFAULT);
  if (s->f < 0) FileFail(st, "reopen", s->tmp);
  return s->f;
}

static void StreamClose(BTETableStream s, BTEH5Status *st)
{
  if (s->size == 1 || s->f < 0) return; /* one rank keeps it open */
  if (BTEH5FileClose(s->f) < 0 && !st->bad) FileFail(st, "close", s->tmp);
  s->f = -1;
}

PetscErrorCode BTETableStreamBegin(BTE bte, const char file[], PetscInt64 nown, BTETableStream *stream)
{
  MPI_Comm       comm = PetscObjectComm((PetscObject)bte);
  BTETableStream s;
  BTEH5Status    st;
  BTEH5Auto      h5auto;
  size_t         len;

  PetscFunctionBegin;
  *stream = NULL;
  PetscCall(PetscMemzero(&st, sizeof(st)));
  PetscCall(PetscStrlen(file, &len));
  PetscCheck(file && len > 0, comm, PETSC_ERR_ARG_NULL, "BTEGenerateTable() needs a file name");
  PetscCheck(len < PETSC_MAX_PATH_LEN, comm, PETSC_ERR_ARG_SIZ, "Table file name too long: %s", file);
  PetscCall(BTECheckOutputFile(bte, file, NULL));
  PetscCheck(bte->states, comm, PETSC_ERR_ARG_WRONGSTATE, "Cannot write scattering table %s: the BTE has no states", file);
  PetscCheck(nown >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Negative channel count");
  for (PetscInt k = 0; k < bte->params.n; k++) {
    size_t n;
    PetscCall(PetscStrlen(bte->params.name[k], &n));
    PetscCheck(n && strcmp(bte->params.name[k], "name") && !(n > 6 && !strcmp(bte->params.name[k] + n - 6, "_units")), comm, PETSC_ERR_PLIB, "Cannot write scattering table %s: model parameter '%s' has a name reserved by the file format (empty, 'name', or ending in '_units'); rename it", file, bte->params.name[k]);
  }
  PetscCall(PetscNew(&s));
  s->bte  = bte;
  s->comm = comm;
  s->f    = -1;
  s->nown = nown;
  PetscCallMPI(MPI_Comm_rank(comm, &s->rank));
  PetscCallMPI(MPI_Comm_size(comm, &s->size));
  PetscCall(PetscStrncpy(s->file, file, sizeof(s->file)));
  PetscCall(PetscSNPrintf(s->tmp, sizeof(s->tmp), "%s.tmp", file));
  PetscCallMPI(MPI_Exscan(&s->nown, &s->off, 1, MPI_INT64_T, MPI_SUM, comm));
  if (s->rank == 0) s->off = 0;
  PetscCallMPI(MPI_Allreduce(&s->nown, &s->M, 1, MPI_INT64_T, MPI_SUM, comm));
  if (s->M != bte->ch.nglobal) {
    PetscInt64 M = s->M;
    PetscCall(PetscFree(s));
    SETERRQ(comm, PETSC_ERR_PLIB, "Cannot write scattering table %s: the ranks will write %" PetscInt64_FMT " channels but ch.nglobal = %" PetscInt64_FMT "; bug in the table builder", file, M, bte->ch.nglobal);
  }
  *stream = s;

  /* rank 0: header with every dataset at its global size; then each rank its states, in turn */
  BTEH5Silence(&h5auto);
  for (PetscMPIInt r = 0; r < s->size; r++) {
    if (s->rank == r) {
      hsize_t st0 = (hsize_t)bte->rstart, n = (hsize_t)bte->nlocal;
      if (r == 0) {
        s->f = BTEH5FileCreate(s->tmp, PETSC_FALSE);
        if (s->f < 0) FileFail(&st, "create", s->tmp);
        else {
          s->made = PETSC_TRUE;
          WriteHeader(s->f, bte, s->M, &st);
        }
      } else StreamOpen(s, &st);
      if (!st.bad && BTEH5WriteRows(s->f, "/states/kindex", BTE_H5_NATIVE_INT, st0, n, 0, bte->kindex, &st) == 0 && BTEH5WriteRows(s->f, "/states/band", BTE_H5_NATIVE_INT, st0, n, 0, bte->band, &st) == 0 && BTEH5WriteRows(s->f, "/states/energy", BTE_H5_NATIVE_REAL, st0, n, 0, bte->energy, &st) == 0)
        BTEH5WriteRows(s->f, "/states/velocity", BTE_H5_NATIVE_REAL, st0, n, 3, bte->velocity, &st);
      StreamClose(s, &st);
    }
    PetscCall(BTEH5SyncStatus(comm, &st)); /* also orders the turns */
    if (st.bad) break;
  }
  BTEH5Restore(&h5auto);
  PetscCall(StreamCheck(s, &st));
  PetscFunctionReturn(0);
}

/* The helper thread: HDF5 calls only (no PETSc, no MPI); the caller makes no HDF5 call meanwhile. */
static void *StreamThread(void *ctx)
{
  BTETableStream s = (BTETableStream)ctx;
  BTEH5Auto      h5auto;

  BTEH5Silence(&h5auto); /* per thread in a thread-safe HDF5 */
  WriteChannelRows(s->f, s->aoff, s->an, s->ai, s->aj, s->am, s->ahw, s->ag2, &s->ast);
  BTEH5Restore(&h5auto);
  return NULL;
}

PetscErrorCode BTETableStreamAsync(BTETableStream s, PetscBool *async)
{
  PetscFunctionBegin;
  *async = s->size == 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETableStreamWait(BTETableStream s)
{
  PetscFunctionBegin;
  if (!s->busy) PetscFunctionReturn(0);
  PetscCheck(!pthread_join(s->thr, NULL), PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot join the table writer thread");
  s->busy = PETSC_FALSE;
  PetscCall(PetscLogEventEnd(BTE_TableWrite, s->bte, 0, 0, 0));
  PetscCall(StreamCheck(s, &s->ast));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETableStreamWriteAsync(BTETableStream s, PetscInt64 n, const PetscInt i[], const PetscInt j[], const PetscInt mode[], const PetscReal hw[], const PetscReal g2[])
{
  BTEH5Status st;

  PetscFunctionBegin;
  if (s->size > 1) {
    PetscCall(BTETableStreamWrite(s, n, i, j, mode, hw, g2));
    PetscFunctionReturn(0);
  }
  PetscCall(BTETableStreamWait(s));
  PetscCheck(!s->ended, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The table stream of %s is closed", s->file);
  PetscCall(PetscMemzero(&st, sizeof(st)));
  if (n < 0 || s->written + n > s->nown) BTEH5Fail(&st, "rank %d writes channel rows %lld..%lld but counted %lld (bug in the table builder)", s->rank, (long long)s->written, (long long)(s->written + n), (long long)s->nown);
  PetscCall(StreamCheck(s, &st));
  if (!n) PetscFunctionReturn(0);
  if (StreamOpen(s, &st) < 0) PetscCall(StreamCheck(s, &st));
  PetscCall(PetscMemzero(&s->ast, sizeof(s->ast)));
  s->aoff = (hsize_t)(s->off + s->written);
  s->an   = (hsize_t)n;
  s->ai   = i;
  s->aj   = j;
  s->am   = mode;
  s->ahw  = hw;
  s->ag2  = g2;
  PetscCall(PetscLogEventBegin(BTE_TableWrite, s->bte, 0, 0, 0));
  PetscCheck(!pthread_create(&s->thr, NULL, StreamThread, s), PETSC_COMM_SELF, PETSC_ERR_SYS, "Cannot start the table writer thread");
  s->busy = PETSC_TRUE;
  s->written += n;
  PetscFunctionReturn(0);
}

PetscErrorCode BTETableStreamWrite(BTETableStream s, PetscInt64 n, const PetscInt i[], const PetscInt j[], const PetscInt mode[], const PetscReal hw[], const PetscReal g2[])
{
  BTEH5Status st;
  BTEH5Auto   h5auto;
  PetscInt64  any;

  PetscFunctionBegin;
  PetscCall(BTETableStreamWait(s));
  PetscCheck(!s->ended, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The table stream of %s is closed", s->file);
  PetscCall(PetscMemzero(&st, sizeof(st)));
  if (n < 0 || s->written + n > s->nown) BTEH5Fail(&st, "rank %d writes channel rows %lld..%lld but counted %lld (bug in the table builder)", s->rank, (long long)s->written, (long long)(s->written + n), (long long)s->nown);
  PetscCall(StreamCheck(s, &st));
  PetscCallMPI(MPI_Allreduce(&n, &any, 1, MPI_INT64_T, MPI_MAX, s->comm));
  if (!any) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(BTE_TableWrite, s->bte, 0, 0, 0));
  BTEH5Silence(&h5auto);
  for (PetscMPIInt r = 0; r < s->size; r++) {
    if (s->rank == r && n > 0) {
      if (StreamOpen(s, &st) >= 0) {
        WriteChannelRows(s->f, (hsize_t)(s->off + s->written), (hsize_t)n, i, j, mode, hw, g2, &st);
        StreamClose(s, &st);
      }
    }
    if (s->size > 1) PetscCall(BTEH5SyncStatus(s->comm, &st)); /* orders the turns */
    if (st.bad) break;
  }
  BTEH5Restore(&h5auto);
  PetscCall(StreamCheck(s, &st));
  s->written += n;
  PetscCall(PetscLogEventEnd(BTE_TableWrite, s->bte, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETableStreamEnd(BTETableStream s)
{
  BTEH5Status st;
  BTEH5Auto   h5auto;

  PetscFunctionBegin;
  PetscCall(BTETableStreamWait(s));
  PetscCheck(!s->ended, s->comm, PETSC_ERR_ARG_WRONGSTATE, "The table stream of %s is closed", s->file);
  PetscCall(PetscMemzero(&st, sizeof(st)));
  if (s->written != s->nown) BTEH5Fail(&st, "rank %d wrote %lld channel rows of the %lld it counted (bug in the table builder)", s->rank, (long long)s->written, (long long)s->nown);
  PetscCall(StreamCheck(s, &st));
  BTEH5Silence(&h5auto);
  if (s->rank == 0) {
    if (StreamOpen(s, &st) >= 0) {
      BTEH5WriteAttrInt(s->f, "complete", 1, &st);
      if (BTEH5FileClose(s->f) < 0 && !st.bad) FileFail(&st, "close", s->tmp);
      s->f = -1;
    }
    if (!st.bad && rename(s->tmp, s->file)) BTEH5Fail(&st, "cannot rename %s to %s: %s", s->tmp, s->file, strerror(errno));
  }
  BTEH5Restore(&h5auto);
  PetscCall(StreamCheck(s, &st));
  s->ended = PETSC_TRUE;
  PetscCall(PetscInfo(s->bte, "Wrote %s: %" PetscInt_FMT " states, %" PetscInt64_FMT " channels\n", s->file, s->bte->nstates, s->M));
  PetscFunctionReturn(0);
}

PetscErrorCode BTETableStreamDestroy(BTETableStream *stream)
{
  BTETableStream s = *stream;

  PetscFunctionBegin;
  if (!s) PetscFunctionReturn(0);
  if (s->busy) (void)pthread_join(s->thr, NULL);
  s->busy = PETSC_FALSE;
  if (s->f >= 0) BTEH5FileClose(s->f);
  if (!s->ended && s->rank == 0 && s->made) (void)remove(s->tmp); /* abandoned: never leave a partial table */
  PetscCall(PetscFree(*stream));
  PetscFunctionReturn(0);
}
