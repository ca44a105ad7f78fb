# si-holes model (the dkk bands) on a grid: states per band vs the DOS-mass estimate, channel structure;
# with -bte_si_holes_soc: 6 bands, twice the states and four times the channels.
set -e
out3=$("$BUILD/tests/m2_si_holes_table" -bte_grid 40 -bte_si_holes_bands dkk)
echo "$out3"
out6=$("$BUILD/tests/m2_si_holes_table" -bte_grid 40 -bte_si_holes_bands dkk -bte_si_holes_soc)
echo "$out6"
read s3 c3 < <(sed -n 's/.*window [^:]*: \([0-9]*\) states, \([0-9]*\) channels/\1 \2/p' <<<"$out3")
read s6 c6 < <(sed -n 's/.*window [^:]*: \([0-9]*\) states, \([0-9]*\) channels/\1 \2/p' <<<"$out6")
echo "3 bands: $s3 states, $c3 channels; 6 bands: $s6 states, $c6 channels"
[ -n "$s3" ] && [ -n "$c6" ] || { echo "could not parse the counts"; exit 1; }
[ "$s6" -eq $((2 * s3)) ] || { echo "soc states $s6 != 2 x $s3"; exit 1; }
[ "$c6" -eq $((4 * c3)) ] || { echo "soc channels $c6 != 4 x $c3"; exit 1; }
