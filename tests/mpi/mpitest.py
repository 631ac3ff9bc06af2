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


def check_result_header(doc, benchmark, args):
    """What every result file carries (docs/result-format.md): schema 1, the benchmark's
    name, and metadata naming the run's process count, MPI flavour and thread level."""
    if doc.get("schema_version") != 1:
        fail(f"schema_version {doc.get('schema_version')!r}, expected 1")
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
