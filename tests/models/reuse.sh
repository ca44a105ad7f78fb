#!/bin/bash
# -bte_generate_reuse: the builder keeps the channels it finds while counting and copies them into
# the table (in memory) or the file (streamed) instead of evaluating every coupling again. The
# tables must be bit-identical to those of two evaluations (-bte_generate_reuse 0): streamed and
# in memory, on 1 and NP ranks, and when the budget (40% of -bte_memory_limit) keeps only some of
# the states, so that the others are evaluated again (the -info line says how many were kept).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
. "$TESTDIR/perturbo/cases.bash"
NP=${TEST_NP:-2}
g="-bte_view 0 -bte_diagnostics 0 -bte_model gaas -bte_grid 24 -bte_window 0.7"
"$BTE" generate $g -bte_generate_reuse 0 -bte_output two.h5 > /dev/null
"$BTE" generate $g -bte_output one.h5 -info > one.log
grep -q "kept the channels of 0 of" one.log && { echo "FAIL: nothing kept"; exit 1; }
grep "kept the channels of" one.log
identical two.h5 one.h5
"$BTE" generate $g -bte_generate_stream 0 -bte_output mem.h5 > /dev/null
identical two.h5 mem.h5
run_np "$NP" "$BTE" generate $g -bte_output np.h5 > /dev/null
identical two.h5 np.h5
run_np "$NP" "$BTE" generate $g -bte_generate_stream 0 -bte_output npmem.h5 > /dev/null
identical two.h5 npmem.h5
# a budget below the table: some states kept, the rest evaluated again
n=$("$PYTHON" -c "import h5py; f = h5py.File('two.h5', 'r'); print(f['channels/g2'].shape[0])")
lim=$("$PYTHON" -c "print('%.9f' % ($n * 28 / 0.6 / 1e9))")
for s in 1 0; do
  "$BTE" generate $g -bte_generate_stream $s -bte_memory_limit $lim -bte_output part$s.h5 -info > part$s.log
  line=$(grep "kept the channels of" part$s.log)
  echo "stream $s, memory limit $lim GB: $line"
  "$PYTHON" - "$line" <<'PY'
import re, sys
m = re.search(r"kept the channels of (\d+) of (\d+) states", sys.argv[1])
k, n = int(m.group(1)), int(m.group(2))
sys.exit(0 if 0 < k < n else 1)
PY
  identical two.h5 part$s.h5
done
echo "ok"
