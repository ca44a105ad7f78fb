# bte bench's columns mean what the header and docs/benchmarks.md say (no timing is asserted):
#  - a part not timed (-bte_bench_jacobian 0, -bte_bench_rk4 0, no baseline, no -bte_bench_pipelined)
#    is "-" in the table and null in the JSON, never a time or ratio of 0;
#  - the header states each column's repetitions as timed (apply and J x: -bte_bench_reps; RK4:
#    max(3, reps/2)), and the JSON's reps and rk4_reps agree;
#  - the memory column is the layout's bytes, which the operator counts itself: the same whichever
#    order -bte_bench_types gives the types (the resident-memory growth it replaced was not);
#  - on host vectors %copy is "-" with one line saying why (the copy there is one thread's memcpy);
#  - the JSON names the table timed (file, source command), its temperature and smearing.
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_grid 16"
fail() { echo "FAIL: $*"; exit 1; }
# the value of a field of the result of one type in a bench JSON (one result per line)
field() { grep "\"type\": \"$2\"" "$1" | sed -E "s/.*\"$3\": ([^,}]*).*/\1/"; }
# the table row of one type, split into its columns
row() { awk -v t="$2" '$1 == t' "$1"; }

# --- parts left out: "-" and null
"$BTE" bench $P -bte_bench_types pair,baseline -bte_bench_reps 4 -bte_bench_jacobian 0 -bte_bench_rk4 0 -bte_bench_json a.json > a.txt
cat a.txt
grep -q "^apply: median of 4 synced applies after 3 warm-up; -: not timed$" a.txt || fail "the header does not say what the apply column is, or claims J x / RK4 timings"
for t in pair baseline; do
  r=$(row a.txt $t)
  [ -n "$r" ] || fail "no row for $t"
  # type apply ns/chan jac rk4 layout GB/s %copy setup vs
  set -- $r
  [ $# = 10 ] || fail "$t: $# columns, expected 10: $r"
  [ "$4" = - ] && [ "$5" = - ] || fail "$t: jac and rk4 not timed but shown as '$4' '$5'"
  [ "$8" = - ] || fail "$t: %copy on host vectors is '$8', expected -"
  [ "${10}" != - ] || fail "$t: baseline was timed, but no ratio"
  for k in jacobian_s rk4_step_s apply_pipelined_s jacobian_pipelined_s jacobian_launch_s; do
    [ "$(field a.json $t $k)" = null ] || fail "$t: $k = $(field a.json $t $k), expected null (not timed)"
  done
  for k in apply_s apply_launch_s speedup_vs_baseline layout_bytes_per_channel; do
    v=$(field a.json $t $k)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "$t: $k = '$v', expected a positive number"
  done
done
grep -q '"rk4_reps": null' a.json || fail "rk4_reps not null without RK4 steps"
grep -q '"reps": 4' a.json || fail "reps not 4"
# what was timed: the model's table by its command (no file), its temperature and smearing
grep -q '"input": "", "table_source": "bte generate -bte_model parabolic -bte_grid 16 -bte_window 0.3 -bte_smearing 0.01", "temperature_K": 300, "smearing_eV": 0.01,' a.json || fail "the JSON does not name what was timed: $(grep table_source a.json)"
[ "$(grep -c "^(%copy: - on the host" a.txt)" = 1 ] || fail "the host's %copy caveat is not printed once"
! grep -qi "host B/c\|host_bytes" a.txt a.json || fail "a host-memory column is still printed"

# --- no baseline: no ratio; J x and RK4 timed, the header with their repetitions
"$BTE" bench $P -bte_bench_types fused,pair -bte_bench_reps 8 -bte_bench_json b.json > b.txt
cat b.txt
grep -q "^apply, jac: median of 8 synced applies after 3 warm-up; rk4 step: median of 4 steps after 2 untimed$" b.txt || fail "the header does not give the repetitions of apply, jac (8) and RK4 (4)"
grep -q '"rk4_reps": 4' b.json || fail "rk4_reps not 4"
for t in fused pair; do
  set -- $(row b.txt $t)
  [ "${10}" = - ] || fail "$t: no baseline timed, but vs base is '${10}'"
  [ "$4" != - ] && [ "$5" != - ] || fail "$t: J x and RK4 were timed, but shown as '$4' '$5'"
  [ "$(field b.json $t speedup_vs_baseline)" = null ] || fail "$t: speedup_vs_baseline without a baseline: $(field b.json $t speedup_vs_baseline)"
  for k in jacobian_s rk4_step_s jacobian_launch_s; do
    v=$(field b.json $t $k)
    awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || fail "$t: $k = '$v', expected a positive time"
  done
done

# --- the memory column does not depend on the order of the types
"$BTE" bench $P -bte_bench_types baseline,pair -bte_bench_reps 4 -bte_bench_jacobian 0 -bte_bench_rk4 0 -bte_bench_json c.json > c.txt
for t in pair baseline; do
  a=$(field a.json $t layout_bytes_per_channel); c=$(field c.json $t layout_bytes_per_channel)
  [ "$a" = "$c" ] || fail "$t: layout bytes per channel $a (pair first) vs $c (baseline first)"
  a=$(row a.txt $t | awk '{ print $6 }'); c=$(row c.txt $t | awk '{ print $6 }')
  [ "$a" = "$c" ] || fail "$t: layout B/c column $a (pair first) vs $c (baseline first)"
done

# --- the JSON parses (null, not an invalid token), where a Python is at hand
py=${PYTHON:-$(command -v python3 || true)}
if [ -n "$py" ]; then
  for f in a b c; do "$py" -c "import json, sys; json.load(open(sys.argv[1]))" $f.json || fail "$f.json is not valid JSON"; done
fi
echo "ok   bte bench: parts not timed are - and null, the header gives each column's repetitions, layout bytes independent of the types' order"
