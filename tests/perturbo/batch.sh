#!/bin/bash
# The builder's batched coupling path (modelimpl.h's coupling_grid_batch, which the GPU import uses)
# against the pair-by-pair path: -bte_perturbo_device host_batch hands the same pairs to the same
# host coupling code in batches of up to 4096, so the tables must be bit-identical to
# -bte_perturbo_device host: every dataset, streamed and in memory, on 1 and NP ranks, 1 and 2
# threads, on fixtures with several bands, atoms and the long-range terms (tests/perturbo/make_epr.py).
# Batches of 7 and 100 pairs (-bte_generate_pair_batch) cut the candidates of a state anywhere; by
# default a batch holds the candidates of several consecutive states, and the model answers with the
# passing modes only (found by bisection over the modes sorted by energy).
# And -bte_perturbo_device device on a build without CUDA is refused with one line.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
NP=${TEST_NP:-2}
. "$T/cases.bash"
for m in cubic twoband polar2w; do "$PYTHON" "$T/make_epr.py" $m $m.h5; done
common="-bte_view 0 -bte_perturbo_monitor 0 -bte_model perturbo -bte_smearing 0.01"
one() { # name epr options
  local n=$1 f=$2; shift 2
  echo "--- $n: $f $*"
  "$BTE" generate $common -bte_perturbo_epr $f "$@" -bte_perturbo_device host -bte_output ${n}_host.h5 > /dev/null
  "$BTE" generate $common -bte_perturbo_epr $f "$@" -bte_perturbo_device host_batch -bte_output ${n}_batch.h5 > ${n}_batch.log
  identical ${n}_host.h5 ${n}_batch.h5
}
one cubic cubic.h5 -bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_phonon_min 0.002
one twoband twoband.h5 -bte_perturbo_kdim 12,12,12 -bte_window 1.5
one polar2w polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6
# batches of 7 and 100 pairs: states whose candidates span several batches, cut anywhere
"$BTE" generate $common -bte_perturbo_epr twoband.h5 -bte_perturbo_kdim 12,12,12 -bte_window 1.5 -bte_perturbo_device host_batch -bte_generate_pair_batch 7 -bte_output b7.h5 > /dev/null
identical twoband_host.h5 b7.h5
"$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device host_batch -bte_generate_pair_batch 100 -bte_output b100.h5 > /dev/null
identical polar2w_host.h5 b100.h5
expect_fail "bte_generate_pair_batch must be in 1..4096" "$BTE" generate $common -bte_perturbo_epr twoband.h5 -bte_generate_pair_batch 5000 -bte_output bad.h5
# streamed vs in memory, NP ranks, 2 threads: the batched path gives the host's table
"$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device host_batch -bte_generate_stream 0 -bte_output mem_batch.h5 > /dev/null
identical polar2w_host.h5 mem_batch.h5
run_np "$NP" "$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device host_batch -bte_output np_batch.h5 > /dev/null
identical polar2w_host.h5 np_batch.h5
OMP_NUM_THREADS=2 "$BTE" generate $common -bte_perturbo_epr twoband.h5 -bte_perturbo_kdim 12,12,12 -bte_window 1.5 -bte_perturbo_device host_batch -bte_output thr_batch.h5 > /dev/null
identical twoband_host.h5 thr_batch.h5
# batches that span several states (the default on these small fixtures): the -info line says so,
# and the table is the host's on 1 and 2 threads, streamed in small file batches that cut states
"$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device host_batch -bte_generate_batch 500 -bte_output span.h5 -info > span.log
grep -E "batches of up to 4096 pairs from up to [0-9]+ consecutive states" span.log | grep -vq "from up to 1 consecutive" || { echo "FAIL: no batch spans several states"; grep "consecutive states" span.log; exit 1; }
identical polar2w_host.h5 span.h5
OMP_NUM_THREADS=2 "$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device host_batch -bte_generate_batch 500 -bte_output span2.h5 > /dev/null
identical polar2w_host.h5 span2.h5
# the monitor says where the couplings were evaluated
grep -q "evaluated on the host (in batches)" twoband_batch.log 2>/dev/null || "$BTE" generate $common -bte_perturbo_monitor 1 -bte_perturbo_epr twoband.h5 -bte_perturbo_kdim 6,6,6 -bte_perturbo_device host_batch -bte_output mon.h5 | grep "evaluated on the host (in batches)"
if [ "${BTE_HAVE_CUDA:-}" != 1 ]; then
  expect_fail "built without CUDA" "$BTE" generate $common -bte_perturbo_epr twoband.h5 -bte_perturbo_kdim 6,6,6 -bte_perturbo_device device -bte_output dev.h5
  [ ! -e dev.h5 ] || { echo "FAIL: an output was left"; exit 1; }
fi
echo "ok"
