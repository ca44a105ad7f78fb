# BTEGetDiagnostics and BTESetDiagnostics (include/bte.h) from a program: cached, recomputed at a new
# temperature, off when switched off; 1 and 2 ranks.
. "$TESTDIR/common.sh"
set -e
args="-bte_grid 24 -bte_parabolic_a 20"
"$BUILD/tests/diag_api" $args | tee one.txt
run_np ${TEST_NP:-2} "$BUILD/tests/diag_api" $args | tee two.txt
diff one.txt two.txt
grep -q "T 300. K: computed 1, pieces 1, defect 0.071315, relaxation 310.0792 K" one.txt
