"""The command-line plot scripts (bte-plot-dynamics, bte-plot-transport; also scripts/plot_*.py
of the repository): argument parsing around the functions of bte.plot."""
import argparse
import math
import os
import sys

from ._h5 import BTEFileError

DYNAMICS_DOC = """Plots of a bte dynamics output file (docs/dynamics.md):

  <outdir>/<stem>_energy_distribution.png  energy-resolved carrier population at several times
                                           (left) and as a time-energy map (right)
  <outdir>/<stem>_mean_energy.png          mean energy above the band edge versus time (and the
                                           drift velocity when the run had a field)
  <outdir>/<stem>_kspace.png               (with --kspace) the last snapshot's occupations in k space
"""

TRANSPORT_DOC = """Plot bte's steady-state transport results (docs/transport.md).

FILE.h5 written by `bte transport` (group /transport): mobility versus temperature,
one curve per carrier density (or chemical potential); and, in FILE_rates.png, each state's
scattering rate against its energy (the output's scattering_rate).
FILE.h5 written by `bte highfield` (group /highfield): drift velocity versus field
and, when valleys were found, the valley occupations versus field.
"""


def _fail(prog, e):
    sys.stderr.write("%s: %s\n" % (prog, e))
    return 1


def plot_dynamics_main(argv=None):
    from . import plot
    from .outputs import Dynamics
    ap = argparse.ArgumentParser(prog="plot_dynamics", description=DYNAMICS_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--outdir", default=None, help="folder for the PNGs (default: the file's folder)")
    ap.add_argument("--times", default=None, help="comma-separated times (fs) for the distribution curves, each drawn at the nearest snapshot (within the run's)")
    ap.add_argument("--smooth", type=float, default=1.5, help="Gaussian smoothing of the population, in bins (0: none)")
    ap.add_argument("--kspace", default=None, metavar="PLANE", help="also draw the last snapshot's occupations in k space projected on PLANE (xy, xz, yz)")
    args = ap.parse_args(argv)
    try:
        times = [float(x) for x in args.times.split(",")] if args.times else None
    except ValueError:
        times = [float("nan")]
    if times is not None and not all(math.isfinite(x) for x in times):
        return _fail(ap.prog, "--times %r: give comma-separated finite numbers (fs)" % args.times)
    if not math.isfinite(args.smooth) or args.smooth < 0:
        return _fail(ap.prog, "--smooth %r: give a finite number of bins >= 0 (0: none)" % args.smooth)
    if args.kspace is not None:  # checked before any PNG is written: a bad plane leaves none behind
        try:
            plot.check_plane(args.kspace)
        except ValueError as e:
            return _fail(ap.prog, "--kspace: %s" % e)
    try:
        dyn = Dynamics(args.file)
        if dyn.nsnapshots == 0:
            return _fail(ap.prog, "%s holds no snapshot" % args.file)
        outdir = args.outdir or os.path.dirname(os.path.abspath(args.file))
        stem = os.path.splitext(os.path.basename(args.file))[0]
        p1 = os.path.join(outdir, stem + "_energy_distribution.png")
        p2 = os.path.join(outdir, stem + "_mean_energy.png")
        plot.energy_distribution(dyn, times=times, smooth_bins=args.smooth, path=p1)
        plot.mean_energy(dyn, path=p2)
        paths = [p1, p2]
        if args.kspace is not None:
            p3 = os.path.join(outdir, stem + "_kspace.png")
            plot.kspace(dyn, -1, args.kspace, path=p3)
            paths.append(p3)
    except (BTEFileError, ValueError, OSError) as e:
        return _fail(ap.prog, e)
    for p in paths:
        print(p)
    return 0


def plot_transport_main(argv=None):
    from . import plot
    from .outputs import HighField, Transport, kinds
    p = argparse.ArgumentParser(prog="plot_transport", description=TRANSPORT_DOC, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file")
    p.add_argument("-o", "--output", help="image to write (default: FILE with .png; a name without an "
                   "extension gets .png, and other extensions matplotlib knows, such as .pdf or .svg, "
                   "choose the format; the rates plot is OUTPUT_rates.EXT, the velocity-field plot "
                   "OUTPUT_velocity.EXT when both groups are present)")
    p.add_argument("--component", default="trace", choices=["trace", "xx", "yy", "zz", "xy", "xz", "yz"],
                   help="mobility component to plot (default: trace/3, trace/2 in 2D)")
    a = p.parse_args(argv)
    base = a.file[:-3] if a.file.endswith(".h5") else a.file
    if a.output:  # the name written is the name printed: matplotlib adds .png to a name without an extension
        stem, ext = os.path.splitext(a.output)
        if not ext:
            a.output, ext = a.output + ".png", ".png"
    else:
        stem, ext = base, ".png"
    try:
        groups = [k for k in kinds(a.file) if k in ("transport", "highfield")]
        if not groups:
            return _fail(p.prog, "%s has neither /transport nor /highfield" % a.file)
        for gname in groups:
            out = stem + ext
            if len(groups) == 2 and gname == "highfield":
                out = stem + "_velocity" + ext
            if gname == "transport":
                tr = Transport(a.file)
                plot.mobility(tr, a.component, path=out)
                if tr.scattering_rate is not None:  # each state's rate against its energy
                    print("wrote %s" % out)
                    out = stem + "_rates" + ext
                    plot.scattering_rates(tr, path=out)
            else:
                plot.velocity_field(HighField(a.file), path=out)
            print("wrote %s" % out)
    except (BTEFileError, ValueError, OSError) as e:
        return _fail(p.prog, e)
    return 0
