# Collision operator on a synthetic random BTE: conservation, baseline/tgt/fused agreement,
# Jacobian (finite differences, shell vs assembled, diagonal, column sums, shift/scale).
set -e
"$BUILD/tests/coll_check" -synth_nk 6 -synth_seed 3
# the same with two OpenMP threads and another seed, fewer bands, more modes
OMP_NUM_THREADS=2 "$BUILD/tests/coll_check" -synth_nk 5 -synth_nbands 1 -synth_nmodes 5 -synth_seed 4 -bte_smearing 0.02
# pair: small tiles and chunks, so that pairs span many tile pairs and rows are cut into chunks
OMP_NUM_THREADS=2 "$BUILD/tests/coll_check" -synth_nk 6 -synth_seed 6 -bte_pair_tile 32 -bte_pair_chunk 40
# the balanced delta (-bte_delta balanced): the same checks with the effective weights of every
# implementation (tgt storing them with STORE_G2DT)
"$BUILD/tests/coll_check" -synth_nk 5 -synth_seed 5 -bte_delta balanced
"$BUILD/tests/coll_check" -synth_nk 5 -synth_seed 5 -bte_delta balanced -bte_tgt_store_g2dt 1
