/* HDF5 helpers for the table reader and writer: attribute and dataset access that
   reports problems as messages (BTEH5Status) and closes its handles on every path. */
#include <bte/private/h5util.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

void BTEH5Silence(BTEH5Auto *saved)
{
  saved->func = NULL;
  saved->data = NULL;
  (void)H5Eget_auto2(H5E_DEFAULT, &saved->func, &saved->data);
  (void)H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void BTEH5Restore(const BTEH5Auto *saved)
{
  (void)H5Eset_auto2(H5E_DEFAULT, saved->func, saved->data);
}

int BTEH5Fail(BTEH5Status *st, const char *fmt, ...)
{
  va_list ap;

  if (!st->bad) {
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof(st->msg), fmt, ap);
    va_end(ap);
    st->bad = 1;
  }
  return -1;
}

typedef struct {
  char  *buf;
  size_t len;
} StackCtx;

static herr_t StackWalk(unsigned n, const H5E_error2_t *e, void *ctx)
{
  StackCtx *s = (StackCtx *)ctx;
  (void)n;
  /* walking downward: the last entry is the innermost, most specific message */
  if (e->desc && e->desc[0]) snprintf(s->buf, s->len, "%s", e->desc);
  return 0;
}

const char *BTEH5OpenFailReason(void)
{
  char m[512];

  BTEH5StackMessage(m, sizeof(m));
  /* HDF5 1.10+ locks a file open for writing; its words: "unable to lock file, errno = 11" (some
     releases "flock"), otherwise the message says only that the open failed */
  if (strstr(m, "lock file") || strstr(m, "flock")) return "another process has it open for writing (HDF5 refused the file lock): wait for that run to end, or use a copy of the file";
  return NULL;
}

void BTEH5StackMessage(char buf[], size_t len)
{
  StackCtx s = {buf, len};

  if (!len) return;
  buf[0] = 0;
  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, StackWalk, &s);
  if (!buf[0]) snprintf(buf, len, "no detail from HDF5");
  /* the file drivers' messages run over several lines with every field of the failed call
     ("file write failed: time = ...\n, filename = ..., errno = 28, error message = 'No space left
     on device', ..."): one line, the system's reason where there is one */
  {
    const char *em = strstr(buf, "error message = '");
    if (em) {
      char        why[128];
      const char *q = em + strlen("error message = '"), *end = strchr(q, '\'');
      size_t      n = end ? (size_t)(end - q) : strlen(q);
      char       *colon = strchr(buf, ':');
      if (n >= sizeof(why)) n = sizeof(why) - 1;
      memcpy(why, q, n);
      why[n] = 0;
      if (colon) *colon = 0; /* "file write failed" */
      snprintf(buf + strlen(buf), len - strlen(buf), ": %s", why);
    }
    for (char *c = buf; *c; c++)
      if (*c == '\n' || *c == '\r') *c = ' ';
  }
}

/* A file that HDF5 could not close (its last writes failed: a full disk, a quota) leaves the
   library in a state in which its own clean-up at MPI_Finalize crashes (HDF5 1.10, sec2 driver);
   the driver ends such a process without it (src/cli/main.c) */
static int h5closefailed = 0;

herr_t BTEH5FileClose(hid_t f)
{
  herr_t e;

  /* an object of the file still open is one whose own close failed (its data could not be
     written): the file then stays open inside HDF5 after H5Fclose, with the same end */
  if (H5Fget_obj_count(f, H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_ATTR | H5F_OBJ_DATATYPE | H5F_OBJ_LOCAL) > 0) h5closefailed = 1;
  e = H5Fclose(f);
  if (e < 0) h5closefailed = 1;
  return e;
}

int BTEH5CloseFailed(void)
{
  return h5closefailed;
}

void BTEH5MarkCloseFailed(void)
{
  h5closefailed = 1;
}

