# An append continues one run, so what else decides the result must be the file's run too, or the
# append is refused with one line (each of these had been appended silently, leaving a file whose
# attributes describe another run): the energy bins' width (a step giving as many bins), the field
# step's time and the pulse's width, the pump's time and energy, collisions off, the muscl
# limiter, renormalisation, the collision operator's precision. An append without a reference drops the file's reference errors
# (they described only the run that wrote it). A restart with -bte_steady_threshold stops where
# the uninterrupted run does (its count of quiet intervals goes on from the file). A file another
# run is writing is named as such, not as damaged; an output given as a table is named as an output.
# The run names the snapshot it continues and where it writes.
. "$TESTDIR/common.sh"
set -e
C="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0 -bte_output_interval 20 -bte_efield 2000,0,0"
R="-bte_init restart -bte_final_time 200"
H="the file's attributes describe the run that made it"
"$BTE" dynamics $C -bte_final_time 100 -bte_output a.h5 > /dev/null
expect_fail "its energy bins are 0.005 eV wide, this run's 0.00495 eV" "$BTE" dynamics $C $R -bte_output_energy_step 0.00495 -bte_restart a.h5 -bte_output a.h5
expect_fail "its run had -bte_scattering 1, this one 0: $H" "$BTE" dynamics $C $R -bte_scattering 0 -bte_restart a.h5 -bte_output a.h5
expect_fail "its run had -bte_normalize 0, this one 1: $H" "$BTE" dynamics $C $R -bte_normalize -bte_restart a.h5 -bte_output a.h5
expect_fail "its run had -bte_collision_precision double, this one mixed: $H" "$BTE" dynamics $C $R -bte_collision_precision mixed -bte_restart a.h5 -bte_output a.h5
"$BTE" dynamics $C -bte_efield_profile step -bte_efield_time 50 -bte_final_time 100 -bte_output st.h5 > /dev/null
expect_fail "its run had -bte_efield_time 50 fs, this one 150 fs: $H" "$BTE" dynamics $C $R -bte_efield_profile step -bte_efield_time 150 -bte_restart st.h5 -bte_output st.h5
"$BTE" dynamics $C -bte_efield_profile pulse -bte_efield_time 100 -bte_efield_fwhm 50 -bte_final_time 100 -bte_output pu.h5 > /dev/null
expect_fail "its run had -bte_efield_fwhm 50 fs, this one 200 fs: $H" "$BTE" dynamics $C $R -bte_efield_profile pulse -bte_efield_time 100 -bte_efield_fwhm 200 -bte_restart pu.h5 -bte_output pu.h5
P="-bte_init fermi -bte_carrier_density 1e16 -bte_pump_density 1e17"
"$BTE" dynamics $C $P -bte_final_time 100 -bte_output pp.h5 > /dev/null
expect_fail "its run had -bte_pump_time 150 fs, this one 250 fs: $H" "$BTE" dynamics $C $P $R -bte_pump_time 250 -bte_restart pp.h5 -bte_output pp.h5
expect_fail "its run had -bte_pump_e0_edge 0.1 eV, this one 0.2 eV: $H" "$BTE" dynamics $C $P $R -bte_pump_e0_edge 0.2 -bte_restart pp.h5 -bte_output pp.h5
"$BTE" dynamics $C -bte_drift_form muscl -bte_final_time 100 -bte_output m.h5 > /dev/null
expect_fail "its run had -bte_drift_limiter vanleer, this one minmod: $H" "$BTE" dynamics $C $R -bte_drift_form muscl -bte_drift_limiter minmod -bte_restart m.h5 -bte_output m.h5
# the same options append (the refusals above left every file as it was)
"$BTE" dynamics $C $R -bte_drift_form muscl -bte_restart m.h5 -bte_output m.h5 > /dev/null
"$BTE" dynamics $C $P $R -bte_restart pp.h5 -bte_output pp.h5 > /dev/null
out=$("$BTE" dynamics $C $R -bte_restart a.h5 -bte_output a.h5)
grep -qx "dynamics: restart from a.h5 at t = 100. fs (step 100, its last of 6 snapshots); appending to it" <<<"$out" || { echo "FAIL: the restart line: $out"; exit 1; }
# the reference errors of the run that wrote the file do not stay beside an append without one
"$BTE" dynamics $C -ts_dt 0.25 -bte_final_time 200 -bte_output ref.h5 > /dev/null
"$BTE" dynamics $C -ts_dt 2 -bte_final_time 100 -bte_reference ref.h5 -bte_output rg.h5 > /dev/null
"$BTE" dynamics $C -ts_dt 2 $R -bte_restart rg.h5 -bte_output rg.h5 > /dev/null
# an output given as a table is named as what it is
expect_fail "it is the output of 'bte dynamics' (group /dynamics), not a scattering table" "$BTE" info -bte_input rg.h5
# -bte_steady_threshold: interrupted at an output time and continued, it stops where one run stops
S="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0 -bte_efield 1000,0,0 -bte_output_interval 50 -bte_init fermi -bte_carrier_density 1e17 -bte_steady_threshold 1e16"
one=$("$BTE" dynamics $S -bte_final_time 20000 -bte_output full.h5 | grep "dynamics: steady state at")
[ -n "$one" ] || { echo "FAIL: the uninterrupted run did not reach the steady state"; exit 1; }
t=$(sed 's/.*at t = \([0-9.]*\) fs.*/\1/' <<<"$one")
cut=$(awk -v t="$t" 'BEGIN { print t - 50 }')
"$BTE" dynamics $S -bte_final_time "$cut" -bte_output s.h5 > /dev/null
two=$("$BTE" dynamics $S -bte_final_time 20000 -bte_init restart -bte_restart s.h5 -bte_output s.h5 | grep "dynamics: steady state at")
[ "$one" = "$two" ] || { echo "FAIL: continued at $cut fs: '$two' against '$one'"; exit 1; }
echo "ok: steady state at $t fs, interrupted at $cut fs and continued: $two"
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then
  "$PYTHON" -c "
import h5py
g = h5py.File('rg.h5', 'r')['dynamics']
assert 'reference_error' not in g and list(g['time'][()]) == [0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200], list(g)
print('ok: the append without a reference dropped the reference errors')"
  PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 "$PYTHON" -c "
import bte
try:
    bte.Table('rg.h5')
    raise SystemExit('FAIL: a dynamics output read as a table')
except bte.BTEFileError as e:
    assert \"the output of 'bte dynamics'\" in str(e), e
print('ok: bte.Table names a dynamics output as such')"
  # a file another process holds open for writing (HDF5's lock): named, not called damaged
  "$PYTHON" -c "
import h5py, time, sys
f = h5py.File('a.h5', 'r+', locking=True) if tuple(h5py.version.version_tuple[:2]) >= (3, 5) else h5py.File('a.h5', 'r+')
open('locked', 'w').close(); time.sleep(20)" &
  for k in $(seq 50); do [ -e locked ] && break; sleep 0.2; done
  out=$("$BTE" dynamics $C -bte_init restart -bte_final_time 300 -bte_restart a.h5 -bte_output b.h5 2>&1) && rc=0 || rc=$?
  kill %1 2>/dev/null || true; wait 2>/dev/null || true
  if grep -q "unable to lock\|lock" <<<"$out" || [ $rc -ne 0 ]; then
    grep -q "another process has it open for writing" <<<"$out" || { echo "FAIL: $out"; exit 1; }
    echo "ok: a locked restart file is named as such"
  else
    echo "note: this HDF5 does not lock files (the restart read it): the lock message is not checked"
  fi
fi
