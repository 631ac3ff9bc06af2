"""What the MPI test scripts share: failures as exceptions, number checks, the launcher
command for each MPI, running a job in its own session (so a timeout or an interrupt takes
its ranks down too), and the main() frame that keeps files of a failed run for inspection."""
import argparse
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


class Failure(Exception):
    pass


def fail(msg):
    raise Failure(msg)


# What liboverlap may report per collective (OVX_Algorithm); MPI's own points report none.
ALGORITHMS = {
    "bcast": {"binomial", "scatter_allgather"}, "reduce": {"binomial", "reduce_scatter_gather"},
    "allreduce": {"recursive_doubling", "rabenseifner", "ring"}, "allgather": {"bruck", "ring"},
    "alltoall": {"pairwise", "bruck"}, "gather": {"binomial", "linear"}, "scatter": {"binomial", "linear"},
    "reduce_scatter_block": {"recursive_halving", "ring"}, "barrier": {"dissemination"},
}


def check_algorithm(p, where, nranks):
    op = p["op"][1:] if p["op"].startswith("i") and p["op"][1:] in ALGORITHMS else p["op"]
    got = p.get("algorithm")
    if p["impl"] == "mpi":
        if got != "":
            fail(f"{where}: algorithm {got!r} on MPI's own point")
    elif nranks > 1 and got not in ALGORITHMS[op]:
        fail(f"{where}: algorithm {got!r}, expected one of {sorted(ALGORITHMS[op])}")
    elif nranks == 2 and op == "allreduce" and got != "recursive_doubling":
        fail(f"{where}: algorithm {got!r} on 2 ranks, expected recursive_doubling")


def check_cost_model(doc, nranks):
    """A run with liboverlap records the cost model it calibrated (OVX_Calibrate) and the
    progress policy in effect with its reason."""
    m = doc["metadata"].get("cost_model")
    if "overlap" not in doc["config"].get("impls", []):
        if m is not None:
            fail(f"metadata.cost_model is {m} in a run without liboverlap")
        return
    if m is None:
        fail("metadata.cost_model is null in a run with liboverlap")
    want = "measured" if nranks > 1 else "default"
    if m["source"] != want:
        fail(f"metadata.cost_model.source is {m['source']!r}, expected {want!r}")
    c = doc["metadata"].get("progress_choice")
    if c is None or c["policy"] not in ("caller", "shared", "dedicated") or not c["reason"]:
        fail(f"metadata.progress_choice is {c!r} in a run with liboverlap")
    if doc["config"].get("progress") == "auto" and not c["reason"].startswith("auto: "):
        fail(f"--progress auto, yet the recorded reason is {c['reason']!r}")
    if not (is_num(m["latency_s"]) and 0 < m["latency_s"] < 1
            and is_num(m["bandwidth_bytes_per_s"]) and m["bandwidth_bytes_per_s"] > 0):
        fail(f"metadata.cost_model has implausible values: {m}")


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def close(a, b, rel=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


# The schema version each benchmark writes (docs/result-format.md).
SCHEMA_VERSIONS = {"sync": 2, "nbc": 7, "impact": 3, "latency": 3, "coll": 3, "progress": 2,
                   "part": 2, "p2p": 5, "advise": 3}

KINDS = {
    "number": lambda v: is_num(v),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "text": lambda v: isinstance(v, str),
    "name": lambda v: isinstance(v, str),
    "numbers": lambda v: isinstance(v, list) and all(is_num(x) for x in v),
    "names": lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v),
    "section": lambda v: isinstance(v, dict),
    "sections": lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v),
    "mapping": lambda v: isinstance(v, dict) and all(isinstance(x, str) for x in v.values()),
}


