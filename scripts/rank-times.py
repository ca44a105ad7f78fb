#!/usr/bin/env python3
"""Per-rank times of bte's collision events from PETSc's detailed log.

    mpiexec -n 16 bte bench ... -bte_bench_types pair -log_view :run.py:ascii_info_detail
    scripts/rank-times.py run.py [more.py ...]

For each file: the number of applies (BTECollApply + BTECollJacApply of rank 0), then for each
event its time per apply on the fastest, the mean and the slowest rank, and for the work
(BTECollInner + BTECollOuter) the slowest/fastest ratio and the slowest ranks. -log_view's summary
gives only the largest rank and max/min; this shows whether the same rank is slow in every event (a
slow core or a heavy rank) and how long the others wait for it (BTECollGhost, BTECollGhostAdd).
Inner and Outer are logged by the pair types only: a log whose applies include other types (bte
bench times every -bte_bench_types entry) is refused, since its times per apply would be wrong.
"""
import collections
import re
import sys

EVENTS = ["BTECollInner", "BTECollOuter", "BTECollGhost", "BTECollGhostAdd"]
LINE = re.compile(r'Stages\["Main Stage"\]\["(\w+)"\]\[(\d+)\] = \{"count" : (\d+), "time" : ([0-9.eE+-]+)')


def read(path):
    time, count = collections.defaultdict(dict), collections.defaultdict(dict)
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                ev, rank = m.group(1), int(m.group(2))
                count[ev][rank] = int(m.group(3))
                time[ev][rank] = float(m.group(4))
    return time, count


def main(paths):
    if not paths:
        print(__doc__.strip())
        return 2
    status = 0
    for path in paths:
        try:
            time, count = read(path)
        except OSError as e:
            print(f"{path}: cannot read it ({e.strerror})", file=sys.stderr)
            status = 1
            continue
        if "BTECollApply" not in count or 0 not in count["BTECollApply"]:
            print(f"{path}: no BTECollApply in it (run with -log_view :{path}:ascii_info_detail)", file=sys.stderr)
            status = 1
            continue
        ranks = sorted(count["BTECollApply"])
        napply = count["BTECollApply"][0] + count.get("BTECollJacApply", {}).get(0, 0)
        nwork = count.get("BTECollOuter", {}).get(0)  # once per apply of a pair type
        if nwork is not None and nwork != napply:
            print(f"{path}: {napply} applies but {nwork} of them logged BTECollOuter: the log holds applies of "
                  "collision types that do not log them (bte bench times every -bte_bench_types entry); "
                  "run with -bte_bench_types pair (or one pair type)", file=sys.stderr)
            status = 1
            continue
        print(f"{path}: {len(ranks)} rank{'s' if len(ranks) != 1 else ''}, {napply} applies (I[f] and J x); ms per apply, fastest / mean / slowest rank")
        for ev in EVENTS:
            if ev not in time:
                continue
            v = [1e3 * time[ev].get(r, 0.0) / napply for r in ranks]
            print(f"  {ev[7:]:<9} {min(v):8.3f} {sum(v) / len(v):8.3f} {max(v):8.3f}")
        work = [time["BTECollInner"].get(r, 0.0) + time["BTECollOuter"].get(r, 0.0) for r in ranks] if "BTECollOuter" in time else []
        if work and min(work) > 0:
            slow = sorted(ranks, key=lambda r: -work[ranks.index(r)])[:3]
            print(f"  work (Inner + Outer): slowest / fastest {max(work) / min(work):.2f}, slowest ranks {slow}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
