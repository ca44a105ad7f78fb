# scripts/study.py keeps what made each result and refuses what it cannot run (docs/dynamics.md,
# "Cost and error against a reference"), on a tiny case (parabolic 12^3, 40 fs):
#  - malformed study files (a method without "name", a sweep without "option", "methods": [],
#    "output_interval": "fifty", an unknown key, an options file found nowhere) are refused with one
#    line before anything runs: no output directory is made;
#  - an options file named relative to the repository ("options/rk4-fixed.opts") is found from a
#    study file elsewhere, run from a folder that is neither;
#  - a second run into the same directory is refused without --reuse or --overwrite; --reuse keeps
#    the reference and the runs made by the same options (their summaries untouched);
#  - other options (--extra) make the reference again, saying why, and every run with it; the
#    description of the reference (study.json, the PNG's title) names --extra;
#  - a reference whose run stopped early (-ts_max_steps) ends the study with one line, and the next
#    run makes it again; a reference.h5 changed after it was made is made again;
#  - --only-existing does not tabulate a summary made against another reference;
#  - a method that needs more applies than the baseline is reported as "more", never "0.xx fewer";
#  - a run stopped before the reference's final time (-ts_max_steps, another final time) is a failed
#    run, not a cheap one; comparison times that are not reference snapshots are refused; --np
#    without a launcher and --out naming a file are refused.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
S="$TESTDIR/../scripts/study.py"
mkdir -p studies run
cat > studies/tiny.json <<'JSON'
{"title": "parabolic 12^3, 40 fs",
 "common": "-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_init gaussian -bte_init_e0_edge 0.1 -bte_init_occupation 0.5 -bte_final_time 40",
 "output_interval": 10,
 "reference": {"options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", "dt": 0.5},
 "methods": [
  {"name": "RK4 fixed", "options_file": "options/rk4-fixed.opts", "sweep": {"option": "-ts_dt", "values": [1, 5]}},
  {"name": "RK 5(4)", "options": "-ts_type rk -ts_rk_type 5dp -ts_adapt_type basic -ts_dt 1", "sweep": {"option": "-ts_rtol", "values": [1e-9], "scale": {"-ts_atol": 1e-3}}}
 ]}
JSON
cd run # neither the repository nor the study's folder
study() { "$PYTHON" "$S" "$@" --mpiexec ""; } # one process, no launcher: the records do not depend on it
has() { grep -q -- "$2" "$1" || { echo "no '$2' in $1: $3"; cat "$1"; exit 1; }; }
hasnt() { ! grep -q -- "$2" "$1" || { echo "'$2' in $1: $3"; cat "$1"; exit 1; }; }
# ---- malformed study files: one line, nothing run ----
bad() { # PATTERN JSON-BODY
  echo "{\"common\": \"-bte_model parabolic -bte_grid 8 -bte_final_time 20\", $2}" > ../studies/bad.json
  expect_fail "$1" study ../studies/bad.json --bte "$BTE" --out badout
  [ "$(study ../studies/bad.json --bte "$BTE" --out badout 2>&1 | wc -l)" = 1 ] || { echo "more than one line"; exit 1; }
  [ ! -e badout ] || { echo "badout made for a refused study"; exit 1; }
}
bad 'methods\[0\] has no "name"' '"methods": [{"options": "-ts_dt 1"}]'
bad 'the sweep has no "option"' '"methods": [{"name": "a", "sweep": {"values": [1, 2]}}]'
bad '"methods" is \[\]' '"methods": []'
bad '"output_interval" is .fifty.' '"output_interval": "fifty", "methods": [{"name": "a"}]'
bad 'unknown key "max_eror"' '"max_eror": 1e-3, "methods": [{"name": "a"}]'
bad 'options file nothere.opts is neither next to the study' '"methods": [{"name": "a", "options_file": "nothere.opts"}]'
bad 'both write the run' '"methods": [{"name": "a b"}, {"name": "a_b"}]'

