# The diagnostics' three lines in BTEView (bte info and every run's header): the figures of the
# issue that asked for them (defect 7% on parabolic 24^3, 21% on GaAs 36^3; relaxation 310 K and
# 353 K instead of 300 K), WARNING lines when out of bounds and not otherwise, the window-edge
# warning for a too narrow window, the same lines on 1 and 2 ranks (and with CUDA vectors where
# bte has CUDA), -bte_diagnostics 0, and /diagnostics in the transport and high-field outputs.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
diag() { grep -E "equilibrium defect|relaxation temperature|window edge|diagnostics:" | sed 's/^ *//'; }
has() { # has TEXT WANT...: every WANT in TEXT
  local text=$1; shift
  for w in "$@"; do grep -qF -- "$w" <<<"$text" || { echo "FAIL: no '$w' in:"; echo "$text"; exit 1; }; done
}
hasnot() { if grep -qF -- "$2" <<<"$1"; then echo "FAIL: '$2' in:"; echo "$1"; exit 1; fi; }
p24="-bte_model parabolic -bte_grid 24 -bte_parabolic_a 20"

out=$("$BTE" info $p24 | diag)
echo "$out"
[ "$(wc -l <<<"$out")" -eq 3 ] || { echo "FAIL: expected 3 lines"; exit 1; }
has "$out" "equilibrium defect: WARNING 0.0713 of the gross scattering flux of Fermi-Dirac at 300 K (above 0.05)" \
  "relaxation temperature: WARNING 310.1 K, +3.36% from the lattice's 300 K (above 2%)" \
  "window edge: 5.13e-04 of the carriers"
hasnot "$out" "window edge: WARNING"
outn=$(run_np "$NP" "$BTE" info $p24 | diag)
[ "$out" = "$outn" ] || { echo "FAIL: $NP ranks differ:"; echo "$outn"; exit 1; }
echo "ok   parabolic 24^3: the same on $NP ranks"

# a window 0.12 eV wide (4.6 kT): the edge warning; the defect is unchanged
out=$("$BTE" info $p24 -bte_window 0.12 | diag)
has "$out" "window edge: WARNING 3.74e-01 of the carriers" "widen it (-bte_window)" "equilibrium defect: WARNING 0.0712"
echo "ok   narrow window: edge warning"

# GaAs 36^3 in 3 pieces: the defect the issue measured (21%) and its relaxation to ~352 K
out=$("$BTE" info -bte_model gaas -bte_grid 36 | diag)
echo "$out"
has "$out" "equilibrium defect: WARNING 0.207" "relaxation temperature: WARNING 353.3 K (carriers of the largest piece), +17.78%" "window edge: 5.60e-09"
outn=$(run_np "$NP" "$BTE" info -bte_model gaas -bte_grid 36 | diag)
[ "$out" = "$outn" ] || { echo "FAIL: $NP ranks differ:"; echo "$outn"; exit 1; }
echo "ok   gaas 36^3: the same on $NP ranks"

# within bounds: no WARNING (the default parabolic grid: elastic channels between states of equal energy)
out=$("$BTE" info -bte_model parabolic | diag)
has "$out" "relaxation temperature: 300.0 K" "window edge: 9.00e-04"
hasnot "$out" "WARNING"
echo "ok   no warning within bounds"

# switched off; counted channels: no lines
out=$("$BTE" info $p24 -bte_diagnostics 0 | diag)
[ "$out" = "diagnostics: not computed: off (-bte_diagnostics 0)" ] || { echo "FAIL: -bte_diagnostics 0 gave: $out"; exit 1; }
out=$("$BTE" info $p24 -bte_info_channels 0 | diag)
[ -z "$out" ] || { echo "FAIL: diagnostics without channels: $out"; exit 1; }
echo "ok   -bte_diagnostics 0 and counted channels"

# a run's header
out=$("$BTE" dynamics $p24 -bte_final_time 2 -bte_time_step 1 | diag)
has "$out" "equilibrium defect: WARNING 0.0713" "relaxation temperature: WARNING 310.1 K" "window edge: 5.13e-04"
echo "ok   dynamics header"

