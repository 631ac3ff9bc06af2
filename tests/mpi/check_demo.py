#!/usr/bin/python3
"""The demo command on the 2-node emulated cluster shows no invalid point (issue 24).

Runs scripts/demo itself (its nbc sweep at its defaults: ibcast and iallreduce, 2 to 8 ms,
MPI's collectives and liboverlap's, then overlap-report) with the overlap-bench under test,
on a cluster of its own (prefix OVERLAP_CLUSTER_PREFIX + "demo-", so the 3-node fixture of
the other cluster tests is left alone), and fails when the sweep is incomplete or any point
is invalid. Points flagged imprecise_reference are valid (they say why); they are listed.

    check_demo.py --demo scripts/demo --bench build/.../overlap-bench

Root only (exit 77 otherwise). Never asserts a timing. Exit 0 pass, 1 fail.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--demo", required=True)
    ap.add_argument("--bench", required=True)
    args = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP: the emulated cluster needs root")
        sys.exit(77)
    env = dict(os.environ)
    env["OVERLAP_CLUSTER_PREFIX"] = env.get("OVERLAP_CLUSTER_PREFIX", "ovl-") + "demo-"
    with tempfile.TemporaryDirectory(prefix="check_demo.") as out:
        cmd = [args.demo, "--bench", args.bench, "--out", out]
        print("+", " ".join(cmd), flush=True)
        p = subprocess.run(cmd, env=env, timeout=900)
        path = os.path.join(out, "nbc.json")
        if not os.path.exists(path):
            print(f"FAIL: the demo wrote no nbc.json (exit {p.returncode})")
            sys.exit(1)
        with open(path) as f:
            doc = json.load(f)
        report = os.path.exists(os.path.join(out, "report", "summary.html"))
    cfg, points = doc["config"], doc["points"]
    grid = len(cfg["impls"]) * len(cfg["ops"]) * len(cfg["comm_times_s"]) * len(
        cfg["comp_times_s"])
    failures = []
    if p.returncode != 0:
        failures.append(f"the demo exited {p.returncode}")
    if doc["complete"] is not True or len(points) != grid:
        failures.append(f"complete {doc['complete']}, {len(points)} of {grid} points")
    if not report:
        failures.append("no report/summary.html")
    for q in points:
        where = (f"{q['impl']} {q['op']} {q['target_comm_s'] * 1e3:g} ms x "
                 f"{q['target_comp_s'] * 1e3:g} ms")
        if not q["valid"]:
            failures.append(f"{where}: invalid: {q['invalid_reason']}")
        elif q["imprecise"]:
            print(f"flagged {where}: {'; '.join(q['imprecise'])}")
        if q["calibration_note"]:
            print(f"note {where}: {q['calibration_note']}")
    print("diagnoses:", dict(Counter(q["diagnosis"] for q in points)))
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print(f"PASS: the demo's {len(points)} points are all valid "
          f"({sum(1 for q in points if q['imprecise'])} flagged imprecise_reference)")


if __name__ == "__main__":
    main()
