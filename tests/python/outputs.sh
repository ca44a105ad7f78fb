# The Python package (python/, docs/python.md) on the three outputs: installed with pip into a
# scratch folder (no network: --no-index, --no-build-isolation, --no-deps; PYTHONPATH when this
# Python has no pip), it reads a small dynamics (2 ranks, in a field), transport (2 temperatures)
# and highfield (2 fields) run of the parabolic model, and its objects must
#  - hold exactly what h5py reads from the datasets, with the documented units;
#  - satisfy the run's identities: carriers = s/Nk sum f of the stored occupations, the density =
#    carriers / cell volume, the population's integral = carriers, <E> = sum f e / sum f, the
#    mobility = sigma / (e n), v_d = velocity . field direction, valley occupations summing to 1;
#  - put k in space through /grid: the same lattice as the table's, k index -> (i,j,k) -> index and
#    crystal -> Cartesian -> crystal round trips, index 0 (Gamma) at k = 0, and the states' energies
#    equal to the model's closed form hbar^2 |k|^2 / (2 m*) at their Cartesian k;
# and the plot functions, the installed entry points and scripts/plot_*.py write PNGs.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
src="$TESTDIR/../python"
cp -r "$src" pysrc # pip builds in the source folder: build a copy, not the repository's
if "$PYTHON" -m pip --version > /dev/null 2>&1; then
  PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 "$PYTHON" -m pip install -q --no-build-isolation --no-index --no-deps --target pkg ./pysrc 2>&1 | grep -v "root' user" || true
  [ -f pkg/bte/__init__.py ] || { echo "pip did not install the package into pkg/"; exit 1; }
  bindir=pkg/bin
else
  echo "note: $PYTHON has no pip: the package is used from the repository through PYTHONPATH"
  mkdir -p pkg && cp -r pysrc/bte pkg/
  bindir=
fi
export PYTHONPATH=$PWD/pkg
model="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_view 0"
"$BTE" generate $model -bte_output table.h5 > /dev/null
$MPIEXEC -n ${TEST_NP:-2} "$BTE" dynamics -bte_input table.h5 -bte_view 0 -bte_init gaussian -bte_init_e0_edge 0.1 \
  -bte_efield 500,0,0 -bte_final_time 40 -bte_output_interval 10 -bte_dynamics_monitor 0 -bte_output dyn.h5 > /dev/null
"$BTE" transport -bte_input table.h5 -bte_view 0 -bte_temperatures 200,300 -bte_output tr.h5 > /dev/null
"$BTE" highfield -bte_input table.h5 -bte_view 0 -bte_efield_list 200,1000 -bte_efield_direction 1,1,0 -bte_output hf.h5 > /dev/null
"$PYTHON" - <<'PY'
import os, h5py, numpy as np
import bte
assert os.path.abspath(bte.__file__).startswith(os.path.abspath("pkg")), "bte imported from %s, not the installed copy" % bte.__file__

def same(obj, grp, names):
    for n in names:
        a = getattr(obj, n)
        b = grp[n][()][:len(a)] if grp[n].ndim else grp[n][()]
        assert np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float)), "%s differs from the dataset" % n
        if "units" in grp[n].attrs and n in obj.units:
            u = grp[n].attrs["units"]
            u = u.decode() if isinstance(u, bytes) else str(u)
            assert obj.units[n] == u or (u == "" and obj.units[n] == ""), "units of %s: %r vs file %r" % (n, obj.units[n], u)

tab = bte.open("table.h5")
assert isinstance(tab, bte.Table) and tab.nstates > 0 and tab.num_channels == len(tab.channels)
lat = tab.lattice
with h5py.File("table.h5", "r") as f:
    same(tab, f["states"], ["energy", "velocity", "kindex", "band"])
    assert np.array_equal(tab.channels.g2, f["channels/g2"][()]) and np.array_equal(tab.channels.i, f["channels/i"][()])

# ---- dynamics ----
dyn = bte.open("dyn.h5")
assert isinstance(dyn, bte.Dynamics) and dyn.nsnapshots == 5, dyn
with h5py.File("dyn.h5", "r") as f:
    g = f["dynamics"]
    same(dyn, g, ["time", "step", "carriers", "carrier_density", "mean_energy", "drift_velocity", "velocity",
                  "population", "energy_grid", "state_energy", "state_kindex", "state_band"])
    F = g["occupations"][()]
    assert np.array_equal(dyn.occupations(), F[:dyn.nsnapshots]) and np.array_equal(dyn.occupations(-1), F[dyn.nsnapshots - 1])
    assert dyn.temperature == g.attrs["temperature"] and np.array_equal(dyn.efield, g.attrs["efield"])
