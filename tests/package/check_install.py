#!/usr/bin/python3
"""The installed tree, used the way users use it: from a fresh prefix that is not a system
directory, with no LD_LIBRARY_PATH, by outside projects that only know the prefix.

    check_install.py install   --build DIR --prefix P --cmake CMAKE
    check_install.py programs  --prefix P --mpiexec M --flavor F
    check_install.py consumer  --prefix P --mpiexec M --flavor F --kind cxx|c-cmake|c-pkgconfig
    check_install.py relocated --prefix P --mpiexec M --flavor F --cmake CMAKE
    check_install.py wrong-mpi --prefix P --flavor F

`install` makes the prefix (ctest fixture); the others only read it. Each consumer checks
liboverlap's results against MPI's own on 2 ranks and must link the installed library.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "mpi"))
from mpitest import fail, launcher, main_frame, mpi_env, run  # noqa: E402

HERE = Path(__file__).resolve().parent
VERSION = (HERE.parent.parent / "VERSION").read_text().strip()
PROGRAMS = ("overlap-bench", "overlap-report", "overlap-run")


def user_env():
    """What a user's shell has: no LD_LIBRARY_PATH, no pkg-config or CMake paths of ours
    (the tests name the prefix explicitly where a user would)."""
    env = mpi_env()
    for var in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "CMAKE_PREFIX_PATH", "LIBRARY_PATH",
                "CPATH"):
        env.pop(var, None)
    return env


def check_links_prefix(binary, prefix, env):
    """The dynamic loader, with the user's environment, resolves liboverlap to the prefix."""
    p = subprocess.run(["ldd", str(binary)], env=env, capture_output=True, text=True)
    libs = p.stdout
    hit = re.search(r"liboverlap\.so\S* => (\S+)", libs)
    if not hit:
        fail(f"{binary} does not load liboverlap:\n{libs}")
    if not os.path.realpath(hit.group(1)).startswith(os.path.realpath(prefix) + os.sep):
        fail(f"{binary} loads {hit.group(1)}, not the installed one under {prefix}")
    if "not found" in libs:
        fail(f"{binary} has unresolved libraries:\n{libs}")


def do_install(args, tmp):
    prefix = Path(args.prefix)
    shutil.rmtree(prefix, ignore_errors=True)
    p = run([args.cmake, "--install", args.build, "--prefix", str(prefix)], os.environ)
    if p.returncode != 0:
        fail("cmake --install failed")
    for rel in ("bin/overlap-bench", "bin/overlap-report", "include/overlap/overlap.h",
                "include/overlap/overlap.hpp", "include/overlap/overlap_config.h",
                "lib/cmake/Overlap/OverlapConfig.cmake", "lib/pkgconfig/overlap.pc",
                "bin/overlap-run", "lib/liboverlap-intercept.so",
                "lib/liboverlap-intercept-core.so"):
        if not (prefix / rel).exists():
            fail(f"{rel} is not installed")


def do_programs(args, tmp):
    prefix = Path(args.prefix)
    env = user_env()
    for name in PROGRAMS:
        exe = prefix / "bin" / name
        for flag in ("--help", "--version"):
            p = run([str(exe), flag], env, timeout=60)
            if p.returncode != 0:
                fail(f"{name} {flag}: exit {p.returncode}")
            if flag == "--version" and p.stdout.strip() != f"{name} {VERSION}":
                fail(f"{name} --version printed {p.stdout.strip()!r}, expected "
                     f"'{name} {VERSION}'")
            if flag == "--help" and "usage" not in p.stdout.lower():
                fail(f"{name} --help printed no usage")
    check_links_prefix(prefix / "bin" / "overlap-bench", prefix, env)
    out = os.path.join(tmp, "sync.json")
    p = run(launcher(args, 2) + [str(prefix / "bin" / "overlap-bench"), "sync", "--passes", "2",
                                 "--span", "0.2s", "--verify-after", "0.1s",
                                 "--barrier-iterations", "10", "--output", out], env, timeout=120)
    if p.returncode != 0:
        fail(f"installed overlap-bench sync on 2 ranks: exit {p.returncode}")
    with open(out) as f:
        doc = json.load(f)
    if doc.get("benchmark") != "sync" or doc["metadata"].get("processes") != 2:
        fail(f"sync.json: benchmark {doc.get('benchmark')!r}, "
             f"processes {doc['metadata'].get('processes')!r}")
    # The installed report reads what the installed bench wrote (every module installed).
    report = os.path.join(tmp, "report")
    p = run([str(prefix / "bin" / "overlap-report"), out, "-o", report], env, timeout=240)
    if p.returncode != 0 or not os.path.isfile(os.path.join(report, "sync.png")):
        fail(f"installed overlap-report on the installed bench's sync.json: exit {p.returncode}")
    check_overlap_run(args, prefix, env, tmp)


