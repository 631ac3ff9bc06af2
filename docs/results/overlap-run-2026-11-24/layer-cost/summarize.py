#!/usr/bin/python3
"""pingpong_vs_pmpi of every run of run.sh, per MPI, configuration and size, with the
median over the rounds; the plain runs' ratio is the control (its distance from 1 is the
noise of the method). Reads this folder, or the folder given (layer-cost-2 too)."""
import glob
import json
import os
import statistics
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rows = {}
for path in sorted(glob.glob(os.path.join(here, "*-*-*.json"))):
    mpi, config = os.path.basename(path)[:-5].split("-")[:2]
    for p in json.load(open(path))["points"]:
        if p["impl"] in ("blocking", "overlap-run"):
            rows.setdefault((mpi, config, p["msg_bytes"]), []).append(
                (p.get("pingpong_vs_pmpi"), p.get("t_pingpong_s")))
print(f"{'mpi':8} {'config':7} {'size':>8}  ratios (pingpong_vs_pmpi)            median  round trip")
for (mpi, config, size), vals in sorted(rows.items()):
    ratios = [r for r, _ in vals if r is not None]
    trips = [t for _, t in vals if t is not None]
    med = f"{statistics.median(ratios):.3f}" if ratios else "-"
    trip = f"{statistics.median(trips) * 1e6:.0f} us" if trips else "-"
    print(f"{mpi:8} {config:7} {size:>8}  {', '.join(f'{r:.3f}' for r in ratios):34} {med:>6}  {trip}")
