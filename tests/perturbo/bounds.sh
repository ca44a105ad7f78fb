# Physical bounds of the Perturbo epr reader (docs/validation.md, Perturbo epr files): masses,
# Born charges, epsilon, alat, thickness_2d, force constants and e-ph couplings out of their bounds
# (a file in other units, a flipped exponent) are each refused with one line naming the file, the
# dataset and the bound; values at the edge of real materials, and the unused Born charges and
# epsilon of a non-polar file, are accepted.
. "$TESTDIR/common.sh"
. "$TESTDIR/perturbo/refusals.bash"
set -e
fixtures cubic polar polar2d
NO_TABLE=out.h5

# mut IN OUT 'python statements on f (the file, h5py), B = "basic_data/", np'
mut() {
  cp "$1" "$2"
  "$PYTHON" - "$2" "$3" << 'EOF'
import sys
import h5py
import numpy as np
B = "basic_data/"


def rep(f, path, fn):
    a = fn(np.asarray(f[path][()]))
    del f[path]
    f[path] = a


def flip_largest(a):
    # bit 62, the exponent's highest: |x| < 2 becomes x 2^1024, finite
    a = np.array(a, dtype="<f8")
    v = a.reshape(-1).view(np.uint64)
    v[np.argmax(np.abs(a.reshape(-1)))] ^= np.uint64(1 << 62)
    return a


with h5py.File(sys.argv[1], "r+") as f:
    exec(sys.argv[2])
EOF
}
G="$BTE generate -bte_model perturbo -bte_view 0 -bte_window 5 -bte_output out.h5 -bte_perturbo_epr"
ok() {
  local f=$1; shift
  $G "$f" "$@" > last.txt 2>&1 || { echo "FAIL: $f ($*) was refused"; cat last.txt; exit 1; }
  rm -f out.h5
  echo "ok (exit 0): $f"
}

# refused: each names the dataset and the bound
mut polar.h5 mass_amu.h5 'rep(f, B + "mass", lambda a: a / 911.444)'
fail1 "mass_amu.h5: basic_data/mass of atom 1 is 30 Rydberg mass units (0.0329148 amu); expected \[0.1, 10000\] amu" $G mass_amu.h5 -bte_perturbo_kdim 4,4,4
mut cubic.h5 mass_huge.h5 'rep(f, B + "mass", lambda a: a * 0 + 1e300)'
fail1 "mass_huge.h5: basic_data/mass of atom 1 is 1e+300 Rydberg mass units" $G mass_huge.h5 -bte_perturbo_kdim 4,4,4
mut polar.h5 zstar.h5 'rep(f, B + "zstar", lambda a: a * 1e100)'
fail1 "zstar.h5: basic_data/zstar of atom 1 has a component of 2e+100; expected Born effective charges |Z\*_ij| <= 100" $G zstar.h5 -bte_perturbo_kdim 4,4,4
mut polar.h5 eps_low.h5 'rep(f, B + "epsil", lambda a: np.diag([4.0, 0.5, 4.0]))'
fail1 "eps_low.h5: basic_data/epsil has a diagonal element eps_22 = 0.5; expected \[1, 10000\]" $G eps_low.h5 -bte_perturbo_kdim 4,4,4
mut polar2d.h5 eps_high.h5 'rep(f, B + "epsil", lambda a: a * 1e300)'
fail1 "eps_high.h5: basic_data/epsil has a diagonal element eps_11 = 4e+300; expected \[1, 10000\]" $G eps_high.h5 -bte_perturbo_kdim 4,4
"$PYTHON" "$T/make_epr.py" polar2d thick.h5 --set thickness_2d=5e-324
fail1 "thick.h5: basic_data/thickness_2d = 4.94066e-324 bohr is out of range: expected a layer thickness of \[0.1, 10000\] bohr" $G thick.h5 -bte_perturbo_kdim 4,4
mut cubic.h5 alat.h5 'rep(f, B + "alat", lambda a: a * 1e-4); rep(f, B + "at", lambda a: a * 1e4); rep(f, B + "bg", lambda a: a * 1e-4)'
fail1 "alat.h5: basic_data/alat = 0.001 bohr is out of range: expected a lattice parameter of \[0.1, 10000\] bohr" $G alat.h5 -bte_perturbo_kdim 4,4,4
mut polar.h5 ifc.h5 'rep(f, "force_constant/ifc3", flip_largest)'
fail1 "ifc.h5: force_constant/ifc3 has an entry of 1.4.*e+307 Ry/bohr^2 at \[0,0,0\]; expected force constants |C| <= 10000 Ry/bohr^2" $G ifc.h5 -bte_perturbo_kdim 4,4,4
mut polar.h5 ep_r.h5 'rep(f, "eph_matrix_wannier/ep_hop_r_2_1_1", flip_largest)'
fail1 "ep_r.h5: eph_matrix_wannier/ep_hop_r_2_1_1 has an entry of .*e+30[0-9] Ry/bohr at \[.*\]; expected e-ph couplings |g(Re,Rp)| <= 1000 Ry/bohr" $G ep_r.h5 -bte_perturbo_kdim 4,4,4
mut cubic.h5 ep_i.h5 'd = f["eph_matrix_wannier/ep_hop_i_1_1_1"]; d[1, 2, 0] = -2e3'
fail1 "ep_i.h5: eph_matrix_wannier/ep_hop_i_1_1_1 has an entry of -2000 Ry/bohr at \[1,2,0\]" $G ep_i.h5 -bte_perturbo_kdim 4,4,4

# accepted: masses of hydrogen and of the heaviest elements, epsilon 1 along one axis, large Born
# charges; a non-polar file's Born charges and epsilon are not used
mut polar.h5 edge.h5 'rep(f, B + "mass", lambda a: np.array([1.008, 294.0]) * 911.444); rep(f, B + "epsil", lambda a: np.diag([4.0, 4.0, 1.0])); rep(f, B + "zstar", lambda a: a * 5)'
ok edge.h5 -bte_perturbo_kdim 4,4,4
mut cubic.h5 nonpolar.h5 'rep(f, B + "zstar", lambda a: a + 1e30); rep(f, B + "epsil", lambda a: a * 1e-300)'
ok nonpolar.h5 -bte_perturbo_kdim 4,4,4
echo "perturbo bounds: all refused with one line naming the dataset; the edge values accepted"
