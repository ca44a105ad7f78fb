# bte.Collision, the package's numpy collision integral (docs/python.md), against bte itself and
# against the operator's identities, on the parabolic model (a = 20 A, 10^3 grid, LO + acoustic):
#  - RTA mobility from its out-scattering rates at the chemical potential of bte's output equals
#    `bte transport -bte_transport_method rta` (200 and 300 K), and the full linearised solution
#    (a dense least-squares solve of A F = v, A = -D^-1 J(f0) D) equals `bte transport` (KSP);
#  - a fixed-step RK4 integration of df/dt = I[f] from the initial occupations of a `bte dynamics`
#    output (same step) reproduces its later snapshots;
#  - column sums of J vanish and sum I = 0 (particle conservation), J = dI/df by central
#    differences, Gamma = -diag J;
#  - the balanced delta (a table made with -bte_delta balanced carries it): I[f_FD] = 0 to rounding
#    at any mu (Perturbo's delta on the same channels: not), and RK4 reproduces bte's run;
#  - with petsc4py: bte.petsc.collision_jacobian's MatMult equals the scipy matrix, on 1 and 2
#    ranks; without it, importing bte.petsc fails with a message that names petsc4py.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
"$PYTHON" -c "import scipy.sparse" 2> /dev/null || { echo "skip: $PYTHON has no scipy (bte.Collision.jacobian needs it)"; exit 77; }
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 # the repository's package, read only
model="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_view 0"
"$BTE" generate $model -bte_output table.h5 > /dev/null
"$BTE" transport -bte_input table.h5 -bte_view 0 -bte_temperatures 200,300 -bte_transport_method rta -bte_output rta.h5 > /dev/null
"$BTE" transport -bte_input table.h5 -bte_view 0 -bte_temperatures 200,300 -bte_output ksp.h5 > /dev/null
"$BTE" dynamics -bte_input table.h5 -bte_view 0 -bte_init gaussian -bte_init_e0_edge 0.12 -bte_temperature 250 \
  -options_file "$TESTDIR/../options/rk4-fixed.opts" -ts_dt 0.5 -bte_final_time 20 -bte_output_interval 10 \
  -bte_dynamics_monitor 0 -bte_output dyn.h5 > /dev/null
# the balanced delta, carried by the table (its attribute delta)
"$BTE" generate $model -bte_delta balanced -bte_output bal.h5 > /dev/null
"$BTE" dynamics -bte_input bal.h5 -bte_view 0 -bte_init gaussian -bte_init_e0_edge 0.12 -bte_temperature 250 \
  -options_file "$TESTDIR/../options/rk4-fixed.opts" -ts_dt 0.5 -bte_final_time 20 -bte_output_interval 10 \
  -bte_dynamics_monitor 0 -bte_output dynbal.h5 > /dev/null
"$PYTHON" - <<'PY'
import numpy as np
import bte
t = bte.Table("table.h5")
rta, ksp = bte.Transport("rta.h5"), bte.Transport("ksp.h5")
for k in range(len(rta)):
    T, mu = rta.temperature[k], rta.chemical_potential[k]
    c = bte.Collision(t, T)
    m = c.rta_mobility(mu)
    d = np.abs(m - rta.mobility[k]).max() / m[0, 0]
    print("T = %g K: RTA mobility numpy %.10g, bte %.10g cm^2/(V s) (relative difference %.1e)" % (T, m[0, 0], rta.mobility[k][0, 0], d))
    assert d < 1e-10
    # full linearised solution: A F = v, A = -D^-1 J D on the states that carry current
    f0 = c.fermi_dirac(ksp.chemical_potential[k])
    assert abs(ksp.chemical_potential[k] - mu) < 1e-12
    D = f0 * (1 - f0) / (8.617333262e-5 * T)
    J = c.jacobian(f0).toarray()
    G = c.scattering_rates(f0)
    on = (G > 0) & (D > 0)
    A = -(J[np.ix_(on, on)] * D[on][None, :]) / D[on][:, None]
    v = t.velocity[on]
    v = v - np.outer(np.ones(on.sum()), D[on] @ v / D[on].sum())  # onto D-perp (consistent system)
    F = np.linalg.lstsq(A, v, rcond=None)[0]
    mob = 0.1 * np.einsum("ia,ib,i->ab", t.velocity[on], F, D[on]) / f0.sum()
    d = np.abs(mob - ksp.mobility[k]).max() / mob[0, 0]
    print("        full solution numpy %.10g, bte (KSP) %.10g cm^2/(V s) (relative difference %.1e)" % (mob[0, 0], ksp.mobility[k][0, 0], d))
    assert d < 1e-6
