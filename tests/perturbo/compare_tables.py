#!/usr/bin/env python3
"""compare_tables.py A.h5 B.h5: two bte tables (docs/format.md) hold the same grid, states and
channels, up to round-off and the order of the channel rows.

- grid, the states' attributes, nmodes and the channel settings equal (reals to 1e-12 relative);
- states: kindex and band equal, energies to 1e-12 eV, velocities to 1e-10 of the largest |v|;
- channels, as sets: per pair (i, j) (normalised to i < j), the modes grouped by phonon energy
  (modes closer than 1e-9 eV are degenerate: their eigenvectors, hence their split of |g|^2, are
  arbitrary): the same groups, hw to 1e-10 eV, the sum of g2 over a group to 1e-10 relative plus
  1e-15 of the largest g2 (a small coupling left by cancellations carries the round-off of the
  large terms); the mode index of a non-degenerate group equal. Tolerated and reported:
  a degenerate group whose count differs (a mode of g2 = 0 in one eigenbasis), and a group in one
  table only whose g2 is below 1e-12 max g2 (a coupling that vanishes in exact arithmetic: round-off
  decides whether g2 > 0).
Exit 0 when they agree."""
import sys
from collections import defaultdict

import h5py
import numpy as np


def load(name):
    f = h5py.File(name, "r")
    t = {"f": f}
    st, ch = f["states"], f["channels"]
    t["kindex"], t["band"] = st["kindex"][:], st["band"][:]
    t["e"], t["v"] = st["energy"][:], st["velocity"][:]
    i, j = ch["i"][:], ch["j"][:]
    t["i"], t["j"] = np.minimum(i, j), np.maximum(i, j)
    t["mode"], t["hw"], t["g2"] = ch["mode"][:], ch["phonon_energy"][:], ch["g2"][:]
    return t


def groups(t):
    d = defaultdict(list)
    for c in range(len(t["i"])):
        d[(int(t["i"][c]), int(t["j"][c]))].append((t["hw"][c], t["g2"][c], int(t["mode"][c])))
    out = {}
    for key, lst in d.items():
        lst.sort()
        gl = []
        for hw, g2, mode in lst:
            if gl and abs(hw - gl[-1]["hw"]) < 1e-9:
                gl[-1]["g2"] += g2
                gl[-1]["n"] += 1
                gl[-1]["modes"].append(mode)
            else:
                gl.append({"hw": hw, "g2": g2, "n": 1, "modes": [mode]})
        out[key] = gl
    return out


def main(a, b):
    A, B = load(a), load(b)
    bad = []

    def check(cond, msg):
        print(("ok   " if cond else "FAIL ") + msg)
        if not cond:
            bad.append(msg)

    fa, fb = A["f"], B["f"]
    check(np.array_equal(fa["grid/nk"][:], fb["grid/nk"][:]) and fa["grid"].attrs["dim"] == fb["grid"].attrs["dim"], "grid nk %s, dim %d" % (fa["grid/nk"][:], fa["grid"].attrs["dim"]))
    for k in ("lattice", "reciprocal"):
        check(np.allclose(fa["grid/" + k][:], fb["grid/" + k][:], rtol=0, atol=1e-12 * np.abs(fa["grid/" + k][:]).max()), "grid %s" % k)
    check(abs(fa["grid"].attrs["volume"] / fb["grid"].attrs["volume"] - 1) < 1e-12, "cell volume %.6f" % fa["grid"].attrs["volume"])
    # strings: bytes from bte's fixed-length ones, str from h5py-written variable-length ones
    txt = lambda v: v.decode() if isinstance(v, bytes) else v
    for k in ("nbands", "spin_degeneracy", "carrier"):
        check(txt(fa["states"].attrs[k]) == txt(fb["states"].attrs[k]), "states %s = %s" % (k, txt(fa["states"].attrs[k])))
    for k in ("window_min", "window_max"):
        x, y = fa["states"].attrs[k], fb["states"].attrs[k]
        check(abs(x - y) < 1e-12, "%s %.12f vs %.12f eV" % (k, x, y))
    check(fa["phonons"].attrs["nmodes"] == fb["phonons"].attrs["nmodes"], "nmodes")
    for k in ("smearing", "phonon_min", "energy_tolerance"):
        check(abs(fa["channels"].attrs[k] - fb["channels"].attrs[k]) < 1e-15, "channels %s %g" % (k, fa["channels"].attrs[k]))
    ns = len(A["e"])
    same = ns == len(B["e"]) and np.array_equal(A["kindex"], B["kindex"]) and np.array_equal(A["band"], B["band"])
    check(same, "states: %d vs %d, the same (kindex, band)" % (ns, len(B["e"])))
    if not same:
        return 1
    de = np.abs(A["e"] - B["e"]).max()
    dv = np.abs(A["v"] - B["v"]).max() / np.abs(A["v"]).max()
    check(de < 1e-12, "energies: max diff %.1e eV (range %.4f .. %.4f eV)" % (de, A["e"].min(), A["e"].max()))
    check(dv < 1e-10, "velocities: max diff %.1e of max |v| = %.4f A/fs" % (dv, np.abs(A["v"]).max()))
    check(np.all(A["i"] != A["j"]) and np.all(B["i"] != B["j"]), "no channel with i == j")
    GA, GB = groups(A), groups(B)
    gmax = max(A["g2"].max(initial=0), B["g2"].max(initial=0))
    floor = 1e-12 * gmax   # below: |g|^2 that vanishes in exact arithmetic (round-off decides g2 > 0)
    dhw = dg = 0.0
    worst = None
    ndeg = nzero = nmiss = 0
    nok = True
    for key in set(GA) | set(GB):
        ga, gb = list(GA.get(key, [])), list(GB.get(key, []))
        while ga or gb:
            if ga and gb and abs(ga[0]["hw"] - gb[0]["hw"]) < 1e-9:
                x, y = ga.pop(0), gb.pop(0)
                dhw = max(dhw, abs(x["hw"] - y["hw"]))
                r = abs(x["g2"] - y["g2"]) / (max(abs(x["g2"]), abs(y["g2"])) + 1e-5 * gmax)
                if r > dg:
                    dg, worst = r, (key, x, y)
                if x["n"] == 1 and y["n"] == 1:
                    nok &= x["modes"] == y["modes"] or x["g2"] < floor
                elif x["n"] != y["n"]:
                    ndeg += 1
                    nzero += abs(x["n"] - y["n"])
            else:   # a group in one table only: it must be a round-off zero
                x = ga.pop(0) if ga and (not gb or ga[0]["hw"] < gb[0]["hw"]) else gb.pop(0)
                nmiss += x["n"]
                if not x["g2"] < floor:
                    nok = False
                    print("     pair %s: group %s in one table only" % (key, x))
    check(nok, "channels: the same (state pair, phonon energy) groups and the same mode of each non-degenerate one")
    check(dhw < 1e-10, "phonon energies: max diff %.1e eV" % dhw)
    check(dg < 1e-10, "g2 summed over degenerate modes: max |diff| / (g2 + 1e-5 max g2) = %.1e (max g2 %.3g eV^2)" % (dg, gmax))
    if dg >= 1e-10:
        print("     worst: pair %s: %s vs %s" % worst)
    print("     %d vs %d channels, %d state pairs; in one table only: %d channels of round-off g2 (< %.1e eV^2), %d modes of degenerate groups"
          % (len(A["i"]), len(B["i"]), len(set(GA) | set(GB)), nmiss, floor, nzero))
    check(abs(len(A["i"]) - len(B["i"])) <= nmiss + nzero, "channel counts agree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
