# graphene model on a grid: states vs the Dirac-cone density of states (linear in E), channel
# structure (i < j, K <-> K' only through the K-point phonons), selection rules.
set -e
"$BUILD/tests/m2_graphene_table" -bte_grid 1200 -bte_graphene_band dirac
"$BUILD/tests/m2_graphene_table" -bte_grid 600