# CUDA vectors: the same lines
if [ "${BTE_HAVE_CUDA:-}" = 1 ]; then
  a=$("$BTE" info -bte_model gaas -bte_grid 36 | diag)
  b=$("$BTE" info -bte_model gaas -bte_grid 36 -vec_type cuda | diag)
  [ "$a" = "$b" ] || { echo "FAIL: -vec_type cuda differs:"; echo "$b"; exit 1; }
  echo "ok   -vec_type cuda: the same lines"
fi

# the output files
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py for the output files (scripts/find-python.sh)"; exit 77; }
run_np "$NP" "$BTE" transport $p24 -bte_output tr.h5 -bte_view 0 >/dev/null
run_np "$NP" "$BTE" highfield $p24 -bte_efield_list 500 -bte_output hf.h5 -bte_view 0 >/dev/null
"$BTE" transport $p24 -bte_output off.h5 -bte_view 0 -bte_diagnostics 0 >/dev/null
"$PYTHON" - <<'PY'
import h5py, sys
ok = True
# string attributes are fixed-length (bytes in h5py)
A = lambda f: {k: (v.decode() if isinstance(v, bytes) else v) for k, v in h5py.File(f, "r")["diagnostics"].attrs.items()}
for f in ("tr.h5", "hf.h5"):
    a = A(f)
    good = a["computed"] == 1 and abs(a["equilibrium_defect"] - 0.071315) < 1e-5 and abs(a["relaxation_temperature"] - 310.079) < 1e-3 and a["warnings"] == "equilibrium_defect relaxation_temperature thermal_states" and abs(a["thermal_states"] - 68.060) < 0.001 and a["relaxation_temperature_units"] == "K"
    print(("ok   " if good else "FAIL ") + "%s: /diagnostics defect %.6f, relaxation %.3f K, warnings '%s'" % (f, a["equilibrium_defect"], a["relaxation_temperature"], a["warnings"]))
    ok &= bool(good)
a = A("off.h5")
good = a["computed"] == 0 and "-bte_diagnostics 0" in a["reason"]
print(("ok   " if good else "FAIL ") + "off.h5: computed %d, reason '%s'" % (a["computed"], a["reason"]))
sys.exit(0 if ok and good else 1)
PY

# -bte_view 0: no summary, but its WARNING lines (all of them, alone) in every solving command;
# a table in several pieces is named in /diagnostics warnings (graphene 91^2: 4 pieces)
g91="-bte_model graphene -bte_grid 91"
for cmd in "transport -bte_output g91.h5" "highfield -bte_efield_list 100 -bte_output g91hf.h5" "dynamics -bte_final_time 1 -bte_output g91dyn.h5"; do
  full=$("$BTE" ${cmd%% *} $g91 ${cmd#* } 2>&1 | grep "WARNING" | grep -E "channel graph|window edge|equilibrium|relaxation|zero-field|thermal sampling|defaults" | sed 's/^ *//')
  quiet=$("$BTE" ${cmd%% *} $g91 ${cmd#* } -bte_view 0 2>&1)
  has "$quiet" "channel graph: WARNING 4 disconnected pieces" "a field drives carriers into pieces they cannot scatter back from"
  hasnot "$quiet" "grid: 2D"
  while IFS= read -r l; do has "$quiet" "$l"; done <<<"$full"
  echo "ok   ${cmd%% *} -bte_view 0: the summary's $(wc -l <<<"$full") WARNING lines, no summary"
done
quiet=$(run_np $NP "$BTE" transport -bte_model parabolic -bte_grid 32 -bte_parabolic_a 20 -bte_delta balanced -bte_view 0)
hasnot "$quiet" "WARNING"
hasnot "$quiet" "channel graph"
echo "ok   -bte_view 0 on a clean table: no summary line on $NP ranks"
"$PYTHON" -c "
import h5py
for f in ('g91.h5', 'g91hf.h5', 'g91dyn.h5'):
    w = h5py.File(f, 'r')['diagnostics'].attrs['warnings']
    w = w.decode() if isinstance(w, bytes) else w
    assert 'channel_graph' in w.split(), (f, w)
print('ok   /diagnostics warnings name channel_graph')
"
