# 1, 2 and 4 MPI ranks give the same I[f] and J(f) x (f, x seeded by global state index).
. "$TESTDIR/common.sh"
set -e
opts="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5"
run_np 1 "$BUILD/tests/coll_check" $opts -write ref.bin
run_np 2 "$BUILD/tests/coll_check" $opts -compare ref.bin
run_np 4 "$BUILD/tests/coll_check" $opts -compare ref.bin
run_np 3 "$BUILD/tests/coll_check" $opts -compare ref.bin -bte_pair_tile 64 -bte_pair_chunk 100
