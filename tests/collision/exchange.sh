# The ghost exchange alone (coll_exchange): on 2 and 3 ranks the forward exchange fills the local
# vector exactly as PETSc's VecScatter does, and the reverse exchange gives each owner the sum of the
# other ranks' contributions in rank order, to the bit, also with 8 forward exchanges in a row, the
# values changed between them and the last rank lagging 5 ms on the host before each (-stall_ms);
# with -reps the timing line is printed.
# (tests/gpu/exchange_nccl.sh runs the same program over NCCL between GPUs.)
. "$TESTDIR/common.sh"
set -e
opts="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5"
run_np 1 "$BUILD/tests/coll_exchange" $opts > out
grep -q "ghost exchange: none (one rank)" out || { cat out; exit 1; }
for np in 2 3; do
  run_np $np "$BUILD/tests/coll_exchange" $opts -reps 3 -stall_ms 5 > out
  grep -q "8 forward exchanges in flight, one rank lagging: max |difference| *0.000e+00" out || { cat out; echo "np $np: the rounds with a lagging rank not checked"; exit 1; }
  grep -q "ghost exchange: VecScatter on host arrays" out || { cat out; echo "np $np: exchange not reported"; exit 1; }
  grep -q "^exchange times (median of 3, largest rank): forward [0-9.]* ms, reverse [0-9.]* ms" out || { cat out; echo "np $np: no timing line"; exit 1; }
  echo "np $np: $(grep -c "(tol 0e+00)" out) checks passed"
done
echo ok
