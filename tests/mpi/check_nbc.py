#!/usr/bin/python3
"""Runs `overlap-bench nbc` under mpiexec and checks what it writes (docs/result-format.md).

--mode sweep: a tiny real sweep; checks the JSON (metadata, one point per grid point, each
  point either valid and self-consistent or invalid with every measured field null) and the
  CSV (one row per point, same columns, same values). At least one point must be valid: a
  run without any is retried once, visibly, because a loaded machine can make calibrations
  miss their tolerance.
--mode peers: the OSU and IMB columns on a rooted collective over 4 ranks, where every
  rank's pure time differs: each column must equal its peer's formula on the per-rank means
  the file records for the peers' own protocol, each rank's computation must have been
  sized to its own pure time (OSU: at least that long; IMB: floor(pure x rate) steps), and
  every rank's pure time is its own.
--mode resume: interrupts a sweep (kills its process group) once the file holds some points,
  resumes it by repeating the original command with --resume added, and checks that exactly
  the missing points were measured and the earlier ones kept unchanged; the same command
  with one sweep option changed, and a file from a run with another process count, are
  refused.
Never asserts timings. Exit codes: 0 pass, 1 fail.
"""
import csv
import json
import math
import os
import re
import subprocess
import time

from mpitest import (argument_parser, check_algorithm, check_cpu, check_result_header,
                     check_threads_read_back, close,
                     fail, flat_fields, interrupt, is_num, launcher, main_frame, mpi_env, run)

DIAGNOSES = {"overlap", "partial_overlap", "no_progression", "computation_slowdown",
             "communication_slowdown", "contention_without_overlap", "imprecise_reference"}
SPREADS = ("t_comm_ref", "t_comp_ref", "t_measured", "t_call", "t_comp", "t_wait", "t_in_mpi",
           "t_comp_max")
# t_test_* is null without --test-interval: checked apart.
TIME_FIELDS = tuple(f"{n}{q}_s" for n in SPREADS for q in ("", "_p25", "_p75"))
RATIO_FIELDS = tuple(f"{n}{q}" for n in ("r_overhead", "r_comm", "r_comp_slowdown")
                     for q in ("", "_p25", "_p75")) + (
    "osu_overlap_pct", "imb_overlap_pct", "osu_on_nbc_times_pct", "imb_on_nbc_times_pct",
    "comp_speed_spread")
PCT_FIELDS = ("osu_overlap_pct", "imb_overlap_pct", "osu_on_nbc_times_pct",
              "imb_on_nbc_times_pct")
# The thresholds of measure::DiagnosisThresholds and reference_check (docs/nbc-benchmark.md).
TAU = 0.15
REFERENCE_SPREAD = 0.3

# sweep: about 10 s at P = 2 on two cores; MPI's collectives and liboverlap's side by side.
SWEEP = dict(impls=["mpi", "overlap"], ops=["ibcast", "iallreduce"], comm=["1ms", "2ms"],
             comp=["1ms", "2ms"],
             extra=["--iterations", "3", "--warmup", "1", "--calibration-runs", "3",
                    "--progress", "shared", "--test-interval", "1MiB",
                    "--peer-iterations", "3"])
# The same with more ranks than cores: MPICH (ch4:ucx) busy-polls, so a rank waiting for a
# descheduled one loses a whole time slice and even a 1-byte collective takes several ms;
# targets of 1-2 ms never calibrate. Longer targets, looser tolerance: about 15 s at P = 3.
# liboverlap's collectives only, progressed by the caller: about 15 s at P = 3. Without the
# peers' protocols: their columns are null with the reason.
SWEEP_OVERSUBSCRIBED = dict(impls=["overlap"], ops=["ibcast", "iallreduce"],
                            comm=["16ms", "32ms"], comp=["8ms", "16ms"],
                            extra=["--iterations", "3", "--warmup", "1", "--calibration-runs", "3",
                                   "--tolerance", "30%", "--progress", "caller",
                                   "--peer-iterations", "0"])
# peers: a rooted collective on 4 ranks (two cores: oversubscribed, so long targets and a
# loose tolerance, as SWEEP_OVERSUBSCRIBED), MPI's and liboverlap's with its shared progress
# thread, so the columns are seldom all clamped to 0; OSU with test calls. About 10 s.
PEERS = dict(impls=["mpi", "overlap"], ops=["igather"], comm=["16ms"], comp=["16ms"],
             extra=["--iterations", "3", "--warmup", "1", "--calibration-runs", "3",
                    "--tolerance", "30%", "--progress", "shared", "--test-interval", "4MiB",
                    "--peer-iterations", "4"])
