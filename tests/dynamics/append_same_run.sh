# An append (-bte_init restart into the same file) must be the same run continued, collision operator
# included: the output records its smearing, delta and table (/dynamics attributes smearing, delta,
# table_source, table_channels, table_checksum), and an append with another delta, smearing or table
# on the same states (GaAs without its LO phonons: fewer channels; the same channels with one
# coupling changed: another checksum) is refused in one line naming the file's value and the run's,
# on 1 and NP ranks, leaving the file byte for byte as it was (before: accepted, complete = 1, the
# file still saying delta perturbo). The same run continued appends on 1 and NP ranks and from the
# model built in memory (the checksum does not depend on the ranks or on where the table comes
# from); a restart into a new file with another delta and smearing is a new run, accepted and
# recorded; a file written before these attributes is refused with one line (and still restarts into
# a new file); so is a file whose /grid or /diagnostics is damaged.
. "$TESTDIR/common.sh"
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py (scripts/find-python.sh)"; exit 77; }
NP=${TEST_NP:-2}
"$BTE" generate -bte_model gaas -bte_grid 24 -bte_output gaas.h5 > /dev/null
"$BTE" generate -bte_model gaas -bte_grid 24 -bte_gaas_lo 0 -bte_output nolo.h5 > /dev/null
cp gaas.h5 g2.h5
"$PYTHON" -c "import h5py; g = h5py.File('g2.h5', 'r+')['channels/g2']; g[7] = 1.5 * g[7]"
R="-bte_view 0 -bte_dynamics_monitor 0 -bte_init_e0_edge 0.3 -bte_output_interval 50"
"$BTE" dynamics -bte_input gaas.h5 $R -bte_final_time 100 -bte_output run.h5 > /dev/null
A="-bte_init restart -bte_restart a.h5 -bte_output a.h5 -bte_final_time 200"
# refuse NP PATTERN OPTIONS...: the append to a copy of run.h5 is refused and leaves it unchanged
refuse() {
  local np=$1 pat=$2
  shift 2
  cp run.h5 a.h5
  if [ "$np" = 1 ]; then expect_fail "$pat" "$BTE" dynamics $R "$@" $A
  else expect_fail "$pat" run_np "$np" "$BTE" dynamics $R "$@" $A; fi
  cmp -s run.h5 a.h5 || { echo "FAIL: a refused append changed the file"; exit 1; }
}
hint="the file's attributes describe the run that made it; write this run to a new file"
refuse 1 "its run had -bte_delta perturbo, this one balanced: $hint" -bte_input gaas.h5 -bte_delta balanced
refuse "$NP" "its run had -bte_delta perturbo, this one balanced" -bte_input gaas.h5 -bte_delta balanced
refuse 1 "its run had -bte_smearing 0.01 eV, this one 0.02 eV: $hint" -bte_input gaas.h5 -bte_smearing 0.02
refuse 1 "its run's table had [0-9]* channels, this one's [0-9]*: another table on the same states: $hint" -bte_input nolo.h5
refuse "$NP" "its run's table had [0-9]* channels, this one's [0-9]*" -bte_input nolo.h5
refuse 1 "its run's table had channel checksum [0-9a-f]*, this one's [0-9a-f]*: another table on the same states" -bte_input g2.h5
refuse "$NP" "its run's table had channel checksum [0-9a-f]*, this one's [0-9a-f]*" -bte_input g2.h5
# a file that lost what an append does not rewrite (/grid, /diagnostics): refused, left as it was
# (before: appended to, exit 0, complete = 1, and the readers then refused the file)
damaged() {
  local pat=$1 code=$2
  cp run.h5 d.h5
  "$PYTHON" -c "import h5py; f = h5py.File('d.h5', 'r+'); $code"
  cp d.h5 d0.h5
  expect_fail "$pat" "$BTE" dynamics -bte_input gaas.h5 $R -bte_init restart -bte_restart d.h5 -bte_output d.h5 -bte_final_time 200
  cmp -s d.h5 d0.h5 || { echo "FAIL: a refused append changed the damaged file"; exit 1; }
}
damaged "dataset grid/nk is missing" "del f['grid/nk']"
damaged "its /grid/lattice differs from this table's lattice" "f['grid/lattice'][0, 1] = 2.9"
damaged "its /grid is 24 x 24 x 25, this table's 24 x 24 x 24: not the same table" "f['grid/nk'][2] = 25"
damaged "it has no /diagnostics group (with attribute computed), which every bte output holds: the file is damaged" "del f['diagnostics']"
# the same run continued: on 1 rank, on NP, from the model built in memory
cp run.h5 b.h5
"$BTE" dynamics -bte_input gaas.h5 $R -bte_init restart -bte_restart b.h5 -bte_output b.h5 -bte_final_time 150 > /dev/null
run_np "$NP" "$BTE" dynamics -bte_input gaas.h5 $R -bte_init restart -bte_restart b.h5 -bte_output b.h5 -bte_final_time 200 > /dev/null
"$BTE" dynamics -bte_model gaas -bte_grid 24 $R -bte_init restart -bte_restart b.h5 -bte_output b.h5 -bte_final_time 250 > /dev/null
# a new run from the old state: a new file, another delta and smearing
"$BTE" dynamics -bte_input gaas.h5 $R -bte_delta balanced -bte_smearing 0.02 -bte_init restart -bte_restart run.h5 -bte_output new.h5 -bte_final_time 200 > /dev/null
run_np "$NP" "$BTE" dynamics -bte_input gaas.h5 $R -bte_final_time 50 -bte_output np.h5 > /dev/null
"$BTE" dynamics -bte_input nolo.h5 $R -bte_final_time 50 -bte_output nolo_run.h5 > /dev/null
"$BTE" dynamics -bte_input g2.h5 $R -bte_final_time 50 -bte_output g2_run.h5 > /dev/null
# a file from before the attributes: refused, unchanged; a restart from it into a new file goes on
cp run.h5 old.h5
"$PYTHON" -c "
import h5py
g = h5py.File('old.h5', 'r+')['dynamics']
for k in ('smearing', 'smearing_units', 'delta', 'table_source', 'table_channels', 'table_checksum'): del g.attrs[k]"
cp old.h5 old0.h5
expect_fail "it does not record the smearing, delta and table of its run (no /dynamics attribute smearing: written by an earlier bte), so an append cannot check that this run continues it; write this run to a new file" "$BTE" dynamics -bte_input gaas.h5 $R -bte_init restart -bte_restart old.h5 -bte_output old.h5 -bte_final_time 200
cmp -s old.h5 old0.h5 || { echo "FAIL: a refused append changed the older file"; exit 1; }
"$BTE" dynamics -bte_input gaas.h5 $R -bte_init restart -bte_restart old.h5 -bte_output oldnew.h5 -bte_final_time 200 > /dev/null
"$PYTHON" - <<'PY'
import h5py, sys
ok = True
def check(cond, msg):
    global ok
    print(("ok   " if cond else "FAIL ") + msg)
    ok &= bool(cond)
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
def attrs(fn):
    return h5py.File(fn, "r")["dynamics"].attrs
