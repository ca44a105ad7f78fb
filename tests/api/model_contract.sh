# The model contract (tests/api/model_contract.c): a model that breaks one of its rules is refused by
# BTEModelBuild in one line naming the rule (it was accepted and gave a table with states or
# channels silently missing, or one bte's reader refuses); the valid model builds, its table's source
# naming this program (not "bte generate", which does not know the model); on 1 and 2 ranks.
set -e
source "$TESTDIR/common.sh"
T="$BUILD/tests/model_contract"
for np in 1 ${TEST_NP:-2}; do
  run_np $np "$T" -break none | grep "model contract (-break none): .* states, .* channels, built; source: model_contract -bte_model contract -bte_grid 12 "
  expect_fail "its bands callback left an energy unset, NaN or infinite" run_np $np "$T" -break nan_energy
  expect_fail "every one of its 2 bands must be set" run_np $np "$T" -break unset_band
  expect_fail "its bands callback left a velocity of a state in the window unset, NaN or infinite" run_np $np "$T" -break nan_velocity
  for b in neg_g2 nan_g2 nan_hw; do
    expect_fail "a channel has |g|^2 or a phonon energy out of range (expected |g|^2 in \[0," run_np $np "$T" -break $b
  done
  expect_fail "a coupled phonon energy exceeds the model's hwmax = 0.001 eV" run_np $np "$T" -break hwmax
  expect_fail "spin (the spin degeneracy) must be 1 or 2, got 0" run_np $np "$T" -break spin
  expect_fail "carrier must be -1 (electrons) or +1 (holes), got 0" run_np $np "$T" -break carrier
  expect_fail "eedge (the band edge, the window's bottom) must be finite" run_np $np "$T" -break eedge
  expect_fail "Model contract: its generate function made no states" run_np $np "$T" -break nobuild
  expect_fail "is 69 characters long; a model name has at most 63" run_np $np "$T" -break longname
  expect_fail "this program was compiled against the private headers of another bte (struct _p_BTE of" run_np $np "$T" -break abi
done
