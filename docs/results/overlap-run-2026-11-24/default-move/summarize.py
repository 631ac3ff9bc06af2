#!/usr/bin/python3
"""Tables of run.sh's results: the p2p ping-pong and period per run, each divided by the
plain run of the same round; Jacobi's seconds per iteration per round. Writes to stdout."""
import csv
import json
import pathlib
import statistics

HERE = pathlib.Path(__file__).parent


def point(path):
    doc = json.loads(path.read_text())
    (p,) = doc["points"]
    return p if p.get("valid") else None


def placed(path):
    if not path.exists():
        return "-"
    r = json.loads(path.read_text())["ranks"][1]
    why = {k: v for k, v in (r.get("copied_because") or {}).items() if v}
    return f"{r['placed_by_move']} moved, {r['placed_by_copy']} copied" + (f" {why}" if why else "")


print("| MPI | round | run | t_pingpong (ms) | / plain | t_iter (ms) | speedup over plain "
      "| ratio_to_optimal | rank 1's receives |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
ratios = {}
for mpi in ("openmpi", "mpich"):
    for rnd in sorted({f.stem.split("-")[-1] for f in HERE.glob(f"{mpi}-plain-*.json")}):
        plain = point(HERE / f"{mpi}-plain-{rnd}.json")
        for run in ("plain", "default", "copy"):
            p = point(HERE / f"{mpi}-{run}-{rnd}.json")
            if p is None or plain is None:
                print(f"| {mpi} | {rnd} | {run} | invalid | | | | | |")
                continue
            pp = p["t_pingpong_s"] / plain["t_pingpong_s"]
            sp = plain["t_iter_s"] / p["t_iter_s"]
            ratios.setdefault((mpi, run), []).append((pp, sp, p["ratio_to_optimal"]))
            print(f"| {mpi} | {rnd} | {run} | {p['t_pingpong_s'] * 1e3:.3f} | {pp:.3f} | "
                  f"{p['t_iter_s'] * 1e3:.2f} | {sp:.2f} | {p['ratio_to_optimal']:.2f} | "
                  f"{placed(HERE / f'{mpi}-{run}-{rnd}-run.json')} |")
print()
print("| MPI | run | ping-pong / plain, median | speedup, median | ratio_to_optimal, median |")
print("| --- | --- | --- | --- | --- |")
for (mpi, run), rs in ratios.items():
    if run == "plain":
        continue
    med = [statistics.median(x) for x in zip(*rs)]
    print(f"| {mpi} | {run} | {med[0]:.3f} | {med[1]:.2f} | {med[2]:.2f} |")
tsv = HERE / "jacobi.tsv"
if tsv.exists():
    rows = list(csv.DictReader(tsv.open(), delimiter="\t"))
    print()
    print("| MPI | round | plain (ms/iter) | overlap-run (ms/iter) | speedup |")
    print("| --- | --- | --- | --- | --- |")
    speedups = {}
    for mpi in ("openmpi", "mpich"):
        for rnd in sorted({r["round"] for r in rows if r["mpi"] == mpi}, key=int):
            t = {r["config"]: r["s_per_iteration"] for r in rows
                 if r["mpi"] == mpi and r["round"] == rnd}
            try:
                plain, run = float(t["plain"]), float(t["default"])
            except (KeyError, ValueError):
                print(f"| {mpi} | {rnd} | {t.get('plain')} | {t.get('default')} | |")
                continue
            speedups.setdefault(mpi, []).append(plain / run)
            print(f"| {mpi} | {rnd} | {plain * 1e3:.2f} | {run * 1e3:.2f} | {plain / run:.2f} |")
    for mpi, s in speedups.items():
        print(f"\n{mpi}: median speedup {statistics.median(s):.2f} over {len(s)} rounds")
