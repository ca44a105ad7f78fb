# Huge k grids (issue 13, finding 8 / item 7): /grid/nk allows up to 2^31-1 points per direction,
# so nk0 nk1 nk2 overflowed the 64-bit k-point count for nk = 2^31-1 (undefined behaviour that
# UBSan caught; the collision prefactor 1/Nq was then wrong). A table whose k-point count is more
# than 2^53 is now refused by every command with one line; one of 2^53 points is read and counted
# exactly (info prints it; dynamics with collisions only runs); -bte_grid 2^31-1 is refused before
# any product is formed. Run under `make check-sanitize` this also proves there is no UB on the way.
. "$TESTDIR/common.sh"
if [ -z "$PYTHON" ] || ! "$PYTHON" -c 'import h5py' 2>/dev/null; then echo "skip: no Python with h5py"; exit 77; fi
set -e
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_output good.h5 -bte_view 0 >/dev/null
"$PYTHON" - <<'PY'
import h5py, shutil
for name, nk in [('huge.h5', [2**31 - 1] * 3), ('huge2.h5', [2**31 - 1, 2**31 - 1, 2]), ('big.h5', [2**20, 2**20, 2**13])]:
    shutil.copy('good.h5', name)
    with h5py.File(name, 'r+') as f:
        f['grid/nk'][...] = nk
PY
R="-bte_view 0"
msg="grid /grid/nk = 2147483647 x 2147483647 x 2147483647 has 9.904e+27 k points, more than 2^53"
for cmd in "info" "dynamics -bte_final_time 10" "transport"; do
  expect_fail "$msg" "$BTE" $cmd -bte_input huge.h5 $R
  # one line: the error, nothing else (no PETSc traceback)
  n=$("$BTE" $cmd -bte_input huge.h5 $R 2>&1 | grep -c . || true)
  [ "$n" -eq 1 ] || { echo "expected one line from $cmd, got $n:"; "$BTE" $cmd -bte_input huge.h5 $R 2>&1 | head; exit 1; }
done
expect_fail "has 9.223e+18 k points, more than 2^53" "$BTE" info -bte_input huge2.h5
# on several ranks too, each rank refusing the same way
expect_fail "$msg" $MPIEXEC -n 2 "$BTE" info -bte_input huge.h5
# 2^53 k points: accepted and counted exactly
"$BTE" info -bte_input big.h5 > big.out
grep -q "1048576 x 1048576 x 8192 k points (9007199254740992 in the full zone)" big.out || { cat big.out; exit 1; }
"$BTE" dynamics -bte_input big.h5 -bte_final_time 10 $R > dyn.out 2>&1 || { cat dyn.out; exit 1; }
grep -q "CONVERGED_TIME" dyn.out || { cat dyn.out; exit 1; }
# generated grids: refused with a clear line before nk^3 is formed in integers
expect_fail "k grid has 9.904e+27 points; flattened k indices must fit" "$BTE" generate -bte_model parabolic -bte_grid 2147483647 -bte_output x.h5 -bte_memory_check 0 $R
[ ! -e x.h5 ]
echo "huge grids: refused with one line above 2^53 k points, counted exactly at 2^53"
