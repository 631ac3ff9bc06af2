// The core's entries for the program's own requests: its nonblocking point-to-point calls
// (their buffers recorded as memory the request holds, program_requests.hpp), the calls
// that complete or free requests (Wait/Test families, MPI_Request_free: the hold ends),
// and the record kept around FENCE_REQ/EXPOSE_REQ entries the shim serves. Where MPI has
// the partitioned API, the Wait/Test families and MPI_Request_free route partitioned
// requests first (partitioned_routes.cpp); these entries wrap whatever the table holds.
#include "intercept/calls/request_calls.hpp"

#include <vector>

#include "intercept/calls/program_requests.hpp"
#include "intercept/runtime/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// ---- nonblocking point-to-point ---------------------------------------------------------

// The buffer of a nonblocking call: deferred transfers on it complete first (a receive
// buffer conflicts with everything on its pages, a send buffer with no-access pages), and
// from its return the request holds it.
template <class Post>
int held_buffer_call(const void* buf, int count, MPI_Datatype type, bool write,
                     MPI_Request* request, Post post) {
  Runtime& rt = runtime();
  if (!rt.active) return post();
  begin_call();
  const Span span = typed_bytes(buf, count, type, write);
  settle_span(span);
  const int rc = post();
  if (rc == MPI_SUCCESS && request != nullptr)
    program_requests().add(*request, {span}, false, false);
  return rc;
}

using SendFn = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);
template <SendFn F>
int core_isend_like(const void* b, int n, MPI_Datatype t, int d, int tag, MPI_Comm c,
                    MPI_Request* r) {
  return held_buffer_call(b, n, t, false, r, [&] { return F(b, n, t, d, tag, c, r); });
}
int core_irecv(void* b, int n, MPI_Datatype t, int s, int tag, MPI_Comm c, MPI_Request* r) {
  return held_buffer_call(b, n, t, true, r, [&] { return PMPI_Irecv(b, n, t, s, tag, c, r); });
}

// ---- calls that complete or free requests --------------------------------------------------

// What the table held for each entry before these (partitioned routes), or null: then a
// progress pass under policy caller and MPI's own function, as the shim's POLL kind does.
struct Next {
  int (*wait)(MPI_Request*, MPI_Status*) = nullptr;
  int (*test)(MPI_Request*, int*, MPI_Status*) = nullptr;
  int (*waitall)(int, MPI_Request[], MPI_Status[]) = nullptr;
  int (*testall)(int, MPI_Request[], int*, MPI_Status[]) = nullptr;
  int (*waitany)(int, MPI_Request[], int*, MPI_Status*) = nullptr;
  int (*testany)(int, MPI_Request[], int*, int*, MPI_Status*) = nullptr;
  int (*waitsome)(int, MPI_Request[], int*, int[], MPI_Status[]) = nullptr;
  int (*testsome)(int, MPI_Request[], int*, int[], MPI_Status[]) = nullptr;
  int (*request_free)(MPI_Request*) = nullptr;
  void (*poll)() = nullptr;
};
Next next;

void pass() {
  if (next.poll != nullptr) next.poll();
}

// Runs `call` (which may complete requests[0, n)), then ends the hold of every request it
// completed. Nothing to look up while the program holds no memory through requests.
template <class Call>
int completing(int n, MPI_Request* requests, Call call) {
  ProgramRequests& reg = program_requests();
  thread_local std::vector<ProgramRequests::Held> held;
  reg.held(n, requests, held);
  const int rc = call();
  if (!held.empty()) reg.release_completed(held, requests);
  return rc;
}

