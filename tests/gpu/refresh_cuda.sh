# A change of temperature on a set-up pair operator (-bte_collision_refresh) on CUDA Vecs: the
# refreshed operator's I[f], J(f) x (direct and through a Jacobian Mat made before the change) and
# diag J equal a fresh operator's at each new temperature to the bit (tests/collision/coll_refresh.c),
# for the layout built on the device (the kept sort permutation, CUB's reduction run again) and on
# the host (its device copy made again), in double and mixed precision, with the balanced delta,
# small tiles and chunks, a device-built layout applied on host Vecs, and 2 ranks sharing the GPU
# (states partition: refreshed; pairs partition: the device build keeps no channel arrays, so it
# rebuilds; built on the host, refreshed). Then bte transport on CUDA Vecs at three temperatures
# gives the same mobilities, to the bit, with one refreshed operator as with a fresh operator per
# temperature. Skips (exit 77) without a CUDA build of bte or without a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
# A failing PetscCheck exits with PETSc's error code (PETSC_ERR_PLIB is 77, the runner's "skip"):
# any nonzero exit of a program here is a failure.
fail() { echo "FAILED (exit $1): $2"; exit 1; }
prog="$BUILD/tests/coll_refresh"
gpuopts="-use_gpu_aware_mpi 0"
opts="-synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -temps 150,600,300,77 $gpuopts"
chk() { # expected (refresh|rebuild), ranks, options...
  local want=$1 np=$2; shift 2
  run_np $np "$prog" $opts -expect $want "$@" > out 2>&1 || { cat out; fail $? "np $np $*"; }
  grep -q "^ok" out || { cat out; fail 1 "np $np $*"; }
  echo "np $np $*: $(grep 'temperature changes:' out | head -1)"
}
chk refresh 1 -vec_type cuda -bte_pair_build device -info
grep -q "pair device build: channel arrays copied to the device and kept there" out || { cat out; fail 1 "the channel arrays were not kept on the device"; }
chk refresh 1 -vec_type cuda -bte_pair_build device -bte_collision_precision mixed
chk refresh 1 -vec_type cuda -bte_pair_build device -bte_delta balanced
chk refresh 1 -vec_type cuda -bte_pair_build device -bte_pair_tile 48 -bte_pair_chunk 60
chk refresh 1 -vec_type cuda -bte_pair_build host
chk refresh 1 -vec_type cuda -bte_pair_build host -bte_collision_precision mixed
chk refresh 1 -bte_pair_build device
chk refresh 2 -vec_type cuda -bte_pair_build device -bte_partition states
chk rebuild 2 -vec_type cuda -bte_pair_build device -bte_partition pairs
chk refresh 2 -vec_type cuda -bte_pair_build host -bte_partition pairs
chk rebuild 1 -vec_type cuda -bte_pair_build device -bte_collision_refresh 0
# bte transport on the GPU: one refreshed operator against a fresh one per temperature
topts="-bte_model gaas -bte_grid 30 -bte_view 0 -bte_temperatures 200,300,400 -vec_type cuda $gpuopts"
"$BTE" transport $topts -bte_output on.h5 -info :transport > on.txt 2>&1 || { cat on.txt; fail $? "transport, refresh"; }
"$BTE" transport $topts -bte_output off.h5 -bte_collision_refresh 0 -info :transport > off.txt 2>&1 || { cat off.txt; fail $? "transport, no refresh"; }
grep -q "3 temperatures on one collision operator: 3 refreshed its rates, 0 rebuilt it" on.txt || { cat on.txt; fail 1 "transport: the rates were not refreshed"; }
grep -v "^wrote\|^\[" on.txt > a.txt; grep -v "^wrote\|^\[" off.txt > b.txt
cmp -s a.txt b.txt || { diff a.txt b.txt; fail 1 "transport: printed results differ"; }
$PYTHON - <<'PY' || fail 1 "transport: /transport differs"
import h5py
a, b = h5py.File("on.h5", "r")["transport"], h5py.File("off.h5", "r")["transport"]
for k in a.keys():
    assert a[k][()].tobytes() == b[k][()].tobytes(), "/transport/%s differs" % k
PY
cat a.txt
echo ok
