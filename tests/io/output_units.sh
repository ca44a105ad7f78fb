# The outputs' own convention (docs/format.md): in /dynamics, /transport and /highfield every
# dataset has a `units` attribute and every real-valued attribute a `<name>_units` sibling, so a
# reader never guesses a unit. Walks whole files of the three commands (a field, a pump and a
# field profile, the energy grid; transport's configurations and rates; high-field valleys).
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "no Python with h5py (scripts/find-python.sh)"; exit 77; }
M="-bte_model parabolic -bte_grid 10 -bte_parabolic_a 20 -bte_view 0"
"$BTE" dynamics $M -bte_final_time 20 -bte_efield 1000,0,0 -bte_efield_profile pulse -bte_efield_time 10 -bte_efield_fwhm 5 -bte_pump_density 1e15 -bte_output_energy_step 0.01 -bte_output d.h5 > /dev/null
"$BTE" transport $M -bte_temperatures 200,300 -bte_output t.h5 > /dev/null
"$BTE" highfield $M -bte_efield_list 500,1000 -bte_output h.h5 > /dev/null
"$PYTHON" - <<'PY'
import h5py, numpy as np, sys
bad = []
seen = {"datasets": 0, "real attributes": 0}
for fn, grp in [("d.h5", "dynamics"), ("t.h5", "transport"), ("h.h5", "highfield")]:
    f = h5py.File(fn, "r")
    def check(name, obj):
        if isinstance(obj, h5py.Dataset):
            seen["datasets"] += 1
            if "units" not in obj.attrs: bad.append("%s: dataset %s has no units" % (fn, obj.name))
        for k, v in obj.attrs.items():
            if k in ("units", "description") or k.endswith("_units"): continue
            if np.asarray(v).dtype.kind == "f":
                seen["real attributes"] += 1
                if k + "_units" not in obj.attrs: bad.append("%s: %s attribute %s has no %s_units" % (fn, obj.name, k, k))
    check(grp, f[grp])
    f[grp].visititems(check)
print("checked %d datasets and %d real attributes" % (seen["datasets"], seen["real attributes"]))
for b in bad: print("FAIL:", b)
sys.exit(1 if bad or seen["datasets"] < 30 else 0)
PY
