# Thermal sampling (docs/diagnostics.md): the number of states the thermal distribution sits on, the
# participation number (sum_i w_i)^2 / sum_i w_i^2, against an independent computation from the
# table's state energies: at setup with nondegenerate f0 at the lattice temperature (mu = e_min -
# 20 kT; /diagnostics thermal_states), and per transport configuration with w = f0 (1 - f0) at its
# chemical potential (/transport/thermal_states). GaAs 64^3 (window 0.4 eV), whose 32,786 cm^2/(V s)
# is four times the converged ~8,200 with every other diagnostic clean, is warned about at setup and
# by transport; 160^3 (within 3 % of converged) is not. 1 and 2 ranks agree.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
G="-bte_model gaas -bte_window 0.4 -bte_delta balanced"
out=$("$BTE" transport $G -bte_grid 64 -bte_output t64.h5)
line=$(grep "thermal sampling:" <<<"$out") || { echo "FAIL: no thermal sampling line"; echo "$out"; exit 1; }
echo "$line"
grep -qE "thermal sampling: WARNING the carriers of Fermi-Dirac at 300 K \(nondegenerate\) sit on 5.49 states in effect \(participation number, below 100\): .*refine the k grid$" <<<"$line" || { echo "FAIL: 64^3 not warned"; exit 1; }
grep -qE "^transport: WARNING at T = 300 K, n = 1e\+17: the conducting carriers \(weight f0 \(1 - f0\)\) sit on 7.99 states in effect .*raise -bte_grid$" <<<"$out" || { echo "FAIL: no transport warning on 64^3"; echo "$out"; exit 1; }
# the other diagnostics are clean on this grid: before, nothing said the mobility was 4x off
[ "$(grep -c WARNING <<<"$out")" = 2 ] || { echo "FAIL: expected 2 WARNING lines (thermal sampling, transport)"; grep WARNING <<<"$out"; exit 1; }
quiet=$("$BTE" transport $G -bte_grid 64 -bte_view 0)
grep -qF "$(sed 's/^ *//' <<<"$line")" <<<"$quiet" || { echo "FAIL: -bte_view 0 hides the thermal sampling warning"; echo "$quiet"; exit 1; }
out=$("$BTE" transport $G -bte_grid 160 -bte_output t160.h5)
grep "thermal sampling:" <<<"$out"
! grep -q "WARNING.*states in effect" <<<"$out" || { echo "FAIL: 160^3 warned"; exit 1; }
run_np "$NP" "$BTE" transport $G -bte_grid 64 -bte_output t64np.h5 -bte_view 0 > /dev/null
"$BTE" generate $G -bte_grid 64 -bte_output g64.h5 -bte_view 0 > /dev/null
PYTHONDONTWRITEBYTECODE=1 "$PYTHON" - "$TESTDIR/../python" <<'PY'
import h5py, numpy as np, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
kB = 8.617333262e-5
def pn(w):
    return w.sum() ** 2 / (w * w).sum()
for n in (64, 160):
    f = h5py.File("t%d.h5" % n, "r")
    E, T, mu = f["transport/state_energy"][:], f["transport/temperature"][0], f["transport/chemical_potential"][0]
    kT = kB * T
    boltz = 1 / (np.exp((E - E.min()) / kT + 20) + 1)  # the diagnostics' f0: mu = e_min - 20 kT
    d = f["diagnostics"].attrs
    ref = pn(boltz)
    check(abs(d["thermal_states"] / ref - 1) < 1e-9, "%d^3: /diagnostics thermal_states %.6f, from the states' energies %.6f" % (n, d["thermal_states"], ref))
    f0 = 1 / (np.exp((E - mu) / kT) + 1)
    ref = pn(f0 * (1 - f0))
    got = f["transport/thermal_states"][0]
    check(abs(got / ref - 1) < 1e-9, "%d^3: /transport/thermal_states %.6f, from f0 (1 - f0) at mu %.6f eV: %.6f" % (n, got, mu, ref))
    w = d["warnings"].decode() if isinstance(d["warnings"], bytes) else d["warnings"]
    check(("thermal_states" in w.split()) == (n == 64), "%d^3: /diagnostics warnings '%s'" % (n, w))
# the table's own energies give the same number (the run's states are the table's)
g = h5py.File("g64.h5", "r")["states/energy"][:]
check(abs(pn(1 / (np.exp((g - g.min()) / (kB * 300) + 20) + 1)) / h5py.File("t64.h5", "r")["diagnostics"].attrs["thermal_states"] - 1) < 1e-9, "64^3: the table's energies give the same")
# the Python reader
sys.path.insert(0, sys.argv[1])
import bte
t = bte.Transport("t64.h5")
check(t.thermal_states[0] == h5py.File("t64.h5", "r")["transport/thermal_states"][0] and t.units["thermal_states"] == "1" and t.edge_share is not None, "bte.Transport reads thermal_states %.4f" % t.thermal_states[0])
a, b = h5py.File("t64.h5", "r"), h5py.File("t64np.h5", "r")
check(abs(a["diagnostics"].attrs["thermal_states"] / b["diagnostics"].attrs["thermal_states"] - 1) < 1e-12 and abs(a["transport/thermal_states"][0] / b["transport/thermal_states"][0] - 1) < 1e-12, "the same on several ranks")
sys.exit(0 if ok else 1)
PY
