# Mixed-precision fused and pair (float weights, double sums) against double on the gaas and si-holes
# models: I[f] and J(f)x within 1e-6 relative (max norm), on 1 and TEST_NP ranks.
set -e
"$BUILD/tests/coll_mixed_err" -bte_model gaas -bte_grid 30
"$BUILD/tests/coll_mixed_err" -bte_model si-holes -bte_grid 24 -bte_si_holes_bands dkk
$MPIEXEC -n "${TEST_NP:-2}" "$BUILD/tests/coll_mixed_err" -bte_model gaas -bte_grid 24
"$BUILD/tests/coll_mixed_err" -type pair -bte_model gaas -bte_grid 30
$MPIEXEC -n "${TEST_NP:-2}" "$BUILD/tests/coll_mixed_err" -type pair -bte_model si-holes -bte_grid 24 -bte_si_holes_bands dkk