# resume: about 15 s at P = 2; the first points take longest (calibration).
RESUME = dict(impls=["mpi"], ops=["ibcast"], comm=["4ms", "16ms"], comp=["4ms", "16ms", "64ms"],
              extra=["--iterations", "5", "--peer-iterations", "2"])
UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0}


def seconds(text):
    m = re.fullmatch(r"([0-9.]+)\s*(ns|us|ms|s|min)", text)
    return float(m.group(1)) * UNITS[m.group(2)]


def bench_args(grid):
    return (["nbc", "--impl", ",".join(grid["impls"]), "--op", ",".join(grid["ops"]), "--comm-times", ",".join(grid["comm"]),
             "--comp-times", ",".join(grid["comp"]), "--sync-span", "0.2s", "--bar", "never"]
            + grid["extra"])


def grid_keys(grid):
    return {(impl, op, seconds(c), seconds(p)) for impl in grid["impls"] for op in grid["ops"]
            for c in grid["comm"] for p in grid["comp"]}


def point_key(p, grid):
    """(impl, op, comm, comp) with the targets snapped to the grid's own values."""
    for key in grid_keys(grid):
        if p.get("impl") == key[0] and p["op"] == key[1] and \
                close(p["target_comm_s"], key[2]) and close(p["target_comp_s"], key[3]):
            return key
    fail(f"point {p.get('impl')} {p['op']} {p['target_comm_s']} x {p['target_comp_s']} "
         f"is not in the grid")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{path} is not a readable JSON file: {e}")


# ---------------------------------------------------------------------------------------------
# Checks of one result document.

def check_metadata(doc, args, grid):
    meta = check_result_header(doc, "nbc", args)
    if not isinstance(doc.get("complete"), bool):
        fail(f"complete is {doc.get('complete')!r}, not a boolean")
    cfg = doc.get("config", {})
    if cfg.get("impls") != grid["impls"]:
        fail(f"config.impls {cfg.get('impls')!r}, the run asked for {grid['impls']}")
    asked = grid["extra"][grid["extra"].index("--progress") + 1] if "--progress" in grid["extra"] \
        else "auto"
    if cfg.get("progress") != asked:
        fail(f"config.progress {cfg.get('progress')!r}, the run asked for {asked!r}")
    n = args.np
    hosts = meta.get("hosts")
    if not isinstance(hosts, list) or len(hosts) != n or not all(isinstance(h, str) and h
                                                                  for h in hosts):
        fail(f"metadata.hosts {hosts!r} is not {n} host names")
    threads = meta.get("threads")
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
        fail(f"metadata.threads {threads!r}")
    if meta.get("dedicated_cores") != 0:
        fail(f"metadata.dedicated_cores {meta.get('dedicated_cores')!r}, expected 0")
    # liboverlap's progress thread exists where the run uses liboverlap with a thread:
    # shared's, dedicated's, or with MPICH caller's rescue thread.
    policy = (meta.get("progress_choice") or {}).get("policy")
    threaded = policy in ("shared", "dedicated") or (policy == "caller" and args.flavor == "mpich")
    check_threads_read_back(meta, n, 1 if threaded else 0)
    label = meta.get("label")
    if not (isinstance(label, str) and label.startswith(args.flavor)):
        fail(f"metadata.label {label!r}: the default label starts with the flavor")
    envd = meta.get("environment")
    if not isinstance(envd, dict) or not all(isinstance(v, str) for v in envd.values()):
        fail(f"metadata.environment {envd!r} is not an object of strings")
    for key in ("mpi_library", "mpi_standard", "clock_source", "command_line", "started_at"):
        if not (isinstance(meta.get(key), str) and meta[key]):
            fail(f"metadata.{key} {meta.get(key)!r}")
    cs = meta.get("clock_sync")
    if not isinstance(cs, dict):
        fail(f"metadata.clock_sync {cs!r} is not an object")
    if not (isinstance(cs.get("passes"), int) and cs["passes"] >= 2):
        fail(f"clock_sync.passes {cs.get('passes')!r}: the sweep syncs twice before any point")
    if not (isinstance(cs.get("barrier_late"), int) and cs["barrier_late"] >= 0):
        fail(f"clock_sync.barrier_late {cs.get('barrier_late')!r}")
    for key in ("max_rtt_s", "barrier_window_s"):
        if not (is_num(cs.get(key)) and cs[key] >= 0):
            fail(f"clock_sync.{key} {cs.get(key)!r}")

    cfg = doc["config"]
    if cfg.get("ops") != grid["ops"]:
        fail(f"config.ops {cfg.get('ops')!r}, asked for {grid['ops']}")
    for key, asked in (("comm_times_s", grid["comm"]), ("comp_times_s", grid["comp"])):
        got = cfg.get(key)
        want = [seconds(t) for t in asked]
        if not (isinstance(got, list) and len(got) == len(want)
                and all(is_num(g) and close(g, w) for g, w in zip(got, want))):
            fail(f"config.{key} {got!r}, asked for {want}")
    timing = doc.get("timing", {})
    if not (is_num(timing.get("wall_s")) and timing["wall_s"] > 0
            and is_num(timing.get("calibration_s")) and timing["calibration_s"] >= 0):
        fail(f"timing {timing!r}")


