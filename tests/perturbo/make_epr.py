#!/usr/bin/env python3
"""Perturbo epr fixtures (prefix_epr.h5) for closed-form models, and their closed forms.

    make_epr.py MODEL OUT.h5 [--bad KIND] [--set NAME=VALUE] [--drop DATASET]   write a fixture
    make_epr.py selftest                      closed forms = lattice sums of the real-space models
    import make_epr; m = make_epr.MODELS[name]()  (the tests use the closed forms below)

Everything is in Perturbo's Rydberg atomic units (energy Ry, length bohr, mass in Rydberg mass
units = amu * 911.444, e^2 = 2). k, q are crystal coordinates; phases e^{+i 2 pi x.R}.

This is a second implementation of what a reader must regenerate (Perturbo's
wigner_seitz_cell.f90, as described in docs/import.md; it shares no code with bte): for a grid n and
a pair of centres (ta, tb) (crystal), the images (i + m1 n1, j + m2 n2, k + m3 n3) of every grid point
(i fastest), m in [-3, 3] (m1 fastest), shorter than max_corners |at^T (n/2+1)(+-1,+-1,+-1)|, of which
each grid point keeps those minimising |R + tb - ta| (ties within 1e-6 alat), with ndeg = their
number, in image order. A model's real-space values f(R) are put on the vectors of each pair the way
qe2pert does (the exact Fourier transform on the coarse grid): the value stored at a kept image of grid
point g is sum_{R == g mod n} f(R) / ndeg. The interpolation then reproduces the model exactly when,
for every grid point that carries a model vector, the model vectors of that point are exactly its kept
images with equal values (checked here for every array: ndeg = 1, or a tie the model fills evenly).

Models (1 Wannier function at the origin unless said; the atom off the Wannier centre so that the
phonon side of g uses a pair with an offset; the parameter values are in the classes below):

cubic: simple cubic, alat 10 bohr; atom at tau = (0.1, 0.2, 0.15) (crystal), M = 20 amu; coarse
  grids kc = 5x6x4, qc = 4x5x4 (different on purpose).
  band   E(k) = e0 - sum_a 2 t_a cos(2 pi k_a + phi_a) - 2 t2 cos(4 pi k_z), phi = 0
         (t2 on R = +-2 a_z: a tie of the kc_z = 4 grid, ndeg = 2, so the 1/ndeg weighting is
         exercised)
         velocity dE/dk_cart = sum_a (dE/dk_a) a_a / (2 pi)   (Ry bohr)
  phonon D(q) = (1/M) [[4 Cx sx^2, 4 gam sin(2pi qx) sin(2pi qy), 0], [., 4 Cy sy^2, 0], [0, 0, 4 Cz sz^2]],
         s_a = sin(pi q_a)   (C(0) = diag 2C, C(+-a_a)_aa = -C_a, C_xy(+-(a_x+a_y)) = -gam,
         C_xy(+-(a_x-a_y)) = +gam, and the same for yx)
  e-ph   g^W_a(k, q) = 2i [c_a sin(2 pi q_a) + beta_a (sin 2pi(k_a + q_a) - sin 2pi k_a)]
         (ep(Re=0, Rp=+-a_a) = +-c_a; ep(Re=s a_a, Rp=s a_a) = s beta_a, ep(Re=s a_a, Rp=0) = -s beta_a:
         a bond-stretching coupling, Hermitian: g(k+q, -q) = g(k, q)^*)
         S_nu = sum |g_mn,nu|^2 = |sum_a g_a e_a,nu|^2 / M, e_nu the eigenvectors of D(q).
ortho: the same with an orthorhombic lattice at = diag(1, 1.15, 0.85) and a complex hopping
  H(+a_x) = -t_x e^{i phi_x}, phi_x = 0.3 (imaginary parts in the file; the band is then not
  inversion symmetric, E(k) != E(-k): fine for tables, but a linear-response (transport) problem on
  it has no solution on a finite grid, so the transport tests use cubic).
square2d: square lattice in 2D (system_2d = 1), alat 7 bohr, a3 = 3 alat (vacuum); kc = 6x5x1,
  qc = 4x4x1; atom at (0.12, -0.08, 0.05), M = 12 amu.
  band   E = e0 - 2 t1 cos(2 pi k1) - 2 t2 cos(2 pi k2)
  phonon omega_x^2 = 4 Cx/M sin^2(pi q1), omega_y^2 = 4 Cy/M sin^2(pi q2),
         omega_z^2 = 4 Cz/M (sin^2(pi q1) + sin^2(pi q2))  (flexural-like)
  e-ph   g_x = 2i [c_x sin(2pi q1) + beta (sin 2pi(k1+q1) - sin 2pi k1)], g_y = 2i c_y sin(2pi q2),
         g_z = 2i c_z (sin 2pi q1 + sin 2pi q2)
polar: CsCl-type cubic, alat 8 bohr, atom 1 at 0 (30 amu, Z* = +Z), atom 2 at (1/2,1/2,1/2) (50 amu,
  Z* = -Z), Z = 2, eps = 4, lpolar = 1, polar_alpha = loto_alpha = 1, kc = qc = 4x4x4.
  Nearest-neighbour springs between the atoms, C_12(R) = -k d d^T + lam s(R) J (d = unit bond,
  s = sign(b_x b_y) of the crystal bond b = R + (1/2,1/2,1/2), J the xy rotation generator: a
  non-symmetric block, so that a transposed ifc shows; this s keeps D(q) - D(0) of the acoustic
  modes O(q^2), i.e. the model stable), C_11(0) = -sum_R C_12(R), C_22(0) its transpose;
  band E = e0 - 2t sum cos(2 pi k_a); short-range e-ph on both atoms (atom 1: ep(0, +-a_a) = +-c;
  atom 2: ep(0, 0) = c2, ep(0, (-1,-1,-1)) = -c2 for every a).
  No closed form for the long-range terms: the tests evaluate Perturbo's formulas directly
  (docs/import.md; dlr(), glr() below) and check the LO-TO limit
  omega_LO^2 - omega_TO^2 -> 4 pi e^2 Z^2 / (V eps mu) (q -> 0 along x).
polar_aniso: the same with a skewed cell, a non-symmetric Z*, an anisotropic eps and
  polar_alpha != loto_alpha (conventions: which index of Z* is the field, which alpha is which).
polar2w: polar with a second Wannier function on atom 2 (e2 = 0.6, t2 = 0.015 Ry, complex H_12 on
  the 8 bonds, couplings on every Wannier pair as in twoband): the long-range vertex, added on the
  Wannier diagonal, is rotated by U_{k+q}^+ U_k.
polar2d: a polar 2D crystal (system_2d = 1, lpolar = 1): square lattice in the xy plane, alat 7 bohr,
  a3 = (0, 0, 3) alat (vacuum); atom 1 at 0 (30 amu, Z* = diag(2, 2, 0.8)), atom 2 at (1/2, 1/2, 0)
  (50 amu, Z* = -diag(2, 2, 0.8)), eps = diag(4, 4, 1.8), thickness_2d = 8 bohr, polar_alpha =
  loto_alpha = 1; kc = 5x4x1, qc = 4x4x1. Short range: the nearest-neighbour bonds of polar (a spring
  along the bond, one along z, the non-symmetric J block) and second-neighbour springs on each
  atom along +-a1, +-a2 (longitudinal, transverse and z); C_aa(0) from the acoustic sum rule; band
  E = e0 - 2 t1 cos 2 pi k1 - 2 t2 cos 2 pi k2; e-ph on atom 1 ep(0, +-a_a) = +-(c e_a + cz e_z),
  on atom 2 ep(0, 0) = c2 n, ep(0, (-1,-1,0)) = -c2 n.
  The long-range terms are Perturbo's 2D forms (polar_correction.f90; dlr(), glr() below): Q = K.K
  (no eps), weights exp(-Q/4 alpha) / (sqrt(Q) (1 + r sqrt(Q))), r = K_par.reff.K_par / |K_par|^2 with
  reff_ph = (eps_par - 1) pi c (c = 1/b3_z, the cell height in alat) for the phonons and
  reff_eph = eps_2d pi t, eps_2d = 1 + (eps_par - 1) c/t (t = thickness_2d / alat) for the e-ph
  vertex; prefactors 4 pi e^2/V * alat/(2 b3_z) (phonons) and i 2 pi e^2/V * alat/b3_z (e-ph).
  The LO-TO splitting vanishes at q = 0 and grows linearly: omega_LO^2 - omega_TO^2 ->
  fac Z^2 |K| / mu (|K| in 2 pi/alat) along x.
polar2d_b: the same on a skewed cell (a2 = (0.12, 1.06, 0), a3 = (0, 0, 2.6)), atom 2 buckled to
  (1/2, 1/2, 0.03), a non-symmetric in-plane Z*, eps with eps_xy != 0, polar_alpha = 0.7,
  loto_alpha = 1.4 and no thickness_2d (Perturbo's default, 6 Angstrom = 6/0.52917721092 bohr);
  kc = qc = 4x5x1.
twoband: two Wannier functions, w1 at 0 and w2 at (1/2,1/2,1/2), one atom at (0.1, 0.2, 0.3)
  (25 amu, the cubic model's springs), simple cubic, alat 9 bohr, kc = 4x5x4, qc = 5x4x4:
  H_11, H_22 nearest-neighbour (e1 = 0.2, e2 = 0.45, t1 = 0.02, t2 = -0.015 Ry), complex H_12 on the
  8 bonds w1 -> w2 (R in {0,-1}^3); couplings on every Wannier pair, iw > jw included (the Hermitian
  partner of iw < jw: ep_21(Re, Rp) = conj ep_12(-Re, Rp - Re), on the (w2, w1) vector set).
  No closed form beyond the 2x2 matrices: the tests compare with direct lattice sums over the
  model (Model.direct_*), which exercises the pair, name and vector-set conventions of several
  Wannier functions (each pair has its own Wigner-Seitz vectors: H(1,2), e-ph (1,2) and (2,1) on kc,
  the phonon sides (w1, atom) and (w2, atom) on qc).
degen: two Wannier functions at the same centre (the origin), H_11 = H_22 = eps(k) (nearest
  neighbour), H_12 = v (sin 2pi k_x + i sin 2pi k_y): bands eps -+ |h|, degenerate where k_x, k_y are
  0 or 1/2, where the velocities are those of degenerate perturbation theory (cf_bands_deg).

Bad files (--bad): missing (no ep_hop_i_1_1_1), nomass (no basic_data/mass), short (hopping_r1 one
element short), nan (a NaN in ep_hop_r_1_1_1), plain (a plain HDF5 file), volume (volume
inconsistent with at), kcdim (kc_dim says 6x6x6 but the data are for 5x6x4), intnat (nat stored as a
float).
"""
import itertools
import sys

