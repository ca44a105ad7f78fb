#!/bin/bash
# make run: hot-electron cooling in GaAs with bte dynamics, then plots.
#   scripts/run.sh path/to/bte [outdir]       (make run passes the driver's path; outdir: out/)
# Electrons injected 0.5 eV above the conduction-band edge (Gaussian, 30 meV wide, 1e18 cm^-3)
# relax for 2 ps at 300 K in the three-valley GaAs model (64^3 fcc grid, 0.7 eV window: Gamma,
# L and X valleys), by polar-optical, acoustic and intervalley phonon emission/absorption.
# 64^3 is the smallest grid found on which the channel graph is connected: 36, 50, 54, 56-58, 60,
# 62 and 63^3 leave the lowest Gamma states (15 to 27) without a path to the rest (carriers could never
# cool into them; docs/dynamics.md).
# The balanced delta (exact detailed balance): the electrons cool toward the lattice's 300 K (with
# Perturbo's delta this grid's equilibrium sits at 387 K). Adaptive RK 5(4) (options/adaptive.opts), a snapshot every 50 fs. Environment: NP (ranks, 2),
# GRID (64), WINDOW (0.7 eV), MPIEXEC.
set -e
here=$(cd "$(dirname "$0")/.." && pwd)
BTE=${1:?usage: scripts/run.sh path/to/bte [outdir]}
[ -x "$BTE" ] && [ -f "$BTE" ] || { echo "scripts/run.sh: $BTE is not an executable (make builds build/bin/bte)" >&2; exit 1; }
OUT=${2:-out}
NP=${NP:-2}
GRID=${GRID:-64}
WINDOW=${WINDOW:-0.7}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
MPIEXEC=${MPIEXEC:-mpiexec}
case "$MPIEXEC" in *--oversubscribe*) ;; *) MPIEXEC="$MPIEXEC --oversubscribe";; esac
[ "$(id -u)" -eq 0 ] && case "$MPIEXEC" in *--allow-run-as-root*) ;; *) MPIEXEC="$MPIEXEC --allow-run-as-root";; esac
# containers: OpenMPI's shared-memory single copy needs ptrace rights
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
mkdir -p "$OUT"
H5="$OUT/gaas_cooling.h5"
echo "== bte dynamics: hot electrons in GaAs (grid $GRID^3, $NP ranks) -> $H5"
start=$(date +%s)
$MPIEXEC -n "$NP" "$BTE" dynamics -bte_model gaas -bte_grid "$GRID" -bte_window "$WINDOW" -bte_temperature 300 -bte_delta balanced \
  -bte_init gaussian -bte_init_e0_edge 0.5 -bte_init_smear 0.03 -bte_carrier_density 1e18 \
  -options_file "$here/options/adaptive.opts" -bte_final_time 2000 -bte_output_interval 50 \
  -bte_output "$H5"
end=$(date +%s)
echo "== dynamics took $((end - start)) s"
PY=$("$here/scripts/find-python.sh")
echo "== plots"
pngs=$("$PY" "$here/scripts/plot_dynamics.py" "$H5" --outdir "$OUT" --times 0,100,200,400,700,1000,1500,2000)
for p in $pngs; do echo "PNG: $(cd "$(dirname "$p")" && pwd)/$(basename "$p")"; done
