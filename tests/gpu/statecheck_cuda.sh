#!/bin/bash
# The finite-state guard's device reduction (src/bte/statecheck_cuda.cu): NaN, +-Inf and entries
# outside [-0.5, 1.5] at the first, middle and last positions are caught on CUDA vectors, on 1 and
# 2 ranks and on a vector larger than one reduction grid (several partials per block); then the
# guard in GPU runs: an unstable fixed step stops with its message, an adaptive run rejects the
# step and finishes, under -bte_state_check auto (step on CUDA vectors: one check per step) and
# stage (one per stage). Skips without a CUDA build or a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
fail() { echo "FAILED: $*"; exit 1; }
for args in "1 -n 1001" "2 -n 1001" "1 -n 3000017" "2 -n 3000017"; do
  set -- $args; np=$1; shift
  out=$(run_np $np "$BUILD/tests/statecheck" -vec_type cuda -use_gpu_aware_mpi 0 "$@") || { echo "$out"; fail "$np ranks $*: exit $?"; }
  grep -q "^42 cases, 0 failed" <<<"$out" || { echo "$out"; fail "$np ranks $*"; }
  grep -q "(tol 0.5, device)" <<<"$out" || { echo "$out"; fail "$np ranks $*: the device path was not the one tested"; }
  grep -q "(tol 0.5, host)" <<<"$out" && fail "$np ranks $*: a case ran on the host"
  echo "ok: $np ranks $*, 42 cases on the device"
done
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0 -vec_type cuda -use_gpu_aware_mpi 0"
expect_fail "is unstable or inaccurate; use a smaller -bte_time_step" timeout 120 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500 || fail "fixed step"
expect_fail "is not finite (NaN or Inf)" timeout 120 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500 -bte_state_tolerance -1 || fail "NaN"
expect_fail "is unstable or inaccurate; use a smaller -bte_time_step" timeout 120 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 5000 -bte_output_interval 500 -bte_state_check stage || fail "fixed step, stage check"
# the count of an event in -log_view's table
event() { awk -v e="$2" '$1 == e { print $2; found = 1; exit } END { if (!found) print 0 }' <<<"$1"; }
for m in auto stage; do
  out=$(timeout 120 "$BTE" dynamics $P -bte_time_step 500 -bte_final_time 2000 -bte_output_interval 500 -ts_rk_type 5dp -ts_adapt_type basic -bte_state_check $m -log_view) || { echo "$out"; fail "adaptive run ($m): exit $?"; }
  grep -q "CONVERGED_TIME" <<<"$out" && grep -q "([1-9][0-9]* rejected)" <<<"$out" && ! grep -qi "carriers.*nan" <<<"$out" || { echo "$out"; fail "adaptive run ($m): no rejected step"; }
  echo "ok: adaptive GPU run from an unstable step, -bte_state_check $m: $(grep "^dynamics: cost" <<<"$out")"
  # a clean adaptive run: auto is step on CUDA vectors, one check per step (and the initial
  # state's); stage checks the 7 stages and the step
  out=$(timeout 120 "$BTE" dynamics $P -options_file "$TESTDIR/../options/adaptive.opts" -ts_dt 1 -bte_final_time 300 -bte_output_interval 100 -bte_state_check $m -log_view) || { echo "$out"; fail "clean adaptive run ($m): exit $?"; }
  steps=$(sed -n 's/^dynamics: cost: \([0-9]*\) steps, 0 rejected.*/\1/p' <<<"$out"); chk=$(event "$out" BTEStateCheck)
  [ -n "$steps" ] || { echo "$out"; fail "clean adaptive run ($m) rejected steps"; }
  if [ $m = auto ]; then want=$((steps + 1)); else want=$((8 * steps + 1)); fi
  [ "$chk" -eq "$want" ] || fail "clean adaptive run ($m): $chk state checks for $steps steps, expected $want"
  echo "ok: clean adaptive GPU run, -bte_state_check $m: $steps steps, $chk state checks"
done
out=$(timeout 120 "$BTE" dynamics -bte_model parabolic -bte_grid 8 -vec_type cuda -use_gpu_aware_mpi 0 -bte_final_time 10 -bte_output_interval 10) || { echo "$out"; fail "summary run: exit $?"; }
grep -q "state check: step (auto)" <<<"$out" || { echo "$out"; fail "auto is not step on CUDA vectors"; }
echo "ok: GPU runs: the guard stops the fixed step and rejects the adaptive one (stage and step checks)"
