# The Python package (docs/python.md, "Errors") on damaged or mistaken input: every case raises the
# documented exception with a message naming the file and what is wrong, and the command lines print
# one line and exit 1. Files are small parabolic-model runs edited with h5py:
#  - the root attribute complete: 0 on a table says so (not "no 'complete' attribute"), a value
#    other than 0 or 1 is refused on every kind (a dynamics output is no longer read as incomplete);
#  - NaN in a dataset (bte never writes one: a non-finite result stops the run) is refused, in the
#    occupations when they are read;
#  - wrong shapes ([nt][2] velocity, 2-component efield, valley_occupation columns other than the
#    valleys), attributes that are text where a number belongs, dim 5, a k_grid that differs from
#    /grid, table channels that index no state (j = -1) or a missing /channels/i;
#  - HighField.valley_kpoints reads bte's named labels ("L k=(0.000,0.000,0.500) x4");
#  - the functions' arguments: a non-integer k index or snapshot, grid coordinates of the wrong
#    length, NaN crystal coordinates or time, occupations of the wrong length, a Collision of a
#    non-table or at an infinite temperature, a plot given another kind of object; the smoothing
#    of a population shorter than its kernel keeps its length;
#  - plot_dynamics / plot_transport: --smooth nan, --times nan, a text temperature, NaN in a field,
#    an output path through a file: one line, exit 1.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 # the repository's package, read only
m="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_view 0"
"$BTE" generate $m -bte_output t.h5 > /dev/null
"$BTE" transport -bte_input t.h5 -bte_view 0 -bte_output tr.h5 > /dev/null
"$BTE" dynamics -bte_input t.h5 -bte_view 0 -bte_final_time 2 -bte_output_interval 1 -bte_dynamics_monitor 0 -bte_output dyn.h5 > /dev/null
"$BTE" highfield -bte_input t.h5 -bte_view 0 -bte_efield_list 200,1000 -bte_output hf.h5 > /dev/null
"$PYTHON" - <<'PY'
import shutil, h5py, numpy as np
import bte

def edited(src, name, edit):
    shutil.copy(src, name)
    with h5py.File(name, "r+") as f:
        edit(f)
    return name

def setattr_(path, k, v):
    def e(f):
        f[path].attrs[k] = v
    return e

def replace(path, val):
    def e(f):
        attrs = dict(f[path].attrs)
        del f[path]
        f[path] = val
        f[path].attrs.update(attrs)
    return e

def nan_at(path, idx):
    def e(f):
        a = f[path][()]
        a[idx] = np.nan
        f[path][...] = a
    return e

def refused(fn, *want, exc=bte.BTEFileError):
    try:
        fn()
    except exc as ex:
        msg = str(ex)
        assert all(w in msg for w in want), "message %r lacks %s" % (msg, want)
        assert "\n" not in msg, msg
        print("refused:", type(ex).__name__, msg)
        return
    except Exception as ex:
        raise AssertionError("%s: expected %s with %s" % (repr(ex), exc.__name__, want))
    raise AssertionError("accepted: expected %s with %s" % (exc.__name__, want))

# complete
refused(lambda: bte.open(edited("t.h5", "c0.h5", setattr_("/", "complete", np.int32(0)))), "c0.h5", "complete = 0")
for src in ("t.h5", "dyn.h5", "tr.h5", "hf.h5"):
    refused(lambda: bte.open(edited(src, "c2_" + src, setattr_("/", "complete", np.int32(2)))), "c2_" + src, "complete = 2")
