# scripts/scaling-model.py recovers the parameters of data made from its own model: a CSV of
# strong-scaling runs on 2 grids and 2 and 4 GPUs is written from chosen latency, per-peer cost,
# link rate, c0 and k (the exchange times as 2a + c(P-1) + V/b, the applies as W(1+k) + max(0,
# X - W/P) + c0 with W the 1-GPU apply over P), and the fitted values must be those (1e-6
# relative); the one-GPU rows give efficiency 100%; a CSV without multi-GPU exchange times is
# refused with one line; --pipelined fits the back-to-back column the same way; --exchange ipc fits
# the rows of that exchange (the same rows relabelled give the same fit, and nccl's are ignored).
set -e
[ -n "$PYTHON" ] || { echo "skip: no Python with h5py and matplotlib (scripts/find-python.sh)"; exit 77; }
"$PYTHON" -c "import numpy" 2> /dev/null || { echo "skip: $PYTHON has no numpy"; exit 77; }
"$PYTHON" - <<'PY'
a, c, b, c0, k = 30e-6, 4e-6, 100e9, 150e-6, 0.05
rows = ["kind,grid,gpus,exchange,channels,apply_ms,jac_ms,rk4_ms,layout_Bpc,setup_s,ksp_s,ksp_its,fwd_ms,rev_ms,fwd_bytes,rev_bytes"]
for g, C, t1, states in ((90, 1.1e8, 0.5e-3, 23000), (135, 1.26e9, 5.0e-3, 78000)):
    rows.append(f"strong,{g},1,nccl,{C:.0f},{t1 * 1e3:.9f},,,16.8,,,,,,,")
    for P in (2, 4):
        V1 = 8.0 * states * (1 - 1 / P)          # bytes one way
        X = 2 * a + c * (P - 1) + 2 * V1 / b      # both exchanges
        W = t1 / P * 1.004                        # the model's imbalance default
        T = W * (1 + k) + max(0.0, X - W / P) + c0
        rows.append(f"strong,{g},{P},nccl,{C:.0f},{T * 1e3:.9f},,,16.8,,,,{X / 2 * 1e3:.9f},{X / 2 * 1e3:.9f},{V1:.0f},{V1:.0f}")
open("s.csv", "w").write("\n".join(rows) + "\n")
open("bad.csv", "w").write(rows[0] + "\n" + rows[1] + "\n")
PY
"$PYTHON" "$TESTDIR/../scripts/scaling-model.py" s.csv > fit.txt
cat fit.txt
"$PYTHON" - <<'PY'
import re
t = open("fit.txt").read()
m = re.search(r"latency ([0-9.]+) us per exchange, ([0-9.]+) us per peer, ([0-9.]+) GB/s", t)
n = re.search(r"c0 = ([0-9.]+) us \+ ([0-9.]+) x the work", t)
assert m and n, "fit lines missing"
got = [float(m.group(1)), float(m.group(2)), float(m.group(3)), float(n.group(1)), float(n.group(2))]
want = [30.0, 4.0, 100.0, 150.0, 0.05]
# printed to 1 decimal (us, GB/s) and 3 (k): compare to the printed precision
for g, w, tol in zip(got, want, [0.06, 0.06, 0.06, 0.6, 0.0006]):
    assert abs(g - w) <= tol, f"fitted {got}, expected {want}"
for line in t.splitlines():
    f = line.split()
    if len(f) > 4 and f[0] == "1" and f[4] != "100%":
        raise SystemExit("one GPU is not 100% efficient: " + line)
print("ok: fit", got)
PY
# --pipelined fits the apply_pipe_ms column: the same rows with the applies moved there (and the
# synced ones doubled, which must not matter) give the same fit; a CSV without it is refused
"$PYTHON" - <<'PY'
import csv
rows = list(csv.DictReader(open("s.csv")))
with open("p.csv", "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) + ["apply_pipe_ms", "jac_pipe_ms"])
    w.writeheader()
    for r in rows:
        r["apply_pipe_ms"], r["jac_pipe_ms"] = r["apply_ms"], ""
        r["apply_ms"] = "%.9f" % (2 * float(r["apply_ms"]))
        w.writerow(r)
PY
"$PYTHON" "$TESTDIR/../scripts/scaling-model.py" p.csv --pipelined > fitp.txt
diff <(grep -E "latency|c0 =" fit.txt) <(grep -E "latency|c0 =" fitp.txt) || { echo "--pipelined fits differently"; exit 1; }
if "$PYTHON" "$TESTDIR/../scripts/scaling-model.py" s.csv --pipelined > nop.txt 2>&1; then echo "--pipelined accepted a CSV without apply_pipe_ms"; exit 1; fi
grep -q "no strong-scaling rows with apply_pipe_ms" nop.txt || { cat nop.txt; exit 1; }
sed 's/,nccl,/,ipc,/' s.csv > i.csv
"$PYTHON" "$TESTDIR/../scripts/scaling-model.py" i.csv --exchange ipc > fiti.txt
diff <(grep -E "latency|c0 =" fit.txt) <(grep -E "latency|c0 =" fiti.txt) || { echo "--exchange ipc fits differently"; exit 1; }
if "$PYTHON" "$TESTDIR/../scripts/scaling-model.py" i.csv > noi.txt 2>&1; then echo "the nccl fit used ipc rows"; exit 1; fi
if "$PYTHON" "$TESTDIR/../scripts/scaling-model.py" bad.csv > bad.txt 2>&1; then echo "a CSV without exchange times was accepted"; exit 1; fi
grep -q "need coll_exchange times" bad.txt || { cat bad.txt; exit 1; }
echo ok
