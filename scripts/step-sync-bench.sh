#!/bin/bash
# Host synchronisation of fixed and adaptive steps on the GPU (-bte_state_check, docs/dynamics.md):
# for each GaAs grid, fixed RK4 (the default) and adaptive RK 5(4) (options/adaptive.opts), each
# with the finite-state guard on every stage (-bte_state_check stage, the old behaviour) and on
# every step (step, the default on CUDA vectors), on -vec_type cuda:
#   bte dynamics -bte_input gaasG.h5 -vec_type cuda -bte_final_time 1000 -ts_dt 1 ...   (the table of bte generate -bte_model gaas -bte_grid G)
# It prints, per run, ms per step and per apply (the run's own "step rate" line: the
# stepping time, output excluded), steps, rejected steps and applies, and from a second run with
# -log_view the counts of TSStep and BTEStateCheck and the copies in each. The check of each step's
# result runs between steps, outside TSStep, so "syncs/step" is TSStep's GPU-to-CPU copies plus
# those of the checks outside it (one per TSStep and the initial state's), per TSStep.
#   scripts/device-run.sh scripts/step-sync-bench.sh [GRID ...]      (default 40, about 1e6 channels)
#   BTE=build-cuda/bin/bte scripts/step-sync-bench.sh 40 90
# The table of each grid is generated once (bte generate) into the logs' directory and read by every
# run (-bte_input), so the runs do not rebuild the model.
# Env: BENCH_REPS timing runs per case (3; the fastest is reported), BENCH_OPTS extra options,
# BENCH_MODES (stage step), BENCH_TIMEOUT per run in s (600), BENCH_OUT the logs' directory (out/step-sync),
# BENCH_MODEL (gaas), BENCH_VEC (cuda; "standard" runs on the CPU, where -log_view has no copy columns).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bte=${BTE:-$top/build-cuda/bin/bte}
[ -x "$bte" ] || { echo "step-sync-bench.sh: no bte at $bte (set BTE, or run through scripts/device-run.sh)" >&2; exit 2; }
grids=${*:-40}
reps=${BENCH_REPS:-3}
modes=${BENCH_MODES:-stage step}
tmo=${BENCH_TIMEOUT:-600}
out=${BENCH_OUT:-out/step-sync}; mkdir -p "$out"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
model=${BENCH_MODEL:-gaas}
base="-vec_type ${BENCH_VEC:-cuda} -bte_final_time 1000 -ts_dt 1 -bte_view 0 -bte_dynamics_monitor 0"

# "count gpu_to_cpu cpu_to_gpu" copies of an event in a -log_view table (its columns from the end:
# ... CpuToGpu Count, Size, GpuToCpu Count, Size, GPU %F)
event() { awk -v e="$2" '$1 == e && $0 !~ /Multiple stages/ { print $2, $(NF-2), $(NF-4); found = 1; exit } END { if (!found) print "0 0 0" }' "$1"; }

fmt='%-5s %-9s %-6s %9s %9s %6s %5s %7s | %7s %8s %8s %8s %8s %9s\n'
printf "\n$fmt" grid method check "ms/step" "ms/apply" steps rej applies "TSStep" "TSStep" "TSStep" "checks" "checks" "syncs"
printf "$fmt" "" "" "" "" "" "" "" "" count "GpuToCpu" "CpuToGpu" count "GpuToCpu" "/step"
for g in $grids; do
  table="$out/$model$g.h5"
  if [ ! -f "$table" ]; then
    timeout "$tmo" "$bte" generate -bte_model "$model" -bte_grid "$g" -bte_output "$table" -bte_view 0 > "$out/$model$g-generate.log" 2>&1 || {
      echo "FAILED: bte generate $model $g, see $out/$model$g-generate.log"; rm -f "$table"; continue; }
  fi
  for method in fixed adaptive; do
    mopts=""; [ "$method" = adaptive ] && mopts="-options_file $top/options/adaptive.opts"
    for m in $modes; do
      tag="gaas$g-$method-$m"
      best=""; bestapply=""; line=""
      for r in $(seq 1 "$reps"); do
        log="$out/$tag-$r.log"
        # shellcheck disable=SC2086
        if ! timeout "$tmo" "$bte" dynamics $base -bte_input "$table" $mopts -bte_state_check "$m" ${BENCH_OPTS:-} > "$log" 2>&1; then
          echo "FAILED or timed out: $tag (rep $r), see $log"; tail -n 3 "$log"; continue
        fi
        ms=$(sed -n 's/^dynamics: step rate: .*steps\/s, \([0-9.e+-]*\) ms per step, \([0-9.e+-]*\) ms per apply.*/\1/p' "$log")
        ma=$(sed -n 's/^dynamics: step rate: .*steps\/s, \([0-9.e+-]*\) ms per step, \([0-9.e+-]*\) ms per apply.*/\2/p' "$log")
        line=$(sed -n 's/^dynamics: cost: \([0-9]*\) steps, \([0-9]*\) rejected, \([0-9]*\) collision applies.*/\1 \2 \3/p' "$log")
        if [ -z "$best" ] || awk -v a="$ms" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$ms; bestapply=$ma; fi
      done
      [ -n "$best" ] || continue
      log="$out/$tag-logview.log"
      # shellcheck disable=SC2086
      timeout "$tmo" "$bte" dynamics $base -bte_input "$table" $mopts -bte_state_check "$m" ${BENCH_OPTS:-} -log_view > "$log" 2>&1 || echo "FAILED or timed out: $tag with -log_view, see $log"
      read -r tsn tsg tsc <<<"$(event "$log" TSStep)"
      read -r scn scg _ <<<"$(event "$log" BTEStateCheck)"
      # stage checks run inside TSStep (its copies count them), the check of each step's result and
      # the initial state's outside it (one per TSStep, and one): add the copies of those
      sps=$(awk -v a="$tsg" -v c="$scg" -v k="$scn" -v n="$tsn" 'BEGIN { o = k > 0 ? c * (n + 1) / k : 0; if (n > 0) printf "%.2f", (a + o) / n; else print "n/a" }')
      read -r st rj ap <<<"$line"
      printf "$fmt" "$g" "$method" "$m" "$best" "$bestapply" "$st" "$rj" "$ap" "$tsn" "$tsg" "$tsc" "$scn" "$scg" "$sps"
    done
  done
done
echo
echo "ms/step, ms/apply: the fastest of $reps runs (stepping time / steps, / applies; output excluded)."
echo "syncs/step: GPU-to-CPU copies per TSStep (-log_view), those of the step checks outside TSStep"
echo "included; the initial state's check is one of the checks. Logs in $out/."
