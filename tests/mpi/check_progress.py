#!/usr/bin/python3
"""Runs `overlap-bench progress` under mpiexec and checks what it writes
(docs/result-format.md): every field the embedded schema names, of its kind; per point
kept + discarded iterations = those asked for; one progression run per test interval with
test_calls = ceil(msg_bytes / interval) + 1; the derived numbers recomputed from the stored
ones (hidden_s, wait_fraction); every spread ordered; the CPU accounting of the three
accounted phases and its decomposition consistent (mpitest.check_cpu). At least one point must be valid: a
run without any is retried once, visibly (a loaded machine can spoil a calibration).
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import json
import math
import os

from mpitest import (CPU_PHASES, argument_parser, check_cpu, check_invalid_cpu,
                     check_result_header, close, fail, launcher, main_frame, mpi_env, run)

SIZES = [64 * 1024, 256 * 1024]
INTERVALS = [16 * 1024, 64 * 1024]
ITERATIONS = 3
SPREADS = ("t_blocking_s", "t_work_ref_s", "overhead_time_s", "overhead_work_s",
           "work_fraction")


def ordered(p, name, where):
    base, unit = (name[:-2], "_s") if name.endswith("_s") else (name, "")
    lo, mid, hi = p[f"{base}_p25{unit}"], p[name], p[f"{base}_p75{unit}"]
    if not lo <= mid <= hi:
        fail(f"{where}: {name} not p25 {lo} <= median {mid} <= p75 {hi}")


def check_point(p, rescue):
    where = f"point {p['impl']} {p['op']} {p['requested_bytes']}"
    if p["iterations"] + p["discarded"] != ITERATIONS and p["valid"]:
        fail(f"{where}: {p['iterations']} kept + {p['discarded']} discarded, asked {ITERATIONS}")
    if not p["valid"]:
        if not p["invalid_reason"] or p["tests"] or p["t_blocking_s"] is not None:
            fail(f"{where}: invalid needs a reason and no numbers")
        check_invalid_cpu(p, where)
        return False
    # --progress caller: no liboverlap thread makes passes, in any phase, except MPICH's
    # rescue thread (named like the progress thread), which steps in when nothing
    # progressed for OVERLAP_CALLER_RESCUE_MS (docs/liboverlap.md).
    check_cpu(p, where, no_progress_in=() if rescue else CPU_PHASES)
    for name in SPREADS:
        ordered(p, name, where)
    if not (p["t_blocking_s"] > 0 and p["t_work_ref_s"] > 0 and p["work_units"] >= 1):
        fail(f"{where}: t_blocking {p['t_blocking_s']}, t_work_ref {p['t_work_ref_s']}, "
             f"units {p['work_units']}")
    if not close(p["hidden_s"], p["overhead_work_s"] - p["overhead_time_s"]):
        fail(f"{where}: hidden_s {p['hidden_s']}, recomputed "
             f"{p['overhead_work_s'] - p['overhead_time_s']}")
    if not p["work_fraction"] > 0:
        fail(f"{where}: work_fraction {p['work_fraction']}")
    if [t["interval_bytes"] for t in p["tests"]] != INTERVALS:
        fail(f"{where}: tests for {[t['interval_bytes'] for t in p['tests']]}, asked {INTERVALS}")
    for t in p["tests"]:
        at = f"{where} interval {t['interval_bytes']}"
        want = math.ceil(p["msg_bytes"] / t["interval_bytes"]) + 1
        if t["test_calls"] != want:
            fail(f"{at}: test_calls {t['test_calls']}, ceil(size / interval) + 1 = {want}")
        for name in ("t_total_s", "t_wait_s", "t_test_s"):
            ordered(t, name, at)
        if not close(t["wait_fraction"], t["t_wait_s"] / p["t_blocking_s"]):
            fail(f"{at}: wait_fraction {t['wait_fraction']}, recomputed "
                 f"{t['t_wait_s'] / p['t_blocking_s']}")
    return True


def attempt(args, env, tmp):
    out = os.path.join(tmp, "progress.json")
    p = run(launcher(args, args.np) + [
        args.bench, "progress", "--op", "ibcast", "--sizes", "64KiB,256KiB", "--impl",
        "mpi,overlap", "--progress", "caller", "--test-intervals", "16KiB,64KiB",
        "--iterations", str(ITERATIONS), "--warmup", "1", "--calibration-runs", "3",
        "--tolerance", "30%", "--sync-span", "0.2s", "--output", out], env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    with open(out) as f:
        doc = json.load(f)
    check_result_header(doc, "progress", args)
    keys = {(q["impl"], q["requested_bytes"]) for q in doc["points"]}
    if keys != {(i, s) for i in ("mpi", "overlap") for s in SIZES}:
        fail(f"points {sorted(keys)}")
    if doc["config"]["progress"] != "caller":
        fail(f"config.progress {doc['config']['progress']!r}")
    rescue = doc["metadata"].get("mpi_flavor") == "mpich"
    valid = sum(check_point(q, rescue) for q in doc["points"])
    print(f"{len(doc['points'])} points, {valid} valid")
    return valid


def body(args, env, tmp):
    for n in (1, 2):
        if attempt(args, env, tmp):
            return
        if n == 1:
            print("RETRY: no point calibrated (a loaded machine?); running once more", flush=True)
    fail("no valid point in two runs")


def main():
    args = argument_parser().parse_args()
    env = mpi_env()
    main_frame("check_progress.", lambda tmp: body(args, env, tmp))


if __name__ == "__main__":
    main()
