"""The scattering table (docs/format.md): grid, states and, read on demand, the channels."""
import numpy as np

from ._h5 import BTEFileError, attr, check_units, complete_flag, dataset, group, number, open_file
from .lattice import Lattice


class Channels:
    """The scattering channels of a table (read when first asked for: they can be large).

    Attributes: i, j (int, states joined, i < j), mode (int), phonon_energy (eV), g2 (eV^2, |g|^2,
    unit-cell normalised); smearing (eV), and units (dict). nstates, nmodes (where given): the
    table's, which i, j and mode must index (docs/format.md)."""

    def __init__(self, g, nstates=None, nmodes=None):
        self.i = dataset(g, "i", dtype=int, ndim=1)
        self.j = dataset(g, "j", dtype=int, ndim=1)
        self.mode = dataset(g, "mode", dtype=int, ndim=1)
        self.phonon_energy = dataset(g, "phonon_energy", units="eV", ndim=1)
        self.g2 = dataset(g, "g2", units="eV^2", ndim=1)
        n = len(self.i)
        for name in ("j", "mode", "phonon_energy", "g2"):
            if len(getattr(self, name)) != n:
                raise BTEFileError("%s: /channels/%s has %d rows, /channels/i %d" % (g.file.filename, name, len(getattr(self, name)), n))
        for name, top in (("i", nstates), ("j", nstates), ("mode", nmodes)):
            a = getattr(self, name)
            if top is not None and n and (a.min() < 0 or a.max() >= top):
                raise BTEFileError("%s: /channels/%s outside [0, %d)" % (g.file.filename, name, top))
        if n and np.any(self.i == self.j):
            raise BTEFileError("%s: /channels has a channel with i == j" % g.file.filename)
        if n and (self.phonon_energy.min() <= 0 or self.g2.min() < 0):
            raise BTEFileError("%s: /channels/phonon_energy not > 0 or /channels/g2 negative" % g.file.filename)
        self.units = {"i": "", "j": "", "mode": "", "phonon_energy": "eV", "g2": "eV^2", "smearing": "eV"}

    def __len__(self):
        return len(self.i)


