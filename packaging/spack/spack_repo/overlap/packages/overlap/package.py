# Spack recipe for Overlap (Spack >= 1.0 package API v2.0). See packaging/spack/README.md.
from spack_repo.builtin.build_systems.cmake import CMakePackage

from spack.package import *


class Overlap(CMakePackage):
    """Does MPI communication overlap computation on this machine and MPI library, why
    not, and how to get it: overlap-bench (measure), overlap-report (explain) and
    liboverlap (nonblocking collectives driven by a progress engine)."""

    # No public download location is recorded here: build from a checkout with
    # `spack develop` (packaging/spack/README.md), or add `git = "<your clone's URL>"`
    # and a `version("main", branch="main")` to install from a server.
    version("0.1.0")

    # Which MPI provider to build against. liboverlap is tied to the MPI library it was
    # built with, so the choice is part of the spec; "auto" leaves it to the concretizer
    # (or to a ^provider in the spec).
    variant(
        "mpi",
        default="auto",
        values=("auto", "openmpi", "mpich"),
        multi=False,
        description="MPI provider liboverlap is built against",
    )

    depends_on("c", type="build")
    depends_on("cxx", type="build")
    depends_on("cmake@3.25:", type="build")
    depends_on("pkgconfig", type="build")

    depends_on("mpi")
    depends_on("openmpi", when="mpi=openmpi")
    depends_on("mpich", when="mpi=mpich")
    depends_on("hwloc")
    depends_on("openblas")
    depends_on("cli11")
    depends_on("nlohmann-json@3.10:")
    depends_on("fmt")
    depends_on("elfutils")  # libdw: overlap-run's report symbolizes code addresses
    depends_on("googletest", type="test")

    # overlap-report is Python with matplotlib and numpy.
    depends_on("python@3.9:", type="run")
    depends_on("py-matplotlib", type="run")
    depends_on("py-numpy", type="run")

    def cmake_args(self):
        mpi = self.spec["mpi"]
        return [
            # FindMPI takes the provider's wrappers; the build records them for
            # find_package(Overlap) and overlap.pc.
            self.define("OVERLAP_MPI", "auto"),
            self.define("MPI_C_COMPILER", mpi.mpicc),
            self.define("MPI_CXX_COMPILER", mpi.mpicxx),
            self.define("OVERLAP_BUILD_TESTS", self.run_tests),
        ]

    @run_after("install")
    def use_spack_python(self):
        # The launcher names Debian's /usr/bin/python3; use the python this spec runs with.
        filter_file(
            r"^#!.*python3.*$",
            "#!" + self.spec["python"].command.path,
            join_path(self.prefix.bin, "overlap-report"),
        )
