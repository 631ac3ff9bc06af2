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


def nbc(d):
    # (mpi, op, comm, comp) -> {column: [values over repetitions]}
    rows = defaultdict(lambda: defaultdict(list))
    flags = defaultdict(int)
    reps = set()
    for f in sorted(d.glob("nbc-*-r?.json")):
        _, mpi, *form, rep = f.stem.split("-")
        form = "-".join(form)
        reps.add(rep)
        for p in json.loads(f.read_text())["points"]:
            key = (mpi, p["op"], round(p["target_comm_s"] * 1e3), round(p["target_comp_s"] * 1e3))
            col = f"{form}/{p['impl']}"
            if not p["valid"]:
                flags[(key, col)] += 1
                continue
            rows[key][col].append(p["r_overhead"])
            if p.get("imprecise"):
                flags[(key, col)] += 1
    cols = ["plain/mpi", "overlap-run/mpi", "overlap-run/overlap", "plain/overlap"]
    print(f"nbc r_overhead, medians of {len(reps)} runs (flagged runs in brackets: invalid or "
          "imprecise reference)\n")
    print("| MPI | op | comm ms | comp ms | MPI's own, plain | MPI's own, under overlap-run "
          "| liboverlap, same run | difference | liboverlap, plain |")
    print("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(rows):
        r = rows[key]
        vals = [med(r[c]) for c in cols]
        cells = [f2(v) + (f" [{flags[(key, c)]}]" if flags[(key, c)] else "")
                 for v, c in zip(vals, cols)]
        diff = None if None in vals[1:3] else vals[1] - vals[2]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {cells[0]} | {cells[1]} | "
              f"{cells[2]} | {'—' if diff is None else f'{diff:+.2f}'} | {cells[3]} |")


def p2p(d):
    rows = defaultdict(lambda: defaultdict(list))
    for f in sorted(d.glob("p2p-*-r?.json")):
        _, mpi, *form, rep = f.stem.split("-")
        form = "-".join(form)
        for p in json.loads(f.read_text())["points"]:
            key = (mpi, p["msg_bytes"] >> 10, round(p["target_comp_s"] * 1e3))
            rows[key][f"{form}/{p['impl']}"].append(p["t_iter_s"])
    print("\np2p time per iteration (ms), medians\n")
    print("| MPI | KiB | comp ms | nonblocking, plain | nonblocking, under overlap-run "
          "| nonblocking-liboverlap, same run | ratio | nonblocking-liboverlap, plain |")
    print("|---|---|---|---|---|---|---|---|")
    for key in sorted(rows):
        r = rows[key]
        v = [med(r[c]) for c in ("plain/nonblocking", "overlap-run/nonblocking",
                                 "overlap-run/nonblocking-liboverlap",
                                 "plain/nonblocking-liboverlap")]
        ratio = None if None in v[1:3] else v[1] / v[2]
        print(f"| {key[0]} | {key[1]} | {key[2]} | " +
              " | ".join("—" if x is None else f"{x * 1e3:.2f}" for x in v[:3]) +
              f" | {f2(ratio)} | {'—' if v[3] is None else f'{v[3] * 1e3:.2f}'} |")


if __name__ == "__main__":
    d = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent)
    nbc(d)
    p2p(d)
