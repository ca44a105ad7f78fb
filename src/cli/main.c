/* bte driver: picks a subcommand and hands the rest of the command line to PETSc. */
#include <bte.h>
#include "commands.h"
#include <bte/private/h5util.h>
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char help[] = "bte: electron-phonon Boltzmann transport equation on PETSc.\n\n"
                           "Usage: bte <command> [-bte_... options] [PETSc options]\n"
                           "Commands:\n"
                           "  generate   build a built-in model's scattering table: -bte_model NAME -bte_grid N -bte_output FILE\n"
                           "  info       print a table's summary: -bte_input FILE (or -bte_model NAME)\n"
                           "  dynamics   real-time BTE under PETSc TS\n"
                           "  transport  low-field mobility tensors (KSP, RTA, ITA)\n"
                           "  highfield  velocity-field curves (SNES)\n"
                           "  bench      time the collision operator implementations\n"
                           "Run 'bte <command> -help' for the options of a command (and of the objects it creates).\n"
                           "An option that the command does not use (a misspelling) is an error naming it;\n"
                           "-options_left 0 accepts such options. -bte_traceback: PETSc's full error stack.\n\n";

typedef struct {
  const char *name;
  PetscErrorCode (*run)(MPI_Comm);
} BTECommand;

static const BTECommand commands[] = {
  {"generate",  BTECommandGenerate },
  {"info",      BTECommandInfo     },
  {"dynamics",  BTECommandDynamics },
  {"transport", BTECommandTransport},
  {"highfield", BTECommandHighfield},
  {"bench",     BTECommandBench    },
};

/* Started without a launcher (one process, an OpenMPI "singleton"): OpenMPI's default start-up
   spawns a daemon and probes its network layers: 0.3 s here, 0.4-0.9 s of a GPU mobility run,
   more than the rest of a small run, for a process that talks to no other. Only where
   the environment sets none of these; other MPIs ignore the variables. BTE_MPI_DEFAULTS=1 keeps
   OpenMPI's own. */
static int BTESingletonMPIEnv(void)
{
  const char *launched[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "OMPI_MCA_orte_hnp_uri"};
  const char *keep       = getenv("BTE_MPI_DEFAULTS");
  for (size_t k = 0; k < sizeof(launched) / sizeof(launched[0]); k++)
    if (getenv(launched[k])) return 0;
  if (keep && keep[0] && strcmp(keep, "0")) return 0;
  (void)setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
  (void)setenv("OMPI_MCA_pml", "ob1", 0);
  (void)setenv("OMPI_MCA_btl", "self", 0);
  return 1;
}

/* After an error on several ranks: whether every rank failed (an error the ranks raise together,
   as most are), found by a barrier on a communicator of its own that nothing else uses, waited for
   at most a few seconds. Then every rank has printed its line and all can finish cleanly; a rank
   that failed alone aborts the job after the wait, as before (a rank killed by the abort before it
   printed was the only way to lose a line). */
