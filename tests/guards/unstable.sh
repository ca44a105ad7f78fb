# Finite-state guards and convergence (issue 13, item 2). Fixed-step RK4 at 500 fs on parabolic
# 16^3 is unstable: it used to print carriers -nan and CONVERGED_TIME with exit 0; now the step
# that leaves [-0.5, 1.5] (-bte_state_tolerance) stops the run with a line saying what to change,
# and no bad snapshot reaches the output. An adaptive integrator rejects such stages and retries a
# smaller step (TSSetFunctionDomainError). Unconverged transport and high-field solves exit
# nonzero and write nothing unless -bte_allow_unconverged; a continuation that accepts no step is
# one such unconverged field, not an abort of the run.
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0"
expect_fail "is unstable or inaccurate; use a smaller -bte_time_step" timeout 60 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500 -bte_output rk4.h5
expect_fail "has occupations from .* outside \[-0.5, 1.5\]" timeout 60 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500
expect_fail "is not finite (NaN or Inf)" timeout 60 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500 -bte_state_tolerance -1
expect_fail "is unstable or inaccurate" timeout 60 $MPIEXEC -n ${TEST_NP:-2} "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then
  "$PYTHON" -c "
import h5py, numpy as np
g = h5py.File('rk4.h5', 'r')['dynamics']
f = g['occupations'][:len(g['time'])]
assert len(g['time']) >= 1 and np.all(np.isfinite(f)) and f.min() >= -0.5 and f.max() <= 1.5, (g['time'][()], f.min(), f.max())
print('ok: the output holds %d finite snapshots' % len(g['time']))"
fi
# adaptive: the same first step is rejected and retried smaller; the run ends normally
"$BTE" dynamics $P -bte_time_step 500 -bte_final_time 2000 -bte_output_interval 500 -ts_rk_type 5dp -ts_adapt_type basic > adapt.txt
grep -q "CONVERGED_TIME" adapt.txt && ! grep -qi "nan" adapt.txt || { echo "FAIL: adaptive run"; cat adapt.txt; exit 1; }
grep -q "([1-9][0-9]* rejected)" adapt.txt || { echo "FAIL: no step was rejected"; cat adapt.txt; exit 1; }
echo "ok: adaptive RK rejected the unstable step and finished"
# transport: not converged -> exit 1, nothing written; -bte_allow_unconverged -> exit 0, written
m="-bte_model parabolic -bte_grid 8 -bte_parabolic_a 40 -bte_view 0"
expect_fail "1 of 1 transport solves did not converge (NOT CONVERGED above) and nothing was written" "$BTE" transport $m -bte_transport_ksp_max_it 1 -bte_output tr.h5
[ ! -e tr.h5 ] && [ ! -e tr.h5.tmp ] || { echo "FAIL: an unconverged transport run wrote its output"; exit 1; }
expect_fail "did not converge" "$BTE" transport $m -bte_transport_method ita -bte_ita_max_it 1
"$BTE" transport $m -bte_transport_ksp_max_it 1 -bte_output tr.h5 -bte_allow_unconverged > tr.txt
grep -q "WARNING: 1 of 1 transport solves did not converge" tr.txt && [ -e tr.h5 ] || { echo "FAIL: -bte_allow_unconverged"; cat tr.txt; exit 1; }
echo "ok: -bte_allow_unconverged writes and exits 0"
# high field: the same
expect_fail "high-field solves did not converge" "$BTE" highfield $m -bte_efield_list 1000 -bte_highfield_method ptc -bte_highfield_ptc_max_it 1 -bte_output hf.h5
[ ! -e hf.h5 ] || { echo "FAIL: an unconverged high-field run wrote its output"; exit 1; }
"$BTE" highfield $m -bte_efield_list 1000 -bte_highfield_method ptc -bte_highfield_ptc_max_it 1 -bte_allow_unconverged > hf.txt
grep -q "WARNING: 1 of 1 high-field solves did not converge" hf.txt || { echo "FAIL: -bte_allow_unconverged (highfield)"; cat hf.txt; exit 1; }
# a field where continuation accepts no step (GaAs, anisotropic L and X, 16^3: 84 states, 6 kV/cm,
# Perturbo's log drift form; with muscl the same field runs out of continuation steps instead)
# is NOT CONVERGED like one out of steps, not the end of the run: the fields before it keep their
# results and -bte_allow_unconverged writes them all
S="-bte_model gaas -bte_gaas_masses anisotropic -bte_grid 16 -bte_view 0 -bte_highfield_monitor -bte_drift_form log"
"$BTE" highfield $S -bte_efield_list 6000 -bte_allow_unconverged -bte_output stuck.h5 > stuck.txt
grep -q "ptc: no step is accepted down to 1e-12 fs" stuck.txt && grep -q "6000 .* (ptc) NOT CONVERGED" stuck.txt && [ -e stuck.h5 ] || { echo "FAIL: a stuck continuation"; cat stuck.txt; exit 1; }
expect_fail "1 of 1 high-field solves did not converge" "$BTE" highfield $S -bte_efield_list 6000
echo "ok: high field"