assert dyn.units["time"] == "fs" and dyn.units["mean_energy"] == "eV" and dyn.units["drift_velocity"] == "cm/s"
worst = {}
for i in range(dyn.nsnapshots):
    f = dyn.occupations(i)
    n = dyn.count_carriers(f)
    worst["carriers"] = max(worst.get("carriers", 0), abs(n / dyn.carriers[i] - 1))
    worst["density"] = max(worst.get("density", 0), abs(n / dyn.cell_volume * 1e24 / dyn.carrier_density[i] - 1))
    worst["population"] = max(worst.get("population", 0), abs(dyn.population[i].sum() * dyn.bin_width / dyn.carriers[i] - 1))
    worst["mean_energy"] = max(worst.get("mean_energy", 0), abs(np.dot(f, dyn.state_energy) / f.sum() - dyn.mean_energy[i]))
print("dynamics: worst identity errors", worst)
assert worst["carriers"] < 1e-12 and worst["density"] < 1e-12 and worst["population"] < 1e-12 and worst["mean_energy"] < 1e-12
assert abs(dyn.drift_velocity[0]) < 1e-9 * abs(dyn.drift_velocity[-1]) and np.all(dyn.drift_velocity[1:] < 0), "electrons start at rest and drift against +E_x"

# ---- lattice: the same as the table's; index and coordinate maps ----
for L in (dyn.lattice,):
    assert np.array_equal(L.lattice, lat.lattice) and np.array_equal(L.reciprocal, lat.reciprocal) and np.array_equal(L.nk, lat.nk)
    assert L.volume == lat.volume == dyn.cell_volume
L = dyn.lattice
assert np.allclose(L.reciprocal @ L.lattice.T, 2 * np.pi * np.eye(3), atol=1e-12)
allk = np.arange(L.nkpoints)
assert np.array_equal(L.kindex(L.ijk(allk)), allk), "k index -> (i,j,k) -> index"
assert np.array_equal(L.ijk(L.kindex(L.ijk(allk))), L.ijk(allk))
c = L.crystal(allk, centered=True)
assert np.allclose(L.to_crystal(L.cartesian(c)), c, atol=1e-13), "crystal -> Cartesian -> crystal"
assert np.array_equal(L.nearest_kindex(c), allk)
assert np.all(L.crystal(0) == 0) and np.all(L.cartesian(L.crystal(0)) == 0), "Gamma is not at 0"
i0 = int(np.argmin(dyn.state_energy))
assert dyn.state_kindex[i0] == 0 and np.all(dyn.kpoints(cartesian=True)[i0] == 0), "the band minimum is not at Gamma"
# parabolic model: e = hbar^2 k^2 / (2 m*), m* = 0.067 m_e, hbar^2/(2 m_e) = 3.80998212 eV A^2
k = dyn.kpoints(cartesian=True, centered=True)
e = 3.80998212 * (k ** 2).sum(axis=1) / 0.067
err = np.abs(e - (dyn.state_energy - dyn.state_energy.min())).max()
print("parabolic dispersion at the Cartesian k of %d states: max error %.2e eV" % (len(e), err))
assert err < 1e-6 * e.max(), err
# the table's velocities are hbar k / m* (hbar/m_e = 11.5767636 A^2/fs)
tk = tab.kpoints(cartesian=True, centered=True)
assert np.allclose(tab.velocity, 11.5767636 * tk / 0.067, rtol=1e-6, atol=1e-12), "velocity != hbar k / m*"
for bad in (-1, L.nkpoints):
    try:
        L.ijk(bad)
    except ValueError as ex:
        assert "outside" in str(ex)
    else:
        raise AssertionError("k index %d accepted" % bad)

# ---- transport ----
tr = bte.open("tr.h5")
assert isinstance(tr, bte.Transport) and len(tr) == 2
with h5py.File("tr.h5", "r") as f:
    same(tr, f["transport"], ["temperature", "chemical_potential", "carrier_density", "conductivity", "mobility",
                              "iterations", "residual", "operator_applies"])
