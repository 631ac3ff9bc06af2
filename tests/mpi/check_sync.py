#!/usr/bin/python3
"""Runs `overlap-bench sync` under mpiexec and checks the JSON it writes.

With --fake-rank R, rank R runs under libfaketime with +2.5 s and 50 ppm (scripts/faketime-rank):
its reported drift must be within 2 ppm of 50, its drift-corrected residual at most 10 us, and its
offset-only residual clearly larger (the 50 ppm accumulate over the verification delay).
Exit codes: 0 pass, 1 fail, 77 skip (ctest SKIP_RETURN_CODE).
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

from mpitest import SCHEMA_VERSIONS, Failure, check_schema

FAKE_SPEC = "+2.5 x1.00005"
FAKE_PPM = 50.0


class CheckFailed(Exception):
    pass


def fail(msg):
    raise CheckFailed(msg)


# MPICH 4.0.2 with UCX 1.13 (Debian 12) often hangs in MPI_Finalize across TCP nodes, after the
# program has finished (docs/emulated-cluster.md). On the cluster the run ends once the
# results file says complete and the job has had DONE_GRACE_S more to end (scripts/cluster
# run --done, which says so: the check repeats it loudly), bounded by RUN_TIMEOUT_S.
DONE_GRACE_S = 5
RUN_TIMEOUT_S = 120
DONE_STOPPED = "is complete but the job did not end within"


def launcher_command(args, np_, out):
    if args.cluster:
        cmd = [args.cluster, "run", "--mpi", args.flavor, "-n", str(np_)]
        if args.flavor == "mpich":
            cmd += ["--timeout", str(RUN_TIMEOUT_S), "--done", out]
        return cmd + ["--"]
    cmd = [args.mpiexec, "-n", str(np_)]
    if args.flavor == "openmpi":
        cmd[1:1] = ["--oversubscribe"]
    return cmd


def run(args):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OVERLAP_CLUSTER_DONE_GRACE=str(DONE_GRACE_S))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sync.json")
        prog = [args.bench, "sync", "--span", args.span, "--passes", "9",
                "--verify-after", args.verify_after, "--barrier-iterations", "50",
                "--output", out]
        if args.fake_rank is not None:
            prog = [args.faketime_rank, str(args.fake_rank), FAKE_SPEC] + prog
        cmd = launcher_command(args, args.np, out) + prog
        print("+", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=args.timeout)
        print(proc.stdout)
        if proc.returncode != 0:
            fail(f"exit code {proc.returncode}")
        if DONE_STOPPED in proc.stdout:
            print("WARNING: MPICH hung in MPI_Finalize after writing complete results "
                  "(known MPICH 4.0.2 + UCX 1.13 bug); checking the results anyway")
        with open(out) as f:
            return json.load(f), proc.stdout


def cpulist(text):
    """The CPUs of a Linux cpulist ("0-3,6"), or None when it is not one."""
    cpus = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return None
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus or None


def check_placement(meta, p):
    """metadata.placement: each rank's affinity mask as a cpulist of this machine's CPUs
    (the launcher may bind a rank to fewer), and no Slurm job outside one."""
    placement = meta.get("placement") or {}
    cpus = placement.get("cpus") or []
    online = set(range(os.cpu_count() or 1))
    sets = [cpulist(c) for c in cpus]
    if len(cpus) != p or any(c is None or not c <= online for c in sets):
        fail(f"metadata.placement.cpus {cpus}: expected {p} cpulists of CPUs 0-{max(online)}")
    if ("SLURM_JOB_ID" in os.environ) != (placement.get("slurm") is not None):
        fail(f"metadata.placement.slurm {placement.get('slurm')} with SLURM_JOB_ID "
             f"{os.environ.get('SLURM_JOB_ID')!r}")


def check(doc, stdout, args):
    p = args.np
    if doc.get("schema_version") != SCHEMA_VERSIONS["sync"] or doc.get("benchmark") != "sync":
        fail(f"schema_version {doc.get('schema_version')}, benchmark {doc.get('benchmark')!r}")
    check_schema(doc)
    if len(doc["points"]) != 1:
        fail(f"{len(doc['points'])} points, a sync run has one record")
    meta = doc["metadata"]
    if meta["processes"] != p or len(meta["hosts"]) != p:
        fail(f"metadata says {meta['processes']} processes / {len(meta['hosts'])} hosts, ran {p}")
    expect_flavor = args.flavor
    if meta["mpi_flavor"] != expect_flavor:
        fail(f"mpi_flavor {meta['mpi_flavor']}, built for {expect_flavor}")
    if args.expect_hosts and len(set(meta["hosts"])) != args.expect_hosts:
        fail(f"expected {args.expect_hosts} distinct hosts, got {meta['hosts']}")
    check_placement(meta, p)
    doc = doc["points"][0]  # the run's record
    ranks = doc["ranks"]
    if [r["rank"] for r in ranks] != list(range(p)):
        fail("ranks are not 0..P-1")
    if p == 1:
        if not doc["trivial"] or "trivial" not in stdout:
            fail("P = 1 must be reported as trivial")
        return
    steps_log, steps_linear = doc["steps_log"], doc["steps_linear"]
    if steps_log != math.ceil(math.log2(p)):
        fail(f"steps_log {steps_log}, expected ceil(log2 {p}) = {math.ceil(math.log2(p))}")
    if steps_linear != p - 1:
        fail(f"steps_linear {steps_linear}, expected {p - 1}")
    for key in ("sync_time_log_s", "sync_time_linear_s", "barrier_skew_s", "mpi_barrier_skew_s"):
        if not (isinstance(doc[key], (int, float)) and doc[key] > 0):
            fail(f"{key} = {doc[key]} is not a positive time")
    r0 = ranks[0]
    if any(r0[k] != 0 for k in ("offset_s", "drift_ppm", "residual_drift_s")):
        fail(f"rank 0 is the global clock, yet {r0}")
    for r in ranks[1:]:
        if not 0 < r["rtt_min_s"] < 0.05:
            fail(f"rank {r['rank']} rtt_min_s {r['rtt_min_s']}")
    if args.fake_rank is not None:
        f = ranks[args.fake_rank]
        drift, res_d, res_o = f["drift_ppm"], abs(f["residual_drift_s"]), abs(f["residual_offset_only_s"])
        print(f"fake rank {args.fake_rank}: drift {drift:.3f} ppm, residual drift {res_d * 1e6:.2f} us, "
              f"offset-only {res_o * 1e6:.2f} us after {doc['verify_elapsed_s']:.2f} s")
        if abs(drift - FAKE_PPM) > 2:
            fail(f"drift {drift} ppm is not within 2 ppm of {FAKE_PPM}")
        if res_d > 10e-6:
            fail(f"residual with drift correction {res_d} s > 10 us")
        # 50 ppm over the verification delay; require at least half of it and 5x the corrected one.
        expected = FAKE_PPM * 1e-6 * doc["verify_elapsed_s"]
        if res_o < 0.5 * expected or res_o < 5 * res_d:
            fail(f"offset-only residual {res_o} s is not clearly larger (expected ~{expected} s)")
        # A composition error would hand the faked rank's 50 ppm to the ranks below it in the
        # log tree (rank 5 hangs under rank 1 at P = 7); 10 ppm catches that without failing
        # on the few-ppm noise of 7 ranks on 2 cores in a sanitizer build.
        others = [r for r in ranks[1:] if r["rank"] != args.fake_rank]
        for r in others:
            if abs(r["drift_ppm"]) > 10:
                fail(f"unfaked rank {r['rank']} reports {r['drift_ppm']} ppm")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--np", type=int, required=True)
    ap.add_argument("--fake-rank", type=int)
    ap.add_argument("--faketime-rank", help="path of scripts/faketime-rank")
    ap.add_argument("--cluster", help="path of scripts/cluster: run on the emulated cluster")
    ap.add_argument("--expect-hosts", type=int)
    ap.add_argument("--span", default="2s")
    ap.add_argument("--verify-after", default="3s")
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args()
    if args.cluster:
        if os.geteuid() != 0:
            print("SKIP: the emulated cluster needs root (network namespaces)")
            sys.exit(77)
        if subprocess.run([args.cluster, "status"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode != 0:
            fail("the emulated cluster is not up (fixture cluster_up failed?)")
    # The drift and residual bounds are measurements: on a shared, oversubscribed machine
    # (CI runs this under ASan with 4-7 ranks on 2 cores) one run can miss them by noise.
    # A failure is retried once, visibly; a real error fails both runs.
    for attempt in (1, 2):
        try:
            doc, stdout = run(args)
            check(doc, stdout, args)
            print("PASS" if attempt == 1 else "PASS (on the retry)")
            return
        except (CheckFailed, Failure) as e:
            print(f"FAIL: {e}")
            if attempt == 2:
                sys.exit(1)
            print("RETRY: running once more (a loaded machine can spoil one run)", flush=True)


if __name__ == "__main__":
    main()
