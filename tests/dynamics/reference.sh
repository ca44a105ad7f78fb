# Error against a reference run (-bte_reference): a run compared with itself has every error exactly
# 0; fixed-step RK4 against a 0.25 fs reference has errors that shrink ~16x per halved step (the
# known perturbation: the step); snapshots between the reference's take its linear interpolation
# (checked against numpy); a restarted run compares from its restart time, also from another
# run's state at a reference snapshot (a split run: its error there); on 2 ranks the same
# errors; bad references (another table, other states, another initial state, no overlap in time,
# a run longer than the reference, not a dynamics file) are refused with one line.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
P="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0 -bte_final_time 300"
"$BTE" dynamics $P -bte_time_step 0.25 -bte_output_interval 50 -bte_output ref.h5 > ref.log
"$BTE" dynamics $P -bte_time_step 0.25 -bte_output_interval 50 -bte_output self.h5 -bte_reference ref.h5 -bte_summary self.json | tee self.log
for dt in 8 4 2; do
  "$BTE" dynamics $P -bte_time_step $dt -bte_output_interval 50 -bte_output dt$dt.h5 -bte_reference ref.h5 -bte_summary dt$dt.json > dt$dt.log
done
tail -n 4 dt8.log
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_time_step 4 -bte_output_interval 50 -bte_output np.h5 -bte_reference ref.h5 > np.log
# snapshots every 20 fs: between the reference's (every 50 fs) except at 0, 100, 200, 300
"$BTE" dynamics $P -bte_time_step 0.25 -bte_output_interval 20 -bte_output i20.h5 -bte_reference ref.h5 > i20.log
# a restarted run: its first snapshot (100 fs) is the reference's
"$BTE" dynamics $P -bte_time_step 0.25 -bte_output_interval 50 -ts_max_time 100 -bte_output part.h5 > /dev/null
"$BTE" dynamics $P -bte_time_step 0.25 -bte_output_interval 50 -bte_init restart -bte_restart part.h5 -bte_output cont.h5 -bte_reference ref.h5 > cont.log
# a split run: a coarser first leg (RK4 at 10 fs to 100 fs), restarted at a reference snapshot
# with another state: accepted (its start is the first leg's result), the error at 100 fs = the first leg's
"$BTE" dynamics $P -bte_time_step 10 -bte_output_interval 50 -ts_max_time 100 -bte_output part10.h5 > /dev/null
"$BTE" dynamics $P -bte_time_step 0.25 -bte_output_interval 50 -bte_init restart -bte_restart part10.h5 -bte_output cont10.h5 -bte_reference ref.h5 > cont10.log
"$PYTHON" - <<'PY'
import h5py, json, numpy as np, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
names = ["f_max", "f_l2", "f_l2_relative", "carriers", "carrier_density", "mean_energy", "drift_velocity", "population_max"]
def errs(fn):
    return h5py.File(fn, "r")["dynamics/reference_error"]
e = errs("self.h5")
check(np.array_equal(e["time"][:], [0, 50, 100, 150, 200, 250, 300]), "self: every snapshot compared: %s" % e["time"][:])
check(all(np.all(e[n][:] == 0) for n in names), "self: every error exactly 0")
js = json.load(open("self.json"))
check(js["reference"] == "ref.h5" and all(v == 0 for v in js["reference_error"]["max"].values()), "self: the JSON summary has the errors (all 0)")
m = [errs("dt%d.h5" % dt)["f_max"][:].max() for dt in (8, 4, 2)]
l2 = [errs("dt%d.h5" % dt)["f_l2"][:].max() for dt in (8, 4, 2)]
en = [errs("dt%d.h5" % dt)["mean_energy"][:].max() for dt in (8, 4, 2)]
check(min(m) > 0 and m[0] / m[1] > 8 and m[1] / m[2] > 8, "RK4 against the 0.25 fs reference, dt 8, 4, 2 fs: max|f - f_ref| %s (ratios %.1f, %.1f; fourth order)" % (["%.2e" % x for x in m], m[0] / m[1], m[1] / m[2]))
check(l2[0] > l2[1] > l2[2] > 0 and en[0] > en[1] > en[2] > 0, "and the 2-norm %s and mean-energy %s errors decrease" % (["%.2e" % x for x in l2], ["%.2e" % x for x in en]))
# the errors by hand, from the files: dt 4
r = h5py.File("ref.h5", "r")["dynamics"]; g = h5py.File("dt4.h5", "r")["dynamics"]
d = g["occupations"][:] - r["occupations"][:]
e4 = errs("dt4.h5")
check(np.allclose(e4["f_max"][:], np.abs(d).max(axis=1), rtol=1e-14, atol=0) and np.allclose(e4["f_l2"][:], np.sqrt((d * d).sum(axis=1)), rtol=1e-12, atol=0), "dt 4: f errors = numpy's on the stored occupations")
for n in ("carriers", "carrier_density", "mean_energy", "drift_velocity"):
    ref = np.abs(g[n][:] - r[n][:])
    check(np.allclose(e4[n][:], ref, rtol=1e-6, atol=1e-14 * np.abs(r[n][:]).max()), "dt 4: %s error = the difference of the stored series (max %.3e)" % (n, ref.max()))
