# Sources and stopping rules (docs/dynamics.md, "Sources"), on the parabolic valley:
# - pump: the carriers injected up to each snapshot = the integral of the Gaussian time profile
#   (closed form, erf) times the density asked for; after the pulse the number is constant;
# - field step: a run whose field steps on at t_s = a field-free run to t_s restarted with the
#   constant field (the restart path is an independent second run), to rounding;
# - steady-state stop: triggers, the drift velocity's change over its last two output intervals
#   (from the stored series) is below the threshold, and the reported v_d is within threshold x
#   relaxation time of the long-time value;
# - positivity: a loose adaptive run that ends outside [0, 1] without -bte_positivity ends inside
#   with it, the rejected step counted in the cost line and the summary;
# - bad input refused with one line.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0"
F="$P -bte_init fermi -bte_carrier_density 1e17 -bte_drift_form plain"
# pump: 1e17 cm^-3 at edge + 0.1 eV, centred at 100 fs, FWHM 30 fs, on a 1e16 background; RK4 1 fs
PUMP="-bte_pump_density 1e17 -bte_pump_e0_edge 0.1 -bte_pump_smear 0.02 -bte_pump_time 100 -bte_pump_fwhm 30"
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_init fermi -bte_carrier_density 1e16 $PUMP -bte_final_time 400 -bte_output_interval 20 -ts_dt 1 -bte_output pump.h5 -bte_summary pump.json > pump.log
"$BTE" dynamics $P -bte_init fermi -bte_carrier_density 1e16 $PUMP -bte_final_time 400 -bte_output_interval 20 -options_file "$TESTDIR/../options/adaptive.opts" -bte_output pumpa.h5 > pumpa.log
# field step at 200 fs (not a multiple of the 3 fs step: the step is shortened to land on it)
"$BTE" dynamics $F -bte_efield 2000,0,0 -bte_efield_profile step -bte_efield_time 200 -bte_final_time 500 -bte_output_interval 100 -ts_dt 3 -bte_output step.h5 > step.log
# (the field-free leg: without a field the drift options are refused, so not -bte_drift_form)
"$BTE" dynamics ${F/ -bte_drift_form plain/} -bte_final_time 200 -bte_output_interval 100 -ts_dt 3 -bte_output off.h5 > off.log
$MPIEXEC -n "$NP" "$BTE" dynamics $F -bte_efield 2000,0,0 -bte_init restart -bte_restart off.h5 -bte_final_time 500 -bte_output_interval 100 -ts_dt 3 -bte_output on.h5 -bte_reference step.h5 -bte_summary on.json > on.log
# steady state at 1 kV/cm (adaptive RK 5(4)); the long run gives v_d(infinity)
A="$F -bte_efield 1000,0,0 -options_file $TESTDIR/../options/adaptive.opts -bte_output_interval 100"
"$BTE" dynamics $A -bte_final_time 20000 -bte_steady_threshold 1e16 -bte_output steady.h5 -bte_summary steady.json > steady.log
"$BTE" dynamics $A -bte_final_time 12000 -bte_output_interval 4000 -bte_output long.h5 > long.log
# positivity: RK 3(2) at rtol 1 from an occupation-1 Gaussian; the guard's stage check set wide
Q="$P -bte_init gaussian -bte_init_occupation 1 -bte_init_e0_edge 0.05 -ts_type rk -ts_rk_type 3bs -ts_adapt_type basic -ts_rtol 1 -ts_atol 1 -ts_dt 20 -bte_state_tolerance 1000 -bte_final_time 1000 -bte_output_interval 1000"
"$BTE" dynamics $Q -bte_output nopos.h5 > nopos.log
"$BTE" dynamics $Q -bte_positivity -bte_output pos.h5 -bte_summary pos.json > pos.log
grep -q "steady state at t = " steady.log || { echo "FAIL: no steady-state line"; cat steady.log; exit 1; }
grep -q "CONVERGED_USER" steady.log
grep -q "range rejections: [1-9][0-9]* steps outside \[0, 1\]" pos.log || { echo "FAIL: no positivity rejection counted"; cat pos.log; exit 1; }
"$PYTHON" - <<'PY'
import h5py, json, numpy as np, sys
from math import erf, sqrt, log
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
# pump
N, tc, fwhm = 1e17, 100.0, 30.0
sig = fwhm / (2 * sqrt(2 * log(2)))
def frac(t):
    c = lambda x: min(max(x, tc - 5 * fwhm), tc + 5 * fwhm)
    return 0.5 * (erf((c(t) - tc) / (sig * sqrt(2))) - erf((c(0.0) - tc) / (sig * sqrt(2))))
for name, tol in (("pump", 1e-8), ("pumpa", 1e-5)):
    g = h5py.File(name + ".h5", "r")["dynamics"]
    t, d = g["time"][:], g["carrier_density"][:]
    inj = (d - d[0]) / N
    err = np.abs(inj - np.array([frac(x) for x in t]))
    during, after = t <= tc + 5 * fwhm, t > tc + 5 * fwhm
    check(err[during].max() < tol, "%s: injected carriers = N x integral of the profile during the pulse, max error %.2e of N" % (name, err[during].max()))
    check(abs(inj[-1] - 1) < 1e-12 if name == "pump" else abs(inj[-1] - 1) < tol, "%s: after the pulse %.15f of N injected" % (name, inj[-1]))
    check(np.abs(d[after] / d[after][0] - 1).max() < 1e-13, "%s: carriers conserved after the pulse (%.1e)" % (name, np.abs(d[after] / d[after][0] - 1).max()))
