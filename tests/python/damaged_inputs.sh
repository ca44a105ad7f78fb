# The Python package (docs/python.md, "Errors") on inputs an audit found it mishandled:
#  - a FIFO (or a device, or a link to a FIFO) named as a file: bte.open, bte.Table, bte.Dynamics,
#    bte.kinds and both plot scripts refuse it at once as "not a regular file" (they used to wait on
#    it forever; each runs under timeout, so a hang fails the test instead of stalling it);
#  - truncated HDF5 files (a GaAs table cut at 1000 bytes, at 600000 bytes and 100 bytes short of its
#    end, a dynamics output cut in half) are "damaged or unreadable" with HDF5's reason ("truncated
#    file"), never "locked by the process writing it" (HDF5's "sblock" contains "lock"), also with
#    HDF5_USE_FILE_LOCKING=FALSE and from the plot scripts (one line, exit 1); a lock another
#    process holds is still reported as a lock where this reader must ask for it (an h5py or HDF5
#    that cannot open without it, simulated), and a file without HDF5's signature is "not a
#    readable HDF5 file";
#  - the table reader refuses what bte's reader refuses (and `bte info` refuses the same files): a
#    wrong <name>_units on field_caveat_min, energy_tolerance, g2_cutoff, phonon_min, smearing,
#    window_min, temperature; g2_cutoff or phonon_min < 0, energy_tolerance 0 or NaN; nbands,
#    spin_degeneracy or format_version stored as floats, nbands and nmodes beyond 32 bits; energies
#    stored as integers (they were read as eV), as float16, velocities, g2 or phonon energies as
#    integers; each message names the file, the attribute or dataset and what was expected. Both
#    still read single precision and big-endian energies and 64-bit or 8-bit indices, and the table
#    exposes g2_cutoff, phonon_min and energy_tolerance; a uint64 index above 2^63 is reported as stored;
#  - a dynamics output whose /dynamics/reference_error holds NaN or Inf (what bte writes from a
#    damaged reference) or a wrong unit there is refused naming the dataset (the plot script too);
#    an intact one reads, finite, with its units listed.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 # the repository's package, read only
PLOT_T="$TESTDIR/../scripts/plot_transport.py"
PLOT_D="$TESTDIR/../scripts/plot_dynamics.py"
"$BTE" generate -bte_model gaas -bte_grid 24 -bte_output table.h5 > /dev/null
m="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_view 0"
"$BTE" dynamics $m -bte_final_time 2 -bte_output_interval 1 -bte_dynamics_monitor 0 -bte_output dyn.h5 > /dev/null
"$BTE" dynamics $m -bte_final_time 2 -bte_output_interval 1 -bte_dynamics_monitor 0 -bte_reference dyn.h5 -bte_output ref.h5 > /dev/null

# ---- special files: refused before HDF5 opens them (timeout: a hang is rc 124 and fails) ----
mkfifo fifo.h5
ln -s fifo.h5 link.h5
for what in "bte.open" "bte.Table" "bte.Dynamics" "bte.Transport" "bte.kinds"; do
  expect_fail "fifo.h5: not a regular file (a FIFO)" timeout 20 "$PYTHON" -c "import bte; $what('fifo.h5')"
done
expect_fail "link.h5: not a regular file (a FIFO)" timeout 20 "$PYTHON" -c "import bte; bte.open('link.h5')"
expect_fail "/dev/null: not a regular file (a character device)" timeout 20 "$PYTHON" -c "import bte; bte.open('/dev/null')"
expect_fail "plot_transport: fifo.h5: not a regular file" timeout 20 "$PYTHON" "$PLOT_T" fifo.h5 -o x.png
expect_fail "plot_dynamics: fifo.h5: not a regular file" timeout 20 "$PYTHON" "$PLOT_D" fifo.h5
for s in "$PLOT_T" "$PLOT_D"; do
  n=$(timeout 20 "$PYTHON" "$s" fifo.h5 2>&1 | wc -l) || true
  [ "$n" = 1 ] || { echo "$s fifo.h5: $n lines, expected one"; exit 1; }
done
[ ! -e x.png ] || { echo "plot_transport wrote x.png from a FIFO"; exit 1; }

