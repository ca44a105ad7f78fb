#!/bin/bash
# The finite-state guard's one-pass check (BTEStateCheck) on host vectors: NaN, +-Inf and entries
# outside [-0.5, 1.5] at the first, second, middle and last positions are caught, on 1, 2 and 3
# ranks (the positions then fall on rank boundaries); a clean state passes with its exact min/max.
source "$TESTDIR/common.sh"
fail() { echo "FAILED: $*"; exit 1; }
for np in 1 2 3; do
  out=$(run_np $np "$BUILD/tests/statecheck" -n 1001) || { echo "$out"; fail "$np ranks: exit $?"; }
  grep -q "^42 cases, 0 failed" <<<"$out" || { echo "$out"; fail "$np ranks"; }
  grep -q "(tol 0.5, host)" <<<"$out" || fail "$np ranks: the host path was not the one tested"
  echo "ok: $np ranks, 42 cases"
done
# the guard in a run: an unstable fixed step stops with the message (NaN case in unstable.sh)
expect_fail "is not finite (NaN or Inf)" timeout 60 "$BTE" dynamics -bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500 -bte_state_tolerance -1
