# Hardened readers (issue 13, items 4 and 5): a FIFO as a table or restart file is refused
# before HDF5 opens it (it used to hang); a float type HDF5 would convert without complaint
# (a flipped exponent bias, a non-IEEE layout) is refused naming the dataset (it used to read
# every energy as a wrong finite number); a table written in the old format with
# variable-length strings reads as the new one; tables and outputs are written in the 1.10
# format with fixed-length strings; restart files are refused when their time, step or
# occupations are mistyped, out of bounds or not finite, or when they come from another table.
. "$TESTDIR/common.sh"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py"; exit 77; fi
set -e
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_output good.h5 -bte_view 0 >/dev/null
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 21 -bte_output other.h5 -bte_view 0 >/dev/null
D="dynamics -bte_input good.h5 -bte_view 0 -bte_output_interval 10 -bte_time_step 1"
"$BTE" $D -bte_final_time 20 -bte_output run.h5 >/dev/null

# a channel dataset whose chunk is larger than HDF5's chunk cache (1 MB) in the 1.10 format: with
# H5D_FILL_TIME_NEVER, HDF5 1.10.8 lost its rows (every channel read as 0 -> 0)
"$BTE" generate -bte_model gaas -bte_grid 36 -bte_output big.h5 -bte_view 0 >/dev/null
"$BTE" info -bte_input big.h5 -bte_info_channels 1 | grep -q "scattering channels: 460000" && echo "ok   460000 channels (1.8 MB chunks) written and read back, every row valid"

mkfifo pipe.h5
expect_fail "not a regular file (a FIFO)" timeout 20 "$BTE" info -bte_input pipe.h5
expect_fail "not a regular file (a FIFO)" timeout 20 "$BTE" $D -bte_final_time 30 -bte_init restart -bte_restart pipe.h5 -bte_output x.h5

"$PYTHON" - <<'PY'
import h5py, numpy as np, shutil
from h5py import h5t, h5s, h5d
def text(v): return v.decode() if isinstance(v, bytes) else v
# what bte writes: superblock 3 (HDF5 1.10 format), fixed-length strings; the dynamics output
# (it grows during a run) superblock 2 (1.8 format), fixed-length strings
for name, sb in (("good.h5", 3), ("run.h5", 2)):
    with open(name, "rb") as fp: assert fp.read(9)[8] == sb, name
    with h5py.File(name, "r") as f:
        n = 0
        def visit(o):
            global n
            for k in o.attrs:
                t = o.attrs.get_id(k).get_type()
                if isinstance(t, h5t.TypeStringID): assert not t.is_variable_str(), (name, o.name, k); n += 1
        visit(f); f.visititems(lambda _, o: visit(o))
        assert n > 10, n
print("ok   written: 1.10 format (1.8 for the growing dynamics output), every string attribute fixed-length")

def with_float_type(src, dst, path, edit):
    # rewrite dataset path with a float type edited from IEEE f64 (HDF5 converts it silently)
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as f:
        v = f[path][()]; attrs = dict(f[path].attrs); del f[path]
        t = h5t.IEEE_F64LE.copy(); edit(t)
        d = h5d.create(f.id, path.encode(), t, h5s.create_simple(v.shape))
        d.write(h5s.ALL, h5s.ALL, np.ascontiguousarray(v, dtype="<f8"), mtype=h5t.IEEE_F64LE)
        for k, a in attrs.items(): f[path].attrs[k] = a
with_float_type("good.h5", "bias.h5", "states/energy", lambda t: t.set_ebias(1000))
with_float_type("good.h5", "fields.h5", "channels/g2", lambda t: t.set_fields(63, 48, 15, 0, 48))
# the old format: earliest HDF5 format, variable-length strings (what bte wrote before)
with h5py.File("good.h5", "r") as a, h5py.File("legacy.h5", "w", libver="earliest") as b:
    def cp(x, y):
        for k, v in x.attrs.items(): y.attrs[k] = text(v)
    cp(a, b)
    def visit(name, o):
        y = b.create_group(name, track_order=(name == "model")) if isinstance(o, h5py.Group) else b.create_dataset(name, data=o[()], chunks=o.chunks)
        cp(o, y)
    a.visititems(visit)
with h5py.File("legacy.h5", "r") as f:
    assert f.attrs.get_id("format").get_type().is_variable_str()
