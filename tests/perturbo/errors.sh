# Bad Perturbo inputs: every one gives a one-line error that says what is wrong and a nonzero exit,
# no crash (bte generate; the same reader serves info/transport/dynamics, checked on a few; and on
# TEST_NP ranks). Files from tests/perturbo/make_epr.py (--bad ...), options on the cubic fixture.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
NP=${TEST_NP:-2}
"$PYTHON" "$T/make_epr.py" cubic cubic.h5
"$PYTHON" "$T/make_epr.py" square2d sq.h5
for b in missing nomass short nan plain volume kcdim intnat; do "$PYTHON" "$T/make_epr.py" cubic bad_$b.h5 --bad $b; done
"$PYTHON" "$T/make_epr.py" polar2d polar2d.h5
"$BTE" generate -bte_model parabolic -bte_grid 6 -bte_view 0 -bte_output table.h5 > /dev/null
echo "not HDF5" > text.h5
mkdir -p adir

# keep, fail1 (expect_fail, then exactly one line of output)
. "$TESTDIR/perturbo/refusals.bash"
G="$BTE generate -bte_model perturbo -bte_view 0 -bte_output out.h5"
K="-bte_perturbo_kdim 8,8,8"

# the file
fail1 "needs the epr file: -bte_perturbo_epr" $G $K
fail1 "nonexistent.h5: cannot open it: No such file or directory" $G -bte_perturbo_epr nonexistent.h5 $K
fail1 "adir is a directory" $G -bte_perturbo_epr adir $K
fail1 "text.h5 is not a readable HDF5 file" $G -bte_perturbo_epr text.h5 $K
fail1 "table.h5 is not a Perturbo epr file: it lacks one of the groups" $G -bte_perturbo_epr table.h5 $K
fail1 "bad_plain.h5 is not a Perturbo epr file" $G -bte_perturbo_epr bad_plain.h5 $K
fail1 "dataset eph_matrix_wannier/ep_hop_i_1_1_1 is missing" $G -bte_perturbo_epr bad_missing.h5 $K
fail1 "dataset basic_data/mass is missing" $G -bte_perturbo_epr bad_nomass.h5 $K
fail1 "dataset electron_wannier/hopping_r1 has shape (174); expected" $G -bte_perturbo_epr bad_short.h5 $K
fail1 "dataset electron_wannier/hopping_r1 has shape (175); expected" $G -bte_perturbo_epr bad_kcdim.h5 $K
fail1 "dataset eph_matrix_wannier/ep_hop_r_1_1_1 has a non-finite entry (nan)" $G -bte_perturbo_epr bad_nan.h5 $K
fail1 "basic_data/volume = 1100 bohr^3 disagrees with |det(at)| alat^3 = 1000 bohr^3" $G -bte_perturbo_epr bad_volume.h5 $K
fail1 "dataset basic_data/nat is not of integer type" $G -bte_perturbo_epr bad_intnat.h5 $K
"$BTE" generate -bte_model perturbo -bte_view 0 -bte_output ok2d.h5 -bte_perturbo_epr polar2d.h5 -bte_perturbo_kdim 8,8 -bte_perturbo_polar 0 -bte_perturbo_monitor 0 > /dev/null || { echo "FAIL: the polar 2D file with -bte_perturbo_polar 0"; exit 1; }
echo "ok (exit 0): the polar 2D file runs with -bte_perturbo_polar 0 (with the long-range terms: tests/perturbo/table2d.sh)"
fail1 "cubic.h5 is not a polar material" $G -bte_perturbo_epr cubic.h5 $K -bte_perturbo_polar 1

