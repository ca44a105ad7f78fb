#!/bin/bash
# A PETSc CUDA vector works on this machine (1 and 2 ranks). Skips (exit 77) without a CUDA build or a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
# any nonzero exit is a failure (a PetscCheck exits with PETSC_ERR_PLIB = 77, the runner's "skip")
fail() { echo "FAILED: $*"; exit 1; }
out=$(run_np 1 "$BUILD/tests/gpu_vec" -vec_type cuda -use_gpu_aware_mpi 0 -n 100000) || fail "1 rank: exit $?"; echo "$out"
grep -q '^type seqcuda ranks 1' <<<"$out" || fail "1 rank: not a seqcuda Vec"
out=$(run_np 2 "$BUILD/tests/gpu_vec" -vec_type cuda -use_gpu_aware_mpi 0 -n 100000) || fail "2 ranks: exit $?"; echo "$out"
grep -q '^type mpicuda ranks 2' <<<"$out" || fail "2 ranks: not an mpicuda Vec"
