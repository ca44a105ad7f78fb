# What a dynamics run once did without a word, each now said in one line (or refused):
# - steps too long for the scattering rates, without a field: occupations down to -0.24 and a mean
#   energy a fifth of the right one, exit 0; now a WARNING (at the first snapshot outside: -0.076), and the cost line does not count
#   "0 steps outside [0, 1]" for a check that was off;
# - a fixed step that PETSc cut to a quarter after failed nonlinear solves (50 fs became 0.012 fs,
#   8192 steps for 2): refused at the first such retry;
# - a reference (-bte_reference) of another problem (77 K, 3 kV/cm, balanced delta) compared with a
#   field-free 300 K run, its v_d error 0: refused; another drift form is named in a note;
# - an append counted the file's snapshots as written by the run;
# - a field pulse or a pump outside the run's time span: no field, no carriers, no warning;
# - an adaptive restart does not use -ts_dt: said;
# - solver options given to an explicit method (a forgotten -ts_type bdf): PETSc's TS reads them
#   anyway, so they passed as used; now refused as unused; and -help shows ARKIMEX fully implicit,
#   as bte makes it.
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 16 -bte_view 0"
out=$("$BTE" dynamics $P -bte_final_time 2400 -ts_dt 400 -bte_output_interval 400 2>&1)
grep -q "WARNING: occupations from -0.0[0-9]* to .* outside \[0, 1\]: the time steps are too long for the fastest scattering rates" <<<"$out" || { echo "$out"; echo "FAIL: no warning for a field-free overshoot"; exit 1; }
echo "ok   field-free overshoot warned"
# a loose adaptive run: the guard rejects stages, the range line counts them, positivity was off
out=$("$BTE" dynamics $P -ts_type rk -ts_rk_type 3bs -ts_adapt_type basic -ts_rtol 1e-1 -ts_atol 1e-1 -ts_adapt_dt_max 1000 -bte_final_time 3000 -bte_output_interval 1000 2>&1)
grep -q "range rejections: [0-9]* stages" <<<"$out" && ! grep -q "steps outside \[0, 1\] (-bte_positivity)" <<<"$out" || { echo "$out"; echo "FAIL: the range line counts positivity, which was off"; exit 1; }
out=$("$BTE" dynamics $P -bte_final_time 100 -ts_dt 1 -bte_positivity 2>&1)
grep -q "range rejections: 0 steps outside \[0, 1\] (-bte_positivity)" <<<"$out" || { echo "$out"; echo "FAIL: positivity's count missing"; exit 1; }
echo "ok   the range line counts positivity only when it is on"
expect_fail "A nonlinear solve of the implicit method failed before t = .* fs (6 failures), and PETSc retried the step at a quarter of it each time (now 0.012207 fs): a fixed step (-ts_adapt_type none) is not shortened silently" \
  "$BTE" dynamics $P -bte_final_time 100 -bte_output_interval 50 -options_file "$TESTDIR/../options/implicit.opts" -ts_adapt_type none -ts_dt 50 -snes_max_it 1
"$BTE" dynamics $P -bte_temperature 77 -bte_efield 3000,0,0 -bte_delta balanced -bte_final_time 200 -ts_dt 0.25 -bte_output_interval 50 -bte_output ref77.h5 > /dev/null
expect_fail "The reference ref77.h5: its run was at 77 K, this one at 300 K: -bte_reference compares runs of one problem" "$BTE" dynamics $P -bte_final_time 200 -ts_dt 2 -bte_reference ref77.h5
expect_fail "its run's field differs from this one's within this run's \[0, 200\] fs: at 0.390625 fs (3000, 0, 0) V/cm there, (0, 0, 0) here" "$BTE" dynamics $P -bte_temperature 77 -bte_delta balanced -bte_final_time 200 -ts_dt 2 -bte_reference ref77.h5
expect_fail "its run had -bte_delta balanced, this one perturbo" "$BTE" dynamics $P -bte_temperature 77 -bte_efield 3000,0,0 -bte_final_time 200 -ts_dt 2 -bte_reference ref77.h5
out=$("$BTE" dynamics $P -bte_temperature 77 -bte_efield 3000,0,0 -bte_delta balanced -bte_final_time 200 -ts_dt 2 -bte_output_interval 50 -bte_reference ref77.h5 -bte_drift_form log)
grep -q "dynamics: note: the reference used -bte_drift_form muscl, this run log: the errors include the difference of the two forms" <<<"$out" || { echo "$out"; echo "FAIL: no note on the drift forms"; exit 1; }
echo "ok   the reference's problem checked"
"$BTE" dynamics $P -bte_final_time 100 -bte_output c.h5 > /dev/null
out=$("$BTE" dynamics $P -bte_final_time 230 -bte_output_interval 40 -bte_output c.h5 -bte_init restart -bte_restart c.h5 -bte_summary c.json)
grep -q "dynamics: wrote 4 snapshots to c.h5, which now holds 7" <<<"$out" || { echo "$out"; echo "FAIL: the append's count"; exit 1; }
grep -q '"snapshots_written": 4,' c.json && grep -q '"snapshots_in_file": 7,' c.json || { cat c.json; echo "FAIL: the summary's counts"; exit 1; }
echo "ok   an append counts its own snapshots"
out=$("$BTE" dynamics $P -bte_final_time 200 -bte_efield 2000,0,0 -bte_efield_profile pulse -bte_efield_time 5000)
grep -q "field: WARNING the pulse of -bte_efield_profile pulse at 5000 fs (FWHM .* fs) lies outside this run's \[0, 200\] fs" <<<"$out" || { echo "$out"; echo "FAIL: no warning for a pulse after the run"; exit 1; }
out=$("$BTE" dynamics $P -bte_final_time 200 -bte_pump_density 1e17 -bte_pump_time -1000)
grep -q "pump: WARNING the pulse at -1000 fs (FWHM .* fs) is over before the initial time 0 fs" <<<"$out" || { echo "$out"; echo "FAIL: no warning for a pump before the run"; exit 1; }
echo "ok   a pulse or pump outside the run warned"
A="-options_file $TESTDIR/../options/adaptive.opts"
"$BTE" dynamics $P $A -bte_final_time 200 -bte_output ad.h5 > /dev/null
out=$("$BTE" dynamics $P $A -bte_final_time 400 -bte_output ad2.h5 -bte_init restart -bte_restart ad.h5 -ts_dt 0.01)
grep -q "time step: the restart continues with the adaptive step of the run that wrote the snapshot, .* fs; not used: -ts_dt 0.01" <<<"$out" || { echo "$out"; echo "FAIL: -ts_dt ignored without a word"; exit 1; }
echo "ok   an adaptive restart says it does not use -ts_dt"
expect_fail "unused option(s): -ksp_type cg -pc_type jacobi (the explicit method -ts_type rk solves no linear or nonlinear systems" "$BTE" dynamics $P -bte_final_time 10 -ksp_type cg -pc_type jacobi
"$BTE" dynamics $P -bte_final_time 10 -options_file "$TESTDIR/../options/implicit.opts" > /dev/null
"$BTE" dynamics -help -ts_type arkimex | grep -q "ts_arkimex_fully_implicit: <\(now \)\?TRUE" || { echo "FAIL: -help shows PETSc's ARKIMEX default, not bte's"; exit 1; }
echo "ok   solver options of an explicit method refused; ARKIMEX's default in -help"
