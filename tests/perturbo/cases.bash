# Shared by tests/perturbo/table.sh and table2d.sh (sourced; not a test itself: the runner takes *.sh).
# identical A B: the datasets of two tables are bit-identical. run_case NAME MODEL "direct options"
# "bte options": the Python table from the closed forms, bte's table on 1 and NP ranks, compared.
identical() {   # the datasets of two tables are bit-identical
  "$PYTHON" - "$1" "$2" <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r"), h5py.File(sys.argv[2], "r")
names = []
a.visititems(lambda n, o: names.append(n) if isinstance(o, h5py.Dataset) else None)
bad = [n for n in names if n not in b or not np.array_equal(a[n][()], b[n][()])]
print(("FAIL " if bad else "ok   ") + "%s and %s: %d datasets bit-identical%s" % (sys.argv[1], sys.argv[2], len(names), (", differ: %s" % bad) if bad else ""))
sys.exit(1 if bad else 0)
PY
}

run_case() {   # name model "direct options" "bte options"
  local name=$1 model=$2 dopt=$3 gopt="-bte_model perturbo -bte_perturbo_epr $2.h5 $4 -bte_view 0 -bte_perturbo_monitor 0"
  echo "--- case $name: $model $4"
  "$PYTHON" "$T/direct_table.py" $model direct_$name.h5 $dopt
  "$BTE" info -bte_input direct_$name.h5 > info_$name.txt
  "$BTE" generate $gopt -bte_output gen1_$name.h5 > gen1_$name.log
  run_np "$NP" "$BTE" generate $gopt -bte_output genP_$name.h5 > genP_$name.log
  "$PYTHON" "$T/compare_tables.py" gen1_$name.h5 direct_$name.h5
  identical gen1_$name.h5 genP_$name.h5
}
