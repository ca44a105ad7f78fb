# A solve is accepted only if it solved, a list keeps every entry, mu stays inside the window, and an
# output file is written only when every option was used: each of these once ran to exit 0 with a
# wrong or incomplete answer.
. "$TESTDIR/common.sh"
set -e
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
m="-bte_model parabolic -bte_parabolic_a 20 -bte_grid 16 -bte_view 0"
# tolerances that accept F = 0: refused before the work
expect_fail "bte_transport_ksp_rtol 2.*must be in \[0, 1)" "$BTE" transport $m -bte_transport_ksp_rtol 2
expect_fail "bte_transport_ksp_rtol -1.*must be in \[0, 1)" "$BTE" transport $m -bte_transport_ksp_rtol -1
expect_fail "bte_transport_residual_max must be in (0, 1)" "$BTE" transport $m -bte_transport_residual_max 2
# a KSP that "converged" without solving: NOT CONVERGED, a line naming the residual, no file
for o in "-bte_transport_ksp_atol 1e6" "-bte_transport_ksp_type preonly" \
         "-bte_transport_ksp_type richardson -bte_transport_ksp_max_it 3 -bte_transport_ksp_convergence_test skip"; do
  expect_fail "above -bte_transport_residual_max 0.001: not a solution" "$BTE" transport $m $o -bte_output "$W/a.h5"
  expect_fail "NOT CONVERGED" "$BTE" transport $m $o
  [ ! -e "$W/a.h5" ] || { echo "an unconverged solve wrote $W/a.h5 ($o)"; exit 1; }
done
# the limit is the user's: preonly's RTA (residual 0.65) passes a limit of 0.9, and is the RTA
out=$("$BTE" transport $m -bte_transport_ksp_type preonly -bte_transport_residual_max 0.9)
rta=$("$BTE" transport $m -bte_transport_method rta)
a=$(awk '$1 == "300.00" {print $4}' <<<"$out"); b=$(awk '$1 == "300.00" {print $4}' <<<"$rta")
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "preonly with the limit raised: '$a', RTA: '$b'"; echo "$out"; exit 1; }
echo "ok: preonly under -bte_transport_residual_max 0.9 gives the RTA's $a"
# and a real solve passes with room to spare: residual column below 1e-7
"$BTE" transport $m -bte_output "$W/ok.h5" | awk '$1 == "300.00" { if ($NF + 0 > 1e-7 || $NF ~ /CONVERGED/) bad = 1; seen = 1 }
  END { if (!seen || bad) { print "default solve: residual not below 1e-7"; exit 1 } print "ok: the default solve is accepted" }'
[ -s "$W/ok.h5" ]
# PETSc's diagonal scaling without its fix left the operator scaled for the next direction (mu_yy
# and mu_zz 160x off, x flagged): refused
expect_fail "bte_transport_ksp_diagonal_scale needs -bte_transport_ksp_diagonal_scale_fix" "$BTE" transport $m -bte_transport_ksp_diagonal_scale
# a PC that needs the matrix's entries: one line, not PETSc's "No method sor for Mat of type shell"
expect_fail "bte_transport_pc_type sor: the operator A is matrix-free (its products and its diagonal only), which sor cannot use" "$BTE" transport $m -bte_transport_pc_type sor
expect_fail "bte_transport_pc_type bte_twolevel is bte dynamics' preconditioner; for transport use -bte_transport_pc twolevel" "$BTE" transport $m -bte_transport_pc_type bte_twolevel
# a KSP that stops says why and what helps, per direction
expect_fail "field direction x: the KSP stopped with DIVERGED_ITS after 2 iterations: raise -bte_transport_ksp_max_it" "$BTE" transport $m -bte_transport_ksp_max_it 2
g="-bte_model gaas -bte_grid 40 -bte_window 0.7 -bte_view 0 -bte_temperatures 200 -bte_carrier_densities 1e16"
expect_fail "the KSP stopped with DIVERGED_INDEFINITE_MAT after [0-9]* iterations: the symmetric form is only nearly symmetric with Perturbo's delta: use -bte_delta balanced" "$BTE" transport $g -bte_transport_ksp_type cg
# the symmetric form is checked on the system CG solved, S F = D v: with the balanced delta (S exactly
# symmetric) CG was refused at ||v - A F||/||v|| = 5e-3, which weights states of tiny f0 (1 - f0) up;
# now accepted below 1e-8 on ||D v - S F||/||D v||, with GMRES's conductivity
cg=$("$BTE" transport $g -bte_delta balanced -bte_transport_ksp_type cg -bte_view 1 -bte_output "$W/cg.h5")
gm=$("$BTE" transport $g -bte_delta balanced)
grep -q "ksp type: cg on the symmetric form S F = D v (S = D A; the residual column is that system's, ||D v - S F||/||D v||)" <<<"$cg" || { echo "$cg"; echo "FAIL: no symmetric-form line"; exit 1; }
a=$(awk '$1 == "200.00" {print $7, $NF}' <<<"$cg"); b=$(awk '$1 == "200.00" {print $7}' <<<"$gm")
awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); d = (x[1] - b) / b; if (d < 0) d = -d; if (!(d < 1e-4 && x[2] + 0 < 1e-8)) { print "cg " a ", gmres " b; exit 1 } print "ok: cg on the symmetric form: sigma " x[1] " (gmres " b "), residual " x[2] }'
if [ -n "$PYTHON" ]; then
  "$PYTHON" -c "
