#!/usr/bin/python3
"""Runs `overlap-bench part --pattern sweep3d|halo3d` under mpiexec at a tiny size and
checks what it writes (docs/part-benchmark.md, "Patterns"): every (size, partitions,
implementation) point valid, except `mpi` where the MPI library has no partitioned API
(Open MPI 4.1 here: invalid with that reason, no numbers). The benchmark checks every
received face against what the neighbour wrote (a wrong neighbour, a partition not sent or
sent to the wrong place makes the point invalid with "data check failed"), so a valid
point here means the data arrived intact on every rank in every iteration. Also: the grid
is MPI_Dims_create's, p25 <= median <= p75, overhead recomputed from the stored medians,
early-bird % only for sweep3d; --resume with another --pattern is refused with one line.
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import json
import os

from mpitest import (argument_parser, part_points, check_result_header, close, fail, is_num, launcher,
                     main_frame, mpi_env, run)

SIZES_BYTES = [4096]
PARTITIONS = [1, 3]  # 3: 4096 bytes are cut to 4095, partitions of 1365
IMPLS = ["single", "multiple", "overlap", "mpi"]
ITERATIONS = 2
GRIDS = {("halo3d", 2): "2x1x1", ("halo3d", 4): "2x2x1", ("halo3d", 8): "2x2x2",
         ("sweep3d", 2): "2x1", ("sweep3d", 4): "2x2", ("sweep3d", 8): "4x2"}


def check_point(p, args):
    where = f"{args.pattern} point {p.get('impl')} x{p.get('partitions')}"
    if p["impl"] == "mpi" and args.flavor != "mpich":
        if p.get("valid") is not False or "no partitioned communication" not in p.get(
                "invalid_reason", ""):
            fail(f"{where}: expected invalid for lack of MPI partitioned, got {p!r}")
        if p.get("iteration_s") is not None or p.get("overhead") is not None:
            fail(f"{where}: an invalid point carries numbers")
        return
    if p.get("valid") is not True or p.get("invalid_reason") != "":
        fail(f"{where}: not valid ({p.get('invalid_reason')!r})")
    if p.get("grid") != GRIDS[(args.pattern, args.np)]:
        fail(f"{where}: grid {p.get('grid')!r}, expected {GRIDS[(args.pattern, args.np)]}")
    if not 1 <= p.get("iterations", 0) <= ITERATIONS:
        fail(f"{where}: iterations {p.get('iterations')!r}")
    lo, med, hi = p.get("iteration_p25_s"), p.get("iteration_s"), p.get("iteration_p75_s")
    if not all(is_num(v) for v in (lo, med, hi)) or not 0 < lo <= med <= hi:
        fail(f"{where}: iteration {lo!r} / {med!r} / {hi!r} not ordered positive numbers")
    for name in ("transfer_s", "after_join_s", "availability"):
        if p.get(name) is not None or name not in p.get("null_reasons", {}):
            fail(f"{where}: {name} {p.get(name)!r} should be null with a reason (p2p only)")
    early = p.get("early_bird_pct")
    if args.pattern == "sweep3d":
        if not (is_num(early) and 0 <= early <= 100):
            fail(f"{where}: early_bird_pct {early!r}")
        if p["impl"] == "single" and early != 0:
            fail(f"{where}: single sends after the join, early_bird_pct {early!r}")
    elif early is not None or "early_bird_pct" not in p.get("null_reasons", {}):
        fail(f"{where}: halo3d early_bird_pct {early!r} should be null with a reason")


def measure(args, env, out):
    p = run(launcher(args, args.np) + [
        args.bench, "part", "--pattern", args.pattern, "--sizes", "4KiB",
        "--partitions", ",".join(map(str, PARTITIONS)), "--impl", ",".join(IMPLS),
        "--compute", "1ms", "--noise", "single", "--iterations", str(ITERATIONS),
        "--warmup", "1", "--sync-span", "0.2s", "--output", out], env, timeout=500)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}: {p.stderr[-2000:]}")
    with open(out) as f:
        doc = json.load(f)
    check_result_header(doc, "part", args)
    if doc["config"].get("pattern") != args.pattern:
        fail(f"config.pattern {doc['config'].get('pattern')!r}")
    points = part_points(doc, SIZES_BYTES, PARTITIONS, IMPLS)
    for pt in points.values():
        check_point(pt, args)
    for s in SIZES_BYTES:
        for n in PARTITIONS:
            single = points[(s, n, "single")]
            for impl in IMPLS:
                pt = points[(s, n, impl)]
                want = pt["iteration_s"] / single["iteration_s"] if pt["valid"] else None
                if pt["valid"] and not (is_num(pt.get("overhead"))
                                        and close(pt["overhead"], want, 1e-9)):
                    fail(f"{impl} {s} x{n}: overhead {pt.get('overhead')!r}")
    print(f"{len(points)} points checked")


def resume_other_pattern(args, env, out):
    other = "halo3d" if args.pattern == "sweep3d" else "sweep3d"
    p = run([args.bench, "part", "--pattern", other, "--sizes", "4KiB", "--partitions", "1,3",
             "--resume", out], env, timeout=120)
    lines = p.stderr.splitlines()
    if p.returncode != 2 or len(lines) != 1 or other not in lines[0]:
        fail(f"--resume with --pattern {other}: exit {p.returncode}, stderr {p.stderr!r}; "
             "expected exit 2 and one line naming the value")


def main():
    ap = argument_parser()
    ap.add_argument("--pattern", required=True, choices=["sweep3d", "halo3d"])
    args = ap.parse_args()
    env = mpi_env()

    def body(tmp):
        out = os.path.join(tmp, "part.json")
        measure(args, env, out)
        if args.np == 2:
            resume_other_pattern(args, env, out)

    main_frame("check_part_pattern.", body)


if __name__ == "__main__":
    main()
