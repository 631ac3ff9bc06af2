#!/usr/bin/python3
"""The README's tables from the files run.sh and link.sh wrote: summarize.py DIR."""
import json
import sys
from collections import Counter
from pathlib import Path


def pct(x):
    return "—" if x is None else f"{x:.1f}"


def ms(x):
    return "—" if x is None else (f"{x * 1e3:.3f}" if x < 0.01 else f"{x * 1e3:.2f}")


def nbc(d):
    print("| nodes | impl | op | r_overhead | OSU own | IMB own (rank) | OSU on nbc | IMB on nbc "
          "| pure per rank, ms | diagnosis |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for nodes in (4, 2):
        f = d / f"nbc-openmpi-n{nodes}.json"
        if not f.exists():
            continue
        for p in json.loads(f.read_text())["points"]:
            if not p["valid"]:
                print(f"| {nodes} | {p['impl']} | {p['op']} | invalid: {p['invalid_reason']} |")
                continue
            peers = p["peers"]
            pure = ", ".join(ms(r["pure_s"]) for r in peers["ranks"])
            print(f"| {nodes} | {p['impl']} | {p['op']} | {p['r_overhead']:.2f} | "
                  f"{pct(p['osu_overlap_pct'])} | {pct(p['imb_overlap_pct'])} "
                  f"({peers['imb_rank']}) | {pct(p['osu_on_nbc_times_pct'])} | "
                  f"{pct(p['imb_on_nbc_times_pct'])} | {pure} | {p['diagnosis']} |")


def demo(d):
    f = d / "demo" / "nbc.json"
    if not f.exists():
        return
    points = json.loads(f.read_text())["points"]
    print(f"\ndemo: {len(points)} points, {sum(not p['valid'] for p in points)} invalid, "
          f"{sum(bool(p['imprecise']) for p in points)} flagged imprecise_reference, "
          f"{sum(bool(p['calibration_note']) for p in points)} with a calibration note; "
          f"diagnoses {dict(Counter(p['diagnosis'] for p in points))}")


def link(d):
    if not (d / "link-peak-coll-openmpi.json").exists():
        return
    print("\n| MPI | op | size | wire | window, burst | window, peak | naive, burst | naive, peak |")
    print("|---|---|---|---|---|---|---|---|")
    for mpi in ("openmpi", "mpich"):
        runs = {s: json.loads((d / f"link-{s}-coll-{mpi}.json").read_text())
                for s in ("burst", "peak")}
        for b, p in zip(runs["burst"]["points"], runs["peak"]["points"]):
            wire = b["msg_bytes"] * 8 / 1e9  # each direction carries it, for both ops
            print(f"| {mpi} | {b['op']} | {b['msg_bytes']} B | {ms(wire)} | "
                  f"{ms(b['latency_s'])} | {ms(p['latency_s'])} | {ms(b['naive_mean_s'])} | "
                  f"{ms(p['naive_mean_s'])} |")


if __name__ == "__main__":
    d = Path(sys.argv[1])
    nbc(d)
    demo(d)
    link(d)
