# Dynamics in a static field (parabolic valley): +E_x drives electrons toward -x (v_d < 0) and -E_x
# mirrors it; the plain form and the default muscl form keep the carrier number (muscl also
# 0 <= f <= 1, and the output names it); the log form warns when it does not (at the
# first change, and at the run's end with the final ratio, against the output's carriers) and
# -bte_normalize restores it; the low-field steady-state drift velocity gives the mobility of
# `bte transport` on the same table (independent code path: linear response, docs/theory.md eq. 5-6).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
OPTS="$TESTDIR/../options"
R="-bte_view 0 -bte_init fermi -bte_carrier_density 1e17 -options_file $OPTS/adaptive.opts"
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 $R"
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_efield 2000,0,0 -bte_drift_form plain -bte_final_time 1500 -bte_output_interval 500 -bte_output plus.h5 > plus.log
"$BTE" dynamics $P -bte_efield -2000,0,0 -bte_drift_form plain -bte_final_time 1500 -bte_output_interval 500 -bte_output minus.h5 > minus.log
"$BTE" dynamics $P -bte_efield 2000,0,0 -bte_drift_form log -bte_final_time 1500 -bte_output_interval 500 -bte_output log.h5 > log.log
"$BTE" dynamics $P -bte_efield 2000,0,0 -bte_drift_form log -bte_normalize -bte_final_time 1500 -bte_output_interval 500 -bte_output lognorm.h5 > lognorm.log
# no form named: the default, muscl, keeps the carriers and 0 <= f <= 1 and says which form ran
"$BTE" dynamics $P -bte_efield 2000,0,0 -bte_final_time 1500 -bte_output_interval 500 -bte_output default.h5 > default.log
grep -q "WARNING: the carrier number changed" log.log || { echo "FAIL: no carrier-number warning for the log form"; cat log.log; exit 1; }
! grep -q "WARNING: .*the carrier number" plus.log lognorm.log default.log || { echo "FAIL: unexpected carrier-number warning"; exit 1; }
# holes: the same table read back as holes; +E_x drives them toward +x
"$BTE" generate -bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_output table.h5 -bte_view 0 > /dev/null
"$PYTHON" -c "
import h5py
with h5py.File('table.h5', 'r+') as f: f['states'].attrs['carrier'] = 'holes'"
"$BTE" dynamics -bte_input table.h5 $R -bte_efield 2000,0,0 -bte_drift_form plain -bte_final_time 1500 -bte_output_interval 500 -bte_output holes.h5 > holes.log
# low field: steady state v_d = -mu E
"$BTE" dynamics $P -bte_efield 100,0,0 -bte_drift_form plain -bte_final_time 6000 -bte_output_interval 2000 -bte_output low.h5 > low.log
"$BTE" transport -bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -bte_carrier_densities 1e17 -bte_output tr.h5 > tr.log
"$PYTHON" - <<'PY'
import h5py, numpy as np, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
g = {k: h5py.File(k + ".h5", "r")["dynamics"] for k in ("plus", "minus", "log", "lognorm", "low", "holes", "default")}
vp, vm = g["plus"]["drift_velocity"][:], g["minus"]["drift_velocity"][:]
check(vp[0] == 0 or abs(vp[0]) < 1e-3, "no drift at t = 0 (%.2e cm/s)" % vp[0])
check(np.all(vp[1:] < 0), "+E_x = 2 kV/cm: electrons drift toward -x, v_d = %s cm/s" % np.array2string(vp, precision=3))
vel = g["plus"]["velocity"][-1]
check(vel[0] < 0 and abs(vel[1]) < 1e-6 * abs(vel[0]) and abs(vel[2]) < 1e-6 * abs(vel[0]), "mean velocity along -x only: %s cm/s" % vel)
velm = g["minus"]["velocity"][:, 0]; velp = g["plus"]["velocity"][:, 0]
check(np.allclose(velm, -velp, rtol=1e-8, atol=1e-6) and np.allclose(vm, vp, rtol=1e-8, atol=1e-6), "-E_x mirrors +E_x (1 rank vs 2): <v_x> = %s cm/s, v_d = v.E_hat the same" % np.array2string(velm, precision=3))
vh = g["holes"]["drift_velocity"][:]; velh = g["holes"]["velocity"][:, 0]
check(g["holes"].attrs["carriers"] in (b"holes", "holes") and np.all(vh[1:] > 0) and np.allclose(velh, -velp, rtol=1e-8, atol=1e-6), "holes (table read back as holes): drift along +E_x, <v_x> = %s cm/s (the electrons' mirrored)" % np.array2string(velh, precision=3))
n = g["plus"]["carriers"][:]
check(np.abs(n / n[0] - 1).max() < 1e-10, "plain form keeps the carrier number: %.1e" % np.abs(n / n[0] - 1).max())
vl = g["log"]["drift_velocity"][:]
check(np.all(vl[1:] < 0) and abs(vl[-1] / vp[-1] - 1) < 0.2, "log form: v_d %.3e vs plain %.3e cm/s" % (vl[-1], vp[-1]))
nl = g["log"]["carriers"][:]; nn = g["lognorm"]["carriers"][:]
print("     log form carrier change %.2e; with -bte_normalize %.1e" % (np.abs(nl / nl[0] - 1).max(), np.abs(nn / nn[0] - 1).max()))
check(np.abs(nn / nn[0] - 1).max() < 1e-10, "-bte_normalize keeps the carrier number")
form = g["default"].attrs["drift_form"]; form = form.decode() if isinstance(form, bytes) else form
nd = g["default"]["carriers"][:]; fd = g["default"]["occupations"][:]
check(form == "muscl" and np.abs(nd / nd[0] - 1).max() < 1e-10 and fd.min() >= 0 and fd.max() <= 1,
      "default drift form %s: carriers kept to %.1e, f in [%.2e, %.4f]" % (form, np.abs(nd / nd[0] - 1).max(), fd.min(), fd.max()))
# the run's end says where the carrier number ended up, not only where it first moved
import re
m = re.search(r"dynamics: WARNING: at t = [0-9.]+ fs the carrier number is ([0-9.e+-]+) times what the run started with \(the largest relative change during the run ([0-9.e+-]+)\)", open("log.log").read())
check(m is not None and abs(float(m.group(1)) / (nl[-1] / nl[0]) - 1) < 1e-5 and abs(float(m.group(2)) / np.abs(nl[1:] / nl[0] - 1).max() - 1) < 1e-2,
      "log form: the end-of-run line gives the final ratio %s and the largest change %s (the file: %.6g, %.3g)" % (m and m.group(1), m and m.group(2), nl[-1] / nl[0], np.abs(nl[1:] / nl[0] - 1).max()))
# mobility
vd = g["low"]["drift_velocity"][:]; E = g["low"].attrs["efield"][0]
check(abs(vd[-1] / vd[-2] - 1) < 1e-3, "low field: steady state reached (v_d %.4e -> %.4e cm/s)" % (vd[-2], vd[-1]))
mu_dyn = -vd[-1] / E
tr = h5py.File("tr.h5", "r")
mob = None
def find(name, obj):
    global mob
    if mob is None and isinstance(obj, h5py.Dataset) and name.split("/")[-1] in ("mobility", "mobility_tensor"):
        mob = obj[()]
tr.visititems(find)
mob = np.asarray(mob).ravel()
mu_tr = mob[0]
check(abs(mu_dyn / mu_tr - 1) < 0.15, "mobility from dynamics -v_d/E = %.0f cm^2/(V s) vs bte transport %.0f (grid/drift discretisation differ)" % (mu_dyn, mu_tr))
sys.exit(0 if ok else 1)
PY