def check_fields(obj, fields, where):
    """`obj` has exactly the fields the embedded schema names (a mapping named null_reasons
    may be left out when empty), each of its kind, null only where the schema allows it,
    names from their vocabulary, nested sections recursively."""
    names = {f["name"] for f in fields}
    missing = names - set(obj) - {"null_reasons"}
    extra = set(obj) - names
    if missing or extra:
        fail(f"{where}: fields differ from the embedded schema: missing {sorted(missing)}, "
             f"unexpected {sorted(extra)}")
    for f in fields:
        if f["name"] not in obj:
            continue
        v = obj[f["name"]]
        at = f"{where}.{f['name']}"
        if v is None:
            if not f["nullable"]:
                fail(f"{at} is null, the schema says it cannot be")
            continue
        if not KINDS[f["kind"]](v):
            fail(f"{at} is {v!r}, not of kind {f['kind']}")
        allowed = f.get("allowed")
        if allowed:
            values = v if isinstance(v, list) else [v]
            if any(x not in allowed for x in values):
                fail(f"{at} is {v!r}, allowed: {allowed}")
        if f["kind"] == "section":
            check_fields(v, f["fields"], at)
        if f["kind"] == "sections":
            for i, x in enumerate(v):
                check_fields(x, f["fields"], f"{at}[{i}]")


def check_schema(doc):
    schema = doc.get("schema")
    if not isinstance(schema, dict):
        fail("the file embeds no schema")
    check_fields(doc["metadata"], schema["metadata"], "metadata")
    check_fields(doc["config"], schema["config"], "config")
    check_fields(doc["timing"], schema["timing"], "timing")
    for i, p in enumerate(doc["points"]):
        check_fields(p, schema["points"], f"point {i}")


CPU_PHASES = ("comm_alone", "comp_alone", "overlapped")


def check_cpu(p, where, phases=CPU_PHASES, no_progress_in=()):
    """CPU accounting (docs/cpu-accounting.md), any benchmark with a computation phase: on
    Linux a valid point has it for every rank with its mask and window lengths, the
    `phases` measured and the others null with a reason, and the decomposition adds up:
    remainder = lost - engine - transport - other, floor = 1 + transport, each share
    recomputed from the decomposed rank's phases, the kernel share worded as what it is.
    `no_progress_in`: the phases in which no liboverlap progress thread worked, so none may
    have used CPU."""
    cpu, d = p["cpu"], p["decomposition"]
    reasons = p.get("null_reasons") or {}
    if cpu is None or d is None:
        fail(f"{where}: cpu {cpu!r} / decomposition {d!r} null on Linux ({reasons})")
    ranks = sorted(r["rank"] for r in cpu["ranks"])
    if ranks != list(range(len(ranks))) or not ranks:
        fail(f"{where}: cpu ranks {ranks}")
    for r in cpu["ranks"]:
        for phase in CPU_PHASES:
            ph = r[phase]
            if phase not in phases:
                if ph is not None or not reasons.get(f"cpu.{phase}"):
                    fail(f"{where}: rank {r['rank']} {phase}: {ph!r}, expected null with a "
                         f"reason ({reasons})")
                continue
            if not ph["computation_s"] > 0:
                fail(f"{where}: rank {r['rank']} {phase}: computation_s {ph['computation_s']}")
            if abs(ph["progress_user_s"] + ph["progress_system_s"] - ph["progress_s"]) > 1e-9:
                fail(f"{where}: rank {r['rank']} {phase}: progress user + system != total")
            if not ph["wall_s"] > 0:
                fail(f"{where}: rank {r['rank']} {phase}: wall_s {ph['wall_s']}")
            if phase in no_progress_in and ph["progress_s"] != 0:
                fail(f"{where}: rank {r['rank']} {phase}: no progress thread worked, yet "
                     f"progress_s {ph['progress_s']}")
        if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", r["cpus"]):
            fail(f"{where}: rank {r['rank']}: cpus {r['cpus']!r} is not a CPU list")
    if d["transport"] is not None:
        rest = d["lost"] - d["engine"] - d["transport"] - d["other"]
        if not close(d["remainder"], rest) or not close(d["floor_slowdown"], 1 + d["transport"]):
            fail(f"{where}: decomposition does not add up: {d}")
    elif not reasons.get("decomposition.transport") or d["remainder"] is not None:
        fail(f"{where}: transport null without a reason, or a remainder without it: {d}")
    check_shares_recomputed(d, cpu["ranks"][d["rank"]], where)
    if not d["text"].startswith("computation slowed ") or \
            f"(rank {d['rank']}, mean of the kept iterations)" not in d["text"]:
        fail(f"{where}: decomposition text {d['text']!r}")
    if d["transport"] is not None:
        said_shared = "(CPUs shared: includes other processes' kernel time)" in d["text"]
        if "kernel time on this rank's CPUs" not in d["text"] or \
                said_shared != d["kernel_cpus_shared"]:
            fail(f"{where}: kernel share's wording {d['text']!r}, shared "
                 f"{d['kernel_cpus_shared']}")


