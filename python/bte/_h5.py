"""HDF5 access shared by the readers: opening with a clear error, strings whatever their storage,
and datasets checked against the units the format documents (docs/format.md, docs/transport.md)."""
import errno
import os
import re
import stat

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


# HDF5's own words when a lock is refused (H5FD_sec2_lock: "unable to lock file, errno = 11, error
# message = 'Resource temporarily unavailable'"; some releases say "flock") and when this process
# already has the file open with other locking flags; nothing else is a lock (a truncated file's
# "sblock->base_addr" is not).
_LOCK_HELD = re.compile(r"unable to f?lock file")
_LOCK_FLAGS = "file locking flag values don't match"

# HDF5's signature: at offset 0, or 512, 1024, 2048, ... (a user block before it)
_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _lock_refused(e):
    """True when the OSError e from h5py.File is HDF5 refusing its file lock (another process holds
    it): errno EAGAIN/EWOULDBLOCK or HDF5's "unable to lock file"."""
    return e.errno in (errno.EAGAIN, errno.EWOULDBLOCK) or bool(_LOCK_HELD.search(str(e).lower()))


def _special(mode):
    """What a file that is not regular is, in words."""
    for test, what in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "a special file"


def _has_signature(path, size):
    """Whether the file holds HDF5's signature where HDF5 looks for it (OSError if it cannot be read)."""
    with open(path, "rb") as fh:
        off = 0
        while off + len(_SIGNATURE) <= size:
            fh.seek(off)
            if fh.read(len(_SIGNATURE)) == _SIGNATURE:
                return True
            off = 512 if off == 0 else 2 * off
    return False


