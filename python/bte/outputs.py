"""The output files of bte dynamics, bte transport and bte highfield (docs/format.md "Dynamics
output", docs/transport.md "Output files"), each with its k grid (/grid) and diagnostics."""
import numbers
import re

import numpy as np

from ._h5 import BTEFileError, attr, check_number_type, check_units, complete_flag, dataset, group, number, open_file
from .lattice import Lattice

E_CHARGE = 1.602176634e-19  # C
PUMP_KEYS = ("density", "e0_edge", "smear", "time", "fwhm")  # /dynamics pump_<key> attributes


def _lattice(f, nk=None, dim=3, what="nk"):
    """The file's /grid, or (files written before outputs carried it) the sizes alone; nk (the
    output's own record of the grid's sizes, where it has one) and dim must agree with /grid."""
    if "grid" in f:
        L = Lattice.from_group(f["grid"])
        if nk is not None and np.ravel(nk).tolist() != L.nk.tolist():  # tolist: Python ints (numpy 2 prints np.int64(4))
            raise BTEFileError("%s: %s %s differs from /grid/nk %s" % (f.filename, what, np.ravel(nk).tolist(), L.nk.tolist()))
        if dim != L.dim:
            raise BTEFileError("%s: the output's dimension %s differs from /grid dim %s" % (f.filename, dim, L.dim))
        return L
    if nk is None:
        return None
    try:
        return Lattice(nk, dim=dim, source=f.filename)
    except ValueError as e:
        raise BTEFileError(str(e)) from None


def _complete(f, whole):
    """The root attribute complete: True once bte closed the file, False while a run writes it or
    after it was stopped; None for files written before outputs carried it. A file written whole
    (transport, highfield) that is not complete is refused: it was not written to the end."""
    c = complete_flag(f)
    if c is None:
        return None
    if whole and not c:
        raise BTEFileError("%s: complete = 0: the file was not written to the end" % f.filename)
    return c


def _provenance(f):
    """The root attributes creator, created, source and table_source (docs/format.md, "Output files");
    those absent (older files) are left out."""
    return {k: attr(f, k) for k in ("creator", "created", "source", "table_source") if k in f.attrs}


# the units of the /diagnostics attributes that have one other than "1" (docs/diagnostics.md)
DIAGNOSTICS_UNITS = {"temperature": "K", "relaxation_temperature": "K", "edge_width": "eV",
                     "thermal_speed": "cm/s", "zero_field_velocity": "cm/s"}


def _diagnostics(f):
    """The /diagnostics group's attributes as a dict (docs/diagnostics.md); {} if absent. The units
    of those with one are checked (a plot draws the relaxation temperature as kelvin)."""
    if "diagnostics" not in f:
        return {}
    g = f["diagnostics"]
    for name, u in DIAGNOSTICS_UNITS.items():
        if name in g.attrs:
            check_units(g, name + "_units", u, "/diagnostics " + name)
    return {k: attr(g, k) for k in g.attrs}


