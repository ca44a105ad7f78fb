/* The output files of bte (dynamics, transport, high field; docs/format.md "Output files"): one
   object that creates, describes and completes them, so that every output says the same things
   the same way and none is ever taken for complete while it is half-written:

   - a new file is written as FILE.tmp and renamed to FILE only when it holds something complete
     (a whole result, or a growing file's first snapshot), so a failed run never replaces FILE;
   - the root attribute complete is 0 while a run writes the file and 1 once it closed it; a run
     killed after a growing file was renamed leaves complete = 0 (its snapshots so far are valid);
   - the root attributes creator, created and source say what wrote it, from what, and when.

   Only rank 0 opens the file (serial or parallel HDF5 builds, no MPI-IO); the other ranks send it
   their parts (BTEOutputWriteStates). */
#include <bte/private/output.h>
#include <bte/private/outfile.h>
#include <bte/private/diagnostics.h>
#include <bte/private/latticeh5.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

struct _n_BTEOutput {
  BTE         bte;
  MPI_Comm    comm;
  PetscMPIInt rank;
  char        what[32];
  char        file[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 8];
  hid_t       fid;       /* rank 0: the open file; -1 elsewhere and once closed */
  PetscBool   growing;   /* written while the run goes on; renamed by BTEOutputPublish */
  PetscBool   published; /* the file is FILE (appended to, or renamed) */
  BTEH5Status st;        /* rank 0: the first failure of the writers */
  BTEH5Auto   h5auto;    /* HDF5's error printing, saved while bte's writers run (bte reports) */
  PetscBool   silenced;  /* rank 0: HDF5's error printing is off, from BTEOutputGetFile (or a
                            writer of this file) to the next BTEOutputCheck */
};

/* HDF5's own error printing is off only while this file's writers run: rank 0 turns it off when
   it hands out the file and back on at the next check, where bte reports any failure itself */
static void Silence(BTEOutput o)
{
  if (o->rank || o->silenced) return;
  BTEH5Silence(&o->h5auto);
  o->silenced = PETSC_TRUE;
}

static void Unsilence(BTEOutput o)
{
  if (!o->silenced) return;
  BTEH5Restore(&o->h5auto);
  o->silenced = PETSC_FALSE;
}

/* Rank 0: the root attributes every output carries */
static int WriteProvenance(hid_t f, BTE bte, BTEH5Status *st)
{
  if (BTEH5WriteCreator(f, st)) return -1;
  if (BTEH5WriteAttrString(f, "source", bte->input[0] ? bte->input : bte->model, st)) return -1;
  /* the table's own provenance: a model built in memory is otherwise only its name, without the
     grid and model options that made it */
  if (BTEH5WriteAttrString(f, "table_source", bte->source, st)) return -1;
  return BTEH5WriteAttrInt(f, "complete", 0, st);
}

static PetscErrorCode OutputNew(BTE bte, const char file[], const char what[], BTEOutput *out)
{
  BTEOutput o;
  size_t    len;

  PetscFunctionBegin;
  PetscCall(PetscStrlen(file, &len));
  PetscCheck(len > 0 && len < PETSC_MAX_PATH_LEN, PetscObjectComm((PetscObject)bte), PETSC_ERR_ARG_SIZ, "The %s output file name is empty or too long", what);
  PetscCall(PetscNew(&o));
  o->bte  = bte;
  o->comm = PetscObjectComm((PetscObject)bte);
  o->fid  = -1;
  PetscCallMPI(MPI_Comm_rank(o->comm, &o->rank));
  PetscCall(PetscStrncpy(o->what, what, sizeof(o->what)));
  PetscCall(PetscStrncpy(o->file, file, sizeof(o->file)));
  PetscCall(PetscSNPrintf(o->tmp, sizeof(o->tmp), "%s.tmp", file));
  *out = o;
  PetscFunctionReturn(0);
}

