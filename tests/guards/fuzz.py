# Fuzz test of the table and restart readers (run by fuzz.sh): seeded byte flips and value
# mutations of a small table (in the format bte writes, and in the old format with
# variable-length strings) and of a restart file; every mutated file is given to bte.
#
# Asserted for every run: no signal (crash, sanitizer abort), no hang (per-run timeout), and no
# exit 0 on a file that is not valid. Validity is decided here, independently of bte, by reading
# with h5py what bte reads and checking it against docs/format.md and docs/validation.md:
#   same    - every value bte reads is what the clean file holds (the flip hit bytes bte does
#             not use): exit 0 allowed, and the run's output must then equal the clean run's;
#   valid   - the values differ but all are of the documented types and within the documented
#             bounds (a table or restart with other numbers): exit 0 allowed;
#   invalid - anything else (h5py cannot read it, wrong type class or a non-standard number
#             type, wrong shape, out of bounds, not finite, another table): bte must refuse it.
import os, random, shutil, subprocess, sys, time
import numpy as np
import h5py

BTE = os.environ["BTE"]
SEED = int(os.environ.get("BTE_FUZZ_SEED", "13"))
NCASES = int(os.environ.get("BTE_FUZZ_CASES", "36"))
TIMEOUT = float(os.environ.get("BTE_FUZZ_TIMEOUT", "30"))
rng = random.Random(SEED)
env = dict(os.environ, OMP_NUM_THREADS="1")

def run(args):
    t0 = time.time()
    try:
        p = subprocess.run([BTE] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT, env=env)
        return p.returncode, p.stdout.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode(errors="replace"), time.time() - t0

def text(x):
    return x.decode() if isinstance(x, bytes) else str(x)

class Invalid(Exception):
    pass

def need(cond, what):
    if not cond:
        raise Invalid(what)

def std_number(dt, kind):
    # what bte accepts: standard integers, IEEE single or double
    if kind == "f": return dt.kind == "f" and dt.itemsize in (4, 8)
    return dt.kind in "iu" and dt.itemsize in (1, 2, 4, 8)

def ds(f, path, kind, ndim):
    need(path in f and isinstance(f[path], h5py.Dataset), path + " missing")
    d = f[path]
    need(std_number(d.dtype, kind) and d.ndim == ndim, path + " type/shape")
    return d

def attr(obj, name, kind=None):
    # a single value; kind "s" string, "i" integer, else any number
    need(name in obj.attrs, name + " missing")
    v = obj.attrs[name]
    if kind == "s":
        need(isinstance(v, (bytes, str)), name + " not a string")
        return text(v)
    a = np.asarray(v)
    need(a.size == 1 and (std_number(a.dtype, "i") or (kind != "i" and std_number(a.dtype, "f"))), name + " type")
    return a.reshape(-1)[0]

def units(obj, name, want):
    if name in obj.attrs: need(text(obj.attrs[name]) == want, name)