class Dynamics:
    """A bte dynamics output (group /dynamics, format "bte-dynamics" version 1).

    Series over the nt complete snapshots (units in self.units):
        time (fs), step, carriers (1/cell), carrier_density (cm^-3; cm^-2 in 2D), mean_energy (eV, on
        the table's energy zero), drift_velocity (cm/s), velocity (nt, 3; cm/s),
        population (nt, nE; 1/(eV cell)) on energy_grid (nE; eV, bin centres; bin_width eV)
    Per state (N): state_energy (eV), state_kindex, state_band.
    Run: source, carrier_type ("electrons"/"holes"), init, drift_form, temperature (K), efield
        (3; V/cm), efield_profile ("constant", "step", "pulse") with efield_time, efield_fwhm (fs;
        None where they do not apply), pump (dict of density, e0_edge, smear, time, fwhm, or None),
        band_edge (eV), cell_volume (Angstrom^3; Angstrom^2 in 2D), dim, spin_degeneracy,
        output_interval (fs); the collision operator's smearing (eV), delta ("perturbo" or
        "balanced"), table_source, table_channels, table_checksum (None in files written before
        bte recorded them).
    lattice (Lattice), diagnostics (dict), cost (dict or None), reference_error (dict of the
    [nc] arrays of /dynamics/reference_error and its attributes, or None; a NaN in one is refused),
    provenance (dict: creator, created, source), complete (True once the run that last wrote it
    ended; False while a run writes it or after one was stopped, its snapshots still valid; None
    for older files).
    occupations(i): f of every state at snapshot i (read on demand; all with i=None; IndexError
    outside the snapshots). units: the unit of each attribute (pump's: a dict by key).
    """

    def __init__(self, path):
        with open_file(path) as f:
            self.path = f.filename
            g = group(f, "dynamics", "a bte dynamics output")
            fmt = attr(g, "format")
            if fmt != "bte-dynamics":
                raise BTEFileError("%s: /dynamics format = %r, expected 'bte-dynamics'" % (self.path, fmt))
            if attr(g, "version") != 1:
                raise BTEFileError("%s: /dynamics version %s is not supported (this reader knows 1)" % (self.path, attr(g, "version")))
            self.dim = _dim(f, g, "dim")
            two = self.dim == 2
            self.time = dataset(g, "time", units="fs", ndim=1)
            nt = len(self.time)
            self.nsnapshots = nt
            self.step = dataset(g, "step", dtype=int, rows=nt)
            self.carriers = dataset(g, "carriers", units="1/cell", rows=nt)
            self.carrier_density = dataset(g, "carrier_density", units="cm^-2" if two else "cm^-3", rows=nt)
            self.mean_energy = dataset(g, "mean_energy", units="eV", rows=nt)
            self.drift_velocity = dataset(g, "drift_velocity", units="cm/s", rows=nt)
            self.velocity = dataset(g, "velocity", units="cm/s", rows=nt, ndim=2, shape=(nt, 3))
            self.population = dataset(g, "population", units="1/(eV cell)", rows=nt, ndim=2)
            self.energy_grid = dataset(g, "energy_grid", units="eV", ndim=1)
            self.bin_width = number(g["energy_grid"], "bin_width", positive=True)
            check_units(g["energy_grid"], "bin_width_units", "eV", "/dynamics/energy_grid bin_width")
            self.state_energy = dataset(g, "state_energy", units="eV", ndim=1)
            self.state_kindex = dataset(g, "state_kindex", dtype=int, ndim=1)
            self.state_band = dataset(g, "state_band", dtype=int, ndim=1)
            # every attribute with a unit has a <name>_units sibling (docs/format.md); the pump's
            # and the field profile's only where the run had them
            for name, u in self._attribute_units(two).items():
                check_units(g, name + "_units", u, "/dynamics " + name)
            self.source = attr(g, "source", "")
            self.carrier_type = attr(g, "carriers", "")
            self.init = attr(g, "init", "")
            self.drift_form = attr(g, "drift_form", "")
            # the collision operator of the run (older files: None)
            self.smearing = number(g, "smearing", positive=True)
            self.delta = attr(g, "delta", None)
            self.table_source = attr(g, "table_source", None)
            self.table_channels = number(g, "table_channels", integer=True)
            self.table_checksum = attr(g, "table_checksum", None)
            for name, val, known in (("delta", self.delta, ("perturbo", "balanced", None)),
                                     ("carriers", self.carrier_type, ("electrons", "holes", "")),
                                     ("efield_profile", attr(g, "efield_profile", "constant"), ("constant", "step", "pulse"))):
                if val not in known:
                    raise BTEFileError("%s: /dynamics %s = %r, expected %s" % (self.path, name, val, " or ".join(k for k in known if k)))
            self.temperature = number(g, "temperature", required=True, positive=True)
            self.efield = _vector3(g, "efield")
            # the field's time profile and the pump (older files: constant, none)
            self.efield_profile = attr(g, "efield_profile", "constant")
            self.efield_time = number(g, "efield_time")
            self.efield_fwhm = number(g, "efield_fwhm")
            self.pump = {k: number(g, "pump_" + k) for k in PUMP_KEYS} if "pump_density" in g.attrs else None
            self.band_edge = number(g, "band_edge", required=True)
            self.cell_volume = number(g, "cell_volume", positive=True)
            self.spin_degeneracy = number(g, "spin_degeneracy", required=True, integer=True, choices=(1, 2))
            self.output_interval = number(g, "output_interval")
            nk = attr(g, "nk")
            self.lattice = _lattice(f, nk, self.dim, what="/dynamics nk")
            if self.lattice is None:
                raise BTEFileError("%s: /dynamics has neither /grid nor an nk attribute" % self.path)
            if len(self.state_kindex) and (self.state_kindex.min() < 0 or self.state_kindex.max() >= self.lattice.nkpoints):
                raise BTEFileError("%s: /dynamics/state_kindex outside the %s grid" % (self.path, "x".join(map(str, self.lattice.nk))))
            N = len(self.state_energy)
            if len(self.state_kindex) != N or len(self.state_band) != N:
                raise BTEFileError("%s: state_energy, state_kindex and state_band differ in length" % self.path)
            nstates = number(g, "nstates", integer=True)
            if nstates is not None and nstates != N:
                raise BTEFileError("%s: /dynamics nstates = %d, but state_energy holds %d states" % (self.path, nstates, N))
            occ = g["occupations"] if "occupations" in g else None
            if occ is None or not hasattr(occ, "ndim") or occ.ndim != 2 or occ.shape[1] != N or occ.shape[0] < nt:
                raise BTEFileError("%s: /dynamics/occupations is missing or not [%d][%d]" % (self.path, nt, N))
            if occ.dtype.kind not in "fiu":
                raise BTEFileError("%s: /dynamics/occupations holds %s values, expected numbers" % (self.path, occ.dtype))
            check_number_type(occ.id.get_type(), False, "%s: dataset /dynamics/occupations" % self.path, real=True)
            if self.population.shape[1] != len(self.energy_grid):
                raise BTEFileError("%s: /dynamics/population has %d bins, energy_grid %d" % (self.path, self.population.shape[1], len(self.energy_grid)))
            self.diagnostics = _diagnostics(f)
            self.complete = _complete(f, whole=False)
            self.provenance = _provenance(f)
            self.cost = None
            if "cost" in g:
                c = g["cost"]
                for k in c.attrs:  # the wall times in seconds
                    if k.startswith("wall_time") and not k.endswith("_units"):
                        check_units(c, k + "_units", "s", "/dynamics/cost " + k)
                self.cost = {k: attr(c, k) for k in c.attrs}
            self.reference_error = None
            if "reference_error" in g:
                # each dataset [nc] checked as every other: finite (bte never writes NaN: one comes from
                # a damaged reference), its units those of docs/format.md
                r = group(g, "reference_error", "a bte dynamics output")
                ru = self._reference_error_units(two)
                self.reference_error = {k: dataset(r, k, units=ru.get(k), ndim=1) for k in r}
                self.reference_error.update({k: attr(r, k) for k in r.attrs})
        au = self._attribute_units(two)
        self.units = {"time": "fs", "carriers": "1/cell", "carrier_density": "cm^-2" if two else "cm^-3",
                      "mean_energy": "eV", "drift_velocity": "cm/s", "velocity": "cm/s", "population": "1/(eV cell)",
                      "energy_grid": "eV", "bin_width": "eV", "state_energy": "eV", "temperature": "K", "smearing": "eV",
                      "efield": "V/cm", "efield_time": "fs", "efield_fwhm": "fs", "band_edge": "eV",
                      "cell_volume": au["cell_volume"], "output_interval": "fs", "occupations": "",
                      "pump": {k: au["pump_" + k] for k in PUMP_KEYS}, "reference_error": self._reference_error_units(two)}

    @staticmethod
    def _reference_error_units(two):
        """The unit of each /dynamics/reference_error dataset (docs/format.md, docs/dynamics.md)."""
        return {"time": "fs", "f_max": "", "f_l2": "", "f_l2_relative": "", "carriers": "1/cell",
                "carrier_density": "cm^-2" if two else "cm^-3", "mean_energy": "eV", "drift_velocity": "cm/s",
                "population_max": "1/(eV cell)"}

    @staticmethod
    def _attribute_units(two):
        """The unit of each /dynamics attribute that has one (its <name>_units sibling)."""
        u = {"temperature": "K", "efield": "V/cm", "efield_time": "fs", "efield_fwhm": "fs", "band_edge": "eV",
             "cell_volume": "Angstrom^2" if two else "Angstrom^3", "output_interval": "fs", "smearing": "eV"}
        u.update(("pump_" + k, v) for k, v in zip(PUMP_KEYS, ("cm^-2" if two else "cm^-3", "eV", "eV", "fs", "fs")))
        return u

    @property
    def nstates(self):
        return len(self.state_energy)

    def occupations(self, i=None):
        """Occupations f of every state at snapshot i (negative counts from the end), or (nt, N) for
        i=None; read from the file on each call."""
        nt = self.nsnapshots
        if i is not None:
            if isinstance(i, bool) or not isinstance(i, numbers.Integral):
                raise TypeError("snapshot %r: give an integer index (snapshot(t) finds the one nearest a time)" % (i,))
            i = int(i)
            if not -nt <= i < nt:
                raise IndexError("%s: snapshot %d outside the %d snapshots" % (self.path, i, nt))
        with open_file(self.path) as f:
            d = f["dynamics/occupations"]
            a = np.asarray(d[:nt] if i is None else d[i % nt], dtype=float)
        if not np.all(np.isfinite(a)):
            raise BTEFileError("%s: /dynamics/occupations holds a non-finite value%s" % (self.path, "" if i is None else " in snapshot %d" % i))
        return a

    def snapshot(self, t):
        """Index of the snapshot nearest time t (fs)."""
        t = _finite(t, "time")
        if self.nsnapshots == 0:
            raise ValueError("%s holds no snapshot" % self.path)
        return int(np.argmin(np.abs(self.time - t)))

    def count_carriers(self, f):
        """Carriers per unit cell of occupations f: s/Nk sum_i f_i (what /dynamics/carriers holds)."""
        f = _occupations(f, self.nstates)
        return self.spin_degeneracy * float(np.sum(f)) / self.lattice.nkpoints

    @property
    def energy_above_edge(self):
        """Mean energy above the band edge, eV (nt)."""
        return self.mean_energy - self.band_edge

    def kpoints(self, cartesian=False, centered=False, nearest=False):
        """k point of each state: crystal coordinates, or Cartesian (1/Angstrom) with cartesian=True;
        centered (in [-1/2, 1/2)), nearest (the image nearest Gamma): as in Lattice.crystal."""
        return self.lattice.kpoints(self.state_kindex, cartesian=cartesian, centered=centered, nearest=nearest)

    def __repr__(self):
        return "Dynamics(%r: %d snapshots, t = %g..%g fs, %d states, %s)" % (
            self.path, self.nsnapshots, self.time[0] if self.nsnapshots else 0, self.time[-1] if self.nsnapshots else 0, self.nstates, self.lattice)


