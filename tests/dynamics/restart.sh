# Restart: a run interrupted (-ts_max_time) and continued from its output (same file, and into a
# new file on another rank count) matches the uninterrupted run; a run killed with SIGKILL leaves
# a valid file of the snapshots so far, marked incomplete (root attribute complete = 0), and
# continues from it; a run that ends marks its file complete (1).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -bte_output_interval 50 -bte_time_step 1"
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_final_time 400 -bte_output full.h5 > full.log
"$BTE" dynamics $P -bte_final_time 3000 -bte_output long.h5 > long.log
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_final_time 400 -ts_max_time 200 -bte_output part.h5 > part1.log
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_final_time 400 -bte_init restart -bte_restart part.h5 -bte_output part.h5 > part2.log
"$BTE" dynamics $P -bte_final_time 400 -bte_init restart -bte_restart full.h5 -bte_final_time 450 -bte_output cont.h5 > cont.log
# killed mid-run
"$BTE" dynamics $P -bte_final_time 1000000 -bte_output killed.h5 > killed.log 2>&1 &
pid=$!
for i in $(seq 1 3000); do
  grep -q "t  *[1-9][0-9][0-9]\.000 fs" killed.log 2>/dev/null && break
  sleep 0.01
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
grep -q "t  *[1-9][0-9][0-9]\.000 fs" killed.log || { echo "killed run did not reach 100 fs"; cat killed.log; exit 1; }
tail -n 1 killed.log
cp killed.h5 killed0.h5
$MPIEXEC -n "$NP" "$BTE" dynamics $P -bte_final_time 3000 -bte_init restart -bte_restart killed.h5 -bte_output killed.h5 > killed2.log
"$PYTHON" - <<'PY'
import h5py, numpy as np, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
full = h5py.File("full.h5", "r")["dynamics"]
part = h5py.File("part.h5", "r")["dynamics"]
cont = h5py.File("cont.h5", "r")["dynamics"]
kill = h5py.File("killed.h5", "r")["dynamics"]
tf, tp = full["time"][:], part["time"][:]
check(np.array_equal(tf, tp), "interrupted + restarted run has the same snapshot times %s" % tp)
check(np.array_equal(full["step"][:], part["step"][:]), "and the same step numbers (the restart continues the count)")
d = np.abs(full["occupations"][-1] - part["occupations"][-1]).max() / full["occupations"][-1].max()
check(d < 1e-12, "final occupations match the uninterrupted run: max relative difference %.2e" % d)
d = np.abs(full["population"][:] - part["population"][:]).max() / full["population"][:].max()
check(d < 1e-12, "population time series match: %.2e" % d)
check(cont["time"][0] == 400 and cont["time"][-1] == 450 and len(cont["time"]) == 2, "restart into a new file starts at the restart time: %s" % cont["time"][:])
check(np.array_equal(cont["occupations"][0], full["occupations"][-1]), "and its first snapshot is the restart state")
long = h5py.File("long.h5", "r")["dynamics"]
c = [int(h5py.File(n, "r").attrs["complete"]) for n in ("killed0.h5", "killed.h5", "full.h5", "part.h5", "cont.h5")]
check(c == [0, 1, 1, 1, 1], "complete: 0 in the killed run's file, 1 once a run ended (continued, full, appended, new): %s" % c)
check(len(h5py.File("killed0.h5", "r")["dynamics/time"]) >= 2, "and the killed run's file holds its snapshots")
tk = kill["time"][:]
check(np.array_equal(tk, long["time"][:]), "killed run, continued in its file: %d snapshots at the same times as an uninterrupted run" % len(tk))
d = np.abs(kill["occupations"][-1] - long["occupations"][-1]).max() / long["occupations"][-1].max()
check(d < 1e-12, "and final occupations match: %.2e" % d)
sys.exit(0 if ok else 1)
PY
