#include "intercept/runtime/core_runtime.hpp"

#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "intercept/placement/placement.hpp"

namespace overlap::intercept {

[[gnu::hot]] Runtime& runtime() {
  // Never destroyed: a late free() or fault after exit() must still find it.
  static Runtime* rt = new Runtime;
  return *rt;
}

[[gnu::hot]] SiteCounters& own_counters(Call call) {
  Runtime& rt = runtime();
  ovx_thread_state* t = rt.shim->thread_state();
  return rt.sites.counters(call, reinterpret_cast<std::uintptr_t>(t->site), t->site_cache,
                           t->serial);
}

std::uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

void fatal(const char* what) {
  const char prefix[] = "overlap-run: fatal: ";
  const char suffix[] =
      " (run with OVERLAP_INTERCEPT=off to run without interception, and please report)\n";
  (void)!::write(2, prefix, sizeof prefix - 1);
  (void)!::write(2, what, std::strlen(what));
  (void)!::write(2, suffix, sizeof suffix - 1);
  std::abort();
}

void StatusRing::store(std::uint32_t token, const MPI_Status& s) {
  Entry& e = entries_[token % kSize];
  e.token.store(0, std::memory_order_release);
  e.status = s;
  e.token.store(token, std::memory_order_release);
}

bool StatusRing::load(std::uint32_t token, MPI_Status& out) const {
  const Entry& e = entries_[token % kSize];
  if (e.token.load(std::memory_order_acquire) != token) return false;
  out = e.status;
  // Orders the plain reads of the status before the re-check (seqlock).
  std::atomic_thread_fence(std::memory_order_acquire);
  return e.token.load(std::memory_order_relaxed) == token;
}

namespace {

void futex_wait(std::atomic<int>& word, int expected) {
  const timespec timeout{0, 1'000'000};  // re-check every ms: no wake-up can be lost for long
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, expected, &timeout, nullptr,
          0);
}

void futex_wake_all(std::atomic<int>& word) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr,
          0);
}

// Called with protect_mutex held.
void apply_changes(const std::vector<ProtectionChange>& changes, bool& ok) {
  ok = true;
  for (const ProtectionChange& c : changes) {
    // The raw system call: the program's mprotect() is interposed (and would settle).
    if (syscall(SYS_mprotect, c.lo, c.hi - c.lo, c.prot) != 0) ok = false;
    ++runtime().protection_changes;
  }
}

void finish(Slot& s) {
  Runtime& rt = runtime();
  const std::uintptr_t lo = s.page_lo.load(), hi = s.page_hi.load();
  if (lo < hi) unprotect(lo, hi, s.no_access.load());
  if (s.call == Call::recv || s.call == Call::sendrecv_recv || s.call == Call::sendrecv_replace) {
    rt.statuses.store(s.token.load(), s.status);
  }
  s.complete_ns = now_ns();
  rt.table.mark_done(s);
  futex_wake_all(s.state);
  __atomic_fetch_sub(rt.shim->active, 1, __ATOMIC_RELEASE);
}

}  // namespace

void on_request_done(void* arg, const MPI_Status* status) {
  auto* part = static_cast<SlotPart*>(arg);
  Slot& s = *part->slot;
  if (status->MPI_ERROR != MPI_SUCCESS) {
    // A receive is deferred only on communicators whose handler is fatal: MPI would have
    // aborted in the program's blocking call. Abort with its message rather than place
    // partial data. A send's errors that MPI knows when it is posted were returned from
    // the call; one that MPI finds only later (a lost peer) can no longer reach it.
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    PMPI_Error_string(status->MPI_ERROR, text, &len);
    const std::string what = std::string("a deferred ") + (part->is_recv ? "receive" : "send") +
                             " failed in MPI: " + std::string(text, static_cast<std::size_t>(len));
    if (part->is_recv || s.errors_fatal) fatal(what.c_str());
    const std::string line = "overlap-run: " + what +
                             " (after its blocking call returned; the communicator's error "
                             "handler returns errors, so the job goes on)\n";
    (void)!::write(2, line.data(), line.size());
  }
  if (part->is_recv) {
    s.status = *status;
    // The large-count form: MPI_Get_count's int answers MPI_UNDEFINED above INT_MAX bytes,
    // and such a message would never be placed.
    // A span placed whole (holes kept, a collective's result) goes whatever the status
    // says: a collective's is empty.
    MPI_Count bytes = 0;
    PMPI_Get_elements_x(status, MPI_BYTE, &bytes);
    if (s.place_whole > 0)
      place_received(s, s.place_whole);
    else if (bytes > 0 && bytes != MPI_UNDEFINED)
      place_received(s, static_cast<std::size_t>(bytes));
  }
  if (s.pending.fetch_sub(1, std::memory_order_acq_rel) == 1) finish(s);
}

