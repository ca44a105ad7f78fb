# Options whose value would be ignored, or read as something else, without a word: each is refused
# with one line naming it (an options audit found every one of these running to exit 0).
. "$TESTDIR/common.sh"
set -e
P="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 8"
D="$BTE dynamics $P -bte_view 0 -bte_final_time 10"
"$BTE" generate $P -bte_output t8.h5 -bte_view 0 > /dev/null
# a list with an empty entry: PETSc's readers skipped it (-bte_efield 0,,1000,0 ran as 0,1000,0)
expect_fail "bte_efield 0,,1000,0: an empty entry" $D -bte_efield 0,,1000,0
expect_fail "bte_efield 1,0,0,: an empty entry" $D -bte_efield 1,0,0,
expect_fail "bte_efield ,1,0,0: an empty entry" $D -bte_efield ,1,0,0
expect_fail "bte_gaas_offsets 0.3,,0.5: an empty entry" "$BTE" info -bte_model gaas -bte_grid 8 -bte_gaas_offsets 0.3,,0.5
expect_fail "bte_bench_types fused,,pair: an empty entry" "$BTE" bench $P -bte_bench_types fused,,pair
# a comma inside a file name is not a list
"$BTE" generate $P -bte_output "t,8.h5" -bte_view 0 > /dev/null && [ -f "t,8.h5" ]
# the parabolic model's Frohlich strength 1/eps_inf - 1/eps_0 at or below zero dropped LO silently
expect_fail "bte_parabolic_eps_0 5. is not above -bte_parabolic_eps_inf 10.92" "$BTE" info $P -bte_parabolic_eps_0 5
expect_fail "would be zero" "$BTE" info $P -bte_parabolic_eps_0 10.92
"$BTE" info $P -bte_parabolic_eps_0 5 -bte_parabolic_lo 0 > /dev/null
# options that shape a model's table, given with a table read from a file
for o in "-bte_grid 16" "-bte_window 0.2" "-bte_phonon_min 0.02" "-bte_g2_cutoff 1e-9" "-bte_energy_tolerance 4" "-bte_generate_batch 100"; do
  expect_fail "${o%% *} shapes the table a model makes" "$BTE" info -bte_input t8.h5 $o
done
# bench times -bte_bench_types, not -bte_collision_type / _precision
expect_fail "bte bench times the types of -bte_bench_types .* not -bte_collision_type" "$BTE" bench $P -bte_collision_type fused
expect_fail "not -bte_collision_precision" "$BTE" bench $P -bte_collision_precision mixed
# initial-state options the chosen state does not read
expect_fail "bte_init_occupation is the peak of a gaussian or lorentz" $D -bte_init fermi -bte_init_occupation 0.5
expect_fail "bte_init fermi: give either the chemical potential (-bte_init_e0) or -bte_carrier_density" $D -bte_init fermi -bte_carrier_density 1e17 -bte_init_e0 0.2
expect_fail "give either -bte_carrier_density or -bte_init_occupation" $D -bte_carrier_density 1e17 -bte_init_occupation 0.01
expect_fail "Give either -bte_init_e0 .* or -bte_init_e0_edge" $D -bte_init_e0 0.05 -bte_init_e0_edge 0.2
"$BTE" dynamics $P -bte_view 0 -bte_final_time 10 -bte_output r.h5 > /dev/null
# a restart may keep the command line of the run it continues: its initial-state options are said
# to be unused when the run starts
$D -bte_init restart -bte_restart r.h5 -bte_final_time 20 -bte_init_smear 0.1 -bte_carrier_density 1e17 | grep -q "initial state: the restart snapshot's; not used: -bte_init_smear, -bte_carrier_density" || { echo "FAIL: restart with initial-state options"; exit 1; }
expect_fail "bte_carrier_density 0.: must be > 0" $D -bte_carrier_density 0
# each alone still runs
for o in "-bte_init fermi -bte_carrier_density 1e17" "-bte_init fermi -bte_init_e0_edge 0.01" "-bte_init_occupation 0.01" "-bte_carrier_density 1e17"; do
  $D $o > /dev/null || { echo "FAIL: dynamics $o"; exit 1; }
