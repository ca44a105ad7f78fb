#!/bin/bash
# Where the finite-state guard looks (-bte_state_check, docs/dynamics.md). -log_view's BTEStateCheck
# count of a clean adaptive RK 5(4) run is one per step under step and one per stage and step under
# stage (plus the initial state's). With step, a loose adaptive RK 3(2) run whose results leave
# [-0.1, 1.1] (-bte_state_tolerance 0.1) is rolled back and retried at half the step: it ends in
# range, the rollbacks are counted in the printed cost, the JSON summary and the "rejected" count,
# and it makes fewer checks than the stage check of the same run. A fixed step that leaves the range stops with the guard's line under step and
# under none (none checks the snapshots); an unstable adaptive run still finishes under step (the
# error estimate rejects the step, the retry starts from the saved state). auto is stage on host
# vectors; a bad value is refused with one line; -help shows the option.
. "$TESTDIR/common.sh"
set -e
fail() { echo "FAIL: $*"; exit 1; }
# the count of an event in -log_view's table (its second column), 0 if absent
event() { awk -v e="$2" '$1 == e { print $2; found = 1; exit } END { if (!found) print 0 }' "$1"; }
P="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0"
Q="$P -bte_init gaussian -bte_init_occupation 1 -bte_init_e0_edge 0.05 -ts_type rk -ts_rk_type 3bs -ts_adapt_type basic -ts_rtol 1 -ts_atol 1 -ts_dt 20 -bte_state_tolerance 0.1 -bte_final_time 1000 -bte_output_interval 250"

# a clean adaptive run (RK 5(4), no rejection): one check per step under step, one per stage
# (7, the FSAL one included) and per step under stage, and the initial state's
for m in step stage; do
  "$BTE" dynamics $P -options_file "$TESTDIR/../options/adaptive.opts" -ts_dt 1 -bte_final_time 300 -bte_output_interval 100 -bte_state_check $m -log_view > clean_$m.log
done
steps=$(sed -n 's/^dynamics: cost: \([0-9]*\) steps, 0 rejected.*/\1/p' clean_step.log)
[ -n "$steps" ] && [ "$steps" -gt 5 ] || { grep "^dynamics:" clean_step.log; fail "the clean adaptive run rejected steps"; }
grep -q "^dynamics: cost: $steps steps, 0 rejected" clean_stage.log || fail "stage and step took different steps"
[ "$(event clean_step.log TSStep)" -eq "$steps" ] || fail "step: TSStep events != steps"
[ "$(event clean_step.log BTEStateCheck)" -eq $((steps + 1)) ] || fail "step: $(event clean_step.log BTEStateCheck) BTEStateCheck events for $steps steps, expected $((steps + 1))"
[ "$(event clean_stage.log BTEStateCheck)" -eq $((8 * steps + 1)) ] || fail "stage: $(event clean_stage.log BTEStateCheck) BTEStateCheck events for $steps steps, expected $((8 * steps + 1))"
echo "ok: RK 5(4), $steps steps: $((steps + 1)) state checks under step, $((8 * steps + 1)) under stage"

