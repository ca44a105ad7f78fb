# -bte_partition: the pair operator on 1, 2 and 3 ranks, with the states and the pairs partition,
# gives the 1-rank I[f], J(f) x and diag J (1e-12; fused on the same ranks too), and with pairs
# stores exactly the pairs of one rank over all ranks, each channel computed by one rank, the
# computed channels and the stored pairs balanced within 5%, some chunks need no ghost value (they
# run while the ghost values travel), every ghost sum sent back lands in a receive slot of its
# own, and the unsplit MatMult path gives the overlapped apply's J x to the bit (also with no MPI
# progress calls in the overlap and with more calls than chunks); host Vecs use the VecScatter
# whatever -bte_exchange says, and nccl and ipc are refused for them. The channels between two ranks are
# handed out per tile pair where that balances (fuller chunks), else per pair of states; with
# -bte_pair_exchange_peers the ghost values come peer by peer and the result is the same to the bit;
# with -bte_pair_share_node the ranks run each other's chunks and the result is the same to the bit.
. "$TESTDIR/common.sh"
set -e
opts="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5"
run_np 1 "$BUILD/tests/coll_partition" $opts -write ref.bin > out1
one=$(sed -n 's/^pairs stored: \([0-9]*\) .*/\1/p' out1)
[ -n "$one" ] || { cat out1; echo "no pair count"; exit 1; }
for np in 2 3; do
  for p in states pairs; do
    run_np $np "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition $p -max_imbalance 1.05 > out
    grep -q "^partition: $p" out || { cat out; echo "partition $p not in use"; exit 1; }
    got=$(sed -n 's/^pairs stored: \([0-9]*\) .*/\1/p' out)
    if [ $p = pairs ]; then
      [ "$got" = "$one" ] || { cat out; echo "pairs on $np ranks: $got pairs stored, one rank $one"; exit 1; }
      inner=$(sed -n 's/.*pairs partition: owned states in the first tiles; \([0-9]*\) of.*/\1/p' out)
      [ -n "$inner" ] && [ "$inner" -gt 0 ] || { cat out; echo "pairs on $np ranks: no chunk runs during the exchange"; exit 1; }
      # the pairs (what a rank streams) are balanced, and every ghost sum sent has one receive slot
      awk -v np=$np '/pairs \(entries\):/ { gsub(/[()]/, "", $NF); e = $NF }
                     /ghost sums sent:/ { s = $(NF - 3) } /ghost sums received:/ { r = $(NF - 3) }
                     END { if (e == "" || e > 1.05) { print "pairs on " np " ranks: largest rank streams " e " x the mean pairs"; exit 1 }
                           if (s == "" || s != r || s <= 0) { print "pairs on " np " ranks: ghost sums sent " s ", slots received " r; exit 1 } }' out \
        || { cat out; exit 1; }
    else
      [ "$got" -gt "$one" ] || { cat out; echo "states on $np ranks: $got pairs stored, expected more than $one (split pairs stored twice)"; exit 1; }
    fi
    echo "np $np $p: $got pairs (one rank: $one)"
  done
done
# auto is pairs on several ranks; small tiles and chunks (many blocks, rows cut between chunks)
run_np 3 "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_pair_tile 32 -bte_pair_chunk 40 > out
grep -q "^partition: pairs" out || { cat out; echo "auto did not choose pairs on 3 ranks"; exit 1; }
# tile blocks (the default): with tiles of 32 states there are enough tile pairs to hand out whole,
# the results and the balance hold and a rank's chunks are fuller (fewer) than with pairs of states
# handed out one by one; with tiles of 256 there are too few, and it falls back (and says so)
chunks() { sed -n 's/^ *chunks: [0-9]* \/ \([0-9.]*\) \/.*/\1/p' "$1"; }
for np in 2 3; do
  run_np $np "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition pairs -bte_pair_tile 32 -max_imbalance 1.05 > outt
  grep -q "computed by one of them per tile pair" outt || { cat outt; echo "tile blocks not in use on $np ranks"; exit 1; }
  run_np $np "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition pairs -bte_pair_tile 32 -bte_pair_partition_tiles 0 -max_imbalance 1.05 > outp
  grep -q "computed by one of them per pair of states$" outp || { cat outp; echo "-bte_pair_partition_tiles 0 not in use on $np ranks"; exit 1; }
  ct=$(chunks outt); cp=$(chunks outp)
  awk -v t="$ct" -v p="$cp" 'BEGIN { exit !(t != "" && p != "" && t + 0 < p + 0) }' || { cat outt outp; echo "tile blocks on $np ranks: mean chunks $ct, per pair $cp"; exit 1; }
  echo "np $np tiles of 32: mean chunks per rank $ct per tile pair, $cp per pair of states"
