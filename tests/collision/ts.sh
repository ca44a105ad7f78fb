# rt-BTE relaxation under PETSc TS with the collision operator's RHS function and Jacobian
# (MATSHELL with shift/scale/zero handling, or assembled AIJ), against an rk5dp reference.
. "$TESTDIR/common.sh"
set -e
t="$BUILD/tests/coll_ts -synth_nk 5"
$t -ts_type rosw
$t -ts_type bdf -ts_bdf_order 2 -bte_collision_type tgt
$t -ts_type arkimex -ts_arkimex_fully_implicit -bte_collision_type baseline
$t -ts_type arkimex -ts_arkimex_type 3 -ts_arkimex_fully_implicit -bte_collision_precision mixed -tol 1e-3
$t -ts_type theta -ts_theta_theta 0.5 -ts_theta_endpoint -ts_adapt_type none -ts_dt 0.05 -tol 3e-4
$t -ts_type beuler -ts_adapt_type none -ts_dt 0.1 -tfinal 5 -bte_jacobian_assembled -tol 3e-3
run_np 2 $t -ts_type rosw -bte_jacobian_assembled -pc_type bjacobi
run_np 2 $t -ts_type rosw -ts_rosw_type ra34pw2
