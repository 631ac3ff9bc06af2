# The MPI compiler wrappers as the packages offer them to applications
# (OverlapConfig.cmake, overlap.pc): for C and CXX, the wrapper as configured and the
# absolute path it resolves to on this machine, so that a name
# (-DMPI_C_COMPILER=mpicc.openmpi) is as good a hint as a path. Sets
# OVERLAP_MPI_<lang>_COMPILER_PATH and OVERLAP_MPI_<lang>_COMPILER_NAME ("" if unknown).
function(overlap_record_mpi_wrappers)
  foreach(lang IN ITEMS C CXX)
    set(given "${MPI_${lang}_COMPILER}")
    set(path "")
    set(name "")
    if(given)
      if(IS_ABSOLUTE "${given}")
        set(path "${given}")
      else()
        find_program(resolved NAMES "${given}" NO_CACHE)
        if(resolved)
          set(path "${resolved}")
        endif()
      endif()
      # The path itself, not its symlink's target: Open MPI's wrappers are one program
      # (opal_wrapper) that behaves by the name it is called with.
      get_filename_component(name "${given}" NAME)
    endif()
    set(OVERLAP_MPI_${lang}_COMPILER_PATH "${path}" PARENT_SCOPE)
    set(OVERLAP_MPI_${lang}_COMPILER_NAME "${name}" PARENT_SCOPE)
  endforeach()
endfunction()
