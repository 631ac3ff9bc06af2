// The core's entries for the program's own requests: its nonblocking point-to-point calls
// (their buffers recorded as memory the request holds, program_requests.hpp), the calls
// that complete or free requests (Wait/Test families, MPI_Request_free: the hold ends),
// the engine's hold on MPI's progress while any are outstanding (follow),
// and the record kept around FENCE_REQ/EXPOSE_REQ entries the shim serves. Where MPI has
// the partitioned API, the Wait/Test families and MPI_Request_free route partitioned
// requests first (partitioned_routes.cpp); these entries wrap whatever the table holds.
#include "intercept/calls/request_calls.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/program_requests.hpp"

namespace overlap::intercept {

namespace {

// The engine pokes MPI's own progress while the program has requests outstanding (the
// count went from none to some or back: bring the hold in line, ProgressDriver).
void follow() {
  ProgramRequests& reg = program_requests();
  if (!reg.take_turn()) return;
  Runtime& rt = runtime();
  if (rt.active && rt.progress) rt.progress->follow_program(reg.outstanding());
}

// ---- nonblocking point-to-point ---------------------------------------------------------

// The bytes of (buf, count, type): for a predefined type without padding straight from
// the table learnt at MPI_Init (straight_path.h), else from MPI's extents.
Span buffer_span(const void* buf, int count, MPI_Datatype type, bool write) {
  const int size = ovx_type_dense_size_of(runtime().shim->straight, type);
  if (size < 0) return typed_bytes(buf, count, type, write);
  if (count <= 0 || size == 0 || buf == MPI_IN_PLACE) return Span{};
  const auto lo = reinterpret_cast<std::uintptr_t>(buf);
  return Span{lo, lo + static_cast<std::uintptr_t>(count) * static_cast<std::uintptr_t>(size),
              write};
}

// The buffer of a nonblocking call: deferred transfers on it complete first (a receive
// buffer conflicts with everything on its pages, a send buffer with no-access pages), and
// from its return the request holds it. The type is asked about only where MPI accepted
// the call or transfers are in flight: a query of a type MPI refuses would raise the error
// outside the program's call.
template <class Post>
int held_buffer_call(const void* buf, int count, MPI_Datatype type, bool write,
                     MPI_Request* request, Post post) {
  Runtime& rt = runtime();
  if (!rt.active) return post();
  begin_call();
  if (__atomic_load_n(rt.shim->active, __ATOMIC_ACQUIRE) > 0)
    settle_span(buffer_span(buf, count, type, write));
  const int rc = post();
  if (rc == MPI_SUCCESS && request != nullptr) {
    const Span span = buffer_span(buf, count, type, write);
    program_requests().add(*request, {&span, 1}, false, false);
    follow();
  }
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
  int (*start)(MPI_Request*) = nullptr;
  int (*startall)(int, MPI_Request[]) = nullptr;
#if MPI_VERSION >= 4
  int (*pready)(int, MPI_Request) = nullptr;
  int (*pready_range)(int, int, MPI_Request) = nullptr;
  int (*pready_list)(int, int[], MPI_Request) = nullptr;
#endif
  void (*poll)() = nullptr;
};
Next next;

void pass() {
  if (next.poll != nullptr) next.poll();
}

// Runs `call` (which may complete requests[0, n)), then ends the hold of every request it
// completed: `done(i)` says whether requests[i] was (a persistent request's handle stays).
// Nothing to look up while the program holds no memory through requests.
// `timed` false: the call gives requests up rather than completing them (no wait window).
template <class Call, class Done>
int completing(int n, MPI_Request* requests, Call call, Done done, bool timed = true) {
  ProgramRequests& reg = program_requests();
  ProgramRequests::SeenList seen;  // per call: an error handler may nest another
  reg.seen(n, requests, seen);
  // A nonblocking collective's wait window ends where this call starts (wait_window.hpp).
  const std::uint64_t called_ns = timed && seen.timed() ? wait_window_now_ns() : 0;
  const int rc = call();
  if (!seen.empty()) {
    reg.after_completion(seen, requests, done, called_ns);
    follow();
  }
  return rc;
}
// Waitsome/Testsome: the indices MPI reported.
auto among(const int* outcount, const int* indices) {
  return [outcount, indices](int i) {
    if (*outcount == MPI_UNDEFINED) return false;
    return std::find(indices, indices + *outcount, i) != indices + *outcount;
  };
}

int core_wait(MPI_Request* r, MPI_Status* st) {
  return completing(
      1, r, [&] { return next.wait ? next.wait(r, st) : (pass(), PMPI_Wait(r, st)); },
      [](int) { return true; });
}
int core_test(MPI_Request* r, int* flag, MPI_Status* st) {
  return completing(
      1, r, [&] { return next.test ? next.test(r, flag, st) : (pass(), PMPI_Test(r, flag, st)); },
      [&](int) { return *flag != 0; });
}
// Waitall/Testall: with MPI_ERR_IN_STATUS, a request whose status says MPI_ERR_PENDING did
// not complete (without statuses nothing tells: it keeps its hold).
auto all_done(const int& rc, const MPI_Status* sts) {
  return [&rc, sts](int i) {
    if (rc == MPI_SUCCESS) return true;
    return rc == MPI_ERR_IN_STATUS && sts != MPI_STATUSES_IGNORE &&
           sts[i].MPI_ERROR != MPI_ERR_PENDING;
  };
}
int core_waitall(int n, MPI_Request rs[], MPI_Status sts[]) {
  int rc = MPI_SUCCESS;
  return completing(
      n, rs,
      [&] {
        rc = next.waitall ? next.waitall(n, rs, sts) : (pass(), PMPI_Waitall(n, rs, sts));
        return rc;
      },
      all_done(rc, sts));
}
int core_testall(int n, MPI_Request rs[], int* flag, MPI_Status sts[]) {
  int rc = MPI_SUCCESS;
  const auto done = all_done(rc, sts);
  return completing(
      n, rs,
      [&] {
        rc = next.testall ? next.testall(n, rs, flag, sts)
                          : (pass(), PMPI_Testall(n, rs, flag, sts));
        return rc;
      },
      [&](int i) { return *flag != 0 && done(i); });
}
int core_waitany(int n, MPI_Request rs[], int* index, MPI_Status* st) {
  return completing(
      n, rs,
      [&] {
        return next.waitany ? next.waitany(n, rs, index, st)
                            : (pass(), PMPI_Waitany(n, rs, index, st));
      },
      [&](int i) { return i == *index; });
}
int core_testany(int n, MPI_Request rs[], int* index, int* flag, MPI_Status* st) {
  return completing(
      n, rs,
      [&] {
        return next.testany ? next.testany(n, rs, index, flag, st)
                            : (pass(), PMPI_Testany(n, rs, index, flag, st));
      },
      [&](int i) { return *flag != 0 && i == *index; });
}
int core_waitsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return completing(
      n, rs,
      [&] {
        return next.waitsome ? next.waitsome(n, rs, outcount, indices, sts)
                             : (pass(), PMPI_Waitsome(n, rs, outcount, indices, sts));
      },
      among(outcount, indices));
}
int core_testsome(int n, MPI_Request rs[], int* outcount, int indices[], MPI_Status sts[]) {
  return completing(
      n, rs,
      [&] {
        return next.testsome ? next.testsome(n, rs, outcount, indices, sts)
                             : (pass(), PMPI_Testsome(n, rs, outcount, indices, sts));
      },
      among(outcount, indices));
}

// MPI_Start(all) hands a persistent request's buffer to MPI: every deferred transfer
// completes first (the FENCE kind's process-wide fence: the partitioned layer posts an
// epoch's receives into the buffer), and from here on the request holds its memory.
void fence_all() {
  Runtime& rt = runtime();
  if (rt.active && __atomic_load_n(rt.shim->active, __ATOMIC_ACQUIRE) > 0) settle_all();
}
int core_start(MPI_Request* r) {
  if (next.start == nullptr) fence_all();  // the routes fence themselves
  const int rc = next.start ? next.start(r) : PMPI_Start(r);
  if (rc == MPI_SUCCESS && r != nullptr) {
    program_requests().started(*r);
    follow();
  }
  return rc;
}
int core_startall(int n, MPI_Request rs[]) {
  if (next.startall == nullptr) fence_all();
  const int rc = next.startall ? next.startall(n, rs) : PMPI_Startall(n, rs);
  if (rc == MPI_SUCCESS && rs != nullptr) {
    for (int i = 0; i < n; ++i) program_requests().started(rs[i]);
    follow();
  }
  return rc;
}

#if MPI_VERSION >= 4
// A partitioned send's partition is MPI's (or the layer's) from MPI_Pready on.
int core_pready(int partition, MPI_Request r) {
  program_requests().readied(r, partition, partition);
  return next.pready(partition, r);
}
int core_pready_range(int low, int high, MPI_Request r) {
  program_requests().readied(r, low, high);
  return next.pready_range(low, high, r);
}
int core_pready_list(int length, int partitions[], MPI_Request r) {
  for (int i = 0; i < length && partitions != nullptr; ++i)
    program_requests().readied(r, partitions[i], partitions[i]);
  return next.pready_list(length, partitions, r);
}
#endif

// MPI_Request_free as the program asked (MPI drops a freed request's errors: handing it to
// the engine to complete would raise them). An active request's memory stays MPI's until
// it completes, which nobody can tell now: its hold stays until MPI gives the handle to
// another request (program_requests.hpp).
int core_request_free(MPI_Request* request) {
  ProgramRequests& reg = program_requests();
  const MPI_Request handle = request != nullptr ? *request : MPI_REQUEST_NULL;
  const std::optional<std::uint64_t> serial = reg.serial_of(handle);
  const int rc =
      next.request_free ? next.request_free(request) : (pass(), PMPI_Request_free(request));
  if (serial && rc == MPI_SUCCESS) {
    reg.freed(handle, *serial);
    follow();
  }
  return rc;
}

// liboverlap's OVX_Request_abandon frees a request of a liboverlap collective the program
// gives up; the table forgets it like a completed one (it no longer counts outstanding).
int (*next_abandon)(MPI_Request*) = nullptr;
int core_abandon(MPI_Request* request) {
  if (next_abandon == nullptr) return MPI_ERR_INTERN;
  return completing(
      1, request, [&] { return next_abandon(request); }, [](int) { return true; }, false);
}

// After a FENCE_REQ/EXPOSE_REQ entry MPI accepted (program_requests.hpp): the shim calls
// the entry's footprint between these, which then only records it.
void request_begin() {
  if (runtime().active) begin_request_footprint();
}
// A reduction with the program's own operation: MPI runs that function inside its
// progress, so driving MPI from the engine's thread would run it there, beside the
// program's thread, which the program did not allow below MPI_THREAD_MULTIPLE. Such a
// request is not counted as outstanding (it progresses in the program's MPI calls, as
// without overlap-run).
bool predefined(MPI_Op op) {
  static const MPI_Op ops[] = {MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                               MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                               MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  return std::find(std::begin(ops), std::end(ops), op) != std::end(ops);
}
void note_op(MPI_Op op) {
  FootprintRecord& r = request_footprint();
  if (r.on && runtime().program_provided < MPI_THREAD_MULTIPLE && !predefined(op)) r.quiet = true;
}
void request_end(int rc, const MPI_Request* request, int persistent) {
  if (!request_footprint().on) {
    take_wait_window(request);  // an announcement is for this call only, recorded or not
    return;
  }
  end_request_footprint(rc, request, persistent != 0);
  follow();
}

}  // namespace

void add_request_calls(ovx_core& t) {
  next.wait = t.MPI_Wait;
  next.test = t.MPI_Test;
  next.waitall = t.MPI_Waitall;
  next.testall = t.MPI_Testall;
  next.waitany = t.MPI_Waitany;
  next.testany = t.MPI_Testany;
  next.waitsome = t.MPI_Waitsome;
  next.testsome = t.MPI_Testsome;
  next.request_free = t.MPI_Request_free;
  next.start = t.MPI_Start;
  next.startall = t.MPI_Startall;
  next.poll = t.poll;
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
  t.MPI_Start = core_start;
  t.MPI_Startall = core_startall;
#if MPI_VERSION >= 4
  // Set by the partitioned routes (which fall back to MPI's own for requests not routed).
  if (t.MPI_Pready != nullptr && t.MPI_Pready_range != nullptr && t.MPI_Pready_list != nullptr) {
    next.pready = t.MPI_Pready;
    next.pready_range = t.MPI_Pready_range;
    next.pready_list = t.MPI_Pready_list;
    t.MPI_Pready = core_pready;
    t.MPI_Pready_range = core_pready_range;
    t.MPI_Pready_list = core_pready_list;
  }
#endif
  t.request_begin = request_begin;
  t.request_end = request_end;
  t.note_op = note_op;
  // liboverlap's own, past the shim's definition of the same name.
  next_abandon =
      reinterpret_cast<int (*)(MPI_Request*)>(runtime().shim->next("OVX_Request_abandon"));
  t.OVX_Request_abandon = core_abandon;
}

}  // namespace overlap::intercept
