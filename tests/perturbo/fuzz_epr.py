# Fuzz test of the Perturbo epr reader (run by fuzz_epr.sh): the project's epr fixtures
# (make_epr.py: cubic, twoband, polar, polar2d) damaged in seeded, deterministic ways with h5py or
# on their bytes, each given to `bte generate -bte_model perturbo` on a small grid with a timeout.
#
# Case classes (each case one change of one fixture):
#   drop     a dataset removed (required ones must be refused; optional ones read as absent)
#   dtype    a dataset rewritten as another type: int <-> float, text, half precision, complex,
#            bool, big-endian or narrower (same values: must read as the clean file)
#   shape    one element fewer / more, flattened, transposed, a scalar, empty, an HDF5 null
#            dataspace, an extra axis
#   value    one element of a float dataset NaN, +-Inf, +-1e300, +-1e30, 1e15, 5e-324, 0, -1
#   count    nat, num_wann, kc_dim, qc_dim set to 0, -1, -2^31, one more, 257 / 65, 1000, 1001,
#            2^31, 2^32 + the true value, 2^63 - 1; a grid of 1000^3
#   cross    inconsistent cross-references: kc_dim and qc_dim swapped or permuted, one atom or
#            Wannier function more or fewer (with or without their rows), centres and atoms moved,
#            the lattice scaled, permuted or not matching volume / bg, lpolar, system_2d and
#            thickness_2d flipped, the Ewald parameters and the dielectric tensor and Born charges
#            out of range, masses in amu, the largest force constant or coupling with its top
#            exponent bit flipped, arrays of one pair or element given to another
#   link     a group replaced by a dataset or removed, a dataset replaced by a group, a soft link to
#            another dataset, a dangling soft link, a soft-link loop, an external link to no file
#   trunc    the file cut at 0, 100, 2048 bytes, a quarter, a half, the end minus 1 KiB and 1 byte
#   flip     1 to 8 random bits or bytes of the file changed (half of them in its first 8 KiB,
#            where most of HDF5's metadata lies)
#
# Asserted for every case: no signal (crash, sanitizer abort) and no hang (per-run timeout); a
# refusal is a nonzero exit with exactly one "bte generate: error: ..." line that names the file
# (or, for a file the reader accepts, a refusal after it listed in GENERIC, the problem) and, for a
# value out of its physical bound (masses, Born charges, epsilon, alat, thickness_2d, force
# constants, couplings), the dataset;
# a failed run leaves no table (neither out.h5 nor out.h5.tmp); a run that exits 0 leaves a table
# that is complete (root attribute complete = 1), finite everywhere and that bte reads back
# (`bte info`). Validity is decided independently of bte, by reading with h5py what bte reads and
# checking it against docs/import.md (Bad input), the Wigner-Seitz vector counts that
# make_epr.py computes (its own implementation) and the laws of H(R) and of the force constants
# on those vectors (docs/validation.md):
#   same    - every value bte reads equals the clean file's: exit 0 expected, with the clean table;
#   valid   - other values, all of the documented types, shapes and bounds: exit 0 allowed;
#   invalid - anything else: bte must refuse it.
# BTE_FUZZ_SEED (13) changes the seeded choices, BTE_FUZZ_FLIPS (the number of flip cases, 80),
# BTE_FUZZ_JOBS (parallel runs, 2), BTE_FUZZ_TIMEOUT (s per run, 30). A run whose OpenMPI start-up
# failed (before bte ran) is repeated, at most twice, and counted.
import os, random, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_epr  # noqa: E402

BTE = os.environ["BTE"]
SEED = int(os.environ.get("BTE_FUZZ_SEED", "13"))
NFLIP = int(os.environ.get("BTE_FUZZ_FLIPS", "80"))
JOBS = int(os.environ.get("BTE_FUZZ_JOBS", "2"))
TIMEOUT = float(os.environ.get("BTE_FUZZ_TIMEOUT", "30"))
env = dict(os.environ, OMP_NUM_THREADS="1")
MAX_ATOMS, MAX_WANN, MAX_GRID = 768 // 3, 64, 1000  # BTE_MAX_MODES / 3, BTE_MAX_BANDS, kc_dim / qc_dim
FIXTURES = {"cubic": "4,4,4", "twoband": "4,4,4", "polar": "4,4,4", "polar2d": "4,4"}


# OpenMPI's singleton start-up can fail on a loaded machine before bte runs at all; such a run is
# repeated (at most twice) and counted, it says nothing about the file
MPI_START_FAILED = "ompi_rte_init failed"
mpi_retries = [0]


def run_bte(case_dir, args):
    for attempt in range(3):
        t0 = time.time()
        try:
            p = subprocess.run([BTE] + args, cwd=case_dir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT, env=env)
            out = p.stdout.decode(errors="replace")
            if p.returncode != 0 and MPI_START_FAILED in out and attempt < 2:
                mpi_retries[0] += 1
                continue
            return p.returncode, out, time.time() - t0
        except subprocess.TimeoutExpired as e:
            return None, (e.stdout or b"").decode(errors="replace"), time.time() - t0


def generate_args(epr, kdim):
    return ["generate", "-bte_model", "perturbo", "-bte_perturbo_epr", epr, "-bte_perturbo_kdim", kdim,
            "-bte_window", "5", "-bte_view", "0", "-bte_output", "out.h5"]


# --- what bte reads, checked against docs/import.md -----------------------------------------------
class Invalid(Exception):
    def __init__(self, what, name=None):
        super().__init__(what)
        self.name = name


