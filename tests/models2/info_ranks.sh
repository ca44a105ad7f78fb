# bte info with the graphene and si-holes models: the same states and channels on 1 and 2 MPI
# ranks; their options are listed by -help with their defaults.
. "$TESTDIR/common.sh"
set -e
counts() { sed -n -e 's/.*states (n,k) in window: \([0-9]*\).*/states \1/p' -e 's/.*scattering channels: \([0-9]*\).*/channels \1/p'; }
for args in "-bte_model si-holes -bte_grid 30" "-bte_model si-holes -bte_grid 24 -bte_si_holes_soc" "-bte_model graphene -bte_grid 300"; do
  one=$(run_np 1 "$BTE" info $args | counts)
  two=$(run_np 2 "$BTE" info $args | counts)
  echo "$args: 1 rank: $(echo $one); 2 ranks: $(echo $two)"
  [ "$(echo "$one" | wc -l)" -eq 2 ] || { echo "missing counts"; exit 1; }
  [ "$one" = "$two" ] || { echo "counts differ between 1 and 2 ranks"; exit 1; }
done
h=$("$BTE" info -bte_model si-holes -bte_grid 4 -help)
# option name and its default on one line (the layout differs between PETSc versions)
for o in "-bte_si_holes_soc.*FALSE" "-bte_si_holes_dop.*6e\+08" "-bte_si_holes_dac.*5\\." "-bte_si_holes_overlap.*const" "-bte_si_holes_delta.*0\.044" "-bte_si_holes_bands <(now )?kp6" "-bte_si_holes_acoustic <(now )?bir-pikus" "-bte_si_holes_optical <(now )?bir-pikus" "-bte_si_holes_bp_d0.*26\.61"; do
  grep -Eq -- "$o" <<<"$h" || { echo "-help lacks '$o'"; exit 1; }
done
h=$("$BTE" info -bte_model graphene -bte_grid 6 -help)
for o in "-bte_graphene_band.*tb" "-bte_graphene_vf.*1e\+06" "-bte_graphene_d_gamma.*1e\+09" "-bte_graphene_hw_k.*0\.162" "-bte_graphene_d_ta.*4\.5"; do
  grep -Eq -- "$o" <<<"$h" || { echo "-help lacks '$o'"; exit 1; }
done
# the parameters are recorded with their units
# (only those of the couplings in use: the default's d0, the dkk bands' isotropic D_t K)
out=$("$BTE" info -bte_model si-holes -bte_grid 16)
grep -q "bir_pikus_d0 = 26.61 eV" <<<"$out" || { echo "$out"; exit 1; }
! grep -q "DtK_optical\|D_acoustic\|overlap_" <<<"$out" || { echo "$out"; echo "parameters of couplings not in use listed"; exit 1; }
out=$("$BTE" info -bte_model si-holes -bte_grid 16 -bte_si_holes_bands dkk)
grep -q "DtK_optical = 6e+08 eV/cm" <<<"$out" || { echo "$out"; exit 1; }
out=$("$BTE" info -bte_model graphene -bte_grid 30)
grep -q "D_K_A1 = 1.4e+09 eV/cm" <<<"$out" || { echo "$out"; exit 1; }
expect_fail "not convex" "$BTE" info -bte_model si-holes -bte_grid 8 -bte_si_holes_dkk_c 8
