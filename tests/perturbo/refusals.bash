# Shared by tests/perturbo/errors.sh, bounds.sh and consistency.sh (sourced; not a test itself: the
# runner takes *.sh). keep CMD...: runs it, keeps its output in last.txt (for the line count) and
# passes its exit status on. fail1 PATTERN CMD...: expect_fail, then exactly one line of output; with
# NO_TABLE set (a file name), also that no table (NO_TABLE, NO_TABLE.tmp) was left behind.
keep() { "$@" > last.txt 2>&1; local rc=$?; cat last.txt; return $rc; }
fail1() {
  local pat=$1; shift
  expect_fail "$pat" keep "$@"
  local n; n=$(grep -c . last.txt || true)
  [ "$n" -eq 1 ] || { echo "FAIL: expected a one-line error, got $n lines: $*"; cat last.txt; exit 1; }
  if [ -n "${NO_TABLE:-}" ]; then
    [ ! -e "$NO_TABLE" ] && ! ls "$NO_TABLE.tmp" > /dev/null 2>&1 || { echo "FAIL: a refused file left a table"; exit 1; }
  fi
}
# fixtures NAME...: make_epr.py's fixtures NAME.h5 (skips the test, exit 77, without h5py)
fixtures() {
  if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; fi
  export PYTHONDONTWRITEBYTECODE=1
  T="$TESTDIR/perturbo"
  local m
  for m in "$@"; do "$PYTHON" "$T/make_epr.py" "$m" "$m.h5"; done
}
