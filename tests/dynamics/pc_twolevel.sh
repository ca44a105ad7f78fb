#!/bin/bash
# -pc_type bte_twolevel (src/dynamics/pc_twolevel.c) on the KSP of implicit integrators: BDF2 and
# fully implicit ARKIMEX on GaAs hot-electron relaxation give the same trajectory as with Jacobi
# (final occupations to 1e-9 of the largest) in at most a third of Jacobi's GMRES iterations; also
# on 2 ranks, without the valley split, in additive form, with Rosenbrock-W, with a field (the collision + drift shell)
# and with one linear solve per stage (options/implicit-twolevel.opts); it is
# refused with one line on an assembled Jacobian and for a bad option value.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
OPTS="$TESTDIR/../options"
G="-bte_model gaas -bte_grid 20 -bte_window 0.8 -bte_init gaussian -bte_init_e0_edge 0.5 -bte_init_smear 0.03 -bte_carrier_density 1e18 -bte_final_time 2000 -bte_output_interval 1000 -bte_view 0 -bte_dynamics_monitor 0"
I="-options_file $OPTS/implicit.opts -ts_rtol 1e-5 -ts_atol 1e-8 -options_left 0"
A="-ts_type arkimex -ts_arkimex_fully_implicit"
run() { name=$1; shift; "$@" -bte_output "$name.h5" -bte_summary "$name.json" > "$name.log" || { cat "$name.log"; echo "FAIL: $name"; exit 1; }; }
run bdf_j   "$BTE" dynamics $G $I -pc_type jacobi
run bdf_t   "$BTE" dynamics $G $I -pc_type bte_twolevel -ksp_view ::ascii_info_detail
run bdf_t2  $MPIEXEC -n "$NP" "$BTE" dynamics $G $I -pc_type bte_twolevel
run bdf_n   "$BTE" dynamics $G $I -pc_type bte_twolevel -pc_bte_twolevel_split none
run ark_j   "$BTE" dynamics $G $I $A -pc_type jacobi
run ark_t   "$BTE" dynamics $G $I $A -pc_type bte_twolevel -pc_bte_twolevel_form additive
run ark_l   "$BTE" dynamics $G -options_file "$OPTS/implicit-twolevel.opts" -ts_rtol 1e-5 -ts_atol 1e-8
run ros_j   "$BTE" dynamics $G $I -ts_type rosw -pc_type jacobi
run ros_t   "$BTE" dynamics $G $I -ts_type rosw -pc_type bte_twolevel
run fld_j   "$BTE" dynamics $G $I -bte_efield 2000,0,0 -pc_type jacobi
run fld_t   $MPIEXEC -n "$NP" "$BTE" dynamics $G $I -bte_efield 2000,0,0 -pc_type bte_twolevel
grep -q "bte two-level: Jacobi + coarse space of (valley) x energy bins, multiplicative form" bdf_t.log || { echo "FAIL: -ksp_view does not show the PC"; grep -i "pc" bdf_t.log | head; exit 1; }
"$PYTHON" - <<'PY'
import h5py, json, sys
ok = True
def check(c, msg):
    global ok
    print(("ok: " if c else "FAIL: ") + msg)
    ok = ok and c
def f(name): return h5py.File(name + ".h5", "r")["dynamics/occupations"][-1]
def its(name): return json.load(open(name + ".json"))["linear_iterations"]
# Rosenbrock-W gets the implicit form (F = fdot - RHS): it uses the Jacobian, so it steps past the
# explicit limit (RK4: 8 fs) instead of running with W = a I
ros = json.load(open("ros_j.json"))
check(ros["jacobian_applies"] > 0 and ros["steps"] < 2000 / 8, "rosw: %d steps, %d Jacobian applies" % (ros["steps"], ros["jacobian_applies"]))
# one linear solve per stage is another method (the stage equations linearised): it agrees to the
# step's tolerance (-ts_rtol 1e-5), the others to the solvers' (1e-10); with a field the coarse space
# (even in k) misses the drift's modes, so the gain is smaller there
for ref, run, frac, tol in (("bdf_j", "bdf_t", 1/3, 1e-9), ("bdf_j", "bdf_t2", 1/3, 1e-9), ("bdf_j", "bdf_n", 1.0, 1e-9), ("ark_j", "ark_t", 1.0, 1e-9),
                            ("ark_j", "ark_l", 1/3, 1e-5), ("ros_j", "ros_t", 1/3, 1e-9), ("fld_j", "fld_t", 0.8, 1e-9)):
    a, b = f(ref), f(run)
    d = abs(a - b).max() / abs(a).max()
    check(d < tol, "%s against %s: final occupations differ by %.2e of the largest (< %g)" % (run, ref, d, tol))
    check(its(run) <= frac * its(ref), "%s: %d GMRES iterations, %s: %d (at most %.2f of them)" % (run, its(run), ref, its(ref), frac))
sys.exit(0 if ok else 1)
PY
expect_fail "needs bte's matrix-free collision Jacobian" "$BTE" dynamics $G $I -pc_type bte_twolevel -bte_jacobian_assembled
expect_fail "pc_bte_twolevel_bins must be in \[1, 10000\]" "$BTE" dynamics $G $I -pc_type bte_twolevel -pc_bte_twolevel_bins 0