check(np.allclose(e4["population_max"][:], np.abs(g["population"][:] - r["population"][:]).max(axis=1), rtol=1e-8, atol=1e-14 * r["population"][:].max()), "dt 4: population error = the stored populations' max difference")
enp = errs("np.h5")
nc = r["carriers"][0]
check(all(np.allclose(enp[n][:], e4[n][:], rtol=1e-6, atol=0) for n in ("f_max", "f_l2", "f_l2_relative", "population_max", "mean_energy"))
      and np.all(enp["carriers"][:] < 1e-14 * nc), "2 ranks: the same errors as 1 rank (carriers: rounding, < 1e-14 relative)")
# linear interpolation between the reference's snapshots
i = errs("i20.h5"); gi = h5py.File("i20.h5", "r")["dynamics"]
tr = r["time"][:]; fr = r["occupations"][:]
good = True
for k, t in enumerate(gi["time"][:]):
    j = min(np.searchsorted(tr, t, side="right") - 1, len(tr) - 2)
    w = (t - tr[j]) / (tr[j + 1] - tr[j])
    fi = (1 - w) * fr[j] + w * fr[j + 1]
    good &= abs(i["f_max"][k] - np.abs(gi["occupations"][k] - fi).max()) <= 1e-15
    if t % 50 == 0: good &= i["f_max"][k] == 0
    else: good &= i["f_max"][k] > 0
check(good, "snapshots every 20 fs: the reference interpolated linearly (exact at 0, 100, 200, 300 fs); max error %.2e" % i["f_max"][:].max())
c = errs("cont.h5")
check(c["time"][0] == 100 and c["f_max"][:].max() < 1e-12, "restart at 100 fs: compared from 100 fs, max error %.1e" % c["f_max"][:].max())
c10 = errs("cont10.h5"); p10 = h5py.File("part10.h5", "r")["dynamics"]
d10 = np.abs(p10["occupations"][len(p10["time"]) - 1] - r["occupations"][2]).max()
check(c10["time"][0] == 100 and d10 > 1e-8 and c10["f_max"][0] == d10, "restart at 100 fs from another run's state (RK4 at 10 fs): accepted, error at 100 fs %.2e = that state's" % c10["f_max"][0])
sys.exit(0 if ok else 1)
PY
# bad references: one line each
Q="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_output_interval 50"
expect_fail "is of another table: state 1 has energy" "$BTE" dynamics $Q -bte_parabolic_mass 0.134 -bte_window 0.15 -bte_init_e0 0.05 -bte_final_time 300 -bte_reference ref.h5
expect_fail "has other states: 81 states, this run 57" "$BTE" dynamics $Q -bte_grid 10 -bte_final_time 300 -bte_reference ref.h5
expect_fail "starts from another state" "$BTE" dynamics $Q -bte_init_e0_edge 0.05 -bte_final_time 300 -bte_reference ref.h5
expect_fail "covers \[0.*300.*\] fs, this run \[0.*400.*\] fs" "$BTE" dynamics $Q -bte_final_time 400 -bte_reference ref.h5
"$BTE" dynamics $Q -bte_time_step 1 -bte_final_time 400 -bte_output long.h5 > /dev/null
expect_fail "does not overlap this run in time" "$BTE" dynamics $Q -bte_final_time 500 -bte_init restart -bte_restart long.h5 -bte_reference ref.h5
expect_fail "Reference file nothere.h5 not found" "$BTE" dynamics $Q -bte_final_time 100 -bte_reference nothere.h5
"$BTE" generate -bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_output table.h5 -bte_view 0 > /dev/null
expect_fail "has no /dynamics group" "$BTE" dynamics $Q -bte_final_time 100 -bte_reference table.h5
# on several ranks: the same one line from each (the driver's convention), no other error
n=$($MPIEXEC -n "$NP" "$BTE" dynamics $Q -bte_parabolic_mass 0.134 -bte_window 0.15 -bte_init_e0 0.05 -bte_final_time 300 -bte_reference ref.h5 2>&1 | grep "^bte dynamics: error" | sed 's/ \[rank [0-9]*\]//' | sort -u | tee msg | wc -l)
[ "$n" = 1 ] || { echo "a refused reference printed $n different error lines on $NP ranks:"; cat msg; exit 1; }
echo "ok $NP ranks: $(cat msg)"