# grids, window, bands, carriers
E="$G -bte_perturbo_epr cubic.h5"
fail1 "The q grid 3x3x3 is not commensurate with the k grid 8x8x8" $E $K -bte_perturbo_qdim 3,3,3
fail1 "The q grid 16x16x16 is not commensurate with the k grid 8x8x8" $E $K -bte_perturbo_qdim 16,16,16
fail1 "must be positive" $E -bte_perturbo_kdim 8,0,8
fail1 "bte_perturbo_kdim takes three integers" $E -bte_perturbo_kdim 8,8
fail1 "bte_perturbo_qdim takes three integers" $E $K -bte_perturbo_qdim 4,4
fail1 "sq.h5 is a 2D material: the k and q grids must have 1 point along a3" $G -bte_perturbo_epr sq.h5 -bte_perturbo_kdim 8,8,2
fail1 "sq.h5 is a 2D material: the k and q grids must have 1 point along a3 (-bte_perturbo_kdim 15,15,1, -bte_perturbo_qdim 15,15,3)" $G -bte_perturbo_epr sq.h5 -bte_perturbo_kdim 15,15 -bte_perturbo_qdim 15,15,3
fail1 "no states of bands 1..1 in the window \[100., 101.\] eV" $E $K -bte_perturbo_emin 100 -bte_perturbo_emax 101
fail1 "no states of bands 1..1 in the window" $E $K -bte_perturbo_carrier holes -bte_perturbo_emin 0 -bte_perturbo_emax 1
fail1 "Give both -bte_perturbo_emin and -bte_perturbo_emax" $E $K -bte_perturbo_emin 1
fail1 "Give either -bte_window (a width above the band edge) or -bte_perturbo_emin and -bte_perturbo_emax (an absolute window), not both" $E $K -bte_window 0.3 -bte_perturbo_emin 0 -bte_perturbo_emax 1
fail1 "bte_perturbo_emin 3. must be below -bte_perturbo_emax 2." $E $K -bte_perturbo_emin 3 -bte_perturbo_emax 2
fail1 "bte_perturbo_bands 2,2: the file has 1 Wannier bands" $E $K -bte_perturbo_bands 2,2
fail1 "bte_perturbo_bands 0,1: the file has 1 Wannier bands" $E $K -bte_perturbo_bands 0,1
fail1 "bte_perturbo_bands takes two integers" $E $K -bte_perturbo_bands 1
fail1 "Unknown option .\?foo.\? for -bte_perturbo_carrier" $E $K -bte_perturbo_carrier foo

# the other commands build the model through the same reader
fail1 "nonexistent.h5: cannot open it" "$BTE" info -bte_model perturbo -bte_perturbo_epr nonexistent.h5 $K
fail1 "has a non-finite entry" "$BTE" transport -bte_model perturbo -bte_perturbo_epr bad_nan.h5 $K -bte_view 0
fail1 "hopping_r1 has shape (174)" "$BTE" dynamics -bte_model perturbo -bte_perturbo_epr bad_short.h5 $K -bte_view 0
fail1 "not commensurate" "$BTE" transport -bte_model perturbo -bte_perturbo_epr cubic.h5 $K -bte_perturbo_qdim 3,3,3 -bte_view 0

# a negative layer thickness of a 2D file (Perturbo refuses it too); a FIFO (HDF5 would block on it)
"$PYTHON" "$T/make_epr.py" polar2d thick_neg.h5 --set thickness_2d=-1.5
fail1 "thick_neg.h5: basic_data/thickness_2d = -1.5 bohr must be positive" $G -bte_perturbo_epr thick_neg.h5 -bte_perturbo_kdim 8,8
mkfifo fifo.h5
fail1 "fifo.h5 is not a regular file" $G -bte_perturbo_epr fifo.h5 $K

# on several ranks: every rank reports the same error, nonzero exit, without an abort
for c in "bad_nan.h5 $K|non-finite entry" "bad_short.h5 $K|has shape (174)" "cubic.h5 $K -bte_perturbo_qdim 3,3,3|not commensurate" "text.h5 $K|not a readable HDF5 file"; do
  args=${c%%|*}; pat=${c#*|}
  expect_fail "$pat" keep $MPIEXEC -n "$NP" $G -bte_perturbo_epr $args
  n=$(grep -c -- "$pat" last.txt || true)
  [ "$n" -eq "$NP" ] || { echo "FAIL: expected the error from all $NP ranks, got $n"; cat last.txt; exit 1; }
  # an error every rank raises ends every rank cleanly, not by MPI_Abort (which could kill a rank before it printed)
  grep -qi "MPI_ABORT was invoked" last.txt && { echo "FAIL: a collective error aborted the job"; cat last.txt; exit 1; }
done
[ ! -e out.h5 ] || { echo "FAIL: a failed generate left out.h5"; exit 1; }
ls out.h5.tmp > /dev/null 2>&1 && { echo "FAIL: a failed generate left out.h5.tmp"; exit 1; }
echo "perturbo errors: all refused with one line"
