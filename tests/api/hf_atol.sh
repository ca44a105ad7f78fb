# The SNES absolute tolerance an application sets (BTEHighFieldGetSNES, or -bte_highfield_snes_atol)
# is used by BTEHighFieldSolve, not replaced by the one it derives (tests/api/hf_atol.c).
set -e
"$BUILD/tests/hf_atol" -bte_parabolic_a 40 -bte_grid 10 | tee out.txt
tail -n 1 out.txt | grep -q "all checks passed"
