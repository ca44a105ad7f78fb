"""Plots of bte's outputs as functions. Each takes an object (or a file name) and returns a
matplotlib Figure; with path= it also writes it as PNG. Figures are made without pyplot (no
backend is chosen or needed: PNGs are drawn with Agg), so the functions work on machines without
a display and leave an interactive session's backend alone."""
import os

import numpy as np

KB_EV = 8.617333262e-5  # Boltzmann constant, eV/K


def _figure(figsize):
    from matplotlib.figure import Figure
    return Figure(figsize=figsize)


def _save(fig, path, dpi=120):
    if path:
        try:
            d = os.path.dirname(os.path.abspath(path))
            os.makedirs(d, exist_ok=True)
            fig.savefig(path, dpi=dpi)
        except OSError as e:
            raise type(e)("%s: cannot write the plot (%s)" % (path, e.strerror or e)) from None
    return fig


def _load(obj, cls):
    if isinstance(obj, (str, os.PathLike)):
        return cls(obj)
    if not isinstance(obj, cls):
        raise TypeError("this plot needs a bte.%s (or a file name), not %s" % (cls.__name__, type(obj).__name__))
    return obj


def smooth(y, width):
    """Gaussian smoothing over width bins (standard deviation); 0 leaves y as it is."""
    try:
        width = float(width)
    except (TypeError, ValueError):
        raise ValueError("smoothing %r: give a number of bins" % (width,)) from None
    if not np.isfinite(width):
        raise ValueError("smoothing %r bins: not a finite number" % (width,))
    if width <= 0:
        return np.asarray(y)
    half = min(int(4 * width) + 1, max(len(y) - 1, 0) // 2)  # kernel no longer than y: "same" keeps len(y)
    x = np.arange(-half, half + 1)
    k = np.exp(-0.5 * (x / width) ** 2)
    k /= k.sum()
    return np.convolve(y, k, mode="same")


def _title(dyn):
    title = "%s %s, %g K" % (dyn.source, dyn.carrier_type or "carriers", dyn.temperature)
    if np.any(dyn.efield != 0):
        title += ", E = (%g, %g, %g) V/cm" % tuple(dyn.efield)
        if dyn.efield_profile != "constant":
            title += " (%s at %g fs)" % (dyn.efield_profile, dyn.efield_time)
    if dyn.pump:
        title += ", pump %.3g %s at %g fs" % (dyn.pump["density"], dyn.units["pump"]["density"], dyn.pump["time"])
    if dyn.complete is False:  # None: a file from before outputs said so
        title += " (stopped before its final time)"
    return title


def default_times(t):
    """The times the energy distribution shows by default: the first and 6 log-spaced ones."""
    nt = len(t)
    if nt <= 1:
        return [t[0]] if nt else []
    return list(np.unique(np.concatenate([[t[0]], np.geomspace(max(t[1], 1e-3), t[-1], 6)])))


def energy_distribution(dyn, times=None, smooth_bins=1.5, path=None):
    """Population versus energy above the band edge at several times (left) and as a time-energy map
    with the mean energy (right). dyn: Dynamics or file name; times: fs (default: default_times)."""
    from matplotlib.colors import LogNorm
    from .outputs import Dynamics
    dyn = _load(dyn, Dynamics)
    t, pop, nt = dyn.time, dyn.population, dyn.nsnapshots
    if nt == 0:
        raise ValueError("%s holds no snapshot" % dyn.path)
    e = dyn.energy_grid - dyn.band_edge
    try:
        want = default_times(t) if times is None else [float(w) for w in times]
    except (TypeError, ValueError):
        raise ValueError("times %r: give numbers (fs)" % (times,)) from None
    if not np.all(np.isfinite(want)):
        raise ValueError("times %r: not all finite" % (times,))
    if times is not None:  # each is drawn at the nearest snapshot: outside the run there is none
        out = [w for w in want if w < t[0] - 1e-9 * max(1.0, abs(t[0])) or w > t[-1] + 1e-9 * max(1.0, abs(t[-1]))]
        if out:
            raise ValueError("times %s fs: outside the run's snapshots, %g to %g fs" % (", ".join("%g" % w for w in out), t[0], t[-1]))
    rows = sorted(set(int(np.argmin(np.abs(t - w))) for w in want))
    fig = _figure((12, 4.6))
    ax1, ax2 = fig.subplots(1, 2)
    from matplotlib import colormaps
    cmap = colormaps["viridis"]
    for k, r in enumerate(rows):
        ax1.plot(e, smooth(pop[r], smooth_bins), color=cmap(k / max(1, len(rows) - 1)), label="%g fs" % t[r])
    ax1.set_xlabel("energy above the band edge (eV)")
    ax1.set_ylabel("population (carriers / (eV cell))")
    ax1.set_title("energy distribution")
    ax1.legend(fontsize=8)
    if len(e) > 1:
        ax1.set_xlim(e[0], e[-1])
    ps = np.array([smooth(p, smooth_bins) for p in pop])
    pos = ps[ps > 0]
    vmax = pos.max() if pos.size else 1.0
    norm = LogNorm(vmin=vmax * 1e-3, vmax=vmax)
    # cell edges: energy bins, and times halfway between snapshots
    de = e[1] - e[0] if len(e) > 1 else 0.01
    xe = np.concatenate([e - 0.5 * de, [e[-1] + 0.5 * de]])
    if nt > 1:
        mid = 0.5 * (t[1:] + t[:-1])
        te = np.concatenate([[t[0] - (mid[0] - t[0])], mid, [t[-1] + (t[-1] - mid[-1])]])
    else:
        te = np.array([t[0] - 0.5, t[0] + 0.5])
    im = ax2.pcolormesh(xe, te, np.clip(ps, vmax * 1e-3, None), norm=norm, cmap="magma", shading="flat")
    ax2.plot(dyn.mean_energy - dyn.band_edge, t, color="cyan", lw=1.2, label="mean energy")
    ax2.set_xlabel("energy above the band edge (eV)")
    ax2.set_ylabel("time (fs)")
    ax2.set_title("population over time")
    ax2.legend(fontsize=8, loc="upper right")
    fig.colorbar(im, ax=ax2, label="carriers / (eV cell)")
    fig.suptitle(_title(dyn))
    fig.tight_layout()
    return _save(fig, path)


def _equilibrium_mean_energy(energy, nstates_occupied, temperature):
    """Mean energy (eV) of Fermi-Dirac at temperature (K) on the states of energy (eV) holding
    nstates_occupied = sum_i f_i carriers: the equilibrium that phonons at that temperature drive a
    run to on its own states and window, whatever the dimension or the bands (3/2 kT only for a
    parabolic 3D band, kT in 2D, both nondegenerate). None when it is not defined (no states, no
    carriers, every state full, or T <= 0)."""
    e = np.asarray(energy, dtype=float)
    n, N = float(nstates_occupied), len(e)
    if N == 0 or not np.isfinite(n) or not n > 0 or not n < N or not temperature > 0:
        return None
    kT = KB_EV * temperature

    def occ(mu):  # 1/(exp((e-mu)/kT)+1) without overflow
        return np.exp(-np.logaddexp(0.0, (e - mu) / kT))

    # brackets where the count is below / above n by a factor e^-40 at least; n(mu) is increasing
    lo = e.min() - kT * (np.log(N / n) + 40)
    hi = e.max() + kT * (np.log(N / (N - n)) + 40)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if occ(mid).sum() < n:
            lo = mid
        else:
            hi = mid
    f = occ(0.5 * (lo + hi))
    return float((f * e).sum() / f.sum())


def mean_energy(dyn, path=None):
    """Mean energy above the band edge versus time, and the drift velocity versus time when the run
    had a field. dyn: Dynamics or file name. The dashed line is the equilibrium the lattice drives
    the run to: the mean energy of Fermi-Dirac at the lattice temperature on the file's own states
    (state_energy) with the run's carriers (sum of f at the first snapshot); no 3/2 kT, which holds
    for a parabolic 3D band only. Where /diagnostics holds a relaxation_temperature (the temperature
    of the operator's own stationary state) differing from the lattice's, that one's line is drawn
    too, dotted."""
    from .outputs import Dynamics
    dyn = _load(dyn, Dynamics)
    t, carriers = dyn.time, dyn.carriers
    field = np.any(dyn.efield != 0)
    fig = _figure((11 if field else 6.5, 4.4))
    axes = fig.subplots(1, 2 if field else 1)
    ax = axes[0] if field else axes
    ax.plot(t, dyn.mean_energy - dyn.band_edge, "o-", ms=3)
    # the carriers the lattice relaxes: the run's own, or, with a pump adding carriers, the last snapshot's
    nocc = dyn.occupations(-1 if dyn.pump else 0).sum() if dyn.nsnapshots else 0.0
    eq = _equilibrium_mean_energy(dyn.state_energy, nocc, dyn.temperature)
    if eq is not None:
        ax.axhline(eq - dyn.band_edge, color="gray", ls="--", lw=1, label="equilibrium: Fermi-Dirac at %g K on these states" % dyn.temperature)
    tr = dyn.diagnostics.get("relaxation_temperature")
    try:
        tr = float(tr)
    except (TypeError, ValueError):
        tr = None
    if tr is not None and np.isfinite(tr) and tr > 0 and abs(tr / dyn.temperature - 1) > 1e-3:
        er = _equilibrium_mean_energy(dyn.state_energy, nocc, tr)
        if er is not None:
            ax.axhline(er - dyn.band_edge, color="gray", ls=":", lw=1, label="Fermi-Dirac at the relaxation temperature %.4g K (/diagnostics)" % tr)
    ax.set_xlabel("time (fs)")
    ax.set_ylabel("mean energy above the band edge (eV)")
    dn = np.abs(carriers / carriers[0] - 1).max() if len(carriers) and carriers[0] else 0
    if dyn.pump:  # the pump adds carriers by design: their number is not a check
        ax.set_title("mean energy (carriers %.3g -> %.3g per cell, pumped)" % (carriers[0], carriers[-1]) if len(carriers) else "mean energy")
    else:
        ax.set_title("mean energy (carrier number kept to %.0e)" % dn if dn > 0 else "mean energy (carrier number exact)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
    if field:
        axes[1].plot(t, dyn.drift_velocity, "o-", ms=3, color="C3")
        axes[1].set_xlabel("time (fs)")
        axes[1].set_ylabel("drift velocity v.E_hat (cm/s)")
        axes[1].set_title("drift velocity")
    fig.suptitle(_title(dyn))
    fig.tight_layout()
    return _save(fig, path)


def check_plane(plane):
    """plane ("xy", "xz", "yz", ...) as the indices of its two axes, or ValueError."""
    if not isinstance(plane, str) or len(plane) != 2 or any(c not in "xyz" for c in plane) or plane[0] == plane[1]:
        raise ValueError("plane %r: give two of x, y, z (e.g. xy)" % (plane,))
    return "xyz".index(plane[0]), "xyz".index(plane[1])


def kspace(dyn, snapshot=-1, plane="xy", path=None):
    """Occupations of one snapshot in k space: every state at its Cartesian k (1/Angstrom, the image
    nearest Gamma) projected on plane ("xy", "xz" or "yz"), coloured by f (largest on top)."""
    from .outputs import Dynamics
    a, b = check_plane(plane)
    dyn = _load(dyn, Dynamics)
    f = dyn.occupations(snapshot)
    k = dyn.kpoints(cartesian=True, nearest=True)
    order = np.argsort(f)
    fig = _figure((5.8, 5))
    ax = fig.subplots()
    sc = ax.scatter(k[order, a], k[order, b], c=f[order], s=8, cmap="viridis")
    ax.set_aspect("equal")
    ax.set_xlabel("k_%s (1/Angstrom)" % plane[0])
    ax.set_ylabel("k_%s (1/Angstrom)" % plane[1])
    ax.set_title("occupations at %g fs" % dyn.time[snapshot])
    fig.colorbar(sc, ax=ax, label="f")
    fig.tight_layout()
    return _save(fig, path)


def _source_name(obj):
    """The model, or else the table file's name, for a title."""
    if obj.model:
        return obj.model
    return os.path.basename(obj.provenance.get("source", "") or "")


def mobility(tr, component="trace", path=None):
    """Mobility versus temperature, one curve per carrier density (rounded to 3 digits), or per
    chemical potential where the run held those fixed (tr.fixed); log-log when the temperatures span
    more than a factor 2.5. Configurations whose solve did not converge (converged false) are drawn
    as open markers and counted in the title. tr: Transport or file name."""
    from .outputs import Transport
    tr = _load(tr, Transport)
    T, n = tr.temperature, tr.carrier_density
    val = tr.component(component)
    bad = ~tr.converged
    dunit = tr.units["carrier_density"]
    fig = _figure((5.5, 4.2))
    ax = fig.subplots()
    bymu = tr.fixed == "chemical_potential"
    keys = np.array([float("%.4g" % x) for x in tr.chemical_potential]) if bymu else np.array([float("%.3g" % x) for x in n])
    for key in sorted(set(keys)):
        sel = keys == key
        order = np.argsort(T[sel])
        line, = ax.plot(T[sel][order], val[sel][order], "o-", label="$\\mu$ = %.4g eV" % key if bymu else "n = %.3g %s" % (key, dunit))
        _open_markers(ax, T[sel & bad], val[sel & bad], line.get_color(), None)
    ax.set_xlabel("temperature (K)")
    ax.set_ylabel("mobility %s (cm$^2$/(V s))" % ("(trace/%d)" % tr.dim if component == "trace" else component))
    if len(T) > 1 and T.max() / T.min() > 2.5 and np.all(val > 0):
        ax.set_xscale("log")
        ax.set_yscale("log")
    name = _source_name(tr)
    ax.set_title("bte transport: %s%s%s" % (name + " " if name else "", tr.method,
                                           ", %d of %d not converged (open)" % (bad.sum(), len(bad)) if bad.any() else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)


def scattering_rates(tr, path=None):
    """Each state's scattering rate 1/tau = Gamma_i (1/ps, log scale) against its energy above the
    lowest state, one marker set per configuration (temperature, density): the transport output's
    scattering_rate, Perturbo's imsigma as 2 Im Sigma / hbar. tr: Transport or file name."""
    from .outputs import BTEFileError, Transport
    tr = _load(tr, Transport)
    if tr.scattering_rate is None:
        raise BTEFileError("%s: /transport has no scattering_rate (written by bte transport since it has them)" % tr.path)
    e = tr.state_energy - tr.state_energy.min()
    fig = _figure((5.5, 4.2))
    ax = fig.subplots()
    dunit = tr.units["carrier_density"]
    for k in range(len(tr)):
        g = tr.scattering_rate[k] * 1e3  # 1/fs -> 1/ps
        ok = g > 0
        ax.plot(e[ok], g[ok], ".", ms=3, alpha=0.6, label="%g K, n = %.3g %s" % (tr.temperature[k], tr.carrier_density[k], dunit))
    ax.set_yscale("log")
    ax.set_xlabel("energy above the lowest state (eV)")
    ax.set_ylabel("scattering rate $1/\\tau$ (1/ps)")
    name = _source_name(tr)
    ax.set_title("bte transport: %sscattering rates" % (name + " " if name else ""))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, markerscale=3)
    fig.tight_layout()
    return _save(fig, path)


def _open_markers(ax, x, y, color, label):
    """Points drawn over the filled markers as open ones (white inside): fields whose solve did not converge."""
    if len(x):
        ax.plot(x, y, "o", ls="none", color=color, mfc="white", mec=color, zorder=3, label=label)  # color: the next curve keeps its own


def velocity_field(hf, path=None):
    """|drift velocity| versus field with the peak marked (where the largest |v_d| lies inside the
    field range, not at its end), and the valley occupations versus field when there is more than
    one valley kind. hf: HighField or file name. Fields whose solve did not converge (converged
    false) are drawn as open markers and named in the legend; the peak is taken over the converged
    ones where there are any."""
    from .outputs import HighField
    hf = _load(hf, HighField)
    E, vd = hf.field, np.abs(hf.drift_velocity)
    occ = hf.valley_occupation
    bad = ~hf.converged
    have_valleys = occ.ndim == 2 and occ.shape[1] > 1
    fig = _figure((10 if have_valleys else 5.5, 4.2))
    axes = fig.subplots(1, 2 if have_valleys else 1)
    ax = axes[0] if have_valleys else axes
    line, = ax.plot(E / 1e3, vd / 1e7, "-")
    if not bad.all():
        ax.plot(E[~bad] / 1e3, vd[~bad] / 1e7, "o", ls="none", color=line.get_color(), label="converged" if bad.any() else None)
    _open_markers(ax, E[bad] / 1e3, vd[bad] / 1e7, line.get_color(), "not converged (%d of %d fields)" % (bad.sum(), len(E)))
    k = int(np.argmax(np.where(bad, -np.inf, vd))) if not bad.all() else int(np.argmax(vd))
    lo, hi = int(np.argmin(E)), int(np.argmax(E))
    if len(E) > 2 and k not in (lo, hi):  # a maximum at an end of the range is no peak
        ax.annotate("peak%s %.3g cm/s\nat %.3g kV/cm" % (" of the converged" if bad.any() and not bad.all() else "", vd[k], E[k] / 1e3), (E[k] / 1e3, vd[k] / 1e7),
                    textcoords="offset points", xytext=(10, -30), fontsize=8)
    ax.set_xlabel("field (kV/cm)")
    ax.set_ylabel("|drift velocity| (10$^7$ cm/s)")
    parts = [p for p in (_source_name(hf), "%g K" % hf.temperature if hf.temperature is not None else "") if p]
    ax.set_title("bte highfield: %s%s" % (", ".join(parts), ", %d not converged (open)" % bad.sum() if bad.any() else ""))
    ax.grid(True, alpha=0.3)
    if bad.any():
        ax.legend(fontsize=8)
    if have_valleys:
        labels = hf.valley_label if len(hf.valley_label) == occ.shape[1] else ["valley %d" % i for i in range(occ.shape[1])]
        for v in range(occ.shape[1]):
            line, = axes[1].plot(E / 1e3, occ[:, v], "o-", label=labels[v])
            _open_markers(axes[1], E[bad] / 1e3, occ[bad, v], line.get_color(), None)
        axes[1].set_xlabel("field (kV/cm)")
        axes[1].set_ylabel("valley occupation (fraction)")
        axes[1].set_ylim(0, 1)
        axes[1].grid(True, alpha=0.3)
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    return _save(fig, path)
