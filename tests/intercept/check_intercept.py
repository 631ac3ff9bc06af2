#!/usr/bin/python3
"""overlap-run end to end: the test program (intercept_cases.c) runs plain and under
overlap-run, and the two runs must agree bit for bit (each rank prints a digest of all it
received; the program also checks every byte itself). The report of the intercepted run
must show transfers really deferred, so a layer that silently intercepts nothing fails.

    check_intercept.py equality --np N --case MODE [--progress P] [--form rank|launcher]
    check_intercept.py touchline --np 2      the report names the receive and touch lines
    check_intercept.py counts --np 2 [--progress P]
                                             the report counts small calls per site exactly
    check_intercept.py usage                 bad options: one line, exit 2; harmless preload
    check_intercept.py cluster --cluster SCRIPT   both launch forms on the emulated cluster
    check_intercept.py jacobi --np N --program JACOBI [--progress P]
                                             examples/jacobi: same iterations, same residual bits
    check_intercept.py soak --np N --conformance-program C --seconds S [--progress P]
                                             the randomised cases round after round for S s
"""
import argparse
import json
import os
import random
import shutil
import re
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mpi"))
from mpitest import Failure, fail, main_frame, mpi_env, run  # noqa: E402
from mpitest import launcher as mpi_launcher  # noqa: E402

HERE = Path(__file__).resolve().parent


def launcher(args, np_):
    """mpitest's launcher; for `dedicated` with Open MPI also --bind-to none: Open MPI binds
    each rank to one core when the ranks fit the cores, which leaves liboverlap's dedicated
    thread no core of its own (the engine refuses, overlap-run falls back to caller)."""
    cmd = mpi_launcher(args, np_)
    if args.flavor == "openmpi" and getattr(args, "progress", None) == "dedicated":
        cmd[1:1] = ["--bind-to", "none"]
    return cmd


def digests(out):
    d = dict(re.findall(r"^rank (\d+) digest ([0-9a-f]+)$", out, re.M))
    return {int(k): v for k, v in d.items()}


def load_report(path, np_):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema_version") != 1 or doc.get("benchmark") != "overlap-run":
        fail(f"report header: {doc.get('schema_version')!r} {doc.get('benchmark')!r}")
    if doc["metadata"].get("processes") != np_ or len(doc["ranks"]) != np_:
        fail(f"report has {len(doc['ranks'])} ranks, ran {np_}")
    # Each rank's affinity mask as a cpulist of this machine's CPUs; no Slurm job here.
    online = os.cpu_count() or 1
    for r in doc["ranks"]:
        if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", r.get("cpus", "")) or any(
                int(c) >= online for c in re.findall(r"\d+", r["cpus"])):
            fail(f"rank {r['rank']}: cpus {r.get('cpus')!r} is not a cpulist of CPUs 0-{online - 1}")
    if ("SLURM_JOB_ID" in os.environ) != (doc["metadata"].get("slurm") is not None):
        fail(f"metadata.slurm {doc['metadata'].get('slurm')!r}, SLURM_JOB_ID "
             f"{os.environ.get('SLURM_JOB_ID')!r}")
    return doc


def totals(doc):
    t = {"calls": 0, "deferred": 0, "faults": 0, "completed": 0}
    for r in doc["ranks"]:
        for s in r["call_sites"]:
            for k in t:
                t[k] += s[k]
    return t


def intercepted_cmd(args, case_args, report, extra=()):
    opts = ["--min-size", getattr(args, "min_size", "4KiB"), "--report", report, *extra]
    if args.progress:
        opts += ["--progress", args.progress]
    if args.form == "launcher":
        return [args.run, *opts, "--", *launcher(args, args.np), args.program, *case_args]
    return [*launcher(args, args.np), args.run, *opts, "--", args.program, *case_args]


def available_gib():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) / (1 << 20)
    return 0.0


def same_digests(args, tmp, case_args, extra=(), inter_env=None):
    """The program plain and under overlap-run: every rank's digest the same. Returns the
    intercepted run, its report and the digests."""
    env = mpi_env()
    plain = run([*launcher(args, args.np), args.program, *case_args], env, timeout=600)
    if plain.returncode != 0:
        fail(f"plain run: exit {plain.returncode}")
    report = os.path.join(tmp, "report.json")
    inter = run(intercepted_cmd(args, case_args, report, extra), dict(env, **(inter_env or {})),
                timeout=600)
    if inter.returncode != 0:
        fail(f"run under overlap-run: exit {inter.returncode}")
    a, b = digests(plain.stdout), digests(inter.stdout)
    if len(a) != args.np or a != b:
        fail(f"digests differ: plain {a}, overlap-run {b}")
    return inter, load_report(report, args.np), b


def do_equality(args, tmp):
    if args.needs_memory_gib and available_gib() < args.needs_memory_gib:
        print(f"SKIP: {available_gib():.1f} GiB available, the case needs "
              f"{args.needs_memory_gib} GiB")
        sys.exit(77)
    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 30)
    print(f"seed {seed} (rerun with --seed {seed})")
    case_args = [args.case, str(seed), str(args.iterations)]
    # (intercept_engine.c checks that it really runs intercepted when told so.)
    inter, doc, b = same_digests(args, tmp, case_args,
                                 inter_env={"OVERLAP_INTERCEPT_EXPECTED": "1"})
    t = totals(doc)
    print(f"report totals: {t}")
    if t["deferred"] == 0:
        fail("nothing was deferred: the interception did not happen")
    if t["completed"] != t["deferred"]:
        fail(f"{t['deferred']} deferred but {t['completed']} completed")
    # Under policy caller nothing completes a transfer between the call's return and a
    # touch right after it (random's first case), so that touch must fault.
    if args.case == "random" and args.progress == "caller" and t["faults"] == 0:
        fail("no fault recorded: a buffer touched at once under policy caller must fault")
    if args.progress and doc["metadata"]["progress"] != args.progress:
        fail(f"metadata.progress {doc['metadata']['progress']!r}, asked {args.progress}")
    if "overlap-run:" not in inter.stderr:
        fail("no summary on stderr")
    if args.case == "place":
        check_placement(args, case_args, doc, b, tmp, "place: pinned pages" in inter.stderr)
    if args.case in CONFORMANCE and sanitized(args.program):
        # ASan's heap blocks are not glibc's and carry redzones: the receives these cases
        # aim at share pages with other data there, so which reason each gets says nothing
        # about the rules (docs/overlap-run.md, "Sanitizers"). The run still checks the
        # data and the memory errors.
        print(f"{args.program} is built with ASan: the per-reason checks are left to the "
              "plain builds")
    elif args.case in CONFORMANCE:
        CONFORMANCE[args.case](doc)