import numpy as np

RY_EV = 13.605693123
AMU_RY = 911.444
E2 = 2.0
TPI = 2 * np.pi


# ------------------------------------------------------------------------------------------------
# Wigner-Seitz vectors in Perturbo's order (independent implementation)

def ws_blocks(at, n):
    """Per grid point (i fastest), the images shorter than the cutoff, in image order (m1 fastest)."""
    n = np.asarray(n, dtype=int)
    nd = n // 2 + 1
    cutoff = max(np.linalg.norm((np.array(s) * nd) @ at) for s in itertools.product((-1, 1), repeat=3))
    m = np.arange(-3, 4)
    mk, mj, mi = np.meshgrid(m, m, m, indexing="ij")
    M = np.stack([mi.ravel(), mj.ravel(), mk.ravel()], axis=1)
    blocks = []
    for k in range(n[2]):
        for j in range(n[1]):
            for i in range(n[0]):
                R = M * n + np.array([i, j, k])
                L = np.linalg.norm(R @ at, axis=1)
                blocks.append(R[L < cutoff])
    return blocks


_WSCACHE = {}


def ws_vectors(at, n, ta, tb):
    """[(R, ndeg)] kept for the pair (ta, tb) (crystal coordinates), in Perturbo's order."""
    key = (tuple(np.ravel(at)), tuple(n))
    if key not in _WSCACHE:
        _WSCACHE[key] = ws_blocks(at, n)
    out = []
    for R in _WSCACHE[key]:
        d = np.linalg.norm((R + np.asarray(tb) - np.asarray(ta)) @ at, axis=1)
        keep = R[d - d.min() < 1e-6]
        out += [(tuple(int(x) for x in r), len(keep)) for r in keep]
    return out


def _groups(ws, n):
    g = {}
    for R, nd in ws:
        g.setdefault(tuple(np.mod(R, n)), []).append(R)
    return g


def fold(model, ws, n, what):
    """Values of model {R: value} on the vectors ws of a grid n: sum over R == g (mod n) / ndeg."""
    n = np.asarray(n)
    kept = _groups(ws, n)
    ft = {}
    for R, v in model.items():
        ft.setdefault(tuple(np.mod(R, n)), []).append((R, v))
    for g, lst in ft.items():
        mv = set(R for R, v in lst)
        assert mv == set(kept.get(g, [])), "%s: model vectors %s are not the kept images %s of grid point %s" % (what, sorted(mv), kept.get(g), g)
        assert all(np.allclose(v, lst[0][1], rtol=0, atol=0) for R, v in lst), "%s: a tie filled unevenly at %s" % (what, g)
    zero = np.zeros_like(np.asarray(next(iter(model.values()))) if model else 0.0, dtype=complex)
    return [sum((v for R, v in ft.get(tuple(np.mod(R, n)), [])), zero) / nd for R, nd in ws]


