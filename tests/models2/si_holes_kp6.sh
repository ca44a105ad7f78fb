# si-holes with -bte_si_holes_bands kp6 on a grid, against a second implementation: the 6x6
# Luttinger-Kohn Hamiltonian with spin-orbit built here in numpy (Luttinger parameters
# g1 = |A|, g2 = |B|/2, g3 = sqrt(B^2 + C^2/3)/2) and diagonalised by LAPACK:
#  - the table's states are exactly the (k, band) of the 36^3 grid with 0 <= e <= 0.3 eV (k the
#    minimal image), energies to 1e-11 eV;
#  - the density-of-states mass at 300 K, m_d = (Z / Z_free)^(2/3) with Z = sum_n int exp(-e_n/kT) d^3k,
#    by quadrature: 0.95-1.15 m_e for kp6 (measured 1.04; values of 0.81-1.15 m_e are quoted for Si
#    at 300 K, e.g. M. A. Green, J. Appl. Phys. 67, 2944 (1990)), against 0.59 for the parabolic DKK
#    bands; and the same
#    ratio from the table's own states (Boltzmann sums over the grid, kp6 against dkk) within 3 %
#    (measured 0.6 % on 36^3).
set -e
opts="-bte_model si-holes -bte_grid 36 -bte_view 0"
OMP_NUM_THREADS=1 "$BTE" generate $opts -bte_si_holes_bands kp6 -bte_si_holes_acoustic isotropic -bte_si_holes_optical isotropic -bte_output kp6.h5 > /dev/null
OMP_NUM_THREADS=1 "$BTE" generate $opts -bte_si_holes_bands dkk -bte_output dkk.h5 > /dev/null
$PYTHON - <<'PY'
import h5py, numpy as np
c = 3.80998212; A, B, C, D, kT = 4.28, 0.68, 4.87, 0.044, 8.617333262e-5 * 300
g1, g2, g3 = A, B / 2, np.sqrt(B**2 + C**2 / 3) / 2
L, M, N = g1 + 4 * g2, g1 - 2 * g2, 6 * g3
Lx = np.array([[0, 0, 0], [0, 0, -1j], [0, 1j, 0]]); Ly = np.array([[0, 0, 1j], [0, 0, 0], [-1j, 0, 0]]); Lz = np.array([[0, -1j, 0], [1j, 0, 0], [0, 0, 0]])
sx = np.array([[0, 1], [1, 0]]); sy = np.array([[0, -1j], [1j, 0]]); sz = np.array([[1, 0], [0, -1]])
LS = np.kron(sx, Lx) + np.kron(sy, Ly) + np.kron(sz, Lz)
def bands(ks):
    k2 = (ks**2).sum(1)
    H = np.zeros((len(ks), 6, 6), complex)
    for a in range(3):
        for b in range(3):
            v = c * (L * ks[:, a]**2 + M * (k2 - ks[:, a]**2)) if a == b else c * N * ks[:, a] * ks[:, b]
            H[:, a, b] = v; H[:, 3 + a, 3 + b] = v
    H += -D / 3 * LS + D / 3 * np.eye(6)
    return np.linalg.eigvalsh(H)[:, ::2]
with h5py.File("kp6.h5", "r") as f:
    e, band, kidx = f["states/energy"][()], f["states/band"][()], f["states/kindex"][()]
    Bv, nk = f["grid/reciprocal"][()], f["grid/nk"][()]
