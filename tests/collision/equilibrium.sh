# Fermi-Dirac occupations at the lattice temperature are an equilibrium of I[f] up to the
# smearing error, which shrinks with eta at a fixed grid (parabolic model, resolved valley).
. "$TESTDIR/common.sh"
set -e
run_np ${TEST_NP:-2} "$BUILD/tests/coll_equil" -bte_model parabolic -bte_grid 24 -bte_parabolic_a 40 -bte_window 0.15 -etas 0.02,0.01,0.005 -mu 0.02 -rmax 0.02
