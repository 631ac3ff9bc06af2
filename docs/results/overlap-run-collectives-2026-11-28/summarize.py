#!/usr/bin/python3
"""The README's tables from the files run.sh wrote: summarize.py DIR. Medians over the
repetitions (files *-rN.json) of each point."""
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def f2(x):
    return "—" if x is None else f"{x:.2f}"


def runs(d, kind):
    """(mpi, form, rep, points) of every file of `kind`."""
    for f in sorted(d.glob(f"{kind}-*-r?.json")):
        _, mpi, *form, rep = f.stem.split("-")
        yield mpi, "-".join(form), rep, json.loads(f.read_text())["points"]


def nbc(d):
    rows = defaultdict(lambda: defaultdict(list))
    flags = defaultdict(int)
    reps = set()
    for mpi, form, rep, points in runs(d, "nbc"):
        reps.add(rep)
        for p in points:
            key = (mpi, p["op"], round(p["target_comm_s"] * 1e3), round(p["target_comp_s"] * 1e3))
            col = f"{form}/{p['impl']}"
            if not p["valid"] or p.get("imprecise"):
                flags[(key, col)] += 1
            if p["valid"]:
                rows[key][col].append(p["r_overhead"])
    cols = ["plain/mpi", "overlap-run/mpi", "overlap-run/overlap"]
    print(f"nbc r_overhead, medians of {len(reps)} runs (runs flagged invalid or imprecise in "
          "brackets)\n")
    print("| MPI | op | comm ms | comp ms | MPI_I* plain | MPI_I* under overlap-run (routed) "
          "| OVX_I*, same run | difference |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(rows):
        vals = [med(rows[key][c]) for c in cols]
        cells = [f2(v) + (f" [{flags[(key, c)]}]" if flags[(key, c)] else "")
                 for v, c in zip(vals, cols)]
        diff = None if None in vals[1:] else vals[1] - vals[2]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {' | '.join(cells)} | "
              f"{'—' if diff is None else f'{diff:+.2f}'} |")


def latency(d):
    rows = defaultdict(lambda: defaultdict(list))
    for mpi, form, rep, points in runs(d, "latency"):
        for p in points:
            if p["valid"]:
                rows[(mpi, p["op"], p["msg_bytes"])][form].append(p["latency_s"])
    print("\nlatency of MPI_I* + MPI_Wait (µs), medians of the runs' medians\n")
    print("| MPI | op | bytes | plain | overlap-run, routed | ratio | overlap-run, "
          "--collectives mpi | ratio |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(rows):
        v = [med(rows[key][c]) for c in ("plain", "overlap-run", "own")]
        r1 = None if None in (v[0], v[1]) else v[1] / v[0]
        r2 = None if None in (v[0], v[2]) else v[2] / v[0]
        us = ["—" if x is None else f"{x * 1e6:.1f}" for x in v]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {us[0]} | {us[1]} | {f2(r1)} | {us[2]} | "
              f"{f2(r2)} |")


if __name__ == "__main__":
    d = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    nbc(d)
    latency(d)
