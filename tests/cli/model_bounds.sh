# The built-in models' parameters have upper bounds, a few orders of magnitude beyond any real
# material's (docs/models.md): a value beyond one is refused before the table is built, with one
# line naming the option, its value and the allowed range, exit 1. Before, only lower bounds were
# checked: -bte_parabolic_mass 1e300 ran and gave a conductivity of 0.
. "$TESTDIR/common.sh"
set -e
one_line() { # PATTERN cmd...: exit 1 and one line on stderr
  local pat=$1 err rc; shift
  err=$("$@" 2>&1 >/dev/null) && rc=0 || rc=$?
  [ $rc -eq 1 ] || { echo "FAIL: exit $rc (expected 1): $*"; echo "$err"; exit 1; }
  [ "$(grep -c . <<<"$err")" -eq 1 ] || { echo "FAIL: more than one line on stderr for: $*"; echo "$err"; exit 1; }
  grep -q -- "$pat" <<<"$err" || { echo "FAIL: no '$pat' in: $err"; exit 1; }
  echo "ok: $err"
}
p="info -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20"
one_line "bte info: error: -bte_parabolic_mass = 1e+300 m_e is out of range: expected a finite value in (0, 1000\] m_e" "$BTE" $p -bte_parabolic_mass 1e300
one_line "bte transport: error: -bte_parabolic_mass = 1e+300 m_e is out of range" "$BTE" transport -bte_model parabolic -bte_grid 8 -bte_parabolic_a 20 -bte_view 0 -bte_parabolic_mass 1e300
one_line "-bte_parabolic_a = 5000 Angstrom is out of range: expected a finite value in (0, 1000\] Angstrom" "$BTE" $p -bte_parabolic_a 5000
one_line "-bte_parabolic_hw_lo = 20 eV is out of range: expected a finite value in (0, 10\] eV" "$BTE" $p -bte_parabolic_hw_lo 20
one_line "-bte_parabolic_eps_inf = 1e+07 is out of range: expected a finite value in (0, 1e+06\]" "$BTE" $p -bte_parabolic_eps_inf 1e7
one_line "-bte_parabolic_eps_0 = 1e+30 is out of range" "$BTE" $p -bte_parabolic_eps_0 1e30
one_line "-bte_parabolic_dac = -5000 eV is out of range: expected a finite value in \[-1000, 1000\] eV" "$BTE" $p -bte_parabolic_dac -5e3
one_line "-bte_parabolic_vs = 1e+08 m/s is out of range: expected a finite value in (0, 1e+06\] m/s" "$BTE" $p -bte_parabolic_vs 1e8
one_line "-bte_parabolic_density = 1e+09 kg/m^3 is out of range: expected a finite value in (0, 1e+06\] kg/m^3" "$BTE" $p -bte_parabolic_density 1e9
# the lower bounds as before
one_line "a, mass, hw_lo, eps_inf, eps_0, vs and density must be positive" "$BTE" $p -bte_parabolic_mass -1
# before any work: no table written
one_line "-bte_parabolic_mass = 1e+300 m_e is out of range" "$BTE" generate -bte_model parabolic -bte_grid 8 -bte_output t.h5 -bte_parabolic_mass 1e300
[ ! -e t.h5 ] && [ ! -e t.h5.tmp ] || { echo "FAIL: generate wrote a table despite the refusal"; exit 1; }
# gaas: the anisotropic masses (offsets and intervalley couplings had their bounds)
g="info -bte_model gaas -bte_grid 8 -bte_gaas_masses anisotropic"
one_line "-bte_gaas_l_masses (transverse) = 20000 m_e is out of range: expected a finite value in (0, 1000\] m_e" "$BTE" $g -bte_gaas_l_masses 1.9,2e4
one_line "-bte_gaas_x_masses (longitudinal) = 1e+300 m_e is out of range" "$BTE" $g -bte_gaas_x_masses 1e300,0.23
expect_fail "must be in \[0, 1e12\]" "$BTE" info -bte_model gaas -bte_grid 8 -bte_gaas_intervalley_d 1e13,1e9,5e8,1e9,7e8
# graphene
r="info -bte_model graphene -bte_grid 12"
one_line "-bte_graphene_vf = 1e+300 m/s is out of range: expected a finite value in (0, 1e+07\] m/s" "$BTE" $r -bte_graphene_vf 1e300
one_line "-bte_graphene_t = 500 eV is out of range: expected a finite value in (0, 100\] eV" "$BTE" $r -bte_graphene_t 500
one_line "-bte_graphene_a = 10000 Angstrom is out of range" "$BTE" $r -bte_graphene_a 1e4
one_line "-bte_graphene_rho = 1 kg/m^2 is out of range: expected a finite value in (0, 0.001\] kg/m^2" "$BTE" $r -bte_graphene_rho 1
one_line "-bte_graphene_v_la = 1e+07 m/s is out of range" "$BTE" $r -bte_graphene_v_la 1e7
one_line "-bte_graphene_d_ta = 2000 eV is out of range: expected a finite value in \[-1000, 1000\] eV" "$BTE" $r -bte_graphene_d_ta 2e3
one_line "-bte_graphene_d_ac_eff = 100000 eV is out of range: expected a finite value in \[0, 1000\] eV" "$BTE" $r -bte_graphene_d_ac_eff 1e5
one_line "-bte_graphene_hw_k = 50 eV is out of range: expected a finite value in (0, 10\] eV" "$BTE" $r -bte_graphene_hw_k 50
one_line "-bte_graphene_d_gamma = 1e+15 eV/cm is out of range: expected a finite value in \[-1e+12, 1e+12\] eV/cm" "$BTE" $r -bte_graphene_d_gamma 1e15
# si-holes
s="info -bte_model si-holes -bte_grid 8 -bte_si_holes_bands dkk" # the isotropic couplings, whose parameters these are
one_line "-bte_si_holes_lattice = 2000 Angstrom is out of range" "$BTE" $s -bte_si_holes_lattice 2e3
one_line "-bte_si_holes_dkk_a = 100000 hbar^2/2m_e is out of range: expected a finite value in (0, 1000\] hbar^2/2m_e" "$BTE" $s -bte_si_holes_dkk_a 1e5
one_line "-bte_si_holes_delta = 10000 eV is out of range: expected a finite value in \[0, 1000\] eV" "$BTE" $s -bte_si_holes_delta 1e4
one_line "-bte_si_holes_rho = 1e+300 kg/m^3 is out of range" "$BTE" $s -bte_si_holes_rho 1e300
one_line "-bte_si_holes_vs = 1e+07 m/s is out of range" "$BTE" $s -bte_si_holes_vs 1e7
one_line "-bte_si_holes_dac = 10000 eV is out of range" "$BTE" $s -bte_si_holes_dac 1e4
one_line "-bte_si_holes_hwop = 11 eV is out of range: expected a finite value in (0, 10\] eV" "$BTE" $s -bte_si_holes_hwop 11
one_line "-bte_si_holes_dop = 1e+13 eV/cm is out of range" "$BTE" $s -bte_si_holes_dop 1e13
one_line "-bte_si_holes_interband = 2 is out of range: expected a finite value in \[0, 1\] (an overlap factor)" "$BTE" $s -bte_si_holes_interband 2
# on several ranks: the same line, nonzero exit
expect_fail "-bte_parabolic_mass = 1e+300 m_e is out of range" $MPIEXEC -n ${TEST_NP:-2} "$BTE" $p -bte_parabolic_mass 1e300
# values at the bounds (and the defaults) still run
"$BTE" $p -bte_parabolic_mass 1000 -bte_parabolic_hw_lo 10 -bte_parabolic_vs 1e6 -bte_parabolic_density 1e6 -bte_parabolic_dac -1000 >/dev/null
"$BTE" $r -bte_graphene_t 100 -bte_graphene_rho 1e-3 -bte_graphene_d_k 1e12 >/dev/null
"$BTE" $s -bte_si_holes_delta 1000 -bte_si_holes_interband 1 >/dev/null
"$BTE" $g -bte_gaas_l_masses 1000,0.075 >/dev/null
echo "ok: values at the bounds run"
