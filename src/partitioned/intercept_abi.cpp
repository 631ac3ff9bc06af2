// intercept_abi.h: the error reporting of the OVX_P* calls, for the interposition library
// that routes a program's MPI_Psend_init family here (its own refusals, such as MPI_Start
// of a request whose epoch the program has not completed, read like ours).
#include "partitioned/intercept_abi.h"

#include "progress/mpi_errors.hpp"

extern "C" int ovx_private_partitioned_error(const char* fn, MPI_Comm comm, const char* why) {
  return overlap::progress::report_call_error(fn, comm, overlap::progress::ErrorKind::request, why);
}
