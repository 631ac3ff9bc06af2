// The handle mapping between a program's MPI_Request and liboverlap's OVX_Prequest.
//
// The program holds a real MPI request the core owns: an inactive persistent receive from
// MPI_PROC_NULL on MPI_COMM_SELF (the "handle"), mapped to the OVX_Prequest and, while an
// epoch is active, to that epoch's MPI request (the generalized request OVX_Start made).
// Calls on a handle with an active epoch reach MPI with the epoch's request in its place;
// calls on a handle without one reach MPI with the handle itself, which MPI answers as the
// inactive persistent request it is (MPI_Wait returns at once with an empty status,
// MPI_Test sets flag, MPI_Waitany skips it, MPI_Request_get_status sets flag). When MPI
// completes an epoch (its request comes back MPI_REQUEST_NULL) the program's handle stays
// as it was and is inactive again, as a persistent request's is. Requests that are not
// routed go to MPI untouched, in the same call as the routed ones (mixed arrays).
#include "intercept/calls/partitioned_routes.hpp"

#include <mpi.h>

#include <atomic>

namespace overlap::intercept {
namespace {
std::atomic<std::uint64_t> partitioned_routed_total{0};
}  // namespace

std::uint64_t partitioned_routed() {
  return partitioned_routed_total.load(std::memory_order_relaxed);
}

}  // namespace overlap::intercept

#if MPI_VERSION < 4

namespace overlap::intercept {
bool partitioned_routing_compiled() { return false; }
void add_partitioned_routes(ovx_core&) {}
void start_partitioned_routes() {}
void stop_partitioned_routes() {}
}  // namespace overlap::intercept

#else

#include <overlap/overlap.h>

#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "intercept/placement/placement.hpp"
#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/program_requests.hpp"
#include "partitioned/intercept_abi.h"

namespace overlap::intercept {
namespace {

struct Routed {
  OVX_Prequest request = OVX_PREQUEST_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  // A send's buffer: MPI reads it from MPI_Pready on (on this thread or the engine's), so
  // deferred receives into it complete first. Empty for a receive (MPI_Start fences).
  Span send_data;
  MPI_Request epoch = MPI_REQUEST_NULL;  // the active epoch's request, null while inactive
};

// Handle -> Routed. Readers (Pready from many threads, the Wait/Test families) share the
// lock; `live` lets programs that never route skip it.
class Routes {
 public:
  bool any() const { return live_.load(std::memory_order_acquire) > 0; }
  std::optional<Routed> find(MPI_Request handle) const {
    std::shared_lock lock(mu_);
    auto it = map_.find(handle);
    if (it == map_.end()) return std::nullopt;
    return it->second;
  }
  // For each handle of `program` with an active epoch: its index and the epoch's request.
  std::vector<std::pair<int, MPI_Request> > active_epochs(int n, const MPI_Request* program) const {
    std::vector<std::pair<int, MPI_Request> > out;
    std::shared_lock lock(mu_);
    for (int i = 0; i < n; ++i) {
      auto it = map_.find(program[i]);
      if (it != map_.end() && it->second.epoch != MPI_REQUEST_NULL)
        out.emplace_back(i, it->second.epoch);
    }
    return out;
  }
  void add(MPI_Request handle, const Routed& r) {
    std::unique_lock lock(mu_);
    map_[handle] = r;
    live_.fetch_add(1, std::memory_order_release);
  }
  void set_epoch(MPI_Request handle, MPI_Request epoch) {
    std::unique_lock lock(mu_);
    if (auto it = map_.find(handle); it != map_.end()) it->second.epoch = epoch;
  }
  void remove(MPI_Request handle) {
    std::unique_lock lock(mu_);
    if (map_.erase(handle) > 0) live_.fetch_sub(1, std::memory_order_release);
  }