n = nk[0]
i = np.stack(np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij"), -1).reshape(-1, 3)
fr = np.where(2 * i < n, i, i - n) / n
k = fr @ Bv
best = k.copy(); b2 = (k**2).sum(1)
for n0 in (-1, 0, 1):
    for n1 in (-1, 0, 1):
        for n2 in (-1, 0, 1):
            x = k + np.array([n0, n1, n2]) @ Bv; x2 = (x**2).sum(1)
            m = x2 < b2 - 1e-12; best[m] = x[m]; b2[m] = x2[m]
E = bands(best)
sel = np.argwhere((E >= -1e-12) & (E <= 0.3))  # Gamma: 0 up to rounding
want = {(int(a) , int(b)): E[a, b] for a, b in sel}
got = {(int(a), int(b)): x for a, b, x in zip(kidx, band, e)}
assert set(want) == set(got), "states differ: %d in the table, %d expected, %d in common" % (len(got), len(want), len(set(got) & set(want)))
err = max(abs(want[s] - got[s]) for s in got)
print("kp6 states on 36^3: %d, the same (k, band) set as the independent diagonalisation; energies to %.1e eV" % (len(got), err))
assert err < 1e-11
# density-of-states mass at 300 K by quadrature (ball of radius 0.45/A, 56^3 points)
nq, km = 56, 0.45
x = (np.arange(nq) + 0.5) / nq * 2 * km - km
q = np.stack(np.meshgrid(x, x, x, indexing="ij"), -1).reshape(-1, 3); q = q[(q**2).sum(1) < km**2]
dv = (2 * km / nq)**3; Zf = (np.pi * kT / c)**1.5
md = lambda Z: (Z / Zf)**(2 / 3)
Ek = bands(q)
k2 = (q**2).sum(1); R = np.sqrt(B**2 * k2**2 + C**2 * (q[:, 0]**2 * q[:, 1]**2 + q[:, 1]**2 * q[:, 2]**2 + q[:, 2]**2 * q[:, 0]**2))
Ed = np.stack([c * (A * k2 - R), c * (A * k2 + R), D + c * A * k2], 1)
mk, mdk = md(np.exp(-Ek / kT).sum() * dv), md(np.exp(-Ed / kT).sum() * dv)
with h5py.File("dkk.h5", "r") as f:
    ed = f["states/energy"][()]
ratio = (np.exp(-e / kT).sum() / np.exp(-ed / kT).sum())**(2 / 3)
print("m_d(300 K): kp6 %.3f, dkk %.3f m_e (quadrature); kp6/dkk from the tables' states %.3f vs %.3f" % (mk, mdk, ratio, mk / mdk))
assert 0.95 < mk < 1.15 and abs(mdk - 0.593) < 0.01
assert abs(ratio / (mk / mdk) - 1) < 0.03
print("ok")
PY
# the parabolic bands are 4x off the measured mobility: every summary that builds them says so in
# one line (docs/models.md), also a run from its table file; with kp6 (the default) none does
"$BTE" info -bte_model si-holes -bte_grid 16 -bte_si_holes_bands dkk > info_dkk.txt 2>&1
grep -q "^ *model: WARNING the si-holes model's parabolic bands" info_dkk.txt || { cat info_dkk.txt; echo "no warning about the dkk bands"; exit 1; }
"$BTE" generate -bte_model si-holes -bte_grid 12 -bte_si_holes_bands dkk -bte_output dkk12.h5 -bte_view 0 > /dev/null
"$BTE" generate -bte_model si-holes -bte_grid 12 -bte_si_holes_bands kp6 -bte_output kp12.h5 -bte_view 0 > /dev/null
"$BTE" info -bte_input dkk12.h5 > info_dkk_file.txt 2>&1
grep -q "^ *model: WARNING the si-holes model's parabolic bands" info_dkk_file.txt || { cat info_dkk_file.txt; echo "no warning about the dkk bands from the table file"; exit 1; }
for f in info_kp6 info_kp6_file info_default; do
  case $f in *file) "$BTE" info -bte_input kp12.h5 > $f.txt 2>&1 ;; *default) "$BTE" info -bte_model si-holes -bte_grid 16 > $f.txt 2>&1 ;; *) "$BTE" info -bte_model si-holes -bte_grid 16 -bte_si_holes_bands kp6 > $f.txt 2>&1 ;; esac
  ! grep -q "model: WARNING the si-holes model's parabolic" $f.txt || { cat $f.txt; echo "$f: kp6 bands warned about as dkk"; exit 1; }
done