def build_test_program(args, name, env, tmp):
    """tests/intercept/NAME.c built with the MPI's own wrapper, as a user would."""
    exe = os.path.join(tmp, name)
    src = HERE.parent / "intercept" / f"{name}.c"
    p = run([f"mpicc.{args.flavor}", "-g", "-O1", "-o", exe, str(src), "-lpthread"], env,
            timeout=300)
    if p.returncode != 0:
        fail(f"mpicc.{args.flavor} cannot build {src.name}")
    return exe


def check_overlap_run(args, prefix, env, tmp):
    """A small program built with the MPI's own wrapper runs under the installed
    overlap-run (which finds its preload in lib/, and that its core beside it), and the
    report shows its large messages deferred."""
    exe = build_test_program(args, "intercept_cases", env, tmp)
    report = os.path.join(tmp, "overlap-run.json")
    p = run(launcher(args, 2) + [str(prefix / "bin" / "overlap-run"), "--min-size", "4KiB",
                                 "--report", report, "--", exe, "touchline"], env, timeout=120)
    if p.returncode != 0:
        fail(f"installed overlap-run on 2 ranks: exit {p.returncode}")
    with open(report) as f:
        doc = json.load(f)
    deferred = sum(s["deferred"] for r in doc["ranks"] for s in r["call_sites"])
    if doc.get("benchmark") != "overlap-run" or deferred < 2:
        fail(f"overlap-run.json: benchmark {doc.get('benchmark')!r}, {deferred} deferred")
    check_overlap_run_fortran(args, prefix, env, tmp)
    if args.flavor == "mpich":
        check_overlap_run_partitioned(args, prefix, env, tmp)


def check_overlap_run_fortran(args, prefix, env, tmp):
    """A Fortran program (use mpi_f08) built with the MPI's own mpif90 runs under the
    installed overlap-run with the output it has plain, and its calls reach it: the report
    shows its MPI_Sendrecv deferred at its own line."""
    src = HERE.parent / "intercept" / "intercept_fortran.F90"
    exe = os.path.join(tmp, "fortran-f08")
    p = run([f"mpif90.{args.flavor}", "-g", "-O1", "-DUSE_F08", "-o", exe, str(src)], env,
            timeout=300)
    if p.returncode != 0:
        fail(f"mpif90.{args.flavor} cannot build {src.name}")
    plain = run(launcher(args, 2) + [exe], env, timeout=120)
    report = os.path.join(tmp, "fortran.json")
    inter = run(launcher(args, 2) + [str(prefix / "bin" / "overlap-run"), "--min-size", "4KiB",
                                     "--report", report, "--", exe], env, timeout=120)
    if plain.returncode != 0 or inter.returncode != 0:
        fail(f"Fortran program: exit {plain.returncode} plain, {inter.returncode} under the "
             "installed overlap-run")
    if sorted(plain.stdout.splitlines()) != sorted(inter.stdout.splitlines()):
        fail(f"Fortran program: output {inter.stdout!r} under overlap-run, {plain.stdout!r} plain")
    with open(report) as f:
        doc = json.load(f)
    sites = [s for r in doc["ranks"] for s in r["call_sites"] if s["deferred"] > 0]
    where = {s["site"]["text"] for s in sites}
    if not sites or not all(w.startswith(src.name) for w in where):
        fail(f"Fortran program: deferred at {sorted(where)}, expected lines of {src.name}")


def check_overlap_run_partitioned(args, prefix, env, tmp):
    """MPICH: a program written against MPI's own partitioned API, built with mpicc, gets
    liboverlap's partitioned layer (routed by the installed preload and core, which find
    liboverlap.so without LD_LIBRARY_PATH): its data right, partition 0 early."""
    exe = build_test_program(args, "intercept_partitioned", env, tmp)
    overlap_run = str(prefix / "bin" / "overlap-run")
    for name, program_args in (("cases", ["cases", "7", "4"]),
                               ("early", ["early", os.path.join(tmp, "arrived"), "120"])):
        report = os.path.join(tmp, f"partitioned-{name}.json")
        p = run(launcher(args, 2) + [overlap_run, "--report", report, "--", exe, *program_args],
                env, timeout=600)
        if p.returncode != 0 or "FAIL" in p.stdout or p.stdout.count(" PASS") != 2:
            print(p.stdout + p.stderr)
            fail(f"installed overlap-run, partitioned {name}: exit {p.returncode}")
        with open(report) as f:
            doc = json.load(f)
        routed = [r.get("partitioned_routed", 0) for r in doc["ranks"]]
        if doc["metadata"].get("partitioned") != "overlap" or min(routed) < 1:
            fail(f"partitioned {name}: report says {doc['metadata'].get('partitioned')!r}, "
                 f"routed {routed}")


