#!/usr/bin/python3
"""Issue 29, item 4: the share of blocking point-to-point calls overlap-run defers, before
and after the exclusions it lifted, on one test set: the randomised programs of
tests/intercept (intercept-cases random, intercept-conformance derived; not owned, which
the code before aborts) with
fixed seeds, 2 local ranks, --min-size 0 (every size), policy shared. Each build's own
overlap-run runs the same program binaries (those of NEW).

    coverage.py --flavor openmpi|mpich --old BUILD_DIR --new BUILD_DIR [--out FILE.json]

Prints, per build, calls, deferred, the deferred share and the calls not deferred per
reason, and writes them as JSON."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

CASES = [("intercept-cases", "random", 11, 60), ("intercept-cases", "random", 12, 60),
         ("intercept-conformance", "derived", 21, 300), ("intercept-conformance", "derived", 22, 300)]


def run_build(flavor, build, programs, tmp):
    mpiexec = f"/usr/bin/mpiexec.{flavor}"
    extra = ["--oversubscribe"] if flavor == "openmpi" else []
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    totals = {"calls": 0, "deferred": 0}
    reasons = {}
    for program, case, seed, iterations in CASES:
        report = os.path.join(tmp, f"{os.path.basename(build)}-{case}-{seed}.json")
        cmd = [mpiexec, *extra, "-n", "2", os.path.join(build, "src/apps/overlap-run"),
               "--min-size", "0", "--progress", "shared", "--report", report, "--",
               os.path.join(programs, "tests/intercept", program), case, str(seed),
               str(iterations)]
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        with open(report) as f:
            doc = json.load(f)
        for r in doc["ranks"]:
            for s in r["call_sites"]:
                totals["calls"] += s["calls"]
                totals["deferred"] += s["deferred"]
                for k, v in s["not_deferred"].items():
                    reasons[k] = reasons.get(k, 0) + v
    return {"calls": totals["calls"], "deferred": totals["deferred"],
            "share": totals["deferred"] / totals["calls"] if totals["calls"] else None,
            "not_deferred": dict(sorted(reasons.items(), key=lambda kv: -kv[1]))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--old", required=True, help="build directory of the code before")
    ap.add_argument("--new", required=True, help="build directory of the code after")
    ap.add_argument("--out")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = {"flavor": args.flavor, "ranks": 2, "min_size": 0, "progress": "shared",
                  "cases": [list(c) for c in CASES],
                  "before": run_build(args.flavor, args.old, args.new, tmp),
                  "after": run_build(args.flavor, args.new, args.new, tmp)}
    for when in ("before", "after"):
        r = result[when]
        print(f"{args.flavor} {when}: {r['deferred']} of {r['calls']} calls deferred "
              f"({100 * r['share']:.1f} %); not deferred: {r['not_deferred']}")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
