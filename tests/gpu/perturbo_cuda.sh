#!/bin/bash
# The Perturbo import on the GPU (-bte_perturbo_device device, src/models/perturbo/epr_cuda.cu and
# epr_phonons_cuda.cu) against the host (-bte_perturbo_device host, the reference), on the
# closed-form fixtures of tests/perturbo/make_epr.py with several bands, atoms and the long-range
# terms:
# - couplings on the GPU, phonons on the host (-bte_perturbo_gpu_phonons 0): the same states
#   (bit-identical) and channels (i, j, mode and phonon energy bit-identical), |g|^2 to 1e-12 of the
#   largest |g|^2 (the device uses the host's order of operations without FMA; only its cos/sin may
#   differ in the last bit); on 1 and 2 ranks, 2 threads, in memory, with batches cut small, and
#   with batches that span several states;
# - everything on the GPU (the default): tests/perturbo/compare_tables.py's checks (the same states
#   and channel sets, hw to 1e-10 eV, |g|^2 summed over degenerate modes to 1e-10): the device
#   eigensolver's eigenvectors differ from LAPACK's by a phase per mode, or by a rotation inside a
#   degenerate set.
# - the channels generated on the device (a table built in memory, -bte_perturbo_gpu_channels, the
#   default there): the builder's path's table bit for bit (every dataset, |g|^2 included), on 1 and
#   2 ranks; a run on CUDA Vecs builds its pair layout from the device copy they leave, never makes
#   the host copy, finds the channel graph's pieces on the device (the host's, on a graph in 4
#   pieces) and gets the builder's path's mobility.
# - a refusal found while the phonons' work runs on the device (a window with no states): one line,
#   exit 1, no crash as the process exits.
# Skips (exit 77) without a CUDA build of bte, a GPU or Python with h5py.
source "$TESTDIR/common.sh"
set -e
require_cuda_gpu
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
for m in cubic twoband polar polar2w; do "$PYTHON" "$T/make_epr.py" $m $m.h5; done
common="-bte_view 0 -bte_model perturbo -bte_smearing 0.01 -use_gpu_aware_mpi 0"
close() { # host table, device table
  "$PYTHON" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = []
for n in ["states/energy", "states/kindex", "states/band", "states/velocity", "channels/i", "channels/j", "channels/mode", "channels/phonon_energy"]:
    if not np.array_equal(a[n][()], b[n][()]): bad.append(n)
ga, gb = a["channels/g2"][()], b["channels/g2"][()]
if ga.shape != gb.shape: bad.append("channels/g2 shape")
else:
    d = np.max(np.abs(ga - gb)) / max(np.max(np.abs(ga)), 1e-300) if ga.size else 0.0
    print("  %d channels, max |g2 host - g2 device| / max g2 = %.2e, bit-identical %.1f%%" % (ga.size, d, 100.0 * np.mean(ga == gb) if ga.size else 100))
    if not d <= 1e-12: bad.append("channels/g2 (%.2e)" % d)
print(("FAIL " if bad else "ok   ") + "%s vs %s%s" % (sys.argv[1], sys.argv[2], (": " + ", ".join(bad)) if bad else ""))
sys.exit(1 if bad else 0)
PY
}
same() { # two tables: every dataset of states/ and channels/ bit for bit
  "$PYTHON" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
bad = [g + "/" + n for g in ("states", "channels") for n in a[g] if n not in b[g] or not np.array_equal(a[g][n][()], b[g][n][()])]
print(("FAIL " if bad else "ok   ") + "%s vs %s bit for bit (%d channels)%s" % (sys.argv[1], sys.argv[2], a["channels/i"].shape[0], (": " + ", ".join(bad)) if bad else ""))
sys.exit(1 if bad else 0)
PY
}
ondevice() { # log: the channels were generated on the device
  grep -q "GPU channels: [0-9]* channels from" $1 || { echo "FAIL: $1: the channels were not generated on the device"; grep -i "channels" $1 | head; exit 1; }
}
one() { # name epr options
  local n=$1 f=$2; shift 2
  echo "--- $n: $f $*"
  "$BTE" generate $common -bte_perturbo_epr $f "$@" -bte_perturbo_device host -bte_output ${n}_host.h5 > ${n}_host.log
  "$BTE" generate $common -bte_perturbo_epr $f "$@" -bte_perturbo_device device -bte_perturbo_gpu_phonons 0 -bte_output ${n}_dev.h5 > ${n}_dev.log
  grep -q "evaluated on the GPU" ${n}_dev.log || { echo "FAIL: the device run did not use the GPU"; cat ${n}_dev.log; exit 1; }
  close ${n}_host.h5 ${n}_dev.h5
  "$BTE" generate $common -bte_perturbo_epr $f "$@" -bte_perturbo_device device -bte_output ${n}_gpu.h5 > ${n}_gpu.log
  grep -q "modes) on the GPU" ${n}_gpu.log || { echo "FAIL: the phonons were not computed on the GPU"; cat ${n}_gpu.log; exit 1; }
  "$PYTHON" "$T/compare_tables.py" ${n}_host.h5 ${n}_gpu.h5
  "$BTE" generate $common -bte_perturbo_epr $f "$@" -bte_perturbo_device device -bte_generate_stream 0 -bte_output ${n}_mem.h5 -info > ${n}_mem.log 2>&1
  ondevice ${n}_mem.log
  same ${n}_gpu.h5 ${n}_mem.h5
}
one cubic cubic.h5 -bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_phonon_min 0.002
one twoband twoband.h5 -bte_perturbo_kdim 12,12,12 -bte_window 1.5
one polar polar.h5 -bte_perturbo_kdim 12,12,12 -bte_window 0.5
one polar2w polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6
# small batches, in memory, 2 ranks, 2 threads: the same table as the device's default run
"$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device device -bte_perturbo_gpu_phonons 0 -bte_perturbo_gpu_channels 0 -bte_generate_pair_batch 37 -bte_generate_stream 0 -bte_output p37.h5 > /dev/null
close polar2w_dev.h5 p37.h5
# batches that span several states (one copy, two kernels and one wait for all of them), streamed
# in file batches that cut states: the host's table
"$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device device -bte_perturbo_gpu_phonons 0 -bte_generate_batch 500 -bte_output span.h5 -info > span.log
grep -E "batches of up to 4096 pairs from up to [0-9]+ consecutive states" span.log | grep -vq "from up to 1 consecutive" || { echo "FAIL: no batch spans several states"; grep "consecutive states" span.log; exit 1; }
close polar2w_host.h5 span.h5
run_np 2 "$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device device -bte_perturbo_gpu_phonons 0 -bte_output p2.h5 > /dev/null
close polar2w_host.h5 p2.h5
# 2 ranks, the channels generated on the device: each rank's, the streamed table bit for bit
run_np 2 "$BTE" generate $common -bte_perturbo_epr polar2w.h5 -bte_perturbo_kdim 10,10,10 -bte_window 0.6 -bte_perturbo_device device -bte_perturbo_gpu_phonons 0 -bte_generate_stream 0 -bte_output p2m.h5 -info > p2m.log 2>&1
ondevice p2m.log
same p2.h5 p2m.h5
# a mobility on CUDA Vecs, the table built in memory: the pair layout built from the device copy of
# the channels, the same mobility as the builder's path to rounding (device exp in the rates)
mob() { local o=$1; shift; "$BTE" transport $common -bte_perturbo_epr polar.h5 -bte_perturbo_kdim 12,12,12 -bte_window 0.5 -bte_temperature 300 -vec_type cuda -bte_collision_type pair -bte_output $o "$@" -info 2>&1; }
mob mob_dev.h5 > mob_dev.log; mob mob_host.h5 -bte_perturbo_gpu_channels 0 > mob_host.log
ondevice mob_dev.log
grep -q "channel arrays already on the device" mob_dev.log || { echo "FAIL: the pair build did not find the channels on the device"; grep "pair device build" mob_dev.log; exit 1; }
# the run never read the channels on the host: no host copy was made
grep -q "the host copy of [0-9]* channels was never needed" mob_dev.log || { echo "FAIL: the host copy of the channels was made"; grep "GPU channels" mob_dev.log; exit 1; }
"$PYTHON" - mob_dev.h5 mob_host.h5 <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(f, "r")["transport/mobility"][()] for f in sys.argv[1:3])
d = np.max(np.abs(a - b)) / np.max(np.abs(b))
print(("ok  " if d <= 1e-10 else "FAIL") + " mobility (cm^2/(V s)) xx %.6g against %.6g, largest difference %.2e of the largest entry" % (a.flat[0], b.flat[0], d))
sys.exit(0 if d <= 1e-10 else 1)
PY
# the channel graph found on the device (label propagation) where the host copy is not made: the
# same pieces as the host's union-find, on a grid whose graph has 4 pieces
graph() { "$BTE" transport $common -bte_perturbo_epr polar.h5 -bte_perturbo_kdim 8,8,8 -bte_window 0.5 -bte_temperature 300 -vec_type cuda "$@" -info 2>&1; }
graph > g_dev.log; graph -bte_perturbo_gpu_channels 0 > g_host.log
grep -q "channel graph on the device" g_dev.log || { echo "FAIL: the channel graph was not found on the device"; exit 1; }
pieces() { grep -o "channel graph: [0-9]* piece(s), [0-9]* states outside the largest" $1; }
a=$(pieces g_dev.log); b=$(pieces g_host.log)
echo "  device: $a; host: $b"
[ "$a" = "channel graph: 4 piece(s), 15 states outside the largest" ] && [ "$a" = "$b" ] || { echo "FAIL: the graphs differ"; exit 1; }
OMP_NUM_THREADS=2 "$BTE" generate $common -bte_perturbo_epr twoband.h5 -bte_perturbo_kdim 12,12,12 -bte_window 1.5 -bte_perturbo_device device -bte_perturbo_gpu_phonons 0 -bte_output t2.h5 > /dev/null
close twoband_host.h5 t2.h5
# a refusal while the phonons run on the device (a window with no states, found after the phonons'
# work was begun): one line, exit 1, no crash or hang as the process exits with that work in flight
set +e
timeout 60 "$BTE" transport $common -bte_perturbo_epr polar.h5 -bte_perturbo_kdim 8,8,8 -bte_perturbo_emin 100 -bte_perturbo_emax 101 -vec_type cuda > empty.log 2>&1
rc=$?
set -e
[ $rc -eq 1 ] && grep -q "no states of bands" empty.log && [ $(grep -c "error" empty.log) -eq 1 ] || { echo "FAIL: the refusal of an empty window on the GPU (exit $rc)"; cat empty.log; exit 1; }
echo "ok   an empty window refused in one line while the phonons ran on the device"
echo "ok"
