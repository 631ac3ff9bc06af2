#include "intercept/placement/placement.hpp"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "intercept/runtime/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// Reads (SYS_pread64) or writes (SYS_pwrite64) n bytes of the program's memory at
// `program` through /proc/self/mem, which the kernel does regardless of protection.
bool program_memory(long call, char* local, std::uintptr_t program, std::size_t n) {
  const int fd = runtime().mem_fd;
  std::size_t done = 0;
  while (done < n) {
    const long r = syscall(call, fd, local + done, n - done, static_cast<off_t>(program + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<std::size_t>(r);
  }
  return true;
}

void copy_into(std::uintptr_t to, const char* from, std::size_t n) {
  if (!program_memory(SYS_pwrite64, const_cast<char*>(from), to, n)) {
    fatal("cannot place a received message through /proc/self/mem");
  }
}

// While the caches are told (and the tail of a buffer unmapped through libc), this thread
// counts as inside MPI, so neither our own libc wrappers nor our UCX event handler settle
// the transfer being placed.
class AsMpi {
 public:
  AsMpi() : t_(runtime().shim->thread_state()) { ++t_->in_mpi; }
  ~AsMpi() { --t_->in_mpi; }
  AsMpi(const AsMpi&) = delete;
  AsMpi& operator=(const AsMpi&) = delete;

 private:
  ovx_thread_state* t_;
};

void* move_range(void* from, std::size_t len, int flags, void* to) {
  const long r = syscall(SYS_mremap, from, len, len, static_cast<unsigned long>(flags), to);
  return r == -1 ? MAP_FAILED : reinterpret_cast<void*>(r);
}

// Swaps the internal buffer's pages with the program's [page_lo, page_hi): the program's
// pages move out (DONTUNMAP leaves the range mapped, still no-access, empty), the buffer's
// move in, in one step each. False, with nothing changed, when the kernel refuses.
bool swap_pages(Slot& s, std::size_t n) {
  Runtime& rt = runtime();
  const std::uintptr_t plo = s.page_lo.load(), phi = s.page_hi.load();
  const std::size_t len = phi - plo;
  auto* bounce = static_cast<char*>(s.recv_bounce.data);
  const std::uintptr_t end = s.place_addr + n;  // the first byte the message leaves as it was
  if (s.recv_bounce.len < len) return false;
  // Bytes of the pages the message does not write keep the program's values.
  if (!read_program_memory(bounce, plo, s.place_addr - plo) ||
      !read_program_memory(bounce + (end - plo), end, phi - end)) {
    return false;
  }
  void* program = reinterpret_cast<void*>(plo);
  void* former = move_range(program, len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, nullptr);
  if (former == MAP_FAILED) {
    // A kernel before 5.7 does not know the flag: it would refuse every later move too.
    // Other errors (ENOMEM at vm.max_map_count, ...) may pass: this receive is copied.
    if (errno == EINVAL) stop_moving(CopyReason::refused);
    return false;
  }
  if (move_range(bounce, len, MREMAP_MAYMOVE | MREMAP_FIXED, program) == MAP_FAILED) {
    if (move_range(former, len, MREMAP_MAYMOVE | MREMAP_FIXED, program) == MAP_FAILED) {
      fatal("could not put a buffer's pages back after a failed move");
    }
    syscall(SYS_munmap, former, len);  // what DONTUNMAP left there, empty
    return false;
  }
  // No MPI operation uses either range meanwhile (the program's pages are a transfer's,
  // the internal buffer's transfer is complete), so the caches may learn of it now, and
  // the shim that the internal buffer's range is no mapping of ours any more.
  AsMpi as_mpi;
  rt.move_gate.announce(program, len);
  rt.move_gate.announce(bounce, len);
  rt.shim->unmapped(bounce, s.recv_bounce.len);
  // The program's former pages are the internal buffer now: writable again, and of
  // exactly the length moved (the rest of the old one, if any, goes).
  if (syscall(SYS_mprotect, former, len, PROT_READ | PROT_WRITE) != 0) {
    fatal("mprotect() failed on a receive's internal buffer");
  }
  if (s.recv_bounce.len > len) munmap(bounce + len, s.recv_bounce.len - len);
  s.recv_bounce = {former, len};
  return true;
}

}  // namespace

void place_received(Slot& s, std::size_t n) {
  Runtime& rt = runtime();
  std::optional<ReceiveCopy> why;
  if (!s.movable) {
    why = s.copy_why;
  } else if (n < kMoveMinBytes) {
    why = ReceiveCopy::small;
  } else if (s.page_hi.load() - (s.place_addr + n) > n) {
    why = ReceiveCopy::small;  // the end page's bytes to keep outweigh the message
  } else if (rt.shim->thread_state()->in_fault != 0) {
    // The registration caches' notifications take locks: not from a signal handler.
    why = ReceiveCopy::fault_handler;
  } else if (rt.copy_reason.load() != CopyReason::none) {
    why = ReceiveCopy::stopped;
  } else if (auto changed = rt.move_gate.recheck(s.page_lo.load(), s.page_hi.load())) {
    why = changed;  // what the program did since the receive started
  } else if (!swap_pages(s, n)) {
    why =
        rt.copy_reason.load() != CopyReason::none ? ReceiveCopy::stopped : ReceiveCopy::move_failed;
  }
  if (!why) {
    rt.placed_by_move.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  copy_into(s.place_addr, static_cast<const char*>(s.recv_bounce.data) + landing_offset(s), n);
  rt.placed_by_copy.fetch_add(1, std::memory_order_relaxed);
  if (rt.settings.move_pages) {
    rt.copied_because[static_cast<std::size_t>(*why)].fetch_add(1, std::memory_order_relaxed);
  }
}

bool read_program_memory(char* to, std::uintptr_t from, std::size_t n) {
  return program_memory(SYS_pread64, to, from, n);
}

void init_placement() { runtime().move_gate.init(); }

void stop_moving(CopyReason why, const char* detail) {
  Runtime& rt = runtime();
  CopyReason none = CopyReason::none;
  if (rt.copy_reason.compare_exchange_strong(none, why)) rt.copy_detail.store(detail);
}

void stop_moving_pages() { stop_moving(CopyReason::exposed); }

}  // namespace overlap::intercept
