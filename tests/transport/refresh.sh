# bte transport at several temperatures on one collision operator whose rates are refreshed at each
# temperature (-bte_collision_refresh, on by default for more than one temperature) gives what a
# fresh operator per temperature gives (-bte_collision_refresh 0), to the bit: the printed table and
# every /transport dataset of the HDF5 output. On 1 rank and on 2 (pairs partition), with the ksp
# method and its two-level preconditioner (whose per-operator caches must follow the new rates), the
# ita method, mixed precision, and the fused type (no refresh: it rebuilds). The operator is built at
# the BTE's temperature first (the setup diagnostics use it), then moved to each temperature.
. "$TESTDIR/common.sh"
set -e
opts="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 12 -bte_view 0 -bte_temperatures 150,300,450 -bte_carrier_densities 1e17,1e18"
same() { # name, ranks, options...: the two runs agree to the bit
  local name=$1 np=$2; shift 2
  run_np $np "$BTE" transport $opts -bte_output on-$name.h5 -info :transport "$@" > on-$name.txt
  run_np $np "$BTE" transport $opts -bte_output off-$name.h5 -bte_collision_refresh 0 -info :transport "$@" > off-$name.txt
  # (the two-level preconditioner's setup time is a measurement, not a result)
  for r in on off; do grep -v "^wrote\|^\[" $r-$name.txt | sed -E 's/[0-9.e+-]+ s, counted/T s, counted/' > $r.txt; done
  cmp -s on.txt off.txt || { diff on.txt off.txt; echo "FAILED: $name: printed results differ"; exit 1; }
  grep -q "mob_xx" on.txt || { cat on-$name.txt; echo "FAILED: $name: no results printed"; exit 1; }
  grep -q "3 temperatures on one collision operator" off-$name.txt && { echo "FAILED: $name: -bte_collision_refresh 0 kept one operator"; exit 1; }
  $PYTHON - on-$name.h5 off-$name.h5 <<'PY'
import sys, h5py, numpy as np
a, b = h5py.File(sys.argv[1], "r")["transport"], h5py.File(sys.argv[2], "r")["transport"]
assert sorted(a.keys()) == sorted(b.keys()), (list(a.keys()), list(b.keys()))
assert a["mobility"].shape[0] == 6, a["mobility"].shape
for k in a.keys():
    x, y = np.ascontiguousarray(a[k][()]), np.ascontiguousarray(b[k][()])
    assert x.shape == y.shape and x.tobytes() == y.tobytes(), "/transport/%s differs: %r vs %r" % (k, x, y)
PY
  echo "$name: the same to the bit; $(grep -o '3 temperatures on one collision operator.*' on-$name.txt | head -1)"
}
same ksp 1
grep -q "3 temperatures on one collision operator: 3 refreshed its rates, 0 rebuilt it" on-ksp.txt || { cat on-ksp.txt; echo "FAILED: the rates were not refreshed"; exit 1; }
same pairs 2 -bte_partition pairs
grep -q "3 refreshed its rates, 0 rebuilt it" on-pairs.txt || { cat on-pairs.txt; echo "FAILED: 2 ranks: the rates were not refreshed"; exit 1; }
same twolevel 1 -bte_transport_pc twolevel
same twolevel2 2 -bte_transport_pc twolevel
same ita 1 -bte_transport_method ita
same mixed 1 -bte_collision_precision mixed
same fused 1 -bte_collision_type fused
grep -q "0 refreshed its rates, 3 rebuilt it" on-fused.txt || { cat on-fused.txt; echo "FAILED: fused did not rebuild"; exit 1; }
# one temperature: no refresh data is kept (-info says nothing of it); the option is listed by -help
"$BTE" transport $(sed 's/-bte_temperatures [^ ]*/-bte_temperatures 300/' <<<"$opts") -info :transport > one.txt
grep -q "temperatures on one collision operator" one.txt && { cat one.txt; echo "FAILED: one temperature kept refresh data"; exit 1; }
# the operator is built once, at the BTE's temperature (300 K), where the summary's setup
# diagnostics use it, then refreshed to each temperature: one BTECollSetUp in all
"$BTE" transport $opts -bte_view 1 -log_view :lv.txt > view.txt
grep -q "^  equilibrium defect" view.txt || { cat view.txt; echo "FAILED: no diagnostics in the summary"; exit 1; }
n=$(awk '$1 == "BTECollSetUp" { print $2 }' lv.txt)
[ "$n" = 1 ] || { echo "FAILED: transport with its summary set up $n collision operators, expected 1"; exit 1; }
"$BTE" transport $opts -help 2>&1 | grep -q -- "-bte_collision_refresh" || { echo "FAILED: -help does not list -bte_collision_refresh"; exit 1; }
echo ok
