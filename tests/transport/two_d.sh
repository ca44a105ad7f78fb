# 2D material (graphene model, 600^2 grid, 626 states): sheet conductance in S, densities in
# cm^-2, no current out of the plane, in-plane isotropy of the hexagonal lattice (to the grid's
# sampling, 0.1 %), KSP at 1e-8 on 2 ranks; the density is the requested one; ita agrees with ksp.
set -e
[ -x "$BTE" ] && "$BTE" info -bte_model graphene -bte_grid 6 > /dev/null 2>&1 || { echo "graphene model not available"; exit 77; }
m="-bte_model graphene -bte_grid 600 -bte_view 0 -bte_temperatures 200,300 -bte_carrier_densities 1e12"
$MPIEXEC -n ${TEST_NP:-2} "$BTE" transport $m -bte_output g.h5
$MPIEXEC -n ${TEST_NP:-2} "$BTE" transport $m -bte_transport_method ita -bte_output gi.h5 > /dev/null
$PYTHON - <<'PY'
import h5py, numpy as np
with h5py.File("g.h5", "r") as f:
    g = f["transport"]
    u = lambda k: (lambda x: x.decode() if isinstance(x, bytes) else x)(g[k].attrs["units"])
    assert u("conductivity") == "S" and u("carrier_density") == "cm^-2", (u("conductivity"), u("carrier_density"))
    assert int(g.attrs["dimension"]) == 2
    mob, sig, n, res = g["mobility"][()], g["conductivity"][()], g["carrier_density"][()], g["residual"][()]
with h5py.File("gi.h5", "r") as f:
    mobi = f["transport/mobility"][()]
print("mobility xx, yy (cm^2/(V s)):", mob[:, 0, 0], mob[:, 1, 1], " ita xx:", mobi[:, 0, 0])
assert np.allclose(n, 1e12, rtol=1e-9)
assert np.all(mob[:, 2, :] == 0) and np.all(mob[:, :, 2] == 0), "out-of-plane components"
assert np.all(np.abs(mob[:, 1, 1] / mob[:, 0, 0] - 1) < 1e-2), "in-plane isotropy"
assert np.all(res[:, :2] <= 1e-8) and np.all(res[:, 2] == 0)
assert np.all(np.abs(mobi[:, 0, 0] / mob[:, 0, 0] - 1) < 5e-3), "ita vs ksp"
assert mob[0, 0, 0] > mob[1, 0, 0] > 0
# sheet conductance: sigma = e n mu with n in m^-2
assert np.allclose(sig[:, 0, 0], 1.602176634e-19 * n * 1e4 * mob[:, 0, 0] * 1e-4, rtol=1e-9)
print("ok")
PY