# NaN
refused(lambda: bte.open(edited("tr.h5", "nan_tr.h5", nan_at("transport/mobility", (0, 0, 0)))), "nan_tr.h5", "/transport/mobility", "non-finite")
refused(lambda: bte.open(edited("dyn.h5", "nan_t.h5", nan_at("dynamics/time", 1))), "nan_t.h5", "/dynamics/time", "non-finite")
refused(lambda: bte.open(edited("hf.h5", "nan_hf.h5", nan_at("highfield/field", 0))), "nan_hf.h5", "/highfield/field", "non-finite")
refused(lambda: bte.open(edited("t.h5", "nan_e.h5", nan_at("states/energy", 2))), "nan_e.h5", "/states/energy", "non-finite")
d = bte.open(edited("dyn.h5", "nan_f.h5", nan_at("dynamics/occupations", (1, 2))))
d.occupations(0)
refused(lambda: d.occupations(1), "nan_f.h5", "occupations", "non-finite")
# shapes, attributes, consistency
refused(lambda: bte.open(edited("dyn.h5", "v2.h5", replace("dynamics/velocity", np.zeros((3, 2))))), "v2.h5", "/dynamics/velocity", "[3][3]")
refused(lambda: bte.open(edited("hf.h5", "hv2.h5", replace("highfield/velocity", np.zeros((2, 2))))), "hv2.h5", "/highfield/velocity")
refused(lambda: bte.open(edited("hf.h5", "nv.h5", replace("highfield/valley_occupation", np.zeros((2, 3))))), "nv.h5", "valley_occupation has 3 valleys")
refused(lambda: bte.open(edited("dyn.h5", "ef.h5", setattr_("dynamics", "efield", np.array([1.0, 2.0])))), "ef.h5", "efield", "3 finite numbers")
refused(lambda: bte.open(edited("dyn.h5", "hot.h5", setattr_("dynamics", "temperature", "hot"))), "hot.h5", "temperature", "expected a number")
refused(lambda: bte.open(edited("tr.h5", "dim5.h5", setattr_("transport", "dimension", np.int32(5)))), "dim5.h5", "dimension", "2 or 3")
refused(lambda: bte.open(edited("tr.h5", "kg.h5", setattr_("transport", "k_grid", "4 x 4 x 4"))), "kg.h5", "k_grid [4, 4, 4] differs from /grid/nk [10, 10, 10]")
refused(lambda: bte.open(edited("t.h5", "smear.h5", setattr_("channels", "smearing", -0.01))), "smear.h5", "smearing", "> 0")
refused(lambda: bte.open(edited("t.h5", "noi.h5", lambda f: f.__delitem__("channels/i"))), "noi.h5", "/channels/i")
nj = bte.open(edited("t.h5", "nj.h5", replace("channels/j", -np.ones(len(bte.open("t.h5").channels), dtype=np.int32))))
refused(lambda: nj.channels, "nj.h5", "/channels/j outside")
refused(lambda: bte.Collision(nj, 300), "nj.h5", "/channels/j outside")
# valley labels as bte writes them for named points
hl = bte.open(edited("hf.h5", "lbl.h5", replace("highfield/valley_label", np.array([b"L k=(0.000,0.000,0.500) x4"], dtype="S64"))))
assert np.array_equal(hl.valley_kpoints(), [[0, 0, 0.5]]), hl.valley_kpoints()
refused(lambda: bte.open(edited("hf.h5", "lbl2.h5", replace("highfield/valley_label", np.array([b"k=(a,b)"], dtype="S64")))).valley_kpoints(), "lbl2.h5", "valley label")

# arguments
t, dyn, tr = bte.open("t.h5"), bte.open("dyn.h5"), bte.open("tr.h5")
L = t.lattice
refused(lambda: L.ijk(1.7), "k index", "integers", exc=ValueError)
refused(lambda: L.kindex([1.5, 2, 3]), "integers", exc=ValueError)
refused(lambda: L.kindex([1, 2]), "(..., 3)", exc=ValueError)
refused(lambda: L.cartesian([0.5, 0]), "(..., 3)", exc=ValueError)
refused(lambda: L.nearest_kindex([np.nan, 0, 0]), "non-finite", exc=ValueError)
assert L.ijk(5.0).tolist() == [0, 0, 5]
refused(lambda: dyn.occupations(1.5), "snapshot 1.5", exc=TypeError)
refused(lambda: dyn.snapshot(np.nan), "not a finite number", exc=ValueError)
refused(lambda: dyn.count_carriers(np.ones(5)), "occupations of shape (5,)", exc=ValueError)
refused(lambda: t.carriers(np.ones(5)), "occupations of shape (5,)", exc=ValueError)
refused(lambda: tr.component(None), "component None", exc=ValueError)
refused(lambda: bte.Collision(dyn, 300), "bte.Table", "Dynamics", exc=TypeError)
refused(lambda: bte.Collision(t, np.inf), "temperature inf", exc=ValueError)
refused(lambda: bte.Collision(t, "x"), "temperature 'x'", exc=ValueError)
refused(lambda: bte.Collision(t, 300).fermi_dirac(np.nan), "chemical potential nan", exc=ValueError)
assert bte.Collision("t.h5", 300).nstates == t.nstates
refused(lambda: bte.plot.kspace(tr), "bte.Dynamics", "Transport", exc=TypeError)
refused(lambda: bte.plot.mobility(dyn), "bte.Transport", "Dynamics", exc=TypeError)
refused(lambda: bte.plot.energy_distribution(dyn, times=["a"]), "times", exc=ValueError)
refused(lambda: bte.plot.mobility(tr, path="t.h5/x.png"), "t.h5/x.png", "cannot write", exc=OSError)
for n in (1, 3, 40):
    assert len(bte.plot.smooth(np.ones(n), 1.5)) == n, n
print("python package: bad inputs ok")
PY
for a in "dyn.h5 --smooth nan" "dyn.h5 --smooth inf" "dyn.h5 --times nan" "hot.h5" "dyn.h5 --outdir t.h5"; do
  expect_fail "plot_dynamics: " "$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" $a
  n=$("$PYTHON" "$TESTDIR/../scripts/plot_dynamics.py" $a 2>&1 | wc -l) || true
  [ "$n" = 1 ] || { echo "plot_dynamics $a: $n lines, expected one"; exit 1; }
done
for a in "nan_hf.h5" "kg.h5" "tr.h5 -o t.h5/x.png"; do
  expect_fail "plot_transport: " "$PYTHON" "$TESTDIR/../scripts/plot_transport.py" $a
  n=$("$PYTHON" "$TESTDIR/../scripts/plot_transport.py" $a 2>&1 | wc -l) || true
  [ "$n" = 1 ] || { echo "plot_transport $a: $n lines, expected one"; exit 1; }
done
echo ok
