# Perturbo epr interpolation (build/tests/epr_eval) against closed forms, on fixtures written by
# tests/perturbo/make_epr.py (its docstring gives the models and their closed forms):
#  cubic, ortho (orthorhombic), square2d (2D): bands E(k) and velocities dE/dk (Ry bohr, Cartesian),
#    phonons omega^2(q), couplings S_nu = sum_mn |g_mn,nu|^2 (ephmat) at random k, q (crystal,
#    [-1, 1)); the long-range vertex is zero for these non-polar files;
#  polar, polar_aniso, polar2w (2 Wannier functions): the same quantities against a direct evaluation in Python of the models'
#    lattice sums plus Perturbo's long-range formulas (dipole-dipole D_LR with its on-site term,
#    Frohlich vertex g_LR; written from docs/import.md, independently of bte); -polar 0 and
#    -lr_eph 0 switch them off; and the LO-TO limit along x of the isotropic polar model:
#    omega_LO^2 - omega_TO^2 -> 4 pi e^2 Z^2 / (V eps mu);
#  degen (2 Wannier functions at one centre): degenerate bands on lines of k, where the velocities
#    are degenerate perturbation theory's (eigenvalues of dH/dk_a in the subspace) in closed form;
#  twoband (2 Wannier functions, couplings on all pairs): against the model's lattice sums (S_nu
#    sums over all band pairs, so it does not see the rotations U_k: table.sh checks those);
#  the reader's defaults: a file without lpolar is polar when it has Born charges, lpolar = 0 turns
#    the long-range terms off, missing loto_alpha / polar_alpha mean 1;
#  polar2d, polar2d_b (polar 2D crystals, system_2d = 1): the same quantities against Perturbo's 2D
#    long-range forms evaluated in Python (make_epr.py: Q = K.K, the weights
#    exp(-Q/4 alpha) / (sqrt(Q) (1 + r sqrt(Q))) with the screening lengths of the phonon term, from
#    eps_par and the cell height, and of the e-ph term, from eps_par and thickness_2d; the 2D
#    prefactors); thickness_2d: the file's (bohr), or 6 Angstrom without the dataset (polar2d_b, and
#    polar2d with the dataset dropped: the same as the model with 6 Angstrom, also through ephmat
#    with -polar 1), and it changes g_LR but not the phonons; the 2D LO-TO splitting: it vanishes at
#    q -> 0 and grows linearly (Sohier et al., Nano Lett. 17, 3758 (2017)): omega_LO - omega_TO at
#    s = 2e-5 and 2e-6 (q = s b1) in the ratio 10 (to 1e-3), and omega_LO^2 - omega_TO^2 ->
#    fac Z^2 |K| e^{-K^2/4a} / (1 + r |K|) / mu, Perturbo's K = q term (fac = 4 pi e^2/V alat/(2 b3_z),
#    K in 2 pi/alat; r = 0 below |K|^2 = 1e-8, as in Perturbo), to 1e-3 at s = 1e-3, converging (the
#    error at 1e-3 below a fifth of that at 1e-2).
#  The long-range sums are complete (every K = q + G under the Gaussian's cutoff), hence periodic in
#    q: for the 2D polar models omega(q) = omega(q - b1) = omega(q - b2) is checked at random q (a
#    box too small for the 2D cutoff Q = K.K, as Perturbo's ceil(sqrt(ggmax / b.eps.b)) is when
#    eps_par > 1, breaks this by up to 12% and gives imaginary modes near q = b1).
# Tolerances (round-off; the differences seen are ~1e-16 relative): E 1e-13 Ry, v 1e-13 Ry bohr,
# omega^2 1e-13 of the largest omega^2, S 1e-12 of the largest S at the (k, q) (modes degenerate to
# 1e-7 of the largest omega compared as group sums), g_LR 1e-13 of its largest entry. LO-TO: the
# ratio to the closed form within 1e-6 at q = 1e-4 (crystal), and converging (error at 1e-4 below a
# tenth of that at 1e-3; it goes as q^2).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
export EVAL="$BUILD/tests/epr_eval"
[ -x "$EVAL" ] || { echo "skip: $EVAL not built"; exit 77; }
export PYTHONDONTWRITEBYTECODE=1 MAKE_EPR_DIR="$TESTDIR/perturbo"
"$PYTHON" "$TESTDIR/perturbo/make_epr.py" selftest
for m in cubic ortho square2d polar polar_aniso twoband degen polar2w polar2d polar2d_b; do "$PYTHON" "$TESTDIR/perturbo/make_epr.py" $m $m.h5; done
# the reader's defaults for datasets older files lack, and lpolar = 0 with Born charges present
"$PYTHON" "$TESTDIR/perturbo/make_epr.py" polar polar_nolpolar.h5 --drop basic_data/lpolar
"$PYTHON" "$TESTDIR/perturbo/make_epr.py" polar_aniso polar_aniso_noalpha.h5 --drop basic_data/loto_alpha --drop basic_data/polar_alpha
"$PYTHON" "$TESTDIR/perturbo/make_epr.py" polar polar_lpolar0.h5 --set lpolar=0
"$PYTHON" "$TESTDIR/perturbo/make_epr.py" polar2d polar2d_nothick.h5 --drop basic_data/thickness_2d
"$PYTHON" - <<'PY'
import os, subprocess, sys
import numpy as np
sys.path.insert(0, os.environ["MAKE_EPR_DIR"])
import make_epr as M

ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)

