#!/usr/bin/python3
"""Runs `overlap-bench p2p` under mpiexec, plain and under overlap-run, and checks what it
writes (docs/result-format.md): every field the embedded schema names, of its kind; one
point per (implementation, size, computation); kept + discarded = iterations asked for;
the derived numbers recomputed from the stored ones (optimal_s, overlap_ratio,
ratio_to_optimal, speedup_vs_blocking); under overlap-run the blocking code's points are
recorded as `overlap-run`, intercepted, with a null speedup and its reason; under
`overlap-run --off` (loaded, intercepting nothing) they stay `blocking`.
What overlap-run really did (issue 11 review): metadata.overlap_run holds its settings
(null in the plain and --off runs); each overlap-run point counts 4 blocking calls per
round trip and how many were deferred: all of them at sizes from its --min-size (4KiB)
up, none at 1KiB, where overlap_ratio and ratio_to_optimal are null with a reason naming
the --min-size. Valid points carry the CPU accounting of ranks 0 and 1 with a
decomposition that adds up (mpitest.check_cpu). Discards per set stay within the iterations, and a null t_comm_s comes
with the reasons of everything it feeds. --resume refuses, in one line and exit 2, a
plain run continuing an intercepted file, the reverse, and another --min-size; the same
settings continue it.
Schema 3 (issue 11 item 5): the plain run also measures nonblocking-liboverlap (Isend/
Irecv progressed by liboverlap's engine, --progress shared, recorded in config.progress);
every point passed its data check (no invalid reason names it), and latency_s is half of
t_pingpong_s and bandwidth_Bps msg_bytes over it, on every valid point.
Schema 5: the plain and the overlap-run run also measure blocking-pmpi (the blocking calls
as PMPI_*, past the layer); blocking and overlap-run points carry pingpong_vs_pmpi.
At least one point must be valid per run: a run without any is retried once, visibly.
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import json
import os

from mpitest import (CPU_PHASES, argument_parser, check_cpu, check_invalid_cpu,
                     check_result_header, close, fail, launcher, main_frame, mpi_env, run)

SIZES = [1024, 64 * 1024, 256 * 1024]
MIN_SIZE = 4096  # overlap-run --min-size 4KiB: 1KiB is below it
COMP = 0.001
ITERATIONS = 3


def check_point(p, blocking, intercepted, preloaded):
    where = f"point {p['impl']} {p['msg_bytes']}"
    if p["intercepted"] != intercepted:
        fail(f"{where}: intercepted {p['intercepted']}, expected {intercepted}")
    if not p["valid"]:
        if not p["invalid_reason"] or p["t_iter_s"] is not None:
            fail(f"{where}: invalid needs a reason and no numbers")
        if "data check" in p["invalid_reason"]:
            fail(f"{where}: {p['invalid_reason']}")
        check_invalid_cpu(p, where)
        return False
    # Ranks 0 and 1; MPI's round trips (comm_alone) may all have been discarded. No
    # liboverlap thread runs unless overlap-run or a nonblocking-liboverlap point measured
    # earlier in the run (points are in measurement order) started one (`preloaded`).
    phases = CPU_PHASES if p["discarded_comm"] < ITERATIONS else CPU_PHASES[1:]
    check_cpu(p, where, phases=phases, no_progress_in=() if preloaded else CPU_PHASES)
    if len(p["cpu"]["ranks"]) != 2:
        fail(f"{where}: cpu for {len(p['cpu']['ranks'])} ranks, expected ranks 0 and 1")
    if p["iterations"] + p["discarded"] != ITERATIONS:
        fail(f"{where}: {p['iterations']} kept + {p['discarded']} discarded, asked {ITERATIONS}")
    if not (0 <= p["discarded_pingpong"] < ITERATIONS and 0 <= p["discarded_comm"] <= ITERATIONS):
        fail(f"{where}: discarded_pingpong {p['discarded_pingpong']}, discarded_comm "
             f"{p['discarded_comm']} of {ITERATIONS}")
    if (p["t_comm_s"] is None) != (p["discarded_comm"] == ITERATIONS):
        fail(f"{where}: t_comm_s {p['t_comm_s']} with {p['discarded_comm']} of {ITERATIONS} "
             "MPI round trips discarded")
    if p["t_comm_s"] is None:
        for f in ("t_comm_s", "optimal_s", "overlap_ratio", "ratio_to_optimal"):
            if p[f] is not None or f not in p.get("null_reasons", {}):
                fail(f"{where}: no t_comm, {f} must be null with its reason")
    deferred_nothing = check_deferral(p, where, intercepted)
    if not p["t_iter_p25_s"] <= p["t_iter_s"] <= p["t_iter_p75_s"]:
        fail(f"{where}: t_iter spread out of order")
    check_latency(p, where)
    if not (p["t_iter_s"] > 0 and p["t_pingpong_s"] > 0 and p["t_comp_s"] > 0
            and p["work_units"] >= 1):
        fail(f"{where}: t_iter {p['t_iter_s']}, t_pingpong {p['t_pingpong_s']}, "
             f"t_comp {p['t_comp_s']}, units {p['work_units']}")
    if p["t_comm_s"] is not None and not deferred_nothing:
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


def check_pmpi_ratio(points):
    """Schema 5: where blocking-pmpi was measured, blocking and overlap-run points carry
    pingpong_vs_pmpi (from an extra set alternating the two: a positive ratio, or null with
    a reason); no other point has it."""
    pmpi = {q["msg_bytes"] for q in points if q["impl"] == "blocking-pmpi"}
    for q in points:
        where, r = f"point {q['impl']} {q['msg_bytes']}", q.get("pingpong_vs_pmpi", "absent")
        reason = q.get("null_reasons", {}).get("pingpong_vs_pmpi", "")
        if q["impl"] not in ("blocking", "overlap-run") or not q["valid"]:
            if r is not None:
                fail(f"{where}: pingpong_vs_pmpi {r}, expected null")
        elif q["msg_bytes"] not in pmpi:
            if r is not None or "not measured beside it" not in reason:
                fail(f"{where}: no blocking-pmpi point, pingpong_vs_pmpi must be null with why")
        elif not (isinstance(r, float) and r > 0) and not (r is None and "discarded" in reason):
            fail(f"{where}: pingpong_vs_pmpi {r} ({reason!r}), expected a positive ratio")


def check_latency(p, where):
    """latency_s = t_pingpong_s / 2, bandwidth_Bps = msg_bytes / latency_s (schema 3)."""
    lat, bw = p.get("latency_s", "absent"), p.get("bandwidth_Bps", "absent")
    if not isinstance(lat, float) or not close(lat, p["t_pingpong_s"] / 2):
        fail(f"{where}: latency_s {lat}, expected t_pingpong_s / 2 = {p['t_pingpong_s'] / 2}")
    if not isinstance(bw, (int, float)) or not close(bw, p["msg_bytes"] / lat):
        fail(f"{where}: bandwidth_Bps {bw}, expected msg_bytes / latency_s")


def check_deferral(p, where, intercepted):
    """The calls counted on an overlap-run point; True when it deferred none of them."""
    if p["impl"] != "overlap-run":
        if p["blocking_calls"] is not None or p["deferred_calls"] is not None:
            fail(f"{where}: blocking_calls/deferred_calls are for overlap-run points only")
        return False
    calls = 4 * 2 * ITERATIONS  # ranks 0 and 1 send and receive once per round trip
    if p["blocking_calls"] != calls:
        fail(f"{where}: blocking_calls {p['blocking_calls']}, expected {calls}")
    want = 0 if p["msg_bytes"] < MIN_SIZE else calls
    if p["deferred_calls"] != want:
        fail(f"{where}: deferred_calls {p['deferred_calls']}, expected {want} "
             f"(--min-size {MIN_SIZE})")
    if want == 0:
        reasons = p.get("null_reasons", {})
        for f in ("overlap_ratio", "ratio_to_optimal"):
            if p[f] is not None or f"--min-size ({MIN_SIZE} B)" not in reasons.get(f, ""):
                fail(f"{where}: nothing deferred, {f} {p[f]} must be null with a reason "
                     f"naming --min-size ({MIN_SIZE} B): {reasons.get(f)!r}")
        if p["t_iter_s"] is None or p["t_pingpong_s"] is None:
            fail(f"{where}: the measured times stay when nothing was deferred")
    return want == 0


def check_overlap_run_metadata(doc, intercepted):
    md = doc["metadata"].get("overlap_run", "absent")
    if not intercepted:
        if md is not None:
            fail(f"metadata.overlap_run {md}, expected null (not intercepted)")
        return
    if not isinstance(md, dict) or md.get("min_size_bytes") != MIN_SIZE \
            or md.get("defer") != "send,rsend,recv,sendrecv,collectives" \
            or md.get("progress") not in ("caller", "shared", "dedicated"):
        fail(f"metadata.overlap_run {md}, expected --min-size {MIN_SIZE}, every family")


def attempt(args, env, tmp, intercepted, off=False):
    """off: under `overlap-run --off`, loaded but intercepting nothing: plain points."""
    out = os.path.join(tmp, "p2p-off.json" if off else "p2p-run.json" if intercepted else "p2p.json")
    impls = ["blocking"] if off else ["blocking", "blocking-pmpi"] if intercepted else \
        ["blocking", "nonblocking", "nonblocking-liboverlap", "blocking-pmpi"]
    bench = [args.bench, "p2p", "--sizes", "1KiB,64KiB,256KiB", "--comp-times", "1ms",
             "--impl", ",".join(impls), "--progress", "shared",
             "--iterations", str(ITERATIONS), "--warmup", "1",
             "--calibration-runs", "3", "--tolerance", "30%", "--sync-span", "0.2s",
             "--output", out]
    if intercepted:
        bench = [args.run, "--min-size", str(MIN_SIZE), "--", *bench]
    elif off:
        bench = [args.run, "--off", "--", *bench]
    p = run(launcher(args, args.np) + bench, env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    with open(out) as f:
        doc = json.load(f)
    check_result_header(doc, "p2p", args)
    check_overlap_run_metadata(doc, intercepted)
    if doc["config"].get("progress") != "shared":
        fail(f"config.progress {doc['config'].get('progress')}, expected shared")
    names = {"blocking": "overlap-run"} if intercepted else {}
    keys = {(q["impl"], q["msg_bytes"], q["target_comp_s"]) for q in doc["points"]}
    want = {(names.get(i, i), s, COMP) for i in impls for s in SIZES}
    if keys != want:
        fail(f"points {sorted(keys)}, expected {sorted(want)}")
    blocking = {q["msg_bytes"]: q["t_iter_s"] for q in doc["points"]
                if q["impl"] == "blocking" and q["valid"]}
    valid, engine = 0, intercepted or off
    for q in doc["points"]:
        engine = engine or q["impl"] == "nonblocking-liboverlap"
        valid += check_point(q, blocking, intercepted, engine)
    check_pmpi_ratio(doc["points"])
    print(f"{'overlap-run --off' if off else 'overlap-run' if intercepted else 'plain'}: "
          f"{len(doc['points'])} points, {valid} valid")
    return valid


def refused(args, env, cmd, path, parts):
    """`cmd` must stop with exit 2 and one overlap-bench line holding every part, leaving
    the file as it was."""
    with open(path) as f:
        before = f.read()
    p = run(cmd, env, timeout=180)
    ours = [l for l in p.stderr.splitlines() if l.startswith("overlap-bench:")]
    if p.returncode != 2 or len(ours) != 1 or not all(x in ours[0] for x in parts):
        fail(f"exit {p.returncode}, lines {ours}; expected exit 2 and one line with {parts}")
    with open(path) as f:
        if f.read() != before:
            fail(f"a refused --resume changed {path}")


def resume(args, env, tmp):
    plain, under = os.path.join(tmp, "p2p.json"), os.path.join(tmp, "p2p-run.json")
    bench = [args.bench, "p2p", "--bar", "never", "--resume"]
    mpi = launcher(args, args.np)
    refused(args, env, mpi + bench + [under], under,
            ["measured under overlap-run, this run is not"])
    refused(args, env, mpi + [args.run, "--min-size", str(MIN_SIZE), "--"] + bench + [plain],
            plain, ["measured without overlap-run, this run is under it"])
    refused(args, env, mpi + [args.run, "--min-size", "8KiB", "--"] + bench + [under], under,
            [f"--min-size {MIN_SIZE} B", "8192 B"])
    # The same settings continue it (complete already: nothing left to measure).
    p = run(mpi + [args.run, "--min-size", str(MIN_SIZE), "--"] + bench + [under], env)
    total = len(SIZES)
    if p.returncode != 0 or f"resuming: {total} of {total}" not in p.stdout:
        fail(f"resuming with the same overlap-run settings: exit {p.returncode}")
    print("--resume: plain/intercepted and another --min-size refused, the same continues")


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
    resume(args, env, tmp)


def main():
    ap = argument_parser()
    ap.add_argument("--run", required=True, help="overlap-run")
    args = ap.parse_args()
    env = mpi_env()
    main_frame("check_p2p.", lambda tmp: body(args, env, tmp))


if __name__ == "__main__":
    main()
