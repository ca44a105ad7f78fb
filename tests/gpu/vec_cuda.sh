#!/bin/bash
# A PETSc CUDA vector works on this machine (1 and 2 ranks). Skips (exit 77) without a CUDA build or a GPU.
source "$TESTDIR/common.sh"
if [ "${BTE_HAVE_CUDA:-}" != 1 ]; then
  echo "skip: bte was built without CUDA (build against a CUDA PETSc: scripts/petsc-cuda.sh, docs/gpu.md)"; exit 77
fi
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skip: no NVIDIA GPU visible on this machine (nvidia-smi -L failed)"; exit 77
fi
# any nonzero exit is a failure (a PetscCheck exits with PETSC_ERR_PLIB = 77, the runner's "skip")
fail() { echo "FAILED: $*"; exit 1; }
out=$(run_np 1 "$BUILD/tests/gpu_vec" -vec_type cuda -use_gpu_aware_mpi 0 -n 100000) || fail "1 rank: exit $?"; echo "$out"
grep -q '^type seqcuda ranks 1' <<<"$out" || fail "1 rank: not a seqcuda Vec"
out=$(run_np 2 "$BUILD/tests/gpu_vec" -vec_type cuda -use_gpu_aware_mpi 0 -n 100000) || fail "2 ranks: exit $?"; echo "$out"
grep -q '^type mpicuda ranks 2' <<<"$out" || fail "2 ranks: not an mpicuda Vec"
