#!/bin/bash
# CPU vs GPU RK4 trajectories (tgt, fused and pair, 50 steps of 1 fs on the gaas model from a hot
# Fermi-Dirac state): final occupations agree to 1e-12. Skips without a CUDA build or a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
run_np 1 "$BUILD/tests/gpu_rk4" -bte_model gaas -bte_grid 30 -use_gpu_aware_mpi 0 || { echo "FAILED (exit $?): 1 rank"; exit 1; }
run_np 2 "$BUILD/tests/gpu_rk4" -bte_model gaas -bte_grid 24 -use_gpu_aware_mpi 0 || { echo "FAILED (exit $?): 2 ranks"; exit 1; }
# pair built on the device for both runs (the CPU run applies the downloaded layout)
run_np 1 "$BUILD/tests/gpu_rk4" -bte_model gaas -bte_grid 30 -bte_pair_build device -use_gpu_aware_mpi 0 || { echo "FAILED (exit $?): 1 rank, pair built on the device"; exit 1; }
