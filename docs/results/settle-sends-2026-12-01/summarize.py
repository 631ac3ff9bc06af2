#!/usr/bin/python3
"""The tables of summary.md, from run.sh's files: summarize.py [DIR] > summary.md.
Every cell is the median over the repetitions (range in brackets where it helps).
floor-MPI-rN.txt: rank 0's median time per 8-byte collective, each way of doing it.
shm-MPI-rN.txt: time per call on 2 local ranks (each run the best of 5 blocks).
net-MPI-rN.txt: rank 0's median and mean per collective on 2 nodes, and the median's ratio
to MPI's own in the same repetition.
latency-MPI-CONFIG-rN.json: overlap-bench latency's ratio of liboverlap to MPI's own."""
import collections
import glob
import json
import os
import re
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
FLOOR = re.compile(r"^(\w+)\s+\w+\s+(\w+)\s+median\s+([\d.]+)")
SHM = re.compile(r"^(mpi|before|after)\s+(mpi|ovx)\s+(\S+)\s+([\d.]+) us")
NET = re.compile(r"^(mpi|ovx)\s+(\S+)\s+(\S+)\s+(\d+) B\s+median\s+([\d.]+)\s+mean\s+([\d.]+)")
MPIS = ("openmpi", "mpich")


def med(values):
    return statistics.median(values) if values else float("nan")


def cell(values, digits=2, spread=True):
    if not values:
        return "-"
    text = f"{med(values):.{digits}f}"
    if spread and len(values) > 1:
        text += f" ({min(values):.{digits}f}-{max(values):.{digits}f})"
    return text


def read(prefix, regex, key):
    """{mpi: [{key: value} per repetition]} for the files PREFIX-MPI-rN.txt."""
    out = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(here, f"{prefix}-*-r*.txt"))):
        mpi = re.search(rf"{prefix}-(\w+)-r\d+\.txt$", path).group(1)
        table = {}
        for line in open(path):
            m = regex.match(line)
            if m:
                k, v = key(m)
                table[k] = v
        out[mpi].append(table)
    return out


def floor_tables():
    floor = read("floor", FLOOR, lambda m: ((m.group(2), m.group(1)), float(m.group(3))))
    configs = ["mpi", "blk", "p2p", "greq", "before", "after"]
    for mpi in MPIS:
        reps = floor.get(mpi)
        if not reps:
            continue
        print(f"## {mpi}: the floor, 2 emulated nodes (1 Gbit/s, one core each), 8 bytes, rank 0 "
              f"({len(reps)} repetitions; µs, median of the runs' medians and range)\n")
        print("| op | MPI's own (nonblocking) | MPI's own (blocking) | point-to-point | "
              "in a generalized request | liboverlap before | after | after - generalized |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for op in ("bcast", "alltoall"):
            col = {c: [t[(op, c)] for t in reps if (op, c) in t] for c in configs}
            over = [a - g for a, g in zip(col["after"], col["greq"])]
            print(f"| {op} | " + " | ".join(cell(col[c]) for c in configs) + f" | {cell(over)} |")
        print()


def shm_tables():
    shm = read("shm", SHM, lambda m: ((m.group(3), m.group(1)), float(m.group(4))))
    for mpi in MPIS:
        reps = shm.get(mpi)
        if not reps:
            continue
        print(f"## {mpi}: 2 local ranks, shared memory, 8 bytes ({len(reps)} repetitions; "
              "µs per call)\n")
        print("| op | MPI's own | before | after | after / MPI's own |")
        print("| --- | --- | --- | --- | --- |")
        for op in ("allreduce", "bcast", "alltoall", "barrier"):
            col = {c: [t[(op, c)] for t in reps if (op, c) in t] for c in ("mpi", "before", "after")}
            ratio = [a / m for a, m in zip(col["after"], col["mpi"])]
            print(f"| {op} | {cell(col['mpi'])} | {cell(col['before'])} | {cell(col['after'])} | "
                  f"{cell(ratio)} |")
        print()


def net_tables():
    net = read("net", NET, lambda m: ((m.group(3), int(m.group(4)), m.group(2)),
                                      (float(m.group(5)), float(m.group(6)))))
    for mpi in MPIS:
        reps = net.get(mpi)
        if not reps:
            continue
        print(f"## {mpi}: 2 emulated nodes, 1 Gbit/s, one core each, rank 0 ({len(reps)} "
              "repetitions; µs, median over them; ratio of the median to MPI's own in the same "
              "repetition)\n")
        print("| op | bytes | MPI's own median (mean) | before median (mean), ratio | "
              "after median (mean), ratio |")
        print("| --- | --- | --- | --- | --- |")
        keys = sorted({(op, size) for t in reps for (op, size, _) in t},
                      key=lambda k: (["allreduce", "bcast", "alltoall"].index(k[0]), k[1]))
        for op, size in keys:
            cells = []
            for c in ("mpi", "before", "after"):
                runs = [(t.get((op, size, c)), t.get((op, size, "mpi"))) for t in reps]
                text = (f"{med([x[0] for x, _ in runs if x]):.1f} "
                        f"({med([x[1] for x, _ in runs if x]):.1f})")
                if c != "mpi":
                    text += f", {cell([x[0] / o[0] for x, o in runs if x and o])}"
                cells.append(text)
            print(f"| {op} | {size} | " + " | ".join(cells) + " |")
        print()


def latency_tables():
    ratios = collections.defaultdict(list)  # (mpi, op, bytes, config) -> [ratio per rep]
    for path in sorted(glob.glob(os.path.join(here, "latency-*-*-r*.json"))):
        mpi, config = re.search(r"latency-(\w+)-(\w+)-r\d+\.json$", path).groups()
        data = json.load(open(path))
        for p in data["points"]:
            if p["impl"] == "overlap" and p.get("valid") and p.get("ratio_overlap_to_mpi"):
                ratios[(mpi, p["op"], p["msg_bytes"], config)].append(p["ratio_overlap_to_mpi"])
    for mpi in MPIS:
        keys = sorted({(op, b) for (m, op, b, _) in ratios if m == mpi})
        if not keys:
            continue
        print(f"## {mpi}: overlap-bench latency, liboverlap / MPI's own, `caller`, 2 emulated "
              "nodes, one core each (median over the repetitions, range)\n")
        print("| op | bytes | before | after |")
        print("| --- | --- | --- | --- |")
        for op, b in keys:
            print(f"| {op} | {b} | {cell(ratios[(mpi, op, b, 'before')])} | "
                  f"{cell(ratios[(mpi, op, b, 'after')])} |")
        print()


print("Set-up: this project's 2-core VM (Debian 12), Open MPI 4.1.4 and MPICH 4.0.2; `before` "
      "is liboverlap at 30dac4d, `after` the commit under test, both `caller`; run.sh, "
      "README.md.\n")
floor_tables()
shm_tables()
net_tables()
latency_tables()
