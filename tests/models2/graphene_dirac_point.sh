# graphene on grids that contain the Dirac points (N a multiple of 3): the states at K and K' have
# velocity 0 (the cone has no gradient there; rounding once gave them v_F in an arbitrary direction,
# which broke k -> -k symmetry: a current without a field, a singular linear response, a 100x
# anisotropic mobility at low density). Checked for both bands:
#  - the table's states at e = 0 (two: K and K') have v = 0 exactly, and sum_i v_i = 0 (every k has
#    its -k in the window, with the opposite velocity);
#  - the zero-field diagnostic finds no current;
#  - transport converges and the mobility tensor is isotropic (xx = yy, xy = 0), at 1e12 and at
#    1e9 cm^-2 (where the carriers sit near the Dirac points).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no python3 with h5py"; exit 77; }
for band in tb dirac; do
  OMP_NUM_THREADS=1 "$BTE" generate -bte_model graphene -bte_graphene_band $band -bte_grid 300 -bte_output $band.h5 -bte_view 0 > /dev/null
  OMP_NUM_THREADS=1 "$BTE" info -bte_input $band.h5 > $band.gen
  grep -q "zero-field current: none" $band.gen || { echo "FAIL: $band: zero-field current reported"; grep "zero-field" $band.gen; exit 1; }
  "$PYTHON" - $band.h5 <<'PY'
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
e, v = f["states/energy"][()], f["states/velocity"][()]
k0 = np.flatnonzero(e < 1e-9)
assert len(k0) == 2, "expected the two Dirac points among the states, found %d" % len(k0)
assert np.all(v[k0] == 0), "velocity at the Dirac points: %s" % v[k0]
s = np.abs(v.sum(0)).max() / np.abs(v).max()
assert s < 1e-12, "sum of the velocities / largest: %g (k -> -k symmetry broken)" % s
print("%s: v = 0 at K and K'; |sum v| / max |v| = %.1e" % (sys.argv[1], s))
PY
  for n in 1e12 1e9; do
    OMP_NUM_THREADS=1 "$BTE" transport -bte_input $band.h5 -bte_carrier_densities $n -bte_view 0 -bte_output tr_$band$n.h5 > tr.out
    "$PYTHON" - tr_$band$n.h5 <<'PY'
import sys, h5py, numpy as np
t = h5py.File(sys.argv[1], "r")["transport"]
mu, conv = t["mobility"][()][0], t["converged"][()]
assert np.all(conv == 1), "not converged"
assert abs(mu[0, 0] / mu[1, 1] - 1) < 1e-6 and abs(mu[0, 1]) < 1e-6 * mu[0, 0], "anisotropic mobility:\n%s" % mu
print("%s: mu_xx = mu_yy = %.5g cm^2/(V s), converged" % (sys.argv[1], mu[0, 0]))
PY
  done
done
