# The output layer through the API (tests/io/output_layer.c), on 1 and 2 ranks: a transport or
# high-field write that cannot create its file (here a directory in the way of FILE.tmp) fails with
# one error that names the output and leaves the existing FILE as it was, and the FILE.tmp that bte
# did not make is not removed; a write into a directory that does not exist is refused before it starts
# (BTECheckOutputFile), naming the output; a write that succeeds replaces FILE with a complete file (root
# attribute complete = 1, provenance, /grid, /diagnostics) and leaves no FILE.tmp.
. "$TESTDIR/common.sh"
set -e
T="$BUILD/tests/output_layer -bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_window 0.5"
for np in 1 ${TEST_NP:-2}; do
  rm -rf ./*.h5 ./*.h5.tmp ./*.orig
  for f in tr hf old_tr old_hf; do echo "not HDF5: $f" > $f.h5; cp $f.h5 $f.orig; done
  mkdir tr.h5.tmp hf.h5.tmp
  expect_fail "Cannot write the output file tr.h5 (-bte_output): creating tr.h5.tmp, which the output is written as first, failed: Is a directory" run_np $np $T -write transport -file tr.h5
  expect_fail "Cannot write the output file hf.h5 (-bte_output): creating hf.h5.tmp, which the output is written as first, failed: Is a directory" run_np $np $T -write highfield -file hf.h5
  expect_fail "Cannot write the output file no_such_dir/tr.h5 (-bte_output): its directory no_such_dir does not exist" run_np $np $T -write transport -file no_such_dir/tr.h5
  cmp tr.h5 tr.orig && cmp hf.h5 hf.orig
  [ -d tr.h5.tmp ] && [ -d hf.h5.tmp ] || { echo "FAIL: a FILE.tmp that bte did not make was removed"; exit 1; }
  run_np $np $T -write transport -file old_tr.h5 | grep -q "wrote old_tr.h5"
  run_np $np $T -write highfield -file old_hf.h5 | grep -q "wrote old_hf.h5"
  ! cmp -s old_tr.h5 old_tr.orig && ! cmp -s old_hf.h5 old_hf.orig || { echo "FAIL: a successful write did not replace FILE"; exit 1; }
  [ ! -e old_tr.h5.tmp ] && [ ! -e old_hf.h5.tmp ] || { echo "FAIL: FILE.tmp left behind"; exit 1; }
  if [ -n "$PYTHON" ]; then
    "$PYTHON" -c "
import h5py
for n, g in (('old_tr.h5', 'transport'), ('old_hf.h5', 'highfield')):
    f = h5py.File(n, 'r')
    assert f.attrs['complete'] == 1 and g in f and 'grid' in f and 'diagnostics' in f, n
    assert f.attrs['creator'].decode().startswith('bte ') and f.attrs['source'] == b'parabolic', dict(f.attrs)
"
  fi
  echo "ok: $np rank(s)"
done

# a FILE.tmp that is a symbolic link (to another table) or a FIFO: refused before the run, the link's
# target untouched (the write would have followed the link); bte generate and the runs alike
P="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_window 0.5"
OMP_NUM_THREADS=1 "$BTE" generate $P -bte_output victim.h5 -bte_view 0 > /dev/null
cp victim.h5 victim.orig
ln -sf victim.h5 gen.h5.tmp; ln -sf victim.h5 tr2.h5.tmp; mkfifo fifo.h5.tmp
expect_fail "written as gen.h5.tmp first, and it is a symbolic link" "$BTE" generate -bte_model graphene -bte_grid 60 -bte_output gen.h5
expect_fail "written as tr2.h5.tmp first, and it is a symbolic link" "$BTE" transport $P -bte_output tr2.h5
expect_fail "written as fifo.h5.tmp first, and it is a special file" timeout 60 "$BTE" dynamics $P -bte_final_time 10 -bte_output fifo.h5
cmp victim.h5 victim.orig || { echo "FAIL: the link's target was written"; exit 1; }
# a directory where the output cannot be created whatever the permission bits say (as root, /proc
# passes access(W_OK)): refused before the run, not after it
for d in /proc /sys; do
  [ -d $d ] || continue
  expect_fail "Cannot write the output file $d/bte_out.h5 (-bte_output): " "$BTE" transport $P -bte_output $d/bte_out.h5
  out=$("$BTE" transport $P -bte_output $d/bte_out.h5 2>&1) || true
  ! grep -q "T(K)" <<<"$out" || { echo "$out"; echo "FAIL: the run started before the refusal"; exit 1; }
done
