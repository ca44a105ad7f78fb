#!/bin/bash
# On a GPU machine, after `source scripts/device-run.sh` (or as `scripts/device-run.sh scripts/gpu-check.sh`):
# machine info, PETSc CUDA Vec smoke test on 1 and 2 ranks, tests/run.sh gpu, compute-sanitizer
# memcheck and racecheck of the CPU-vs-GPU collision test, and a timing of the applies (synthetic BTE,
# 8.7 M channels). Prints a section per step; exits nonzero if a check fails. Takes about 30 s on an H100.
# Options via env: GPU_CHECK_NK (timing size, default 12), GPU_CHECK_REPS (default 50).
set -u
[ -n "${BTE:-}" ] && [ -n "${BUILD:-}" ] || { echo "gpu-check.sh: run it through scripts/device-run.sh" >&2; exit 2; }
rc=0
sec() { echo; echo "=== $* ($(date +%T))"; }
step() { "$@" || { echo "FAILED (exit $?): $*"; rc=1; }; }
sec machine
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || { echo "no GPU"; exit 1; }
mpiexec --version 2>/dev/null | head -n 1
sec gpu_vec
step $BUILD/tests/gpu_vec -vec_type cuda -n 1000000
step $MPIEXEC -n 2 $BUILD/tests/gpu_vec -vec_type cuda -n 1000000
sec tests/run.sh gpu
step tests/run.sh gpu
if command -v compute-sanitizer >/dev/null; then
  sec memcheck
  step compute-sanitizer --tool memcheck --leak-check no --error-exitcode 9 $BUILD/tests/gpu_collision -synth_nk 5
  sec racecheck
  step compute-sanitizer --tool racecheck --error-exitcode 9 $BUILD/tests/gpu_collision -synth_nk 4
fi
sec timing
OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)} step $BUILD/tests/gpu_collision -synth_nk ${GPU_CHECK_NK:-12} -synth_nbands 2 -synth_nmodes 6 -synth_keep 1 -reps ${GPU_CHECK_REPS:-50}
sec "done: $([ $rc -eq 0 ] && echo all passed || echo FAILURES)"
exit $rc
