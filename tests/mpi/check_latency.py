#!/usr/bin/python3
"""Runs `overlap-bench latency` under mpiexec and checks what it writes
(docs/result-format.md): one valid point per (op, size, impl) with positive times ordered
p25 <= median <= p75, kept + discarded iterations = those asked for, message sizes in whole
elements, ratio_overlap_to_mpi equal to median(overlap) / median(mpi) on both points of an
(op, size), the CSV mirroring the JSON points' flat fields, and one console row per point.
Then a bad --sizes: exit code 2 and exactly one overlap-bench line, before MPI starts.
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import csv
import json
import os

from mpitest import (argument_parser, check_algorithm, check_cost_model, check_result_header,
                     close, fail, flat_fields, is_num, keyed_points, launcher, main_frame,
                     mpi_env, run)

OPS = ["ibcast", "iallreduce"]
SIZES = "64KiB:256KiB"
SIZES_BYTES = [64 * 1024, 128 * 1024, 256 * 1024]
IMPLS = ["mpi", "overlap"]
ITERATIONS = 5
ELEMENT_BYTES = {"ibcast": 1, "iallreduce": 8}  # MPI_BYTE; MPI_DOUBLE for reductions


def check_header(doc, args):
    check_result_header(doc, "latency", args)
    check_cost_model(doc, args.np)
    if doc.get("complete") is not True:
        fail(f"complete {doc.get('complete')!r}")
    cfg = doc["config"]
    want = {"ops": OPS, "sizes_bytes": SIZES_BYTES, "impls": IMPLS, "iterations": ITERATIONS}
    for key, value in want.items():
        if cfg.get(key) != value:
            fail(f"config.{key} {cfg.get(key)!r}, asked for {value!r}")



def check_point(p, nranks):
    where = f"point {p.get('impl')} {p.get('op')} {p.get('requested_bytes')}"
    check_algorithm(p, where, nranks)
    if p.get("valid") is not True:
        fail(f"{where}: not valid ({p.get('invalid_reason')!r})")
    if p.get("invalid_reason") != "":
        fail(f"{where}: valid, yet invalid_reason {p.get('invalid_reason')!r}")
    element = ELEMENT_BYTES[p["op"]]
    if p.get("element_bytes") != element:
        fail(f"{where}: element_bytes {p.get('element_bytes')!r}, expected {element}")
    msg = p.get("msg_bytes")
    if not (isinstance(msg, int) and msg > 0 and msg % element == 0
            and msg <= p["requested_bytes"] < msg + element):
        fail(f"{where}: msg_bytes {msg!r} is not the request rounded down to whole elements")
    if p.get("iterations", 0) + p.get("discarded", 0) != ITERATIONS or p["iterations"] < 1:
        fail(f"{where}: {p.get('iterations')!r} kept + {p.get('discarded')!r} discarded "
             f"iterations, asked for {ITERATIONS}")
    p25, median, p75 = p.get("latency_p25_s"), p.get("latency_s"), p.get("latency_p75_s")
    if not all(is_num(v) and v > 0 for v in (p25, median, p75)):
        fail(f"{where}: times {p25!r} / {median!r} / {p75!r} are not positive numbers")
    if not p25 <= median <= p75:
        fail(f"{where}: not p25 {p25} <= median {median} <= p75 {p75}")


def check_points(doc, nranks):
    points = keyed_points(doc, ("op", "requested_bytes", "impl"),
                          {(op, size, impl) for op in OPS for size in SIZES_BYTES
                           for impl in IMPLS})
    for p in points.values():
        check_point(p, nranks)
    for op in OPS:
        for size in SIZES_BYTES:
            mpi, ovx = points[(op, size, "mpi")], points[(op, size, "overlap")]
            want_ratio = ovx["latency_s"] / mpi["latency_s"]
            for p in (mpi, ovx):
                got = p.get("ratio_overlap_to_mpi")
                if not (is_num(got) and close(got, want_ratio)):
                    fail(f"ratio {op} {size}: {got!r}, median(overlap) / median(mpi) = "
                         f"{want_ratio!r}")
    return points


def check_csv(path, doc):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(doc["points"]):
        fail(f"CSV has {len(rows)} rows, JSON {len(doc['points'])} points")
    columns = flat_fields(doc)
    for row, p in zip(rows, doc["points"]):
        if list(row) != columns:
            fail(f"CSV columns {list(row)}, the schema's flat fields {columns}")
        if (row["impl"], row["op"], int(row["msg_bytes"])) != (p["impl"], p["op"], p["msg_bytes"]):
            fail(f"CSV row {row} is not JSON point {p}")
        if not close(float(row["latency_s"]), p["latency_s"], rel=1e-8):
            fail(f"CSV latency_s {row['latency_s']}, JSON {p['latency_s']}")


def check_console(stdout):
    rows = [l for l in stdout.splitlines()
            if len(l.split()) > 1 and l.split()[0] in IMPLS and l.split()[1] in OPS]
    if len(rows) != len(OPS) * len(SIZES_BYTES) * len(IMPLS):
        fail(f"{len(rows)} console rows, expected one per (op, size, impl)")
    if any("invalid" in l for l in rows):
        fail("a console row is invalid")


def measure(args, env, tmp):
    out, table = os.path.join(tmp, "latency.json"), os.path.join(tmp, "latency.csv")
    p = run(launcher(args, args.np) + [
        args.bench, "latency", "--op", ",".join(OPS), "--sizes", SIZES, "--iterations",
        str(ITERATIONS), "--impl", ",".join(IMPLS), "--sync-span", "0.2s", "--output", out,
        "--csv", table], env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    if any(l.startswith("overlap-bench:") for l in p.stderr.splitlines()):
        fail("a successful run printed an overlap-bench: error line")
    with open(out) as f:
        doc = json.load(f)
    check_header(doc, args)
    check_points(doc, args.np)
    check_csv(table, doc)
    check_console(p.stdout)
    print(f"{len(doc['points'])} points checked")


def usage_error(args, env):
    argv = [args.bench, "latency", "--sizes", "0KiB"]
    # Alone, stderr is that one line; under the launcher, which adds its own words, ours is
    # still printed once.
    for cmd in (argv, launcher(args, args.np) + argv):
        p = run(cmd, env, timeout=120)
        lines = p.stderr.splitlines()
        ours = [l for l in lines if l.startswith("overlap-bench:")]
        if p.returncode != 2:
            fail(f"--sizes 0KiB: exit code {p.returncode}, expected 2")
        if len(ours) != 1 or "'0KiB'" not in ours[0] or (cmd is argv and len(lines) != 1):
            fail(f"--sizes 0KiB: stderr {p.stderr!r}, expected one line naming '0KiB'")


def main():
    args = argument_parser().parse_args()
    env = mpi_env()

    def body(tmp):
        measure(args, env, tmp)
        usage_error(args, env)

    main_frame("check_latency.", body)


if __name__ == "__main__":
    main()
