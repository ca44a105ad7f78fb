#!/usr/bin/env python3
"""Work-precision study of time integrators for bte dynamics (docs/timestepping.md).

    scripts/study.py STUDY.json [--bte build/bin/bte] [--out DIR] [--np N] [--mpiexec CMD]
                                [--extra OPTIONS] [--reuse | --overwrite | --only-existing | --plot-only]

STUDY.json names the problem (the options every run shares: table or model, initial state,
sources, final time, output interval), the reference, and the integrator configurations:

    {
      "title": "parabolic valley, hot electrons, 1 ps",
      "common": "-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_init gaussian -bte_init_e0_edge 0.1 -bte_init_occupation 0.5 -bte_final_time 1000",
      "output_interval": 100,
      "reference": {"options": "-ts_type rk -ts_rk_type 4 -ts_adapt_type none", "dt": 0.25},
      "methods": [
        {"name": "RK4 fixed", "options_file": "options/rk4-fixed.opts",
         "sweep": {"option": "-ts_dt", "values": [1, 2, 4, 8]}},
        {"name": "RK 5(4) basic", "options": "-ts_type rk -ts_rk_type 5dp -ts_adapt_type basic",
         "sweep": {"option": "-ts_rtol", "values": [1e-4, 1e-6, 1e-8], "scale": {"-ts_atol": 1e-3}}}
      ],
      "baseline": "RK4 fixed", "max_error": 1e-3
    }

A relative options file ("options_file", or -options_file in any options string) is looked for
next to the study file, then in the repository (the folder above scripts/), wherever the study is
run from: the example's options/rk4-fixed.opts is the repository's. The whole study file is checked
before anything runs (unknown keys, a method without a name, a sweep without an option or values,
"methods": [], a text where a number belongs, an options file found in neither place): one line
naming the problem, exit status 1.

The reference is one run of the same problem with the reference's options and step (by default
classical RK4 at a fixed 0.25 fs; a tight-tolerance high-order run is the other choice), written
to REF.h5 with snapshots every output_interval. Every configuration (a method and one value of
its sweep; "scale" sets other options to the value times a factor) then runs with
-bte_reference REF.h5 -bte_summary RUN.json; its error is the largest max|f - f_ref| over the
snapshots, its cost the collision applies plus the collision-Jacobian applies (each costs one pass
over the scattering channels) and the stepping wall time, all from the summary, and the CPU time
of the whole run (all ranks, setup included: on a shared machine the wall time measures the
neighbours as much as the method; on a quiet one they agree). A run that fails
(unstable step, failed solve, or longer than the study's "timeout" in seconds) is recorded as
failed and not plotted, and so is a run that stopped before the reference's final time (its
summary's complete false, e.g. -ts_max_steps, or another final time): its cost would be that of
part of the interval. Every time a run is compared at must be a snapshot of the reference (the
output interval and a split run's "until" multiples of the reference's output interval), or the
study is refused: between snapshots the reference is interpolated, and the interpolation's error
would be read as the method's. A method with an assembled collision Jacobian (-bte_jacobian_assembled)
should set "count_linear": true, so that each linear iteration (a MatMult on the assembled
matrix, which the summary does not count as a Jacobian apply) counts as one apply. A method with
"first_leg": {"until": T, "options": "..."} is a split run: the first leg's options (e.g. an
explicit method through a pump pulse) up to T fs, then the method's own options (swept) from that
state to the final time (-bte_init restart); its cost is the sum of the two legs', its error the
larger of the two legs' (the first leg is compared at 0 and T, the second at T + k output_interval
and the final time, the restart state included: give the reference snapshots at those times with
"reference": {"output_interval": ...}, e.g. 50 fs, so that no comparison interpolates it).

What made each result is kept beside it: DIR/reference.cmd.json records the reference's bte
options (the launcher and the driver's path aside; an options file by its content) and the
SHA-256 of reference.h5, and TAG.cmd.json each run's options and the reference it was compared
with. An existing reference is used only when it was made by the same options, is unchanged and
complete (its run reached the final time); otherwise it is made again, with a line saying why
("remake_reference": true in the study makes it again on every call, e.g. after bte was rebuilt:
the driver's path is not part of the record). A
directory that already holds a study's results (study.csv/.json/.md or run summaries) is refused
unless --reuse (keep each run whose summary was made by the same options against the same
reference, make the others again, and write the tables again from them) or --overwrite (make every
run again); --only-existing tabulates only the runs that pass the same test.

Writes DIR/study.csv, DIR/study.json, DIR/study.md (the tables in Markdown) and DIR/study.png
(error vs applies and vs stepping wall time, one curve per method), and prints, for each method, the cheapest run at least as accurate as the
baseline method's largest stable step (its cheapest run that completes with an error below
"max_error", default 1e-3: a step that stays finite but is off by more is not a usable step),
with its cost relative to that step.

Only the PNG needs more than Python's standard library (matplotlib; numpy is not used): on a
machine without it (a GPU node's stock python3), run with --no-plot (or let it skip the PNG with a
note), copy DIR back and draw the plot there with --plot-only, which reads DIR/study.json and needs
neither the driver nor the reference:

    scripts/study.py STUDY.json --bte build/bin/bte --out DIR --no-plot --extra '-vec_type cuda'   # there
    scripts/study.py STUDY.json --out DIR --plot-only                                               # here
"""
import argparse, csv, hashlib, json, math, os, re, resource, shlex, subprocess, sys, time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STUDY_KEYS = ("title", "common", "output_interval", "reference", "methods", "baseline", "max_error", "target_error",
              "timeout", "remake_reference")
