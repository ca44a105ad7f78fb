# Options that the command does not use (misspelled, or meant for another command) make the run
# fail with one line naming them (PETSc's -options_left, on by default in the driver and made an
# error); -options_left 0 accepts them. -bte_ options are checked before the work starts (no
# output written), the others when the run ends (dynamics: once it is set up, before its first
# step and output); options in PETSC_OPTIONS are exempt.
. "$TESTDIR/common.sh"
set -e
M="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 8"
one_line() { # the failure is one line on stderr that names the option
  local err rc
  err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
  [ $rc -ne 0 ] || { echo "expected failure: $*"; exit 1; }
  [ "$(grep -c . <<<"$err")" -eq 1 ] || { echo "more than one line on stderr for: $*"; echo "$err"; exit 1; }
  echo "exit $rc: $err"
}
expect_fail "unused option(s): -bte_temprature 77 " "$BTE" info $M -bte_temprature 77
one_line "$BTE" info $M -bte_temprature 77
# turned off: the run proceeds (at the default temperature)
"$BTE" info $M -bte_temprature 77 -options_left 0 | grep -q "temperature: 300\. K"
"$BTE" info $M -bte_temprature 77 -options_left false >/dev/null
# -bte_view 0: info reads and checks, prints nothing, exit 0
[ -z "$("$BTE" info $M -bte_view 0)" ] || { echo "FAIL: info -bte_view 0 printed something"; exit 1; }
# spelled right: used
"$BTE" info $M -bte_temperature 77 | grep -q "temperature: 77\. K"
# checked before the work: no table written
expect_fail "unused option(s): -bte_grd 12" "$BTE" generate $M -bte_output t.h5 -bte_grd 12
[ ! -e t.h5 ] || { echo "generate wrote t.h5 despite the unused option"; exit 1; }
"$BTE" generate $M -bte_output t.h5 -bte_view 0 >/dev/null
# a solver option misspelled: found when the run ends, exit nonzero
expect_fail "unused option(s): -bte_transport_ksp_tpye cg" "$BTE" transport -bte_input t.h5 -bte_view 0 -bte_transport_ksp_tpye cg
one_line "$BTE" transport -bte_input t.h5 -bte_view 0 -bte_transport_ksp_tpye cg
"$BTE" transport -bte_input t.h5 -bte_view 0 -bte_transport_ksp_tpye cg -options_left 0 >/dev/null
# dynamics writes its file as it goes: a misspelled option is found once the run is set up,
# before the first step and before the output is opened (no file, no step taken)
D="$BTE dynamics -bte_input t.h5 -bte_view 0 -bte_final_time 2 -bte_time_step 1 -bte_output d.h5"
for o in "-ts_tpye rk|-ts_tpye rk" "-ts_type bdf -ts_bdf_ordr 2|-ts_bdf_ordr 2" "-ts_type rosw -sw_ts_type rk|-sw_ts_type rk" "-ts_type rk -ts_bdf_order 2|-ts_bdf_order 2"; do
  bad=${o#*|}; o=${o%|*}
  rm -f d.h5
  out=$($D $o 2>&1) && { echo "dynamics $o: exit 0"; exit 1; }
  grep -q "unused option(s): ${bad}" <<<"$out" || { echo "dynamics $o: no unused-option line naming ${bad}:"; echo "$out"; exit 1; }
  ! grep -q "steps" <<<"$out" || { echo "dynamics $o: stepped before the check:"; echo "$out"; exit 1; }
  [ ! -e d.h5 ] || { echo "dynamics $o wrote d.h5 despite the unused option"; exit 1; }
done
one_line $D -ts_tpye rk
# options read only when the integrator is set up (-ts_bdf_order), or by the second method of a
# switched run (sw_), and viewers read when the run ends are not unused
$D -ts_type bdf -ts_bdf_order 3 -ts_view -ksp_converged_reason >/dev/null
$D -bte_switch_time 1 -sw_ts_type bdf -sw_ts_bdf_order 2 >/dev/null
$MPIEXEC -n ${TEST_NP:-2} $D -ts_type bdf -ts_bdf_order 3 >/dev/null
rm -f d.h5
# several at once, all named
expect_fail "unused option(s): .*-bte_foo 1" "$BTE" info -bte_input t.h5 -bte_foo 1 -bte_bar
expect_fail "unused option(s): .*-bte_bar" "$BTE" info -bte_input t.h5 -bte_foo 1 -bte_bar
# an option of another command
expect_fail "unused option(s): -bte_transport_method rta" "$BTE" info -bte_input t.h5 -bte_transport_method rta
# PETSc's own options that PetscFinalize reads are not unused
"$BTE" info -bte_input t.h5 -log_view -options_view -memory_view >/dev/null
# PETSC_OPTIONS holds settings for any program: exempt
PETSC_OPTIONS="-vec_type standard" "$BTE" info -bte_input t.h5 >/dev/null
# on several ranks: the same failure
expect_fail "unused option(s): -bte_temprature 77" $MPIEXEC -n ${TEST_NP:-2} "$BTE" info -bte_input t.h5 -bte_temprature 77
expect_fail "unused option(s): -bte_transport_ksp_tpye cg" $MPIEXEC -n ${TEST_NP:-2} "$BTE" transport -bte_input t.h5 -bte_view 0 -bte_transport_ksp_tpye cg