def table_values(path):
    # what bte reads from a table, checked against docs/format.md; raises Invalid
    with h5py.File(path, "r") as f:
        need(attr(f, "format", "s") == "bte-scattering-table" and attr(f, "format_version", "i") == 1 and attr(f, "complete", "i") == 1, "header")
        out = {"source": attr(f, "source", "s") if "source" in f.attrs else ""}
        if "temperature" in f.attrs:
            T = float(attr(f, "temperature")); need(0.01 <= T <= 1e5, "temperature"); units(f, "temperature_units", "K"); out["T"] = T
        g = f["grid"]
        lat, rec, nk = ds(f, "grid/lattice", "f", 2)[()], ds(f, "grid/reciprocal", "f", 2)[()], ds(f, "grid/nk", "i", 1)[()]
        need(lat.shape == (3, 3) and rec.shape == (3, 3) and nk.shape == (3,), "grid shapes")
        dim, vol = int(attr(g, "dim", "i")), float(attr(g, "volume"))
        need(dim in (2, 3) and np.all(nk >= 1) and np.all(nk < 2**31) and np.all(np.isfinite(lat)) and np.all(np.isfinite(rec)), "grid")
        need(np.isfinite(vol) and abs(abs(np.linalg.det(lat)) - vol) <= 1e-6 * abs(np.linalg.det(lat)), "volume")
        need(np.allclose(rec @ lat.T, 2 * np.pi * np.eye(3), atol=1e-6 * 2 * np.pi, rtol=0), "reciprocal")
        units(f["grid/lattice"], "units", "Angstrom"); units(f["grid/reciprocal"], "units", "1/Angstrom"); units(g, "volume_units", "Angstrom^3" if dim == 3 else "Angstrom^2")
        s = f["states"]
        nb, sp, car = int(attr(s, "nbands", "i")), int(attr(s, "spin_degeneracy", "i")), attr(s, "carrier", "s")
        wmin, wmax = float(attr(s, "window_min")), float(attr(s, "window_max"))
        need(nb >= 1 and sp in (1, 2) and car in ("electrons", "holes") and wmin < wmax, "states attributes")
        units(s, "window_min_units", "eV"); units(s, "window_max_units", "eV")
        kx, bd, e, v = ds(f, "states/kindex", "i", 1)[()], ds(f, "states/band", "i", 1)[()], ds(f, "states/energy", "f", 1)[()], ds(f, "states/velocity", "f", 2)[()]
        N = len(kx)
        need(N >= 1 and len(bd) == N and len(e) == N and v.shape == (N, 3), "states shapes")
        need(np.all((kx >= 0) & (kx < np.prod(nk.astype(float)))) and np.all((bd >= 0) & (bd < nb)) and np.all(np.isfinite(e)) and np.all(np.isfinite(v)), "states values")
        units(f["states/energy"], "units", "eV"); units(f["states/velocity"], "units", "Angstrom/fs")
        nm = int(attr(f["phonons"], "nmodes", "i")); need(nm >= 1, "nmodes")
        c = f["channels"]
        ci, cj, cm = ds(f, "channels/i", "i", 1)[()], ds(f, "channels/j", "i", 1)[()], ds(f, "channels/mode", "i", 1)[()]
        hw, g2 = ds(f, "channels/phonon_energy", "f", 1)[()], ds(f, "channels/g2", "f", 1)[()]
        M = len(ci)
        need(len(cj) == M and len(cm) == M and len(hw) == M and len(g2) == M, "channel lengths")
        need(np.all((ci >= 0) & (ci < N) & (cj >= 0) & (cj < N) & (ci != cj) & (cm >= 0) & (cm < nm)), "channel indices")
        need(np.all((hw >= 1e-6) & (hw <= 10)) and np.all((g2 >= 0) & (g2 <= 1e6)), "channel values")
        units(f["channels/phonon_energy"], "units", "eV"); units(f["channels/g2"], "units", "eV^2")
        eta = float(attr(c, "smearing")); need(1e-6 <= eta <= 1, "smearing"); units(c, "smearing_units", "eV")
        for k, u, lo in (("g2_cutoff", "eV^2", 0), ("phonon_min", "eV", 0), ("energy_tolerance", "eta", 1e-300)):
            if k in c.attrs:
                x = float(attr(c, k)); need(np.isfinite(x) and x >= lo, k); units(c, k + "_units", u)
        model = {}
        if "model" in f:
            for k in f["model"].attrs:
                if k == "name" or k.endswith("_units"): continue
                a = np.asarray(f["model"].attrs[k])
                if a.dtype.kind in "fiu":
                    need(a.size == 1 and std_number(a.dtype, "f" if a.dtype.kind == "f" else "i"), "model " + k)
                    model[k] = (float(a.reshape(-1)[0]), text(f["model"].attrs[k + "_units"]) if k + "_units" in f["model"].attrs else "")
        # channels are an unordered set of unordered pairs (bte normalises i < j)
        chans = sorted(zip(np.minimum(ci, cj).tolist(), np.maximum(ci, cj).tolist(), cm.tolist(), hw.tolist(), g2.tolist()))
        out.update(grid=(lat.tolist(), rec.tolist(), nk.tolist(), dim, vol), states=(nb, sp, car, wmin, wmax, kx.tolist(), bd.tolist(), e.tolist(), v.tolist()),
                   nm=nm, chans=chans, eta=eta, model=model, sel={k: float(c.attrs[k]) for k in ("g2_cutoff", "phonon_min", "energy_tolerance") if k in c.attrs})
        return out

