#!/usr/bin/env python3
"""A bte scattering table (docs/format.md) written directly from the closed forms of a make_epr.py
model (1 Wannier function: cubic, ortho, square2d), with Perturbo's selection rules, for comparison
with `bte generate -bte_model perturbo` on the model's epr file.

    direct_table.py MODEL OUT.h5 -kdim n1,n2,n3 [-qdim m1,m2,m3] [-carrier electrons|holes]
                    [-bands first,last] [-polar 0|1] (-window W | -emin A -emax B) -smearing ETA
                    -phonon_min HWMIN [-qpoint grid|perturbo|bte]

Models with closed forms (cubic, ortho, square2d: 1 band, 1 atom) use them; others (twoband) use
lattice sums over the real-space model, diagonalised (Model.direct_* in vectorised form), and
g_mn = U_{k+q}^+ g^W U_k for the selected bands (m at k+q, n at k). For a polar model (-polar,
default the file's lpolar) the phonons include the dipole-dipole term and g^W the Frohlich vertex
on its diagonal (Model.dlr, Model.glr: Perturbo's formulas, written from docs/import.md; the 2D
forms for system_2d models). -qpoint says at which of the equivalent points q + G these
long-range terms are evaluated (qpoint() below; default grid: q in [0, 1)): it matters only where
the sums are not periodic (they are, being complete: the choice must not matter, and table2d.sh checks it).

- k grid: point (i0,i1,i2) at k = i/nk (crystal), kindex = (i0 nk1 + i1) nk2 + i2;
- states: E_n(k) in eV (holes: -E) for the bands first..last, the band edge the lowest on the grid; in the window
  [edge, edge + W] (or the absolute [A, B] on the electron scale, [-B, -A] for holes), by (kindex, band);
  velocity (1/hbar) dE/dk in Angstrom/fs (holes: -v);
- channels: pairs i < j of states at different k; q = k_j - k_i on the q grid (crystal coordinates
  q = (idx_j - idx_i mod nk) / nk; it must be a multiple of nk/nq); per mode nu (ascending omega):
  hw = omega * Ry, kept if hw >= HWMIN and | |e_i - e_j| - hw | < 3 ETA and g2 > 0, with
  g2 = |g_nu|^2 / (2 omega) * Ry^2 * Nk/Nq (Perturbo's eph_g2), g_nu = sum_a g_a(k_i, q) u_a,nu,
  u = e / sqrt(M), k_i the k of the lower state i.
Prints the smallest margins of the window, energy and phonon_min tests (so that a test can tell
that no decision sits on round-off)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_epr as M  # noqa: E402

BOHR_A = 0.529177210903
HBAR = 0.6582119569


def _sum(d, x):
    """sum_R d[R] e^{i 2 pi x.R} for all points x (N, 3); values scalar or arrays"""
    R = np.array(list(d.keys()), dtype=float)
    V = np.array(list(d.values()))
    ph = np.exp(1j * 2 * np.pi * x @ R.T)
    return np.tensordot(ph, V, axes=(1, 0))


def bands_direct(m, k):
    """E (N, nw) ascending, U (N, nw, nw), v (N, nw, 3) in Ry bohr (non-degenerate bands)"""
    N, nw = len(k), m.nw
    H = np.zeros((N, nw, nw), dtype=complex)
    dH = np.zeros((N, 3, nw, nw), dtype=complex)
    for (ib, jb), d in m.hop.items():
        H[:, ib, jb] = _sum(d, k)
        Rc = {R: 1j * (np.asarray(R, dtype=float) @ m.at * m.alat) * v for R, v in d.items()}
        dH[:, :, ib, jb] = _sum(Rc, k)
        if ib != jb:
            H[:, jb, ib] = np.conj(H[:, ib, jb])
            dH[:, :, jb, ib] = np.conj(dH[:, :, ib, jb])
    E, U = np.linalg.eigh(H)
    assert np.all(np.diff(E, axis=1) > 1e-6), "degenerate bands on the grid"
    v = np.real(np.einsum("kin,kaij,kjn->kna", U.conj(), dH, U))
    return E, U, v


def phonons_direct(m, q):
    """omega^2 (N, nm) ascending and u = e / sqrt(M) (N, nm, nm), short range only"""
    N, nm = len(q), m.nm
    D = np.zeros((N, nm, nm), dtype=complex)
    for (ia, ja), d in m.ifc.items():
        D[:, 3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3] = _sum(d, q)
    for ia in range(m.nat):
        b = D[:, 3 * ia:3 * ia + 3, 3 * ia:3 * ia + 3]
        D[:, 3 * ia:3 * ia + 3, 3 * ia:3 * ia + 3] = 0.5 * (b + np.conj(b.transpose(0, 2, 1)))
        for ja in range(ia):
            D[:, 3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3] = np.conj(D[:, 3 * ja:3 * ja + 3, 3 * ia:3 * ia + 3].transpose(0, 2, 1))
    sm = np.repeat(1 / np.sqrt(m.mass), 3)
    w2, e = np.linalg.eigh(D * np.outer(sm, sm))
    return w2, e * sm[None, :, None]


def gw_direct(m, k, q):
    """Wannier-gauge vertex (N, nw, nw, nm) at pairs (k, q)"""
    g = np.zeros((len(k), m.nw, m.nw, m.nm), dtype=complex)
    for (iw, jw, ia), d in m.eph.items():
        Re = np.array([r[0] for r in d], dtype=float)
        Rp = np.array([r[1] for r in d], dtype=float)
        V = np.array(list(d.values()))
        ph = np.exp(1j * 2 * np.pi * (k @ Re.T + q @ Rp.T))
        g[:, iw, jw, 3 * ia:3 * ia + 3] += ph @ V
    return g


def qpoint(x, nk, nq, rep):
    """The point at which the q-dependent long-range terms (phonons with D_LR, g_LR) of the k-grid
    difference x (integers, on the q grid) are evaluated, and whether the result is conjugated:
      grid:     x / nk in [0, 1) (crystal);
      perturbo: Perturbo's num2kpt, the Gamma-centred zone: q-grid index i, i - nq where 2 i >= nq;
      bte:      of the pair q, -q (q-grid points in [0, 1)) the one with the lower flat index
                ((i0 nq1 + i1) nq2 + i2), conjugated for the other (D(-q) = D(q)^*, g_LR(-q) = g_LR(q)^*).
    The three are the same point up to a reciprocal lattice vector: they differ only where a sum is
    not periodic (the 2D long-range terms; see tests/perturbo/interp.sh)."""
    qs = nk // nq
    g = np.asarray(x) // qs
    if rep == "grid":
        return np.asarray(x) / nk, False
    if rep == "perturbo":
        return np.where(2 * g >= nq, g - nq, g) / nq, False
    assert rep == "bte", rep
    mg = np.mod(nq - g, nq)
    flat = lambda i: (i[0] * nq[1] + i[1]) * nq[2] + i[2]
    if flat(mg) < flat(g):
        return mg / nq, True
    return g / nq, False


def main(argv):
    name, out = argv[0], argv[1]
    o = {}
    it = iter(argv[2:])
    for a in it:
        o[a.lstrip("-")] = next(it)
    m = M.MODELS[name]()
    lr = int(o.get("polar", m.lpolar))
    qrep = o.get("qpoint", "grid")
    nk = np.array([int(x) for x in o["kdim"].split(",")] + ([1] if m.system_2d and o["kdim"].count(",") == 1 else []))
    nq = np.array([int(x) for x in o["qdim"].split(",")] + ([1] if m.system_2d and o["qdim"].count(",") == 1 else [])) if "qdim" in o else nk.copy()
    assert np.all(nk % nq == 0)
    holes = o.get("carrier", "electrons") == "holes"
    sgn = -1.0 if holes else 1.0
    eta, hwmin, tol = float(o["smearing"]), float(o["phonon_min"]), 3.0
    Nk, Nq = int(np.prod(nk)), int(np.prod(nq))

    b0, b1 = [int(x) for x in o.get("bands", "1,%d" % m.nw).split(",")]
    bmin, nb = b0 - 1, b1 - b0 + 1
    idx = np.array([(i0, i1, i2) for i0 in range(nk[0]) for i1 in range(nk[1]) for i2 in range(nk[2])])
    kidx = (idx[:, 0] * nk[1] + idx[:, 1]) * nk[2] + idx[:, 2]
    kc = idx / nk
    closed = hasattr(m, "cf_bands")
    if closed:    # closed forms (1 band, 1 atom)
        E, v = m.cf_bands(kc)
        U = np.ones((len(kc), 1, 1))
    else:         # lattice sums over the model, diagonalised (non-degenerate bands)
        E, U, v = bands_direct(m, kc)
    E, v = E[:, bmin:bmin + nb], v[:, bmin:bmin + nb]
    e = (sgn * E * M.RY_EV).ravel()                        # state (k, band) at k * nb + band
    vel = (sgn * v * M.RY_EV * BOHR_A / HBAR).reshape(-1, 3)
    kidx, idx, kc, U = np.repeat(kidx, nb), np.repeat(idx, nb, axis=0), np.repeat(kc, nb, axis=0), np.repeat(U, nb, axis=0)
    band = np.tile(np.arange(nb), len(e) // nb)
    if "emin" in o:
        lo, hi = float(o["emin"]), float(o["emax"])
        if holes:
            lo, hi = -hi, -lo
    else:
        lo = e.min()
        hi = lo + float(o["window"])
    sel = np.where((e >= lo) & (e <= hi))[0]          # already in (kindex, band) order
    # (with the window from the band edge, the edge state sits on its lower end by construction)
    margin_win = np.min(np.abs(e - hi)) if "emin" not in o else np.min(np.minimum(np.abs(e - lo), np.abs(e - hi)))
    ns = len(sel)
    assert ns > 0
    se, sk, sidx, skc, sband, sU = e[sel], kidx[sel], idx[sel], kc[sel], band[sel], U[sel]

    # pairs of states at different k, q = k_j - k_i on the q grid
    I, J = np.triu_indices(ns, 1)
    keep = sk[I] != sk[J]
    I, J = I[keep], J[keep]
    iq = np.mod(sidx[J] - sidx[I], nk)
    onq = np.all(iq % (nk // nq) == 0, axis=1)
    I, J, iq = I[onq], J[onq], iq[onq]
    q = iq / nk
    if closed:
        w2, ev = M.cf_phonons(m, q)
        g = m.cf_gw(skc[I], q)[:, 0, 0, :]                          # (P, 3)
        S = np.abs(np.einsum("pa,pan->pn", g, ev)) ** 2 / m.mass[0]   # (P, modes)
    else:
        uq, inv = np.unique(iq, axis=0, return_inverse=True)
        if lr:    # the dipole-dipole term and the Frohlich vertex (Model.dlr, Model.glr)
            ph, glr = [], []
            for x in uq:
                xq, conj = qpoint(x, nk, nq, qrep)
                w2x, ux = m.direct_phonons(xq, lr=1)
                gx = m.glr(xq)
                ph.append((w2x, ux.conj() if conj else ux))
                glr.append(gx.conj() if conj else gx)
            w2u, uu = np.array([x[0] for x in ph]), np.array([x[1] for x in ph])
            glr = np.array(glr)[inv]
        else:
            w2u, uu = phonons_direct(m, uq / nk)
        w2, u = w2u[inv], uu[inv]
        gw = gw_direct(m, skc[I], q)                                  # (P, iw, jw, mu)
        if lr:
            for iw in range(m.nw):
                gw[:, iw, iw, :] += glr
        n, mm = sband[I] + bmin, sband[J] + bmin                      # n at k (lower state), m at k+q
        Uk = sU[I][np.arange(len(I)), :, n]                           # (P, nw): U_k(:, n)
        Ukq = sU[J][np.arange(len(J)), :, mm]
        gmn = np.einsum("pi,pijm,pj->pm", Ukq.conj(), gw, Uk)
        S = np.abs(np.einsum("pm,pmn->pn", gmn, u)) ** 2
    w = np.sign(w2) * np.sqrt(np.abs(w2))
    hw = w * M.RY_EV
    de = np.abs(se[J] - se[I])[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        g2 = np.where(w > 0, S / (2 * w), 0.0) * M.RY_EV ** 2 * Nk / Nq
    ok = (hw >= hwmin) & (np.abs(de - hw) < tol * eta) & (g2 > 0)
    margin_e = np.min(np.abs(np.abs(de - hw) - tol * eta))
    margin_hw = np.min(np.abs(hw - hwmin))
    p, nu = np.nonzero(ok)
    ci, cj, cm, chw, cg2 = I[p], J[p], nu, hw[p, nu], g2[p, nu]

    import h5py
    lat = m.at * m.alat * BOHR_A
    if m.system_2d:
        n = np.cross(lat[0], lat[1])
        lat[2] = n / np.linalg.norm(n)
    rec = 2 * np.pi * np.linalg.inv(lat).T
    vol = abs(np.linalg.det(lat))
    with h5py.File(out, "w") as f:
        f.attrs["format"] = "bte-scattering-table"
        f.attrs["format_version"] = np.int32(1)
        f.attrs["creator"] = "tests/perturbo/direct_table.py"
        f.attrs["source"] = "closed form of make_epr.py model %s" % name
        gr = f.create_group("grid")
        gr["lattice"] = lat
        gr["lattice"].attrs["units"] = "Angstrom"
        gr["reciprocal"] = rec
        gr["reciprocal"].attrs["units"] = "1/Angstrom"
        gr["nk"] = nk.astype(np.int32)
        gr.attrs["dim"] = np.int32(2 if m.system_2d else 3)
        gr.attrs["volume"] = vol
        gr.attrs["volume_units"] = "Angstrom^2" if m.system_2d else "Angstrom^3"
        st = f.create_group("states")
        st["kindex"] = sk.astype(np.int32)
        st["band"] = sband.astype(np.int32)
        st["energy"] = se
        st["energy"].attrs["units"] = "eV"
        st["velocity"] = vel[sel]
        st["velocity"].attrs["units"] = "Angstrom/fs"
        st.attrs["nbands"] = np.int32(nb)
        st.attrs["spin_degeneracy"] = np.int32(2)
        st.attrs["carrier"] = "holes" if holes else "electrons"
        st.attrs["window_min"] = float(lo)
        st.attrs["window_min_units"] = "eV"
        st.attrs["window_max"] = float(hi)
        st.attrs["window_max_units"] = "eV"
        f.create_group("phonons").attrs["nmodes"] = np.int32(m.nm)
        ch = f.create_group("channels")
        for k, a in (("i", ci), ("j", cj), ("mode", cm)):
            ch[k] = np.asarray(a, dtype=np.int32)
        ch["phonon_energy"] = np.asarray(chw, dtype=float)
        ch["phonon_energy"].attrs["units"] = "eV"
        ch["g2"] = np.asarray(cg2, dtype=float)
        ch["g2"].attrs["units"] = "eV^2"
        for k, val, u in (("smearing", eta, "eV"), ("phonon_min", hwmin, "eV"), ("energy_tolerance", tol, "eta"), ("g2_cutoff", 0.0, "eV^2")):
            ch.attrs[k] = val
            ch.attrs[k + "_units"] = u
        f.attrs["complete"] = np.int32(1)
    print("%s: %d states, %d channels; margins (eV): window %.2e, energy test %.2e, phonon_min %.2e" % (out, ns, len(ci), margin_win, margin_e, margin_hw))
    if min(margin_win, margin_e, margin_hw) < 1e-8:
        print("a window, energy or phonon_min decision is within 1e-8 eV of its threshold: round-off may decide it; change the parameters")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
