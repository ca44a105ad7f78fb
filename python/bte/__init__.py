"""bte: read, analyse and plot the files of bte, the electron-phonon Boltzmann transport solver.

    import bte
    run = bte.open("cooling.h5")          # Table, Dynamics, Transport or HighField, by content
    run.time, run.mean_energy             # fs, eV (every object's units: run.units)
    run.kpoints(cartesian=True)           # k of every state, 1/Angstrom
    bte.plot.energy_distribution(run, path="cooling.png")
    bte.Collision(bte.open("table.h5"), 300).apply(f)   # the collision integral in numpy
    import bte.petsc                      # with petsc4py: the collision Jacobian as a PETSc Mat

Units are bte's: eV, fs, K, Angstrom (k in 1/Angstrom), V/cm, cm/s, cm^2/(V s), cm^-3 (cm^-2 in
2D), S/m (S in 2D). Every object lists the unit of each attribute in its `units` dict; a file whose
`units` attributes say otherwise is refused (BTEFileError names the file and the dataset).
"""
from ._h5 import BTEFileError
from .lattice import Lattice
from .outputs import Dynamics, HighField, Transport, kinds, open
from .table import Channels, Table
from .collision import Collision
from . import plot

__version__ = "0.1.0"
__all__ = ["BTEFileError", "Channels", "Collision", "Dynamics", "HighField", "Lattice", "Table", "Transport",
           "kinds", "open", "plot", "__version__"]

