# bte generate -bte_model perturbo on the polar 2D fixtures (tests/perturbo/make_epr.py polar2d,
# polar2d_b: system_2d = 1, lpolar = 1) against tables written directly by Python
# (tests/perturbo/direct_table.py) with Perturbo's 2D long-range terms (the dipole-dipole D_LR with
# its on-site term and the Frohlich vertex in their 2D forms, make_epr.Model.dlr/glr), compared by
# tests/perturbo/compare_tables.py as in table.sh. Cases, each on 1 rank and TEST_NP ranks
# (bit-identical):
#  j. polar2d (square, thickness_2d = 8 bohr), electrons, -bte_perturbo_kdim 25,25, window 0.4 eV
#     (also on 2 OpenMP threads: the same file);
#  k. polar2d_b (skewed, eps_xy != 0, non-symmetric Z*, polar_alpha 0.7, loto_alpha 1.4, no
#     thickness_2d: 6 Angstrom), electrons, k grid 24x20 with the q grid 12x10 (g2 scaled by Nk/Nq);
#  l. polar2d with -bte_perturbo_polar 0 (short range only), which differs from j.
# The Python tables evaluate the long-range terms at bte's q points (-qpoint bte: of q and -q on the
# q grid in [0, 1), the one with the lower index, conjugated for the other); the sums being complete,
# hence periodic, the table made at Perturbo's points (the Gamma-centred zone) is the same.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
NP=${TEST_NP:-2}
for m in polar2d polar2d_b; do "$PYTHON" "$T/make_epr.py" $m $m.h5; done

. "$T/cases.bash"

J="-bte_perturbo_kdim 25,25 -bte_window 0.4 -bte_smearing 0.01 -bte_phonon_min 0.002"
run_case j polar2d "-kdim 25,25 -window 0.4 -smearing 0.01 -phonon_min 0.002 -qpoint bte" "$J"
grep -q "grid: 2D, 25 x 25 x 1" info_j.txt || { echo "FAIL: the 2D table is not read as 2D"; cat info_j.txt; exit 1; }
OMP_NUM_THREADS=2 "$BTE" generate -bte_model perturbo -bte_perturbo_epr polar2d.h5 $J -bte_view 0 -bte_perturbo_monitor 0 -bte_output thr_j.h5 > /dev/null
identical gen1_j.h5 thr_j.h5

run_case k polar2d_b "-kdim 24,20 -qdim 12,10 -window 0.4 -smearing 0.008 -phonon_min 0.002 -qpoint bte" \
  "-bte_perturbo_kdim 24,20 -bte_perturbo_qdim 12,10 -bte_window 0.4 -bte_smearing 0.008 -bte_phonon_min 0.002"

run_case l polar2d "-kdim 25,25 -polar 0 -window 0.4 -smearing 0.01 -phonon_min 0.002" "$J -bte_perturbo_polar 0"
"$PYTHON" "$T/compare_tables.py" gen1_j.h5 gen1_l.h5 > jl.txt && { echo "FAIL: the 2D long-range terms change nothing"; exit 1; } || echo "ok   (the 2D long-range terms change the table)"

# the long-range sums are complete, hence periodic: evaluating them at Perturbo's q points
# (Gamma-centred) instead of bte's gives the same table
"$PYTHON" "$T/direct_table.py" polar2d perturbo_j.h5 -kdim 25,25 -window 0.4 -smearing 0.01 -phonon_min 0.002 -qpoint perturbo > /dev/null
"$PYTHON" "$T/compare_tables.py" gen1_j.h5 perturbo_j.h5
echo "perturbo 2D tables: all cases agree"
