# Options with stated bounds (issue 13, item 1 and finding 6): NaN, absurd magnitudes and vectors
# with the wrong number of components are refused with one line naming the value and the bound,
# nonzero exit. Before, -bte_efield nan,0,0 ran with no field, 1,2,3,4 dropped the fourth value,
# -bte_init_e0 nan ran NaN, -bte_phonon_min nan gave 0 channels, and a step, output interval or
# final time of 1e-300 / 1e300 ran forever (each command here has a timeout).
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_view 0 -bte_final_time 10"
D="timeout 60 $BTE dynamics $P"
expect_fail "needs three components Ex,Ey,Ez (V/cm), got 4" $D -bte_efield 1,2,3,4
expect_fail "Ex (-bte_efield) = nan V/cm is not a finite number" $D -bte_efield nan,0,0
expect_fail "Ez (-bte_efield) = 1e+300 V/cm is out of range: expected a finite value in \[-1e+08, 1e+08\]" $D -bte_efield 0,0,1e300
expect_fail "bte_init_e0 = nan.* is not a finite number" $D -bte_init_e0 nan
expect_fail "bte_init_e0_edge = inf.* is not a finite number" $D -bte_init_e0_edge inf
expect_fail "bte_init_smear = 1e+300 eV is out of range" $D -bte_init_smear 1e300
expect_fail "initial state has no carriers" $D -bte_init_e0 500
expect_fail "bte_phonon_min = nan.* is not a finite number" $D -bte_phonon_min nan
expect_fail "bte_g2_cutoff.*nan" $D -bte_g2_cutoff nan
expect_fail "bte_window) = 1e+300 eV is out of range" $D -bte_window 1e300
expect_fail "bte_memory_limit = nan.* is not a finite number" $D -bte_memory_limit nan
expect_fail "bte_time_step = 1e-300 fs is out of range: expected a finite value in \[1e-06, 1e+06\] fs" $D -bte_time_step 1e-300
expect_fail "bte_time_step = 1e+300 fs is out of range" $D -bte_time_step 1e300
expect_fail "time step (-ts_dt) = 1e-300 fs is out of range" $D -ts_dt 1e-300
expect_fail "final time (-bte_final_time) = 1e+300 fs is out of range: expected a finite value in \[-1e+09, 1e+09\] fs" $D -bte_final_time 1e300
expect_fail "final time (-bte_final_time, -ts_max_time) = 1e+300 fs is out of range" $D -ts_max_time 1e300
expect_fail "output interval (-bte_output_interval) = 1e-300 fs is out of range" $D -bte_output_interval 1e-300
expect_fail "number of output times .* = 1e+08 is out of range" $D -bte_final_time 1e8 -bte_output_interval 1
expect_fail "number of fixed steps .* = 1e+10 is out of range" $D -bte_final_time 1e8 -bte_time_step 0.01 -bte_output_interval 1e6
expect_fail "bte_state_tolerance = nan" $D -bte_state_tolerance nan
# -bte_output_energy_step 1e-12 used to fail with a function name only, after truncating the old output
"$BTE" dynamics $P -bte_output old.h5 >/dev/null
cp old.h5 old0.h5
expect_fail "bte_output_energy_step = 1e-12 eV is out of range: expected a finite value in \[1e-06, 10\] eV" $D -bte_output old.h5 -bte_output_energy_step 1e-12
cmp old.h5 old0.h5 || { echo "FAIL: a refused run changed the old output"; exit 1; }
# the physics settings
expect_fail "temperature (-bte_temperature) = 1e+300 K is out of range: expected a finite value in \[0.01, 100000\] K" $D -bte_temperature 1e300
expect_fail "smearing (-bte_smearing) = 4.94066e-324 eV is out of range" $D -bte_smearing 5e-324
# transport and high field
m="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 8 -bte_view 0"
expect_fail "temperature (-bte_temperatures) = 1e+300 K is out of range" timeout 60 "$BTE" transport $m -bte_temperatures 300,1e300
expect_fail "bte_chemical_potentials = nan.* is not a finite number" timeout 60 "$BTE" transport $m -bte_chemical_potentials nan
expect_fail "Not a number in the chemical potential list" timeout 60 "$BTE" transport $m -bte_chemical_potentials 0.1,nan
expect_fail "chemical potential (-bte_chemical_potentials) = 1e+300 eV is out of range" timeout 60 "$BTE" transport $m -bte_chemical_potentials 0,1e300
expect_fail "field strength (-bte_efield_list) = 1e+300 V/cm is out of range" timeout 60 "$BTE" highfield $m -bte_efield_list 100,1e300
expect_fail "nonzero vector" timeout 60 "$BTE" highfield $m -bte_efield_list 100 -bte_efield_direction nan,0,0
expect_fail "expected x, y, z" timeout 60 "$BTE" highfield $m -bte_efield_list 100 -bte_efield_direction 1,0,0,0
expect_fail "bte_highfield_ptc_dt_max = nan" timeout 60 "$BTE" highfield $m -bte_efield_list 100 -bte_highfield_ptc_dt_max nan
# Perturbo import: a grid or band range with an extra component is refused, not truncated
expect_fail "bte_perturbo_kdim takes at most 3 values" timeout 60 "$BTE" info -bte_model perturbo -bte_perturbo_epr none.h5 -bte_perturbo_kdim 4,4,4,4
expect_fail "bte_perturbo_qdim takes at most 3 values" timeout 60 "$BTE" info -bte_model perturbo -bte_perturbo_epr none.h5 -bte_perturbo_qdim 2,2,2,2
expect_fail "bte_perturbo_bands takes at most 2 values" timeout 60 "$BTE" info -bte_model perturbo -bte_perturbo_epr none.h5 -bte_perturbo_bands 1,2,3
# and on several ranks: the same line, nonzero exit
expect_fail "bte_init_e0 = nan.* is not a finite number" timeout 60 $MPIEXEC -n ${TEST_NP:-2} "$BTE" dynamics $P -bte_init_e0 nan
# values inside the bounds still run
"$BTE" dynamics $P -bte_efield 1000,0,0 -bte_init_e0_edge 0.05 >/dev/null
echo "ok: in-bound options run"
