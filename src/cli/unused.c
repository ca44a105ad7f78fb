/* The driver's check for unused options: an option that no object read is misspelled or means
   nothing to the command, so the run fails with one line naming it instead of silently running
   with the default (PETSc's -options_left, made an error). -options_left 0 turns the check off.

   Two checks. BTECommandCheckOptions runs once the command's objects have read their options
   (those created only at setup or solve included, on scratch objects: help.c), before any work:
   it covers the -bte_ options, which bte reads in SetFromOptions only, except those of PETSc
   solvers inside bte (-bte_transport_*, -bte_highfield_*, -bte_jacobian_*: their sub-objects
   may read options at setup) and viewers (*_view, read when the object is viewed).
   BTECommandCheckUnusedOptions runs when the command has finished and covers every option.

   Options from the PETSC_OPTIONS environment variable are exempt: it holds settings for many
   programs and commands (e.g. -vec_type cuda, which 'bte info' never uses). */
#include "commands.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int InEnvironment(const char name[])
{
  const char *env = getenv("PETSC_OPTIONS"), *p = env;
  size_t      len = strlen(name);

  if (!env) return 0;
  while (*p) {
    const char *q;
    while (*p && isspace((unsigned char)*p)) p++;
    q = p;
    while (*q && !isspace((unsigned char)*q)) q++;
    if (*p == '-' && (size_t)(q - p - 1) == len && !strncasecmp(p + 1, name, len)) return 1;
    p = q;
  }
  return 0;
}

/* An option that must have been read once the objects' SetFromOptions ran */
static int ReadUpFront(const char name[])
{
  static const char *later[] = {"bte_transport_", "bte_highfield_", "bte_jacobian_"};
  size_t             len     = strlen(name);

  if (strncasecmp(name, "bte_", 4)) return 0;
  for (size_t k = 0; k < sizeof(later) / sizeof(later[0]); k++)
    if (!strncasecmp(name, later[k], strlen(later[k]))) return 0;
  if (len >= 5 && !strcasecmp(name + len - 5, "_view")) return 0;
  return 1;
}

/* PETSc's own options that PetscFinalize reads (after the check): marked as used here, as
   PetscFinalize itself does for some of them */
static PetscErrorCode TouchFinalizeOptions(void)
{
  static const char *opts[] = {"-options_view", "-objects_dump", "-mpidump", "-malloc_dump", "-malloc_view", "-malloc_test", "-malloc_debug", "-memory_view", "-get_total_flops", "-log_view", "-log_view_memory", "-log_view_gpu_time", "-log_all", "-log", "-log_mpe", "-citations", "-no_signal_handler", "-nox", "-nox_warning", "-x_virtual", "-saw_options", "-mpi_linear_solver_server"};
  PetscBool          flg;

  PetscFunctionBegin;
  for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) PetscCall(PetscOptionsHasName(NULL, NULL, opts[k], &flg));
  PetscFunctionReturn(0);
}

/* The unused options (all, or those read up front) as " -name value ..." in line */
static PetscErrorCode Unused(PetscBool upfront, char line[], size_t len, PetscBool *any)
{
  PetscBool check = PETSC_TRUE, set;
  PetscInt  N;
  char    **names, **values;

  PetscFunctionBegin;
  *any    = PETSC_FALSE;
  line[0] = 0;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-options_left", &check, &set));
  if (set && !check) PetscFunctionReturn(0);
  if (!upfront) PetscCall(TouchFinalizeOptions());
  PetscCall(PetscOptionsLeftGet(NULL, &N, &names, &values));
  for (PetscInt i = 0; i < N; i++) {
    const char *nm = names[i][0] == '-' ? names[i] + 1 : names[i];
    char        opt[256];
    if (InEnvironment(nm) || (upfront && !ReadUpFront(nm))) continue;
    PetscCall(PetscSNPrintf(opt, sizeof(opt), " -%s%s%s", nm, values[i] ? " " : "", values[i] ? values[i] : ""));
    PetscCall(PetscStrlcat(line, opt, len));
    *any = PETSC_TRUE;
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &N, &names, &values));
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandCheckOptions(MPI_Comm comm, const char cmd[])
{
  char      line[1024];
  PetscBool any;

  PetscFunctionBegin;
  PetscCall(Unused(PETSC_TRUE, line, sizeof(line), &any));
  PetscCheck(!any, comm, PETSC_ERR_USER_INPUT, "unused option(s):%s (misspelled, or not used by this command: 'bte %s -help' lists its options; -options_left 0 accepts them)", line, cmd);
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandCheckUnusedOptions(MPI_Comm comm, const char cmd[], PetscBool *bad)
{
  char        line[1024];
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(Unused(PETSC_FALSE, line, sizeof(line), bad));
  if (!*bad) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    fprintf(stderr, "bte %s: error: unused option(s):%s (misspelled, or not used by this command: 'bte %s -help' lists its options; -options_left 0 accepts them)\n", cmd, line, cmd);
    fflush(stderr);
  }
  /* the line above says it all: no second list from PetscFinalize */
  PetscCall(PetscOptionsSetValue(NULL, "-options_left", "0"));
  PetscFunctionReturn(0);
}