class Transport:
    """A bte transport output (group /transport): one row per configuration (temperature, density).

    Attributes (units in self.units):
        temperature (n; K), chemical_potential (n; eV), carrier_density (n; cm^-3, cm^-2 in 2D),
        conductivity (n, 3, 3; S/m, S in 2D; row a current, column b field), mobility (n, 3, 3;
        cm^2/(V s)), iterations (n, 3), residual (n, 3), operator_applies (n), converged (n, bool);
        edge_share (n: the conducting carriers' share within 3 kT of the window's top) and
        thermal_states (n: the states they sit on in effect; below 100 the grid is too coarse),
        None in files written before bte had them;
        scattering_rate (n, N; 1/fs: each state's Gamma_i = -diag J(f0), 2 Im Sigma / hbar) with
        state_energy (N; eV), state_kindex, state_band (N), None in files written before bte had them;
        method, ksp_type, model (str), dim, spin_degeneracy, num_states, k_grid (3 ints), smearing
        (eV), ita_tol, delta (str; None in older files), fixed ("carrier_density" or
        "chemical_potential": the one the run held fixed; older files: carrier_density); lattice
        (Lattice), diagnostics (dict), provenance (dict: creator, created, source, table_source).
        A file that says it is incomplete (complete = 0) is refused.
    """

    def __init__(self, path):
        with open_file(path) as f:
            self.path = f.filename
            g = group(f, "transport", "a bte transport output")
            self.complete = _complete(f, whole=True)
            self.provenance = _provenance(f)
            self.dim = _dim(f, g, "dimension")
            two = self.dim == 2
            self.temperature = dataset(g, "temperature", units="K", ndim=1)
            n = len(self.temperature)
            self.chemical_potential = dataset(g, "chemical_potential", units="eV", rows=n)
            self.carrier_density = dataset(g, "carrier_density", units="cm^-2" if two else "cm^-3", rows=n)
            self.conductivity = dataset(g, "conductivity", units="S" if two else "S/m", rows=n, ndim=3)
            self.mobility = dataset(g, "mobility", units="cm^2/(V s)", rows=n, ndim=3)
            self.iterations = dataset(g, "iterations", dtype=int, rows=n)
            self.residual = dataset(g, "residual", units="1", rows=n)
            if np.any(self.temperature <= 0) or np.any(self.carrier_density <= 0):
                raise BTEFileError("%s: /transport temperature or carrier_density is not > 0" % self.path)
            self.operator_applies = dataset(g, "operator_applies", dtype=int, rows=n)
            # per configuration, what the grid resolves (None in files written before bte had them)
            self.edge_share = dataset(g, "edge_share", units="1", rows=n, required=False)
            self.thermal_states = dataset(g, "thermal_states", units="1", rows=n, required=False)
            # per state (files from before they were written have none)
            self.state_energy = dataset(g, "state_energy", units="eV", ndim=1, required=False)
            self.state_kindex = dataset(g, "state_kindex", dtype=int, ndim=1, required=False)
            self.state_band = dataset(g, "state_band", dtype=int, ndim=1, required=False)
            self.scattering_rate = dataset(g, "scattering_rate", units="1/fs", ndim=2, rows=n, required=False)
            if self.scattering_rate is not None:
                N = None if self.state_energy is None else len(self.state_energy)
                if N is None or self.scattering_rate.shape != (n, N) or np.any(self.scattering_rate < 0):
                    raise BTEFileError("%s: /transport scattering_rate is not [n][N] of rates >= 0 beside state_energy [N]" % self.path)
            self.converged = dataset(g, "converged", dtype=int, rows=n).astype(bool)
            if self.mobility.shape[1:] != (3, 3) or self.conductivity.shape[1:] != (3, 3):
                raise BTEFileError("%s: /transport mobility or conductivity is not [n][3][3]" % self.path)
            self.method = attr(g, "method", "")
            self.ksp_type = attr(g, "ksp_type", "")
            self.model = attr(g, "model", "")
            self.spin_degeneracy = number(g, "spin_degeneracy", integer=True, choices=(1, 2))
            self.num_states = number(g, "num_states", integer=True)
            self.k_grid = _parse_grid(g)
            self.smearing = number(g, "smearing_eV", positive=True)
            check_units(g, "smearing_eV_units", "eV", "/transport smearing_eV")
            self.ita_tol = number(g, "ita_tol")
            self.delta = attr(g, "delta", None)
            # which of density and chemical potential the run held fixed (older files: density)
            self.fixed = attr(g, "fixed", "carrier_density")
            if self.fixed not in ("carrier_density", "chemical_potential"):
                raise BTEFileError("%s: /transport fixed = %r: expected carrier_density or chemical_potential" % (self.path, self.fixed))
            self.lattice = _lattice(f, self.k_grid, self.dim, what="/transport k_grid")
            self.diagnostics = _diagnostics(f)
        self.units = {"temperature": "K", "chemical_potential": "eV", "carrier_density": "cm^-2" if two else "cm^-3",
                      "conductivity": "S" if two else "S/m", "mobility": "cm^2/(V s)", "smearing": "eV",
                      "residual": "1", "iterations": "1", "operator_applies": "1", "converged": "1",
                      "scattering_rate": "1/fs", "state_energy": "eV", "edge_share": "1", "thermal_states": "1"}

    def __len__(self):
        return len(self.temperature)

    def component(self, which="trace", tensor=None):
        """One component of the mobility (or of tensor, (n, 3, 3)) per configuration: "xx", "xy", ...,
        or "trace" (trace/3; in 2D (xx + yy)/2)."""
        t = self.mobility if tensor is None else np.asarray(tensor)
        if t.ndim != 3 or t.shape[1:] != (3, 3):
            raise ValueError("tensor of shape %s: give (n, 3, 3)" % (t.shape,))
        if not isinstance(which, str):
            raise ValueError("component %r: give trace or two of x, y, z (e.g. xx)" % (which,))
        if which == "trace":
            return (t[:, 0, 0] + t[:, 1, 1]) / 2.0 if self.dim == 2 else (t[:, 0, 0] + t[:, 1, 1] + t[:, 2, 2]) / 3.0
        if len(which) != 2 or which[0] not in "xyz" or which[1] not in "xyz":
            raise ValueError("component %r: give trace or two of x, y, z (e.g. xx)" % which)
        return t[:, "xyz".index(which[0]), "xyz".index(which[1])]

    def mobility_from_conductivity(self):
        """sigma / (e n) in cm^2/(V s) from the stored conductivity and carrier density (an identity
        the stored mobility satisfies)."""
        # 3D: S/m / (C * cm^-3 * 1e6 m^-3/cm^-3) = m^2/(V s) = 1e4 cm^2/(V s); 2D: S / (C * cm^-2) = cm^2/(V s)
        scale = 1.0 if self.dim == 2 else 1e4 / 1e6
        return self.conductivity * scale / (E_CHARGE * self.carrier_density)[:, None, None]

    def __repr__(self):
        return "Transport(%r: %d configurations, method %s, %s)" % (self.path, len(self), self.method, self.lattice)


