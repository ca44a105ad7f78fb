# A damaged reference (-bte_reference): a NaN or Inf in a reference snapshot the run reads (at a
# snapshot time, between two with interpolation, the initial one, in the second rank's slab) or in
# its times is refused in one line, as -bte_restart refuses the same damage ("is not finite; the file
# is damaged"), on 1 and NP ranks; the failed run writes no error record. Before, a NaN was dropped
# by the max and reported as perfect agreement: "max over t 0.000e+00", exit 0, every
# /dynamics/reference_error 0. The intact file still gives exactly 0.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
P="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0 -bte_final_time 300 -bte_output_interval 50"
"$BTE" dynamics $P -bte_output ref.h5 > /dev/null
N=$("$PYTHON" -c "import h5py; print(h5py.File('ref.h5', 'r')['dynamics/occupations'].shape[1])")
# damage COPY ROW COL VALUE (COL -1: the whole row; ROW t: /dynamics/time[COL])
damage() {
  cp ref.h5 "$1"
  "$PYTHON" -c "
import h5py, numpy as np
f = h5py.File('$1', 'r+')
if '$2' == 't': f['dynamics/time'][$3] = np.$4
elif $3 < 0: f['dynamics/occupations'][$2, :] = np.$4
else: f['dynamics/occupations'][$2, $3] = np.$4"
}
damage nan.h5 3 -1 nan
"$PYTHON" -c "import h5py, numpy as np; o = h5py.File('nan.h5', 'r+')['dynamics/occupations']; o[5, :] = np.nan"
damage inf0.h5 0 7 inf
damage last.h5 4 $((N - 1)) nan
damage time.h5 t 2 nan
d="the file is damaged: make the reference again"
# on NP ranks through $MPIEXEC, on one without it
on() { local np=$1; shift; if [ "$np" = 1 ]; then "$@"; else run_np "$np" "$@"; fi; }
for np in 1 "$NP"; do
  rm -f out.h5
  expect_fail "The reference nan.h5 (-bte_reference): /dynamics/occupations.3..0. = nan is not finite; $d" on $np "$BTE" dynamics $P -bte_reference nan.h5 -bte_output out.h5
  "$PYTHON" -c "
import h5py, sys
g = h5py.File('out.h5', 'r')['dynamics']
sys.exit('FAIL: a refused comparison wrote reference errors' if 'reference_error' in g or h5py.File('out.h5', 'r').attrs['complete'] != 0 else 0)"
  # between the reference's snapshots (every 20 fs: rows 2 and 3 interpolated at 120 and 140 fs)
  expect_fail "/dynamics/occupations.3..0. = nan is not finite; $d" on $np "$BTE" dynamics $P -bte_output_interval 20 -bte_reference nan.h5
  # the initial snapshot: refused before the first step, no output written
  rm -f out0.h5
  expect_fail "The reference inf0.h5 (-bte_reference): /dynamics/occupations.0..7. = inf is not finite; $d" on $np "$BTE" dynamics $P -bte_reference inf0.h5 -bte_output out0.h5
  [ ! -e out0.h5 ] || { echo "FAIL: a reference damaged at the start left an output"; exit 1; }
  # the last state: the second rank's slab on NP ranks
  expect_fail "/dynamics/occupations.4..$((N - 1)). = nan is not finite; $d" on $np "$BTE" dynamics $P -bte_reference last.h5
  expect_fail "The reference time.h5 (-bte_reference): /dynamics/time.2. = nan is not finite; $d" on $np "$BTE" dynamics $P -bte_reference time.h5
done
# the intact reference: exactly 0
"$BTE" dynamics $P -bte_reference ref.h5 -bte_output self.h5 | grep -q "max over t     0.000e+00   0.000e+00" || { echo "FAIL: the run against itself is not 0"; exit 1; }
"$PYTHON" -c "
import h5py, numpy as np, sys
e = h5py.File('self.h5', 'r')['dynamics/reference_error']
sys.exit(0 if len(e['f_max']) == 7 and all(np.all(e[n][:] == 0) for n in ('f_max', 'f_l2', 'carriers', 'mean_energy', 'population_max')) else 'FAIL: self errors not 0')"
echo "ok: the intact reference gives 0"
