# The drift operator as assembled (stencil matrix + pointwise steps) against a direct loop over the
# b-vector neighbours (docs/theory.md section 5): D[f], y + D[f], J(f) x, diag J for the log, plain, upwind
# and muscl (van Leer, minmod; written per face over a gathered neighbour table) forms, with clipped g
# (f = 0, f = 1e-18), to 1e-12 (max-norm relative). fcc (gaas) and simple cubic
# (parabolic) grids, 1 and N ranks (off-rank neighbours as off-diagonal-block columns).
set -e
"$BUILD/tests/drift_ops" -bte_model parabolic -bte_grid 16 -bte_parabolic_a 20
$MPIEXEC -n "${TEST_NP:-2}" "$BUILD/tests/drift_ops" -bte_model gaas -bte_grid 20
