#include "progress/generalized_request.hpp"

namespace overlap::progress {
namespace {

struct RequestState {
  std::shared_ptr<TaskGraph> graph;
  ProgressEngine* engine;
};

// A collective's status is empty (MPI 4.0 sec. 3.7.3): any source, any tag, no data.
int query(void*, MPI_Status* status) {
  MPI_Status_set_elements(status, MPI_BYTE, 0);
  MPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  return MPI_SUCCESS;
}

int release(void* state) {
  delete static_cast<RequestState*>(state);
  return MPI_SUCCESS;
}

// Collective requests cannot be cancelled (MPI 4.0 sec. 6.12); MPI_Cancel does nothing.
int cancel(void*, int) { return MPI_SUCCESS; }

#ifdef MPICH
// MPICH calls this from MPI_Test and loops on it in MPI_Wait without running its own
// progress, so it must drive our sub-requests: one collaborative pass does.
int poll(void* state, MPI_Status*) {
  static_cast<RequestState*>(state)->engine->progress();
  return MPI_SUCCESS;
}

// Used by MPICH when waiting on several generalized requests of this kind at once.
int wait(int count, void** states, double, MPI_Status*) {
  for (int i = 0; i < count; ++i) {
    auto* s = static_cast<RequestState*>(states[i]);
    s->engine->wait(*s->graph);
  }
  return MPI_SUCCESS;
}
#endif

}  // namespace

int start_generalized_request(ProgressEngine& engine, std::shared_ptr<TaskGraph> graph,
                              MPI_Request* request) {
  auto* state = new RequestState{graph, &engine};
#ifdef MPICH
  int rc = MPIX_Grequest_start(query, release, cancel, poll, wait, state, request);
#else
  int rc = MPI_Grequest_start(query, release, cancel, state, request);
#endif
  if (rc != MPI_SUCCESS) {
    delete state;
    return rc;
  }
  // The graph completes the request from whichever thread finishes its last task.
  graph->on_complete([r = *request]() mutable { MPI_Grequest_complete(r); });
  engine.submit(std::move(graph));
  return MPI_SUCCESS;
}

}  // namespace overlap::progress
