#include "intercept/calls/collective_routes.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

#include "collectives/intercept_abi.h"
#include "intercept/calls/collective_verdicts.hpp"
#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/wait_window.hpp"

namespace overlap::intercept {

// ---- the record per call site ------------------------------------------------------------

// Counted without a lock once a thread has met its site (every collective call passes
// here, most of them small ones left to MPI): map nodes never move or go away.
struct CollectiveSiteCounts {
  std::atomic<std::uint64_t> calls{0}, routed{0};
  std::atomic<std::uint64_t> own[kOwnReasonCount] = {};
  std::atomic<bool> noted{false};
  std::string operation_note;  // under sites_mu, once
  // Nonblocking ones only: the messages of the calls MPI accepted, and their wait windows.
  std::atomic<std::uint64_t> accepted{0}, bytes{0};
  WaitWindow window;
};

namespace {

using SiteCounts = CollectiveSiteCounts;
std::mutex sites_mu;
std::map<std::pair<int, std::uintptr_t>, SiteCounts>& sites() {
  static auto* m = new std::map<std::pair<int, std::uintptr_t>, SiteCounts>;  // outlives exit
  return *m;
}
// The calling thread's last site (a program's collectives come from few sites, often one
// per loop).
struct LastSite {
  int call = -1;
  std::uintptr_t site = 0;
  SiteCounts* counts = nullptr;
};
thread_local LastSite last_site;
std::atomic<std::uint64_t> collectives_routed_total{0};
// MPI_COMM_WORLD's duplicate was handed to liboverlap at MPI_Init; other communicators
// get theirs inside the call that makes them (comm_made), marked with twin_keyval.
std::atomic<bool> world_ready{false};
// The blocking collectives are routed too (agreed at MPI_Init with world_ready).
std::atomic<bool> blocking_ready{false};
int twin_keyval = MPI_KEYVAL_INVALID;
// Duplicates of the program's communicators alive in this process: each takes one of
// MPICH's context ids (about 2048 in all), so no more than kMaxTwins at once.
constexpr int kMaxTwins = 256;
std::atomic<int> live_twins{0};

// The program freed a communicator with a duplicate (liboverlap frees the duplicate at a
// safe point). No MPI call in here.
int twin_gone(MPI_Comm, int, void*, void*) {
  live_twins.fetch_sub(1, std::memory_order_relaxed);
  return MPI_SUCCESS;
}

bool has_duplicate(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return true;
  void* value = nullptr;
  int found = 0;
  return twin_keyval != MPI_KEYVAL_INVALID &&
         PMPI_Comm_get_attr(comm, twin_keyval, &value, &found) == MPI_SUCCESS && found != 0;
}

// Makes the duplicate of `c` for liboverlap (every member of `c` calling, nothing pending
// on it): with MPI_Comm_split, which copies none of the program's attributes (MPI_Comm_dup
// would run their copy callbacks), under MPI_ERRORS_RETURN (MPICH out of context ids: a
// "no", not an abort); handed to liboverlap; then the members agree that each has it, and
// any "no" takes it back everywhere. True when every member has it.
bool make_duplicate(MPI_Comm c) {
  int rank = 0;
  PMPI_Comm_rank(c, &rank);
  MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(c, &saved);
  PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
  MPI_Comm dup = MPI_COMM_NULL;
  int have = PMPI_Comm_split(c, 0, rank, &dup) == MPI_SUCCESS && dup != MPI_COMM_NULL ? 1 : 0;
  if (have && ovx_private_adopt_duplicate(c, dup) != MPI_SUCCESS) {
    PMPI_Comm_free(&dup);
    have = 0;
  }
  int everyone = 0;
  if (PMPI_Allreduce(&have, &everyone, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS) everyone = 0;
  PMPI_Comm_set_errhandler(c, saved);
  if (saved != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&saved);
  if (have && !everyone) ovx_private_drop_duplicate(c);
  return everyone != 0;
}

// Every member of `comm` is inside the call that made it: they agree that each has room
// for a duplicate, then make it (make_duplicate). Any "no" leaves the communicator to MPI's
// own collectives on all members.
void comm_made(MPI_Comm* newcomm) {
  if (!world_ready.load(std::memory_order_acquire) || newcomm == nullptr ||
      *newcomm == MPI_COMM_NULL)
    return;
  const MPI_Comm c = *newcomm;
  int inter = 0;
  if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter) return;
  int room = live_twins.load(std::memory_order_relaxed) < kMaxTwins ? 1 : 0, all = 0;
  if (PMPI_Allreduce(&room, &all, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS || !all) return;
  if (!make_duplicate(c)) return;
  live_twins.fetch_add(1, std::memory_order_relaxed);
  PMPI_Comm_set_attr(c, twin_keyval, nullptr);
}

Verdict route() { return {true, OwnReason::not_active, nullptr}; }
Verdict own(OwnReason why, const char* note = nullptr) { return {false, why, note}; }

SiteCounts& counts_of(Collective call, std::uintptr_t site) {
  LastSite& last = last_site;
  if (last.call != static_cast<int>(call) || last.site != site) {
    std::lock_guard lock(sites_mu);
    last = {static_cast<int>(call), site, &sites()[{static_cast<int>(call), site}]};
  }
  return *last.counts;
}

void count(Collective call, Verdict& v) {
  const auto site = reinterpret_cast<std::uintptr_t>(runtime().shim->thread_state()->site);
  SiteCounts& s = counts_of(call, site);
  v.site = &s;
  s.calls.fetch_add(1, std::memory_order_relaxed);
  if (v.routed) {
    s.routed.fetch_add(1, std::memory_order_relaxed);
    collectives_routed_total.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  s.own[static_cast<int>(v.why)].fetch_add(1, std::memory_order_relaxed);
  if (v.note != nullptr && !s.noted.load(std::memory_order_acquire)) {
    std::lock_guard lock(sites_mu);
    if (!s.noted.load(std::memory_order_relaxed)) s.operation_note = v.note;
    s.noted.store(true, std::memory_order_release);
  }
}

// ---- the decision: only what every rank of the collective passes alike ------------------

// What decides before any argument: the job's settings and the communicator.
Verdict communicator_verdict(MPI_Comm comm, MPI_Request* request) {
  const Runtime& rt = runtime();
  if (!rt.active) return own(OwnReason::not_active);
  if (!rt.settings.collectives_overlap) return own(OwnReason::switched_off);
  if (!world_ready.load(std::memory_order_acquire))
    return own(rt.policy == Policy::caller ? OwnReason::caller_policy : OwnReason::not_agreed);
  if (comm == MPI_COMM_NULL || request == nullptr) return own(OwnReason::invalid_argument);
  int inter = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return own(OwnReason::invalid_argument);
  if (inter != 0) return own(OwnReason::intercommunicator);
  if (!has_duplicate(comm)) return own(OwnReason::communicator);
  return route();
}

// Bytes of `count` elements of `type`, -1 for an argument MPI will refuse.
long long bytes_of(MPI_Count count, MPI_Datatype type) {
  if (count < 0 || type == MPI_DATATYPE_NULL) return -1;
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return -1;
  if (size > 0 && count > LLONG_MAX / size) return LLONG_MAX;
  return static_cast<long long>(count) * size;
}

// A collective whose every block holds `block` bytes (the same on every rank by MPI's type
// matching rule, whatever datatypes each rank describes them with), `blocks` of them in its
// largest buffer. Below --min-size (that buffer's bytes) MPI's own collective, progressed
// by the hold, was faster than liboverlap's on both MPIs here (docs/results/
// overlap-run-collectives-2026-11-28): it stays MPI's.
Verdict size_verdict(long long block, int blocks) {
  if (block < 0) return own(OwnReason::invalid_argument);
  if (block > INT_MAX || block * std::max(blocks, 1) > INT_MAX) return own(OwnReason::too_large);
  if (block * std::max(blocks, 1) < runtime().settings.min_bytes)
    return own(OwnReason::below_threshold);
  return route();
}

Verdict barrier_verdict() {
  // No data: as small as a collective gets.
  return runtime().settings.min_bytes > 0 ? own(OwnReason::below_threshold) : route();
}

// A reduction's buffer as liboverlap measures it: count x extent (a predefined pair type's
// padding included; every rank passes the same datatype, so the measure is the same).
long long reduction_bytes(MPI_Count count, MPI_Datatype type) {
  const long long bytes = bytes_of(count, type);
  MPI_Count lb = 0, extent = 0;
  if (bytes < 0 || PMPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS) return bytes;
  if (extent <= 0) return bytes;
  return std::max(bytes, count > 0 && extent > LLONG_MAX / count ? LLONG_MAX : count * extent);
}

Verdict reduction_verdict(MPI_Count count, MPI_Datatype type, MPI_Op op, int blocks) {
  if (op == MPI_OP_NULL) return own(OwnReason::invalid_argument);
  if (const char* why = ovx_private_reduction_refusal(op, type); why != nullptr)
    return own(OwnReason::operation, why);
  return size_verdict(reduction_bytes(count, type), blocks);
}

template <class Decide>
Verdict decide(Collective call, MPI_Comm comm, MPI_Request* request, Decide rest) {
  Verdict v = communicator_verdict(comm, request);
  if (v.routed && call >= Collective::bcast && !blocking_ready.load(std::memory_order_acquire))
    v = own(OwnReason::switched_off);  // --defer without collectives
  if (v.routed) v = rest();
  count(call, v);
  return v;
}

}  // namespace

// ---- the verdicts, for the int and the MPI_Count forms alike ----------------------------

int size_of(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

int is_root(MPI_Comm comm, int root) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (root < 0 || root >= size_of(comm)) return -1;
  return rank == root ? 1 : 0;
}

Verdict bcast_verdict(Collective call, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                      MPI_Request* request) {
  return decide(call, comm, request, [&] {
    if (is_root(comm, root) < 0) return own(OwnReason::invalid_argument);
    return size_verdict(bytes_of(count, type), 1);
  });
}

Verdict reduce_verdict(Collective call, MPI_Count count, MPI_Datatype type, MPI_Op op, int root,
                       MPI_Comm comm, MPI_Request* request) {
  return decide(call, comm, request, [&] {
    if (is_root(comm, root) < 0) return own(OwnReason::invalid_argument);
    return reduction_verdict(count, type, op, 1);
  });
}

Verdict allreduce_verdict(Collective call, MPI_Count count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, MPI_Request* request) {
  return decide(call, comm, request, [&] { return reduction_verdict(count, type, op, 1); });
}

Verdict reduce_scatter_block_verdict(Collective call, MPI_Count count, MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm, MPI_Request* request) {
  return decide(call, comm, request,
                [&] { return reduction_verdict(count, type, op, size_of(comm)); });
}

Verdict rooted_verdict(Collective call, MPI_Count root_count, MPI_Datatype root_type,
                       MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
                       MPI_Request* request) {
  return decide(call, comm, request, [&] {
    const int at_root = is_root(comm, root);
    if (at_root < 0) return own(OwnReason::invalid_argument);
    const long long block = at_root == 1 ? bytes_of(root_count, root_type) : bytes_of(count, type);
    return size_verdict(block, size_of(comm));
  });
}

Verdict all_to_all_verdict(Collective call, MPI_Count recvcount, MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Request* request) {
  return decide(call, comm, request,
                [&] { return size_verdict(bytes_of(recvcount, recvtype), size_of(comm)); });
}

namespace {

// ---- the routers (shim_api.h's table.route) ------------------------------------------------

// After MPI (or liboverlap) accepted a nonblocking collective, for the report (nothing
// without --report): its message counts for its site, in nbc's meaning (the vector of a
// broadcast or reduction, one rank's block of the others; read now, when MPI has accepted
// the datatype), and the request it returned belongs to the site's wait window
// (wait_window.hpp). On an intercommunicator the message is not counted: which arguments
// are significant depends on the rank's group (root, MPI_ROOT, MPI_PROC_NULL), and one
// MPI ignores may be any handle.
template <class Bytes>
int issued(const Verdict& v, int rc, MPI_Comm comm, MPI_Request* request, Bytes msg_bytes) {
  if (rc != MPI_SUCCESS || v.site == nullptr || runtime().settings.report.empty()) return rc;
  int inter = 1;
  if (PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter == 0) {
    const long long bytes = msg_bytes();
    v.site->accepted.fetch_add(1, std::memory_order_relaxed);
    if (bytes > 0) v.site->bytes.fetch_add(static_cast<std::uint64_t>(bytes));
  }
  expect_wait_window(&v.site->window, request);
  return rc;
}

// One rank's block of a gather or scatter on an intracommunicator: the root describes it
// with its every-block side.
long long rooted_block(MPI_Comm comm, int root, MPI_Count root_count, MPI_Datatype root_type,
                       MPI_Count count, MPI_Datatype type) {
  return is_root(comm, root) == 1 ? bytes_of(root_count, root_type) : bytes_of(count, type);
}

int ibarrier(MPI_Comm comm, MPI_Request* request) {
  const Verdict v = decide(Collective::ibarrier, comm, request, barrier_verdict);
  const int rc = v.routed ? ovx_private_ibarrier(comm, request) : PMPI_Ibarrier(comm, request);
  return issued(v, rc, comm, request, [] { return 0LL; });
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = bcast_verdict(Collective::ibcast, count, type, root, comm, request);
  const int rc = v.routed ? ovx_private_ibcast(buf, count, type, root, comm, request)
                          : PMPI_Ibcast(buf, count, type, root, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(count, type); });
}

int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            MPI_Comm comm, MPI_Request* request) {
  const Verdict v = reduce_verdict(Collective::ireduce, count, type, op, root, comm, request);
  const int rc = v.routed
                     ? ovx_private_ireduce(sendbuf, recvbuf, count, type, op, root, comm, request)
                     : PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(count, type); });
}

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, MPI_Request* request) {
  const Verdict v = allreduce_verdict(Collective::iallreduce, count, type, op, comm, request);
  const int rc = v.routed ? ovx_private_iallreduce(sendbuf, recvbuf, count, type, op, comm, request)
                          : PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(count, type); });
}