class HighField:
    """A bte highfield output (group /highfield): one row per field strength.

    Attributes (units in self.units):
        field (nE; V/cm), field_direction (3; unit vector, Cartesian), drift_velocity (nE; cm/s),
        velocity (nE, 3; cm/s), mean_energy (nE; eV above the lowest state), valley_occupation
        (nE, nv; fraction), valley_label (nv; str), valley_energy (nv; eV above the lowest state),
        band_occupation (nE, nbands; fraction), residual, number_error, edge_occupation (nE),
        number_source (nE; 1/fs), iterations, operator_applies (nE), converged, used_ptc (nE, bool);
        method, model (str), temperature (K), carrier_density (cm^-3, cm^-2 in 2D), chemical_potential
        (eV), dim, k_grid; drift_form, delta (str), smearing (eV), spin_degeneracy (None in files
        written before bte recorded them); lattice (Lattice), diagnostics (dict), provenance (dict:
        creator, created, source, table_source). A file that says it is incomplete (complete = 0)
        is refused.
    """

    def __init__(self, path):
        with open_file(path) as f:
            self.path = f.filename
            g = group(f, "highfield", "a bte highfield output")
            self.complete = _complete(f, whole=True)
            self.provenance = _provenance(f)
            self.dim = _dim(f, g, "dimension")
            two = self.dim == 2
            self.field = dataset(g, "field", units="V/cm", ndim=1)
            n = len(self.field)
            self.field_direction = dataset(g, "field_direction", units="1", ndim=1, shape=(3,))
            self.drift_velocity = dataset(g, "drift_velocity", units="cm/s", rows=n)
            self.velocity = dataset(g, "velocity", units="cm/s", rows=n, ndim=2, shape=(n, 3))
            self.mean_energy = dataset(g, "mean_energy", units="eV", rows=n)
            self.valley_occupation = dataset(g, "valley_occupation", units="1", rows=n, ndim=2)
            self.band_occupation = dataset(g, "band_occupation", units="1", rows=n, ndim=2)
            self.valley_energy = dataset(g, "valley_energy", units="eV", ndim=1)
            self.valley_label = dataset(g, "valley_label", dtype=str, required=False) or []
            self.valley_kpoint = dataset(g, "valley_kpoint", units="1", ndim=2, required=False)
            if self.valley_kpoint is not None and self.valley_kpoint.shape != (len(self.valley_energy), 3):
                raise BTEFileError("%s: /highfield valley_kpoint is not [nv][3] beside valley_energy [nv]" % self.path)
            nv = len(self.valley_energy)
            if self.valley_occupation.shape[1] != nv or (self.valley_label and len(self.valley_label) != nv):
                raise BTEFileError("%s: /highfield valley_occupation has %d valleys, valley_energy %d, valley_label %d" % (
                    self.path, self.valley_occupation.shape[1], nv, len(self.valley_label)))
            self.residual = dataset(g, "residual", units="1", rows=n)
            self.number_error = dataset(g, "number_error", units="1", rows=n)
            self.edge_occupation = dataset(g, "edge_occupation", units="1", rows=n, required=False)
            self.number_source = dataset(g, "number_source", units="1/fs", rows=n)
            self.iterations = dataset(g, "iterations", dtype=int, rows=n)
            self.operator_applies = dataset(g, "operator_applies", dtype=int, rows=n)
            self.converged = dataset(g, "converged", dtype=int, rows=n).astype(bool)
            self.used_ptc = dataset(g, "used_ptc", dtype=int, rows=n).astype(bool)
            check_units(g, "carrier_density_units", "cm^-2" if two else "cm^-3", "/highfield carrier_density")
            self.method = attr(g, "method", "")
            self.model = attr(g, "model", "")
            check_units(g, "temperature_K_units", "K", "/highfield temperature_K")
            check_units(g, "chemical_potential_eV_units", "eV", "/highfield chemical_potential_eV")
            self.temperature = number(g, "temperature_K", positive=True)
            self.carrier_density = number(g, "carrier_density", positive=True)
            self.chemical_potential = number(g, "chemical_potential_eV")
            # what else decides the result (None in files written before bte recorded them)
            self.drift_form = attr(g, "drift_form", None)
            self.delta = attr(g, "delta", None)
            self.smearing = number(g, "smearing_eV", positive=True, units="eV")
            self.spin_degeneracy = number(g, "spin_degeneracy", integer=True, choices=(1, 2))
            self.k_grid = _parse_grid(g)
            self.lattice = _lattice(f, self.k_grid, self.dim, what="/highfield k_grid")
            self.diagnostics = _diagnostics(f)
        self.units = {"field": "V/cm", "field_direction": "1", "drift_velocity": "cm/s", "velocity": "cm/s",
                      "mean_energy": "eV", "valley_occupation": "1", "band_occupation": "1", "valley_energy": "eV",
                      "number_source": "1/fs", "residual": "1", "number_error": "1", "edge_occupation": "1",
                      "iterations": "1", "operator_applies": "1", "converged": "1", "used_ptc": "1",
                      "temperature": "K", "carrier_density": "cm^-2" if two else "cm^-3", "chemical_potential": "eV"}

    def __len__(self):
        return len(self.field)

    def valley_kpoints(self, cartesian=False):
        """k point of one minimum of each valley kind (nv, 3), crystal coordinates, Cartesian
        (1/Angstrom) with cartesian=True: the file's valley_kpoint, exact; in files written before
        bte had it, from valley_label, rounded to 3 decimals there: "Gamma" is 0, a label with
        "k=(a,b,c)" ("k=(a,b,c) xN", "L k=(a,b,c) xN") gives (a, b, c)."""
        if self.valley_kpoint is not None:
            c = self.valley_kpoint
            return self.lattice.cartesian(c) if cartesian else c.copy()
        out = []
        for lbl in self.valley_label:
            if lbl.startswith("Gamma"):
                out.append([0.0, 0.0, 0.0])
                continue
            m = re.search(r"k=\(([^)]*)\)", lbl)  # "k=(a,b,c) x4", "L k=(a,b,c) x4", "... band 1"
            try:
                c = [float(x) for x in m.group(1).split(",")] if m else []
            except ValueError:
                c = []
            if len(c) != 3 or not np.all(np.isfinite(c)):
                raise BTEFileError("%s: valley label %r is neither Gamma nor k=(a,b,c)" % (self.path, lbl))
            out.append(c)
        c = np.array(out, dtype=float).reshape(-1, 3)
        return self.lattice.cartesian(c) if cartesian else c

    def __repr__(self):
        return "HighField(%r: %d fields, %g..%g V/cm, %s)" % (self.path, len(self), self.field[0] if len(self) else 0, self.field[-1] if len(self) else 0, self.lattice)


