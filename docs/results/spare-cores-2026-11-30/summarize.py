#!/usr/bin/python3
"""The README's tables from device.sh's files: nbc on the diagonal comm = comp (liboverlap
against MPI's own, each point's flags), advise's set-ups and advice per run, p2p and the
loop example per iteration, and coll and latency as liboverlap over MPI's own per size.
Usage: summarize.py [DIR]"""
import glob
import json
import os
import re
import sys

d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))


def load(name):
    path = os.path.join(d, name)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def ms(s):
    return "-" if s is None else f"{s * 1e3:.2f}"


def size_name(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def mark(point):
    return "*" if point.get("imprecise") else ""


def nbc_diagonal(title, files):
    print(f"\n### {title}\n")
    print("| run | op | comm = comp | MPI's own r_ovh / r_slow | liboverlap r_ovh / r_comm / "
          "r_slow | flags |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in files:
        res = load(name + ".json")
        if res is None:
            continue
        rows = {}
        for p in res["points"]:
            if abs(p["target_comm_s"] - p["target_comp_s"]) > 1e-9:
                continue
            rows.setdefault((p["op"], round(p["target_comm_s"] * 1e3)), {})[p["impl"]] = p
        for (op, t), row in rows.items():
            m, o = row.get("mpi"), row.get("overlap")
            mc = f"{m['r_overhead']:.2f} / {m['r_comp_slowdown']:.2f}{mark(m)}" if m else "n/a"
            oc = (f"{o['r_overhead']:.2f} / {o['r_comm']:.2f} / {o['r_comp_slowdown']:.2f}"
                  f"{mark(o)}" if o else "not measured")
            flags = "; ".join(f"{who}: {'; '.join(q['imprecise'])}"
                              for who, q in (("MPI", m), ("liboverlap", o)) if q and q["imprecise"])
            print(f"| {name} | {op} | {t} ms | {mc} | {oc} | {flags or '-'} |")
        if not res.get("complete"):
            print(f"| {name} | | | | | run stopped at its time limit: "
                  f"{len(res['points'])} points measured |")


def uncertain(point):
    note = point.get("reason") or ""
    return "*" if "imprecise" in note or "uncertain" in note else ""


def advise_table(files):
    print("\n### advise at its defaults (iallreduce, MPI's own 4 ms, 4 ms of computation)\n")
    setups = ["mpi", "mpi-async", "caller", "shared", "dedicated", "shared+core",
              "dedicated+core"]
    print("| run | " + " | ".join(setups) + " | advice | speedup |")
    print("| --- | " + " | ".join("---" for _ in setups) + " | --- | --- |")
    for name in files:
        res = load(name + ".json")
        if res is None:
            continue
        by = {p["setup"]: p for p in res["points"]}
        cells = [ms(by[s]["t_iter_s"]) + uncertain(by[s])
                 if s in by and by[s]["status"] == "measured" else "-" for s in setups]
        adv = by.get("advice", {})
        sp = adv.get("speedup")
        advice = f"{adv.get('recommended')} | {sp:.2f}x{uncertain(adv)}" if sp else "n/a |"
        print(f"| {name} | " + " | ".join(cells) + f" | {advice} |")


def speedup_rows(rows):
    """rows: (name, per-iteration seconds or None, extra cells); each over the first's."""
    base = None
    for name, t, extra in rows:
        if t is None:
            print(f"| {name} | no result |{' |' * (len(extra) + 1)}")
            continue
        base = base or t
        print(f"| {name} | " + "".join(f"{c} | " for c in extra) +
              f"{ms(t)} ms | {base / t:.2f}x |")


def p2p_rows(files):
    for name in files:
        res = load(name + ".json")
        if res is not None:
            p = res["points"][0]
            spread = f"p25-p75 {ms(p['t_iter_p25_s'])}-{ms(p['t_iter_p75_s'])} ms"
            yield name, p["t_iter_s"], [res["metadata"].get("threads"), spread]


def loop_rows(files):
    for name in files:
        path = os.path.join(d, name + ".txt")
        if os.path.exists(path):
            with open(path) as f:
                m = re.search(r"time per iteration ([0-9.]+) ms", f.read())
            yield name, float(m.group(1)) / 1e3 if m else None, []


def ratio_table(bench, mpi):
    table = {}
    for pol in ("caller", "shared"):
        res = load(f"{bench}-{mpi}-{pol}-8x2.json")
        if res is None:
            continue
        for p in res["points"]:
            r = p.get("ratio_overlap_to_mpi")
            if p["impl"] == "overlap" and r is not None and p.get("valid", True):
                table.setdefault((p["op"], p["msg_bytes"]), {})[pol] = r
    if not table:
        return
    print(f"\n### {bench}, {mpi}, P = 8: liboverlap / MPI's own\n")
    print("| op | size | caller | shared |")
    print("| --- | --- | --- | --- |")
    for op, b in sorted(table):
        row = table[(op, b)]
        cells = [f"{row[c]:.2f}" if c in row else "n/a" for c in ("caller", "shared")]
        print(f"| {op} | {size_name(b)} | " + " | ".join(cells) + " |")


nbc_diagonal("nbc, liboverlap `dedicated` (a core left free) against MPI's own",
             ["nbc-openmpi-dedicated-2x4", "nbc-mpich-dedicated-2x4",
              "nbc-openmpi-dedicated-8x2", "nbc-mpich-dedicated-8x2"])
nbc_diagonal("nbc, liboverlap `shared` with 4 computation threads (no core left), Open MPI",
             ["nbc-openmpi-shared-2x4"])
nbc_diagonal("nbc, liboverlap `shared` with a core left free (issue 28), Open MPI",
             ["nbc-openmpi-shared-core-2x4"])
advise_table(["advise-openmpi-2x4", "advise-openmpi-2x4-r2", "advise-openmpi-2x4-r3",
              "advise-mpich-2x4", "advise-mpich-2x4-r2", "advise-mpich-2x4-r3",
              "advise-mpich-async-2x4"])
print("\n### p2p, 2 MiB x 16 ms, blocking code (Open MPI)\n")
print("| run | threads | spread | per iteration | over plain |")
print("| --- | --- | --- | --- | --- |")
speedup_rows(p2p_rows(["p2p-openmpi-plain", "p2p-openmpi-dedicated-t3", "p2p-openmpi-shared-t4",
                       "p2p-openmpi-dedicated-t4"]))
print("\n### examples/iallreduce-loop, 1 MiB, 4 ms, 200 iterations (Open MPI)\n")
print("| run | per iteration | over plain |")
print("| --- | --- | --- |")
speedup_rows(loop_rows(["loop-openmpi-plain", "loop-openmpi-dedicated", "loop-openmpi-shared"]))
for bench in ("coll", "latency"):
    for mpi in ("openmpi", "mpich"):
        ratio_table(bench, mpi)