/* Rank 0: closes the file (if open) and removes FILE.tmp when it was never renamed. A published
   file that failed to grow (a full disk) is not closed: the close would write HDF5's metadata of
   the failed snapshot, whose end of file lies beyond what reached the disk, and leave a file HDF5
   refuses to open; left as its last flush made it, it holds the snapshots so far, and the process
   ends without HDF5's clean-up (BTEH5CloseFailed, src/cli/main.c) */
static void Abandon(BTEOutput o)
{
  if (o->rank || o->fid < 0) return;
  if (o->st.bad && o->published) {
    BTEH5MarkCloseFailed();
    o->fid = -1;
    return;
  }
  BTEH5FileClose(o->fid);
  o->fid = -1;
  if (!o->published) (void)remove(o->tmp);
}

/* Frees o (collective callers have already agreed on its state) */
static PetscErrorCode OutputFree(BTEOutput *out)
{
  PetscFunctionBegin;
  Unsilence(*out);
  PetscCall(PetscFree(*out));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputCreate(BTE bte, const char file[], const char opt[], const char what[], PetscBool growing, BTEOutput *out)
{
  BTEOutput o;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  *out = NULL;
  PetscCall(BTECheckOutputFile(bte, file, opt));
  PetscCall(OutputNew(bte, file, what, &o));
  o->growing = growing;
  Silence(o);
  if (o->rank == 0) {
    errno  = 0; /* HDF5's file driver leaves the system's reason in errno */
    o->fid = BTEH5FileCreate(o->tmp, growing);
    if (o->fid < 0 && BTEH5TmpProblem(o->tmp)) BTEH5Fail(&o->st, "Cannot create the %s output file %s (%s): it is written as %s first, and %s", what, file, opt ? opt : "-bte_output", o->tmp, BTEH5TmpProblem(o->tmp));
    else if (o->fid < 0) {
      int e = errno;
      BTEH5Fail(&o->st, "Cannot create the %s output file %s (%s; written as %s until it holds a complete result)%s%s: check that its directory exists and is writable", what, file, opt ? opt : "-bte_output", o->tmp, e ? ": " : "", e ? strerror(e) : "");
    } else if (WriteProvenance(o->fid, bte, &o->st)) {
      char m[BTE_H5_MSGLEN];
      PetscCall(PetscStrncpy(m, o->st.msg, sizeof(m)));
      PetscCall(PetscSNPrintf(o->st.msg, sizeof(o->st.msg), "Writing the %s output %s: %s", what, o->tmp, m));
    }
  }
  Unsilence(o);
  PetscCall(BTEH5SyncStatus(o->comm, &o->st));
  if (o->st.bad) {
    char msg[BTE_H5_MSGLEN];
    PetscCall(PetscStrncpy(msg, o->st.msg, sizeof(msg)));
    Abandon(o);
    PetscCall(OutputFree(&o));
    SETERRQ(PetscObjectComm((PetscObject)bte), PETSC_ERR_FILE_OPEN, "%s", msg);
  }
  *out = o;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputAppend(BTE bte, const char file[], const char what[], BTEOutput *out)
{
  BTEOutput o;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  *out = NULL;
  PetscCall(OutputNew(bte, file, what, &o));
  o->growing   = PETSC_TRUE;
  o->published = PETSC_TRUE;
  Silence(o);
  if (o->rank == 0) {
    if (BTEH5CheckRegularFile(file, &o->st)) {
      char m[BTE_H5_MSGLEN];
      PetscCall(PetscStrncpy(m, o->st.msg, sizeof(m)));
      PetscCall(PetscSNPrintf(o->st.msg, sizeof(o->st.msg), "Cannot open the %s output %s to append to it: %s", what, file, m));
    } else {
      o->fid = H5Fopen(file, H5F_ACC_RDWR, H5P_DEFAULT);
      const char *why = o->fid < 0 ? BTEH5OpenFailReason() : NULL;
      if (o->fid < 0) BTEH5Fail(&o->st, "Cannot open the %s output %s to append to it: %s", what, file, why ? why : "not an HDF5 file, or damaged, or not writable");
      else if (BTEH5WriteAttrInt(o->fid, "complete", 0, &o->st) || H5Fflush(o->fid, H5F_SCOPE_GLOBAL) < 0) BTEH5Fail(&o->st, "Cannot append to the %s output %s: it cannot be written", what, file);
    }
  }
  Unsilence(o);
  PetscCall(BTEH5SyncStatus(o->comm, &o->st));
  if (o->st.bad) {
    char msg[BTE_H5_MSGLEN];
    PetscCall(PetscStrncpy(msg, o->st.msg, sizeof(msg)));
    if (o->fid >= 0) BTEH5FileClose(o->fid);
    PetscCall(OutputFree(&o));
    SETERRQ(PetscObjectComm((PetscObject)bte), PETSC_ERR_FILE_OPEN, "%s", msg);
  }
  *out = o;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputGetFile(BTEOutput o, hid_t *fid, BTEH5Status **st)
{
  PetscFunctionBegin;
  Silence(o);
  if (fid) *fid = o->rank == 0 ? o->fid : -1;
  if (st) *st = o->rank == 0 ? &o->st : NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputCheck(BTEOutput o)
{
  PetscFunctionBegin;
  Unsilence(o);
  PetscCall(BTEH5SyncStatus(o->comm, &o->st));
  if (o->st.bad) {
    Silence(o);
    Abandon(o);
    Unsilence(o);
    SETERRQ(o->comm, PETSC_ERR_FILE_WRITE, "Writing the %s output %s: %s", o->what, o->published ? o->file : o->tmp, o->st.msg);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputWriteRunInfo(BTEOutput o, BTECollision coll)
{
  BTEDiagnostics diag;
  const char    *why;

  PetscFunctionBegin;
  PetscCall(BTEDiagnosticsCompute(o->bte, coll, &diag)); /* collective */
  PetscCall(BTEDiagnosticsGetReason(o->bte, &why));
  Silence(o);
  if (o->rank == 0 && !o->st.bad) {
    char err[BTE_H5_MSGLEN];
    if (BTEDiagnosticsWriteH5(o->fid, &diag, why, err, sizeof(err)) || BTELatticeWriteH5(o->fid, &o->bte->grid, err, sizeof(err))) BTEH5Fail(&o->st, "%s", err);
  }
  PetscCall(BTEOutputCheck(o));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputFlush(BTEOutput o)
{
  PetscFunctionBegin;
  Silence(o);
  if (o->rank == 0 && !o->st.bad && H5Fflush(o->fid, H5F_SCOPE_GLOBAL) < 0) BTEH5Fail(&o->st, "cannot write it to disk (HDF5 flush failed): check the free space");
  PetscCall(BTEOutputCheck(o));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputPublish(BTEOutput o)
{
  PetscFunctionBegin;
  if (o->published) PetscFunctionReturn(0);
  PetscCall(BTEOutputFlush(o));
  if (o->rank == 0 && rename(o->tmp, o->file)) BTEH5Fail(&o->st, "cannot rename %s to %s: %s", o->tmp, o->file, strerror(errno));
  PetscCall(BTEOutputCheck(o));
  o->published = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode OutputClose(BTEOutput *out, int complete)
{
  BTEOutput o = *out;

  PetscFunctionBegin;
  if (!o) PetscFunctionReturn(0);
  PetscCall(BTEOutputCheck(o));
  Silence(o);
  if (o->rank == 0 && (o->published || !o->growing)) {
    /* complete = 1 last, once everything else is in the file */
    if (!BTEH5WriteAttrInt(o->fid, "complete", complete, &o->st) && BTEH5FileClose(o->fid) < 0) BTEH5Fail(&o->st, "cannot close it (HDF5): check the free space");
    else if (o->st.bad && o->published) BTEH5MarkCloseFailed(); /* left as its last flush made it (Abandon) */
    else if (o->st.bad) BTEH5FileClose(o->fid);
    o->fid = -1;
    if (!o->st.bad && !o->published && rename(o->tmp, o->file)) BTEH5Fail(&o->st, "cannot rename %s to %s: %s", o->tmp, o->file, strerror(errno));
    if (o->st.bad && !o->published) (void)remove(o->tmp);
  }
  Abandon(o); /* a growing file never published: it holds nothing complete */
  Unsilence(o);
  PetscCall(BTEH5SyncStatus(o->comm, &o->st));
  if (o->st.bad) {
    char     msg[BTE_H5_MSGLEN], name[PETSC_MAX_PATH_LEN + 8], what[32];
    MPI_Comm comm = o->comm;
    PetscCall(PetscStrncpy(msg, o->st.msg, sizeof(msg)));
    PetscCall(PetscStrncpy(name, o->published ? o->file : o->tmp, sizeof(name)));
    PetscCall(PetscStrncpy(what, o->what, sizeof(what)));
    PetscCall(OutputFree(out));
    SETERRQ(comm, PETSC_ERR_FILE_WRITE, "Writing the %s output %s: %s", what, name, msg);
  }
  PetscCall(OutputFree(out));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputClose(BTEOutput *out)
{
  PetscFunctionBegin;
  PetscCall(OutputClose(out, 1));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputCloseStopped(BTEOutput *out)
{
  PetscFunctionBegin;
  PetscCall(OutputClose(out, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputDestroy(BTEOutput *out)
{
  PetscFunctionBegin;
  if (!*out) PetscFunctionReturn(0);
  Silence(*out);
  Abandon(*out);
  PetscCall(OutputFree(out));
  PetscFunctionReturn(0);
}

PetscErrorCode BTEOutputWriteStates(BTEOutput o, hid_t g, const char name[], PetscInt row, PetscBool isint, const void *local)
{
  BTE             bte = o->bte;
  PetscMPIInt     size;
  const PetscInt *ranges;
  PetscInt        nmax = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(o->comm, &size));
  PetscCall(PetscLayoutGetRanges(bte->states, &ranges));
  for (PetscMPIInt r = 0; r < size; r++) nmax = PetscMax(nmax, ranges[r + 1] - ranges[r]);
  Silence(o);
  if (o->rank == 0) {
    void  *buf;
    hid_t  mt   = isint ? BTE_H5_NATIVE_INT : BTE_H5_NATIVE_REAL;
    size_t unit = isint ? sizeof(PetscInt) : sizeof(PetscReal);
    /* rank by rank, so that no rank ever holds more than the largest slab */
    PetscCall(PetscMalloc(unit * (size_t)(nmax + 1), &buf));
    for (PetscMPIInt r = 0; r < size; r++) {
      PetscInt    n = ranges[r + 1] - ranges[r];
      const void *src = local;
      if (r > 0) {
        PetscCallMPI(MPI_Recv(buf, (PetscMPIInt)n, isint ? MPIU_INT : MPIU_REAL, r, 77, o->comm, MPI_STATUS_IGNORE));
        src = buf;
      }
      if (o->st.bad || !n) continue; /* keep receiving: every rank sends its slab */
      if (row >= 0) BTEH5WriteSeriesRow(g, name, mt, (hsize_t)row, (hsize_t)ranges[r], (hsize_t)n, 0, src, &o->st);
      else BTEH5WriteRows(g, name, mt, (hsize_t)ranges[r], (hsize_t)n, 0, src, &o->st);
    }
    PetscCall(PetscFree(buf));
  } else {
    PetscInt n = ranges[o->rank + 1] - ranges[o->rank];
    PetscCallMPI(MPI_Send((void *)local, (PetscMPIInt)n, isint ? MPIU_INT : MPIU_REAL, 0, 77, o->comm));
  }
  PetscCall(BTEOutputCheck(o));
  PetscFunctionReturn(0);
}