def run(name, what, pts=None, kpts=None, qpts=None, extra=()):
    args = [os.environ["EVAL"], "-epr", name + ".h5", "-what", what] + list(extra)
    for flag, p, f in (("-points", pts, "p.txt"), ("-kpoints", kpts, "k.txt"), ("-qpoints", qpts, "q.txt")):
        if p is not None:
            np.savetxt(f, p, fmt="%.17g")
            args += [flag, f]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return np.array([[float(x) for x in l.split()] for l in out.splitlines() if l.strip()])

def groups(w, tol):
    """index groups of (sorted) modes within tol of each other"""
    g = [[0]]
    for i in range(1, len(w)):
        if abs(w[i] - w[g[-1][-1]]) < tol: g[-1].append(i)
        else: g.append([i])
    return g

def s_diff(w, S, Sref):
    """largest difference of S over groups of degenerate modes, relative to max S"""
    d = 0.0
    for g in groups(w, 1e-7 * max(abs(w))):
        d = max(d, abs(S[g].sum() - Sref[g].sum()))
    return d / max(Sref.max(), 1e-300)

rng = np.random.default_rng(2024)
for name in ("cubic", "ortho", "square2d", "polar", "polar_aniso", "twoband", "degen", "polar2w", "polar2d", "polar2d_b"):
    m = M.MODELS[name]()
    nw, nm = m.nw, m.nm
    K = rng.uniform(-1, 1, (25, 3))
    Q = rng.uniform(-1, 1, (25, 3))
    if m.system_2d:
        K[:, 2] = Q[:, 2] = 0
    closed = hasattr(m, "cf_bands")
    # bands and velocities
    b = run(name, "bands", K)
    if closed:
        Er, vr = m.cf_bands(K)
    else:
        r = [m.direct_bands(k) for k in K]
        Er, vr = np.array([x[0] for x in r]), np.array([x[2] for x in r])
    dE = np.abs(b[:, :nw] - Er).max()
    dv = np.abs(b[:, nw:].reshape(-1, nw, 3) - vr).max()
    check(dE < 1e-13, "%s: bands at %d random k: max |dE| = %.1e Ry (E in [%.3f, %.3f])" % (name, len(K), dE, Er.min(), Er.max()))
    check(dv < 1e-13, "%s: velocities: max |dv| = %.1e Ry bohr (|v| up to %.3f)" % (name, dv, np.abs(vr).max()))
    # phonons
    p = run(name, "phonons", Q)
    if closed:
        w2r = M.cf_phonons(m, Q)[0]
    else:
        w2r = np.array([m.direct_phonons(q)[0] for q in Q])
    w2 = np.sign(p) * p ** 2
    d = np.abs(w2 - w2r).max() / np.abs(w2r).max()
    check(d < 1e-13, "%s: phonons at %d random q: max |d omega^2| / max omega^2 = %.1e (hw up to %.1f meV)" % (name, len(Q), d, np.sqrt(np.abs(w2r).max()) * M.RY_EV * 1e3))
    check(w2r.min() > -1e-12 * w2r.max(), "%s: the model is stable (min omega^2 / max = %.1e)" % (name, w2r.min() / w2r.max()))
    if m.lpolar:   # complete long-range sums: periodic in q
        worstp = 0.0
        for sh in ((1, 0, 0), (0, 1, 0)):
            ps = run(name, "phonons", Q - np.array(sh, dtype=float))
            worstp = max(worstp, np.abs(ps - p).max() / np.abs(p).max())
        check(worstp < 1e-10, "%s: phonons periodic in q: max |omega(q) - omega(q - b)| / max omega = %.1e" % (name, worstp))
    # couplings
    Kc, Qc = K[:6], Q[:6]
    e = run(name, "ephmat", kpts=Kc, qpts=Qc)
    worst = 0.0
    for iq, q in enumerate(Qc):
        for ik, k in enumerate(Kc):
            row = e[iq * len(Kc) + ik]
            w, S = row[:nm], row[nm:]
            if closed:
                w2c, ev = M.cf_phonons(m, q)
                u = ev[0] / np.sqrt(m.mass[0])
                gnu = m.cf_gw(k, q)[0, 0, 0] @ u
                Sr = np.abs(gnu) ** 2
                wr = np.sign(w2c[0]) * np.sqrt(np.abs(w2c[0]))
            else:
                wr, Sr = m.direct_S(k, q)
            assert np.abs(w - wr).max() < 1e-9 * np.abs(wr).max()
            worst = max(worst, s_diff(w, S, Sr))
    check(worst < 1e-12, "%s: ephmat S_nu at %dx%d (k, q): max diff / max S = %.1e" % (name, len(Kc), len(Qc), worst))
    # long-range vertex
    lr = run(name, "lr", Q)
    g = lr[:, 0::2] + 1j * lr[:, 1::2]
    if not m.lpolar:
        check(np.all(g == 0), "%s: no long-range vertex (not polar)" % name)
        continue
    gr = np.array([m.glr(q) for q in Q])
    d = np.abs(g - gr).max() / np.abs(gr).max()
    check(d < 1e-13, "%s: g_LR at %d random q vs Perturbo's formula: max diff / max |g_LR| = %.1e (|g_LR| up to %.3g Ry/bohr)" % (name, len(Q), d, np.abs(gr).max()))
    check(np.all(run(name, "lr", Q[:3], extra=["-lr_eph", "0"]) == 0), "%s: -lr_eph 0 switches g_LR off" % name)
    check(np.all(run(name, "lr", np.zeros((1, 3))) == 0), "%s: g_LR = 0 at q = 0" % name)
    # the long-range terms switched off
    p0 = run(name, "phonons", Q[:8], extra=["-polar", "0"])
    w2r0 = np.array([m.direct_phonons(q, lr=0)[0] for q in Q[:8]])
    d = np.abs(np.sign(p0) * p0 ** 2 - w2r0).max() / np.abs(w2r0).max()
    check(d < 1e-13, "%s: -polar 0: short-range phonons, max diff %.1e" % (name, d))
    dlr = np.abs(w2r0 - w2r[:8]).max() / np.abs(w2r).max()
    check(dlr > 1e-2, "%s: (the dipole-dipole term changes omega^2 by %.2f of its largest value)" % (name, dlr))
    e0 = run(name, "ephmat", kpts=Kc[:3], qpts=Qc[:3], extra=["-polar", "0"])
    worst = 0.0
    for iq, q in enumerate(Qc[:3]):
        for ik, k in enumerate(Kc[:3]):
            row = e0[iq * 3 + ik]
            wr, Sr = m.direct_S(k, q, lr=0)
            worst = max(worst, s_diff(row[:nm], row[nm:], Sr))
    check(worst < 1e-12, "%s: -polar 0: short-range S_nu, max diff %.1e" % (name, worst))