int BTEH5Exists(hid_t loc, const char path[])
{
  char   buf[1024];
  size_t n = strlen(path);

  if (n == 0 || n >= sizeof(buf)) return 0;
  if (!strcmp(path, "/") || !strcmp(path, ".")) return 1;
  memcpy(buf, path, n + 1);
  for (size_t k = 1; k <= n; k++) {
    if (buf[k] == '/' || buf[k] == 0) {
      char c = buf[k];
      buf[k] = 0;
      htri_t e = H5Lexists(loc, buf, H5P_DEFAULT);
      if (e <= 0) return e < 0 ? -1 : 0;
      buf[k] = c;
    }
  }
  {
    htri_t e = H5Oexists_by_name(loc, path, H5P_DEFAULT);
    return e > 0 ? 1 : (e == 0 ? 0 : -1);
  }
}

int BTEH5AttrExists(hid_t loc, const char obj[], const char name[])
{
  htri_t e;

  if (!BTEH5Exists(loc, obj)) return 0;
  e = H5Aexists_by_name(loc, obj, name, H5P_DEFAULT);
  /* an error (damaged attribute storage) is not "absent": -1 is true, so the caller goes on to
     read the attribute and reports the damage instead of skipping an optional check */
  return e > 0 ? 1 : (e == 0 ? 0 : -1);
}

static const char *ObjName(const char obj[])
{
  return strcmp(obj, "/") ? obj : "the root group";
}

static const char *ClassName(H5T_class_t c)
{
  switch (c) {
  case H5T_INTEGER:
    return "an integer";
  case H5T_FLOAT:
    return "a floating-point";
  case H5T_STRING:
    return "a string";
  case H5T_COMPOUND:
    return "a compound";
  case H5T_ENUM:
    return "an enum";
  case H5T_ARRAY:
    return "an array";
  default:
    return "an unsupported";
  }
}

/* Only the standard number types are read: HDF5 converts whatever a file's type describes, so a
   flipped byte in a float type (its exponent size or bias, say) would turn every value into a
   different but finite number without any error. H5Tequal compares size, byte order, precision,
   offset, sign and, for floats, the bit fields and the exponent bias. */
static int StandardNumberType(hid_t t, H5T_class_t cls)
{
  hid_t ints[] = {H5T_STD_I8LE, H5T_STD_I8BE, H5T_STD_I16LE, H5T_STD_I16BE, H5T_STD_I32LE, H5T_STD_I32BE, H5T_STD_I64LE, H5T_STD_I64BE, H5T_STD_U8LE, H5T_STD_U8BE, H5T_STD_U16LE, H5T_STD_U16BE, H5T_STD_U32LE, H5T_STD_U32BE, H5T_STD_U64LE, H5T_STD_U64BE};
  hid_t flts[] = {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};

  if (cls == H5T_INTEGER) {
    for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
      if (H5Tequal(t, ints[k]) > 0) return 1;
  } else if (cls == H5T_FLOAT) {
    for (size_t k = 0; k < sizeof(flts) / sizeof(flts[0]); k++)
      if (H5Tequal(t, flts[k]) > 0) return 1;
  }
  return 0;
}

int BTEH5CheckNumberType(hid_t t, H5T_class_t cls, const char what[], BTEH5Status *st)
{
  if (StandardNumberType(t, cls)) return 0;
  if (cls == H5T_FLOAT) return BTEH5Fail(st, "%s has a floating-point type that is not IEEE single or double precision (size %zu bytes); the file is corrupt or not written by a standard HDF5 writer", what, H5Tget_size(t));
  return BTEH5Fail(st, "%s has an integer type that is not a standard 8-, 16-, 32- or 64-bit integer (size %zu bytes); the file is corrupt", what, H5Tget_size(t));
}