def sanitized(program):
    """Whether the program links AddressSanitizer's runtime."""
    with open(program, "rb") as f:
        return b"libasan.so" in f.read()


def reasons(doc, calls=None):
    """Not-deferred reason -> count over every rank's sites (of the named calls)."""
    out = {}
    for r in doc["ranks"]:
        for s in r["call_sites"]:
            if calls is None or s["call"] in calls:
                for k, v in s["not_deferred"].items():
                    out[k] = out.get(k, 0) + v
    return out


def check_huge(doc):
    """intercept_conformance.c huge: the message above 2^31 bytes was deferred and placed
    into the receiver's pages (a byte count above INT_MAX was never placed)."""
    r = doc["ranks"][1]
    placed = (r.get("placed_by_move") or 0) + (r.get("placed_by_copy") or 0)
    recv = sum(s["deferred"] for s in r["call_sites"] if s["call"] == "MPI_Recv")
    print(f"rank 1: {recv} receives deferred, {placed} placed")
    if recv != 1 or placed != 1:
        fail(f"rank 1 deferred {recv} and placed {placed} of its huge receive")


def check_owned(doc):
    """intercept_conformance.c owned: receives into memory the program's own pending
    requests hold were left to MPI, and said so."""
    why = reasons(doc, {"MPI_Recv"})
    print(f"receives not deferred: {why}")
    if not why.get("owned_by_request"):
        fail("no receive was left to MPI for 'owned_by_request'")


def check_derived(doc):
    """intercept_conformance.c derived: datatypes with holes are deferred (sends, and dense
    types), sends on communicators whose handler returns errors reach the deferral (MPI's
    refusals counted as mpi_error, run as written), the sparse types and the receives that
    must return their errors are not deferred."""
    sends, recvs = reasons(doc, {"MPI_Send"}), reasons(doc, {"MPI_Recv"})
    deferred = {c: sum(s["deferred"] for r in doc["ranks"] for s in r["call_sites"]
                       if s["call"] == c) for c in ("MPI_Send", "MPI_Recv")}
    print(f"deferred {deferred}; sends not deferred {sends}; receives not deferred {recvs}")
    for c, n in deferred.items():
        if n == 0:
            fail(f"no {c} with a derived datatype was deferred")
    for reason, where in (("sparse_type", sends), ("sparse_type", recvs),
                          ("errors_return", recvs), ("mpi_error", sends)):
        if not where.get(reason):
            fail(f"no call counted for '{reason}'")
    if sends.get("noncontiguous"):
        fail(f"{sends['noncontiguous']} sends not deferred for 'noncontiguous', which applies "
             "to receives only")


def check_overlong(doc):
    """intercept_conformance.c overlong: rank 1's receives past their page-aligned heap
    block (one call site) were all left to MPI, for 'shares_last_page' (or, where the
    heap ended within the count, 'unknown_memory'); those into a block as long as their
    count (the other site) were all deferred."""
    sites = [s for s in doc["ranks"][1]["call_sites"] if s["call"] == "MPI_Recv"]
    print("rank 1 receive sites: " +
          "; ".join(f"{s['calls']} calls, {s['deferred']} deferred, not {s['not_deferred']}"
                    for s in sites))
    past = [s for s in sites if s["not_deferred"]]
    whole = [s for s in sites if not s["not_deferred"]]
    if len(past) != 1 or len(whole) != 1:
        fail(f"expected one site left to MPI and one deferred, got {len(past)} and "
             f"{len(whole)}")
    why = past[0]["not_deferred"]
    if past[0]["deferred"] != 0 or not why.get("shares_last_page") or \
            set(why) - {"shares_last_page", "unknown_memory"}:
        fail(f"a receive past its block was deferred or left for another reason: "
             f"{past[0]['deferred']} deferred, not deferred {why}")
    if whole[0]["deferred"] != whole[0]["calls"]:
        fail(f"{whole[0]['deferred']} of {whole[0]['calls']} receives into a block as long "
             "as their count deferred")


def check_halves(doc):
    """intercept_conformance.c halves: each MPI_Sendrecv whose halves share a page ran
    whole, each half not excluded for another reason first counted 'halves_share_page'
    (per iteration 4 receives and 3 sends: the small send is below --min-size); the call
    on two blocks was deferred."""
    for r in doc["ranks"][:2]:
        counts = {}
        for s in r["call_sites"]:
            if s["call"].startswith("MPI_Sendrecv"):
                c = counts.setdefault(s["call"], {"deferred": 0, "shared": 0})
                c["deferred"] += s["deferred"]
                c["shared"] += s["not_deferred"].get("halves_share_page", 0)
        print(f"rank {r['rank']}: {counts}")
        for call, per in (("MPI_Sendrecv (send)", 3), ("MPI_Sendrecv (recv)", 4)):
            c = counts.get(call, {"deferred": 0, "shared": 0})
            if c["shared"] == 0 or c["deferred"] == 0:
                fail(f"rank {r['rank']} {call}: {c['shared']} calls run whole for "
                     f"'halves_share_page', {c['deferred']} deferred; the case makes both")
            if c["shared"] != per * c["deferred"]:
                fail(f"rank {r['rank']} {call}: {c['shared']} run whole, {c['deferred']} "
                     f"deferred: the case makes {per} sharing for each apart")


CONFORMANCE = {"huge": check_huge, "owned": check_owned, "derived": check_derived,
               "overlong": check_overlong, "halves": check_halves}


