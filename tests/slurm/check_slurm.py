#!/usr/bin/python3
"""The batch scripts of examples/slurm, submitted as a user would (sbatch) to the
real Slurm that scripts/slurm runs on the emulated cluster (issue 27).

  check_slurm.py --slurm scripts/slurm --examples examples/slurm --work DIR --case CASE
                 --launch srun|mpiexec --bench B [--run R --report P --jacobi J --mpiexec M]

CASE is sync, coll, nbc, advise or overlap-run. The job must end with exit code 0:0 on 2 nodes, one rank
each; its result file must be complete, name both nodes and record the Slurm job that
made it (metadata.placement.slurm); overlap-run's job must print the same iterations and
residual bits plain, under overlap-run per rank and around the launcher. Exits 77 with
the reason when Slurm is not up here (scripts/slurm up could not start it)."""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

# Small sizes: the test is about the launch forms and what the file records.
ARGS = {
    "sync": ("SYNC_ARGS", "--span 2s --passes 5 --barrier-iterations 20"),
    "coll": ("COLL_ARGS", "--op allreduce,bcast --sizes 1KiB,64KiB --iterations 10"),
    "nbc": ("NBC_ARGS", "--op iallreduce --comm-times 4ms --comp-times 4ms --iterations 5 "
                        "--peer-iterations 2"),
    "advise": ("ADVISE_ARGS", "--comm-time 2ms --comp-time 2ms --iterations 5 --warmup 1"),
    "overlap-run": ("JACOBI_ARGS", "8192 64 40"),
}


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    for opt in ("--slurm", "--examples", "--work", "--case", "--launch", "--bench", "--run",
                "--report", "--jacobi", "--mpiexec"):
        ap.add_argument(opt, required=opt in ("--slurm", "--examples", "--work", "--case",
                                              "--launch", "--bench"))
    args = ap.parse_args()

    if subprocess.run([args.slurm, "status"], capture_output=True).returncode != 0:
        print("SKIP: Slurm is not up here (see the output of the slurm.up test)")
        sys.exit(77)

    work = os.path.join(args.work, f"{args.case}-{args.launch}")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    for name in ("common.sh", f"{args.case}.sh"):
        shutil.copy(os.path.join(args.examples, name), work)
    var, value = ARGS[args.case]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OVERLAP_BENCH=args.bench, LAUNCH=args.launch, **{var: value})
    for key, opt in (("OVERLAP_RUN", args.run), ("OVERLAP_REPORT", args.report),
                     ("JACOBI", args.jacobi), ("MPIEXEC", args.mpiexec)):
        if opt:
            env[key] = opt
    cmd = [args.slurm, "exec", "sbatch", "--parsable", "--time=10",
           f"--chdir={work}", os.path.join(work, f"{args.case}.sh")]
    print("+", " ".join(cmd), flush=True)
    job, cancelled = submit_and_wait(args, cmd, env, work)
    outputs = [f for f in os.listdir(work) if f.endswith(".out")]
    log = "".join(open(os.path.join(work, f)).read() for f in outputs)
    print(log, flush=True)
    # The job's own exit: the batch script ends with `exit N` lines in its output only on
    # failure, so the Slurm controller's record is read (scontrol keeps ended jobs a while).
    if not cancelled:
        info = subprocess.run([args.slurm, "exec", "scontrol", "show", "job", job],
                              capture_output=True, text=True).stdout
        code = re.search(r"ExitCode=(\d+):(\d+)", info)
        if not code or code.groups() != ("0", "0"):
            fail(f"job {job} ended with {code.group(0) if code else 'no ExitCode'}: {info[:400]}")
    if f"job {job}:" not in log:
        fail(f"the job's output does not start with its id {job}")

    if args.case == "overlap-run":
        check_jacobi(log)
        for name in (f"jacobi-{job}.json", f"jacobi-launcher-{job}.json"):
            if not os.path.exists(os.path.join(work, name)):
                fail(f"overlap-run wrote no report {name}: it did not intercept")
    else:
        doc = check_result(os.path.join(work, f"{args.case}-{job}.json"), job)
        if args.case == "nbc":
            # 2 CPUs per task, one computation thread: auto takes the second for progress.
            choice = doc["metadata"].get("progress_choice") or {}
            if choice.get("policy") != "dedicated":
                fail(f"--cpus-per-task=2 with 1 thread: progress_choice is {choice}, "
                     "expected dedicated")
            # The computation on the first CPU of the rank's two, the second left to
            # progress (the node's CPUs are 0-1 here).
            md = doc["metadata"]
            if md.get("dedicated_cores") != 1 or md.get("thread_pus") != ["0"]:
                fail(f"dedicated_cores {md.get('dedicated_cores')}, thread_pus "
                     f"{md.get('thread_pus')}: expected 1 and ['0']")
            # ... and so they run, read back from /proc and hwloc on each node.
            for r in md["placement"]["threads"]["ranks"]:
                got = (r["computation"], r["computation_hwloc"], r["progress"],
                       r["progress_hwloc"])
                if got != (["0"], ["0"], ["1"], ["1"]):
                    fail(f"rank {r['rank']}: computation on {got[0]} (hwloc {got[1]}), "
                         f"progress on {got[2]} (hwloc {got[3]}): expected CPU 0 and CPU 1")
        if args.case == "advise":
            # 2 CPUs per task: two computation threads, and the set-ups that leave one of
            # them to progress measured; the advice computed from the set-ups.
            pts = {p["setup"]: p for p in doc["points"]}
            for s in ("mpi", "shared+core", "dedicated+core"):
                if pts[s]["status"] != "measured" or pts[s]["threads"] != (1 if "+" in s else 2):
                    fail(f"advise {s}: {pts[s]['status']} on {pts[s]['threads']} thread(s): "
                         f"{pts[s]['reason']}")
            if pts["advice"]["status"] != "measured" or "# advice: " not in log:
                fail(f"advise: no advice: {pts['advice']['reason']}")
        if args.case in ("coll", "nbc", "advise") and cancelled:
            print("NOTE: no report checked: the job was cancelled before its report step",
                  flush=True)
        elif args.case in ("coll", "nbc", "advise"):
            index = os.path.join(work, f"{args.case}-{job}-report", "summary.html")
            if not os.path.exists(index):
                fail(f"no report at {index}")
    print(f"PASS slurm {args.case} ({args.launch}), job {job}")