def fold2(model, wse, wsp, ne, nq, what):
    """e-ph values (nrp, nre, 3) of model {(Re, Rp): vec3} on the electron (wse, grid ne) and phonon
    (wsp, grid nq) vectors."""
    ne, nq = np.asarray(ne), np.asarray(nq)
    ke, kp = _groups(wse, ne), _groups(wsp, nq)
    ft = {}
    for (Re, Rp), v in model.items():
        ft.setdefault((tuple(np.mod(Re, ne)), tuple(np.mod(Rp, nq))), []).append(((Re, Rp), np.asarray(v)))
    for (ge, gp), lst in ft.items():
        mv = set(r for r, v in lst)
        want = set(itertools.product(ke.get(ge, []), kp.get(gp, [])))
        assert mv == want, "%s: model pairs %s are not the kept images %s" % (what, sorted(mv), sorted(want))
        assert all(np.array_equal(v, lst[0][1]) for r, v in lst), "%s: a tie filled unevenly" % what
    out = np.zeros((len(wsp), len(wse), 3), dtype=complex)
    for ip, (Rp, ndp) in enumerate(wsp):
        for ie, (Re, nde) in enumerate(wse):
            key = (tuple(np.mod(Re, ne)), tuple(np.mod(Rp, nq)))
            if key in ft:
                out[ip, ie] = sum(v for r, v in ft[key]) / (nde * ndp)
    return out


# ------------------------------------------------------------------------------------------------
# Models

