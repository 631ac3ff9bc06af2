#!/usr/bin/python3
"""The table of run.sh's results: per MPI and repetition, advise's time per iteration for
each set-up it measured, its advice, and the loop example's measured time plain and under
overlap-run shared, with the prediction's error for the set-up each corresponds to."""
import json
import re
import sys
from pathlib import Path

here = Path(sys.argv[1])
print("| MPI | rep | advice | speedup | advise mpi | loop plain | error | advise shared | "
      "loop shared | error | advise caller |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for f in sorted(here.glob("advise-*-r*.json")):
    mpi, rep = re.match(r"advise-(\w+)-r(\d+)", f.stem).groups()
    pts = {p["setup"]: p for p in json.loads(f.read_text())["points"]}

    def loop(how):
        text = (here / f"loop-{mpi}-r{rep}-{how}.txt").read_text()
        m = re.search(r"time per iteration ([\d.]+) ms", text)
        return float(m.group(1)) if m and "result ok" in text else None

    def ms(setup):
        p = pts.get(setup)
        return p["t_iter_s"] * 1e3 if p and p["status"] == "measured" else None

    cells = []
    for setup, how in (("mpi", "plain"), ("shared", "shared")):
        a, m = ms(setup), loop(how)
        err = f"{(a - m) / m * 100:+.1f} %" if a and m else "–"
        cells += [f"{a:.2f} ms" if a else "–", f"{m:.2f} ms" if m else "–", err]
    adv = pts["advice"]
    c = ms("caller")
    print(f"| {mpi} | {rep} | {adv['recommended']} | {adv['speedup']:.2f} | " +
          " | ".join(cells) + f" | {c:.2f} ms |" if c else " – |")
