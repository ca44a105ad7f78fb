# -bte_gaas_intervalley_d Gamma-L,L-L,L-X,Gamma-X,X-X (eV/cm): another intervalley set. The |g|^2 of an
# intervalley channel is hbar D^2 / (2 rho V omega), so with the Gamma-L coupling raised from 1.8e8 to
# 1e9 eV/cm every Gamma-L channel (mode 2) must scale by (1e9/1.8e8)^2 = 30.864 exactly, every other
# channel must stay bit-identical, and the same channels must exist (the coupling does not select
# channels); the values are recorded in the table's model attributes; bad counts and values are
# refused in one line.
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
sys.exit(0 if ok else 1)
PY
