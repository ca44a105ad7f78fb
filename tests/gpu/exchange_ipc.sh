#!/bin/bash
# -bte_exchange ipc: the ghost exchange by CUDA IPC between the GPUs of one host (exchange_ipc.cu).
# On 2 and 3 ranks (one GPU each where there are enough, else sharing them; IPC, unlike NCCL, runs
# with ranks on one GPU): the view names it; I[f], J(f) x and diag J of the pair operator (pairs and
# states partition, default and small tiles and chunks) agree with the one-rank run to 1e-12; a
# second apply and the unsplit MatMult agree to the bit (coll_partition's own checks), also with
# -bte_exchange_work_first and -bte_pair_side_stream 0; the exchange alone (coll_exchange, 50
# exchanges back to back each way, so the acknowledgements are exercised) fills the local vector
# and the owners' receive slots to the bit as PETSc's VecScatter does, also with 8 exchanges in flight
# and the last rank sleeping 20 ms on the host before each; -bte_pair_timeline keeps its
# order; with host Vecs -bte_exchange ipc is refused in one line. Skips (77) without a CUDA build or
# a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
fail() { echo "FAILED (exit $1): $2"; exit 1; }
prog="$BUILD/tests/coll_partition"
opts="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5 -vec_type cuda -use_gpu_aware_mpi 0"
run_np 1 "$prog" $opts -write ref.bin > out1 || { cat out1; fail $? "one rank"; }
for np in 2 3; do
  for p in pairs states; do
    run_np $np "$prog" $opts -compare ref.bin -bte_partition $p -bte_exchange ipc > out || { cat out; fail $? "$np ranks, $p, IPC"; }
    grep -q "ghost exchange: CUDA IPC between the ranks' GPUs" out || { grep "ghost exchange" out; fail 1 "$np ranks: -bte_exchange ipc not reported"; }
    echo "np $np $p: CUDA IPC, agrees with one rank"
  done
  run_np $np "$prog" $opts -compare ref.bin -bte_exchange ipc -bte_pair_tile 32 -bte_pair_chunk 40 > out || { cat out; fail $? "$np ranks, small tiles, IPC"; }
  run_np $np "$prog" $opts -compare ref.bin -bte_exchange ipc -bte_exchange_work_first -bte_pair_tile 32 -bte_pair_chunk 40 > out || { cat out; fail $? "$np ranks, IPC, work first, small tiles"; }
  run_np $np "$prog" $opts -compare ref.bin -bte_exchange ipc -bte_pair_side_stream 0 > out || { cat out; fail $? "$np ranks, IPC, no side stream"; }
  run_np $np "$BUILD/tests/coll_exchange" $opts -bte_exchange ipc -reps 50 -stall_ms 20 > out || { cat out; fail $? "$np ranks, coll_exchange over IPC"; }
  grep -q "ghost exchange: CUDA IPC" out || { cat out; fail 1 "$np ranks: coll_exchange did not use IPC"; }
  grep "^exchange times" out
  run_np $np "$prog" $opts -compare ref.bin -bte_exchange ipc -bte_pair_timeline > out || { cat out; fail $? "$np ranks, IPC, timeline"; }
  [ "$(grep -c '^pair timeline, rank' out)" -eq "$np" ] || { grep timeline out; fail 1 "$np ranks: no timeline per rank"; }
done
expect_fail "bte_exchange ipc moves CUDA Vecs between GPUs; these state Vecs are host Vecs" \
  run_np 2 "$prog" -synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5 -vec_type mpi -bte_exchange ipc || exit 1
echo ok
