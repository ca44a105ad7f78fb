/* Outputs never clobber inputs: an output file (or FILE.tmp, the temporary name every output is
   written to before it is renamed) must not be one of the run's input files, by name or as the
   same file reached through a symbolic or hard link (same device and inode), nor a directory,
   nor in a directory that does not exist or where it cannot be created. Checked before the run. */
#include <bte/private/bteimpl.h>
#include <bte/private/outfile.h>
#include <bte/private/h5util.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

int BTESameFile(const char a[], const char b[])
{
  struct stat sa, sb;

  if (!a || !b || !a[0] || !b[0]) return 0;
  if (!strcmp(a, b)) return 1;
  if (stat(a, &sa) || stat(b, &sb)) return 0; /* one does not exist: not the same file */
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* rank 0: an output path that cannot be written where it points: a directory (the result would
   be renamed onto it only when the run ends), or in a directory that does not exist or is not
   writable. Only looked at, nothing created: the output's FILE.tmp may be an input (FindClash). */
static void FindBadPath(const char file[], const char opt[], char msg[], size_t len)
{
  const char *slash = strrchr(file, '/');
  char        dir[PETSC_MAX_PATH_LEN];
  struct stat sb;

  if (!stat(file, &sb) && S_ISDIR(sb.st_mode)) {
    snprintf(msg, len, "The output file %s (%s) is a directory: give a file name", file, opt);
    return;
  }
  if (!slash) return; /* the working directory */
  snprintf(dir, sizeof(dir), "%.*s", slash == file ? 1 : (int)(slash - file), file);
  if (stat(dir, &sb)) snprintf(msg, len, "Cannot write the output file %s (%s): its directory %s does not exist", file, opt, dir);
  else if (!S_ISDIR(sb.st_mode)) snprintf(msg, len, "Cannot write the output file %s (%s): %s is not a directory", file, opt, dir);
  else if (access(dir, W_OK)) snprintf(msg, len, "Cannot write the output file %s (%s): its directory %s is not writable", file, opt, dir);
}

/* rank 0: the output is written as FILE.tmp and renamed onto FILE: a symbolic link there would be
   replaced (its target never written), a device or a FIFO replaced by a regular file. After
   FindClash, which names a link to an input as such. */
static void FindNotRegular(const char file[], const char opt[], char msg[], size_t len)
{
  struct stat sb;

  if (lstat(file, &sb)) return;
  if (S_ISLNK(sb.st_mode)) snprintf(msg, len, "The output file %s (%s) is a symbolic link: the output is written beside it and renamed onto it, which would replace the link and leave its target unwritten; give the target's path", file, opt);
  else if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) snprintf(msg, len, "The output file %s (%s) exists and is not a regular file (a device, a FIFO or a socket), which the output would replace; give a file name", file, opt);
}

/* rank 0: can FILE.tmp be created (or opened for writing, when a run that was stopped left it)?
   The permission bits do not say so for every directory: root may write anywhere by them, but not
   under /proc or /sys, nor on a read-only file system, and the run would fail only at its end.
   Nothing is changed: a probe that creates FILE.tmp removes it again, an existing one is not
   truncated. Called after FindClash and BTEH5TmpProblem, so FILE.tmp is neither an input nor a
   link nor a special file. */
static void ProbeCreate(const char file[], const char tmp[], const char opt[], char msg[], size_t len)
{
  struct stat sb;
  int         existed = !lstat(tmp, &sb), fd;

  fd = open(tmp, existed ? O_WRONLY : O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) {
    snprintf(msg, len, "Cannot write the output file %s (%s): creating %s, which the output is written as first, failed: %s", file, opt, tmp, strerror(errno));
    return;
  }
  close(fd);
  if (!existed) (void)unlink(tmp);
}

/* rank 0: the first input (name, option) that file or its FILE.tmp would overwrite */
static void FindClash(const char file[], const char *names[], const char *opts[], int n, char msg[], size_t len, const char opt[])
{
  char tmp[PETSC_MAX_PATH_LEN + 8];

  snprintf(tmp, sizeof(tmp), "%s.tmp", file);
  for (int k = 0; k < n; k++) {
    if (!names[k] || !names[k][0]) continue;
    if (BTESameFile(file, names[k])) {
      snprintf(msg, len, "The output %s (%s) is the input %s (%s)%s: writing it would destroy the input; give another output file name", file, opt, names[k], opts[k], strcmp(file, names[k]) ? ", the same file through a link" : "");
      return;
    }
    if (BTESameFile(tmp, names[k])) {
      snprintf(msg, len, "The output %s (%s) is written to %s first, which is the input %s (%s): writing it would destroy the input; give another output file name", file, opt, tmp, names[k], opts[k]);
      return;
    }
  }
}

