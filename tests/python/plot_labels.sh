# What the transport and high-field plots and files say about a result:
#  - the files record what decides it: /transport fixed (density or chemical potential) and delta,
#    /highfield drift_form, delta, smearing_eV and spin_degeneracy, and every output the table's own
#    provenance (root table_source: the command that rebuilds a model's table);
#  - mobility(): a chemical-potential sweep is one curve per chemical potential (its densities
#    change with the temperature), unconverged configurations are open markers counted in the
#    title, and the curves keep the colour cycle;
#  - velocity_field(): no "peak" where |v_d| is largest at the end of the field range;
#  - plot_transport -o NAME without an extension writes NAME.png, the name it prints;
#  - Dynamics: the operator's smearing, delta and table identity are read, their units and the
#    diagnostics' and cost's units checked; mean_energy() of a pumped run does not call the pumped
#    carriers a conservation error, and a run stopped before its final time says so in the title.
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
source "$TESTDIR/common.sh"
export PYTHONPATH="$TESTDIR/../python" PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg
T="-bte_model parabolic -bte_grid 16 -bte_parabolic_a 20 -bte_view 0"
"$BTE" transport $T -bte_temperatures 150,200,300,400 -bte_chemical_potentials -0.05,-0.02 -bte_output mu.h5 > /dev/null
"$BTE" transport $T -bte_transport_method ita -bte_ita_max_it 3 -bte_temperatures 200,300 -bte_allow_unconverged -bte_output ita.h5 > /dev/null 2>&1
"$BTE" highfield $T -bte_efield_list 100,1000,3000 -bte_drift_form upwind -bte_smearing 0.02 -bte_delta balanced -bte_output hf.h5 > /dev/null
"$BTE" dynamics $T -bte_init fermi -bte_pump_density 1e17 -bte_pump_time 20 -bte_pump_fwhm 10 -bte_final_time 60 -bte_output_interval 20 \
  -bte_dynamics_monitor 0 -bte_output pump.h5 > /dev/null
"$BTE" dynamics $T -bte_final_time 60 -bte_output_interval 20 -ts_max_steps 30 -bte_dynamics_monitor 0 -bte_output stopped.h5 > /dev/null
out=$("$PYTHON" "$TESTDIR/../scripts/plot_transport.py" mu.h5 -o mob)
grep -qx "wrote mob.png" <<<"$out" || { echo "FAIL: $out"; exit 1; }
[ -s mob.png ] && [ -s mob_rates.png ] && [ ! -e mob ] || { echo "FAIL: -o mob did not write mob.png and mob_rates.png"; ls; exit 1; }
"$PYTHON" - <<'PY'
import numpy as np
import bte
from bte import plot

mu, ita, hf = bte.open("mu.h5"), bte.open("ita.h5"), bte.open("hf.h5")
src = "bte generate -bte_model parabolic -bte_grid 16 -bte_window 0.3 -bte_smearing %s-bte_parabolic_a 20"
assert mu.fixed == "chemical_potential" and ita.fixed == "carrier_density", (mu.fixed, ita.fixed)
assert mu.delta == "perturbo" and hf.delta == "balanced", (mu.delta, hf.delta)
assert hf.drift_form == "upwind" and hf.smearing == 0.02 and hf.spin_degeneracy == 2, (hf.drift_form, hf.smearing)
assert hf.valley_kpoint.shape == (1, 3) and not hf.valley_kpoints().any(), hf.valley_kpoint  # the parabolic band's Gamma
assert mu.provenance["table_source"] == src % "0.01 ", mu.provenance
assert hf.provenance["table_source"] == src % "0.02 -bte_delta balanced ", hf.provenance
# one curve per chemical potential, 4 temperatures each (the densities differ at every point)
assert len(set(np.round(mu.carrier_density, 6))) == 8
ax = plot.mobility(mu).axes[0]
lines = [l for l in ax.get_lines() if l.get_linestyle() != "None"]
assert len(lines) == 2 and all(len(l.get_xdata()) == 4 for l in lines), [len(l.get_xdata()) for l in lines]
assert lines[0].get_color() != lines[1].get_color()
labels = [t.get_text() for t in ax.get_legend().get_texts()]
assert labels == ["$\\mu$ = -0.05 eV", "$\\mu$ = -0.02 eV"], labels
assert "not converged" not in ax.get_title(), ax.get_title()
# ITA stopped after 3 iterations: not converged, drawn open and counted
bad = int((~ita.converged).sum())
assert bad > 0, ita.converged
ax = plot.mobility(ita).axes[0]
assert ax.get_title().endswith("%d of %d not converged (open)" % (bad, len(ita))), ax.get_title()
opened = [l for l in ax.get_lines() if l.get_linestyle() == "None" and l.get_markerfacecolor() == "white"]
assert sum(len(l.get_xdata()) for l in opened) == bad
# the parabolic band's |v_d| rises over 0.1-3 kV/cm: largest at the last field, which is no peak
assert np.argmax(np.abs(hf.drift_velocity)) == len(hf.field) - 1
ax = plot.velocity_field(hf).axes[0]
assert not [t for t in ax.texts if "peak" in t.get_text()], [t.get_text() for t in ax.texts]
assert "  " not in ax.get_title() and ax.get_title().startswith("bte highfield: parabolic, 300 K"), ax.get_title()
# dynamics: the operator, and units checked where the reader returns dicts
import shutil, h5py
d = bte.open("pump.h5")
assert d.smearing == 0.01 and d.delta == "perturbo" and d.table_channels > 0 and len(d.table_checksum) == 16, (d.smearing, d.delta)
assert d.table_source == src % "0.01 ", d.table_source
for path, name, val in (("/dynamics", "smearing_units", "Ry"), ("/diagnostics", "relaxation_temperature_units", "mK"),
                        ("/dynamics/cost", "wall_time_total_units", "ms"), ("/dynamics", "delta", "gaussian")):
    shutil.copy("pump.h5", "bad.h5")
    with h5py.File("bad.h5", "r+") as f:
        f[path].attrs[name] = np.bytes_(val)
    try:
        bte.open("bad.h5")
        raise SystemExit("FAIL: %s %s = %s accepted" % (path, name, val))
    except bte.BTEFileError as e:
        assert name.replace("_units", "") in str(e), e
assert "stopped" not in plot.mean_energy(d)._suptitle.get_text()
assert plot.mean_energy("stopped.h5")._suptitle.get_text().endswith("(stopped before its final time)")
title = plot.mean_energy(d).axes[0].get_title()
assert "pumped" in title and "kept to" not in title, title
assert d.carriers[-1] > 1.2 * d.carriers[0], d.carriers  # 1e17 pumped onto 3.3e17
print("ok: provenance, chemical-potential curves, unconverged points, no peak at the range's end, dynamics' operator")
PY