def check_placement(args, case_args, doc, want, tmp, pinned_ran):
    """By default (move), rank 1's receives were moved into place where allowed: not into
    pages with madvise advice nor part of a larger mapping, not from the fault handler
    (policy caller places there), not after MPI_Alloc_mem (and the report says why). With
    --place copy none is moved, and the data is the same."""
    r = doc["ranks"][1]
    why = r.get("copied_because") or {}
    print(f"rank 1 placed: {r.get('placed_by_move')} moved, {r.get('placed_by_copy')} copied "
          f"({why})")
    if doc["metadata"].get("place") != "move":
        fail(f"metadata.place {doc['metadata'].get('place')!r}, expected move by default")
    if args.progress == "caller":
        if not why.get("fault_handler"):
            fail("no receive was placed from the fault handler (by copying) under policy caller")
    elif not r.get("placed_by_move"):
        fail("no receive was placed by moving its pages")
    # The pinned case runs where the kernel lets the program set up io_uring (it says so);
    # under policy caller its receive is placed from the fault handler, which copies first.
    kinds = ["attributes", "part_of_mapping", "stopped"]
    if pinned_ran and args.progress != "caller":
        kinds.append("pinned")
    for kind in kinds:
        if not why.get(kind):
            fail(f"no receive was copied for '{kind}'")
    if "MPI_Alloc_mem" not in r.get("place_note", ""):
        fail(f"the report does not say why receives after MPI_Alloc_mem were copied: "
             f"{r.get('place_note')!r}")
    report = os.path.join(tmp, "copy.json")
    p = run(intercepted_cmd(args, case_args, report, ["--place", "copy"]), mpi_env(), timeout=600)
    if p.returncode != 0:
        fail(f"run under overlap-run --place copy: exit {p.returncode}")
    if digests(p.stdout) != want:
        fail(f"--place copy: digests {digests(p.stdout)}, expected {want}")
    doc = load_report(report, args.np)
    r = doc["ranks"][1]
    if doc["metadata"].get("place") != "copy" or r.get("placed_by_move") != 0 or \
            not r.get("placed_by_copy") or "copied_because" in r:
        fail(f"--place copy: place {doc['metadata'].get('place')!r}, "
             f"moved {r.get('placed_by_move')}, copied {r.get('placed_by_copy')}")
    # --off (the preload, no interception) behaves as the plain run, UCX's announcements of
    # glibc's own unmappings included (its hooks patched the shim's wrappers: mirrored).
    p = run(intercepted_cmd(args, case_args, os.path.join(tmp, "off.json"), ["--off"]),
            mpi_env(), timeout=600)
    if p.returncode != 0:
        fail(f"run under overlap-run --off: exit {p.returncode}")
    if digests(p.stdout) != want:
        fail(f"--off: digests {digests(p.stdout)}, expected {want}")


def marker_line(marker):
    for i, line in enumerate((HERE / "intercept_cases.c").read_text().splitlines(), 1):
        if marker in line:
            return i
    fail(f"no {marker} in intercept_cases.c")


def do_touchline(args, tmp):
    report = os.path.join(tmp, "report.json")
    args.progress = "caller"  # the touch right after the call then surely faults
    p = run(intercepted_cmd(args, ["touchline"], report), mpi_env(), timeout=300)
    if p.returncode != 0:
        fail(f"exit {p.returncode}")
    doc = load_report(report, args.np)
    recv_at = f"intercept_cases.c:{marker_line('RECV-LINE')}"
    touch_at = f"intercept_cases.c:{marker_line('TOUCH-LINE')}"
    sites = [s for s in doc["ranks"][1]["call_sites"] if s["call"] == "MPI_Recv"]
    if len(sites) != 1 or sites[0]["site"]["text"] != recv_at:
        fail(f"rank 1's MPI_Recv site is {[s['site']['text'] for s in sites]}, expected {recv_at}")
    touches = sites[0]["first_touches"]
    if not touches or touches[0]["site"]["text"] != touch_at:
        fail(f"first touch {[t['site']['text'] for t in touches]}, expected {touch_at}")
    line = f"rank 1: recv buffer of {recv_at} touched"
    if line not in p.stderr or f"at {touch_at}" not in p.stderr:
        fail(f"the summary lacks '{line} ... at {touch_at}'")


# intercept_cases.c's counts case: per rank, marker -> (call, calls, bytes, reason counted).
COUNTS = {
    0: {"SEND-SMALL": ("MPI_Send", 50, 50 * 1024, "below_threshold"),
        "RECV-SMALL": ("MPI_Recv", 50, 50 * 1024, "below_threshold"),
        "SEND-NULL": ("MPI_Send", 7, 7 * 1024, "proc_null"),
        "SEND-QUAD": ("MPI_Send", 10, 10 * 256, "below_threshold")},
    1: {"RECV-WILD": ("MPI_Recv", 50, 50 * 1024, "wildcard_status"),
        "SEND-BACK": ("MPI_Send", 50, 50 * 1024, "below_threshold"),
        "RECV-QUAD": ("MPI_Recv", 10, 10 * 256, "below_threshold")},
}


def do_counts(args, tmp):
    """Calls below --min-size go straight to MPI, served by the shim itself under a
    progress thread (straight_path.h) and by the core under caller: the report must count
    each site's calls, bytes and reason exactly either way."""
    report = os.path.join(tmp, "report.json")
    p = run(intercepted_cmd(args, ["counts"], report), mpi_env(), timeout=300)
    if p.returncode != 0:
        fail(f"exit {p.returncode}")
    doc = load_report(report, args.np)
    for rank, want in COUNTS.items():
        sites = {s["site"]["text"]: s for s in doc["ranks"][rank]["call_sites"]}
        for marker, (call, calls, nbytes, reason) in want.items():
            at = f"intercept_cases.c:{marker_line(marker)}"
            s = sites.get(at)
            if s is None:
                fail(f"rank {rank}: no call site {at} ({marker}) in {sorted(sites)}")
            got = (s["call"], s["calls"], s["bytes"], s["deferred"], s["not_deferred"])
            if got != (call, calls, nbytes, 0, {reason: calls}):
                fail(f"rank {rank} {marker} ({at}): {got}, expected "
                     f"{(call, calls, nbytes, 0, {reason: calls})}")
    print(f"{sum(len(w) for w in COUNTS.values())} call sites counted exactly")


