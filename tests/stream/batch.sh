# Batch sizes and failures of streaming generation: batches smaller than one state's channels work
# (the state is filled in pieces) and give the same file; a batch that does not fit the memory
# limit, a negative batch, or an output directory that does not exist give a clear error and leave
# no file; the public API (tests/stream/stream_api.c) on 1 and TEST_NP ranks.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
CMP="$BUILD/tests/stream_cmp"
API="$BUILD/tests/stream_api"
[ -x "$CMP" ] && [ -x "$API" ] || { echo "skip: test programs not built"; exit 77; }
M="-bte_model gaas -bte_grid 16"
"$BTE" generate $M -bte_output mem.h5 -bte_generate_stream 0 -bte_view 0 >/dev/null
# the smallest state here has dozens of channels: batches of 1 and 2 split every state
for b in 1 2; do
  out=$("$BTE" generate $M -bte_output b$b.h5 -bte_generate_batch $b -bte_view 0 -info :bte 2>&1)
  grep -q "batch(es) of at most $b" <<<"$out" || { echo "FAIL: batch $b not used"; echo "$out" | tail; exit 1; }
  "$CMP" mem.h5 b$b.h5
done
OMP_NUM_THREADS=1 run_np "$NP" "$BTE" generate $M -bte_output bp.h5 -bte_generate_batch 1 -bte_view 0 >/dev/null
"$CMP" mem.h5 bp.h5
expect_fail "bte_generate_batch must be >= 0" "$BTE" generate $M -bte_output neg.h5 -bte_generate_batch -5
expect_fail "batches of 100000000 channels.*needs .* GB.*-bte_generate_batch" "$BTE" generate $M -bte_output big.h5 -bte_generate_batch 100000000 -bte_memory_limit 1
expect_fail "Cannot write the output file nosuchdir/x.h5 (-bte_output): its directory nosuchdir does not exist" "$BTE" generate $M -bte_output nosuchdir/x.h5
expect_fail "Cannot write the output file nosuchdir/x.h5 (-bte_output): its directory nosuchdir does not exist" run_np "$NP" "$BTE" generate $M -bte_output nosuchdir/x.h5
# a directory in the way of FILE.tmp: refused before the table is built (creating FILE.tmp fails),
# and left alone
mkdir in.h5.tmp
expect_fail "Cannot write the output file in.h5 (-bte_output): creating in.h5.tmp, which the output is written as first, failed: Is a directory" "$BTE" generate $M -bte_output in.h5
[ -d in.h5.tmp ] || { echo "FAIL: the streamed writer removed an in.h5.tmp it did not create"; exit 1; }
rmdir in.h5.tmp
for f in neg.h5 big.h5 neg.h5.tmp big.h5.tmp; do [ ! -e "$f" ] || { echo "FAIL: $f left behind"; exit 1; }; done
# streaming is for models: a table input is refused
expect_fail "needs a model" "$BTE" generate -bte_input mem.h5 -bte_output x.h5
for np in 1 "$NP"; do
  OMP_NUM_THREADS=1 run_np $np "$API" $M -prefix api$np
  "$CMP" api${np}_memory.h5 api${np}_stream.h5
  "$CMP" api${np}_memory.h5 api${np}_again.h5
  "$CMP" mem.h5 api${np}_stream.h5
done
echo ok
