# The memory check covers the run, not only the table (issue 13, item 6). Parabolic 16^3 has
# 10151 channels: the table alone needs ~0.29 MB, a run (table + collision operator + ghosts +
# work vectors, the figure bte info prints) ~0.95 MB. With -bte_memory_limit 0.5 MB the table
# fits, so bte info works, but every run is refused before it allocates, with one line naming
# the estimate and the limit (before, the check counted 28 B per channel and the run started).
# -bte_memory_check 0 overrides.
. "$TESTDIR/common.sh"
set -e
M="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20"
L="-bte_memory_limit 0.0005"
"$BTE" generate $M -bte_output p.h5 -bte_view 0 >/dev/null
"$BTE" info -bte_input p.h5 $L | grep -q "memory for a run on 1 rank (table + collision operator): 955" || { echo "FAIL: bte info"; "$BTE" info -bte_input p.h5 $L; exit 1; }
echo "ok: bte info (the table fits)"
expect_fail "about 955 kB for a run (table, collision operator and work vectors), more than the 500 kB per rank set by -bte_memory_limit" "$BTE" transport -bte_input p.h5 -bte_view 0 $L
expect_fail "about 955 kB for a run" "$BTE" dynamics -bte_input p.h5 -bte_view 0 -bte_final_time 10 $L
expect_fail "A run on the scattering table .* needs 0.000955 GB on the busiest rank .* more than the 0.0005 GB a rank may use" "$BTE" highfield $M -bte_view 0 -bte_efield_list 100 $L
expect_fail "A run with the .* collision operator (table 0.000292 GB .*) needs 0.000955 GB .* -bte_memory_check 0" "$BTE" bench -bte_input p.h5 -bte_bench_reps 1 $L
# the override
"$BTE" transport -bte_input p.h5 -bte_view 0 $L -bte_memory_check 0 > over.txt
grep -q "going on (-bte_memory_check 0)" over.txt || { echo "FAIL: no warning with -bte_memory_check 0"; cat over.txt; exit 1; }
echo "ok: -bte_memory_check 0 runs with a warning"
# a limit that holds the run
"$BTE" transport -bte_input p.h5 -bte_view 0 -bte_memory_limit 0.001 >/dev/null
echo "ok: a run within the limit"
