#!/bin/bash
# Packs what a run of bte's CUDA build needs on a GPU machine that has the CUDA runtime, the NVIDIA
# driver and an OpenMPI 4 (e.g. Ubuntu 24.04 + CUDA 13) but neither PETSc nor Debian's HDF5-openmpi:
#   .device/bte-cuda.tar.xz  =  build-cuda/{bin,lib,tests,examples}
#                               lib/           libpetsc and libhdf5_openmpi* (never on such a machine)
#                               lib-fallback/  other non-system libraries they need; scripts/device-run.sh
#                                              uses one only where the machine lacks its soname
# Usage: scripts/device-bundle.sh [--build build-cuda] [--petsc .petsc-cuda] [--out .device]
# Then carry .device (git-ignored) and run `scripts/device-run.sh COMMAND...` there (docs/gpu.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build-cuda PETSC=.petsc-cuda OUT=.device
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2;; --petsc) PETSC=$2; shift 2;; --out) OUT=$2; shift 2;;
    -h|--help) sed -n '2,9p' "$0"; exit 0;;
    *) echo "device-bundle.sh: unknown argument '$1'" >&2; exit 2;;
  esac
done
[ -x "$BUILD/bin/bte" ] || { echo "device-bundle.sh: no $BUILD/bin/bte: make PETSC_DIR=<CUDA PETSc> BUILD=$BUILD" >&2; exit 1; }
grep -q 'PETSC_HAVE_CUDA 1' "$PETSC/include/petscconf.h" 2>/dev/null || { echo "device-bundle.sh: $PETSC is not a CUDA PETSc (scripts/petsc-cuda.sh)" >&2; exit 1; }
if git rev-parse --git-dir >/dev/null 2>&1; then
  exclude=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$exclude")"
  for p in "$OUT" "$BUILD"; do  # both must stay out of git (and so out of the tree that travels)
    case "$p" in /*) continue;; esac
    git check-ignore -q "$p" || { echo "/$p/" >> "$exclude"; echo "device-bundle.sh: added /$p/ to $exclude"; }
  done
fi

stage=$(mktemp -d); trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/lib-fallback" "$stage/$BUILD"
for d in bin lib tests examples; do [ -d "$BUILD/$d" ] && cp -a "$BUILD/$d" "$stage/$BUILD/"; done
rm -rf "$stage/$BUILD/obj"

# Walk the NEEDED graph from our binaries. Stop at what the GPU machine provides: glibc and the
# compiler runtime, the CUDA toolkit and driver, OpenMPI (its mpiexec must match its libmpi), BLAS/LAPACK.
provided='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libutil\.|libresolv\.|libgcc_s\.|libstdc\+\+\.|libquadmath\.|libgfortran\.|libgomp\.|libcuda\.|libcudart\.|libcublas|libcusparse\.|libcusolver|libcufft|libcurand\.|libnvtx3interop\.|libnvToolsExt\.|libnvJitLink\.|libnvidia-ml\.|libmpi|libopen-(pal|rte)\.|libblas\.|liblapack\.|libopenblas)'
needed() { objdump -p "$1" 2>/dev/null | awk '$1 == "NEEDED" {print $2}'; }
resolve() { # soname -> path, the way the loader would find it here
  local p
  p=$(ldd "$2" 2>/dev/null | awk -v s="$1" '$1 == s && $3 ~ /^\// {print $3; exit}')
  [ -n "$p" ] && echo "$p"
}
declare -A seen
queue=()
for f in "$stage/$BUILD"/bin/* "$stage/$BUILD"/lib/*.so* "$stage/$BUILD"/tests/* "$stage/$BUILD"/examples/*; do
  [ -f "$f" ] && queue+=("$f")
done
while [ ${#queue[@]} -gt 0 ]; do
  f=${queue[0]}; queue=("${queue[@]:1}")
  for s in $(needed "$f"); do
    [ -n "${seen[$s]:-}" ] && continue
    seen[$s]=1
    [[ $s =~ $provided ]] && continue
    [ -e "$stage/$BUILD/lib/$s" ] && continue
    p=$(resolve "$s" "$f") || { echo "device-bundle.sh: cannot resolve $s (needed by $f)" >&2; exit 1; }
    case "$s" in libpetsc*|libhdf5_openmpi*) dst=lib;; *) dst=lib-fallback;; esac
    cp -L "$p" "$stage/$dst/$s"
    queue+=("$stage/$dst/$s")
  done
done
strip --strip-unneeded "$stage"/lib/*.so* "$stage"/lib-fallback/*.so* 2>/dev/null || true
echo "bundled:  lib/ $(cd "$stage/lib" && ls | tr '\n' ' ')"
echo "fallback: lib-fallback/ $(cd "$stage/lib-fallback" && ls | tr '\n' ' ')"
{ echo "built $(date -u +%FT%TZ) on $(uname -n) from $(git rev-parse --short HEAD) BUILD=$BUILD PETSC=$PETSC"
  grep -E '^#define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) ' "$PETSC/include/petscversion.h" | awk '{printf "%s ", $3}'; echo; } > "$stage/BUNDLE-INFO"
mkdir -p "$OUT"
tar -C "$stage" -cf - . | xz -T2 -6 > "$OUT/bte-cuda.tar.xz.tmp"
mv "$OUT/bte-cuda.tar.xz.tmp" "$OUT/bte-cuda.tar.xz"
size=$(stat -c %s "$OUT/bte-cuda.tar.xz")
echo "wrote $OUT/bte-cuda.tar.xz ($((size / 1024 / 1024)) MiB); carry [\"$OUT\"] and run scripts/device-run.sh there"
[ "$size" -lt $((60 * 1024 * 1024)) ] || { echo "device-bundle.sh: bundle over 60 MiB: it will not travel" >&2; exit 1; }