/* Opens attribute name of obj, checks that it holds one value; returns its type class. */
static int AttrOpen(hid_t loc, const char obj[], const char name[], hid_t *attr, H5T_class_t *cls, BTEH5Status *st)
{
  hid_t    sp, t;
  hssize_t np;

  *attr = -1;
  *cls  = H5T_NO_CLASS;
  switch (BTEH5Exists(loc, obj)) {
  case 0:
    return BTEH5Fail(st, "%s is missing (required by docs/format.md)", ObjName(obj));
  case -1:
    return BTEH5Fail(st, "%s cannot be looked up; the file is damaged", ObjName(obj));
  }
  switch (H5Aexists_by_name(loc, obj, name, H5P_DEFAULT)) {
  case 0:
    return BTEH5Fail(st, "attribute '%s' of %s is missing (required by docs/format.md)", name, ObjName(obj));
  case 1:
    break;
  default:
    return BTEH5Fail(st, "attribute '%s' of %s cannot be looked up; the file is damaged", name, ObjName(obj));
  }
  *attr = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (*attr < 0) return BTEH5Fail(st, "attribute '%s' of %s cannot be opened; the file is damaged", name, ObjName(obj));
  sp = H5Aget_space(*attr);
  np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
  if (sp >= 0) H5Sclose(sp);
  if (np != 1) {
    H5Aclose(*attr);
    *attr = -1;
    return BTEH5Fail(st, "attribute '%s' of %s holds %lld values; expected a single value", name, ObjName(obj), (long long)np);
  }
  t    = H5Aget_type(*attr);
  *cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  if (t >= 0) H5Tclose(t);
  return 0;
}

int BTEH5ReadAttrString(hid_t loc, const char obj[], const char name[], char buf[], size_t len, BTEH5Status *st)
{
  hid_t       a, ft = -1, mt = -1;
  H5T_class_t cls;
  H5T_cset_t  cset;
  int         ret = 0;

  buf[0] = 0;
  if (AttrOpen(loc, obj, name, &a, &cls, st)) return -1;
  if (cls != H5T_STRING) {
    H5Aclose(a);
    return BTEH5Fail(st, "attribute '%s' of %s has %s type; expected a string", name, ObjName(obj), ClassName(cls));
  }
  ft   = H5Aget_type(a);
  cset = ft >= 0 ? H5Tget_cset(ft) : H5T_CSET_ERROR;
  if (cset != H5T_CSET_ASCII && cset != H5T_CSET_UTF8) ret = BTEH5Fail(st, "attribute '%s' of %s is a string of an unknown character set; the file is corrupt", name, ObjName(obj));
  else if (H5Tis_variable_str(ft) > 0) {
    /* Variable-length (what h5py writes for a str, and bte wrote before format 1.10 files): the
       bytes live in the file's global heap, which HDF5 trusts; BTEH5ReadVarString bounds them. */
    char why[256];
    if (BTEH5ReadVarString(a, ft, buf, len, why, sizeof(why))) ret = BTEH5Fail(st, "attribute '%s' of %s (a variable-length string) cannot be read: %s; the file is damaged", name, ObjName(obj), why);
  } else {
    size_t sz = H5Tget_size(ft);
    char  *tmp;
    /* a fixed-length string is read whole: bound it first (a corrupted size would allocate it) */
    if (!sz || sz > BTE_H5_STRING_MAX) ret = BTEH5Fail(st, "attribute '%s' of %s is a string of %zu bytes; expected 1 to %d: the file is corrupt", name, ObjName(obj), sz, BTE_H5_STRING_MAX);
    else if ((mt = H5Tcopy(ft)) < 0 || !(tmp = (char *)calloc(sz + 1, 1))) ret = BTEH5Fail(st, "attribute '%s' of %s cannot be read", name, ObjName(obj));
    else {
      if (H5Aread(a, mt, tmp) < 0) ret = BTEH5Fail(st, "attribute '%s' of %s cannot be read", name, ObjName(obj));
      else {
        size_t n = strlen(tmp);
        while (n > 0 && tmp[n - 1] == ' ') tmp[--n] = 0; /* space-padded strings */
        snprintf(buf, len, "%s", tmp);
      }
      free(tmp);
    }
  }
  if (mt >= 0) H5Tclose(mt);
  if (ft >= 0) H5Tclose(ft);
  H5Aclose(a);
  return ret;
}