# ---- truncated files: damaged, not locked ----
head -c 1000 table.h5 > t1k.h5
head -c 600000 table.h5 > thalf.h5
head -c $(( $(stat -c %s table.h5) - 100 )) table.h5 > tend.h5
head -c $(( $(stat -c %s dyn.h5) / 2 )) dyn.h5 > dhalf.h5
printf 'not hdf5\n' > text.h5
for f in t1k.h5 thalf.h5 tend.h5 dhalf.h5; do
  expect_fail "$f: damaged or unreadable (.*truncated file" env HDF5_USE_FILE_LOCKING=FALSE timeout 60 "$PYTHON" -c "import bte; bte.open('$f')"
done
expect_fail "plot_transport: thalf.h5: damaged or unreadable" "$PYTHON" "$PLOT_T" thalf.h5
expect_fail "plot_dynamics: dhalf.h5: damaged or unreadable" "$PYTHON" "$PLOT_D" dhalf.h5
for a in "$PLOT_T thalf.h5" "$PLOT_D dhalf.h5"; do
  out=$("$PYTHON" $a 2>&1) || true
  [ "$(wc -l <<<"$out")" = 1 ] || { echo "$a: not one line: $out"; exit 1; }
  case "$out" in *"locked by"*|*HDF5_USE_FILE_LOCKING*) echo "$a: a truncated file reported as locked: $out"; exit 1;; esac
done

timeout 300 "$PYTHON" - <<'PY'
import shutil, subprocess, sys
import h5py, numpy as np
import bte
import bte._h5

def refused(fn, *want, exc=bte.BTEFileError, unwanted=()):
    try:
        fn()
    except exc as ex:
        msg = str(ex)
        assert all(w in msg for w in want), "message %r lacks %s" % (msg, want)
        assert not any(w in msg for w in unwanted), "message %r has %s" % (msg, unwanted)
        assert "\n" not in msg, msg
        print("refused:", msg)
        return msg
    except Exception as ex:
        raise AssertionError("%r: expected %s with %s" % (ex, exc.__name__, want))
    raise AssertionError("accepted: expected %s with %s" % (exc.__name__, want))

def edited(src, name, edit):
    shutil.copy(src, name)
    with h5py.File(name, "r+") as f:
        edit(f)
    return name

def read_all(path):
    o = bte.open(path)
    if isinstance(o, bte.Table):
        o.channels
    return o

# ---- truncated files: HDF5's reason, no lock advice; a file without a signature ----
for f in ("t1k.h5", "thalf.h5", "tend.h5", "dhalf.h5"):
    refused(lambda: bte.open(f), f + ": damaged or unreadable (", "truncated file", unwanted=("locked by", "HDF5_USE_FILE_LOCKING"))
refused(lambda: bte.open("text.h5"), "text.h5: not a readable HDF5 file", "no HDF5 signature", unwanted=("locked by", "HDF5_USE_FILE_LOCKING"))

