#!/usr/bin/env python3
"""A performance model of the pair apply over several GPUs, fitted to scripts/scaling-bench.sh's
scaling.csv, and its extrapolation to many GPUs over a network (docs/benchmarks.md, "Several GPUs").

  apply(P) = T_work(P) (1 + k) + max(0, T_x(P) - T_hide(P)) + c0   (k, c0 only for P > 1)

T_work(P): the bytes the largest rank streams over the rate one GPU reaches,
    T_work(P) = B(P) * C / P * imb / R,   R = B(1) * C / apply(1)
  (B: layout bytes per channel at P ranks, C: channels, imb: largest rank over the mean, from the
  partition's balance, 1.004 measured);
T_x(P): both exchanges of an apply (ghost values in, ghosts' sums out), a latency per exchange and
  per peer plus bytes over a link rate, fitted to coll_exchange's times:
    T_x = 2 a + c (P - 1) + V / b,   V = bytes received + bytes sent by the largest rank
T_hide(P): the work that needs no ghost value runs while the values travel: about 1/P of the work
  (the pairs with both ends on the rank);
c0, k: what the split apply on several ranks costs beyond these terms, fitted (least squares) to
  the measured multi-GPU applies: a fixed part c0 (more launches, the events and NCCL's group calls
  on the host) and a part k proportional to the work (chunks that wait for the exchange, the
  kernels of the exchange sharing the GPU).

Beyond one host (hosts of G GPUs), the peers off the host are reached over the network: the fitted
latency and rate are replaced by a network latency a_n and a per-GPU network rate b_n (given
below; the defaults are those of a 200 Gb/s NIC per GPU). The model states where the efficiency
apply(1) / (P apply(P)) falls below 80%.

  scripts/scaling-model.py scaling.csv [--pipelined] [--exchange nccl|ipc] [--hosts-of 4] [--net-latency-us 10] [--net-GBs 25]
                                       [--per-peer-us -1 (fit)] [--plot FILE.png]
"""
import argparse
import csv
import sys

import numpy as np


