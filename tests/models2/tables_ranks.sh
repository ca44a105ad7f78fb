# graphene and si-holes: the whole table (states' channels, modes, hw, |g|^2 to full precision) is
# identical on 1 rank x 1 thread, 2 threads and TEST_NP ranks (uses tests/models/model_check -dump).
. "$TESTDIR/common.sh"
set -e
C="$BUILD/tests/model_check"
[ -x "$C" ] || { echo "skip: $C not built"; exit 77; }
for G in "-bte_model graphene -bte_grid 300" "-bte_model si-holes -bte_grid 24 -bte_si_holes_bands dkk" "-bte_model si-holes -bte_grid 18 -bte_si_holes_bands dkk -bte_si_holes_soc -bte_si_holes_overlap wiley" "-bte_model si-holes -bte_grid 20"; do
  OMP_NUM_THREADS=1 "$C" $G -counts -dump t1.txt
  OMP_NUM_THREADS=2 "$C" $G -dump t2.txt
  cmp t1.txt t2.txt
  OMP_NUM_THREADS=1 run_np "${TEST_NP:-2}" "$C" $G -dump np.txt
  cmp t1.txt np.txt
  echo "$G: identical tables on 1 thread, 2 threads, ${TEST_NP:-2} ranks ($(wc -l < t1.txt) lines)"
done
