# The diagnostics at setup (docs/diagnostics.md) against an independent numpy computation from the
# table (diag_reference.py: the formulas of docs/theory.md, a union-find for the pieces, a dense solve
# for the stationary state): equilibrium defect, relaxation temperature, edge share and pieces, as
# written to /diagnostics of a dynamics output on 1 and on 2 ranks, for a connected parabolic table
# and a GaAs table in 4 pieces; and a defect of 0 (below 1e-10) for a table with exact detailed
# balance (each channel's phonon energy set to its states' energy difference, eta = 1 meV, so that
# the other Gaussian is exp(-36) smaller; elastic channels join states of equal energy). The
# stationary state's mean velocity (the zero-field current): zero to rounding for these tables, which
# are symmetric under k -> -k, and the reference's for a parabolic 16^3 table whose couplings are not
# (g2 of each channel x 1.5 where its first state moves along +x), which /diagnostics lists as a
# warning (on 12^3 the same change leaves the stationary state symmetric: too few energy shells).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
"$BTE" generate -bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_output p12.h5 -bte_view 0 >/dev/null
"$BTE" generate -bte_model gaas -bte_grid 20 -bte_output g20.h5 -bte_view 0 >/dev/null
"$BTE" generate -bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_output asym.h5 -bte_view 0 >/dev/null
"$PYTHON" - p12.h5 db.h5 <<'PY'
import h5py, numpy as np, shutil, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as d:
    e, c = d["states/energy"][:], d["channels"]
    i, j, mode, hw, g2 = (c[k][:] for k in ("i", "j", "mode", "phonon_energy", "g2"))
    de = np.abs(e[i] - e[j])
    keep = (de >= 0.003) | (de == 0)
    for k, v in (("i", i), ("j", j), ("mode", mode), ("phonon_energy", np.where(de == 0, hw, de)), ("g2", g2)):
        del c[k]
        c.create_dataset(k, data=v[keep])
    c["phonon_energy"].attrs["units"] = "eV"
    c["g2"].attrs["units"] = "eV^2"
    c.attrs["smearing"] = 0.001
    print("exact detailed balance table: %d of %d channels (%d elastic)" % (keep.sum(), len(i), (de[keep] == 0).sum()))
with h5py.File("asym.h5", "r+") as d:
    v, i = d["states/velocity"][:], d["channels/i"][:]
    d["channels/g2"][...] = d["channels/g2"][:] * np.where(v[i, 0] > 0, 1.5, 1.0)
PY
for t in p12 g20 db asym; do
  "$BTE" dynamics -bte_input $t.h5 -bte_final_time 1 -bte_time_step 1 -bte_output $t.np1.h5 -bte_view 0 >/dev/null
  run_np "$NP" "$BTE" dynamics -bte_input $t.h5 -bte_final_time 1 -bte_time_step 1 -bte_output $t.np$NP.h5 -bte_view 0 >/dev/null
done
"$PYTHON" - "$NP" <<'PY'
import sys, os, h5py
import numpy as np
sys.path.insert(0, os.path.join(os.environ["TESTDIR"], "diagnostics"))
from diag_reference import reference
np_ = sys.argv[1]
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
rel = lambda a, b: abs(a / b - 1)
for t in ("p12", "g20", "db", "asym"):
    a1 = h5py.File(t + ".np1.h5", "r")["diagnostics"].attrs
    a2 = h5py.File(t + ".np" + np_ + ".h5", "r")["diagnostics"].attrs
    r = reference(t + ".h5", float(a1["temperature"]))
    check(a1["computed"] == 1, "%s: computed" % t)
    print("     %s: bte defect %.10e relaxation %.8f K edge %.10e pieces %d cut %d" % (t, a1["equilibrium_defect"], a1["relaxation_temperature"], a1["edge_share"], a1["channel_graph_pieces"], a1["states_outside_largest_piece"]))
    print("     %s: ref defect %.10e relaxation %.8f K edge %.10e pieces %d cut %d" % (t, r["defect"], r["relax_temperature"], r["edge_share"], r["pieces"], r["states_cut"]))
    if t == "db":
        check(a1["equilibrium_defect"] < 1e-10 and r["defect"] < 1e-10, "db: exact detailed balance, defect %.2e (reference %.2e) below 1e-10" % (a1["equilibrium_defect"], r["defect"]))
        check(abs(a1["relaxation_temperature"] - 300) < 1e-6, "db: relaxes to the lattice temperature, %.9f K" % a1["relaxation_temperature"])
    else:
        check(rel(a1["equilibrium_defect"], r["defect"]) < 1e-10, "%s: defect %.6f, reference to %.1e" % (t, a1["equilibrium_defect"], rel(a1["equilibrium_defect"], r["defect"])))
        check(rel(a1["relaxation_temperature"], r["relax_temperature"]) < 1e-6, "%s: relaxation temperature %.4f K, reference to %.1e" % (t, a1["relaxation_temperature"], rel(a1["relaxation_temperature"], r["relax_temperature"])))
        check(abs(a1["relaxation_temperature"] - 300) > 20, "%s: the grid heats: %.1f K (so the comparison can fail)" % (t, a1["relaxation_temperature"]))
    check(rel(a1["edge_share"], r["edge_share"]) < 1e-10, "%s: edge share %.4e, reference to %.1e" % (t, a1["edge_share"], rel(a1["edge_share"], r["edge_share"])))
    check(rel(a1["thermal_speed"], r["thermal_speed"]) < 1e-10, "%s: thermal speed %.5g cm/s, reference to %.1e" % (t, a1["thermal_speed"], rel(a1["thermal_speed"], r["thermal_speed"])))
    vr = float(np.linalg.norm(r["relax_velocity"]))
    w = a1["warnings"].decode() if isinstance(a1["warnings"], bytes) else str(a1["warnings"])
    if t == "asym":
        check(rel(a1["zero_field_velocity"], vr) < 1e-5 and vr > 1e-4 * r["thermal_speed"], "asym: zero-field velocity %.6g cm/s, reference %.6g (%.1e of the thermal speed)" % (a1["zero_field_velocity"], vr, vr / r["thermal_speed"]))
        check("zero_field_velocity" in w, "asym: listed among the warnings (%s)" % w)
    else:
        # the reference's dense solve: rounding; bte's GMRES (rtol 1e-8): well below the 1e-5 warning
        check(a1["zero_field_velocity"] < 1e-6 * a1["thermal_speed"] and vr < 1e-8 * r["thermal_speed"] and "zero_field" not in w, "%s: no zero-field current (%.1e cm/s; reference %.1e)" % (t, a1["zero_field_velocity"], vr))
    check(a1["channel_graph_pieces"] == r["pieces"] and a1["states_outside_largest_piece"] == r["states_cut"], "%s: %d piece(s), %d states outside the largest" % (t, r["pieces"], r["states_cut"]))
    for k in ("equilibrium_defect", "relaxation_temperature", "edge_share"):
        d = abs(a1[k] - a2[k]) / max(abs(a1[k]), 1e-300)
        # relative, or absolute for the rounding-level defect of the exact table
        check(d < 1e-9 or (k != "relaxation_temperature" and abs(a1[k] - a2[k]) < 1e-13), "%s: %s on %s ranks equals 1 rank's (%.1e)" % (t, k, np_, d))
sys.exit(0 if ok else 1)
PY
