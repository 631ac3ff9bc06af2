#!/usr/bin/python3
"""A program written against MPI's own partitioned API (intercept_partitioned.c) under
overlap-run, whose MPI_Psend_init family goes to liboverlap's partitioned layer (MPICH).

    check_partitioned.py equality --program P --run R   plain and under overlap-run (routed,
                                                        and with --partitioned mpi): the same
                                                        digests; the report says who served
    check_partitioned.py early --program P --run R      under overlap-run, partition 0 arrives
                                                        before the sender's last Pready
    check_partitioned.py errors --program P --run R     misuse: MPI errors naming the value
    check_partitioned.py filled --program P --run R     partitions filled by deferred
                                                        MPI_Recv, then MPI_Pready at once
    check_partitioned.py types --types-program T ...    derived datatypes on each side, error
                                                        handlers, tags the layer does not take
"""
import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mpi"))
from mpitest import Failure, fail, launcher, main_frame, mpi_env, run  # noqa: E402


def digests(out):
    return dict(re.findall(r"^rank (\d+) digest ([0-9a-f]+)$", out, re.M))


def passed(p, what):
    """Both ranks printed PASS, nobody FAIL, exit 0."""
    if p.returncode != 0 or "FAIL" in p.stdout or p.stdout.count(" PASS") != 2:
        print(p.stdout + p.stderr)
        fail(f"{what}: exit {p.returncode}, not PASS on both ranks")


def under_run(args, report, program_args, extra=()):
    opts = ["--report", report, *extra] if report else list(extra)
    return [*launcher(args, 2), args.run, *opts, "--", args.program, *program_args]


def routed_counts(report):
    with open(report) as f:
        doc = json.load(f)
    return doc["metadata"].get("partitioned"), [r.get("partitioned_routed") for r in doc["ranks"]]


def do_equality(args, tmp):
    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 30)
    print(f"seed {seed} (rerun with --seed {seed})")
    case_args = ["cases", str(seed), str(args.cases)]
    env = mpi_env()
    plain = run([*launcher(args, 2), args.program, *case_args], env, timeout=600)
    passed(plain, "plain run")
    want = digests(plain.stdout)
    if len(want) != 2:
        fail(f"plain run printed digests {want}")
    for setting, expect_routed in (("overlap", args.cases), ("mpi", 0)):
        report = os.path.join(tmp, f"report-{setting}.json")
        # Routed, the inactive request's status must also be empty, as MPI 4.0 says (MPICH
        # 4.0.2's own leaves the last epoch's source and tag there).
        strict = ["strict"] if setting == "overlap" else []
        p = run(under_run(args, report, case_args + strict, ["--partitioned", setting]), env,
                timeout=600)
        passed(p, f"under overlap-run --partitioned {setting}")
        got = digests(p.stdout)
        if got != want:
            fail(f"--partitioned {setting}: digests {got}, plain {want}")
        served, counts = routed_counts(report)
        # One partitioned request per rank per case: all routed, or none.
        if served != setting or counts != [expect_routed, expect_routed]:
            fail(f"--partitioned {setting}: report says {served!r}, routed {counts}, expected "
                 f"{expect_routed} per rank")


def do_early(args, tmp):
    flag = os.path.join(tmp, "arrived")
    report = os.path.join(tmp, "report.json")
    p = run(under_run(args, report, ["early", flag, str(args.seconds)]), mpi_env(), timeout=600)
    passed(p, "early transfer under overlap-run")
    if "partition 0 arrived before the last Pready" not in p.stdout:
        fail("the sender did not see partition 0 arrive before its last Pready")
    served, counts = routed_counts(report)
    if served != "overlap" or counts != [1, 1]:
        fail(f"report: {served!r}, routed {counts}; expected overlap, [1, 1]")


def do_errors(args, tmp):
    p = run(under_run(args, None, ["errors"]), mpi_env(), timeout=300)
    passed(p, "refusals under overlap-run")


def do_filled(args, tmp):
    report = os.path.join(tmp, "report.json")
    p = run(under_run(args, report, ["filled"]), mpi_env(), timeout=300)
    passed(p, "partitions filled by MPI_Recv under overlap-run")
    with open(report) as f:
        doc = json.load(f)
    deferred = sum(s.get("deferred", 0) for r in doc["ranks"] for s in r["call_sites"]
                   if s.get("call") == "MPI_Recv")
    if deferred < 2:
        fail(f"the fills were not deferred ({deferred} deferred MPI_Recv), so this tested "
             "nothing")
    served, counts = routed_counts(report)
    if served != "overlap" or counts != [1, 1]:
        fail(f"report: {served!r}, routed {counts}; expected overlap, [1, 1]")


def do_types(args, tmp):
    """Derived datatypes on each side (intercept_partitioned_types.c), drawn independently,
    on communicators whose error handler aborts or returns: plain and under overlap-run the
    same bytes, elements and holes as MPI alone leaves them, and every pair served by one
    implementation on both sides (routed where the tag is the layer's, else MPI's own)."""
    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 30)
    print(f"seed {seed} (rerun with --seed {seed})")
    prog = [args.types_program, str(seed), str(args.cases)]
    env = mpi_env()
    plain = run([*launcher(args, 2), *prog], env, timeout=600)
    if plain.returncode != 0:
        fail(f"plain run: exit {plain.returncode}")
    want = digests(plain.stdout)
    report = os.path.join(tmp, "report.json")
    p = run([*launcher(args, 2), args.run, "--report", report, "--", *prog], env, timeout=600)
    if p.returncode != 0:
        fail(f"under overlap-run: exit {p.returncode}")
    got = digests(p.stdout)
    if len(want) != 2 or got != want:
        fail(f"digests under overlap-run {got}, plain {want}")
    routable = [int(v) for v in re.findall(r"^rank \d+ routable (\d+)$", p.stdout, re.M)]
    served, counts = routed_counts(report)
    print(f"routed per rank {counts}, routable cases {routable}")
    if served != "overlap" or counts != routable or not routable or routable[0] == 0:
        fail(f"report: {served!r}, routed {counts}; expected {routable} (the cases whose tag "
             "the layer takes)")


def do_types_soak(args, tmp):
    """types round after round with fresh seeds for --seconds; every failing seed listed."""
    deadline = time.monotonic() + args.seconds
    rounds, failures = 0, []
    while time.monotonic() < deadline:
        a = argparse.Namespace(**vars(args))
        a.seed = random.randrange(1, 1 << 30)
        try:
            do_types(a, tempfile.mkdtemp(dir=tmp))
        except Failure as e:
            failures.append(f"--seed {a.seed}: {e}")
            print(f"SOAK FAILURE: {failures[-1]}")
        rounds += 1
    print(f"soak: {rounds} rounds of types, {len(failures)} failed")
    if failures or rounds == 0:
        fail("; ".join(failures) or "no round ran")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode",
                    choices=["equality", "early", "errors", "filled", "types", "types-soak"])
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--run", required=True, help="overlap-run")
    ap.add_argument("--program", required=True, help="intercept-partitioned")
    ap.add_argument("--types-program", help="intercept-partitioned-types")
    ap.add_argument("--cases", type=int, default=16)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--seconds", type=float, default=120.0,
                    help="early: how long the sender waits for partition 0 to arrive; "
                         "types-soak: how long to run")
    args = ap.parse_args()
    body = {"equality": do_equality, "early": do_early, "errors": do_errors,
            "filled": do_filled, "types": do_types, "types-soak": do_types_soak}[args.mode]
    main_frame(f"check_partitioned.{args.mode}.", lambda tmp: body(args, tmp))


if __name__ == "__main__":
    main()