# restart files with hostile values
def variant(name, edit):
    shutil.copy("run.h5", name)
    with h5py.File(name, "r+") as f: edit(f["dynamics"])
def replace(g, k, v):
    del g[k]; g.create_dataset(k, data=v, maxshape=(None,) + np.shape(v)[1:])
def setlast(k, v):
    def e(g):
        a = g[k][()]; a[-1] = v; g[k][...] = a
    return e
variant("r_time_text.h5", lambda g: replace(g, "time", np.array([b"0", b"10", b"20"])))
variant("r_time_neg.h5", setlast("time", -1e12))
variant("r_time_nan.h5", setlast("time", np.nan))
variant("r_step_big.h5", setlast("step", 2**40))
variant("r_step_float.h5", lambda g: replace(g, "step", np.array([0.0, 10.0, 20.0])))
def occ(v):
    def e(g):
        a = g["occupations"][()]; a[-1, 3] = v; g["occupations"][...] = a
    return e
variant("r_occ_nan.h5", occ(np.nan))
variant("r_occ_big.h5", occ(2.0))
variant("r_occ_neg.h5", occ(-1.0))
variant("r_no_occ.h5", lambda g: g.__delitem__("occupations"))
def energy(g):
    a = g["state_energy"][()]; a[2] = np.nextafter(a[2], 1); g["state_energy"][...] = a
variant("r_energy.h5", energy)
variant("r_dt.h5", setlast("time_step", -5.0))
with_float_type("run.h5", "r_bias.h5", "dynamics/state_energy", lambda t: t.set_ebias(1000))
print("ok   variants written")
PY
expect_fail "dataset /states/energy has a floating-point type that is not IEEE" "$BTE" info -bte_input bias.h5
expect_fail "dataset /channels/g2 has a floating-point type that is not IEEE" "$BTE" info -bte_input fields.h5
"$BTE" info -bte_input good.h5 -bte_info_channels 1 > new.txt
"$BTE" info -bte_input legacy.h5 -bte_info_channels 1 | sed 's/legacy\.h5/good.h5/' > old.txt
cmp new.txt old.txt && echo "ok   a table in the old format (variable-length strings) reads as the new one: identical 'bte info'"
"$BTE" transport -bte_input good.h5 -bte_view 0 > tn.txt
"$BTE" transport -bte_input legacy.h5 -bte_view 0 | sed 's/legacy\.h5/good.h5/' > to.txt
cmp <(grep -v "s$\| in [0-9.]* s" tn.txt) <(grep -v "s$\| in [0-9.]* s" to.txt) && echo "ok   and gives the same transport results"

R="$BTE $D -bte_final_time 30 -bte_init restart -bte_output x.h5 -bte_restart"
expect_fail "dataset /dynamics/time has a string type; expected a floating-point type" $R r_time_text.h5
expect_fail "/dynamics/time\[2\] = -1e+12 fs is not a time in" $R r_time_neg.h5
expect_fail "/dynamics/time\[2\] = nan fs is not a time in" $R r_time_nan.h5
expect_fail "/dynamics/step\[2\] = 1099511627776 is not a step number" $R r_step_big.h5
expect_fail "dataset /dynamics/step has a floating-point type; expected an integer type" $R r_step_float.h5
expect_fail "/dynamics/occupations\[2\]\[3\] = nan is not finite" $R r_occ_nan.h5
expect_fail "restart snapshot) at t = 20. fs (step 20) has occupations from .* to 2, outside .*or the restart file" $R r_occ_big.h5
expect_fail "restart snapshot) at t = 20. fs (step 20) has occupations from -1 to" $R r_occ_neg.h5
expect_fail "dataset /dynamics/occupations is missing" $R r_no_occ.h5
expect_fail "state 2 differs from this table's (state_energy)" $R r_energy.h5
expect_fail "/dynamics/time_step\[2\] = -5 fs or time_step_unclipped = 0 fs is outside" $R r_dt.h5
expect_fail "dataset /dynamics/state_energy has a floating-point type that is not IEEE" $R r_bias.h5
expect_fail "holds .* states per snapshot, this table has\|differs from this table" "$BTE" dynamics -bte_input other.h5 -bte_view 0 -bte_final_time 30 -bte_init restart -bte_output x.h5 -bte_restart run.h5
# the clean file restarts, and a legacy-format restart file (no step sizes) too
$R run.h5 > /dev/null && echo "ok   the clean restart file runs"