/* A variable-length string's bytes live in the file's global heap, found through a heap address
   and index stored in the attribute; HDF5 1.10 trusts both, and a damaged heap makes it read out
   of bounds or loop (a fuzz test of tables in the old format found crashes and a hang in 150
   metadata byte flips). HDF5 offers no bounded read of them, so the read runs in a child
   process (fork: the parent's HDF5 state and open file are its copy) that sends back at most
   BTE_H5_STRING_MAX bytes through a pipe; a child killed by a signal, or not done in
   BTE_H5_VLEN_TIMEOUT seconds, means a damaged file, and the parent goes on to refuse it. Files
   bte writes have fixed-length strings only; this path reads older tables and h5py-made files. */
#define BTE_H5_VLEN_TIMEOUT 10

int BTEH5ReadVarString(hid_t a, hid_t ft, char buf[], size_t len, char why[], size_t wlen)
{
  int    fd[2], status = 0;
  pid_t  pid;
  size_t got = 0, total = 0;
  char   head[sizeof(size_t) + 1];
  int    nhead = 0, timedout = 0;

  buf[0] = 0;
  if (pipe(fd)) {
    snprintf(why, wlen, "no pipe: %s", strerror(errno));
    return -1;
  }
  fflush(NULL);
  pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    snprintf(why, wlen, "cannot fork to read it safely: %s", strerror(errno));
    return -1;
  }
  if (pid == 0) { /* child: read, send "ok flag, length, bytes", exit without any cleanup */
    hid_t  mt = H5Tcopy(H5T_C_S1);
    char  *s  = NULL, ok = 0;
    size_t n  = 0;
    close(fd[0]);
    if (mt >= 0 && H5Tset_size(mt, H5T_VARIABLE) >= 0 && H5Tset_cset(mt, H5Tget_cset(ft)) >= 0 && H5Aread(a, mt, &s) >= 0 && s) {
      ok = 1;
      n  = strnlen(s, BTE_H5_STRING_MAX + 1);
    }
    if (write(fd[1], &ok, 1) == 1 && write(fd[1], &n, sizeof(n)) == (ssize_t)sizeof(n) && ok) {
      size_t m = n < BTE_H5_STRING_MAX ? n : BTE_H5_STRING_MAX, off = 0;
      while (off < m) {
        ssize_t w = write(fd[1], s + off, m - off);
        if (w <= 0) break;
        off += (size_t)w;
      }
    }
    _exit(0);
  }
  close(fd[1]);
  {
    PetscLogDouble t0, t;
    char           sink[4096];
    (void)PetscTime(&t0);
    for (;;) {
      struct pollfd p = {fd[0], POLLIN, 0};
      ssize_t       r;
      (void)PetscTime(&t);
      if (t - t0 > BTE_H5_VLEN_TIMEOUT) {
        timedout = 1;
        break;
      }
      if (poll(&p, 1, 200) <= 0) continue;
      if (nhead < (int)sizeof(head)) r = read(fd[0], head + nhead, sizeof(head) - (size_t)nhead);
      else if (got + 1 < len) r = read(fd[0], buf + got, len - 1 - got);
      else r = read(fd[0], sink, sizeof(sink));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      if (nhead < (int)sizeof(head)) nhead += (int)r;
      else if (got + 1 < len) got += (size_t)r;
    }
  }
  close(fd[0]);
  if (timedout) kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  buf[got] = 0;
  if (timedout) {
    snprintf(why, wlen, "HDF5 did not finish reading it in %d s", BTE_H5_VLEN_TIMEOUT);
    return -1;
  }
  if (WIFSIGNALED(status)) {
    snprintf(why, wlen, "HDF5 crashed reading it (signal %d)", WTERMSIG(status));
    return -1;
  }
  if (nhead < (int)sizeof(head) || !head[0]) {
    snprintf(why, wlen, "HDF5 cannot read it");
    return -1;
  }
  memcpy(&total, head + 1, sizeof(total));
  if (total > BTE_H5_STRING_MAX) {
    snprintf(why, wlen, "it is longer than %d bytes", BTE_H5_STRING_MAX);
    return -1;
  }
  return 0;
}

