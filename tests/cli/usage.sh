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
