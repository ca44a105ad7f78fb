#!/usr/bin/env python3
"""Plots of a bte dynamics output file (docs/dynamics.md):

  <outdir>/<stem>_energy_distribution.png  energy-resolved carrier population at several times
                                           (left) and as a time-energy map (right)
  <outdir>/<stem>_mean_energy.png          mean energy above the band edge versus time (and the
                                           drift velocity when the run had a field)

usage: plot_dynamics.py FILE.h5 [--outdir DIR] [--times t1,t2,...] [--smooth BINS]
"""
import argparse
import os
import sys

import h5py
import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402



def text(x):
    # string attributes are fixed-length (bytes in h5py); older files have str
    return x.decode() if isinstance(x, bytes) else str(x)

def smooth(y, width):
    """Gaussian smoothing over `width` bins (standard deviation); 0 leaves y as it is."""
    if width <= 0:
        return y
    half = int(4 * width) + 1
    x = np.arange(-half, half + 1)
    k = np.exp(-0.5 * (x / width) ** 2)
    k /= k.sum()
    return np.convolve(y, k, mode="same")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--outdir", default=None, help="folder for the PNGs (default: the file's folder)")
    ap.add_argument("--times", default=None, help="comma-separated times (fs) for the distribution curves")
    ap.add_argument("--smooth", type=float, default=1.5, help="Gaussian smoothing of the population, in bins (0: none)")
    args = ap.parse_args()

    with h5py.File(args.file, "r") as h:
        g = h["dynamics"]
        t = g["time"][:]
        nt = len(t)
        if nt == 0:
            sys.exit("plot_dynamics: %s holds no snapshot" % args.file)
        egrid = g["energy_grid"][:]
        pop = g["population"][:nt]
        emean = g["mean_energy"][:nt]
        carriers = g["carriers"][:nt]
        vd = g["drift_velocity"][:nt]
        edge = float(g.attrs["band_edge"])
        T = float(g.attrs["temperature"])
        efield = np.asarray(g.attrs["efield"], dtype=float)
        kind = text(g.attrs.get("carriers", "carriers"))
        source = text(g.attrs.get("source", ""))

    outdir = args.outdir or os.path.dirname(os.path.abspath(args.file))
    os.makedirs(outdir, exist_ok=True)
    stem = os.path.splitext(os.path.basename(args.file))[0]
    e = egrid - edge
    title = "%s %s, %g K" % (source, kind, T)
    if np.any(efield != 0):
        title += ", E = (%g, %g, %g) V/cm" % tuple(efield)

    # energy distribution: curves at chosen times and a time-energy map
    if args.times:
        want = [float(x) for x in args.times.split(",")]
    else:
        want = list(np.unique(np.concatenate([[t[0]], np.geomspace(max(t[1] if nt > 1 else 1, 1e-3), t[-1], 6)]))) if nt > 1 else [t[0]]
    rows = sorted(set(int(np.argmin(np.abs(t - w))) for w in want))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6))
    cmap = plt.get_cmap("viridis")
    for k, r in enumerate(rows):
        ax1.plot(e, smooth(pop[r], args.smooth), color=cmap(k / max(1, len(rows) - 1)), label="%g fs" % t[r])
    ax1.set_xlabel("energy above the band edge (eV)")
    ax1.set_ylabel("population (carriers / (eV cell))")
    ax1.set_title("energy distribution")
    ax1.legend(fontsize=8)
    ax1.set_xlim(e[0], e[-1])
    ps = np.array([smooth(p, args.smooth) for p in pop])
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
    ax2.plot(emean - edge, t, color="cyan", lw=1.2, label="mean energy")
    ax2.set_xlabel("energy above the band edge (eV)")
    ax2.set_ylabel("time (fs)")
    ax2.set_title("population over time")
    ax2.legend(fontsize=8, loc="upper right")
    fig.colorbar(im, ax=ax2, label="carriers / (eV cell)")
    fig.suptitle(title)
    fig.tight_layout()
    p1 = os.path.join(outdir, stem + "_energy_distribution.png")
    fig.savefig(p1, dpi=120)
    plt.close(fig)

    # mean energy versus time (and drift velocity with a field)
    field = np.any(efield != 0)
    fig, axes = plt.subplots(1, 2 if field else 1, figsize=(11 if field else 6.5, 4.4))
    ax = axes[0] if field else axes
    ax.plot(t, emean - edge, "o-", ms=3)
    kT = 8.617333262e-5 * T
    ax.axhline(1.5 * kT, color="gray", ls="--", lw=1, label="3/2 kT (%g K)" % T)
    ax.set_xlabel("time (fs)")
    ax.set_ylabel("mean energy above the band edge (eV)")
    dn = np.abs(carriers / carriers[0] - 1).max() if carriers[0] else 0
    ax.set_title("mean energy (carrier number kept to %.0e)" % dn if dn > 0 else "mean energy (carrier number exact)")
    ax.legend(fontsize=8)
    if field:
        axes[1].plot(t, vd, "o-", ms=3, color="C3")
        axes[1].set_xlabel("time (fs)")
        axes[1].set_ylabel("drift velocity v.E_hat (cm/s)")
        axes[1].set_title("drift velocity")
    fig.suptitle(title)
    fig.tight_layout()
    p2 = os.path.join(outdir, stem + "_mean_energy.png")
    fig.savefig(p2, dpi=120)
    plt.close(fig)
    print(p1)
    print(p2)


if __name__ == "__main__":
    main()
