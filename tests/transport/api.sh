# Transport library unit checks (tests/transport/tr_api.c) on 1 and 2 ranks:
# density <-> chemical potential, null spaces of eq. 5, tensors through the API.
set -e
opts="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 12"
"$BUILD/tests/tr_api" $opts
$MPIEXEC -n ${TEST_NP:-2} "$BUILD/tests/tr_api" $opts | tail -n 1 | grep -q "all checks passed"
