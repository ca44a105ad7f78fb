#!/bin/bash
# CPU vs CUDA collision operator (tgt, fused, pair; fused and pair also mixed; pair and tgt built on
# the host and on the device; tgt with its build switches and pass-2 mappings; pair with one rate per pair, -bte_pair_one_rate): I[f], J(f)x and diag J agree to 1e-12; the
# reduction with 4 or 8 loads in flight per thread (-bte_pair_reduce_batch) or 4, 8, 32 threads per
# state (-bte_pair_reduce_lanes) gives the same to the bit
# (max-norm relative), also with the balanced delta, the CUDA kernels run, and on one rank no host<->device copy happens in an
# apply; the pairs partition on 2 and 3 ranks sharing the GPU is bitwise reproducible. Skips (exit 77) without a CUDA build of bte or without a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
# A failing PetscCheck exits with PETSc's error code (PETSC_ERR_PLIB is 77, the runner's "skip"):
# any nonzero exit of a program here is a failure.
fail() { echo "FAILED (exit $1): $2"; exit 1; }
prog="$BUILD/tests/gpu_collision"
gpuopts="-use_gpu_aware_mpi 0"
# one rank: the synthetic BTE, 3 bands, 4 modes; then 2 ranks (ghosts through the device scatter)
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 $gpuopts || fail $? "1 rank"
run_np 2 "$prog" -synth_nk 6 -synth_nbands 2 -synth_nmodes 3 $gpuopts || fail $? "2 ranks"
# pair with small tiles and chunks: many blocks, rows cut between chunks, padded last tile
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_pair_tile 48 -bte_pair_chunk 60 $gpuopts || fail $? "1 rank, small pair tiles"
# the pair layout built on the device (CUB sort and merge) instead of the host: the same checks,
# including agreement with the host tgt (1e-11) and host applies from the downloaded layout
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_pair_build device $gpuopts || fail $? "1 rank, pair built on the device"
run_np 2 "$prog" -synth_nk 6 -synth_nbands 2 -synth_nmodes 3 -bte_pair_build device $gpuopts || fail $? "2 ranks, pair built on the device"
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_pair_tile 48 -bte_pair_chunk 60 -bte_pair_build device $gpuopts || fail $? "1 rank, small pair tiles, built on the device"
# tgt: the layout built on the device (CUB sorts; host applies from the downloaded layout, checked
# against fused and pair too), STORE_G2DT, unsorted targets, a thread per target, 2 and 8 warps per
# target, hw kept per channel, 2 ranks
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_tgt_build device -bte_tgt_store_g2dt $gpuopts || fail $? "1 rank, tgt built on the device, STORE_G2DT"
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_tgt_sort_targets 0 -bte_tgt_lanes 1 $gpuopts || fail $? "1 rank, tgt unsorted, a thread per target"
run_np 1 "$prog" -synth_nk 7 -synth_nbands 2 -synth_nmodes 4 -synth_hw_per_channel -bte_tgt_build device -bte_tgt_lanes 256 $gpuopts || fail $? "1 rank, tgt hw per channel, built on the device, 8 warps per target"
run_np 1 "$prog" -synth_nk 7 -synth_nbands 2 -synth_nmodes 4 -synth_hw_per_channel -bte_tgt_store_g2dt -bte_tgt_lanes 64 $gpuopts || fail $? "1 rank, tgt hw per channel, STORE_G2DT, 2 warps per target"
run_np 2 "$prog" -synth_nk 6 -synth_nbands 2 -synth_nmodes 3 -bte_tgt_build device -bte_tgt_lanes 128 -bte_tgt_store_g2dt $gpuopts || fail $? "2 ranks, tgt built on the device"
# the balanced delta (-bte_delta balanced): the device's effective weights (bte_balance) in the pair
# device build, tgt's pass 1 and tgt's STORE_G2DT device build against the host's BTECollBalance
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_delta balanced -bte_pair_build device -bte_tgt_build device $gpuopts || fail $? "1 rank, balanced delta, built on the device"
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_delta balanced -bte_tgt_build device -bte_tgt_store_g2dt $gpuopts || fail $? "1 rank, balanced delta, tgt STORE_G2DT built on the device"
run_np 2 "$prog" -synth_nk 6 -synth_nbands 2 -synth_nmodes 3 -synth_hw_per_channel -bte_delta balanced $gpuopts || fail $? "2 ranks, balanced delta, hw per channel"
run_np 1 "$prog" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -bte_delta balanced -bte_pair_one_rate $gpuopts || fail $? "1 rank, balanced delta, one rate per pair"
run_np 2 "$prog" -synth_nk 6 -synth_nbands 2 -synth_nmodes 3 -bte_delta balanced -bte_pair_one_rate -bte_pair_tile 48 -bte_pair_chunk 60 $gpuopts || fail $? "2 ranks, one rate per pair, small tiles"
# -bte_pair_reduce_batch and -bte_pair_reduce_lanes: the reduction's loads in flight change nothing,
# to the bit (1 and 2 ranks; small chunks give states many partial sums, so the lane groups run
# several rounds)
cprog="$BUILD/tests/coll_partition"
copts="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5 -vec_type cuda $gpuopts"
for np in 1 2; do
  for ch in 0 60; do
    run_np $np "$cprog" $copts -bte_pair_chunk $ch -write rb1.bin > rb.out || { cat rb.out; fail $? "$np rank(s), chunk $ch, reduce batch 1"; }
    for v in "batch 4" "batch 8" "lanes 4" "lanes 8" "lanes 32" "lanes 8 -bte_pair_reduce_batch 8"; do
      run_np $np "$cprog" $copts -bte_pair_chunk $ch -bte_pair_reduce_$v -compare rb1.bin -compare_tol 0 > rb.out || { cat rb.out; fail $? "$np rank(s), chunk $ch, -bte_pair_reduce_$v against batch 1"; }
    done
  done
