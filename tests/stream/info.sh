# bte info without the channel arrays (-bte_info_channels 0, or auto when they do not fit) prints
# the same summary as with them (grid, window, states, bands, modes, channel count, memory for a run
# on 1 rank, and on P ranks when run on P), for a table file and for a model, on 1 and TEST_NP ranks.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
M="-bte_model gaas -bte_grid 20"
OMP_NUM_THREADS=2 "$BTE" generate $M -bte_output t.h5 -bte_view 0 >/dev/null
summary() { grep -E 'grid:|energy window|bands:|states \(n,k\)|scattering channels|memory for a run' | sed 's/ (counted; channel arrays not loaded)//'; }
for src in "-bte_input t.h5" "$M"; do
  for np in 1 "$NP"; do
    OMP_NUM_THREADS=1 run_np $np "$BTE" info $src -bte_info_channels 1 >full.txt
    OMP_NUM_THREADS=1 run_np $np "$BTE" info $src -bte_info_channels 0 >counted.txt
    grep -q "scattering channels: [0-9]* (counted; channel arrays not loaded)" counted.txt || { echo "FAIL: no 'counted' note"; cat counted.txt; exit 1; }
    if grep -q "counted" full.txt; then echo "FAIL: -bte_info_channels 1 did not load"; cat full.txt; exit 1; fi
    if ! diff <(summary <full.txt) <(summary <counted.txt); then echo "FAIL: $src on $np rank(s): summaries differ"; exit 1; fi
    # the P-rank memory line only on several ranks (on one it would repeat the line before)
    [ "$(summary <full.txt | wc -l)" -eq $([ "$np" = 1 ] && echo 6 || echo 7) ] || { echo "FAIL: summary lines missing"; cat full.txt; exit 1; }
    # the default (auto) loads a table that fits
    OMP_NUM_THREADS=1 run_np $np "$BTE" info $src >auto.txt
    if grep -q "counted" auto.txt; then echo "FAIL: auto did not load a small table"; exit 1; fi
    echo "$src, $np rank(s): $(grep 'scattering channels' counted.txt | sed 's/^ *//'); $(grep 'on [0-9]* rank(s):' counted.txt | sed 's/^ *//')"
  done
done
grep -q "memory for a run on $NP rank(s): largest rank" full.txt || { echo "FAIL: no P-rank memory line"; cat full.txt; exit 1; }
# the same counts on 1 and NP ranks, from the file and from the model
a=$("$BTE" info -bte_input t.h5 -bte_info_channels 0 | grep 'scattering channels')
b=$(run_np "$NP" "$BTE" info $M -bte_info_channels 0 | grep 'scattering channels')
[ "$a" = "$b" ] || { echo "FAIL: '$a' vs '$b'"; exit 1; }
# auto with a memory limit the channels exceed (6.9 MB) but the states and the k grid do not
# (2.5 MB): counted, not refused; 1 refuses with the figures
M32="-bte_model gaas -bte_grid 32"
OMP_NUM_THREADS=2 "$BTE" generate $M32 -bte_output t32.h5 -bte_view 0 >/dev/null
for src in "-bte_input t32.h5" "$M32"; do
  "$BTE" info $src -bte_info_channels auto -bte_memory_limit 0.004 >lim.txt
  grep -q "(counted; channel arrays not loaded)" lim.txt || { echo "FAIL: auto did not fall back to counting"; cat lim.txt; exit 1; }
  grep -q "scattering channels: 246486" lim.txt || { echo "FAIL: wrong count"; cat lim.txt; exit 1; }
  expect_fail "channels.*needs .* GB\|too large for memory" "$BTE" info $src -bte_info_channels 1 -bte_memory_limit 0.004
done
expect_fail "auto" "$BTE" info $M -bte_info_channels maybe
echo ok