int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = reduce_scatter_block_verdict(Collective::ireduce_scatter_block, recvcount, type,
                                                 op, comm, request);
  const int rc =
      v.routed
          ? ovx_private_ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request)
          : PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(recvcount, type); });
}

int igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = rooted_verdict(Collective::igather, recvcount, recvtype, sendcount, sendtype,
                                   root, comm, request);
  const int rc = v.routed ? ovx_private_igather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                recvtype, root, comm, request)
                          : PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         root, comm, request);
  return issued(v, rc, comm, request,
                [&] { return rooted_block(comm, root, recvcount, recvtype, sendcount, sendtype); });
}

int iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = rooted_verdict(Collective::iscatter, sendcount, sendtype, recvcount, recvtype,
                                   root, comm, request);
  const int rc = v.routed ? ovx_private_iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                 recvtype, root, comm, request)
                          : PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, root, comm, request);
  return issued(v, rc, comm, request,
                [&] { return rooted_block(comm, root, sendcount, sendtype, recvcount, recvtype); });
}

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = all_to_all_verdict(Collective::iallgather, recvcount, recvtype, comm, request);
  const int rc = v.routed ? ovx_private_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                   recvtype, comm, request)
                          : PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(recvcount, recvtype); });
}

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = all_to_all_verdict(Collective::ialltoall, recvcount, recvtype, comm, request);
  const int rc = v.routed ? ovx_private_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                  recvtype, comm, request)
                          : PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(recvcount, recvtype); });
}