static int BTEAllRanksFailed(MPI_Comm errcomm, double seconds)
{
  MPI_Request req;
  int         done = 0;
  double      t0   = MPI_Wtime();

  if (errcomm == MPI_COMM_NULL || MPI_Ibarrier(errcomm, &req) != MPI_SUCCESS) return 0;
  while (!done && MPI_Wtime() - t0 < seconds) {
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return 0;
    if (!done) {
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
  }
  return done;
}

/* PETSc's rule for an option's name (PetscOptionsValidKey): '-' (or '--') and a letter, and not a
   number such as -1e3 */
static int BTEValidKey(const char *key)
{
  char *end;
  if (!key || key[0] != '-') return 0;
  if (key[1] == '-') key++;
  if (!isalpha((unsigned char)key[1])) return 0;
  (void)strtod(key, &end);
  return !(end != key && !(*end == '_' || isalnum((unsigned char)*end)));
}

/* The next token of a line as PETSc's options-file reader splits it (blanks; a quoted value is
   one token), or NULL */
static char *BTENextToken(char **p)
{
  char *s = *p, *t;
  while (*s == ' ') s++;
  if (!*s) return NULL;
  t = s;
  if (*s == '"') {
    char *q = strchr(s + 1, '"');
    s = q ? q + 1 : s + strlen(s);
  }
  while (*s && *s != ' ') s++;
  if (*s) *s++ = 0;
  *p = s;
  return t;
}

static int BTECheckOptionsFile(const char *opt, const char *file, const char *cmd, int depth);

/* The lines of an options file, by the rules of PETSc's reader (PETSc 3.2x's; 3.18 lets some of
   them through and reads something else): "-name [value]" or "alias -name -other", '#' starts a
   comment. A file named in it by -options_file is checked the same way. 0: fine. */
static int BTECheckOptionsFileLines(const char *opt, const char *file, const char *cmd, int depth)
{
  FILE *fd = fopen(file, "r");
  char  buf[4096];
  int   line = 0, bad = 0;

  if (!fd) return 0; /* checked by the caller */
  while (!bad && fgets(buf, sizeof(buf), fd)) {
    char *p = buf, *t[4], *c = strchr(buf, '#');
    line++;
    if (c) *c = 0;
    for (char *q = buf; *q; q++)
      if (*q == '\t' || *q == '\r' || *q == '\n') *q = ' ';
    for (int k = 0; k < 4; k++) t[k] = BTENextToken(&p);
    if (!t[0]) continue;
    bad = 1;
    if (t[0][0] == '-') {
      if (!BTEValidKey(t[0])) fprintf(stderr, "bte%s%s: error: %s %s, line %d: %s is not an option name (a '-' and a letter)\n", cmd ? " " : "", cmd ? cmd : "", opt, file, line, t[0]);
      else if ((t[1] && BTEValidKey(t[1])) || (t[2] && BTEValidKey(t[2]))) fprintf(stderr, "bte%s%s: error: %s %s, line %d: two options on one line (%s ... %s): one per line\n", cmd ? " " : "", cmd ? cmd : "", opt, file, line, t[0], BTEValidKey(t[1]) ? t[1] : t[2]);
      else if (t[2]) fprintf(stderr, "bte%s%s: error: %s %s, line %d: %s has more than one value (%s %s ...): a list is one word, e.g. 1,2,3\n", cmd ? " " : "", cmd ? cmd : "", opt, file, line, t[0], t[1], t[2]);
      else if (!strcmp(t[0], "-options_file") && t[1]) bad = BTECheckOptionsFile(t[0], t[1], cmd, depth + 1);
      else bad = 0;
    } else if (!strcasecmp(t[0], "alias")) {
      if (!BTEValidKey(t[1]) || !BTEValidKey(t[2]) || t[3]) fprintf(stderr, "bte%s%s: error: %s %s, line %d: an alias line is 'alias -name -other'\n", cmd ? " " : "", cmd ? cmd : "", opt, file, line);
      else bad = 0;
    } else fprintf(stderr, "bte%s%s: error: %s %s, line %d: '%s' is not an option (an option starts with '-'; '#' starts a comment)\n", cmd ? " " : "", cmd ? cmd : "", opt, file, line, t[0]);
  }
  fclose(fd);
  return bad;
}

/* One options file: it exists, can be read, and (-options_file; YAML has its own syntax) its lines
   are options. 0: fine. */
static int BTECheckOptionsFile(const char *opt, const char *file, const char *cmd, int depth)
{
  struct stat st;

  if (!file || file[0] == 0) {
    fprintf(stderr, "bte%s%s: error: %s needs a file name\n", cmd ? " " : "", cmd ? cmd : "", opt);
    return 1;
  }
  if (stat(file, &st) || !S_ISREG(st.st_mode) || access(file, R_OK)) {
    const char *why = stat(file, &st) ? strerror(errno) : (S_ISDIR(st.st_mode) ? "is a directory" : (!S_ISREG(st.st_mode) ? "is not a regular file" : strerror(errno)));
    fprintf(stderr, "bte%s%s: error: %s %s: cannot read it (%s)\n", cmd ? " " : "", cmd ? cmd : "", opt, file, why);
    return 1;
  }
  if (strcmp(opt, "-options_file") || depth > 8) return 0;
  return BTECheckOptionsFileLines(opt, file, cmd, depth);
}

/* A word on the command line that is neither an option nor the one value after it: PETSc ignores
   it (-bte_temperatures 300 400 ran at 300 K only; bte info info ... ran). A list written with
   spaces after its commas ("300, 400" in quotes) is one word that PETSc cuts at the space. 0: fine. */
static int BTECheckCommandWords(int argc, char **argv, const char *cmd)
{
  for (int a = 1; a < argc; a++) {
    /* other tools' conventions after the command: --help and -h ask for PETSc's -help; any other
       --name is one dash too many (PETSc took it for -name, and the unused-option check then named
       the correct spelling as unused) */
    if (cmd && (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h"))) {
      argv[a] = (char *)"-help";
      continue;
    }
    if (!strncmp(argv[a], "--", 2) && argv[a][2]) {
      fprintf(stderr, "bte%s%s: error: %s: options take one dash (%s)\n", cmd ? " " : "", cmd ? cmd : "", argv[a], argv[a] + 1);
      return 1;
    }
    if (BTEValidKey(argv[a])) {
      if (a + 1 < argc && !BTEValidKey(argv[a + 1])) {
        const char *v = argv[a + 1];
        if (strchr(v, ',') && (strstr(v, ", ") || strstr(v, " ,"))) {
          fprintf(stderr, "bte%s%s: error: %s '%s': a list is one word without spaces, e.g. 300,400\n", cmd ? " " : "", cmd ? cmd : "", argv[a], v);
          return 1;
        }
        a++; /* its value */
      }
      continue;
    }
    if (a >= 3 && BTEValidKey(argv[a - 2])) fprintf(stderr, "bte%s%s: error: '%s' on the command line is neither an option nor the value of one (it follows %s %s): an option takes one value, and a list is one word, e.g. 300,400\n", cmd ? " " : "", cmd ? cmd : "", argv[a], argv[a - 2], argv[a - 1]);
    else fprintf(stderr, "bte%s%s: error: '%s' on the command line is neither an option nor the value of one%s\n", cmd ? " " : "", cmd ? cmd : "", argv[a], a == 1 ? " (the command is the first word: bte COMMAND -option value ...)" : "");
    return 1;
  }
  return 0;
}

/* -options_file names a file PETSc reads inside PetscInitialize, where an error prints its full
   traceback and an MPI abort banner (26 lines): a missing or unreadable file, a directory, or a
   line PETSc's reader refuses, is named here in one line instead. 0: fine. */
static int BTECheckOptionsFiles(int argc, char **argv, const char *cmd)
{
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "-options_file") && strcmp(argv[a], "-options_file_yaml")) continue;
    if (BTECheckOptionsFile(argv[a], a + 1 < argc ? argv[a + 1] : NULL, cmd, 0)) return 1;
    a++;
  }
  return 0;
}

