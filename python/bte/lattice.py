"""The k grid: lattice vectors, reciprocal vectors and points per direction (the /grid group of a
table and of every output, docs/format.md), and the maps between the flat k index, the grid
coordinates (i0, i1, i2), crystal (fractional) coordinates and Cartesian k."""
import numpy as np

from ._h5 import BTEFileError, attr, check_units, dataset

TWO_PI = 2.0 * np.pi


class Lattice:
    """A uniform grid of the full Brillouin zone.

    Attributes:
        lattice     (3, 3) float, Angstrom: rows a1, a2, a3 (in 2D a3 is the out-of-plane unit normal)
        reciprocal  (3, 3) float, 1/Angstrom: rows b1, b2, b3, b_i . a_j = 2 pi delta_ij
        nk          (3,) int: points along b1, b2, b3 (nk[2] = 1 in 2D)
        dim         2 or 3
        volume      float: cell volume, Angstrom^3 (area, Angstrom^2, in 2D)
        units       dict: the unit of each attribute

    Point (i0, i1, i2), 0 <= i_a < nk[a], has the flat index ik = (i0 nk1 + i1) nk2 + i2 and sits at
    k = sum_a (i_a / nk_a) b_a: crystal coordinates c_a = i_a / nk_a, Cartesian k = c @ reciprocal.
    lattice and reciprocal are None for a file that holds only the grid's sizes (a dynamics output
    written before outputs carried /grid): crystal coordinates work, Cartesian ones raise ValueError.
    """

    def __init__(self, nk, lattice=None, reciprocal=None, dim=3, volume=None, source=""):
        name = source or "lattice"
        nk = np.asarray(nk)
        if nk.shape not in ((3,), (1, 3), (3, 1)) or nk.dtype.kind not in "iu":
            raise ValueError("%s: grid sizes nk = %s: give 3 integers" % (name, nk.tolist()))
        self.nk = nk.astype(np.int64).reshape(3)
        if np.any(self.nk < 1):
            raise ValueError("%s: grid sizes nk = %s must be >= 1" % (name, self.nk.tolist()))
        if dim not in (2, 3):
            raise ValueError("%s: dim = %r, expected 2 or 3" % (name, dim))
        self.dim = int(dim)
        self.source = source
        self.lattice = None if lattice is None else np.asarray(lattice, dtype=float)
        if self.lattice is not None and (self.lattice.shape != (3, 3) or not np.all(np.isfinite(self.lattice))
                                         or np.linalg.det(self.lattice) == 0):
            raise ValueError("%s: lattice must be 3 x 3, finite and not singular" % name)
        if reciprocal is None and self.lattice is not None:
            reciprocal = TWO_PI * np.linalg.inv(self.lattice).T
        self.reciprocal = None if reciprocal is None else np.asarray(reciprocal, dtype=float).reshape(3, 3)
        if volume is None and self.lattice is not None:
            volume = abs(np.linalg.det(self.lattice))
        self.volume = None if volume is None else float(volume)
        self.units = {"lattice": "Angstrom", "reciprocal": "1/Angstrom", "nk": "",
                      "volume": "Angstrom^2" if self.dim == 2 else "Angstrom^3"}

    @classmethod
    def from_group(cls, g):
        """Reads a /grid group (a table's or an output's); checks units and that the reciprocal
        vectors and the volume agree with the lattice (a lattice left in bohr would not)."""
        fn = g.file.filename
        A = dataset(g, "lattice", units="Angstrom", ndim=2)
        B = dataset(g, "reciprocal", units="1/Angstrom", ndim=2)
        nk = dataset(g, "nk", dtype=int, ndim=1)
        if A.shape != (3, 3) or B.shape != (3, 3) or nk.shape != (3,):
            raise BTEFileError("%s: /grid has lattice %s, reciprocal %s, nk %s: expected [3][3], [3][3], [3]" % (fn, A.shape, B.shape, nk.shape))
        dim = attr(g, "dim", required=True)
        if dim not in (2, 3):
            raise BTEFileError("%s: /grid dim = %s, expected 2 or 3" % (fn, dim))
        check_units(g, "volume_units", "Angstrom^2" if dim == 2 else "Angstrom^3", "/grid volume")
        for a in range(3):
            if nk[a] < 1:
                raise BTEFileError("%s: grid dimension /grid/nk[%d] = %d is less than 1; every direction needs at least one k point" % (fn, a, nk[a]))
            if nk[a] > 2 ** 31 - 1:
                raise BTEFileError("%s: grid dimension /grid/nk[%d] = %d is too large" % (fn, a, nk[a]))
        if dim == 2 and nk[2] != 1:
            raise BTEFileError("%s: a 2D grid (dim = 2) needs /grid/nk[2] = 1, got %d" % (fn, nk[2]))
        npts = float(nk[0]) * float(nk[1]) * float(nk[2])
        if npts > 2.0 ** 53:
            raise BTEFileError("%s: grid /grid/nk = %d x %d x %d has %.4g k points, more than 2^53 (about 9.0e15) that bte can count exactly; the file is corrupt or the grid too large" % (fn, nk[0], nk[1], nk[2], npts))
        vol = attr(g, "volume")
        if vol is not None:
            if isinstance(vol, (bool, np.bool_)) or not isinstance(vol, (int, float, np.integer, np.floating)):
                raise BTEFileError("%s: /grid attribute volume = %r; expected a number" % (fn, vol))
            if not (np.isfinite(vol) and vol > 0):
                raise BTEFileError("%s: /grid attribute volume = %g; expected a positive cell %s" % (fn, vol, "area (Angstrom^2)" if dim == 2 else "volume (Angstrom^3)"))
        if not np.all(np.isfinite(A)) or abs(np.linalg.det(A)) == 0:
            raise BTEFileError("%s: /grid/lattice is singular or not finite" % fn)
        if not np.allclose(B @ A.T, TWO_PI * np.eye(3), rtol=0, atol=1e-6 * TWO_PI):
            raise BTEFileError("%s: /grid/reciprocal does not satisfy b_i . a_j = 2 pi delta_ij with /grid/lattice" % fn)
        if vol is not None and abs(vol / abs(np.linalg.det(A)) - 1) > 1e-6:
            raise BTEFileError("%s: /grid volume %g differs from |det lattice| = %g" % (fn, vol, abs(np.linalg.det(A))))
        try:
            return cls(nk, A, B, dim, vol, source=fn)
        except ValueError as e:
            raise BTEFileError(str(e)) from None

    @property
    def nkpoints(self):
        """Number of points of the full grid, nk0 nk1 nk2."""
        return int(np.prod(self.nk))

    def __repr__(self):
        return "Lattice(dim=%d, nk=%s%s)" % (self.dim, self.nk.tolist(), "" if self.lattice is None else ", volume=%.6g %s" % (self.volume, self.units["volume"]))

    # ---- index maps ----
    def ijk(self, kindex):
        """Flat k index -> grid coordinates (..., 3) int; ValueError outside [0, nkpoints)."""
        k = _integers(kindex, "k index")
        if np.any(k < 0) or np.any(k >= self.nkpoints):
            raise ValueError("k index outside [0, %d) of the %s grid" % (self.nkpoints, "x".join(map(str, self.nk))))
        n1, n2 = self.nk[1], self.nk[2]
        return np.stack([k // (n1 * n2), (k // n2) % n1, k % n2], axis=-1)

    def kindex(self, ijk):
        """Grid coordinates (..., 3) -> flat k index; coordinates are taken modulo nk (periodic)."""
        c = np.mod(_integers(ijk, "grid coordinates", last=3), self.nk)
        return (c[..., 0] * self.nk[1] + c[..., 1]) * self.nk[2] + c[..., 2]

    # ---- coordinates ----
    def crystal(self, kindex, centered=False, nearest=False):
        """Flat k index -> crystal coordinates (..., 3), i_a / nk_a in [0, 1); centered: in [-1/2, 1/2)
        (the image nearest Gamma on a cell whose reciprocal vectors are orthogonal, not on a skewed
        one such as fcc); nearest: the image nearest Gamma (nearest_image)."""
        c = self.ijk(kindex) / self.nk
        if nearest:
            return self.nearest_image(c)
        if centered:
            c = c - np.floor(c + 0.5)
        return c

    def nearest_image(self, crystal):
        """Crystal coordinates (..., 3) -> those of the periodic image (c + n, n integer) with the
        smallest Cartesian |k|; of images equally near, the one in [-1/2, 1/2) where it is among them."""
        self._need_vectors()
        c = _points(crystal, "crystal coordinates")
        c = c - np.floor(c + 0.5)
        B = self.reciprocal
        best = c.copy()
        best2 = np.einsum("...i,...i->...", c @ B, c @ B)
        # an image nearer than the centred one has |k| <= r, the largest centred |k|, so crystal
        # coordinates (c + n)_a = k . a_a / 2 pi of at most r |a_a| / 2 pi: |n_a| <= that + 1/2
        A = TWO_PI * np.linalg.inv(B).T
        r = np.sqrt(best2.max()) if best2.size else 0.0
        m = np.ceil(r * np.linalg.norm(A, axis=1) / TWO_PI + 0.5).astype(int)
        if self.dim == 2:
            m[2] = 0  # b3 is normal to the plane: a shift along it only moves k away from it
        rng = [np.arange(-n, n + 1) for n in m]
        for n in np.stack(np.meshgrid(*rng, indexing="ij"), axis=-1).reshape(-1, 3):
            if not n.any():
                continue
            t = c + n
            k = t @ B
            k2 = np.einsum("...i,...i->...", k, k)
            closer = k2 < best2 * (1 - 1e-12)  # a tie keeps the centred image
            best = np.where(closer[..., None], t, best)
            best2 = np.where(closer, k2, best2)
        return best

    def _need_vectors(self):
        if self.reciprocal is None:
            raise ValueError("%s holds the grid's sizes but not its lattice vectors (no /grid group): "
                             "Cartesian k needs them; read them from the table (bte.Table(...).lattice)" % (self.source or "this file"))

    def cartesian(self, crystal):
        """Crystal coordinates (..., 3) -> Cartesian k (..., 3), 1/Angstrom."""
        self._need_vectors()
        return _points(crystal, "crystal coordinates") @ self.reciprocal

    def to_crystal(self, kcart):
        """Cartesian k (..., 3), 1/Angstrom -> crystal coordinates (inverse of cartesian())."""
        self._need_vectors()
        return _points(kcart, "Cartesian k") @ self.lattice.T / TWO_PI

    def kpoints(self, kindex, cartesian=False, centered=False, nearest=False):
        """k points of flat indices: crystal coordinates, or Cartesian (1/Angstrom) with cartesian=True;
        centered, nearest: as in crystal()."""
        c = self.crystal(kindex, centered=centered, nearest=nearest)
        return self.cartesian(c) if cartesian else c

    def nearest_kindex(self, crystal):
        """Crystal coordinates (..., 3) -> flat index of the nearest grid point (periodic)."""
        return self.kindex(np.rint(_points(crystal, "crystal coordinates") * self.nk).astype(np.int64))


def _integers(x, what, last=None):
    """x as an int64 array, or ValueError when it holds a non-integer (1.5 is not k index 1) or its
    last axis is not `last` long."""
    a = np.asarray(x)
    if a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)):
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise ValueError("%s %r: give integers" % (what, x))
    if last is not None and (a.ndim == 0 or a.shape[-1] != last):
        raise ValueError("%s of shape %s: give (..., %d)" % (what, a.shape, last))
    return a.astype(np.int64)


def _points(x, what):
    """x as a float array of shape (..., 3) with finite entries, or ValueError."""
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("%s %r: give numbers" % (what, x)) from None
    if a.ndim == 0 or a.shape[-1] != 3:
        raise ValueError("%s of shape %s: give (..., 3)" % (what, a.shape))
    if not np.all(np.isfinite(a)):
        raise ValueError("%s hold a non-finite value" % what)
    return a
