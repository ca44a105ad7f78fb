# Model generation refuses what it cannot do, with a message that says why.
. "$TESTDIR/common.sh"
set -e
# the list comes from the registry: every built-in model, in the order registered
expect_fail "Unknown model 'nosuch'; -bte_model takes one of the registered models.*: parabolic gaas .*graphene.*si-holes" "$BTE" info -bte_model nosuch
# a grid whose k points alone would not fit: refused before enumerating, with the figure in GB
expect_fail "k grid.*needs .* GB" "$BTE" info -bte_model gaas -bte_grid 100000
expect_fail "k grid.*needs .* GB" "$BTE" info -bte_model parabolic -bte_grid 100000
# a table far over the limit: refused from the sampled estimate, before the counting pass
expect_fail "about .* channels.*estimated.*needs .* GB.*-bte_memory_limit" "$BTE" info -bte_model gaas -bte_grid 200 -bte_memory_limit 1
# just over the limit: refused after the exact count
expect_fail "scattering table (246486 channels.*needs .* GB" "$BTE" info -bte_model gaas -bte_grid 32 -bte_memory_limit 0.006
"$BTE" info -bte_model gaas -bte_grid 32 -bte_memory_limit 0.01 | grep -q "scattering channels: 246486"
echo ok