def restart_values(path, clean_table):
    with h5py.File(path, "r") as f:
        need("dynamics" in f, "no /dynamics")
        g = f["dynamics"]
        if "format" in g.attrs:
            need(attr(g, "format", "s") == "bte-dynamics" and attr(g, "version", "i") == 1, "format")
        t, st, occ = ds(f, "dynamics/time", "f", 1), ds(f, "dynamics/step", "i", 1), ds(f, "dynamics/occupations", "f", 2)
        nt = t.shape[0]
        N = len(clean_table["states"][5])
        need(nt >= 1 and st.shape[0] >= nt and occ.shape[0] >= nt and occ.shape[1] == N, "shapes")
        for k, i in (("state_kindex", 5), ("state_band", 6), ("state_energy", 7)):
            d = ds(f, "dynamics/" + k, "f" if k == "state_energy" else "i", 1)[()]
            need(d.tolist() == clean_table["states"][i], "another table (" + k + ")")
        tt, ss, ff = float(t[nt - 1]), int(st[nt - 1]), occ[nt - 1]
        need(np.isfinite(tt) and abs(tt) <= 1e9 and 0 <= ss < 2**31 and np.all(np.isfinite(ff)) and np.all((ff >= -0.5) & (ff <= 1.5)), "snapshot values")
        dts = None
        if "time_step" in g and "time_step_unclipped" in g:
            a, b = ds(f, "dynamics/time_step", "f", 1), ds(f, "dynamics/time_step_unclipped", "f", 1)
            need(a.shape[0] >= nt and b.shape[0] >= nt, "step-size shapes")
            dts = (float(a[nt - 1]), float(b[nt - 1]))
            need(0 < dts[0] <= 1e6 and (dts[1] == 0 or 0 < dts[1] <= 1e6), "step sizes")
        return dict(t=tt, step=ss, f=ff.tolist(), dts=dts)

def verdict(reader, path, clean):
    try:
        v = reader(path)
    except Invalid as e:
        return "invalid", str(e)
    except Exception as e:  # h5py cannot read what bte reads
        return "invalid", "h5py: " + type(e).__name__
    return ("same" if v == clean else "valid"), ""

# --- value mutations (h5py): a dataset element or an attribute set to a hostile value ----------
HOSTILE = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1e300, -1e300, 5e-324, 2.0**40, -2.0**31, 1.5]

def mutate_values(path, paths, r):
    with h5py.File(path, "r+") as f:
        p = r.choice(paths)
        obj_path, _, aname = p.partition("@")
        obj = f[obj_path]
        x = r.choice(HOSTILE)
        if aname:  # an attribute: a hostile number of its type, text where a number belongs, or a float
            old = np.asarray(obj.attrs[aname])
            how = r.randrange(3)
            if how == 0 and old.dtype.kind == "f": obj.attrs[aname] = np.asarray(x, dtype=old.dtype)
            elif how == 0 and old.dtype.kind in "iu" and np.isfinite(x): obj.attrs[aname] = np.asarray(int(max(min(x, np.iinfo(old.dtype).max), np.iinfo(old.dtype).min)), dtype=old.dtype)
            elif how == 1: obj.attrs[aname] = (text(old.reshape(-1)[0]) + "x") if old.dtype.kind in "SUO" else str(old.tolist())
            else: obj.attrs[aname] = np.float64(x)
            return "%s = %r (way %d)" % (p, x, how)
        d = obj
        if d.size == 0: return "no-op"
        idx = tuple(r.randrange(n) for n in d.shape)
        if d.dtype.kind == "f": d[idx] = x
        elif np.isfinite(x): d[idx] = int(max(min(x, np.iinfo(d.dtype).max), np.iinfo(d.dtype).min))
        else: return "no-op"
        return "%s%s = %r" % (p, list(idx), x)

def flip_bytes(path, r):
    data = bytearray(open(path, "rb").read())
    what = []
    for _ in range(r.choice((1, 1, 2, 4))):
        k = r.randrange(len(data))
        if r.random() < 0.5:
            b = 1 << r.randrange(8); data[k] ^= b; what.append("bit %d of byte %d" % (b.bit_length() - 1, k))
        else:
            v = r.randrange(256); data[k] = v; what.append("byte %d = %d" % (k, v))
    open(path, "wb").write(bytes(data))
    return ", ".join(what)

def legacy_copy(src, dst):
    # the old format: earliest HDF5 file format, variable-length strings (as bte wrote before)
    with h5py.File(src, "r") as a, h5py.File(dst, "w", libver="earliest") as b:
        def copy_attrs(x, y):
            for k, v in x.attrs.items():
                y.attrs[k] = text(v) if isinstance(v, bytes) else v
        copy_attrs(a, b)
        def visit(name, obj):
            if isinstance(obj, h5py.Group):
                y = b.create_group(name, track_order=True) if name == "model" else b.create_group(name)
            else:
                y = b.create_dataset(name, data=obj[()], chunks=obj.chunks)
            copy_attrs(obj, y)
        a.visititems(visit)

