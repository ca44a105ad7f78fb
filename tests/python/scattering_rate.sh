# /transport/scattering_rate (each state's out-scattering rate Gamma_i = -diag J(f0), Perturbo's
# imsigma as 2 Im Sigma / hbar) against the package's independent numpy collision integral,
# bte.Collision.scattering_rates at the output's own chemical potential and temperature: on one rank
# and on two (the states then come in the ranks' order, matched to the table's by k index and band),
# with Perturbo's delta and the balanced one, on the parabolic model (LO + acoustic).
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1
model="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 12 -bte_view 0"
"$BTE" generate $model -bte_output table.h5 > /dev/null
"$BTE" generate $model -bte_delta balanced -bte_output bal.h5 > /dev/null
"$BTE" transport -bte_input table.h5 -bte_view 0 -bte_temperatures 150,300 -bte_carrier_densities 1e17,1e19 -bte_output one.h5 > /dev/null
$MPIEXEC -n 2 "$BTE" transport -bte_input table.h5 -bte_view 0 -bte_temperatures 150,300 -bte_carrier_densities 1e17,1e19 -bte_output two.h5 > /dev/null
"$BTE" transport -bte_input bal.h5 -bte_view 0 -bte_temperatures 300 -bte_output bal_out.h5 > /dev/null
"$PYTHON" - <<'PY'
import h5py, numpy as np, bte
worst = 0
for out, tab in (("one.h5", "table.h5"), ("two.h5", "table.h5"), ("bal_out.h5", "bal.h5")):
    t = bte.Table(tab)
    with h5py.File(out, "r") as f:
        g = f["transport"]
        G, T, mu = g["scattering_rate"][:], g["temperature"][:], g["chemical_potential"][:]
        assert g["scattering_rate"].attrs["units"] in (b"1/fs", "1/fs")
        key = {(k, b): i for i, (k, b) in enumerate(zip(t.kindex, t.band))}
        order = np.array([key[(k, b)] for k, b in zip(g["state_kindex"][:], g["state_band"][:])])
        assert sorted(order) == list(range(len(t.energy))), "the output's states are not the table's"
        assert np.array_equal(g["state_energy"][:], t.energy[order])
    assert G.shape == (len(T), len(t.energy)), G.shape
    for k in range(len(T)):
        c = bte.Collision(t, T[k])
        ref = c.scattering_rates(c.fermi_dirac(mu[k]))[order]
        err = np.max(np.abs(G[k] - ref)) / np.max(ref)
        worst = max(worst, err)
        assert err < 1e-12, (out, T[k], mu[k], err)
        assert np.all(G[k] > 0), "a state without scattering on this connected grid"
    print("ok: %s, %d configurations: scattering_rate = bte.Collision to %.1e" % (out, len(T), worst))
# the occupations enter as 2 Im Sigma does: emission (N + 1 - f_j), absorption (N + f_j). The lowest
# states can only absorb, so where the states above them fill (1e19 cm^-3, degenerate at 150 K) their
# rate rises above that at 1e17
with h5py.File("one.h5", "r") as f:
    g = f["transport"]
    G, T, n = g["scattering_rate"][:], g["temperature"][:], g["carrier_density"][:]
    e = g["state_energy"][:]
low = np.argsort(e)[:5]
k17 = [k for k in range(len(T)) if T[k] == 150 and n[k] < 1e18][0]
k19 = [k for k in range(len(T)) if T[k] == 150 and n[k] > 1e18][0]
assert np.all(G[k19][low] > G[k17][low]), (G[k17][low], G[k19][low])
print("ok: the lowest states' rates rise with the filling, %.3g -> %.3g 1/fs" % (G[k17][low[0]], G[k19][low[0]]))
PY
# the package's reader gives the same arrays
"$PYTHON" - <<'PY'
import h5py, numpy as np, bte
r = bte.Transport("two.h5")
with h5py.File("two.h5", "r") as f:
    assert np.array_equal(r.scattering_rate, f["transport/scattering_rate"][:])
    assert np.array_equal(r.state_energy, f["transport/state_energy"][:])
assert r.units["scattering_rate"] == "1/fs"
print("ok: bte.Transport reads scattering_rate (%d x %d)" % r.scattering_rate.shape)
PY
# the plot of the rates against energy: the function and the command's second PNG
"$PYTHON" - <<'PY'
import bte
fig = bte.plot.scattering_rates("one.h5", path="rates.png")
ax = fig.axes[0]
assert ax.get_yscale() == "log" and len(ax.lines) == 4, (ax.get_yscale(), len(ax.lines))
print("ok: bte.plot.scattering_rates, one marker set per configuration")
PY
[ -s rates.png ]
"$PYTHON" "$TESTDIR/../scripts/plot_transport.py" one.h5 -o mob.png > plot.log
grep -q "wrote mob.png" plot.log && grep -q "wrote mob_rates.png" plot.log && [ -s mob.png ] && [ -s mob_rates.png ] || { echo "plot_transport.py did not write both PNGs:"; cat plot.log; exit 1; }
echo "ok: plot_transport.py writes the mobility and the rates"
