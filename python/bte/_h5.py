"""HDF5 access shared by the readers: opening with a clear error, strings whatever their storage,
and datasets checked against the units the format documents (docs/format.md, docs/transport.md)."""
import os

import h5py
import numpy as np


class BTEFileError(ValueError):
    """A file that is not what the reader expects; the message names the file and the problem."""


def text(x):
    """An HDF5 string (variable- or fixed-length, str, bytes or numpy bytes) as str."""
    if isinstance(x, (bytes, np.bytes_)):
        return x.decode("utf-8", "replace").rstrip("\0")
    if isinstance(x, np.ndarray) and x.shape == ():
        return text(x[()])
    return str(x)


# A dynamics file is read while bte still writes it (complete = 0), and the writer holds HDF5's
# file lock: a reader that asks for the lock is refused. h5py >= 3.5 opens without it where the
# HDF5 library can (1.10.7 and later 1.10 releases, 1.12.1 and later).
_HDF5 = tuple(h5py.version.hdf5_version_tuple[:3])
_NO_LOCKING = {"locking": False} if tuple(h5py.version.version_tuple[:2]) >= (3, 5) and (
    (1, 10, 7) <= _HDF5 < (1, 11) or _HDF5 >= (1, 12, 1)) else {}

# What h5py raises on a file whose metadata is damaged once it is open: a checksum or a header that
# does not read surfaces as KeyError ("Unable to open object"), RuntimeError ("Error iterating over
# attributes"), OSError ("Can't read data"), ValueError or TypeError (a datatype it cannot map).
_H5_ERRORS = (KeyError, RuntimeError, OSError, ValueError, TypeError)


class _Reading:
    """The open file as the body of a with statement; h5py's exceptions inside it (damage found
    while reading) become BTEFileError naming the file, and the file is closed either way."""

    def __init__(self, f, path):
        self.f, self.path = f, path

    def __enter__(self):
        return self.f

    def __exit__(self, etype, e, tb):
        try:
            self.f.close()
        except _H5_ERRORS:
            pass  # a damaged file may fail to close; the reading's own error (or none) is what counts
        if etype is not None and issubclass(etype, _H5_ERRORS) and not issubclass(etype, BTEFileError):
            raise BTEFileError("%s: damaged or unreadable (%s)" % (self.path, str(e).strip("'\"") or etype.__name__)) from None
        return False


