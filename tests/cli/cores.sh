# The note on CPU binding (src/cli/cores.c): a process that may use at most half of its share of the
# node's cores, with the OpenMP threads following the binding (OMP_NUM_THREADS not set), says so
# on stderr in one line, with the mpiexec mapping that gives it the node's cores; with
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
echo "ok: one line on stderr when bound to one core, none with OMP_NUM_THREADS set; the same output"
