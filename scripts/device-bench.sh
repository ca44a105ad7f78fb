#!/bin/bash
# The benchmark of docs/benchmarks.md, on a GPU machine (through scripts/device-run.sh):
# for each case "model:grid", `bte bench` on all CPU cores (baseline, tgt, fused, fused-mixed, pair, pair-mixed; OpenMP)
# and on the GPU (the same less baseline; -vec_type cuda), JSON per run into $BENCH_OUT.
#   scripts/device-run.sh scripts/device-bench.sh "gaas:41 gaas:60 gaas:90"
# Env: BENCH_OUT (default out), BENCH_CPU=0 to skip the CPU runs, BENCH_GPU=0 the GPU runs,
# BENCH_REPS (10), BENCH_TIMEOUT per run in s (300), BENCH_GPU_TYPES, BENCH_CPU_TYPES.
set -u
[ -n "${BTE:-}" ] || { echo "device-bench.sh: run it through scripts/device-run.sh" >&2; exit 2; }
cases=${1:-"gaas:41 gaas:60 gaas:90"}
out=${BENCH_OUT:-out}; mkdir -p "$out"
reps=${BENCH_REPS:-10}; tmo=${BENCH_TIMEOUT:-300}
cpu_types=${BENCH_CPU_TYPES:-baseline,tgt,fused,fused-mixed,pair,pair-mixed}
gpu_types=${BENCH_GPU_TYPES:-tgt,fused,fused-mixed,pair,pair-mixed}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)" | tr -s ' '
for c in $cases; do
  m=${c%%:*}; g=${c##*:}
  # si-holes: the parabolic dkk bands, the table shape the benchmark's si-holes figures were measured on
  # (the model's default until 2026-11-30; the default kp6 bands make ~10x the channels on a grid)
  mo=""; [ "$m" = si-holes ] && mo="-bte_si_holes_bands dkk"
  if [ "${BENCH_CPU:-1}" = 1 ]; then
    echo; echo "=== CPU $m $g ($(date +%T))"
    OMP_NUM_THREADS=$(nproc) OMP_PROC_BIND=close timeout "$tmo" "$BTE" bench -bte_model "$m" $mo -bte_grid "$g" -bte_bench_types "$cpu_types" \
      -bte_bench_reps "$reps" -bte_bench_json "$out/cpu-$m-$g.json" ${BENCH_OPTS:-} || echo "FAILED or timed out: CPU $m $g"
  fi
  if [ "${BENCH_GPU:-1}" = 1 ]; then
    echo; echo "=== GPU $m $g ($(date +%T))"
    OMP_NUM_THREADS=$(nproc) timeout "$tmo" "$BTE" bench -bte_model "$m" $mo -bte_grid "$g" -vec_type cuda -bte_bench_types "$gpu_types" \
      -bte_bench_reps "$((reps * 2))" -bte_bench_copy_size 134217728 -bte_bench_json "$out/gpu-$m-$g.json" ${BENCH_OPTS:-} || echo "FAILED or timed out: GPU $m $g"
  fi
done