def check_shares_recomputed(d, r, where):
    """The shares from the decomposed rank's recorded phases (docs/cpu-accounting.md):
    what the comp_alone window's rate would have used over the overlapped window is the
    background, so a share compares rates; an implementation subtracting amounts fails
    wherever the two windows differ in length."""
    al, ov = r["comp_alone"], r["overlapped"]
    f = min(1.0, d["t_comp_s"] / d["t_overlap_s"]) if d["t_overlap_s"] > 0 else 1.0
    stretch = ov["wall_s"] / al["wall_s"]

    def share(o, a):
        return f * (o - a * stretch) / d["t_comp_ref_s"]

    want = {"lost": (d["t_comp_s"] - d["t_comp_ref_s"]) / d["t_comp_ref_s"],
            "engine": share(ov["progress_user_s"], al["progress_user_s"]),
            "other": share(ov["other_threads_s"], al["other_threads_s"])}
    if d["transport"] is not None:
        want["transport"] = share(ov["kernel_outside_process_s"] + ov["progress_system_s"],
                                  al["kernel_outside_process_s"] + al["progress_system_s"])
    for key, value in want.items():
        if not close(d[key], value, rel=1e-6) and abs(d[key] - value) > 1e-9:
            fail(f"{where}: decomposition {key} {d[key]!r}, recomputed from rank "
                 f"{d['rank']}'s phases {value!r}")


def check_invalid_cpu(p, where):
    """An invalid point carries no CPU accounting: both sections null, each with a reason."""
    reasons = p.get("null_reasons") or {}
    if p["cpu"] is not None or p["decomposition"] is not None or \
            not reasons.get("cpu") or not reasons.get("decomposition"):
        fail(f"{where}: invalid, yet cpu/decomposition {p['cpu']!r} / {p['decomposition']!r} "
             f"(reasons {reasons})")


def flat_fields(doc):
    """The point fields a CSV file has as columns, in schema order."""
    flat = {"number", "integer", "boolean", "text", "name"}
    return [f["name"] for f in doc["schema"]["points"] if f["kind"] in flat]


def check_result_header(doc, benchmark, args):
    """What every result file carries (docs/result-format.md): the benchmark's schema
    version and name, sections that agree with the schema the file embeds, and metadata
    naming the run's process count, MPI flavour and thread level."""
    want = SCHEMA_VERSIONS[benchmark]
    if doc.get("schema_version") != want:
        fail(f"schema_version {doc.get('schema_version')!r}, expected {want}")
    if doc.get("benchmark") != benchmark:
        fail(f"benchmark {doc.get('benchmark')!r}, expected {benchmark!r}")
    meta = doc["metadata"]
    if meta.get("processes") != args.np:
        fail(f"metadata.processes {meta.get('processes')!r}, ran {args.np}")
    if meta.get("mpi_flavor") != args.flavor:
        fail(f"metadata.mpi_flavor {meta.get('mpi_flavor')!r}, built for {args.flavor}")
    level = meta.get("thread_level")
    if not (isinstance(level, str) and level.startswith("MPI_THREAD_")):
        fail(f"metadata.thread_level {level!r}")
    check_schema(doc)
    return meta