def need(cond, what, name=None):
    # name: the dataset a refusal must name (a value out of its physical bound, which bte checks
    # where it reads the dataset, in the order of these checks)
    if not cond:
        raise Invalid(what, name)


# docs/validation.md (Perturbo epr files): bounds of the physical inputs, in the file's units
AMU_RY = make_epr.AMU_RY
MASS = (0.1 * AMU_RY, 1e4 * AMU_RY)  # 0.1 .. 1e4 amu
LENGTH = (0.1, 1e4)                  # alat, thickness_2d, bohr
ZSTAR_MAX, EPSIL = 1e2, (1.0, 1e4)   # polar files only
HOPPING_MAX, IFC_MAX, EPH_MAX = 1e3, 1e4, 1e3  # Ry, Ry/bohr^2, Ry/bohr
HERMITIAN_TOL, IFCSYM_TOL = 1e-6, 1e-2  # relative to the largest |H(R)|, |C| (validate.h)


STD_TYPES = {"f": [h5py.h5t.IEEE_F32LE, h5py.h5t.IEEE_F32BE, h5py.h5t.IEEE_F64LE, h5py.h5t.IEEE_F64BE],
             "i": [getattr(h5py.h5t, "STD_%s%d%s" % (s, b, o)) for s in "IU" for b in (8, 16, 32, 64) for o in ("LE", "BE")]}


def std_number(d, kind):
    # bte accepts standard integers and IEEE single or double floats (either byte order): the file's
    # type equal (H5Tequal: size, order, precision, offset, sign, exponent and mantissa fields, bias)
    # to one of them, not only of a size h5py maps to a numpy type
    t = d.id.get_type()
    return any(t == s for s in STD_TYPES[kind])


def has(f, path):
    # bte's lookup: every link of the path exists (H5Lexists) and leads to an object (False for a
    # dangling link); h5py's `in` also asks each group for its object info, which a flip can damage
    # where bte (and the reading itself) does not look
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        if not f.id.links.exists("/".join(parts[:i]).encode()):
            return False
    try:
        h5py.h5o.open(f.id, path.encode())
    except KeyError:
        return False
    return True


def read(f, path, kind, shape):
    """A dataset bte reads: present, a dataset, a standard number type, of shape `shape` (None: a
    scalar, stored as () or (1,)), finite; returned as float64 or int64."""
    need(has(f, path), path + " missing")
    d = f[path]
    need(isinstance(d, h5py.Dataset), path + " not a dataset")
    need(std_number(d, kind), path + " type %s" % d.dtype)
    need(d.shape is not None, path + " null dataspace")
    if shape is None:
        need(d.shape in ((), (1,)), path + " not a scalar")
    else:
        need(d.shape == tuple(shape), path + " shape %s, expected %s" % (d.shape, tuple(shape)))
    v = np.asarray(d[()], dtype=np.float64 if kind == "f" else np.int64)
    if kind == "f":
        need(np.all(np.isfinite(v)), path + " not finite")
    return v.reshape(()) if shape is None else v