/* The attribute's type must be a standard one of class cls (see StandardNumberType). */
static int AttrNumberType(hid_t a, H5T_class_t cls, const char obj[], const char name[], BTEH5Status *st)
{
  hid_t t = H5Aget_type(a);
  char  what[256];
  int   ret;

  if (t < 0) return BTEH5Fail(st, "attribute '%s' of %s: cannot read its type; the file is damaged", name, ObjName(obj));
  snprintf(what, sizeof(what), "attribute '%s' of %s", name, ObjName(obj));
  ret = BTEH5CheckNumberType(t, cls, what, st);
  H5Tclose(t);
  return ret;
}

int BTEH5ReadAttrInt(hid_t loc, const char obj[], const char name[], long long *v, BTEH5Status *st)
{
  hid_t       a;
  H5T_class_t cls;
  int         ret = 0;

  if (AttrOpen(loc, obj, name, &a, &cls, st)) return -1;
  if (cls != H5T_INTEGER) ret = BTEH5Fail(st, "attribute '%s' of %s has %s type; expected an integer", name, ObjName(obj), ClassName(cls));
  else if (AttrNumberType(a, cls, obj, name, st)) ret = -1;
  else if (H5Aread(a, H5T_NATIVE_LLONG, v) < 0) ret = BTEH5Fail(st, "attribute '%s' of %s cannot be read", name, ObjName(obj));
  H5Aclose(a);
  return ret;
}

int BTEH5ReadAttrReal3(hid_t loc, const char obj[], const char name[], double v[3])
{
  hid_t a, sp;
  int   ok;

  if (BTEH5AttrExists(loc, obj, name) != 1) return 0;
  a = H5Aopen_by_name(loc, obj, name, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0) return 0;
  sp = H5Aget_space(a);
  ok = sp >= 0 && H5Sget_simple_extent_npoints(sp) == 3 && H5Aread(a, H5T_NATIVE_DOUBLE, v) >= 0;
  if (sp >= 0) H5Sclose(sp);
  H5Aclose(a);
  return ok;
}

int BTEH5ReadAttrReal(hid_t loc, const char obj[], const char name[], double *v, BTEH5Status *st)
{
  hid_t       a;
  H5T_class_t cls;
  int         ret = 0;

  if (AttrOpen(loc, obj, name, &a, &cls, st)) return -1;
  if (cls != H5T_FLOAT && cls != H5T_INTEGER) ret = BTEH5Fail(st, "attribute '%s' of %s has %s type; expected a number", name, ObjName(obj), ClassName(cls));
  else if (AttrNumberType(a, cls, obj, name, st)) ret = -1;
  else if (H5Aread(a, H5T_NATIVE_DOUBLE, v) < 0) ret = BTEH5Fail(st, "attribute '%s' of %s cannot be read", name, ObjName(obj));
  H5Aclose(a);
  return ret;
}

int BTEH5CheckUnits(hid_t loc, const char obj[], const char uname[], const char expect[], const char hint[], BTEH5Status *st)
{
  char u[128];

  if (!BTEH5AttrExists(loc, obj, uname)) return 0; /* units are documentation; absent is fine */
  if (BTEH5ReadAttrString(loc, obj, uname, u, sizeof(u), st)) return -1;
  if (strcmp(u, expect))
    return BTEH5Fail(st, "%s has %s = '%s' but bte expects '%s'%s%s", ObjName(obj), uname, u, expect, hint && hint[0] ? ": " : "; convert the data (docs/format.md)", hint ? hint : "");
  return 0;
}

