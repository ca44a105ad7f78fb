#!/bin/sh
# make bench: times every collision implementation on the GaAs model.
# BENCH_GRIDS (k points per direction) picks the sizes: GaAs grid 40 ~ 1e6 channels on a
# 0.7 eV window; see docs/benchmarks.md for the grids of 1e7 and 1e8 (135^3, the paper's case).
# Extra PETSc options go in BENCH_OPTS (e.g. "-vec_type cuda -use_gpu_aware_mpi 0"); BENCH_MODEL
# picks another model (default gaas), BENCH_OUT the folder of the JSON files (default out). On the
# CPU the applies use OMP_NUM_THREADS threads (all cores when unset: set it on a shared machine).
bte=${1:-build/bin/bte}
grids=${BENCH_GRIDS:-40}
model=${BENCH_MODEL:-gaas}
outdir=${BENCH_OUT:-out}
mkdir -p "$outdir"
for g in $grids; do
  echo "== $model, grid $g"
  $bte bench -bte_model "$model" -bte_grid "$g" -bte_bench_json "$outdir/bench-$model-$g.json" $BENCH_OPTS || exit 1
done
