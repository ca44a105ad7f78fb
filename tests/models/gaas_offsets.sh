# -bte_gaas_offsets L,X: the L and X valley minima above Gamma. With 0.33,0.52 eV the states at the L
# and X points have exactly those energies (zero velocity there, Gamma still the lowest state), the
# states of each valley match the analytic non-parabolic valley volumes below the window for these
# offsets (isotropic and anisotropic masses, 140^3, 3 %), the values are recorded in the model
# attributes, the default run still finds 0.29 and 0.48, and bad values are refused in one line.
. "$TESTDIR/common.sh"
set -e
C="$BUILD/tests/model_check"
"$C" -bte_model gaas -bte_grid 24 -gaas_minima -bte_gaas_offsets 0.33,0.52 -gaas_expect_offsets 0.33,0.52
"$C" -bte_model gaas -bte_grid 24 -gaas_minima -bte_gaas_offsets 0.33,0.52 -gaas_expect_offsets 0.33,0.52 -bte_gaas_masses anisotropic
"$C" -bte_model gaas -bte_grid 24 -gaas_minima
expect_fail "L minimum 0.33, expected 0.29" "$C" -bte_model gaas -bte_grid 24 -gaas_minima -bte_gaas_offsets 0.33,0.52
for masses in isotropic anisotropic; do
  "$C" -bte_model gaas -bte_grid 140 -bte_gaas_acoustic 0 -bte_gaas_lo 0 -bte_gaas_intervalley 0 -gaas_valleys 0.03 -bte_gaas_offsets 0.33,0.52 -bte_gaas_masses $masses
done
out=$("$BTE" info -bte_model gaas -bte_grid 20 -bte_gaas_offsets 0.33,0.52)
grep -q "L_offset = 0.33 eV" <<<"$out" && grep -q "X_offset = 0.52 eV" <<<"$out" || { echo "$out"; echo "FAIL: offsets not recorded"; exit 1; }
expect_fail "needs two values L,X" "$BTE" info -bte_model gaas -bte_gaas_offsets 0.33
expect_fail "need 0 < L < X <= 2 eV" "$BTE" info -bte_model gaas -bte_gaas_offsets 0.5,0.4
expect_fail "need 0 < L < X <= 2 eV" "$BTE" info -bte_model gaas -bte_gaas_offsets 0,0.4
echo ok