import h5py
g = h5py.File('$W/cg.h5', 'r')['transport']
d = lambda k: g[k].attrs['description'].decode() if isinstance(g[k].attrs['description'], bytes) else g[k].attrs['description']
assert g.attrs['symmetric_form'] == 1 and g.attrs['ksp_rtol'] == 1e-8 and g.attrs['residual_max'] == 1e-3, dict(g.attrs)
assert 'S F = D v' in d('residual') and 'residual_max' in d('converged'), (d('residual'), d('converged'))
print('ok: the file records the symmetric form, ksp_rtol, residual_max')"
fi
# -bte_transport_ksp_initial_guess_nonzero starts each direction from its answer at the previous
# configuration (it was zeroed, the option ignored): the same mobilities, other applies (PETSc's
# test is then relative to the smaller starting residual, so a sweep does not save applies here)
sw="-bte_temperatures 280,290,300,310,320"
a=$("$BTE" transport $m $sw | awk '$1 ~ /^[23][0-9]0.00$/ {print $4; n += $9} END {print n}')
b=$("$BTE" transport $m $sw -bte_transport_ksp_initial_guess_nonzero | awk '$1 ~ /^[23][0-9]0.00$/ {print $4; n += $9} END {print n}')
paste <(echo "$a") <(echo "$b") | awk 'NR <= 5 { d = ($1 - $2) / $1; if (d < 0) d = -d; if (d > 1e-6) bad = 1 } END { if (bad) { print "FAIL: the sweep with a nonzero initial guess gives other mobilities"; exit 1 } }'
[ "$(tail -n 1 <<<"$b")" != "$(tail -n 1 <<<"$a")" ] || { echo "FAIL: the initial guess changed nothing: $(tail -n 1 <<<"$a") applies either way"; exit 1; }
echo "ok: a nonzero initial guess: the same mobilities, $(tail -n 1 <<<"$b") applies against $(tail -n 1 <<<"$a")"
# high field: an SNES atol above the starting residual accepted the equilibrium as the answer
expect_fail "above -bte_highfield_residual_max 0.001: not a solution" "$BTE" highfield $m -bte_efield_list 1000 -bte_highfield_snes_atol 1e10
expect_fail "bte_highfield_residual_max must be in (0,1)" "$BTE" highfield $m -bte_efield_list 1000 -bte_highfield_residual_max 0
# SNES tolerances that cannot give a solution: refused before the work (max_it -1 met PETSc's
# "solver returned without setting converged reason"; rtol 2 was accepted)
expect_fail "bte_highfield_snes_max_it -1: must be >= 1" "$BTE" highfield $m -bte_efield_list 100 -bte_highfield_snes_max_it -1
expect_fail "bte_highfield_snes_rtol 2.*must be in \[0, 1)" "$BTE" highfield $m -bte_efield_list 100 -bte_highfield_snes_rtol 2
# SNES stopped by its relative tolerance above the absolute one a solution must meet: said why
# (it was turned into NOT CONVERGED without a word, and the advice named -snes_max_it)
expect_fail "high field: 1000 V/cm: the solve stopped (CONVERGED_FNORM_RELATIVE) at ||r|| = .*, above the absolute tolerance .* that a solution must meet: not converged; tighten -bte_highfield_snes_rtol" "$BTE" highfield $m -bte_efield_list 1000 -bte_highfield_snes_rtol 1e-3
# lists: an empty entry lost a point silently
expect_fail "bte_temperatures 100,,300: an empty entry" "$BTE" transport $m -bte_temperatures 100,,300
expect_fail "bte_temperatures 300,: an empty entry" "$BTE" transport $m -bte_temperatures 300,
expect_fail "bte_carrier_densities ,1e17: an empty entry" "$BTE" transport $m -bte_carrier_densities ,1e17
expect_fail "bte_efield_list 100,,200: an empty entry" "$BTE" highfield $m -bte_efield_list 100,,200
# mu above the window's top (0.3 eV): the window cannot hold the Fermi sea (mobility 1e-75 before)
expect_fail "bte_chemical_potentials 5. eV lies above the energy window's top, 0.3 eV" "$BTE" transport $m -bte_chemical_potentials 5
expect_fail "lies above the energy window's top" "$BTE" transport $m -bte_chemical_potentials 0.1,0.31
"$BTE" transport $m -bte_chemical_potentials 0.29 > /dev/null
# an unused option stops the run before the output is written
for o in "-bte_transport_ksp_rtoll 1e-3" "-ksp_rtol 1e-3"; do
  expect_fail "unused option(s): ${o%% *} 1e-3.*$W/u.h5 was not written" "$BTE" transport $m $o -bte_output "$W/u.h5"
  [ ! -e "$W/u.h5" ] && [ ! -e "$W/u.h5.tmp" ] || { echo "wrote $W/u.h5 with $o unused"; exit 1; }