def open_file(path):
    """h5py.File(path, 'r') for a with statement (without HDF5's file lock where h5py and HDF5 can:
    a file a running bte writes is read), or BTEFileError saying why it cannot be read; an h5py
    error raised while reading inside the with statement becomes BTEFileError "damaged or
    unreadable"."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise BTEFileError("%s: no such file" % path)
    if os.path.isdir(path):
        raise BTEFileError("%s: is a directory, not an HDF5 file" % path)
    try:
        try:
            return _Reading(h5py.File(path, "r", **_NO_LOCKING), path)
        except OSError as e:
            if not (_NO_LOCKING and "lock" in str(e).lower()):
                raise
        # open already in this process with the lock (h5py's default): HDF5 shares the open file
        # only with the same locking flags
        return _Reading(h5py.File(path, "r"), path)
    except OSError as e:
        if "lock" in str(e).lower():
            raise BTEFileError("%s: locked by the process writing it (%s; h5py %s, HDF5 %s%s): set "
                               "HDF5_USE_FILE_LOCKING=FALSE in the environment to read it"
                               % (path, e, h5py.version.version, h5py.version.hdf5_version,
                                  "" if _NO_LOCKING else ", which cannot open a file without the lock")) from None
        raise BTEFileError("%s: not a readable HDF5 file (%s)" % (path, e)) from None


def group(f, name, what):
    """The group /name of f, or BTEFileError naming the file and what it is not."""
    if name not in f or not isinstance(f[name], h5py.Group):
        raise BTEFileError("%s: no /%s group: not %s" % (f.filename, name, what))
    return f[name]


def attr(obj, name, default=None, required=False):
    """Attribute name of obj (strings as str, one-element arrays as scalars)."""
    if name not in obj.attrs:
        if required:
            raise BTEFileError("%s: attribute '%s' of %s is missing" % (obj.file.filename, name, obj.name))
        return default
    v = obj.attrs[name]
    if isinstance(v, (bytes, np.bytes_, str)):
        return text(v)
    if isinstance(v, np.ndarray):
        if v.dtype.kind in "SOU":
            return [text(x) for x in v.ravel()] if v.size != 1 else text(v.ravel()[0])
        return v.ravel()[0].item() if v.size == 1 else v
    return v.item() if hasattr(v, "item") else v


def number(obj, name, default=None, required=False, integer=False, choices=None, positive=False):
    """Numeric attribute name of obj as a Python int or float, or BTEFileError naming the file, the
    attribute and the value when it is text, an array, not finite, not an integer (integer=True), not
    one of choices or not > 0 (positive=True). default (None) when absent and not required."""
    v = attr(obj, name, required=required)
    if v is None:
        return default
    where = "%s: attribute '%s' of %s" % (obj.file.filename, name, obj.name)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise BTEFileError("%s is %r, expected a number" % (where, v))
    if not np.isfinite(v):
        raise BTEFileError("%s is %r: not a finite number" % (where, v))
    if integer:
        if v != int(v):
            raise BTEFileError("%s is %r, expected an integer" % (where, v))
        v = int(v)
    if choices is not None and v not in choices:
        raise BTEFileError("%s is %r, expected %s" % (where, v, " or ".join(map(str, choices))))
    if positive and not v > 0:
        raise BTEFileError("%s is %r, expected > 0" % (where, v))
    return v


def complete_flag(f):
    """The root attribute complete: 1 (True) once bte closed the file, 0 (False) while a writer
    holds it or after one stopped; None when absent. Any other value is refused."""
    if "complete" not in f.attrs:
        return None
    c = attr(f, "complete")
    if isinstance(c, bool) or not isinstance(c, (int, float)) or c not in (0, 1):
        raise BTEFileError("%s: root attribute complete = %r, expected 1 (written to the end) or 0" % (f.filename, c))
    return c == 1


def check_units(obj, uname, expect, what):
    """If obj has the string attribute uname, it must say expect (a list: one of them)."""
    if uname not in obj.attrs:
        return None
    got = text(obj.attrs[uname])
    allowed = expect if isinstance(expect, (list, tuple)) else [expect]
    if got not in allowed:
        raise BTEFileError("%s: %s has %s = '%s', expected '%s'" % (obj.file.filename, what, uname, got, "' or '".join(allowed)))
    return got


def dataset(g, name, units=None, dtype=float, ndim=None, rows=None, required=True, shape=None, finite=True):
    """Dataset g/name as a numpy array of dtype; its `units` attribute, where present, must be units;
    ndim: the number of dimensions it must have; rows: keep only the first rows (a time series whose
    run was killed may have one row more than `time`); shape: the shape it must have after that
    (None in it: any length). Floats must be finite: bte never writes NaN or Inf (a run with a
    non-finite result stops without writing), so one in a file is damage, not data (finite=False:
    the caller checks them, e.g. against a range that also refuses NaN and Inf)."""
    path = "%s/%s" % (g.name.rstrip("/"), name)
    if name not in g:
        if not required:
            return None
        raise BTEFileError("%s: dataset %s is missing" % (g.file.filename, path))
    d = g[name]
    if not isinstance(d, h5py.Dataset):
        raise BTEFileError("%s: %s is not a dataset" % (g.file.filename, path))
    if ndim is not None and d.ndim != ndim:
        raise BTEFileError("%s: %s has %d dimensions, expected %d" % (g.file.filename, path, d.ndim, ndim))
    kind = d.dtype.kind
    if dtype is float and kind not in "fiu":
        raise BTEFileError("%s: %s holds %s values, expected numbers" % (g.file.filename, path, d.dtype))
    if dtype is int and kind not in "iu":
        raise BTEFileError("%s: %s holds %s values, expected integers" % (g.file.filename, path, d.dtype))
    if units is not None:
        check_units(d, "units", units, path)
    if rows is not None and d.ndim >= 1:
        if d.shape[0] < rows:
            raise BTEFileError("%s: %s has %d rows, expected at least %d" % (g.file.filename, path, d.shape[0], rows))
        a = d[:rows]
    else:
        a = d[()]
    if dtype is str:
        if d.dtype.kind not in "SOU":
            raise BTEFileError("%s: %s holds %s values, expected strings" % (g.file.filename, path, d.dtype))
        return [text(x) for x in np.ravel(a)]
    a = np.asarray(a, dtype=np.float64 if dtype is float else np.int64)
    if shape is not None and (a.ndim != len(shape) or any(n is not None and n != m for n, m in zip(shape, a.shape))):
        want = "[%s]" % "][".join("n" if n is None else str(n) for n in shape)
        raise BTEFileError("%s: %s has shape %s, expected %s" % (g.file.filename, path, list(a.shape), want))
    if finite and dtype is float and not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0]
        raise BTEFileError("%s: %s holds a non-finite value (%r at %s)" % (g.file.filename, path, a[tuple(bad)], list(bad)))
    return a
