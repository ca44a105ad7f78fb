# The Python package (docs/python.md) on tables and on bad input:
#  - the GaAs model (fcc): the table's lattice is the documented fcc cell (a = 5.65325 A, volume
#    a^3/4), the Gamma-valley states satisfy e (1 + alpha e) = hbar^2 |k|^2 / (2 m*) at their
#    Cartesian k (minimal image), the lowest state away from Gamma sits at |k| = sqrt(3) pi / a, and
#    crystal -> Cartesian -> crystal is exact; every dataset equals what h5py reads;
#  - graphene (2D): dim 2, nk[2] = 1, the area in Angstrom^2 = |a1 x a2|, a3 the unit normal; its
#    transport output in sheet units (cm^-2, S) with mu = sigma / (e n);
#  - bad input raises BTEFileError naming the file and what is wrong (missing, not HDF5, a table
#    whose units say Ry, a table read as an output), the CLI prints one line and exits 1, and an
#    output without /grid (written before outputs carried it) still gives crystal k while Cartesian
#    k is refused with a message that names the file.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 # the repository's package, read only
"$BTE" generate -bte_model gaas -bte_grid 32 -bte_window 0.32 -bte_output gaas.h5 > /dev/null
"$BTE" generate -bte_model graphene -bte_grid 24 -bte_output gr.h5 > /dev/null
"$BTE" transport -bte_model graphene -bte_grid 300 -bte_view 0 -bte_carrier_densities 1e12 -bte_output gr_tr.h5 > /dev/null
"$BTE" dynamics -bte_model parabolic -bte_grid 6 -bte_parabolic_a 20 -bte_view 0 -bte_final_time 2 -bte_output_interval 1 \
  -bte_dynamics_monitor 0 -bte_output dyn.h5 > /dev/null
echo "not hdf5" > text.h5
"$PYTHON" - <<'PY'
import shutil, h5py, numpy as np
import bte

t = bte.open("gaas.h5")
assert isinstance(t, bte.Table) and t.carrier == "electrons" and t.nmodes == 6 and t.model_name == "gaas"
assert "isotropic L and X masses" in t.field_caveat and t.field_caveat_min == 5000 and t.caveat == ""  # the model's warnings travel with the table
assert "classic Gamma-L coupling" in t.field_caveat_2 and t.field_caveat_2_min == 3000
with h5py.File("gaas.h5", "r") as f:
    for n in ("energy", "velocity", "kindex", "band"):
        assert np.array_equal(getattr(t, n), f["states"][n][()]), n
    assert np.array_equal(t.lattice.lattice, f["grid/lattice"][()]) and np.array_equal(t.lattice.nk, f["grid/nk"][()])
    assert t.smearing == f["channels"].attrs["smearing"]
L = t.lattice
a = 5.65325
assert np.allclose(L.lattice, [[0, a / 2, a / 2], [a / 2, 0, a / 2], [a / 2, a / 2, 0]], atol=1e-9), L.lattice
assert abs(L.volume - a ** 3 / 4) < 1e-9 * a ** 3
c = L.crystal(np.arange(L.nkpoints))
assert np.allclose(L.to_crystal(L.cartesian(c)), c, atol=1e-13)
# minimal image of each state's k among the 27 neighbouring cells
shifts = np.array([[i, j, k] for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)])
kc = t.kpoints(centered=True)
imgs = (kc[:, None, :] + shifts[None]) @ L.reciprocal
kmin = imgs[np.arange(len(kc)), np.argmin((imgs ** 2).sum(-1), axis=1)]
k2 = (kmin ** 2).sum(1)
e = t.energy - t.energy.min()
gam = k2 < 0.5 ** 2  # the Gamma valley (L and X minima lie at |k| = 0.96 and 1.11 1/A)
lhs = e[gam] * (1 + 0.61 * e[gam])
rhs = 3.80998212 * k2[gam] / 0.063
print("GaAs Gamma valley: %d states, max |e(1 + a e) - hbar^2 k^2/2m*| = %.2e eV" % (gam.sum(), np.abs(lhs - rhs).max()))
assert gam.sum() > 5 and np.allclose(lhs, rhs, rtol=1e-6, atol=1e-9)
assert t.kindex[np.argmin(t.energy)] == 0 and np.all(t.kpoints(cartesian=True)[np.argmin(t.energy)] == 0)
lv = np.where(k2 >= 0.5 ** 2)[0]
il = lv[np.argmin(e[lv])]
kl = np.sqrt(k2[il])
print("lowest L state: e = %.4f eV, |k| = %.6f, sqrt(3) pi / a = %.6f 1/A" % (e[il], kl, np.sqrt(3) * np.pi / a))
assert abs(e[il] - 0.29) < 1e-9 and abs(kl - np.sqrt(3) * np.pi / a) < 1e-9

