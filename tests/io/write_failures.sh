# Outputs that cannot be written. (1) A write that fails midway (a full disk; here a file-size limit,
# which fails HDF5's writes the same way): one error line, exit 1, no crash (HDF5 1.10 crashed in its
# clean-up at MPI_Finalize after a failed close, exit 139), and neither FILE nor FILE.tmp left, for
# every command that writes; the bench JSON likewise (its write errors were not checked). (2) An
# output path that is a FIFO or a symbolic link (the output is renamed onto it: a link was replaced
# and its target never written, a FIFO or device replaced by a file), or whose directory is a file.
. "$TESTDIR/common.sh"
set -e
"$BTE" generate -bte_model parabolic -bte_parabolic_a 40 -bte_grid 10 -bte_view 0 -bte_output p.h5 > /dev/null
limited() { (trap '' XFSZ; ulimit -f 1; "$BTE" "$@" 2>&1; echo "rc=$?"); }
for c in "transport -bte_input p.h5 -bte_output o.h5" "generate -bte_model parabolic -bte_grid 8 -bte_output o.h5" \
         "dynamics -bte_input p.h5 -bte_final_time 5 -bte_output o.h5" "highfield -bte_input p.h5 -bte_efield_list 100 -bte_output o.h5" \
         "bench -bte_input p.h5 -bte_bench_reps 1 -bte_bench_json o.h5"; do
  out=$(limited ${c} -bte_view 0)
  rc=${out##*rc=}
  [ "$rc" = 1 ] || { echo "$out"; echo "$c: exit $rc under a file-size limit, expected 1"; exit 1; }
  grep -q "error: .*o.h5" <<<"$out" || { echo "$out"; echo "$c: no error line naming the output"; exit 1; }
  ! grep -qi "segmentation\|signal" <<<"$out" || { echo "$out"; echo "$c: crashed"; exit 1; }
  [ ! -e o.h5 ] && [ ! -e o.h5.tmp ] || { ls -l o.h5*; echo "$c: left a file"; exit 1; }
  echo "ok: ${c%% *} under a file-size limit: $(grep error: <<<"$out" | cut -c1-150)"
done
mkfifo fifo.h5
expect_fail "The output file fifo.h5 (-bte_output) exists and is not a regular file" "$BTE" transport -bte_input p.h5 -bte_view 0 -bte_output fifo.h5
[ -p fifo.h5 ] || { echo "the FIFO was replaced"; exit 1; }
mkdir tgt && ln -s tgt/r.h5 link.h5
expect_fail "The output file link.h5 (-bte_output) is a symbolic link" "$BTE" transport -bte_input p.h5 -bte_view 0 -bte_output link.h5
[ -L link.h5 ] || { echo "the link was replaced"; exit 1; }
expect_fail "The output file fifo.h5 (-bte_bench_json) exists and is not a regular file" "$BTE" bench -bte_input p.h5 -bte_bench_reps 1 -bte_bench_json fifo.h5
expect_fail "Cannot write the output file p.h5/x.h5 (-bte_output): p.h5 is not a directory" "$BTE" transport -bte_input p.h5 -bte_view 0 -bte_output p.h5/x.h5
# the target of the link, named directly, is written
"$BTE" transport -bte_input p.h5 -bte_view 0 -bte_output tgt/r.h5 > /dev/null
[ -f tgt/r.h5 ] && [ -L link.h5 ]
echo ok
# a dynamics output that stops growing (the limit reached midway): the run stops at the first
# snapshot that cannot be written, and the file keeps the snapshots so far, readable, complete = 0,
# and a restart from it runs (its close would have written metadata past what reached the disk)
out=$( (trap '' XFSZ; ulimit -f 100; "$BTE" dynamics -bte_input p.h5 -bte_view 0 -bte_diagnostics 0 -bte_final_time 3000 -bte_output_interval 1 -bte_output d.h5 2>&1; echo "rc=$?") )
[ "${out##*rc=}" = 1 ] && grep -q "error: Writing the dynamics output d.h5: cannot write" <<<"$out" || { echo "$out" | tail -5; echo "dynamics: no error, or not exit 1, at the limit"; exit 1; }
$PYTHON - <<'PY'
import h5py, numpy as np
with h5py.File("d.h5", "r") as f:
    n = len(f["dynamics/time"]); o = f["dynamics/occupations"]
    assert f.attrs["complete"] == 0 and 1 <= n < 3000, (f.attrs["complete"], n)
    assert all(np.any(o[i]) for i in range(n)), "a complete snapshot without occupations"
    print("dynamics stopped at the limit: %d snapshots kept, complete = 0" % n)
PY
"$BTE" dynamics -bte_input p.h5 -bte_view 0 -bte_init restart -bte_restart d.h5 -bte_final_time 100 -bte_output r.h5 > /dev/null
echo "ok: restart from the kept snapshots"
