// The `auto` progress policy as a program meets it (issue 26): liboverlap started with
// OVX_PROGRESS_DEFAULT and no OVERLAP_PROGRESS must pick `expected` (argv[1]) on every
// rank, and say why. ctest runs it under taskset with one and two cores, with one and two
// OpenMP threads, and with MPICH's own progress thread (tests/mpi/CMakeLists.txt).
//   mpiexec -n N [taskset -c LIST] ovx-auto caller|shared|dedicated
#include <mpi.h>
#include <omp.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "overlap/overlap.h"
#include "verdict.hpp"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const std::string expected = argc > 1 ? argv[1] : "";
  // OpenMP is loaded (this call keeps it linked): auto reads its team size.
  const int omp_threads = omp_get_max_threads();

  OVX_Progress before = OVX_PROGRESS_DEFAULT;
  const char* why_before = nullptr;
  ovx_test::expect(OVX_Progress_choose(0, 0, &before, &why_before) == MPI_SUCCESS,
                   "OVX_Progress_choose");
  ovx_test::expect(OVX_Init(OVX_PROGRESS_DEFAULT) == MPI_SUCCESS, "OVX_Init");
  OVX_Progress running = OVX_PROGRESS_DEFAULT;
  OVX_Get_progress(&running);
  const char* reason = OVX_Progress_reason();
  const std::string why = reason != nullptr ? reason : "(null)";
  std::printf("rank %d: %s (OpenMP threads %d): %s\n", rank, OVX_Progress_name(running),
              omp_threads, why.c_str());
  ovx_test::expect(expected == OVX_Progress_name(running),
                   "auto chose " + std::string(OVX_Progress_name(running)) + ", expected " +
                       expected + ": " + why);
  ovx_test::expect(
      before == running,
      "OVX_Progress_choose said " + std::string(OVX_Progress_name(before)) + " before OVX_Init");
  ovx_test::expect(why.rfind("auto: ", 0) == 0, "the reason does not say auto: " + why);
  // One collective runs with the chosen policy.
  int x = rank + 1, sum = 0;
  MPI_Request r = MPI_REQUEST_NULL;
  ovx_test::expect(OVX_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r) == MPI_SUCCESS,
                   "OVX_Iallreduce");
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ovx_test::expect(sum == size * (size + 1) / 2, "allreduce sum " + std::to_string(sum));
  OVX_Finalize();
  const int code = ovx_test::verdict("ovx-auto");
  MPI_Finalize();
  return code;
}
