#!/usr/bin/env python3
"""Plot bte's steady-state transport results (docs/transport.md).

  plot_transport.py FILE.h5 [-o OUT.png] [--component xx|yy|zz|trace]

FILE.h5 written by `bte transport` (group /transport): mobility versus temperature,
one curve per carrier density (or chemical potential).
FILE.h5 written by `bte highfield` (group /highfield): drift velocity versus field
and, when valleys were found, the valley occupations versus field.
Run with the Python that scripts/find-python.sh prints (it has h5py and matplotlib).
"""
import argparse
import sys

import h5py
import numpy as np
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)


def component(t, which):
    if which == "trace":
        return (t[..., 0, 0] + t[..., 1, 1] + t[..., 2, 2]) / 3.0
    a = "xyz".index(which[0])
    b = "xyz".index(which[1])
    return t[..., a, b]


def plot_transport(g, out, which):
    T = g["temperature"][()]
    n = g["carrier_density"][()]
    mob = g["mobility"][()]
    dim = int(g.attrs.get("dimension", 3))
    if which == "trace" and dim == 2:
        val = (mob[:, 0, 0] + mob[:, 1, 1]) / 2.0
    else:
        val = component(mob, which)
    dunit = text(g["carrier_density"].attrs.get("units", "cm^-3"))
    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    # group configurations by carrier density (rounded to 3 significant digits)
    keys = np.array([float("%.3g" % x) for x in n])
    for key in sorted(set(keys)):
        sel = keys == key
        order = np.argsort(T[sel])
        ax.plot(T[sel][order], val[sel][order], "o-", label="n = %.3g %s" % (key, dunit))
    ax.set_xlabel("temperature (K)")
    ax.set_ylabel("mobility %s (cm$^2$/(V s))" % ("(trace/%d)" % dim if which == "trace" else which))
    if len(T) > 1 and T.max() / T.min() > 2.5 and np.all(val > 0):
        ax.set_xscale("log")
        ax.set_yscale("log")
    method = text(g.attrs.get("method", ""))
    model = text(g.attrs.get("model", ""))
    ax.set_title("bte transport: %s%s" % (model + " " if model else "", method))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote %s" % out)


def plot_highfield(g, out):
    E = g["field"][()]
    vd = np.abs(g["drift_velocity"][()])
    have_valleys = "valley_occupation" in g and g["valley_occupation"].shape[1] > 1
    fig, axes = plt.subplots(1, 2 if have_valleys else 1, figsize=(10 if have_valleys else 5.5, 4.2))
    ax = axes[0] if have_valleys else axes
    ax.plot(E / 1e3, vd / 1e7, "o-")
    k = int(np.argmax(vd))
    ax.annotate("peak %.3g cm/s\nat %.3g kV/cm" % (vd[k], E[k] / 1e3), (E[k] / 1e3, vd[k] / 1e7),
                textcoords="offset points", xytext=(10, -30), fontsize=8)
    ax.set_xlabel("field (kV/cm)")
    ax.set_ylabel("drift velocity (10$^7$ cm/s)")
    model = text(g.attrs.get("model", ""))
    T = g.attrs.get("temperature_K", None)
    ax.set_title("bte highfield: %s%s" % (model, " %g K" % T if T is not None else ""))
    ax.grid(True, alpha=0.3)
    if have_valleys:
        occ = g["valley_occupation"][()]
        labels = [text(x) for x in g["valley_label"][()]] if "valley_label" in g else \
            ["valley %d" % i for i in range(occ.shape[1])]
        for v in range(occ.shape[1]):
            axes[1].plot(E / 1e3, occ[:, v], "o-", label=labels[v])
        axes[1].set_xlabel("field (kV/cm)")
        axes[1].set_ylabel("valley occupation (fraction)")
        axes[1].set_ylim(0, 1)
        axes[1].grid(True, alpha=0.3)
        axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print("wrote %s" % out)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("-o", "--output", help="PNG to write (default: FILE with .png; "
                   "_velocity.png for /highfield when both groups are present)")
    p.add_argument("--component", default="trace", choices=["trace", "xx", "yy", "zz", "xy", "xz", "yz"],
                   help="mobility component to plot (default: trace/3, trace/2 in 2D)")
    a = p.parse_args()
    base = a.file[:-3] if a.file.endswith(".h5") else a.file
    with h5py.File(a.file, "r") as f:
        groups = [x for x in ("transport", "highfield") if x in f]
        if not groups:
            sys.exit("plot_transport: %s has neither /transport nor /highfield" % a.file)
        for gname in groups:
            out = a.output or (base + ".png")
            if len(groups) == 2 and gname == "highfield":
                out = (a.output[:-4] if a.output and a.output.endswith(".png") else base) + "_velocity.png"
            if gname == "transport":
                plot_transport(f[gname], out, a.component)
            else:
                plot_highfield(f[gname], out)


if __name__ == "__main__":
    main()
