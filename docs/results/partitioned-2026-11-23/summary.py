#!/usr/bin/python3
"""Tables of the partitioned figures (issue 12) from the part-*.json files of this folder:
early-bird % and availability per implementation, size and partition count, the overhead
ratio without noise, and the pattern points. Usage: summary.py [folder] > summary.md"""
import json
import os
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def points(name):
    path = os.path.join(here, f"part-{name}.json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))["points"]


def key(p):
    return (p["impl"], p["msg_bytes"], p["partitions"])


def size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def cell(p, field, fmt):
    if p is None:
        return "–"
    if not p.get("valid", True):
        return "invalid"
    v = p.get(field)
    return "null" if v is None else fmt.format(v)


def grid(name, impls, field, fmt, title):
    pts = points(name)
    if pts is None:
        return
    by = {key(p): p for p in pts}
    sizes = sorted({p["msg_bytes"] for p in pts})
    parts = sorted({p["partitions"] for p in pts})
    print(f"\n#### {title}\n")
    print("| size | " + " | ".join(f"{i} P={n}" for i in impls for n in parts) + " |")
    print("| --- " * (1 + len(impls) * len(parts)) + "|")
    for s in sizes:
        print(f"| {size(s)} | " + " | ".join(cell(by.get((i, s, n)), field, fmt)
                                             for i in impls for n in parts) + " |")


for mpi in ["mpich", "openmpi"]:
    impls = ["overlap", "multiple"] + (["mpi"] if mpi == "mpich" else [])
    print(f"\n## {mpi}")
    for run, what in [("noise", "10 ms per thread, single-thread noise 4 %"),
                      ("spread", "10 ms per thread, uniform noise 90 % (ready times spread)")]:
        grid(f"{run}-{mpi}", impls, "early_bird_pct", "{:.0f}",
             f"early-bird % ({what}); ceiling (P-1)/P: 50, 75, 87.5 %")
        grid(f"{run}-{mpi}", impls, "availability", "{:.2f}",
             f"availability ({what}); single is 0 by definition")
    grid(f"overhead-{mpi}", impls, "overhead", "{:.2f}",
         "overhead t_part / t_single, no noise (transfer phase)")
    for pattern in ["sweep3d", "halo3d"]:
        pts = points(f"{pattern}-{mpi}")
        if not pts:
            continue
        print(f"\n#### {pattern}: time per iteration, overhead vs single, early-bird %\n")
        print("| impl | size | P | iteration | overhead | early-bird % |")
        print("| --- | --- | --- | --- | --- | --- |")
        for p in pts:
            if not p.get("valid", True):
                print(f"| {p['impl']} | {size(p['msg_bytes'])} | {p['partitions']} | invalid | | |")
                continue
            eb = p.get("early_bird_pct")
            print(f"| {p['impl']} | {size(p['msg_bytes'])} | {p['partitions']} | "
                  f"{1e3 * p['iteration_s']:.1f} ms | {p['overhead']:.2f} | "
                  f"{'null' if eb is None else f'{eb:.0f}'} |")