def open_file(path):
    """h5py.File(path, 'r') for a with statement (without HDF5's file lock where h5py and HDF5 can:
    a file a running bte writes is read), or BTEFileError saying why it cannot be read: missing, a
    directory, not a regular file (a FIFO or device, refused before HDF5 opens it: HDF5 would wait on
    it), locked, not HDF5 (no signature), or damaged or unreadable (HDF5's reason, e.g. a truncated
    file); an h5py error raised while reading inside the with statement becomes BTEFileError
    "damaged or unreadable"."""
    path = os.fspath(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise BTEFileError("%s: no such file" % path) from None
    except OSError as e:
        raise BTEFileError("%s: cannot be read (%s)" % (path, e.strerror or e)) from None
    if stat.S_ISDIR(st.st_mode):
        raise BTEFileError("%s: is a directory, not an HDF5 file" % path)
    if not stat.S_ISREG(st.st_mode):
        raise BTEFileError("%s: not a regular file (%s): bte files are regular HDF5 files" % (path, _special(st.st_mode)))
    try:
        try:
            return _Reading(h5py.File(path, "r", **_NO_LOCKING), path)
        except OSError as e:
            if not (_NO_LOCKING and _LOCK_FLAGS in str(e)):
                raise
        # open already in this process with the lock (h5py's default): HDF5 shares the open file
        # only with the same locking flags
        return _Reading(h5py.File(path, "r"), path)
    except OSError as e:
        reason = str(e).strip()
        if _lock_refused(e):
            raise BTEFileError("%s: locked by the process writing it (%s; h5py %s, HDF5 %s%s): set "
                               "HDF5_USE_FILE_LOCKING=FALSE in the environment to read it"
                               % (path, reason, h5py.version.version, h5py.version.hdf5_version,
                                  "" if _NO_LOCKING else ", which cannot open a file without the lock")) from None
        try:
            hdf5 = _has_signature(path, st.st_size)
        except OSError as e2:
            raise BTEFileError("%s: cannot be read (%s)" % (path, e2.strerror or e2)) from None
        if not hdf5:
            raise BTEFileError("%s: not a readable HDF5 file (no HDF5 signature in its %d bytes; %s)" % (path, st.st_size, reason)) from None
        raise BTEFileError("%s: damaged or unreadable (%s)" % (path, reason)) from None


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


# The number types bte reads (docs/format.md "Conventions"): the standard 8- to 64-bit integers and
# IEEE single and double precision, of either byte order. HDF5 converts any type it can describe, so
# a float type with a flipped byte (its size, exponent bias or bit fields) would read as other finite
# numbers without an error, and an integer dataset where reals belong reads as whole numbers in the
# wrong scale (energies meant in eV): both are refused.
_STD_INTEGERS = tuple(getattr(h5py.h5t, "STD_%s%d%s" % (s, b, o)) for s in "IU" for b in (8, 16, 32, 64) for o in ("LE", "BE"))
_STD_FLOATS = tuple(getattr(h5py.h5t, "IEEE_F%d%s" % (b, o)) for b in (32, 64) for o in ("LE", "BE"))
INT32_MAX = 2 ** 31 - 1  # integers the format stores as i32 (bte's reader refuses larger ones)


def check_number_type(tid, integer, where, real=False):
    """The HDF5 type tid (of a dataset or attribute; where names it, file first) must be a standard
    integer (integer=True), an IEEE float (real=True) or either (a real attribute may be stored as
    an integer, as bte's reader allows); BTEFileError saying what it is otherwise."""
    cls = tid.get_class()
    size = tid.get_size()
    if cls == h5py.h5t.INTEGER:
        if real:
            raise BTEFileError("%s has an integer type (%d bytes); expected a floating-point type (IEEE single or double): "
                               "integers here would be read as values in the wrong scale" % (where, size))
        if any(tid == t for t in _STD_INTEGERS):
            return
        raise BTEFileError("%s has an integer type that is not a standard 8-, 16-, 32- or 64-bit integer (size %d bytes); "
                           "the file is corrupt" % (where, size))
    if cls == h5py.h5t.FLOAT:
        if integer:
            raise BTEFileError("%s has a floating-point type; expected an integer" % where)
        if any(tid == t for t in _STD_FLOATS):
            return
        raise BTEFileError("%s has a floating-point type that is not IEEE single or double precision (size %d bytes); "
                           "the file is corrupt or not written by a standard HDF5 writer" % (where, size))
    raise BTEFileError("%s is not a number type; expected %s" % (where, "an integer" if integer else "a floating-point number" if real else "a number"))


def number(obj, name, default=None, required=False, integer=False, choices=None, positive=False,
           minimum=None, maximum=None, units=None):
    """Numeric attribute name of obj as a Python int or float, or BTEFileError naming the file, the
    attribute and the value when it is text, an array, not a standard number type (an integer type
    for integer=True: a float there is refused even when whole), not finite, not one of choices, not
    > 0 (positive=True), below minimum or above maximum; units: its <name>_units sibling, where
    present, must say that. default (None) when absent and not required."""
    where = "%s: attribute '%s' of %s" % (obj.file.filename, name, obj.name)
    if units is not None:
        check_units(obj, name + "_units", units, "attribute '%s' of %s" % (name, obj.name))
    v = attr(obj, name, required=required)
    if v is None:
        return default
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise BTEFileError("%s is %r, expected a number" % (where, v))
    check_number_type(obj.attrs.get_id(name).get_type(), integer, where)
    if not np.isfinite(v):
        raise BTEFileError("%s is %r: not a finite number" % (where, v))
    if integer:
        v = int(v)
    if choices is not None and v not in choices:
        raise BTEFileError("%s is %r, expected %s" % (where, v, " or ".join(map(str, choices))))
    if positive and not v > 0:
        raise BTEFileError("%s is %r, expected > 0" % (where, v))
    if minimum is not None and not v >= minimum:
        raise BTEFileError("%s is %r, expected >= %r" % (where, v, minimum))
    if maximum is not None and not v <= maximum:
        raise BTEFileError("%s is %r, expected at most %r%s" % (where, v, maximum, " (a 32-bit integer)" if maximum == INT32_MAX else ""))
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
    """Dataset g/name as a numpy array of dtype (float: stored as IEEE single or double precision;
    int: as a standard integer; check_number_type); its `units` attribute, where present, must be units;
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
    if dtype is not str:  # reals as IEEE floats (an integer dataset is refused), indices as standard integers
        check_number_type(d.id.get_type(), dtype is int, "%s: dataset %s" % (g.file.filename, path), real=dtype is float)
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
    big = np.uint64(np.iinfo(np.int64).max)  # compared as uint64 (mixed with int64 numpy compares in float64)
    if dtype is int and np.asarray(a).dtype == np.uint64 and np.size(a) and np.max(a) > big:
        bad = np.argwhere(np.asarray(a) > big)[0]
        raise BTEFileError("%s: %s%s = %d is beyond any index (above 2^63 - 1); the file is corrupt" % (g.file.filename, path, [int(x) for x in bad], np.asarray(a)[tuple(bad)]))
    a = np.asarray(a, dtype=np.float64 if dtype is float else np.int64)
    if shape is not None and (a.ndim != len(shape) or any(n is not None and n != m for n, m in zip(shape, a.shape))):
        want = "[%s]" % "][".join("n" if n is None else str(n) for n in shape)
        raise BTEFileError("%s: %s has shape %s, expected %s" % (g.file.filename, path, list(a.shape), want))
    if finite and dtype is float and not np.all(np.isfinite(a)):
        bad = np.argwhere(~np.isfinite(a))[0]
        raise BTEFileError("%s: %s holds a non-finite value (%r at %s)" % (g.file.filename, path, float(a[tuple(bad)]), [int(x) for x in bad]))
    return a
