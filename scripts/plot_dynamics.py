#!/usr/bin/env python3
"""Plots of a bte dynamics output file (docs/dynamics.md), drawn by the bte Python package
(python/, docs/python.md): <outdir>/<stem>_energy_distribution.png and <stem>_mean_energy.png.

usage: plot_dynamics.py FILE.h5 [--outdir DIR] [--times t1,t2,...] [--smooth BINS] [--kspace PLANE]
"""
import os
import sys

# the package of this repository first, so the script and the package always match
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from bte.cli import plot_dynamics_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(plot_dynamics_main())
