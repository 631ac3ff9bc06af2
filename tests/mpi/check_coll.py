#!/usr/bin/python3
"""Runs `overlap-bench coll` under mpiexec and checks what it writes (docs/result-format.md).

A normal run: every field the embedded schema names, of its kind; per point windows tried =
kept + late + overrun + restarted (dropped when an overrun widened the window); the spread
ordered; one own median per rank; the ratios recomputed
from the stored times (naive / window, overlap / mpi); the CSV mirroring the flat fields.
A run with a window far too short for the collective: every window overruns and is counted,
no window is kept, and the point is invalid with the reason, its numbers null.
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import csv
import json
import os

from mpitest import (argument_parser, check_algorithm, check_cost_model, check_result_header,
                     close, fail, flat_fields, is_num, launcher, main_frame, mpi_env, run)

OPS = ["bcast", "allreduce", "barrier"]
SIZES = "1KiB,16KiB"
ITERATIONS = 10
MAX_BATCHES = 4  # coll tries at most 4 x iterations windows
SPREADS = ("latency", "slowest")



def check_point(p, nranks):
    where = f"point {p['impl']} {p['op']} {p['requested_bytes']}"
    check_algorithm(p, where, nranks)
    if p["windows"] != (p["iterations"] + p["late_windows"] + p["overrun_windows"]
                        + p["restarted_windows"]) or p["restarted_windows"] < 0:
        fail(f"{where}: {p['windows']} windows tried, {p['iterations']} kept + "
             f"{p['late_windows']} late + {p['overrun_windows']} overrun + "
             f"{p['restarted_windows']} restarted")
    if not ITERATIONS <= p["windows"] <= MAX_BATCHES * ITERATIONS:
        fail(f"{where}: {p['windows']} windows tried for {ITERATIONS} to keep")
    if not p["valid"]:
        if not p["invalid_reason"]:
            fail(f"{where}: invalid without a reason")
        nulls = [f"{n}{q}_s" for n in SPREADS for q in ("", "_p25", "_p75")]
        if any(p[k] is not None for k in nulls) or p["rank_median_s"]:
            fail(f"{where}: invalid, yet it has numbers")
        return False
    lost = p["late_windows"] + p["overrun_windows"]
    if not 1 <= p["iterations"] <= ITERATIONS or (p["iterations"] < ITERATIONS and lost == 0):
        fail(f"{where}: {p['iterations']} windows kept of {ITERATIONS}, {lost} discarded")
    for n in SPREADS:
        lo, mid, hi = p[f"{n}_p25_s"], p[f"{n}_s"], p[f"{n}_p75_s"]
        if not (0 < lo <= mid <= hi):
            fail(f"{where}: {n} not 0 < p25 {lo} <= median {mid} <= p75 {hi}")
    if len(p["rank_median_s"]) != nranks or not all(x > 0 for x in p["rank_median_s"]):
        fail(f"{where}: rank_median_s {p['rank_median_s']}, one positive time per rank")
    if not is_num(p["window_s"]) or p["window_s"] <= 0:
        fail(f"{where}: window_s {p['window_s']!r}")
    if not (p["naive_mean_s"] > 0 and p["naive_max_s"] >= p["naive_mean_s"] * (1 - 1e-12)):
        fail(f"{where}: naive mean {p['naive_mean_s']} / max {p['naive_max_s']}")
    if not close(p["naive_to_window"], p["naive_mean_s"] / p["latency_s"]):
        fail(f"{where}: naive_to_window {p['naive_to_window']}, recomputed "
             f"{p['naive_mean_s'] / p['latency_s']}")
    return True


def check_run(doc, args, expect_valid):
    check_result_header(doc, "coll", args)
    check_cost_model(doc, args.np)
    if doc["complete"] is not True:
        fail(f"complete {doc['complete']!r}")
    points = {(p["op"], p["requested_bytes"], p["impl"]): p for p in doc["points"]}
    if len(points) != len(doc["points"]):
        fail("a point appears twice")
    valid = sum(check_point(p, args.np) for p in points.values())
    for (op, size, impl), p in points.items():
        if impl != "overlap":
            continue
        mpi = points[(op, size, "mpi")]
        if p["valid"] and mpi["valid"]:
            want = p["latency_s"] / mpi["latency_s"]
            if not (close(p["ratio_overlap_to_mpi"], want)
                    and close(mpi["ratio_overlap_to_mpi"], want)):
                fail(f"{op} {size}: ratio_overlap_to_mpi {p['ratio_overlap_to_mpi']}, "
                     f"recomputed {want}")
        elif p["ratio_overlap_to_mpi"] is not None:
            fail(f"{op} {size}: a ratio without two valid points")
    print(f"{len(points)} points, {valid} valid")
    if expect_valid and valid == 0:
        fail("no valid point")
    return points


def check_csv(path, doc):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if [list(r) for r in rows[:1]] != [flat_fields(doc)] or len(rows) != len(doc["points"]):
        fail(f"CSV columns or rows differ from the JSON points' flat fields")
    for row, p in zip(rows, doc["points"]):
        if (row["impl"], row["op"]) != (p["impl"], p["op"]):
            fail(f"CSV row {row['impl']} {row['op']} is not point {p['impl']} {p['op']}")
        if p["latency_s"] is not None and not close(float(row["latency_s"]), p["latency_s"],
                                                    rel=1e-8):
            fail(f"CSV latency_s {row['latency_s']}, JSON {p['latency_s']}")


def normal_run(args, env, tmp):
    out, table = os.path.join(tmp, "coll.json"), os.path.join(tmp, "coll.csv")
    p = run(launcher(args, args.np) + [
        args.bench, "coll", "--op", ",".join(OPS), "--sizes", SIZES, "--iterations",
        str(ITERATIONS), "--sync-span", "0.2s", "--output", out, "--csv", table], env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    with open(out) as f:
        doc = json.load(f)
    points = check_run(doc, args, expect_valid=True)
    want = {(op, size, impl) for op in OPS for impl in ("mpi", "overlap")
            for size in ([0] if op == "barrier" else [1024, 16384])}
    if set(points) != want:
        fail(f"points {sorted(points)}, expected {sorted(want)}")
    check_csv(table, doc)


def windows_too_short(args, env, tmp):
    """A 16 KiB broadcast cannot finish in a 1 us window: all windows overrun, counted."""
    out = os.path.join(tmp, "short.json")
    p = run(launcher(args, args.np) + [
        args.bench, "coll", "--op", "bcast", "--sizes", "16KiB", "--impl", "mpi",
        "--iterations", "5", "--window", "1us", "--naive", "no", "--sync-span", "0.2s",
        "--output", out], env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    with open(out) as f:
        doc = json.load(f)
    (point,) = doc["points"]
    check_run(doc, args, expect_valid=False)
    if point["valid"] or point["windows"] != MAX_BATCHES * 5:
        fail(f"1 us windows: valid {point['valid']}, {point['windows']} windows tried; "
             f"expected invalid after {MAX_BATCHES * 5}")
    if point["overrun_windows"] == 0 or "discarded" not in point["invalid_reason"]:
        fail(f"1 us windows: {point['overrun_windows']} overruns, reason "
             f"{point['invalid_reason']!r}")
    if point["restarted_windows"] != 0:
        fail(f"a fixed --window cannot widen, yet {point['restarted_windows']} windows were "
             "dropped for a restart")
    if point["naive_mean_s"] is not None:
        fail("--naive no, yet naive_mean_s is set")
    print(f"1 us windows: {point['late_windows']} late, {point['overrun_windows']} overrun, "
          f"reason: {point['invalid_reason']}")


def main():
    args = argument_parser().parse_args()
    env = mpi_env()

    def body(tmp):
        normal_run(args, env, tmp)
        windows_too_short(args, env, tmp)

    main_frame("check_coll.", body)


if __name__ == "__main__":
    main()
