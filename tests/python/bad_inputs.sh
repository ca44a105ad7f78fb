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
#  - the bounds of bte's C reader (docs/format.md "Validation"), refused with its message (row, value,
#    range), and the same files refused by `bte info`: g2 < 0, NaN or > 1e6; phonon_energy NaN, Inf,
#    0 or > 10; i == j; i >= N; mode >= nmodes or < 0; smearing outside [1e-6, 1]; delta not
#    perturbo/balanced; temperature > 1e5; window_min >= window_max; kindex, band out of range;
#    field_caveat without a field_caveat_min >= 0; 2D with nk[2] != 1; a NaN volume. A valid table
#    still reads: delta balanced or absent (perturbo), channels stored i > j read as i < j;
#  - HighField.valley_kpoints reads valley_kpoint, in older files bte's named labels ("L k=(0.000,0.000,0.500) x4");
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

def set_at(path, idx, val):
    def e(f):
        a = f[path][()]
        a[idx] = val
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
refused(lambda: nj.channels, "nj.h5", "/channels/j[0] = -1 is not a state index: it must be in [0, N = ")
refused(lambda: bte.Collision(nj, 300), "nj.h5", "/channels/j[0] = -1 is not a state index")

# the bounds of bte's C reader (docs/format.md "Validation"; the same files go to bte info below):
# each message names the dataset or attribute, the row, the value and the allowed range
t0 = bte.open("t.h5")
M, N, nmodes = t0.num_channels, t0.nstates, t0.nmodes
i0, j0 = t0.channels.i, t0.channels.j
assert t0.delta == "perturbo" and M > 10 and np.all(i0 < j0) and t0.channels.nswapped == 0
bad_channels = [  # (file, edit, message parts): refused when the channels are read
    ("g2neg.h5", set_at("channels/g2", 3, -1.0), "/channels/g2[3] = -1 eV^2 is outside [0, 1e+06] eV^2"),
    ("g2nan.h5", set_at("channels/g2", 2, np.nan), "/channels/g2[2] = nan eV^2 is outside [0, 1e+06] eV^2"),
    ("g2big.h5", set_at("channels/g2", 5, 2e6), "/channels/g2[5] = 2e+06 eV^2 is outside [0, 1e+06] eV^2"),
    ("hwnan.h5", set_at("channels/phonon_energy", 1, np.nan), "/channels/phonon_energy[1] = nan eV is outside [1e-06, 10] eV"),
    ("hwinf.h5", set_at("channels/phonon_energy", 4, np.inf), "/channels/phonon_energy[4] = inf eV is outside [1e-06, 10] eV"),
    ("hw0.h5", set_at("channels/phonon_energy", 0, 0.0), "/channels/phonon_energy[0] = 0 eV is outside [1e-06, 10] eV"),
    ("hwbig.h5", set_at("channels/phonon_energy", 7, 20.0), "/channels/phonon_energy[7] = 20 eV is outside [1e-06, 10] eV"),
    ("ieqj.h5", set_at("channels/j", 4, i0[4]), "channel 4 joins state %d to itself (/channels/i == /channels/j)" % i0[4]),
    ("ibig.h5", set_at("channels/i", 6, N), "/channels/i[6] = %d is not a state index: it must be in [0, N = %d)" % (N, N)),
    ("modebig.h5", set_at("channels/mode", 5, nmodes), "/channels/mode[5] = %d is not a phonon mode: it must be in [0, nmodes = %d)" % (nmodes, nmodes)),
    ("modeneg.h5", set_at("channels/mode", 2, -1), "/channels/mode[2] = -1 is not a phonon mode: it must be in [0, nmodes = %d)" % nmodes),
]
for name, edit, want in bad_channels:
    t = bte.open(edited("t.h5", name, edit))  # the header is fine: the rows are checked when read
    refused(lambda: t.channels, name, want)
    refused(lambda: bte.Collision(t, 300), name, want)
bad_header = [  # refused when the table is opened
    ("smbig.h5", setattr_("channels", "smearing", 2.0), "/channels attribute smearing = 2 eV is outside [1e-06, 1] eV"),
    ("smtiny.h5", setattr_("channels", "smearing", 1e-9), "/channels attribute smearing = 1e-09 eV is outside [1e-06, 1] eV"),
    ("delta.h5", setattr_("channels", "delta", np.bytes_("gaussian")), "/channels attribute delta = 'gaussian'; expected perturbo or balanced"),
    ("delta1.h5", setattr_("channels", "delta", np.int32(1)), "/channels attribute delta = 1; expected perturbo or balanced"),
    ("thot.h5", setattr_("/", "temperature", 1e6), "root attribute temperature = 1e+06 K is outside [0.01, 100000] K"),
    ("win.h5", setattr_("states", "window_min", 0.5), "/states attributes window_min = 0.5, window_max = 0.3: expected window_min < window_max (eV)"),
    ("kbig.h5", set_at("states/kindex", 3, 1000), "/states/kindex[3] = 1000 is outside the k grid [0, 1000) of nk = 10 x 10 x 10"),
    ("band.h5", set_at("states/band", 2, 1), "/states/band[2] = 1 is outside [0, nbands = 1)"),
    ("fcm.h5", lambda f: (f.attrs.__setitem__("field_caveat", np.bytes_("x")), f.attrs.__setitem__("field_caveat_min", -1.0)), "root attribute field_caveat_min = -1; expected a field >= 0 (V/cm)"),
    ("fc.h5", setattr_("/", "field_caveat", np.bytes_("x")), "root attribute field_caveat without field_caveat_min (V/cm)"),
    ("nk2d.h5", lambda f: f["grid"].attrs.update({"dim": np.int32(2), "volume_units": np.bytes_("Angstrom^2")}), "a 2D grid (dim = 2) needs /grid/nk[2] = 1, got 10"),
    ("volnan.h5", setattr_("grid", "volume", np.nan), "/grid attribute volume = nan; expected a positive cell volume (Angstrom^3)"),
]
for name, edit, want in bad_header:
    refused(lambda: bte.open(edited("t.h5", name, edit)), name, want)
