// The bridge from a task graph to a real MPI request (MPI generalized request), so the
// application waits with MPI_Wait/MPI_Test/MPI_Waitall on any mix of our requests and
// its own. On MPICH the request carries a poll function (MPIX_Grequest_start) that makes
// MPI_Test/MPI_Wait on it progress the engine; on Open MPI the same is done by the
// progress hook (mpi_progress_hook.hpp).
//
// Callbacks MPI runs for these requests never call MPI themselves except the poll
// function's pass (MPICH runs free_fn and cancel_fn holding its own lock): what they
// release holds no MPI object (communicators are freed at safe points, engine_runtime).
//  - MPI_Cancel is refused (erroneous for a nonblocking collective): cancel_fn returns a
//    code that says so, and the request is untouched.
//  - MPI_Request_free is accepted, as MPI accepts it for point-to-point requests: the
//    collective runs to completion in the background. It is erroneous for a collective,
//    so the first time it happens a line on stderr says so.
//  - A request whose collective was abandoned completes with an error code.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>

#include "progress/progress_engine.hpp"
#include "progress/task_graph.hpp"

namespace overlap::progress {

// Creates the request for `graph`, starts on the calling thread whatever can start right
// away (so a peer that waits on its side of the collective sees our first messages even
// if we never call MPI again), and hands the graph to `engine`, which must outlive the
// request. Returns an MPI error code.
int start_generalized_request(ProgressEngine& engine, std::shared_ptr<TaskGraph> graph,
                              MPI_Request* request);

// A request whose owner, not a task graph, decides when it completes (an epoch of a
// partitioned request: its operations are posted by MPI_Pready's threads and watched by
// the scheduler). complete() is called once, by whichever thread finishes the last piece
// (inside a pass, or in the thread that posted); what MPI_Wait then reports is `status`.
class ExternalCompletion {
 public:
  struct Status {
    int source = MPI_ANY_SOURCE;
    int tag = MPI_ANY_TAG;
    MPI_Count bytes = 0;
    int error = MPI_SUCCESS;
  };
  // Completes the MPI request; `status` is what MPI_Wait reports.
  void complete(const Status& status);
  bool done() const { return done_.load(std::memory_order_acquire); }
  const Status& status() const { return status_; }  // valid once done()

 private:
  friend int start_external_request(ProgressEngine&, std::shared_ptr<ExternalCompletion>,
                                    MPI_Request*);
  MPI_Request request_ = MPI_REQUEST_NULL;
  Status status_;
  std::atomic<bool> done_{false};
};

// Creates the MPI request for `completion` (call before anything can complete it).
int start_external_request(ProgressEngine& engine, std::shared_ptr<ExternalCompletion> completion,
                           MPI_Request* request);

// Gives up the collective behind `*request` without waiting for it: its receives are
// cancelled (nothing will write its buffers any more), sends already handed to MPI may
// still read theirs until they finish; the request is freed. MPI_ERR_REQUEST when the
// request is not a liboverlap collective's.
int abandon_generalized_request(MPI_Request* request);

}  // namespace overlap::progress
