#!/usr/bin/python3
"""The tables of summary.md, from run.sh's files: summarize.py [DIR] > summary.md.
shm-MPI-rN.txt: per MPI and collective, the time per call of MPI's own, liboverlap before
and after (each the best of 5 blocks), the median over the repetitions and its range.
net-MPI-rN.txt: per MPI, collective and size, the median over the repetitions of each
run's mean and 90th percentile (µs) and the mean's ratio to MPI's own in the same
repetition."""
import collections
import glob
import os
import re
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
SHM = re.compile(r"^(mpi|before|after)\s+(mpi|ovx)\s+(\S+)\s+([\d.]+) us")
NET = re.compile(r"^(mpi|ovx)\s+(\S+)\s+(\S+)\s+(\d+) B\s+median\s+([\d.]+)\s+mean\s+([\d.]+)"
                 r"\s+p90\s+([\d.]+) us")
CONFIGS = ["mpi", "before", "after"]


def med(values):
    return statistics.median(values) if values else float("nan")


def cell(values, digits=2):
    if not values:
        return "-"
    text = f"{med(values):.{digits}f}"
    if len(values) > 1:
        text += f" ({min(values):.{digits}f}-{max(values):.{digits}f})"
    return text


def read(pattern, regex, key):
    """{(mpi, rep): {key(match): [values]}} for every file matching pattern."""
    out = {}
    for path in sorted(glob.glob(os.path.join(here, pattern))):
        mpi, rep = re.search(r"-(\w+)-r(\d+)\.txt$", path).groups()
        table = collections.defaultdict(list)
        for line in open(path):
            m = regex.match(line)
            if m:
                k, v = key(m)
                table[k].append(v)
        out[(mpi, rep)] = table
    return out


shm = read("shm-*-r*.txt", SHM, lambda m: ((m.group(3), m.group(1)), float(m.group(4))))
net = read("net-*-r*.txt", NET,
           lambda m: ((m.group(3), int(m.group(4)), m.group(2)),
                      (float(m.group(6)), float(m.group(7)))))

print("Set-up: this project's 2-core VM (Debian 12), Open MPI 4.1.4 and MPICH 4.0.2; "
      "`before` is liboverlap at 0be9b72, `after` the commit under test, both `caller`; "
      "run.sh, README.md.\n")
for mpi in ("openmpi", "mpich"):
    reps = sorted(r for (m, r) in shm if m == mpi)
    if reps:
        print(f"## {mpi}: 2 local ranks, shared memory, 8 bytes ({len(reps)} repetitions; "
              "µs per call, median and range)\n")
        print("| op | MPI's own | before | after | saved (before - after) | after / MPI's own |")
        print("| --- | --- | --- | --- | --- | --- |")
        for op in ("allreduce", "bcast", "alltoall", "barrier"):
            col = {c: [shm[(mpi, r)][(op, c)][0] for r in reps if shm[(mpi, r)].get((op, c))]
                   for c in CONFIGS}
            saved = [b - a for a, b in zip(col["after"], col["before"])]
            ratio = [a / m for a, m in zip(col["after"], col["mpi"])]
            print(f"| {op} | {cell(col['mpi'])} | {cell(col['before'])} | {cell(col['after'])} | "
                  f"{cell(saved)} | {cell(ratio)} |")
        print()
    reps = sorted(r for (m, r) in net if m == mpi)
    if reps:
        print(f"## {mpi}: 2 emulated nodes, 1 Gbit/s, one core each ({len(reps)} repetitions; "
              "µs, median over them; ratio to MPI's own in the same repetition)\n")
        print("| op | bytes | MPI's own mean, p90 | before mean (ratio), p90 | "
              "after mean (ratio), p90 |")
        print("| --- | --- | --- | --- | --- |")
        keys = sorted({(op, size) for r in reps for (op, size, _) in net[(mpi, r)]},
                      key=lambda k: (["allreduce", "bcast", "alltoall"].index(k[0]), k[1]))
        for op, size in keys:
            cells = []
            for c in CONFIGS:
                runs = [net[(mpi, r)].get((op, size, c), [None])[0] for r in reps]
                own = [net[(mpi, r)].get((op, size, "mpi"), [None])[0] for r in reps]
                means = [x[0] for x in runs if x]
                p90 = [x[1] for x in runs if x]
                text = f"{med(means):.1f}"
                if c != "mpi":
                    ratio = [x[0] / o[0] for x, o in zip(runs, own) if x and o]
                    text += f" ({med(ratio):.2f})"
                cells.append(f"{text}, {med(p90):.0f}")
            print(f"| {op} | {size} | " + " | ".join(cells) + " |")
        print()
