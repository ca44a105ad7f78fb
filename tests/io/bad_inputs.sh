# Table validation (states outside the table's window, a (k, band) twice, a 2D sheet's velocity
# out of its plane among them): malformed tables (made with h5py from a valid one) must be refused by
# 'bte info -bte_input FILE' with a nonzero exit and a message naming the problem, never a
# crash or a hang; a few run on TEST_NP ranks, where the bad row lies on another rank.
. "$TESTDIR/common.sh"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py"; exit 77; fi
NP=${TEST_NP:-2}
N=60 M=400
"$BUILD/tests/io_roundtrip" -mode write -file good.h5 -nstates $N -nchannels $M || exit 1
"$BTE" info -bte_input good.h5 >good.txt || { echo "FAIL: the valid table is refused"; cat good.txt; exit 1; }
OMP_NUM_THREADS=1 "$BTE" generate -bte_model graphene -bte_grid 150 -bte_output sheet.h5 -bte_view 0 >/dev/null || exit 1

"$PYTHON" - $N $M <<'EOF' || exit 1
import h5py, numpy as np, shutil, sys
N, M = int(sys.argv[1]), int(sys.argv[2])

def variant(name, *edits):
    shutil.copy('good.h5', name)
    with h5py.File(name, 'r+') as f:
        for e in edits: e(f)

def setitem(path, idx, val):
    def e(f):
        a = f[path][()]; a[idx] = val; f[path][...] = a
    return e

def replace(path, fn):          # new dataset from fn(old data), attributes kept
    def e(f):
        old = f[path]; data = fn(old[()]); attrs = dict(old.attrs); del f[path]
        d = f.create_dataset(path, data=data)
        for k, v in attrs.items(): d.attrs[k] = v
    return e

def setattr_(path, key, val):
    def e(f): f[path].attrs[key] = val
    return e

def delattr_(path, key):
    def e(f): del f[path].attrs[key]
    return e

def delete(path):
    def e(f): del f[path]
    return e

def swap_ij(f):
    i, j = f['channels/i'][()], f['channels/j'][()]
    f['channels/i'][...] = j; f['channels/j'][...] = i

def break_reciprocal(f):
    r = f['grid/reciprocal'][()]; r[0] *= 0.529177210903; f['grid/reciprocal'][...] = r

