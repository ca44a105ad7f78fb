# The timing driver runs every implementation and they agree (small size; timings not asserted).
set -e
out=$("$BUILD/tests/coll_bench" -synth_nk 5 -reps 2)
echo "$out"
for t in baseline tgt fused fused:mixed; do grep -q "^$t " <<<"$out" || { echo "no line for $t"; exit 1; }; done
# largest relative difference of I from baseline: < 1e-12 for tgt/fused, < 1e-6 for mixed
awk '$1=="tgt"||$1=="fused" { if ($NF+0 > 1e-12) { print "disagree: " $0; exit 1 } } $1=="fused:mixed" { if ($NF+0 > 1e-6) { print "disagree: " $0; exit 1 } }' <<<"$out"
