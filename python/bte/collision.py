"""The collision integral of a scattering table in numpy (docs/collision.md "What is computed"):
an independent second implementation of bte's operator for analysis, small problems and tests.

Per channel c between states i < j with phonon energy hw_c and |g_c|^2,

    a_c = (2 pi / hbar) |g_c|^2 G(e_i - e_j + hw_c) / Nq     (absorption)
    b_c = (2 pi / hbar) |g_c|^2 G(e_i - e_j - hw_c) / Nq     (emission)
    P_c = a_c N_c + b_c (N_c + 1),   Q_c = a_c (N_c + 1) + b_c N_c
    x_c = -[P_c f_i (1 - f_j) - Q_c f_j (1 - f_i)],   I_i += x_c,  I_j -= x_c

with G(x) = exp(-(x/eta)^2) / (eta sqrt(pi)), N_c the Bose occupation at the lattice temperature and
Nq the points of the full grid (Perturbo's delta). With the balanced delta (-bte_delta balanced, a
table's attribute delta; docs/collision.md) the weight a_c + b_c is split by the Boltzmann factor of
the states' energy difference:

    P_c = (a_c + b_c) e^u / (2 sinh v),   Q_c = (a_c + b_c) e^-u / (2 sinh v),
    u = (e_i - e_j) / 2kT,   v = hw_c / 2kT.

Rates are in 1/fs (energies eV, hbar in eV fs)."""
import os

import numpy as np

HBAR_EVFS = 0.6582119569  # hbar, eV fs
KB_EV = 8.617333262e-5     # Boltzmann constant, eV/K


def _number(x, what, unit):
    """x as a finite float, or ValueError naming what it is."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError("%s %r %s: give a number" % (what, x, unit)) from None
    if not np.isfinite(v):
        raise ValueError("%s %r %s: not a finite number" % (what, x, unit))
    return v


class Collision:
    """The collision operator of a Table at temperature T (K) and smearing eta (eV; default the
    table's), with the delta "perturbo" or "balanced" (default the table's, Table.delta). table: a
    Table or a table's file name. Attributes: P, Q (per channel, 1/fs), i, j (channel ends),
    nstates, delta."""

    def __init__(self, table, temperature, smearing=None, delta=None):
        from .table import Table
        if isinstance(table, (str, os.PathLike)):
            table = Table(table)
        if not isinstance(table, Table):
            raise TypeError("Collision needs a bte.Table (or a table's file name), not %s" % type(table).__name__)
        temperature = _number(temperature, "temperature", "K")
        if not temperature > 0:
            raise ValueError("temperature %r K: must be > 0" % (temperature,))
        eta = table.smearing if smearing is None else _number(smearing, "smearing", "eV")
        if not eta > 0:
            raise ValueError("smearing %r eV: must be > 0" % (eta,))
        delta = table.delta if delta is None else delta
        if delta not in ("perturbo", "balanced"):
            raise ValueError("delta %r: perturbo or balanced" % (delta,))
        self.delta = delta
        ch = table.channels
        e = table.energy
        self.table, self.temperature, self.smearing = table, float(temperature), eta
        self.nstates = table.nstates
        self.i, self.j = ch.i, ch.j
        hw = ch.phonon_energy
        pref = 2 * np.pi / HBAR_EVFS * ch.g2 / table.lattice.nkpoints / (eta * np.sqrt(np.pi))
        de = e[ch.i] - e[ch.j]
        a = pref * np.exp(-((de + hw) / eta) ** 2)
        b = pref * np.exp(-((de - hw) / eta) ** 2)
        kT = KB_EV * self.temperature
        if delta == "balanced":
            u, w = de / (2 * kT), (a + b) / (2 * np.sinh(hw / (2 * kT)))
            self.P, self.Q = w * np.exp(u), w * np.exp(-u)
        else:
            N = 1.0 / np.expm1(hw / kT)
            self.P = a * N + b * (N + 1)
            self.Q = a * (N + 1) + b * N

    def _check(self, f):
        f = np.asarray(f, dtype=float)
        if f.shape != (self.nstates,):
            raise ValueError("occupations of shape %s: the table has %d states" % (f.shape, self.nstates))
        return f

    def apply(self, f):
        """I[f] (1/fs) for occupations f (N,)."""
        f = self._check(f)
        fi, fj = f[self.i], f[self.j]
        x = -(self.P * fi * (1 - fj) - self.Q * fj * (1 - fi))
        return np.bincount(self.i, x, self.nstates) - np.bincount(self.j, x, self.nstates)

    def jacobian(self, f):
        """J(f) = dI/df (1/fs) as a scipy.sparse CSR matrix (N, N)."""
        try:
            import scipy.sparse as sp
        except ImportError as e:
            raise ImportError("Collision.jacobian needs scipy (%s); Collision.apply works without it" % e) from None
        f = self._check(f)
        fi, fj = f[self.i], f[self.j]
        dxi = -(self.P * (1 - fj) + self.Q * fj)   # d x_c / d f_i
        dxj = self.P * fi + self.Q * (1 - fi)      # d x_c / d f_j
        # I_i += x_c, I_j -= x_c
        rows = np.concatenate([self.i, self.i, self.j, self.j])
        cols = np.concatenate([self.i, self.j, self.i, self.j])
        vals = np.concatenate([dxi, dxj, -dxi, -dxj])
        return sp.csr_matrix((vals, (rows, cols)), shape=(self.nstates, self.nstates))

    def fermi_dirac(self, mu):
        """Fermi-Dirac occupations at the operator's temperature and chemical potential mu (eV)."""
        mu = _number(mu, "chemical potential", "eV")
        x = (self.table.energy - mu) / (KB_EV * self.temperature)
        return 0.5 * (1 - np.tanh(0.5 * x))  # 1/(e^x + 1) without overflow

    def scattering_rates(self, f):
        """Out-scattering rate Gamma_i = -J(f)_ii (1/fs): the inverse RTA lifetimes at f."""
        f = self._check(f)
        fi, fj = f[self.i], f[self.j]
        di = self.P * (1 - fj) + self.Q * fj
        dj = self.P * fi + self.Q * (1 - fi)
        return np.bincount(self.i, di, self.nstates) + np.bincount(self.j, dj, self.nstates)

    def rta_mobility(self, mu):
        """Mobility tensor (3, 3), cm^2/(V s), in the relaxation-time approximation at chemical
        potential mu (eV): mu_ab = 0.1 sum_i v_ia F_ib D_i / sum_i f0_i with F = v / Gamma(f0),
        D = f0 (1 - f0) / kT (docs/transport.md; states with Gamma = 0 or D = 0 carry no current)."""
        f0 = self.fermi_dirac(mu)
        kT = KB_EV * self.temperature
        D = f0 * (1 - f0) / kT
        G = self.scattering_rates(f0)
        v = self.table.velocity
        ok = (G > 0) & (D > 0)
        F = np.zeros_like(v)
        F[ok] = v[ok] / G[ok, None]
        return 0.1 * np.einsum("ia,ib,i->ab", v, F, D) / f0.sum()