#if MPI_VERSION >= 4
// The MPI_Count forms (MPICH 4), decided as the int forms: a rank may call either for the
// same collective.

int ibcast_c(void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm comm,
             MPI_Request* request) {
  const Verdict v = bcast_verdict(Collective::ibcast, count, type, root, comm, request);
  const int rc = v.routed ? ovx_private_ibcast(buf, narrowed(count), type, root, comm, request)
                          : PMPI_Ibcast_c(buf, count, type, root, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(count, type); });
}

int ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
              int root, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = reduce_verdict(Collective::ireduce, count, type, op, root, comm, request);
  const int rc = v.routed ? ovx_private_ireduce(sendbuf, recvbuf, narrowed(count), type, op, root,
                                                comm, request)
                          : PMPI_Ireduce_c(sendbuf, recvbuf, count, type, op, root, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(count, type); });
}

int iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
                 MPI_Comm comm, MPI_Request* request) {
  const Verdict v = allreduce_verdict(Collective::iallreduce, count, type, op, comm, request);
  const int rc =
      v.routed ? ovx_private_iallreduce(sendbuf, recvbuf, narrowed(count), type, op, comm, request)
               : PMPI_Iallreduce_c(sendbuf, recvbuf, count, type, op, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(count, type); });
}

int ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                            MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = reduce_scatter_block_verdict(Collective::ireduce_scatter_block, recvcount, type,
                                                 op, comm, request);
  const int rc =
      v.routed ? ovx_private_ireduce_scatter_block(sendbuf, recvbuf, narrowed(recvcount), type, op,
                                                   comm, request)
               : PMPI_Ireduce_scatter_block_c(sendbuf, recvbuf, recvcount, type, op, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(recvcount, type); });
}

int igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
              MPI_Request* request) {
  const Verdict v = rooted_verdict(Collective::igather, recvcount, recvtype, sendcount, sendtype,
                                   root, comm, request);
  const int rc = v.routed ? ovx_private_igather(sendbuf, narrowed(sendcount), sendtype, recvbuf,
                                                narrowed(recvcount), recvtype, root, comm, request)
                          : PMPI_Igather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                           recvtype, root, comm, request);
  return issued(v, rc, comm, request,
                [&] { return rooted_block(comm, root, recvcount, recvtype, sendcount, sendtype); });
}

int iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
               MPI_Request* request) {
  const Verdict v = rooted_verdict(Collective::iscatter, sendcount, sendtype, recvcount, recvtype,
                                   root, comm, request);
  const int rc = v.routed ? ovx_private_iscatter(sendbuf, narrowed(sendcount), sendtype, recvbuf,
                                                 narrowed(recvcount), recvtype, root, comm, request)
                          : PMPI_Iscatter_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, root, comm, request);
  return issued(v, rc, comm, request,
                [&] { return rooted_block(comm, root, sendcount, sendtype, recvcount, recvtype); });
}

int iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                 MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = all_to_all_verdict(Collective::iallgather, recvcount, recvtype, comm, request);
  const int rc = v.routed ? ovx_private_iallgather(sendbuf, narrowed(sendcount), sendtype, recvbuf,
                                                   narrowed(recvcount), recvtype, comm, request)
                          : PMPI_Iallgather_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                              recvtype, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(recvcount, recvtype); });
}

int ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  const Verdict v = all_to_all_verdict(Collective::ialltoall, recvcount, recvtype, comm, request);
  const int rc = v.routed ? ovx_private_ialltoall(sendbuf, narrowed(sendcount), sendtype, recvbuf,
                                                  narrowed(recvcount), recvtype, comm, request)
                          : PMPI_Ialltoall_c(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                             recvtype, comm, request);
  return issued(v, rc, comm, request, [&] { return bytes_of(recvcount, recvtype); });
}
#endif

}  // namespace

int narrowed(MPI_Count count) { return count < 0 || count > INT_MAX ? 0 : static_cast<int>(count); }

std::string_view collective_name(Collective c) {
  static constexpr std::string_view names[kCollectiveCount] = {"MPI_Ibarrier",
                                                               "MPI_Ibcast",
                                                               "MPI_Ireduce",
                                                               "MPI_Iallreduce",
                                                               "MPI_Ireduce_scatter_block",
                                                               "MPI_Igather",
                                                               "MPI_Iscatter",
                                                               "MPI_Iallgather",
                                                               "MPI_Ialltoall",
                                                               "MPI_Bcast",
                                                               "MPI_Reduce",
                                                               "MPI_Allreduce",
                                                               "MPI_Reduce_scatter_block",
                                                               "MPI_Gather",
                                                               "MPI_Scatter",
                                                               "MPI_Allgather",
                                                               "MPI_Alltoall"};
  return names[static_cast<int>(c)];
}

