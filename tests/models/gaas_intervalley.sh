# -bte_gaas_intervalley_d Gamma-L,L-L,L-X,Gamma-X,X-X (eV/cm): another intervalley set. The |g|^2 of an
# intervalley channel is hbar D^2 / (2 rho V omega), so with the Gamma-L coupling raised from 1.8e8 to
# 1e9 eV/cm every Gamma-L channel (mode 2) must scale by (1e9/1.8e8)^2 = 30.864 exactly, every other
# channel must stay bit-identical, and the same channels must exist (the coupling does not select
# channels); the values are recorded in the table's model attributes; bad counts and values are
# refused in one line. Every intervalley channel's |g|^2 must equal hbar D^2/(2 rho V omega) of its
# pair type, evaluated here in SI units (V = a^3/4, rho = 5360 kg/m^3), for both sets.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
m="-bte_model gaas -bte_grid 20"
"$BTE" generate $m -bte_output a.h5 > /dev/null
"$BTE" generate $m -bte_gaas_intervalley_d 1e9,1e9,5e8,1e9,7e8 -bte_output b.h5 > /dev/null
"$BTE" info $m -bte_gaas_intervalley_d 1e9,1e9,5e8,1e9,7e8 | grep -q "D_Gamma_L = 1e+09 eV/cm" || { echo "FAIL: D_Gamma_L not recorded"; exit 1; }
expect_fail "needs five values" "$BTE" info $m -bte_gaas_intervalley_d 1e9,1e9
expect_fail "needs five values" "$BTE" info $m -bte_gaas_intervalley_d 1e9,1e9,5e8,1e9,7e8,1
expect_fail "must be in \[0, 1e12\]" "$BTE" info $m -bte_gaas_intervalley_d 1e9,-1,5e8,1e9,7e8
"$PYTHON" - <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File("a.h5", "r")["channels"], h5py.File("b.h5", "r")["channels"]
for k in ("i", "j", "mode", "phonon_energy"):
    assert np.array_equal(a[k][:], b[k][:]), "channel %s differs" % k
mode, ga, gb = a["mode"][:], a["g2"][:], b["g2"][:]
gl = mode == 2
r = gb[gl] / ga[gl]
print("Gamma-L channels: %d, |g|^2 ratio %.6f..%.6f (expected %.6f); other channels: %d, max change %.1e"
      % (gl.sum(), r.min(), r.max(), (1e9 / 1.8e8) ** 2, (~gl).sum(), np.abs(gb[~gl] - ga[~gl]).max()))
ok = gl.sum() > 0 and np.allclose(r, (1e9 / 1.8e8) ** 2, rtol=1e-12, atol=0) and np.array_equal(gb[~gl], ga[~gl])
hbar, e = 1.054571817e-34, 1.602176634e-19
V, rho = 5.65325e-10 ** 3 / 4, 5360.0
def g2(D, hw):  # D in eV/cm, hw in eV -> eV^2
    return hbar * (D * 100) ** 2 / (2 * rho * V * hw * e / hbar)
for name, g, D in (("default", ga, (1.8e8, 1e9, 5e8, 1e9, 7e8)), ("Gamma-L 1e9", gb, (1e9, 1e9, 5e8, 1e9, 7e8))):
    for mode, want in ((2, [g2(D[0], 0.0278)]), (3, [g2(D[1], 0.0290)]), (4, [g2(D[2], 0.0293)]), (5, [g2(D[3], 0.0299), g2(D[4], 0.0299)])):
        got = g[a["mode"][:] == mode]
        err = max(min(abs(x / w - 1) for w in want) for x in got) if len(got) else 1
        print("%-11s mode %d: %6d channels, |g|^2 against hbar D^2/(2 rho V omega): max rel. error %.1e" % (name, mode, len(got), err))
        ok &= len(got) > 0 and err < 1e-9
sys.exit(0 if ok else 1)
PY
