# cmake -DFLAVOR=openmpi|mpich -P wrapper_hint_test.cmake: the wrapper hint recorded for
# the packages is an existing absolute path whether the build was configured with a name
# (mpicc.<flavor>) or a path, and keeps the name (not the symlink's target).
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/OverlapMpiWrappers.cmake)
find_program(expected_cc NAMES mpicc.${FLAVOR} REQUIRED NO_CACHE)
find_program(expected_cxx NAMES mpicxx.${FLAVOR} REQUIRED NO_CACHE)

set(MPI_C_COMPILER mpicc.${FLAVOR})          # a name
set(MPI_CXX_COMPILER "${expected_cxx}")      # a path
overlap_record_mpi_wrappers()
foreach(check IN ITEMS "C;${expected_cc};mpicc.${FLAVOR}" "CXX;${expected_cxx};mpicxx.${FLAVOR}")
  list(GET check 0 lang)
  list(GET check 1 path)
  list(GET check 2 name)
  if(NOT OVERLAP_MPI_${lang}_COMPILER_PATH STREQUAL path)
    message(FATAL_ERROR "${lang}: path '${OVERLAP_MPI_${lang}_COMPILER_PATH}', expected '${path}'")
  endif()
  if(NOT OVERLAP_MPI_${lang}_COMPILER_NAME STREQUAL name)
    message(FATAL_ERROR "${lang}: name '${OVERLAP_MPI_${lang}_COMPILER_NAME}', expected '${name}'")
  endif()
endforeach()

set(MPI_C_COMPILER no-such-mpicc)            # unknown: no path, the name kept
overlap_record_mpi_wrappers()
if(NOT OVERLAP_MPI_C_COMPILER_PATH STREQUAL "" OR NOT OVERLAP_MPI_C_COMPILER_NAME STREQUAL "no-such-mpicc")
  message(FATAL_ERROR "unknown wrapper: path '${OVERLAP_MPI_C_COMPILER_PATH}', name '${OVERLAP_MPI_C_COMPILER_NAME}'")
endif()
message(STATUS "PASS")
