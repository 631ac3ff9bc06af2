# Installed programs and libraries find each other from any prefix, with no
# LD_LIBRARY_PATH: every installed binary carries a run path relative to its own location
# ($ORIGIN), bin/ -> lib/ for programs and lib/ itself for libraries (a later library in
# lib/ that needs liboverlap.so, e.g. an interposer, finds it there). Libraries found
# outside the system's default directories at link time (an MPI from a cluster module,
# a Spack hwloc) are added as absolute run paths, so the installed tree keeps working
# after `module purge` as it did at build time. Must come before the targets are defined.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  # An absolute libdir does not move with the prefix: point at it as it is.
  set(_overlap_rpath "${CMAKE_INSTALL_LIBDIR}")
else()
  file(RELATIVE_PATH _overlap_bin_to_lib "/prefix/${CMAKE_INSTALL_BINDIR}"
       "/prefix/${CMAKE_INSTALL_LIBDIR}")
  set(_overlap_rpath "\$ORIGIN/${_overlap_bin_to_lib}" "\$ORIGIN")
endif()
set(CMAKE_INSTALL_RPATH ${_overlap_rpath})
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH ON)