# identities of the operator
c = bte.Collision(t, 300)
rng = np.random.default_rng(1)
f = 0.3 * rng.random(t.nstates)
J = c.jacobian(f)
scale = np.abs(J).max()
assert np.abs(np.asarray(J.sum(axis=0))).max() < 1e-13 * scale, "column sums"
assert abs(c.apply(f).sum()) < 1e-13 * np.abs(c.apply(f)).sum()
assert np.allclose(-J.diagonal(), c.scattering_rates(f), rtol=1e-14, atol=0)
x = rng.standard_normal(t.nstates)
h = 1e-6
fd = (c.apply(f + h * x) - c.apply(f - h * x)) / (2 * h)
assert np.abs(fd - J @ x).max() < 1e-8 * np.abs(J @ x).max(), "J vs central differences"
# dynamics: RK4 with bte's step from the output's initial occupations
dyn = bte.Dynamics("dyn.h5")
c = bte.Collision(t, dyn.temperature)
f = dyn.occupations(0)
dt, tt, worst = 0.5, 0.0, 0.0
for i in range(1, dyn.nsnapshots):
    while tt < dyn.time[i] - 1e-9:
        k1 = c.apply(f); k2 = c.apply(f + 0.5 * dt * k1); k3 = c.apply(f + 0.5 * dt * k2); k4 = c.apply(f + dt * k3)
        f = f + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        tt += dt
    g = dyn.occupations(i)
    worst = max(worst, np.abs(f - g).max() / np.abs(g).max())
print("dynamics: numpy RK4 vs bte at %s fs: max relative difference %.1e" % (dyn.time[1:].tolist(), worst))
assert worst < 1e-12 and np.abs(dyn.occupations(-1) - dyn.occupations(0)).max() > 1e-3 * np.abs(dyn.occupations(0)).max()
# balanced delta: the table's attribute selects it; Fermi-Dirac is an exact steady state (any mu),
# where Perturbo's delta on the same channels leaves a defect; RK4 reproduces bte's run on that table
tb = bte.Table("bal.h5")
assert tb.delta == "balanced" and t.delta == "perturbo", (tb.delta, t.delta)
cb, cp = bte.Collision(tb, 250), bte.Collision(tb, 250, delta="perturbo")
assert cb.delta == "balanced" and cp.delta == "perturbo"
for mu in (-0.05, 0.02):
    f0 = cb.fermi_dirac(mu)
    gross = (cb.P * f0[cb.i] * (1 - f0[cb.j])).sum()
    db, dp = np.abs(cb.apply(f0)).sum() / gross, np.abs(cp.apply(f0)).sum() / gross
    print("balanced delta, mu = %g eV: |I[f_FD]| / gross flux %.1e (Perturbo's delta %.1e)" % (mu, db, dp))
    assert db < 1e-13 and dp > 1e-4
dyn = bte.Dynamics("dynbal.h5")
f, tt, worst = dyn.occupations(0), 0.0, 0.0
for i in range(1, dyn.nsnapshots):
    while tt < dyn.time[i] - 1e-9:
        k1 = cb.apply(f); k2 = cb.apply(f + 0.5 * dt * k1); k3 = cb.apply(f + 0.5 * dt * k2); k4 = cb.apply(f + dt * k3)
        f = f + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        tt += dt
    worst = max(worst, np.abs(f - dyn.occupations(i)).max() / np.abs(dyn.occupations(i)).max())
print("balanced delta: numpy RK4 vs bte at %s fs: max relative difference %.1e" % (dyn.time[1:].tolist(), worst))
assert worst < 1e-12
PY
cat > petsc_check.py <<'PY'
import sys
import numpy as np
import bte
try:
    import bte.petsc
except ImportError as e:
    assert "petsc4py" in str(e), e
    print("note: %s" % e)
    sys.exit(3)
from petsc4py import PETSc
comm = PETSc.COMM_WORLD
t = bte.Table("table.h5")
c = bte.Collision(t, 300)
f = c.fermi_dirac(-0.03) + 0.01 * np.random.default_rng(2).random(t.nstates)
A = bte.petsc.collision_jacobian(c, f, comm=comm)
x = np.random.default_rng(3).standard_normal(t.nstates)
y = A.createVecLeft()
A.mult(bte.petsc.to_vec(x, comm=comm), y)
ref = c.jacobian(f) @ x
r0, r1 = A.getOwnershipRange()
err = np.abs(y.getArray() - ref[r0:r1]).max() / np.abs(ref).max()
assert A.getSize() == (t.nstates, t.nstates) and err < 1e-14, (A.getSize(), err)
print("rank %d of %d: rows %d..%d, MatMult vs scipy %.1e" % (comm.getRank(), comm.getSize(), r0, r1, err))
PY
rc=0; "$PYTHON" petsc_check.py || rc=$?
if [ $rc = 0 ]; then
  $MPIEXEC -n 2 "$PYTHON" petsc_check.py
  # and where petsc4py cannot be imported (hidden by a package that refuses to load)
  mkdir -p nopetsc/petsc4py && echo 'raise ImportError("petsc4py hidden by the test")' > nopetsc/petsc4py/__init__.py
  rc=0; PYTHONPATH="$PWD/nopetsc:$PYTHONPATH" "$PYTHON" petsc_check.py || rc=$?
  [ $rc = 3 ] || { echo "without petsc4py: exit $rc, expected the clear ImportError"; exit 1; }
elif [ $rc = 3 ]; then
  echo "petsc4py not importable: bte.petsc refused with a clear message (the Mat path is not exercised)"
else
  exit 1
fi
echo ok
