#!/usr/bin/python3
"""Before/after tables of issue 10's runs (run.sh): liboverlap's NBC + Wait latency and
the nbc diagonal, each against the same measure of MPI's own collective taken in the same
runs (a control: it should not change between before and after; when it does, the machine
drifted). Medians over the repeats. Prints markdown.

    compare.py DIR
"""
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        return json.load(f)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, digits=2):
    return "—" if v is None else f"{v:.{digits}f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def human_bytes(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size} {unit}"
    return f"{n} B"


def latency_tables(folder):
    # (mpi, policy, op, bytes, impl, when) -> [median_s per repeat]
    times = defaultdict(list)
    for path in glob.glob(os.path.join(folder, "latency-*.json")):
        m = re.match(r"latency-(\w+)-(\w+)-(before|after)-\d+\.json", os.path.basename(path))
        if not m:
            continue
        mpi, policy, when = m.groups()
        for p in load(path)["points"]:
            if p.get("valid"):
                key = (mpi, policy, p["op"], p["requested_bytes"], p["impl"], when)
                # The latency schema 2 (issue 14: iterations start from the sync barrier, in
                # global time) names it latency_s; schema 1 median_s.
                times[key].append(p["latency_s"] if "latency_s" in p else p["median_s"])
    rows = sorted({k[:4] for k in times})
    # Issue 14 changed how latency is timed between the two builds, so after/before of MPI's
    # own (the control) shows that change; liboverlap/MPI within each run is the fair figure.
    out = ["## Latency: NBC + MPI_Wait, median time (ms), after / before", "",
           "| MPI | policy | op | size | liboverlap before | after | after/before "
           "| MPI's own before | after | after/before (control) "
           "| liboverlap/MPI before | liboverlap/MPI after |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for mpi, policy, op, size in rows:
        ob = median(times[(mpi, policy, op, size, "overlap", "before")])
        oa = median(times[(mpi, policy, op, size, "overlap", "after")])
        mb = median(times[(mpi, policy, op, size, "mpi", "before")])
        ma = median(times[(mpi, policy, op, size, "mpi", "after")])
        ms = lambda v: None if v is None else v * 1e3  # noqa: E731
        out.append(f"| {mpi} | {policy} | {op} | {human_bytes(size)} | {fmt(ms(ob), 3)} | "
                   f"{fmt(ms(oa), 3)} | {fmt(ratio(oa, ob))} | {fmt(ms(mb), 3)} | "
                   f"{fmt(ms(ma), 3)} | {fmt(ratio(ma, mb))} | {fmt(ratio(ob, mb))} | "
                   f"{fmt(ratio(oa, ma))} |")
    return out


def nbc_tables(folder):
    # (mpi, policy, op, target, impl, when) -> [(r_overhead, r_comm, r_comp_slowdown)]
    metrics = defaultdict(list)
    for path in glob.glob(os.path.join(folder, "nbc-*.json")):
        m = re.match(r"nbc-(\w+)-(\w+)-(before|after)-\d+-[\w.]+\.json", os.path.basename(path))
        if not m:
            continue
        mpi, policy, when = m.groups()
        for p in load(path)["points"]:
            if not p.get("valid"):
                continue
            key = (mpi, policy, p["op"], p["target_comm_s"], p.get("impl", "mpi"), when)
            metrics[key].append((p["r_overhead"], p["r_comm"], p["r_comp_slowdown"]))
    rows = sorted({k[:4] for k in metrics})
    out = ["## nbc diagonal (comm = comp): r_overhead / r_comm / r_comp_slowdown", "",
           "| MPI | policy | op | comm=comp | liboverlap before | liboverlap after "
           "| MPI's own before | after (control) |", "|---|---|---|---|---|---|---|---|"]

    def triple(key):
        vals = metrics.get(key, [])
        if not vals:
            return "—"
        return " / ".join(fmt(median([v[i] for v in vals])) for i in range(3))

    for mpi, policy, op, t in rows:
        out.append(f"| {mpi} | {policy} | {op} | {t * 1e3:.0f} ms | "
                   f"{triple((mpi, policy, op, t, 'overlap', 'before'))} | "
                   f"{triple((mpi, policy, op, t, 'overlap', 'after'))} | "
                   f"{triple((mpi, policy, op, t, 'mpi', 'before'))} | "
                   f"{triple((mpi, policy, op, t, 'mpi', 'after'))} |")
    return out


def main():
    if len(sys.argv) != 2 or not os.path.isdir(sys.argv[1]):
        sys.exit("usage: compare.py DIR (the folder run.sh wrote)")
    folder = sys.argv[1]
    print("# liboverlap before / after issue 10\n")
    print("\n".join(latency_tables(folder)))
    print()
    print("\n".join(nbc_tables(folder)))


if __name__ == "__main__":
    main()
