# The Python package's readers and plots on what real use brings them (docs/python.md):
#  - damaged files: one byte flipped in the object header of every group and dataset of a
#    dynamics, transport and highfield output (HDF5's checksums catch it when the object is read)
#    raises BTEFileError, "damaged or unreadable", never h5py's own KeyError or RuntimeError; the
#    command lines print one line and exit 1 on such a file;
#  - a dynamics file held open for writing by another process (HDF5's file lock, as a running bte
#    holds it) is read, and so is one this process has open through h5py (with the lock);
#  - units on attributes: a wrong <name>_units sibling of /transport smearing_eV, /highfield
#    temperature_K and chemical_potential_eV, /dynamics output_interval, efield_time, efield_fwhm,
#    pump_time, pump_density and energy_grid bin_width is refused, naming it; an unreadable k_grid
#    ("sixteen", "24x24") and a /dynamics nstates other than the number of states are refused;
#  - every unit is listed: Dynamics.units has efield_time, efield_fwhm and pump (by key), HighField's
#    residual, number_error, edge_occupation;
#  - k space on the fcc lattice (GaAs 24^3, in a field): kpoints(nearest=True) is, for every state,
#    the image of smallest |k| found by brute force over 7^3 neighbouring cells (where [-1/2, 1/2)
#    is not, for some), and the kspace plot draws exactly those points; on a strongly skewed cell
#    the same holds against a wider brute-force search;
#  - occupations(99) raises IndexError, kspace(plane=None) ValueError; plot_dynamics --kspace xx
#    fails with one line before writing any PNG;
#  - velocity_field draws an unconverged field as an open marker and says so in its title.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 # the repository's package, read only
m="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_view 0"
"$BTE" dynamics $m -bte_final_time 2 -bte_output_interval 1 -bte_dynamics_monitor 0 -bte_output dyn.h5 > /dev/null
"$BTE" transport $m -bte_output tr.h5 > /dev/null
"$BTE" highfield $m -bte_efield_list 200,1000 -bte_output hf.h5 > /dev/null
"$BTE" dynamics -bte_model gaas -bte_grid 24 -bte_view 0 -bte_efield 2000,0,0 -bte_efield_profile pulse -bte_efield_time 10 \
  -bte_efield_fwhm 5 -bte_pump_density 1e17 -bte_pump_e0_edge 0.3 -bte_pump_smear 0.03 -bte_pump_time 5 -bte_pump_fwhm 5 \
  -bte_final_time 10 -bte_output_interval 5 -bte_dynamics_monitor 0 -bte_output gaas.h5 > /dev/null
"$PYTHON" - <<'PY'
import os, shutil, subprocess, sys
import h5py, numpy as np
import bte

def refused(fn, *want, exc=bte.BTEFileError):
    try:
        fn()
    except exc as ex:
        msg = str(ex)
        assert all(w in msg for w in want), "message %r lacks %s" % (msg, want)
        return msg
    except Exception as ex:
        raise AssertionError("expected %s with %s, got %s: %s" % (exc.__name__, want, type(ex).__name__, ex))
    raise AssertionError("accepted: expected %s with %s" % (exc.__name__, want))

def edited(src, name, edit):
    shutil.copy(src, name)
    with h5py.File(name, "r+") as f:
        edit(f)
    return name

# ---- damaged files: a flipped byte in an object header ----
def headers(path):
    out = {"/": None}
    with h5py.File(path, "r") as f:
        out["/"] = h5py.h5o.get_info(f.id).addr
        f.visititems(lambda name, obj: out.__setitem__(name, h5py.h5o.get_info(obj.id).addr))
    return out

def read_all(path):
    o = bte.open(path)
    if isinstance(o, bte.Dynamics):
        o.occupations()

must = {"dyn.h5": "dynamics/time", "tr.h5": "transport/mobility", "hf.h5": "highfield/drift_velocity"}
for src in ("dyn.h5", "tr.h5", "hf.h5"):
    data = open(src, "rb").read()
    damaged = 0
    for name, addr in sorted(headers(src).items()):
        for off in (6, 14, 40):  # inside the header: its checksum no longer matches
            b = bytearray(data)
            b[addr + off] ^= 0xFF
            open("bad_" + src, "wb").write(b)
            try:
                read_all("bad_" + src)
            except bte.BTEFileError as ex:
                damaged += "damaged or unreadable" in str(ex)
                assert str(ex).startswith("bad_" + src + ": "), ex
            except Exception as ex:
                raise AssertionError("%s with %s's header damaged at +%d: %s: %s, expected BTEFileError" % (src, name, off, type(ex).__name__, ex))
        if name == must[src]:
            refused(lambda: read_all("bad_" + src), "bad_" + src, "damaged or unreadable")
    assert damaged > 20, "%s: only %d damaged headers reported as damaged" % (src, damaged)
    print("%s: every damaged object header refused with BTEFileError (%d as damaged or unreadable)" % (src, damaged))
