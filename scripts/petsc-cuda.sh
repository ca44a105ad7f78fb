#!/bin/bash
# Builds PETSc (>= 3.24, from PyPI's source distribution) with CUDA, MPI and HDF5 into a prefix,
# optimised (no debugging, -O3), for bte's GPU build:  make PETSC_DIR=<prefix> BUILD=build-cuda
#
#   scripts/petsc-cuda.sh [--prefix DIR] [--arch NN] [--version X.Y.Z] [--jobs N] [--cuda DIR]
#
# Defaults: prefix /work/main/.petsc-cuda (the repository's .petsc-cuda), arch 90 (H100/H200),
# the newest PETSc 3.25.x on PyPI, CUDA from /usr/local/cuda, make -j2.
# Uses Debian's OpenMPI (mpicc), HDF5-openmpi and BLAS/LAPACK (sonames libblas.so.3 and
# liblapack.so.3, which Ubuntu has as well). Needs network access to PyPI only (pip download).
# Work files go to <prefix>.build (source, configure log); docs/gpu.md explains the choices.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
PREFIX=$here/.petsc-cuda
ARCH=90
VERSION=${PETSC_VERSION:-3.25.*}
JOBS=2
CUDA=${CUDA_HOME:-/usr/local/cuda}
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) PREFIX=$2; shift 2;;
    --arch) ARCH=$2; shift 2;;
    --version) VERSION=$2; shift 2;;
    --jobs) JOBS=$2; shift 2;;
    --cuda) CUDA=$2; shift 2;;
    -h|--help) sed -n '2,11p' "$0"; exit 0;;
    *) echo "petsc-cuda.sh: unknown argument '$1' (see --help)" >&2; exit 2;;
  esac
done
case "$PREFIX" in /*) ;; *) PREFIX=$(pwd)/$PREFIX;; esac
WORK=$PREFIX.build
stamp() { echo "[$(date +%H:%M:%S)] $*"; }

[ -x "$CUDA/bin/nvcc" ] || { echo "petsc-cuda.sh: no nvcc in $CUDA/bin (pass --cuda DIR)" >&2; exit 1; }
command -v mpicc >/dev/null || { echo "petsc-cuda.sh: no mpicc: run scripts/deps.sh (Debian's OpenMPI and HDF5-openmpi)" >&2; exit 1; }
[ -f /usr/include/hdf5/openmpi/hdf5.h ] || { echo "petsc-cuda.sh: no HDF5-openmpi headers: apt-get install libhdf5-openmpi-dev" >&2; exit 1; }
PY=$(command -v python3)
mkdir -p "$WORK/dl"
cd "$WORK"

# 1. Sources: PETSc's sdist and NVML's header (CUDA toolkits from the runfile/conda may lack nvml.h,
#    which PETSc >= 3.25 includes).
if ! ls dl/petsc-*.tar.gz >/dev/null 2>&1; then
  stamp "pip download petsc==$VERSION (sdist)"
  "$PY" -m pip download -q --no-binary :all: --no-deps "petsc==$VERSION" -d dl
fi
tarball=$(ls dl/petsc-*.tar.gz | sort -V | tail -n 1)
ver=$(basename "$tarball" .tar.gz); ver=${ver#petsc-}
case "$ver" in 3.1*|3.2[0-3].*) echo "petsc-cuda.sh: PETSc $ver is too old for CUDA 13 (need >= 3.24)" >&2; exit 1;;esac
src=$WORK/petsc-$ver
[ -d "$src" ] || { stamp "unpack $tarball"; tar xzf "$tarball"; }

nvmlinc=$CUDA/include
if [ ! -f "$CUDA/include/nvml.h" ]; then
  if [ ! -f nvml/include/nvml.h ]; then
    stamp "pip download nvidia-nvml-dev (nvml.h)"
    cudamajor=$("$CUDA/bin/nvcc" --version | sed -n 's/.*release \([0-9]*\)\..*/\1/p')
    "$PY" -m pip download -q --no-deps --only-binary :all: "nvidia-nvml-dev==$cudamajor.*" -d dl
    rm -rf nvml.x && "$PY" -m zipfile -e "$(ls dl/nvidia_nvml_dev-*.whl | sort -V | tail -n 1)" nvml.x
    mkdir -p nvml/include && cp "$(find nvml.x -name nvml.h | head -n 1)" nvml/include/
  fi
  nvmlinc=$WORK/nvml/include
