# Outputs never clobber inputs (issue 13, item 3): -bte_output naming the input table (same path,
# another spelling of it, a symbolic or a hard link, or the input being the output's FILE.tmp) is
# refused before anything is opened for writing, in every command, and the table is left byte for
# byte as it was (before, dynamics and transport deleted it, exit 0). A dynamics run replaces an
# existing output only once its first snapshot is written, and appends to a restart file reached
# through a link as it does by name.
. "$TESTDIR/common.sh"
set -e
M="-bte_model parabolic -bte_grid 8 -bte_parabolic_a 20"
"$BTE" generate $M -bte_output t.h5 -bte_view 0 >/dev/null
cp t.h5 t0.h5
ln -s t.h5 sym.h5
ln t.h5 hard.h5
mkdir -p sub
R="-bte_view 0"
for out in t.h5 ./t.h5 sub/../t.h5 sym.h5 hard.h5; do
  expect_fail "The output $out (-bte_output) is the input t.h5 (-bte_input)" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_output $out
  expect_fail "The output $out (-bte_output) is the input t.h5 (-bte_input)" "$BTE" transport -bte_input t.h5 $R -bte_output $out
  expect_fail "The output $out (-bte_output) is the input t.h5 (-bte_input)" "$BTE" highfield -bte_input t.h5 $R -bte_efield_list 100 -bte_output $out
done
expect_fail "through a link" "$BTE" transport -bte_input t.h5 $R -bte_output hard.h5
expect_fail "through a link" "$BTE" transport -bte_input hard.h5 $R -bte_output sym.h5
expect_fail "is the input t.h5 (-bte_input)" $MPIEXEC -n ${TEST_NP:-2} "$BTE" transport -bte_input t.h5 $R -bte_output hard.h5
expect_fail "is the input t.h5 (-bte_input)" "$BTE" bench -bte_input t.h5 -bte_bench_reps 1 -bte_bench_json sym.h5
# an output path that is a directory, or in a missing directory, is refused before the run (it used to
# fail only at the final rename, after all the work)
mkdir -p outdir
expect_fail "The output file outdir (-bte_output) is a directory" "$BTE" transport -bte_input t.h5 $R -bte_output outdir
expect_fail "The output file outdir (-bte_output) is a directory" "$BTE" highfield -bte_input t.h5 $R -bte_efield_list 100 -bte_output outdir
expect_fail "The output file outdir (-bte_output) is a directory" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_output outdir
expect_fail "The output file outdir (-bte_summary) is a directory" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_summary outdir
expect_fail "The output file outdir (-bte_output) is a directory" "$BTE" generate $M -bte_output outdir
expect_fail "The output file outdir (-bte_bench_json) is a directory" "$BTE" bench -bte_input t.h5 -bte_bench_reps 1 -bte_bench_copy_size 1000 -bte_bench_json outdir
expect_fail "Cannot write the output file nodir/b.json (-bte_bench_json): its directory nodir does not exist" "$BTE" bench -bte_input t.h5 -bte_bench_reps 1 -bte_bench_copy_size 1000 -bte_bench_json nodir/b.json
expect_fail "Cannot write the output file nodir/d.h5 (-bte_output): its directory nodir does not exist" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_output nodir/d.h5
expect_fail "Cannot write the output file nodir/s.h5 (-bte_summary): its directory nodir does not exist" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_summary nodir/s.h5
# the output's temporary name is the input
cp t.h5 x.h5.tmp
expect_fail "written to x.h5.tmp first, which is the input x.h5.tmp" "$BTE" transport -bte_input x.h5.tmp $R -bte_output x.h5
expect_fail "written to x.h5.tmp first, which is the input x.h5.tmp" "$BTE" dynamics -bte_input x.h5.tmp $R -bte_final_time 10 -bte_output x.h5
cmp x.h5.tmp t0.h5 || { echo "FAIL: the input x.h5.tmp changed"; exit 1; }
cmp t.h5 t0.h5 || { echo "FAIL: the input table changed"; exit 1; }
[ -L sym.h5 ] || { echo "FAIL: the symbolic link was replaced"; exit 1; }
echo "ok: the table is unchanged"
# a model's input file: generate must not overwrite the epr file it reads
cp t0.h5 fake_epr.h5
expect_fail "is the input fake_epr.h5 (-bte_perturbo_epr)" "$BTE" generate -bte_model perturbo -bte_perturbo_epr fake_epr.h5 -bte_output fake_epr.h5
cmp fake_epr.h5 t0.h5 || { echo "FAIL: the epr file changed"; exit 1; }
# a dynamics run that fails before its first snapshot leaves an existing output as it was
"$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_output run.h5 >/dev/null
cp run.h5 run0.h5
expect_fail "initial state has no carriers" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_output run.h5 -bte_init_e0 50
cmp run.h5 run0.h5 || { echo "FAIL: a failed run changed the old output"; exit 1; }
[ ! -e run.h5.tmp ] || { echo "FAIL: run.h5.tmp left behind"; exit 1; }
# a new output replaces the old one (no .tmp left), and a restart through a hard link appends
"$BTE" dynamics -bte_input t.h5 $R -bte_final_time 20 -bte_output run.h5 >/dev/null
[ ! -e run.h5.tmp ] || { echo "FAIL: run.h5.tmp left behind"; exit 1; }
ln run.h5 runlink.h5
"$BTE" dynamics -bte_input t.h5 $R -bte_final_time 40 -bte_init restart -bte_restart runlink.h5 -bte_output run.h5 -bte_output_interval 10 >/dev/null
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then
  "$PYTHON" -c "
import h5py
t = h5py.File('run.h5', 'r')['dynamics/time'][()]
assert list(t) == [0, 20, 30, 40], t
print('ok: the restart appended through the link:', list(t))"
fi
# the output a symbolic link to the restart file: the append opens the file where it is, so it is
# written through the link (the link stays, its target grows); a new output through a link is refused
ln -s run.h5 symrun.h5
"$BTE" dynamics -bte_input t.h5 $R -bte_final_time 60 -bte_init restart -bte_restart run.h5 -bte_output symrun.h5 -bte_output_interval 10 >/dev/null
[ -L symrun.h5 ] || { echo "FAIL: the append replaced the symbolic link"; exit 1; }
[ ! -e symrun.h5.tmp ] && [ ! -e run.h5.tmp ] || { echo "FAIL: the append left a .tmp"; exit 1; }
if [ -n "$PYTHON" ] && "$PYTHON" -c 'import h5py' 2>/dev/null; then
  "$PYTHON" -c "
import h5py
t = h5py.File('run.h5', 'r')['dynamics/time'][()]
assert list(t) == [0, 20, 30, 40, 50, 60], t
print('ok: the restart appended through the symbolic link:', list(t))"
fi
expect_fail "symrun.h5 (-bte_output) is a symbolic link" "$BTE" dynamics -bte_input t.h5 $R -bte_final_time 10 -bte_output symrun.h5
