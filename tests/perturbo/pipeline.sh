# The perturbo model through the solvers: the cubic closed-form fixture (tests/perturbo/make_epr.py),
# 16^3 k grid, window 0.5 eV, eta 10 meV, phonon_min 2 meV, as
#   gen:    the table of bte generate -bte_model perturbo (1 rank),
#   direct: the table written by Python from the closed forms (tests/perturbo/direct_table.py),
#   model:  the model built in memory by the command itself (-bte_model perturbo, TEST_NP ranks).
# bte transport (KSP, rtol 1e-12; 200 and 300 K, 1e17 cm^-3) gives the same mobility tensors on gen
# and direct (1 rank), gen on TEST_NP ranks and model on TEST_NP ranks, to 1e-8 of the largest
# entry; RTA too. bte dynamics (hot carriers 0.3 eV above the edge, a field of (1000, 300, 0) V/cm,
# 1 ps) gives the same carriers, mean energy and drift velocity at every snapshot, and the same final
# occupations (to 1e-8), on the same three tables and rank counts; the carriers cool visibly.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
NP=${TEST_NP:-2}
"$PYTHON" "$T/make_epr.py" cubic cubic.h5
"$PYTHON" "$T/direct_table.py" cubic direct.h5 -kdim 16,16,16 -window 0.5 -smearing 0.01 -phonon_min 0.002
M="-bte_model perturbo -bte_perturbo_epr cubic.h5 -bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_perturbo_monitor 0"
"$BTE" generate $M -bte_view 0 -bte_output gen.h5 > /dev/null

TR0="-bte_temperatures 200,300 -bte_carrier_densities 1e17 -bte_view 0"
TR="$TR0 -bte_transport_ksp_rtol 1e-12" # (the ksp method's; refused with rta, which would ignore it)
"$BTE" transport -bte_input gen.h5 $TR -bte_output tr_gen.h5 > /dev/null
"$BTE" transport -bte_input direct.h5 $TR -bte_output tr_direct.h5 > /dev/null
run_np "$NP" "$BTE" transport -bte_input gen.h5 $TR -bte_output tr_genP.h5 > /dev/null
run_np "$NP" "$BTE" transport $M $TR -bte_output tr_modelP.h5 > /dev/null
"$BTE" transport -bte_input gen.h5 $TR0 -bte_transport_method rta -bte_output rta_gen.h5 > /dev/null
"$BTE" transport -bte_input direct.h5 $TR0 -bte_transport_method rta -bte_output rta_direct.h5 > /dev/null

D="-bte_final_time 1000 -bte_output_interval 250 -bte_init_e0_edge 0.3 -bte_init_smear 0.03 -bte_carrier_density 1e17 -bte_efield 1000,300,0 -bte_view 0"
"$BTE" dynamics -bte_input gen.h5 $D -bte_output dy_gen.h5 > /dev/null
"$BTE" dynamics -bte_input direct.h5 $D -bte_output dy_direct.h5 > /dev/null
run_np "$NP" "$BTE" dynamics -bte_input gen.h5 $D -bte_output dy_genP.h5 > /dev/null
run_np "$NP" "$BTE" dynamics $M $D -bte_output dy_modelP.h5 > /dev/null

"$PYTHON" - <<'PY'
import sys, h5py, numpy as np
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
def tr(name):
    g = h5py.File(name, "r")["transport"]
    return g["mobility"][:], g["converged"][:], g["residual"][:]
ref, conv, res = tr("tr_gen.h5")
check(np.all(conv == 1) and np.all(res < 1e-10), "transport converged (residual %.1e)" % res.max())
print("     mobility (cm^2/Vs) at 200, 300 K: xx %s, yy %s, zz %s" % tuple(np.array2string(ref[:, a, a], precision=1) for a in range(3)))
for other in ("tr_direct.h5", "tr_genP.h5", "tr_modelP.h5"):
    mob = tr(other)[0]
    d = np.abs(mob - ref).max() / np.abs(ref).max()
    check(d < 1e-8, "mobility of %s vs tr_gen.h5: max diff %.1e of the largest entry" % (other, d))
r1, r2 = tr("rta_gen.h5")[0], tr("rta_direct.h5")[0]
d = np.abs(r1 - r2).max() / np.abs(r1).max()
check(d < 1e-8, "RTA mobility, direct vs generated table: %.1e" % d)
check(np.abs(r1 - ref).max() / np.abs(ref).max() > 1e-3, "(RTA differs from the full solution: %.2f of the largest entry)" % (np.abs(r1 - ref).max() / np.abs(ref).max()))

def dy(name):
    return h5py.File(name, "r")["dynamics"]
a = dy("dy_gen.h5")
de = a["mean_energy"][:] - a.attrs["band_edge"]
print("     dynamics: t %s fs, <E> - edge %s eV, v_d %s cm/s" % (a["time"][:], np.array2string(de, precision=4), np.array2string(a["drift_velocity"][:], precision=3)))
check(de[0] - de[-1] > 0.02, "the hot carriers cool by %.3f eV in %g fs" % (de[0] - de[-1], a["time"][-1]))
for other in ("dy_direct.h5", "dy_genP.h5", "dy_modelP.h5"):
    b = dy(other)
    check(np.array_equal(a["time"][:], b["time"][:]), "%s: the same snapshot times" % other)
    dn = np.abs(b["carriers"][:] / a["carriers"][:] - 1).max()
    dE = np.abs(b["mean_energy"][:] - a["mean_energy"][:]).max() / np.abs(de).max()
    dv = np.abs(b["drift_velocity"][:] - a["drift_velocity"][:]).max() / np.abs(a["drift_velocity"][:]).max()
    df = np.abs(b["occupations"][-1] - a["occupations"][-1]).max() / a["occupations"][-1].max()
    check(max(dn, dE, dv, df) < 1e-8, "%s vs dy_gen.h5: carriers %.1e, mean energy %.1e, drift velocity %.1e, final occupations %.1e" % (other, dn, dE, dv, df))
sys.exit(0 if ok else 1)
PY