shutil.copy("bad_tr.h5", "damaged_tr.h5")

# ---- a file held open for writing (HDF5's lock, as a running bte holds it) ----
shutil.copy("dyn.h5", "writing.h5")
holder = subprocess.Popen([sys.executable, "-c", "import h5py, sys; f = h5py.File('writing.h5', 'r+'); print('open', flush=True); sys.stdin.read()"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
try:
    assert holder.stdout.readline().strip() == "open"
    try:
        h5py.File("writing.h5", "r", locking=True).close()
        print("note: this HDF5 does not lock files: the read below shows nothing more")
    except OSError:
        pass
    d = bte.Dynamics("writing.h5")
    assert d.nsnapshots == 3 and d.occupations(-1).shape == (d.nstates,)
finally:
    holder.stdin.close()
    holder.wait()
with h5py.File("dyn.h5", "r"):  # open in this process with h5py's default lock: read all the same
    assert bte.Dynamics("dyn.h5").occupations(0).shape == (d.nstates,)
print("a dynamics file held open for writing by another process, or open in this one, is read")

# ---- units of attributes, k_grid, nstates ----
for src, grp, attr_, cls in (("tr.h5", "transport", "smearing_eV_units", bte.Transport),
                             ("hf.h5", "highfield", "temperature_K_units", bte.HighField),
                             ("hf.h5", "highfield", "chemical_potential_eV_units", bte.HighField),
                             ("dyn.h5", "dynamics", "output_interval_units", bte.Dynamics),
                             ("gaas.h5", "dynamics", "efield_time_units", bte.Dynamics),
                             ("gaas.h5", "dynamics", "efield_fwhm_units", bte.Dynamics),
                             ("gaas.h5", "dynamics", "pump_time_units", bte.Dynamics),
                             ("gaas.h5", "dynamics", "pump_density_units", bte.Dynamics),
                             ("dyn.h5", "dynamics/energy_grid", "bin_width_units", bte.Dynamics)):
    with h5py.File(src, "r") as f:
        assert attr_ in f[grp].attrs, "%s: bte wrote no %s on /%s" % (src, attr_, grp)
    p = edited(src, "u_" + src, lambda f: f[grp].attrs.__setitem__(attr_, np.bytes_("Ry")))
    print("refused:", refused(lambda: cls(p), p, attr_, "'Ry'"))
for src, cls in (("tr.h5", bte.Transport), ("hf.h5", bte.HighField)):
    grp = "transport" if src == "tr.h5" else "highfield"
    for bad in ("sixteen", "24x24"):
        p = edited(src, "k_" + src, lambda f: f[grp].attrs.__setitem__("k_grid", np.bytes_(bad)))
        print("refused:", refused(lambda: cls(p), p, "k_grid", bad))
p = edited("dyn.h5", "n_dyn.h5", lambda f: f["dynamics"].attrs.__setitem__("nstates", np.int32(bte.Dynamics("dyn.h5").nstates + 1)))
print("refused:", refused(lambda: bte.Dynamics(p), p, "nstates"))

# ---- every unit listed ----
g = bte.Dynamics("gaas.h5")
assert g.units["efield_time"] == g.units["efield_fwhm"] == "fs" and g.efield_profile == "pulse"
assert g.units["pump"] == {"density": "cm^-3", "e0_edge": "eV", "smear": "eV", "time": "fs", "fwhm": "fs"} and set(g.pump) == set(g.units["pump"])
hf = bte.HighField("hf.h5")
assert all(hf.units[k] == "1" for k in ("residual", "number_error", "edge_occupation")), hf.units

# ---- k space on fcc: the image nearest Gamma, against brute force ----
L = g.lattice
c = g.kpoints()
shifts = np.array([[i, j, k] for i in range(-3, 4) for j in range(-3, 4) for k in range(-3, 4)])
imgs = (c[:, None, :] + shifts[None]) @ L.reciprocal
kmin = np.sqrt((imgs ** 2).sum(-1).min(axis=1))
kn = g.kpoints(cartesian=True, nearest=True)
kc = g.kpoints(cartesian=True, centered=True)
assert np.allclose(np.linalg.norm(kn, axis=1), kmin, rtol=0, atol=1e-12), np.abs(np.linalg.norm(kn, axis=1) - kmin).max()
assert np.allclose(L.to_crystal(kn) - c, np.round(L.to_crystal(kn) - c), atol=1e-9), "nearest=True is not an image of the state's k"
far = np.linalg.norm(kc, axis=1) > kmin + 1e-9
assert far.sum() > 10, "[-1/2, 1/2) is already the nearest image here: the check above shows nothing"
fig = bte.plot.kspace(g, -1, "xy")
drawn = fig.axes[0].collections[0].get_offsets()
assert np.allclose(np.sort(drawn[:, 0]), np.sort(kn[:, 0])) and np.allclose(np.sort(drawn[:, 1]), np.sort(kn[:, 1]))
print("GaAs 24^3: %d of %d states lie outside the zone in [-1/2, 1/2) (|k| up to %.2f 1/A); nearest=True and the kspace plot put all within %.2f 1/A, as brute force"
      % (far.sum(), len(c), np.linalg.norm(kc, axis=1).max(), kmin.max()))
# a strongly skewed cell needs more than the 27 neighbouring cells
S = bte.Lattice([6, 6, 6], [[1.0, 0, 0], [0.97, 0.25, 0], [0.3, 0.6, 0.4]])
cs = S.crystal(np.arange(S.nkpoints))
big = np.array([[i, j, k] for i in range(-8, 9) for j in range(-8, 9) for k in range(-8, 9)])
ks = S.cartesian(S.crystal(np.arange(S.nkpoints), nearest=True))
brute = np.array([np.sqrt((((ci + big) @ S.reciprocal) ** 2).sum(-1).min()) for ci in cs])
next27 = np.array([[i, j, k] for i in (-1, 0, 1) for j in (-1, 0, 1) for k in (-1, 0, 1)])
near27 = np.sqrt(((((cs - np.floor(cs + 0.5))[:, None, :] + next27[None]) @ S.reciprocal) ** 2).sum(-1).min(axis=1))
assert np.allclose(np.linalg.norm(ks, axis=1), brute, rtol=1e-12, atol=1e-12)
assert np.any(near27 > brute + 1e-9), "the skewed cell's nearest images are all among the 27 next cells: the check shows nothing"
print("skewed cell: nearest images equal a brute-force search over 17^3 cells")

# ---- arguments ----
d = bte.Dynamics("dyn.h5")
refused(lambda: d.occupations(99), "snapshot 99 outside", exc=IndexError)
refused(lambda: bte.plot.kspace(d, plane=None), "plane None", exc=ValueError)

# ---- velocity_field: an unconverged field is an open marker ----
def unconverged(f):
    c = f["highfield/converged"]
    a = c[()]
    a[1] = 0
    c[...] = a
p = edited("hf.h5", "unconv.h5", unconverged)
fig = bte.plot.velocity_field(p)
ax = fig.axes[0]
opened = [l for l in ax.get_lines() if l.get_markerfacecolor() in ("white", "w", (1.0, 1.0, 1.0, 1.0))]
assert len(opened) == 1 and len(opened[0].get_xdata()) == 1 and opened[0].get_xdata()[0] == 1.0, "the 1 kV/cm field is not drawn open"
assert "not converged" in ax.get_title() and any("not converged" in t.get_text() for t in ax.get_legend().get_texts())
fig = bte.plot.velocity_field("hf.h5")
assert "not converged" not in fig.axes[0].get_title() and fig.axes[0].get_legend() is None
print("python readers: all checks passed")
PY
# the command lines: one line and exit 1 on a damaged file; a bad --kspace before any PNG
expect_fail "damaged or unreadable" "$PYTHON" "$TESTDIR/../scripts/plot_transport.py" damaged_tr.h5
[ "$("$PYTHON" "$TESTDIR/../scripts/plot_transport.py" damaged_tr.h5 2>&1 | wc -l)" = 1 ]
expect_fail "kspace: plane 'xx'" "$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" dyn.h5 --outdir ks --kspace xx
[ ! -e ks ] || [ -z "$(ls ks)" ] || { echo "plot_dynamics --kspace xx wrote: $(ls ks)"; exit 1; }
echo "ok"