/* A -bte_ option whose value is the number NaN or +-Inf is refused here with one line naming it,
   the same on every PETSc: PETSc >= 3.2x's PetscOptionsReal refuses NaN itself, with a message
   that does not name the option. (Arrays, e.g. -bte_efield nan,0,0, are checked where they are
   read.) */
/* bte's integer options (PetscOptionsInt, IntArray): PETSc reads a value beyond a PetscInt's range
   modulo 2^32 (3.18: -bte_grid 4294967304 ran as 8), so the driver refuses one first.
   tests/guards/options.sh checks that the list holds every integer option of src/. */
static const char *const IntegerOptions[] = {"-bte_bench_copy_size", "-bte_bench_reps", "-bte_generate_batch", "-bte_generate_pair_batch", "-bte_grid", "-bte_highfield_ptc_max_it", "-bte_io_chunk", "-bte_ita_max_it", "-bte_pair_chunk", "-bte_pair_overlap_polls", "-bte_pair_reduce_batch", "-bte_pair_reduce_lanes", "-bte_pair_tile", "-bte_pair_unroll", "-bte_perturbo_bands", "-bte_perturbo_kdim", "-bte_perturbo_qdim", "-bte_tgt_lanes", "-bte_transport_pc_angular", "-bte_transport_pc_bins", "-pc_bte_twolevel_bins", "-pc_bte_twolevel_rate_bins", NULL};

/* Each comma-separated entry of an integer option's value within a PetscInt's range (entries that
   are not numbers are left to PETSc's own message) */
static PetscErrorCode CheckIntegerOption(MPI_Comm comm, const char name[], const char value[])
{
  const char *p = value;

  PetscFunctionBegin;
  while (*p) {
    char  *end;
    double v = strtod(p, &end);
    if (end != p && !PetscIsInfOrNanReal((PetscReal)v) && (v > PETSC_MAX_INT || v < PETSC_MIN_INT)) {
      char entry[64];
      size_t n = (size_t)(end - p) < sizeof(entry) - 1 ? (size_t)(end - p) : sizeof(entry) - 1;
      memcpy(entry, p, n);
      entry[n] = 0;
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s %s: %s is beyond the range of an integer option ([%" PetscInt_FMT ", %" PetscInt_FMT "])", name, value, entry, PETSC_MIN_INT, PETSC_MAX_INT);
    }
    p = strchr(p, ',');
    if (!p) break;
    p++;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandCheckFiniteOptions(MPI_Comm comm)
{
  char *all, *tok, *save = NULL, *prev = NULL;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (tok = strtok_r(all, " \t\n", &save); tok; prev = tok, tok = strtok_r(NULL, " \t\n", &save)) {
    char  *end;
    double v;
    if (prev && prev[0] == '-' && !(tok[0] == '-' && isalpha((unsigned char)tok[1])))
      for (int k = 0; IntegerOptions[k]; k++)
        if (!strcmp(prev, IntegerOptions[k])) {
          PetscErrorCode ierr = CheckIntegerOption(comm, prev, tok);
          if (ierr) {
            PetscCall(PetscFree(all));
            return ierr;
          }
        }
    if (!prev || strncmp(prev, "-bte_", 5) || (tok[0] == '-' && isalpha((unsigned char)tok[1]))) continue;
    v = strtod(tok, &end);
    if (end == tok || *end || !(PetscIsInfOrNanReal((PetscReal)v))) continue;
    {
      char name[256], val[64];
      PetscCall(PetscStrncpy(name, prev + 1, sizeof(name)));
      PetscCall(PetscStrncpy(val, tok, sizeof(val)));
      PetscCall(PetscFree(all));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s = %s is not a finite number: give a finite value", name, val);
    }
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}
