# The channel graph's connected pieces (BTEGetChannelGraph, printed by BTEView): the GaAs model on
# 36^3, 50^3 and 60^3 grids has 3, 4 and 2 pieces, and on 50^3 the 27 Gamma-valley states at the
# bottom of the band are cut off: the figures an independent reimplementation found (the issue that
# asked for this diagnostic). The same on 1, 2 and 3 ranks; a fine parabolic grid and si-holes are
# connected; a grid with no channel says so.
. "$TESTDIR/common.sh"
set -e
NP=${TEST_NP:-2}
graph() { grep "channel graph" | sed 's/^ *//'; }
check() { # expected-substring command...
  local want=$1; shift
  local got; got=$("$@" 2>&1 | graph)
  case "$got" in *"$want"*) echo "ok   $want ($*)";; *) echo "FAIL: expected '$want' from $*, got: $got"; exit 1;; esac
}
check "3 disconnected pieces; 15 of 1518 states (the lowest state among them)" "$BTE" info -bte_model gaas -bte_grid 36
check "4 disconnected pieces; 27 of 4132 states (the lowest state among them)" "$BTE" info -bte_model gaas -bte_grid 50
check "4 disconnected pieces; 27 of 4132 states" run_np "$NP" "$BTE" info -bte_model gaas -bte_grid 50
check "4 disconnected pieces; 27 of 4132 states" run_np 3 "$BTE" info -bte_model gaas -bte_grid 50
check "2 disconnected pieces; 15 of 7016 states" "$BTE" info -bte_model gaas -bte_grid 60
check "channel graph: connected" "$BTE" info -bte_model parabolic -bte_grid 40
check "channel graph: connected" run_np "$NP" "$BTE" info -bte_model si-holes
# counted-only tables have no graph line (no channel arrays)
"$BTE" info -bte_model gaas -bte_grid 36 -bte_info_channels 0 | grep -q "channel graph" && { echo "FAIL: a graph line without channels"; exit 1; }
# no channel at all (parabolic 12^3: one state): a warning, not "connected", also for the counted table
check "WARNING no scattering channel: none of the 1 states" "$BTE" info -bte_model parabolic -bte_grid 12
check "WARNING no scattering channel" "$BTE" generate -bte_model parabolic -bte_grid 12 -bte_output none.h5
echo "channel graph: all as expected"