g = bte.open("gr.h5")
G = g.lattice
assert G.dim == 2 and G.nk[2] == 1 and G.units["volume"] == "Angstrom^2"
assert abs(G.volume - np.linalg.norm(np.cross(G.lattice[0], G.lattice[1]))) < 1e-9
assert np.allclose(G.lattice[2], [0, 0, 1]) and np.allclose(G.reciprocal @ G.lattice.T, 2 * np.pi * np.eye(3))
kk = g.kpoints(cartesian=True)
assert np.all(kk[:, 2] == 0) and np.allclose(G.to_crystal(kk), g.kpoints(), atol=1e-13)
tr = bte.open("gr_tr.h5")  # 2D transport: sheet units, sigma / (e n) with n in cm^-2
assert tr.dim == 2 and tr.units["carrier_density"] == "cm^-2" and tr.units["conductivity"] == "S"
assert tr.lattice.dim == 2 and tr.lattice.nk.tolist() == [300, 300, 1] and tr.lattice.units["volume"] == "Angstrom^2"
assert abs(tr.carrier_density[0] / 1e12 - 1) < 1e-9
assert np.allclose(tr.mobility_from_conductivity()[0, :2, :2], tr.mobility[0, :2, :2], rtol=1e-9)
assert abs(tr.component("trace")[0] - (tr.mobility[0, 0, 0] + tr.mobility[0, 1, 1]) / 2) < 1e-9 * tr.mobility[0, 0, 0]

def refused(fn, *want):
    try:
        fn()
    except bte.BTEFileError as ex:
        msg = str(ex)
        assert all(w in msg for w in want), "message %r lacks %s" % (msg, want)
        print("refused:", msg)
        return
    raise AssertionError("accepted: expected an error with %s" % (want,))

refused(lambda: bte.open("missing.h5"), "missing.h5", "no such file")
refused(lambda: bte.open("text.h5"), "text.h5", "not a readable HDF5 file")
refused(lambda: bte.Dynamics("gaas.h5"), "gaas.h5", "no /dynamics group")
refused(lambda: bte.Table("dyn.h5"), "dyn.h5", "not a bte scattering table")
shutil.copy("gaas.h5", "ry.h5")
with h5py.File("ry.h5", "r+") as f:
    f["states/energy"].attrs["units"] = "Ry"
refused(lambda: bte.Table("ry.h5"), "ry.h5", "/states/energy", "'Ry'", "'eV'")
shutil.copy("gaas.h5", "bohr.h5")
with h5py.File("bohr.h5", "r+") as f:
    f["grid/lattice"][...] = f["grid/lattice"][()] / 0.529177210903
refused(lambda: bte.Table("bohr.h5"), "bohr.h5", "reciprocal")

# an output written before outputs carried /grid
shutil.copy("dyn.h5", "old.h5")
with h5py.File("old.h5", "r+") as f:
    del f["grid"]
d = bte.Dynamics("old.h5")
assert d.lattice.reciprocal is None and d.lattice.nk.tolist() == [6, 6, 6]
assert np.allclose(d.kpoints(), bte.Dynamics("dyn.h5").kpoints())
try:
    d.kpoints(cartesian=True)
except ValueError as ex:
    assert "old.h5" in str(ex) and "lattice vectors" in str(ex), ex
else:
    raise AssertionError("Cartesian k without a lattice")
print("python package: tables ok")
PY
expect_fail "plot_transport: .*gaas.h5 has neither /transport nor /highfield" "$PYTHON" "$TESTDIR/../scripts/plot_transport.py" gaas.h5
expect_fail "plot_dynamics: missing.h5: no such file" "$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" missing.h5
expect_fail "plot_dynamics: .*no /dynamics group" "$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" gaas.h5
expect_fail "plot_dynamics: --times" "$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" dyn.h5 --times 1,x
for m in missing text gaas; do
  n=$("$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" $m.h5 2>&1 | wc -l) || true
  [ "$n" = 1 ] || { echo "plot_dynamics $m.h5: $n lines, expected one"; exit 1; }
done
echo ok
