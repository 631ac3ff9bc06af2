#include "intercept/calls/collective_routes.hpp"

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <map>
#include <mutex>
#include <utility>

#include "collectives/intercept_abi.h"
#include "intercept/runtime/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// ---- the record per call site ------------------------------------------------------------

std::mutex sites_mu;
std::map<std::pair<int, std::uintptr_t>, CollectiveSite>& sites() {
  static auto* m = new std::map<std::pair<int, std::uintptr_t>, CollectiveSite>;  // outlives exit
  return *m;
}
std::atomic<std::uint64_t> routed_total{0};
// MPI_COMM_WORLD's duplicate was handed to liboverlap at MPI_Init; other communicators
// get theirs inside the call that makes them (comm_made), marked with twin_keyval.
std::atomic<bool> world_ready{false};
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

// Every member of `comm` is inside the call that made it: they agree that each has room
// for a duplicate, make it (MPI_Comm_split, which copies none of the program's attributes,
// as MPI_Comm_dup would through its copy callbacks), agree that each has one, and hand it
// to liboverlap. Any "no" leaves the communicator to MPI's own collectives on all members.
void comm_made(MPI_Comm* newcomm) {
  if (!world_ready.load(std::memory_order_acquire) || newcomm == nullptr ||
      *newcomm == MPI_COMM_NULL)
    return;
  const MPI_Comm c = *newcomm;
  int inter = 0, rank = 0;
  if (PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS || inter) return;
  PMPI_Comm_rank(c, &rank);
  int room = live_twins.load(std::memory_order_relaxed) < kMaxTwins ? 1 : 0, all = 0;
  if (PMPI_Allreduce(&room, &all, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS || !all) return;
  MPI_Errhandler saved = MPI_ERRHANDLER_NULL;
  PMPI_Comm_get_errhandler(c, &saved);
  PMPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);  // out of context ids: no, not an abort
  MPI_Comm dup = MPI_COMM_NULL;
  int made = PMPI_Comm_split(c, 0, rank, &dup) == MPI_SUCCESS && dup != MPI_COMM_NULL ? 1 : 0;
  int everyone = 0;
  if (PMPI_Allreduce(&made, &everyone, 1, MPI_INT, MPI_MIN, c) != MPI_SUCCESS) everyone = 0;
  PMPI_Comm_set_errhandler(c, saved);
  if (saved != MPI_ERRHANDLER_NULL) PMPI_Errhandler_free(&saved);
  if (!everyone || ovx_private_adopt_duplicate(c, dup) != MPI_SUCCESS) {
    if (dup != MPI_COMM_NULL) PMPI_Comm_free(&dup);
    return;
  }
  live_twins.fetch_add(1, std::memory_order_relaxed);
  PMPI_Comm_set_attr(c, twin_keyval, nullptr);
}

struct Verdict {
  bool routed = false;
  OwnReason why = OwnReason::not_active;
  const char* note = nullptr;  // OwnReason::operation: liboverlap's words
};

Verdict route() { return {true, OwnReason::not_active, nullptr}; }
Verdict own(OwnReason why, const char* note = nullptr) { return {false, why, note}; }

void count(Collective call, const Verdict& v) {
  const auto site = reinterpret_cast<std::uintptr_t>(runtime().shim->thread_state()->site);
  std::lock_guard lock(sites_mu);
  CollectiveSite& s = sites()[{static_cast<int>(call), site}];
  s.call = call;
  s.site = site;
  ++s.calls;
  if (v.routed) {
    ++s.routed;
    routed_total.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  ++s.own[static_cast<int>(v.why)];
  if (v.note != nullptr && s.operation_note.empty()) s.operation_note = v.note;
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
long long bytes_of(int count, MPI_Datatype type) {
  if (count < 0 || type == MPI_DATATYPE_NULL) return -1;
  MPI_Count size = 0;
  if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0) return -1;
  if (size > 0 && count > LLONG_MAX / size) return LLONG_MAX;
  return static_cast<long long>(count) * size;
}

// A data movement collective whose every block holds `block` bytes (the same on every rank
// by MPI's type matching rule, whatever datatypes each rank describes them with), `blocks`
// of them in its largest buffer.
Verdict size_verdict(long long block, int blocks) {
  if (block < 0) return own(OwnReason::invalid_argument);
  if (block > INT_MAX || block * std::max(blocks, 1) > INT_MAX) return own(OwnReason::too_large);
  return route();
}

Verdict reduction_verdict(int count, MPI_Datatype type, MPI_Op op, int blocks) {
  if (op == MPI_OP_NULL) return own(OwnReason::invalid_argument);
  if (const char* why = ovx_private_reduction_refusal(op, type); why != nullptr)
    return own(OwnReason::operation, why);
  return size_verdict(bytes_of(count, type), blocks);
}

int size_of(MPI_Comm comm) {
  int size = 0;
  PMPI_Comm_size(comm, &size);
  return size;
}

// Whether this rank is `root` of `comm`; -1 when root is not a rank of it (MPI reports).
int is_root(MPI_Comm comm, int root) {
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (root < 0 || root >= size_of(comm)) return -1;
  return rank == root ? 1 : 0;
}

template <class Decide>
Verdict decide(Collective call, MPI_Comm comm, MPI_Request* request, Decide rest) {
  Verdict v = communicator_verdict(comm, request);
  if (v.routed) v = rest();
  count(call, v);
  return v;
}

// ---- the routers (shim_api.h's table.route) ------------------------------------------------

int ibarrier(MPI_Comm comm, MPI_Request* request) {
  if (decide(Collective::ibarrier, comm, request, route).routed)
    return ovx_private_ibarrier(comm, request);
  return PMPI_Ibarrier(comm, request);
}

int ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
           MPI_Request* request) {
  auto v = decide(Collective::ibcast, comm, request, [&] {
    if (is_root(comm, root) < 0) return own(OwnReason::invalid_argument);
    return size_verdict(bytes_of(count, type), 1);
  });
  if (v.routed) return ovx_private_ibcast(buf, count, type, root, comm, request);
  return PMPI_Ibcast(buf, count, type, root, comm, request);
}

int ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
            MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::ireduce, comm, request, [&] {
    if (is_root(comm, root) < 0) return own(OwnReason::invalid_argument);
    return reduction_verdict(count, type, op, 1);
  });
  if (v.routed) return ovx_private_ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
  return PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, request);
}

int iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::iallreduce, comm, request,
                  [&] { return reduction_verdict(count, type, op, 1); });
  if (v.routed) return ovx_private_iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
  return PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, request);
}

int ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                          MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::ireduce_scatter_block, comm, request,
                  [&] { return reduction_verdict(recvcount, type, op, size_of(comm)); });
  if (v.routed)
    return ovx_private_ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
  return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm, request);
}

int igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::igather, comm, request, [&] {
    const int at_root = is_root(comm, root);
    if (at_root < 0) return own(OwnReason::invalid_argument);
    // The root describes a block with its receive side (its send side may be in place).
    const long long block =
        at_root == 1 ? bytes_of(recvcount, recvtype) : bytes_of(sendcount, sendtype);
    return size_verdict(block, size_of(comm));
  });
  if (v.routed)
    return ovx_private_igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                               comm, request);
  return PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request);
}

int iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::iscatter, comm, request, [&] {
    const int at_root = is_root(comm, root);
    if (at_root < 0) return own(OwnReason::invalid_argument);
    const long long block =
        at_root == 1 ? bytes_of(sendcount, sendtype) : bytes_of(recvcount, recvtype);
    return size_verdict(block, size_of(comm));
  });
  if (v.routed)
    return ovx_private_iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                comm, request);
  return PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                       request);
}

int iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::iallgather, comm, request, [&] {
    return size_verdict(bytes_of(recvcount, recvtype), size_of(comm));
  });
  if (v.routed)
    return ovx_private_iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  comm, request);
  return PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                         request);
}

int ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
              int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  auto v = decide(Collective::ialltoall, comm, request, [&] {
    return size_verdict(bytes_of(recvcount, recvtype), size_of(comm));
  });
  if (v.routed)
    return ovx_private_ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                 request);
  return PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                        request);
}

}  // namespace

std::string_view collective_name(Collective c) {
  static constexpr std::string_view names[kCollectiveCount] = {
      "MPI_Ibarrier", "MPI_Ibcast",  "MPI_Ireduce",    "MPI_Iallreduce", "MPI_Ireduce_scatter_block",
      "MPI_Igather",  "MPI_Iscatter", "MPI_Iallgather", "MPI_Ialltoall"};
  return names[static_cast<int>(c)];
}

std::string_view own_reason_name(OwnReason r) {
  static constexpr std::string_view names[kOwnReasonCount] = {
      "not_active", "switched_off", "caller_policy", "not_agreed", "communicator", "intercommunicator", "operation", "too_large",
      "invalid_argument"};
  return names[static_cast<int>(r)];
}

void add_collective_routes(ovx_core& t) {
  t.comm_made = &comm_made;
  t.route.MPI_Ibarrier = &ibarrier;
  t.route.MPI_Ibcast = &ibcast;
  t.route.MPI_Ireduce = &ireduce;
  t.route.MPI_Iallreduce = &iallreduce;
  t.route.MPI_Ireduce_scatter_block = &ireduce_scatter_block;
  t.route.MPI_Igather = &igather;
  t.route.MPI_Iscatter = &iscatter;
  t.route.MPI_Iallgather = &iallgather;
  t.route.MPI_Ialltoall = &ialltoall;
}

void start_collective_routes() {
  const Runtime& rt = runtime();
  // Every rank must route alike, and the policy can differ between ranks (a dedicated
  // thread refused for want of a core falls back to caller): all agree, or none routes.
  int mine = rt.settings.collectives_overlap && rt.policy != Policy::caller ? 1 : 0, all = 0;
  if (PMPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS || !all)
    return;
  MPI_Comm dup = MPI_COMM_NULL;
  if (PMPI_Comm_dup(MPI_COMM_WORLD, &dup) != MPI_SUCCESS) return;
  if (ovx_private_adopt_duplicate(MPI_COMM_WORLD, dup) != MPI_SUCCESS) {
    PMPI_Comm_free(&dup);
    return;
  }
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, twin_gone, &twin_keyval, nullptr);
  world_ready.store(true, std::memory_order_release);
}

std::vector<CollectiveSite> collective_sites() {
  std::lock_guard lock(sites_mu);
  std::vector<CollectiveSite> out;
  for (const auto& [key, s] : sites()) out.push_back(s);
  return out;
}

std::uint64_t collectives_routed() { return routed_total.load(std::memory_order_relaxed); }

}  // namespace overlap::intercept