def table_paths(path):
    out = []
    with h5py.File(path, "r") as f:
        def add(name, obj):
            if isinstance(obj, h5py.Dataset): out.append(name)
            out.extend(name + "@" + k for k in obj.attrs)
        out.extend("/@" + k for k in f.attrs)
        f.visititems(add)
    return out

def main():
    ok = True
    t_start = time.time()
    T = "table.h5"
    base = ["-bte_view", "0"]
    rc, clean_info, _ = run(["info", "-bte_input", T, "-bte_info_channels", "1"])
    assert rc == 0, clean_info
    legacy_copy(T, "legacy.h5")
    rc, legacy_info, _ = run(["info", "-bte_input", "legacy.h5", "-bte_info_channels", "1"])
    same = rc == 0 and legacy_info.replace("legacy.h5", T) == clean_info
    print(("ok   " if same else "FAIL ") + "a table in the old format (earliest HDF5 format, variable-length strings) reads as the new one: identical 'bte info'")
    ok &= same
    clean_table = table_values(T)
    assert table_values("legacy.h5") == clean_table
    R = "restart.h5"
    dyn = ["dynamics", "-bte_input", T] + base + ["-bte_output_interval", "10", "-bte_time_step", "1"]
    rc, out, _ = run(dyn + ["-bte_final_time", "20", "-bte_output", R])
    assert rc == 0, out
    clean_restart = restart_values(R, clean_table)
    dyn_restart = dyn + ["-bte_init", "restart", "-bte_final_time", "30", "-bte_output", "cont.h5"]
    rc, clean_dyn, _ = run(dyn_restart + ["-bte_restart", R])
    assert rc == 0, clean_dyn
    monitor = lambda s: [l for l in s.splitlines() if l.startswith("  t ")]
    kinds = {}
    for case in range(NCASES):
        r = random.Random(rng.random())
        target = ("table", "legacy", "restart")[case % 3]
        src = {"table": T, "legacy": "legacy.h5", "restart": R}[target]
        m = "m%d.h5" % case
        shutil.copy(src, m)
        how = "flip" if r.random() < 0.5 else "value"
        desc = flip_bytes(m, r) if how == "flip" else mutate_values(m, table_paths(src) if target != "restart" else [p for p in table_paths(src) if p.startswith("dynamics/") and "/cost" not in p and "diagnostics" not in p], r)
        if target == "restart":
            ver, why = verdict(lambda p: restart_values(p, clean_table), m, clean_restart)
            rc, out, dt = run(dyn_restart + ["-bte_restart", m])
            same_out = monitor(out) == monitor(clean_dyn)
        else:
            ver, why = verdict(table_values, m, clean_table)
            rc, out, dt = run(["info", "-bte_input", m, "-bte_info_channels", "1"])
            same_out = out.replace(m, T) == clean_info
        # the refusal: one "bte <command>: error: ..." line (HDF5 may print a note of its own at exit)
        errs = [l for l in out.splitlines() if l.startswith("bte ") and ": error: " in l]
        last = errs[0] if errs else (out.strip().splitlines()[-1] if out.strip() else "")
        bad = None
        if rc is None: bad = "hung (killed after %g s)" % TIMEOUT
        elif rc < 0 or rc >= 128: bad = "killed by a signal or sanitizer (exit %d)" % rc
        elif "AddressSanitizer" in out or "runtime error:" in out: bad = "sanitizer report"
        elif rc == 0 and ver == "invalid": bad = "exit 0 on an invalid file (%s)" % why
        elif rc == 0 and ver == "same" and not same_out: bad = "exit 0 with an output that differs from the clean run's on an unchanged file"
        elif rc != 0 and len(errs) != 1: bad = "refused without one error line"
        kinds[(ver, rc == 0)] = kinds.get((ver, rc == 0), 0) + 1
        print("%s %3d %-7s %-5s %-7s exit %-4s %4.1fs  %s%s" % ("FAIL" if bad else "ok  ", case, target, how, ver, rc, dt, desc[:70], (": " + bad) if bad else ""))
        if bad or rc != 0: print("       " + last[:200])
        ok &= bad is None
        if not bad: os.remove(m)
    print("verdicts (validity, exit 0): %s; %.0f s" % (", ".join("%s/%s: %d" % (k[0], "0" if k[1] else "!0", v) for k, v in sorted(kinds.items())), time.time() - t_start))
    sys.exit(0 if ok else 1)

main()