void wait_slot(Slot& s, std::uint32_t token) {
  Runtime& rt = runtime();
  const auto pending = [&s, token] {
    return s.token.load(std::memory_order_acquire) == token &&
           s.state.load(std::memory_order_acquire) == kActive;
  };
  if (!rt.progress->background()) {
    while (pending()) {
      if (rt.progress->poll() == 0) sched_yield();
    }
    return;
  }
  if (!pending()) return;
  // Sleeping here, the program is as blocked as in the MPI call it made: the engine's
  // thread must poll as that call would, not pause up to 500 us between passes.
  rt.progress->hurry(true);
  while (pending()) futex_wait(s.state, kActive);
  rt.progress->hurry(false);
}

[[gnu::hot]] void begin_call() {
  Runtime& rt = runtime();
  if (!rt.progress->background()) rt.progress->poll_in_call();
  reap();
}

void settle(std::uintptr_t lo, std::uintptr_t hi, bool write) {
  Runtime& rt = runtime();
  if (!rt.active || lo >= hi) return;
  rt.table.for_each_conflict(lo, hi, write,
                             [](Slot& s, std::uint32_t token) { wait_slot(s, token); });
}

TypeExtent type_extent(MPI_Datatype type) {
  MPI_Count lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  // A null type's query would raise MPI's error outside the program's call.
  if (type == MPI_DATATYPE_NULL || PMPI_Type_get_extent_x(type, &lb, &extent) != MPI_SUCCESS ||
      PMPI_Type_get_true_extent_x(type, &true_lb, &true_extent) != MPI_SUCCESS) {
    return {};
  }
  return {static_cast<std::int64_t>(extent), static_cast<std::int64_t>(true_lb),
          static_cast<std::int64_t>(true_extent)};
}

Span typed_bytes(const void* buf, std::int64_t count, MPI_Datatype type, bool write) {
  if (buf == MPI_IN_PLACE || count <= 0) return {};
  return typed_span(reinterpret_cast<std::uintptr_t>(buf), count, type_extent(type), write);
}

void settle_span(const Span& s) {
  if (__atomic_load_n(runtime().shim->active, __ATOMIC_ACQUIRE) == 0) return;
  settle(s.lo, s.hi, s.write);
}

void settle_all() {
  Runtime& rt = runtime();
  rt.table.for_each_active([](Slot& s, std::uint32_t token) { wait_slot(s, token); });
}

void settle_own() {
  Runtime& rt = runtime();
  const std::uint64_t me = rt.shim->thread_state()->serial;
  rt.table.for_each_active([me](Slot& s, std::uint32_t token) {
    if (s.owner.load(std::memory_order_relaxed) == me) wait_slot(s, token);
  });
}

bool protect(std::uintptr_t lo, std::uintptr_t hi, bool no_access) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.protect_mutex);
  const Guard g = no_access ? Guard::no_access : Guard::read_only;
  bool ok = false;
  apply_changes(rt.protections.add(lo, hi, g), ok);
  if (ok) return true;
  bool undone = false;
  apply_changes(rt.protections.remove(lo, hi, g), undone);
  if (!undone) fatal("mprotect() failed and could not be undone");
  return false;
}

void unprotect(std::uintptr_t lo, std::uintptr_t hi, bool no_access) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> lock(rt.protect_mutex);
  bool ok = false;
  apply_changes(rt.protections.remove(lo, hi, no_access ? Guard::no_access : Guard::read_only), ok);
  if (!ok) fatal("mprotect() failed to lift a protection");
}

bool protected_by_us(std::uintptr_t address, std::uint64_t& changes) {
  Runtime& rt = runtime();
  // The fault handler calls this: the faulting thread never holds the lock (no code under
  // it touches the program's memory), so the lock only waits for another thread's change.
  std::lock_guard<std::mutex> lock(rt.protect_mutex);
  changes = rt.protection_changes;
  return rt.protections.protection_at(address) != (PROT_READ | PROT_WRITE);
}

void return_bounces(Slot& s) {
  Runtime& rt = runtime();
  rt.bounces.give(s.recv_bounce);
  rt.bounces.give(s.send_bounce);
  s.recv_bounce = s.send_bounce = {};
}

void reap() {
  Runtime& rt = runtime();
  rt.table.reap([&rt](Slot& s) {
    Completion c;
    const std::uint64_t touch = s.touch_ns.load();
    const bool touched = touch != 0 && touch < s.complete_ns;
    const std::uint64_t end = touched ? touch : s.complete_ns;
    c.window_s = end > s.return_ns ? static_cast<double>(end - s.return_ns) * 1e-9 : 0.0;
    c.touched = touched;
    c.touch_pc = s.touch_pc.load();
    c.touch_delay_s =
        touched && touch > s.return_ns ? static_cast<double>(touch - s.return_ns) * 1e-9 : 0.0;
    c.faults = s.faults.load();
    c.stall_s = static_cast<double>(s.stall_ns.load()) * 1e-9;
    c.duration_s =
        s.complete_ns > s.return_ns ? static_cast<double>(s.complete_ns - s.return_ns) * 1e-9 : 0.0;
    rt.sites.completed(s.call, s.site, c);
    return_bounces(s);
  });
}

}  // namespace overlap::intercept
