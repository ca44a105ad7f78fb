#!/bin/sh
# Prints a Python interpreter that has h5py and matplotlib (Debian's /usr/bin/python3
# has them once `make deps` ran; the python3 first on PATH may be another build).
for py in "$BTE_PYTHON" python3 /usr/bin/python3 python; do
  [ -n "$py" ] || continue
  command -v "$py" >/dev/null 2>&1 || continue
  if "$py" -c 'import h5py, matplotlib' >/dev/null 2>&1; then
    command -v "$py"
    exit 0
  fi
done
echo "find-python: no Python with h5py and matplotlib; run 'make deps'" >&2
exit 1
