#!/bin/bash
# The drift operator on the GPU: CPU vs CUDA (AIJCUSPARSE stencil + drift_cuda.cu kernels) D[f], y + D[f],
# J(f) x and diag J agree to 1e-12 (max-norm relative) for the four forms (muscl with both
# limiters), on 1 and 2 ranks, and on one rank make no host<->device copy (tests/dynamics/drift_ops.c). Then `bte dynamics` with RK4 in a field on
# CUDA Vecs: -log_view's GpuToCpu count of TSStep (the whole step: collision, drift, RK vector
# operations) and of BTEDriftApply is 0; with the host stencil (-bte_drift_mat_type aij, the drift as it
# ran before) the same parse finds the copies. The muscl form runs on the GPU too (its limited
# correction by drift_cuda.cu's kernels: no copies in the step loop) and gives the trajectory of
# standard Vecs. Skips (exit 77) without a CUDA build of bte or a GPU.
source "$TESTDIR/common.sh"
require_cuda_gpu
# any nonzero exit of a program is a failure (PETSC_ERR_PLIB is 77, the runner's "skip")
fail() { echo "FAILED: $*"; exit 1; }
gpuopts="-use_gpu_aware_mpi 0"
prog="$BUILD/tests/drift_ops"
run_np 1 "$prog" -cuda -bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 $gpuopts || fail "drift_ops, 1 rank (exit $?)"
run_np 2 "$prog" -cuda -bte_model gaas -bte_grid 20 $gpuopts || fail "drift_ops, 2 ranks (exit $?)"

# "CpuToGpu GpuToCpu" counts of an event row of -log_view (PETSc >= 3.20 with a device: the columns
# end with ... Mflop/s GPU-Mflop/s CpuToGpu-Count Size GpuToCpu-Count Size GPU-%F)
copies() { awk -v e="$2" '$1 == e { print $(NF-4), $(NF-2); found = 1; exit } END { if (!found) print "missing" }' "$1"; }
P="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_init fermi -bte_carrier_density 1e17 -bte_efield 2000,0,0 -bte_final_time 40 -bte_output_interval 20 -vec_type cuda -log_view $gpuopts"
for form in log plain upwind muscl; do
  run_np 1 "$BTE" dynamics $P -bte_drift_form $form > dyn_$form.log 2>&1 || { cat dyn_$form.log; fail "bte dynamics ($form form, exit $?)"; }
  grep -q "stencil matrix: seqaijcusparse.*pointwise steps on the GPU" dyn_$form.log || { cat dyn_$form.log; fail "$form: the drift stencil is not an AIJCUSPARSE on CUDA Vecs"; }
  grep "after .* steps" dyn_$form.log
  read -r ts_c2g ts_g2c <<<"$(copies dyn_$form.log TSStep)"
  read -r dr_c2g dr_g2c <<<"$(copies dyn_$form.log BTEDriftApply)"
  echo "$form form, -vec_type cuda: copies in TSStep: $ts_c2g host->device, $ts_g2c device->host; in BTEDriftApply: $dr_c2g, $dr_g2c"
  [ "$ts_g2c" = 0 ] || { grep -E "^(TSStep|BTEDrift|MatMult|BTEColl|Vec)" dyn_$form.log; fail "$form: the RK4 step loop copied device->host ($ts_g2c copies in TSStep)"; }
  [ "$dr_g2c" = 0 ] && [ "$dr_c2g" = 0 ] || fail "$form: BTEDriftApply copied between host and device ($dr_c2g h->d, $dr_g2c d->h)"
