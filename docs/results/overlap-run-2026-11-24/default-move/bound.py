#!/usr/bin/python3
"""Issue 11's second p2p goal on these runs: the overlapped period within 10 % of
max(t_comp, t_comm) + the measured CPU cost of moving the bytes on this network. That
cost is taken from each point's CPU accounting (docs/cpu-accounting.md): the process's
system time plus its progress thread's time during MPI's own round trips (comm_alone),
the larger of ranks 0 and 1. Prints each point's period over max(t_comp, t_comm) alone
(ratio_to_optimal) and over the bound with that cost added."""
import glob
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
print(f"{'file':24} {'impl':12} {'t_iter':>7} {'t_comp':>7} {'t_comm':>7} {'move':>6} "
      f"{'/max':>5} {'/(max+move)':>11}")
for path in sorted(glob.glob(os.path.join(here, "*-*-[0-9].json"))):
    for p in json.load(open(path))["points"]:
        if not p.get("valid") or not p.get("cpu"):
            continue
        move = max(r["comm_alone"]["process_system_s"] + r["comm_alone"]["progress_s"]
                   for r in p["cpu"]["ranks"])
        best = max(p["t_comp_s"], p["t_comm_s"])
        ms = [x * 1e3 for x in (p["t_iter_s"], p["t_comp_s"], p["t_comm_s"], move)]
        print(f"{os.path.basename(path):24} {p['impl']:12} {ms[0]:7.1f} {ms[1]:7.1f} "
              f"{ms[2]:7.1f} {ms[3]:6.1f} {p['t_iter_s'] / best:5.2f} "
              f"{p['t_iter_s'] / (best + move):11.2f}")
