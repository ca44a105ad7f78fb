# si-holes model: warped heavy/light and split-off bands along [100], [110], [111], velocities,
# couplings (symmetry, formulas, overlap factors), spin-orbit doubling.
set -e
"$BUILD/tests/m2_si_holes_bands"
