#!/usr/bin/python3
"""Bad input to overlap-bench: one clear line naming the value, exit code 2, before MPI starts.

Runs each case directly (singleton) and under mpiexec with several ranks; under mpiexec the
line must appear once (rank 0 prints it), and the launcher must return 2.
"""
import argparse
import os
import subprocess
import sys

CASES = [
    (["sync", "--bogus"], "--bogus"),
    (["sync", "--verify-after", "10"], "'10'"),
    (["sync", "--verify-after", "-1s"], "'-1s'"),
    (["sync", "--span", "1.5parsecs"], "'1.5parsecs'"),
    (["sync", "--passes", "0"], "'0'"),
    (["sync", "--passes", "1"], "'1'"),
    (["sync", "--patience", "-5"], "'-5'"),
    (["sync", "--barrier-iterations", "abc"], "'abc'"),
    (["sync", "--clock", "sundial"], "'sundial'"),
    (["sync", "--scheme", "star"], "'star'"),
    (["sync", "--output", "/nonexistent-dir/x.json"], "/nonexistent-dir"),
    (["frobnicate"], "frobnicate"),
    ([], "subcommand"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--flavor", required=True)
    ap.add_argument("--np", type=int, default=3)
    args = ap.parse_args()
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    launch = [args.mpiexec, "-n", str(args.np)]
    if args.flavor == "openmpi":
        launch.insert(1, "--oversubscribe")
    failures = 0
    for argv, needle in CASES:
        for prefix in ([], launch):
            cmd = prefix + [args.bench] + argv
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
            ours = [l for l in p.stderr.splitlines() if l.startswith("overlap-bench:")]
            ok = p.returncode == 2 and len(ours) == 1 and needle in ours[0]
            print(("ok   " if ok else "FAIL ") + " ".join(cmd) + f"  -> rc={p.returncode} {ours}")
            failures += not ok
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