def epr_values(path):
    """Everything bte reads from the epr file (a dict), or Invalid."""
    out = {}
    with h5py.File(path, "r") as f:
        for g in ("basic_data", "electron_wannier", "force_constant", "eph_matrix_wannier"):
            need(has(f, g), "no group " + g)
        B = "basic_data/"
        # in bte's order: the counts checked as they are read, alat and volume after the grids
        alat, vol = float(read(f, B + "alat", "f", None)), float(read(f, B + "volume", "f", None))
        nat = int(read(f, B + "nat", "i", None))
        need(1 <= nat <= MAX_ATOMS, "nat")
        nw = int(read(f, B + "num_wann", "i", None))
        need(1 <= nw <= MAX_WANN, "num_wann")
        at, bg, eps = read(f, B + "at", "f", (3, 3)), read(f, B + "bg", "f", (3, 3)), read(f, B + "epsil", "f", (3, 3))
        kc = read(f, B + "kc_dim", "i", (3,))
        need(np.all((kc >= 1) & (kc <= MAX_GRID)), "kc_dim")
        qc = read(f, B + "qc_dim", "i", (3,))
        need(np.all((qc >= 1) & (qc <= MAX_GRID)), "qc_dim")
        need(LENGTH[0] <= alat <= LENGTH[1], "alat %g bohr" % alat, B + "alat")
        need(1 <= vol <= 1e9, "volume")
        V = abs(np.linalg.det(at)) * alat ** 3
        need(abs(V - vol) <= 1e-4 * vol, "volume vs at")
        need(np.all(np.abs(bg @ at.T - np.eye(3)) <= 1e-5), "bg vs at")
        tau, mass = read(f, B + "tau", "f", (nat, 3)), read(f, B + "mass", "f", (nat,))
        wcc = read(f, B + "wannier_center_cryst", "f", (nw, 3))
        wc = read(f, B + "wannier_center", "f", (nw, 3)) if has(f, B + "wannier_center") else None
        zs = read(f, B + "zstar", "f", (nat, 3, 3))
        need(np.all((mass >= MASS[0]) & (mass <= MASS[1])), "mass out of [0.1, 1e4] amu", B + "mass")
        opt = {}
        for k, kind in (("spinor", "i"), ("system_2d", "i"), ("polar_alpha", "f"), ("loto_alpha", "f"), ("lpolar", "i")):
            if has(f, B + k):
                opt[k] = read(f, B + k, kind, None).item()
        sys2d = bool(opt.get("system_2d", 0))
        if sys2d and has(f, B + "thickness_2d"):
            opt["thickness_2d"] = float(read(f, B + "thickness_2d", "f", None))
        pa, la = opt.get("polar_alpha", 1.0), opt.get("loto_alpha", 1.0)
        polar = opt["lpolar"] > 0 if "lpolar" in opt else np.sum(np.abs(zs)) > 0.1
        if polar:
            need(np.all(np.abs(zs) <= ZSTAR_MAX), "|zstar| > %g" % ZSTAR_MAX, B + "zstar")
            need(np.all((np.diag(eps) >= EPSIL[0]) & (np.diag(eps) <= EPSIL[1])), "epsil diagonal out of [1, 1e4]", B + "epsil")
            need(pa > 1e-12 and la > 1e-12, "polar_alpha, loto_alpha")
            asym = max(abs(eps[0, 1] - eps[1, 0]), abs(eps[0, 2] - eps[2, 0]), abs(eps[1, 2] - eps[2, 1]))
            need(asym <= 1e-6 * max(abs(eps[0, 0]), 1.0), "epsil symmetric")
            need(eps[0, 0] > 0 and np.linalg.det(eps[:2, :2]) > 0 and np.linalg.det(eps) > 0, "epsil positive definite")
            # the box of reciprocal vectors of the long-range sums: at most 1e6 vectors
            Mi = np.eye(3) if sys2d else np.linalg.inv(eps)
            for alpha in (pa, la):
                ng = 1.0
                for i in range(3):
                    aa = max(at[i] @ Mi @ at[i], 0.0)
                    nrx = 0 if qc[i] < 2 else min(np.ceil(np.sqrt(56 * alpha * aa)) + 1, 1e6)
                    ng *= 2 * nrx + 1
                need(ng <= 1e6, "long-range box of %g vectors" % ng)
        if sys2d:
            l3 = np.linalg.norm(at[2])
            need(max(abs(at[0, 2]), abs(at[1, 2]), abs(at[2, 0]), abs(at[2, 1])) <= 1e-6 * l3, "2D: layer in xy")
            if "thickness_2d" in opt:
                need(LENGTH[0] <= opt["thickness_2d"] <= LENGTH[1], "thickness_2d %g bohr" % opt["thickness_2d"], B + "thickness_2d")
        ctau = tau @ bg.T
        out.update(alat=alat, vol=vol, nat=nat, nw=nw, at=at.tolist(), bg=bg.tolist(), eps=eps.tolist(), kc=kc.tolist(), qc=qc.tolist(),
                   tau=tau.tolist(), mass=mass.tolist(), wcc=wcc.tolist(), wc=None if wc is None else wc.tolist(), zs=zs.tolist(),
                   opt=opt, polar=bool(polar))

        # the arrays, on the Wigner-Seitz vectors of each pair (make_epr.ws_vectors); a grid with
        # more points than the data have vectors cannot be the data's (each point has >= 1 vector)
        def nvec(n, ta, tb, path, axis):
            if has(f, path) and isinstance(f[path], h5py.Dataset) and f[path].shape:
                need(np.prod(n) <= f[path].shape[axis], path + ": more grid points than vectors")
            return len(make_epr.ws_vectors(at, tuple(int(x) for x in n), ta, tb))
        m, selfpairs = 0, []
        for jw in range(nw):
            for iw in range(jw + 1):
                m += 1
                p = "electron_wannier/hopping_%s%d"
                nr = nvec(kc, wcc[iw], wcc[jw], p % ("r", m), 0)
                h = (read(f, p % ("r", m), "f", (nr,)), read(f, p % ("i", m), "f", (nr,)))
                need(np.all(np.abs(h) <= HOPPING_MAX), "|H(R)| > 1000 Ry")
                out[p % ("", m)] = (h[0].tolist(), h[1].tolist())
                if iw == jw:
                    selfpairs.append((p % ("r", m), make_epr.ws_vectors(at, tuple(int(x) for x in kc), wcc[iw], wcc[jw]), h[0] + 1j * h[1]))
        # H_ii(R) = conj H_ii(-R) to HERMITIAN_TOL of the largest |H(R)| (docs/validation.md)
        hmax = max(np.abs(np.asarray(v[0]) + 1j * np.asarray(v[1])).max() for k, v in out.items() if k.startswith("electron_wannier/"))
        for p, ws, h in selfpairs:
            pos = {R: t for t, (R, _) in enumerate(ws)}
            d = max((abs(h[t] - np.conj(h[pos[tuple(-x for x in R)]])) for t, (R, _) in enumerate(ws) if tuple(-x for x in R) in pos), default=0.0)
            need(d <= HERMITIAN_TOL * hmax, "H(R) of a Wannier function with itself not Hermitian", p)
        selfpairs = []
        m = 0
        for ja in range(nat):
            for ia in range(ja + 1):
                m += 1
                p = "force_constant/ifc%d" % m
                nr = nvec(qc, ctau[ia], ctau[ja], p, 0)
                c = read(f, p, "f", (nr, 3, 3))
                need(np.all(np.abs(c) <= IFC_MAX), "|%s| > %g Ry/bohr^2" % (p, IFC_MAX), p)
                out[p] = c.tolist()
                if ia == ja:
                    selfpairs.append((p, make_epr.ws_vectors(at, tuple(int(x) for x in qc), ctau[ia], ctau[ja]), c))
        # C_aa(R) = C_aa(-R)^T to IFCSYM_TOL of the largest |C|
        cmax = max(np.abs(np.asarray(v)).max() for k, v in out.items() if k.startswith("force_constant/"))
        for p, ws, c in selfpairs:
            pos = {R: t for t, (R, _) in enumerate(ws)}
            d = max((np.abs(c[t] - c[pos[tuple(-x for x in R)]].T).max() for t, (R, _) in enumerate(ws) if tuple(-x for x in R) in pos), default=0.0)
            need(d <= IFCSYM_TOL * cmax, "force constants of an atom with itself not symmetric", p)
        for a in range(nat):
            for jw in range(nw):
                for iw in range(nw):
                    p = "eph_matrix_wannier/ep_hop_%%s_%d_%d_%d" % (a + 1, jw + 1, iw + 1)
                    nre = nvec(kc, wcc[iw], wcc[jw], p % "r", 1)
                    nrp = nvec(qc, wcc[iw], ctau[a], p % "r", 0)
                    g = (read(f, p % "r", "f", (nrp, nre, 3)), read(f, p % "i", "f", (nrp, nre, 3)))
                    for part, x in zip("ri", g):
                        need(np.all(np.abs(x) <= EPH_MAX), "|%s| > %g Ry/bohr" % (p % part, EPH_MAX), p % part)
                    out[p % ""] = (g[0].tolist(), g[1].tolist())
    return out


