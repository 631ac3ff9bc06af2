#!/usr/bin/python3
"""Runs `overlap-bench part` under mpiexec and checks what it writes
(docs/result-format.md): one point per (size, partitions, implementation); `mpi` valid
exactly where the MPI library has partitioned communication (MPICH 4 here) and otherwise
invalid with that reason; for valid points p25 <= median <= p75, one ready and one arrival
time per partition, msg_bytes the request rounded down to whole partitions, early-bird
share in [0, 100], and the derived values recomputed from the stored ones (overhead and
availability against `single` at the same point, perceived bandwidth); the CSV mirrors the
points. Then bad input: exit code 2 and one overlap-bench line naming the value, before MPI
starts. Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import csv
import json
import os

from mpitest import (argument_parser, part_points, check_result_header, close, fail, is_num, launcher,
                     main_frame, mpi_env, run)

SIZES = "4KiB:8KiB"
SIZES_BYTES = [4096, 8192]
PARTITIONS = [1, 3]
IMPLS = ["single", "multiple", "overlap", "mpi"]
ITERATIONS = 3


def near(a, b):
    return is_num(a) and close(a, b, 1e-9)


def check_point(p, flavor):
    where = f"point {p.get('impl')} {p.get('requested_bytes')} x{p.get('partitions')}"
    parts = p["partitions"]
    if p.get("msg_bytes") != p["requested_bytes"] // parts * parts:
        fail(f"{where}: msg_bytes {p.get('msg_bytes')!r} is not the request in whole partitions")
    if p["impl"] == "mpi" and flavor != "mpich":
        if p.get("valid") is not False or "no partitioned communication" not in p.get(
                "invalid_reason", ""):
            fail(f"{where}: expected invalid for lack of MPI partitioned, got {p!r}")
        if p.get("after_join_s") is not None or p.get("early_bird_pct") is not None:
            fail(f"{where}: an invalid point carries numbers")
        return
    if p.get("valid") is not True or p.get("invalid_reason") != "":
        fail(f"{where}: not valid ({p.get('invalid_reason')!r})")
    if not 1 <= p.get("iterations", 0) <= ITERATIONS:
        fail(f"{where}: iterations {p.get('iterations')!r}")
    for name in ("transfer", "after_join"):
        lo, med, hi = p.get(f"{name}_p25_s"), p.get(f"{name}_s"), p.get(f"{name}_p75_s")
        if not all(is_num(v) for v in (lo, med, hi)) or not lo <= med <= hi:
            fail(f"{where}: {name} {lo!r} / {med!r} / {hi!r} not ordered numbers")
    if not (is_num(p.get("early_bird_pct")) and 0 <= p["early_bird_pct"] <= 100):
        fail(f"{where}: early_bird_pct {p.get('early_bird_pct')!r}")
    for name in ("ready_s", "arrive_s"):
        if len(p.get(name, [])) != parts or not all(is_num(v) for v in p[name]):
            fail(f"{where}: {name} {p.get(name)!r} is not one time per partition")
    if p["after_join_s"] > 0:
        if not near(p.get("perceived_bandwidth_Bps"), p["msg_bytes"] / p["after_join_s"]):
            fail(f"{where}: perceived bandwidth {p.get('perceived_bandwidth_Bps')!r}")


def check_points(doc, flavor):
    points = part_points(doc, SIZES_BYTES, PARTITIONS, IMPLS)
    for p in points.values():
        check_point(p, flavor)
    for s in SIZES_BYTES:
        for n in PARTITIONS:
            single = points[(s, n, "single")]
            for impl in IMPLS:
                p = points[(s, n, impl)]
                if not p["valid"]:
                    continue
                if not near(p.get("overhead"), p["transfer_s"] / single["transfer_s"]):
                    fail(f"{impl} {s} x{n}: overhead {p.get('overhead')!r}")
                want = 1 - p["after_join_s"] / single["after_join_s"]
                if not near(p.get("availability"), want):
                    fail(f"{impl} {s} x{n}: availability {p.get('availability')!r}, want {want}")
    return points


def check_csv(path, doc):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    if len(rows) != len(doc["points"]):
        fail(f"CSV has {len(rows)} rows, JSON {len(doc['points'])} points")
    for row, p in zip(rows, doc["points"]):
        if (row["impl"], int(row["partitions"])) != (p["impl"], p["partitions"]):
            fail(f"CSV row {row} is not JSON point {p}")


def measure(args, env, tmp):
    out, table = os.path.join(tmp, "part.json"), os.path.join(tmp, "part.csv")
    p = run(launcher(args, args.np) + [
        args.bench, "part", "--sizes", SIZES, "--partitions", ",".join(map(str, PARTITIONS)),
        "--impl", ",".join(IMPLS), "--compute", "2ms", "--noise", "single", "--cache", "cold",
        "--iterations", str(ITERATIONS), "--warmup", "1", "--sync-span", "0.2s",
        "--output", out, "--csv", table], env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}: {p.stderr[-2000:]}")
    mpi_lines = [l for l in p.stderr.splitlines() if "impl mpi:" in l]
    if args.flavor != "mpich" and len(mpi_lines) != 1:
        fail(f"expected one line saying MPI has no partitioned API, stderr {p.stderr!r}")
    with open(out) as f:
        doc = json.load(f)
    check_result_header(doc, "part", args)
    if doc["config"].get("flush_bytes", 0) <= 0 or not doc["config"].get("flush_source"):
        fail(f"cold cache: flush_bytes/flush_source {doc['config']!r}")
    check_points(doc, args.flavor)
    check_csv(table, doc)
    print(f"{len(doc['points'])} points checked")


def usage_errors(args, env):
    for option, value in (("--partitions", "0"), ("--noise", "loud"),
                          ("--aggregation", "sometimes"), ("--aggregation", "adaptive:0"),
                          ("--impl", "carrier-pigeon")):
        p = run([args.bench, "part", option, value], env, timeout=120)
        lines = p.stderr.splitlines()
        if p.returncode != 2 or len(lines) != 1 or value not in lines[0]:
            fail(f"{option} {value}: exit {p.returncode}, stderr {p.stderr!r}; expected exit 2 "
                 "and one line naming the value")


def main():
    args = argument_parser().parse_args()
    env = mpi_env()

    def body(tmp):
        measure(args, env, tmp)
        usage_errors(args, env)

    main_frame("check_part.", body)


if __name__ == "__main__":
    main()
