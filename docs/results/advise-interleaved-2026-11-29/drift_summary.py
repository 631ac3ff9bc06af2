#!/usr/bin/python3
"""The table of drift.sh's runs: per load (busy: a busy loop on node 0's core 0.7 s of every
2 s; quiet: none), build (old: set-ups measured one after another; new: their loops
interleaved) and repetition, each set-up's time per iteration, the advice, shared's speedup
over MPI's own and whether the advice was flagged; then per load and build the range of
that speedup over the repetitions."""
import json
import re
import sys
from pathlib import Path

here = Path(sys.argv[1])
SETUPS = ["mpi", "caller", "shared"]
rows, speedups = [], {}
for f in sorted(here.glob("drift-*-r*.json")):
    load, build, rep = re.match(r"drift-(\w+)-(\w+)-r(\d+)", f.stem).groups()
    by = {p["setup"]: p for p in json.loads(f.read_text())["points"]}

    def t(s):
        p = by.get(s)
        return p["t_iter_s"] if p and p["status"] == "measured" else None

    a = by["advice"]
    gain = t("mpi") / t("shared") if t("mpi") and t("shared") else None
    speedups.setdefault((load, build), []).append(gain)
    flag = "imprecise" if a["reason"].startswith("imprecise") else ""
    if "the machine's speed changed" in a["reason"]:
        flag = (flag + ", " if flag else "") + "speed changed"
    times = " | ".join(f"{t(s) * 1e3:.2f} ms" if t(s) else "–" for s in SETUPS)
    rows.append(f"| {load} | {build} | {rep} | {times} | {a['recommended']} | "
                f"{gain:.2f} | {flag} |" if gain else f"| {load} | {build} | {rep} | {times} | "
                f"{a.get('recommended')} | – | {flag} |")

print("### advise --size 256KiB --comp-time 4ms, Open MPI, 2 emulated nodes\n")
print("| load | build | rep | mpi | caller | shared | advice | shared / mpi | flagged |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
print("\n".join(rows))
print("\n| load | build | shared / mpi over the repetitions | spread (max / min) |")
print("| --- | --- | --- | --- |")
for (load, build), g in sorted(speedups.items()):
    g = [x for x in g if x]
    if g:
        print(f"| {load} | {build} | {min(g):.2f}-{max(g):.2f} | {max(g) / min(g):.2f} |")
