#!/usr/bin/python3
"""The tables of run.sh's results: the grid (per MPI and repetition, each cell's advice and
speedup over MPI's own, whether advise flagged it imprecise, and the one set-up for all cells, recomputed here with the rule of
advice_rule.hpp and compared with the run's overall point), and --from (what advise read from the program's report, its advice and
predicted time per iteration, and the program's measured time under that set-up)."""
import json
import re
import sys
from pathlib import Path

ORDER = ["mpi", "mpi-async", "caller", "shared", "dedicated", "shared+core", "dedicated+core"]
here = Path(sys.argv[1])


def cells(points):
    out = {}
    for p in points:
        if p["setup"] != "overall":
            out.setdefault((p["cell_bytes"], p["cell_comm_s"], p["cell_comp_s"]), []).append(p)
    return out


def overall(grid, margin):
    worst, count, n = {}, {}, 0
    for points in grid.values():
        measured = [p for p in points if p["setup"] != "advice" and p["status"] == "measured"]
        if not measured:
            continue
        n += 1
        best = min(p["t_iter_s"] for p in measured)
        for p in measured:
            loss = p["t_iter_s"] / best - 1
            worst[p["setup"]] = max(worst.get(p["setup"], loss), loss)
            count[p["setup"]] = count.get(p["setup"], 0) + 1
    every = [s for s in worst if count[s] == n]
    least = min(worst[s] for s in every)
    s = next(s for s in ORDER if s in every and worst[s] <= least + margin)
    return s, worst[s]


def kib(b):
    return f"{b // 1024} KiB" if b < 1 << 20 else f"{b // (1 << 20)} MiB"


print("### Grid: iallreduce, 4 ms of computation\n")
print("| MPI | rep | cell | mpi | caller | shared | advice | speedup | flagged |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
summary = []
for f in sorted(here.glob("grid-*-r*.json")):
    mpi, rep = re.match(r"grid-(\w+)-r(\d+)", f.stem).groups()
    doc = json.loads(f.read_text())
    grid = cells(doc["points"])
    for (size, _, _), points in grid.items():
        by = {p["setup"]: p for p in points}

        def ms(s):
            p = by.get(s)
            return f"{p['t_iter_s'] * 1e3:.2f} ms" if p and p["status"] == "measured" else "–"

        a = by["advice"]
        flag = "imprecise" if a["reason"].startswith("imprecise") else ""
        if "the machine's speed changed" in a["reason"]:  # said since the loops interleave
            flag = (flag + ", " if flag else "") + "speed changed"
        print(f"| {mpi} | {rep} | {kib(size)} | {ms('mpi')} | {ms('caller')} | {ms('shared')} | "
              f"{a['recommended']} | {a['speedup']:.2f} | {flag} |")
    s, w = overall(grid, doc["config"]["margin"])
    rec = doc["points"][-1]
    same = "yes" if rec["setup"] == "overall" and rec["recommended"] == s else "NO"
    summary.append(f"| {mpi} | {rep} | {s} | {w * 100:.0f} % | {rec['cells_within']} of "
                   f"{rec['cells']} | {same} |")
print("\n| MPI | rep | one set-up for every cell | its worst loss | cells within the margin | "
      "recorded point agrees |")
print("| --- | --- | --- | --- | --- | --- |")
print("\n".join(summary))

print("\n### --from: examples/iallreduce-loop 1 MiB, 4 ms, 200 iterations\n")
print("| MPI | rep | read from the report | advice | predicted | program under it | error | "
      "advise's shared | program under shared | error |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")


def program(name):
    text = (here / name).read_text()
    m = re.search(r"time per iteration ([\d.]+) ms", text)
    return float(m.group(1)) if m and "result ok" in text else None


def cells_of(pred, got):
    err = f"{(pred - got) / got * 100:+.1f} %" if got and pred else "–"
    return [f"{pred:.2f} ms" if pred else "–", f"{got:.2f} ms" if got else "–", err]


for f in sorted(here.glob("from-*-r*.json")):
    mpi, rep = re.match(r"from-(\w+)-r(\d+)", f.stem).groups()
    doc = json.loads(f.read_text())
    cfg = doc["config"]
    by = {p["setup"]: p for p in doc["points"]}
    a = by["advice"]
    shared = by["shared"]["t_iter_s"] * 1e3 if by["shared"]["status"] == "measured" else None
    read = f"{cfg['op']} {kib(cfg['sizes_bytes'][0])}, {cfg['target_comps_s'][0] * 1e3:.2f} ms"
    row = [mpi, rep, read, a["recommended"] + (" (imprecise)" if a["reason"].startswith(
        "imprecise") else "")]
    row += cells_of(a["predicted_s"] * 1e3, program(f"advised-{mpi}-r{rep}.txt"))
    row += cells_of(shared, program(f"shared-{mpi}-r{rep}.txt"))
    print("| " + " | ".join(str(c) for c in row) + " |")
