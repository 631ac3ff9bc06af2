#!/usr/bin/python3
"""The table of run.sh's results: per MPI and repetition, advise --op ihalo's time per
iteration for each set-up it measured and its advice, beside the halo loop's measured time
plain (mpi) and under overlap-run with the same policy, and the prediction's error."""
import json
import re
import sys
from pathlib import Path

here = Path(sys.argv[1])
SETUPS = (("mpi", "plain"), ("caller", "caller"), ("shared", "shared"),
          ("dedicated", "dedicated"))
print("| MPI | rep | advice | speedup | " +
      " | ".join(f"{s}: advise / loop (error)" for s, _ in SETUPS) + " |")
print("| --- | --- | --- | --- | " + " | ".join("---" for _ in SETUPS) + " |")
for f in sorted(here.glob("advise-*-r*.json")):
    mpi, rep = re.match(r"advise-(\w+)-r(\d+)", f.stem).groups()
    pts = {p["setup"]: p for p in json.loads(f.read_text())["points"]}

    def loop(how):
        path = here / f"loop-{mpi}-r{rep}-{how}.txt"
        text = path.read_text() if path.exists() else ""
        m = re.search(r"time per iteration ([\d.]+) ms", text)
        return float(m.group(1)) if m and "result ok" in text else None

    cells = []
    for setup, how in SETUPS:
        p = pts.get(setup)
        a = p["t_iter_s"] * 1e3 if p and p["status"] == "measured" else None
        m = loop(how)
        if a and m:
            cells.append(f"{a:.2f} / {m:.2f} ms ({(a - m) / m * 100:+.1f} %)")
        else:
            cells.append(f"{a:.2f} ms / –" if a else f"– / {m:.2f} ms" if m else "–")
    adv = pts["advice"]
    speed = f"{adv['speedup']:.2f}" if adv.get("speedup") else "–"
    print(f"| {mpi} | {rep} | {adv.get('recommended') or '–'} | {speed} | " +
          " | ".join(cells) + " |")