# ---- a first run: the repository's options file found from here ----
study ../studies/tiny.json --bte "$BTE" --out out --no-plot > first.log
cat first.log
has out/RK4_fixed_1.cmd.json "sha256:" "the options file is recorded by its content"
has first.log "^RK4 fixed .*-ts_dt .*1 .*applies *160 " "RK4 at 1 fs from the repository's options file"
has first.log "^  RK 5(4) .*applies ([0-9.]*x more)" "RK 5(4) at 1e-9 needs more applies than RK4 at 5 fs"
hasnt first.log "0\.[0-9]*x fewer" "a ratio below 1 printed as fewer"
# ---- the same directory again ----
expect_fail "holds an earlier study's results" study ../studies/tiny.json --bte "$BTE" --out out --no-plot
t1=$(stat -c %Y.%y out/RK4_fixed_1.json)
sleep 1
study ../studies/tiny.json --bte "$BTE" --out out --no-plot --reuse > reuse.log
has reuse.log "existing out/reference.h5, made by the same options" "--reuse keeps the reference"
[ "$(stat -c %Y.%y out/RK4_fixed_1.json)" = "$t1" ] || { echo "--reuse made a run again that the same options made"; exit 1; }
hasnt reuse.log "made again" "--reuse made a run again"
# ---- other options: the reference and every run made again ----
study ../studies/tiny.json --bte "$BTE" --out out --no-plot --reuse --extra "-bte_temperature 200" > extra.log
cat extra.log
has extra.log "making out/reference.h5 again: it was made by other options" "--extra changes the reference"
[ "$(grep -c "made again" extra.log)" = 3 ] || { echo "not every run made again against the new reference"; exit 1; }
has out/study.json '"reference": ".*every run with -bte_temperature 200' "the reference's description names --extra"
# ---- a reference that stopped early; one changed after it was made ----
expect_fail "the reference run stopped before its final time" study ../studies/tiny.json --bte "$BTE" --out out --no-plot --reuse --extra "-ts_max_steps 3"
study ../studies/tiny.json --bte "$BTE" --out out --no-plot --reuse > again.log
has again.log "making out/reference.h5 again: nothing records the options" "an incomplete reference is made again"
echo "changed" >> out/reference.h5
expect_fail "changed after it was made" study ../studies/tiny.json --bte "$BTE" --out out --no-plot --only-existing
study ../studies/tiny.json --bte "$BTE" --out out --no-plot --reuse > changed.log
has changed.log "making out/reference.h5 again: it changed after it was made" "a changed reference is made again"
# ---- --only-existing: a summary against another reference is not tabulated ----
"$PYTHON" - <<'PY'
import json
r = json.load(open("out/RK4_fixed_5.cmd.json"))
r["reference_sha256"] = "0" * 64
json.dump(r, open("out/RK4_fixed_5.cmd.json", "w"))
PY
study ../studies/tiny.json --bte "$BTE" --out out --no-plot --only-existing > only.log
has only.log "^RK4 fixed .*-ts_dt .*5 .*against another reference: not used" "a summary against another reference"
has only.log "^RK4 fixed .*-ts_dt .*5 .*not run" "a summary against another reference"
has only.log "^RK4 fixed .*-ts_dt .*1 .*applies *160 " "a summary made against this reference"
# ---- runs that do not cover the reference's interval are failed runs, not cheap ones ----
cat > ../studies/early.json <<'JSON'
{"common": "-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_init gaussian -bte_init_e0_edge 0.1 -bte_init_occupation 0.5 -bte_final_time 40",
 "output_interval": 10, "reference": {"dt": 0.5},
 "methods": [
  {"name": "RK4", "options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", "sweep": {"option": "-ts_dt", "values": [1, 5]}},
  {"name": "RK4 capped", "options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none -ts_max_steps 4", "sweep": {"option": "-ts_dt", "values": [5]}},
  {"name": "RK5 shorter", "options": "-ts_type rk -ts_rk_type 5dp -ts_adapt_type basic -ts_dt 1 -ts_max_time 20", "sweep": {"option": "-ts_rtol", "values": [1e-8]}}]}
JSON
study ../studies/early.json --bte "$BTE" --out early --no-plot > early.log
has early.log "^RK4 capped .*failed: stopped at 20 of 40 fs (CONVERGED_ITS)" "a run stopped by -ts_max_steps"
has early.log "^RK5 shorter .*failed: ended at 20 fs, not at the reference's 40 fs" "a run with another final time"
hasnt early.log "^  RK4 capped .*applies" "a stopped run in the comparison"
# ---- comparison times that are not snapshots of the reference: refused (interpolation error) ----
sed 's/"reference": {"dt": 0.5}/"reference": {"dt": 0.5, "output_interval": 3}/' ../studies/early.json > ../studies/ri.json
expect_fail "output_interval 10 fs is not a multiple of the reference's 3 fs" study ../studies/ri.json --bte "$BTE" --out ri --no-plot
# ---- arguments: --np without a launcher, --out a file ----
expect_fail "--np 2 needs a launcher" study ../studies/early.json --bte "$BTE" --out np2 --np 2
touch afile
expect_fail "--out afile is a file, not a directory" study ../studies/early.json --bte "$BTE" --out afile
echo "study records: all checks passed"
