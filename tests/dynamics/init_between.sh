# A gaussian initial state whose peak falls between the grid's energies (GaAs 30^3 has no state
# within 0.1 eV of the default band edge + 0.1 eV) started the run from 1e-16 carriers per cell at
# the band edge without a word: the run says so in one line, naming the nearest state's distance.
. "$TESTDIR/common.sh"
set -e
out=$("$BTE" dynamics -bte_model gaas -bte_grid 30 -bte_final_time 1 -bte_diagnostics 0 -bte_view 0 2>&1)
grep -q "initial state: WARNING the gaussian at 0.1 eV (band edge + 0.1 eV), width 0.02 eV, falls between the grid's states (the nearest is 0.1 eV away): its largest occupation is 1.4e-12, not the 0.1 asked for" <<<"$out" || { echo "no warning on GaAs 30^3:"; echo "$out"; exit 1; }
echo "ok: GaAs 30^3 warns"
# where a state lies under the peak, nothing is said: GaAs 40^3, and a wider gaussian on 30^3
for o in "-bte_grid 40" "-bte_grid 30 -bte_init_smear 0.06"; do
  out=$("$BTE" dynamics -bte_model gaas $o -bte_final_time 1 -bte_diagnostics 0 -bte_view 0 2>&1)
  ! grep -q "falls between the grid's states" <<<"$out" || { echo "warned with $o:"; echo "$out"; exit 1; }
done
echo "ok: no warning where the grid holds the peak"
# a final time not after the start is refused before the table is made (it was after the setup
# and the summary): no summary line precedes the error
out=$("$BTE" dynamics -bte_model gaas -bte_grid 30 -bte_final_time -5 2>&1 || true)
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -q "The final time -5. fs is not after the initial time 0 fs" <<<"$out" || { echo "final time -5:"; echo "$out"; exit 1; }
echo "ok: -bte_final_time -5 refused before any work"
