"""What the MPI test scripts share: failures as exceptions, number checks, the launcher
command for each MPI, running a job in its own session (so a timeout or an interrupt takes
its ranks down too), and the main() frame that keeps files of a failed run for inspection."""
import argparse
import math
import os
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


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def close(a, b, rel=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=1e-12)


# The schema version each benchmark writes (docs/result-format.md).
SCHEMA_VERSIONS = {"sync": 2, "nbc": 5, "impact": 2, "latency": 2, "coll": 1, "progress": 1,
                   "part": 2, "p2p": 3}

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


def part_points(doc, sizes, partitions, impls):
    """part's points keyed (requested_bytes, partitions, impl): each exactly once, all there."""
    points = {}
    for p in doc["points"]:
        key = (p.get("requested_bytes"), p.get("partitions"), p.get("impl"))
        if key in points:
            fail(f"point {key} appears twice")
        points[key] = p
    want = {(s, n, i) for s in sizes for n in partitions for i in impls}
    if set(points) != want:
        fail(f"points {sorted(points)}, expected {sorted(want)}")
    return points
