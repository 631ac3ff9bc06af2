#!/usr/bin/python3
"""The Spack recipe (packaging/spack) against the build it describes, without Spack
(Debian does not package it): the recipe is loaded with a stand-in for Spack's
directives, which records what it declares. Checked:
  - its version is the project's VERSION;
  - it depends on a Spack package for every dependency CMake looks for (find_package,
    pkg_check_modules in CMakeLists.txt), so adding one to the build without the recipe
    fails here;
  - the `mpi` variant offers auto/openmpi/mpich and pins the provider for the latter two;
  - cmake_args() passes the provider's wrappers and sets only cache variables the build
    defines.
What this cannot check is Spack's own behaviour (concretization, fetching, its build
environment): that needs Spack.
"""
import argparse
import re
import sys
import types
from pathlib import Path

# CMake's name for a dependency -> the Spack package providing it; None: the compiler or
# CMake itself provides it.
SPACK_NAME = {
    "MPI": "mpi",
    "OpenMP": None,
    "Threads": None,
    "PkgConfig": "pkgconfig",
    "hwloc": "hwloc",
    "openblas": "openblas",
    "CLI11": "cli11",
    "nlohmann_json": "nlohmann-json",
    "fmt": "fmt",
    "GTest": "googletest",
    "libdw": "elfutils",
}


class Failure(Exception):
    pass


def fail(msg):
    raise Failure(msg)


class Recorder:
    """Stand-in for Spack's directives: records their arguments."""

    def __init__(self):
        self.versions, self.variants, self.depends = [], {}, []

    def module(self):
        m = types.ModuleType("spack.package")
        m.version = lambda v, **kw: self.versions.append(v)
        m.variant = lambda name, **kw: self.variants.__setitem__(name, kw)
        m.depends_on = lambda spec, when=None, type=None: self.depends.append((spec, when))
        m.run_after = lambda phase: (lambda f: f)
        m.filter_file = lambda *a, **kw: None
        m.join_path = lambda *parts: "/".join(parts)
        return m


class CMakePackage:
    """Just enough of Spack's CMakePackage for cmake_args()."""

    run_tests = False

    def define(self, name, value):
        if isinstance(value, bool):
            return f"-D{name}:BOOL={'ON' if value else 'OFF'}"
        return f"-D{name}:STRING={value}"


def load_recipe(path):
    rec = Recorder()
    spack = types.ModuleType("spack")
    spack.package = rec.module()
    cmake_mod = types.ModuleType("spack_repo.builtin.build_systems.cmake")
    cmake_mod.CMakePackage = CMakePackage
    for name in ("spack_repo", "spack_repo.builtin", "spack_repo.builtin.build_systems"):
        sys.modules[name] = types.ModuleType(name)
    sys.modules.update({"spack": spack, "spack.package": spack.package,
                        "spack_repo.builtin.build_systems.cmake": cmake_mod})
    scope = {}
    exec(compile(path.read_text(), str(path), "exec"), scope)
    if "Overlap" not in scope or not issubclass(scope["Overlap"], CMakePackage):
        fail("the recipe defines no class Overlap(CMakePackage)")
    return scope["Overlap"], rec


def cmake_code(paths):
    """The CMake files' text without comments (which mention find_package(Overlap))."""
    return "\n".join(re.sub(r"#.*", "", p.read_text()) for p in paths)


def cmake_dependencies(source):
    # Every CMakeLists of the sources (a folder's own dependency, e.g. src/intercept's
    # libdw, counts as much as the top level's) and the helper modules.
    text = cmake_code([*sorted(source.glob("src/**/CMakeLists.txt")), source / "CMakeLists.txt",
                       source / "tests" / "CMakeLists.txt", *source.glob("cmake/*.cmake")])
    found = set(re.findall(r"find_package\(\s*(\w+)", text))
    modules = re.findall(r"pkg_check_modules\(\s*\w+\s+(?:[A-Z_]+\s+)*([\w-]+)\s*\)", text)
    return found | set(modules)


def check(source):
    recipe = source / "packaging/spack/spack_repo/overlap/packages/overlap/package.py"
    cls, rec = load_recipe(recipe)
    version = (source / "VERSION").read_text().strip()
    if version not in rec.versions:
        fail(f"the recipe's versions {rec.versions} lack the project's VERSION {version}")

    declared = {spec.split("@")[0] for spec, when in rec.depends if when is None}
    for dep in sorted(cmake_dependencies(source)):
        if dep not in SPACK_NAME:
            fail(f"CMake looks for '{dep}', unknown to this check: add its Spack package to "
                 "the recipe and to SPACK_NAME here")
        if SPACK_NAME[dep] is not None and SPACK_NAME[dep] not in declared:
            fail(f"CMake needs {dep} but the recipe has no depends_on('{SPACK_NAME[dep]}')")

    mpi = rec.variants.get("mpi")
    if mpi is None or set(mpi.get("values", ())) != {"auto", "openmpi", "mpich"}:
        fail(f"variant mpi: {mpi}, expected values auto, openmpi, mpich")
    for provider in ("openmpi", "mpich"):
        if (provider, f"mpi={provider}") not in rec.depends:
            fail(f"mpi={provider} does not pin depends_on('{provider}')")

    pkg = cls()
    provider = types.SimpleNamespace(mpicc="/spack/mpich/bin/mpicc",
                                     mpicxx="/spack/mpich/bin/mpicxx")
    pkg.spec = {"mpi": provider}
    for run_tests in (False, True):
        pkg.run_tests = run_tests
        args = pkg.cmake_args()
        want = {"-DMPI_C_COMPILER:STRING=/spack/mpich/bin/mpicc",
                "-DMPI_CXX_COMPILER:STRING=/spack/mpich/bin/mpicxx",
                f"-DOVERLAP_BUILD_TESTS:BOOL={'ON' if run_tests else 'OFF'}"}
        if not want <= set(args):
            fail(f"cmake_args() = {args}, missing {sorted(want - set(args))}")
        sources = "\n".join(p.read_text() for p in source.rglob("*.cmake")) + \
            (source / "CMakeLists.txt").read_text()
        for arg in args:
            name = re.match(r"-D(\w+)", arg).group(1)
            if name.startswith("OVERLAP_") and name not in sources:
                fail(f"cmake_args() sets {name}, which the build does not define")
    print(f"recipe: version {version}, {len(rec.depends)} dependencies, "
          f"variant mpi {sorted(mpi['values'])}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True, type=Path)
    args = ap.parse_args()
    try:
        check(args.source)
    except Failure as e:
        print(f"FAIL: {e}")
        sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
