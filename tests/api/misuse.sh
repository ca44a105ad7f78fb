# Misuse of the API returns a PETSc error, never a crash or a silent answer (tests/api/misuse.c):
# getters before BTESetUp, setters after it, results before a solve, bad values and vectors,
# Destroy of NULL and twice; one line per case, ok or BAD. On 1 and TEST_NP ranks.
set -e
"$BUILD/tests/misuse" | tee out.txt
tail -n 1 out.txt | grep -q "all checks passed"
$MPIEXEC -n ${TEST_NP:-2} "$BUILD/tests/misuse" | tail -n 1 | grep -q "all checks passed"
