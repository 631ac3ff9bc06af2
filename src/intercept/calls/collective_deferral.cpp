#include "intercept/calls/collective_deferral.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>

#include "intercept/calls/deferral.hpp"
#include "intercept/placement/placement.hpp"
#include "intercept/runtime/core_runtime.hpp"
#include "progress/datatype_layout.hpp"

namespace overlap::intercept {

namespace {

std::uint64_t side_bytes(const Side& s) {
  if (s.count <= 0 || s.count > INT_MAX) return 0;
  return message_bytes(static_cast<int>(s.count), s.type);
}

// Why this rank waits for its part instead of deferring it, or nothing (then `recv_extent`
// describes the result's bytes and `send_hull` the send side's, empty where none).
std::optional<Reason> wait_reason(const RoutedBlocking& b, std::uint64_t send_bytes,
                                  std::uint64_t recv_bytes, Extent& recv_extent, Span& send_hull) {
  Runtime& rt = runtime();
  if (!rt.settings.families.collectives) return Reason::family_off;
  if (b.in_place_scatter) return Reason::in_place_scatter;
  const auto site = reinterpret_cast<std::uintptr_t>(rt.shim->thread_state()->site);
  if (rt.sites.observed_at_once(b.call, site)) return Reason::observed_at_once;
  // An error of liboverlap's collective is known only when it completes, after the call
  // returned: deferred only where the communicator's handler ends the job anyway.
  if (!communicator_fatal(b.comm)) return Reason::errors_return;
  if (send_bytes > 0) {
    send_hull = typed_bytes(b.send.buf, b.send.count, b.send.type, false);
    if (send_hull.hi <= send_hull.lo) {
      send_hull = {};
    } else if (send_hull.hi - send_hull.lo > 2 * send_bytes) {
      return Reason::sparse_type;  // copying the holes costs more than the data
    }
  }
  if (recv_bytes > 0) {
    // (A routed call's buffers hold at most INT_MAX bytes, so its counts fit an int.)
    return check_deferrable(b.recv.buf, static_cast<int>(b.recv.count), b.recv.type, recv_bytes,
                            b.comm, true, recv_extent);
  }
  if (send_hull.hi <= send_hull.lo) return Reason::below_threshold;  // nothing moves here
  return std::nullopt;
}

// The copy of the send side, taken before any page of the result closes (they may share
// none, but the copy must see the program's bytes): null when it has none, or when it
// could not be taken (`why`). A datatype with holes is copied whole, holes included, and
// MPI only promises the typed bytes readable: a hole may be a guard page (no access) or
// not mapped at all, so such a hull is read through /proc/self/mem, which reads any
// mapped page and refuses unmapped ones.
BouncePool::Buffer copy_send_side(const Side& send, const Span& hull, Reason& why) {
  if (hull.hi <= hull.lo) return {};
  settle(hull.lo, hull.hi, false);  // a deferred receive may still own bytes in its holes
  const std::size_t len = hull.hi - hull.lo;
  BouncePool::Buffer copy = runtime().bounces.take(len);
  why = Reason::too_many;
  if (copy.data == nullptr) return copy;
  if (progress::bytes_in_memory_order(send.type)) {
    std::memcpy(copy.data, reinterpret_cast<const void*>(hull.lo), len);
  } else if (!read_program_memory(static_cast<char*>(copy.data), hull.lo, len)) {
    runtime().bounces.give(copy);
    why = Reason::unknown_memory;
    return {};
  }
  return copy;
}

struct StartContext {
  const RoutedBlocking* b;
  const void* send;  // the copy, as the typemap's origin, or the program's argument
};

int start_with_landing(void* ctx, void* landing, MPI_Request* request) {
  const auto* c = static_cast<const StartContext*>(ctx);
  return c->b->start(c->send, landing != nullptr ? landing : c->b->recvbuf, request);
}

// This rank's part, started with the program's own buffers and waited for: the call
// returns when MPI's would.
int run_and_wait(const RoutedBlocking& b) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = b.start(b.sendbuf, b.recvbuf, &request);
  if (rc != MPI_SUCCESS) return rc;
  // As the program's own MPI_Wait on a routed request: MPICH's runs liboverlap's passes
  // (the request's poll function), Open MPI's spins in its progress while the engine's
  // thread completes it. (Asking the engine to hurry as a deferred transfer's waiter
  // does, or polling it from here, was 1.2 to 3.5 times slower on 2 local ranks.)
  return PMPI_Wait(&request, MPI_STATUS_IGNORE);
}

}  // namespace

int run_routed_blocking(const RoutedBlocking& b) {
  begin_call();
  SiteCounters& counts = own_counters(b.call);
  const std::uint64_t send_bytes = side_bytes(b.send), recv_bytes = side_bytes(b.recv);
  ovx_count_call(&counts, std::max(send_bytes, recv_bytes));
  Extent recv_extent;
  Span send_hull;
  std::optional<Reason> why = wait_reason(b, send_bytes, recv_bytes, recv_extent, send_hull);
  if (!why) {
    Reason copy_failed = Reason::too_many;
    const BouncePool::Buffer copy = copy_send_side(b.send, send_hull, copy_failed);
    if (send_hull.hi > send_hull.lo && copy.data == nullptr) {
      why = copy_failed;
    } else {
      StartContext ctx{&b, b.sendbuf};
      if (copy.data != nullptr) {
        const auto origin = reinterpret_cast<std::uintptr_t>(b.send.buf);
        ctx.send = static_cast<const char*>(copy.data) - (send_hull.lo - origin);
      }
      const Started st = start_collective(b.call, recv_bytes > 0 ? &recv_extent : nullptr,
                                          b.recv_is_input, copy, start_with_landing, &ctx);
      if (st.slot != nullptr) return MPI_SUCCESS;
      if (st.reason == Reason::mpi_error) {
        ovx_count_straight(&counts, static_cast<int>(Reason::mpi_error));
        return st.rc;
      }
      why = st.reason;
    }
  }
  ovx_count_straight(&counts, static_cast<int>(*why));
  return run_and_wait(b);
}

}  // namespace overlap::intercept
