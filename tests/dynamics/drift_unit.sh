# Drift operator unit tests on synthetic grids (sc, fcc, hexagonal 2D): b-vector shells,
# gradient exactness/order, -(F/hbar).grad f, sign (+E_x pushes electrons to -x), carrier
# conservation, Jacobian vs differences, refusal of a field without velocities. 1 and N ranks.
set -e
"$BUILD/tests/drift_unit"
$MPIEXEC -n "${TEST_NP:-2}" "$BUILD/tests/drift_unit"
