# How a run ends: on its final time exactly (no rounding-sized last step), not after it
# (-ts_exact_final_time other than matchstep refused), and a run that stops early (-ts_max_steps)
# says so and leaves its file complete = 0 and its summary "complete": false. ARKIMEX is fully
# implicit by default, so options/implicit-twolevel.opts takes -ts_type rosw / bdf as it says.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0"
# 0.1 fs steps reach 99.9999999999986 fs for 100: 1000 steps, not 1001 with a 1.4e-12 fs last one
out=$("$BTE" dynamics $P -ts_dt 0.1 -bte_final_time 100 -bte_output_interval 0.1 -bte_output fine.h5)
grep -q "t = 100. fs after 1000 steps" <<<"$out" || { echo "$out"; echo "FAIL: 0.1 fs steps to 100 fs"; exit 1; }
grep -q "cost: 1000 steps, 0 rejected, 4000 collision applies" <<<"$out" || { echo "$out"; echo "FAIL: cost of 1000 steps"; exit 1; }
"$PYTHON" -c "
import h5py; t = h5py.File('fine.h5', 'r')['dynamics/time'][...]
assert len(t) == 1001 and t[-1] == 100.0, (len(t), repr(t[-1])); print('ok: 1001 snapshots, the last at 100 fs exactly')"
# stepover and interpolate: refused before the table is read (one line)
for e in stepover interpolate; do
  expect_fail "ts_exact_final_time .*lands its steps on the output times and the final time itself" "$BTE" dynamics $P -bte_final_time 100 -ts_exact_final_time $e
done
expect_fail "sw_ts_exact_final_time .*lands its steps" "$BTE" dynamics $P -bte_final_time 100 -bte_switch_time 50 -sw_ts_exact_final_time interpolate
# -ts_max_steps before the final time: said, complete = 0, summary complete false; exit 0
out=$("$BTE" dynamics $P -bte_final_time 100 -bte_output_interval 30 -ts_dt 7 -ts_max_steps 8 -bte_output ms.h5 -bte_summary ms.json)
grep -q "WARNING the run stopped at t = 51. fs, before its final time 100. fs (CONVERGED_ITS): -ts_max_steps 8 reached" <<<"$out" || { echo "$out"; echo "FAIL: early stop not said"; exit 1; }
"$PYTHON" - <<'PY'
import h5py, json
f = h5py.File('ms.h5', 'r'); s = json.load(open('ms.json'))
assert f.attrs['complete'] == 0 and list(f['dynamics/time'][...]) == [0, 30, 51], (f.attrs['complete'], f['dynamics/time'][...])
assert s['complete'] is False and s['final_time'] == 51 and s['requested_final_time'] == 100, s
print('ok: stopped at 51 fs of 100: complete = 0, summary complete false')
PY
# the same run to its end: complete
"$BTE" dynamics $P -bte_final_time 100 -bte_output_interval 30 -ts_dt 7 -bte_output full.h5 -bte_summary full.json | grep -q "WARNING the run stopped" && { echo "FAIL: a whole run said it stopped early"; exit 1; }
"$PYTHON" -c "
import h5py, json; assert h5py.File('full.h5', 'r').attrs['complete'] == 1 and json.load(open('full.json'))['complete'] is True; print('ok: the whole run is complete')"
# a restart from the stopped run's last snapshot goes on to 100 fs and matches the whole run
"$BTE" dynamics $P -bte_final_time 100 -bte_output_interval 30 -ts_dt 7 -bte_init restart -bte_restart ms.h5 -bte_output ms.h5 > /dev/null
"$PYTHON" - <<'PY'
import h5py, numpy as np
a = h5py.File('ms.h5', 'r'); b = h5py.File('full.h5', 'r')
assert a.attrs['complete'] == 1 and list(a['dynamics/time'][...]) == [0, 30, 51, 60, 90, 100], a['dynamics/time'][...]
d = np.abs(a['dynamics/occupations'][-1] - b['dynamics/occupations'][-1]).max()
assert a['dynamics/time'][-1] == 100 and d < 1e-14, (a['dynamics/time'][...], d)
print('ok: the restart completes the stopped run (max |df| %.1e against the whole run)' % d)
PY
# ARKIMEX: fully implicit without the option, the same run as with it; 0 gives the IMEX form back
"$BTE" dynamics $P -bte_final_time 50 -ts_type arkimex -ts_dt 5 -pc_type jacobi -bte_output a1.h5 > /dev/null
"$BTE" dynamics $P -bte_final_time 50 -ts_type arkimex -ts_arkimex_fully_implicit -ts_dt 5 -pc_type jacobi -bte_output a2.h5 > /dev/null
"$BTE" dynamics $P -bte_final_time 50 -ts_type arkimex -ts_arkimex_fully_implicit 0 -ts_dt 1 -pc_type jacobi -bte_output a3.h5 > /dev/null
"$BTE" dynamics $P -bte_final_time 50 -ts_type arkimex -ts_arkimex_fully_implicit -ts_dt 1 -pc_type jacobi -bte_output a4.h5 > /dev/null
"$PYTHON" - <<'PY'
import h5py, numpy as np
f = [h5py.File(n, 'r')['dynamics/occupations'][-1] for n in ('a1.h5', 'a2.h5', 'a3.h5', 'a4.h5')]
assert np.array_equal(f[0], f[1]), 'arkimex default differs from -ts_arkimex_fully_implicit'
d = np.abs(f[2] - f[3]).max()
assert d > 1e-12, 'with -ts_arkimex_fully_implicit 0 the same run as fully implicit'
print('ok: -ts_type arkimex is the fully implicit method (bitwise); -ts_arkimex_fully_implicit 0 is honoured (the IMEX form differs by %.1e)' % d)
PY
# the alternatives implicit-twolevel.opts names run from it
for t in rosw bdf; do
  "$BTE" dynamics $P -bte_final_time 50 -options_file "$TESTDIR/../options/implicit-twolevel.opts" -ts_type $t -bte_output tl_$t.h5 > /dev/null || { echo "FAIL: implicit-twolevel.opts -ts_type $t"; exit 1; }
done
echo "ok: implicit-twolevel.opts with -ts_type rosw and bdf"
