#!/usr/bin/python3
"""The tables of summary.md, from run.sh's files: summarize.py [DIR] > summary.md.
probe-MPI-rN.txt: per MPI, collective, size and configuration, the median over the
repetitions of each run's mean and 90th percentile (µs), the mean's ratio to MPI's own,
and the progress thread's time slices per collective on rank 0. nbc-MPI-CONFIG-rN.json:
the diagonal points (comm = comp)."""
import collections
import glob
import json
import os
import re
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(mpi|ovx)\s+(\S+)\s+(\S+)\s+(\d+) B\s+median\s+([\d.]+)\s+mean\s+([\d.]+)"
                  r"\s+p90\s+([\d.]+) us .*slices ([\d.]+)")
CONFIGS = ["mpi", "caller", "shared", "shared-long"]
runs = collections.defaultdict(list)  # (mpi, op, bytes, config) -> [(median, mean, p90, slices)]
reps = collections.defaultdict(set)
for path in sorted(glob.glob(os.path.join(here, "probe-*-r*.txt"))):
    mpi, rep = re.search(r"probe-(\w+)-r(\d+)\.txt$", path).groups()
    reps[mpi].add(rep)
    for line in open(path):
        m = LINE.match(line)
        if m:
            _, config, op, size = m.group(1, 2, 3, 4)
            runs[(mpi, op, int(size), config)].append(tuple(float(v) for v in m.group(5, 6, 7, 8)))


def med(values):
    return statistics.median(values) if values else float("nan")


print("Set-up: this project's 2-core VM (Debian 12), 2 emulated nodes at 1 Gbit/s with one "
      "core each (P = 2), Open MPI 4.1.4 and MPICH 4.0.2; run.sh, README.md.\n")
for mpi in ("openmpi", "mpich"):
    if mpi not in reps:
        continue
    print(f"## {mpi} ({len(reps[mpi])} repetitions; µs, median over them)\n")
    print("| op | bytes | MPI's own mean, p90 | caller mean (ratio), p90 | shared mean (ratio), p90, slices"
          " | shared-long mean (ratio), p90, slices |")
    print("| --- | --- | --- | --- | --- | --- |")
    for op in ("allreduce", "bcast", "alltoall"):
        for size in (8, 1024, 8192):
            cells = {c: runs.get((mpi, op, size, c), []) for c in CONFIGS}
            if not cells["mpi"]:
                continue
            base = med([r[1] for r in cells["mpi"]])
            row = [op, str(size), f"{base:.1f}, {med([r[2] for r in cells['mpi']]):.0f}"]
            for c in CONFIGS[1:]:
                mean = med([r[1] for r in cells[c]])
                text = f"{mean:.1f} ({mean / base:.2f})"
                text += f", {med([r[2] for r in cells[c]]):.0f}"
                if c != "caller":
                    text += f", {med([r[3] for r in cells[c]]):.2f}"
                row.append(text)
            print("| " + " | ".join(row) + " |")
    print()


def nbc_tables():
    """Diagonal points (comm = comp) of nbc-MPI-CONFIG-rN.json: mean and largest r_comm,
    mean r_overhead and r_comp_slowdown, points nbc flagged imprecise, r_comm without them."""
    cells = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(here, "nbc-*-r*.json"))):
        mpi, config = re.search(r"nbc-(\w+)-(.+)-r\d+\.json$", path).groups()
        for p in json.load(open(path))["points"]:
            if p["target_comm_s"] == p["target_comp_s"]:
                cells[(mpi, round(p["target_comm_s"] * 1e3), config)].append(
                    (p["r_comm"], p["r_overhead"], p["r_comp_slowdown"], bool(p.get("imprecise"))))
    if not cells:
        return
    print("## nbc, liboverlap `shared`, GEMM on the thread's core (comm = comp)\n")
    print("| MPI | comm = comp | configuration | points | r_comm mean (max) | r_overhead mean "
          "| r_comp_slowdown mean | flagged | r_comm unflagged |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (mpi, ms, config), v in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2] != "shared")):
        kept = [x[0] for x in v if not x[3]]
        print(f"| {mpi} | {ms} ms | {config} | {len(v)} | {statistics.mean(x[0] for x in v):.2f} "
              f"({max(x[0] for x in v):.2f}) | {statistics.mean(x[1] for x in v):.2f} | "
              f"{statistics.mean(x[2] for x in v):.2f} | {sum(x[3] for x in v)} | "
              f"{statistics.mean(kept) if kept else float('nan'):.2f} |")
    print()


nbc_tables()