def do_usage(args, tmp):
    env = mpi_env()
    for opts, bad in ((["--progress", "fast"], "'fast'"), (["--min-size", "1.5B"], "'1.5B'"),
                      (["--defer", "send,isend"], "'isend'"), (["--report", "/nonexistent/r.json"],
                                                              "/nonexistent"),
                      (["--partitioned", "on"], "'on'")):
        p = run([args.run, *opts, "--", "true"], env, timeout=60)
        lines = p.stderr.strip().splitlines()
        if p.returncode != 2 or len(lines) != 1 or bad not in lines[0]:
            fail(f"{opts}: exit {p.returncode}, stderr {p.stderr!r}; expected one line naming {bad}")
    p = run([args.run, "--progres", "caller", "--", "true"], env, timeout=60)
    if p.returncode != 2 or len(p.stderr.strip().splitlines()) != 1 or \
            "'--progres' is not an option" not in p.stderr:
        fail(f"a misspelled option: exit {p.returncode}, {p.stderr!r}")
    p = run([args.run, "--", "true"], dict(env, OVERLAP_INTERCEPT_REPORT="/nonexistent/r.json"),
            timeout=60)
    if p.returncode != 2 or "OVERLAP_INTERCEPT_REPORT" not in p.stderr or \
            "/nonexistent" not in p.stderr:
        fail(f"a bad OVERLAP_INTERCEPT_REPORT: exit {p.returncode}, {p.stderr!r}")
    p = run([args.run], env, timeout=60)
    if p.returncode != 2 or "no program" not in p.stderr:
        fail(f"no program: exit {p.returncode}, {p.stderr!r}")
    p = run([args.run, "--", "sh", "-c", "echo $OVERLAP_INTERCEPT_MIN_SIZE; exit 3"],
            dict(env, OVERLAP_INTERCEPT_MIN_SIZE="1MiB"), timeout=60)
    if p.returncode != 3 or p.stdout.strip() != "1048576B":
        fail(f"a shell under overlap-run: exit {p.returncode}, {p.stdout!r}")
    bad_env = dict(env, OVERLAP_PROGRESS="fast")
    p = run([*launcher(args, 2), args.program, "order"],
            dict(bad_env, LD_PRELOAD=args.shim), timeout=120)
    if p.returncode == 0 or "OVERLAP_PROGRESS: 'fast'" not in p.stderr:
        fail("a bad OVERLAP_PROGRESS under a hand-made preload was not refused")
    for v in ("--version", "--help"):
        p = run([args.run, v], env, timeout=60)
        if p.returncode != 0:
            fail(f"overlap-run {v}: exit {p.returncode}")


def do_jacobi(args, tmp):
    """The example solver, plain and under overlap-run: the same iteration count and the
    same residual to the bit; the report shows its halo receives deferred."""
    grid = ["1024", "64", "60", "0"]  # small and fixed: 60 iterations, 6 residual checks
    env = mpi_env()
    plain = run([*launcher(args, args.np), args.program, *grid], env, timeout=300)
    if plain.returncode != 0:
        fail(f"plain run: exit {plain.returncode}")
    report = os.path.join(tmp, "report.json")
    inter = run(intercepted_cmd(args, grid, report), env, timeout=300)
    if inter.returncode != 0:
        fail(f"run under overlap-run: exit {inter.returncode}")

    def result(out):
        its = re.search(r"^iterations (\d+)$", out, re.M)
        bits = re.search(r"^residual \S+ \(bits (\S+)\)$", out, re.M)
        return (its.group(1) if its else None, bits.group(1) if bits else None)

    a, b = result(plain.stdout), result(inter.stdout)
    print(f"plain {a}, overlap-run {b}")
    if None in a or a != b:
        fail(f"plain (iterations, residual bits) {a}, under overlap-run {b}")
    doc = load_report(report, args.np)
    recv = sum(s["deferred"] for r in doc["ranks"] for s in r["call_sites"]
               if s["call"] == "MPI_Sendrecv (recv)")
    print(f"report totals: {totals(doc)}, halo receives deferred: {recv}")
    if recv == 0:
        fail("no halo receive was deferred: the example no longer shows the interception")
    if args.progress and doc["metadata"]["progress"] != args.progress:
        fail(f"metadata.progress {doc['metadata']['progress']!r}, asked {args.progress} "
             f"({doc['metadata'].get('progress_note', '')})")


def do_moves(args, tmp):
    """intercept_progress.c: the program's own nonblocking requests (MPI_Irecv, persistent,
    MPI's own MPI_Ibcast and MPI_Ialltoall) complete while the watching rank makes no MPI
    call, under overlap-run; every rank says PASS, and the report counts its requests. The
    plain run, with a short limit, is the control: what it says is printed, not asserted.
    Its limit, a quarter of a second per watch, is a hundred times what the requests take
    under overlap-run (it was 1 s: 10 of the test's 12 s)."""
    env = mpi_env()
    control_s = 0.25
    plain = run([*launcher(args, args.np), args.program, str(control_s)], env, timeout=300)
    unmoved = len(re.findall(r"NOT MOVED", plain.stdout))
    print(f"control, plain MPI: {unmoved} of {8 * (args.np // 2)} watches saw nothing move "
          f"in {control_s} s (exit {plain.returncode})")
    report = os.path.join(tmp, "report.json")
    inter = run(intercepted_cmd(args, ["60"], report), env, timeout=600)
    passed = len(re.findall(r"^rank \d+ PASS$", inter.stdout, re.M))
    if inter.returncode != 0 or passed != args.np:
        fail(f"under overlap-run: exit {inter.returncode}, {passed} of {args.np} ranks PASS")
    doc = load_report(report, args.np)
    counted = [r.get("program_requests", 0) for r in doc["ranks"]]
    print(f"program requests per rank: {counted}")
    # Each paired rank: 4 kinds x 2 rounds, the user-op Iallreduce, the Ibarrier, and on
    # even ranks the Irecv completed with PMPI_Wait.
    for r, n in zip(doc["ranks"], counted):
        least = 10 + (r["rank"] % 2 == 0) if r["rank"] < args.np // 2 * 2 else 2
        if n < least:
            fail(f"rank {r['rank']}: report counts {n} program requests, posted at least {least}")
    # The receive into the buffer whose Irecv the program completed with PMPI_Wait: the
    # core saw that completion, so the buffer is no longer held and the receive deferred.
    later = [(r["rank"], s["deferred"], s["not_deferred"]) for r in doc["ranks"]
             for s in r["call_sites"] if s["call"] == "MPI_Recv" and s["bytes"] >= 1 << 20]
    print(f"the receives after PMPI_Wait (rank, deferred, not deferred): {later}")
    if len(later) != args.np // 2 or any(d != 1 for _, d, _ in later):
        fail("a receive into a buffer whose request the program completed with PMPI_Wait "
             f"was not deferred: {later}")


FORTRAN_FORMS = (("mpif.h", ["-fallow-argument-mismatch"]), ("mpi", ["-DUSE_MPI"]),
                 ("mpi_f08", ["-DUSE_F08"]))


