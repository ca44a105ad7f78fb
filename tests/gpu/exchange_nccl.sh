#!/bin/bash
# -bte_exchange: the ghost exchange by NCCL between the ranks' GPUs. With two or more GPUs, on 2 to
# 4 ranks (one GPU each): auto chooses CUDA IPC (one host) and says so. With -bte_exchange nccl:
# I[f], J(f) x and diag J of the pair operator (pairs and states partition, small tiles and chunks)
# agree with the one-rank run to 1e-12 and with fused (which exchanges its ghosts the same way); a
# second apply and the unsplit MatMult agree to the bit, also with -bte_exchange_work_first,
# -bte_pair_side_stream 0 and the computed channels selected on the device (the default) or copied
# out on the host (-bte_pair_select_device 0); the exchange alone (coll_exchange) fills the local
# vector and the owners' receive slots exactly as PETSc's VecScatter does, also with 8 exchanges in
# flight and one rank lagging on the host; -bte_pair_timeline leaves the results as they are and
# every rank prints its steps' times in the order the streams run them. An NCCL library that does
# not load leaves auto's choice (IPC, which needs no library) as it is and makes -bte_exchange nccl
# fail in one line. With one GPU, ranks share it: auto falls back to the VecScatter and says why,
# and -bte_exchange nccl is refused in one line. Skips (77) without a CUDA build or a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
fail() { echo "FAILED (exit $1): $2"; exit 1; }
prog="$BUILD/tests/coll_partition"
opts="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5 -vec_type cuda -use_gpu_aware_mpi 0"
ngpu=$(nvidia-smi -L | grep -c '^GPU')
run_np 1 "$prog" $opts -write ref.bin > out1 || fail $? "one rank"
grep -q "ghost exchange: none (one rank)" out1 || { cat out1; fail 1 "one rank: exchange not 'none'"; }
# -bte_pair_timeline: each rank's line of mean times (ms after the start); the marks of one stream
# come in the order that stream runs them, and the sums wait for the chunks that feed them
timeline() { # file ranks marks...
  local f=$1 n=$2; shift 2
  [ "$(grep -c '^pair timeline, rank' "$f")" -eq "$n" ] || { grep timeline "$f"; return 1; }
  grep '^pair timeline, rank' "$f" | sed 's/.*): //' | awk -F', ' -v want="$*" '
    { delete t; for (i = 1; i <= NF; i++) { k = $i; sub(/ [-0-9.e+]+$/, "", k); v = $i; sub(/.* /, "", v); t[k] = v + 0 }
      nw = split(want, w, ","); for (i = 1; i <= nw; i++) if (!(w[i] in t) || t[w[i]] <= 0) { print "no positive \"" w[i] "\": " $0; bad = 1 }
      if (t["owned sums"] < t["owned chunks"]) { print "owned sums before owned chunks: " $0; bad = 1 }
      if ("ghost chunks" in t && !(t["ghost values in"] <= t["ghost chunks"] && t["ghost chunks"] <= t["ghosts\047 sums"] && t["ghosts\047 sums"] <= t["owned sums"] && t["owned sums"] <= t["end"])) { print "side stream out of order: " $0; bad = 1 } }
    END { exit bad }'
}
run_np 1 "$prog" $opts -compare ref.bin -bte_pair_timeline > out || { cat out; fail $? "one rank, timeline"; }
timeline out 1 "owned chunks,owned sums" || fail 1 "one rank: -bte_pair_timeline"
if [ "$ngpu" -lt 2 ]; then
  run_np 2 "$prog" $opts -compare ref.bin > out || fail $? "2 ranks sharing the GPU"
  grep -q "ghost exchange: VecScatter staged through host memory (MPI not GPU-aware) (NCCL not used: ranks share a GPU" out \
    || { grep "ghost exchange" out; fail 1 "2 ranks on one GPU: the fallback and its reason are not reported"; }
  expect_fail "bte_exchange nccl cannot run: ranks share a GPU" run_np 2 "$prog" $opts -bte_exchange nccl || exit 1
  # the computed channels selected on the device (the default): the same results
  run_np 2 "$prog" $opts -compare ref.bin -info > out || { cat out; fail $? "2 ranks, channels selected on the device"; }
  grep -q "selected on the device" out || { grep "pair device build" out; fail 1 "2 ranks: the channels were not selected on the device"; }
  echo "ok (one GPU: the NCCL runs need two or more)"
  exit 0
