"""Independent reference for the diagnostics at setup (docs/diagnostics.md), from a scattering table
read with h5py and the formulas of docs/theory.md (section 2) in numpy: no code shared with bte.

    python diag_reference.py TABLE T [ETA]      prints defect, relaxation temperature, edge share

As a module: reference(table, T, eta=None) -> dict(defect, relax_temperature, edge_share, pieces,
states_cut, relax_velocity (cm/s, 3 components), thermal_speed (cm/s)), and largest_piece(table) ->
boolean mask of the largest piece of the channel graph."""
import sys
import h5py
import numpy as np

HBAR, KB = 0.6582119569, 8.617333262e-5


def pieces(N, i, j):
    """union-find over the channels: the root (smallest index) of every state's piece"""
    par = list(range(N))

    def find(a):
        while par[a] != a:
            par[a] = par[par[a]]
            a = par[a]
        return a
    for a, b in zip(i.tolist(), j.tolist()):
        ra, rb = find(a), find(b)
        if ra != rb:
            par[max(ra, rb)] = min(ra, rb)
    return np.array([find(a) for a in range(N)])


def largest_piece(table):
    t = h5py.File(table, "r")
    e = t["states/energy"][:]
    root = pieces(len(e), t["channels/i"][:], t["channels/j"][:])
    cnt = np.bincount(root, minlength=len(e))
    big = int(np.argmax(cnt))  # ties: the lowest root, as bte
    return root == big, int((cnt > 0).sum())


def fd_mean_energy(e, emin, T):
    kT = KB * T
    f = 1 / (np.exp((e - (emin - 20 * kT)) / kT) + 1)
    return (f * e).sum() / f.sum()


def reference(table, T, eta=None):
    t = h5py.File(table, "r")
    e = t["states/energy"][:]
    N = len(e)
    i, j = t["channels/i"][:], t["channels/j"][:]
    hw, g2 = t["channels/phonon_energy"][:], t["channels/g2"][:]
    eta = eta if eta else float(t["channels"].attrs["smearing"])
    nq = int(np.prod(t["grid/nk"][:]))
    top = float(t["states"].attrs["window_max"])
    G = lambda x: np.exp(-(x / eta) ** 2) / (eta * np.sqrt(np.pi))
    pref = 2 * np.pi / HBAR / nq
    a = pref * g2 * G(e[i] - e[j] + hw)
    b = pref * g2 * G(e[i] - e[j] - hw)
    n = 1 / np.expm1(hw / (KB * T))
    P, Q = a * n + b * (n + 1), a * (n + 1) + b * n
    kT, emin = KB * T, e.min()
    f = 1 / (np.exp((e - (emin - 20 * kT)) / kT) + 1)
    x = -(P * f[i] * (1 - f[j]) - Q * f[j] * (1 - f[i]))
    I = np.zeros(N)
    np.add.at(I, i, x)
    np.add.at(I, j, -x)
    gam = np.zeros(N)
    np.add.at(gam, i, P * (1 - f[j]) + Q * f[j])
    np.add.at(gam, j, Q * (1 - f[i]) + P * f[i])
    out = {"defect": np.abs(I).sum() / (gam * f).sum(), "edge_share": f[e >= top - 3 * kT].sum() / f.sum()}
    B, npieces = largest_piece(table)
    out["pieces"], out["states_cut"] = npieces, int(N - B.sum())
    # stationary state of the master equation (f -> 0) on the largest piece: M f = 0, sum f = 1
    idx = np.where(B)[0]
    m = len(idx)
    pos = -np.ones(N, dtype=int)
    pos[idx] = np.arange(m)
    sel = B[i]
    ii, jj = pos[i[sel]], pos[j[sel]]
    M = np.zeros((m, m))
    np.add.at(M, (jj, ii), P[sel])
    np.add.at(M, (ii, ii), -P[sel])
    np.add.at(M, (ii, jj), Q[sel])
    np.add.at(M, (jj, jj), -Q[sel])
    M[-1, :] = 1
    rhs = np.zeros(m)
    rhs[-1] = 1
    fs = np.linalg.solve(M, rhs)
    eb = e[idx]
    Es = (fs * eb).sum() / fs.sum()
    lo, hi = T / 64, T * 64
    for _ in range(200):
        mid = np.sqrt(lo * hi)
        if fd_mean_energy(eb, emin, mid) < Es:
            lo = mid
        else:
            hi = mid
    out["relax_temperature"] = np.sqrt(lo * hi)
    out["stationary_min"] = fs.min() / fs.max()
    # the stationary state's mean velocity, and the mean speed of f0 (Angstrom/fs -> cm/s)
    v = t["states/velocity"][:]
    out["relax_velocity"] = 1e7 * (fs[:, None] * v[idx]).sum(axis=0) / fs.sum()
    out["thermal_speed"] = 1e7 * (f * np.linalg.norm(v, axis=1)).sum() / f.sum()
    return out


if __name__ == "__main__":
    r = reference(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]) if len(sys.argv) > 3 else None)
    for k, v in r.items():
        print(k, v)