a, t = attrs("run.h5"), h5py.File("gaas.h5", "r")
check(s(a["delta"]) == "perturbo" and a["smearing"] == 0.01 and s(a["smearing_units"]) == "eV", "the run's delta %s and smearing %g eV recorded" % (s(a["delta"]), a["smearing"]))
check(s(a["table_source"]) == s(t.attrs["source"]) and a["table_channels"] == len(t["channels/g2"]) and len(s(a["table_checksum"])) == 16,
      "the table recorded: source, %d channels, checksum %s" % (a["table_channels"], s(a["table_checksum"])))
check(s(attrs("np.h5")["table_checksum"]) == s(a["table_checksum"]), "the checksum on NP ranks = on 1")
check(s(attrs("nolo_run.h5")["table_checksum"]) != s(a["table_checksum"]) and attrs("nolo_run.h5")["table_channels"] < a["table_channels"], "without LO phonons: fewer channels, another checksum")
check(s(attrs("g2_run.h5")["table_checksum"]) != s(a["table_checksum"]) and attrs("g2_run.h5")["table_channels"] == a["table_channels"], "one coupling changed: the same count, another checksum")
b = h5py.File("b.h5", "r")
check(b.attrs["complete"] == 1 and list(b["dynamics/time"][:]) == [0, 50, 100, 150, 200, 250], "the same run appended three times (1 rank, NP ranks, the model in memory): %s" % list(b["dynamics/time"][:]))
check(all(s(b["dynamics"].attrs[k]) == s(a[k]) for k in ("delta", "smearing", "table_source", "table_channels", "table_checksum")), "and its record unchanged")
n = attrs("new.h5")
check(s(n["delta"]) == "balanced" and n["smearing"] == 0.02 and s(n["table_checksum"]) == s(a["table_checksum"]), "a restart into a new file with another delta and smearing: accepted and recorded")
check(h5py.File("oldnew.h5", "r").attrs["complete"] == 1, "a file from before the attributes restarts into a new file")
sys.exit(0 if ok else 1)
PY