METHOD_KEYS = ("name", "options", "options_file", "sweep", "fixed", "count_linear", "first_leg")


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, log, timeout=None):
    """run cmd with its output in log; the exit status and the CPU seconds it used (all ranks)"""
    c0 = cpu_children()
    rc = run_(cmd, log, timeout)
    return rc, cpu_children() - c0


def run_(cmd, log, timeout):
    with open(log, "w") as fp:
        try:
            p = subprocess.run(cmd, stdout=fp, stderr=subprocess.STDOUT, timeout=timeout)
        except subprocess.TimeoutExpired:
            fp.write("error: timed out after %g s (the study's \"timeout\")\n" % timeout)
            return 124
    return p.returncode


def last_error_line(log, rc=None):
    """the last line of log that names an error; else the exit status (or signal) and the log's last line"""
    try:
        text = [l.strip() for l in open(log)]
    except OSError:
        return "no log"
    lines = [l for l in text if "error" in l.lower()]
    if lines:
        return lines[-1]
    last = [l for l in text if l]
    how = "exit nonzero" if rc is None else ("killed by signal %d" % -rc if rc < 0 else "exit status %d" % rc)
    return how + (" (last line: %s)" % last[-1][:200] if last else "")


class StudyError(Exception):
    """A study file that cannot be run: the message names the problem."""


def resolve(f, base):
    """A relative options file next to the study file (base), else in the repository; None if neither has it."""
    if os.path.isabs(f):
        return f if os.path.exists(f) else None
    for d in (base, REPO):
        if os.path.exists(os.path.join(d, f)):
            return os.path.join(d, f)
    return None


def split_options(text, what, base, files=True):
    """The options of a study string as arguments, each -options_file resolved (resolve()); StudyError
    for unbalanced quotes or an options file found in neither place (files=False: not looked for)."""
    if not isinstance(text, str):
        raise StudyError("%s is %r: give the options as one string" % (what, text))
    try:
        o = shlex.split(text)
    except ValueError as e:
        raise StudyError("%s: %s" % (what, e))
    for i, x in enumerate(o):
        if x == "-options_file":
            if i + 1 == len(o):
                raise StudyError("%s ends with -options_file: give its file" % what)
            if files:
                f = resolve(o[i + 1], base)
                if f is None:
                    raise StudyError("%s: the options file %s is neither next to the study (%s) nor in the repository (%s)" % (what, o[i + 1], base, REPO))
                o[i + 1] = f
    return o


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def tag_of(name, value):
    """A run's file name from its method and setting (so that a study split into parts, or extended,
    finds its runs again)."""
    return re.sub(r"[^A-Za-z0-9.+-]+", "_", "%s_%s" % (name, value)).strip("_")


