#!/bin/bash
# The run's memory estimate with CUDA state Vecs (src/bte/memory.c): the pair layout is built on the
# device where it fits, so the checks before the collision setup count 16 B per channel for it
# instead of the host build's 64, and the summary says so; a run that fits only without the host build then runs on
# the GPU and is refused on the host; the setup counts the host build again when the layout is
# built there after all (-bte_pair_build host). Skips (exit 77) without a CUDA build or a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
fail() { echo "FAILED: $*"; exit 1; }
m="-bte_model gaas -bte_grid 40 -use_gpu_aware_mpi 0"
est() { awk '/memory for a run on 1 rank \(/ { v = $(NF - 1); u = $NF; f = u == "GB" ? 1e9 : u == "MB" ? 1e6 : u == "kB" ? 1e3 : 1; printf "%.0f\n", v * f }' "$1"; }
run_np 1 "$BTE" info $m > cpu.txt 2>&1 || { cat cpu.txt; fail "bte info (exit $?)"; }
run_np 1 "$BTE" info $m -vec_type cuda > gpu.txt 2>&1 || { cat gpu.txt; fail "bte info -vec_type cuda (exit $?)"; }
grep -q "memory for a run on 1 rank (table + collision operator)" cpu.txt || { cat cpu.txt; fail "host Vecs: the summary does not count the collision operator"; }
grep -q "memory for a run on 1 rank (table + host part of the collision operator, its layout built on the GPU)" gpu.txt || { cat gpu.txt; fail "CUDA Vecs: the summary does not say the layout is built on the GPU"; }
c=$(est cpu.txt); g=$(est gpu.txt); n=$(awk '/scattering channels:/ { print $NF }' cpu.txt)
echo "estimates: host Vecs $c B, CUDA Vecs $g B, $n channels"
# the difference: the host build's 64 B per channel against the device build's 16
awk -v c="$c" -v g="$g" -v n="$n" 'BEGIN { d = (c - g) / n; exit !(d > 44 && d < 52) }' || fail "the estimates differ by $(( (c - g) / n )) B per channel, expected 48"
# a limit between the two: the GPU run goes, the host run and a host build on the GPU are refused
lim=$(awk -v c="$c" -v g="$g" 'BEGIN { printf "%.6f", (c + g) / 2e9 }')
d="-bte_final_time 1 -bte_view 0 -bte_memory_limit $lim"
run_np 1 "$BTE" dynamics $m -vec_type cuda $d > rgpu.txt 2>&1 || { cat rgpu.txt; fail "the GPU run within $lim GB was refused (exit $?)"; }
run_np 1 "$BTE" dynamics $m $d > rcpu.txt 2>&1 && fail "the host run was not refused at $lim GB"
grep -q "needs .* more than" rcpu.txt || { cat rcpu.txt; fail "the host run's refusal does not name the estimate"; }
run_np 1 "$BTE" dynamics $m -vec_type cuda -bte_pair_build host $d > rhost.txt 2>&1 && fail "a host-built layout with CUDA Vecs was not refused at $lim GB"
grep -q "pair collision operator.* needs .* more than" rhost.txt || { cat rhost.txt; fail "the host build's refusal does not name the operator"; }
echo "ok: limit $lim GB: the GPU run went, the host run and the host build were refused"
