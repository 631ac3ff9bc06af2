// intercept_abi.h: the error reporting of the OVX_P* calls, for the interposition library
// that routes a program's MPI_Psend_init family here (its own refusals, such as MPI_Start
// of a request whose epoch the program has not completed, read like ours).
#include "partitioned/intercept_abi.h"

#include "partitioned/wire_tags.hpp"
#include "progress/mpi_errors.hpp"

extern "C" int ovx_private_partitioned_error(const char* fn, MPI_Comm comm, const char* why) {
  return overlap::progress::report_call_error(fn, comm, overlap::progress::ErrorKind::request, why);
}

extern "C" int ovx_private_partitioned_routable(int tag, MPI_Comm comm) {
  if (comm == MPI_COMM_NULL) return 1;  // the layer reports it as MPI would
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter != 0) return 0;
  int* ub = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  const auto tags = overlap::partitioned::wire_tags(flag != 0 && ub != nullptr ? *ub : 32767);
  // Wildcards and negative tags are refused by both, with an error.
  return tag < tags.user_tag_limit ? 1 : 0;
}
