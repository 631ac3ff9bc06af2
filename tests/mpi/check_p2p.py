#!/usr/bin/python3
"""Runs `overlap-bench p2p` under mpiexec, plain and under overlap-run, and checks what it
writes (docs/result-format.md): every field the embedded schema names, of its kind; one
point per (implementation, size, computation); kept + discarded = iterations asked for;
the derived numbers recomputed from the stored ones (optimal_s, overlap_ratio,
ratio_to_optimal, speedup_vs_blocking); under overlap-run the blocking code's points are
recorded as `overlap-run`, intercepted, with a null speedup and its reason; under
`overlap-run --off` (loaded, intercepting nothing) they stay `blocking`. At least one
point must be valid per run: a run without any is retried once, visibly. Never asserts
timings. Exit codes: 0 pass, 1 fail.
"""
import json
import os

from mpitest import (argument_parser, check_result_header, close, fail, launcher, main_frame,
                     mpi_env, run)

SIZES = [64 * 1024, 256 * 1024]
COMP = 0.001
ITERATIONS = 3


def check_point(p, blocking, intercepted):
    where = f"point {p['impl']} {p['msg_bytes']}"
    if p["intercepted"] != intercepted:
        fail(f"{where}: intercepted {p['intercepted']}, expected {intercepted}")
    if not p["valid"]:
        if not p["invalid_reason"] or p["t_iter_s"] is not None:
            fail(f"{where}: invalid needs a reason and no numbers")
        return False
    if p["iterations"] + p["discarded"] != ITERATIONS:
        fail(f"{where}: {p['iterations']} kept + {p['discarded']} discarded, asked {ITERATIONS}")
    if not p["t_iter_p25_s"] <= p["t_iter_s"] <= p["t_iter_p75_s"]:
        fail(f"{where}: t_iter spread out of order")
    if not (p["t_iter_s"] > 0 and p["t_pingpong_s"] > 0 and p["t_comp_s"] > 0
            and p["work_units"] >= 1):
        fail(f"{where}: t_iter {p['t_iter_s']}, t_pingpong {p['t_pingpong_s']}, "
             f"t_comp {p['t_comp_s']}, units {p['work_units']}")
    if p["t_comm_s"] is not None:
        tc, tm, t = p["t_comp_s"], p["t_comm_s"], p["t_iter_s"]
        if not close(p["optimal_s"], max(tc, tm)):
            fail(f"{where}: optimal_s {p['optimal_s']}, max(t_comp, t_comm) {max(tc, tm)}")
        if not close(p["overlap_ratio"], (tc + tm - t) / min(tc, tm)):
            fail(f"{where}: overlap_ratio {p['overlap_ratio']}, recomputed "
                 f"{(tc + tm - t) / min(tc, tm)}")
        if not close(p["ratio_to_optimal"], t / max(tc, tm)):
            fail(f"{where}: ratio_to_optimal {p['ratio_to_optimal']}")
    key = p["msg_bytes"]
    if intercepted:
        if p["speedup_vs_blocking"] is not None or "speedup_vs_blocking" not in p.get(
                "null_reasons", {}):
            fail(f"{where}: under overlap-run the speedup must be null, with its reason")
    elif key in blocking and not close(p["speedup_vs_blocking"], blocking[key] / p["t_iter_s"]):
        fail(f"{where}: speedup_vs_blocking {p['speedup_vs_blocking']}, recomputed "
             f"{blocking[key] / p['t_iter_s']}")
    return True


def attempt(args, env, tmp, intercepted, off=False):
    """off: under `overlap-run --off`, loaded but intercepting nothing: plain points."""
    out = os.path.join(tmp, "p2p-off.json" if off else "p2p-run.json" if intercepted else "p2p.json")
    impls = ["blocking"] if intercepted or off else ["blocking", "nonblocking"]
    bench = [args.bench, "p2p", "--sizes", "64KiB,256KiB", "--comp-times", "1ms",
             "--impl", ",".join(impls), "--iterations", str(ITERATIONS), "--warmup", "1",
             "--calibration-runs", "3", "--tolerance", "30%", "--sync-span", "0.2s",
             "--output", out]
    if intercepted:
        bench = [args.run, "--min-size", "4KiB", "--", *bench]
    elif off:
        bench = [args.run, "--off", "--", *bench]
    p = run(launcher(args, args.np) + bench, env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    with open(out) as f:
        doc = json.load(f)
    check_result_header(doc, "p2p", args)
    names = {"blocking": "overlap-run"} if intercepted else {}
    keys = {(q["impl"], q["msg_bytes"], q["target_comp_s"]) for q in doc["points"]}
    want = {(names.get(i, i), s, COMP) for i in impls for s in SIZES}
    if keys != want:
        fail(f"points {sorted(keys)}, expected {sorted(want)}")
    blocking = {q["msg_bytes"]: q["t_iter_s"] for q in doc["points"]
                if q["impl"] == "blocking" and q["valid"]}
    valid = sum(check_point(q, blocking, intercepted) for q in doc["points"])
    print(f"{'overlap-run --off' if off else 'overlap-run' if intercepted else 'plain'}: "
          f"{len(doc['points'])} points, {valid} valid")
    return valid


def body(args, env, tmp):
    for intercepted, off in ((False, False), (True, False), (False, True)):
        for n in (1, 2):
            if attempt(args, env, tmp, intercepted, off):
                break
            if n == 1:
                print("RETRY: no point calibrated (a loaded machine?); running once more",
                      flush=True)
        else:
            fail("no valid point in two runs")


def main():
    ap = argument_parser()
    ap.add_argument("--run", required=True, help="overlap-run")
    args = ap.parse_args()
    env = mpi_env()
    main_frame("check_p2p.", lambda tmp: body(args, env, tmp))


if __name__ == "__main__":
    main()
