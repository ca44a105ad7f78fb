# A change of temperature on a set-up collision operator (BTECollisionSetTemperature): with
# -bte_collision_refresh the pair type recomputes only the rates, and I[f], J(f) x (direct and through
# a Jacobian Mat made before the change), diag J equal a fresh operator's at the new temperature to the
# bit, at several temperatures in a row: double and mixed precision, the balanced delta, small tiles
# and chunks (many blocks, rows cut between chunks), 2 OpenMP threads, an assembled Jacobian, 2 and
# 3 ranks with the states and the pairs partition. Types without a refresh (fused, tgt) and
# -bte_collision_refresh 0 rebuild the operator, with the same results.
. "$TESTDIR/common.sh"
set -e
p="$BUILD/tests/coll_refresh"
opts="-synth_nk 6 -synth_nbands 3 -synth_nmodes 4 -temps 150,600,600,300,77"
chk() { # expected kind (refresh|rebuild), ranks, options...
  local want=$1 np=$2; shift 2
  run_np $np "$p" $opts -expect $want "$@" > out || { cat out; echo "FAILED: np $np $*"; exit 1; }
  grep -q "^ok" out || { cat out; echo "FAILED: np $np $*"; exit 1; }
  grep "temperature changes:" out | head -1 | sed "s/^/np $np $* : /"
}
chk refresh 1
chk refresh 1 -bte_collision_precision mixed
chk refresh 1 -bte_delta balanced
chk refresh 1 -bte_pair_tile 48 -bte_pair_chunk 60
OMP_NUM_THREADS=2 chk refresh 1 -bte_pair_tile 32 -bte_pair_chunk 40
chk refresh 1 -bte_jacobian_assembled
chk refresh 2 -bte_partition states
chk refresh 2 -bte_partition pairs
chk refresh 3 -bte_partition pairs -bte_pair_tile 32 -bte_pair_chunk 40 -bte_collision_precision mixed
# no refresh data: rebuilt, the same results
chk rebuild 1 -bte_collision_refresh 0
chk rebuild 2 -bte_collision_refresh 0 -bte_partition pairs
chk rebuild 1 -bte_collision_type fused
chk rebuild 2 -bte_collision_type tgt
chk rebuild 1 -bte_collision_type baseline -bte_jacobian_assembled
# the view tells what was kept and what happened
run_np 1 "$p" $opts > out
grep -q "temperature changes after setup: 4 refreshed the rates only, 0 rebuilt" out || { cat out; echo "FAILED: view"; exit 1; }
grep -q "kept for a refresh of the rates" out || { cat out; echo "FAILED: view of the kept bytes"; exit 1; }
# the refresh flag belongs before setup
expect_fail "before BTECollisionSetUp" "$p" -synth_nk 4 -refresh_after_setup
expect_fail "Temperature must be positive" "$p" -synth_nk 4 -temps 300,-5
echo ok