assert tr.units["mobility"] == "cm^2/(V s)" and tr.units["conductivity"] == "S/m" and tr.units["temperature"] == "K"
rel = np.abs(tr.mobility_from_conductivity() - tr.mobility).max() / np.abs(tr.mobility).max()
print("transport: mobility %s cm^2/(V s); |sigma/(e n) - mu| / mu = %.1e" % (tr.component("xx"), rel))
assert rel < 1e-9
assert np.allclose(tr.component("trace"), np.trace(tr.mobility, axis1=1, axis2=2) / 3)
assert np.array_equal(tr.lattice.lattice, lat.lattice) and list(tr.k_grid) == lat.nk.tolist()
assert tr.temperature.tolist() == [200, 300] and tr.converged.all()

# ---- highfield ----
hf = bte.open("hf.h5")
assert isinstance(hf, bte.HighField) and len(hf) == 2
with h5py.File("hf.h5", "r") as f:
    same(hf, f["highfield"], ["field", "field_direction", "drift_velocity", "velocity", "mean_energy",
                              "valley_occupation", "band_occupation", "valley_energy", "number_source"])
d = hf.velocity @ hf.field_direction
assert np.allclose(hf.drift_velocity, d, rtol=1e-10), "v_d != velocity . direction"
assert np.allclose(hf.field_direction, [2 ** -0.5, 2 ** -0.5, 0])
assert np.allclose(hf.valley_occupation.sum(axis=1), 1, atol=1e-12)
assert hf.valley_label == ["Gamma"] and np.all(hf.valley_kpoints(cartesian=True) == 0)
assert np.array_equal(hf.lattice.reciprocal, lat.reciprocal)
print("highfield: v_d", hf.drift_velocity, "cm/s")

# ---- one output layer: the same provenance in every output, and completeness ----
for o in (dyn, tr, hf):
    assert o.complete is True, "%s: complete = %r after a run that ended" % (o.path, o.complete)
    assert o.provenance["creator"].startswith("bte ") and o.provenance["source"] == "table.h5", o.provenance
    assert o.provenance["created"].endswith("Z") and len(o.provenance["created"]) == 20, o.provenance
import shutil
for name in ("tr.h5", "hf.h5", "dyn.h5"):
    half = "half_" + name
    shutil.copy(name, half)
    with h5py.File(half, "r+") as f:
        f.attrs["complete"] = np.int32(0)  # what a writer stopped before closing leaves
    if name == "dyn.h5":
        d = bte.open(half)  # its snapshots are valid; the object says the run did not end
        assert d.complete is False and d.nsnapshots == dyn.nsnapshots
        continue
    try:
        bte.open(half)
    except bte.BTEFileError as ex:
        assert "not written to the end" in str(ex), ex
    else:
        raise AssertionError("%s with complete = 0 was read as complete" % half)
print("outputs: provenance and complete flag ok")

# ---- plots ----
figs = {"energy_distribution.png": bte.plot.energy_distribution(dyn, path="p/ed.png"),
        "mean_energy.png": bte.plot.mean_energy("dyn.h5", path="p/me.png"),
        "kspace.png": bte.plot.kspace(dyn, 2, "xz", path="p/ks.png"),
        "mobility.png": bte.plot.mobility(tr, "xx", path="p/mob.png"),
        "velocity.png": bte.plot.velocity_field("hf.h5", path="p/vf.png")}
for p in ("ed", "me", "ks", "mob", "vf"):
    with open("p/%s.png" % p, "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n", p
    assert os.path.getsize("p/%s.png" % p) > 10000, p
print("python package: outputs ok")
PY
# the command lines: installed entry points (with pip) and the repository's scripts
if [ -n "$bindir" ]; then
  "$PYTHON" $bindir/bte-plot-dynamics dyn.h5 --outdir ep --kspace xy | tee ep.txt
  [ "$(wc -l < ep.txt)" = 3 ] && [ -s ep/dyn_energy_distribution.png ] && [ -s ep/dyn_kspace.png ]
  "$PYTHON" $bindir/bte-plot-transport tr.h5 -o ep/mob.png | grep -q "wrote ep/mob.png"
fi
"$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" dyn.h5 --outdir sc --times 0,20,40 > sc.txt
[ "$(cat sc.txt)" = "$(printf "%s\n%s" sc/dyn_energy_distribution.png sc/dyn_mean_energy.png)" ]
"$PYTHON" "$TESTDIR/../scripts/plot_transport.py" hf.h5 | grep -q "wrote hf.png"
[ -s sc/dyn_mean_energy.png ] && [ -s hf.png ]
echo "ok"
