# bte generate -bte_model perturbo on closed-form epr fixtures (tests/perturbo/make_epr.py) against a
# table written directly by Python (tests/perturbo/direct_table.py; no bte code involved) from the
# closed forms (1-band models) or the real-space models' lattice sums (several bands or atoms, with
# the long-range terms), with Perturbo's selection rules, compared by tests/perturbo/compare_tables.py:
# the same grid and settings, the same states (kindex, band; energies to 1e-12 eV, velocities to
# 1e-10 of max |v|), the same channels as sets (per state pair and phonon energy; hw to 1e-10 eV, g2
# summed over degenerate modes to 1e-10 relative). Cases, each on 1 rank and TEST_NP ranks:
#  a. cubic, electrons, 16^3, window 0.5 eV above the band edge, eta 10 meV, phonon_min 2 meV
#     (also built in memory before writing: -bte_generate_stream 0);
#  b. ortho (complex hopping, orthorhombic), holes, k grid 16x16x12 with the q grid 8x8x6 (g2
#     scaled by Nk/Nq), absolute window -bte_perturbo_emin/emax, -bte_perturbo_bands 1,1;
#  c. square2d (2D), electrons, -bte_perturbo_kdim 24,24 (two numbers in 2D);
#  d. twoband (2 Wannier functions; the Python side diagonalises the 2x2 H(k) and rotates
#     g_mn = U_{k+q}^+ g^W U_k itself), the upper band only (-bte_perturbo_bands 2,2), 14^3;
#  e. twoband, holes, both bands, absolute window [4.0, 5.2] eV that holds the top of band 1 and
#     the bottom of band 2, 12^3;
#  f. polar (2 atoms, 6 modes) with the long-range terms (the Python side adds Perturbo's
#     dipole-dipole D_LR with its on-site term and the Frohlich vertex, make_epr.Model.dlr/glr), 12^3;
#  g. the same with -bte_perturbo_polar 0 (short range only: some modes are imaginary, dropped);
#  h. polar_aniso (skewed cell, non-symmetric Z*, anisotropic eps), 12x10x12 with q grid 6x5x6;
#  i. polar2w (2 Wannier functions: the Frohlich vertex rotated by U_{k+q}^+ U_k), 12^3.
# And the k grid from -bte_grid (16 -> 16^3; 24 in 2D -> 24x24x1) equals -bte_perturbo_kdim; a
# spinor file gives spin degeneracy 1; bte info on the model in memory says what it says on the table.
# The 1- and NP-rank files (and 1 and 2 OpenMP threads: cases a, d, f) hold bit-identical
# datasets; the Python tables are valid bte tables (bte info reads them).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1
T="$TESTDIR/perturbo"
NP=${TEST_NP:-2}
for m in cubic ortho square2d twoband polar polar_aniso polar2w; do "$PYTHON" "$T/make_epr.py" $m $m.h5; done

. "$T/cases.bash"

run_case a cubic "-kdim 16,16,16 -window 0.5 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002"
OMP_NUM_THREADS=2 "$BTE" generate -bte_model perturbo -bte_perturbo_epr cubic.h5 -bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_view 0 -bte_output gen_thr.h5 > /dev/null
identical gen1_a.h5 gen_thr.h5
"$BTE" generate -bte_model perturbo -bte_perturbo_epr cubic.h5 -bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_view 0 -bte_generate_stream 0 -bte_output gen_mem.h5 > /dev/null
identical gen1_a.h5 gen_mem.h5

run_case b ortho "-kdim 16,16,12 -qdim 8,8,6 -carrier holes -emin 4.6 -emax 5.3 -smearing 0.008 -phonon_min 0.003" \
  "-bte_perturbo_kdim 16,16,12 -bte_perturbo_qdim 8,8,6 -bte_perturbo_carrier holes -bte_perturbo_emin 4.6 -bte_perturbo_emax 5.3 -bte_perturbo_bands 1,1 -bte_smearing 0.008 -bte_phonon_min 0.003"

run_case c square2d "-kdim 24,24 -window 0.4 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 24,24 -bte_window 0.4 -bte_smearing 0.01 -bte_phonon_min 0.002"
grep -q "grid: 2D, 24 x 24 x 1" info_c.txt || { echo "FAIL: the 2D table is not read as 2D"; cat info_c.txt; exit 1; }

run_case d twoband "-kdim 14,14,14 -bands 2,2 -window 0.5 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 14,14,14 -bte_perturbo_bands 2,2 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002"

