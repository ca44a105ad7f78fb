# Cost accounting: the counts of the end-of-run summary, of /dynamics/cost and of -bte_summary
# (JSON) agree with -log_view's event counts (TSStep, BTECollApply, BTECollJacApply) for fixed-step
# RK4, adaptive RK 5(4) (with rejected steps), and adaptive BDF2 with Newton-GMRES (nonlinear and
# linear iterations, Jacobian applies); the summary refuses to overwrite an input or the output.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
OPTS="$TESTDIR/../options"
# the setup diagnostics (docs/diagnostics.md) use the run's operator before the run (1 apply and a
# GMRES solve): they are setup, not the run's cost, so they are off here for the event counts to match
P="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_final_time 300 -bte_output_interval 100 -bte_dynamics_monitor 0 -bte_diagnostics 0"
"$BTE" dynamics $P -bte_time_step 1 -bte_output rk4.h5 -bte_summary rk4.json -log_view > rk4.log
# a first step far too large for the error estimate: the adaptor rejects steps
"$BTE" dynamics $P -options_file "$OPTS/adaptive.opts" -ts_dt 50 -ts_rtol 1e-8 -bte_output adapt.h5 -bte_summary adapt.json -log_view > adapt.log
"$BTE" dynamics $P -bte_efield 1000,0,0 -bte_drift_form plain -options_file "$OPTS/implicit.opts" -bte_output bdf.h5 -bte_summary bdf.json -log_view > bdf.log
grep "dynamics: cost" rk4.log adapt.log bdf.log
"$PYTHON" - <<'PY'
import h5py, json, re, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
def event(log, name):
    for line in open(log):
        w = line.split()
        if w and w[0] == name: return int(w[1])
    return 0
for run in ("rk4", "adapt", "bdf"):
    js = json.load(open(run + ".json"))
    at = dict(h5py.File(run + ".h5", "r")["dynamics/cost"].attrs)
    line = [l for l in open(run + ".log") if l.startswith("dynamics: cost:")][0]
    printed = [int(x) for x in re.findall(r"(\d+) (?:steps|rejected|collision applies|Jacobian applies|nonlinear|linear)", line)]
    keys = ["steps", "rejected_steps", "collision_applies", "jacobian_applies", "nonlinear_iterations", "linear_iterations"]
    check([js[k] for k in keys] == [int(at[k]) for k in keys] == printed, "%s: JSON, /dynamics/cost and the printed line agree: %s" % (run, dict((k, js[k]) for k in keys)))
    check(js["steps"] == event(run + ".log", "TSStep"), "%s: steps %d = TSStep events %d" % (run, js["steps"], event(run + ".log", "TSStep")))
    check(js["collision_applies"] == event(run + ".log", "BTECollApply"), "%s: collision applies %d = BTECollApply events %d" % (run, js["collision_applies"], event(run + ".log", "BTECollApply")))
    check(js["jacobian_applies"] == event(run + ".log", "BTECollJacApply"), "%s: Jacobian applies %d = BTECollJacApply events %d" % (run, js["jacobian_applies"], event(run + ".log", "BTECollJacApply")))
    w = js["wall_time"]
    check(all(w[k] >= 0 for k in ("setup", "stepping", "output")) and w["setup"] + w["stepping"] + w["output"] <= w["total"] + 1e-6, "%s: wall times %s s" % (run, w))
    rate = [l for l in open(run + ".log") if l.startswith("dynamics: step rate:")]
    check(w["stepping"] > 0 and abs(w["steps_per_second"] * w["stepping"] - js["steps"]) <= 1e-9 * js["steps"] and len(rate) == 1 and abs(float(rate[0].split()[3]) / w["steps_per_second"] - 1) < 1e-3, "%s: steps per second %g = steps / stepping time, printed once" % (run, w["steps_per_second"]))
    check(js["final_time"] == 300 and js["converged_reason"] == "CONVERGED_TIME", "%s: final time and reason in the JSON" % run)
rk4 = json.load(open("rk4.json")); ad = json.load(open("adapt.json")); bdf = json.load(open("bdf.json"))
check(rk4["steps"] == 300 and rk4["collision_applies"] == 4 * 300 and rk4["rejected_steps"] == 0, "fixed RK4: 300 steps, 4 applies each, none rejected")
check(ad["rejected_steps"] > 0, "adaptive RK 5(4) from a 50 fs first step: %d rejected steps counted" % ad["rejected_steps"])
check(bdf["nonlinear_iterations"] > 0 and bdf["linear_iterations"] >= bdf["nonlinear_iterations"] and bdf["jacobian_applies"] > 0, "BDF2: %d Newton and %d GMRES iterations, %d Jacobian applies" % (bdf["nonlinear_iterations"], bdf["linear_iterations"], bdf["jacobian_applies"]))
sys.exit(0 if ok else 1)
PY
# the summary is an output: not the table, the output, the reference or the restart file
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_output table.h5 -bte_view 0 > /dev/null
Q="-bte_view 0 -bte_final_time 10 -bte_output_interval 10"
expect_fail "is the input table.h5 (-bte_input)" "$BTE" dynamics -bte_input table.h5 $Q -bte_summary table.h5
"$BTE" dynamics -bte_input table.h5 $Q -bte_output small.h5 > /dev/null
expect_fail "(-bte_summary) is the output small.h5" "$BTE" dynamics -bte_input table.h5 $Q -bte_output small.h5 -bte_summary small.h5
expect_fail "is the input small.h5 (-bte_reference)" "$BTE" dynamics -bte_input table.h5 $Q -bte_reference small.h5 -bte_summary small.h5
expect_fail "is the input small.h5 (-bte_reference)" "$BTE" dynamics -bte_input table.h5 $Q -bte_reference small.h5 -bte_output small.h5
expect_fail "Cannot write the output file no/such/dir/s.json (-bte_summary): its directory no/such/dir does not exist" "$BTE" dynamics -bte_input table.h5 $Q -bte_summary no/such/dir/s.json
"$PYTHON" -c "import h5py; h5py.File('small.h5', 'r')['dynamics/time']" && echo "inputs untouched"
