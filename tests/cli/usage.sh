# The driver rejects unknown commands and shows its usage.
. "$TESTDIR/common.sh"
set -e
expect_fail "unknown command 'frobnicate'" "$BTE" frobnicate
"$BTE" -help | grep -q "Commands:"
expect_fail "needs a model" "$BTE" generate -bte_output x.h5
expect_fail "No scattering data" "$BTE" info
# output into a pipe that closes early ends the process quietly by SIGPIPE, with no PETSc
# "Caught signal" traceback
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_output p.h5 -bte_view 0 >/dev/null
err=$( { "$BTE" info -bte_input p.h5 | true; } 2>&1 )
case "$err" in *"Caught signal"*|*"PETSC ERROR"*) echo "FAIL: SIGPIPE gave a traceback: $err"; exit 1;; esac
echo "ok: SIGPIPE ends quietly"
# --help and -h alone: the usage on standard output, exit 0, as other tools
for h in --help -h; do "$BTE" $h | grep -q "Commands:" || { echo "FAIL: bte $h"; exit 1; }; done
echo "ok: --help and -h exit 0"
# an options file that cannot be read: one line naming it, not PETSc's traceback from its start-up
expect_fail "bte info: error: -options_file nonexistent.opts: cannot read it (No such file or directory)" "$BTE" info -bte_input p.h5 -options_file nonexistent.opts
mkdir -p optdir
expect_fail "bte info: error: -options_file optdir: cannot read it (is a directory)" "$BTE" info -bte_input p.h5 -options_file optdir
for o in "-options_file nonexistent.opts" "-options_file optdir"; do
  out=$("$BTE" info -bte_input p.h5 $o 2>&1 || true)
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "FAIL: $o gave more than one line:"; echo "$out"; exit 1; }
done
echo "ok: an unreadable options file is one line"
# a line PETSc's options-file reader refuses (in its start-up, with a traceback): one line naming
# the file and the line; comments, blank lines, tabs, quotes and alias lines are fine
chk() { # chk CONTENT PATTERN
  printf -- "$1" > bad.opts
  expect_fail "$2" "$BTE" info -bte_input p.h5 -options_file bad.opts
  out=$("$BTE" info -bte_input p.h5 -options_file bad.opts 2>&1 || true)
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "FAIL: more than one line:"; echo "$out"; exit 1; }
}
chk '-bte_temperature 77\nbte_model parabolic\n' "bte info: error: -options_file bad.opts, line 2: 'bte_model' is not an option (an option starts with '-'; '#' starts a comment)"
chk '-bte_temperature 77 -bte_smearing 0.02\n' "line 1: two options on one line (-bte_temperature ... -bte_smearing): one per line"
chk '-bte_temperatures 100 200\n' "line 1: -bte_temperatures has more than one value (100 200 ...): a list is one word, e.g. 1,2,3"
chk '# a comment\n-1e3 3\n' "line 2: -1e3 is not an option name"
chk 'alias -bte_t\n' "line 1: an alias line is 'alias -name -other'"
printf -- '-bte_temperature 77\n-bte_foo bar baz\n' > nested.opts
chk '-options_file nested.opts\n' "-options_file nested.opts, line 2: -bte_foo has more than one value"
chk '-options_file nonexistent.opts\n' "-options_file nonexistent.opts: cannot read it"
printf -- '  # header\n\n\t-bte_temperature "77"  # the lattice\r\nalias -bte_t -bte_temperature\n' > good.opts
"$BTE" info -bte_input p.h5 -options_file good.opts | grep -q "temperature: 77\. K" || { echo "FAIL: good.opts"; exit 1; }
echo "ok: options-file lines PETSc refuses are one line naming the line"
# a value PETSc cannot parse is named with its option (PETSc's message names the value only)
expect_fail "bte info: error: -bte_grid 12,12,12: Input string 12,12,12 has no integer value" "$BTE" info -bte_model parabolic -bte_grid 12,12,12
expect_fail "bte info: error: -bte_temperature 3OO: Input string 3OO has no numeric value" "$BTE" info -bte_input p.h5 -bte_temperature 3OO
expect_fail "bte dynamics: error: -bte_efield abc,0,0: Input string abc has no numeric value" "$BTE" dynamics -bte_input p.h5 -bte_efield abc,0,0
# PETSc's Boolean and type messages name the value only: the option is named too
expect_fail "bte info: error: -bte_parabolic_lo maybe: Unknown logical value: maybe" "$BTE" info -bte_model parabolic -bte_grid 8 -bte_parabolic_lo maybe
expect_fail "bte dynamics: error: -bte_drift_mat_type foo: Unknown Mat type given: foo" "$BTE" dynamics -bte_input p.h5 -bte_efield 100,0,0 -bte_final_time 1 -bte_drift_mat_type foo
# an integer option's error names the integer option, not another with the same value
expect_fail "bte info: error: -bte_grid 8.5: Input string 8.5 has no integer value" "$BTE" info -bte_model parabolic -bte_parabolic_a 8.5 -bte_grid 8.5
# bench names its own option for an unknown type
# (the types listed are the build's: a CUDA build lists them in another order, with -mixed forms)
expect_fail "bte_bench_types: unknown type 'foo'; the types are .*pair" "$BTE" bench -bte_input p.h5 -bte_bench_types pair,foo
