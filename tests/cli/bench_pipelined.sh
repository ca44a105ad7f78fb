# bte bench -bte_bench_pipelined: a line per type with the time per apply of the applies timed back
# to back (in batches, each started together on all ranks and ended by one device sync; the median
# of the batches) and the JSON fields apply_pipelined_s and jacobian_pipelined_s, positive when
# timed and null when not; 1 and 2 ranks, and one batch when -bte_bench_reps is 1. The host's launch
# time per synced apply (apply_launch_s, jacobian_launch_s) is positive and below the apply's own.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
B="-bte_model parabolic -bte_grid 16 -bte_bench_types pair,fused -bte_bench_reps 5 -bte_bench_rk4 0"
"$BTE" bench $B -bte_bench_pipelined -bte_bench_json p1.json > p1.txt
run_np "$NP" "$BTE" bench $B -bte_bench_pipelined -bte_bench_json p2.json > p2.txt
"$BTE" bench $B -bte_bench_json p0.json > p0.txt
for t in pair fused; do
  for f in p1 p2; do
    grep -Eq "^pipelined $t +apply [0-9.]+ ms, jac [0-9.]+ ms \(5 back to back in 5 batches.*\); the host's launches per apply [0-9.]+ ms, jac [0-9.]+ ms$" $f.txt || { cat $f.txt; echo "FAIL: $f: no pipelined line for $t"; exit 1; }
  done
done
"$BTE" bench $B -bte_bench_reps 1 -bte_bench_pipelined > p3.txt
grep -Eq "^pipelined pair +apply [0-9.]+ ms, jac [0-9.]+ ms \(1 back to back in 1 batches" p3.txt || { cat p3.txt; echo "FAIL: one rep, one batch"; exit 1; }
! grep -q "^pipelined" p0.txt || { echo "FAIL: a pipelined line without -bte_bench_pipelined"; exit 1; }
for f in p1 p2 p0; do
  n=$(grep -o '"apply_pipelined_s": [0-9.e+-]*' $f.json | wc -l)
  [ "$n" = 2 ] || { cat $f.json; echo "FAIL: $f.json has $n apply_pipelined_s fields, expected 2"; exit 1; }
done
pos() { grep -o "\"$2\": [0-9.e+-]*" $1 | awk '{ if ($2 > 0) p++ } END { print p + 0 }'; }
for f in p1 p2; do
  [ "$(pos $f.json apply_pipelined_s)" = 2 ] && [ "$(pos $f.json jacobian_pipelined_s)" = 2 ] || { cat $f.json; echo "FAIL: $f.json: pipelined times not positive"; exit 1; }
done
[ "$(grep -o '"apply_pipelined_s": null' p0.json | wc -l)" = 2 ] && [ "$(grep -o '"jacobian_pipelined_s": null' p0.json | wc -l)" = 2 ] || { cat p0.json; echo "FAIL: pipelined times without -bte_bench_pipelined are not null"; exit 1; }
# the launch time: timed with or without -bte_bench_pipelined, within the synced apply it is part of
for f in p1 p2 p0; do
  awk 'function v(k,  s) { s = $0; sub(".*\"" k "\": ", "", s); sub(/[,}].*/, "", s); return s + 0 }
       /"apply_launch_s"/ { n++; if (!(v("apply_launch_s") > 0 && v("apply_launch_s") <= v("apply_s") && v("jacobian_launch_s") > 0 && v("jacobian_launch_s") <= v("jacobian_s"))) bad = 1 }
       END { exit (bad || n != 2) }' $f.json || { cat $f.json; echo "FAIL: $f.json: launch times not in (0, apply]"; exit 1; }
done
echo "ok   bte bench -bte_bench_pipelined: a line and JSON fields per type, 1 and $NP ranks; none without it"
