#!/bin/bash
# The pair apply on one machine's cores split into ranks x threads (and, with PB_GPU, on one GPU
# shared by several ranks), with the states and the pairs partition (docs/benchmarks.md, "Several
# ranks: the partition"). For each run: the median apply and J x (and the two back to back,
# -bte_bench_pipelined), the layout bytes per channel,
# the per-rank work and exchange volumes (-bte_collision_view), and from -log_view the time per
# apply of the exchanges and of the work, largest rank and largest/smallest over ranks:
#   BTECollGhost     the ghost values coming in (waiting for them after the work that hides them)
#   BTECollGhostAdd  the ghosts' sums going back, and their fixed-order addition
#   BTECollInner     work on owned tiles only (it hides the exchanges)
#   BTECollOuter     work that needs ghost values
# A large max/min of the exchanges with a small one of the work means waiting for a slower rank.
#
#   scripts/partition-bench.sh                       (BTE: the driver; default build/bin/bte)
# Env: PB_OUT (default partition-bench), PB_TABLE (a table file; default: GaAs PB_GRID^3 generated
# once into PB_OUT), PB_GRID (90), PB_CORES (nproc), PB_LAYOUTS ranks x threads ("1x16 4x4 16x1",
# scaled to PB_CORES when unset), PB_PARTS ("pairs pairs-noshare pairs-peers states"; pairs-noshare
# is pairs with -bte_pair_share_node 0, pairs-peers pairs with -bte_pair_exchange_peers, pairs-hash
# pairs with -bte_pair_partition_tiles 0,
# pairs-nopoll pairs with -bte_pair_overlap_polls 0), PB_REPS (10), PB_GPU (ranks sharing one GPU, e.g. "1 2 3";
# empty: CPU only), PB_EXTRA (more bte options for every run), MPIEXEC (mpiexec), PB_TIMEOUT per
# run in s (600).
set -u
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BTE=${BTE:-$top/build/bin/bte}
[ -x "$BTE" ] || { echo "partition-bench.sh: no driver at $BTE (make, or set BTE)" >&2; exit 2; }
out=${PB_OUT:-partition-bench}; mkdir -p "$out"
grid=${PB_GRID:-90}
cores=${PB_CORES:-$(nproc)}
layouts=${PB_LAYOUTS:-"1x$cores $((cores / 4))x4 ${cores}x1"}
parts=${PB_PARTS:-"pairs pairs-noshare pairs-peers states"}
reps=${PB_REPS:-10}
tmo=${PB_TIMEOUT:-600}
mpiexec=${MPIEXEC:-mpiexec}
[ "$(id -u)" -eq 0 ] && case "$mpiexec" in *--allow-run-as-root*) ;; *) mpiexec="$mpiexec --allow-run-as-root";; esac
table=${PB_TABLE:-$out/gaas$grid.h5}
if [ ! -f "$table" ]; then
  echo "generating $table (GaAs ${grid}^3)"
  OMP_NUM_THREADS=$cores timeout "$tmo" "$BTE" generate -bte_model gaas -bte_grid "$grid" -bte_output "$table" > "$out/generate.log" 2>&1 \
    || { tail "$out/generate.log"; echo "partition-bench.sh: bte generate failed" >&2; exit 1; }
fi

# one line of results from a run's output ($1) and log (-log_view, $2)
summary() {
  local apply jac bpc napp papply pjac
  read -r apply jac bpc < <(awk '$1 == "pair" && $2 ~ /^[0-9.]+$/ { print $2, $4, $6 }' "$1")
  read -r papply pjac < <(awk '$1 == "pipelined" && $2 == "pair" { print $4, $7 }' "$1")
  napp=$(awk '$1 == "BTECollApply" { a = $2 } $1 == "BTECollJacApply" { j = $2 } END { print a + j }' "$2")
  printf "%-8s %-7s apply %8s ms  J x %8s ms  (back to back %8s / %8s ms)  %5s B/ch" "$3" "$4" "${apply:-?}" "${jac:-?}" "${papply:-?}" "${pjac:-?}" "${bpc:-?}"
  awk -v n="${napp:-0}" '$1 ~ /^BTEColl(Ghost|GhostAdd|Inner|Outer)$/ && n > 0 {
         printf "  %s %.3f ms (x%s)", substr($1, 8), 1e3 * $4 / n, $5 }' "$2"
  echo
  sed -n 's/^ *\(pairs (entries)\|rows\|ghost values received\|ghost sums sent\|exchange per apply.*\): /    \1: /p' "$1"
}

results=$out/summary.txt; : > "$results"
# the options of a partition name
popts() { case $1 in
  pairs-nopoll) echo "-bte_partition pairs -bte_pair_overlap_polls 0";;
  pairs-peers) echo "-bte_partition pairs -bte_pair_exchange_peers";;
  pairs-hash) echo "-bte_partition pairs -bte_pair_partition_tiles 0";;
  pairs-noshare) echo "-bte_partition pairs -bte_pair_share_node 0";;
  *) echo "-bte_partition $1";; esac; }
for lay in $layouts; do
  np=${lay%x*}; nt=${lay#*x}
  for p in $parts; do
    tag=cpu_${np}x${nt}_$p
    echo "=== $tag ($(date +%T))"
    # shellcheck disable=SC2046
    OMP_NUM_THREADS=$nt timeout "$tmo" $mpiexec -n "$np" --map-by "slot:PE=$nt" --bind-to core "$BTE" bench -bte_input "$table" \
      -bte_bench_types pair $(popts "$p") -bte_bench_pipelined ${PB_EXTRA:-} -bte_bench_reps "$reps" -bte_collision_view -log_view ":$out/$tag.log" > "$out/$tag.txt" 2>&1
    rc=$?; [ $rc -eq 0 ] || { tail -5 "$out/$tag.txt"; echo "  FAILED (exit $rc)" | tee -a "$results"; continue; }
    summary "$out/$tag.txt" "$out/$tag.log" "${np}x$nt" "$p" | tee -a "$results"
  done
done
for np in ${PB_GPU:-}; do
  for p in $parts; do
    tag=gpu_${np}_$p
    echo "=== $tag ($(date +%T))"
    # shellcheck disable=SC2046
    timeout "$tmo" $mpiexec -n "$np" "$BTE" bench -bte_input "$table" -vec_type cuda -bte_bench_types pair $(popts "$p") -bte_bench_pipelined ${PB_EXTRA:-} \
      -bte_bench_reps $((2 * reps)) -bte_collision_view -log_view ":$out/$tag.log" > "$out/$tag.txt" 2>&1
    rc=$?; [ $rc -eq 0 ] || { tail -5 "$out/$tag.txt"; echo "  FAILED (exit $rc)" | tee -a "$results"; continue; }
    summary "$out/$tag.txt" "$out/$tag.log" "gpu:$np" "$p" | tee -a "$results"
  done
done
echo "summary: $results"
