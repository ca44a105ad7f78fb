# Fuzz test of the file readers (issue 13, item 8): seeded byte flips and value mutations of a
# small table (in the format bte writes, and in the old format with variable-length strings) and
# of a restart file, each given to bte (info, or a restarted dynamics run) with a timeout.
# Asserted: no signal, no hang, one error line for every refusal, and no exit 0 on a file that is
# not valid, validity being decided independently with h5py (tests/guards/fuzz.py states the
# rule); a flip that leaves every value bte reads unchanged must give the clean run's output.
# BTE_FUZZ_SEED (13) and BTE_FUZZ_CASES (36; 18 under the sanitizers) change the cases.
. "$TESTDIR/common.sh"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py"; exit 77; fi
set -e
"$BTE" generate -bte_model parabolic -bte_grid 6 -bte_parabolic_a 20 -bte_output table.h5 -bte_view 0 >/dev/null
if [ -n "$BTE_SANITIZE" ]; then export BTE_FUZZ_CASES=${BTE_FUZZ_CASES:-18}; fi
BTE="$BTE" "$PYTHON" "$TESTDIR/guards/fuzz.py"
