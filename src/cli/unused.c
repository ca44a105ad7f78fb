/* The driver's check for unused options: an option that no object read is misspelled or means
   nothing to the command, so the run fails with one line naming it instead of silently running
   with the default (PETSc's -options_left, made an error). -options_left 0 turns the check off.

   Two checks. BTECommandCheckOptions runs once the command's objects have read their options
   (those created only at setup or solve included, on scratch objects: help.c), before any work:
   it covers the -bte_ options, which bte reads in SetFromOptions only, except those of PETSc
   solvers inside bte (-bte_transport_*, -bte_highfield_*, -bte_jacobian_*: their sub-objects
   may read options at setup) and viewers (*_view, read when the object is viewed).
   BTECommandCheckOptionsSetUp (dynamics) runs once the run is set up, before its first step: it
   covers every option but the viewers and reports read when a solve ends.
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

/* An option that may still be unread once the run's objects are set up: viewers and reports that
   a solve reads when it ends (-ts_view, -ksp_converged_reason, -bte_collision_view) */
static int ReadAtEnd(const char name[])
{
  size_t len = strlen(name), n = strlen("converged_reason");

  for (const char *p = name; *p; p++)
    if (!strncasecmp(p, "_view", 5)) return 1;
  return len >= n && !strcasecmp(name + len - n, "converged_reason");
}

/* An option that must have been read once the objects' SetFromOptions ran */
static int ReadUpFront(const char name[])
{
  static const char *later[] = {"bte_transport_", "bte_highfield_", "bte_jacobian_"};
  size_t             len     = strlen(name);

  if (strncasecmp(name, "bte_", 4)) return 0;
  if (!strcasecmp(name, "bte_view")) return 1; /* the commands' own switch, read up front (not a viewer) */
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

typedef enum {
  UNUSED_UPFRONT,   /* after SetFromOptions: the -bte_ options bte reads there */
  UNUSED_SETUP,     /* after setup: every option but those read when a solve ends */
  UNUSED_ALL        /* at the end */
} UnusedWhen;

/* The unused options (those that must have been read by when) as " -name value ..." in line */
static PetscErrorCode Unused(UnusedWhen when, char line[], size_t len, PetscBool *any)
{
  PetscBool check = PETSC_TRUE, set;
  PetscInt  N;
  char    **names, **values;

  PetscFunctionBegin;
  *any    = PETSC_FALSE;
  line[0] = 0;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-options_left", &check, &set));
  if (set && !check) PetscFunctionReturn(0);
  if (when != UNUSED_UPFRONT) PetscCall(TouchFinalizeOptions());
  PetscCall(PetscOptionsLeftGet(NULL, &N, &names, &values));
  for (PetscInt i = 0; i < N; i++) {
    const char *nm = names[i][0] == '-' ? names[i] + 1 : names[i];
    char        opt[256];
    if (InEnvironment(nm) || (when == UNUSED_UPFRONT && !ReadUpFront(nm)) || (when == UNUSED_SETUP && ReadAtEnd(nm))) continue;
    PetscCall(PetscSNPrintf(opt, sizeof(opt), " -%s%s%s", nm, values[i] ? " " : "", values[i] ? values[i] : ""));
    PetscCall(PetscStrlcat(line, opt, len));
    *any = PETSC_TRUE;
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &N, &names, &values));
  PetscFunctionReturn(0);
}

