# One rank reads the channel datasets straight from the file, in parallel, when their bytes are
# their values (src/io/h5direct.c), else through HDF5. The same table stored four ways (bte's own
# chunked datasets; contiguous; gzip-compressed; big-endian, so HDF5 must convert) must give the
# same run bit for bit, and a table cut short inside the channel data must be refused.
set -e
source "$TESTDIR/common.sh"
"$BTE" generate -bte_model gaas -bte_grid 24 -bte_output t.h5 > /dev/null
"$PYTHON" - <<'PY'
import h5py, shutil
for name, kw in [("contig", {}), ("gzip", {"compression": "gzip", "chunks": (1000,)}), ("bigend", {"chunks": (1000,)})]:
    shutil.copy("t.h5", name + ".h5")
    with h5py.File(name + ".h5", "r+") as f:
        for k in ["i", "j", "mode", "phonon_energy", "g2"]:
            d = f["channels/" + k]; v = d[()]; attrs = dict(d.attrs)
            dt = v.dtype.newbyteorder(">") if name == "bigend" else v.dtype
            del f["channels/" + k]
            n = f["channels"].create_dataset(k, data=v.astype(dt), **kw)
            for a, x in attrs.items(): n.attrs[a] = x
with h5py.File("t.h5", "r") as f:
    d = f["channels/g2"]
    print("bte's table: chunks", d.chunks, "filters", d.compression, "rows", d.shape[0])
PY
for v in t contig gzip bigend; do
  "$BTE" dynamics -bte_input $v.h5 -bte_final_time 5 -bte_output out-$v.h5 > log-$v.txt
done
"$PYTHON" - <<'PY'
import h5py, numpy as np
ref = h5py.File("out-t.h5", "r")["dynamics/occupations"][()]
for v in ["contig", "gzip", "bigend"]:
    x = h5py.File("out-%s.h5" % v, "r")["dynamics/occupations"][()]
    assert x.shape == ref.shape and np.array_equal(x, ref), "%s differs from the chunked table by %g" % (v, np.abs(x - ref).max())
    print(v, "identical to bte's chunked table")
PY
# cut inside the channel data: refused with a message, not read as zeros
size=$(stat -c %s t.h5)
head -c $((size - 100000)) t.h5 > cut.h5
expect_fail "truncat\|damaged\|past the end" "$BTE" dynamics -bte_input cut.h5 -bte_final_time 5 -bte_output out-cut.h5
echo "ok"
