#!/usr/bin/python3
"""The README's tables from run.sh's JSON files: per MPI and configuration, liboverlap's
time over MPI's own (coll: against the blocking call; latency: against MPI's nonblocking
call), the median over the repetitions with the range; and nbc's r_comm and
r_comp_slowdown on the diagonal comm = comp. Usage: summarize.py [DIR]"""
import glob
import json
import os
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
CFGS = ["caller", "shared-before", "shared"]


def points(path):
    with open(path) as f:
        return json.load(f)["points"]


def size_name(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def cell(values):
    if not values:
        return "n/a"
    m = statistics.median(values)
    return f"{m:.2f}" if len(values) == 1 else f"{m:.2f} ({min(values):.2f}-{max(values):.2f})"


def ratio_table(bench, mpi):
    # (op, bytes) -> cfg -> [ratio per repetition]
    table = {}
    for cfg in CFGS:
        for f in sorted(glob.glob(f"{d}/{bench}-{mpi}-{cfg}-r*.json")):
            for p in points(f):
                r = p.get("ratio_overlap_to_mpi")
                if p["impl"] != "overlap" or r is None or not p.get("valid", True):
                    continue
                table.setdefault((p["op"], p["msg_bytes"]), {}).setdefault(cfg, []).append(r)
    if not table:
        return
    print(f"\n### {bench}, {mpi}: liboverlap / MPI's own\n")
    print("| op | size | " + " | ".join(CFGS) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in CFGS) + " |")
    for (op, b) in sorted(table, key=lambda k: (k[0], k[1])):
        row = table[(op, b)]
        print(f"| {op} | {size_name(b)} | " + " | ".join(cell(row.get(c, [])) for c in CFGS) + " |")


def nbc_table(mpi):
    table = {}
    for cfg in CFGS[1:]:
        for f in sorted(glob.glob(f"{d}/nbc-{mpi}-{cfg}-r*.json")):
            for p in points(f):
                if not p.get("valid") or abs(p["target_comm_s"] - p["target_comp_s"]) > 1e-9:
                    continue
                key = (p["op"], round(p["target_comm_s"] * 1e3))
                name = cfg if p["impl"] == "overlap" else "mpi"
                e = table.setdefault(key, {}).setdefault(name, ([], []))
                e[0].append(p["r_comm"])
                e[1].append(p["r_comp_slowdown"])
    if not table:
        return
    print(f"\n### nbc, {mpi}: r_comm / r_comp_slowdown at comm = comp\n")
    cols = ["mpi", "shared-before", "shared"]
    print("| op | comm = comp | " + " | ".join(cols) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in cols) + " |")
    for (op, ms) in sorted(table):
        row = table[(op, ms)]
        cells = []
        for c in cols:
            if c not in row:
                cells.append("n/a")
                continue
            rc, sl = row[c]
            cells.append(f"{statistics.median(rc):.2f} / {statistics.median(sl):.2f}")
        print(f"| {op} | {ms} ms | " + " | ".join(cells) + " |")


for mpi in ["openmpi", "mpich"]:
    ratio_table("coll", mpi)
    ratio_table("latency", mpi)
    nbc_table(mpi)