def cpu_set(text):
    """The CPUs of a Linux cpulist ("0-3,6")."""
    cpus = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def check_threads_read_back(meta, nranks, progress_threads):
    """metadata.placement.threads (read back from /proc and hwloc): per rank, one entry per
    computation thread, /proc and hwloc agreeing, inside the rank's CPU set; as many
    liboverlap progress threads as expected (0 or 1), a dedicated one on a core no
    computation thread has."""
    placement = meta.get("placement") or {}
    ranks = (placement.get("threads") or {}).get("ranks") or []
    if [r["rank"] for r in ranks] != list(range(nranks)):
        fail(f"placement.threads: ranks {[r['rank'] for r in ranks]}, expected 0..{nranks - 1}")
    for r in ranks:
        where = f"placement.threads rank {r['rank']}"
        if r["computation"] != r["computation_hwloc"] or r["progress"] != r["progress_hwloc"]:
            fail(f"{where}: /proc and hwloc disagree: {r}")
        if len(r["computation"]) != meta["threads"] or len(r["progress"]) != progress_threads:
            fail(f"{where}: {len(r['computation'])} computation and {len(r['progress'])} "
                 f"progress thread(s), expected {meta['threads']} and {progress_threads}")
        allowed = cpu_set(placement["cpus"][r["rank"]])
        used = [cpu_set(c) for c in r["computation"] + r["progress"]]
        if any(not c or not c <= allowed for c in used):
            fail(f"{where}: threads on {r['computation']} + {r['progress']}, outside the "
                 f"rank's CPUs {placement['cpus'][r['rank']]}")
        if (meta.get("progress_choice") or {}).get("policy") == "dedicated" and r["progress"]:
            if any(cpu_set(r["progress"][0]) & cpu_set(c) for c in r["computation"]):
                fail(f"{where}: the dedicated progress thread shares a CPU with the computation")


def launcher(args, np_):
    cmd = [args.mpiexec, "-n", str(np_)]
    if args.flavor == "openmpi":
        cmd[1:1] = ["--oversubscribe"]
    return cmd


def mpi_env():
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def argument_parser():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--np", type=int, required=True)
    return ap


def run(cmd, env, timeout=300):
    print("+", " ".join(cmd), flush=True)
    t0 = time.monotonic()
    # Own session, so a timeout can take the ranks down with the launcher.
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        interrupt(proc)
        out, err = proc.communicate()
        print(out + err)
        fail(f"no exit after {timeout} s: {' '.join(cmd)}")
    p = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    print(p.stdout, end="")
    if p.stderr:
        print("[stderr]\n" + p.stderr, end="")
    print(f"[exit {p.returncode} after {time.monotonic() - t0:.1f} s]", flush=True)
    return p


def session_pids(sid):
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After ")": state ppid pgrp session ...; skip zombies, they are only waiting for wait().
        if int(fields[3]) == sid and fields[0] != "Z":
            pids.append(int(entry))
    return pids


def interrupt(proc):
    """SIGTERM to the run's process group, SIGKILL after 5 s; then whatever is left of its
    session (a launcher may put ranks into their own process group)."""
    sid = proc.pid
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(sid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=grace)
            break
        except subprocess.TimeoutExpired:
            continue
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = [pid for pid in session_pids(sid) if pid != os.getpid()]
        if not left:
            return
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.2)
    fail(f"processes of the interrupted run survive: {session_pids(sid)}")


def main_frame(prefix, body):
    """Runs body(tmp) in a fresh temporary directory; PASS/FAIL and the exit code."""
    tmp = tempfile.mkdtemp(prefix=prefix)
    try:
        body(tmp)
    except (Failure, OSError, ValueError, KeyError) as e:
        print(f"FAIL: {type(e).__name__ + ': ' if not isinstance(e, Failure) else ''}{e}")
        print(f"(files kept in {tmp})")
        sys.exit(1)
    shutil.rmtree(tmp, ignore_errors=True)
    print("PASS")


def keyed_points(doc, fields, want):
    """The points keyed by the tuple of `fields`: each key exactly once, and exactly `want`."""
    points = {}
    for p in doc["points"]:
        key = tuple(p.get(f) for f in fields)
        if key in points:
            fail(f"point {key} appears twice")
        points[key] = p
    if set(points) != set(want):
        fail(f"points {sorted(points)}, expected {sorted(want)}")
    return points


def part_points(doc, sizes, partitions, impls):
    """part's points keyed (requested_bytes, partitions, impl): each exactly once, all there."""
    return keyed_points(doc, ("requested_bytes", "partitions", "impl"),
                        {(s, n, i) for s in sizes for n in partitions for i in impls})