fi
max=$(( ngpu < 4 ? ngpu : 4 ))
nccl="-bte_exchange nccl"
for np in $(seq 2 $max); do
  run_np $np "$prog" $opts -compare ref.bin > out || { cat out; fail $? "$np ranks, auto"; }
  grep -q "ghost exchange: CUDA IPC between the ranks' GPUs" out || { grep "ghost exchange" out; fail 1 "$np ranks on their own GPUs: auto did not choose CUDA IPC"; }
  for p in pairs states; do
    run_np $np "$prog" $opts $nccl -compare ref.bin -bte_partition $p > out || { cat out; fail $? "$np ranks, $p, NCCL"; }
    grep -q "ghost exchange: NCCL" out || { grep "ghost exchange" out; fail 1 "$np ranks: -bte_exchange nccl not reported"; }
    echo "np $np $p: NCCL, agrees with one rank"
  done
  # the exchange alone: forward and reverse to the bit against PETSc's VecScatter, and timed
  run_np $np "$BUILD/tests/coll_exchange" $opts $nccl -reps 20 -stall_ms 20 > out || { cat out; fail $? "$np ranks, coll_exchange over NCCL"; }
  grep -q "ghost exchange: NCCL" out || { cat out; fail 1 "$np ranks: coll_exchange did not use NCCL"; }
  grep "^exchange times" out
  run_np $np "$prog" $opts -compare ref.bin -bte_exchange nccl -bte_pair_tile 32 -bte_pair_chunk 40 > out || { cat out; fail $? "$np ranks, small tiles, NCCL"; }
  # the hiding work launched before NCCL's calls (-bte_exchange_work_first): the same results
  run_np $np "$prog" $opts -compare ref.bin $nccl -bte_exchange_work_first > out || { cat out; fail $? "$np ranks, NCCL, work first"; }
  run_np $np "$prog" $opts -compare ref.bin $nccl -bte_exchange_work_first -bte_pair_tile 32 -bte_pair_chunk 40 > out || { cat out; fail $? "$np ranks, NCCL, work first, small tiles"; }
  # the computed channels selected on the device (the default) or copied out on the host: the same results
  run_np $np "$prog" $opts $nccl -compare ref.bin -info > out || { cat out; fail $? "$np ranks, channels selected on the device"; }
  grep -q "selected on the device" out || { grep "pair device build" out; fail 1 "$np ranks: the channels were not selected on the device"; }
  run_np $np "$prog" $opts $nccl -compare ref.bin -bte_pair_select_device 0 -info > out || { cat out; fail $? "$np ranks, channels copied out on the host"; }
  grep -q "held channels copied out" out || { grep "pair device build" out; fail 1 "$np ranks: -bte_pair_select_device 0 did not copy the channels out on the host"; }
  run_np $np "$prog" $opts $nccl -compare ref.bin -bte_pair_timeline > out || { cat out; fail $? "$np ranks, NCCL, timeline"; }
  timeline out $np "owned chunks,ghost values in,ghost chunks,ghosts' sums,owned sums,end" || fail 1 "$np ranks: -bte_pair_timeline"
  # one rate per pair (balanced delta): against fused on the same ranks
  run_np $np "$prog" $opts $nccl -bte_delta balanced -bte_pair_one_rate > out || { cat out; fail $? "$np ranks, NCCL, one rate per pair"; }
  # the three launches on PETSc's stream instead of the side stream (-bte_pair_side_stream 0): the same results
  run_np $np "$prog" $opts $nccl -compare ref.bin -bte_pair_side_stream 0 > out || { cat out; fail $? "$np ranks, NCCL, no side stream"; }
  run_np $np "$prog" $opts $nccl -compare ref.bin -bte_pair_side_stream 0 -bte_exchange_work_first -bte_pair_tile 32 -bte_pair_chunk 40 > out || { cat out; fail $? "$np ranks, NCCL, no side stream, work first, small tiles"; }
  run_np $np "$prog" $opts -compare ref.bin -bte_exchange scatter > out || { cat out; fail $? "$np ranks, VecScatter"; }
  grep -q "ghost exchange: VecScatter staged.*NCCL not used: -bte_exchange scatter" out || { grep "ghost exchange" out; fail 1 "$np ranks: -bte_exchange scatter not reported"; }
done
run_np 2 "$prog" $opts -compare ref.bin -bte_exchange_nccl_library libbte-no-such-nccl.so > out || { cat out; fail $? "auto, no NCCL library"; }
grep -q "ghost exchange: CUDA IPC" out || { grep "ghost exchange" out; fail 1 "auto without an NCCL library: not CUDA IPC"; }
expect_fail "bte_exchange nccl cannot run: the NCCL library libbte-no-such-nccl.so did not load" \
  run_np 2 "$prog" $opts -bte_exchange nccl -bte_exchange_nccl_library libbte-no-such-nccl.so || exit 1
echo ok
