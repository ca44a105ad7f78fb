# si-holes model: warped heavy/light and split-off bands along [100], [110], [111], velocities,
# couplings (symmetry, formulas, overlap factors), spin-orbit doubling, the kp6 bands and kp overlaps
# (m2_si_holes_bands.c), refusals of inconsistent band and overlap options.
set -e
"$BUILD/tests/m2_si_holes_bands"
# kp overlaps need the kp6 bands; kp6 needs a spin-orbit splitting
. "$TESTDIR/common.sh"
expect_fail "needs -bte_si_holes_bands kp6" "$BTE" info -bte_model si-holes -bte_grid 8 -bte_si_holes_bands dkk -bte_si_holes_overlap kp
expect_fail "needs a spin-orbit splitting" "$BTE" info -bte_model si-holes -bte_grid 8 -bte_si_holes_bands kp6 -bte_si_holes_delta 0