def do_fortran(args, tmp):
    """intercept_fortran.F90 in its three forms (mpif.h, use mpi, use mpi_f08), built with
    the MPI's own Fortran wrapper as users build it: the same output plain and under
    overlap-run, and the report shows the program's calls reached overlap-run at the
    program's own lines: the MPI_Sendrecv deferred, the MPI_Iallreduce among the program's
    requests on every rank, the blocking MPI_Allreduce routed and deferred."""
    fc = shutil.which(f"mpif90.{args.flavor}")
    if fc is None:
        fail(f"mpif90.{args.flavor} not found (scripts/bootstrap installs gfortran)")
    env = mpi_env()
    src = os.path.basename(args.program)
    for form, flags in FORTRAN_FORMS:
        exe = os.path.join(tmp, f"fortran-{form.replace('.', '-')}")
        built = run([fc, "-g", "-O1", *flags, args.program, "-o", exe], env, timeout=300)
        if built.returncode != 0:
            fail(f"{form}: {fc} failed: {built.stderr[-2000:]}")
        plain = run([*launcher(args, args.np), exe], env, timeout=300)
        report = os.path.join(tmp, f"{form}.json")
        opts = ["--min-size", "4KiB", "--report", report]
        if args.progress:
            opts += ["--progress", args.progress]
        inter = run([*launcher(args, args.np), args.run, *opts, "--", exe], env, timeout=300)
        for name, p in (("plain", plain), ("overlap-run", inter)):
            if p.returncode != 0:
                fail(f"{form}, {name}: exit {p.returncode}")
        want, got = sorted(plain.stdout.splitlines()), sorted(inter.stdout.splitlines())
        if want != got or len(want) != args.np:
            fail(f"{form}: output under overlap-run {got}, plain {want}")
        doc = load_report(report, args.np)
        sites = [s for r in doc["ranks"] for s in r["call_sites"]]
        sendrecv = [s for s in sites if s["call"] == "MPI_Sendrecv (send)"]
        where = sorted({s["site"]["text"] for s in sites})
        requests = [r.get("program_requests", 0) for r in doc["ranks"]]
        print(f"{form}: sites {where}, Sendrecv sends deferred "
              f"{sum(s['deferred'] for s in sendrecv)}, program requests {requests}")
        if doc["metadata"].get("intercepted") is not True:
            fail(f"{form}: the report says nothing reached overlap-run")
        if not sendrecv or sum(s["deferred"] for s in sendrecv) == 0:
            fail(f"{form}: no MPI_Sendrecv send was deferred")
        if any(os.path.basename(s["site"].get("file", "")) != src for s in sites):
            fail(f"{form}: call sites {where}, expected lines of {src}")
        if min(requests) < 1:
            fail(f"{form}: the MPI_Iallreduce is not among the program's requests: {requests}")
        # The blocking in-place MPI_Allreduce of 1 MiB: routed to liboverlap on every rank
        # (not under caller) and deferred where its glibc block owns its pages (not under
        # a sanitizer, whose allocator's blocks own no page: shares_first_page there).
        routed = sum(c["routed"] for r in doc["ranks"] for c in r["collective_sites"]
                     if c["call"] == "MPI_Allreduce")
        deferred = sum(s["deferred"] for s in sites if s["call"] == "MPI_Allreduce")
        print(f"{form}: blocking MPI_Allreduce routed {routed}, deferred {deferred}")
        if args.progress == "caller":
            if routed:
                fail(f"{form}: MPI_Allreduce routed {routed} times under caller")
        elif routed != args.np or (deferred < 1 and not sanitized(args.run)):
            fail(f"{form}: MPI_Allreduce routed {routed} of {args.np}, deferred {deferred}")


def do_unreached(args, tmp):
    """intercept_unreached.c: a program that starts MPI with PMPI_Init and one that makes
    only blocking collectives; rank 0 (only) says that nothing reached overlap-run, the
    output is plain's, the report says so and overlap-report renders it."""
    env = mpi_env()
    for mode, line in (("pmpi", "without calling MPI_Init"),
                       ("collectives", "so nothing was overlapped there")):
        plain = run([*launcher(args, args.np), args.program, mode], env, timeout=300)
        report = os.path.join(tmp, f"{mode}.json")
        inter = run([*launcher(args, args.np), args.run, "--report", report, "--",
                     args.program, mode], env, timeout=300)
        if plain.returncode != 0 or inter.returncode != 0:
            fail(f"{mode}: exit {plain.returncode} plain, {inter.returncode} under overlap-run")
        if sorted(plain.stdout.splitlines()) != sorted(inter.stdout.splitlines()):
            fail(f"{mode}: output {inter.stdout!r}, plain {plain.stdout!r}")
        said = inter.stderr.count(line)
        print(f"{mode}: said {said} time(s): {line!r}")
        if said != 1:
            fail(f"{mode}: stderr says {said} times {line!r}:\n{inter.stderr}")
        with open(report) as f:
            doc = json.load(f)
        md = doc["metadata"]
        if md.get("intercepted") is not False:
            fail(f"{mode}: metadata.intercepted is {md.get('intercepted')!r}")
        if mode == "pmpi" and (doc["ranks"] != [] or "PMPI_Init" not in md.get("note", "")):
            fail(f"{mode}: ranks {doc['ranks']!r}, note {md.get('note')!r}")
        if mode == "collectives" and len(doc["ranks"]) != args.np:
            fail(f"{mode}: {len(doc['ranks'])} ranks in the report")
    out = os.path.join(tmp, "rendered")
    rendered = run([args.report_tool, os.path.join(tmp, "pmpi.json"), "-o", out], env, timeout=300)
    text = open(os.path.join(out, "summary.md")).read() if rendered.returncode == 0 else ""
    if "Nothing was intercepted" not in text:
        fail(f"overlap-report: exit {rendered.returncode}, summary {text!r}, {rendered.stderr}")


def do_plugin(args, tmp):
    """intercept_plugin.c: MPI in a module the host loads with dlopen(RTLD_LOCAL): the same
    output plain and under overlap-run, and the module's MPI_Sendrecv deferred."""
    env = mpi_env()
    plain = run([*launcher(args, args.np), args.program, args.module], env, timeout=300)
    report = os.path.join(tmp, "report.json")
    inter = run([*launcher(args, args.np), args.run, "--min-size", "4KiB", "--report", report,
                 "--", args.program, args.module], env, timeout=300)
    if plain.returncode != 0 or inter.returncode != 0:
        fail(f"exit {plain.returncode} plain, {inter.returncode} under overlap-run")
    want, got = sorted(plain.stdout.splitlines()), sorted(inter.stdout.splitlines())
    if want != got or len(want) != args.np:
        fail(f"output under overlap-run {got}, plain {want}")
    t = totals(load_report(report, args.np))
    print(f"report totals: {t}")
    if t["deferred"] == 0:
        fail("the module's MPI_Sendrecv was not deferred")


