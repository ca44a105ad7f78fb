# GaAs three-valley model: valley minima (energy, position, zero velocity), per-valley state counts
# against the analytic non-parabolic valley volumes (isotropic and, with -bte_gaas_masses
# anisotropic, ellipsoidal L and X valleys: energies and velocities recomputed on the ellipsoids,
# counts against (4 pi/3) k_l k_t^2), channel rules (i<j, no i==j, no q=0, energy
# rule, nglobal), identical tables for 1 vs 2 OpenMP threads and 1 vs TEST_NP MPI ranks, channels
# scaling as states^2, the model's 0.7 eV default window and the progress monitor.
. "$TESTDIR/common.sh"
set -e
C="$BUILD/tests/model_check"
G="-bte_model gaas -bte_grid 24"
OMP_NUM_THREADS=1 "$C" $G -gaas_minima -counts -dump t1.txt
OMP_NUM_THREADS=2 "$C" $G -dump t2.txt
cmp t1.txt t2.txt && echo "1 and 2 threads: identical tables"
OMP_NUM_THREADS=1 run_np "${TEST_NP:-2}" "$C" $G -gaas_minima -dump np.txt
cmp t1.txt np.txt && echo "1 and ${TEST_NP:-2} ranks: identical tables"
OMP_NUM_THREADS=2 run_np 3 "$C" $G -dump np3.txt
cmp t1.txt np3.txt && echo "3 ranks x 2 threads: identical table"
# per-valley counts (states only: mechanisms off), 140^3 grid: ~87,000 states, Gamma radius 8.6 grid steps
"$C" -bte_model gaas -bte_grid 140 -bte_gaas_acoustic 0 -bte_gaas_lo 0 -bte_gaas_intervalley 0 -gaas_valleys 0.03
"$C" -bte_model gaas -bte_grid 140 -bte_gaas_acoustic 0 -bte_gaas_lo 0 -bte_gaas_intervalley 0 -gaas_valleys 0.03 -bte_gaas_masses anisotropic
OMP_NUM_THREADS=1 "$C" $G -gaas_minima -bte_gaas_masses anisotropic
expect_fail "needs two values" "$BTE" info -bte_model gaas -bte_grid 8 -bte_gaas_masses anisotropic -bte_gaas_l_masses 1.9
expect_fail "must be positive" "$BTE" info -bte_model gaas -bte_grid 8 -bte_gaas_masses anisotropic -bte_gaas_x_masses 1.3,-1
expect_fail "needs -bte_gaas_masses anisotropic" "$BTE" info -bte_model gaas -bte_grid 8 -bte_gaas_l_masses 1.9,0.075
# at fixed smearing, channels grow as states^2 (each state couples to a fixed energy shell)
r1=$("$C" -bte_model gaas -bte_grid 32 | awk '/^ok:/ {print $4/($2*$2)}')
r2=$("$C" -bte_model gaas -bte_grid 40 | awk '/^ok:/ {print $4/($2*$2)}')
awk -v a="$r1" -v b="$r2" 'BEGIN { d = a/b - 1; printf "channels/states^2: %.4f (32^3), %.4f (40^3), %+.1f%%\n", a, b, 100*d; exit (d > 0.1 || d < -0.1) }'
# window: 0.7 eV by default for gaas, -bte_window wins
"$BTE" info -bte_model gaas -bte_grid 16 | grep -q "energy window: \[0., 0.7\]"
"$BTE" info -bte_model gaas -bte_grid 16 -bte_window 0.3 | grep -q "energy window: \[0., 0.3\]"
"$BTE" info -bte_model gaas -bte_grid 16 -bte_generate_monitor | grep -q "storing channels 100%"
echo ok