class Table:
    """A bte scattering table (format "bte-scattering-table", version 1).

    Attributes (units in self.units):
        path, source, creator, created (str); temperature (K or None)
        lattice     Lattice: the k grid (lattice vectors, reciprocal vectors, nk)
        kindex      (N,) int: full-grid k index of each state
        band        (N,) int
        energy      (N,) float, eV
        velocity    (N, 3) float, Angstrom/fs (Cartesian)
        nbands, spin_degeneracy (int); carrier ("electrons" or "holes"); window (eV, eV)
        nmodes (int); smearing (eV); num_channels (int)
        model       dict: the /model group's parameters {name: (value, unit)} and model_name
        channels    Channels, read on first access
    """

    FORMAT = "bte-scattering-table"

    def __init__(self, path):
        with open_file(path) as f:
            self.path = f.filename
            fmt = attr(f, "format")
            if fmt != self.FORMAT:
                raise BTEFileError("%s: not a bte scattering table (root attribute format = %r, expected %r)" % (self.path, fmt, self.FORMAT))
            ver = attr(f, "format_version", required=True)
            if ver != 1:
                raise BTEFileError("%s: format_version %s is not supported (this reader knows version 1)" % (self.path, ver))
            c = complete_flag(f)
            if c is None:
                raise BTEFileError("%s: no 'complete' attribute: the table was not written to the end" % self.path)
            if not c:
                raise BTEFileError("%s: complete = 0: the table was not written to the end" % self.path)
            self.source = attr(f, "source", "")
            self.creator = attr(f, "creator", "")
            self.created = attr(f, "created", "")
            self.caveat = attr(f, "caveat", "")  # the model's warnings ("" when none)
            self.field_caveat = attr(f, "field_caveat", "")
            self.field_caveat_min = number(f, "field_caveat_min")  # V/cm, None when no field caveat
            check_units(f, "temperature_units", "K", "the root group's temperature")
            self.temperature = number(f, "temperature", positive=True)
            self.lattice = Lattice.from_group(group(f, "grid", "a bte scattering table"))
            s = group(f, "states", "a bte scattering table")
            self.kindex = dataset(s, "kindex", dtype=int, ndim=1)
            self.band = dataset(s, "band", dtype=int, ndim=1)
            self.energy = dataset(s, "energy", units="eV", ndim=1)
            self.velocity = dataset(s, "velocity", units="Angstrom/fs", ndim=2)
            n = len(self.kindex)
            if len(self.band) != n or len(self.energy) != n or self.velocity.shape != (n, 3):
                raise BTEFileError("%s: /states datasets disagree in length (kindex %d, band %d, energy %d, velocity %s)" % (self.path, n, len(self.band), len(self.energy), self.velocity.shape))
            if n and (self.kindex.min() < 0 or self.kindex.max() >= self.lattice.nkpoints):
                raise BTEFileError("%s: /states/kindex outside the %s grid" % (self.path, "x".join(map(str, self.lattice.nk))))
            self.nbands = number(s, "nbands", required=True, integer=True, positive=True)
            if n and (self.band.min() < 0 or self.band.max() >= self.nbands):
                raise BTEFileError("%s: /states/band outside [0, %d)" % (self.path, self.nbands))
            self.spin_degeneracy = number(s, "spin_degeneracy", required=True, integer=True, choices=(1, 2))
            self.carrier = attr(s, "carrier", required=True)
            if self.carrier not in ("electrons", "holes"):
                raise BTEFileError("%s: /states carrier = %r, expected 'electrons' or 'holes'" % (self.path, self.carrier))
            for u in ("window_min_units", "window_max_units"):
                check_units(s, u, "eV", "/states")
            self.window = (number(s, "window_min", required=True), number(s, "window_max", required=True))
            self.nmodes = number(group(f, "phonons", "a bte scattering table"), "nmodes", required=True, integer=True, positive=True)
            c = group(f, "channels", "a bte scattering table")
            check_units(c, "smearing_units", "eV", "/channels smearing")
            self.smearing = number(c, "smearing", required=True, positive=True)
            lens = {}
            for name in ("i", "j", "mode", "phonon_energy", "g2"):
                d = c.get(name)
                if d is None or not hasattr(d, "shape") or len(d.shape) != 1:
                    raise BTEFileError("%s: dataset /channels/%s is missing or not 1-D" % (self.path, name))
                lens[name] = d.shape[0]
            if len(set(lens.values())) != 1:
                raise BTEFileError("%s: /channels datasets disagree in length (%s)" % (self.path, ", ".join("%s %d" % kv for kv in lens.items())))
            self.num_channels = int(lens["i"])
            self.model = {}
            self.model_name = ""
            if "model" in f:
                m = f["model"]
                self.model_name = attr(m, "name", "")
                for k in m.attrs:
                    if k == "name" or k.endswith("_units"):
                        continue
                    v = attr(m, k)
                    if isinstance(v, (int, float)):
                        self.model[k] = (v, attr(m, k + "_units", ""))
        self._channels = None
        self.units = {"energy": "eV", "velocity": "Angstrom/fs", "window": "eV", "smearing": "eV",
                      "temperature": "K", "kindex": "", "band": ""}

    @property
    def nstates(self):
        return len(self.kindex)

    @property
    def channels(self):
        """The channels (read from the file on first access)."""
        if self._channels is None:
            with open_file(self.path) as f:
                self._channels = Channels(f["channels"], self.nstates, self.nmodes)
        return self._channels

    def kpoints(self, cartesian=False, centered=False):
        """k point of each state: crystal coordinates, or Cartesian (1/Angstrom) with cartesian=True."""
        return self.lattice.kpoints(self.kindex, cartesian=cartesian, centered=centered)

    def carriers(self, f):
        """Carriers per unit cell of occupations f: s/Nk sum_i f_i."""
        f = np.asarray(f, dtype=float)
        if f.shape != (self.nstates,):
            raise ValueError("occupations of shape %s: the table has %d states" % (f.shape, self.nstates))
        return self.spin_degeneracy * float(np.sum(f)) / self.lattice.nkpoints

    def __repr__(self):
        return "Table(%r: %d states, %d channels, %s, %s)" % (self.path, self.nstates, self.num_channels, self.carrier, self.lattice)