static int WriteAttr(hid_t obj, const char name[], hid_t ftype, hid_t mtype, const void *v, BTEH5Status *st)
{
  hid_t sp = H5Screate(H5S_SCALAR), a;
  int   ret = 0;

  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
  if (a < 0 || H5Awrite(a, mtype, v) < 0) {
    char m[256];
    BTEH5StackMessage(m, sizeof(m));
    ret = BTEH5Fail(st, "cannot write attribute '%s' (HDF5: %s)", name, m);
  }
  if (a >= 0) H5Aclose(a);
  H5Sclose(sp);
  return ret;
}

hid_t BTEH5StringType(const char value[])
{
  hid_t  t = H5Tcopy(H5T_C_S1);
  size_t n = value ? strlen(value) : 0;

  /* fixed-length, null-terminated UTF-8 (h5py reads it as bytes): its bytes sit in the attribute
     itself, not in the global heap that a variable-length string points into, so a reader
     bounds them by the type's size alone */
  if (t < 0) return t;
  if (H5Tset_size(t, n ? n + 1 : 1) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
    H5Tclose(t);
    return -1;
  }
  return t;
}

int BTEH5WriteAttrString(hid_t obj, const char name[], const char value[], BTEH5Status *st)
{
  const char *v = value ? value : "";
  hid_t       t = BTEH5StringType(v);
  int         ret;

  if (t < 0) return BTEH5Fail(st, "cannot write attribute '%s': no string type", name);
  ret = WriteAttr(obj, name, t, t, v, st);
  H5Tclose(t);
  return ret;
}

/* What keeps bte from creating a temporary output file tmp (FILE.tmp), or NULL: a symbolic link
   there would be followed, and the file it points to (another table, an input) overwritten; a FIFO or
   device would be opened and waited on. A regular file (a FILE.tmp left by a killed run) is
   replaced, a directory makes the create fail. */
const char *BTEH5TmpProblem(const char tmp[])
{
  struct stat sb;

  if (lstat(tmp, &sb)) return NULL;
  if (S_ISLNK(sb.st_mode)) return "it is a symbolic link, which bte would write through into the file it points to; remove the link (bte writes FILE.tmp itself and renames it to FILE when complete)";
  if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) return "it is a special file (a FIFO, device or socket), not a file bte left; remove it";
  return NULL;
}

hid_t BTEH5FileCreate(const char file[], PetscBool growing)
{
  hid_t fapl, f;

  if (BTEH5TmpProblem(file)) return -1; /* the callers say why (BTEH5TmpProblem) */
  fapl = H5Pcreate(H5P_FILE_ACCESS);

  /* The newest file format HDF5 1.10 writes (readable by 1.10 and later; what h5py writes with
     libver='v110'): version 2 object headers with checksums on all metadata, so a damaged header
     is reported instead of trusted. A file that grows during a run (the dynamics output) stops at
     the 1.8 format: the 1.10 superblock marks a file open for writing, and a run killed midway
     would leave a file that HDF5 refuses to open until 'h5clear -s'; the 1.8 format has the same
     checksummed object headers and no such mark. */
  if (fapl >= 0) {
#if H5_VERSION_GE(1, 10, 2)
    if (growing) H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18);
    else H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110);
#else
    if (!growing) H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
#endif
  }
  f = H5Fcreate(file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl >= 0 ? fapl : H5P_DEFAULT);
  if (fapl >= 0) H5Pclose(fapl);
  return f;
}

