# si-holes defaults: the kp6 bands with both couplings from their eigenvectors (bir-pikus), the
# variant closest to the measured mobility without a fit (docs/models.md); the couplings follow the
# bands unless given, so the dkk bands keep their isotropic couplings. Tables compared whole (states'
# channels, modes, hw, |g|^2 to full precision; tests/models/model_check -dump).
. "$TESTDIR/common.sh"
set -e
C="$BUILD/tests/model_check"
[ -x "$C" ] || { echo "skip: $C not built"; exit 77; }
M="-bte_model si-holes -bte_grid 14"
OMP_NUM_THREADS=1 "$C" $M -dump default.txt
OMP_NUM_THREADS=1 "$C" $M -bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_optical bir-pikus -dump kp6bp.txt
cmp default.txt kp6bp.txt
OMP_NUM_THREADS=1 "$C" $M -bte_si_holes_bands dkk -dump dkk.txt
OMP_NUM_THREADS=1 "$C" $M -bte_si_holes_bands dkk -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -dump dkkiso.txt
cmp dkk.txt dkkiso.txt
! cmp -s default.txt dkk.txt || { echo "the default table is the dkk one"; exit 1; }
# one coupling given: the other still follows the bands
OMP_NUM_THREADS=1 "$C" $M -bte_si_holes_optical isotropic -dump kp6opt.txt
OMP_NUM_THREADS=1 "$C" $M -bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_optical isotropic -dump kp6opt2.txt
cmp kp6opt.txt kp6opt2.txt
echo "defaults: kp6 + bir-pikus + bir-pikus ($(wc -l < default.txt) lines); dkk + isotropic + isotropic ($(wc -l < dkk.txt) lines)"
# the summary names the default bands and couplings in its parameter list; no caveat about the
# bands, one about the grid below 80^3 (the kp6 mobility converges slowly), kept in the table file
out=$("$BTE" info $M)
grep -q "bands_kp6 = 1" <<<"$out" && grep -q "acoustic_bir_pikus = 1" <<<"$out" && grep -q "optical_bir_pikus = 1" <<<"$out" || { echo "$out"; exit 1; }
! grep -q "model: WARNING the si-holes model's parabolic" <<<"$out" || { echo "$out"; echo "the default warned about its bands"; exit 1; }
grep -q "model: WARNING the si-holes model's mobility converges slowly with the k grid.* this table's grid is 14^3, use -bte_grid 80 or more" <<<"$out" || { echo "$out"; echo "no grid caveat on 14^3"; exit 1; }
"$BTE" generate $M -bte_view 0 -bte_output d14.h5 > /dev/null
grep -q "model: WARNING the si-holes model's mobility converges slowly" <<<"$("$BTE" info -bte_input d14.h5)" || { echo "no grid caveat from the table file"; exit 1; }
out=$("$BTE" info -bte_model si-holes -bte_grid 80 -bte_window 0.02)
! grep -q "model: WARNING" <<<"$out" || { echo "$out"; echo "a grid caveat on 80^3"; exit 1; }
# bir-pikus needs the kp6 eigenvectors
expect_fail "bir-pikus needs -bte_si_holes_bands kp6" "$BTE" info $M -bte_si_holes_bands dkk -bte_si_holes_acoustic bir-pikus
echo ok