std::string_view own_reason_name(OwnReason r) {
  static constexpr std::string_view names[kOwnReasonCount] = {
      "not_active",        "switched_off", "caller_policy", "not_agreed",      "communicator",
      "intercommunicator", "operation",    "too_large",     "below_threshold", "invalid_argument"};
  return names[static_cast<int>(r)];
}

void add_collective_routes(ovx_core& t) {
  t.comm_made = &comm_made;
  add_blocking_routes(t);
  t.route.MPI_Ibarrier = &ibarrier;
  t.route.MPI_Ibcast = &ibcast;
  t.route.MPI_Ireduce = &ireduce;
  t.route.MPI_Iallreduce = &iallreduce;
  t.route.MPI_Ireduce_scatter_block = &ireduce_scatter_block;
  t.route.MPI_Igather = &igather;
  t.route.MPI_Iscatter = &iscatter;
  t.route.MPI_Iallgather = &iallgather;
  t.route.MPI_Ialltoall = &ialltoall;
#if MPI_VERSION >= 4
  t.route.MPI_Ibcast_c = &ibcast_c;
  t.route.MPI_Ireduce_c = &ireduce_c;
  t.route.MPI_Iallreduce_c = &iallreduce_c;
  t.route.MPI_Ireduce_scatter_block_c = &ireduce_scatter_block_c;
  t.route.MPI_Igather_c = &igather_c;
  t.route.MPI_Iscatter_c = &iscatter_c;
  t.route.MPI_Iallgather_c = &iallgather_c;
  t.route.MPI_Ialltoall_c = &ialltoall_c;
#endif
}

bool start_collective_routes(bool blocking) {
  // The cost model's parameters, measured and agreed before any collective can run (every
  // rank routing collectives is here; a failure leaves every rank with the defaults).
  char why[512] = "";
  if (ovx_private_calibrate(why, sizeof why) != MPI_SUCCESS) {
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::fprintf(stderr, "overlap-run: %s; liboverlap's collectives use its default cost model\n",
                   why);
  }
  if (!make_duplicate(MPI_COMM_WORLD)) return false;
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, twin_gone, &twin_keyval, nullptr);
  blocking_ready.store(blocking, std::memory_order_relaxed);
  world_ready.store(true, std::memory_order_release);
  return true;
}

std::vector<CollectiveSite> collective_sites() {
  std::lock_guard lock(sites_mu);
  std::vector<CollectiveSite> out;
  for (const auto& [key, c] : sites()) {
    CollectiveSite s;
    s.call = static_cast<Collective>(key.first);
    s.site = key.second;
    s.calls = c.calls.load(std::memory_order_relaxed);
    s.routed = c.routed.load(std::memory_order_relaxed);
    for (int i = 0; i < kOwnReasonCount; ++i) s.own[i] = c.own[i].load(std::memory_order_relaxed);
    s.operation_note = c.operation_note;
    s.accepted = c.accepted.load(std::memory_order_relaxed);
    s.bytes = c.bytes.load(std::memory_order_relaxed);
    s.wait_window = c.window.summary();
    out.push_back(std::move(s));
  }
  return out;
}

std::uint64_t collectives_routed() {
  return collectives_routed_total.load(std::memory_order_relaxed);
}

}  // namespace overlap::intercept
