# Registering an application's collision type and model (tests/api/registry.c): the type and model
# lists come from the registries, and incomplete registrations are refused with one line.
set -e
source "$TESTDIR/common.sh"
"$BUILD/tests/registry" -case list | tee out.txt
tail -n 1 out.txt | grep -q "all checks passed"
expect_fail "Collision type half: its create function must set the setup, apply, jacobian_apply and jacobian_diagonal operations" "$BUILD/tests/registry" -case ops
expect_fail "Model nogenerate: its create function set no generate function" "$BUILD/tests/registry" -case model
expect_fail "Unknown collision operator type 'nosuch'; -bte_collision_type takes one of: baseline tgt fused pair half" "$BUILD/tests/registry" -case unknown
# the unknown-model message lists the registry: the built-in models and the application's
expect_fail "Unknown model 'nosuch'; -bte_model takes one of the registered models.*: parabolic gaas graphene si-holes perturbo.* nogenerate" "$BUILD/tests/registry" -case unknown_model