done
# the same parse sees the copies of a drift on the host (the check above is not vacuous)
run_np 1 "$BTE" dynamics $P -bte_drift_form log -bte_drift_mat_type aij > dyn_host.log 2>&1 || { cat dyn_host.log; fail "bte dynamics with -bte_drift_mat_type aij (exit $?)"; }
read -r ts_c2g ts_g2c <<<"$(copies dyn_host.log TSStep)"
echo "log form, host stencil (-bte_drift_mat_type aij): copies in TSStep: $ts_c2g host->device, $ts_g2c device->host"
[ "$ts_g2c" != missing ] && [ "${ts_g2c%%.*}" -gt 0 ] || fail "no device->host copies counted with the drift on the host: the -log_view parse is broken"
# the same trajectory with the GPU and the host stencil (carriers to 1e-10, <E> and v_d to 1e-6 relative)
a=$(grep "^  t .* 40.000 fs" dyn_log.log); b=$(grep "^  t .* 40.000 fs" dyn_host.log)
echo "GPU stencil:  $a"; echo "host stencil: $b"
[ -n "$a" ] && [ -n "$b" ] || fail "no monitor line at 40 fs"
awk -v a="$a" -v b="$b" 'function val(s, key,   n, w, i) { n = split(s, w, /[ \t]+/); for (i = 1; i < n; i++) if (w[i] == key) return w[i + 1] + 0; return "nan" }
  function rel(x, y) { d = x - y; if (d < 0) d = -d; m = y < 0 ? -y : y; return m > 0 ? d / m : d }
  BEGIN { r1 = rel(val(a, "carriers"), val(b, "carriers")); r2 = rel(val(a, "<E>"), val(b, "<E>")); r3 = rel(val(a, "v_d"), val(b, "v_d"))
          printf "relative differences: carriers %.1e, <E> %.1e, v_d %.1e\n", r1, r2, r3; exit !(r1 <= 1e-10 && r2 <= 1e-6 && r3 <= 1e-6) }' || fail "GPU and host stencils give different states at 40 fs"
# muscl on the GPU (dyn_muscl.log, above) against standard Vecs, and on 2 ranks (its slopes' ghosts)
run_np 1 "$BTE" dynamics ${P/-vec_type cuda/} -bte_drift_form muscl > dyn_muscl_cpu.log 2>&1 || { cat dyn_muscl_cpu.log; fail "muscl on standard Vecs (exit $?)"; }
run_np 2 "$BTE" dynamics $P -bte_drift_form muscl -bte_drift_limiter minmod > dyn_muscl2.log 2>&1 || { cat dyn_muscl2.log; fail "muscl, minmod, 2 ranks on CUDA Vecs (exit $?)"; }
run_np 1 "$BTE" dynamics ${P/-vec_type cuda/} -bte_drift_form muscl -bte_drift_limiter minmod > dyn_muscl2_cpu.log 2>&1 || { cat dyn_muscl2_cpu.log; fail "muscl, minmod, standard Vecs (exit $?)"; }
a=$(grep "^  t .* 40.000 fs" dyn_muscl2.log); b=$(grep "^  t .* 40.000 fs" dyn_muscl2_cpu.log)
[ -n "$a" ] && [ -n "$b" ] || fail "muscl, minmod: no monitor line at 40 fs"
awk -v a="$a" -v b="$b" 'function val(s, key,   n, w, i) { n = split(s, w, /[ \t]+/); for (i = 1; i < n; i++) if (w[i] == key) return w[i + 1] + 0; return "nan" }
  function rel(x, y) { d = x - y; if (d < 0) d = -d; m = y < 0 ? -y : y; return m > 0 ? d / m : d }
  BEGIN { r1 = rel(val(a, "carriers"), val(b, "carriers")); r2 = rel(val(a, "<E>"), val(b, "<E>")); r3 = rel(val(a, "v_d"), val(b, "v_d"))
          printf "muscl (minmod), 2 ranks on CUDA Vecs against 1 on standard Vecs: carriers %.1e, <E> %.1e, v_d %.1e\n", r1, r2, r3; exit !(r1 <= 1e-10 && r2 <= 1e-6 && r3 <= 1e-6) }' || fail "muscl, minmod: 2 ranks on the GPU and standard Vecs differ at 40 fs"
a=$(grep "^  t .* 40.000 fs" dyn_muscl.log); b=$(grep "^  t .* 40.000 fs" dyn_muscl_cpu.log)
[ -n "$a" ] && [ -n "$b" ] || fail "muscl: no monitor line at 40 fs"
awk -v a="$a" -v b="$b" 'function val(s, key,   n, w, i) { n = split(s, w, /[ \t]+/); for (i = 1; i < n; i++) if (w[i] == key) return w[i + 1] + 0; return "nan" }
  function rel(x, y) { d = x - y; if (d < 0) d = -d; m = y < 0 ? -y : y; return m > 0 ? d / m : d }
  BEGIN { r2 = rel(val(a, "<E>"), val(b, "<E>")); r3 = rel(val(a, "v_d"), val(b, "v_d"))
          printf "muscl (van Leer) on the GPU against standard Vecs: <E> %.1e, v_d %.1e\n", r2, r3; exit !(r2 <= 1e-6 && r3 <= 1e-6) }' || fail "muscl: the GPU and standard Vecs differ at 40 fs"
echo "drift on the GPU: agreement and no copies in the step loop"
