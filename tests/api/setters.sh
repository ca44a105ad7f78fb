# Values set through the API are used, not the table's (tests/api/setters.c): an application
# sets 77 K and 0.005 eV on a table written at 300 K and 0.01 eV; getters, scattering rates and
# a transport solve must show the values set; a transport solve at other temperatures must
# leave the BTE's temperature alone. On 1 and TEST_NP ranks.
set -e
"$BTE" generate -bte_model parabolic -bte_parabolic_a 40 -bte_grid 10 -bte_temperature 300 -bte_smearing 0.01 -bte_output t.h5 -bte_view 0
"$BUILD/tests/setters" -table t.h5 -table_temperature 300 -table_smearing 0.01
$MPIEXEC -n ${TEST_NP:-2} "$BUILD/tests/setters" -table t.h5 -table_temperature 300 -table_smearing 0.01 | tail -n 1 | grep -q "all checks passed"
