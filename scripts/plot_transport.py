#!/usr/bin/env python3
"""Plot bte's steady-state transport results (docs/transport.md), drawn by the bte Python package
(python/, docs/python.md).

  plot_transport.py FILE.h5 [-o OUT.png] [--component xx|yy|zz|trace]

/transport: mobility versus temperature; /highfield: drift velocity (and valley occupations)
versus field. Run with the Python that scripts/find-python.sh prints (it has h5py and matplotlib).
"""
import os
import sys

# the package of this repository first, so the script and the package always match
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from bte.cli import plot_transport_main  # noqa: E402

if __name__ == "__main__":
    sys.exit(plot_transport_main())