variant('wrong_format.h5', setattr_('/', 'format', 'some-other-format'))
variant('no_format.h5', delattr_('/', 'format'))
variant('version.h5', setattr_('/', 'format_version', np.int32(2)))
variant('version_float.h5', setattr_('/', 'format_version', 1.0))
variant('incomplete.h5', delattr_('/', 'complete'))
variant('complete0.h5', setattr_('/', 'complete', np.int32(0)))
variant('no_g2.h5', delete('channels/g2'))
variant('no_states.h5', delete('states'))
variant('no_nmodes.h5', delattr_('phonons', 'nmodes'))
variant('kindex_float.h5', replace('states/kindex', lambda a: a.astype(np.float64)))
variant('g2_int.h5', replace('channels/g2', lambda a: (a * 1e6).astype(np.int32)))
variant('velocity_1d.h5', replace('states/velocity', lambda a: a[:, 0].copy()))
variant('velocity_n2.h5', replace('states/velocity', lambda a: a[:, :2].copy()))
variant('j_short.h5', replace('channels/j', lambda a: a[:-1].copy()))
variant('lattice_2x3.h5', replace('grid/lattice', lambda a: a[:2].copy()))
variant('empty_states.h5', *[replace('states/' + k, lambda a: a[:0].copy()) for k in ('kindex', 'band', 'energy', 'velocity')])
variant('nan_g2.h5', setitem('channels/g2', 5, np.nan))
variant('neg_g2.h5', setitem('channels/g2', 3, -1e-3))
variant('inf_g2.h5', setitem('channels/g2', 8, np.inf))
variant('nan_g2_last.h5', setitem('channels/g2', M - 1, np.nan))
variant('nan_energy.h5', setitem('states/energy', 2, np.nan))
variant('nan_energy_last.h5', setitem('states/energy', N - 1, np.nan))
variant('inf_velocity.h5', setitem('states/velocity', (4, 1), -np.inf))
variant('neg_hw.h5', setitem('channels/phonon_energy', 1, -0.01))
variant('nan_hw.h5', setitem('channels/phonon_energy', 9, np.nan))
variant('i_range.h5', setitem('channels/i', 0, N + 5))
variant('j_neg.h5', setitem('channels/j', 2, -1))
variant('j_range_last.h5', setitem('channels/j', M - 1, N))
variant('self.h5', lambda f: setitem('channels/j', 7, f['channels/i'][7])(f))
variant('mode_range.h5', setitem('channels/mode', 0, 4))
variant('nk_zero.h5', setitem('grid/nk', 1, 0))
variant('kindex_range.h5', setitem('states/kindex', 0, 10**6))
variant('kindex_i64.h5', replace('states/kindex', lambda a: a.astype(np.int64)), setitem('states/kindex', 0, 2**40))
variant('band_range.h5', setitem('states/band', 1, 3))
variant('g2_rydberg.h5', setattr_('channels/g2', 'units', 'Ry^2'))
variant('dim4.h5', setattr_('grid', 'dim', np.int32(4)))
variant('window.h5', setattr_('states', 'window_min', 5.0))
variant('carrier.h5', setattr_('states', 'carrier', 'positrons'))
variant('smearing.h5', setattr_('channels', 'smearing', -0.01))
variant('delta.h5', setattr_('channels', 'delta', 'gaussian'))
variant('reciprocal.h5', break_reciprocal)
variant('swapped.h5', swap_ij)
variant('energy_above.h5', setitem('states/energy', 3, 1e3))
variant('energy_below.h5', setitem('states/energy', 4, -5.0))
variant('dup_state.h5', lambda f: setitem('states/kindex', N - 1, f['states/kindex'][0])(f), lambda f: setitem('states/band', N - 1, f['states/band'][0])(f))
shutil.copy('sheet.h5', 'sheet_vz.h5')
with h5py.File('sheet_vz.h5', 'r+') as f:
    v = f['states/velocity'][()]; v[2, 2] = 5.0; f['states/velocity'][...] = v
with open('text.h5', 'w') as t: t.write('this is not an HDF5 file\n' * 100)
open('empty.h5', 'w').close()
EOF
size=$(stat -c %s good.h5)
head -c $((size / 2)) good.h5 >truncated.h5
head -c 600 good.h5 >truncated_header.h5
mkdir -p dir.h5

fails=0 n=0
# check LABEL PATTERN FILE [more args]: bte info on 1 rank must fail with PATTERN
check() {
  local label=$1 pat=$2 file=$3; shift 3
  n=$((n + 1)); printf '%-22s ' "$label"
  expect_fail "$pat" timeout 60 "$BTE" info -bte_input "$file" "$@" || fails=$((fails + 1))
}
# checknp: the same on NP ranks
checknp() {
  local label=$1 pat=$2 file=$3; shift 3
  n=$((n + 1)); printf '%-22s ' "$label(np $NP)"
  expect_fail "$pat" timeout 60 $MPIEXEC -n "$NP" "$BTE" info -bte_input "$file" "$@" || fails=$((fails + 1))
}

