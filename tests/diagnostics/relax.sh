# The relaxation temperature of the diagnostics (the stationary state that Fermi-Dirac at the
# lattice temperature relaxes to, found by one linear solve) against long dynamics runs without a
# field, implicit BDF to 100 ps, nondegenerate (1e12 cm^-3):
# - parabolic 24^3 (a = 20 A, connected): started from Fermi-Dirac at 300 K, the last snapshot's
#   energy temperature (the Fermi-Dirac temperature with its mean energy on the grid's states);
# - GaAs 36^3 (3 pieces; the issue's "352 K"): started hot (a Gaussian 0.3 eV above the edge), the
#   energy temperature of the carriers on the largest piece (pieces exchange no carriers).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
run="-bte_carrier_density 1e12 -options_file $TESTDIR/../options/implicit.opts -ts_rtol 1e-8 -ts_atol 1e-14 -bte_final_time 1e5 -bte_output_interval 2e4 -bte_view 0"
run_np "$NP" "$BTE" dynamics -bte_model parabolic -bte_grid 24 -bte_parabolic_a 20 -bte_init fermi -bte_init_smear 0.025852 $run -bte_output p24.h5 | tail -n 1
"$BTE" generate -bte_model gaas -bte_grid 36 -bte_output g36.h5 -bte_view 0 >/dev/null
run_np "$NP" "$BTE" dynamics -bte_input g36.h5 -bte_init gaussian -bte_init_e0_edge 0.3 -bte_init_smear 0.03 $run -bte_output g36dyn.h5 | tail -n 1
"$PYTHON" - <<'PY'
import sys, os, h5py, numpy as np
sys.path.insert(0, os.path.join(os.environ["TESTDIR"], "diagnostics"))
from diag_reference import largest_piece, fd_mean_energy
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
def energy_temperature(f, e, emin):
    Es = (f * e).sum() / f.sum()
    lo, hi = 1.0, 1e5
    for _ in range(200):
        m = np.sqrt(lo * hi)
        if fd_mean_energy(e, emin, m) < Es: lo = m
        else: hi = m
    return m
for out, table, tol in (("p24.h5", None, 1e-5), ("g36dyn.h5", "g36.h5", 1e-4)):
    F = h5py.File(out, "r")
    g, d = F["dynamics"], F["diagnostics"].attrs
    e, occ, t = g["state_energy"][:], g["occupations"], g["time"][:]
    B = largest_piece(table)[0] if table else np.ones(len(e), bool)
    Ts = [energy_temperature(occ[k][B], e[B], e.min()) for k in range(len(t))]
    Tr, T = d["relaxation_temperature"], d["temperature"]
    print("     %s: energy temperature %s K at %s fs; diagnostics %.4f K (lattice %g K)" % (out, " ".join("%.4f" % x for x in Ts), " ".join("%g" % x for x in t), Tr, T))
    check(abs(Ts[-1] / Ts[-2] - 1) < tol / 4, "%s: stationary at the end (%.2e)" % (out, abs(Ts[-1] / Ts[-2] - 1)))
    check(abs(Ts[-1] / Tr - 1) < tol, "%s: relaxes to %.3f K, the diagnostics said %.3f K (%.1e, tolerance %.0e)" % (out, Ts[-1], Tr, abs(Ts[-1] / Tr - 1), tol))
    check(abs(Tr - T) > 5, "%s: %.1f K away from the lattice's %g K (so the comparison can fail)" % (out, Tr - T, T))
sys.exit(0 if ok else 1)
PY
