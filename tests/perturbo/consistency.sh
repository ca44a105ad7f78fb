# Laws of the Perturbo epr file's real-space arrays (docs/validation.md): a damaged entry inside the
# physical bounds (an entry x 256) breaks H_ii(R) = conj H_ii(-R) or C_aa(R) = C_aa(-R)^T, and is
# refused with one line naming the dataset and R; a broken acoustic sum rule, or a small asymmetry
# of the force constants (as a sum rule imposed without symmetrising leaves), is warned about with
# its size, which is checked against an independent evaluation here (make_epr.py's Wigner-Seitz
# vectors, numpy). The fixtures obey all three laws and import without these warnings.
. "$TESTDIR/common.sh"
. "$TESTDIR/perturbo/refusals.bash"
set -e
fixtures cubic polar polar2d
NO_TABLE=out.h5

# mut IN OUT WHAT: damages one entry (below) and prints what an independent evaluation expects
mut() {
  cp "$1" "$2"
  PYTHONPATH="$T" "$PYTHON" - "$2" "$3" << 'EOF'
import sys
import h5py
import numpy as np
import make_epr as M

RY_MEV = M.RY_EV * 1e3
path, what = sys.argv[1], sys.argv[2]
with h5py.File(path, "r+") as f:
    B = f["basic_data"]
    at = np.asarray(B["at"][()])
    kc = np.asarray(B["kc_dim"][()]).astype(int)
    qc = np.asarray(B["qc_dim"][()]).astype(int)
    na = int(B["nat"][()])
    ctau = np.asarray(B["tau"][()]) @ np.asarray(B["bg"][()]).T
    mass = np.asarray(B["mass"][()])

    def far_entry(ws, vals):
        """the largest entry at a vector R != 0 whose -R the pair also has"""
        have = {R for R, _ in ws}
        best = max((np.abs(vals[t]).max(), t) for t, (R, _) in enumerate(ws) if any(R) and tuple(-x for x in R) in have)
        return best[1]

    def ifc_pair(ia, ja):  # 1-based dataset index of atoms ia <= ja (0-based), ja outer
        return ja * (ja + 1) // 2 + ia + 1

    if what == "hopping":  # H_11(R) x 256 at one R != 0
        wcc = np.asarray(B["wannier_center_cryst"][()])
        ws = M.ws_vectors(at, kc, wcc[0], wcc[0])
        d = f["electron_wannier/hopping_r1"]
        t = far_entry(ws, np.asarray(d[()]).reshape(-1, 1))
        d[t] = d[t] * 256
        print(*ws[t][0])
    elif what == "hopping_imag":  # an imaginary part at one R only
        wcc = np.asarray(B["wannier_center_cryst"][()])
        ws = M.ws_vectors(at, kc, wcc[0], wcc[0])
        t = far_entry(ws, np.asarray(f["electron_wannier/hopping_r1"][()]).reshape(-1, 1))
        d = f["electron_wannier/hopping_i1"]
        d[t] = d[t] + 1e-3
        print(*ws[t][0])
    elif what.startswith("ifc_self"):  # C_11(R) x factor at one R != 0 (one component)
        fac = float(what.split(":")[1])
        ws = M.ws_vectors(at, qc, ctau[0], ctau[0])
        d = f["force_constant/ifc1"]
        c = np.asarray(d[()])
        t = far_entry(ws, c.reshape(len(ws), 9))
        x, y = np.unravel_index(np.argmax(np.abs(c[t])), (3, 3))
        old = c[t, x, y]
        c[t, x, y] *= fac
        d[...] = c
        cmax = max(np.abs(np.asarray(f["force_constant/ifc%d" % m][()])).max() for m in range(1, na * (na + 1) // 2 + 1))
        # asymmetry relative to the largest constant; the sum-rule frequency this changes too
        print(*ws[t][0], "%.6e" % (abs(old * (fac - 1)) / cmax), "%.6e" % (np.sqrt(abs(old * (fac - 1)) / mass[0]) * RY_MEV))
    elif what.startswith("ifc_pair"):  # C_12 x factor, all R and components: the sum rule only
        fac = float(what.split(":")[1])
        m = ifc_pair(0, 1)
        d = f["force_constant/ifc%d" % m]
        c = np.asarray(d[()])
        s = c.sum(axis=0) * (fac - 1)  # the residual of atom 1, and its transpose of atom 2
        d[...] = c * fac
        res = np.abs(s).max()
        om = [np.sqrt(res / mass[a]) * RY_MEV for a in range(2)]
        print(int(np.argmax(om)) + 1, "%.6e" % res, "%.6e" % max(om))
EOF
}
G="$BTE generate -bte_model perturbo -bte_view 0 -bte_window 5 -bte_output out.h5 -bte_perturbo_epr"
LAWS='not Hermitian|not symmetric|acoustic sum rule'
ok() { # FILE ARGS...: a table, and the output in last.txt
  local f=$1; shift
  $G "$f" "$@" > last.txt 2>&1 || { echo "FAIL: $f ($*) was refused"; cat last.txt; exit 1; }
  [ -s out.h5 ] || { echo "FAIL: $f gave no table"; exit 1; }
  rm -f out.h5
}
# close A B REL: |A - B| <= REL |B|
# either R or -R (the law pairs them; the message names one of the two)
pm() { echo "\\(($1,$2,$3)\\|($((-$1)),$((-$2)),$((-$3)))\\)"; }
close() { awk -v a="$1" -v b="$2" -v r="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= r * s) }'; }

# the fixtures obey the laws: no warning
for m in cubic polar; do ok $m.h5 -bte_perturbo_kdim 4,4,4; ! grep -Eq "$LAWS" last.txt || { echo "FAIL: $m.h5 warned"; cat last.txt; exit 1; }; done
ok polar2d.h5 -bte_perturbo_kdim 4,4
! grep -Eq "$LAWS" last.txt || { echo "FAIL: polar2d.h5 warned"; cat last.txt; exit 1; }
echo "ok: the fixtures import without a warning about the laws"

# H(R) damaged: refused, naming the dataset and R
read -r r1 r2 r3 <<< "$(mut cubic.h5 h256.h5 hopping)"
fail1 "h256.h5: electron_wannier/hopping_r1 and hopping_i1 (Wannier function 1 with itself) are not Hermitian: H(R) = .* Ry at R = $(pm $r1 $r2 $r3) but H(-R) = " $G h256.h5 -bte_perturbo_kdim 4,4,4
read -r r1 r2 r3 <<< "$(mut polar.h5 himag.h5 hopping_imag)"
fail1 "himag.h5: electron_wannier/hopping_r1 and hopping_i1 (Wannier function 1 with itself) are not Hermitian: .* at R = $(pm $r1 $r2 $r3)" $G himag.h5 -bte_perturbo_kdim 4,4,4

# a force constant of an atom with itself x 256: refused, naming the dataset and R
read -r r1 r2 r3 rel om <<< "$(mut cubic.h5 c256.h5 ifc_self:256)"
fail1 "c256.h5: force_constant/ifc1 (an atom with itself) is not symmetric: C(R) and C(-R)^T at R = $(pm $r1 $r2 $r3) differ by " $G c256.h5 -bte_perturbo_kdim 4,4,4
got=$(sed -n 's/.* differ by \([^ ]*\) of the largest.*/\1/p' last.txt)
close "$got" "$rel" 1e-3 || { echo "FAIL: asymmetry $got, expected $rel"; exit 1; }
echo "ok: asymmetry $got of the largest constant (independently $rel)"

# x (1 + 1e-3): warned twice (asymmetry, sum rule), with the sizes, and imported
read -r r1 r2 r3 rel om <<< "$(mut cubic.h5 csmall.h5 ifc_self:1.001)"
ok csmall.h5 -bte_perturbo_kdim 4,4,4
grep -q "WARNING perturbo: csmall.h5: force_constant/ifc1 (an atom with itself) is not symmetric: C(R) and C(-R)^T differ by " last.txt || { echo "FAIL: no asymmetry warning"; cat last.txt; exit 1; }
got=$(sed -n 's/.*is not symmetric.* differ by \([^ ]*\) of the largest.*/\1/p' last.txt)
close "$got" "$rel" 1e-3 || { echo "FAIL: asymmetry $got, expected $rel"; exit 1; }
gom=$(sed -n 's/.*by up to ~\([^ ]*\) meV.*/\1/p' last.txt)
close "$gom" "$om" 2e-3 || { echo "FAIL: sum-rule frequency '$gom' meV, expected $om"; cat last.txt; exit 1; }
echo "ok: warned, asymmetry $got ($rel), acoustic shift ~$gom meV ($om)"

# the pair of atoms 1-2 x 1.01 (symmetric, but the sum rule broken): warned with atom, residual, meV
read -r atom res om <<< "$(mut polar.h5 casr.h5 ifc_pair:1.01)"
ok casr.h5 -bte_perturbo_kdim 4,4,4
line=$(grep "the force constants break the acoustic sum rule" last.txt) || { echo "FAIL: no sum-rule warning"; cat last.txt; exit 1; }
! grep -q "not symmetric" last.txt || { echo "FAIL: a symmetric change warned as asymmetric"; exit 1; }
grep -q "those of atom $atom sum to " <<< "$line" || { echo "FAIL: expected atom $atom: $line"; exit 1; }
gres=$(sed -n 's/.* sum to \([^ ]*\) Ry\/bohr^2.*/\1/p' <<< "$line")
gom=$(sed -n 's/.*by up to ~\([^ ]*\) meV.*/\1/p' <<< "$line")
close "$gres" "$res" 2e-3 && close "$gom" "$om" 2e-3 || { echo "FAIL: residual $gres, ~$gom meV; expected $res, $om: $line"; exit 1; }
echo "ok: sum rule warned for atom $atom, residual $gres Ry/bohr^2 ($res), ~$gom meV ($om)"
# the same size among the model's parameters (bte info; the table's /model attributes)
pom=$("$BTE" info -bte_model perturbo -bte_perturbo_epr casr.h5 -bte_perturbo_kdim 4,4,4 -bte_window 5 2>&1 | sed -n 's/^ *ifc_asr_shift = \([^ ]*\) meV.*/\1/p')
close "$pom" "$om" 2e-3 || { echo "FAIL: ifc_asr_shift '$pom' meV, expected $om"; exit 1; }
echo "ok: ifc_asr_shift = $pom meV in bte info"
# 1 + 1e-7: below the warning's 0.5 meV, silent
mut polar.h5 ctiny.h5 ifc_pair:1.0000001 > /dev/null
ok ctiny.h5 -bte_perturbo_kdim 4,4,4
! grep -Eq "$LAWS" last.txt || { echo "FAIL: a residual far below 0.5 meV warned"; cat last.txt; exit 1; }
echo "perturbo consistency: damaged H(R) and force constants refused, naming the dataset and R; sum-rule and asymmetry warnings sized as computed independently"
