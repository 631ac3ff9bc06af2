#!/usr/bin/python3
"""Bad input to overlap-bench: one clear line naming the value, exit code 2, before MPI starts.

Runs each case directly (singleton) and under mpiexec with several ranks; under mpiexec the
line must appear once (rank 0 prints it), and the launcher must return 2.
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

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
    (["nbc", "--op", "ibcastt"], "'ibcastt'"),
    (["nbc", "--op", "ibcast,"], "'ibcast,'"),
    (["nbc", "--comm-times", ""], "--comm-times: ''"),
    (["nbc", "--comp-times", "1ms,,4ms"], "'1ms,,4ms'"),
    (["nbc", "--comp-times", "4ms:1ms"], "'4ms:1ms'"),
    (["nbc", "--comm-times", "5parsecs"], "'5parsecs'"),
    (["nbc", "--comm-times", "0ms"], "'0ms'"),
    (["nbc", "--tolerance", "150%"], "'150%'"),
    (["nbc", "--max-buffer", "12XB"], "'12XB'"),
    (["nbc", "--iterations", "0"], "'0'"),
    (["nbc", "--bar", "sometimes"], "'sometimes'"),
    (["nbc", "--resume", "/nonexistent/file.json"], "'/nonexistent/file.json'"),
    (["nbc", "--dedicate-cores", "64"], "'64'"),
    (["impact", "--comp-times", "abc"], "'abc'"),
    (["impact", "--runs", "-1"], "'-1'"),
    (["impact", "--progress", "eager"], "'eager'"),
    (["nbc", "--impl", "ompi"], "'ompi'"),
    (["nbc", "--progress", "busy"], "'busy'"),
    (["nbc", "--test-interval", "abc"], "'abc'"),
    (["nbc", "--test-interval", "1.5B"], "'1.5B'"),
    (["nbc", "--peer-iterations", "-1"], "'-1'"),
    (["nbc", "--peer-iterations", "ten"], "'ten'"),
    (["latency", "--op", "bcast"], "'bcast'"),
    (["coll", "--op", "ibcast"], "'ibcast'"),
    (["coll", "--window", "0s"], "'0s'"),
    (["coll", "--naive", "maybe"], "'maybe'"),
    (["coll", "--sizes", "4B", "--op", "allreduce"], "4 B"),
    (["progress", "--test-intervals", "16KiB,,64KiB"], "'16KiB,,64KiB'"),
    (["progress", "--impl", "mpi,ovx"], "'ovx'"),
    (["p2p", "--impl", "blocking,isend"], "'isend'"),
    (["p2p", "--impl", "overlap-run"], "'overlap-run'"),
    (["p2p", "--comp-times", "1ms,fast"], "'fast'"),
    (["p2p", "--impl", "nonblocking-liboverlap", "--progress", "eager"], "'eager'"),
    (["p2p", "--sizes", "4GiB"], "4294967296"),
    (["advise", "--setups", "mpi,advice"], "'advice'"),
    (["advise", "--setups", "overall"], "'overall'"),
    (["advise", "--setups", "mpi,turbo"], "'turbo'"),
    (["advise", "--op", "allreduce"], "'allreduce'"),
    (["advise", "--from", "/nonexistent/report.json"], "/nonexistent/report.json cannot be read"),
    (["advise", "--size", "1KiB:1MiB", "--comp-time", "1ms:8ms"], "44 cells"),
    (["advise", "--op", "ibarrier", "--comm-time", "1ms,2ms"], "ibarrier has no message"),
    (["advise", "--margin", "150%"], "150%"),
    (["advise", "--size", "1.5B"], "1.5B"),
    (["advise", "--op", "ibarrier", "--size", "1KiB"], "ibarrier has no message"),
    (["advise", "--comp-time", "0s"], "'0s'"),
    (["progress", "--threads", "0"], "'0'"),
    (["part", "--sizes", "4B", "--partitions", "8"], "--sizes 4 in 8 partitions"),
    (["part", "--pattern", "stencil"], "'stencil'"),
    (["schema", "--format", "yaml"], "'yaml'"),
]


def file_cases(tmp):
    """Cases that need a file: --resume of something that is not an nbc result."""
    not_json = os.path.join(tmp, "not-json.json")
    with open(not_json, "w") as f:
        f.write("this is not JSON {\n")
    sync = os.path.join(tmp, "sync-result.json")
    with open(sync, "w") as f:
        f.write('{"schema_version":1,"benchmark":"sync"}\n')
    missing = os.path.join(tmp, "missing.json")  # its directory exists
    return [
        (["nbc", "--resume", not_json], f"'{not_json}'"),
        (["nbc", "--resume", sync], f"'{sync}'"),
        (["nbc", "--resume", missing], f"'{missing}'"),
        (["nbc", "--resume", tmp], f"'{tmp}'"),  # a directory
        (["coll", "--resume", sync], f"'{sync}'"),
        (["progress", "--resume", not_json], f"'{not_json}'"),
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

    def check(cmd, needle):
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)
        ours = [l for l in p.stderr.splitlines() if l.startswith("overlap-bench:")]
        ok = p.returncode == 2 and len(ours) == 1 and needle in ours[0]
        shown = " ".join(a if a else "''" for a in cmd)
        return ok, ("ok   " if ok else "FAIL ") + shown + f"  -> rc={p.returncode} {ours}"

    with tempfile.TemporaryDirectory() as tmp:
        runs = [(prefix + [args.bench] + argv, needle)
                for argv, needle in CASES + file_cases(tmp) for prefix in ([], launch)]
        # Each run is a process start and a refusal: mostly waiting, so a few at a time.
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            results = list(pool.map(lambda r: check(*r), runs))
    for _, line in results:
        print(line)
    failures = sum(not ok for ok, _ in results)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
