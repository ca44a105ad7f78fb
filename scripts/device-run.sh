#!/bin/bash
# On the GPU machine: unpacks .device/bte-cuda.tar.xz (made by scripts/device-bundle.sh) into
# $BTE_DEVICE_ROOT (default ${TMPDIR:-/tmp}/bte-device, outside the tree that travels), points
# LD_LIBRARY_PATH at it and runs a command with bte's test environment:
#   scripts/device-run.sh COMMAND [ARGS...]     e.g. scripts/device-run.sh '$BTE' -help
#   source scripts/device-run.sh                (sets the environment in the current shell)
# Exports BTE, BUILD, BTE_HAVE_CUDA=1, MPIEXEC (as root: --allow-run-as-root --oversubscribe) and
# PETSC_OPTIONS += -use_gpu_aware_mpi 0 (Ubuntu's OpenMPI is not CUDA-aware; PETSc aborts without it),
# and puts a libnccl.so.2 found on the machine (e.g. a Python wheel's) on LD_LIBRARY_PATH.
_bte_dev_main() {
  local top; top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  local dev=${BTE_DEVICE_DIR:-$top/.device} root
  root=${BTE_DEVICE_ROOT:-${TMPDIR:-/tmp}/bte-device}
  if [ ! -f "$root/BUNDLE-INFO" ] || [ "$dev/bte-cuda.tar.xz" -nt "$root/BUNDLE-INFO" ]; then
    [ -f "$dev/bte-cuda.tar.xz" ] || { echo "device-run.sh: no $dev/bte-cuda.tar.xz (scripts/device-bundle.sh, then carry .device)" >&2; return 1; }
    rm -rf "$root"; mkdir -p "$root"
    xz -dc "$dev/bte-cuda.tar.xz" | tar -C "$root" -xf - || return 1
    touch "$root/BUNDLE-INFO"
  fi
  # Fallback libraries only where this machine lacks the soname.
  mkdir -p "$root/lib-used"
  local f s have
  have=$(ldconfig -p 2>/dev/null | awk '{print $1}')
  for f in "$root"/lib-fallback/*; do
    [ -e "$f" ] || continue
    s=$(basename "$f")
    if ! grep -qxF "$s" <<<"$have" && [ ! -e "/usr/local/cuda/lib64/$s" ]; then
      ln -sf "$f" "$root/lib-used/$s"
    fi
  done
  local build; build=$(cd "$root" && ls -d build*/ | head -n 1); build=${build%/}
  export BUILD=$root/$build BTE=$root/$build/bin/bte BTE_HAVE_CUDA=1
  export LD_LIBRARY_PATH=$BUILD/lib:$root/lib:$root/lib-used${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}:/usr/local/cuda/lib64
  # NCCL for -bte_exchange (loaded at run time): the machine's own, or a Python wheel's (nvidia-nccl)
  if ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so\.2 '; then
    local nccl; nccl=$(find /usr/local /opt /usr/lib -name 'libnccl.so.2' 2>/dev/null | head -n 1)
    [ -n "$nccl" ] && export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$(dirname "$nccl")
  fi
  case " ${PETSC_OPTIONS:-} " in *" -use_gpu_aware_mpi "*) ;; *) export PETSC_OPTIONS="${PETSC_OPTIONS:+$PETSC_OPTIONS }-use_gpu_aware_mpi 0";; esac
  local m="mpiexec --oversubscribe"; [ "$(id -u)" -eq 0 ] && m="$m --allow-run-as-root"
  export MPIEXEC=${MPIEXEC:-$m}
  if ldd "$BTE" | grep -q 'not found'; then
    echo "device-run.sh: libraries missing on this machine:" >&2; ldd "$BTE" | grep 'not found' >&2; return 1
  fi
}
if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  _bte_dev_main
else
  set -e
  _bte_dev_main
  [ $# -gt 0 ] || { echo "BTE=$BTE"; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"; exit 0; }
  eval "$@"
fi