done
# graphene: the hopping sets v_F, so both were one ignored
expect_fail "Give either -bte_graphene_vf or -bte_graphene_t" "$BTE" info -bte_model graphene -bte_grid 30 -bte_graphene_t 2.7 -bte_graphene_vf 5e5
# the two-level PC's direction split: a NaN or zero direction claimed a split it did not make
I="-ts_type beuler -ts_adapt_type none -ts_dt 2 -pc_type bte_twolevel -bte_output i.h5"
expect_fail "pc_bte_twolevel_direction nan.,0.,0.: needs a finite, nonzero vector" $D $I -pc_bte_twolevel_direction nan,0,0
expect_fail "pc_bte_twolevel_direction 0.,0.,0.: needs a finite, nonzero vector" $D $I -pc_bte_twolevel_direction 0,0,0
# (PETSc 3.2x refuses the inf itself, in its own words)
expect_fail "pc_bte_twolevel_states_per_block must be a finite number\|Newly set value inf" $D $I -pc_bte_twolevel_states_per_block inf
$D $I -pc_bte_twolevel_direction 1,0,0 > /dev/null
# options of another transport method than the run's
expect_fail "bte_ita_tol is an option of the ita method, which this run does not use (-bte_transport_method rta)" "$BTE" transport -bte_input t8.h5 -bte_view 0 -bte_transport_method rta -bte_ita_tol 1e-3
expect_fail "bte_ita_max_it is an option of the ita method, which this run does not use (-bte_transport_method ksp)" "$BTE" transport -bte_input t8.h5 -bte_view 0 -bte_ita_max_it 5
expect_fail "bte_transport_ksp_rtol is an option of the ksp method's solver" "$BTE" transport -bte_input t8.h5 -bte_view 0 -bte_transport_method rta -bte_transport_ksp_rtol 1e-3
expect_fail "bte_transport_pc_type is an option of the ksp method's solver" "$BTE" transport -bte_input t8.h5 -bte_view 0 -bte_transport_method ita -bte_transport_pc_type none
for o in "-bte_transport_pc twolevel" "-bte_transport_symmetric" "-bte_transport_residual_max 1e-2"; do
  expect_fail "${o%% *} is an option of the ksp method, which this run does not use (-bte_transport_method ita)" "$BTE" transport -bte_input t8.h5 -bte_view 0 -bte_transport_method ita $o
