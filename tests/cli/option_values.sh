# An option that takes a value (integer, real, string, enum, list) given without one stops the run
# before any work with one line naming it, exit 1: PETSc reads such an option as not set, so
# `-bte_grid` alone ran on the default grid, exit 0. Boolean options take no value and still run.
. "$TESTDIR/common.sh"
set -e
M="-bte_model parabolic -bte_parabolic_a 20"
one_line() { # PATTERN cmd...: exit 1 and one line on stderr, naming the option
  local pat=$1 err rc; shift
  err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
  [ $rc -eq 1 ] || { echo "FAIL: exit $rc (expected 1): $*"; echo "$err"; exit 1; }
  [ "$(grep -c . <<<"$err")" -eq 1 ] || { echo "FAIL: more than one line on stderr for: $*"; echo "$err"; exit 1; }
  grep -q -- "$pat" <<<"$err" || { echo "FAIL: no '$pat' in: $err"; exit 1; }
  echo "ok: $err"
}
one_line "bte info: error: option -bte_grid needs a value" "$BTE" info $M -bte_grid
one_line "option -bte_grid needs a value" "$BTE" info $M -bte_grid -bte_temperature 77
one_line "option -bte_temperature needs a value" "$BTE" info $M -bte_grid 8 -bte_temperature
one_line "option -bte_model needs a value" "$BTE" info -bte_model -bte_grid 8
one_line "option -bte_delta needs a value" "$BTE" info $M -bte_grid 8 -bte_delta
one_line "option -bte_parabolic_mass needs a value" "$BTE" info $M -bte_grid 8 -bte_parabolic_mass
# lists: the transport's temperatures, the high-field strengths, the drift's field
one_line "option -bte_temperatures needs a value" "$BTE" transport $M -bte_grid 8 -bte_temperatures
one_line "option -bte_efield_list needs a value" "$BTE" highfield $M -bte_grid 8 -bte_efield_list
one_line "option -bte_efield needs a value" "$BTE" dynamics $M -bte_grid 8 -bte_final_time 10 -bte_efield
# an option of a bte preconditioner under a solver's prefix
one_line "option -sw_pc_bte_twolevel_bins needs a value" "$BTE" dynamics $M -bte_grid 8 -bte_final_time 10 -sw_pc_bte_twolevel_bins
# before any work: no table written
one_line "option -bte_grid needs a value" "$BTE" generate $M -bte_output t.h5 -bte_grid
[ ! -e t.h5 ] && [ ! -e t.h5.tmp ] || { echo "FAIL: generate wrote a table despite the refusal"; exit 1; }
# from an options file, and with -help (which runs nothing else)
printf -- '-bte_grid 8\n-bte_window\n' > novalue.opts
one_line "option -bte_window needs a value" "$BTE" info $M -options_file novalue.opts
one_line "option -bte_grid needs a value" "$BTE" transport -help -bte_grid
# on several ranks: the same line from every rank, nonzero exit
expect_fail "option -bte_grid needs a value" $MPIEXEC -n ${TEST_NP:-2} "$BTE" info $M -bte_grid
# Boolean options take no value; a negative number is a value, not an option
"$BTE" info $M -bte_grid 8 -bte_parabolic_lo -bte_traceback >/dev/null
"$BTE" info $M -bte_grid 8 -bte_parabolic_dac -7 | grep -q "states"
echo "ok: boolean options without a value and negative values run"
# The two lists of src/cli/unused.c, IntegerOptions and ValueOptions, hold exactly the -bte_ (and
# -pc_bte_) options that src/ reads with a reader that takes a value: every PetscOptions reader but
# the boolean ones
src="$TESTDIR/../src"
if [ -d "$src" ]; then
  readers='PetscOptions(Int|IntArray|BoundedInt|RangeInt|Real|RealArray|Scalar|ScalarArray|String|StringArray|Enum|EnumArray|EList|FList|GetInt|GetIntArray|GetReal|GetRealArray|GetScalar|GetString|GetStringArray|GetEnum|GetEList)'
  read=$(grep -rhoE "$readers"'\([^"]*"-[a-z0-9_]+"' "$src" | sed -E 's/.*"(-[a-z0-9_]+)"/\1/' | grep -E '^-(bte|pc_bte)_' | sort -u)
  listed=$(grep -oE '(IntegerOptions|ValueOptions)\[\] = \{[^}]*\}' "$src/cli/unused.c" | grep -oE '"-[a-z0-9_]+"' | tr -d '"' | sort -u)
  [ "$(echo "$read" | wc -l)" -gt 100 ] || { echo "FAIL: found only $(echo "$read" | wc -l) value options in src/"; exit 1; }
  missing=$(comm -23 <(echo "$read") <(echo "$listed"))
  extra=$(comm -13 <(echo "$read") <(echo "$listed"))
  [ -z "$missing" ] || { echo "FAIL: options that take a value, not in src/cli/unused.c's IntegerOptions or ValueOptions:" $missing; exit 1; }
  [ -z "$extra" ] || { echo "FAIL: in src/cli/unused.c's lists but read by no value reader of src/:" $extra; exit 1; }
  echo "ok: the $(echo "$listed" | wc -l) options of src/ that take a value are checked"
fi
