# How applications find the installed liboverlap (component liboverlap):
#  - CMake: find_package(Overlap) -> overlap::overlap (OverlapConfig.cmake.in says how the
#    MPI targets are handed on);
#  - Make and other build systems: pkg-config overlap (overlap.pc.in).
# Both carry the MPI flavour liboverlap was built with and steer the application to that
# MPI library; overlap.h refuses to compile against another one's mpi.h.
include(CMakePackageConfigHelpers)

set(OVERLAP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Overlap)
install(EXPORT OverlapTargets NAMESPACE overlap:: DESTINATION ${OVERLAP_CMAKE_DIR}
        COMPONENT liboverlap)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/OverlapConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/OverlapConfig.cmake INSTALL_DESTINATION ${OVERLAP_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/OverlapConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/OverlapConfig.cmake
              ${PROJECT_BINARY_DIR}/package/OverlapConfigVersion.cmake
        DESTINATION ${OVERLAP_CMAKE_DIR} COMPONENT liboverlap)

# overlap.pc. The prefix is found relative to the .pc file itself, so the installed tree
# can be moved or installed with `cmake --install --prefix` anywhere. MPI's own flags come
# from the flavour's pkg-config module where the MPI library ships one (Debian: ompi-c,
# mpich), otherwise from what FindMPI found, so `cc $(pkg-config --cflags --libs overlap)`
# builds an MPI program without the MPI wrapper.
set(OVERLAP_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(OVERLAP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH _overlap_up "/prefix/${OVERLAP_PC_DIR}" "/prefix")
  string(REGEX REPLACE "/$" "" _overlap_up "${_overlap_up}")
  set(OVERLAP_PC_PREFIX "\${pcfiledir}/${_overlap_up}")
endif()
set(_overlap_mpi_modules)
if(OVERLAP_MPI_FLAVOR STREQUAL "openmpi")
  set(_overlap_mpi_modules ompi-c)
elseif(OVERLAP_MPI_FLAVOR STREQUAL "mpich")
  set(_overlap_mpi_modules mpich)
endif()
set(OVERLAP_PC_REQUIRES "")
set(OVERLAP_PC_MPI_CFLAGS "")
set(OVERLAP_PC_MPI_LIBS "")
if(_overlap_mpi_modules)
  pkg_check_modules(_overlap_pc_mpi QUIET ${_overlap_mpi_modules})
endif()
if(_overlap_pc_mpi_FOUND)
  set(OVERLAP_PC_REQUIRES "${_overlap_mpi_modules}")
else()
  foreach(_dir IN LISTS MPI_C_INCLUDE_DIRS)
    string(APPEND OVERLAP_PC_MPI_CFLAGS " -I${_dir}")
  endforeach()
  foreach(_lib IN LISTS MPI_C_LIBRARIES)
    string(APPEND OVERLAP_PC_MPI_LIBS " ${_lib}")
  endforeach()
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/overlap.pc.in ${PROJECT_BINARY_DIR}/package/overlap.pc
               @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/overlap.pc DESTINATION ${OVERLAP_PC_DIR}
        COMPONENT liboverlap)
