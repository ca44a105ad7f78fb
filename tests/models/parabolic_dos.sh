# Parabolic model: grid state count N(E) against V_cell Nk (2m*E/hbar^2)^{3/2} / (6 pi^2) inside the
# rigorous lattice-point band, and the DOS histogram against the sqrt(e) law (3%); see model_parabolic.c.
# a = 20 A puts ~85,000 states in the 0.3 eV window of a 120^3 grid; no scattering (states only).
set -e
"$BUILD/tests/model_parabolic" -test dos -bte_parabolic_a 20 -bte_grid 120 -bte_parabolic_lo 0 -bte_parabolic_acoustic 0 -dos_tol 0.03
