#!/bin/bash
# Strong and weak scaling of the pair operator over the GPUs of one host, one MPI rank per GPU
# (docs/benchmarks.md, "Several GPUs"). GaAs tables are generated in memory by every run.
#   strong: for each grid of SB_GRIDS and GPU count of SB_GPUS, with each exchange of SB_EXCHANGES
#           (nccl, ipc, scatter; one run on one GPU): `bte bench` (apply, J x, one RK4 step, layout B/ch,
#           setup; apply and J x also back to back, -bte_bench_pipelined), `bte transport` at
#           300 K (KSPSolve, largest rank, from -log_view) when SB_KSP=1, and tests/coll_exchange
#           (forward and reverse exchange alone, both exchanges in one run)
#   weak:   SB_WEAK grid:gpus pairs (default 135:1 152:2 165:4, ~1.1-1.3e9 channels per GPU; more than ~2e9 per rank meets 32-bit limits), bench only
#   check:  SB_CHECK grid (default 90): tests/coll_partition on 1 GPU writes I[f], J x, diag J; on each
#           GPU count > 1 the same run compares with it (1e-12) and with fused
#   scripts/scaling-bench.sh        (run under scripts/device-run.sh: BTE, BUILD, MPIEXEC)
# Env: SB_OUT (scaling-bench), SB_REPS (20), SB_CORES (nproc), SB_TIMEOUT per run in s (300),
# SB_EXTRA (more bte options for the bench and transport runs, e.g. -bte_exchange_work_first).
# Prints one line per run and writes SB_OUT/scaling.csv.
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BTE=${BTE:-$top/build/bin/bte}
BUILD=${BUILD:-$top/build}
out=${SB_OUT:-scaling-bench}; mkdir -p "$out"
grids=${SB_GRIDS-90 135}
gpus=${SB_GPUS-1 2 4}
exchanges=${SB_EXCHANGES-nccl ipc scatter}
weak=${SB_WEAK-135:1 152:2 165:4}
check=${SB_CHECK-90}
reps=${SB_REPS:-20}
cores=${SB_CORES:-$(nproc)}
tmo=${SB_TIMEOUT:-300}
ksp=${SB_KSP:-1}
vec=${SB_VEC:-cuda} # mpi: a dry run on the CPU
mpiexec=${MPIEXEC:-mpiexec}
[ "$(id -u)" -eq 0 ] && case "$mpiexec" in *--allow-run-as-root*) ;; *) mpiexec="$mpiexec --allow-run-as-root";; esac
export NCCL_NVLS_ENABLE=0 # never NVLink multicast
csv=$out/scaling.csv
echo "kind,grid,gpus,exchange,channels,apply_ms,jac_ms,rk4_ms,layout_Bpc,setup_s,ksp_s,ksp_its,fwd_ms,rev_ms,fwd_bytes,rev_bytes,apply_pipe_ms,jac_pipe_ms" > "$csv"

# mpiexec with one rank per GPU and the cores split between the ranks
run() {
  local n=$1; shift
  local t=$((cores / n)); [ "$t" -ge 1 ] || t=1
  OMP_NUM_THREADS=$t timeout "$tmo" $mpiexec -n "$n" --map-by "slot:PE=$t" --bind-to core "$@"
}
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d['results'][0]; print(d['channels'], '%.4f %.4f %.4f %.2f %.2f %.4f %.4f' % (r['apply_s']*1e3, (r['jacobian_s'] or 0)*1e3, (r['rk4_step_s'] or 0)*1e3, r['layout_bytes_per_channel'], r['setup_s'], (r.get('apply_pipelined_s') or 0)*1e3, (r.get('jacobian_pipelined_s') or 0)*1e3))" "$1"; }

# the k-th timing line of coll_exchange: forward ms, reverse ms, forward bytes, reverse bytes
xparse() { grep '^exchange times' "$2" | sed -n "$1p" | sed -E 's/.*forward ([0-9.]+) ms, reverse ([0-9.]+) ms.*forward ([0-9]+), reverse sent ([0-9]+).*/\1 \2 \3 \4/'; }