int BTEH5CheckRegularFile(const char file[], BTEH5Status *st)
{
  struct stat sb;

  /* HDF5 would open a FIFO or a device and wait on it (or read it forever): only regular files */
  if (stat(file, &sb)) return BTEH5Fail(st, "cannot open it: %s", strerror(errno));
  if (S_ISDIR(sb.st_mode)) return BTEH5Fail(st, "it is a directory, not an HDF5 file");
  if (!S_ISREG(sb.st_mode)) return BTEH5Fail(st, "it is not a regular file (%s); bte reads HDF5 files only from regular files", S_ISFIFO(sb.st_mode) ? "a FIFO" : S_ISCHR(sb.st_mode) ? "a character device" : S_ISBLK(sb.st_mode) ? "a block device" : S_ISSOCK(sb.st_mode) ? "a socket" : "a special file");
  return 0;
}

int BTEH5WriteAttrInt(hid_t obj, const char name[], long long v, BTEH5Status *st)
{
  if (v >= INT32_MIN && v <= INT32_MAX) {
    int vi = (int)v;
    return WriteAttr(obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, &vi, st);
  }
  return WriteAttr(obj, name, H5T_STD_I64LE, H5T_NATIVE_LLONG, &v, st);
}

int BTEH5WriteAttrReal(hid_t obj, const char name[], double v, const char units[], BTEH5Status *st)
{
  if (WriteAttr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, st)) return -1;
  if (units) {
    char un[256];
    snprintf(un, sizeof(un), "%s_units", name);
    return BTEH5WriteAttrString(obj, un, units, st);
  }
  return 0;
}

int BTEH5DatasetShape(hid_t loc, const char path[], H5T_class_t cls, int rank, const char shape[], hsize_t dims[], BTEH5Status *st)
{
  hid_t       o, t, sp;
  H5T_class_t c;
  int         r, ret = 0;
  hsize_t     d[H5S_MAX_RANK];

  if (!BTEH5Exists(loc, path)) return BTEH5Fail(st, "dataset %s is missing (required by docs/format.md)", path); /* -1 (damaged): the open fails */
  o = H5Oopen(loc, path, H5P_DEFAULT);
  if (o < 0) return BTEH5Fail(st, "dataset %s cannot be opened; the file is damaged", path);
  if (H5Iget_type(o) != H5I_DATASET) {
    H5Oclose(o);
    return BTEH5Fail(st, "%s is not a dataset (docs/format.md)", path);
  }
  t = H5Dget_type(o);
  c = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
  if (c != cls) {
    if (t >= 0) H5Tclose(t);
    H5Oclose(o);
    return BTEH5Fail(st, "dataset %s has %s type; expected %s type (docs/format.md)", path, ClassName(c), ClassName(cls));
  }
  if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
    char what[256];
    snprintf(what, sizeof(what), "dataset %s", path);
    ret = BTEH5CheckNumberType(t, cls, what, st);
  }
  H5Tclose(t);
  if (ret) {
    H5Oclose(o);
    return ret;
  }
  sp = H5Dget_space(o);
  r  = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
  if (r < 0) ret = BTEH5Fail(st, "dataset %s: cannot read its shape; the file is damaged", path);
  else if (r != rank) ret = BTEH5Fail(st, "dataset %s has %d dimension(s); expected %d, shape %s (docs/format.md)", path, r, rank, shape);
  else {
    H5Sget_simple_extent_dims(sp, d, NULL);
    for (int k = 0; k < rank; k++) dims[k] = d[k];
  }
  if (sp >= 0) H5Sclose(sp);
  H5Oclose(o);
  return ret;
}

