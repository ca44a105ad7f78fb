# Table I/O round trip: a synthetic random table (tests/io/io_roundtrip.c) is written on 1 and
# on TEST_NP ranks and read back on 1, TEST_NP and 3 ranks (in steps of a few channels, so the
# reader's redistribution takes many rounds); everything must come back bit for bit. Then the
# files are checked against docs/format.md with h5py.
. "$TESTDIR/common.sh"
set -e
T=$BUILD/tests/io_roundtrip
NP=${TEST_NP:-2}

$T -file w1.h5                                              # write and read on 1 rank
run_np "$NP" $T -file wP.h5                                 # ... on NP ranks
run_np "$NP" $T -file w1.h5 -mode read -bte_io_chunk 7      # written on 1, read on NP
$T -file wP.h5 -mode read -bte_io_chunk 5                   # written on NP, read on 1
run_np 3 $T -file wP.h5 -mode read -bte_io_chunk 11         # ... read on 3
run_np "$NP" $T -file batch.h5 -bte_io_chunk 3              # writer in batches of 3 channels
run_np "$NP" $T -file flat.h5 -dim 2 -nstates 50 -nchannels 0 -seed 3   # 2D grid, no channels
run_np 3 $T -file few.h5 -nstates 2 -nchannels 1 -seed 4    # a rank without states
# a write that cannot happen fails cleanly, on every rank, and leaves nothing behind: refused
# before it starts (a missing directory, or a directory in the way of t.h5.tmp: creating it fails)
expect_fail "Cannot write the output file no_such_dir/t.h5 (-bte_output): its directory no_such_dir does not exist" $T -mode write -file no_such_dir/t.h5
expect_fail "Cannot write the output file no_such_dir/t.h5 (-bte_output): its directory no_such_dir does not exist" run_np "$NP" $T -mode write -file no_such_dir/t.h5
mkdir t.h5.tmp
expect_fail "creating t.h5.tmp, which the output is written as first, failed: Is a directory" $T -mode write -file t.h5
expect_fail "creating t.h5.tmp, which the output is written as first, failed: Is a directory" run_np "$NP" $T -mode write -file t.h5
[ -d t.h5.tmp ] || { echo "FAIL: the writer removed a t.h5.tmp it did not create"; exit 1; }
rmdir t.h5.tmp
if ls ./*.tmp >/dev/null 2>&1; then echo "FAIL: a temporary file was left behind"; ls ./*.tmp; exit 1; fi

# the driver reads it too
out=$("$BTE" info -bte_input wP.h5)
grep -q "scattering channels: 4000" <<<"$out" || { echo "FAIL: bte info output:"; echo "$out"; exit 1; }
grep -q "states (n,k) in window: 300" <<<"$out" || { echo "FAIL: bte info output:"; echo "$out"; exit 1; }

if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then
  echo "no Python with h5py: layout checks skipped"
  exit 0
fi
"$PYTHON" - <<'EOF'
import h5py, numpy as np, sys
bad = []
def need(cond, what):
    if not cond: bad.append(what)

def A(obj):
    # strings are fixed-length (h5py reads them as bytes)
    return {k: (v.decode() if isinstance(v, bytes) else v) for k, v in obj.attrs.items()}

def fixed_strings(name, f):
    # every string attribute fixed-length, the file in the newest HDF5 1.10 format (superblock 3)
    def visit(obj):
        for k in obj.attrs:
            t = obj.attrs.get_id(k).get_type()
            if isinstance(t, h5py.h5t.TypeStringID): need(not t.is_variable_str(), f'{name}:{obj.name} attribute {k} is variable-length')
    visit(f)
    f.visititems(lambda n, o: visit(o))
    with open(name, 'rb') as fp: need(fp.read(9)[8] == 3, name + ': superblock version is not 3 (HDF5 1.10 format)')

def check_layout(name):
    f = h5py.File(name, 'r')
    fixed_strings(name, f)
    a = A(f)
    need(a['format'] == 'bte-scattering-table', name + ': format')
    need(a['format_version'] == 1, name + ': format_version')
    need(a['complete'] == 1, name + ': complete')
    need(str(a['creator']).startswith('bte '), name + ': creator')
    need(len(a['created']) >= 20 and a['created'].endswith('Z'), name + ': created')
    need('io_roundtrip' in a['source'], name + ': source')
    need(a['temperature_units'] == 'K', name + ': temperature_units')
    expect = {
        'grid/lattice': ((3, 3), 'f', 'Angstrom'), 'grid/reciprocal': ((3, 3), 'f', '1/Angstrom'),
        'grid/nk': ((3,), 'i', None),
        'states/kindex': (None, 'i', None), 'states/band': (None, 'i', None),
        'states/energy': (None, 'f', 'eV'), 'states/velocity': (None, 'f', 'Angstrom/fs'),
        'channels/i': (None, 'i', None), 'channels/j': (None, 'i', None), 'channels/mode': (None, 'i', None),
        'channels/phonon_energy': (None, 'f', 'eV'), 'channels/g2': (None, 'f', 'eV^2'),
    }
    for path, (shape, kind, units) in expect.items():
        d = f[path]
        need(d.dtype.kind == kind, f'{name}:{path} dtype {d.dtype}')
        need(d.dtype.itemsize in (4, 8), f'{name}:{path} itemsize')
        if shape: need(d.shape == shape, f'{name}:{path} shape {d.shape}')
        if units: need(A(d).get('units') == units, f'{name}:{path} units {A(d).get("units")}')
        else: need('units' not in d.attrs, f'{name}:{path} has units')
    N, M = f['states/energy'].shape[0], f['channels/i'].shape[0]
    need(f['states/velocity'].shape == (N, 3), name + ': velocity shape')
    for k in ('kindex', 'band'): need(f['states/' + k].shape == (N,), name + ': ' + k)
    for k in ('j', 'mode', 'phonon_energy', 'g2'): need(f['channels/' + k].shape == (M,), name + ': ' + k)
    if M: need(f['channels/i'].chunks is not None, name + ': channels not chunked')
    g = A(f['grid'])
    need(g['dim'] in (2, 3) and g['volume'] > 0, name + ': grid attrs')
    need(g['volume_units'] == ('Angstrom^3' if g['dim'] == 3 else 'Angstrom^2'), name + ': volume_units')
    lat, rec = f['grid/lattice'][()], f['grid/reciprocal'][()]
    need(np.allclose(rec @ lat.T, 2 * np.pi * np.eye(3)), name + ': reciprocal')
    need(abs(abs(np.linalg.det(lat)) - g['volume']) < 1e-9 * g['volume'], name + ': volume')
    s = A(f['states'])
    need(s['carrier'] in ('electrons', 'holes') and s['spin_degeneracy'] in (1, 2) and s['nbands'] >= 1, name + ': states attrs')
    need(s['window_min_units'] == 'eV' and s['window_max_units'] == 'eV', name + ': window units')
    need(f['phonons'].attrs['nmodes'] >= 1, name + ': nmodes')
    c = A(f['channels'])
    for k, u in (('smearing', 'eV'), ('g2_cutoff', 'eV^2'), ('phonon_min', 'eV'), ('energy_tolerance', 'eta')):
        need(k in c and c[k + '_units'] == u, f'{name}: /channels {k}')
    m = A(f['model'])
    need(m['name'] == 'synthetic' and m['hw_LO_units'] == 'eV' and list(m.keys())[1] == 'zeta_mass', name + ': /model')
    i, j = f['channels/i'][()], f['channels/j'][()]
    need(np.all(i < j) and np.all(i >= 0) and np.all(j < N), name + ': i < j < N')
    return f

def channel_set(f):
    c = f['channels']
    return sorted(zip(c['i'][()], c['j'][()], c['mode'][()], c['phonon_energy'][()].view('u8'), c['g2'][()].view('u8')))

f1, fP, fb = check_layout('w1.h5'), check_layout('wP.h5'), check_layout('batch.h5')
check_layout('flat.h5'); check_layout('few.h5')
for k in ('kindex', 'band', 'energy', 'velocity'):
    need(np.array_equal(f1['states/' + k][()], fP['states/' + k][()]), 'w1 vs wP states/' + k)
need(channel_set(f1) == channel_set(fP) == channel_set(fb), 'w1, wP, batch: channel sets differ')
need(len(channel_set(f1)) == 4000, 'channel count')
if bad:
    print('FAIL:\n  ' + '\n  '.join(bad)); sys.exit(1)
print('layout checks passed')
EOF
