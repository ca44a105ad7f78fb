# bte.plot.mean_energy's reference line is the equilibrium of the run's own states, not 3/2 kT
# (equipartition of a parabolic 3D band only; kT in 2D, 2 kT for graphene's cones):
#  - on a 2D (graphene) and a 3D (parabolic) dynamics file the dashed line is the mean energy of
#    Fermi-Dirac at the lattice temperature on the file's state_energy holding the first snapshot's
#    carriers (checked against a separate solve for the chemical potential), no line is labelled
#    3/2 kT and, in 2D, none lies at 3/2 kT;
#  - where /diagnostics has a relaxation_temperature away from the lattice's, a dotted line is the
#    same at that temperature;
#  - the equilibrium reduces to equipartition where it should: on a dense nondegenerate 2D parabolic
#    density of states (constant) kT, on a 3D one (sqrt(E)) 3/2 kT.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg # the repository's package, read only
"$BTE" generate -bte_model graphene -bte_grid 300 -bte_window 0.2 -bte_view 0 -bte_output gr.h5 > /dev/null
"$BTE" dynamics -bte_input gr.h5 -bte_view 0 -bte_final_time 20 -bte_output_interval 10 -bte_dynamics_monitor 0 -bte_output gr_dyn.h5 > /dev/null
"$BTE" dynamics -bte_model parabolic -bte_parabolic_a 20 -bte_grid 10 -bte_view 0 -bte_final_time 2 -bte_output_interval 1 \
  -bte_dynamics_monitor 0 -bte_output p_dyn.h5 > /dev/null
"$PYTHON" - <<'PY'
import os
import numpy as np
import bte
from bte import plot

KB = plot.KB_EV

def fd_mean(e, n, T):
    """Mean energy of Fermi-Dirac on energies e holding n carriers: mu by bisection on the count."""
    kT = KB * T
    occ = lambda mu: 0.5 * (1 - np.tanh((e - mu) / (2 * kT)))
    lo, hi = e.min() - 200 * kT, e.max() + 200 * kT
    for _ in range(300):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if occ(mid).sum() < n else (lo, mid)
    f = occ(lo)
    return (f * e).sum() / f.sum()

def hlines(fig):
    """(label, y, linestyle) of the horizontal lines of the mean-energy panel."""
    out = []
    for l in fig.axes[0].lines:
        y = np.asarray(l.get_ydata(), dtype=float)
        if len(y) == 2 and y[0] == y[1] and np.array_equal(np.asarray(l.get_xdata(), dtype=float), [0, 1]):
            out.append((l.get_label(), float(y[0]), l.get_linestyle()))
    return out

for name, dim in (("gr_dyn.h5", 2), ("p_dyn.h5", 3)):
    dyn = bte.open(name)
    assert dyn.dim == dim, (name, dyn.dim)
    png = name.replace(".h5", ".png")
    fig = plot.mean_energy(dyn, path=png)
    assert os.path.getsize(png) > 0, png
    lines = hlines(fig)
    kT = KB * dyn.temperature
    n0 = dyn.occupations(0).sum()
    e = dyn.state_energy
    for lab, y, ls in lines:
        assert "3/2" not in lab and "kT" not in lab, "%s: a line labelled %r" % (name, lab)
        if dim == 2:
            assert abs(y - 1.5 * kT) > 1e-4, "%s: a line at 3/2 kT (%r, %g eV)" % (name, lab, y)
    eq = [l for l in lines if l[2] == "--"]
    assert len(eq) == 1 and "Fermi-Dirac at %g K" % dyn.temperature in eq[0][0], (name, lines)
    want = fd_mean(e, n0, dyn.temperature) - dyn.band_edge
    assert abs(eq[0][1] - want) < 1e-9 * max(1.0, abs(want)), (name, eq[0][1], want)
    tr = dyn.diagnostics.get("relaxation_temperature")
    rel = [l for l in lines if l[2] == ":"]
    if tr is not None and abs(float(tr) / dyn.temperature - 1) > 1e-3:
        assert len(rel) == 1 and "relaxation temperature" in rel[0][0], (name, lines)
        want = fd_mean(e, n0, float(tr)) - dyn.band_edge
        assert abs(rel[0][1] - want) < 1e-9 * max(1.0, abs(want)), (name, rel[0][1], want)
    else:
        assert not rel, (name, lines)
    print("%s (%dD): equilibrium line %.5f eV (3/2 kT = %.5f eV), %d line(s) in all" % (name, dim, eq[0][1], 1.5 * kT, len(lines)))

# equipartition as the limit: dense states, nondegenerate (few carriers), window of 60 kT
T = 300.0
kT = KB * T
M = 400000
u = (np.arange(M) + 0.5) / M
for dim, e, want in ((2, 60 * kT * u, kT), (3, 60 * kT * u ** (2.0 / 3.0), 1.5 * kT)):
    got = plot._equilibrium_mean_energy(e, 1e-5 * M, T)
    assert abs(got / want - 1) < 2e-3, (dim, got, want)
    print("%dD parabolic density of states: %.6f eV, equipartition %.6f eV" % (dim, got, want))
# not defined: no carriers, every state full, no states
assert plot._equilibrium_mean_energy(e, 0, T) is None and plot._equilibrium_mean_energy(e, M, T) is None
assert plot._equilibrium_mean_energy([], 1, T) is None
print("ok   mean_energy: the equilibrium of the run's own states, no 3/2 kT in 2D")
PY