def do_transpose(args, tmp):
    """examples/transpose (Fortran, use mpi_f08), built with the MPI's own mpif90 as its
    README says: the same checksum to the bit plain and under overlap-run, and every
    MPI_Ialltoall among the program's requests (progressed while outstanding)."""
    fc = shutil.which(f"mpif90.{args.flavor}")
    if fc is None:
        fail(f"mpif90.{args.flavor} not found (scripts/bootstrap installs gfortran)")
    env = mpi_env()
    exe = os.path.join(tmp, "transpose")
    built = run([fc, "-O2", "-g", args.program, "-o", exe], env, timeout=300)
    if built.returncode != 0:
        fail(f"{fc} failed: {built.stderr[-2000:]}")
    # N, FIELDS, STEPS, PASSES: 3 x 2 transposes
    same_result_and_requests(args, tmp, [exe, "384", "3", "2", "2"], "checksum", 6)
    refused = run([*launcher(args, args.np), exe, "384", "0"], env, timeout=300)
    if refused.returncode == 0 or "FIELDS=0 is not allowed" not in refused.stdout:
        fail(f"FIELDS=0: exit {refused.returncode}, {refused.stdout!r}")


NINE = ("MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce",
        "MPI_Ireduce_scatter_block", "MPI_Igather", "MPI_Iscatter", "MPI_Iallgather",
        "MPI_Ialltoall")


def do_collectives(args, tmp):
    """intercept_collectives.c: the program's own nonblocking collectives, routed to
    liboverlap's on MPI_COMM_WORLD, MPI's own elsewhere and for a user-defined operation;
    the same digests plain and under overlap-run, and the report's routing per call exactly
    what the rules say for this program (docs/overlap-run.md)."""
    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 30)
    print(f"seed {seed} (rerun with --seed {seed})")
    n = args.iterations
    # Open MPI 4.1's libnbc crashes the plain run when a communicator is freed with its
    # nonblocking collectives pending (valid MPI): asked for where the plain run survives.
    case_args = [str(seed), str(n)] + (["free-early"] if args.flavor == "mpich" else [])
    extra = ["--collectives", args.collectives] if args.collectives else []
    inter, doc, _ = same_digests(args, tmp, case_args, extra)
    # Per iteration: on MPI_COMM_WORLD each of the nine once (MPI_Iallreduce twice, and once
    # more with the user-defined operation); four of them again on a communicator made by
    # MPI_Comm_dup, by MPI_Comm_split (routed) and by MPI_Comm_idup (MPI's own: no hidden
    # duplicate); once in all, an intercommunicator's MPI_Ibarrier and MPI_Igather (MPI's
    # own).
    calls = {c: n for c in NINE}
    # odd_forms: two MPI_Ibcast (MPI_BOTTOM, MPI_DOUBLE_INT) and an MPI_Iallreduce(_c)
    calls["MPI_Ibcast"] = 3 * n
    calls["MPI_Iallreduce"] = 4 * n
    again = ("MPI_Iallgather", "MPI_Ireduce_scatter_block", "MPI_Ireduce", "MPI_Ibarrier")
    for c in again:
        calls[c] = 4 * n
    calls["MPI_Ibarrier"] += 1
    calls["MPI_Igather"] += 1
    # One blocking MPI_Allreduce per iteration between them (of one int on the stack: routed
    # by the rules of MPI_Iallreduce, then waited for on every rank, not deferred).
    calls["MPI_Allreduce"] = n
    reason = {"mpi": "switched_off"}.get(args.collectives) or (
        "caller_policy" if args.progress == "caller" else None)
    check_wait_windows(args, doc, n)
    if args.min_size != "0" and not reason:
        check_threshold(doc, calls)
        return
    if reason:
        want = {c: {"calls": k, "routed": 0, "own": {reason: k}} for c, k in calls.items()}
    else:
        want = {c: {"calls": k, "routed": n, "own": {}} for c, k in calls.items()}
        want["MPI_Ibcast"]["routed"] = 3 * n
        want["MPI_Iallreduce"].update(routed=3 * n, own={"operation": n})
        for c in again:
            want[c].update(routed=3 * n, own={"communicator": n})
        want["MPI_Ibarrier"]["own"]["intercommunicator"] = 1
        want["MPI_Igather"]["own"]["intercommunicator"] = 1
    want["MPI_Allreduce"] = ({"calls": n, "routed": 0, "own": {reason: n}} if reason else
                             {"calls": n, "routed": n, "own": {}})
    for r in doc["ranks"]:
        got = {c: {"calls": 0, "routed": 0, "own": {}} for c in want}
        for site in r["collective_sites"]:
            g = got[site["call"]]
            g["calls"] += site["calls"]
            g["routed"] += site["routed"]
            for why, k in site["mpi_own"].items():
                g["own"][why] = g["own"].get(why, 0) + k
        if got != want:
            fail(f"rank {r['rank']}: routing {got}, expected {want}")
        routed = sum(g["routed"] for g in got.values())
        if r["collectives_routed"] != routed:
            fail(f"rank {r['rank']}: collectives_routed {r['collectives_routed']}, sites say {routed}")
    print(f"routing as the rules say on every rank ({'all MPI own: ' + reason if reason else 'routed'})")
    if "collective (all ranks)" not in inter.stderr:
        fail("the summary on stderr has no line for the nonblocking collectives")


BLOCKING = ("MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Reduce_scatter_block",
            "MPI_Gather", "MPI_Scatter", "MPI_Allgather", "MPI_Alltoall")