/* The check that stops a command on the options still unused by when */
static PetscErrorCode CheckUnused(MPI_Comm comm, UnusedWhen when, const char cmd[])
{
  char      line[1024];
  PetscBool any;

  PetscFunctionBegin;
  PetscCall(Unused(when, line, sizeof(line), &any));
  PetscCheck(!any, comm, PETSC_ERR_USER_INPUT, "unused option(s):%s (misspelled, or not used by this command: 'bte %s -help' lists its options; -options_left 0 accepts them)", line, cmd);
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandCheckOptions(MPI_Comm comm, const char cmd[])
{
  PetscBool batch;

  PetscFunctionBegin;
  /* read by every BTE (BTESetFromOptions), used only where a table is written while it is made */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_generate_batch", &batch));
  PetscCheck(!batch || !strcmp(cmd, "generate"), comm, PETSC_ERR_USER_INPUT, "-bte_generate_batch sets how much of a table 'bte generate' writes at a time; 'bte %s' builds its table in memory and would ignore it: leave it out", cmd);
  if (!strcmp(cmd, "dynamics") || !strcmp(cmd, "highfield")) {
    /* read by every collision operator; it matters only where the temperature changes after setup */
    PetscBool refresh;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-bte_collision_refresh", &refresh));
    PetscCheck(!refresh, comm, PETSC_ERR_USER_INPUT, "-bte_collision_refresh keeps what a change of temperature needs ('bte transport' with several -bte_temperatures); 'bte %s' runs at one temperature and would not use it: leave it out", cmd);
  }
  PetscCall(CheckUnused(comm, UNUSED_UPFRONT, cmd));
  PetscFunctionReturn(0);
}

/* Before a command writes its output at the end of a run: every option must have been read by now,
   so an unused one (a misspelled -bte_transport_ksp_rtoll) stops the run before the file is written
   (it would be complete, and made without the option the user meant) */
PetscErrorCode BTECommandCheckOptionsBeforeWrite(MPI_Comm comm, const char cmd[], const char file[])
{
  char      line[1024];
  PetscBool any;

  PetscFunctionBegin;
  PetscCall(Unused(UNUSED_ALL, line, sizeof(line), &any));
  PetscCheck(!any, comm, PETSC_ERR_USER_INPUT, "unused option(s):%s (misspelled, or not used by this command: 'bte %s -help' lists its options; -options_left 0 accepts them); %s was not written", line, cmd, file);
  PetscFunctionReturn(0);
}

/* Once a run's objects are set up and before its first step and output: every option but the
   viewers read when the solve ends must have been read (dynamics writes its file as it goes, so
   the check at the end would come after a long run and a complete-looking file) */
PetscErrorCode BTECommandCheckOptionsSetUp(MPI_Comm comm, const char cmd[])
{
  PetscFunctionBegin;
  PetscCall(CheckUnused(comm, UNUSED_SETUP, cmd));
  PetscFunctionReturn(0);
}

/* An explicit time integrator solves no systems, but PETSc's TS makes its SNES and reads the
   solver options anyway, so they count as used: -ksp_type cg with RK4 was accepted without a word
   (a forgotten -ts_type bdf). The unprefixed -snes_, -ksp_ and -pc_ options given to such a run
   are refused as unused (not those from PETSC_OPTIONS; -options_left 0 accepts them). */
PetscErrorCode BTECommandCheckSolverOptionsExplicit(MPI_Comm comm, const char cmd[], const char tstype[])
{
  PetscBool check = PETSC_TRUE, set;
  char     *all, *tok, *save = NULL, line[1024] = "";
  PetscBool listed = PETSC_FALSE; /* the last option was listed: its value follows */

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-options_left", &check, &set));
  if (set && !check) PetscFunctionReturn(0);
  PetscCall(PetscOptionsGetAll(NULL, &all));
  for (tok = strtok_r(all, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    const char *nm = tok + 1;
    if (tok[0] != '-' || !isalpha((unsigned char)tok[1])) { /* a value */
      if (listed) {
        PetscCall(PetscStrlcat(line, " ", sizeof(line)));
        PetscCall(PetscStrlcat(line, tok, sizeof(line)));
      }
      listed = PETSC_FALSE;
      continue;
    }
    listed = PETSC_FALSE;
    if (strncasecmp(nm, "snes_", 5) && strncasecmp(nm, "ksp_", 4) && strncasecmp(nm, "pc_", 3)) continue;
    if (InEnvironment(nm)) continue;
    PetscCall(PetscStrlcat(line, " ", sizeof(line)));
    PetscCall(PetscStrlcat(line, tok, sizeof(line)));
    listed = PETSC_TRUE;
  }
  PetscCall(PetscFree(all));
  PetscCheck(!line[0], comm, PETSC_ERR_USER_INPUT, "unused option(s):%s (the explicit method -ts_type %s solves no linear or nonlinear systems; they take effect with an implicit method, e.g. -options_file options/implicit.opts; 'bte %s -help' lists the options; -options_left 0 accepts them)", line, tstype, cmd);
  PetscFunctionReturn(0);
}

PetscErrorCode BTECommandCheckUnusedOptions(MPI_Comm comm, const char cmd[], PetscBool *bad)
{
  char        line[1024];
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCall(Unused(UNUSED_ALL, line, sizeof(line), bad));
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
static const char *const IntegerOptions[] = {"-bte_bench_copy_size", "-bte_bench_reps", "-bte_generate_batch", "-bte_generate_pair_batch", "-bte_grid", "-bte_highfield_ptc_max_it", "-bte_io_chunk", "-bte_ita_max_it", "-bte_pair_chunk", "-bte_pair_copy_piece", "-bte_pair_overlap_polls", "-bte_pair_reduce_batch", "-bte_pair_reduce_lanes", "-bte_pair_tile", "-bte_pair_unroll", "-bte_perturbo_bands", "-bte_perturbo_kdim", "-bte_perturbo_qdim", "-bte_tgt_lanes", "-bte_transport_pc_angular", "-bte_transport_pc_bins", "-pc_bte_twolevel_bins", "-pc_bte_twolevel_rate_bins", NULL};

/* bte's other options that take a value (PetscOptionsReal, String, Enum, EList, FList and their
   arrays; every reader but PetscOptionsBool): given without one, PETSc keeps the default silently
   (-bte_grid alone ran on the default grid), so the driver refuses it.
   tests/cli/option_values.sh checks that this list and IntegerOptions hold every such option of
   src/ and nothing else. */
static const char *const ValueOptions[] = {"-bte_bench_json", "-bte_bench_types", "-bte_carrier_densities", "-bte_carrier_density", "-bte_chemical_potentials", "-bte_collision_precision", "-bte_collision_type", "-bte_delta", "-bte_drift_form", "-bte_drift_limiter", "-bte_drift_mat_type", "-bte_efield", "-bte_efield_direction", "-bte_efield_fwhm", "-bte_efield_list", "-bte_efield_profile", "-bte_efield_time", "-bte_energy_tolerance", "-bte_exchange", "-bte_exchange_nccl_library", "-bte_final_time", "-bte_g2_cutoff", "-bte_gaas_acoustic_floor", "-bte_gaas_intervalley_d", "-bte_gaas_l_masses", "-bte_gaas_masses", "-bte_gaas_offsets", "-bte_gaas_x_masses", "-bte_graphene_a", "-bte_graphene_band", "-bte_graphene_d_ac_eff", "-bte_graphene_d_gamma", "-bte_graphene_d_k", "-bte_graphene_d_k2", "-bte_graphene_d_la", "-bte_graphene_d_ta", "-bte_graphene_hw_gamma", "-bte_graphene_hw_k", "-bte_graphene_hw_k2", "-bte_graphene_rho", "-bte_graphene_t", "-bte_graphene_v_la", "-bte_graphene_v_ta", "-bte_graphene_vf", "-bte_highfield_method", "-bte_highfield_ptc_dt", "-bte_highfield_ptc_dt_max", "-bte_highfield_ptc_switch", "-bte_highfield_residual_max", "-bte_highfield_tol", "-bte_highfield_variables", "-bte_info_channels", "-bte_init", "-bte_init_e0", "-bte_init_e0_edge", "-bte_init_occupation", "-bte_init_smear", "-bte_input", "-bte_ita_tol", "-bte_memory_limit", "-bte_model", "-bte_output", "-bte_output_energy_step", "-bte_output_interval", "-bte_pair_build", "-bte_pair_share_stall", "-bte_parabolic_a", "-bte_parabolic_acoustic_floor", "-bte_parabolic_dac", "-bte_parabolic_density", "-bte_parabolic_eps_0", "-bte_parabolic_eps_inf", "-bte_parabolic_hw_lo", "-bte_parabolic_mass", "-bte_parabolic_vs", "-bte_partition", "-bte_perturbo_carrier", "-bte_perturbo_device", "-bte_perturbo_emax", "-bte_perturbo_emin", "-bte_perturbo_epr", "-bte_phonon_min", "-bte_pump_density", "-bte_pump_e0_edge", "-bte_pump_fwhm", "-bte_pump_smear", "-bte_pump_time", "-bte_reference", "-bte_restart", "-bte_si_holes_acoustic", "-bte_si_holes_acoustic_floor", "-bte_si_holes_bands", "-bte_si_holes_bp_a", "-bte_si_holes_bp_b", "-bte_si_holes_bp_d", "-bte_si_holes_bp_d0", "-bte_si_holes_c11", "-bte_si_holes_c12", "-bte_si_holes_c44", "-bte_si_holes_dac", "-bte_si_holes_delta", "-bte_si_holes_dkk_a", "-bte_si_holes_dkk_b", "-bte_si_holes_dkk_c", "-bte_si_holes_dop", "-bte_si_holes_hwop", "-bte_si_holes_interband", "-bte_si_holes_lattice", "-bte_si_holes_optical", "-bte_si_holes_overlap", "-bte_si_holes_rho", "-bte_si_holes_so_overlap", "-bte_si_holes_vs", "-bte_smearing", "-bte_state_check", "-bte_state_tolerance", "-bte_steady_threshold", "-bte_summary", "-bte_switch_time", "-bte_temperature", "-bte_temperatures", "-bte_tgt_build", "-bte_time_step", "-bte_transport_method", "-bte_transport_pc", "-bte_transport_pc_form", "-bte_transport_pc_split", "-bte_transport_residual_max", "-bte_window", "-pc_bte_twolevel_direction", "-pc_bte_twolevel_form", "-pc_bte_twolevel_split", "-pc_bte_twolevel_states_per_block", NULL};

/* name is one of list; -pc_bte_ options also under a solver's prefix (-sw_pc_bte_twolevel_bins) */
static int InList(const char *const list[], const char name[])
{
  size_t len = strlen(name);

  for (int k = 0; list[k]; k++) {
    size_t n = strlen(list[k]);
    if (!strcmp(name, list[k])) return 1;
    if (!strncmp(list[k], "-pc_bte_", 8) && len > n && name[len - n] == '_' && !strcmp(name + len - n + 1, list[k] + 1)) return 1;
  }
  return 0;
}

/* name (with its '-') is one of bte's integer options */
int BTECommandIsIntegerOption(const char name[])
{
  return InList(IntegerOptions, name);
}

/* Runs before any object reads its options: every option is still unused, so PetscOptionsLeftGet
   holds them all with their values (NULL: none given), and reading them here would mark them used */
PetscErrorCode BTECommandCheckOptionValues(MPI_Comm comm)
{
  PetscInt N;
  char   **names, **values;
  char     bad[256] = "";
  PetscBool letter = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(PetscOptionsLeftGet(NULL, &N, &names, &values));
  for (PetscInt i = 0; i < N; i++) {
    char        name[256];
    const char *nm = names[i][0] == '-' ? names[i] + 1 : names[i];
    if (strlen(nm) == 1) letter = PETSC_TRUE; /* -x: meant as a value (-bte_efield_direction -x)? */
    if (values[i] || bad[0]) continue;
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%s", nm));
    if (InList(IntegerOptions, name) || InList(ValueOptions, name)) PetscCall(PetscStrncpy(bad, name, sizeof(bad)));
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &N, &names, &values));
  PetscCheck(!bad[0], comm, PETSC_ERR_USER_INPUT, "option %s needs a value (given without one it would silently keep its default)%s", bad, letter ? "; a value that starts with '-' and a letter is read as another option: write a direction as numbers, e.g. -1,0,0" : "");
  PetscFunctionReturn(0);
}

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

/* Value options that name a file: a comma in them is part of the name, not a list's separator */
static const char *const FileOptions[] = {"-bte_input", "-bte_output", "-bte_restart", "-bte_reference", "-bte_summary", "-bte_perturbo_epr", "-bte_bench_json", "-bte_exchange_nccl_library", NULL};

/* A list value with an empty entry (1,,2; ,1; 1,): PETSc's array readers skip it silently
   (-bte_efield 0,,1000,0 ran as 0,1000,0) or say "String of length zero" without the option */
static PetscErrorCode CheckEmptyEntry(MPI_Comm comm, const char name[], const char value[])
{
  size_t len = strlen(value);
  int    empty;

  PetscFunctionBegin;
  if (!strchr(value, ',') || InList(FileOptions, name)) PetscFunctionReturn(0);
  empty = value[0] == ',' || value[len - 1] == ',' || strstr(value, ",,") != NULL;
  PetscCheck(!empty, comm, PETSC_ERR_USER_INPUT, "%s %s: an empty entry (two commas in a row, or a comma at an end); give a comma-separated list without gaps", name, value);
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
    if (prev && prev[0] == '-' && !(tok[0] == '-' && isalpha((unsigned char)tok[1])) && (InList(IntegerOptions, prev) || InList(ValueOptions, prev))) {
      PetscErrorCode ierr = CheckEmptyEntry(comm, prev, tok);
      if (ierr) {
        PetscCall(PetscFree(all));
        return ierr;
      }
    }
    if (prev && prev[0] == '-' && !(tok[0] == '-' && isalpha((unsigned char)tok[1])))
      for (int k = 0; IntegerOptions[k]; k++)
        if (!strcmp(prev, IntegerOptions[k])) {
          PetscErrorCode ierr = CheckIntegerOption(comm, prev, tok);
          if (ierr) {
            PetscCall(PetscFree(all));
            return ierr;
          }
        }
    /* a file may be named nan or inf */
    if (!prev || strncmp(prev, "-bte_", 5) || (tok[0] == '-' && isalpha((unsigned char)tok[1])) || InList(FileOptions, prev)) continue;
    v = strtod(tok, &end);
    if (end == tok || *end || !(PetscIsInfOrNanReal((PetscReal)v))) continue;
    {
      char name[256], val[64];
      PetscCall(PetscStrncpy(name, prev, sizeof(name))); /* the option as given, its dash included */
      PetscCall(PetscStrncpy(val, tok, sizeof(val)));
      PetscCall(PetscFree(all));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s = %s is not a finite number: give a finite value", name, val);
    }
  }
  PetscCall(PetscFree(all));
  PetscFunctionReturn(0);
}
