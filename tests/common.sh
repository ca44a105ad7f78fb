# Helpers sourced by test scripts: run the driver, assert exits and output.
run_np() { local np=$1; shift; $MPIEXEC -n "$np" "$@"; }
# expect_fail PATTERN cmd...: the command must exit nonzero and print PATTERN.
expect_fail() {
  local pat=$1; shift
  local out rc
  out=$("$@" 2>&1) && rc=0 || rc=$?
  if [ $rc -eq 0 ]; then echo "expected failure, got exit 0: $*"; echo "$out"; return 1; fi
  if ! grep -q -- "$pat" <<<"$out"; then echo "exit $rc but no '$pat' in output of: $*"; echo "$out"; return 1; fi
  case "$out" in *"Caught signal"*|*"Segmentation"*|*"SEGV"*) echo "crashed: $*"; echo "$out"; return 1;; esac
  # make check-sanitize: a sanitizer report (exit 86) is never the expected failure
  case "$out" in *"ERROR: AddressSanitizer"*|*"runtime error:"*|*"ERROR: UndefinedBehaviorSanitizer"*) echo "sanitizer report: $*"; echo "$out"; return 1;; esac
  echo "ok (exit $rc): $pat"
}
# require_cuda_gpu: a GPU test skips (exit 77) without a CUDA build of bte or without a visible GPU.
require_cuda_gpu() {
  if [ "${BTE_HAVE_CUDA:-}" != 1 ]; then
    echo "skip: bte was built without CUDA (build against a CUDA PETSc: scripts/petsc-cuda.sh, docs/gpu.md)"; exit 77
  fi
  if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "skip: no NVIDIA GPU visible on this machine (nvidia-smi -L failed)"; exit 77
  fi
}