done
# si-holes: a parameter of a coupling the run does not select (the parameter list printed it)
S="-bte_model si-holes -bte_grid 6"
expect_fail "bte_si_holes_dac is a parameter of -bte_si_holes_acoustic isotropic, which this run does not use" "$BTE" info $S -bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_dac 6
expect_fail "bte_si_holes_c11 is a parameter of -bte_si_holes_acoustic bir-pikus" "$BTE" info $S -bte_si_holes_bands dkk -bte_si_holes_c11 170
expect_fail "bte_si_holes_bp_d0 is a parameter of -bte_si_holes_optical bir-pikus" "$BTE" info $S -bte_si_holes_bands dkk -bte_si_holes_bp_d0 30
expect_fail "bte_si_holes_dop is a parameter of -bte_si_holes_optical isotropic" "$BTE" info $S -bte_si_holes_bands kp6 -bte_si_holes_optical bir-pikus -bte_si_holes_dop 7e8
expect_fail "bte_si_holes_so_overlap is a parameter of -bte_si_holes_overlap wiley" "$BTE" info $S -bte_si_holes_so_overlap 0.3
expect_fail "bte_si_holes_interband is a parameter of -bte_si_holes_overlap const" "$BTE" info $S -bte_si_holes_overlap wiley -bte_si_holes_interband 0.5
"$BTE" info $S -bte_si_holes_bands kp6 -bte_si_holes_acoustic bir-pikus -bte_si_holes_bp_a 2 -bte_si_holes_optical bir-pikus -bte_si_holes_bp_d0 30 > /dev/null
# the default couplings (bir-pikus with the default kp6 bands) take none of the isotropic ones' parameters
expect_fail "bte_si_holes_dac is a parameter of -bte_si_holes_acoustic isotropic, which this run does not use" "$BTE" info $S -bte_si_holes_dac 6
expect_fail "bte_si_holes_overlap sets the band overlaps of the isotropic couplings, and this run's acoustic and optical couplings are both bir-pikus" "$BTE" info $S -bte_si_holes_overlap kp
expect_fail "bte_si_holes_interband is a parameter of the band overlaps of the isotropic couplings" "$BTE" info $S -bte_si_holes_interband 0.5
"$BTE" info $S -bte_si_holes_bp_d0 30 -bte_si_holes_c11 170 > /dev/null
"$BTE" info $S -bte_si_holes_optical isotropic -bte_si_holes_overlap kp -bte_si_holes_dop 7e8 > /dev/null
# the drift's slope limiter with a form that has no slopes
expect_fail "bte_drift_limiter is an option of the muscl drift form; -bte_drift_form upwind" $D -bte_efield 1000,0,0 -bte_drift_form upwind -bte_drift_limiter minmod
# high-field continuation options that would not act, and the two-level PC's rule beside its count
H="$BTE highfield -bte_input t8.h5 -bte_view 0 -bte_efield_list 100"
expect_fail "bte_highfield_ptc_switch is the hand-over of the newton method's fallback" $H -bte_highfield_method ptc -bte_highfield_ptc_switch 1e-2
expect_fail "bte_highfield_ptc_switch 5.: must be in (0, 1)" $H -bte_highfield_ptc_switch 5
expect_fail "bte_highfield_ptc_dt 10. fs is above -bte_highfield_ptc_dt_max 1. fs" $H -bte_highfield_ptc_dt 10 -bte_highfield_ptc_dt_max 1
$D -bte_pump_density 1e15 -bte_pump_time 1e6 | grep -q "pump: WARNING the pulse at 1e+06 fs (FWHM 50. fs) comes after the final time 10. fs" || { echo "FAIL: no warning for a pump after the end"; exit 1; }
# a direction with huge components is a direction (its norm had overflowed: "must be nonzero"),
# and a start the log unknowns cannot hold says what to change
$H -bte_efield_direction 1e300,1e300,0 > /dev/null
expect_fail "outside what the log unknowns g = ln((1-f)/f) hold in double precision .* T = 0.5 K" $H -bte_temperature 0.5
# -x as a direction is read by PETSc as an option of its own: the missing value is named with a hint
expect_fail "option -bte_efield_direction needs a value .*write a direction as numbers, e.g. -1,0,0" $H -bte_efield_direction -x
# the write batch of a streamed table, with the table built in memory
expect_fail "bte_generate_batch sets how much of the table is written at a time while generating" "$BTE" generate $P -bte_output g.h5 -bte_generate_stream 0 -bte_generate_batch 100
# a KSP allowed no iteration
expect_fail "bte_transport_ksp_max_it 0: must be >= 1" "$BTE" transport -bte_input t8.h5 -bte_view 0 -bte_transport_ksp_max_it 0
# -help shows the lists' defaults, not uninitialised memory
"$BTE" transport -help | grep -q -- "-bte_temperatures:\? <300\.>" || { echo "FAIL: transport -help temperatures"; "$BTE" transport -help | grep -- "-bte_temperatures"; exit 1; }
"$BTE" transport -help | grep -q -- "-bte_carrier_densities:\? <1e+17>" || { echo "FAIL: transport -help densities"; exit 1; }
! "$BTE" transport -help | grep -- "-bte_chemical_potentials\|-bte_temperatures\|-bte_carrier_densities" | grep -q "e-3[0-9][0-9]" || { echo "FAIL: uninitialised defaults in -help"; exit 1; }
# drift only (-bte_scattering 0) builds no collision operator: its options are unused (the same
# run without them passes)
expect_fail "unused option.*-bte_collision_type fused -bte_pair_tile 64" $D -bte_scattering 0 -bte_efield 100,0,0 -bte_output so.h5 -bte_collision_type fused -bte_pair_tile 64
$D -bte_scattering 0 -bte_efield 100,0,0 -bte_output so.h5 > /dev/null
echo "ok: every ignored option refused with one line"