# degenerate bands: velocities by degenerate perturbation theory (eigenvalues of dH/dk_a in the
# degenerate subspace, ascending, per direction)
m = M.MODELS["degen"]()
Kd = np.array([[x, y, z] for x in (0, 0.5, -0.5) for y in (0, 0.5) for z in rng.uniform(-1, 1, 2)])
b = run("degen", "bands", Kd)
Er, vr = m.cf_bands_deg(Kd)
dE = np.abs(b[:, :2] - Er).max()
dv = np.abs(b[:, 2:].reshape(-1, 2, 3) - vr).max()
check(dE < 1e-13 and dv < 1e-13, "degen: %d k points on the degenerate lines: E %.1e Ry, v %.1e Ry bohr (|v| up to %.3f)" % (len(Kd), dE, dv, np.abs(vr).max()))

# defaults: no lpolar -> polar when sum |Z*| > 0.1; no loto_alpha / polar_alpha -> 1; lpolar = 0 wins
Q = rng.uniform(-1, 1, (6, 3))
m = M.MODELS["polar"]()
p = run("polar_nolpolar", "phonons", Q)
w2r = np.array([m.direct_phonons(q, lr=1)[0] for q in Q])
d1 = np.abs(np.sign(p) * p ** 2 - w2r).max() / np.abs(w2r).max()
g = run("polar_nolpolar", "lr", Q)
d2 = np.abs(g[:, 0::2] + 1j * g[:, 1::2] - np.array([m.glr(q) for q in Q])).max()
check(d1 < 1e-13 and d2 < 1e-13 * 0.1, "a file without lpolar but with Born charges is polar (omega^2 %.1e, g_LR %.1e)" % (d1, d2))
p = run("polar_lpolar0", "phonons", Q)
w2r = np.array([m.direct_phonons(q, lr=0)[0] for q in Q])
d1 = np.abs(np.sign(p) * p ** 2 - w2r).max() / np.abs(w2r).max()
check(d1 < 1e-13 and np.all(run("polar_lpolar0", "lr", Q) == 0), "lpolar = 0: short range only, even with Born charges (omega^2 %.1e)" % d1)
m = M.MODELS["polar_aniso"]()
m.polar_alpha = m.loto_alpha = 1.0
p = run("polar_aniso_noalpha", "phonons", Q)
w2r = np.array([m.direct_phonons(q)[0] for q in Q])
d1 = np.abs(np.sign(p) * p ** 2 - w2r).max() / np.abs(w2r).max()
g = run("polar_aniso_noalpha", "lr", Q)
gr = np.array([m.glr(q) for q in Q])
d2 = np.abs(g[:, 0::2] + 1j * g[:, 1::2] - gr).max() / np.abs(gr).max()
p13 = run("polar_aniso", "phonons", Q)
da = np.abs(p13 - p).max() / np.abs(p).max()
check(d1 < 1e-13 and d2 < 1e-13 and da > 1e-4, "no loto_alpha, polar_alpha: both 1 (omega^2 %.1e, g_LR %.1e; the file's 1.3 and 0.8 give omegas %.1e different: only the reciprocal-space part of the Ewald sum is added, so alpha matters)" % (d1, d2, da))