def load(path):
    rows = list(csv.DictReader(open(path)))
    num = lambda r, k: float(r[k]) if r.get(k, "") not in ("", None) else None
    strong = [r for r in rows if r["kind"] == "strong"]
    return rows, strong, num


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--hosts-of", type=int, default=4, help="GPUs per host (NVLink inside a host)")
    ap.add_argument("--net-latency-us", type=float, default=10.0, help="network latency per exchange (us)")
    ap.add_argument("--net-GBs", type=float, default=25.0, help="network rate per GPU (GB/s)")
    ap.add_argument("--per-peer-us", type=float, default=-1, help="cost per peer and exchange (us); -1: fitted")
    ap.add_argument("--imbalance", type=float, default=1.004)
    ap.add_argument("--plot", default="")
    ap.add_argument("--pipelined", action="store_true", help="fit the applies timed back to back (apply_pipe_ms, -bte_bench_pipelined) instead of the synced medians")
    ap.add_argument("--exchange", default="nccl", choices=["nccl", "ipc"], help="the exchange whose multi-GPU rows are fitted (-bte_exchange of the runs)")
    a = ap.parse_args()
    rows, strong, num = load(a.csv)
    akey = "apply_pipe_ms" if a.pipelined else "apply_ms"
    if a.pipelined:
        strong = [r for r in strong if num(r, akey) is not None and num(r, akey) > 0]
    if not strong:
        sys.exit("scaling-model.py: no strong-scaling rows %sin %s" % ("with apply_pipe_ms (scaling-bench.sh runs bte bench -bte_bench_pipelined) " if a.pipelined else "", a.csv))

    # exchange fit: T_x = 2 a + c (P - 1) + V / b  over the rows of that exchange with coll_exchange times
    X, y = [], []
    for r in strong:
        if r["exchange"] == a.exchange and num(r, "fwd_ms") is not None and int(r["gpus"]) > 1:
            P = int(r["gpus"])
            V = num(r, "fwd_bytes") + num(r, "rev_bytes")
            X.append([2.0, P - 1.0, V])
            y.append((num(r, "fwd_ms") + num(r, "rev_ms")) * 1e-3)
    if len(y) >= 3 and a.per_peer_us < 0:
        coef, *_ = np.linalg.lstsq(np.array(X), np.array(y), rcond=None)
        lat, peer, invb = coef
    elif len(y) >= 2:
        peer = max(a.per_peer_us, 0) * 1e-6
        A = np.array([[x[0], x[2]] for x in X])
        coef, *_ = np.linalg.lstsq(A, np.array(y) - peer * np.array([x[1] for x in X]), rcond=None)
        lat, invb = coef
    else:
        sys.exit("scaling-model.py: need coll_exchange times on at least two multi-GPU rows")
    lat, peer = max(lat, 0.0), max(peer, 0.0)
    rate = 1.0 / invb if invb > 0 else float("inf")
    print(f"exchange fit over {len(y)} runs: latency {lat * 1e6:.1f} us per exchange, {peer * 1e6:.2f} us per peer, "
          f"{rate / 1e9:.1f} GB/s" + ("" if invb > 0 else " (bytes not resolved)"))
    for x, t in zip(X, y):
        print(f"   P={int(x[1]) + 1} V={x[2] / 1e3:.0f} kB: measured {t * 1e3:.4f} ms, fit {(x[0] * lat + x[1] * peer + x[2] * invb) * 1e3:.4f} ms")

    grids = sorted({int(r["grid"]) for r in strong})

    def terms(P, C, R, B1, Bp, Vm, Pm):
        work = (B1 if P == 1 else Bp) * C / P * (a.imbalance if P > 1 else 1.0) / R
        V = Vm * (1 - 1 / P) / (1 - 1 / Pm) if P > 1 else 0.0
        if P == 1:
            tx = 0.0
        elif P <= a.hosts_of:
            tx = 2 * lat + peer * (P - 1) + V * invb
        else:  # on-host peers over NVLink, the rest over the network (its share of the bytes)
            off = (P - a.hosts_of) / (P - 1)
            tx = 2 * max(lat, a.net_latency_us * 1e-6) + peer * (P - 1) + V * (1 - off) * invb + V * off / (a.net_GBs * 1e9)
        hide = work / P if P > 1 else 0.0
        return work, tx, hide

    def setup(g):
        rs = [r for r in strong if int(r["grid"]) == g and (r["exchange"] == a.exchange or r["gpus"] == "1")]
        one = [r for r in rs if r["gpus"] == "1"]
        if not one:
            return None
        one = one[0]
        C, t1, B1 = num(one, "channels"), num(one, akey) * 1e-3, num(one, "layout_Bpc")
        R = B1 * C / t1
        meas = [r for r in rs if num(r, "fwd_bytes") is not None and int(r["gpus"]) > 1]
        if meas:
            m = max(meas, key=lambda r: int(r["gpus"]))
            Pm, Vm = int(m["gpus"]), num(m, "fwd_bytes") + num(m, "rev_bytes")
        else:
            Pm, Vm = 2, 0.0
        Bp = max([num(r, "layout_Bpc") for r in rs if int(r["gpus"]) > 1] or [B1])
        return rs, one, C, t1, B1, R, Bp, Vm, Pm

    res = []
    for g in grids:
        st = setup(g)
        if not st:
            continue
        rs, one, C, t1, B1, R, Bp, Vm, Pm = st
        for r in rs:
            P = int(r["gpus"])
            if P > 1:
                w, tx, h = terms(P, C, R, B1, Bp, Vm, Pm)
                res.append((w, num(r, akey) * 1e-3 - (w + max(0.0, tx - h))))
    c0 = kw = 0.0
    if len(res) >= 2:
        (c0, kw), *_ = np.linalg.lstsq(np.array([[1.0, w] for w, _ in res]), np.array([x for _, x in res]), rcond=None)
        c0, kw = max(c0, 0.0), max(kw, 0.0)
    print(f"cost of the split apply beyond work and exchange: c0 = {c0 * 1e6:.0f} us + {kw:.3f} x the work (residuals: "
          + ", ".join(f"{x * 1e6:.0f} us at {w * 1e3:.3f} ms of work" for w, x in res) + ")")
    out = []
    for g in grids:
        st = setup(g)
        if not st:
            continue
        rs, one, C, t1, B1, R, Bp, Vm, Pm = st
        print(f"\nGaAs {g}^3: {C:.3g} channels, 1 GPU {t1 * 1e3:.3f} ms per apply ({R / 1e9:.0f} GB/s of layout), "
              f"{B1:.1f} B/channel; exchange volume {Vm / 1e3:.0f} kB on {Pm} GPUs")
        print(f"{'GPUs':>6} {'measured ms':>12} {'model ms':>10} {'speed-up':>9} {'efficiency':>10}   (model: work / exchange / hidden, ms; + c0 + k work)")
        below = None
        for P in [1, 2, 4, 8, 16, 32, 64, 128, 256]:
            work, tx, hide = terms(P, C, R, B1, Bp, Vm, Pm)
            t = work * (1 + (kw if P > 1 else 0.0)) + max(0.0, tx - hide) + (c0 if P > 1 else 0.0)
            meas_t = [num(r, akey) for r in rs if int(r["gpus"]) == P and r["exchange"] == a.exchange] or \
                     ([num(one, akey)] if P == 1 else [])
            eff = t1 / (P * t)
            if below is None and eff < 0.8:
                below = P
            ms = f"{meas_t[0]:.4f}" if meas_t else ""
            print(f"{P:>6} {ms:>12} {t * 1e3:>10.4f} {t1 / t:>9.2f} {eff:>9.0%}   ({work * 1e3:.4f} / {tx * 1e3:.4f} / {min(tx, hide) * 1e3:.4f})")
            out.append((g, P, t, eff, meas_t[0] if meas_t else None))
        print(f"efficiency below 80% from {below} GPUs" if below else "efficiency stays above 80% up to 256 GPUs")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        for g in grids:
            pts = [(P, e) for (gg, P, t, e, m) in out if gg == g]
            line, = ax.plot([p for p, _ in pts], [e for _, e in pts], "-", label=f"GaAs {g}^3, model")
            t1 = [m for (gg, P, t, e, m) in out if gg == g and P == 1][0]
            ms = [(P, t1 / (P * m)) for (gg, P, t, e, m) in out if gg == g and m is not None]
            ax.plot([p for p, _ in ms], [e for _, e in ms], "o", color=line.get_color(), label=f"GaAs {g}^3, measured")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("GPUs")
        ax.set_ylabel("parallel efficiency of an apply")
        ax.axhline(0.8, color="gray", lw=0.5)
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.plot, dpi=120)
        print("wrote", a.plot)


if __name__ == "__main__":
    main()
