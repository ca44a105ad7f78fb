# Fuzz test of the Perturbo epr reader: the fixtures of make_epr.py (cubic, twoband, polar,
# polar2d) damaged in seeded ways with h5py and on their bytes (datasets removed, of another type
# or shape, hostile values, bad counts, inconsistent cross-references, links, truncation, byte
# flips), each given to `bte generate -bte_model perturbo` on a 4^3 (4^2) grid with a timeout.
# Asserted: no signal, no hang, every refusal one error line naming the file (and, for a value
# outside its physical bound, the dataset) and no table left behind, and no exit 0 on a file that
# is not valid (validity decided independently with h5py:
# tests/perturbo/fuzz_epr.py states the rule); an exit 0 leaves a complete, finite table that bte
# reads back, the clean run's table when the values bte reads are unchanged.
# BTE_FUZZ_SEED (13), BTE_FUZZ_FLIPS (80), BTE_FUZZ_JOBS (2) change the cases and the parallelism.
. "$TESTDIR/common.sh"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; fi
set -e
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
for m in cubic twoband polar polar2d; do "$PYTHON" "$T/make_epr.py" $m $m.h5; done
if [ -n "$BTE_SANITIZE" ]; then export BTE_FUZZ_FLIPS=${BTE_FUZZ_FLIPS:-40}; fi
BTE="$BTE" "$PYTHON" "$T/fuzz_epr.py"
