#!/bin/sh
# Installs what bte needs from Debian's packages, when they are missing:
# PETSc (petsc-dev, with HDF5 and OpenMPI), HDF5 with MPI, OpenMPI, h5py, matplotlib.
set -e
pkgs="petsc-dev libhdf5-openmpi-dev openmpi-bin python3-h5py python3-matplotlib pkg-config make"
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "deps: all present ($pkgs)"
  exit 0
fi
echo "deps: installing$missing"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