class Model:
    """Real-space model: hop {(ib, jb): {R: complex}} (ib <= jb), ifc {(ia, ja): {R: C (3x3, C_ab)}}
    (ia <= ja), eph {(iw, jw, ia): {(Re, Rp): complex 3-vector}}; basic data as in the file."""
    name = "?"
    system_2d = 0
    lpolar = 0
    polar_alpha = 1.0
    loto_alpha = 1.0

    def setup(self):
        self.at = np.asarray(self.at, dtype=float)
        self.bg = np.linalg.inv(self.at).T
        self.volume = abs(np.linalg.det(self.at)) * self.alat ** 3
        self.nat = len(self.mass)
        self.nw = len(self.wcc)
        self.nm = 3 * self.nat
        self.ctau = np.asarray(self.ctau, dtype=float)
        self.tau = self.ctau @ self.at           # Cartesian / alat
        self.wcc = np.asarray(self.wcc, dtype=float)
        self.mass = np.asarray(self.mass, dtype=float)
        if not hasattr(self, "zstar"):
            self.zstar = np.zeros((self.nat, 3, 3))
        if not hasattr(self, "epsil"):
            self.epsil = np.eye(3)

    # ---- direct lattice sums over the model (no Wigner-Seitz folding) ----
    def hk(self, k):
        H = np.zeros((self.nw, self.nw), dtype=complex)
        dH = np.zeros((3, self.nw, self.nw), dtype=complex)
        for (ib, jb), d in self.hop.items():
            for R, v in d.items():
                ph = np.exp(1j * TPI * np.dot(k, R))
                Rc = np.asarray(R, dtype=float) @ self.at * self.alat
                H[ib, jb] += v * ph
                dH[:, ib, jb] += 1j * Rc * v * ph
        for ib in range(self.nw):
            for jb in range(ib):
                H[ib, jb] = np.conj(H[jb, ib])
                dH[:, ib, jb] = np.conj(dH[:, jb, ib])
        return H, dH

    def direct_bands(self, k):
        """E (Ry), U, v (nw, 3) in Ry bohr (non-degenerate bands)"""
        H, dH = self.hk(k)
        e, U = np.linalg.eigh(H)
        v = np.array([[np.real(U[:, n].conj() @ dH[a] @ U[:, n]) for a in range(3)] for n in range(self.nw)])
        return e, U, v

    def dsr(self, q):
        """Short-range D(q) (Ry/bohr^2, not mass-divided), Perturbo's packing: upper blocks from the
        pairs ia <= ja, lower = conjugate transpose, diagonal blocks hermitised."""
        nm = self.nm
        D = np.zeros((nm, nm), dtype=complex)
        for (ia, ja), d in self.ifc.items():
            B = sum(np.asarray(C) * np.exp(1j * TPI * np.dot(q, R)) for R, C in d.items())
            D[3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3] = B
        return D

    def dyn(self, q, lr=None):
        """Mass-divided dynamical matrix, with the dipole-dipole term and its on-site correction when lr."""
        lr = self.lpolar if lr is None else lr
        D = self.dsr(q)
        if lr:
            L = self.dlr(q)
            O = self.onsite()
            for ia in range(self.nat):
                for ja in range(ia, self.nat):
                    D[3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3] += L[3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3]
                D[3 * ia:3 * ia + 3, 3 * ia:3 * ia + 3] += O[ia]
        for ia in range(self.nat):
            b = D[3 * ia:3 * ia + 3, 3 * ia:3 * ia + 3]
            D[3 * ia:3 * ia + 3, 3 * ia:3 * ia + 3] = 0.5 * (b + b.conj().T)
            for ja in range(ia):
                D[3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3] = D[3 * ja:3 * ja + 3, 3 * ia:3 * ia + 3].conj().T
        sm = np.repeat(1 / np.sqrt(self.mass), 3)
        return D * np.outer(sm, sm)

    def direct_phonons(self, q, lr=None):
        """omega^2 ascending (Ry^2), u = e / sqrt(M) (columns)"""
        w2, e = np.linalg.eigh(self.dyn(q, lr))
        return w2, e / np.sqrt(np.repeat(self.mass, 3))[:, None]

    def direct_gw(self, k, q):
        """Short-range Wannier-gauge vertex [iw, jw, 3 ia + a] (Ry/bohr)"""
        g = np.zeros((self.nw, self.nw, self.nm), dtype=complex)
        for (iw, jw, ia), d in self.eph.items():
            for (Re, Rp), v in d.items():
                g[iw, jw, 3 * ia:3 * ia + 3] += np.asarray(v) * np.exp(1j * TPI * (np.dot(k, Re) + np.dot(q, Rp)))
        return g

    # ---- long-range terms: Perturbo's polar_correction.f90, 3D (written from docs/import.md) and 2D
    #      (system_2d; written from the formulas in the module docstring) ----

    def thickness_bohr(self):
        """2D layer thickness (bohr): the file's thickness_2d, else Perturbo's default 6 Angstrom"""
        return self.thickness_2d if getattr(self, "thickness_2d", None) is not None else 6.0 / 0.52917721092

    def reff(self, ph):
        """2D effective screening lengths (2x2, 2 pi/alat units): phonons (eps_par - 1) pi c with
        c = 1/b3_z the cell height; e-ph eps_2d pi t with eps_2d = 1 + (eps_par - 1) c / t,
        t the thickness (both in alat)"""
        c = 1.0 / self.bg[2][2]
        e = np.asarray(self.epsil, dtype=float)[:2, :2]
        if ph:
            return (e - np.eye(2)) * np.pi * c
        t = self.thickness_bohr() / self.alat
        return (np.eye(2) + (e - np.eye(2)) * c / t) * np.pi * t

    def _gvecs(self, q, alpha, ph):
        """The reciprocal vectors K = q + G of the Ewald sums (rows, 2 pi/alat) and their weights:
        every K with 1e-14 <= Q <= ggmax = 14 * 4 alpha (G = 0 along directions with qc_i < 2).
        3D: Q = K.eps.K, f = exp(-Q / 4 alpha) / Q. 2D (system_2d): Q = K.K,
        f = exp(-Q / 4 alpha) / (sqrt(Q) (1 + r sqrt(Q))), r = K_par.reff.K_par / |K_par|^2 (0 when
        |K_par|^2 <= 1e-8). The sum is complete, hence periodic in q: the box searched is generous
        (twice the extent of the cutoff ellipsoid along each b_i, plus 2), the cutoff selects."""
        ggmax = 14.0 * 4.0 * alpha
        M = np.eye(3) if self.system_2d else np.asarray(self.epsil, dtype=float)
        Mi = np.linalg.inv(M)
        at = np.linalg.inv(self.bg).T          # rows a_i (alat), a_i . b_j = delta_ij
        nrx = [0 if self.qc[i] < 2 else 2 * int(np.ceil(np.sqrt(ggmax * (at[i] @ Mi @ at[i])))) + 2 for i in range(3)]
        G = np.array(list(itertools.product(*[range(-r, r + 1) for r in nrx])), dtype=float)
        K = (np.asarray(q, dtype=float) + G) @ self.bg
        if not self.system_2d:
            Q = np.einsum("gi,ij,gj->g", K, self.epsil, K)
        else:
            Q = np.einsum("gi,gi->g", K, K)
        keep = (Q >= 1e-14) & (Q <= ggmax)
        if not self.system_2d:
            K, Q = K[keep], Q[keep]
            return K, np.exp(-Q / (4 * alpha)) / Q
        gp2 = K[:, 0] ** 2 + K[:, 1] ** 2
        rf = self.reff(ph)
        r = np.where(gp2 > 1e-8, np.einsum("gi,ij,gj->g", K[:, :2], rf, K[:, :2]) / np.where(gp2 > 1e-8, gp2, 1.0), 0.0)
        K, Q, r = K[keep], Q[keep], r[keep]
        return K, np.exp(-Q / (4 * alpha)) / np.sqrt(Q) / (1 + r * np.sqrt(Q))

    def kz(self, K):
        """(K.Z_a)_b = sum_i K_i Z_ib with Z_ib = zstar[a][b][i] (i = field, b = displacement):
        rows 3a + b, one column per K"""
        return np.concatenate([self.zstar[a] @ K.T for a in range(self.nat)])

    def dlr(self, q):
        """D_LR (not mass-divided): fac sum_K f (K.Z_ia)(K.Z_ja) e^{i 2 pi K.(tau_ia - tau_ja)},
        fac = 4 pi e^2 / V (3D), times alat / (2 b3_z) in 2D"""
        fac = 4 * np.pi * E2 / self.volume
        if self.system_2d:
            fac *= 0.5 * self.alat / self.bg[2][2]
        K, f = self._gvecs(q, self.loto_alpha, True)
        v = self.kz(K) * np.repeat(np.exp(1j * TPI * (self.tau @ K.T)), 3, axis=0)
        return fac * (v * f) @ v.conj().T

    def onsite(self):
        if not hasattr(self, "_onsite"):
            D0 = np.real(self.dlr(np.zeros(3)))
            self._onsite = [-sum(D0[3 * ia:3 * ia + 3, 3 * ja:3 * ja + 3] for ja in range(self.nat)) for ia in range(self.nat)]
        return self._onsite

    def glr(self, q):
        """g_LR(q) (atom basis): P sum_K f (K.Z_a) e^{-i 2 pi K.tau_a}, P = i 4 pi e^2 / (V tpiba)
        (3D), i 2 pi e^2 alat / (V b3_z) (2D); 0 for |q| < 1e-8"""
        if not self.lpolar or np.linalg.norm(q) < 1e-8:
            return np.zeros(self.nm, dtype=complex)
        K, f = self._gvecs(q, self.polar_alpha, False)
        g = (self.kz(K) * np.repeat(np.exp(-1j * TPI * (self.tau @ K.T)), 3, axis=0)) @ f
        if self.system_2d:
            return 1j * TPI * E2 / self.volume * self.alat / self.bg[2][2] * g
        return 1j * 4 * np.pi * E2 / (self.volume * (TPI / self.alat)) * g

    def direct_S(self, k, q, lr=None, lr_eph=None):
        """omega (signed, Ry) and S_nu = sum_{mn} |g_mn,nu|^2 with g = U_{k+q}^+ [gW + delta g_LR] U_k, u"""
        lr = self.lpolar if lr is None else lr
        lr_eph = lr if lr_eph is None else lr_eph
        w2, u = self.direct_phonons(q, lr)
        _, Uk, _ = self.direct_bands(k)
        _, Ukq, _ = self.direct_bands(np.asarray(k) + q)
        gw = self.direct_gw(k, q)
        if lr_eph:
            gl = self.glr(q)
            for iw in range(self.nw):
                gw[iw, iw] += gl
        gnu = np.einsum("ijm,mn->ijn", gw, u)
        gb = np.einsum("im,ijn,jl->mln", Ukq.conj(), gnu, Uk)
        return np.sign(w2) * np.sqrt(np.abs(w2)), np.sum(np.abs(gb) ** 2, axis=(0, 1))

    # ---- the file ----
    def arrays(self):
        """The real-space arrays on Perturbo's vectors: {dataset name: array}"""
        out = {}
        m = 0
        for jb in range(self.nw):
            for ib in range(jb + 1):
                m += 1
                ws = ws_vectors(self.at, self.kc, self.wcc[ib], self.wcc[jb])
                v = np.array(fold(self.hop.get((ib, jb), {}), ws, self.kc, "H(%d,%d)" % (ib, jb)) if (ib, jb) in self.hop else [0j] * len(ws))
                out["electron_wannier/hopping_r%d" % m] = np.real(v)
                out["electron_wannier/hopping_i%d" % m] = np.imag(v)
        m = 0
        for ja in range(self.nat):
            for ia in range(ja + 1):
                m += 1
                ws = ws_vectors(self.at, self.qc, self.ctau[ia], self.ctau[ja])
                if (ia, ja) in self.ifc:
                    v = np.array(fold(self.ifc[(ia, ja)], ws, self.qc, "ifc(%d,%d)" % (ia, ja)))
                else:
                    v = np.zeros((len(ws), 3, 3), dtype=complex)
                assert np.all(np.imag(v) == 0)
                out["force_constant/ifc%d" % m] = np.ascontiguousarray(np.real(v).transpose(0, 2, 1))  # h5 [ir][b][a] = C_ab
        for ia in range(self.nat):
            for jw in range(self.nw):
                for iw in range(self.nw):
                    wse = ws_vectors(self.at, self.kc, self.wcc[iw], self.wcc[jw])
                    wsp = ws_vectors(self.at, self.qc, self.wcc[iw], self.ctau[ia])
                    d = self.eph.get((iw, jw, ia), {})
                    v = fold2(d, wse, wsp, self.kc, self.qc, "ep(%d,%d,%d)" % (iw, jw, ia)) if d else np.zeros((len(wsp), len(wse), 3), dtype=complex)
                    out["eph_matrix_wannier/ep_hop_r_%d_%d_%d" % (ia + 1, jw + 1, iw + 1)] = np.real(v)
                    out["eph_matrix_wannier/ep_hop_i_%d_%d_%d" % (ia + 1, jw + 1, iw + 1)] = np.imag(v)
        return out

    def write(self, path, bad=None, sets=(), drops=()):
        """The epr file; bad: a damaged variant (module docstring); sets: (name, value) overriding
        /basic_data/name; drops: dataset paths left out."""
        import h5py
        if bad == "plain":
            with h5py.File(path, "w") as f:
                f["x"] = np.arange(3.0)
                f.create_group("basic_data")
            return
        basic = {
            "alat": np.float64(self.alat), "at": self.at, "bg": self.bg, "volume": np.float64(self.volume),
            "nat": np.int32(self.nat), "num_wann": np.int32(self.nw),
            "kc_dim": np.array(self.kc, dtype=np.int32), "qc_dim": np.array(self.qc, dtype=np.int32),
            "tau": self.tau, "mass": self.mass, "epsil": np.asarray(self.epsil, dtype=float),
            "zstar": np.asarray(self.zstar, dtype=float),
            "wannier_center": self.wcc @ self.at, "wannier_center_cryst": self.wcc,
            "spinor": np.int32(0), "system_2d": np.int32(self.system_2d), "lpolar": np.int32(self.lpolar),
            "polar_alpha": np.float64(self.polar_alpha), "loto_alpha": np.float64(self.loto_alpha),
            "nsym": np.int32(1), "symop": np.eye(3, dtype=np.int32)[None],
        }
        if self.system_2d and getattr(self, "thickness_2d", None) is not None:
            basic["thickness_2d"] = np.float64(self.thickness_2d)
        arr = self.arrays()
        if bad == "volume":
            basic["volume"] = np.float64(self.volume * 1.1)
        if bad == "kcdim":
            basic["kc_dim"] = np.array([6, 6, 6], dtype=np.int32)
        if bad == "intnat":
            basic["nat"] = np.float64(self.nat)
        if bad == "missing":
            del arr["eph_matrix_wannier/ep_hop_i_1_1_1"]
        if bad == "nomass":
            del basic["mass"]
        if bad == "short":
            arr["electron_wannier/hopping_r1"] = arr["electron_wannier/hopping_r1"][:-1]
        if bad == "nan":
            a = arr["eph_matrix_wannier/ep_hop_r_1_1_1"].copy()
            a.flat[a.size // 2] = np.nan
            arr["eph_matrix_wannier/ep_hop_r_1_1_1"] = a
        for k, v in sets:
            basic[k] = v
        with h5py.File(path, "w") as f:
            for k, v in basic.items():
                if "basic_data/" + k not in drops:
                    f["basic_data/" + k] = v
            for k, v in arr.items():
                if k not in drops:
                    f[k] = v


def _sign(x):
    return 1 if x > 0 else -1


class Cubic(Model):
    name = "cubic"
    at0 = np.eye(3)
    phix = 0.0

    def __init__(self):
        self.alat = 10.0
        self.at = self.at0
        self.kc, self.qc = (5, 6, 4), (4, 5, 4)
        self.wcc = [[0.0, 0.0, 0.0]]
        self.ctau = [[0.1, 0.2, 0.15]]
        self.mass = [20.0 * AMU_RY]
        self.e0, self.t, self.phi, self.t2 = 0.25, np.array([0.020, 0.025, 0.030]), np.array([self.phix, 0.0, 0.0]), 0.004
        self.C, self.gam = np.array([0.05, 0.07, 0.11]), 0.01
        self.c, self.beta = np.array([0.02, 0.025, 0.03]), np.array([0.015, 0.0, 0.012])
        self.setup()
        E = np.eye(3, dtype=int)
        h = {(0, 0, 0): self.e0 + 0j, (0, 0, 2): -self.t2 + 0j, (0, 0, -2): -self.t2 + 0j}
        for a in range(3):
            h[tuple(E[a])] = -self.t[a] * np.exp(1j * self.phi[a])
            h[tuple(-E[a])] = -self.t[a] * np.exp(-1j * self.phi[a])
        self.hop = {(0, 0): h}
        f = {(0, 0, 0): np.diag(2 * self.C)}
        for a in range(3):
            for s in (1, -1):
                C = np.zeros((3, 3))
                C[a, a] = -self.C[a]
                f[tuple(s * E[a])] = C
        J = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=float)
        for R, s in (((1, 1, 0), -1), ((-1, -1, 0), -1), ((1, -1, 0), 1), ((-1, 1, 0), 1)):
            f[R] = s * self.gam * J
        self.ifc = {(0, 0): f}
        ep = {}
        for a in range(3):
            for s in (1, -1):
                v = np.zeros(3)
                v[a] = s * self.c[a]
                ep[((0, 0, 0), tuple(s * E[a]))] = v
                if self.beta[a]:
                    v = np.zeros(3)
                    v[a] = s * self.beta[a]
                    ep[(tuple(s * E[a]), tuple(s * E[a]))] = v
                    ep[(tuple(s * E[a]), (0, 0, 0))] = -v
        self.eph = {(0, 0, 0): ep}

    # closed forms (vectorised over points: k, q of shape (N, 3))
    def cf_bands(self, k):
        k = np.atleast_2d(k)
        arg = TPI * k + self.phi
        E = self.e0 - np.sum(2 * self.t * np.cos(arg), axis=1) - 2 * self.t2 * np.cos(2 * TPI * k[:, 2])
        dk = 2 * TPI * self.t * np.sin(arg)
        dk[:, 2] += 4 * TPI * self.t2 * np.sin(2 * TPI * k[:, 2])
        v = dk @ (self.alat * self.at) / TPI
        return E[:, None], v[:, None, :]

    def cf_dyn(self, q):
        q = np.atleast_2d(q)
        s2 = np.sin(np.pi * q) ** 2
        D = np.zeros((len(q), 3, 3))
        for a in range(3):
            D[:, a, a] = 4 * self.C[a] * s2[:, a]
        D[:, 0, 1] = D[:, 1, 0] = 4 * self.gam * np.sin(TPI * q[:, 0]) * np.sin(TPI * q[:, 1])
        return D / self.mass[0]

    def cf_gw(self, k, q):
        k, q = np.atleast_2d(k), np.atleast_2d(q)
        g = 2j * (self.c * np.sin(TPI * q) + self.beta * (np.sin(TPI * (k + q)) - np.sin(TPI * k)))
        return g[:, None, None, :]


