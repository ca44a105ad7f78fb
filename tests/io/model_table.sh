# A built-in model's table through the file: 'bte generate' writes it, 'bte info' reads it back on
# 1 and TEST_NP ranks, and the summary must equal the one of the model built in memory (grid,
# window, states, channels, settings, model parameters). The model is generated on one rank only,
# so this test exercises the table I/O, not the model builder's parallel path.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
"$BTE" info -help >help.txt 2>&1 || true
if ! grep -q parabolic help.txt; then echo "skip: no parabolic model built in"; exit 77; fi
opts="-bte_model parabolic -bte_grid 10 -bte_temperature 150"

"$BTE" generate $opts -bte_output par.h5 -bte_view 0
"$BTE" info $opts >model.txt
"$BTE" info -bte_input par.h5 >table1.txt
run_np "$NP" "$BTE" info -bte_input par.h5 -bte_io_chunk 17 >tableP.txt

# identical summaries, except the origin line, the rank count and the per-rank memory
# (and the advice for a finer grid, which names the model's options or the table's maker)
norm() { grep -v -e '^ *model: ' -e '^ *table: ' -e '^ *type: ' -e 'largest rank' -e 'BTE Object' "$1" | sed -e 's/ on [0-9]* rank(s)//' -e 's/too coarse for the window: .*/too coarse for the window/'; }
for t in table1.txt tableP.txt; do
  if ! diff <(norm model.txt) <(norm "$t"); then echo "FAIL: $t differs from the model's summary"; exit 1; fi
done
grep -q "temperature: 150" table1.txt || { echo "FAIL: the table's temperature was not used"; cat table1.txt; exit 1; }
grep -q "source: bte generate" table1.txt || { echo "FAIL: no provenance"; cat table1.txt; exit 1; }
# an explicit option wins over the table's setting
"$BTE" info -bte_input par.h5 -bte_temperature 300 >t300.txt
grep -q "temperature: 300" t300.txt || { echo "FAIL: -bte_temperature ignored"; cat t300.txt; exit 1; }
# the delta the table was made with (-bte_delta) is a run setting it carries: a run from the file
# takes it (Fermi-Dirac an exact steady state with balanced: defect ~1e-16) unless one is given
"$BTE" generate -bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_delta balanced -bte_output bal.h5 -bte_view 0
"$BTE" info -bte_input bal.h5 >bal.txt
grep -q "(delta: balanced)" bal.txt && grep -q "equilibrium defect: below 1e-13 (rounding)" bal.txt || { echo "FAIL: a table made with -bte_delta balanced is not run with it"; cat bal.txt; exit 1; }
"$BTE" info -bte_input bal.h5 -bte_delta perturbo >balp.txt
grep -q "(delta: perturbo)" balp.txt || { echo "FAIL: -bte_delta perturbo did not win over the table's"; cat balp.txt; exit 1; }
grep -q "(delta: perturbo)" table1.txt || { echo "FAIL: a table made with the default delta is not run with Perturbo's"; exit 1; }
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then # a table from before the attribute: Perturbo's
  cp bal.h5 old.h5 && "$PYTHON" -c "import h5py; del h5py.File('old.h5', 'r+')['channels'].attrs['delta']"
  "$BTE" info -bte_input old.h5 | grep -q "(delta: perturbo)" || { echo "FAIL: a table without the delta attribute"; exit 1; }
fi
echo "model table: summaries identical on 1 and $NP ranks; the table's delta carried to a run"
