# A dynamics run (RK4, parabolic model) and a transport KSP solve on 2 and 3 ranks with the pairs
# partition (and the dynamics on 3 ranks with states) give the 1-rank results (occupations, carriers, energies: 1e-12
# relative; mobilities: 1e-12); -bte_view names the partition in use.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
D="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0 -bte_final_time 100 -bte_time_step 2 -bte_output_interval 50"
T="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 14 -bte_view 0 -bte_temperatures 200,300 -bte_transport_method ksp"
"$BTE" dynamics $D -bte_output d1.h5 > /dev/null
"$BTE" transport $T -bte_output t1.h5 > /dev/null
for np in 2 3; do
  run_np $np "$BTE" dynamics $D -bte_partition pairs -bte_output d${np}pairs.h5 > /dev/null
  run_np $np "$BTE" transport $T -bte_partition pairs -bte_output t${np}pairs.h5 > /dev/null
done
run_np 3 "$BTE" dynamics $D -bte_partition states -bte_output d3states.h5 > /dev/null
run_np 2 "$BTE" dynamics $D -bte_final_time 4 -bte_view -bte_output v.h5 > view.log
grep -q "partition pairs on 2 rank(s), ghost exchange: VecScatter" view.log || { cat view.log; echo "-bte_view does not name the partition"; exit 1; }
"$PYTHON" - <<'PY'
import h5py, numpy as np, sys
ok = True
def rel(a, b):
    return np.abs(a - b).max() / max(np.abs(b).max(), 1e-300)
d1 = h5py.File("d1.h5", "r")["dynamics"]
t1 = h5py.File("t1.h5", "r")["transport"]
for np_, p in ((2, "pairs"), (3, "pairs"), (3, "states")):
    if True:
        d = h5py.File("d%d%s.h5" % (np_, p), "r")["dynamics"]
        for k in ("occupations", "carriers", "mean_energy", "population"):
            r = rel(d[k][()], d1[k][()])
            print("dynamics  %d ranks %-6s %-12s %.2e" % (np_, p, k, r))
            ok &= bool(r <= 1e-12)
        if p == "states":
            continue
        t = h5py.File("t%d%s.h5" % (np_, p), "r")["transport"]
        r = rel(t["mobility"][()], t1["mobility"][()])
        print("transport %d ranks %-6s mobility     %.2e" % (np_, p, r))
        ok &= bool(r <= 1e-12)
sys.exit(0 if ok else 1)
PY
echo ok