int BTEH5CreateDataset(hid_t loc, const char name[], hid_t ftype, int rank, const hsize_t dims[], hsize_t chunk, const char units[], BTEH5Status *st)
{
  hid_t sp = H5Screate_simple(rank, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE), d = -1;
  int   ret = 0;

  /* every element gets written: no fill value is set, so HDF5 writes none (IFSET, its default).
     Not H5D_FILL_TIME_NEVER: with the 1.10 file format, HDF5 1.10.8 then loses what is written to
     a chunk larger than its chunk cache (1 MB; a channel dataset's chunks hold 2^20 rows) */
  H5Pset_fill_time(dcpl, H5D_FILL_TIME_IFSET);
  if (chunk && dims[0] > 0) {
    hsize_t c[2] = {chunk < dims[0] ? chunk : dims[0], rank > 1 ? dims[1] : 1};
    H5Pset_chunk(dcpl, rank, c);
  }
  d = H5Dcreate2(loc, name, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  if (d < 0) {
    char m[256];
    BTEH5StackMessage(m, sizeof(m));
    ret = BTEH5Fail(st, "cannot create dataset %s (HDF5: %s)", name, m);
  } else if (units) ret = BTEH5WriteAttrString(d, "units", units, st);
  if (d >= 0 && H5Dclose(d) < 0) {
    BTEH5MarkCloseFailed();
    if (!ret) ret = BTEH5Fail(st, "cannot create dataset %s (HDF5: its close failed)", name);
  }
  H5Pclose(dcpl);
  H5Sclose(sp);
  return ret;
}

static int Rows(hid_t loc, const char path[], hid_t memtype, hsize_t start, hsize_t count, hsize_t ncols, void *buf, int write, BTEH5Status *st)
{
  hid_t   d, fs = -1, ms = -1;
  hsize_t off[2] = {start, 0}, cnt[2] = {count, ncols};
  int     r = ncols ? 2 : 1, ret = 0;
  herr_t  e;

  if (!count) return 0;
  d = H5Dopen2(loc, path, H5P_DEFAULT);
  if (d < 0) return BTEH5Fail(st, "dataset %s cannot be opened; the file is damaged", path);
  fs = H5Dget_space(d);
  ms = H5Screate_simple(r, cnt, NULL);
  e  = H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
  if (e >= 0) e = write ? H5Dwrite(d, memtype, ms, fs, H5P_DEFAULT, buf) : H5Dread(d, memtype, ms, fs, H5P_DEFAULT, buf);
  if (e < 0) {
    char m[256];
    BTEH5StackMessage(m, sizeof(m));
    ret = BTEH5Fail(st, "%s rows %llu..%llu of dataset %s failed (HDF5: %s)%s", write ? "writing" : "reading", (unsigned long long)start, (unsigned long long)(start + count - 1), path, m, write ? "" : "; the file is damaged or truncated");
  }
  H5Sclose(ms);
  H5Sclose(fs);
  /* written rows may reach the file only when the dataset is closed (a full disk fails here) */
  if (H5Dclose(d) < 0 && write) {
    BTEH5MarkCloseFailed();
    if (!ret) {
      char m[256];
      BTEH5StackMessage(m, sizeof(m));
      ret = BTEH5Fail(st, "writing rows %llu..%llu of dataset %s failed (HDF5: %s)", (unsigned long long)start, (unsigned long long)(start + count - 1), path, m);
    }
  }
  return ret;
}

int BTEH5WriteRows(hid_t loc, const char path[], hid_t memtype, hsize_t start, hsize_t count, hsize_t ncols, const void *buf, BTEH5Status *st)
{
  return Rows(loc, path, memtype, start, count, ncols, (void *)buf, 1, st);
}

int BTEH5ReadRows(hid_t loc, const char path[], hid_t memtype, hsize_t start, hsize_t count, hsize_t ncols, void *buf, BTEH5Status *st)
{
  return Rows(loc, path, memtype, start, count, ncols, buf, 0, st);
}

PetscErrorCode BTEH5SyncStatus(MPI_Comm comm, BTEH5Status *st)
{
  PetscMPIInt rank, size, mine, first;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  mine = st->bad ? rank : size;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first < size) {
    PetscCallMPI(MPI_Bcast(st->msg, (PetscMPIInt)sizeof(st->msg), MPI_CHAR, first, comm));
    st->bad = 1;
  }
  PetscFunctionReturn(0);
}
