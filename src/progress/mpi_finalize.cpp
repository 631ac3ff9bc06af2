// liboverlap's MPI_Finalize, through MPI's profiling interface: it stops the progress
// engine, joining its thread, and only then calls PMPI_Finalize.
//
// Why not only the MPI_COMM_SELF attribute (engine_runtime.cpp), as the standard offers:
// MPICH 4.0 stops taking its global lock (MPIR_ThreadInfo.isThreaded = 0) before it
// deletes that attribute. A progress thread inside an MPI call at that moment then leaves
// the lock without releasing it, and MPI_Finalize aborts destroying a locked mutex
// ("pthread_mutex_destroy: Device or resource busy", seen in 1 run of 15); and until the
// callback stops it, the thread runs MPI unlocked beside the finalizing thread. The
// attribute stays as the fallback for programs whose own MPI_Finalize wrapper calls
// PMPI_Finalize directly, and overlap-run calls before_mpi_finalize() through the private
// ABI. Applications pick this definition up by linking liboverlap before the MPI library,
// which the CMake package, pkg-config file and compiler wrappers all do.
#include <mpi.h>

#include "progress/engine_runtime.hpp"

extern "C" int MPI_Finalize(void) {
  overlap::progress::before_mpi_finalize();
  return PMPI_Finalize();
}