class Ortho(Cubic):
    name = "ortho"
    at0 = np.diag([1.0, 1.15, 0.85])
    phix = 0.3


class Square2D(Model):
    name = "square2d"
    system_2d = 1

    def __init__(self):
        self.alat = 7.0
        self.at = np.diag([1.0, 1.0, 3.0])
        self.kc, self.qc = (6, 5, 1), (4, 4, 1)
        self.wcc = [[0.0, 0.0, 0.0]]
        self.ctau = [[0.12, -0.08, 0.05]]
        self.mass = [12.0 * AMU_RY]
        self.e0, self.t = 0.2, np.array([0.03, 0.02])
        self.C = np.array([0.06, 0.04, 0.015])
        self.c, self.beta = np.array([0.005, 0.004, 0.003]), 0.003
        self.setup()
        E = np.eye(3, dtype=int)
        h = {(0, 0, 0): self.e0 + 0j}
        for a in range(2):
            for s in (1, -1):
                h[tuple(s * E[a])] = -self.t[a] + 0j
        self.hop = {(0, 0): h}
        f = {(0, 0, 0): np.diag([2 * self.C[0], 2 * self.C[1], 4 * self.C[2]])}
        for a in range(2):
            for s in (1, -1):
                C = np.zeros((3, 3))
                C[a, a] = -self.C[a]
                C[2, 2] = -self.C[2]
                f[tuple(s * E[a])] = C
        self.ifc = {(0, 0): f}
        ep = {}
        def add(key, v):
            ep[key] = ep.get(key, 0) + np.asarray(v, dtype=float)
        for s in (1, -1):
            add(((0, 0, 0), tuple(s * E[0])), [s * self.c[0], 0, s * self.c[2]])
            add(((0, 0, 0), tuple(s * E[1])), [0, s * self.c[1], s * self.c[2]])
            add((tuple(s * E[0]), tuple(s * E[0])), [s * self.beta, 0, 0])
            add((tuple(s * E[0]), (0, 0, 0)), [-s * self.beta, 0, 0])
        self.eph = {(0, 0, 0): ep}

    def cf_bands(self, k):
        k = np.atleast_2d(k)
        E = self.e0 - 2 * self.t[0] * np.cos(TPI * k[:, 0]) - 2 * self.t[1] * np.cos(TPI * k[:, 1])
        dk = np.zeros((len(k), 3))
        dk[:, :2] = 2 * TPI * self.t * np.sin(TPI * k[:, :2])
        v = dk @ (self.alat * self.at) / TPI
        return E[:, None], v[:, None, :]

    def cf_dyn(self, q):
        q = np.atleast_2d(q)
        s2 = np.sin(np.pi * q) ** 2
        D = np.zeros((len(q), 3, 3))
        D[:, 0, 0] = 4 * self.C[0] * s2[:, 0]
        D[:, 1, 1] = 4 * self.C[1] * s2[:, 1]
        D[:, 2, 2] = 4 * self.C[2] * (s2[:, 0] + s2[:, 1])
        return D / self.mass[0]

    def cf_gw(self, k, q):
        k, q = np.atleast_2d(k), np.atleast_2d(q)
        sq = np.sin(TPI * q)
        g = np.zeros((len(k), 3), dtype=complex)
        g[:, 0] = 2j * (self.c[0] * sq[:, 0] + self.beta * (np.sin(TPI * (k[:, 0] + q[:, 0])) - np.sin(TPI * k[:, 0])))
        g[:, 1] = 2j * self.c[1] * sq[:, 1]
        g[:, 2] = 2j * self.c[2] * (sq[:, 0] + sq[:, 1])
        return g[:, None, None, :]