def _dim(f, g, name):
    """The output's dimension (attribute name of g; /grid's dim, else 3, when absent): 2 or 3."""
    d = number(g, name, integer=True, choices=(2, 3))
    if d is None and "grid" in f:
        d = number(f["grid"], "dim", integer=True, choices=(2, 3))
    return 3 if d is None else d


def _finite(x, what):
    """x as a finite float, or ValueError naming what it is."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError("%s %r: give a number" % (what, x)) from None
    if not np.isfinite(v):
        raise ValueError("%s %r: not a finite number" % (what, x))
    return v


def _occupations(f, n):
    """Occupations f as a float array of the n states, or ValueError."""
    a = np.asarray(f, dtype=float)
    if a.shape != (n,):
        raise ValueError("occupations of shape %s: there are %d states" % (a.shape, n))
    return a


def _vector3(g, name):
    """Attribute name of g as 3 finite floats (0 when absent), or BTEFileError."""
    v = attr(g, name)
    if v is None:
        return np.zeros(3)
    try:
        a = np.asarray(v, dtype=float).ravel()
    except (TypeError, ValueError):
        a = None
    if a is None or a.shape != (3,) or not np.all(np.isfinite(a)):
        raise BTEFileError("%s: attribute '%s' of %s is %r, expected 3 finite numbers" % (g.file.filename, name, g.name, v))
    return a


def _parse_grid(g):
    """The k_grid attribute of g, "8 x 8 x 8", as [8, 8, 8]; None when absent, BTEFileError when it
    is not three integers (it is checked against /grid: an unreadable one would skip that check)."""
    s = attr(g, "k_grid")
    if s is None:
        return None
    try:
        v = [int(x) for x in s.split("x")]
    except (ValueError, AttributeError):
        v = None
    if v is None or len(v) != 3:
        raise BTEFileError("%s: attribute 'k_grid' of %s is %r, expected three integers as \"N0 x N1 x N2\"" % (g.file.filename, g.name, s))
    return v


def kinds(path):
    """What a bte file holds: a list of "table", "dynamics", "transport", "highfield"."""
    with open_file(path) as f:
        out = []
        if attr(f, "format") == "bte-scattering-table":
            out.append("table")
        out += [k for k in ("dynamics", "transport", "highfield") if k in f]
        return out


def open(path):  # noqa: A001 (the package's entry point: bte.open)
    """Reads a bte file into a Table, Dynamics, Transport or HighField object, by what it holds."""
    from .table import Table
    k = kinds(path)
    if not k:
        raise BTEFileError("%s: neither a bte scattering table nor a dynamics, transport or highfield output" % path)
    return {"table": Table, "dynamics": Dynamics, "transport": Transport, "highfield": HighField}[k[0]](path)
