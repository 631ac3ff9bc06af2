#!/usr/bin/python3
"""Runs `overlap-bench advise` and checks what it writes (docs/which-configuration.md): one point per
set-up asked for, in order, then the advice; each set-up measured, or skipped / invalid with
its reason (per cell of the grid, --size 1KiB,64KiB: each cell's set-ups at its size, its own
advice, and the one for every cell, the last point, recomputed); a measured one carries its `nbc` measurement, whose ratios its headline fields
repeat (t_iter is advise's own steady loop), the threads and cores its name says and the same work (work_ratio about 1); the
advice recomputed from the file with the rule of advice_rule.hpp (the simplest set-up within
the margin of the fastest; the baseline MPI's own as launched), and printed at the end.
Runs: one rank given 2 cores (taskset), 2 threads: every set-up but MPI's asynchronous
progress measured (that one skipped, saying how to measure it); 2 ranks on 2 cores (one
core each): the +core set-ups skipped (none to leave free); with MPI's asynchronous progress
on (MPICH_ASYNC_PROGRESS=1 / OMPI_MCA_btl_tcp_progress_thread=1): mpi skipped naming the
variable, mpi-async measured and the advice's baseline. The set-ups' loops interleaved: in
rounds, every set-up's block i before any set-up's block i + 1 (block starts in the file),
and t_iter the median of the blocks recorded. --resume of a file that lacks its
last set-up and the advice measures that set-up and recomputes the advice from all.
With --cluster: 2 ranks on 2 nodes of the emulated cluster (one core each), the same checks
of the file, the ranks on two hosts (MPICH 4.0.2 may hang in MPI_Finalize there after
writing complete results: accepted, and said, as check_sync.py does).
--op ihalo (2 ranks): the program's own point-to-point exchange measured by the same
set-ups, each nbc point the exchange at the size asked for, caller got through overlap-run.
With --loop and --run: examples/iallreduce-loop (the loop advise models, as a program
writes it) on 2 ranks, plain and under overlap-run --progress shared: the right sum, a time
per iteration, and under overlap-run every MPI_Iallreduce routed to liboverlap (its report,
with each call's bytes and a wait window per request); advise --from that report takes the
loop's collective, message and computation; advise itself under overlap-run is refused in
one line (exit 2). The same example's halo loop (`halo`): every byte right, plain and
under overlap-run.
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import json
import os
import sys

from mpitest import (argument_parser, check_result_header, close, fail, launcher, main_frame,
                     mpi_env, run)

ORDER = ["mpi", "mpi-async", "caller", "shared", "dedicated", "shared+core",
         "dedicated+core"]
LIBOVERLAP = {"caller": "caller", "shared": "shared", "dedicated": "dedicated",
              "shared+core": "shared", "dedicated+core": "dedicated"}
SMALL = ["--comm-time", "2ms", "--comp-time", "2ms", "--iterations", "5", "--warmup", "1",
         "--calibration-runs", "3", "--sync-span", "0.2s", "--bar", "never"]


def advice_of(points, margin):
    """advice_rule.cpp's rule, from the file."""
    measured = [p for p in points if p["setup"] != "advice" and p["status"] == "measured"]
    if not measured:
        return None
    best = min(p["t_iter_s"] for p in measured)
    chosen = next(p for p in sorted(measured, key=lambda p: ORDER.index(p["setup"]))
                  if p["t_iter_s"] <= best * (1 + margin))
    base = next((p for s in ("mpi", "mpi-async") for p in measured if p["setup"] == s), None)
    return chosen, base


