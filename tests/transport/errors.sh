# bte transport / bte highfield: bad options fail early with a message that says what to do.
. "$TESTDIR/common.sh"
set -e
m="-bte_model parabolic -bte_parabolic_a 40 -bte_grid 8 -bte_view 0"
expect_fail 'Unknown option "\?foo"\? for -bte_transport_method' "$BTE" transport $m -bte_transport_method foo
expect_fail "Temperatures must be positive" "$BTE" transport $m -bte_temperatures 100,-5
expect_fail "option -bte_temperatures needs a value" "$BTE" transport $m -bte_temperatures
expect_fail "not both" "$BTE" transport $m -bte_carrier_densities 1e17 -bte_chemical_potentials 0
expect_fail "Carrier densities must be positive" "$BTE" transport $m -bte_carrier_densities 1e17,-1e16
expect_fail "more than the states in the energy window can hold" "$BTE" transport $m -bte_carrier_densities 1e25
expect_fail "bte_transport_pc_bins is an option of the two-level preconditioner, which this run does not use" "$BTE" transport $m -bte_transport_pc_bins 10
expect_fail "bte_transport_pc_form is an option of the two-level preconditioner" "$BTE" transport $m -bte_transport_method ita -bte_transport_pc twolevel -bte_transport_pc_form additive
expect_fail "ITA tolerance (-bte_ita_tol) must be in (0,1)" "$BTE" transport $m -bte_transport_method ita -bte_ita_tol 2
expect_fail "Cannot write the output file" "$BTE" transport $m -bte_output /nonexistent-dir/x.h5
expect_fail "No scattering data" "$BTE" transport -bte_view 0
expect_fail "needs field strengths" "$BTE" highfield $m
expect_fail "option -bte_efield_list needs a value" "$BTE" highfield $m -bte_efield_list
expect_fail "Field strengths must be >= 0" "$BTE" highfield $m -bte_efield_list 100,-100
expect_fail "expected x, y, z" "$BTE" highfield $m -bte_efield_list 100 -bte_efield_direction w
expect_fail "expected x, y, z" "$BTE" highfield $m -bte_efield_list 100 -bte_efield_direction 1,0
expect_fail "nonzero vector" "$BTE" highfield $m -bte_efield_list 100 -bte_efield_direction 0,0,0
expect_fail 'Unknown option "\?secant"\? for -bte_highfield_method' "$BTE" highfield $m -bte_efield_list 100 -bte_highfield_method secant
expect_fail "Carrier density must be positive" "$BTE" highfield $m -bte_efield_list 100 -bte_carrier_density -1
expect_fail "Cannot write the output file" "$BTE" highfield $m -bte_efield_list 100 -bte_output /nonexistent-dir/x.h5
"$BTE" info -bte_model graphene -bte_grid 6 -bte_view 0 > /dev/null 2>&1 && expect_fail "No state in the window scatters" "$BTE" transport -bte_model graphene -bte_grid 60 -bte_view 0
# and with MPI: one message, nonzero exit
expect_fail "Temperatures must be positive" $MPIEXEC -n ${TEST_NP:-2} "$BTE" transport $m -bte_temperatures -1
# a smearing wider than the table's: its channels were selected within 3 x its own: warned (not for
# a narrower one, whose channels the table holds); the table's maker is named for a window too small
"$BTE" generate $m -bte_output s.h5 > /dev/null
out=$("$BTE" transport -bte_input s.h5 -bte_view 0 -bte_smearing 0.02 2>&1)
grep -q "WARNING: the smearing 0.02 eV (-bte_smearing) is wider than the table's 0.01 eV: its channels were selected within 3 x 0.01 eV .* cut at 1.5 of its widths" <<<"$out" || { echo "$out"; echo "FAIL: no warning for a wider smearing"; exit 1; }
"$BTE" transport -bte_input s.h5 -bte_view 0 -bte_smearing 0.005 2>&1 | grep -q "WARNING: the smearing" && { echo "FAIL: a narrower smearing warned"; exit 1; }
expect_fail "more than the states in the energy window can hold .* make the table with a wider energy window" "$BTE" transport -bte_input s.h5 -bte_view 0 -bte_carrier_densities 1e25
echo "ok: smearing and window advice for a table"