def submit_and_wait(args, cmd, env, work):
    """sbatch, then squeue every second until the job is gone (sbatch --wait polls every
    10 s), bounded: 300 s, or 30 s after the result file says complete (MPICH 4.0.2 with
    UCX may hang in MPI_Finalize after finishing, docs/emulated-cluster.md): then the job
    is cancelled and the checks go on, with a note. Returns (job id, whether cancelled)."""
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60)
    job = p.stdout.strip().split(";")[0]
    if p.returncode != 0 or not re.fullmatch(r"\d+", job):
        fail(f"sbatch: exit {p.returncode}: {p.stdout.strip()} {p.stderr.strip()}")
    start = time.monotonic()
    done_at = None
    while True:
        q = subprocess.run([args.slurm, "exec", "squeue", "-h", "-j", job, "-o", "%T"],
                           capture_output=True, text=True)
        if q.returncode != 0 or not q.stdout.strip():
            break
        time.sleep(1)
        if done_at is None and args.case != "overlap-run" and any_complete(work):
            done_at = time.monotonic()
        late = done_at is not None and time.monotonic() - done_at > 30
        if late or time.monotonic() - start > 300:
            subprocess.run([args.slurm, "exec", "squeue"])
            subprocess.run([args.slurm, "exec", "scancel", job])
            if not late:
                fail("the job did not end within 300 s (cancelled; squeue above)")
            print("NOTE: the job wrote complete results, then did not end within 30 s "
                  "(cancelled)", flush=True)
            return job, True
    return job, False


def any_complete(work):
    for name in os.listdir(work):
        if name.endswith(".json"):
            try:
                if json.load(open(os.path.join(work, name))).get("complete") is True:
                    return True
            except (OSError, ValueError):
                pass
    return False


def check_result(path, job):
    if not os.path.exists(path):
        fail(f"no result file {path}")
    doc = json.load(open(path))
    if doc.get("complete") is not True:
        fail(f"{path}: complete is {doc.get('complete')!r}")
    md = doc["metadata"]
    hosts = md.get("hosts") or []
    if md.get("processes") != 2 or len(set(hosts)) != 2:
        fail(f"{path}: {md.get('processes')} processes on hosts {hosts}, expected 2 nodes")
    slurm = (md.get("placement") or {}).get("slurm") or {}
    if str(slurm.get("job_id")) != job or slurm.get("nodes") != 2:
        fail(f"{path}: metadata.placement.slurm is {slurm}, expected job {job} on 2 nodes")
    return doc


def check_jacobi(log):
    parts = re.split(r"^== (.*)$", log, flags=re.M)[1:]
    runs = dict(zip(parts[0::2], parts[1::2]))
    want = ["plain", "overlap-run per rank", "overlap-run around the launcher"]
    if list(runs) != want:
        fail(f"the job ran {list(runs)}, expected {want}")
    answers = {}
    for name, text in runs.items():
        it = re.search(r"^iterations (\d+)$", text, re.M)
        res = re.search(r"^residual .*\(bits (\S+)\)$", text, re.M)
        if not it or not res:
            fail(f"{name}: no iterations/residual in its output")
        answers[name] = (it.group(1), res.group(1))
    if len(set(answers.values())) != 1:
        fail(f"the runs differ: {answers}")


if __name__ == "__main__":
    main()
