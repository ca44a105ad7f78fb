# View output, and clear errors on misuse of the collision operator.
. "$TESTDIR/common.sh"
set -e
m="$BUILD/tests/coll_misc -synth_nk 4"
out=$($m -bte_collision_view)
for pat in "type: pair" "18 bytes per pair" "layout entries" "ghost states: 0" "MATSHELL"; do
  grep -qF "$pat" <<<"$out" || { echo "missing '$pat' in:"; echo "$out"; exit 1; }
done
out=$(run_np 2 $m -bte_collision_view -bte_collision_type baseline -bte_jacobian_assembled)
for pat in "type: baseline" "pair records" "assembled AIJ" "type: mpiaij"; do
  grep -qF "$pat" <<<"$out" || { echo "missing '$pat' in:"; echo "$out"; exit 1; }
done
grep -qE "ghost states: [1-9]" <<<"$out" || { echo "no ghosts on 2 ranks"; echo "$out"; exit 1; }
out=$($m -bte_collision_view -bte_collision_type fused)
for pat in "type: fused" "layout bytes per channel: 40" "layout entries"; do
  grep -qF "$pat" <<<"$out" || { echo "missing '$pat' in:"; echo "$out"; exit 1; }
done
out=$($m -bte_collision_view -bte_collision_type fused -bte_collision_precision mixed)
grep -qF "float (mixed precision)" <<<"$out" || { echo "$out"; exit 1; }
out=$($m -bte_collision_view -bte_collision_type pair -bte_collision_precision mixed)
for pat in "type: pair" "layout bytes per channel" "10 bytes per pair"; do
  grep -qF "$pat" <<<"$out" || { echo "missing '$pat' in:"; echo "$out"; exit 1; }
done
out=$($m -bte_collision_view -bte_collision_type tgt)
for pat in "type: tgt" "16 B per channel in scatter_channels (g2)" "by decreasing source count (CDYN_SORT_SCAT_TGTS on)" "streams at least"; do
  grep -qF "$pat" <<<"$out" || { echo "missing '$pat' in:"; echo "$out"; exit 1; }
done
out=$($m -bte_collision_view -bte_collision_type tgt -bte_tgt_store_g2dt -bte_tgt_sort_targets 0)
for pat in "24 B per channel in scatter_channels (STORE_G2DT" "in state order (CDYN_SORT_SCAT_TGTS off)"; do
  grep -qF "$pat" <<<"$out" || { echo "missing '$pat' in:"; echo "$out"; exit 1; }
done
expect_fail "bte_tgt_lanes must be 0, 1, 32, 64, 128 or 256, got 3" $m -bte_collision_type tgt -bte_tgt_lanes 3
if [ "${BTE_HAVE_CUDA:-}" != 1 ]; then
  expect_fail "bte_tgt_build device needs bte built with a CUDA PETSc" $m -bte_collision_type tgt -bte_tgt_build device
fi
expect_fail "Mixed precision (-bte_collision_precision mixed) is implemented by the fused and pair types, not by tgt" $m -bte_collision_type tgt -bte_collision_precision mixed
expect_fail "bte_pair_tile must be in .32, 65536., got 8" $m -bte_collision_type pair -bte_pair_tile 8
expect_fail "Set up the BTE (BTESetUp()) before its collision operator" $m -case nosetup
expect_fail "create it with BTECreateStateVec()" $m -case badvec
expect_fail "was not created by BTECollisionCreateJacobian()" $m -case foreign
expect_fail "before MatMult()" $m -case nostate
expect_fail "Unknown collision operator type 'nonesuch'" $m -case type
expect_fail "Unknown collision operator type 'nope'; -bte_collision_type takes one of:" $m -bte_collision_type nope
# every registered type is listed (PETSc 3.25 lists them in hash order)
for t in baseline tgt fused pair; do expect_fail "takes one of:.* $t" $m -bte_collision_type nope; done
# where the pair layout is built: the view says it; a device build needs CUDA; a bad value is named
out=$($m -bte_collision_view -bte_pair_build host)
grep -qF "built on the host" <<<"$out" || { echo "no 'built on the host' in:"; echo "$out"; exit 1; }
if [ "${BTE_HAVE_CUDA:-}" != 1 ]; then
  expect_fail "bte_pair_build device needs bte built with a CUDA PETSc" $m -bte_pair_build device
fi
expect_fail "bte_pair_build" $m -bte_pair_build sideways