def verdict(path, clean):
    """(same | valid | invalid, why, the dataset a refusal must name or None)"""
    try:
        v = epr_values(path)
    except Invalid as e:
        return "invalid", str(e), e.name
    except Exception as e:  # h5py cannot read what bte reads
        return "invalid", "h5py: %s: %s" % (type(e).__name__, str(e)[:80]), None
    return ("same" if v == clean else "valid"), "", None


def table_check(path):
    """A table bte wrote: complete, every number finite; returns its datasets (for the comparison
    with the clean run's), or a string saying what is wrong."""
    if not os.path.exists(path):
        return "no table"
    try:
        with h5py.File(path, "r") as f:
            if int(np.asarray(f.attrs.get("complete", 0)).reshape(-1)[0]) != 1:
                return "the table is not marked complete"
            data, bad = {}, []

            def visit(name, obj):
                if isinstance(obj, h5py.Dataset):
                    a = obj[()]
                    if getattr(a, "dtype", None) is not None and a.dtype.kind == "f" and not np.all(np.isfinite(a)):
                        bad.append(name)
                    data[name] = a
            f.visititems(visit)
            if bad:
                return "non-finite numbers in the table: " + ", ".join(bad)
            return data
    except Exception as e:
        return "h5py cannot read the table: %s" % e


def same_tables(a, b):
    if a.keys() != b.keys():
        return False
    return all(np.array_equal(np.asarray(a[k]), np.asarray(b[k])) for k in a)


# --- mutations -------------------------------------------------------------------------------------
# refusals after the reader, by the model builder, that name the problem but not the file: only
# for a file the reader accepts (an invalid file is refused by the reader, naming the file)
GENERIC = ["a channel has |g|^2 or a phonon energy out of range", "-bte_perturbo_kdim takes three integers"]
HOSTILE = [np.nan, np.inf, -np.inf, 1e300, -1e300, 1e30, -1e30, 1e15, 5e-324, 0.0, -1.0]


def replace(f, path, data, **kw):
    del f[path]
    f.create_dataset(path, data=data, **kw)


def dtype_ops(d):
    if d.dtype.kind == "f":
        return ["int32", "float16", "complex", "text", "float32", "bigendian", "bool"]
    return ["float64", "text", "int8", "uint64", "int64", "bigendian", "bool", "float16"]


def apply_dtype(f, path, op):
    a = np.asarray(f[path][()])
    if op == "int32":
        b = np.where(np.isfinite(a), np.clip(np.rint(a), -2**31, 2**31 - 1), 0).astype(np.int32)
    elif op == "float16":
        b = a.astype(np.float16)
    elif op == "float32":
        b = a.astype(np.float32)
    elif op == "float64":
        b = a.astype(np.float64)
    elif op == "complex":
        b = a.astype(np.complex128)
    elif op == "text":
        b = np.bytes_(repr(a.tolist())[:4000])
    elif op == "bigendian":
        b = a.astype(a.dtype.newbyteorder(">"))
    elif op == "bool":
        b = a != 0
    elif op == "int8":
        b = a.astype(np.int8)
    elif op == "uint64":
        b = np.abs(a).astype(np.uint64)
    elif op == "int64":
        b = a.astype(np.int64)
    replace(f, path, b)
    return "%s as %s" % (path, op)


SHAPE_OPS = ["fewer", "more", "flatten", "transpose", "scalar", "empty", "null", "extra_axis", "two"]


def apply_shape(f, path, op):
    a = np.asarray(f[path][()])
    if op == "fewer":
        b = a[:-1] if a.ndim else np.zeros((0,), a.dtype)
    elif op == "more":
        b = np.concatenate([a, a[-1:]]) if a.ndim else np.array([a, a])
    elif op == "flatten":
        b = a.reshape(-1)
    elif op == "transpose":
        b = np.ascontiguousarray(np.swapaxes(a, 0, 1)) if a.ndim >= 2 else a.reshape(-1, 1)
    elif op == "scalar":
        b = a.reshape(-1)[0]
    elif op == "empty":
        b = np.zeros((0,) + a.shape[1:], a.dtype)
    elif op == "null":
        del f[path]
        f.create_dataset(path, data=h5py.Empty(a.dtype))
        return "%s with a null dataspace" % path
    elif op == "extra_axis":
        b = a[None]
    elif op == "two":
        b = np.stack([a, a])
    replace(f, path, b)
    return "%s %s: shape %s" % (path, op, b.shape)