int core_wait(MPI_Request* r, MPI_Status* st) {
  return completing(1, r, [&] { return next.wait ? next.wait(r, st) : (pass(), PMPI_Wait(r, st)); });
}
int core_test(MPI_Request* r, int* flag, MPI_Status* st) {
  return completing(
      1, r, [&] { return next.test ? next.test(r, flag, st) : (pass(), PMPI_Test(r, flag, st)); });
}
int core_waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  return completing(n, rs, [&] {
    return next.waitall ? next.waitall(n, rs, sts) : (pass(), PMPI_Waitall(n, rs, sts));
  });
}
int core_testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  return completing(n, rs, [&] {
    return next.testall ? next.testall(n, rs, flag, sts) : (pass(), PMPI_Testall(n, rs, flag, sts));
  });
}
int core_waitany(int n, MPI_Request rs[], int* index, MPI_Status* st) {
  return completing(n, rs, [&] {
    return next.waitany ? next.waitany(n, rs, index, st) : (pass(), PMPI_Waitany(n, rs, index, st));
  });
}
int core_testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* st) {
  return completing(n, rs, [&] {
    return next.testany ? next.testany(n, rs, index, flag, st)
                        : (pass(), PMPI_Testany(n, rs, index, flag, st));
  });
}
int core_waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return completing(n, rs, [&] {
    return next.waitsome ? next.waitsome(n, rs, outcount, indices, sts)
                         : (pass(), PMPI_Waitsome(n, rs, outcount, indices, sts));
  });
}
int core_testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return completing(n, rs, [&] {
    return next.testsome ? next.testsome(n, rs, outcount, indices, sts)
                         : (pass(), PMPI_Testsome(n, rs, outcount, indices, sts));
  });
}

// The engine completes a request the program freed while it was active; its hold ends then.
struct Freed {
  MPI_Request request;
  std::uint64_t serial;
};
void on_freed_done(void* arg, const MPI_Status*) {
  auto* f = static_cast<Freed*>(arg);
  program_requests().forget(f->request, f->serial);
  delete f;
}

// MPI_Request_free of a request that holds memory: MPI would complete an active one later,
// with the memory still MPI's until then, which the program cannot know. A persistent
// request's hold ends here (freeing an active one is rare, and its memory then stays
// MPI's as much as the program's); another one is handed to the engine, which completes
// it (as MPI would have) and only then ends its hold. The program's handle is
// MPI_REQUEST_NULL either way, as MPI_Request_free leaves it.
int core_request_free(MPI_Request* request) {
  ProgramRequests& reg = program_requests();
  std::uint64_t serial = 0;
  const bool held = request != nullptr && reg.any() && *request != MPI_REQUEST_NULL;
  const bool persistent = held && reg.persistent(*request, serial);
  if (held && !persistent && serial != 0 && runtime().active) {
    pass();
    if (runtime().progress->watch(*request, on_freed_done, new Freed{*request, serial})) {
      *request = MPI_REQUEST_NULL;
      return MPI_SUCCESS;
    }
  }
  const MPI_Request handle = request != nullptr ? *request : MPI_REQUEST_NULL;
  const int rc = next.request_free ? next.request_free(request) : (pass(), PMPI_Request_free(request));
  if (persistent && rc == MPI_SUCCESS) reg.forget(handle, serial);
  return rc;
}

// Around the FENCE_REQ/EXPOSE_REQ entries the shim serves (program_requests.hpp).
void request_begin() {
  if (runtime().active) begin_request_footprint();
}
void request_end(int rc, const MPI_Request* request, int persistent) {
  if (request_footprint().on) end_request_footprint(rc, request, persistent != 0);
}

}  // namespace

void add_request_calls(ovx_core& t) {
  next = Next{t.MPI_Wait,    t.MPI_Test,     t.MPI_Waitall,  t.MPI_Testall,
              t.MPI_Waitany, t.MPI_Testany,  t.MPI_Waitsome, t.MPI_Testsome,
              t.MPI_Request_free, t.poll};
  t.MPI_Isend = core_isend_like<PMPI_Isend>;
  t.MPI_Issend = core_isend_like<PMPI_Issend>;
  t.MPI_Irsend = core_isend_like<PMPI_Irsend>;
  t.MPI_Ibsend = core_isend_like<PMPI_Ibsend>;
  t.MPI_Irecv = core_irecv;
  t.MPI_Wait = core_wait;
  t.MPI_Test = core_test;
  t.MPI_Waitall = core_waitall;
  t.MPI_Testall = core_testall;
  t.MPI_Waitany = core_waitany;
  t.MPI_Testany = core_testany;
  t.MPI_Waitsome = core_waitsome;
  t.MPI_Testsome = core_testsome;
  t.MPI_Request_free = core_request_free;
  t.request_begin = request_begin;
  t.request_end = request_end;
}

}  // namespace overlap::intercept
