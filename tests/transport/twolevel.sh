# The two-level preconditioner of bte transport (-bte_transport_pc twolevel):
#  (a) the same mobility as GMRES with the Gamma diagonal (jacobi) at rtol 1e-8 (to 1e-7) and as
#      ITA to its tolerance, on 1 and 2 ranks; every variant (additive form, split none/band,
#      angular 0, CG on the symmetric form) agrees too;
#  (b) fewer collision Jacobian applies than jacobi for the same 1e-8 tolerance (the coarse
#      matrix's channel pass counted as one apply), and fewer than ITA's on the multi-valley gaas
#      model (Gamma, L, X valleys: the split by valley matters); apply counts are deterministic;
#  (c) bad option values: one-line error, nonzero exit.
# Problems: parabolic a = 40 A, 14^3 (LO + acoustic), 200 and 300 K; gaas 40^3, 300 K.
. "$TESTDIR/common.sh"
set -e
para="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 14 -bte_view 0 -bte_temperatures 200,300"
gaas="-bte_model gaas -bte_grid 40 -bte_view 0"
np=${TEST_NP:-2}
for p in para gaas; do
  o=${!p}
  "$BTE" transport $o -bte_output $p-jacobi.h5 > /dev/null
  "$BTE" transport $o -bte_transport_pc twolevel -bte_output $p-tl1.h5 > /dev/null
  $MPIEXEC -n $np "$BTE" transport $o -bte_transport_pc twolevel -bte_output $p-tl2.h5 > /dev/null
  $MPIEXEC -n $np "$BTE" transport $o -bte_transport_pc jacobi -bte_output $p-jacobi2.h5 > /dev/null
  "$BTE" transport $o -bte_transport_method ita -bte_output $p-ita.h5 > /dev/null
  "$BTE" transport $o -bte_transport_pc twolevel -bte_transport_pc_form additive -bte_output $p-add.h5 > /dev/null
  "$BTE" transport $o -bte_transport_pc twolevel -bte_transport_pc_split none -bte_transport_pc_angular 0 -bte_transport_pc_bins 7 -bte_output $p-none.h5 > /dev/null
  $MPIEXEC -n $np "$BTE" transport $o -bte_transport_pc twolevel -bte_transport_pc_split band -bte_transport_pc_angular 1 -bte_output $p-band.h5 > /dev/null
  "$BTE" transport $o -bte_transport_pc twolevel -bte_transport_ksp_type cg -bte_output $p-cg.h5 > /dev/null
done
$PYTHON - <<'PY'
import h5py, numpy as np
def load(name):
    with h5py.File(name, "r") as f:
        return {k: f["transport"][k][()] for k in f["transport"]}
for p in ("para", "gaas"):
    r = {k: load("%s-%s.h5" % (p, k)) for k in ("jacobi", "tl1", "tl2", "jacobi2", "ita", "add", "none", "band", "cg")}
    mu = {k: v["mobility"][:, 0, 0] for k, v in r.items()}
    app = {k: v["operator_applies"] for k, v in r.items()}
    print(p, "mobility", {k: np.round(v, 3).tolist() for k, v in mu.items()})
    print(p, "applies ", {k: v.tolist() for k, v in app.items()})
    for k in ("jacobi", "tl1", "tl2", "jacobi2", "add", "none", "band"):
        assert np.all(r[k]["residual"] <= 1e-8) and np.all(r[k]["converged"] == 1), "%s %s: residual %s" % (p, k, r[k]["residual"])
    for k in ("tl1", "tl2", "add", "none", "band"):
        d = np.max(np.abs(mu[k] / mu["jacobi"] - 1))
        assert d < 1e-7, "%s: twolevel (%s) and jacobi differ by %g" % (p, k, d)
    d = np.max(np.abs(mu["cg"] / mu["jacobi"] - 1))
    assert d < 1e-4, "%s: cg + twolevel vs gmres + jacobi: %g" % (p, d)
    d = np.max(np.abs(mu["ita"] / mu["tl1"] - 1))
    assert d < 2e-3, "%s: ITA and twolevel differ by %g" % (p, d)
    # 1 rank = 2 ranks: the same applies (the coarse space and matrix do not depend on the layout)
    assert np.allclose(mu["tl1"], mu["tl2"], rtol=1e-9), "%s: 1 vs 2 ranks" % p
    assert np.all(app["tl1"] == app["tl2"]), "%s: applies on 1 and 2 ranks %s %s" % (p, app["tl1"], app["tl2"])
    # (b) fewer applies than jacobi at the same tolerance
    assert np.all(app["tl1"] < app["jacobi"]), "%s: twolevel %s vs jacobi %s applies" % (p, app["tl1"], app["jacobi"])
    assert np.all(app["jacobi"] == app["jacobi2"])
    # a nearly exact coarse space on these small grids: at most 5 iterations per direction
    assert np.all(r["tl1"]["iterations"] <= 5), "%s: iterations %s" % (p, r["tl1"]["iterations"])
    if p == "gaas":
        assert np.all(app["tl1"] < app["ita"]), "gaas: twolevel %s vs ITA %s applies" % (app["tl1"], app["ita"])
print("ok")
PY
# (c) bad values
m="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 8 -bte_view 0"
expect_fail 'Unknown option "\?foo"\? for -bte_transport_pc' "$BTE" transport $m -bte_transport_pc foo
expect_fail "bte_transport_pc_bins must be in" "$BTE" transport $m -bte_transport_pc twolevel -bte_transport_pc_bins 0
expect_fail "bte_transport_pc_angular must be 0, 1 or 2" "$BTE" transport $m -bte_transport_pc_angular 3
expect_fail 'Unknown option "\?diag"\? for -bte_transport_pc_split' "$BTE" transport $m -bte_transport_pc_split diag
expect_fail 'Unknown option "\?both"\? for -bte_transport_pc_form' "$BTE" transport $m -bte_transport_pc_form both
expect_fail "not both" "$BTE" transport $m -bte_transport_pc twolevel -bte_transport_pc_type ilu
expect_fail "bte_transport_pc_bins must be in" $MPIEXEC -n $np "$BTE" transport $m -bte_transport_pc_bins -3
for o in "-bte_transport_pc foo" "-bte_transport_pc_bins 0" "-bte_transport_pc_angular 3"; do
  n=$("$BTE" transport $m $o 2>&1 | grep -c . || true)
  [ "$n" -eq 1 ] || { echo "expected a one-line error for $o, got $n lines"; "$BTE" transport $m $o; exit 1; }
done
echo ok