def do_blocking(args, tmp):
    """intercept_blocking.c: the program's blocking collectives routed to liboverlap's on
    every rank and deferred where a rank's buffers allow: every result right (the program
    checks each against its own computation) and the same digests as plain MPI. The report
    must show each of the eight deferred, completed as often, and the rules' reasons for the
    rest (rank 0's stack, MPI_ERRORS_RETURN, an in-place MPI_Reduce_scatter_block); with
    --defer off for collectives, or under caller, every call MPI's own."""
    seed = args.seed if args.seed is not None else random.randrange(1, 1 << 30)
    print(f"seed {seed} (rerun with --seed {seed})")
    n = args.iterations
    extra = ["--defer", args.defer] if args.defer else []
    _, doc, _ = same_digests(args, tmp, [str(seed), str(n)], extra)
    off = "switched_off" if args.defer else "caller_policy" if args.progress == "caller" else None
    calls = {c: 0 for c in BLOCKING}
    routed = {c: 0 for c in BLOCKING}
    deferred = {c: 0 for c in BLOCKING}
    reasons = {}
    for r in doc["ranks"]:
        for site in r["collective_sites"]:
            if site["call"] in BLOCKING:
                calls[site["call"]] += site["calls"]
                routed[site["call"]] += site["routed"]
                if off and site["mpi_own"] != {off: site["calls"]}:
                    fail(f"rank {r['rank']}: {site['call']} MPI's own {site['mpi_own']}, "
                         f"expected {off} for all")
        for site in r["call_sites"]:
            if site["call"] not in BLOCKING:
                continue
            deferred[site["call"]] += site["deferred"]
            if site["completed"] != site["deferred"]:
                fail(f"rank {r['rank']}: {site['call']} deferred {site['deferred']}, "
                     f"completed {site['completed']}")
            for why, k in site["not_deferred"].items():
                reasons[why] = reasons.get(why, 0) + k
    # Per iteration: each of the eight once, MPI_Allreduce four times (the iteration's, the
    # stack one, the MPI_ERRORS_RETURN one, the freed communicator's); one more at the end.
    want = {c: n * args.np for c in BLOCKING}
    want["MPI_Allreduce"] = (4 * n + 1) * args.np
    # Once: three broadcasts (a guard page in the root's datatype, two around the shared
    # segment) and, with MPICH 4, MPI_Gather_c and MPI_Allgather_c.
    want["MPI_Bcast"] += 3 * args.np
    if args.flavor == "mpich":
        want["MPI_Gather"] += args.np
        want["MPI_Allgather"] += args.np
    if calls != want:
        fail(f"blocking collectives counted {calls}, made {want}")
    print(f"calls {calls}\nrouted {routed}\ndeferred {deferred}\nnot deferred {reasons}")
    if off:
        if any(routed.values()) or any(deferred.values()):
            fail(f"routed or deferred with {off}")
        return
    if routed != want:
        fail(f"routed {routed}, expected every call {want}")
    if not all(deferred.values()):
        fail(f"some blocking collective was never deferred: {deferred}")
    # shared_memory: the segment mapped where private memory was unmapped (all ranks on this
    # machine here), which the map of regions must see although it held the place private
    for why in ("stack_memory", "errors_return", "shared_memory") + (
            ("in_place_scatter",) if n > 1 else ()):
        if not reasons.get(why):
            fail(f"no call was left undeferred for {why}: {reasons}")


def check_wait_windows(args, doc, iterations):
    """Every request of the program's nonblocking collectives is completed by MPI_Waitany,
    MPI_Testsome or MPI_Waitall: each site has a wait window per call, whatever the route;
    every call on an intracommunicator counts its message (bytes; none for MPI_Ibarrier),
    those on the intercommunicator (its own sites, one call each) none. Both MPIs give
    their own collectives on a communicator of one rank a shared handle (a request complete
    from the start), which the table of requests keeps once: a rank alone in its half of
    the MPI_Comm_split (2 ranks, or rank 1 of 3) may miss a window per iteration."""
    for r in doc["ranks"]:
        alone = args.np == 2 or (args.np == 3 and r["rank"] == 1)
        for site in r["collective_sites"]:
            if not site["call"].startswith("MPI_I"):
                if "wait_window_s" in site or "bytes" in site:
                    fail(f"rank {r['rank']}: blocking {site['call']} has wait window fields")
                continue
            where = f"rank {r['rank']}: {site['call']} at {site['site']['text']}"
            w = site["wait_window_s"]
            short = site["calls"] - (w["completed"] if w else 0)
            if w is None or not 0 <= short <= (iterations if alone else 0) \
                    or not 0 <= w["min"] <= w["max"]:
                fail(f"{where}: {site['calls']} calls, wait window {w}")
            inter = site["calls"] == 1 and site["accepted"] == 0  # the intercommunicator's
            if site["accepted"] != site["calls"] and not inter:
                fail(f"{where}: accepted {site['accepted']} of {site['calls']} calls")
            if (site["bytes"] > 0) != (site["accepted"] > 0 and site["call"] != "MPI_Ibarrier"):
                fail(f"{where}: bytes {site['bytes']} for {site['accepted']} calls")
    print("wait windows: one per call at every nonblocking site")


def check_threshold(doc, calls):
    """With a --min-size, the calls the exact count routes are routed or MPI's own as
    below_threshold, some of each; the other reasons as without it."""
    seen = {"routed": 0, "below_threshold": 0}
    for r in doc["ranks"]:
        got = {c: 0 for c in calls}
        for site in r["collective_sites"]:
            got[site["call"]] += site["calls"]
            own = dict(site["mpi_own"])
            below = own.pop("below_threshold", 0)
            if set(own) - {"operation", "communicator", "intercommunicator"}:
                fail(f"rank {r['rank']}: {site['call']} at {site['site']['text']}: MPI's own "
                     f"for {own}")
            if site["routed"] + below + sum(own.values()) != site["calls"]:
                fail(f"rank {r['rank']}: {site} does not add up")
            seen["routed"] += site["routed"]
            seen["below_threshold"] += below
        if got != calls:
            fail(f"rank {r['rank']}: calls {got}, made {calls}")
    print(f"with the threshold: {seen}")
    if not seen["routed"] or not seen["below_threshold"]:
        fail(f"expected calls on both sides of --min-size: {seen}")


def do_pcg(args, tmp):
    """examples/pipelined-cg: the same residual to the bit plain and under overlap-run,
    each iteration's MPI_Iallreduce among the program's requests."""
    # N per rank, ITERATIONS, WORK
    same_result_and_requests(args, tmp, [args.program, "20000", "60", "1"], "residual", 60)


def same_result_and_requests(args, tmp, command, result, least):
    """An example run plain and under overlap-run: the line `result ... (bits B)` the same to
    the bit, and at least `least` requests of the program's on every rank."""
    env = mpi_env()
    plain = run([*launcher(args, args.np), *command], env, timeout=300)
    report = os.path.join(tmp, "report.json")
    opts = ["--report", report] + (["--progress", args.progress] if args.progress else [])
    inter = run([*launcher(args, args.np), args.run, *opts, "--", *command], env, timeout=300)
    if plain.returncode != 0 or inter.returncode != 0:
        fail(f"exit {plain.returncode} plain, {inter.returncode} under overlap-run")

    def bits(out):
        m = re.search(rf"^{result} .*\(bits (\w+)\)$", out, re.M)
        return m.group(1) if m else None

    a, b = bits(plain.stdout), bits(inter.stdout)
    print(f"{result} bits: plain {a}, overlap-run {b}")
    if a is None or a != b:
        fail(f"{result} plain {a}, under overlap-run {b}")
    requests = [r.get("program_requests", 0) for r in load_report(report, args.np)["ranks"]]
    print(f"program requests per rank: {requests}")
    if min(requests) < least:
        fail(f"the program's {least} nonblocking calls per rank are not all among its "
             f"requests: {requests}")


