# A model on its default grid (no -bte_grid) that fails the diagnostics says so in one line, with
# the numbers of the diagnostics' own lines (GaAs 24^3: 3 pieces, defect 0.024, relaxes to 377.8 K);
# an explicit -bte_grid, or a table, prints no such line. 1 and 2 ranks.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
out=$("$BTE" info -bte_model gaas)
line=$(grep "defaults: WARNING" <<<"$out") || { echo "FAIL: no defaults line for gaas on its default grid"; echo "$out"; exit 1; }
echo "$line"
grep -qF "the gaas model on its default grid (24^3, no -bte_grid, default window) fails the checks above (3 pieces" <<<"$line"
# the numbers are those of the lines above it
pieces=$(grep -o "WARNING [0-9]* disconnected pieces" <<<"$out" | grep -o "[0-9]*")
defect=$(grep -o "equilibrium defect: [A-Z ]*[0-9.e+-]*" <<<"$out" | grep -o "[0-9.e+-]*$")
trel=$(grep -o "relaxation temperature: [A-Z ]*[0-9.]* K" <<<"$out" | grep -o "[0-9.]* K$")
echo "pieces $pieces, defect $defect, relaxation temperature $trel"
grep -qF "($pieces pieces, defect $defect, relaxes to $trel" <<<"$line" || { echo "FAIL: the defaults line does not repeat the diagnostics' numbers"; exit 1; }
[ "$(run_np "$NP" "$BTE" info -bte_model gaas | grep "defaults:")" = "$line" ] || { echo "FAIL: differs on $NP ranks"; exit 1; }
# chosen grid: no line (the same table)
! "$BTE" info -bte_model gaas -bte_grid 24 | grep -q "defaults:" || { echo "FAIL: defaults line with -bte_grid"; exit 1; }
"$BTE" generate -bte_model gaas -bte_output g24.h5 -bte_view 0 > /dev/null
! "$BTE" info -bte_input g24.h5 | grep -q "defaults:" || { echo "FAIL: defaults line for a table"; exit 1; }
echo "ok   no defaults line with -bte_grid or a table"
