# Physical validation of table values (issue 13, item 1): a table whose values the format allows
# but the physics does not (a zero phonon energy, |g|^2 = 1e300, smearing 5e-324, temperature
# 1e300) is refused by every command with one line naming the value and the bound, nonzero
# exit; before, such tables ran to NaN or zero results with exit 0. The smallest allowed phonon
# energy (1e-6 eV) still runs.
. "$TESTDIR/common.sh"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py"; exit 77; fi
set -e
NP=${TEST_NP:-2}
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_output good.h5 -bte_view 0 >/dev/null
"$PYTHON" - <<'PY'
import h5py, shutil
def variant(name, edit):
    shutil.copy('good.h5', name)
    with h5py.File(name, 'r+') as f: edit(f)
def setrow(path, k, v):
    def e(f):
        a = f[path][()]; a[k] = v; f[path][...] = a
    return e
def setattr_(path, key, v):
    def e(f): f[path].attrs[key] = v
    return e
variant('hw0.h5', setrow('channels/phonon_energy', 3, 0.0))
variant('hwtiny.h5', setrow('channels/phonon_energy', 3, 1e-300))
variant('hwfloor.h5', setrow('channels/phonon_energy', 3, 1e-6))
variant('hwbig.h5', setrow('channels/phonon_energy', 3, 50.0))
variant('g2big.h5', setrow('channels/g2', 2, 1e300))
variant('eta.h5', setattr_('channels', 'smearing', 5e-324))
variant('temp.h5', setattr_('/', 'temperature', 1e300))
PY
R="-bte_view 0"
for cmd in "info" "dynamics -bte_final_time 10" "transport" "highfield -bte_efield_list 100"; do
  expect_fail "phonon_energy\[3\] = 0 eV is outside \[1e-06, 10\] eV" "$BTE" $cmd -bte_input hw0.h5 $R
done
expect_fail "phonon_energy\[3\] = 1e-300 eV is outside" "$BTE" transport -bte_input hwtiny.h5 $R
expect_fail "phonon_energy\[3\] = 50 eV is outside" "$BTE" info -bte_input hwbig.h5
expect_fail "g2\[2\] = 1e+300 eV^2 is outside \[0, 1e+06\] eV^2" "$BTE" transport -bte_input g2big.h5 $R
expect_fail "smearing = 4.94066e-324 eV is outside \[1e-06, 1\] eV" "$BTE" dynamics -bte_input eta.h5 $R -bte_final_time 10
expect_fail "temperature = 1e+300 K is outside \[0.01, 100000\] K" "$BTE" transport -bte_input temp.h5 $R
# the bad row on the other rank
expect_fail "phonon_energy\[3\] = 0 eV" $MPIEXEC -n $NP "$BTE" transport -bte_input hw0.h5 $R
# run options override the table's temperature and smearing, and are checked the same way
expect_fail "temperature (-bte_temperature) = 1e+300 K is out of range" "$BTE" transport -bte_input good.h5 $R -bte_temperature 1e300
expect_fail "smearing (-bte_smearing) = 4.94066e-324 eV is out of range" "$BTE" transport -bte_input good.h5 $R -bte_smearing 5e-324
# the floor itself is a legitimate value: the run is finite and converged
"$BTE" transport -bte_input hwfloor.h5 $R > floor.txt
grep -q "NOT CONVERGED\|nan\|inf" floor.txt && { echo "FAIL: the floor table gives a bad result"; cat floor.txt; exit 1; }
echo "ok: phonon energy 1e-6 eV (the floor) runs"
