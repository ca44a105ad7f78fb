#!/bin/bash
# Time to solution of whole runs, split into phases (docs/benchmarks.md, "Time to solution"):
# for a table file, (a) a 1 ps fixed-step RK4 rt-BTE run and (b) a mobility at three temperatures,
# each on the GPU (-vec_type cuda) and on all CPU cores, with wall time, the -log_view phases
# (table read, collision setup and its parts, stepping / solve), peak host memory (max RSS) and,
# on the GPU, peak device memory (nvidia-smi sampled every 50 ms).
#   scripts/device-run.sh scripts/pipeline-bench.sh TABLE.h5 [extra bte options...]
# Env: PIPE_OUT (default out), PIPE_RUNS ("dyn-gpu dyn-cpu tr-gpu tr-cpu"), PIPE_TEMPS (200,300,400),
# PIPE_TIMEOUT per run in s (600), PIPE_REPS runs of each (1).
set -u
[ -n "${BTE:-}" ] || { echo "pipeline-bench.sh: run it through scripts/device-run.sh (or set BTE)" >&2; exit 2; }
table=${1:?usage: pipeline-bench.sh TABLE.h5 [bte options]}; shift
out=${PIPE_OUT:-out}; mkdir -p "$out"
runs=${PIPE_RUNS:-"dyn-gpu dyn-cpu tr-gpu tr-cpu"}
temps=${PIPE_TEMPS:-200,300,400}
tmo=${PIPE_TIMEOUT:-600}
py=$(command -v python3 || true)
[ -n "$py" ] || { echo "pipeline-bench.sh: needs python3 (peak memory through getrusage)" >&2; exit 2; }
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}

# wall time and peak RSS of one command (getrusage of the child), killed after $tmo s
cat > "$out/timed.py" <<'EOF'
import resource, subprocess, sys, time
t = time.time()
try:
    rc = subprocess.run(sys.argv[2:], timeout=float(sys.argv[1])).returncode
except subprocess.TimeoutExpired:
    rc = 124
print("WALL %.3f s  PEAK_RSS %.2f GB  EXIT %d" % (time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1e6, rc))
EOF

for run in $runs; do
  for rep in $(seq 1 "${PIPE_REPS:-1}"); do
    dev=(); case $run in *-gpu) dev=(-vec_type cuda);; esac
    case $run in
      dyn-*) cmd=("$BTE" dynamics -bte_input "$table" -bte_final_time 1000 -ts_dt 1 -bte_output "$out/$run.h5" -bte_output_interval 100 "${dev[@]}" -log_view "$@");;
      tr-*)  cmd=("$BTE" transport -bte_input "$table" -bte_temperatures "$temps" "${dev[@]}" -log_view "$@");;
      *) echo "unknown run $run" >&2; continue;;
    esac
    echo; echo "=== $run (rep $rep, $(date +%T)): ${cmd[*]}"
    smi=
    if [ ${#dev[@]} -gt 0 ] && command -v nvidia-smi >/dev/null; then
      nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 50 > "$out/$run.smi" 2>/dev/null & smi=$!
    fi
    "$py" "$out/timed.py" "$tmo" "${cmd[@]}" > "$out/$run.log" 2>&1
    [ -n "$smi" ] && { kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null; echo "PEAK_DEVICE $(sort -n "$out/$run.smi" | tail -1) MiB (nvidia-smi, whole device)"; }
    grep -E "^WALL|^(BTETableRead|BTECollSetUp|BTECollSetUpEnds|BTECollLay[A-Za-z]+|BTECollCUDAUp|TSStep|KSPSolve|BTETransSolve|BTEDynOutput) |^Time \(sec\)|NOT CONVERGED|ERROR" "$out/$run.log" \
      | awk '/^WALL/ { print "  " $0; next } /^[A-Z][A-Za-z]+ +[0-9]/ { printf "  %-18s count %6s  time %s s\n", $1, $2, $4; next } { print "  " $0 }'
  done
done