/* inplace: the file is opened where it is and written there (a dynamics run appending to its
   restart file), not written as FILE.tmp and renamed onto it: a symbolic link to it is then
   followed like any path, and FILE.tmp is never made */
static PetscErrorCode CheckOutputFile(BTE bte, const char file[], const char opt[], const char other[], const char otheropt[], PetscBool inplace)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)bte);
  PetscMPIInt rank;
  char        msg[3 * PETSC_MAX_PATH_LEN + 256] = "", epr[PETSC_MAX_PATH_LEN] = "";
  PetscBool   flg;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(bte, BTE_CLASSID, 1);
  if (!file || !file[0]) PetscFunctionReturn(0);
  /* a model's input file (the Perturbo import reads -bte_perturbo_epr) */
  PetscCall(PetscOptionsGetString(((PetscObject)bte)->options, ((PetscObject)bte)->prefix, "-bte_perturbo_epr", epr, sizeof(epr), &flg));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    const char *names[3] = {bte->input, epr, other};
    const char *opts[3]  = {"-bte_input", "-bte_perturbo_epr", otheropt ? otheropt : ""};
    FindBadPath(file, opt ? opt : "-bte_output", msg, sizeof(msg));
    if (!msg[0]) FindClash(file, names, opts, other ? 3 : 2, msg, sizeof(msg), opt ? opt : "-bte_output");
    if (!msg[0] && !inplace) FindNotRegular(file, opt ? opt : "-bte_output", msg, sizeof(msg));
    if (!msg[0] && !inplace) { /* FILE.tmp, which every writer creates first: a link or a special file there */
      char tmp[PETSC_MAX_PATH_LEN + 8];
      snprintf(tmp, sizeof(tmp), "%s.tmp", file);
      if (BTEH5TmpProblem(tmp)) snprintf(msg, sizeof(msg), "The output %s (%s) is written as %s first, and %s", file, opt ? opt : "-bte_output", tmp, BTEH5TmpProblem(tmp));
      else ProbeCreate(file, tmp, opt ? opt : "-bte_output", msg, sizeof(msg));
    }
  }
  PetscCallMPI(MPI_Bcast(msg, (PetscMPIInt)sizeof(msg), MPI_CHAR, 0, comm));
  PetscCheck(!msg[0], comm, PETSC_ERR_USER_INPUT, "%s", msg);
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckOutputFileWith(BTE bte, const char file[], const char opt[], const char other[], const char otheropt[])
{
  PetscFunctionBegin;
  PetscCall(CheckOutputFile(bte, file, opt, other, otheropt, PETSC_FALSE));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECheckAppendFileWith(BTE bte, const char file[], const char opt[], const char other[], const char otheropt[])
{
  PetscFunctionBegin;
  PetscCall(CheckOutputFile(bte, file, opt, other, otheropt, PETSC_TRUE));
  PetscFunctionReturn(0);
}

/*@
   BTECheckOutputFile - Refuses an output file that would overwrite one of the run's inputs, or that is a directory

   Collective

   Input Parameters:
+  bte  - the BTE
.  file - the output file
-  opt  - the option that named it, for the message (NULL: -bte_output)

   Notes:
   Compares with the table and a model's input file, by name and as the same file through a link,
   FILE.tmp included; a path that is a directory, a symbolic link or another file that is not a
   regular one (a device, a FIFO), or lies in a directory that does not exist or is not
   writable; and a FILE.tmp that is a symbolic link or a special file. Every writer of bte calls it; call it early to refuse before a long run.

   Level: intermediate

.seealso: `BTEWriteTable()`
@*/
PetscErrorCode BTECheckOutputFile(BTE bte, const char file[], const char opt[])
{
  PetscFunctionBegin;
  PetscCall(BTECheckOutputFileWith(bte, file, opt, NULL, NULL));
  PetscFunctionReturn(0);
}
