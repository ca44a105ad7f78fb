# Streaming generation (bte generate, the default) writes the same table as generating in memory
# and then writing (-bte_generate_stream 0): every dataset bit for bit, the same types, shapes,
# chunks and attributes (tests/stream/stream_cmp.c), on 1 and TEST_NP ranks, with tiny batches
# (a state's channels split over batches) and the default batch; also a model with 3 bands and a
# table without channels.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
CMP="$BUILD/tests/stream_cmp"
[ -x "$CMP" ] || { echo "skip: $CMP not built"; exit 77; }
check() { # reference, candidate
  "$CMP" "$1" "$2" || { echo "FAIL: $2 differs from $1"; exit 1; }
  [ ! -e "$2.tmp" ] || { echo "FAIL: $2.tmp left behind"; exit 1; }
}
for M in "-bte_model gaas -bte_grid 18" "-bte_model si-holes -bte_grid 20 -bte_si_holes_bands dkk" "-bte_model parabolic -bte_grid 12 -bte_parabolic_lo 0 -bte_parabolic_acoustic 0"; do
  OMP_NUM_THREADS=1 "$BTE" generate $M -bte_output mem.h5 -bte_generate_stream 0 -bte_view 0 >/dev/null
  OMP_NUM_THREADS=2 "$BTE" generate $M -bte_output s1.h5 -bte_view 0 >/dev/null
  check mem.h5 s1.h5
  OMP_NUM_THREADS=2 "$BTE" generate $M -bte_output s1b.h5 -bte_generate_batch 7 -bte_view 0 >/dev/null
  check mem.h5 s1b.h5
  OMP_NUM_THREADS=1 run_np "$NP" "$BTE" generate $M -bte_output sp.h5 -bte_generate_batch 3 -bte_view 0 >/dev/null
  check mem.h5 sp.h5
  OMP_NUM_THREADS=1 run_np "$NP" "$BTE" generate $M -bte_output spd.h5 -bte_view 0 >/dev/null
  check mem.h5 spd.h5
  # the in-memory path on several ranks writes the same file too (BTEWriteTable's turns)
  OMP_NUM_THREADS=1 run_np "$NP" "$BTE" generate $M -bte_output memp.h5 -bte_generate_stream 0 -bte_view 0 >/dev/null
  check mem.h5 memp.h5
  [ -e gaas_mem.h5 ] || cp mem.h5 gaas_mem.h5
  echo "$M: identical tables (in memory; streamed on 1 rank with default and 7-channel batches, on $NP ranks with 3-channel and default batches)"
done
# the comparison itself must be able to fail: one changed bit in one g2 of the gaas table
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then
  cp gaas_mem.h5 bad.h5
  "$PYTHON" -c "
import h5py, numpy as np
f = h5py.File('bad.h5', 'r+'); g = f['channels/g2']; a = g[()]
b = a.view(np.uint64); b[a.size // 2] ^= np.uint64(1); g[...] = a
"
  if "$CMP" gaas_mem.h5 bad.h5; then echo "FAIL: stream_cmp missed a changed bit"; exit 1; fi
fi
echo ok
