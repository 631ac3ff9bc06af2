#!/usr/bin/python3
"""Tables of the overlap-run figures (issue 11) from this folder's p2p-*.json and
jacobi-*.txt: per size and computation, t_iter of plain blocking, nonblocking and the
blocking code under overlap-run (shared, dedicated), the speedup over plain blocking and
t_iter / max(t_comp, t_comm); and the ping-pong without computation, overlap-run over
plain blocking (the interception's cost). Usage: summary.py [folder] > summary.md"""
import glob
import json
import os
import re
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def load(name):
    path = os.path.join(here, f"p2p-{name}.json")
    if not os.path.exists(path):
        return {}
    return {(p["impl"], p["msg_bytes"], p["target_comp_s"]): p
            for p in json.load(open(path))["points"]}


def size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def ms(v):
    return "null" if v is None else f"{1e3 * v:.2f}"


for mpi in ["openmpi", "mpich"]:
    plain = load(mpi)
    runs = {"shared": load(f"{mpi}-shared"), "dedicated": load(f"{mpi}-dedicated")}
    if not plain:
        continue
    print(f"\n## {mpi}\n")
    print("t_iter in ms (median round trip with computation); speedup = plain blocking / this; "
          "opt = t_iter / max(t_comp, t_comm)\n")
    print("| size | comp | t_comm | t_comp | blocking | nonblocking | overlap-run shared "
          "(speedup, opt) | overlap-run dedicated (speedup, opt) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (impl, b, c), p in sorted(plain.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        if impl != "blocking":
            continue
        nb = plain.get(("nonblocking", b, c))
        cells = []
        for policy in ["shared", "dedicated"]:
            q = runs[policy].get(("overlap-run", b, c))
            if not q or not q.get("valid", True) or q.get("t_iter_s") is None:
                cells.append("–" if not q else "invalid")
                continue
            s = p["t_iter_s"] / q["t_iter_s"]
            r = q.get("ratio_to_optimal")
            cells.append(f"{ms(q['t_iter_s'])} ({s:.2f}×, "
                         f"{'null' if r is None else f'{r:.2f}'})")
        print(f"| {size(b)} | {1e3 * c:.0f} ms | {ms(p.get('t_comm_s'))} | {ms(p.get('t_comp_s'))} | "
              f"{ms(p['t_iter_s'])} | {ms(nb['t_iter_s']) if nb else '–'} | "
              + " | ".join(cells) + " |")
    print("\nPing-pong without computation (median round trip, ms) and overlap-run / plain "
          "blocking\n")
    print("| size | blocking | overlap-run shared | ratio | overlap-run dedicated | ratio |")
    print("| --- | --- | --- | --- | --- | --- |")
    seen = set()
    for (impl, b, c), p in sorted(plain.items(), key=lambda kv: (kv[0][1], kv[0][2])):
        if impl != "blocking" or b in seen:
            continue
        seen.add(b)
        # one ping-pong set per point; take the median over the point's computations
        base = sorted(q["t_pingpong_s"] for (i, bb, _), q in plain.items()
                      if i == "blocking" and bb == b and q.get("t_pingpong_s"))
        row = [f"{ms(base[len(base) // 2])}"]
        for policy in ["shared", "dedicated"]:
            vals = sorted(q["t_pingpong_s"] for (i, bb, _), q in runs[policy].items()
                          if bb == b and q.get("t_pingpong_s"))
            if not vals:
                row += ["–", "–"]
                continue
            v = vals[len(vals) // 2]
            row += [ms(v), f"{v / base[len(base) // 2]:.3f}"]
        print(f"| {size(b)} | " + " | ".join(row) + " |")

print("\n## Small messages with overlap-run's defaults (not deferred)\n")
print("Ping-pong without computation, median round trip (ms): plain blocking, then the same "
      "under overlap-run with its defaults (--min-size 64 KiB)\n")
print("| MPI | size | plain | overlap-run defaults | ratio | deferred calls |")
print("| --- | --- | --- | --- | --- | --- |")
for mpi in ["openmpi", "mpich"]:
    plain, under = load(f"{mpi}-small"), load(f"{mpi}-defaults")
    for (impl, b, c), p in sorted(plain.items(), key=lambda kv: kv[0][1]):
        q = under.get(("overlap-run", b, c))
        if not q or not p.get("t_pingpong_s") or not q.get("t_pingpong_s"):
            continue
        print(f"| {mpi} | {size(b)} | {ms(p['t_pingpong_s'])} | {ms(q['t_pingpong_s'])} | "
              f"{q['t_pingpong_s'] / p['t_pingpong_s']:.3f} | {q.get('deferred_calls')} |")

print("\n## Jacobi (examples/jacobi)\n")
for f in sorted(glob.glob(os.path.join(here, "jacobi-*.txt"))):
    text = open(f).read()
    lines = [l for l in text.splitlines() if re.search(r"time per iteration|residual", l)]
    print(f"- `{os.path.basename(f)}`: " + "; ".join(l.strip() for l in lines))
