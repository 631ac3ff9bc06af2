#include "intercept/calls/deferral.hpp"

#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstring>

#include "intercept/placement/placement.hpp"
#include "intercept/runtime/buffer_memory.hpp"
#include "intercept/runtime/core_runtime.hpp"
#include "intercept/runtime/program_requests.hpp"
#include "progress/datatype_layout.hpp"

namespace overlap::intercept {

namespace {

std::uintptr_t current_site() {
  return reinterpret_cast<std::uintptr_t>(runtime().shim->thread_state()->site);
}

// The calling thread's stack (cached per thread: pthread_getattr_np reads /proc for the
// main thread). A protected stack page could leave no room to deliver the fault.
bool on_own_stack(std::uintptr_t lo, std::uintptr_t hi) {
  thread_local std::uintptr_t stack_lo = 0, stack_hi = 0;
  if (stack_hi == 0) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      void* addr = nullptr;
      std::size_t size = 0;
      pthread_attr_getstack(&attr, &addr, &size);
      pthread_attr_destroy(&attr);
      stack_lo = reinterpret_cast<std::uintptr_t>(addr);
      stack_hi = stack_lo + size;
    }
  }
  return lo < stack_hi && stack_lo < hi;
}

// What the communicator's error handler makes of an error.
enum class Handler { fatal, returns, program };
Handler error_handler(MPI_Comm comm) {
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS) return Handler::program;
  Handler h = Handler::program;
  if (eh == MPI_ERRORS_ARE_FATAL) h = Handler::fatal;
#ifdef MPI_ERRORS_ABORT
  if (eh == MPI_ERRORS_ABORT) h = Handler::fatal;
#endif
  if (eh == MPI_ERRORS_RETURN) h = Handler::returns;
  PMPI_Errhandler_free(&eh);
  return h;
}

void release(Slot* s) {
  return_bounces(*s);
  s->state.store(kFree, std::memory_order_release);
  runtime().shim->thread_state()->posting = 0;
}

Slot* reserve_slot(Call call) {
  Runtime& rt = runtime();
  Slot* s = rt.table.reserve();
  if (s == nullptr) return nullptr;
  s->call = call;
  s->movable = false;
  s->place_whole = 0;
  s->errors_fatal = true;
  s->site = current_site();
  ovx_thread_state* thread = rt.shim->thread_state();
  s->owner.store(thread->serial, std::memory_order_relaxed);
  thread->posting = 1;
  std::uint32_t token = rt.next_token.fetch_add(1);
  if (token == 0) token = rt.next_token.fetch_add(1);
  s->token.store(token);
  return s;
}

// From here on the handler and settle() see it, and the driver completes it.
void activate(Slot* s, MPI_Request* requests, int n) {
  Runtime& rt = runtime();
  s->pending.store(n);
  // The overlap window starts when the call returns, a few instructions from here; after
  // publish() another thread may complete and reap the slot, so nothing is written later.
  s->return_ns.store(now_ns(), std::memory_order_release);
  __atomic_fetch_add(rt.shim->active, 1, __ATOMIC_ACQ_REL);
  rt.table.publish(s);
  rt.shim->thread_state()->posting = 0;
  for (int i = 0; i < n; ++i) {
    if (rt.progress->watch(requests[i], on_request_done, &s->parts[i])) continue;
    // The engine refused (it cannot while we hold a use): complete it here, correctly.
    MPI_Status status;
    PMPI_Wait(&requests[i], &status);
    on_request_done(&s->parts[i], &status);
  }
}

std::uintptr_t page_floor(std::uintptr_t a) { return a & ~(runtime().page - 1); }
std::uintptr_t page_ceil(std::uintptr_t a) { return page_floor(a + runtime().page - 1); }

bool slack_ok() { return runtime().program_required < MPI_THREAD_MULTIPLE; }

std::optional<std::uint64_t> heap_word(std::uintptr_t address) {
  if (!runtime().glibc_heap) return std::nullopt;
  return read_own_word(address);
}

bool anonymous_mapping(std::uintptr_t lo, std::uintptr_t hi) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.regions_mutex);
  rt.regions.follow(__atomic_load_n(rt.shim->map_changes, __ATOMIC_ACQUIRE));
  return rt.regions.anonymous_private(lo, hi);
}

Edges edges_of(const Extent& e) {
  return classify_edges(e.lo, e.hi, runtime().page, slack_ok(), heap_word, anonymous_mapping);
}

