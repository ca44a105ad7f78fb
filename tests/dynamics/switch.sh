# Method switch in one run (-bte_switch_time, second method under the options prefix sw_): a pump
# run with RK 3(2) (DSP) to the switch time and Rosenbrock-W with bte_twolevel after it ends in the
# same state as the same two legs run as a split (first leg to the switch time, then a restart with
# the second method into the same file), with the same snapshot series and step numbers; its cost
# (steps, rejected, applies, Jacobian applies, nonlinear and linear iterations) is the sum of the
# two runs'; -bte_reference works across the switch; a restart at the switch time runs the second
# method throughout; bad switch times are refused with one line.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
P="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_output_interval 25 -bte_final_time 300 -bte_pump_density 1e17 -bte_pump_time 60 -bte_pump_fwhm 20"
L1="-ts_type rk -ts_rk_type 3bs -ts_adapt_type dsp -ts_rtol 1e-4 -ts_atol 1e-7 -ts_dt 1"
L2="ts_type rosw ts_adapt_type basic ts_dt 5 ts_adapt_dt_max 500 ts_max_snes_failures -1 snes_atol 1e-14 snes_max_it 20 ksp_type gmres ksp_atol 1e-16 ksp_max_it 200 ksp_rtol 1e-6 pc_type bte_twolevel"
plain=(); sw=()
set -- $L2
while [ $# -gt 0 ]; do plain+=("-$1" "$2"); sw+=("-sw_$1" "$2"); shift 2; done
# the split: two runs
"$BTE" dynamics $P $L1 -bte_final_time 150 -bte_output split.h5 -bte_summary leg1.json > leg1.log
cp split.h5 leg1.h5
"$BTE" dynamics $P "${plain[@]}" -bte_init restart -bte_restart split.h5 -bte_output split.h5 -bte_summary leg2.json > leg2.log
# one run, switching at 150 fs; and against the split as reference
"$BTE" dynamics $P $L1 -bte_switch_time 150 "${sw[@]}" -bte_output one.h5 -bte_summary one.json > one.log
grep -q "switching from TS rk to TS rosw" one.log || { echo "no switch line"; cat one.log; exit 1; }
"$BTE" dynamics $P $L1 -bte_switch_time 150 "${sw[@]}" -bte_reference split.h5 -bte_output oneref.h5 -bte_summary oneref.json > oneref.log
# restarted at the switch time: the second method throughout
"$BTE" dynamics $P $L1 -bte_switch_time 150 "${sw[@]}" -bte_init restart -bte_restart leg1.h5 -bte_output late.h5 -bte_summary late.json > late.log
grep -q "second method (options prefix sw_) throughout" late.log || { echo "no second-method line"; cat late.log; exit 1; }
"$PYTHON" - <<'PY'
import h5py, json, numpy as np, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
s = h5py.File("split.h5", "r")["dynamics"]
o = h5py.File("one.h5", "r")["dynamics"]
late = h5py.File("late.h5", "r")["dynamics"]
check(np.array_equal(s["time"][:], o["time"][:]), "one run has the split's snapshot times %s" % o["time"][:])
check(np.array_equal(s["step"][:], o["step"][:]), "and its step numbers")
d = np.abs(s["occupations"][-1] - o["occupations"][-1]).max() / s["occupations"][-1].max()
check(d < 1e-12, "final state matches the split run: max relative difference %.2e" % d)
d = np.abs(s["population"][:] - o["population"][:]).max() / s["population"][:].max()
check(d < 1e-12, "population series matches: %.2e" % d)
d = np.abs(late["occupations"][-1] - s["occupations"][-1]).max() / s["occupations"][-1].max()
check(d < 1e-12, "restart at the switch time (second method throughout) matches the second leg: %.2e" % d)
j1, j2, j = (json.load(open(n)) for n in ("leg1.json", "leg2.json", "one.json"))
for k in ("steps", "rejected_steps", "collision_applies", "jacobian_applies", "nonlinear_iterations", "linear_iterations"):
    check(j[k] == j1[k] + j2[k], "%s: one run %d = %d + %d" % (k, j[k], j1[k], j2[k]))
check(j1["rejected_steps"] > 0 and j2["jacobian_applies"] > 0 and j2["linear_iterations"] > 0, "both legs have work to count")
check(j["ts_type"] == "rosw" and j["first_ts_type"] == "rk" and j["switched"] and j["switch_time"] == 150, "summary names both methods and the switch")
r = json.load(open("oneref.json"))["reference_error"]
check(r["snapshots"] == len(s["time"]) and r["max"]["f_max"] < 1e-12, "against the split as reference: %d snapshots, max |df| %.2e" % (r["snapshots"], r["max"]["f_max"]))
sys.exit(0 if ok else 1)
PY
Q="-bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_view 0 -bte_final_time 10"
expect_fail "bte_switch_time must be a time >= 0 fs before the final time, or -1 for no switch" "$BTE" dynamics $Q -bte_switch_time -0.5
expect_fail "bte_switch_time 10.* fs is not before the final time 10" "$BTE" dynamics $Q -bte_switch_time 10
expect_fail "bte_switch_time 20.* fs is not before the final time 10" "$BTE" dynamics $Q -bte_switch_time 20
expect_fail "not before the final time 5" "$BTE" dynamics $Q -bte_switch_time 8 -ts_max_time 5
