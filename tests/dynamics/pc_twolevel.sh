#!/bin/bash
# -pc_type bte_twolevel (src/dynamics/pc_twolevel.c) on the KSP of implicit integrators: BDF2 and
# fully implicit ARKIMEX on GaAs hot-electron relaxation give the same trajectory as with Jacobi
# (final occupations to 1e-9 of the largest) in at most a third of Jacobi's GMRES iterations; also
# on 2 ranks, without the valley split, in additive form, with Rosenbrock-W, with a field (the collision + drift shell; also with blocks split by the sign of v_x)
# and with one linear solve per stage (options/implicit-twolevel.opts); the default bin count
# follows the grid (16 on 20^3, more on 28^3, where it takes at most 0.6 of the GMRES iterations of
# 16 bins; fewer states per block gives more bins; an explicit -pc_bte_twolevel_bins wins over it); it is refused with one line on an
# assembled Jacobian and for a bad option value.
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
run fld_d   "$BTE" dynamics $G $I -bte_efield 2000,0,0 -pc_type bte_twolevel -pc_bte_twolevel_direction 1,0,0
run bdf_s   "$BTE" dynamics $G $I -pc_type bte_twolevel -pc_bte_twolevel_states_per_block 2 -ksp_view ::ascii_info_detail
G28="${G/-bte_grid 20/-bte_grid 28}"
run g28     "$BTE" dynamics $G28 -options_file "$OPTS/implicit-twolevel.opts" -ts_rtol 1e-5 -ts_atol 1e-8 -ksp_view ::ascii_info_detail
run g28_16  "$BTE" dynamics $G28 -options_file "$OPTS/implicit-twolevel.opts" -ts_rtol 1e-5 -ts_atol 1e-8 -pc_bte_twolevel_states_per_block 2 -pc_bte_twolevel_bins 16 -ksp_view ::ascii_info_detail
bins() { sed -n 's/.* groups x \([0-9]*\) bins (\([a-z ]*\)).*/\1 \2/p' "$1.log" | tail -1; }
read b20 how20 <<< "$(bins bdf_t)"; read b28 how28 <<< "$(bins g28)"; read bs hows <<< "$(bins bdf_s)"; read bb howb <<< "$(bins g28_16)"
echo "bins from the grid: 20^3 $b20 ($how20), 28^3 $b28 ($how28); 2 states per block on 20^3: $bs; 28^3 with -pc_bte_twolevel_bins 16: $bb ($howb)"
[ "$b20" = 16 ] && [ "$how20" = "from the grid" ] || { echo "FAIL: 20^3 should keep 16 bins from the grid, got '$b20 $how20'"; exit 1; }
[ -n "$b28" ] && [ "$b28" -gt "$b20" ] || { echo "FAIL: the bin count from the grid does not grow from 20^3 to 28^3 ($b20, '$b28')"; exit 1; }
[ -n "$bs" ] && [ "$bs" -gt 16 ] || { echo "FAIL: 2 states per block should give more than 16 bins on 20^3, got '$bs'"; exit 1; }
[ "$bb" = 16 ] && [ "$howb" = set ] || { echo "FAIL: -pc_bte_twolevel_bins 16 does not win over the grid rule, got '$bb $howb'"; exit 1; }
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
                            ("ark_j", "ark_l", 1/3, 1e-5), ("ros_j", "ros_t", 1/3, 1e-9), ("fld_j", "fld_t", 0.8, 1e-9), ("fld_j", "fld_d", 0.8, 1e-9),
                            ("g28_16", "g28", 0.6, 1e-5)):
    a, b = f(ref), f(run)
    d = abs(a - b).max() / abs(a).max()
    check(d < tol, "%s against %s: final occupations differ by %.2e of the largest (< %g)" % (run, ref, d, tol))
    check(its(run) <= frac * its(ref), "%s: %d GMRES iterations, %s: %d (at most %.2f of them)" % (run, its(run), ref, its(ref), frac))
sys.exit(0 if ok else 1)
PY
expect_fail "needs bte's matrix-free collision Jacobian" "$BTE" dynamics $G $I -pc_type bte_twolevel -bte_jacobian_assembled
expect_fail "pc_bte_twolevel_bins must be in \[1, 10000\]" "$BTE" dynamics $G $I -pc_type bte_twolevel -pc_bte_twolevel_bins 0
expect_fail "pc_bte_twolevel_rate_bins must be in \[1, 64\]" "$BTE" dynamics $G $I -pc_type bte_twolevel -pc_bte_twolevel_rate_bins 0
expect_fail "pc_bte_twolevel_direction needs 3 components" "$BTE" dynamics $G $I -pc_type bte_twolevel -pc_bte_twolevel_direction 1,0