fi
# NVML's link stub: the wheels carry only the header, and a toolkit without the driver has no
# libnvidia-ml.so. A stub with every entry point of nvml.h and soname libnvidia-ml.so.1 satisfies the
# link; at run time the driver's libnvidia-ml.so.1 is loaded instead.
nvmllib=""
for d in "$CUDA/lib64/stubs" "$CUDA/lib64" /usr/lib/x86_64-linux-gnu; do
  [ -f "$d/libnvidia-ml.so" ] && { nvmllib=$d; break; }
done
if [ -z "$nvmllib" ]; then
  mkdir -p nvml/stub
  grep -oE 'nvmlReturn_t DECLDIR [A-Za-z_0-9]+' "$nvmlinc/nvml.h" | awk '{print $3}' | sort -u |
    awk '{printf "int %s(void) { return 999; /* NVML_ERROR_UNKNOWN */ }\n", $1}' > nvml/stub/nvml_stub.c
  echo 'const char *nvmlErrorString(int r) { (void)r; return "nvml stub"; }' >> nvml/stub/nvml_stub.c
  sed -i '/^int nvmlErrorString(/d' nvml/stub/nvml_stub.c
  gcc -shared -fPIC -Wl,-soname,libnvidia-ml.so.1 -o nvml/stub/libnvidia-ml.so nvml/stub/nvml_stub.c
  nvmllib=$WORK/nvml/stub
fi

# 2. Configure. CUDA 13 has no libnvToolsExt (NVTX is header-only, plus libnvtx3interop), so the
#    library list is given explicitly.
cd "$src"
export PETSC_DIR=$src PETSC_ARCH=arch-cuda
cudalibdir=$CUDA/lib64
[ -d "$cudalibdir" ] || cudalibdir=$CUDA/lib
nvtx=-lnvtx3interop
[ -f "$cudalibdir/libnvtx3interop.so" ] || nvtx=-lnvToolsExt
cudalibs="-L$cudalibdir -L$cudalibdir/stubs -L$nvmllib -lcudart $nvtx -lcufft -lcublas -lcusparse -lcusolver -lcurand -lcuda -lnvidia-ml"
stamp "configure PETSc $ver (sm_$ARCH) -> $PREFIX"
nice -n 10 "$PY" ./configure \
  --prefix="$PREFIX" \
  --with-debugging=0 COPTFLAGS=-O3 CXXOPTFLAGS=-O3 CUDAOPTFLAGS=-O3 \
  --with-cc=mpicc --with-cxx=mpicxx --with-fc=0 \
  --with-shared-libraries=1 --with-x=0 --with-ssl=0 \
  --with-cuda=1 --with-cudac="$CUDA/bin/nvcc" --with-cuda-arch="$ARCH" \
  --with-cuda-include="[$CUDA/include,$nvmlinc]" --with-cuda-lib="[$cudalibs]" \
  --with-hdf5=1 --with-hdf5-include=/usr/include/hdf5/openmpi \
  --with-hdf5-lib="[-L/usr/lib/x86_64-linux-gnu/hdf5/openmpi -lhdf5_hl -lhdf5]" \
  --with-blaslapack-lib="[-llapack -lblas]" \
  --with-make-np="$JOBS"

# 3. Build and install.
stamp "make (-j$JOBS)"
nice -n 10 make PETSC_DIR="$src" PETSC_ARCH=arch-cuda -j"$JOBS" all
stamp "make install"
make PETSC_DIR="$src" PETSC_ARCH=arch-cuda install >/dev/null
grep -q 'PETSC_HAVE_CUDA 1' "$PREFIX/include/petscconf.h" || { echo "petsc-cuda.sh: installed PETSc has no CUDA" >&2; exit 1; }
stamp "done: PETSc $ver with CUDA (sm_$ARCH) in $PREFIX ($(du -sh "$PREFIX/lib/libpetsc.so."*[0-9] | tail -n 1 | cut -f1) libpetsc)"
echo "build bte with: make PETSC_DIR=$PREFIX BUILD=build-cuda"