# LO-TO splitting of the isotropic polar model at small q along x
m = M.MODELS["polar"]()
mu = m.mass[0] * m.mass[1] / (m.mass[0] + m.mass[1])
ref = 4 * np.pi * M.E2 * m.Z ** 2 / (m.volume * m.eps * mu)
s = np.array([1e-2, 1e-3, 1e-4])
p = run("polar", "phonons", np.stack([s, 0 * s, 0 * s], axis=1))
split = p[:, 5] ** 2 - p[:, 4] ** 2
err = np.abs(split / ref - 1)
print("     LO-TO: omega_TO %.4f meV, omega_LO %.4f meV at q = 1e-4; (omega_LO^2 - omega_TO^2) / closed form - 1 = %s" % (p[-1, 4] * M.RY_EV * 1e3, p[-1, 5] * M.RY_EV * 1e3, np.array2string(split / ref - 1, precision=2)))
check(np.abs(p[:, 4] - p[:, 3]).max() < 1e-9 * p[:, 4].max(), "polar: the two TO modes are degenerate along x")
check(err[-1] < 1e-6 and err[-1] < 0.1 * err[-2], "polar: LO-TO splitting -> 4 pi e^2 Z^2 / (V eps mu) = %.4e Ry^2 (relative error %.1e at q = 1e-4, %.1e at 1e-3)" % (ref, err[-1], err[-2]))
p0 = run("polar", "phonons", np.array([[1e-4, 0, 0]]), extra=["-polar", "0"])
check(abs(p0[0, 5] - p0[0, 4]) < 1e-9 * p0[0, 5], "polar: no LO-TO splitting with -polar 0")