 private:
  mutable std::shared_mutex mu_;
  std::unordered_map<MPI_Request, Routed> map_;
  std::atomic<int> live_{0};
};

Routes& routes() {
  static auto* r = new Routes;  // never destroyed: calls may come after static destruction
  return *r;
}

// What the shim does for a call whose table entry is empty (mpi_functions.def's kinds).
void (*table_fence)() = nullptr;
void (*table_poll)() = nullptr;

void fence_deferred() {
  const Runtime& rt = runtime();
  if (table_fence != nullptr && __atomic_load_n(rt.shim->active, __ATOMIC_ACQUIRE) > 0)
    table_fence();
}
void progress_pass() {
  if (table_poll != nullptr) table_poll();
}

// The layer's messages go on a duplicate of MPI_COMM_WORLD made at MPI_Init, never on the
// program's own communicator: there the program's point-to-point (a receive with
// MPI_ANY_TAG from the partitioned peer, its own tags in the layer's part of the tag
// space) would meet them. Only requests on MPI_COMM_WORLD are routed: a duplicate per
// communicator would have to be made when the program makes each one (collectively), and
// MPICH's context ids, of which each communicator takes one, would run out at half the
// communicators a program may have without overlap-run.
MPI_Comm wire_world = MPI_COMM_NULL;

// Whether this request goes to the layer: decided from what both sides of the pair know
// alike (the communicator, the tag), never from a side's own datatype or buffer.
bool routing_on(int tag, MPI_Comm comm) {
  const Runtime& rt = runtime();
  return rt.active && rt.settings.partitioned_overlap && wire_world != MPI_COMM_NULL &&
         comm == MPI_COMM_WORLD && ovx_private_partitioned_routable(tag, wire_world) != 0;
}

int refuse(const char* fn, MPI_Comm comm, const std::string& why) {
  return ovx_private_partitioned_error(fn, comm, why.c_str());
}

// The program's handle: a real, inactive persistent request of ours, on the program's
// communicator. MPI keeps a communicator with persistent requests alive when the program
// frees it (MPI_Comm_free only marks it), and the layer goes on using the handle it was
// given: this request holds that reference until the program frees the handle.
int make_handle(MPI_Comm comm, MPI_Request* handle) {
  return PMPI_Recv_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, comm, handle);
}

int publish(OVX_Prequest r, MPI_Comm comm, const Span& send_data, MPI_Request* request) {
  MPI_Request handle = MPI_REQUEST_NULL;
  if (const int rc = make_handle(comm, &handle); rc != MPI_SUCCESS) {
    OVX_Prequest_free(&r);
    return rc;
  }
  routes().add(handle, Routed{r, comm, send_data, MPI_REQUEST_NULL});
  partitioned_routed_total.fetch_add(1, std::memory_order_relaxed);
  *request = handle;
  return MPI_SUCCESS;
}

// A partitioned receive holds its buffer while active, a send the partitions readied so
// far (program_requests.hpp).
int held(int rc, const MPI_Request* request, const void* buf, int partitions, MPI_Count count,
         MPI_Datatype type) {
  if (rc == MPI_SUCCESS) {  // the type is valid: MPI (or the layer) accepted it
    const Span data = typed_bytes(buf, std::int64_t{partitions} * count, type, true);
    program_requests().add(*request, {&data, 1}, false, true);
  }
  return rc;
}
int held_send(int rc, const MPI_Request* request, const void* buf, MPI_Count count,
              MPI_Datatype type) {
  if (rc == MPI_SUCCESS)
    program_requests().add_partitioned_send(
        *request, {reinterpret_cast<std::uintptr_t>(buf), count, type_extent(type)});
  return rc;
}

int core_psend_init(const void* buf, int partitions, MPI_Count count, MPI_Datatype type, int dest,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  stop_moving_pages();  // the buffer is MPI's (or liboverlap's) until the request is freed
  if (!routing_on(tag, comm)) {
    fence_deferred();
    const int rc = PMPI_Psend_init(buf, partitions, count, type, dest, tag, comm, info, request);
    return held_send(rc, request, buf, count, type);
  }
  OVX_Prequest r = OVX_PREQUEST_NULL;
  const int rc = ovx_private_partitioned_init(1, const_cast<void*>(buf), partitions, count, type,
                                              dest, tag, wire_world, comm, info, &r);
  if (rc != MPI_SUCCESS) return rc;
  const Span data = typed_bytes(buf, static_cast<std::int64_t>(partitions) * count, type, false);
  return held_send(publish(r, comm, data, request), request, buf, count, type);
}

int core_precv_init(void* buf, int partitions, MPI_Count count, MPI_Datatype type, int source,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  stop_moving_pages();
  if (!routing_on(tag, comm)) {
    fence_deferred();
    return held(PMPI_Precv_init(buf, partitions, count, type, source, tag, comm, info, request),
                request, buf, partitions, count, type);
  }
  OVX_Prequest r = OVX_PREQUEST_NULL;
  const int rc = ovx_private_partitioned_init(0, buf, partitions, count, type, source, tag,
                                              wire_world, comm, info, &r);
  return rc != MPI_SUCCESS
             ? rc
             : held(publish(r, comm, Span{}, request), request, buf, partitions, count, type);
}

std::optional<Routed> routed(MPI_Request handle) {
  if (!routes().any()) return std::nullopt;
  return routes().find(handle);
}

int core_pready(int partition, MPI_Request request) {
  if (auto r = routed(request)) {
    settle_span(r->send_data);
    return OVX_Pready(partition, r->request);
  }
  fence_deferred();
  return PMPI_Pready(partition, request);
}
int core_pready_range(int low, int high, MPI_Request request) {
  if (auto r = routed(request)) {
    settle_span(r->send_data);
    return OVX_Pready_range(low, high, r->request);
  }
  fence_deferred();
  return PMPI_Pready_range(low, high, request);
}
int core_pready_list(int length, int partitions[], MPI_Request request) {
  if (auto r = routed(request)) {
    settle_span(r->send_data);
    return OVX_Pready_list(length, partitions, r->request);
  }
  fence_deferred();
  return PMPI_Pready_list(length, partitions, request);
}
int core_parrived(MPI_Request request, int partition, int* flag) {
  if (auto r = routed(request)) return OVX_Parrived(r->request, partition, flag);
  progress_pass();
  return PMPI_Parrived(request, partition, flag);
}

// MPI_Start of a routed handle: the next epoch, unless the program has not completed the
// last one (MPI: starting an active request is erroneous; the layer alone cannot tell,
// since its epoch may have finished before the program's MPI_Wait).
int start_routed(const char* fn, MPI_Request handle, const Routed& r) {
  if (r.epoch != MPI_REQUEST_NULL)
    return refuse(fn, r.comm,
                  "the partitioned request is still active (complete its epoch with "
                  "MPI_Wait/MPI_Test before starting it again)");
  MPI_Request epoch = MPI_REQUEST_NULL;
  const int rc = OVX_Start(r.request, &epoch);
  if (rc == MPI_SUCCESS) routes().set_epoch(handle, epoch);
  return rc;
}

// Both settle deferred transfers first, as the FENCE kind does: a persistent request's
// buffer (routed or not) is handed to MPI here.
int core_start(MPI_Request* request) {
  fence_deferred();
  if (request != nullptr) {
    if (auto r = routed(*request)) return start_routed("MPI_Start", *request, *r);
  }
  return PMPI_Start(request);
}

int core_startall(int n, MPI_Request requests[]) {
  fence_deferred();
  if (n <= 0 || requests == nullptr || !routes().any()) return PMPI_Startall(n, requests);
  std::vector<MPI_Request> plain;
  std::vector<int> where;
  std::vector<std::pair<MPI_Request, Routed> > mine;
  for (int i = 0; i < n; ++i) {
    if (auto r = routes().find(requests[i])) {
      // Nothing starts when one request is refused.
      if (r->epoch != MPI_REQUEST_NULL)
        return refuse("MPI_Startall", r->comm,
                      "requests[" + std::to_string(i) +
                          "] is a partitioned request still active (complete its epoch with "
                          "MPI_Wait/MPI_Test before starting it again)");
      mine.emplace_back(requests[i], *r);
    } else {
      plain.push_back(requests[i]);
      where.push_back(i);
    }
  }
  if (!plain.empty()) {
    const int rc = PMPI_Startall(static_cast<int>(plain.size()), plain.data());
    for (std::size_t j = 0; j < plain.size(); ++j) requests[where[j]] = plain[j];
    if (rc != MPI_SUCCESS) return rc;
  }
  for (const auto& [handle, r] : mine) {
    if (const int rc = start_routed("MPI_Startall", handle, r); rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// Runs `call` on the requests MPI should see in place of the program's `n` (module
// comment), then hands back what MPI left: ordinary requests as MPI changed them, routed
// handles unchanged (inactive again when their epoch completed).
template <class Call>
int through(int n, MPI_Request* program, Call call) {
  progress_pass();
  if (n <= 0 || program == nullptr || !routes().any()) return call(program);
  const auto epochs = routes().active_epochs(n, program);
  if (epochs.empty()) return call(program);
  std::vector<MPI_Request> seen(program, program + n);
  std::vector<bool> substituted(static_cast<std::size_t>(n), false);
  for (const auto& [i, epoch] : epochs) {
    seen[static_cast<std::size_t>(i)] = epoch;
    substituted[static_cast<std::size_t>(i)] = true;
  }
  const int rc = call(seen.data());
  for (int i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!substituted[k]) {
      program[i] = seen[k];
    } else if (seen[k] == MPI_REQUEST_NULL) {
      routes().set_epoch(program[i], MPI_REQUEST_NULL);  // the epoch completed
    }
  }
  return rc;
}

int core_wait(MPI_Request* r, MPI_Status* st) {
  return through(1, r, [&](MPI_Request* q) { return PMPI_Wait(q, st); });
}
int core_test(MPI_Request* r, int* flag, MPI_Status* st) {
  return through(1, r, [&](MPI_Request* q) { return PMPI_Test(q, flag, st); });
}
int core_waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  return through(n, rs, [&](MPI_Request* q) { return PMPI_Waitall(n, q, sts); });
}
int core_testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  return through(n, rs, [&](MPI_Request* q) { return PMPI_Testall(n, q, flag, sts); });
}
int core_waitany(int n, MPI_Request rs[], int* index, MPI_Status* st) {
  return through(n, rs, [&](MPI_Request* q) { return PMPI_Waitany(n, q, index, st); });
}
int core_testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* st) {
  return through(n, rs, [&](MPI_Request* q) { return PMPI_Testany(n, q, index, flag, st); });
}
int core_waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return through(n, rs,
                 [&](MPI_Request* q) { return PMPI_Waitsome(n, q, outcount, indices, sts); });
}
int core_testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return through(n, rs,
                 [&](MPI_Request* q) { return PMPI_Testsome(n, q, outcount, indices, sts); });
}
int core_request_get_status(MPI_Request r, int* flag, MPI_Status* st) {
  return through(1, &r, [&](MPI_Request* q) { return PMPI_Request_get_status(*q, flag, st); });
}