class Polar(Model):
    name = "polar"
    lpolar = 1

    def __init__(self, aniso=False):
        self.alat = 8.0
        self.at = np.eye(3) if not aniso else np.array([[1.0, 0.0, 0.0], [0.08, 1.05, 0.0], [0.0, 0.12, 0.95]])
        self.kc = self.qc = (4, 4, 4)
        self.wcc = [[0.0, 0.0, 0.0]]
        self.ctau = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5]]
        self.mass = [30.0 * AMU_RY, 50.0 * AMU_RY]
        self.Z, self.eps = 2.0, 4.0
        if aniso:
            Z = np.array([[2.0, 0.3, 0.0], [-0.1, 1.8, 0.2], [0.0, 0.1, 2.2]])   # Z_ij, i = field
            self.zstar = np.array([Z.T, -Z.T])                                      # h5 zstar[a][j][i] = Z_ij
            self.epsil = np.array([[4.0, 0.3, 0.0], [0.3, 5.0, 0.2], [0.0, 0.2, 3.5]])
            self.polar_alpha, self.loto_alpha = 0.8, 1.3
        else:
            self.zstar = np.array([self.Z * np.eye(3), -self.Z * np.eye(3)])
            self.epsil = self.eps * np.eye(3)
        self.e0, self.t = 0.3, 0.02
        self.k, self.lam = 0.03, 0.004
        self.c, self.c2 = 0.004, 0.003
        self.setup()
        E = np.eye(3, dtype=int)
        h = {(0, 0, 0): self.e0 + 0j}
        for a in range(3):
            for s in (1, -1):
                h[tuple(s * E[a])] = -self.t + 0j
        self.hop = {(0, 0): h}
        J = np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 0]], dtype=float)
        c12 = {}
        for R in itertools.product((0, -1), repeat=3):
            b = np.array(R) + self.ctau[1]
            d = b @ self.at / np.linalg.norm(b @ self.at)
            c12[R] = -self.k * np.outer(d, d) + self.lam * _sign(b[0] * b[1]) * J
        S = sum(c12.values())
        self.ifc = {(0, 0): {(0, 0, 0): -S}, (1, 1): {(0, 0, 0): -S.T}, (0, 1): c12}
        e1 = {}
        for a in range(3):
            for s in (1, -1):
                v = np.zeros(3)
                v[a] = s * self.c
                e1[((0, 0, 0), tuple(s * E[a]))] = v
        e2 = {((0, 0, 0), (0, 0, 0)): np.full(3, self.c2), ((0, 0, 0), (-1, -1, -1)): np.full(3, -self.c2)}
        self.eph = {(0, 0, 0): e1, (0, 0, 1): e2}


class PolarAniso(Polar):
    name = "polar_aniso"

    def __init__(self):
        Polar.__init__(self, aniso=True)


