# Inputs an audit found accepted and ignored, or refused in words that did not name them: each now
# refused up front in one line naming the option (or, -bte_switch_time -1, accepted as the help says).
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 8"
"$BTE" generate $P -bte_output t8.h5 -bte_view 0 > /dev/null
D="$BTE dynamics -bte_input t8.h5 -bte_view 0 -bte_final_time 10 -bte_output y.h5"
H="$BTE highfield -bte_input t8.h5 -bte_view 0 -bte_output h.h5"
# 1. the drift's options given to a run without a field: there is no drift term to use them
for o in "-bte_drift_mat_type abc" "-bte_drift_form log" "-bte_drift_limiter minmod"; do
  expect_fail "^bte dynamics: error: ${o%% *}: this run has no field (-bte_efield), so it has no drift term and the drift options are not used: leave it out, or give a field" $D $o
done
expect_fail "error: -bte_drift_form, -bte_drift_limiter: this run has no field (-bte_efield), .*leave them out" $D -bte_drift_form muscl -bte_drift_limiter minmod
expect_fail "error: -bte_drift_form, -bte_drift_mat_type: this run has no field" $D -bte_efield 0,0,0 -bte_drift_form upwind -bte_drift_mat_type aij
# with a field they are the drift's, and a bad value is refused as before
expect_fail "bte_drift_mat_type abc: Unknown Mat type" $D -bte_efield 100,0,0 -bte_drift_mat_type abc
$D -bte_efield 100,0,0 -bte_drift_limiter minmod -bte_drift_mat_type aij > /dev/null || { echo "FAIL: a field run with drift options"; exit 1; }
rm -f y.h5
# 2. options of the CUDA kernels and GPU exchanges, on a build without CUDA
if [ "${BTE_HAVE_CUDA:-}" != 1 ]; then
  for o in "-bte_exchange nccl" "-bte_exchange ipc" "-bte_exchange_work_first" "-bte_exchange_nccl_library libnccl.so.2" "-bte_pair_unroll 8" "-bte_pair_reduce_lanes 4" "-bte_pair_reduce_batch 4" "-bte_pair_timeline" "-bte_pair_side_stream 0" "-bte_pair_copy_piece 100" "-bte_pair_select_device 0" "-bte_collision_type tgt -bte_tgt_lanes 32"; do
    n=${o##*-bte_}; n=-bte_${n%% *}
    expect_fail "^bte dynamics: error: $n.*: bte was built without CUDA (docs/gpu.md)" $D $o
  done
  # a bad value is named as such first
  expect_fail "bte_pair_unroll must be 0, 2, 4 or 8, got 3" $D -bte_pair_unroll 3
  $D -bte_exchange scatter > /dev/null || { echo "FAIL: -bte_exchange scatter without CUDA"; exit 1; }
  rm -f y.h5
fi
# 3. two names for the time step: -ts_dt (PETSc 3.25: -ts_time_step) overrode -bte_time_step silently
expect_fail "error: Give either -bte_time_step or -ts_dt, not both" $D -bte_time_step 0.5 -ts_dt 1
expect_fail "error: Give either -bte_time_step or -ts_\(dt\|time_step\), not both" $D -bte_time_step 0.5 -ts_time_step 1
# 4. -bte_switch_time -1 is the default the help shows (no switch); another negative time is refused
$D -bte_switch_time -1 > /dev/null || { echo "FAIL: -bte_switch_time -1 (the default: no switch) refused"; exit 1; }
rm -f y.h5
expect_fail "bte_switch_time must be a time >= 0 fs before the final time, or -1 for no switch, got -2" $D -bte_switch_time -2
# 5. every component of the field direction checked up front, the option and the component named
expect_fail "^bte highfield: error: -bte_efield_direction 1,nan,0: its y component is not a finite number" $H -bte_efield_list 1000 -bte_efield_direction 1,nan,0
expect_fail "^bte highfield: error: -bte_efield_direction 0,1,inf: its z component is not a finite number" $H -bte_efield_list 1000 -bte_efield_direction 0,1,inf
expect_fail "^bte highfield: error: -bte_efield_direction nan,0,0: its x component is not a finite number; the direction must be a finite, nonzero vector" $H -bte_efield_list 1000 -bte_efield_direction nan,0,0
expect_fail "^bte dynamics: error: field component Ey (-bte_efield) = nan V/cm is not a finite number" $D -bte_efield 1,nan,0
# 6. a k grid too small for the drift's finite differences: the grid it needs, named
expect_fail "^bte highfield: error: The drift term of a field needs a k grid of at least 3 points along each reciprocal direction .*got 2 along direction 1: make the table with -bte_grid at least 3" "$BTE" highfield -bte_model gaas -bte_grid 2 -bte_view 0 -bte_efield_list 100 -bte_output h2.h5
# 7. a field listed twice in -bte_efield_list was solved twice
expect_fail "^bte highfield: error: -bte_efield_list: the field 100.\? V/cm is listed twice (entries 1 and 3)" $H -bte_efield_list 100,200,100
expect_fail "listed twice (entries 1 and 2)" $H -bte_efield_list 100,100
exit 0
# transport: a table whose states all have zero velocity (gaas on 2^3) gives no mobility of 0
expect_fail "Every state's group velocity is zero .* the mobility would be 0 by construction; make the table on a finer k grid" "$BTE" transport -bte_model gaas -bte_grid 2 -bte_view 0
# ITA that meets its rule far from the solution (a loose -bte_ita_tol) is NOT CONVERGED by its residual
"$BTE" generate -bte_model parabolic -bte_parabolic_a 40 -bte_grid 12 -bte_view 0 -bte_output ita12.h5 > /dev/null
expect_fail "ITA met its rule (the conductivity changed by less than -bte_ita_tol 0.5) at residual .* above 0.01: not a solution" "$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_transport_method ita -bte_ita_tol 0.5 -bte_output ita.h5
[ ! -e ita.h5 ] || { echo "an unconverged ITA wrote its output"; exit 1; }
"$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_transport_method ita -bte_output ita.h5 | grep -q "^ *300.* 2.7.e-03$" || { echo "the default ITA no longer ends near 2.7e-3"; exit 1; }
# a word on the command line that is neither an option nor its one value (PETSc ignored it: a list
# with spaces ran its first entry only)
expect_fail "'400' on the command line is neither an option nor the value of one (it follows -bte_temperatures 300)" "$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_temperatures 300 400
expect_fail "'info' on the command line is neither an option nor the value of one" "$BTE" info info -bte_input ita12.h5
expect_fail "-bte_temperatures '300, 400': a list is one word without spaces" "$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_temperatures "300, 400"
"$BTE" info -bte_input ita12.h5 -bte_view 0 -bte_diagnostics 0 -bte_temperature -1e-300 > /dev/null 2>&1 || true # a negative number is a value, not an option
echo ok
# the Perturbo import's k grid named twice; transport lists with a repeat; -bte_temperature outside
# -bte_temperatures; a file named nan; the cutoffs named when they dropped every channel; a copy
# buffer larger than memory
/usr/bin/env "$PYTHON" "$TESTDIR/perturbo/make_epr.py" twoband tb_epr.h5 > /dev/null
expect_fail "Give either -bte_grid (n in every direction) or -bte_perturbo_kdim (n1,n2,n3), not both" "$BTE" info -bte_model perturbo -bte_perturbo_epr tb_epr.h5 -bte_perturbo_kdim 6,6,6 -bte_grid 8
expect_fail "The temperature 300. K is listed twice (-bte_temperatures, entries 1 and 3)" "$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_temperatures 300,200,300
expect_fail "The carrier density 1e+17 is listed twice (-bte_carrier_densities, entries 1 and 2)" "$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_carrier_densities 1e17,1e17
expect_fail "-bte_temperature 77. K (the temperature of the setup summary and its diagnostics) is not one of -bte_temperatures" "$BTE" transport -bte_input ita12.h5 -bte_view 0 -bte_temperature 77 -bte_temperatures 300
"$BTE" generate -bte_model parabolic -bte_grid 6 -bte_view 0 -bte_output nan > /dev/null && [ -f nan ] || { echo "a table file named nan was refused"; exit 1; }
"$BTE" info -bte_model gaas -bte_grid 12 -bte_g2_cutoff 1e3 | grep -q "no scattering channel.* or the cutoffs dropped them (-bte_g2_cutoff 1000. eV^2" || { echo "the cutoff is not named"; exit 1; }
expect_fail "The copy-bandwidth measurement (-bte_bench_copy_size, two buffers of that many doubles per rank) needs" "$BTE" bench -bte_input ita12.h5 -bte_bench_reps 1 -bte_memory_limit 1 -bte_bench_copy_size 200000000
expect_fail "-bte_generate_batch sets how much of a table 'bte generate' writes at a time; 'bte transport' builds its table in memory" "$BTE" transport $P -bte_view 0 -bte_generate_batch 100
expect_fail "-bte_collision_refresh keeps what a change of temperature needs" $D -bte_collision_refresh 0
expect_fail "-bte_jacobian_assembled: the explicit method -ts_type rk applies no Jacobian" $D -bte_jacobian_assembled
expect_fail "model parabolic evaluates them one pair at a time" "$BTE" info $P -bte_generate_pair_batch 7
# two dashes: refused by the name as typed (it had been reported as the correct spelling, unused);
# --help and -h after a command are -help
expect_fail "error: --bte_temperature: options take one dash (-bte_temperature)" "$BTE" info -bte_input t8.h5 --bte_temperature 77
for h in --help -h; do
  cmp <("$BTE" info -bte_input t8.h5 $h 2>&1) <("$BTE" info -bte_input t8.h5 -help 2>&1) || { echo "bte info $h is not bte info -help"; exit 1; }
done
# the default -help shows for D_eff is the one in use: giving it changes nothing (0 had been shown,
# which switches the acoustic modes off)
shown=$("$BTE" info -bte_model graphene -bte_grid 24 -help | sed -n 's/.*-bte_graphene_d_ac_eff <\([^ ]*\) .*/\1/p')
d1=$("$BTE" info -bte_model graphene -bte_grid 24 | grep "D_TA =")
d2=$("$BTE" info -bte_model graphene -bte_grid 24 -bte_graphene_d_ac_eff "$shown" | grep "D_TA =")
[ -n "$shown" ] && awk -v a="${d1##*= }" -v b="${d2##*= }" 'BEGIN { exit !(a + 0 > 4 && (a - b) * (a - b) < 1e-8) }' || { echo "D_eff shown as '$shown': '$d1' against '$d2'"; exit 1; }
echo ok