def set_element(f, path, x, r):
    d = f[path]
    idx = tuple(r.randrange(n) for n in d.shape)
    d[idx] = x
    return "%s%s = %r" % (path, list(idx), x)


def set_int(f, path, val, idx=None):
    a = np.asarray(f[path][()]).astype(np.int64)
    if idx is None:
        a = np.int64(val)
    else:
        a = a.copy()
        a[idx] = val
    if np.all(np.abs(a) < 2**31):
        a = np.asarray(a, dtype=np.int32)
    replace(f, path, a)
    return "%s%s = %d" % (path, "" if idx is None else [idx], val)


def set_real(f, path, val):
    replace(f, path, np.float64(val))
    return "%s = %r" % (path, val)


def datasets(path):
    out = []
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.append(n) if isinstance(o, h5py.Dataset) else None)
    return out


def cross_cases(fx):
    """(description, function(f)) for the cross-reference cases of fixture fx"""
    B = "basic_data/"
    C = []

    def add(desc, fn):
        C.append((desc, fn))

    def swap(a, b):
        def fn(f):
            x, y = f[a][()], f[b][()]
            replace(f, a, y)
            replace(f, b, x)
        return fn

    def setv(path, fn_of):
        def fn(f):
            replace(f, path, fn_of(np.asarray(f[path][()])))
        return fn

    def flip_largest(a):
        # bit 62, the exponent's highest: |x| < 2 becomes x 2^1024, finite
        a = np.array(a, dtype="<f8")
        v = a.reshape(-1).view(np.uint64)
        v[np.argmax(np.abs(a.reshape(-1)))] ^= np.uint64(1 << 62)
        return a

    def chain(*fns):
        def fn(f):
            for g in fns:
                g(f)
        return fn

    def lattice(M):
        # at -> M at (rows), with bg and volume consistent: another valid lattice
        def fn(f):
            at = f[B + "at"][()]
            at2 = M @ at
            replace(f, B + "at", at2)
            replace(f, B + "bg", np.linalg.inv(at2).T)
            replace(f, B + "volume", np.float64(abs(np.linalg.det(at2)) * f[B + "alat"][()] ** 3))
        return fn

    add("kc_dim and qc_dim swapped", swap(B + "kc_dim", B + "qc_dim"))
    add("kc_dim permuted", setv(B + "kc_dim", lambda a: a[::-1].copy()))
    add("qc_dim permuted", setv(B + "qc_dim", lambda a: a[[1, 2, 0]].copy()))
    add("kc_dim = qc_dim", lambda f: replace(f, B + "kc_dim", f[B + "qc_dim"][()]))
    add("nat + 1, rows unchanged", setv(B + "nat", lambda a: a + 1))
    add("nat + 1 with a row more in tau, mass, zstar", chain(setv(B + "nat", lambda a: a + 1), setv(B + "tau", lambda a: np.concatenate([a, a[-1:] + 0.25])),
                                                           setv(B + "mass", lambda a: np.concatenate([a, a[-1:]])), setv(B + "zstar", lambda a: np.concatenate([a, a[-1:]]))))
    add("num_wann + 1, rows unchanged", setv(B + "num_wann", lambda a: a + 1))
    add("num_wann + 1 with a row more in the centres", chain(setv(B + "num_wann", lambda a: a + 1), setv(B + "wannier_center_cryst", lambda a: np.concatenate([a, a[-1:] + 0.5])),
                                                           setv(B + "wannier_center", lambda a: np.concatenate([a, a[-1:]]))))
    add("wannier_center_cryst moved by (0.5, 0, 0)", setv(B + "wannier_center_cryst", lambda a: a + [0.5, 0, 0]))
    add("wannier_center_cryst moved by (0.02, 0.31, -0.4)", setv(B + "wannier_center_cryst", lambda a: a + [0.02, 0.31, -0.4]))
    add("wannier_center_cryst moved by a lattice vector (0, 0, 1)", setv(B + "wannier_center_cryst", lambda a: a + [0, 0, 1]))
    add("wannier_center_cryst at 1e6", setv(B + "wannier_center_cryst", lambda a: a + 1e6))
    add("wannier_center disagrees with wannier_center_cryst (bte uses the crystal one)", setv(B + "wannier_center", lambda a: a + 0.3))
    add("tau moved by (0.37, 0, 0.1)", setv(B + "tau", lambda a: a + [0.37, 0, 0.1]))
    add("tau moved by 1e8", setv(B + "tau", lambda a: a + 1e8))
    add("tau reversed (atoms swapped)", setv(B + "tau", lambda a: a[::-1].copy()))
    add("mass 1e-300", setv(B + "mass", lambda a: a * 0 + 1e-300))
    add("mass 1e300", setv(B + "mass", lambda a: a * 0 + 1e300))
    add("mass in amu (not Rydberg mass units)", setv(B + "mass", lambda a: a / make_epr.AMU_RY))
    add("at scaled by 1.01, volume and bg not", setv(B + "at", lambda a: a * 1.01))
    add("volume x 1.00001 (within 1e-4)", setv(B + "volume", lambda a: a * 1.00001))
    add("volume x 1.001", setv(B + "volume", lambda a: a * 1.001))
    add("bg x 2", setv(B + "bg", lambda a: a * 2))
    add("bg transposed", setv(B + "bg", lambda a: a.T.copy()))
    add("at transposed, bg and volume consistent", chain(setv(B + "at", lambda a: a.T.copy()), lattice(np.eye(3))))
    add("lattice rows permuted, bg and volume consistent", lattice(np.eye(3)[[1, 0, 2]]))
    add("lattice skewed (a2 += 0.3 a1), bg and volume consistent", lattice(np.array([[1, 0, 0], [0.3, 1, 0], [0, 0, 1.0]])))
    add("alat 1e-100, volume consistent", chain(setv(B + "alat", lambda a: a * 0 + 1e-100), setv(B + "volume", lambda a: a * 0 + 1e-300)))
    add("alat x 1e50, volume consistent", chain(setv(B + "alat", lambda a: a * 1e50), setv(B + "volume", lambda a: a * 1e150)))
    add("alat 5e-324", setv(B + "alat", lambda a: a * 0 + 5e-324))
    add("lpolar = 1", lambda f: set_int(f, B + "lpolar", 1))
    add("lpolar = 0", lambda f: set_int(f, B + "lpolar", 0))
    add("lpolar removed", lambda f: f.__delitem__(B + "lpolar"))
    add("lpolar = -5", lambda f: set_int(f, B + "lpolar", -5))
    add("system_2d = 1", lambda f: set_int(f, B + "system_2d", 1))
    add("system_2d = 0", lambda f: set_int(f, B + "system_2d", 0))
    add("spinor = 1", lambda f: set_int(f, B + "spinor", 1))
    add("spinor = 2^40", lambda f: set_int(f, B + "spinor", 2**40))
    add("polar_alpha = 0", lambda f: set_real(f, B + "polar_alpha", 0.0))
    add("polar_alpha = 1e300", lambda f: set_real(f, B + "polar_alpha", 1e300))
    add("polar_alpha = 1e-11", lambda f: set_real(f, B + "polar_alpha", 1e-11))
    add("loto_alpha = -1", lambda f: set_real(f, B + "loto_alpha", -1.0))
    add("loto_alpha = 1e300", lambda f: set_real(f, B + "loto_alpha", 1e300))
    add("loto_alpha = 1e6", lambda f: set_real(f, B + "loto_alpha", 1e6))
    add("epsil = 1e300 I", setv(B + "epsil", lambda a: np.eye(3) * 1e300))
    add("epsil = 1e-300 I", setv(B + "epsil", lambda a: np.eye(3) * 1e-300))
    add("epsil = 5e-324 I", setv(B + "epsil", lambda a: np.eye(3) * 5e-324))
    add("epsil not symmetric", setv(B + "epsil", lambda a: a + np.array([[0, 0.5, 0], [0, 0, 0], [0, 0, 0]])))
    add("epsil negative definite", setv(B + "epsil", lambda a: -a))
    add("epsil zero", setv(B + "epsil", lambda a: a * 0))
    add("zstar x 1e300", setv(B + "zstar", lambda a: a * 1e300))
    add("zstar x 1e100", setv(B + "zstar", lambda a: a * 1e100))
    add("zstar zero", setv(B + "zstar", lambda a: a * 0))
    if fx == "polar2d":
        add("thickness_2d = 0", lambda f: set_real(f, B + "thickness_2d", 0.0))
        add("thickness_2d = 1e300", lambda f: set_real(f, B + "thickness_2d", 1e300))
        add("thickness_2d = 5e-324", lambda f: set_real(f, B + "thickness_2d", 5e-324))
        add("thickness_2d removed", lambda f: f.__delitem__(B + "thickness_2d"))
        add("a3 tilted (2D layer not in xy)", setv(B + "at", lambda a: a + np.array([[0, 0, 0], [0, 0, 0], [0.1, 0, 0]])))
    names = datasets(fx + ".h5")
    ew = sorted(n for n in names if n.startswith("electron_wannier/hopping_r"))
    fc = sorted(n for n in names if n.startswith("force_constant/"))
    ep = sorted(n for n in names if n.startswith("eph_matrix_wannier/ep_hop_r"))
    add("hopping_r1 <-> hopping_i1", swap(ew[0], ew[0].replace("_r", "_i")))
    add("ep_hop_r_1_1_1 <-> ep_hop_i_1_1_1", swap(ep[0], ep[0].replace("_r_", "_i_")))
    add("ep_hop_r_1_1_1 transposed in its vectors (nre, nrp, 3)", setv(ep[0], lambda a: np.ascontiguousarray(a.transpose(1, 0, 2))))
    add("ifc1 transposed in its 3x3 blocks", setv(fc[0], lambda a: np.ascontiguousarray(a.transpose(0, 2, 1))))
    add("ifc1's largest entry with its top exponent bit flipped (x 2^1024)", setv(fc[0], flip_largest))
    add("ep_hop_r_1_1_1's largest entry with its top exponent bit flipped (x 2^1024)", setv(ep[0], flip_largest))
    if len(ew) > 1:
        add("hopping_r1 <-> hopping_r2", swap(ew[0], ew[1]))
        add("hopping_r1 <-> hopping_r3 (same length)", swap(ew[0], ew[2]))
    if len(fc) > 1:
        add("ifc1 <-> ifc2", swap(fc[0], fc[1]))
        add("ifc1 <-> ifc3 (same length)", swap(fc[0], fc[2]))
    if len(ep) > 1:
        add("%s <-> %s" % (ep[0][-5:], ep[1][-5:]), swap(ep[0], ep[1]))
        add("%s <-> %s" % (ep[1][-5:], ep[-1][-5:]), swap(ep[1], ep[-1]))
    return C