done
expect_fail "unused option(s): -bte_highfield_snes_rtoll 1e-3.*$W/h.h5 was not written" "$BTE" highfield $m -bte_efield_list 1000 -bte_highfield_snes_rtoll 1e-3 -bte_output "$W/h.h5"
[ ! -e "$W/h.h5" ]
echo "ok: nothing written with an unused option"
# A two-band Perturbo fixture on 10^3 (19 states, the graph in two pieces, Perturbo's delta far from
# detailed balance: defect 0.17). With the balanced delta the ksp method solves it (6195.5 along x);
# Perturbo's ITA met its rule at an oscillation's dip (0.0011 after 0.022, then 0.008 again) and
# stopped at 955, reported converged: now NOT CONVERGED by one more iteration, not kept. Run far
# enough ITA reaches the ksp method's answer, an independent check of it.
if [ -n "$PYTHON" ]; then
  "$PYTHON" "$TESTDIR/perturbo/make_epr.py" twoband tb_epr.h5 > /dev/null
  E="-bte_model perturbo -bte_perturbo_epr tb_epr.h5 -bte_perturbo_kdim 10,10,10 -bte_temperatures 300 -bte_view 0"
  expect_fail "field direction x: ITA met its rule at iteration 4 (the conductivity changed by 0.0011 < 0.002), but the next iteration changes it by 0.0082" "$BTE" transport $E -bte_delta balanced -bte_transport_method ita
  ksp=$("$BTE" transport $E -bte_delta balanced | awk '$1 == "300.00" {print $4}')
  ita=$("$BTE" transport $E -bte_delta balanced -bte_transport_method ita -bte_ita_tol 1e-7 -bte_ita_max_it 100000 -bte_allow_unconverged | awk '$1 == "300.00" {print $4}')
  awk -v a="$ksp" -v b="$ita" 'BEGIN { d = (a - b) / a; if (d < 0) d = -d; if (!(a > 6000 && d < 1e-3)) { print "ksp " a ", ITA far along " b; exit 1 } print "ok: ksp " a " = ITA run to its limit " b }'
  # with Perturbo's delta the shift along 1 leaves residual 34: not shown as converged
  expect_fail "field direction x: the solve met its tolerance, but the carrier-number shift along 1 leaves the residual ||v - A F||/||v|| at 33.6" "$BTE" transport $E
else
  echo "skip: no Python for the two-band fixture"
fi