check missing         "No such file or directory"            nonexistent.h5
check directory       "is a directory"                       dir.h5
check not_hdf5        "not an HDF5 file"                     text.h5
check empty           "not an HDF5 file"                     empty.h5
check truncated       "truncated"                            truncated.h5
check truncated_head  "truncated"                            truncated_header.h5
check wrong_format    "format = 'some-other-format'"         wrong_format.h5
check no_format       "attribute 'format' is missing"        no_format.h5
check version         "unsupported format_version = 2"       version.h5
check version_float   "format_version' of the root group has a floating-point type" version_float.h5
check incomplete      "attribute 'complete' is missing"      incomplete.h5
check complete0       "complete = 0"                         complete0.h5
check no_dataset      "dataset /channels/g2 is missing"      no_g2.h5
check no_group        "group /states is missing"             no_states.h5
check no_attr         "attribute 'nmodes' of /phonons is missing" no_nmodes.h5
check kindex_float    "/states/kindex has a floating-point type; expected an integer" kindex_float.h5
check g2_int          "/channels/g2 has an integer type; expected a floating-point" g2_int.h5
check velocity_1d     "/states/velocity has 1 dimension"     velocity_1d.h5
check velocity_n2     "/states/velocity has shape \[$N\]\[2\]" velocity_n2.h5
check j_short         "/channels/j has length $((M - 1))"    j_short.h5
check lattice_2x3     "/grid/lattice has shape \[2\]\[3\]"   lattice_2x3.h5
check no_states       "no states"                            empty_states.h5
check nan_g2          "/channels/g2\[5\] = nan"              nan_g2.h5
check neg_g2          "/channels/g2\[3\] = -0.001"           neg_g2.h5
check inf_g2          "/channels/g2\[8\] = inf"              inf_g2.h5
check nan_energy      "/states/energy\[2\] = nan"            nan_energy.h5
check inf_velocity    "/states/velocity\[4\]"                inf_velocity.h5
check neg_hw          "/channels/phonon_energy\[1\] = -0.01" neg_hw.h5
check nan_hw          "/channels/phonon_energy\[9\] = nan"   nan_hw.h5
check i_range         "/channels/i\[0\] = $((N + 5)) is not a state index" i_range.h5
check j_neg           "/channels/j\[2\] = -1 is not a state index" j_neg.h5
check self_channel    "joins state .* to itself"             self.h5
check mode_range      "/channels/mode\[0\] = 4 is not a phonon mode" mode_range.h5
check nk_zero         "/grid/nk\[1\] = 0 is less than 1"     nk_zero.h5
check kindex_range    "/states/kindex\[0\] = 1000000 is outside the k grid" kindex_range.h5
check kindex_i64      "/states/kindex\[0\] = 2147483647 (or beyond: the value is at the limit of bte's integers, where reading clamps it) is outside the k grid" kindex_i64.h5
check band_range      "/states/band\[1\] = 3 is outside"     band_range.h5
check units           "units = 'Ry^2' but bte expects 'eV^2'" g2_rydberg.h5
check dim             "dim = 4"                              dim4.h5
check window          "window_min = 5"                       window.h5
check carrier         "carrier = 'positrons'"                carrier.h5
check smearing        "smearing = -0.01"                     smearing.h5
check delta           "delta = 'gaussian'; expected perturbo or balanced" delta.h5
check reciprocal      "/grid/reciprocal does not match"      reciprocal.h5
check too_large       "too large for memory"                 good.h5 -bte_memory_limit 1e-6
check energy_above    "/states/energy\[3\] = 1000 eV is outside the table's window" energy_above.h5
check energy_below    "/states/energy\[4\] = -5 eV is outside the table's window" energy_below.h5
check sheet_vz        "/states/velocity\[2\] = .* has a component along the normal of a 2D material" sheet_vz.h5
checknp dup_state     "two states have k index .* and band .* may appear once" dup_state.h5
checknp incomplete    "attribute 'complete' is missing"      incomplete.h5
checknp nan_g2_last   "/channels/g2\[$((M - 1))\] = nan"     nan_g2_last.h5
checknp j_range_last  "/channels/j\[$((M - 1))\] = $N is not a state index" j_range_last.h5
checknp nan_energy_last "/states/energy\[$((N - 1))\] = nan" nan_energy_last.h5
checknp too_large     "too large for memory"                 good.h5 -bte_memory_limit 1e-6

# Channels stored with i > j are accepted and normalised to i < j (docs/format.md):
# the table read equals the one written, on 1 and NP ranks.
n=$((n + 1))
if "$BUILD/tests/io_roundtrip" -mode read -file swapped.h5 -nstates $N -nchannels $M &&
   run_np "$NP" "$BUILD/tests/io_roundtrip" -mode read -file swapped.h5 -nstates $N -nchannels $M -bte_io_chunk 13; then
  echo "swapped i > j: normalised, ok"
else echo "FAIL: swapped i > j"; fails=$((fails + 1)); fi

echo "$((n - fails)) of $n checks passed"
[ $fails -eq 0 ]
