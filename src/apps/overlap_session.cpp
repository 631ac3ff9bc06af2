#include "apps/overlap_session.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "mpi/agree_on_failure.hpp"
#include "overlap/overlap.h"

namespace overlap::apps {

ResolvedProgress resolve_auto_progress(int threads, bool leave_core) {
  OVX_Progress p = OVX_PROGRESS_SHARED;
  const char* why = nullptr;
  ResolvedProgress r;
  if (OVX_Progress_choose(threads, leave_core ? 1 : 0, &p, &why) != MPI_SUCCESS) {
    r.reason = "auto: liboverlap could not choose; shared";
    return r;
  }
  r.policy = p == OVX_PROGRESS_CALLER      ? bench::ProgressPolicy::caller
             : p == OVX_PROGRESS_DEDICATED ? bench::ProgressPolicy::dedicated
                                           : bench::ProgressPolicy::shared;
  r.reason = std::string("auto: ") + (why != nullptr ? why : "");
  return r;
}

bench::ProgressChoice liboverlap_progress(const std::string& reason) {
  bench::ProgressChoice c;
  OVX_Progress p = OVX_PROGRESS_DEFAULT;
  OVX_Get_progress(&p);
  c.policy = OVX_Progress_name(p);
  c.reason = reason;
  return c;
}

int start_liboverlap(bench::ProgressPolicy policy, const std::string& reason) {
  const OVX_Progress p = policy == bench::ProgressPolicy::caller      ? OVX_PROGRESS_CALLER
                         : policy == bench::ProgressPolicy::dedicated ? OVX_PROGRESS_DEDICATED
                                                                      : OVX_PROGRESS_SHARED;
  // Errors come back as codes (not an abort) so the run can end with one line and exit 2.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto failure = [rank](int rc) -> std::string {
    if (rc == MPI_SUCCESS) return "";
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return std::string(text, static_cast<std::size_t>(len)) + " (rank " + std::to_string(rank) +
           ")";
  };
  std::string why = mpi::agree_on_failure(MPI_COMM_WORLD, failure(OVX_Init(p)));
  // The cost model measured and agreed before the first collective (every rank is here).
  if (why.empty()) why = mpi::agree_on_failure(MPI_COMM_WORLD, failure(OVX_Calibrate()));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  if (why.empty()) {
    const char* verbose = std::getenv("OVERLAP_VERBOSE");
    if (rank == 0 && verbose != nullptr && std::atoi(verbose) != 0)
      std::fprintf(stderr, "overlap-bench: progress policy '%s' (%s)\n",
                   std::string(bench::to_string(policy)).c_str(), reason.c_str());
    return 0;
  }
  if (rank == 0)
    std::fprintf(stderr, "overlap-bench: --progress %s: %s\n",
                 std::string(bench::to_string(policy)).c_str(), why.c_str());
  return 2;
}

bench::CostModelFacts liboverlap_cost_model() {
  bench::CostModelFacts m;
  const char* source = nullptr;
  OVX_Get_cost_model(&m.latency_s, &m.bandwidth, &source);
  m.source = source != nullptr ? source : "";
  return m;
}

}  // namespace overlap::apps
