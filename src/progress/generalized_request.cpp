#include "progress/generalized_request.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "progress/mpi_errors.hpp"
#include "progress/mpi_transport.hpp"

namespace overlap::progress {
namespace {

struct RequestState {
  std::shared_ptr<TaskGraph> graph;              // a collective, or
  std::shared_ptr<ExternalCompletion> external;  // a request its owner completes
  ProgressEngine* engine;
  RequestSlot handle;
  // The engine's pass count when this request last polled or saw a pass: MPICH polls each
  // request of a Testall/Waitany in turn, and one pass serves them all.
  std::atomic<std::uint64_t> seen_pass;
  std::atomic<bool> queried{false};     // MPI asked for the status: a Wait or Test completed it
  std::atomic<bool> abandoning{false};  // freed by abandon_generalized_request
  RequestState* prev = nullptr;         // the registry's list (under its lock); collectives
  RequestState* next = nullptr;         // only
  bool registered = false;
};

// Our live requests, for abandon_generalized_request: a list through the requests
// themselves, so registering one allocates nothing (a hash map made an allocation per
// collective); the lookup by handle walks it, which only an abandon does. Never
// destroyed: MPI may free requests during static destruction.
struct Registry {
  std::mutex mu;
  RequestState* head = nullptr;

  void add(RequestState* s) {
    s->registered = true;
    s->next = head;
    if (head != nullptr) head->prev = s;
    head = s;
  }
  void remove(RequestState* s) {
    if (!s->registered) return;
    s->registered = false;
    (s->prev != nullptr ? s->prev->next : head) = s->next;
    if (s->next != nullptr) s->next->prev = s->prev;
    s->prev = s->next = nullptr;
  }
  RequestState* find(RequestSlot handle) const {
    for (RequestState* s = head; s != nullptr; s = s->next)
      if (s->handle == handle) return s;
    return nullptr;
  }
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

std::atomic<bool> warned_free{false};

// A collective's status is empty (MPI 4.0 sec. 3.7.3): any source, any tag, no data.
// (The standard means query_fn to call MPI_Status_set_*; both MPIs run it unlocked.)
int query(void* state, MPI_Status* status) {
  auto* s = static_cast<RequestState*>(state);
  s->queried.store(true, std::memory_order_release);
  if (s->external) {
    const ExternalCompletion::Status& st = s->external->status();
    PMPI_Status_set_elements_x(status, MPI_BYTE, st.bytes);
    PMPI_Status_set_cancelled(status, 0);
    status->MPI_SOURCE = st.source;
    status->MPI_TAG = st.tag;
    status->MPI_ERROR = st.error;
    return st.error;
  }
  const bool abandoned = s->graph->abandoned();
  const int failed = s->graph->failure_code();
  const int code = !abandoned ? MPI_SUCCESS : failed != 0 ? failed : abandoned_code();
  PMPI_Status_set_elements(status, MPI_BYTE, 0);
  PMPI_Status_set_cancelled(status, 0);
  status->MPI_SOURCE = MPI_ANY_SOURCE;
  status->MPI_TAG = MPI_ANY_TAG;
  status->MPI_ERROR = code;
  return code;
}

int release(void* state) {
  auto* s = static_cast<RequestState*>(state);
  if (!s->external && !s->queried.load(std::memory_order_acquire) && !s->abandoning.load() &&
      !warned_free.exchange(true)) {
    std::fprintf(stderr,
                 "liboverlap: MPI_Request_free on a nonblocking collective's request is "
                 "erroneous (MPI 4.0 sec. 6.12); the collective still runs to completion in "
                 "the background, and its buffers must stay valid until then\n");
  }
  {
    std::lock_guard lock(registry().mu);
    registry().remove(s);
  }
  delete s;  // drops a graph reference; the scheduler keeps its own while it runs
  return MPI_SUCCESS;
}

int cancel(void*, int) { return cancel_refused_code(); }

#ifdef MPICH
bool is_done(const RequestState& s) { return s.graph ? s.graph->complete() : s.external->done(); }

// MPICH calls this from MPI_Test and loops on it in MPI_Wait without running its own
// progress, so it must drive our sub-requests: one collaborative pass does, unless the
// graph is done or another poll (or thread) made a pass since this request last looked.
int poll(void* state, MPI_Status*) {
  auto* s = static_cast<RequestState*>(state);
  if (is_done(*s)) return MPI_SUCCESS;
  const std::uint64_t now = s->engine->passes();
  if (now != s->seen_pass.load(std::memory_order_relaxed)) {
    s->seen_pass.store(now, std::memory_order_relaxed);
    return MPI_SUCCESS;
  }
  s->engine->progress();
  s->seen_pass.store(s->engine->passes(), std::memory_order_relaxed);
  return MPI_SUCCESS;
}

// Used by MPICH when waiting on several generalized requests of this kind at once.
int wait(int count, void** states, double, MPI_Status*) {
  for (int i = 0; i < count; ++i) {
    auto* s = static_cast<RequestState*>(states[i]);
    s->engine->wait_until([s] { return is_done(*s); });
  }
  return MPI_SUCCESS;
}
#endif

// The MPI request for `state` (which it then owns), or an MPI error code.
int create_request(RequestState* state, MPI_Request* out) {
  MPI_Request r = MPI_REQUEST_NULL;
#ifdef MPICH
  int rc = PMPIX_Grequest_start(query, release, cancel, poll, wait, state, &r);
#else
  int rc = PMPI_Grequest_start(query, release, cancel, state, &r);
#endif
  if (rc != MPI_SUCCESS) {
    delete state;
    return rc;
  }
  state->handle = to_slot(r);
  *out = r;
  return MPI_SUCCESS;
}

}  // namespace

int start_generalized_request(ProgressEngine& engine, std::shared_ptr<TaskGraph> graph,
                              MPI_Request* request) {
  auto* state = new RequestState{graph, nullptr, &engine, 0, {engine.passes()}};
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int rc = create_request(state, &r); rc != MPI_SUCCESS) return rc;
  {
    std::lock_guard lock(registry().mu);
    registry().add(state);
  }
  // The graph completes the request from whichever thread finishes its last task.
  graph->on_complete([r]() mutable { PMPI_Grequest_complete(r); });
  *request = r;
  // Nobody else sees the graph yet, so this thread may run it.
  graph->start_ready();
  Scheduler::settle(*graph);
  if (!graph->complete()) engine.submit(std::move(graph));
  return MPI_SUCCESS;
}

void ExternalCompletion::complete(const Status& status) {
  status_ = status;
  done_.store(true, std::memory_order_release);
  PMPI_Grequest_complete(request_);
}

int start_external_request(ProgressEngine& engine, std::shared_ptr<ExternalCompletion> completion,
                           MPI_Request* request) {
  auto* state = new RequestState{nullptr, completion, &engine, 0, {engine.passes()}};
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int rc = create_request(state, &r); rc != MPI_SUCCESS) return rc;
  completion->request_ = r;
  *request = r;
  return MPI_SUCCESS;
}

int abandon_generalized_request(MPI_Request* request) {
  if (request == nullptr || *request == MPI_REQUEST_NULL) return MPI_ERR_REQUEST;
  std::shared_ptr<TaskGraph> graph;
  ProgressEngine* engine = nullptr;
  {
    std::lock_guard lock(registry().mu);
    RequestState* s = registry().find(to_slot(*request));
    if (s == nullptr) return MPI_ERR_REQUEST;
    s->abandoning.store(true);
    graph = s->graph;
    engine = s->engine;
  }
  graph->abandon();
  // Until the receives are cancelled and finished, MPI may still write the buffers (a
  // receive already matched completes instead of being cancelled): drive passes until
  // then, for at most 10 s (a peer that died mid-message would hold it for ever).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!graph->complete() && !(graph->abandon_handled() && graph->receives_running() == 0) &&
         std::chrono::steady_clock::now() < deadline) {
    if (engine->progress() == 0) std::this_thread::yield();
  }
  // MPICH calls release() right here, Open MPI once the graph completed the request.
  return PMPI_Request_free(request);
}

}  // namespace overlap::progress