/* PETSc's number parser names the value, not the option ("Input string 12,12,12 has no integer
   value"): the option on the command line whose value, or one of whose comma-separated entries,
   is that string, as "-bte_grid 12,12,12: " in where (empty when none is found) */
static void BTEOptionOfBadValue(int argc, char **argv, const char *msg, char where[], size_t len)
{
  const char *p = strstr(msg, "Input string "), *q;
  size_t      m;

  where[0] = 0;
  if (p) {
    p += strlen("Input string ");
    q = strstr(p, " has no");
  } else {
    /* PETSc's other messages that name the value only: a Boolean option's ("Unknown logical value:
       maybe") and a type's ("Unknown Mat type given: foo") */
    static const char *const keys[] = {"Unknown logical value: ", "type given: "};
    for (size_t k = 0; !p && k < sizeof(keys) / sizeof(keys[0]); k++)
      if ((p = strstr(msg, keys[k]))) p += strlen(keys[k]);
    if (!p) return;
    for (q = p; *q && *q != ' ' && *q != '\n'; q++) { }
    if (q > p && (q[-1] == '.' || q[-1] == ',')) q--;
  }
  if (!q || q == p) return;
  m = (size_t)(q - p);
  /* "has no integer value": an integer option first (-bte_parabolic_a 8.5 -bte_grid 8.5 is
     -bte_grid's error), then any */
  for (int pass = strstr(q, "integer") ? 0 : 1; pass < 2; pass++) {
    for (int a = 1; a + 1 < argc; a++) {
      const char *v = argv[a + 1], *e;
      if (argv[a][0] != '-' || (!pass && !BTECommandIsIntegerOption(argv[a]))) continue;
      for (const char *t = v; t; t = e ? e + 1 : NULL) { /* v itself, then each entry */
        e = strchr(t, ',');
        if ((t == v && strlen(v) == m && !strncmp(v, p, m)) || ((size_t)(e ? (size_t)(e - t) : strlen(t)) == m && !strncmp(t, p, m))) {
          snprintf(where, len, "%s %s: ", argv[a], v);
          return;
        }
      }
    }
  }
}

