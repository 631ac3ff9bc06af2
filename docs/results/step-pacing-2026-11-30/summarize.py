#!/usr/bin/python3
"""The tables of this folder's README from run.sh's files: summarize.py [DIR] > summary.md.

nbc (diagonal points, comm = comp): per MPI, configuration and time, the mean and the
largest r_comm over the repetitions' three collectives, the mean r_overhead and
r_comp_slowdown, the median engine share (progress thread CPU / t_comp_ref) and how many
points nbc flagged imprecise (*: all points are in the means; the last column leaves the
flagged out). idle: the collective alone and overlapped with 4.5 ms of
sleep, the sleep alone as measured, means over the repetitions, and the communication
left exposed beyond the longer of the sleep and the collective (paced64: 64
pauses per step, OVERLAP_SHARED_PAUSES_PER_STEP=64). latency: liboverlap
/ MPI's own per size (one run per configuration)."""
import collections
import glob
import json
import os
import re
import statistics as st
import sys

HERE = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
CONFIGS = ("before", "paced", "paced64")


def order(cfg):
    return CONFIGS.index(cfg) if cfg in CONFIGS else len(CONFIGS)
COMP_US = 4500.0


def clean(v):
    kept = [x for x in v if not x[4]]
    if not kept:
        return "none"
    return f"{st.mean(x[0] for x in kept):.2f}, {st.mean(x[1] for x in kept):.2f} ({len(kept)})"


def nbc_rows():
    cells = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(HERE, "nbc-*-r*.json"))):
        mpi, cfg = os.path.basename(f).split("-")[1:3]
        for p in json.load(open(f))["points"]:
            if p["target_comm_s"] != p["target_comp_s"]:
                continue
            engine = (p.get("decomposition") or {}).get("engine")
            cells[(mpi, round(p["target_comm_s"] * 1e3), cfg)].append(
                (p["r_comm"], p["r_overhead"], p["r_comp_slowdown"], engine, bool(p.get("imprecise"))))
    print("| MPI | comm = comp | configuration | points | r_comm mean (max) | r_overhead mean "
          "| r_comp_slowdown mean | engine share median | flagged* | r_comm, r_overhead: unflagged |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for (mpi, ms, cfg), v in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], order(kv[0][2]))):
        engines = [x[3] for x in v if x[3] is not None]
        eng = f"{st.median(engines):.3f}" if engines else "n/a"
        print(f"| {mpi} | {ms} ms | {cfg} | {len(v)} | {st.mean(x[0] for x in v):.2f} "
              f"({max(x[0] for x in v):.2f}) | {st.mean(x[1] for x in v):.2f} | "
              f"{st.mean(x[2] for x in v):.2f} | {eng} | {sum(x[4] for x in v)} | {clean(v)} |")


LINE = re.compile(r"^\S+ (\w+) (\d+) B comp \S+ us (alone|overlapped|asleep): mean (\S+) us fastest (\S+) us")


def idle_rows():
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(os.path.join(HERE, "idle-*-r*.txt"))):
        mpi, cfg = os.path.basename(f).split("-")[1:3]
        for line in open(f):
            m = LINE.match(line)
            if m:
                cells[(mpi, m.group(1), cfg)][m.group(3)].append(float(m.group(4)))
    print("| MPI | op (512 KiB) | configuration | runs | alone, µs | 4.5 ms asleep alone, µs "
          "| overlapped with it, µs | exposed / alone |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (mpi, op, cfg), v in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1], order(kv[0][2]))):
        if not v["alone"] or not v["overlapped"]:
            continue
        alone, ovl = st.mean(v["alone"]), st.mean(v["overlapped"])
        # The sleep as measured (it overshoots its target), else its target.
        asleep = st.mean(v["asleep"]) if v["asleep"] else COMP_US
        exposed = max(0.0, ovl - max(asleep, alone)) / alone
        slept = f"{asleep:.0f}" if v["asleep"] else "n/a"
        print(f"| {mpi} | {op} | {cfg} | {len(v['overlapped'])} | {alone:.0f} | {slept} | {ovl:.0f} "
              f"| {exposed:.2f} |")


def latency_rows():
    ratio = collections.defaultdict(dict)
    for f in sorted(glob.glob(os.path.join(HERE, "latency-*.json"))):
        mpi, cfg = os.path.basename(f)[:-5].split("-")[1:3]
        for p in json.load(open(f))["points"]:
            if p.get("impl") == "overlap" and p.get("ratio_overlap_to_mpi") is not None:
                ratio[(mpi, p["op"], p["msg_bytes"])][cfg] = p["ratio_overlap_to_mpi"]
    print("| MPI | op | bytes | before | paced |")
    print("| --- | --- | --- | --- | --- |")
    for (mpi, op, size), v in sorted(ratio.items()):
        cols = " | ".join(f"{v[c]:.2f}" if c in v else "n/a" for c in CONFIGS[:2])
        print(f"| {mpi} | {op} | {size} | {cols} |")


if __name__ == "__main__":
    print("## nbc, liboverlap `shared`, GEMM on the thread's core\n")
    nbc_rows()
    print("\n## idle caller (the thread has the core)\n")
    idle_rows()
    print("\n## latency: liboverlap / MPI's own\n")
    latency_rows()
