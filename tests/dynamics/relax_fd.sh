# A long run relaxes to Fermi-Dirac at the lattice temperature with the carrier number kept:
# parabolic valley (LO + acoustic), hot Fermi start (kT = 50 meV, 1e17 cm^-3), RK4 to 15 ps.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
$MPIEXEC -n "$NP" "$BTE" dynamics -bte_model parabolic -bte_grid 20 -bte_parabolic_a 24 -bte_window 0.2 \
  -bte_temperature 300 -bte_init fermi -bte_init_smear 0.05 -bte_carrier_density 1e17 \
  -bte_time_step 10 -bte_final_time 15000 -bte_output_interval 2500 -bte_output relax.h5 -bte_view 0 | tee log
"$PYTHON" - <<'PY'
import h5py, numpy as np, sys
g = h5py.File("relax.h5", "r")["dynamics"]
kB = 8.617333262e-5
T = g.attrs["temperature"]; e = g["state_energy"][:]; t = g["time"][:]
n = g["carriers"][:]; dens = g["carrier_density"][:]; occ = g["occupations"]
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
def fermi_at(f, T):
    # chemical potential with the same carrier number, by bisection
    lo, hi = e.min() - 2, e.max() + 2
    for _ in range(200):
        mu = 0.5 * (lo + hi)
        if (1 / (np.exp((e - mu) / (kB * T)) + 1)).sum() < f.sum(): lo = mu
        else: hi = mu
    return 1 / (np.exp((e - mu) / (kB * T)) + 1), mu
check(abs(dens[0] / 1e17 - 1) < 1e-8, "initial density %.6e cm^-3 (asked 1e17)" % dens[0])
drift = np.abs(n / n[0] - 1).max()
check(drift < 1e-10, "carrier number kept: max relative change %.2e over %d snapshots" % (drift, len(t)))
f0, fl, fp = occ[0], occ[-1], occ[-2]
fd, mu = fermi_at(fl, T)
dev0 = np.abs(f0 - fermi_at(f0, T)[0]).max() / fd.max()
dev = np.abs(fl - fd).max() / fd.max()
check(np.abs(fl - fp).max() / fl.max() < 1e-6, "stationary: |f(%g fs) - f(%g fs)| / max f = %.2e" % (t[-1], t[-2], np.abs(fl - fp).max() / fl.max()))
check(dev < 0.15 and dev < 0.3 * dev0, "close to Fermi-Dirac at %g K: max |f - f_FD| / max f_FD = %.3f (start %.3f; the rest is the smearing of energy conservation on this grid)" % (T, dev, dev0))
# effective temperature: weighted fit of ln(1/f - 1) = (e - mu)/(kB T_eff)
m = fl > 1e-6 * fl.max()
w = np.sqrt(fl[m])
A = np.vstack([e[m], np.ones(m.sum())]).T * w[:, None]
slope, icpt = np.linalg.lstsq(A, np.log(1 / fl[m] - 1) * w, rcond=None)[0]
Teff = 1 / (kB * slope)
check(abs(Teff / T - 1) < 0.05, "fitted temperature %.1f K (lattice %g K)" % (Teff, T))
Ef = (fd * e).sum() / fd.sum(); El = (fl * e).sum() / fl.sum()
check(abs(El / Ef - 1) < 0.05, "mean energy %.5f eV vs Fermi-Dirac %.5f eV" % (El, Ef))
sys.exit(0 if ok else 1)
PY