def do_soak(args, tmp):
    """The randomised equality cases at larger counts, round after round with fresh seeds,
    for --seconds: random (intercept_cases.c), derived and owned (intercept_conformance.c).
    Every failing round is listed with its case and seed; any fails the soak."""
    cases = [(args.program, "random", 80), (args.conformance_program, "derived", 400),
             (args.conformance_program, "owned", 80)]
    deadline = time.monotonic() + args.seconds
    rounds, failures = 0, []
    while time.monotonic() < deadline:
        program, case, iterations = cases[rounds % len(cases)]
        a = argparse.Namespace(**vars(args))
        a.program, a.case, a.iterations = program, case, iterations
        a.seed = random.randrange(1, 1 << 30)
        try:
            do_equality(a, tempfile.mkdtemp(dir=tmp))
        except Failure as e:
            failures.append(f"{case} --seed {a.seed}: {e}")
            print(f"SOAK FAILURE: {failures[-1]}")
        rounds += 1
    print(f"soak: {rounds} rounds ({args.np} ranks, progress {args.progress}), "
          f"{len(failures)} failed")
    if failures or rounds == 0:
        fail("; ".join(failures) or "no round ran")


def cluster_run(cmd, env, np_):
    """One run on the emulated cluster. MPICH 4.0.2 over UCX/TCP there sometimes hangs in
    MPI_Finalize after the program's work is done (rank 0 in UCX progress, rank 1 in the
    PMI barrier, the proxies idle; seen in plain runs without any preload too, from 1 in 8
    to 1 in 3 runs): such a run, with every rank's digest printed, is retried, visibly,
    up to twice."""
    p = run(cmd, env, timeout=400)
    for _ in range(2):
        if p.returncode != 124 or len(digests(p.stdout)) != np_:
            break
        print("the run finished its work and hung in MPI_Finalize: retrying")
        p = run(cmd, env, timeout=400)
    return p


def do_cluster(args, tmp):
    if os.geteuid() != 0:
        print("SKIP: the emulated cluster needs root")
        sys.exit(77)
    seed = random.randrange(1, 1 << 30)
    print(f"seed {seed}")
    case_args = ["random", str(seed), "12"]
    env = mpi_env()
    base = [args.cluster, "run", "--mpi", args.flavor, "-n", str(args.np), "--timeout", "60", "--"]
    plain = cluster_run([*base, args.program, *case_args], env, args.np)
    if plain.returncode != 0:
        fail(f"plain run on the cluster: exit {plain.returncode}")
    want = digests(plain.stdout)
    r1 = os.path.join(tmp, "per-rank.json")
    per_rank = cluster_run([*base, args.run, "--min-size", "4KiB", "--report", r1, "--",
                            args.program, *case_args], env, args.np)
    # Launcher form around the cluster's launcher script: overlap-run sets the environment,
    # the script forwards it to the ranks (OVERLAP_* always, LD_PRELOAD when asked).
    r2 = os.path.join(tmp, "launcher.json")
    launched = cluster_run([args.run, "--min-size", "4KiB", "--report", r2, "--", *base,
                            args.program, *case_args],
                           dict(env, OVERLAP_CLUSTER_FORWARD="LD_PRELOAD"), args.np)
    for name, p, report in (("per rank", per_rank, r1), ("launcher", launched, r2)):
        if p.returncode != 0:
            fail(f"{name} form on the cluster: exit {p.returncode}")
        if digests(p.stdout) != want or len(want) != args.np:
            fail(f"{name} form: digests {digests(p.stdout)}, plain {want}")
        doc = load_report(report, args.np)
        t = totals(doc)
        hosts = {r["host"] for r in doc["ranks"]}
        print(f"{name}: {t}, hosts {sorted(hosts)}")
        if t["deferred"] == 0:
            fail(f"{name} form deferred nothing")
        if len(hosts) != args.np:
            fail(f"{name} form: ranks ran on {sorted(hosts)}, expected one node each")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--flavor", required=True, choices=["openmpi", "mpich"])
    ap.add_argument("--np", type=int, default=2)
    ap.add_argument("mode",
                    choices=["equality", "touchline", "counts", "usage", "cluster", "jacobi",
                             "soak", "moves", "fortran", "unreached", "plugin",
                             "transpose", "pcg", "collectives", "blocking"])
    ap.add_argument("--run", required=True, help="overlap-run")
    ap.add_argument("--shim", required=True, help="liboverlap-intercept.so")
    ap.add_argument("--program", required=True, help="intercept-cases")
    ap.add_argument("--case", default="random")
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--progress", choices=["caller", "shared", "dedicated"])
    ap.add_argument("--form", choices=["rank", "launcher"], default="rank")
    ap.add_argument("--collectives", choices=["overlap", "mpi"], help="overlap-run's setting")
    ap.add_argument("--defer", help="overlap-run's --defer (blocking)")
    ap.add_argument("--min-size", default="4KiB")
    ap.add_argument("--needs-memory-gib", type=float, default=0,
                    help="skip (exit 77) where less memory is available")
    ap.add_argument("--cluster")
    ap.add_argument("--conformance-program", help="intercept-conformance (soak)")
    ap.add_argument("--report-tool", help="overlap-report (unreached)")
    ap.add_argument("--module", help="intercept-plugin (plugin)")
    ap.add_argument("--seconds", type=float, default=120, help="soak: how long")
    args = ap.parse_args()
    body = {"equality": do_equality, "touchline": do_touchline, "counts": do_counts,
            "usage": do_usage, "cluster": do_cluster, "jacobi": do_jacobi,
            "soak": do_soak, "moves": do_moves, "fortran": do_fortran,
            "unreached": do_unreached, "plugin": do_plugin,
            "transpose": do_transpose, "pcg": do_pcg,
            "collectives": do_collectives, "blocking": do_blocking}[args.mode]
    main_frame(f"check_intercept.{args.mode}.", lambda tmp: body(args, tmp))


if __name__ == "__main__":
    main()