s = json.load(open("pump.json"))
check(abs(s["pump"]["injected_fraction"] - 1) < 1e-12, "summary: injected fraction %.15f" % s["pump"]["injected_fraction"])
# field step = field-free run + restart with the constant field
st, off = h5py.File("step.h5", "r")["dynamics"], h5py.File("off.h5", "r")["dynamics"]
d0 = np.abs(st["occupations"][:2] - off["occupations"][:2]).max()
check(d0 == 0, "before the step (t = 0, 100 fs) the stepped run is the field-free run bit for bit (%.1e)" % d0)
r = json.load(open("on.json"))["reference_error"]
check(r["snapshots"] == 4 and r["max"]["f_max"] < 1e-13, "after the step: restarted constant-field run (2 ranks) vs stepped run, max|df| %.2e at %s fs" % (r["max"]["f_max"], r["time"]))
check(abs(st["drift_velocity"][-1]) > 1e6, "the field acts after the step: v_d(500 fs) = %.3e cm/s" % st["drift_velocity"][-1])
# steady state
g = h5py.File("steady.h5", "r")["dynamics"]
t, v = g["time"][:], g["drift_velocity"][:]
s = json.load(open("steady.json"))["steady_state"]
acc = np.abs(np.diff(v)) / (np.diff(t) * 1e-15)
check(s["reached"] and t[-1] == s["time"] < 20000, "stopped at t = %g fs (< 20000)" % t[-1])
check(acc[-1] < 1e16 and acc[-2] < 1e16 and acc[-3] >= 1e16, "stored |dv/dt| over the last three intervals %s: the last two below 1e16 cm/s^2, the one before not" % np.array2string(acc[-3:], precision=3))
check(s["drift_velocity"] == v[-1] and abs(s["acceleration"] - acc[-1]) < 1e-6 * acc[-1], "reported v_d %.6e cm/s = the last snapshot's" % s["drift_velocity"])
vinf = h5py.File("long.h5", "r")["dynamics"]["drift_velocity"][-1]
tau = 100e-15 / np.log(acc[-2] / acc[-1])          # relaxation time of the exponential approach
bound = 1e16 * tau
check(abs(v[-1] - vinf) < 1.5 * bound, "|v_d(stop) - v_d(12 ps)| = %.3e cm/s <= threshold x tau (tau = %.0f fs): %.3e" % (abs(v[-1] - vinf), tau * 1e15, bound))
# positivity
fn = h5py.File("nopos.h5", "r")["dynamics"]["occupations"][-1]
fp = h5py.File("pos.h5", "r")["dynamics"]["occupations"][-1]
check(fn.min() < 0 or fn.max() > 1, "without -bte_positivity the loose run ends outside [0, 1]: [%.3f, %.3f]" % (fn.min(), fn.max()))
check(fp.min() >= 0 and fp.max() <= 1, "with it, inside: [%.3e, %.3f]" % (fp.min(), fp.max()))
s = json.load(open("pos.json"))
check(s["positivity_rejections"] >= 1 and s["rejected_steps"] >= s["positivity_rejections"], "summary: %d positivity rejections, %d rejected steps" % (s["positivity_rejections"], s["rejected_steps"]))
sys.exit(0 if ok else 1)
PY
# bad input: one line each
expect_fail "needs a field" "$BTE" dynamics $P -bte_efield_profile step -bte_final_time 10
expect_fail "needs a field" "$BTE" dynamics $P -bte_steady_threshold 1e16 -bte_final_time 10
expect_fail "a pulse has no steady state" "$BTE" dynamics $F -bte_efield 100,0,0 -bte_efield_profile pulse -bte_steady_threshold 1e16 -bte_final_time 10
expect_fail "would raise the occupation" "$BTE" dynamics $P -bte_pump_density 1e22 -bte_final_time 10
expect_fail "pump duration" "$BTE" dynamics $P -bte_pump_density 1e16 -bte_pump_fwhm -5 -bte_final_time 10
expect_fail "field pulse width" "$BTE" dynamics $F -bte_efield 100,0,0 -bte_efield_profile pulse -bte_efield_fwhm 0 -bte_final_time 10
expect_fail "no states under it" "$BTE" dynamics $P -bte_pump_density 1e16 -bte_pump_e0_edge 50 -bte_pump_smear 0.01 -bte_final_time 10
expect_fail "steady-state threshold" "$BTE" dynamics $F -bte_efield 100,0,0 -bte_steady_threshold -1 -bte_final_time 10
expect_fail "outside \[0, 1\] (-bte_positivity): with a fixed step" "$BTE" dynamics $P -bte_init gaussian -bte_init_occupation 1 -bte_init_e0_edge 0.05 -bte_positivity -bte_state_tolerance 1000 -ts_type euler -ts_dt 200 -bte_final_time 1000 -bte_output_interval 1000
echo "sources: all checks passed"
