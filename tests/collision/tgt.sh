# tgt (Perturbo v3's two passes): its build switches -bte_tgt_sort_targets (CDYN_SORT_SCAT_TGTS) and
# -bte_tgt_store_g2dt (STORE_G2DT) change no result (1e-14 against the defaults, 1e-12 against fused);
# the parallel host build gives the same layout, so the same results to the bit, on 1 and 2 threads;
# hw kept per channel when the table's hw is not a function of (q, mode); ghosts on 3 ranks.
. "$TESTDIR/common.sh"
set -e
b="$BUILD/tests/coll_tgt"
OMP_NUM_THREADS=1 "$b" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -write tgt1.bin
OMP_NUM_THREADS=2 "$b" -synth_nk 7 -synth_nbands 3 -synth_nmodes 4 -compare tgt1.bin
OMP_NUM_THREADS=2 "$b" -synth_nk 6 -synth_nbands 1 -synth_nmodes 5 -synth_hw_per_channel -synth_seed 8
out=$("$b" -synth_nk 5 -synth_hw_per_channel -info 2>&1)
grep -q "tgt keeps hw per channel" <<<"$out" || { echo "no hw per channel with -synth_hw_per_channel"; exit 1; }
run_np 3 "$b" -synth_nk 6 -synth_nbands 2 -synth_keep 0.3