int core_request_free(MPI_Request* request) {
  progress_pass();
  std::optional<Routed> r = request != nullptr ? routed(*request) : std::nullopt;
  if (!r) return PMPI_Request_free(request);
  if (r->epoch != MPI_REQUEST_NULL)
    return refuse("MPI_Request_free", r->comm,
                  "the partitioned request is active (complete its epoch with MPI_Wait/MPI_Test "
                  "before freeing it)");
  OVX_Prequest ovx = r->request;
  if (const int rc = OVX_Prequest_free(&ovx); rc != MPI_SUCCESS) return rc;
  routes().remove(*request);
  PMPI_Request_free(request);  // the handle (sets it to MPI_REQUEST_NULL)
  return MPI_SUCCESS;
}

int core_cancel(MPI_Request* request) {
  progress_pass();
  if (request != nullptr) {
    if (auto r = routed(*request))
      return refuse("MPI_Cancel", r->comm,
                    "cancelling a partitioned request is not supported by liboverlap's "
                    "partitioned layer (run with overlap-run --partitioned mpi if the program "
                    "needs it)");
  }
  return PMPI_Cancel(request);
}

}  // namespace

bool partitioned_routing_compiled() { return true; }

void start_partitioned_routes() {
  const Runtime& rt = runtime();
  if (rt.active && rt.settings.partitioned_overlap && wire_world == MPI_COMM_NULL)
    PMPI_Comm_dup(MPI_COMM_WORLD, &wire_world);
}

void stop_partitioned_routes() {
  if (wire_world != MPI_COMM_NULL) PMPI_Comm_free(&wire_world);
}

void add_partitioned_routes(ovx_core& t) {
  table_fence = t.fence;
  table_poll = t.poll;
  t.MPI_Psend_init = core_psend_init;
  t.MPI_Precv_init = core_precv_init;
  t.MPI_Pready = core_pready;
  t.MPI_Pready_range = core_pready_range;
  t.MPI_Pready_list = core_pready_list;
  t.MPI_Parrived = core_parrived;
  t.MPI_Start = core_start;
  t.MPI_Startall = core_startall;
  t.MPI_Wait = core_wait;
  t.MPI_Test = core_test;
  t.MPI_Waitall = core_waitall;
  t.MPI_Testall = core_testall;
  t.MPI_Waitany = core_waitany;
  t.MPI_Testany = core_testany;
  t.MPI_Waitsome = core_waitsome;
  t.MPI_Testsome = core_testsome;
  t.MPI_Request_get_status = core_request_get_status;
  t.MPI_Request_free = core_request_free;
  t.MPI_Cancel = core_cancel;
}

}  // namespace overlap::intercept

#endif
