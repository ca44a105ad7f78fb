# scripts/study.py on a tiny case (parabolic valley 12^3, 200 fs): the reference is made, every
# configuration runs, and the table is checked against independent facts: the run with the
# reference's own method and step has error exactly 0; fixed RK4 costs 4 applies per step
# (4 T / dt); its errors fall about 16x per halved step (fourth order); adaptive RK 5(4) errors
# fall with the tolerance; a split run (first_leg, then a restart) adds up its legs' applies and has
# error 0 when both legs take the reference's step; a run that leaves [0, 1] is recorded as failed, not plotted; the CSV, JSON
# and PNG are written; without matplotlib or numpy the tables are still written and --plot-only
# draws the PNG later from study.json; a bad study file is refused with one line.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
S="$TESTDIR/../scripts/study.py"
cat > tiny.json <<'JSON'
{"title": "parabolic 12^3, 200 fs",
 "common": "-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_init gaussian -bte_init_e0_edge 0.1 -bte_init_occupation 0.5 -bte_final_time 200 -bte_state_tolerance 0",
 "output_interval": 100,
 "reference": {"options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", "dt": 1},
 "methods": [
  {"name": "RK4 fixed", "fixed": true, "options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", "sweep": {"option": "-ts_dt", "values": [1, 5, 10, 20, 100]}},
  {"name": "RK 5(4)", "options": "-ts_type rk -ts_rk_type 5dp -ts_adapt_type basic -ts_dt 1", "sweep": {"option": "-ts_rtol", "values": [1e-3, 1e-6], "scale": {"-ts_atol": 1e-3}}},
  {"name": "split", "first_leg": {"until": 100, "options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none -ts_dt 1"}, "options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", "sweep": {"option": "-ts_dt", "values": [1, 10]}}
 ]}
JSON
"$PYTHON" "$S" tiny.json --bte "$BTE" --out out > study.log
cat study.log
"$PYTHON" - <<'PY'
import csv, json, os, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
rows = list(csv.DictReader(open("out/study.csv")))
check(len(rows) == 9, "9 configurations in the CSV")
rk4 = {float(r["value"]): r for r in rows if r["method"] == "RK4 fixed"}
check(rk4[1.0]["status"] == "ok" and float(rk4[1.0]["error_max"]) == 0.0, "RK4 at the reference's step: error exactly 0")
check(all(int(rk4[d]["collision_applies"]) == 4 * 200 / d for d in (1.0, 5.0, 10.0, 20.0)), "RK4 applies = 4 T/dt")
e5, e10, e20 = (float(rk4[d]["error_max"]) for d in (5.0, 10.0, 20.0))
check(10 < e10 / e5 < 20 and 10 < e20 / e10 < 20, "RK4 errors fall 16x per halved step: %.2e %.2e %.2e (ratios %.1f, %.1f)" % (e5, e10, e20, e10 / e5, e20 / e10))
check(rk4[100.0]["status"].startswith("failed"), "RK4 at 100 fs (leaves [0, 1]: -bte_state_tolerance 0) recorded as failed: %s" % rk4[100.0]["status"][:90])
a = [r for r in rows if r["method"] == "RK 5(4)"]
check(all(r["status"] == "ok" for r in a) and float(a[1]["error_max"]) < float(a[0]["error_max"]), "RK 5(4): error %.2e at rtol 1e-3, %.2e at 1e-6" % (float(a[0]["error_max"]), float(a[1]["error_max"])))
sp = {float(r["value"]): r for r in rows if r["method"] == "split"}
check(sp[1.0]["status"] == "ok" and float(sp[1.0]["error_max"]) == 0.0 and int(sp[1.0]["collision_applies"]) == 800 and int(sp[1.0]["steps"]) == 200,
      "split run, both legs at the reference's step: error exactly 0, applies 400 + 400, steps 100 + 100")
check(sp[10.0]["status"] == "ok" and int(sp[10.0]["collision_applies"]) == 400 + 40 and 0 < float(sp[10.0]["error_max"]) < float(rk4[10.0]["error_max"]),
      "split run, second leg at 10 fs: applies 400 + 40, error %.2e (RK4 at 10 fs throughout: %.2e)" % (float(sp[10.0]["error_max"]), float(rk4[10.0]["error_max"])))
j = json.load(open("out/study.json"))
check(j["baseline"] == "RK4 fixed" and j["equal_accuracy"][0]["applies"] == 40, "equal accuracy against RK4 at its largest stable step (20 fs, 40 applies)")
check(os.path.getsize("out/study.png") > 10000, "work-precision PNG written")
sys.exit(0 if ok else 1)
PY
# without matplotlib and numpy (a stock python3): a run (RK4 at 5 fs, made again), the CSV, JSON
# and Markdown, a note for the PNG, exit 0; then --plot-only draws the PNG from study.json alone (no driver, no reference)
mv out/study.png first.png
rm out/study.csv out/study.json out/RK4_fixed_5.json
"$PYTHON" -c 'import runpy, sys; sys.modules["matplotlib"] = sys.modules["numpy"] = sys.modules["h5py"] = None; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name="__main__")' \
  "$S" tiny.json --bte "$BTE" --out out --reuse > bare.log 2> bare.err
grep -q "no matplotlib" bare.err || { echo "no note about matplotlib"; cat bare.log bare.err; exit 1; }
[ -s out/study.csv ] && [ -s out/study.json ] && [ -s out/RK4_fixed_5.json ] && [ ! -e out/study.png ] || { echo "without matplotlib: the run made again, CSV and JSON written, no PNG expected"; ls out; exit 1; }
grep -q "^RK4 fixed .*-ts_dt .*5 .*applies *160 " bare.log || { echo "the run at 5 fs, made again without numpy, is not in the table"; cat bare.log; exit 1; }
mkdir plotonly && cp out/study.json plotonly/
"$PYTHON" "$S" tiny.json --out plotonly --plot-only --bte /nonexistent > plot.log
[ "$(stat -c %s plotonly/study.png)" -gt 10000 ] || { echo "--plot-only wrote no PNG"; cat plot.log; exit 1; }
echo "ok   no matplotlib: tables written, PNG skipped with a note; --plot-only draws it from study.json"
expect_fail "plot-only, but cannot read" "$PYTHON" "$S" tiny.json --out nothing-here --plot-only
echo '{"common": "-bte_model parabolic"}' > bad.json
expect_fail 'has no "methods"' "$PYTHON" "$S" bad.json --bte "$BTE" --out bad
echo 'not json' > bad2.json
expect_fail "cannot read the study" "$PYTHON" "$S" bad2.json --bte "$BTE" --out bad
echo "study: all checks passed"