# a loose RK 3(2) run leaving [-0.1, 1.1]: rolled back, retried and counted under step
"$BTE" dynamics $Q -bte_state_check step -bte_output step.h5 -bte_summary step.json -log_view > step.log
"$BTE" dynamics $Q -bte_state_check stage -log_view > stage.log
grep "^dynamics: \(t =\|cost\|range\)" step.log stage.log
grep -q "CONVERGED_TIME" step.log || { cat step.log; fail "the step-checked run did not finish"; }
n=$(sed -n 's/.* stages and \([0-9]*\) steps outside the finite-state guard (-bte_state_check step).*/\1/p' step.log)
[ -n "$n" ] && [ "$n" -ge 1 ] || { cat step.log; fail "no step rolled back by the guard (range rejections line)"; }
steps=$(sed -n 's/^dynamics: cost: \([0-9]*\) steps, \([0-9]*\) rejected.*/\1/p' step.log)
rej=$(sed -n 's/^dynamics: cost: \([0-9]*\) steps, \([0-9]*\) rejected.*/\2/p' step.log)
[ "$rej" -ge "$n" ] || fail "cost line: $rej rejected < $n guard rollbacks"
grep -q "after $steps steps ($rej rejected)" step.log || { grep "^dynamics: t =" step.log; fail "the run line does not count the $rej rejected steps"; }
chk=$(event step.log BTEStateCheck); tss=$(event step.log TSStep); schk=$(event stage.log BTEStateCheck)
[ "$tss" -ge $((steps + n)) ] || fail "step: $tss TSStep events, expected $steps accepted + $n rolled back"
# one per TSStep and the initial state's; the retries of rejected steps (at most 4 stages each) have their stages checked too
[ "$chk" -ge $((tss + 1)) ] && [ "$chk" -le $((tss + 1 + 4 * rej)) ] || fail "step: $chk BTEStateCheck events, expected $((tss + 1)) (one per TSStep) to $((tss + 1 + 4 * rej)) (with the stages of $rej retries)"
[ "$schk" -gt "$chk" ] || fail "stage: $schk checks, not more than step's $chk"
echo "ok: step: $steps steps, $n rolled back by the guard, $chk state checks for $tss TSSteps (stage: $schk)"
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then
  N=$n "$PYTHON" - <<'PY'
import h5py, json, os, numpy as np
s = json.load(open("step.json"))
n = int(os.environ["N"])
assert s["state_check"] == "step" and s["guard_rejections"] == n and s["rejected_steps"] >= n, s
g = h5py.File("step.h5", "r")["dynamics"]
f = g["occupations"][:len(g["time"])]
assert len(g["time"]) == 5 and np.all(np.isfinite(f)) and f.min() >= -0.1 and f.max() <= 1.1, (g["time"][()], f.min(), f.max())
print("ok: JSON (state_check step, %d guard rejections) and %d snapshots in [%.3g, %.3g]" % (n, len(g["time"]), f.min(), f.max()))
PY
fi
# fixed steps: the unstable step stops the run with the guard's line (step: at the step; none: at the snapshot)
U="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500"
expect_fail "has occupations from .* outside \[-0.5, 1.5\] .* is unstable or inaccurate" timeout 60 "$BTE" dynamics $U -bte_state_check step
expect_fail "is not finite (NaN or Inf)" timeout 60 "$BTE" dynamics $U -bte_state_check none -bte_state_tolerance -1
expect_fail "is unstable or inaccurate" timeout 60 $MPIEXEC -n ${TEST_NP:-2} "$BTE" dynamics $U -bte_state_check step
# fixed RK4: one check per step (and the initial state's)
"$BTE" dynamics $P -bte_time_step 10 -bte_final_time 100 -bte_output_interval 100 -bte_state_check step -log_view > fixed.log
[ "$(event fixed.log BTEStateCheck)" -eq 11 ] || fail "fixed RK4, 10 steps: $(event fixed.log BTEStateCheck) state checks, expected 11"
echo "ok: fixed RK4 under step: 11 state checks for 10 steps"
# adaptive from an unstable first step: the error estimate rejects it, the retry starts afresh
"$BTE" dynamics $U -bte_final_time 2000 -ts_rk_type 5dp -ts_adapt_type basic -bte_state_check step > adapt.txt
grep -q "CONVERGED_TIME" adapt.txt && ! grep -qi "nan" adapt.txt && grep -q "([1-9][0-9]* rejected)" adapt.txt || { cat adapt.txt; fail "adaptive run from an unstable step under step"; }
echo "ok: adaptive RK 5(4) from an unstable step finishes under step"
# auto: stage on host vectors, said in the run's summary; bad values; -help
"$BTE" dynamics -bte_model parabolic -bte_grid 8 -bte_final_time 10 -bte_output_interval 10 > view.txt
grep -q "state check: stage (auto)" view.txt || { cat view.txt; fail "auto is not stage on host vectors"; }
expect_fail "Unknown -bte_state_check bogus: use auto, stage, step or none" "$BTE" dynamics $P -bte_state_check bogus
"$BTE" dynamics -help > help.txt 2>&1
grep -Eq -- "-bte_state_check:? <now auto" help.txt || fail "-help does not show -bte_state_check"
echo "ok: auto, bad value, -help"
