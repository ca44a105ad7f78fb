# The note on CPU binding (src/cli/cores.c): a process that may use at most half of its share of the
# node's cores, with the OpenMP threads following the binding (OMP_NUM_THREADS not set), says so
# on stderr in one line, with the mpiexec mapping that gives it the node's cores; so do two unbound
# ranks that each run as many threads as the node has cores; with
# OMP_NUM_THREADS set (the user chose the threads) it does not; stdout and the results are the
# same either way. Bound here by taskset to the first core the test may use.
. "$TESTDIR/common.sh"
set -e
command -v taskset > /dev/null || { echo "skip: no taskset"; exit 77; }
[ "$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)" -ge 2 ] || { echo "skip: fewer than 2 cores, nothing to bind away"; exit 77; }
cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status)
m="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 10 -bte_view 0"
env -u OMP_NUM_THREADS taskset -c "$cpu" "$BTE" transport $m > bound.out 2> bound.err
grep -q "^bte: note: a rank may use 1 of the [0-9]* cores of its node (its CPU binding; 1 rank(s) there), so the host steps of the set-up run on 1 thread(s); to use the node's cores give mpiexec --map-by slot:PE=" bound.err || { cat bound.err; echo "FAILED: no note on a process bound to one core"; exit 1; }
[ "$(wc -l < bound.err)" -eq 1 ] || { cat bound.err; echo "FAILED: more than one line on stderr"; exit 1; }
OMP_NUM_THREADS=1 taskset -c "$cpu" "$BTE" transport $m > chosen.out 2> chosen.err
[ ! -s chosen.err ] || { cat chosen.err; echo "FAILED: a note although OMP_NUM_THREADS was set"; exit 1; }
cmp -s bound.out chosen.out || { diff bound.out chosen.out; echo "FAILED: the note changed the run's output"; exit 1; }
# two unbound ranks on one node, each with as many threads as the node has cores (OpenMPI's mpiexec)
if $MPIEXEC --version 2>&1 | grep -qi "open mpi\|openrte"; then
  env -u OMP_NUM_THREADS $MPIEXEC -n 2 --bind-to none "$BTE" transport $m > over.out 2> over.err
  grep -q "^bte: note: the 2 ranks of a node run up to [0-9]* OpenMP threads each on its [0-9]* cores, so their host steps compete for them; set OMP_NUM_THREADS=" over.err || { cat over.err; echo "FAILED: no note on two ranks with a node's threads each"; exit 1; }
  OMP_NUM_THREADS=1 $MPIEXEC -n 2 --bind-to none "$BTE" transport $m > one.out 2> one.err
  ! grep -q "note:" one.err || { cat one.err; echo "FAILED: a note although OMP_NUM_THREADS was set"; exit 1; }
fi
echo "ok: one line on stderr when bound to one core or when the ranks oversubscribe the node, none with OMP_NUM_THREADS set; the same output"
