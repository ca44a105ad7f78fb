# The window's edge at each transport configuration: the share of the conducting carriers (weight
# f0 (1 - f0)) within 3 kT of the window's top, /transport/edge_share, against the same sum in numpy
# from the output's state energies and chemical potential; above 1e-3 the run says so in one line
# (a narrow 0.15 eV window at 300 K), and a 0.3 eV window at 1e17 cm^-3 stays below and silent.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
P="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 16 -bte_view 0"
out=$("$BTE" transport $P -bte_window 0.15 -bte_temperatures 300,400 -bte_output narrow.h5)
grep -q "transport: WARNING at T = 300 K, n = 1e+17: 0.1.* of the conducting carriers" <<<"$out" || { echo "$out"; echo "FAIL: no edge warning for the 0.15 eV window"; exit 1; }
out=$("$BTE" transport $P -bte_output wide.h5)
! grep -q "transport: WARNING.*window's top" <<<"$out" || { echo "$out"; echo "FAIL: an edge warning for the 0.3 eV window"; exit 1; }
"$PYTHON" - <<'PY'
import h5py, numpy as np
for name, top, warned in (("narrow.h5", 0.15, True), ("wide.h5", 0.3, False)):
    g = h5py.File(name, "r")["transport"]
    e = g["state_energy"][:]
    for k, (T, mu) in enumerate(zip(g["temperature"][:], g["chemical_potential"][:])):
        kT = 8.617333262e-5 * T
        f = 1 / (np.exp((e - mu) / kT) + 1)
        w = f * (1 - f)
        ref = w[e >= top - 3 * kT].sum() / w.sum()
        got = g["edge_share"][k]
        assert abs(got / ref - 1) < 1e-10, (name, T, got, ref)
        assert (got > 1e-3) == warned, (name, T, got)
        print("ok   %s at %g K: edge share %.4e (numpy %.4e)" % (name, T, got, ref))
PY
