#include "apps/overlap_session.hpp"

#include <mpi.h>

#include <cstdio>

#include "overlap/overlap.h"

namespace overlap::apps {

int start_liboverlap(const std::string& policy) {
  const OVX_Progress p = policy == "caller"      ? OVX_PROGRESS_CALLER
                         : policy == "dedicated" ? OVX_PROGRESS_DEDICATED
                                                 : OVX_PROGRESS_SHARED;
  // Errors come back as codes (not an abort) so the run can end with one line and exit 2.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const int rc = OVX_Init(p);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  int failed = rc != MPI_SUCCESS ? 1 : 0, any = 0, rank = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any == 0) return 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  // The lowest failing rank says why; the others only exit.
  int first = failed ? rank : 1 << 30, lowest = 0;
  MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == lowest) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    std::fprintf(stderr, "overlap-bench: --progress %s: %.*s (rank %d)\n", policy.c_str(), len,
                 text, rank);
  }
  return 2;
}

}  // namespace overlap::apps
