# graphene model: band and coupling functions (Dirac cone, tight-binding warping, velocities,
# exchange symmetry, valley selection, |g|^2 against the deformation-potential formulas).
set -e
"$BUILD/tests/m2_graphene_bands"
"$BUILD/tests/m2_graphene_bands" -bte_graphene_band dirac