one() { # kind grid gpus exchange
  local kind=$1 g=$2 n=$3 x=$4 tag=$1_$2_$3_$4 ch ap jc rk bpc su kt="" ki="" fw="" rv="" fb="" rb=""
  echo "=== $tag ($(date +%T))"
  run "$n" "$BTE" bench -bte_model gaas -bte_grid "$g" -vec_type "$vec" -bte_bench_types pair -bte_bench_reps "$reps" \
    -bte_exchange "$x" -bte_bench_pipelined ${SB_EXTRA:-} -bte_bench_json "$out/$tag.json" -bte_collision_view -log_view ":$out/$tag.log" > "$out/$tag.txt" 2>&1 \
    || { tail -5 "$out/$tag.txt"; echo "  bench FAILED"; return; }
  grep "ghost exchange" "$out/$tag.txt" | head -1
  read -r ch ap jc rk bpc su pa pj < <(json "$out/$tag.json")
  if [ "$kind" = strong ] && [ "$ksp" = 1 ]; then
    run "$n" "$BTE" transport -bte_model gaas -bte_grid "$g" -vec_type "$vec" -bte_temperatures 300 -bte_exchange "$x" ${SB_EXTRA:-} \
      -log_view ":$out/$tag.ksp.log" > "$out/$tag.ksp.txt" 2>&1 || { tail -5 "$out/$tag.ksp.txt"; echo "  transport FAILED"; }
    kt=$(awk '$1 == "KSPSolve" { print $4 }' "$out/$tag.ksp.log" 2>/dev/null)
    ki=$(awk '$1 == "300.00" { print $(NF - 2) }' "$out/$tag.ksp.txt" 2>/dev/null)
    grep "^ *300.00" "$out/$tag.ksp.txt"
  fi
  if [ "$kind" = strong ] && [ "$n" -gt 1 ] && [ "$x" != scatter ]; then
    run "$n" "$BUILD/tests/coll_exchange" -bte_model gaas -bte_grid "$g" -vec_type "$vec" -reps 50 -both -bte_exchange "$x" > "$out/$tag.xchg.txt" 2>&1 \
      || { tail -5 "$out/$tag.xchg.txt"; echo "  coll_exchange FAILED"; }
    grep -E "^exchange times|ghost exchange" "$out/$tag.xchg.txt"
    read -r fw rv fb rb < <(xparse 1 "$out/$tag.xchg.txt")
    # the VecScatter timings of the same run, as a row of their own (once, beside nccl)
    local sfw srv
    read -r sfw srv _ _ < <(xparse 2 "$out/$tag.xchg.txt")
    [ "$x" = nccl ] && echo "xchg,$g,$n,scatter,,,,,,,,,$sfw,$srv,$fb,$rb,," >> "$csv"
  fi
  printf "%-6s %4s^3 %d GPU %-7s %s ch: apply %s ms (back to back %s), J x %s ms (%s), RK4 %s ms, %s B/ch, setup %s s, KSP %s s (%s its), exchange fwd %s / rev %s ms\n" \
    "$kind" "$g" "$n" "$x" "$ch" "$ap" "$pa" "$jc" "$pj" "$rk" "$bpc" "$su" "${kt:-?}" "${ki:-?}" "${fw:--}" "${rv:--}"
  echo "$kind,$g,$n,$x,$ch,$ap,$jc,$rk,$bpc,$su,$kt,$ki,$fw,$rv,$fb,$rb,$pa,$pj" >> "$csv"
}

nvidia-smi topo -m > "$out/topology.txt" 2>&1 && cat "$out/topology.txt"
for g in $check; do
  echo "=== check: coll_partition GaAs ${g}^3 ($(date +%T))"
  run 1 "$BUILD/tests/coll_partition" -bte_model gaas -bte_grid "$g" -vec_type "$vec" -write "$out/ref$g.bin" > "$out/check_${g}_1.txt" 2>&1 \
    || { tail -5 "$out/check_${g}_1.txt"; echo "  check 1 GPU FAILED"; }
  for n in $gpus; do
    [ "$n" -gt 1 ] || continue
    run "$n" "$BUILD/tests/coll_partition" -bte_model gaas -bte_grid "$g" -vec_type "$vec" -compare "$out/ref$g.bin" > "$out/check_${g}_$n.txt" 2>&1 \
      && echo "  $n GPUs: $(grep -c '(tol' "$out/check_${g}_$n.txt") checks passed ($(grep 'vs the reference run' "$out/check_${g}_$n.txt" | awk '{printf "%s ", $(NF - 2)}'))" \
      || { tail -5 "$out/check_${g}_$n.txt"; echo "  check $n GPUs FAILED"; }
  done
done
for g in $grids; do
  for n in $gpus; do
    for x in $exchanges; do
      [ "$n" -eq 1 ] && [ "$x" != "${exchanges%% *}" ] && continue
      one strong "$g" "$n" "$x"
    done
  done
done
for w in $weak; do one weak "${w%%:*}" "${w##*:}" nccl; done
echo "csv: $csv"
if command -v column >/dev/null; then column -s, -t "$csv"; else cat "$csv"; fi