// Under a sanitizer's allocator (not glibc's: no header to read), whether lo starts one of
// its blocks that ends before hi: a receive's count may run past its block (MPI writes
// only the message), into the allocator's other blocks. The sanitizers' interface answers
// for any pointer. Other allocators (jemalloc, tcmalloc) have no such query: there
// page-aligned ends are taken as owned (docs/overlap-run.md, "Protection").
bool past_sanitizer_block(std::uintptr_t lo, std::uintptr_t hi) {
  using Ownership = int (*)(const volatile void*);
  using Size = std::size_t (*)(const volatile void*);
  static const auto owns =
      reinterpret_cast<Ownership>(dlsym(RTLD_DEFAULT, "__sanitizer_get_ownership"));
  static const auto size_of =
      reinterpret_cast<Size>(dlsym(RTLD_DEFAULT, "__sanitizer_get_allocated_size"));
  if (owns == nullptr || size_of == nullptr) return false;
  const auto* p = reinterpret_cast<const void*>(lo);
  return owns(p) != 0 && lo + size_of(p) < hi;
}

// Why a receive's pages cannot be protected, else nullopt and the glibc block it is in.
// A page a pending request of the program's holds is never protected: MPI (or the peer,
// through shared memory) may read or write it at any time (program_requests.hpp).
std::optional<Reason> receive_pages(const Extent& e, Block& block) {
  const Edges edges = edges_of(e);
  if (!edges.head_owned) return Reason::shares_first_page;
  if (!edges.tail_owned) return Reason::shares_last_page;
  if (!runtime().glibc_heap && past_sanitizer_block(e.lo, e.hi)) return Reason::shares_last_page;
  if (program_requests().holds(page_floor(e.lo), page_ceil(e.hi), false))
    return Reason::owned_by_request;
  block = {edges.block_lo, edges.block_hi};
  return std::nullopt;
}

}  // namespace

bool communicator_fatal(MPI_Comm comm) { return error_handler(comm) == Handler::fatal; }

