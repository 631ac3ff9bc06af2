// The bridge from a task graph to a real MPI request (MPI generalized request), so the
// application waits with MPI_Wait/MPI_Test/MPI_Waitall on any mix of our requests and
// its own. On MPICH the request carries a poll function (MPIX_Grequest_start) that makes
// every MPI_Test/MPI_Wait on it progress the engine; on Open MPI the same is done by the
// progress hook (mpi_progress_hook.hpp).
#pragma once

#include <mpi.h>

#include <memory>

#include "progress/progress_engine.hpp"
#include "progress/task_graph.hpp"

namespace overlap::progress {

// Submits `graph` to `engine` and returns the request that completes with it. The
// engine must outlive the request. Returns an MPI error code.
int start_generalized_request(ProgressEngine& engine, std::shared_ptr<TaskGraph> graph,
                              MPI_Request* request);

}  // namespace overlap::progress
