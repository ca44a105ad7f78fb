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
# Lists with more values than they take are refused, not truncated (a 257th density, a 513th field,
# a third GaAs mass or offset were dropped, exit 0); options that a run would silently ignore are
# refused: -bte_efield in highfield (it uses -bte_efield_list), -bte_restart without -bte_init
# restart (the run started from the default state), -bte_efield with no value (no field), a table
# and a model together (the model's name was shown for the table's data)
expect_fail "bte_temperatures takes at most 256 values" timeout 60 "$BTE" transport $m -bte_temperatures $(seq -s, 1 257)
expect_fail "bte_carrier_densities takes at most 256 values" timeout 60 "$BTE" transport $m -bte_carrier_densities $(seq -s, 1e10 1e10 2.57e12)
expect_fail "bte_chemical_potentials takes at most 256 values" timeout 60 "$BTE" transport $m -bte_chemical_potentials $(seq -s, -0.3 0.001 -0.044)
expect_fail "bte_efield_list takes at most 512 field strengths" timeout 60 "$BTE" highfield $m -bte_efield_list $(seq -s, 1 513)
g="-bte_model gaas -bte_grid 8"
expect_fail "bte_gaas_l_masses needs two values (longitudinal,transverse), got 3" timeout 60 "$BTE" info $g -bte_gaas_masses anisotropic -bte_gaas_l_masses 1.9,0.075,5
expect_fail "bte_gaas_x_masses needs two values (longitudinal,transverse), got 3" timeout 60 "$BTE" info $g -bte_gaas_masses anisotropic -bte_gaas_x_masses 1.3,0.2,9
expect_fail "bte_gaas_offsets needs two values L,X (eV), got 3" timeout 60 "$BTE" info $g -bte_gaas_offsets 0.29,0.48,7
expect_fail "L and X masses .* must be positive and finite" timeout 60 "$BTE" info $g -bte_gaas_masses anisotropic -bte_gaas_l_masses inf,0.1
expect_fail "bte highfield does not use -bte_efield" timeout 60 "$BTE" highfield $m -bte_efield_list 100 -bte_efield 0,5000,0
expect_fail "bte_restart old.h5 needs -bte_init restart" $D -bte_restart old.h5
expect_fail "option -bte_efield needs a value" $D -bte_efield
expect_fail "Give either a table (-bte_input old.h5) or a built-in model (-bte_model parabolic), not both" $D -bte_input old.h5
expect_fail "shape a pump: give the carriers it injects with -bte_pump_density" $D -bte_pump_e0_edge 0.3 -bte_pump_time 50
# bench: repetitions and copy size in range (2e9 repetitions failed naming a function only, a copy
# size of 0 printed 'inf', -1 a PETSc message about a Vec type)
expect_fail "bte_bench_reps must be in \[1, 1000000\], got 2000000000" timeout 60 "$BTE" bench -bte_model parabolic -bte_grid 8 -bte_bench_reps 2000000000
expect_fail "bte_bench_copy_size must be >= 1 (doubles per rank), got 0" timeout 60 "$BTE" bench -bte_model parabolic -bte_grid 8 -bte_bench_copy_size 0
expect_fail "bte_bench_types takes at most 8 types" timeout 60 "$BTE" bench -bte_model parabolic -bte_grid 8 -bte_bench_types pair,pair,pair,pair,pair,pair,pair,pair,tgt
expect_fail "bte_bench_copy_size must be >= 1 (doubles per rank), got -1" timeout 60 "$BTE" bench -bte_model parabolic -bte_grid 8 -bte_bench_copy_size -1
# integer options beyond a PetscInt: PETSc 3.18 read -bte_grid 4294967304 as 8; refused first, every
# entry of a list too, and the driver's list holds every integer option that src/ reads
expect_fail "bte_grid 4294967304: 4294967304 is beyond the range of an integer option" timeout 60 "$BTE" info -bte_model parabolic -bte_grid 4294967304
expect_fail "bte_grid 8,8,5e9: 5e9 is beyond the range of an integer option" timeout 60 "$BTE" info -bte_model parabolic -bte_grid 8,8,5e9
expect_fail "bte_pair_tile -4294967040: -4294967040 is beyond the range" timeout 60 "$BTE" info -bte_model parabolic -bte_grid 8 -bte_pair_tile -4294967040
src="$TESTDIR/../src"
if [ -d "$src" ]; then
  read_ints=$(grep -rhoE 'PetscOptions(Int|IntArray|BoundedInt|RangeInt|GetInt|GetIntArray)\([^"]*"-[a-z0-9_]+"' "$src" | sed -E 's/.*"(-[a-z0-9_]+)"/\1/' | sort -u)
  listed=$(grep -o 'IntegerOptions\[\] = {[^}]*}' "$src/cli/unused.c" | grep -oE '"-[a-z0-9_]+"' | tr -d '"' | sort -u)
  missing=$(comm -23 <(echo "$read_ints" | grep -v '^-device_select$') <(echo "$listed"))
  [ -z "$missing" ] || { echo "FAIL: integer options not in src/cli/unused.c's IntegerOptions: $missing"; exit 1; }
  echo "ok: the $(echo "$listed" | wc -l) integer options of src/ are range-checked"
fi
# values inside the bounds still run
"$BTE" dynamics $P -bte_efield 1000,0,0 -bte_init_e0_edge 0.05 >/dev/null
echo "ok: in-bound options run"