done
expect_fail "bte_pair_reduce_batch must be 1, 4 or 8" run_np 1 "$cprog" $copts -bte_pair_reduce_batch 3 || fail 1 "-bte_pair_reduce_batch 3 not refused"
expect_fail "bte_pair_reduce_lanes must be 1, 4, 8 or 32" run_np 1 "$cprog" $copts -bte_pair_reduce_lanes 16 || fail 1 "-bte_pair_reduce_lanes 16 not refused"
# the pairs partition with 2 and 3 ranks sharing the GPU: against fused (1e-12), and to the bit a
# second apply and MatMult against J x (the ghosts' sums are added by their owners in rank order,
# not by the atomics of a device reduction, whose order changes from one apply to the next)
for np in 2 3; do
  run_np $np "$BUILD/tests/coll_partition" -synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5 -bte_partition pairs -vec_type cuda $gpuopts \
    || fail $? "$np ranks sharing the GPU, pairs partition"
done
# the pairs partition's host copy-out (-bte_pair_select_device 0) in pieces of 7 channels, and in
# one piece, against the selection on the device: the same keys in the same order, so the same
# I[f], J x and diag J to the bit
for np in 2 3; do
  po="-synth_nk 6 -synth_nbands 3 -synth_keep 0.3 -synth_seed 5 -bte_partition pairs -bte_pair_build device -vec_type cuda $gpuopts"
  run_np $np "$BUILD/tests/coll_partition" $po -write sel.bin > cp.out || { cat cp.out; fail $? "$np ranks, pairs, selected on the device"; }
  for pc in "-bte_pair_copy_piece 7" ""; do
    run_np $np "$BUILD/tests/coll_partition" $po -bte_pair_select_device 0 $pc -compare sel.bin -compare_tol 0 -info :coll > cp.out 2>&1 || { cat cp.out; fail $? "$np ranks, pairs, copied out on the host ($pc)"; }
    grep -q "copied out in pieces of at most ${pc#-bte_pair_copy_piece }" cp.out || [ -z "$pc" ] || { grep -i "copied out" cp.out; fail 1 "$np ranks: no copy-out in pieces of 7"; }
  done
done
# host and device builds make the same tgt layout (pairs, q rows, sources, order of the targets)
for b in host device; do
  "$BTE" bench -bte_model gaas -bte_grid 32 -vec_type cuda -bte_bench_types tgt -bte_bench_reps 1 -bte_tgt_build $b -info $gpuopts \
    | grep -o "tgt layout (built on the $b): .*" | sed "s/built on the $b/built/" > tlayout-$b.txt || fail $? "bench with -bte_tgt_build $b"
done
cat tlayout-host.txt tlayout-device.txt
[ -s tlayout-host.txt ] && cmp -s tlayout-host.txt tlayout-device.txt || fail 1 "host and device tgt builds differ in structure"
# host and device builds make the same layout structure (pairs, tiles, chunks, partial sums)
for b in host device; do
  "$BTE" bench -bte_model gaas -bte_grid 32 -vec_type cuda -bte_bench_types pair -bte_bench_reps 1 -bte_pair_tile 64 -bte_pair_chunk 300 -bte_pair_build $b -info $gpuopts \
    | grep -o "pair layout (built on the $b): .*" | sed "s/built on the $b/built/" > layout-$b.txt || fail $? "bench with -bte_pair_build $b"
done
cat layout-host.txt layout-device.txt
[ -s layout-host.txt ] && cmp -s layout-host.txt layout-device.txt || fail 1 "host and device pair builds differ in structure"