run_case e twoband "-kdim 12,12,12 -carrier holes -emin 4.0 -emax 5.2 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 12,12,12 -bte_perturbo_carrier holes -bte_perturbo_emin 4.0 -bte_perturbo_emax 5.2 -bte_smearing 0.01 -bte_phonon_min 0.002"
"$PYTHON" -c "
import h5py, numpy as np, sys
b = h5py.File('gen1_e.h5', 'r')['states/band'][:]
print('     case e: states per band', np.bincount(b))
sys.exit(0 if np.all(np.bincount(b, minlength=2) > 0) else 1)"

run_case f polar "-kdim 12,12,12 -window 0.5 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 12,12,12 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002"
run_case g polar "-kdim 12,12,12 -polar 0 -window 0.5 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 12,12,12 -bte_perturbo_polar 0 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002"
run_case h polar_aniso "-kdim 12,10,12 -qdim 6,5,6 -window 0.5 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 12,10,12 -bte_perturbo_qdim 6,5,6 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002"
run_case i polar2w "-kdim 12,12,12 -window 0.6 -smearing 0.01 -phonon_min 0.002" \
  "-bte_perturbo_kdim 12,12,12 -bte_window 0.6 -bte_smearing 0.01 -bte_phonon_min 0.002"
# OpenMP: 2 threads write the same file (the polar and two-band cases too)
OMP_NUM_THREADS=2 "$BTE" generate -bte_model perturbo -bte_perturbo_epr polar.h5 -bte_perturbo_kdim 12,12,12 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_view 0 -bte_perturbo_monitor 0 -bte_output thr_f.h5 > /dev/null
identical gen1_f.h5 thr_f.h5
OMP_NUM_THREADS=2 "$BTE" generate -bte_model perturbo -bte_perturbo_epr twoband.h5 -bte_perturbo_kdim 14,14,14 -bte_perturbo_bands 2,2 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_view 0 -bte_perturbo_monitor 0 -bte_output thr_d.h5 > /dev/null
identical gen1_d.h5 thr_d.h5
"$PYTHON" "$T/compare_tables.py" gen1_f.h5 gen1_g.h5 > fg.txt && { echo "FAIL: the long-range terms change nothing"; exit 1; } || echo "ok   (the long-range terms change the polar table)"

# the k grid from -bte_grid (n in every direction; 1 along a3 in 2D)
"$BTE" generate -bte_model perturbo -bte_perturbo_epr cubic.h5 -bte_grid 16 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_view 0 -bte_perturbo_monitor 0 -bte_output grid_a.h5 > /dev/null
identical gen1_a.h5 grid_a.h5
"$BTE" generate -bte_model perturbo -bte_perturbo_epr square2d.h5 -bte_grid 24 -bte_window 0.4 -bte_smearing 0.01 -bte_phonon_min 0.002 -bte_view 0 -bte_perturbo_monitor 0 -bte_output grid_c.h5 > /dev/null
identical gen1_c.h5 grid_c.h5

# spinor files: spin degeneracy 1
"$PYTHON" "$T/make_epr.py" cubic spinor.h5 --set spinor=1
"$BTE" generate -bte_model perturbo -bte_perturbo_epr spinor.h5 -bte_perturbo_kdim 8,8,8 -bte_view 0 -bte_perturbo_monitor 0 -bte_output spinor_t.h5 > /dev/null
"$PYTHON" -c "
import h5py, sys
s = h5py.File('spinor_t.h5', 'r')['states'].attrs['spin_degeneracy']
print(('ok  ' if s == 1 else 'FAIL') + ' spinor = 1: spin degeneracy %d' % s); sys.exit(0 if s == 1 else 1)"

# bte info on the model built in memory = on its table (1 and NP ranks), but for the origin line
norm() { grep -v -e '^ *model: ' -e '^ *table: ' -e '^ *type: ' -e 'largest rank' -e 'BTE Object' "$1" | sed 's/ on [0-9]* rank(s)//'; }
for c in "a cubic.h5 -bte_perturbo_kdim 16,16,16 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002" \
         "f polar.h5 -bte_perturbo_kdim 12,12,12 -bte_window 0.5 -bte_smearing 0.01 -bte_phonon_min 0.002"; do
  set -- $c; n=$1; shift; f=$1; shift
  "$BTE" info -bte_model perturbo -bte_perturbo_epr $f "$@" -bte_perturbo_monitor 0 > info_model_$n.txt
  run_np "$NP" "$BTE" info -bte_model perturbo -bte_perturbo_epr $f "$@" -bte_perturbo_monitor 0 > info_modelP_$n.txt
  "$BTE" info -bte_input gen1_$n.h5 > info_table_$n.txt
  for x in info_modelP_$n.txt info_table_$n.txt; do
    diff <(norm info_model_$n.txt) <(norm $x) || { echo "FAIL: bte info of case $n: $x differs from the model's summary"; exit 1; }
  done
  echo "ok   bte info of case $n: the model in memory (1 and $NP ranks) = its table"
done
echo "perturbo tables: all cases agree"
