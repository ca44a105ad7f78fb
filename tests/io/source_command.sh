# A table's `source` attribute is the command that made it: the model's own options
# (-bte_<model>_*), a temperature and a delta other than the defaults included. Each table below is made with model options, then its `source` is run
# as printed; the second table must equal the first in every dataset, to the bit (the run is
# deterministic on one rank). Without the model options in `source` the gaas and si-holes tables
# would differ (other couplings, other bands).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no python3 with h5py"; exit 77; }
check() {
  local tag=$1; shift
  OMP_NUM_THREADS=1 "$BTE" generate "$@" -bte_output $tag.h5 -bte_view 0 > /dev/null
  src=$("$PYTHON" -c "import h5py; print(h5py.File('$tag.h5', 'r').attrs['source'].decode())")
  echo "$tag: $src"
  case "$src" in "bte generate "*) ;; *) echo "FAIL: source is not a bte generate command: $src"; exit 1;; esac
  # shellcheck disable=SC2086
  OMP_NUM_THREADS=1 "$BTE" ${src#bte } -bte_output $tag.again.h5 -bte_view 0 > /dev/null
  "$PYTHON" - "$tag.h5" "$tag.again.h5" <<'PY'
import sys, h5py, numpy as np
a, b = (h5py.File(n, "r") for n in sys.argv[1:3])
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
assert names, "no datasets"
for n in names:
    assert n in b, "%s missing from the table the source command made" % n
    x, y = a[n][()], b[n][()]
    assert x.shape == y.shape and np.array_equal(x, y), "%s differs between the table and its source command's" % n
for g in ("model", "channels", "/"):
    for k, v in a[g].attrs.items():
        if k in ("created", "source"): continue
        assert np.array_equal(v, b[g].attrs[k]), "attribute %s of %s differs" % (k, g)
print("  the source command remakes the table: %d datasets equal" % len(names))
PY
}
check gaas -bte_model gaas -bte_grid 14 -bte_window 0.5 -bte_gaas_intervalley_d 6.5e8,5e8,5e8,1e9,7e8 -bte_gaas_masses anisotropic -bte_energy_tolerance 4
check holes -bte_model si-holes -bte_grid 10 -bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_bp_a -2.46
check para -bte_model parabolic -bte_grid 8 -bte_window 0.4 -bte_parabolic_a 20 -bte_temperature 200 -bte_delta balanced
check nolo -bte_model gaas -bte_grid 12 -bte_gaas_lo 0
