# bte <command> -help lists the options of the command and of every object it creates, with
# their defaults, and exits 0 without a table: the BTE's, every model's (or the chosen model's
# only), and where the command builds a collision operator, the operator's with the default
# type's (pair), the state vectors' and the solvers'. What -help lists is what the command
# accepts: an option of an object the command does not create is unused, an error.
. "$TESTDIR/common.sh"
set -e
need() { # need COMMAND PATTERN...: every pattern in 'bte COMMAND -help'
  local c=$1 out; shift
  out=$("$BTE" $c -help 2>&1) || { echo "bte $c -help: exit $?"; echo "$out" | tail -n 5; exit 1; }
  for p in "$@"; do grep -Eq -- "$p" <<<"$out" || { echo "bte $c -help lacks '$p'"; exit 1; }; done
  echo "bte $c -help: exit 0, lists $*"
}
models="-bte_perturbo_epr -bte_perturbo_kdim -bte_gaas_lo -bte_parabolic_mass -bte_graphene_band -bte_si_holes_soc"
bte="-bte_input -bte_model -bte_temperature.*300 -bte_smearing.*0\.01 -bte_delta.*perturbo -bte_io_chunk -bte_generate_batch"
need generate -bte_output -bte_generate_stream $bte $models
need info -bte_info_channels $bte $models
need dynamics -bte_init -bte_time_step -ts_type -vec_type -bte_collision_type "-bte_pair_tile.*256" -bte_pair_chunk "-bte_pair_overlap_polls.*8" -bte_drift_mat_type $bte $models
need transport -bte_transport_method -bte_temperatures "-bte_collision_refresh.*FALSE" -bte_transport_ksp_type -vec_type -bte_collision_type "-bte_pair_tile.*256" $bte $models
need highfield -bte_efield_list -bte_highfield_method -bte_highfield_snes_type -vec_type "-bte_pair_tile.*256" -bte_drift_form $bte $models
need bench -bte_bench_types -bte_bench_reps -bte_bench_pipelined -vec_type "-bte_pair_tile.*256" "-bte_pair_reduce_lanes.*8" $bte $models
# bte highfield refuses the drift's -bte_efield (its fields: -bte_efield_list): its -help leaves it
# out of the drift's options, which bte dynamics lists with it
out=$("$BTE" highfield -help 2>&1)
! grep -Eq -- "-bte_efield[ :]" <<<"$out" || { echo "bte highfield -help lists -bte_efield, which it refuses"; exit 1; }
need highfield -bte_drift_limiter -bte_drift_mat_type
need dynamics "-bte_efield[ :].*BTEDynamicsSetField" "-bte_drift_limiter"
# no command lists one of bte's options twice (the dynamics reads the field and the drift form for
# its drift, which leaves them out of its own list); the options bte's objects read (their manual
# page, at the end, is a BTE function or object), not those of PETSc's solvers under a bte prefix,
# some of which PETSc lists twice itself
for c in generate info dynamics transport highfield bench; do
  twice=$("$BTE" $c -help 2>&1 | grep -E "\((BTE|PCBTE)[A-Za-z_]*\)$" | grep -o -- "^  -[a-z0-9_]*" | sort | uniq -d | tr '\n' ' ')
  [ -z "$twice" ] || { echo "bte $c -help lists twice: $twice"; exit 1; }
done
echo "no command's -help lists a -bte_ option twice"
# the transport KSP's side and norm as used: right, the true residual (set before its SetFromOptions)
need transport "-bte_transport_ksp_pc_side:? <now RIGHT" "-bte_transport_ksp_norm_type:? <now UNPRECONDITIONED"
# the driver's own option
need info -bte_traceback
# a chosen model: its options only
out=$("$BTE" transport -bte_model gaas -help)
grep -q -- "-bte_gaas_intervalley" <<<"$out" && ! grep -q -- "-bte_perturbo_epr" <<<"$out" || { echo "bte transport -bte_model gaas -help: not gaas's options only"; exit 1; }
# -help needs no table, and with one it reads nothing (a missing file is no error)
"$BTE" transport -bte_input missing.h5 -help >/dev/null
# another collision type: its options
"$BTE" dynamics -bte_collision_type pair -help | grep -q -- "-bte_pair_unroll"
# generate and info build no collision operator: its options are not theirs
! "$BTE" info -help | grep -q -- "-bte_pair_tile"
expect_fail "unused option(s): -bte_pair_tile 64" "$BTE" info -bte_model parabolic -bte_grid 4 -bte_pair_tile 64
# the assembled Jacobian's matrix options, made only at setup, are listed (-bte_jacobian_mat_type)
need dynamics "-bte_jacobian_mat_type"
# CG's norm as used: unpreconditioned (set before its SetFromOptions too)
"$BTE" transport -bte_transport_ksp_type cg -help | grep -Eq -- "-bte_transport_ksp_norm_type:? <now UNPRECONDITIONED" || { echo "transport -help with cg: not the norm used"; exit 1; }
