#!/usr/bin/env python3
"""Compare bte's interpolation of a Perturbo epr file with the reference outputs of an independent
interpolation (PyEPH's DNTT test files: band energies and phonon frequencies on a 511-point path,
band-averaged |g| at 10 x 10 (k, q) points of that path). docs/import.md gives the results.

    scripts/epr-compare.py DIR [--eval build/tests/epr_eval]

DIR holds DNTT_epr.h5, DNTT_band_energies.h5, DNTT_phdisp.h5 and DNTT_ephmat.h5 (a local copy;
the files are not part of bte). Needs numpy and h5py (scripts/find-python.sh finds a Python).

The references' conventions (read from their test scripts): the path has 11 high-symmetry points
(crystal coordinates), 51 steps per segment plus the end point; the (k, q) points are path indices
drawn with numpy.random.seed(0) (q first, then k); |g|_nu = sqrt(sum_mn |g_mn,nu|^2 / (2 w_nu) / nb)
in meV, zero for w_nu <= 1.5 meV, averaged over degenerate modes (|dw| <= 1e-12 Ry), with the
dipole-dipole phonon term on and the long-range (Frohlich) coupling off. Its Wannier-gauge
elements with iw > jw are the complex conjugates of Perturbo's (epr_eval -pyeph_conj reproduces
that); bte follows Perturbo, so both are reported.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import h5py

RY_MEV = 13605.698066  # the references' constant
HIGHSYM = [(0, 0, 0), (0, .5, 0), (0, .5, .5), (0, 0, .5), (0, 0, 0), (-.5, 0, .5), (-.5, .5, .5),
           (0, .5, 0), (-.5, .5, 0), (-.5, 0, 0), (0, 0, 0)]
QIDX = [283, 100, 37, 46, 401, 90, 238, 15, 250, 233]
KIDX = [335, 137, 299, 213, 45, 27, 273, 31, 342, 386]


def path():
    p = []
    for s in range(len(HIGHSYM) - 1):
        a, b = np.array(HIGHSYM[s], float), np.array(HIGHSYM[s + 1], float)
        for j in range(51):
            p.append(a + j / 51 * (b - a))
    p.append(np.array(HIGHSYM[-1], float))
    return np.array(p)


def run(ev, args, tmp):
    out = subprocess.run([ev] + args, capture_output=True, text=True, cwd=tmp)
    if out.returncode:
        sys.exit("epr_eval failed: " + out.stdout + out.stderr)
    return np.array([[float(x) for x in l.split()] for l in out.stdout.splitlines() if l.strip()])


def gmod(d, nm, nb):
    om, S = d[:, :nm], d[:, nm:]
    cut = 1.5 / RY_MEV
    gm2 = np.where(om > cut, S * 0.5 / np.where(om > cut, om, 1), 0.0)
    for r in range(len(om)):
        w, im = om[r], 0
        while im < nm:
            i = 0
            for j in range(im + 1, nm):
                if abs(w[j] - w[im]) > 1e-12:
                    break
                i += 1
            if i:
                gm2[r, im:im + i + 1] = gm2[r, im:im + i + 1].mean()
            im += i + 1
    return np.sqrt(gm2 / nb) * RY_MEV


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--eval", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "tests", "epr_eval"))
    a = ap.parse_args()
    ev, d = os.path.abspath(a.eval), os.path.abspath(a.dir)
    epr = os.path.join(d, "DNTT_epr.h5")
    # everything checked before the first evaluation (a missing file had ended in a traceback)
    need = [os.path.join(d, n) for n in ("DNTT_epr.h5", "DNTT_band_energies.h5", "DNTT_phdisp.h5", "DNTT_ephmat.h5")]
    missing = [n for n in need if not os.path.isfile(n)]
    if missing:
        sys.exit("epr-compare.py: %s lacks %s (the PyEPH test files, pyeph/post_qe2pert/test/)" % (d, ", ".join(os.path.basename(n) for n in missing)))
    if not os.access(ev, os.X_OK):
        sys.exit("epr-compare.py: the evaluator %s is not an executable (make, or give --eval)" % ev)
    P = path()
    with tempfile.TemporaryDirectory() as tmp:
        np.savetxt(os.path.join(tmp, "path.txt"), P, fmt="%.17g")
        np.savetxt(os.path.join(tmp, "k.txt"), P[KIDX], fmt="%.17g")
        np.savetxt(os.path.join(tmp, "q.txt"), P[QIDX], fmt="%.17g")
        with h5py.File(epr, "r") as f:
            nw, nat = int(f["basic_data/num_wann"][()]), int(f["basic_data/nat"][()])
        nm = 3 * nat
        print(f"{'quantity':38s} {'points':>8s} {'max |bte - ref|':>18s} {'ref scale':>12s}")
        b = run(ev, ["-epr", epr, "-what", "bands", "-points", "path.txt"], tmp)[:, :nw]
        ref = h5py.File(os.path.join(d, "DNTT_band_energies.h5"), "r")["band_energies"][:].T
        print(f"{'band energies (meV)':38s} {b.size:8d} {abs(b - ref).max() * RY_MEV:18.3g} {np.ptp(ref) * RY_MEV:12.4g}")
        p = run(ev, ["-epr", epr, "-what", "phonons", "-points", "path.txt"], tmp)
        ref = h5py.File(os.path.join(d, "DNTT_phdisp.h5"), "r")["frequencies"][:]
        print(f"{'phonon energies (meV)':38s} {p.size:8d} {abs(p - ref).max() * RY_MEV:18.3g} {ref.max() * RY_MEV:12.4g}")
        p0 = run(ev, ["-epr", epr, "-what", "phonons", "-points", "path.txt", "-polar", "0"], tmp)
        print(f"{'  (without the dipole-dipole term)':38s} {p.size:8d} {abs(p0 - ref).max() * RY_MEV:18.3g}")
        ref = np.transpose(h5py.File(os.path.join(d, "DNTT_ephmat.h5"), "r")["eph_matrix_elements"][:], (1, 2, 0)).reshape(-1, nm)
        for label, extra in (("|g| (meV), reference convention", ["-pyeph_conj", "-lr_eph", "0"]),
                             ("|g| (meV), Perturbo's convention", ["-lr_eph", "0"]),
                             ("|g| (meV), Perturbo's, with Frohlich", [])):
            g = gmod(run(ev, ["-epr", epr, "-what", "ephmat", "-kpoints", "k.txt", "-qpoints", "q.txt"] + extra, tmp), nm, nw)
            dd = abs(g - ref)
            big = ref > 1
            print(f"{label:38s} {g.size:8d} {dd.max():18.3g} {ref.max():12.4g}   median rel (|g|>1 meV) {np.median(dd[big] / ref[big]):.2g}")


if __name__ == "__main__":
    main()