bool mpi_accepts_send(int dest, int tag, MPI_Comm comm) {
  if (tag < 0 || tag > runtime().tag_ub) return false;
  int inter = 0, n = 0;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return false;
  if ((inter != 0 ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
    return false;
  return dest >= 0 && dest < n;
}

[[gnu::hot]] std::uint64_t message_bytes(int count, MPI_Datatype type) {
  // MPI's own call reports a null type (a query here would raise the error elsewhere).
  if (count <= 0 || type == MPI_DATATYPE_NULL) return 0;
  int size = ovx_type_size_of(runtime().shim->straight, type);
  if (size < 0 && PMPI_Type_size(type, &size) != MPI_SUCCESS) return 0;
  if (size <= 0) return 0;
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

[[gnu::hot]] std::optional<Reason> check_deferrable(const void* buf, int count, MPI_Datatype type,
                                                    std::uint64_t bytes, MPI_Comm comm,
                                                    bool receive, Extent& e) {
  Runtime& rt = runtime();
  e.bytes = bytes;
  if (e.bytes == 0 || e.bytes < static_cast<std::uint64_t>(rt.settings.min_bytes)) {
    return Reason::below_threshold;
  }
  const auto at = reinterpret_cast<std::uintptr_t>(buf);
  if (progress::bytes_in_memory_order(type)) {
    MPI_Aint true_lb = 0, true_extent = 0;
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    e.lo = at + static_cast<std::uintptr_t>(true_lb);
    e.hi = e.lo + e.bytes;
    e.offset = true_lb;
    e.holes = false;
  } else {
    // The hull of the elements: copied (send) or snapshot and placed whole (receive). Not
    // worth it when the holes outweigh the data.
    const Span hull = typed_bytes(buf, count, type, receive);
    if (hull.hi <= hull.lo || hull.hi - hull.lo > 2 * e.bytes) return Reason::sparse_type;
    // Protected holes may hold data another thread uses, whose progress may be what the
    // transfer waits for (as a heap block's slack, buffer_memory.hpp).
    if (receive && rt.program_required >= MPI_THREAD_MULTIPLE) return Reason::noncontiguous;
    e.lo = hull.lo;
    e.hi = hull.hi;
    e.offset = static_cast<MPI_Aint>(hull.lo - at);
    e.holes = true;
  }
  // A receive's errors (a truncated message above all) are known only when it completes,
  // after the call returned: deferred only where the error handler ends the job anyway.
  // A send's are known when it is posted (mpi_accepts_send), so a send is deferred also
  // where errors return; not where the handler is the program's own, which a late error
  // would reach on the engine's thread.
  const Handler handler = error_handler(comm);
  if (handler == Handler::program || (receive && handler != Handler::fatal))
    return Reason::errors_return;
  if (on_own_stack(e.lo, e.hi)) return Reason::stack_memory;
  MemoryKind kind;
  {
    std::lock_guard<std::mutex> lock(rt.regions_mutex);
    rt.regions.follow(__atomic_load_n(rt.shim->map_changes, __ATOMIC_ACQUIRE));
    kind = rt.regions.classify(page_floor(e.lo), page_ceil(e.hi));
  }
  switch (kind) {
    case MemoryKind::private_writable:
      return std::nullopt;
    case MemoryKind::shared:
      return Reason::shared_memory;
    case MemoryKind::read_only:
      return Reason::read_only_memory;
    case MemoryKind::stack:
      return Reason::stack_memory;
    case MemoryKind::unmapped:
      return Reason::unknown_memory;
  }
  return Reason::unknown_memory;
}

Started start_send(Call call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                   MPI_Comm comm, const Extent& e, bool ready) {
  Runtime& rt = runtime();
  Slot* s = reserve_slot(call);
  if (s == nullptr) return {nullptr, Reason::too_many};
  s->errors_fatal = error_handler(comm) == Handler::fatal;
  const std::uintptr_t plo = page_floor(e.lo), phi = page_ceil(e.hi);
  const void* from = buf;
  bool in_place = false;
  // In place behind read-only pages when the buffer owns its end pages, nothing else is
  // in them (holes are other data), and no request of the program's may write them.
  if (!e.holes && !program_requests().holds(plo, phi, true)) {
    const Edges edges = edges_of(e);
    if (edges.head_owned && edges.tail_owned) {
      settle(plo, phi, false);
      in_place = protect(plo, phi, false);
    }
  }
  if (in_place) {
    s->page_lo = plo;
    s->page_hi = phi;
    s->data_lo = e.lo;
    s->data_hi = e.hi;
  } else {
    // Send from a copy of what the buffer spans: the buffer is free at once.
    const std::size_t len = e.hi - e.lo;
    settle(e.lo, e.hi, false);
    s->send_bounce = rt.bounces.take(len);
    if (s->send_bounce.data == nullptr) {
      release(s);
      return {nullptr, Reason::too_many};
    }
    std::memcpy(s->send_bounce.data, reinterpret_cast<const void*>(e.lo), len);
    from = static_cast<const char*>(s->send_bounce.data) - e.offset;
  }
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = ready ? PMPI_Irsend(from, count, type, dest, tag, comm, &request)
                       : PMPI_Isend(from, count, type, dest, tag, comm, &request);
  if (rc != MPI_SUCCESS) {
    if (in_place) unprotect(plo, phi, false);
    release(s);
    return {nullptr, Reason::mpi_error, 0, rc};
  }
  s->parts[0] = {s, false};
  const std::uint32_t token = s->token.load();
  activate(s, &request, 1);
  rt.sites.deferred(own_counters(call), !in_place);
  return {s, Reason::too_many, token};
}

namespace {

// A receive's slot: its pages no-access, an internal buffer for the message (and, for
// Sendrecv_replace, a copy of the outgoing data taken before the pages close). With
// `snapshot` (or holes in the datatype) the landing area starts as a copy of the buffer's
// span and is placed whole. nullptr and `why` when it cannot start.
Slot* prepare_receive(Call call, const Extent& e, bool copy_out, bool snapshot, Reason& why) {
  Block block;
  if (auto pages = receive_pages(e, block)) {
    why = *pages;
    return nullptr;
  }
  Slot* s = reserve_slot(call);
  if (s == nullptr) {
    why = Reason::too_many;
    return nullptr;
  }
  Runtime& rt = runtime();
  const std::uintptr_t plo = page_floor(e.lo), phi = page_ceil(e.hi);
  settle(plo, phi, true);
  BouncePool& pool = rt.bounces;
  // The landing area spans the same pages as the buffer, at the same offset in its first
  // page, so whole pages can be moved into place (placement.hpp).
  s->recv_bounce = pool.take(phi - plo);
  if (copy_out) {
    s->send_bounce = pool.take(e.hi - e.lo);
    if (s->send_bounce.data != nullptr) {
      std::memcpy(s->send_bounce.data, reinterpret_cast<const void*>(e.lo), e.hi - e.lo);
    }
  }
  if (rt.settings.move_pages) {
    // Before protecting: that splits the mapping the gate looks at.
    const std::optional<ReceiveCopy> copy = rt.move_gate.check(plo, phi, block);
    s->movable = !copy;
    s->copy_why = copy.value_or(ReceiveCopy::stopped);
  }
  why = Reason::protect_failed;
  if (s->recv_bounce.data == nullptr || (copy_out && s->send_bounce.data == nullptr) ||
      !protect(plo, phi, true)) {
    release(s);
    return nullptr;
  }
  if (e.holes || snapshot) {
    // The bytes between the elements keep the program's values (and an in-place
    // collective reads its input there): the landing area starts as a copy of the span,
    // taken after the pages closed (nothing can change them now), and is placed whole.
    s->place_whole = e.hi - e.lo;
    auto* landing_area = static_cast<char*>(s->recv_bounce.data) + (e.lo - plo);
    if (!read_program_memory(landing_area, e.lo, s->place_whole)) {
      unprotect(plo, phi, true);
      release(s);
      return nullptr;
    }
  }
  s->place_addr = e.lo;
  s->page_lo = plo;
  s->page_hi = phi;
  s->data_lo = e.lo;
  s->data_hi = e.hi;
  s->no_access = true;
  s->parts[0] = {s, true};
  s->parts[1] = {s, false};
  return s;
}

// The address MPI receives (count, type) at: the buffer's data lands at landing_offset.
void* landing(const Slot& s, const Extent& e) {
  return static_cast<char*>(s.recv_bounce.data) + landing_offset(s) - e.offset;
}

// A receive MPI refused to post: nothing was published, the pages open again.
Started refused(Slot* s, int rc) {
  if (s->page_lo.load() < s->page_hi.load()) unprotect(s->page_lo.load(), s->page_hi.load(), true);
  release(s);
  return {nullptr, Reason::mpi_error, 0, rc};
}

Started started(Slot* s, Call call, MPI_Request* requests, int n) {
  const std::uint32_t token = s->token.load();
  activate(s, requests, n);
  runtime().sites.deferred(own_counters(call), false);
  return {s, Reason::too_many, token};
}

}  // namespace

Started start_recv(Call call, void* buf, int count, MPI_Datatype type, int source, int tag,
                   MPI_Comm comm, const Extent& e) {
  (void)buf;
  Reason why = Reason::too_many;
  Slot* s = prepare_receive(call, e, false, false, why);
  if (s == nullptr) return {nullptr, why};
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = PMPI_Irecv(landing(*s, e), count, type, source, tag, comm, &request);
  if (rc != MPI_SUCCESS) return refused(s, rc);
  return started(s, call, &request, 1);
}

Started start_sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                               int source, int recvtag, MPI_Comm comm, const Extent& e) {
  (void)buf;
  Reason why = Reason::too_many;
  Slot* s = prepare_receive(Call::sendrecv_replace, e, true, false, why);
  if (s == nullptr) return {nullptr, why};
  MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int rc = PMPI_Irecv(landing(*s, e), count, type, source, recvtag, comm, &requests[0]);
  if (rc != MPI_SUCCESS) return refused(s, rc);
  rc = PMPI_Isend(static_cast<char*>(s->send_bounce.data) - e.offset, count, type, dest, sendtag,
                  comm, &requests[1]);
  if (rc != MPI_SUCCESS) {
    // Deferred only under a fatal error handler, which MPI ran: not reached.
    PMPI_Cancel(&requests[0]);
    PMPI_Wait(&requests[0], MPI_STATUS_IGNORE);
    return refused(s, rc);
  }
  return started(s, Call::sendrecv_replace, requests, 2);
}

Started start_collective(Call call, const Extent* recv, bool snapshot, BouncePool::Buffer send_copy,
                         CollectiveStart start, void* ctx) {
  Reason why = Reason::too_many;
  Slot* s =
      recv != nullptr ? prepare_receive(call, *recv, false, snapshot, why) : reserve_slot(call);
  if (s == nullptr) {
    runtime().bounces.give(send_copy);
    return {nullptr, why};
  }
  s->send_bounce = send_copy;
  void* at = nullptr;
  if (recv != nullptr) {
    // The collective writes every byte of a contiguous result (holes and in-place input
    // were snapshot above): placed whole, whatever the (empty) status of liboverlap's
    // request says.
    if (s->place_whole == 0) s->place_whole = recv->hi - recv->lo;
    at = landing(*s, *recv);
  }
  s->parts[0] = {s, recv != nullptr};
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = start(ctx, at, &request);
  if (rc != MPI_SUCCESS) return refused(s, rc);
  const std::uint32_t token = s->token.load();
  activate(s, &request, 1);
  runtime().sites.deferred(own_counters(call), send_copy.data != nullptr);
  return {s, Reason::too_many, token};
}

}  // namespace overlap::intercept