# a valid table still reads: balanced or no delta, channels stored with i > j (normalised to i < j, as bte does)
assert bte.open(edited("t.h5", "bal.h5", setattr_("channels", "delta", np.bytes_("balanced")))).delta == "balanced"
assert bte.open(edited("t.h5", "nodelta.h5", lambda f: f["channels"].attrs.__delitem__("delta"))).delta == "perturbo"
def swap(f):
    i, j = f["channels/i"][()], f["channels/j"][()]
    f["channels/i"][...], f["channels/j"][...] = j, i
ts = bte.open(edited("t.h5", "swapped.h5", swap))
assert np.array_equal(ts.channels.i, i0) and np.array_equal(ts.channels.j, j0) and ts.channels.nswapped == M
with h5py.File("t.h5", "r") as f:
    for n in ("i", "j", "mode", "phonon_energy", "g2"):
        assert np.array_equal(getattr(t0.channels, n), f["channels"][n][()]), n
f0 = bte.Collision(t0, 300).fermi_dirac(0.05)
assert np.array_equal(bte.Collision(ts, 300).apply(f0), bte.Collision(t0, 300).apply(f0))
# valley labels as bte writes them for named points, read where the file has no valley_kpoint
# (written before bte had it)
def older_label(lbl):
    def e(f):
        replace("highfield/valley_label", np.array([lbl], dtype="S64"))(f)
        del f["highfield/valley_kpoint"]
    return e
hl = bte.open(edited("hf.h5", "lbl.h5", older_label(b"L k=(0.000,0.000,0.500) x4")))
assert hl.valley_kpoint is None and np.array_equal(hl.valley_kpoints(), [[0, 0, 0.5]]), hl.valley_kpoints()
refused(lambda: bte.open(edited("hf.h5", "lbl2.h5", older_label(b"k=(a,b)"))).valley_kpoints(), "lbl2.h5", "valley label")
refused(lambda: bte.open(edited("hf.h5", "lbl3.h5", replace("highfield/valley_kpoint", np.zeros((2, 3))))), "lbl3.h5", "valley_kpoint is not [nv][3]")

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
# bte's C reader refuses the same files with the same words (file|grep pattern), and reads the valid ones
while IFS='|' read -r file pat; do
  expect_fail "$pat" "$BTE" info -bte_input "$file" -bte_info_channels 1 < /dev/null
done <<'EOF'
g2neg.h5|/channels/g2\[3\] = -1 eV^2 is outside \[0, 1e+06\] eV^2
g2nan.h5|/channels/g2\[2\] = nan eV^2 is outside \[0, 1e+06\] eV^2
g2big.h5|/channels/g2\[5\] = 2e+06 eV^2 is outside \[0, 1e+06\] eV^2
hwnan.h5|/channels/phonon_energy\[1\] = nan eV is outside \[1e-06, 10\] eV
hwinf.h5|/channels/phonon_energy\[4\] = inf eV is outside \[1e-06, 10\] eV
hw0.h5|/channels/phonon_energy\[0\] = 0 eV is outside \[1e-06, 10\] eV
hwbig.h5|/channels/phonon_energy\[7\] = 20 eV is outside \[1e-06, 10\] eV
ieqj.h5|channel 4 joins state [0-9]* to itself (/channels/i == /channels/j)
ibig.h5|/channels/i\[6\] = [0-9]* is not a state index: it must be in \[0, N = [0-9]*)
modebig.h5|/channels/mode\[5\] = 2 is not a phonon mode: it must be in \[0, nmodes = 2)
modeneg.h5|/channels/mode\[2\] = -1 is not a phonon mode: it must be in \[0, nmodes = 2)
nj.h5|/channels/j\[0\] = -1 is not a state index
smbig.h5|/channels attribute smearing = 2 eV is outside \[1e-06, 1\] eV
smtiny.h5|/channels attribute smearing = 1e-09 eV is outside \[1e-06, 1\] eV
delta.h5|/channels attribute delta = 'gaussian'; expected perturbo or balanced
thot.h5|root attribute temperature = 1e+06 K is outside \[0.01, 100000\] K
win.h5|/states attributes window_min = 0.5, window_max = 0.3: expected window_min < window_max (eV)
kbig.h5|/states/kindex\[3\] = 1000 is outside the k grid \[0, 1000) of nk = 10 x 10 x 10
band.h5|/states/band\[2\] = 1 is outside \[0, nbands = 1)
fcm.h5|root attribute field_caveat_min = -1; expected a field >= 0 (V/cm)
fc.h5|root attribute field_caveat without field_caveat_min (V/cm)
nk2d.h5|a 2D grid (dim = 2) needs /grid/nk\[2\] = 1, got 10
volnan.h5|/grid attribute volume = nan; expected a positive cell volume (Angstrom^3)
EOF
for f in bal.h5 nodelta.h5 swapped.h5; do "$BTE" info -bte_input $f -bte_info_channels 1 > /dev/null; done
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