def check_setup(p, threads, where):
    s = p["setup"]
    if p["status"] != "measured":
        if not p["reason"] or p["t_iter_s"] is not None or p["nbc"] is not None:
            fail(f"{where}: {p['status']} needs a reason and no numbers")
        if p["status"] == "skipped" and (p["loop_blocks_s"] or p["loop_starts_s"]):
            fail(f"{where}: skipped, yet loop blocks {p['loop_blocks_s']}")
        return
    if not p["how"]:
        fail(f"{where}: no 'how'")
    want_free = 1 if s.endswith("+core") else 0
    if p["free_cores"] != want_free or p["threads"] != threads - want_free:
        fail(f"{where}: threads {p['threads']}, free_cores {p['free_cores']}; the rank has "
             f"{threads} thread(s)")
    if p["progress"] != LIBOVERLAP.get(s, ""):
        fail(f"{where}: progress {p['progress']!r}")
    if not 0.85 < p["work_ratio"] < 1.15:
        fail(f"{where}: work_ratio {p['work_ratio']}: not the same work")
    if want_free == 0 and not close(p["work_ratio"], 1.0):
        fail(f"{where}: work_ratio {p['work_ratio']} on every core")
    n = p["nbc"]
    if n is None or not n["valid"]:
        fail(f"{where}: measured without a valid nbc section")
    if n["impl"] != ("mpi" if s in ("mpi", "mpi-async") else "overlap"):
        fail(f"{where}: nbc impl {n['impl']}")
    for mine, theirs in (("r_overhead", "r_overhead"), ("r_comp_slowdown", "r_comp_slowdown"),
                         ("msg_bytes", "msg_bytes"), ("comp_size", "comp_size")):
        if not close(p[mine], n[theirs]):
            fail(f"{where}: {mine} {p[mine]} but nbc's {theirs} {n[theirs]}")
    if not (0 < p["t_iter_p25_s"] <= p["t_iter_s"] <= p["t_iter_p75_s"] and p["comp_cost"] > 0):
        fail(f"{where}: t_iter spread or comp_cost out of order")
    blocks, starts = p["loop_blocks_s"], p["loop_starts_s"]
    if not 1 <= len(blocks) <= 5 or len(starts) != len(blocks) or min(blocks) <= 0:
        fail(f"{where}: loop blocks {blocks}, starts {starts}")
    if len(blocks) % 2 == 1 and not close(sorted(blocks)[len(blocks) // 2], p["t_iter_s"]):
        fail(f"{where}: t_iter {p['t_iter_s']} is not the median of its blocks {blocks}")
    if starts != sorted(starts) or starts[0] < 0:
        fail(f"{where}: block starts {starts} not in the order run")


def check_interleaved(path, points):
    """The set-ups' loops run in rounds, one block of each per round: every set-up's block i
    starts before any set-up's block i + 1, and each round runs the set-ups in the order
    opposite to the round before (a run of the set-ups one after another fails, and so does
    one always in the same order)."""
    runs = [p["loop_starts_s"] for p in points
            if p["setup"] != "advice" and p["status"] == "measured"]
    if len(runs) < 2 or any(len(s) != 5 for s in runs):
        return  # a round whose block was late twice has none of that set-up: not whole
    orders = []
    for i in range(5):
        if i < 4 and max(s[i] for s in runs) >= min(s[i + 1] for s in runs):
            fail(f"{path}: the set-ups' loops are not interleaved: block starts {runs}")
        orders.append(sorted(range(len(runs)), key=lambda k: runs[k][i]))
    for i in range(1, 5):
        if orders[i] != orders[i - 1][::-1]:
            fail(f"{path}: round {i} runs the set-ups in the order {orders[i]}, round {i - 1} "
                 f"in {orders[i - 1]}: not reversed")


def check_flags(path, points):
    """advice_rule.hpp's flag: a set-up whose loop blocks' p75 is more than 15 % above their
    p25 says imprecise, and so does the advice then (recomputed from the file)."""
    varied = False
    for p in points[:-1]:
        if p["status"] != "measured":
            continue
        spread = p["t_iter_p75_s"] > p["t_iter_p25_s"] * (1 + 0.15)
        if spread != p["reason"].startswith("imprecise: its loop's blocks took"):
            fail(f"{path} {p['setup']}: blocks {p['t_iter_p25_s']}-{p['t_iter_p75_s']} (p25-p75) "
                 f"but the note is {p['reason']!r}")
        varied = varied or spread
    a = points[-1]
    if a["status"] == "measured" and varied and not a["reason"].startswith("imprecise: "):
        fail(f"{path}: a set-up's loop varied, yet the advice is not imprecise: {a['reason']!r}")


def cells_of(points):
    """The points per cell (message, computation), in the order of the file."""
    cells = {}
    for p in points:
        if p["setup"] != "overall":
            cells.setdefault((p["cell_bytes"], p["cell_comm_s"], p["cell_comp_s"]), []).append(p)
    return list(cells.values())


def overall_of(cells, margin):
    """advice_rule.cpp's overall_advice: the simplest set-up measured in every cell whose
    worst loss against a cell's fastest is within the margin of the smallest worst loss."""
    worst, count, n = {}, {}, 0
    for points in cells:
        measured = [p for p in points if p["setup"] != "advice" and p["status"] == "measured"]
        if not measured:
            continue
        n += 1
        best = min(p["t_iter_s"] for p in measured)
        for p in measured:
            loss = p["t_iter_s"] / best - 1
            worst[p["setup"]] = max(worst.get(p["setup"], loss), loss)
            count[p["setup"]] = count.get(p["setup"], 0) + 1
    everywhere = [s for s in worst if count[s] == n]
    if not everywhere:
        return None
    least = min(worst[s] for s in everywhere)
    return next(s for s in ORDER if s in everywhere and worst[s] <= least + margin)


def check_cell(path, points, asked, threads, margin, interleaved):
    if [p["setup"] for p in points] != asked + ["advice"]:
        fail(f"{path}: points {[p['setup'] for p in points]}, asked {asked} + advice")
    msg = {p["msg_bytes"] for p in points[:-1] if p["status"] == "measured"}
    if len(msg) > 1:
        fail(f"{path}: set-ups measured at different sizes {msg}")
    for p in points[:-1]:
        check_setup(p, threads, f"{path} {p['setup']}")
    if interleaved:
        check_interleaved(path, points)
    check_flags(path, points)
    a = points[-1]
    got = advice_of(points, margin)
    if got is None:
        if a["status"] != "invalid" or a["recommended"] is not None:
            fail(f"{path}: nothing measured, yet advice {a}")
        return None
    chosen, base = got
    if a["recommended"] != chosen["setup"] or not close(a["predicted_s"], chosen["t_iter_s"]):
        fail(f"{path}: advice {a['recommended']} {a['predicted_s']}, the rule gives "
             f"{chosen['setup']} {chosen['t_iter_s']}")
    if a["how"] != chosen["how"]:
        fail(f"{path}: advice how {a['how']!r}, the set-up's {chosen['how']!r}")
    if base is None:
        if a["baseline"] is not None or "speedup" not in a.get("null_reasons", {}):
            fail(f"{path}: no baseline measured, yet {a['baseline']}")
    elif (a["baseline"] != base["setup"] or not close(a["baseline_s"], base["t_iter_s"])
          or not close(a["speedup"], base["t_iter_s"] / chosen["t_iter_s"])):
        fail(f"{path}: baseline {a['baseline']} {a['baseline_s']} speedup {a['speedup']}, "
             f"expected {base['setup']} {base['t_iter_s']}")
    return chosen


def check_file(path, args, nranks, threads, out, margin=0.03, cells=1, interleaved=True):
    with open(path) as f:
        doc = json.load(f)
    args.np = nranks
    check_result_header(doc, "advise", args)
    if not doc["complete"]:
        fail(f"{path}: not complete")
    asked = doc["config"]["setups"]
    grid = cells_of(doc["points"])
    if len(grid) != cells:
        fail(f"{path}: {len(grid)} cells, expected {cells}")
    chosen = [check_cell(path, points, asked, threads, margin, interleaved) for points in grid]
    if cells == 1:
        if chosen[0] is not None and f"# advice: {chosen[0]['setup']} " not in out:
            fail(f"{path}: the console does not give the advice {chosen[0]['setup']}")
        return doc
    overall = overall_of(grid, margin)
    last = doc["points"][-1]
    if last["setup"] != "overall" or last["recommended"] != overall:
        fail(f"{path}: last point {last['setup']} recommends {last.get('recommended')}, the "
             f"rule gives {overall} for every cell")
    if overall is not None and f"# for every cell: {overall} " not in out:
        fail(f"{path}: the console does not give {overall} for every cell\n{out}")
    return doc


def by_setup(doc):
    return {p["setup"]: p for p in doc["points"]}


def one_rank_two_cores(args, env, tmp):
    out = os.path.join(tmp, "one.json")
    cmd = ["taskset", "-c", "0-1"] + launcher(args, 1)
    if args.flavor == "openmpi":
        cmd += ["--bind-to", "none"]
    p = run(cmd + [args.bench, "advise", "--threads", "2", "--output", out] + SMALL, env)
    if p.returncode != 0:
        fail(f"advise on one rank exited {p.returncode}")
    doc = check_file(out, args, 1, 2, p.stdout)
    pts = by_setup(doc)
    if pts["mpi-async"]["status"] != "skipped" or "run advise again" not in pts["mpi-async"]["reason"]:
        fail(f"mpi-async: {pts['mpi-async']['status']} {pts['mpi-async']['reason']!r}")
    for s in ORDER:
        if s != "mpi-async" and pts[s]["status"] == "skipped":
            fail(f"{s} skipped on a rank with 2 cores: {pts[s]['reason']}")
    return out


def two_ranks(args, env, tmp):
    out = os.path.join(tmp, "two.json")
    p = run(launcher(args, 2) + [args.bench, "advise", "--output", out] + SMALL, env)
    if p.returncode != 0:
        fail(f"advise on two ranks exited {p.returncode}")
    doc = check_file(out, args, 2, 1, p.stdout)
    for s in ("shared+core", "dedicated+core"):
        pt = by_setup(doc)[s]
        if pt["status"] != "skipped" or "none to leave free" not in pt["reason"]:
            fail(f"{s} on one core per rank: {pt['status']} {pt['reason']!r}")


def halo(args, env, tmp):
    """--op ihalo: the program's own point-to-point (each rank a message to and from each ring
    neighbour): the same set-ups, each nbc point the exchange at the size asked for, liboverlap's
    set-ups with its engine driving MPI (no algorithm), caller got through overlap-run."""
    out = os.path.join(tmp, "halo.json")
    p = run(launcher(args, 2) + [args.bench, "advise", "--op", "ihalo", "--size", "64KiB",
                                 "--setups", "mpi,caller,shared",
                                 "--output", out] + SMALL, env)
    if p.returncode != 0:
        fail(f"advise --op ihalo exited {p.returncode}")
    doc = check_file(out, args, 2, 1, p.stdout)
    if doc["config"]["op"] != "ihalo":
        fail(f"config op {doc['config']['op']!r}")
    pts = by_setup(doc)
    for s in ("mpi", "caller", "shared"):
        pt = pts[s]
        if pt["status"] != "measured":
            fail(f"ihalo {s}: {pt['status']} {pt['reason']!r}")
        n = pt["nbc"]
        if n["op"] != "ihalo" or n["msg_bytes"] != 65536 or n["algorithm"]:
            fail(f"ihalo {s}: nbc op {n['op']}, {n['msg_bytes']} B, algorithm {n['algorithm']!r}")
    if not pts["caller"]["how"].startswith("overlap-run --progress caller -- PROGRAM"):
        fail(f"ihalo caller: how {pts['caller']['how']!r}")


def async_on(args, env, tmp):
    var = "MPICH_ASYNC_PROGRESS" if args.flavor == "mpich" else "OMPI_MCA_btl_tcp_progress_thread"
    out = os.path.join(tmp, "async.json")
    p = run(launcher(args, 2) + [args.bench, "advise", "--setups", "mpi,mpi-async,caller",
                                 "--output", out] + SMALL, dict(env, **{var: "1"}))
    if p.returncode != 0:
        fail(f"advise with {var}=1 exited {p.returncode}")
    doc = check_file(out, args, 2, 1, p.stdout)
    pts = by_setup(doc)
    if pts["mpi"]["status"] != "skipped" or var not in pts["mpi"]["reason"]:
        fail(f"mpi with {var}=1: {pts['mpi']['status']} {pts['mpi']['reason']!r}")
    if pts["mpi-async"]["status"] != "measured" or pts["advice"]["baseline"] != "mpi-async":
        fail(f"mpi-async with {var}=1: {pts['mpi-async']['status']}, baseline "
             f"{pts['advice']['baseline']}")


def grid(args, env, tmp):
    """Two sizes: two cells in order, each with every set-up at its own size and its own
    advice; the one for every cell printed; --resume of a file cut inside the second cell.
    dedicated comes before shared: where it cannot start (one core per rank), the next
    set-up starts liboverlap afresh."""
    out = os.path.join(tmp, "grid.json")
    sizes = [1024, 65536]
    p = run(launcher(args, 2) + [args.bench, "advise", "--size", "1KiB,64KiB", "--setups",
                                 "mpi,dedicated,shared", "--output", out] + SMALL, env)
    if p.returncode != 0:
        fail(f"advise --size 1KiB,64KiB exited {p.returncode}")
    doc = check_file(out, args, 2, 1, p.stdout, cells=2)
    for size, points in zip(sizes, cells_of(doc["points"])):
        for q in points:
            if q["cell_bytes"] != size or q["cell_comp_s"] != 0.002:
                fail(f"grid: point {q['setup']} in cell {q['cell_bytes']}, expected {size}")
            if q["status"] == "measured" and q["msg_bytes"] != size:
                fail(f"grid: {q['setup']} measured {q['msg_bytes']} B in the {size} B cell")
    doc["points"] = doc["points"][:-3]  # the last set-up, the advice, the overall
    doc["complete"] = False
    part = os.path.join(tmp, "grid-part.json")
    with open(part, "w") as f:
        json.dump(doc, f)
    p = run(launcher(args, 2) + [args.bench, "advise", "--resume", part], env)
    if p.returncode != 0 or "resuming: 6 of 9 already measured" not in p.stdout:
        fail(f"grid --resume: exit {p.returncode}\n{p.stdout}")
    check_file(part, args, 2, 1, p.stdout, cells=2, interleaved=False)


def resume(args, env, tmp, full):
    """A file without its last set-up and the advice (as an interrupted run leaves it)."""
    with open(full) as f:
        doc = json.load(f)
    last = doc["points"][-2]["setup"]
    doc["points"] = doc["points"][:-2]
    doc["complete"] = False
    part = os.path.join(tmp, "part.json")
    with open(part, "w") as f:
        json.dump(doc, f)
    cmd = ["taskset", "-c", "0-1"] + launcher(args, 1)
    if args.flavor == "openmpi":
        cmd += ["--bind-to", "none"]
    p = run(cmd + [args.bench, "advise", "--resume", part, "--threads", "2"], env)
    if p.returncode != 0:
        fail(f"advise --resume exited {p.returncode}")
    if "resuming: 6 of 8 already measured" not in p.stdout:
        fail("--resume did not continue the 6 set-ups of the file")
    # The set-up measured on resuming ran its loop alone: not interleaved with the file's.
    doc = check_file(part, args, 1, 2, p.stdout, interleaved=False)
    if by_setup(doc)[last]["status"] == "skipped":
        fail(f"--resume: {last} skipped")


def two_nodes(args, env, tmp):
    out = os.path.join(tmp, "cluster.json")
    cmd = [args.cluster, "run", "--mpi", args.flavor, "-n", "2"]
    if args.flavor == "mpich":
        cmd += ["--timeout", "90"]
    p = run(cmd + ["--", args.bench, "advise", "--output", out] + SMALL, env)
    hung = (args.flavor == "mpich" and p.returncode == 124 and "results written to" in p.stdout)
    if hung:
        print("WARNING: MPICH hung in MPI_Finalize after writing complete results (known "
              "MPICH 4.0.2 + UCX 1.13 bug); checking the results anyway")
    elif p.returncode != 0:
        fail(f"advise on the cluster exited {p.returncode}")
    doc = check_file(out, args, 2, 1, p.stdout)
    if len(set(doc["metadata"]["hosts"])) != 2:
        fail(f"ranks on hosts {doc['metadata']['hosts']}, expected two nodes")
    for s in ("shared+core", "dedicated+core"):
        if by_setup(doc)[s]["status"] != "skipped":
            fail(f"{s} measured on one-core nodes")


def loop_example(args, env, tmp):
    report = os.path.join(tmp, "loop-report.json")
    for pre in ([], [args.run, "--progress", "shared", "--report", report, "--"]):
        p = run(launcher(args, 2) + pre + [args.loop, "65536", "2", "20"], env)
        if p.returncode != 0 or "result ok" not in p.stdout or "time per iteration" not in p.stdout:
            fail(f"iallreduce-loop {' '.join(pre)}: exit {p.returncode}, no right result")
    with open(report) as f:
        sites = [s for r in json.load(f)["ranks"] for s in r["collective_sites"]
                 if s["call"] == "MPI_Iallreduce"]
    if not sites or any(s["routed"] != s["calls"] for s in sites):
        fail(f"iallreduce-loop under overlap-run: Iallreduce sites {sites}, not all routed")
    # Each rank's loop site: every call accepted, 65536 bytes each, and a wait window per
    # request it waited for (the loop waits for every one).
    loop_sites = [s for s in sites if s["calls"] >= 20]
    if len(loop_sites) != 2:
        fail(f"iallreduce-loop: expected the loop's site on 2 ranks, got {loop_sites}")
    for s in loop_sites:
        w = s["wait_window_s"]
        if s["accepted"] != s["calls"] or s["bytes"] != 65536 * s["calls"]:
            fail(f"iallreduce-loop: site {s['site']['text']}: accepted {s['accepted']}, bytes "
                 f"{s['bytes']} for {s['calls']} calls of 65536 B")
        if w is None or w["completed"] != s["calls"] or not 0 < w["min"] <= w["median"] <= w["max"]:
            fail(f"iallreduce-loop: site {s['site']['text']}: wait window {w}")
    from_report(args, env, tmp, report, loop_sites)
    # The loop of --op ihalo (the program's own Irecv/Isend with both ring neighbours):
    # every byte right, plain and under overlap-run; anything else after ITERATIONS refused.
    for pre in ([], [args.run, "--progress", "shared", "--"]):
        p = run(launcher(args, 2) + pre + [args.loop, "65536", "2", "20", "halo"], env)
        if (p.returncode != 0 or "result ok" not in p.stdout
                or "halo 65536 B to and from each of 2 neighbours" not in p.stdout):
            fail(f"iallreduce-loop halo {' '.join(pre)}: exit {p.returncode}, no right result")
    p = run(launcher(args, 1) + [args.loop, "65536", "2", "20", "hal"], env)
    if p.returncode != 2 or "'hal' is not allowed" not in p.stderr:
        fail(f"iallreduce-loop with 'hal': exit {p.returncode}, not refused")
    if args.loop_liboverlap:
        # The same loop on liboverlap's OVX_Iallreduce, under the policy of OVERLAP_PROGRESS
        # (advise's caller set-up): the right sum, the policy named.
        p = run(launcher(args, 2) + [args.loop_liboverlap, "65536", "2", "20"],
                dict(env, OVERLAP_PROGRESS="caller"))
        if (p.returncode != 0 or "result ok" not in p.stdout
                or "OVX_Iallreduce, progress caller" not in p.stdout):
            fail(f"iallreduce-loop on liboverlap: exit {p.returncode}\n{p.stdout}{p.stderr}")
    # advise under overlap-run: refused in one line, exit 2, before measuring anything.
    p = run(launcher(args, 1) + [args.run, "--", args.bench, "advise"], env)
    if p.returncode == 0 or "cannot run under overlap-run" not in p.stderr:
        fail(f"advise under overlap-run: exit {p.returncode}, not refused")


def from_report(args, env, tmp, report, loop_sites):
    """advise --from the loop's report: the loop's collective, message and computation (the
    median over ranks of each rank's median window) in its config, without --op/--size/
    --comp-time; an option given beside --from wins."""
    out = os.path.join(tmp, "from.json")
    p = run(launcher(args, 2) + [args.bench, "advise", "--from", report, "--setups", "mpi,caller",
                                 "--iterations", "3", "--warmup", "1", "--calibration-runs", "3",
                                 "--sync-span", "0.2s", "--bar", "never", "--output", out], env)
    if p.returncode != 0 or "advise: the loop of" not in p.stdout:
        fail(f"advise --from: exit {p.returncode}, no line naming the loop\n{p.stdout}{p.stderr}")
    with open(out) as f:
        cfg = json.load(f)["config"]
    medians = sorted(s["wait_window_s"]["median"] for s in loop_sites)
    want = sum(medians) / 2
    if (cfg["op"] != "iallreduce" or cfg["sizes_bytes"] != [65536] or cfg["from_report"] != report
            or len(cfg["target_comps_s"]) != 1
            or abs(cfg["target_comps_s"][0] - want) > 1e-9 * max(1.0, want)
            or "loop.c" not in cfg["from_loop"]):
        fail(f"advise --from: config {cfg}, expected iallreduce, 65536 B, {want} s from {report}")
    p = run(launcher(args, 1) + [args.bench, "advise", "--from", report, "--comp-time", "7ms",
                                 "--size", "1KiB", "--op", "ialltoall"], env)
    if p.returncode != 2 or "has no ialltoall collective" not in p.stderr:
        fail(f"advise --from with --op ialltoall: exit {p.returncode}, {p.stderr!r}")


def main():
    ap = argument_parser()
    ap.add_argument("--cluster", help="path of scripts/cluster: run on the emulated cluster")
    ap.add_argument("--loop", help="examples/iallreduce-loop's program")
    ap.add_argument("--run", help="overlap-run")
    ap.add_argument("--loop-liboverlap", help="examples/iallreduce-loop built on liboverlap")
    args = ap.parse_args()
    env = mpi_env()
    if args.cluster and os.geteuid() != 0:
        print("SKIP: the emulated cluster needs root (network namespaces)")
        sys.exit(77)

    def body(tmp):
        if args.cluster:
            two_nodes(args, env, tmp)
            return
        full = one_rank_two_cores(args, env, tmp)
        resume(args, env, tmp, full)
        two_ranks(args, env, tmp)
        halo(args, env, tmp)
        grid(args, env, tmp)
        async_on(args, env, tmp)
        if args.loop:
            loop_example(args, env, tmp)

    main_frame("check_advise.", body)


if __name__ == "__main__":
    main()