def quantile(values, q):
    """Linear-interpolated quantile, as measure::quantile."""
    v = sorted(values)
    pos = q * (len(v) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (pos - lo) * (v[hi] - v[lo])


def check_from_samples(p, where):
    """Every median, quartile and ratio of the point, recomputed from its kept iterations
    (the samples section): the reduction and the file cannot disagree."""
    s = p["samples"]
    n = p["iterations"]
    if any(len(s[k]) != n for k in s):
        fail(f"{where}: samples {[(k, len(v)) for k, v in s.items()]}, {n} kept iterations")
    series = {"t_comm_ref": s["t_comm_ref_s"], "t_comp_ref": s["t_comp_ref_s"],
              "t_measured": s["t_measured_s"], "t_call": s["t_call_s"], "t_comp": s["t_comp_s"],
              "t_wait": s["t_wait_s"], "t_comp_max": s["t_comp_max_s"],
              "t_in_mpi": [c + w for c, w in zip(s["t_call_s"], s["t_wait_s"])]}
    for name, values in series.items():
        for q, suffix in ((0.5, ""), (0.25, "_p25"), (0.75, "_p75")):
            key = f"{name}{suffix}_s"
            if not close(p[key], quantile(values, q), rel=1e-9):
                fail(f"{where}: {key} {p[key]!r}, from the samples {quantile(values, q)!r}")
    comm, comp = p["t_comm_ref_s"], p["t_comp_ref_s"]
    lo, hi = min(comm, comp), max(comm, comp)
    per_iteration = {
        "r_overhead": [(m - hi) / lo for m in series["t_measured"]],
        "r_comm": [x / comm for x in series["t_in_mpi"]],
        "r_comp_slowdown": [c / comp for c in series["t_comp_max"]],
    }
    for name, values in per_iteration.items():
        for q, suffix in ((0.5, ""), (0.25, "_p25"), (0.75, "_p75")):
            key = f"{name}{suffix}"
            if not close(p[key], quantile(values, q), rel=1e-9):
                fail(f"{where}: {key} {p[key]!r}, from the samples {quantile(values, q)!r}")
    if not all(0 <= r < 64 for r in s["pacing_rank"]):
        fail(f"{where}: pacing_rank {s['pacing_rank']}")


def osu_pct(ranks):
    """OSU 7.4's print_stats_nbc on (overall, compute, test, pure) per rank, term for term
    as measure::osu_overlap_pct computes it, so both give the same bits."""
    if not ranks:
        return None
    overall = compute = test = pure = 0.0
    for o, c, s, q in ranks:
        overall += o
        compute += c
        test += s
        pure += q
    n = float(len(ranks))
    overall /= n
    compute /= n
    test /= n
    pure /= n
    if not pure > 0:
        return None
    return max(0.0, 100.0 - 100.0 * (overall - (compute - test)) / pure)


def imb_rank(ranks):
    best = -1
    for i, r in enumerate(ranks):
        if best < 0 or r[0] > ranks[best][0]:
            best = i
    return best


def imb_pct(ranks):
    """IMB_display_times on (overall, compute, test, pure): the first rank with the largest
    overall time, its own times."""
    i = imb_rank(ranks)
    if i < 0:
        return None
    o, c, s, q = ranks[i]
    compute = c - s
    denominator = max(q, compute)
    if not denominator > 0:
        return None
    return 100.0 * min(max((q + compute - o) / denominator, 0.0), 1.0)


def same(where, key, got, want):
    """Recomputed from the file: the same bits (or both null)."""
    if got != want:
        fail(f"{where}: {key} {got!r}, recomputed from the file {want!r}")


def check_recomputed(p, cfg, where):
    """Every derived number of the point from the point itself: the peers' columns from the
    per-rank means of their own protocol, their formulas on our times from our per-rank
    means, the computation-speed spread, the references' flags."""
    nranks = len(p["ranks"])
    if nranks < 1:
        fail(f"{where}: no per-rank means")
    ours = [(r["overall_s"], r["compute_s"], r["test_s"], r["pure_s"]) for r in p["ranks"]]
    same(where, "osu_on_nbc_times_pct", p["osu_on_nbc_times_pct"], osu_pct(ours))
    same(where, "imb_on_nbc_times_pct", p["imb_on_nbc_times_pct"], imb_pct(ours))
    refs = [r["comp_ref_s"] for r in p["ranks"]]
    same(where, "comp_speed_spread", p["comp_speed_spread"], max(refs) / min(refs))
    for r in p["ranks"]:
        if abs(r["overall_s"] - (r["call_s"] + r["compute_s"] + r["wait_s"])) > 1e-9:
            fail(f"{where}: a rank's overall_s {r['overall_s']} is not call + compute + wait")
    peers = p["peers"]
    if cfg["peer_iterations"] == 0:
        if peers is not None or p["osu_overlap_pct"] is not None:
            fail(f"{where}: --peer-iterations 0, yet the peers' columns are there")
        if "not run" not in (p.get("null_reasons") or {}).get("osu_overlap_pct", ""):
            fail(f"{where}: osu_overlap_pct null without its reason: {p.get('null_reasons')}")
    else:
        if peers is None or len(peers["ranks"]) != nranks:
            fail(f"{where}: peers {peers!r}, expected one entry per rank ({nranks})")
        if peers["iterations"] != cfg["peer_iterations"] or peers["test_calls"] != p["test_calls"]:
            fail(f"{where}: peers ran {peers['iterations']} iterations with "
                 f"{peers['test_calls']} tests, configured {cfg['peer_iterations']} and "
                 f"{p['test_calls']}")
        osu = [(r["osu_overall_s"], r["osu_compute_s"], r["osu_test_s"], r["pure_s"])
               for r in peers["ranks"]]
        imb = [(r["imb_overall_s"], r["imb_compute_s"], 0.0, r["pure_s"]) for r in peers["ranks"]]
        same(where, "osu_overlap_pct", p["osu_overlap_pct"], osu_pct(osu))
        same(where, "imb_overlap_pct", p["imb_overlap_pct"], imb_pct(imb))
        same(where, "peers.imb_rank", peers["imb_rank"], imb_rank(imb))
        for i, r in enumerate(peers["ranks"]):
            # Each rank's computation sized to its OWN pure time: OSU's runs at least that
            # long (time-based; 1 ppm for two clocks), IMB's is floor(pure x rate) steps.
            if r["osu_compute_s"] - r["osu_test_s"] < r["pure_s"] * (1 - 1e-6):
                fail(f"{where}: rank {i}'s OSU computation {r['osu_compute_s']} s (tests "
                     f"{r['osu_test_s']} s) is shorter than its own pure time {r['pure_s']} s")
            same(where, f"peers.ranks[{i}].imb_steps", r["imb_steps"],
                 max(1, math.floor(r["pure_s"] * r["imb_steps_per_second"])))
    check_flags(p, cfg, where)


def check_flags(p, cfg, where):
    """imprecise_reference with its reasons exactly where the file's own numbers break the
    rules of measure::reference_problems."""
    tol = cfg["tolerance"]
    want = []
    for name, target in (("t_comm_ref", p["target_comm_s"]), ("t_comp_ref", p["target_comp_s"])):
        med, lo, hi = p[f"{name}_s"], p[f"{name}_p25_s"], p[f"{name}_p75_s"]
        if abs(med - target) > tol * target:
            want.append(f"{name} ")
        if hi - lo > REFERENCE_SPREAD * med:
            want.append(f"{name} p25-p75")
    r, lo, hi = p["r_overhead"], p["r_overhead_p25"], p["r_overhead_p75"]
    if r < -TAU or r + (hi - lo) < 0:
        want.append("r_overhead ")
    got = p["imprecise"]
    if len(got) != len(want) or not all(g.startswith(w) for g, w in zip(got, want)):
        fail(f"{where}: imprecise {got}, the file's numbers break {want}")
    if got and (p["diagnosis"] != "imprecise_reference" or not all(
            g in p["diagnosis_text"] for g in got)):
        fail(f"{where}: flagged {got}, yet diagnosis {p['diagnosis']!r}: {p['diagnosis_text']}")
    if not got and p["diagnosis"] != p["ratio_diagnosis"]:
        fail(f"{where}: nothing flagged, yet diagnosis {p['diagnosis']!r} and ratio_diagnosis "
             f"{p['ratio_diagnosis']!r}")


def check_point(p, cfg, nranks):
    """Field names and kinds are check_result_header's (the embedded schema); here what
    they must say."""
    where = f"point {p.get('op')} {p.get('target_comm_s')} x {p.get('target_comp_s')}"
    if not (isinstance(p["diagnosis_text"], str) and p["diagnosis_text"]):
        fail(f"{where}: empty diagnosis_text")
    for key in ("calibration_s", "elapsed_s"):
        if not p[key] >= 0:
            fail(f"{where}: {key} {p[key]!r}")
    if p["elapsed_s"] < p["calibration_s"]:
        fail(f"{where}: elapsed_s {p['elapsed_s']} < calibration_s {p['calibration_s']}")

    if not p["valid"]:
        if not p["invalid_reason"].strip():
            fail(f"{where}: invalid without a reason")
        if p["diagnosis"] != "invalid":
            fail(f"{where}: invalid, yet diagnosis {p['diagnosis']!r}")
        not_null = [k for k in TIME_FIELDS + RATIO_FIELDS + ("samples", "peers")
                    if p[k] is not None]
        if not_null or p["ranks"] or p["imprecise"]:
            fail(f"{where}: invalid, yet {not_null} are not null (ranks {len(p['ranks'])}, "
                 f"imprecise {p['imprecise']})")
        return

    if p["invalid_reason"] != "":
        fail(f"{where}: valid, yet invalid_reason {p['invalid_reason']!r}")
    if p["diagnosis"] not in DIAGNOSES:
        fail(f"{where}: diagnosis {p['diagnosis']!r} is not one of {sorted(DIAGNOSES)}")
    if p["iterations"] + p["discarded"] != cfg["iterations"] or p["iterations"] < 1:
        fail(f"{where}: {p['iterations']} kept + {p['discarded']} discarded iterations, "
             f"configured {cfg['iterations']}")
    min_bytes = 0 if p["op"] == "ibarrier" else 1
    if not (isinstance(p["msg_bytes"], int) and p["msg_bytes"] >= min_bytes):
        fail(f"{where}: msg_bytes {p['msg_bytes']!r}")
    check_algorithm(p, where, nranks)
    if not (isinstance(p["comp_size"], int) and p["comp_size"] > 0):
        fail(f"{where}: comp_size {p['comp_size']!r}")
    for key in TIME_FIELDS:
        if not (is_num(p[key]) and p[key] > 0):
            fail(f"{where}: {key} {p[key]!r} is not a positive time")
    for key in RATIO_FIELDS:
        if not is_num(p[key]) and not (key in ("osu_overlap_pct", "imb_overlap_pct")
                                       and cfg["peer_iterations"] == 0):
            fail(f"{where}: {key} {p[key]!r} is not a finite number")
    for key in PCT_FIELDS:
        if p[key] is not None and not 0 <= p[key] <= 100:
            fail(f"{where}: {key} {p[key]} outside [0, 100]")
    check_from_samples(p, where)
    check_recomputed(p, cfg, where)
    note = p["calibration_note"]
    if note and "nearest reachable" not in note:
        fail(f"{where}: calibration_note {note!r} does not say which size was measured")
    for key in ("calibrated_comm_s", "calibrated_comp_s"):
        if not (is_num(p[key]) and p[key] > 0):
            fail(f"{where}: {key} {p[key]!r} is not a positive time")
    interval = cfg.get("test_interval_bytes")
    want_calls = 0 if interval is None else -(-p["msg_bytes"] // interval) + 1
    if p["test_calls"] != want_calls or (p["t_test_s"] is None) != (interval is None):
        fail(f"{where}: test_calls {p['test_calls']} (ceil(size / interval) + 1 = "
             f"{want_calls}), t_test_s {p['t_test_s']!r} with interval {interval!r}")
    comm, comp, meas = p["t_comm_ref_s"], p["t_comp_ref_s"], p["t_measured_s"]
    expect = {
        "r_overhead": (meas - max(comp, comm)) / min(comp, comm),
        "r_comm": p["t_in_mpi_s"] / comm,
        "r_comp_slowdown": p["t_comp_max_s"] / comp,
    }
    for key, value in expect.items():
        if not close(p[key], value):
            fail(f"{where}: {key} {p[key]!r}, recomputed from the point's times {value!r}")
    # MPI's own collectives: liboverlap's thread (if started) had nothing to do.
    check_cpu(p, where, no_progress_in=("overlapped",) if p["impl"] == "mpi" else ())


def check_points(doc, grid, expect_complete=True):
    points = doc["points"]
    keys = [point_key(p, grid) for p in points]
    dups = {k for k in keys if keys.count(k) > 1}
    if dups:
        fail(f"points measured more than once: {sorted(dups)}")
    if expect_complete:
        missing = grid_keys(grid) - set(keys)
        if missing or doc["complete"] is not True:
            fail(f"complete={doc['complete']!r}, missing points {sorted(missing)}")
    for p in points:
        check_point(p, doc["config"], doc["metadata"]["processes"])
    return keys


def csv_cell_matches(cell, value):
    if value is None:
        return cell == ""
    if isinstance(value, bool):
        return cell == ("true" if value else "false")
    if isinstance(value, str):
        return cell == value
    try:
        return math.isclose(float(cell), value, rel_tol=1e-6, abs_tol=1e-15)
    except ValueError:
        return False


def check_csv(path, doc):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        fail(f"{path} is empty")
    header, body = rows[0], rows[1:]
    points = doc["points"]
    columns = flat_fields(doc)
    if header != columns:
        fail(f"CSV header {header} is not the schema's flat point fields {columns}")
    if len(body) != len(points):
        fail(f"CSV has {len(body)} rows, the JSON {len(points)} points")
    for i, (row, p) in enumerate(zip(body, points), start=2):
        if len(row) != len(header):
            fail(f"CSV line {i} has {len(row)} columns, the header {len(header)}")
        for col, cell in zip(header, row):
            if not csv_cell_matches(cell, p[col]):
                fail(f"CSV line {i}, column {col}: {cell!r}, the JSON says {p[col]!r}")


def console_rows(stdout, grid):
    """(impl, op, comm, comp) of every point row in the console output."""
    rows = []
    for line in stdout.splitlines():
        m = re.match(r"^(\w+)\s+(\w+)\s+([0-9.]+ (?:ns|us|ms|s|min))\s+"
                     r"([0-9.]+ (?:ns|us|ms|s|min))\s", line)
        if m and m.group(1) in grid["impls"] and m.group(2) in grid["ops"]:
            rows.append(point_key({"impl": m.group(1), "op": m.group(2),
                                   "target_comm_s": seconds(m.group(3)),
                                   "target_comp_s": seconds(m.group(4))}, grid))
    return rows


# ---------------------------------------------------------------------------------------------

def sweep(args, env, tmp):
    cores = len(os.sched_getaffinity(0))
    grid = SWEEP if args.np <= cores else SWEEP_OVERSUBSCRIBED
    if grid is SWEEP_OVERSUBSCRIBED:
        print(f"{args.np} ranks on {cores} cores: oversubscribed, using longer targets")
    for attempt in (1, 2):
        out, out_csv = os.path.join(tmp, "nbc.json"), os.path.join(tmp, "nbc.csv")
        cmd = (launcher(args, args.np) + [args.bench] + bench_args(grid)
               + ["--output", out, "--csv", out_csv])
        p = run(cmd, env)
        if p.returncode != 0:
            fail(f"exit code {p.returncode}")
        if [l for l in p.stderr.splitlines() if l.startswith("overlap-bench:")]:
            fail("a successful run printed an overlap-bench: error line")
        doc = load(out)
        check_metadata(doc, args, grid)
        keys = check_points(doc, grid)
        check_csv(out_csv, doc)
        rows = console_rows(p.stdout, grid)
        if sorted(rows) != sorted(keys):
            fail(f"console rows {rows} differ from the points {keys}")
        valid = sum(pt["valid"] for pt in doc["points"])
        print(f"{len(doc['points'])} points, {valid} valid")
        if valid:
            return
        if attempt == 1:
            print("RETRY: no point calibrated (a loaded machine?); running the sweep once more",
                  flush=True)
    fail("no valid point in two sweeps: every calibration failed")


def peers(args, env, tmp):
    """The 4-rank rooted fixture: the OSU and IMB columns are their peers' formulas on the
    peers' protocol, recomputed here from the per-rank means the file records."""
    grid = PEERS
    out = os.path.join(tmp, "peers.json")
    cmd = launcher(args, args.np) + [args.bench] + bench_args(grid) + ["--output", out]
    for attempt in (1, 2):
        p = run(cmd, env)
        if p.returncode != 0:
            fail(f"exit code {p.returncode}")
        doc = load(out)
        check_metadata(doc, args, grid)
        check_points(doc, grid)  # every number recomputed from the file (check_recomputed)
        invalid = [q["invalid_reason"] for q in doc["points"] if not q["valid"]]
        if not invalid:
            break
        if attempt == 2:
            fail(f"invalid points twice: {invalid}")
        print(f"RETRY: invalid points ({invalid})", flush=True)
    for point in doc["points"]:
        pure = [r["pure_s"] for r in point["peers"]["ranks"]]
        if len(set(pure)) != len(pure):
            fail(f"pure times {pure}: every rank's own, so all different")
        print(f"{point['impl']}: pure per rank {[f'{x * 1e3:.2f} ms' for x in pure]}; OSU "
              f"{point['osu_overlap_pct']:.2f} %, IMB {point['imb_overlap_pct']:.2f} % (rank "
              f"{point['peers']['imb_rank']}); on nbc's times OSU "
              f"{point['osu_on_nbc_times_pct']:.2f} %, IMB "
              f"{point['imb_on_nbc_times_pct']:.2f} %: recomputed from the file")


def resume(args, env, tmp):
    grid = RESUME
    total = len(grid_keys(grid))
    out = os.path.join(tmp, "sweep.json")
    log_path = os.path.join(tmp, "first.log")
    base = launcher(args, args.np) + [args.bench] + bench_args(grid)
    # --resume continues the sweep recorded in the file: no grid options again.
    resume_base = launcher(args, args.np) + [args.bench, "nbc", "--sync-span", "0.2s",
                                             "--bar", "never"]
    cmd = base + ["--output", out]
    print("+", " ".join(cmd), "(to be interrupted)", flush=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 240
        seen = 0
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with open(out) as f:
                    seen = len(json.load(f)["points"])
            except (OSError, ValueError, KeyError):
                seen = 0  # not written yet (the file is replaced atomically)
            if seen >= 2:
                break
            time.sleep(0.05)
    finally:
        interrupt(proc)
    with open(log_path) as f:
        print(f.read(), end="")
    print(f"[interrupted with {seen} points seen, exit {proc.returncode}]", flush=True)
    if seen < 2:
        fail(f"the sweep ended or stalled before writing 2 points (exit {proc.returncode})")

    partial = load(out)
    check_metadata(partial, args, grid)
    if partial["complete"] is not False:
        fail(f"an interrupted sweep says complete={partial['complete']!r}")
    done = partial["points"]
    k = len(done)
    if not 2 <= k < total:
        fail(f"the interrupted file holds {k} points, expected 2 to {total - 1}")
    done_keys = check_points(partial, grid, expect_complete=False)
    print(f"interrupted file: {k} of {total} points, complete false")

    # A file from a run with another process count must be refused, and left alone.
    other = os.path.join(tmp, "other-np.json")
    wrong = json.loads(json.dumps(partial))
    wrong["metadata"]["processes"] = args.np + 1
    with open(other, "w") as f:
        json.dump(wrong, f)
    with open(other) as f:
        before = f.read()
    p = run(resume_base + ["--resume", other], env, timeout=120)
    ours = [l for l in p.stderr.splitlines() if l.startswith("overlap-bench:")]
    if p.returncode != 2 or len(ours) != 1 or "processes" not in ours[0] \
            or str(args.np + 1) not in ours[0] or str(args.np) not in ours[0]:
        fail(f"resuming a {args.np + 1}-process file with {args.np} processes: exit "
             f"{p.returncode}, lines {ours}; expected exit 2 and one line naming both counts")
    with open(other) as f:
        if f.read() != before:
            fail("the refused resume file was modified")

    # The same command with one sweep option changed would mix two sweeps: refused before
    # MPI starts, in one line naming the option, the value given and the file's value.
    changed = list(base)
    at = changed.index("--iterations")
    changed[at + 1] = "7"
    p = run(changed + ["--resume", out], env, timeout=120)
    ours = [l for l in p.stderr.splitlines() if l.startswith("overlap-bench:")]
    if p.returncode != 2 or len(ours) != 1 or "--iterations 7" not in ours[0] \
            or "--iterations 5" not in ours[0]:
        fail(f"--iterations 7 with --resume of a 5-iteration sweep: exit {p.returncode}, "
             f"lines {ours}; expected exit 2 and one line naming both values")
    if load(out)["points"] != done:
        fail("a refused resume changed the file")

    # The habit: the original command again, with --resume added. It continues the sweep,
    # writing back into the same file.
    p = run(base + ["--resume", out], env)
    if p.returncode != 0:
        fail(f"resumed run: exit code {p.returncode}")
    if f"resuming: {k} of {total}" not in p.stdout:
        fail(f"resumed run does not say 'resuming: {k} of {total}'")
    rows = console_rows(p.stdout, grid)
    remaining = grid_keys(grid) - set(done_keys)
    if len(rows) != len(set(rows)) or set(rows) != remaining:
        fail(f"resumed run printed rows {sorted(rows)}, expected exactly {sorted(remaining)}")
    final = load(out)
    check_metadata(final, args, grid)
    keys = check_points(final, grid, expect_complete=True)
    if len(keys) != total:
        fail(f"{len(keys)} points after resuming, the grid has {total}")
    if final["points"][:k] != done:
        for old in done:
            new = [q for q in final["points"] if q["op"] == old["op"]
                   and q["target_comm_s"] == old["target_comm_s"]
                   and q["target_comp_s"] == old["target_comp_s"]]
            if new != [old]:
                fail(f"earlier point changed or was redone:\n  before {old}\n  after  {new}")
        fail("the earlier points are no longer first, in their order")
    print(f"resumed: {total - k} points measured, {k} kept unchanged")


def binding(args, env, tmp):
    """One rank given CPUs 0-1 (taskset), one computation thread, liboverlap dedicated: read
    back from /proc and hwloc (metadata.placement.threads), the computation runs on CPU 0
    and the progress thread on CPU 1, the core left free (issue 27, item 4)."""
    out = os.path.join(tmp, "binding.json")
    cmd = ["taskset", "-c", "0-1"] + launcher(args, 1)
    if args.flavor == "openmpi":
        cmd += ["--bind-to", "none"]
    p = run(cmd + [args.bench, "nbc", "--impl", "overlap", "--progress", "dedicated",
                   "--threads", "1", "--comm-times", "1ms", "--comp-times", "1ms",
                   "--iterations", "3", "--peer-iterations", "0", "--output", out], env)
    if p.returncode != 0:
        fail(f"exit code {p.returncode}")
    meta = load(out)["metadata"]
    args.np = 1
    check_threads_read_back(meta, 1, 1)
    r = meta["placement"]["threads"]["ranks"][0]
    if (r["computation"], r["progress"]) != (["0"], ["1"]):
        fail(f"computation on {r['computation']}, progress on {r['progress']}: expected CPU 0 "
             "and CPU 1")


def main():
    ap = argument_parser()
    ap.add_argument("--mode", choices=["sweep", "peers", "resume", "binding"], default="sweep")
    args = ap.parse_args()
    env = mpi_env()
    modes = {"sweep": sweep, "peers": peers, "resume": resume, "binding": binding}
    main_frame("check_nbc.", lambda tmp: modes[args.mode](args, env, tmp))


if __name__ == "__main__":
    main()