def link_cases(fx):
    names = datasets(fx + ".h5")
    ew = sorted(n for n in names if n.startswith("electron_wannier/hopping_r"))
    C = []

    def group_as_dataset(f):
        del f["force_constant"]
        f["force_constant"] = np.arange(3.0)

    def dataset_as_group(f):
        del f[ew[0]]
        f.create_group(ew[0])

    def soft(target):
        def fn(f):
            del f[ew[0]]
            f[ew[0]] = h5py.SoftLink(target)
        return fn

    def external(f):
        del f[ew[0]]
        f[ew[0]] = h5py.ExternalLink("no_such_file.h5", "/x")

    def alat_loop(f):
        del f["basic_data/alat"]
        f["basic_data/alat"] = h5py.SoftLink("/basic_data/alat")

    def group_removed(f):
        del f["eph_matrix_wannier"]

    C.append(("force_constant group replaced by a dataset", group_as_dataset))
    C.append(("%s replaced by a group" % ew[0], dataset_as_group))
    C.append(("%s a soft link to its imaginary part" % ew[0], soft("/" + ew[0].replace("_r", "_i"))))
    C.append(("%s a dangling soft link" % ew[0], soft("/nowhere/x")))
    C.append(("%s an external link to a missing file" % ew[0], external))
    C.append(("basic_data/alat a soft link to itself", alat_loop))
    C.append(("eph_matrix_wannier group removed", group_removed))
    return C