class Polar2W(Polar):
    """polar with a second Wannier function on atom 2 (the long-range vertex on the Wannier diagonal
    is then rotated by U_{k+q}^+ U_k)"""
    name = "polar2w"

    def __init__(self):
        Polar.__init__(self)
        self.wcc = np.array([[0.0, 0.0, 0.0], [0.5, 0.5, 0.5]])
        self.nw = 2
        self.e2, self.t2, self.v, self.c22, self.c12 = 0.6, 0.015, 0.01, 0.01, 0.008 * (1 - 0.4j)
        E = np.eye(3, dtype=int)
        half = self.wcc[1]
        h22, h12 = {(0, 0, 0): self.e2 + 0j}, {}
        for a in range(3):
            for s in (1, -1):
                h22[tuple(s * E[a])] = -self.t2 + 0j
        for R in itertools.product((0, -1), repeat=3):
            b = np.array(R) + half
            h12[R] = -self.v * (1 + 0.25j * _sign(b[0] * b[2]))
        self.hop[(1, 1)] = h22
        self.hop[(0, 1)] = h12
        e22, e12, e21 = {}, {}, {}
        for a in range(3):
            for s in (1, -1):
                v = np.zeros(3)
                v[a] = s * self.c22
                e22[((0, 0, 0), tuple(s * E[a]))] = v
        for R in itertools.product((0, -1), repeat=3):
            b = np.array(R) + half
            e12[(R, (0, 0, 0))] = self.c12 * b / np.linalg.norm(b)
            Re = tuple(-x for x in R)
            e21[(Re, Re)] = np.conj(self.c12 * b / np.linalg.norm(b))
        self.eph.update({(1, 1, 1): e22, (0, 1, 0): e12, (1, 0, 0): e21})


class Polar2D(Model):
    """A polar 2D crystal: a checkerboard (two atoms, +-Z*) in the a1-a2 plane, a long a3 = (0, 0, c)
    (vacuum), system_2d = 1, kc/qc with 1 along a3 (module docstring)."""
    name = "polar2d"
    system_2d = 1
    lpolar = 1

    def __init__(self, variant=0):
        self.alat = 7.0
        if variant == 0:
            self.at = np.diag([1.0, 1.0, 3.0])
            self.ctau = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0]]
            Z = np.diag([2.0, 2.0, 0.8])                                            # Z_ij, i = field
            self.epsil = np.diag([4.0, 4.0, 1.8])
            self.thickness_2d = 8.0                                                 # bohr
            self.kc, self.qc = (5, 4, 1), (4, 4, 1)
        else:
            self.at = np.array([[1.0, 0.0, 0.0], [0.12, 1.06, 0.0], [0.0, 0.0, 2.6]])
            self.ctau = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.03]]
            Z = np.array([[2.0, 0.25, 0.0], [-0.15, 1.7, 0.0], [0.0, 0.0, 0.6]])
            self.epsil = np.array([[4.0, 0.4, 0.0], [0.4, 3.2, 0.0], [0.0, 0.0, 1.6]])
            self.thickness_2d = None                                                # Perturbo's default, 6 A
            self.polar_alpha, self.loto_alpha = 0.7, 1.4
            self.kc, self.qc = (4, 5, 1), (4, 5, 1)
        self.zstar = np.array([Z.T, -Z.T])                                          # h5 zstar[a][j][i] = Z_ij
        self.wcc = [[0.0, 0.0, 0.0]]
        self.mass = [30.0 * AMU_RY, 50.0 * AMU_RY]
        self.e0, self.t = 0.3, np.array([0.025, 0.02])
        self.k, self.kz_, self.lam = 0.03, 0.008, 0.004
        self.Cl, self.Ct, self.Cz = (0.012, 0.008), (0.005, 0.004), (0.002, 0.0015)   # second neighbours, per atom
        self.c, self.cz, self.c2 = 0.004, 0.002, 0.003
        self.setup()
        E = np.eye(3, dtype=int)
        ez = np.array([0.0, 0.0, 1.0])
        h = {(0, 0, 0): self.e0 + 0j}
        for a in range(2):
            for s in (1, -1):
                h[tuple(s * E[a])] = -self.t[a] + 0j
        self.hop = {(0, 0): h}
        # nearest neighbours (atom 1 - atom 2): a spring along the bond, one along z, and a
        # non-symmetric in-plane block (as in polar)
        J = np.array([[0, 1, 0], [-1, 0, 0], [0, 0, 0]], dtype=float)
        c12 = {}
        for R in itertools.product((0, -1), (0, -1), (0,)):
            b = np.array(R) + self.ctau[1] - self.ctau[0]
            d = b @ self.at / np.linalg.norm(b @ self.at)
            c12[R] = -self.k * np.outer(d, d) - self.kz_ * np.outer(ez, ez) + self.lam * _sign(b[0] * b[1]) * J
        # second neighbours (same atom, +-a1, +-a2): longitudinal, transverse in-plane and z springs
        f = [{}, {}]
        for ia in range(2):
            for a in range(2):
                u = self.at[a] / np.linalg.norm(self.at[a])
                v = np.cross(ez, u)
                C = -(self.Cl[ia] * np.outer(u, u) + self.Ct[ia] * np.outer(v, v) + self.Cz[ia] * np.outer(ez, ez))
                for s in (1, -1):
                    f[ia][tuple(s * E[a])] = C
        S = sum(c12.values())
        f[0][(0, 0, 0)] = -S - sum(f[0].values())
        f[1][(0, 0, 0)] = -S.T - sum(f[1].values())
        self.ifc = {(0, 0): f[0], (1, 1): f[1], (0, 1): c12}
        e1 = {}
        for a in range(2):
            for s in (1, -1):
                v = np.zeros(3)
                v[a], v[2] = s * self.c, s * self.cz
                e1[((0, 0, 0), tuple(s * E[a]))] = v
        n = np.array([1.0, -0.6, 0.4])
        e2 = {((0, 0, 0), (0, 0, 0)): self.c2 * n, ((0, 0, 0), (-1, -1, 0)): -self.c2 * n}
        self.eph = {(0, 0, 0): e1, (0, 0, 1): e2}


class Polar2DB(Polar2D):
    """polar2d on a skewed cell, buckled, with non-symmetric Z*, anisotropic in-plane eps (eps_xy != 0),
    polar_alpha != loto_alpha != 1 and no thickness_2d (Perturbo's default 6 Angstrom)"""
    name = "polar2d_b"

    def __init__(self):
        Polar2D.__init__(self, variant=1)