def check_study(st, base, files=True):
    """Refuses (StudyError) what a study file gets wrong before anything runs: every key, type and
    name the runs use; files=False leaves out the options files (--plot-only runs nothing)."""
    if not isinstance(st, dict):
        raise StudyError("is not a JSON object")
    for key in ("common", "methods"):
        if key not in st:
            raise StudyError("has no \"%s\"" % key)

    def keys(d, known, what):
        if not isinstance(d, dict):
            raise StudyError("%s is %r: expected a JSON object" % (what, d))
        for k in d:
            if k not in known:
                raise StudyError("%s has an unknown key \"%s\" (known: %s)" % (what, k, ", ".join(known)))

    def number(d, k, what, positive=True):
        if k in d and not (is_number(d[k]) and (d[k] > 0 or not positive)):
            raise StudyError("%s \"%s\" is %r: give a %snumber" % (what, k, d[k], "positive " if positive else ""))

    def flag(d, k, what):
        if k in d and not isinstance(d[k], bool):
            raise StudyError("%s \"%s\" is %r: give true or false" % (what, k, d[k]))

    keys(st, STUDY_KEYS, "the study")
    split_options(st["common"], "\"common\"", base, files)
    for k in ("output_interval", "max_error", "target_error", "timeout"):
        number(st, k, "the study's")
    flag(st, "remake_reference", "the study's")
    if "title" in st and not isinstance(st["title"], str):
        raise StudyError("\"title\" is %r: give a string" % (st["title"],))
    ref = st.get("reference", {})
    keys(ref, ("options", "dt", "output_interval"), "\"reference\"")
    if "options" in ref:
        split_options(ref["options"], "the reference's \"options\"", base, files)
    for k in ("dt", "output_interval"):
        number(ref, k, "the reference's")
    ms = st["methods"]
    if not isinstance(ms, list) or not ms:
        raise StudyError("\"methods\" is %r: give a list of at least one method" % (ms,))
    names, tags = set(), {}
    for i, m in enumerate(ms):
        what = "methods[%d]" % i
        keys(m, METHOD_KEYS, what)
        if not isinstance(m.get("name"), str) or not m["name"].strip():
            raise StudyError("%s has no \"name\" (a non-empty string)" % what)
        what = "method \"%s\"" % m["name"]
        if m["name"] in names:
            raise StudyError("two methods are named \"%s\"" % m["name"])
        names.add(m["name"])
        split_options(m.get("options", ""), "%s: \"options\"" % what, base, files)
        if "options_file" in m:
            if not isinstance(m["options_file"], str):
                raise StudyError("%s: \"options_file\" is %r: give a file name" % (what, m["options_file"]))
            if files and resolve(m["options_file"], base) is None:
                raise StudyError("%s: the options file %s is neither next to the study (%s) nor in the repository (%s)" % (what, m["options_file"], base, REPO))
        for k in ("fixed", "count_linear"):
            flag(m, k, what + ":")
        values = [None]
        if "sweep" in m:
            sw = m["sweep"]
            keys(sw, ("option", "values", "scale"), what + ": \"sweep\"")
            if not isinstance(sw.get("option"), str) or not sw["option"].startswith("-"):
                raise StudyError("%s: the sweep has no \"option\" (an option such as -ts_dt)" % what)
            values = sw.get("values")
            if not isinstance(values, list) or not values or not all(is_number(v) for v in values):
                raise StudyError("%s: the sweep's \"values\" is %r: give a list of numbers" % (what, values))
            sc = sw.get("scale", {})
            if not isinstance(sc, dict) or not all(isinstance(k, str) and k.startswith("-") and is_number(v) for k, v in sc.items()):
                raise StudyError("%s: the sweep's \"scale\" is %r: give {\"-option\": factor, ...}" % (what, sc))
        if "first_leg" in m:
            leg = m["first_leg"]
            keys(leg, ("until", "options"), what + ": \"first_leg\"")
            if not (is_number(leg.get("until")) and leg["until"] > 0):
                raise StudyError("%s: first_leg \"until\" is %r: give the time (fs) the first leg ends" % (what, leg.get("until")))
            split_options(leg.get("options", ""), "%s: first_leg \"options\"" % what, base, files)
        if len(set(values)) != len(values):
            raise StudyError("%s: the sweep's \"values\" %r list a value twice" % (what, values))
        for v in values:
            t = tag_of(m["name"], v)
            if t in tags:
                raise StudyError("%s and %s both write the run %s: give the methods names that differ in letters or digits" % (tags[t], what, t))
            tags[t] = what
    if "baseline" in st and st["baseline"] not in names:
        raise StudyError("the baseline %r is none of the methods' names" % (st["baseline"],))


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fp:
        for b in iter(lambda: fp.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def identity(args, out):
    """What determines a run's results, to compare with a record: its bte arguments, with the paths in
    the output directory relative to it and each options file by its content (so that a directory
    copied elsewhere, or another launcher or driver path, still matches)."""
    prefix = os.path.join(out, "")
    r = []
    for i, x in enumerate(args):
        if i and args[i - 1] == "-options_file":
            try:
                x = "sha256:" + sha256(x)
            except OSError:
                pass
        elif x.startswith(prefix):
            x = "$OUT/" + x[len(prefix):]
        r.append(x)
    return r


def read_json(path):
    """A JSON file, or None where it is missing or unreadable."""
    try:
        with open(path) as fp:
            return json.load(fp)
    except (OSError, ValueError):
        return None


def difference(old, new):
    """Where two argument lists first differ, in a few words."""
    i = next((i for i, (x, y) in enumerate(zip(old, new)) if x != y), min(len(old), len(new)))
    return "'%s' then, '%s' now" % (" ".join(old[max(i - 1, 0):i + 2]), " ".join(new[max(i - 1, 0):i + 2]))


def ratio_text(r):
    """The baseline's applies over a run's, as "2.50x fewer", "1.22x more" or "as many"."""
    if abs(r - 1) < 5e-3:
        return "as many"
    return "%.2fx fewer" % r if r > 1 else "%.2fx more" % (1 / r)


def plot(st, rows, refdesc, out):
    """DIR/study.png from the rows (error vs applies and vs stepping wall time); False, with a note,
    where this Python has no matplotlib"""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("study.py: no matplotlib in %s: no study.png (draw it later where there is one: --plot-only)" % sys.executable, file=sys.stderr)
        return False
    fig, ax = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    marks = "os^vD<>px*hH+"
    for i, m in enumerate(st["methods"]):
        ok = sorted([r for r in rows if r["method"] == m["name"] and r["status"] == "ok" and r["error_max"] > 0], key=lambda r: r["applies"])
        if not ok:
            continue
        kw = dict(marker=marks[i % len(marks)], label=m["name"], ls="--" if m.get("fixed") else "-")
        ax[0].loglog([r["applies"] for r in ok], [r["error_max"] for r in ok], **kw)
        ax[1].loglog([max(r["wall_stepping"], 1e-4) for r in ok], [r["error_max"] for r in ok], **kw)
    ax[0].set_xlabel("collision + Jacobian applies")
    ax[1].set_xlabel("stepping wall time (s)")
    ax[0].set_ylabel("max over snapshots of max|f - f_ref|")
    for x in ax:
        x.grid(True, which="major", alpha=0.4)
    ax[1].legend(fontsize=7, loc="best")
    fig.suptitle("%s (reference: %s)" % (st.get("title", ""), refdesc), fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "study.png"), dpi=110)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("study", help="study description (JSON)")
    ap.add_argument("--bte", default=os.environ.get("BTE", "build/bin/bte"), help="the bte driver")
    ap.add_argument("--out", default="study", help="output directory")
    ap.add_argument("--np", type=int, default=1, help="MPI ranks per run (with --mpiexec)")
    ap.add_argument("--mpiexec", default=os.environ.get("MPIEXEC", ""), help="launcher, e.g. mpiexec")
    ap.add_argument("--extra", default="", help="options appended to every run (e.g. -vec_type cuda)")
    ap.add_argument("--no-plot", action="store_true", help="no PNG")
    ap.add_argument("--reuse", action="store_true", help="keep the runs whose summary in the output directory was made by the same options against the same reference; make the others again")
    ap.add_argument("--overwrite", action="store_true", help="make every run again in an output directory that holds an earlier study's results")
    ap.add_argument("--only-existing", action="store_true", help="run nothing: tabulate the summaries already there that --reuse would keep (others: not run)")
    ap.add_argument("--plot-only", action="store_true", help="run nothing: draw study.png from the study.json already in the output directory (written with --no-plot, e.g. where there is no matplotlib)")
    a = ap.parse_args()

    try:
        st = json.load(open(a.study))
    except (OSError, ValueError) as e:
        sys.exit("study.py: cannot read the study %s: %s" % (a.study, e))
    base = os.path.dirname(os.path.abspath(a.study))
    try:
        check_study(st, base, files=not a.plot_only)
        extra = shlex.split(a.extra)
    except StudyError as e:
        # "the study S has no ..." / "is not ...", else "the study S: methods[2] has no ..."
        sys.exit(("study.py: the study %s %s" if re.match(r"(has|is) ", str(e)) else "study.py: the study %s: %s") % (a.study, e))
    except ValueError as e:
        sys.exit("study.py: --extra %r: %s" % (a.extra, e))
    if a.plot_only:
        # needs neither the driver nor the reference: the rows of a study.json written elsewhere
        try:
            j = json.load(open(os.path.join(a.out, "study.json")))
        except (OSError, ValueError) as e:
            sys.exit("study.py: --plot-only, but cannot read %s: %s" % (os.path.join(a.out, "study.json"), e))
        if not plot(st, j["runs"], j.get("reference", ""), a.out):
            sys.exit(1)
        print("wrote %s/study.png" % a.out)
        return
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        sys.exit("study.py: --out %s is a file, not a directory" % a.out)
    if a.np < 1:
        sys.exit("study.py: --np %d: give at least 1 rank" % a.np)
    if a.np > 1 and not a.mpiexec:
        sys.exit("study.py: --np %d needs a launcher (--mpiexec mpiexec, or MPIEXEC in the environment)" % a.np)
    if a.overwrite and (a.reuse or a.only_existing):
        sys.exit("study.py: --overwrite makes every run again: give it without --reuse and --only-existing")
    if not os.access(a.bte, os.X_OK):
        sys.exit("study.py: the driver %s is not an executable (give --bte)" % a.bte)
    launch = (shlex.split(a.mpiexec) + ["-n", str(a.np)]) if a.mpiexec else []
    interval = float(st.get("output_interval", 50))
    common = split_options(st["common"], "common", base) + ["-bte_view", "0", "-bte_dynamics_monitor", "0",
                                                            "-bte_output_interval", repr(interval)] + extra

    def opts_of(m):
        o = []
        if m.get("options_file"):
            o += ["-options_file", resolve(m["options_file"], base)]
        return o + split_options(m.get("options", ""), "options", base)

    # every configuration of the study, in order: (method, sweep value, run name)
    configs = [(m, v, tag_of(m["name"], v)) for m in st["methods"] for v in m.get("sweep", {}).get("values", [None])]

    # an earlier study's results are replaced only when asked (--reuse, --overwrite, --only-existing)
    tables = [n for n in ("study.csv", "study.json", "study.md") if os.path.exists(os.path.join(a.out, n))]
    summaries = [t for _, _, t in configs if os.path.exists(os.path.join(a.out, t + ".json"))]
    if (tables or summaries) and not (a.reuse or a.overwrite or a.only_existing):
        sys.exit("study.py: %s holds an earlier study's results (%s): give --reuse to keep the runs made by the same options "
                 "and make the others again, --overwrite to make every run again, or another --out"
                 % (a.out, ", ".join(tables + ["%d run summar%s" % (len(summaries), "y" if len(summaries) == 1 else "ies")] if summaries else tables)))
    if a.overwrite and (tables or summaries):
        print("study.py: --overwrite: every run of %s is made again and the tables replaced" % a.out)
    os.makedirs(a.out, exist_ok=True)

    # the reference: made again unless reference.cmd.json says the same options made it, it is
    # unchanged since, and its run reached the final time (an incomplete one, e.g. stopped by
    # -ts_max_steps or killed, holds fewer snapshots than the runs are compared at)
    ref = st.get("reference", {})
    refopts = split_options(ref.get("options", "-ts_type rk -ts_rk_type 4 -ts_adapt_type none"), "reference", base)
    refdt = float(ref.get("dt", 0.25))
    refint = float(ref.get("output_interval", interval))
    refh5 = os.path.join(a.out, "reference.h5")
    refjs, refrec = os.path.join(a.out, "reference.json"), os.path.join(a.out, "reference.cmd.json")
    refargs = ["dynamics"] + common + refopts + ["-ts_dt", repr(refdt), "-bte_output", refh5,
                                                 "-bte_output_interval", repr(refint),
                                                 "-bte_summary", refjs]
    refdesc = "%s, step %g fs" % (" ".join(refopts), refdt) + ("; every run with %s" % a.extra if a.extra.strip() else "")

    def on_reference(t):
        """t is a snapshot time of the reference (a multiple of its output interval)"""
        k = t / refint
        return abs(k - round(k)) <= 1e-9 * max(1.0, abs(k))
    if not on_reference(interval):
        sys.exit("study.py: the study's output_interval %g fs is not a multiple of the reference's %g fs: the runs would be compared "
                 "with the reference interpolated between its snapshots, and the interpolation's error read as theirs" % (interval, refint))
    for m in st["methods"]:
        if m.get("first_leg") and not on_reference(float(m["first_leg"]["until"])):
            sys.exit("study.py: method %s: first_leg until %g fs is not a multiple of the reference's output interval %g fs "
                     "(give \"reference\": {\"output_interval\": ...} that divides it)" % (m["name"], float(m["first_leg"]["until"]), refint))
    refid = identity(refargs, a.out)

    def reference_complete(js):
        """the reference's summary says its run reached the final time (older bte: CONVERGED_TIME)"""
        return bool(js) and js.get("complete", js.get("converged_reason") == "CONVERGED_TIME") is True

    why = None  # why the existing reference is not used
    rec = read_json(refrec)
    if not os.path.exists(refh5):
        why = "" if not os.path.exists(refrec) else "reference.h5 is missing"
    elif st.get("remake_reference", False):
        why = "the study asks for it (\"remake_reference\")"
    elif not isinstance(rec, dict) or "command" not in rec or "sha256" not in rec:
        why = "nothing records the options that made it (reference.cmd.json)"
    elif rec["command"] != refid:
        why = "it was made by other options (%s)" % difference(rec["command"], refid)
    elif not reference_complete(read_json(refjs)):
        why = "its run did not reach the final time (reference.json: complete false, or missing)"
    elif sha256(refh5) != rec["sha256"]:
        why = "it changed after it was made (its SHA-256 differs from reference.cmd.json's)"
    if why is not None and a.only_existing:
        sys.exit("study.py: --only-existing, but %s" % ("there is no reference %s" % refh5 if not why else "the reference %s cannot be used: %s" % (refh5, why)))
    if why is not None:
        if why:
            print("reference: making %s again: %s" % (refh5, why))
        for f in (refh5, refjs, refrec):
            if os.path.exists(f):
                os.remove(f)
        t0 = time.time()
        rc, _ = run(launch + [a.bte] + refargs, os.path.join(a.out, "reference.log"))
        if rc:
            sys.exit("study.py: the reference run failed: %s (%s)" % (last_error_line(os.path.join(a.out, "reference.log"), rc), os.path.join(a.out, "reference.log")))
        js = read_json(refjs)
        if not reference_complete(js):
            js = js or {}
            sys.exit("study.py: the reference run stopped before its final time (%s: complete %s, %s at %s fs): check the reference's options and --extra (e.g. -ts_max_steps)"
                     % (refjs, json.dumps(js.get("complete")), js.get("converged_reason"), js.get("final_time")))
        refsha = sha256(refh5)
        json.dump({"command": refid, "sha256": refsha}, open(refrec, "w"), indent=1)
        print("reference: %s (%.1f s)" % (refdesc, time.time() - t0))
    else:
        refsha = rec["sha256"]
        print("reference: %s (existing %s, made by the same options)" % (refdesc, refh5))
    reffinal = (read_json(refjs) or {}).get("final_time")  # every run must get there too

    def stopped_early(js, until=None):
        """why the run of summary js did not cover the interval it is compared over, or None"""
        end = until if until is not None else reffinal
        if js.get("complete") is False:
            return "stopped at %s of %s fs (%s)" % (js.get("final_time"), end, js.get("converged_reason"))
        if end is not None and js.get("final_time") is not None and abs(float(js["final_time"]) - float(end)) > 1e-9 * max(1.0, abs(float(end))):
            return "ended at %s fs, not at the reference's %s fs" % (js.get("final_time"), end)
        return None

    def run_split(leg, cmds, tag, sj, log):
        """a split run: the first leg's options up to leg["until"] fs (written to TAG.leg1.h5),
        then the method's options from its last snapshot (-bte_init restart) to the final time, both
        against the reference (cmds: the two legs' arguments, legs_of); the summary sj adds up the
        legs' costs and takes the larger error"""
        h5, s1, s2 = (os.path.join(a.out, tag + x) for x in (".leg1.h5", ".leg1.json", ".leg2.json"))
        for f in (h5, s1, s2):
            if os.path.exists(f):
                os.remove(f)
        rc, cpu = run(launch + [a.bte] + cmds[0], os.path.join(a.out, tag + ".leg1.log"), st.get("timeout"))
        if rc:
            with open(log, "w") as fp:
                fp.write("first leg: %s\n" % last_error_line(os.path.join(a.out, tag + ".leg1.log")))
            return rc, cpu
        j1 = read_json(s1) or {}
        why = stopped_early(j1, float(leg["until"]))
        if why:
            with open(log, "w") as fp:
                fp.write("first leg: error: %s\n" % why)
            return 1, cpu
        rc, cpu2 = run(launch + [a.bte] + cmds[1], log, st.get("timeout"))
        if rc or not os.path.exists(s2):
            return rc or 1, cpu + cpu2
        j2 = json.load(open(s2))
        js = dict(j2)
        for k in ("steps", "rejected_steps", "collision_applies", "jacobian_applies", "linear_iterations"):
            js[k] = j1[k] + j2[k]
        js["wall_time"] = dict(j2["wall_time"])
        for k in ("setup", "stepping", "output", "total"):
            js["wall_time"][k] = j1["wall_time"][k] + j2["wall_time"][k]
        if js["wall_time"]["stepping"] > 0:
            js["wall_time"]["steps_per_second"] = js["steps"] / js["wall_time"]["stepping"]
        e1, e2 = j1["reference_error"], j2["reference_error"]
        mx = {k: (None if e1["max"][k] is None or e2["max"][k] is None else max(e1["max"][k], e2["max"][k])) for k in e2["max"]}
        js["reference_error"] = dict(e2, max=mx)
        js["legs"] = [{"until": float(leg["until"]), "summary": s1}, {"summary": s2}]
        json.dump(js, open(sj, "w"), indent=1)
        return 0, cpu + cpu2

    def legs_of(leg, o, tag):
        """the bte arguments of a split run's two legs"""
        h5, s1, s2 = (os.path.join(a.out, tag + x) for x in (".leg1.h5", ".leg1.json", ".leg2.json"))
        T = float(leg["until"])
        lo = split_options(leg.get("options", ""), "first_leg", base) + ["-bte_final_time", repr(T), "-bte_output_interval", repr(T)]
        return (["dynamics"] + common + lo + ["-bte_output", h5, "-bte_reference", refh5, "-bte_summary", s1],
                ["dynamics"] + common + o + ["-bte_init", "restart", "-bte_restart", h5, "-bte_reference", refh5, "-bte_summary", s2])

    rows = []
    for m, v, tag in configs:
        sw = m.get("sweep", {})
        o = opts_of(m)
        if v is not None:
            o += [sw["option"], repr(v)]
            for opt, fac in sw.get("scale", {}).items():
                o += [opt, repr(v * fac)]
        sj, log = os.path.join(a.out, tag + ".json"), os.path.join(a.out, tag + ".log")
        rec_file = os.path.join(a.out, tag + ".cmd.json")
        if m.get("first_leg"):
            cmds = list(legs_of(m["first_leg"], o, tag))
        else:
            cmds = [["dynamics"] + common + o + ["-bte_reference", refh5, "-bte_summary", sj]]
        record = {"commands": [identity(c, a.out) for c in cmds], "reference_sha256": refsha}
        row = {"method": m["name"], "option": sw.get("option", ""), "value": v, "run": tag, "status": "ok"}
        cpufile = os.path.join(a.out, tag + ".cpu")
        # a summary counts only with the record of the options that made it, against this reference
        recd = read_json(rec_file)
        have = os.path.exists(sj) and recd == record
        # a failed run's log counts only where its record says these options made it (a run
        # without a record: stopped from outside, or made before failed runs were recorded)
        failed_here = not os.path.exists(sj) and os.path.exists(log) and (recd == record or recd is None)
        if (a.reuse or a.only_existing) and (os.path.exists(sj) or recd is not None) and recd != record:
            print("%-28s %-10s %-10s %s" % (m["name"], row["option"], v, "its summary was made by other options or against another reference: " +
                                            ("not used" if a.only_existing else "made again")))
        if (a.reuse or a.only_existing) and (have or (failed_here and a.only_existing)):
            rc = 0 if have else 1
            row["cpu_total"] = float(open(cpufile).read()) if os.path.exists(cpufile) else None
            if not have and last_error_line(log) == "exit nonzero":  # a log without an error: stopped from outside
                row["status"] = "not finished"
                rows.append(row)
                print("%-28s %-10s %-10s not finished" % (m["name"], row["option"], v))
                continue
        elif a.only_existing:
            row["status"] = "not run"
            rows.append(row)
            print("%-28s %-10s %-10s not run" % (m["name"], row["option"], v))
            continue
        else:
            for f in (sj, rec_file):
                if os.path.exists(f):
                    os.remove(f)
            if m.get("first_leg"):
                rc, cpu = run_split(m["first_leg"], cmds, tag, sj, log)
            else:
                rc, cpu = run(launch + [a.bte] + cmds[0], log, st.get("timeout"))
            row["cpu_total"] = cpu
            open(cpufile, "w").write("%.3f\n" % cpu)
            json.dump(record, open(rec_file, "w"), indent=1)  # failed runs too: --only-existing checks their log against it
        s = read_json(sj) if not rc and os.path.exists(sj) else None
        early = stopped_early(s) if s else None
        if rc or not s:
            row["status"] = "failed: " + last_error_line(log, rc or None)
        elif early:
            row["status"] = "failed: " + early
        else:
            re_ = s["reference_error"]
            row.update(steps=s["steps"], rejected=s["rejected_steps"], collision_applies=s["collision_applies"],
                       jacobian_applies=s["jacobian_applies"],
                       # an assembled Jacobian is applied by MatMult on AIJ, not counted as a
                       # Jacobian apply: "count_linear" counts one per linear iteration instead
                       applies=s["collision_applies"] + s["jacobian_applies"] + (s["linear_iterations"] if m.get("count_linear") else 0),
                       linear_iterations=s["linear_iterations"], wall_stepping=s["wall_time"]["stepping"],
                       error_max=re_["max"]["f_max"], error_final=re_["final"]["f_max"],
                       error_rel_l2_max=re_["max"]["f_l2_relative"])
            if row["error_max"] is None:  # NaN or Inf in the summary
                row["status"] = "failed: error not finite"
        rows.append(row)
        if row["status"] == "ok":
            print("%-28s %-10s %-10s applies %8d (+%8d Jac)  error %.2e  stepping %.3f s" % (
                m["name"], row["option"], v, row["collision_applies"], row["jacobian_applies"], row["error_max"], row["wall_stepping"]))
        else:
            print("%-28s %-10s %-10s %s" % (m["name"], row["option"], v, row["status"]))

    okrows = [r for r in rows if r["status"] == "ok"]
    if okrows and all(r["error_max"] == 0 for r in okrows):
        print("\nstudy.py: WARNING every run's error is 0: the runs do not differ from the reference at all (a problem without "
              "carriers or dynamics? check the common options and the runs' logs)")
    # equal accuracy: the baseline's largest stable step sets the target error; a study's
    # "target_error" adds a second comparison at that error (still against that step's cost)
    bname = st.get("baseline", st["methods"][0]["name"])
    maxerr = float(st.get("max_error", 1e-3))
    bl = [r for r in rows if r["method"] == bname and r["status"] == "ok" and r["error_max"] <= maxerr]

    def compare(b, target, what):
        print("\nat %s (%.2e), against %s at %s %s (%d applies, %.3f s):" % (what, target, bname, b["option"], b["value"], b["applies"], b["wall_stepping"]))
        out = []
        for m in st["methods"]:
            ok = [r for r in rows if r["method"] == m["name"] and r["status"] == "ok" and r["error_max"] <= target * (1 + 1e-9)]
            if not ok:
                out.append({"method": m["name"], "reached": False})
                print("  %-28s does not reach it" % m["name"])
                continue
            c = min(ok, key=lambda r: r["applies"])
            e = {"method": m["name"], "reached": True, "option": c["option"], "value": c["value"], "applies": c["applies"],
                 "error_max": c["error_max"], "wall_stepping": c["wall_stepping"], "applies_ratio": b["applies"] / c["applies"],
                 "wall_ratio": b["wall_stepping"] / c["wall_stepping"] if c["wall_stepping"] > 0 else None}
            out.append(e)
            print("  %-28s %s %-8s %8d applies (%s), error %.2e, %.3f s" % (
                m["name"], c["option"], c["value"], c["applies"], ratio_text(e["applies_ratio"]), c["error_max"], c["wall_stepping"]))
        return {"target": target, "what": what, "methods": out}

    comparisons = []
    if not bl:
        print("\nno comparison at equal accuracy: the baseline %s has no run that completed with an error below max_error %.1e" % (bname, maxerr))
    if bl:
        b = min(bl, key=lambda r: r["applies"])
        comparisons.append(compare(b, b["error_max"], "the error of %s at its largest usable step" % bname))
        if "target_error" in st:
            comparisons.append(compare(b, float(st["target_error"]), "the error target"))
    summary = comparisons[0]["methods"] if comparisons else []
    keys = ["method", "option", "value", "status", "steps", "rejected", "collision_applies", "jacobian_applies", "applies",
            "linear_iterations", "wall_stepping", "cpu_total", "error_max", "error_final", "error_rel_l2_max", "run"]
    with open(os.path.join(a.out, "study.csv"), "w", newline="") as fp:
        w = csv.DictWriter(fp, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    # how the runs were launched (their costs depend on it; --reuse does not check it)
    json.dump({"title": st.get("title", ""), "reference": refdesc, "extra": a.extra, "ranks": a.np, "launcher": a.mpiexec,
               "omp_threads": os.environ.get("OMP_NUM_THREADS", ""), "baseline": bname, "runs": rows, "equal_accuracy": summary, "comparisons": comparisons},
              open(os.path.join(a.out, "study.json"), "w"), indent=1)
    # the same as Markdown tables (docs/timestepping.md is made of these)
    with open(os.path.join(a.out, "study.md"), "w") as fp:
        fp.write("| method | %s | steps | rejected | collision applies | Jacobian applies | linear its | error max\\|df\\| | stepping (s) |\n" % "setting")
        fp.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            setting = "%s %s" % (r["option"], r["value"]) if r["value"] is not None else ""
            if r["status"] != "ok":
                fp.write("| %s | %s | %s |||||||\n" % (r["method"], setting, r["status"].replace("|", "/")[:100]))
            else:
                fp.write("| %s | %s | %d | %d | %d | %d | %d | %.2e | %.2f |\n" % (r["method"], setting, r["steps"], r["rejected"], r["collision_applies"],
                         r["jacobian_applies"], r["linear_iterations"], r["error_max"], r["wall_stepping"]))
        for cmp in comparisons:
            fp.write("\nAt %s, %.1e: the cheapest run of each method at least as accurate\n\n" % (cmp["what"], cmp["target"]))
            fp.write("| method | setting | applies | applies against %s at its largest usable step | error | stepping (s) |\n|---|---|---|---|---|---|\n" % bname)
            for e in cmp["methods"]:
                if not e["reached"]:
                    fp.write("| %s | does not reach it |||||\n" % e["method"])
                else:
                    fp.write("| %s | %s %s | %d | %s | %.2e | %.2f |\n" % (e["method"], e["option"], e["value"], e["applies"], ratio_text(e["applies_ratio"]), e["error_max"], e["wall_stepping"]))
    png = False if a.no_plot else plot(st, rows, refdesc, a.out)
    print("\nwrote %s/study.csv, study.json, study.md%s%s" % (a.out, ", study.png" if png else "", " (replacing the earlier ones)" if tables else ""))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # the runs so far are kept: --reuse goes on from them
        sys.exit("\nstudy.py: interrupted; the finished runs are kept, and --reuse goes on from them")
