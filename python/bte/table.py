"""The scattering table (docs/format.md): grid, states and, read on demand, the channels."""
import numpy as np

from ._h5 import INT32_MAX, BTEFileError, attr, complete_flag, dataset, group, number, open_file
from .lattice import Lattice


# The bounds bte's C reader enforces (include/bte/private/validate.h, docs/format.md "Validation")
TEMPERATURE_MIN, TEMPERATURE_MAX = 1e-2, 1e5  # K, root attribute temperature
SMEARING_MIN, SMEARING_MAX = 1e-6, 1.0        # eV, /channels attribute smearing
PHONON_FLOOR, PHONON_MAX = 1e-6, 10.0         # eV, /channels/phonon_energy (0 makes the Bose factor infinite)
G2_MAX = 1e6                                  # eV^2, /channels/g2 in [0, G2_MAX]
DELTAS = ("perturbo", "balanced")             # /channels attribute delta (absent: perturbo)


def _first_bad(ok):
    """Index of the first False in the boolean array ok, or None when all are True."""
    bad = np.flatnonzero(~ok)
    return int(bad[0]) if bad.size else None


class Channels:
    """The scattering channels of a table (read when first asked for: they can be large).

    Attributes: i, j (int, states joined, i < j: a channel stored with i > j is swapped on reading,
    as bte does; nswapped counts them), mode (int), phonon_energy (eV), g2 (eV^2, |g|^2, unit-cell
    normalised); units (dict). nstates, nmodes (where given): the table's, which i, j and mode must index. Every row is
    checked as bte's reader checks it (docs/format.md "Validation"): i, j in [0, nstates), i != j,
    mode in [0, nmodes), phonon_energy in [1e-6, 10] eV, g2 in [0, 1e6] eV^2 (both finite)."""

    def __init__(self, g, nstates=None, nmodes=None):
        fn = g.file.filename
        i = dataset(g, "i", dtype=int, ndim=1)
        j = dataset(g, "j", dtype=int, ndim=1)
        self.mode = dataset(g, "mode", dtype=int, ndim=1)
        self.phonon_energy = dataset(g, "phonon_energy", units="eV", ndim=1, finite=False)  # range-checked below
        self.g2 = dataset(g, "g2", units="eV^2", ndim=1, finite=False)
        n = len(i)
        for name, a in (("j", j), ("mode", self.mode), ("phonon_energy", self.phonon_energy), ("g2", self.g2)):
            if len(a) != n:
                raise BTEFileError("%s: /channels/%s has %d rows, /channels/i %d" % (fn, name, len(a), n))
        if nstates is not None:
            for name, a in (("i", i), ("j", j)):
                r = _first_bad((a >= 0) & (a < nstates))
                if r is not None:
                    raise BTEFileError("%s: /channels/%s[%d] = %d is not a state index: it must be in [0, N = %d) (N = length of /states/energy); the table is corrupt" % (fn, name, r, a[r], nstates))
        r = _first_bad(i != j)
        if r is not None:
            raise BTEFileError("%s: channel %d joins state %d to itself (/channels/i == /channels/j); every channel must join two different states" % (fn, r, i[r]))
        # the pair is unordered: a channel stored with i > j is the same channel (docs/format.md)
        self.i, self.j = np.minimum(i, j), np.maximum(i, j)
        self.nswapped = int(np.count_nonzero(i > j))
        if nmodes is not None:
            r = _first_bad((self.mode >= 0) & (self.mode < nmodes))
            if r is not None:
                raise BTEFileError("%s: /channels/mode[%d] = %d is not a phonon mode: it must be in [0, nmodes = %d) (/phonons attribute nmodes)" % (fn, r, self.mode[r], nmodes))
        hw = self.phonon_energy
        r = _first_bad((hw >= PHONON_FLOOR) & (hw <= PHONON_MAX))  # False for NaN
        if r is not None:
            raise BTEFileError("%s: /channels/phonon_energy[%d] = %g eV is outside [%g, %g] eV: a channel needs a finite phonon energy above the floor (at 0 the Bose factor is infinite); drop such channels from the table (bte reads every row as given)" % (fn, r, hw[r], PHONON_FLOOR, PHONON_MAX))
        r = _first_bad((self.g2 >= 0) & (self.g2 <= G2_MAX))
        if r is not None:
            raise BTEFileError("%s: /channels/g2[%d] = %g eV^2 is outside [0, %g] eV^2: |g|^2 must be finite, >= 0 and bounded (check its units: eV^2)" % (fn, r, self.g2[r], G2_MAX))
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
        g2_cutoff (eV^2), phonon_min (eV), energy_tolerance (in units of the smearing, "eta"): the
                    selection the table was made with (None when the file has none)
        delta       "perturbo" or "balanced": the discretised delta the table was made with
                    (/channels attribute delta; "perturbo" when absent)
        model       dict: the /model group's parameters {name: (value, unit)} and model_name
        channels    Channels, read on first access
    """

    FORMAT = "bte-scattering-table"

    def __init__(self, path):
        with open_file(path) as f:
            self.path = f.filename
            fmt = attr(f, "format")
            out = [k for k in ("dynamics", "transport", "highfield") if k in f] if fmt is None else []
            if out:  # one of bte's outputs given as a table
                raise BTEFileError("%s: the output of 'bte %s' (group /%s), not a bte scattering table: bte.open() reads it" % (self.path, out[0], out[0]))
            if fmt != self.FORMAT:
                raise BTEFileError("%s: not a bte scattering table (root attribute format = %r, expected %r)" % (self.path, fmt, self.FORMAT))
            ver = number(f, "format_version", required=True, integer=True)
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
            # warnings that hold under a field of at least their _min (V/cm; None when absent)
            for name in ("field_caveat", "field_caveat_2"):
                text, fmin = attr(f, name, ""), number(f, name + "_min", units="V/cm")
                if name in f.attrs and fmin is None:
                    raise BTEFileError("%s: root attribute %s without %s_min (V/cm)" % (self.path, name, name))
                if fmin is not None and fmin < 0:
                    raise BTEFileError("%s: root attribute %s_min = %g; expected a field >= 0 (V/cm)" % (self.path, name, fmin))
                setattr(self, name, text)
                setattr(self, name + "_min", fmin)
            self.temperature = number(f, "temperature", positive=True, units="K")
            if self.temperature is not None and not TEMPERATURE_MIN <= self.temperature <= TEMPERATURE_MAX:
                raise BTEFileError("%s: root attribute temperature = %g K is outside [%g, %g] K" % (self.path, self.temperature, TEMPERATURE_MIN, TEMPERATURE_MAX))
            self.lattice = Lattice.from_group(group(f, "grid", "a bte scattering table"))
            s = group(f, "states", "a bte scattering table")
            self.kindex = dataset(s, "kindex", dtype=int, ndim=1)
            self.band = dataset(s, "band", dtype=int, ndim=1)
            self.energy = dataset(s, "energy", units="eV", ndim=1)
            self.velocity = dataset(s, "velocity", units="Angstrom/fs", ndim=2)
            n = len(self.kindex)
            if len(self.band) != n or len(self.energy) != n or self.velocity.shape != (n, 3):
                raise BTEFileError("%s: /states datasets disagree in length (kindex %d, band %d, energy %d, velocity %s)" % (self.path, n, len(self.band), len(self.energy), self.velocity.shape))
            if n < 1:
                raise BTEFileError("%s: the table has no states (/states datasets are empty); widen the energy window when making it" % self.path)
            nk = self.lattice.nk
            r = _first_bad((self.kindex >= 0) & (self.kindex < self.lattice.nkpoints))
            if r is not None:
                raise BTEFileError("%s: /states/kindex[%d] = %d is outside the k grid [0, %d) of nk = %d x %d x %d (ik = (i0*nk1 + i1)*nk2 + i2); the table is corrupt" % (self.path, r, self.kindex[r], self.lattice.nkpoints, nk[0], nk[1], nk[2]))
            self.nbands = number(s, "nbands", required=True, integer=True, positive=True, maximum=INT32_MAX)
            r = _first_bad((self.band >= 0) & (self.band < self.nbands))
            if r is not None:
                raise BTEFileError("%s: /states/band[%d] = %d is outside [0, nbands = %d); the table is corrupt" % (self.path, r, self.band[r], self.nbands))
            self.spin_degeneracy = number(s, "spin_degeneracy", required=True, integer=True, choices=(1, 2))
            self.carrier = attr(s, "carrier", required=True)
            if self.carrier not in ("electrons", "holes"):
                raise BTEFileError("%s: /states carrier = %r, expected 'electrons' or 'holes'" % (self.path, self.carrier))
            self.window = (number(s, "window_min", required=True, units="eV"), number(s, "window_max", required=True, units="eV"))
            if not self.window[0] < self.window[1]:
                raise BTEFileError("%s: /states attributes window_min = %g, window_max = %g: expected window_min < window_max (eV)" % (self.path, self.window[0], self.window[1]))
            self.nmodes = number(group(f, "phonons", "a bte scattering table"), "nmodes", required=True, integer=True, positive=True, maximum=INT32_MAX)
            c = group(f, "channels", "a bte scattering table")
            self.smearing = number(c, "smearing", required=True, positive=True, units="eV")
            if not SMEARING_MIN <= self.smearing <= SMEARING_MAX:
                raise BTEFileError("%s: /channels attribute smearing = %g eV is outside [%g, %g] eV" % (self.path, self.smearing, SMEARING_MIN, SMEARING_MAX))
            # the selection the table was made with (None when absent), as bte's reader checks it
            self.g2_cutoff = number(c, "g2_cutoff", minimum=0, units="eV^2")
            self.phonon_min = number(c, "phonon_min", minimum=0, units="eV")
            self.energy_tolerance = number(c, "energy_tolerance", positive=True, units="eta")
            self.delta = attr(c, "delta", "perturbo")  # tables written before it: Perturbo's
            if not isinstance(self.delta, str) or self.delta not in DELTAS:
                raise BTEFileError("%s: /channels attribute delta = %s; expected perturbo or balanced" % (self.path, "'%s'" % self.delta if isinstance(self.delta, str) else repr(self.delta)))
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
                      "temperature": "K", "kindex": "", "band": "", "g2_cutoff": "eV^2", "phonon_min": "eV",
                      "energy_tolerance": "eta", "field_caveat_min": "V/cm", "field_caveat_2_min": "V/cm"}

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

    def kpoints(self, cartesian=False, centered=False, nearest=False):
        """k point of each state: crystal coordinates, or Cartesian (1/Angstrom) with cartesian=True;
        centered (in [-1/2, 1/2)), nearest (the image nearest Gamma): as in Lattice.crystal."""
        return self.lattice.kpoints(self.kindex, cartesian=cartesian, centered=centered, nearest=nearest)

    def carriers(self, f):
        """Carriers per unit cell of occupations f: s/Nk sum_i f_i."""
        f = np.asarray(f, dtype=float)
        if f.shape != (self.nstates,):
            raise ValueError("occupations of shape %s: the table has %d states" % (f.shape, self.nstates))
        return self.spin_degeneracy * float(np.sum(f)) / self.lattice.nkpoints

    def __repr__(self):
        return "Table(%r: %d states, %d channels, %s, %s)" % (self.path, self.nstates, self.num_channels, self.carrier, self.lattice)
