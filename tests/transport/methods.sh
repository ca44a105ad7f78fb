# bte transport, every solver path on the parabolic model with LO + acoustic phonons
# (a = 40 A, 14^3 grid, 300 K, 1e17 cm^-3; about 1000 states):
#  - ksp (GMRES, RTA preconditioner) reaches 1e-8 relative residual in all directions;
#  - bcgs and cg (symmetric form) agree with gmres;
#  - ita agrees with ksp to its stopping tolerance (2e-3 default; 1e-5 tight);
#  - rta differs from the full solution by > 20 % (polar optical scattering is inelastic
#    and anisotropic: the RTA is poor for it);
#  - 2 ranks give what 1 rank gives; the HDF5 file has the documented datasets and units;
#  - scripts/plot_transport.py draws a PNG.
set -e
opts="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 14 -bte_view 0 -bte_temperatures 200,300"
run() { $MPIEXEC -n ${TEST_NP:-2} "$BTE" transport $opts "$@"; }
run -bte_transport_method ksp -bte_output ksp.h5
"$BTE" transport $opts -bte_transport_method ksp -bte_output ksp1.h5 > /dev/null
run -bte_transport_method ksp -bte_transport_ksp_type bcgs -bte_output bcgs.h5 > /dev/null
run -bte_transport_method ksp -bte_transport_ksp_type cg -bte_output cg.h5 > /dev/null
run -bte_transport_method ita -bte_output ita.h5
run -bte_transport_method ita -bte_ita_tol 1e-5 -bte_output ita5.h5 > /dev/null
run -bte_transport_method rta -bte_output rta.h5 > /dev/null
$PYTHON - <<'PY'
import h5py, numpy as np
def load(name):
    with h5py.File(name, "r") as f:
        g = f["transport"]
        for k, u in [("temperature", "K"), ("chemical_potential", "eV"), ("carrier_density", "cm^-3"),
                     ("conductivity", "S/m"), ("mobility", "cm^2/(V s)"), ("iterations", "1"),
                     ("operator_applies", "1"), ("residual", "1")]:
            assert k in g, "missing /transport/" + k
            got = g[k].attrs["units"]
            got = got.decode() if isinstance(got, bytes) else got
            assert got == u, "units of %s: %r" % (k, got)
        assert g["conductivity"].shape == (2, 3, 3) and g["mobility"].shape == (2, 3, 3)
        return {k: g[k][()] for k in g}
ksp, ksp1, bcgs, cg, ita, ita5, rta = (load(n + ".h5") for n in ("ksp", "ksp1", "bcgs", "cg", "ita", "ita5", "rta"))
mu = lambda d: d["mobility"][:, 0, 0]
print("T              ", ksp["temperature"])
print("mobility ksp   ", mu(ksp), "residual", ksp["residual"].max(), "applies", ksp["operator_applies"])
print("mobility bcgs  ", mu(bcgs), "cg", mu(cg))
print("mobility ita   ", mu(ita), "iterations", ita["iterations"][:, 0], "applies", ita["operator_applies"])
print("mobility ita5  ", mu(ita5), "iterations", ita5["iterations"][:, 0])
print("mobility rta   ", mu(rta))
assert np.all(ksp["residual"] <= 1e-8), "KSP did not reach 1e-8: %s" % ksp["residual"]
assert np.all(ksp["converged"] == 1)
assert np.allclose(mu(ksp), mu(ksp1), rtol=1e-9), "1 rank vs 2 ranks"
assert np.allclose(mu(bcgs), mu(ksp), rtol=1e-6), "bcgs vs gmres"
assert np.allclose(mu(cg), mu(ksp), rtol=1e-4), "cg (symmetric form) vs gmres"
d = np.abs(mu(ita) / mu(ksp) - 1)
print("ita vs ksp: relative difference", d, "(tolerance 2e-3)")
assert np.all(d < 2e-3), "ITA (tol 2e-3) and KSP differ by %s" % d
d5 = np.abs(mu(ita5) / mu(ksp) - 1)
print("ita (tol 1e-5) vs ksp:", d5)
assert np.all(d5 < 1e-4), "ITA (tol 1e-5) and KSP differ by %s" % d5
assert np.all(ita5["iterations"][:, 0] > ita["iterations"][:, 0])
r = mu(rta) / mu(ksp)
print("rta / ksp:", r)
assert np.all(np.abs(r - 1) > 0.2), "RTA should differ from the full solution with LO phonons"
for d in (ksp, ita, rta):
    t = d["mobility"]
    assert np.allclose(t[:, 1, 1], t[:, 0, 0], rtol=1e-8) and np.allclose(t[:, 2, 2], t[:, 0, 0], rtol=1e-8), "not isotropic"
    assert np.max(np.abs(t[:, 0, 1])) < 1e-8 * t[:, 0, 0].min(), "off-diagonal mobility"
assert np.all(np.diff(mu(ksp)) < 0), "mobility should fall with temperature"
print("ok")
PY
$PYTHON "$TESTDIR/../scripts/plot_transport.py" ksp.h5 -o mob.png
test -s mob.png