class TwoBand(Model):
    name = "twoband"

    def __init__(self):
        self.alat = 9.0
        self.at = np.eye(3)
        self.kc, self.qc = (4, 5, 4), (5, 4, 4)
        self.wcc = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.5]]
        self.ctau = [[0.1, 0.2, 0.3]]
        self.mass = [25.0 * AMU_RY]
        self.e, self.t, self.v = (0.20, 0.45), (0.02, -0.015), 0.01
        self.c1, self.c2, self.c12 = 0.02, 0.015, 0.012 * (1 + 0.5j)
        self.setup()
        E = np.eye(3, dtype=int)
        half = np.array(self.wcc[1])
        h11, h22, h12 = {(0, 0, 0): self.e[0] + 0j}, {(0, 0, 0): self.e[1] + 0j}, {}
        for a in range(3):
            for s in (1, -1):
                h11[tuple(s * E[a])] = -self.t[0] + 0j
                h22[tuple(s * E[a])] = -self.t[1] + 0j
        for R in itertools.product((0, -1), repeat=3):
            b = np.array(R) + half
            h12[R] = -self.v * (1 + 0.3j * _sign(b[0]) + 0.2j * _sign(b[1] * b[2]))
        self.hop = {(0, 0): h11, (1, 1): h22, (0, 1): h12}
        cub = Cubic()
        self.C, self.gam = cub.C, cub.gam
        self.ifc = cub.ifc
        e11, e22, e12, e21 = {}, {}, {}, {}
        for a in range(3):
            for s in (1, -1):
                v = np.zeros(3)
                v[a] = s * self.c1
                e11[((0, 0, 0), tuple(s * E[a]))] = v
        n = np.array([1.0, -0.5, 0.3])
        e22[((0, 0, 0), (0, 0, 0))] = self.c2 * n
        e22[((0, 0, 0), (1, 1, 1))] = -self.c2 * n
        for R in itertools.product((0, -1), repeat=3):
            b = np.array(R) + half
            e12[(R, (0, 0, 0))] = self.c12 * b / np.linalg.norm(b)
            # Hermitian partner: <0,2| dV/du(Rp) |Re,1> = conj <0,1| dV/du(Rp - Re) |-Re,2>
            Re = tuple(-x for x in R)
            e21[(Re, Re)] = np.conj(self.c12 * b / np.linalg.norm(b))
        self.eph = {(0, 0, 0): e11, (1, 1, 0): e22, (0, 1, 0): e12, (1, 0, 0): e21}


class Degen(Model):
    name = "degen"

    def __init__(self):
        self.alat = 9.0
        self.at = np.eye(3)
        self.kc, self.qc = (4, 4, 4), (4, 4, 4)
        self.wcc = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
        self.ctau = [[0.0, 0.0, 0.0]]
        self.mass = [25.0 * AMU_RY]
        self.e0, self.t, self.v, self.c = 0.3, 0.02, 0.01, (0.02, -0.01)
        self.setup()
        E = np.eye(3, dtype=int)
        h = {(0, 0, 0): self.e0 + 0j}
        for a in range(3):
            for s in (1, -1):
                h[tuple(s * E[a])] = -self.t + 0j
        h12 = {(1, 0, 0): -0.5j * self.v, (-1, 0, 0): 0.5j * self.v, (0, 1, 0): 0.5 * self.v + 0j, (0, -1, 0): -0.5 * self.v + 0j}
        self.hop = {(0, 0): h, (1, 1): dict(h), (0, 1): h12}
        cub = Cubic()
        self.ifc = cub.ifc
        eph = {}
        for iw in range(2):
            d = {}
            for a in range(3):
                for s in (1, -1):
                    v = np.zeros(3)
                    v[a] = s * self.c[iw]
                    d[((0, 0, 0), tuple(s * E[a]))] = v
            eph[(iw, iw, 0)] = d
        self.eph = eph

    def cf_bands_deg(self, k):
        """At k with k_x, k_y in {0, 1/2} (h = 0: degenerate): E (both bands) and the velocities of
        Perturbo's degenerate perturbation theory, per direction the eigenvalues of the 2x2 dH/dk_a
        (ascending): d eps/dk_a -+ |d h/dk_a|, |dh/dk_x| = |dh/dk_y| = alat v, dh/dk_z = 0."""
        k = np.atleast_2d(k)
        E = self.e0 - 2 * self.t * np.sum(np.cos(TPI * k), axis=1)
        de = 2 * self.t * self.alat * np.sin(TPI * k)
        dh = np.array([self.alat * abs(self.v), self.alat * abs(self.v), 0.0])
        return np.stack([E, E], axis=1), np.stack([de - dh, de + dh], axis=1)


MODELS = {"cubic": Cubic, "ortho": Ortho, "square2d": Square2D, "polar": Polar, "polar_aniso": PolarAniso, "twoband": TwoBand, "degen": Degen, "polar2w": Polar2W, "polar2d": Polar2D, "polar2d_b": Polar2DB}


def cf_phonons(m, q):
    """Closed-form omega^2 (ascending) and eigenvectors e (N, 3, 3) of the 1-atom models"""
    w2, e = np.linalg.eigh(m.cf_dyn(q))
    return w2, e


def selftest():
    rng = np.random.default_rng(7)
    for name in ("cubic", "ortho", "square2d"):
        m = MODELS[name]()
        for _ in range(20):
            k, q = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
            if m.system_2d:
                k[2] = q[2] = 0
            E, U, v = m.direct_bands(k)
            Ec, vc = m.cf_bands(k)
            assert np.allclose(E, Ec[0], atol=1e-14) and np.allclose(v, vc[0], atol=1e-13), name
            assert np.allclose(m.dyn(q), m.cf_dyn(q)[0], atol=1e-18), name
            assert np.allclose(m.direct_gw(k, q), m.cf_gw(k, q)[0], atol=1e-16), name
        m.arrays()   # the exactness assertions of the folding
    for name in ("polar", "polar_aniso", "polar2d", "polar2d_b"):
        m = MODELS[name]()
        m.arrays()
        # the dipole-dipole matrix is Hermitian and the on-site term makes D_LR(0) + onsite obey the ASR
        q = rng.uniform(-1, 1, 3)
        if m.system_2d:
            q[2] = 0
        L = m.dlr(q)
        assert np.allclose(L, L.conj().T, atol=1e-14)
        w2, _ = m.direct_phonons(np.zeros(3))
        assert np.all(np.abs(w2[:3]) < 1e-14), w2
    print("selftest ok")


def main(argv):
    usage = ("usage: make_epr.py {%s} OUT.h5 [--bad missing|nomass|short|nan|plain|volume|kcdim|intnat]"
             " [--set NAME=VALUE (a /basic_data scalar: int if it looks like one)] [--drop DATASET]\n"
             "       make_epr.py selftest" % "|".join(MODELS))
    if argv[:1] == ["selftest"]:
        selftest()
        return 0
    if len(argv) < 2 or argv[0] not in MODELS or len(argv) % 2:
        sys.exit(usage)
    bad, sets, drops = None, [], []
    for flag, val in zip(argv[2::2], argv[3::2]):
        if flag == "--bad":
            bad = val
        elif flag == "--set":
            k, v = val.split("=")
            sets.append((k, np.int32(v) if v.lstrip("-").isdigit() else np.float64(v)))
        elif flag == "--drop":
            drops.append(val)
        else:
            sys.exit(usage)
    MODELS[argv[0]]().write(argv[1], bad, sets, drops)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