def flip_bytes(path, r):
    data = bytearray(open(path, "rb").read())
    what = []
    head = r.random() < 0.5
    for _ in range(r.choice((1, 1, 2, 4, 8))):
        k = r.randrange(min(len(data), 8192) if head else len(data))
        if r.random() < 0.5:
            b = 1 << r.randrange(8)
            data[k] ^= b
            what.append("bit %d of byte %d" % (b.bit_length() - 1, k))
        else:
            v = r.randrange(256)
            data[k] = v
            what.append("byte %d = %d" % (k, v))
    open(path, "wb").write(bytes(data))
    return ", ".join(what)


def build_cases(rng):
    """[(fixture, class, description, function(path, r) -> description or None)]"""
    cases = []
    for fx in FIXTURES:
        names = datasets(fx + ".h5")
        with h5py.File(fx + ".h5", "r") as f:
            info = {n: (f[n].dtype.kind, f[n].shape) for n in names}
        # per-dataset structure: every dataset of cubic, a seeded third of the others'
        pick = names if fx == "cubic" else sorted(rng.sample(names, len(names) // 4))
        for n in pick:
            kind, shape = info[n]
            cases.append((fx, "drop", "%s removed" % n, lambda p, r, n=n: _h5(p, lambda f: f.__delitem__(n))))
            with h5py.File(fx + ".h5", "r") as f:
                ops = dtype_ops(f[n])
            for op in rng.sample(ops, 1):
                cases.append((fx, "dtype", "%s as %s" % (n, op), lambda p, r, n=n, op=op: _h5(p, lambda f: apply_dtype(f, n, op))))
            for op in rng.sample(SHAPE_OPS, 1):
                cases.append((fx, "shape", "%s %s" % (n, op), lambda p, r, n=n, op=op: _h5(p, lambda f: apply_shape(f, n, op))))
            if kind == "f":
                for x in rng.sample(HOSTILE, 1):
                    cases.append((fx, "value", "%s element = %r" % (n, x), lambda p, r, n=n, x=x: _h5(p, lambda f: set_element(f, n, x, r))))
        # counts
        B = "basic_data/"
        with h5py.File(fx + ".h5", "r") as f:
            nat, nw, kc, qc = int(f[B + "nat"][()]), int(f[B + "num_wann"][()]), f[B + "kc_dim"][()], f[B + "qc_dim"][()]
        counts = []
        for v in (0, -1, -2**31, nat + 1, MAX_ATOMS + 1, 2**32 + nat, 2**63 - 1):
            counts.append(("nat = %d" % v, lambda f, v=v: set_int(f, B + "nat", v)))
        for v in (0, -1, nw + 1, MAX_WANN + 1, 2**32 + nw):
            counts.append(("num_wann = %d" % v, lambda f, v=v: set_int(f, B + "num_wann", v)))
        for name, c in (("kc_dim", kc), ("qc_dim", qc)):
            for v in (0, -1, -2**31, 1, 1000, 1001, 2**31, "2^32+"):
                i = rng.randrange(3 if fx != "polar2d" else 2)
                val = 2**32 + int(c[i]) if v == "2^32+" else v
                counts.append(("%s[%d] = %d" % (name, i, val), lambda f, name=name, i=i, val=val: set_int(f, B + name, val, i)))
            counts.append(("%s = (1000,1000,1000)" % name, lambda f, name=name: replace(f, B + name, np.array([1000] * 3, dtype=np.int32))))
        if fx != "cubic":
            counts = rng.sample(counts, len(counts) // 3)
        for desc, fn in counts:
            cases.append((fx, "count", desc, lambda p, r, fn=fn: _h5(p, fn)))
        # cross-references: all of cubic's, polar's and polar2d's, a seeded third of twoband's; links
        cr = cross_cases(fx)
        if fx == "twoband":
            cr = rng.sample(cr, len(cr) // 3)
        for desc, fn in cr:
            cases.append((fx, "cross", desc, lambda p, r, fn=fn: _h5(p, fn)))
        lk = link_cases(fx)
        for desc, fn in (lk if fx in ("cubic", "twoband") else rng.sample(lk, 2)):
            cases.append((fx, "link", desc, lambda p, r, fn=fn: _h5(p, fn)))
        size = os.path.getsize(fx + ".h5")
        cuts = (0, 100, 2048, size // 4, size // 2, size - 1024, size - 1)
        for cut in (cuts if fx == "cubic" else rng.sample(cuts, 3)):
            cases.append((fx, "trunc", "cut at %d of %d bytes" % (cut, size), lambda p, r, cut=cut: _trunc(p, cut)))
    fx_list = list(FIXTURES)
    for i in range(NFLIP):
        cases.append((fx_list[i % len(fx_list)], "flip", "", lambda p, r: flip_bytes(p, r)))
    return cases


def _h5(path, fn):
    with h5py.File(path, "r+") as f:
        d = fn(f)
    return d if isinstance(d, str) else None


def _trunc(path, cut):
    with open(path, "r+b") as f:
        f.truncate(cut)
    return None


def main():
    t_start = time.time()
    rng = random.Random(SEED)
    clean = {}
    for fx, kd in FIXTURES.items():
        d = "clean_" + fx
        os.makedirs(d, exist_ok=True)
        rc, out, _ = run_bte(d, generate_args("../%s.h5" % fx, kd))
        assert rc == 0, out
        tab = table_check(os.path.join(d, "out.h5"))
        assert isinstance(tab, dict), tab
        with h5py.File(os.path.join(d, "out.h5"), "r") as f:
            nch = f["channels/i"].shape[0]
        assert nch > 0, "%s: the clean table has no channels" % fx
        clean[fx] = (epr_values(fx + ".h5"), tab)
    cases = build_cases(rng)
    # make every case's file and verdict, then run bte on them, JOBS at a time
    prepared = []
    for i, (fx, cls, desc, mut) in enumerate(cases):
        r = random.Random(rng.random())
        d = "c%03d" % i
        os.makedirs(d, exist_ok=True)
        m = os.path.join(d, "m%03d.h5" % i)
        shutil.copy(fx + ".h5", m)
        try:
            d2 = mut(m, r)
        except Exception as e:
            print("FAIL %3d %-7s %-6s could not make the case %s: %s" % (i, fx, cls, desc, e))
            sys.exit(1)
        desc = d2 or desc
        ver, why, must = verdict(m, clean[fx][0])
        prepared.append((i, fx, cls, desc, d, ver, why, must))

    def job(c):
        i, fx, cls, desc, d, ver, why, must = c
        return run_bte(d, generate_args("m%03d.h5" % i, FIXTURES[fx]))
    with ThreadPoolExecutor(JOBS) as ex:
        results = list(ex.map(job, prepared))

    ok = True
    kinds, per_class = {}, {}
    for (i, fx, cls, desc, d, ver, why, must), (rc, out, dt) in zip(prepared, results):
        name = "m%03d.h5" % i
        errs = [l for l in out.splitlines() if l.startswith("bte ") and ": error: " in l]
        last = errs[0] if errs else (out.strip().splitlines()[-1] if out.strip() else "")
        table = os.path.join(d, "out.h5")
        bad = None
        if rc is None:
            bad = "hung (killed after %g s)" % TIMEOUT
        elif rc < 0 or rc >= 128:
            bad = "killed by a signal or sanitizer (exit %d)" % rc
        elif any(s in out for s in ("Caught signal", "Segmentation", "SEGV", "AddressSanitizer", "runtime error:", "UndefinedBehaviorSanitizer")):
            bad = "crash or sanitizer report in the output"
        elif rc != 0:
            if len(errs) != 1:
                bad = "refused without exactly one error line"
            elif name not in errs[0] and (ver == "invalid" or not any(g in errs[0] for g in GENERIC)):
                bad = "the error line does not name the file" if ver == "invalid" else "the error line names neither the file nor a known problem"
            elif must and must not in errs[0]:
                bad = "the error line does not name the dataset %s" % must
            elif os.path.exists(table) or os.path.exists(table + ".tmp"):
                bad = "a failed run left a table"
            elif ver == "same":
                bad = "refused a file whose values are the clean file's"
        else:
            tab = table_check(table)
            if ver == "invalid":
                bad = "exit 0 on an invalid file (%s)" % why
            elif not isinstance(tab, dict):
                bad = "exit 0 but " + tab
            elif ver == "same" and not same_tables(tab, clean[fx][1]):
                bad = "exit 0 on a file with the clean values, but the table differs from the clean run's"
            else:
                rc2, out2, _ = run_bte(d, ["info", "-bte_input", "out.h5"])
                if rc2 != 0:
                    bad = "exit 0 but bte cannot read the table back: " + out2.strip()[-200:]
        kinds[(ver, rc == 0)] = kinds.get((ver, rc == 0), 0) + 1
        per_class[cls] = per_class.get(cls, 0) + 1
        print("%s %3d %-7s %-5s %-7s exit %-4s %4.1fs  %s%s" % ("FAIL" if bad else "ok  ", i, fx, cls, ver, rc, dt, desc[:90], (": " + bad) if bad else ""))
        if bad:
            print("       | " + "\n       | ".join(out.strip().splitlines()[-12:]))
        elif rc != 0:
            print("       " + last[:240])
        if bad and why:
            print("       (verdict: %s)" % why)
        ok &= bad is None
        if not bad:
            shutil.rmtree(d)
    print("cases per class: %s; %d in all" % (", ".join("%s %d" % kv for kv in per_class.items()), len(prepared)))
    print("verdicts (validity, exit 0): %s; %.0f s" % (", ".join("%s/%s: %d" % (k[0], "0" if k[1] else "!0", v) for k, v in sorted(kinds.items())), time.time() - t_start))
    if mpi_retries[0]:
        print("runs repeated after OpenMPI failed to start (%s): %d" % (MPI_START_FAILED, mpi_retries[0]))
    sys.exit(0 if ok else 1)


main()