def build_consumer(kind, prefix, tmp, env, cmake):
    """Builds one outside project against the prefix, as its README tells users to."""
    src = HERE / "consumers" / ("cxx" if kind == "cxx" else "c")
    build = Path(tmp) / f"build-{kind}"
    if kind == "c-pkgconfig":
        shutil.copytree(src, build)
        env = dict(env, PKG_CONFIG_PATH=str(Path(prefix) / "lib" / "pkgconfig"))
        p = run(["make", "-C", str(build), "consumer"], env, timeout=300)
    else:
        p = run([cmake, "-S", str(src), "-B", str(build), "-G", "Ninja",
                 f"-DCMAKE_PREFIX_PATH={prefix}"], env, timeout=300)
        if p.returncode == 0:
            p = run([cmake, "--build", str(build)], env, timeout=300)
    if p.returncode != 0:
        fail(f"the {kind} consumer does not build against {prefix}")
    return build / "consumer"


def run_consumer(args, exe, prefix, env):
    check_links_prefix(exe, prefix, env)
    p = run(launcher(args, 2) + [str(exe)], env, timeout=120)
    if p.returncode != 0 or "consumer ok 2" not in p.stdout.splitlines():
        fail(f"{exe}: exit {p.returncode}, expected 'consumer ok 2'")


def do_consumer(args, tmp):
    env = user_env()
    exe = build_consumer(args.kind, args.prefix, tmp, env, args.cmake)
    run_consumer(args, exe, args.prefix, env)


def do_relocated(args, tmp):
    """The prefix copied elsewhere (a module tree synced to another path, a container):
    programs, the CMake package and pkg-config must follow. The wrapper path recorded at
    build time is made to point nowhere, so the package must find the wrapper by name."""
    moved = Path(tmp) / "moved" / "prefix"
    shutil.copytree(args.prefix, moved, symlinks=True)
    config = moved / "lib" / "cmake" / "Overlap" / "OverlapConfig.cmake"
    text = config.read_text()
    broken, n = re.subn(r'(set\(_overlap_(?:C|CXX)_compiler_path ")[^"]*(")',
                        r"\1/nonexistent/bin/mpi-wrapper\2", text)
    if n != 2:
        fail(f"OverlapConfig.cmake records {n} wrapper paths, expected 2 (C and CXX)")
    config.write_text(broken)
    env = user_env()
    p = run([str(moved / "bin" / "overlap-bench"), "--version"], env, timeout=60)
    if p.returncode != 0:
        fail("the relocated overlap-bench does not start")
    check_links_prefix(moved / "bin" / "overlap-bench", moved, env)
    for kind in ("cxx", "c-pkgconfig"):
        run_consumer(args, build_consumer(kind, moved, tmp, env, args.cmake), moved, env)


def do_wrong_mpi(args, tmp):
    """Compiling against the other MPI library's mpi.h stops at overlap.h's check."""
    other = {"openmpi": "mpich", "mpich": "openmpi"}[args.flavor]
    cc = shutil.which(f"mpicc.{other}")
    if cc is None:
        print(f"SKIP: mpicc.{other} is not installed")
        sys.exit(77)
    obj = os.path.join(tmp, "main.o")
    p = run([cc, "-I", str(Path(args.prefix) / "include"), "-c",
             str(HERE / "consumers" / "c" / "main.c"), "-o", obj], user_env(), timeout=120)
    built = {"openmpi": "Open MPI", "mpich": "MPICH"}[args.flavor]
    if p.returncode == 0:
        fail(f"a liboverlap built with {built} compiled against {other}'s mpi.h")
    if f"liboverlap was built with {built}" not in p.stderr:
        fail("the compile failed without overlap.h's message naming the MPI library")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["install", "programs", "consumer", "relocated",
                                     "wrong-mpi"])
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--build")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--mpiexec", default="mpiexec")
    ap.add_argument("--flavor", choices=["openmpi", "mpich"])
    ap.add_argument("--kind", choices=["cxx", "c-cmake", "c-pkgconfig"])
    args = ap.parse_args()
    body = {"install": do_install, "programs": do_programs, "consumer": do_consumer,
            "relocated": do_relocated, "wrong-mpi": do_wrong_mpi}[args.mode]
    main_frame(f"check_install.{args.mode}.", lambda tmp: body(args, tmp))


if __name__ == "__main__":
    main()