# 2D: thickness_2d (bohr; 6 Angstrom without the dataset) enters g_LR only
m = M.MODELS["polar2d"]()
Q = rng.uniform(-1, 1, (8, 3))
Q[:, 2] = 0
g_file = run("polar2d", "lr", Q)
g_none = run("polar2d_nothick", "lr", Q)
m6 = M.MODELS["polar2d"]()
m6.thickness_2d = None
gr6 = np.array([m6.glr(q) for q in Q])
d = np.abs(g_none[:, 0::2] + 1j * g_none[:, 1::2] - gr6).max() / np.abs(gr6).max()
dt = np.abs(g_file - g_none).max() / np.abs(g_file).max()
check(d < 1e-13 and dt > 1e-3, "polar2d without thickness_2d: g_LR with 6 Angstrom = %.6f bohr (diff %.1e); the file's %.1f bohr changes it by %.2f of its largest entry" % (m6.thickness_bohr(), d, m.thickness_2d, dt))
p_file, p_none = run("polar2d", "phonons", Q), run("polar2d_nothick", "phonons", Q)
check(np.array_equal(p_file, p_none), "polar2d: the phonons do not depend on thickness_2d (bit-identical)")
# ephmat with -polar 1 given (the file's default), on the file without thickness_2d
Kp = rng.uniform(-1, 1, (3, 3))
Kp[:, 2] = 0
e1 = run("polar2d_nothick", "ephmat", kpts=Kp, qpts=Q[:3], extra=["-polar", "1"])
worst = 0.0
for iq, q in enumerate(Q[:3]):
    for ik, k in enumerate(Kp):
        row = e1[iq * 3 + ik]
        wr, Sr = m6.direct_S(k, q)
        worst = max(worst, s_diff(row[:m6.nm], row[m6.nm:], Sr))
check(worst < 1e-12, "polar2d without thickness_2d, -polar 1: S_nu at 3x3 (k, q), max diff %.1e" % worst)

# 2D LO-TO: no splitting at q -> 0, linear in |q| (Perturbo's K = q term: fac Z^2 |K| / (1 + r |K|))
m = M.MODELS["polar2d"]()
mu = m.mass[0] * m.mass[1] / (m.mass[0] + m.mass[1])
fac = 4 * np.pi * M.E2 / m.volume * 0.5 * m.alat / m.bg[2][2]
r = m.reff(True)[0, 0]
s = np.array([1e-2, 1e-3, 2e-5, 2e-6])
p = run("polar2d", "phonons", np.vstack([np.stack([s, 0 * s, 0 * s], axis=1), np.zeros((1, 3))]))
p, w0 = p[:-1], p[-1]
K = s * np.linalg.norm(m.bg[0])
ref = fac * 2.0 ** 2 * K * np.exp(-K ** 2 / (4 * m.loto_alpha)) / (1 + np.where(K ** 2 > 1e-8, r, 0.0) * K) / mu
split = p[:, 5] ** 2 - p[:, 4] ** 2
err = np.abs(split / ref - 1)
dw = p[:, 5] - p[:, 4]
print("     2D LO-TO: at Gamma TO %.4f, LO %.4f meV (degenerate); omega_LO - omega_TO at s = %s: %s meV; (omega_LO^2 - omega_TO^2) / (fac Z^2 |K| e^{-K^2/4a} / (1 + r|K|) / mu) - 1 = %s"
      % (w0[4] * M.RY_EV * 1e3, w0[5] * M.RY_EV * 1e3, s, np.array2string(dw * M.RY_EV * 1e3, precision=6), np.array2string(split / ref - 1, precision=2)))
check(abs(w0[5] - w0[4]) < 1e-9 * w0[5], "polar2d: no LO-TO splitting at q = 0 (%.1e meV)" % (abs(w0[5] - w0[4]) * M.RY_EV * 1e3))
check(abs(dw[2] / dw[3] / 10 - 1) < 1e-3, "polar2d: omega_LO - omega_TO linear in |q|: ratio %.5f at s = 2e-5 and 2e-6 (10 for linear)" % (dw[2] / dw[3]))
check(err[1] < 1e-3 and err[1] < 0.2 * err[0], "polar2d: omega_LO^2 - omega_TO^2 -> Perturbo's 2D K = q term (relative error %.1e at s = 1e-3, %.1e at 1e-2)" % (err[1], err[0]))
check(np.abs(p[:, 4] - w0[4]).max() < 1e-4 * w0[4], "polar2d: the TO mode along x stays at its Gamma value (to %.1e)" % (np.abs(p[:, 4] - w0[4]).max() / w0[4]))

sys.exit(0 if ok else 1)
PY