done
# -bte_pair_exchange_peers: the ghost values by one message per peer, the chunks run as they land:
# the same results to the bit as the VecScatter (2-4 ranks, also 2 threads and small chunks)
for np in 2 3 4; do
  run_np $np "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 -write scat.bin > out
  run_np $np "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 -bte_pair_exchange_peers -compare scat.bin -compare_tol 0 > out
  grep -q "ghost values in one message per peer" out || { cat out; echo "-bte_pair_exchange_peers not in use on $np ranks"; exit 1; }
done
OMP_NUM_THREADS=2 run_np 2 "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 -bte_pair_chunk 40 -bte_pair_exchange_peers -compare ref.bin > out
# -bte_pair_share_node (the default): the ranks of a node run each other's chunks. Rank 0 stalls
# after opening its chunks, so the others take some over (-info counts them); the results are those
# of -bte_pair_share_node 0 to the bit (2 and 3 ranks, double and mixed precision, one rate per
# pair; 2 threads per rank with small chunks; only the ghosts' chunks shared)
for np in 2 3; do
  for prec in double mixed onerate; do
    case $prec in onerate) v="-bte_delta balanced -bte_pair_one_rate";; *) v="-bte_collision_precision $prec -fused_tol 1e-6";; esac
    run_np $np "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 $v -bte_pair_share_node 0 -write scat.bin -info :coll > scat.out
    run_np $np "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 $v -bte_pair_share_node -bte_pair_share_stall 20 -compare scat.bin -compare_tol 0 -info :coll > out
    grep -q "run each other's chunks as they fall idle (-bte_pair_share_node): all of them" out || { cat out; echo "-bte_pair_share_node not in use on $np ranks"; exit 1; }
    ! grep -q "share_node:" scat.out || { cat scat.out; echo "-bte_pair_share_node 0 still shares on $np ranks"; exit 1; }
    taken=$(sed -n 's/.*share_node: \([0-9]*\) of this rank.s chunks were run by.*/\1/p' out)
    [ -n "$taken" ] && [ "$taken" -gt 0 ] || { cat out; echo "-bte_pair_share_node on $np ranks ($prec): no chunk of the stalled rank run by another"; exit 1; }
    echo "np $np $prec: $taken of rank 0's chunks run by the other ranks, the same to the bit"
  done
done
OMP_NUM_THREADS=2 run_np 2 "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 -bte_pair_chunk 40 -bte_pair_share_node -compare ref.bin > out
run_np 3 "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 -bte_pair_share_node 0 -write scat.bin > out
run_np 3 "$BUILD/tests/coll_partition" $opts -bte_partition pairs -bte_pair_tile 32 -bte_pair_share_owned 0 -bte_pair_share_stall 20 -compare scat.bin -compare_tol 0 > out
grep -q "the chunks that need ghost values (-bte_pair_share_owned 0)" out || { cat out; echo "-bte_pair_share_owned 0 not reported"; exit 1; }
expect_fail "bte_pair_share_stall must be in" run_np 1 "$BUILD/tests/coll_partition" $opts -bte_pair_share_stall -1
run_np 2 "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition pairs > out
grep -q "per pair of states (too few tile pairs to balance per tile pair)" out || { cat out; echo "no fallback from tile blocks at tiles of 256"; exit 1; }
# no MPI progress calls in the overlap, and more calls than chunks: the same sums
run_np 3 "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition pairs -bte_pair_overlap_polls 0 > out
run_np 3 "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition pairs -bte_pair_overlap_polls 1000 -bte_pair_tile 32 -bte_pair_chunk 40 > out
expect_fail "bte_pair_overlap_polls must be >= 0" run_np 1 "$BUILD/tests/coll_partition" $opts -bte_pair_overlap_polls -1
# 2 OpenMP threads per rank
OMP_NUM_THREADS=2 run_np 2 "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_partition pairs > out
# pairs is refused by the other types, in one line
expect_fail "implemented by the pair collision type only" run_np 2 "$BUILD/tests/coll_check" $opts -bte_partition pairs
expect_fail "Set the partition before BTECollisionSetUp" run_np 2 "$BUILD/tests/coll_partition" $opts -set_after_setup
expect_fail "bte_partition" run_np 1 "$BUILD/tests/coll_partition" $opts -bte_partition nonsense
# -bte_exchange: host Vecs always go through the VecScatter; nccl and ipc (GPUs only) are refused for them in one line
run_np 2 "$BUILD/tests/coll_partition" $opts -compare ref.bin -bte_exchange scatter > out
grep -q "^ *ghost exchange: VecScatter on host arrays" out || { cat out; echo "host exchange not reported"; exit 1; }
expect_fail "bte_exchange nccl moves CUDA Vecs between GPUs" run_np 2 "$BUILD/tests/coll_partition" $opts -bte_exchange nccl
expect_fail "bte_exchange ipc moves CUDA Vecs between GPUs" run_np 2 "$BUILD/tests/coll_partition" $opts -bte_exchange ipc
expect_fail "bte_exchange" run_np 1 "$BUILD/tests/coll_partition" $opts -bte_exchange nonsense
echo ok