# ---- a real lock is still recognised, where this reader has to ask for it ----
shutil.copy("dyn.h5", "held.h5")
holder = subprocess.Popen([sys.executable, "-c", "import h5py, sys; f = h5py.File('held.h5', 'r+'); print('open', flush=True); sys.stdin.read()"],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
try:
    assert holder.stdout.readline().strip() == "open"
    try:
        h5py.File("held.h5", "r").close()
        print("note: this HDF5 does not lock files (e.g. HDF5_USE_FILE_LOCKING=FALSE): the lock message is not checked")
    except OSError:
        saved = bte._h5._NO_LOCKING
        bte._h5._NO_LOCKING = {}  # as with an h5py < 3.5 or an HDF5 that cannot open without the lock
        try:
            refused(lambda: bte.Dynamics("held.h5"), "held.h5: locked by the process writing it", "HDF5_USE_FILE_LOCKING=FALSE")
        finally:
            bte._h5._NO_LOCKING = saved
        assert bte.Dynamics("held.h5").nsnapshots == 3  # and read without the lock, as usual
finally:
    holder.stdin.close()
    holder.wait()

# ---- tables: what bte's reader refuses, Python refuses (bte info is run on the same files below) ----
def setattr_(path, k, v):
    def e(f):
        f[path].attrs[k] = v
    return e

def retyped(path, dtype):
    def e(f):
        a, attrs = f[path][()], dict(f[path].attrs)
        del f[path]
        f[path] = a.astype(dtype)
        f[path].attrs.update(attrs)
    return e

cases = [  # file, edit, what the message must hold
    # units of attributes (the <name>_units sibling)
    ("u_fcmin.h5", setattr_("/", "field_caveat_min_units", np.bytes_("kV/cm")), ["field_caveat_min_units = 'kV/cm'", "'V/cm'"]),
    ("u_fc2min.h5", setattr_("/", "field_caveat_2_min_units", np.bytes_("kV/cm")), ["field_caveat_2_min_units = 'kV/cm'", "'V/cm'"]),
    ("u_tol.h5", setattr_("channels", "energy_tolerance_units", np.bytes_("eV")), ["energy_tolerance_units = 'eV'", "'eta'"]),
    ("u_g2cut.h5", setattr_("channels", "g2_cutoff_units", np.bytes_("Ry^2")), ["g2_cutoff_units = 'Ry^2'", "'eV^2'"]),
    ("u_pmin.h5", setattr_("channels", "phonon_min_units", np.bytes_("meV")), ["phonon_min_units = 'meV'", "'eV'"]),
    ("u_smear.h5", setattr_("channels", "smearing_units", np.bytes_("meV")), ["smearing_units = 'meV'", "'eV'"]),
    ("u_wmin.h5", setattr_("states", "window_min_units", np.bytes_("Ry")), ["window_min_units = 'Ry'", "'eV'"]),
    ("u_temp.h5", setattr_("/", "temperature_units", np.bytes_("C")), ["temperature_units = 'C'", "'K'"]),
    # values
    ("v_g2cut.h5", setattr_("channels", "g2_cutoff", -1.0), ["'g2_cutoff' of /channels is -1.0", ">= 0"]),
    ("v_pmin.h5", setattr_("channels", "phonon_min", -1.0), ["'phonon_min' of /channels is -1.0", ">= 0"]),
    ("v_tol0.h5", setattr_("channels", "energy_tolerance", 0.0), ["'energy_tolerance' of /channels is 0.0", "> 0"]),
    ("v_tolnan.h5", setattr_("channels", "energy_tolerance", np.nan), ["'energy_tolerance' of /channels", "not a finite number"]),
    # integer attributes: an integer type, within 32 bits
    ("i_nbands_f.h5", setattr_("states", "nbands", 1.0), ["'nbands' of /states", "floating-point type; expected an integer"]),
    ("i_spin_f.h5", setattr_("states", "spin_degeneracy", 2.0), ["'spin_degeneracy' of /states", "floating-point type; expected an integer"]),
    ("i_ver_f.h5", setattr_("/", "format_version", 1.0), ["'format_version' of /", "floating-point type; expected an integer"]),
    ("i_nbands_big.h5", setattr_("states", "nbands", np.int64(2 ** 40)), ["'nbands' of /states is 1099511627776", "at most 2147483647"]),
    ("i_nmodes_big.h5", setattr_("phonons", "nmodes", np.int64(2 ** 33 + 6)), ["'nmodes' of /phonons is 8589934598", "at most 2147483647"]),
    # real datasets: IEEE single or double, never integers
    ("d_e_int.h5", retyped("states/energy", np.int32), ["dataset /states/energy has an integer type", "expected a floating-point type"]),
    ("d_e_i64.h5", retyped("states/energy", np.int64), ["dataset /states/energy has an integer type", "expected a floating-point type"]),
    ("d_e_f16.h5", retyped("states/energy", np.float16), ["dataset /states/energy", "not IEEE single or double precision (size 2 bytes)"]),
    ("d_v_int.h5", retyped("states/velocity", np.int32), ["dataset /states/velocity has an integer type"]),
    ("d_g2_int.h5", retyped("channels/g2", np.int32), ["dataset /channels/g2 has an integer type"]),
    ("d_hw_int.h5", retyped("channels/phonon_energy", np.int16), ["dataset /channels/phonon_energy has an integer type"]),
    ("d_lat_int.h5", retyped("grid/lattice", np.int32), ["dataset /grid/lattice has an integer type"]),
    ("d_kidx_f.h5", retyped("states/kindex", np.float64), ["/states/kindex", "expected integers"]),
]
for name, edit, want in cases:
    p = edited("table.h5", name, edit)
    refused(lambda: read_all(p), p + ": ", *want)
with open("refused.list", "w") as fh:
    fh.write("\n".join(c[0] for c in cases) + "\n")

# still read, by both readers: other standard number types
good = [("ok_e_f32.h5", retyped("states/energy", np.float32)), ("ok_e_be.h5", retyped("states/energy", ">f8")),
        ("ok_kidx_i64.h5", retyped("states/kindex", np.int64)), ("ok_band_u8.h5", retyped("states/band", np.uint8)),
        ("ok_i_u32.h5", retyped("channels/i", np.uint32)), ("ok_nbands_i64.h5", setattr_("states", "nbands", np.int64(1))),
        ("ok_tol_int.h5", setattr_("channels", "energy_tolerance", np.int32(3)))]  # a real attribute may be an integer
t0 = read_all("table.h5")
for name, edit in good:
    t = read_all(edited("table.h5", name, edit))
    assert t.nstates == t0.nstates and len(t.channels) == len(t0.channels), name
    assert np.allclose(t.energy, t0.energy, rtol=1e-6, atol=0), name
with open("accepted.list", "w") as fh:
    fh.write("\n".join(g[0] for g in good) + "\n")
with h5py.File("table.h5", "r") as f:
    c = f["channels"].attrs
    assert (t0.g2_cutoff, t0.phonon_min, t0.energy_tolerance) == (c["g2_cutoff"], c["phonon_min"], c["energy_tolerance"])
    assert t0.field_caveat_min == f.attrs["field_caveat_min"] and t0.units["energy_tolerance"] == "eta"
# a uint64 index beyond int64: reported as stored, not wrapped to a negative number
def u64(f):
    a = f["channels/i"][()].astype(np.uint64)
    a[5] = 2 ** 63 + 1
    del f["channels/i"]
    f["channels/i"] = a
refused(lambda: read_all(edited("table.h5", "big_u64.h5", u64)), "big_u64.h5: /channels/i[5] = 9223372036854775809", unwanted=("-9223372036854775807",))

# ---- /dynamics/reference_error: NaN, Inf and units ----
r = bte.Dynamics("ref.h5")
re_ = r.reference_error
assert re_ is not None and re_["reference"] == "dyn.h5", re_
for k in ("time", "f_max", "f_l2", "f_l2_relative", "carriers", "carrier_density", "mean_energy", "drift_velocity", "population_max"):
    assert re_[k].shape == (3,) and np.all(np.isfinite(re_[k])), k
    assert k in r.units["reference_error"], k
assert r.units["reference_error"]["mean_energy"] == "eV" and r.units["reference_error"]["time"] == "fs"

def set_at(path, idx, val):
    def e(f):
        a = f[path][()]
        a[idx] = val
        f[path][...] = a
    return e

refused(lambda: bte.open(edited("ref.h5", "re_nan.h5", set_at("dynamics/reference_error/carriers", 1, np.nan))),
        "re_nan.h5: /dynamics/reference_error/carriers", "non-finite", "nan")
refused(lambda: bte.open(edited("ref.h5", "re_inf.h5", set_at("dynamics/reference_error/f_max", 2, np.inf))),
        "re_inf.h5: /dynamics/reference_error/f_max", "non-finite", "inf")
refused(lambda: bte.open(edited("ref.h5", "re_units.h5", setattr_("dynamics/reference_error/mean_energy", "units", np.bytes_("meV")))),
        "re_units.h5: /dynamics/reference_error/mean_energy", "'meV'", "'eV'")
print("python damaged inputs: all checks passed")
PY

# bte's own reader refuses the same tables and reads the same controls (the Python reader agrees with it)
while read -r f; do
  expect_fail "$f" "$BTE" info -bte_input "$f" -bte_view 0 -bte_info_channels 1 < /dev/null
done < refused.list
while read -r f; do
  "$BTE" info -bte_input "$f" -bte_view 0 -bte_info_channels 1 > /dev/null < /dev/null || { echo "bte info refused $f, which the Python reader reads"; exit 1; }
done < accepted.list

# what bte writes from a damaged reference (NaN in its occupations): refused if bte writes it
cp dyn.h5 nanref.h5
"$PYTHON" -c "
import h5py, numpy as np
with h5py.File('nanref.h5', 'r+') as f:
    f['dynamics/occupations'][1, :] = np.nan
"
if "$BTE" dynamics $m -bte_final_time 2 -bte_output_interval 1 -bte_dynamics_monitor 0 -bte_reference nanref.h5 -bte_output refnan.h5 > /dev/null 2>&1 && [ -f refnan.h5 ]; then
  expect_fail "refnan.h5: /dynamics/reference_error/.* holds a non-finite value" "$PYTHON" -c "import bte; bte.open('refnan.h5')"
else
  echo "note: bte refused the damaged reference itself; nothing for the reader to refuse"
fi
expect_fail "plot_dynamics: re_nan.h5: /dynamics/reference_error/carriers holds a non-finite value" "$PYTHON" "$PLOT_D" re_nan.h5 --outdir png
[ ! -e png ] || [ -z "$(ls png)" ] || { echo "plot_dynamics wrote PNGs of a refused file: $(ls png)"; exit 1; }
echo ok