int main(int argc, char **argv)
{
  const BTECommand *cmd = NULL;
  size_t            n   = sizeof(commands) / sizeof(commands[0]);

  if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    /* the conventions of other command-line tools: the usage on standard output, exit 0 */
    fputs(help, stdout);
    return 0;
  }
  if (argc >= 2 && argv[1][0] != '-') {
    for (size_t c = 0; c < n; c++)
      if (!strcmp(argv[1], commands[c].name)) cmd = &commands[c];
    if (!cmd) {
      fprintf(stderr, "bte: unknown command '%s'\n\n%s", argv[1], help);
      return 2;
    }
    for (int a = 1; a < argc - 1; a++) argv[a] = argv[a + 1];
    argc--;
  }
  if (BTECheckCommandWords(argc, argv, cmd ? cmd->name : NULL)) return 1;
  if (BTECheckOptionsFiles(argc, argv, cmd ? cmd->name : NULL)) return 1;
  int single = BTESingletonMPIEnv();
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* output piped into a reader that stops early (bte info ... | head): end quietly as other
     command-line tools do, not with PETSc's "Caught signal 13" traceback and MPI_Abort */
  (void)signal(SIGPIPE, SIG_DFL);
  PetscCall(BTEInitializePackage());
  if (single) PetscCall(PetscInfo(NULL, "one process without a launcher: OpenMPI's singleton start-up isolated, pml %s, btl %s (BTE_MPI_DEFAULTS=1 keeps OpenMPI's defaults)\n", getenv("OMPI_MCA_pml"), getenv("OMPI_MCA_btl")));
  if (!cmd) {
    PetscBool h = PETSC_FALSE;
    PetscCall(PetscOptionsHasHelp(NULL, &h));
    if (!h) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s", help));
    PetscCall(PetscFinalize());
    return h ? 0 : 2;
  }
  {
    PetscBool      traceback = PETSC_FALSE, help = PETSC_FALSE, unused = PETSC_FALSE;
    MPI_Comm       errcomm   = MPI_COMM_NULL;
    PetscMPIInt    nranks;
    PetscErrorCode ierr;

    /* Users get one line naming the problem; -bte_traceback gives PETSc's full stack. */
    PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bte driver", "BTE");
    PetscCall(PetscOptionsBool("-bte_traceback", "On an error, PETSc's full error stack instead of one line", "", traceback, &traceback, NULL));
    PetscOptionsEnd();
    PetscCall(PetscOptionsHasHelp(NULL, &help));
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &nranks));
    if (nranks > 1) PetscCallMPI(MPI_Comm_dup(PETSC_COMM_WORLD, &errcomm));
    if (!traceback) PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = BTECommandCheckOptionValues(PETSC_COMM_WORLD);
    if (!ierr) ierr = BTECommandCheckFiniteOptions(PETSC_COMM_WORLD);
    if (!ierr && !help) ierr = BTECommandCheckCores(PETSC_COMM_WORLD);
    if (!ierr) ierr = cmd->run(PETSC_COMM_WORLD);
    /* -help lists the options and runs nothing; else every option given must have been used */
    if (!ierr && !help) ierr = BTECommandCheckUnusedOptions(PETSC_COMM_WORLD, cmd->name, &unused);
    if (ierr) {
      const char *text;
      char       *specific = NULL;
      PetscMPIInt rank, size;

      MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
      MPI_Comm_size(PETSC_COMM_WORLD, &size);
      PetscErrorMessage(ierr, &text, (void *)&specific); /* char ** before PETSc 3.20, const char ** after */
      {
        const char *msg = specific && specific[0] ? specific : (text ? text : "unknown error");
        char        where[512];
        BTEOptionOfBadValue(argc, argv, msg, where, sizeof(where));
        if (size > 1) fprintf(stderr, "bte %s: error [rank %d]: %s%s\n", cmd->name, rank, where, msg);
        else fprintf(stderr, "bte %s: error: %s%s\n", cmd->name, where, msg);
      }
      fflush(stderr);
      if (size > 1 && !BTEAllRanksFailed(errcomm, 5.0)) MPI_Abort(PETSC_COMM_WORLD, 1);
      if (errcomm != MPI_COMM_NULL) MPI_Comm_free(&errcomm);
      /* options the failed run never reached are not the user's mistake: no "unused option" warning
         after the one-line error (PETSc >= 3.19 prints it by default) */
      PetscOptionsSetValue(NULL, "-options_left", "0");
      /* an output HDF5 could not close (a full disk): its clean-up inside MPI_Finalize would crash
         (src/io/h5util.c), so this process ends here, its error already said */
      if (BTEH5CloseFailed()) {
        fflush(stdout);
        _exit(1);
      }
      PetscFinalize();
      return 1;
    }
    if (!traceback) PetscCall(PetscPopErrorHandler());
    if (errcomm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&errcomm));
    if (unused) {
      PetscCall(PetscFinalize());
      return 1;
    }
  }
  PetscCall(PetscFinalize());
  return 0;
}
