# Chooses the MPI library at configure time.
#   -DOVERLAP_MPI=openmpi   Debian's Open MPI (mpicxx.openmpi, mpiexec.openmpi)
#   -DOVERLAP_MPI=mpich     Debian's MPICH    (mpicxx.mpich,   mpiexec.mpich)
#   -DOVERLAP_MPI=auto      whatever FindMPI finds first (the system's default
#                           alternative, or MPI_CXX_COMPILER if you set it) — for clusters.
set(OVERLAP_MPI "auto" CACHE STRING "MPI library: openmpi, mpich or auto")
set_property(CACHE OVERLAP_MPI PROPERTY STRINGS auto openmpi mpich)

if(OVERLAP_MPI STREQUAL "openmpi" OR OVERLAP_MPI STREQUAL "mpich")
  find_program(_overlap_mpicc NAMES mpicc.${OVERLAP_MPI} REQUIRED)
  find_program(_overlap_mpicxx NAMES mpicxx.${OVERLAP_MPI} REQUIRED)
  set(MPI_C_COMPILER "${_overlap_mpicc}" CACHE FILEPATH "" FORCE)
  set(MPI_CXX_COMPILER "${_overlap_mpicxx}" CACHE FILEPATH "" FORCE)
  find_program(_overlap_mpiexec NAMES mpiexec.${OVERLAP_MPI} REQUIRED)
  set(MPIEXEC_EXECUTABLE "${_overlap_mpiexec}" CACHE FILEPATH "" FORCE)
elseif(NOT OVERLAP_MPI STREQUAL "auto")
  message(FATAL_ERROR "OVERLAP_MPI='${OVERLAP_MPI}' is not one of: auto, openmpi, mpich")
endif()

find_package(MPI 3.1 REQUIRED COMPONENTS C CXX)

# Which library did we get? Tests need to know (launcher flags differ).
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_CXX)
check_cxx_source_compiles("#include <mpi.h>\n#ifndef OPEN_MPI\n#error no\n#endif\nint main(){}" OVERLAP_HAVE_OPEN_MPI)
check_cxx_source_compiles("#include <mpi.h>\n#ifndef MPICH\n#error no\n#endif\nint main(){}" OVERLAP_HAVE_MPICH)
unset(CMAKE_REQUIRED_LIBRARIES)
if(OVERLAP_HAVE_OPEN_MPI)
  set(OVERLAP_MPI_FLAVOR "openmpi")
elseif(OVERLAP_HAVE_MPICH)
  set(OVERLAP_MPI_FLAVOR "mpich")
else()
  set(OVERLAP_MPI_FLAVOR "other")
endif()
message(STATUS "Overlap: MPI flavour ${OVERLAP_MPI_FLAVOR}, launcher ${MPIEXEC_EXECUTABLE}")

include(${CMAKE_CURRENT_LIST_DIR}/OverlapMpiWrappers.cmake)
overlap_record_mpi_wrappers()
