# Bad dynamics options give clear errors (and no crash).
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_view 0 -bte_final_time 10"
expect_fail "time step must be positive" "$BTE" dynamics $P -bte_time_step -1
expect_fail "time step must be positive" "$BTE" dynamics $P -ts_dt -2
expect_fail "Unknown initial state -bte_init sideways" "$BTE" dynamics $P -bte_init sideways
expect_fail "Restart file nothere.h5 not found" "$BTE" dynamics $P -bte_init restart -bte_restart nothere.h5
expect_fail "needs the file to restart from" "$BTE" dynamics $P -bte_init restart
echo "not hdf5" > junk.h5
expect_fail "not an HDF5 file" "$BTE" dynamics $P -bte_init restart -bte_restart junk.h5
expect_fail "needs three components" "$BTE" dynamics $P -bte_efield 100,0
expect_fail "Cannot write the output file no/such/dir/out.h5 (-bte_output): its directory no/such/dir does not exist" "$BTE" dynamics $P -bte_output no/such/dir/out.h5
expect_fail "peak occupation" "$BTE" dynamics $P -bte_init_occupation 1.5
expect_fail "needs a peak occupation of" "$BTE" dynamics $P -bte_carrier_density 1e30
expect_fail "not after the initial time" "$BTE" dynamics $P -bte_final_time -5
expect_fail "No scattering data" "$BTE" dynamics -bte_view 0
# restart from a run of another table
"$BTE" dynamics $P -bte_output small.h5 > /dev/null
expect_fail "states per snapshot" "$BTE" dynamics -bte_model parabolic -bte_grid 10 -bte_parabolic_a 20 -bte_view 0 -bte_final_time 20 -bte_init restart -bte_restart small.h5
# restart time already at the final time
expect_fail "not after the initial time" "$BTE" dynamics $P -bte_init restart -bte_restart small.h5
# a field on a table without band velocities (all zero)
[ -n "$PYTHON" ] || { echo "no Python with h5py: skipping the table edit"; exit 0; }
"$BTE" generate -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_output table.h5 -bte_view 0 > /dev/null
"$PYTHON" -c "
import h5py
with h5py.File('table.h5', 'r+') as f: f['states/velocity'][...] = 0.0"
expect_fail "the table has no band velocities" "$BTE" dynamics -bte_input table.h5 -bte_view 0 -bte_final_time 10 -bte_efield 1000,0,0
# the same table without a field runs
"$BTE" dynamics -bte_input table.h5 -bte_view 0 -bte_final_time 10 > /dev/null
