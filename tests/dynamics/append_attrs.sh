# A dynamics file describes one run: an append (-bte_init restart into the same file) with another
# field, temperature, drift form or pump is refused (another output interval is not: the time series
# says when each snapshot is) (a field-free file kept efield 0
# beside the appended run's drift velocity); the field's profile and the pump are recorded; options
# that would change nothing are refused; a step after the end is said.
. "$TESTDIR/common.sh"
set -e
C="-bte_model parabolic -bte_grid 12 -bte_parabolic_a 20 -bte_view 0 -bte_dynamics_monitor 0 -bte_output_interval 50"
"$BTE" dynamics $C -bte_final_time 100 -bte_output nf.h5 > /dev/null
# (a drift form without a field is refused before the append: it would not be used)
for o in "-bte_efield 2000,0,0" "-bte_temperature 77" "-bte_pump_density 1e16"; do
  cp nf.h5 a.h5
  expect_fail "the file's attributes describe the run that made it; write this run to a new file" "$BTE" dynamics $C -bte_final_time 200 $o -bte_init restart -bte_restart a.h5 -bte_output a.h5
done
expect_fail "its run had -bte_efield 0,0,0 V/cm, this one 2000,0,0" "$BTE" dynamics $C -bte_final_time 200 -bte_efield 2000,0,0 -bte_init restart -bte_restart a.h5 -bte_output a.h5
expect_fail "its run was at 300 K, this one at 77 K" "$BTE" dynamics $C -bte_final_time 200 -bte_temperature 77 -bte_init restart -bte_restart a.h5 -bte_output a.h5
# the same run continued appends; into a new file the new settings are fine and recorded
cp nf.h5 b.h5
"$BTE" dynamics $C -bte_final_time 200 -bte_init restart -bte_restart b.h5 -bte_output b.h5 > /dev/null
"$BTE" dynamics $C -bte_final_time 200 -bte_efield 2000,0,0 -bte_init restart -bte_restart nf.h5 -bte_output c.h5 > /dev/null
# profiles and the pump in the attributes
"$BTE" dynamics $C -bte_final_time 100 -bte_efield 2000,0,0 -bte_efield_profile pulse -bte_efield_time 40 -bte_efield_fwhm 20 -bte_output p.h5 > /dev/null
"$BTE" dynamics $C -bte_final_time 100 -bte_init fermi -bte_carrier_density 1e15 -bte_pump_density 1e16 -bte_pump_time 30 -bte_pump_fwhm 10 -bte_output q.h5 > /dev/null
if [ -n "$PYTHON" ]; then
  "$PYTHON" - <<'PY'
import h5py
g = h5py.File("p.h5", "r")["dynamics"].attrs
assert g["efield_profile"] in (b"pulse", "pulse") and g["efield_time"] == 40 and g["efield_fwhm"] == 20, dict(g)
q = h5py.File("q.h5", "r")["dynamics"].attrs
assert q["pump_density"] == 1e16 and q["pump_time"] == 30 and q["pump_fwhm"] == 10 and "pump_e0_edge" in q, dict(q)
b = h5py.File("b.h5", "r")["dynamics"]
assert len(b["time"]) == 5, b["time"][:]
assert "pump_density" not in b.attrs and b.attrs["efield_profile"] in (b"constant", "constant")
print("ok: profile and pump recorded; the same run appended")
PY
fi
# nothing-changing options refused; a step after the end said
expect_fail "bte_efield_time and -bte_efield_fwhm shape a step or pulse" "$BTE" dynamics $C -bte_final_time 100 -bte_efield 2000,0,0 -bte_efield_time 40
expect_fail "bte_efield_fwhm is the width of a pulse" "$BTE" dynamics $C -bte_final_time 100 -bte_efield 2000,0,0 -bte_efield_profile step -bte_efield_time 40 -bte_efield_fwhm 10
"$BTE" dynamics $C -bte_final_time 100 -bte_efield 2000,0,0 -bte_efield_profile step -bte_efield_time 150 | grep -q "field: WARNING the step of -bte_efield_profile step comes at 150. fs, not before the final time 100. fs: this run has no field" || { echo "no warning for a step after the end"; exit 1; }
echo "ok: refusals and the step warning"
# and the package reads them
if [ -n "$PYTHON" ]; then
  PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 "$PYTHON" - <<'PY'
import bte
p, q, b = bte.open("p.h5"), bte.open("q.h5"), bte.open("b.h5")
assert (p.efield_profile, p.efield_time, p.efield_fwhm, p.pump) == ("pulse", 40.0, 20.0, None), vars(p)
assert q.efield_profile == "constant" and q.pump["density"] == 1e16 and q.pump["time"] == 30.0, q.pump
assert b.efield_profile == "constant" and b.efield_time is None and b.pump is None
print("ok: bte.Dynamics reads the profile and the pump")
PY
fi
# another output interval appends
cp nf.h5 d.h5
"$BTE" dynamics $C -bte_final_time 160 -bte_output_interval 30 -bte_init restart -bte_restart d.h5 -bte_output d.h5 > /dev/null
echo "ok: an append with another output interval"
