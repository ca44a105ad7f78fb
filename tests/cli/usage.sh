# The driver rejects unknown commands and shows its usage.
. "$TESTDIR/common.sh"
set -e
expect_fail "unknown command 'frobnicate'" "$BTE" frobnicate
"$BTE" -help | grep -q "Commands:"
expect_fail "needs a model" "$BTE" generate -bte_output x.h5
expect_fail "No scattering data" "$BTE" info
