# Parabolic model: equilibrium out-scattering rates from the channels (docs/theory.md eq. 3, f -> 0)
# against (a) the smeared golden-rule integral (3%) and (b) the textbook Frohlich and acoustic
# (equipartition) formulas (5%), each mechanism alone, in 6 energy bins of [0.04, 0.22] eV (away from
# the window's top, where final states are cut, and from e < 3 eta); the checker must reject a
# reference off by a factor 2. a = 20 A and 56^3 give ~9,000 states (grid error ~1-2%, measured).
# Acoustic runs with -bte_phonon_min 0: the textbook rate integrates over all q (the 1 meV floor
# would remove q < 0.03/A, ~10% of it).
set -e
T="$BUILD/tests/model_parabolic"
"$T" -test lo -bte_parabolic_a 20 -bte_grid 56 -bte_parabolic_acoustic 0 -tol_smeared 0.03 -tol_textbook 0.05
"$T" -test ac -bte_parabolic_a 20 -bte_grid 56 -bte_parabolic_lo 0 -bte_phonon_min 0 -tol_smeared 0.03 -tol_textbook 0.05
