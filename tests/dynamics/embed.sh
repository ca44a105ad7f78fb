# examples/embed_ts (a user's own TS on bte's collision operator, only <bte.h>) gives the same
# final state as `bte dynamics` with the same settings (hot Gaussian, RK4, 1 fs, 500 fs); its -help
# without a model says why the list stops.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
M="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20"
# -help without a table: the list ends at BTESetUp, and the error says why the options of the
# collision operator and the time stepper are missing (before: only "No scattering data")
expect_fail "No scattering data: give a table with -bte_input FILE or a built-in model with -bte_model NAME (with -help too: the options of what is built from the table, the collision operator, time stepper and solvers, are listed only when there is one" "$BUILD/examples/embed_ts" -help
$MPIEXEC -n "$NP" "$BUILD/examples/embed_ts" $M -ts_max_time 500 -ts_dt 1 | tee embed.log
"$BTE" dynamics $M -bte_view 0 -bte_init gaussian -bte_init_e0_edge 0.1 -bte_init_smear 0.02 -bte_init_occupation 0.1 \
  -bte_time_step 1 -bte_final_time 500 -bte_output_interval 100 -bte_output dyn.h5 > dyn.log
"$PYTHON" - <<'PY'
import h5py, re, sys
line = [l for l in open("embed.log") if l.startswith("final:")][0]
t, n, e = (float(x) for x in re.findall(r"t = (\S+) fs\s+carriers (\S+) /cell\s+mean energy (\S+) eV", line)[0])
g = h5py.File("dyn.h5", "r")["dynamics"]
ok = t == g["time"][-1] and abs(n / g["carriers"][-1] - 1) < 1e-10 and abs(e / g["mean_energy"][-1] - 1) < 1e-10
print("%s embed_ts: t %g, carriers %.12e, <E> %.12f; bte dynamics: t %g, carriers %.12e, <E> %.12f" % ("ok" if ok else "FAIL", t, n, e, g["time"][-1], g["carriers"][-1], g["mean_energy"][-1]))
sys.exit(0 if ok else 1)
PY
