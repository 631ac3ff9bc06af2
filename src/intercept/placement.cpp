#include "intercept/placement.hpp"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "intercept/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// Copies through /proc/self/mem: the kernel writes regardless of protection.
void copy_into(std::uintptr_t to, const void* from, std::size_t n) {
  Runtime& rt = runtime();
  std::size_t done = 0;
  while (done < n) {
    const long w = syscall(SYS_pwrite64, rt.mem_fd, static_cast<const char*>(from) + done, n - done,
                           static_cast<off_t>(to + done));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) fatal("cannot place a received message through /proc/self/mem");
    done += static_cast<std::size_t>(w);
  }
}

// Reads the program's no-access bytes [from, from + n) into `to`.
bool read_program(void* to, std::uintptr_t from, std::size_t n) {
  Runtime& rt = runtime();
  std::size_t done = 0;
  while (done < n) {
    const long r = syscall(SYS_pread64, rt.mem_fd, static_cast<char*>(to) + done, n - done,
                           static_cast<off_t>(from + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    done += static_cast<std::size_t>(r);
  }
  return true;
}

// MPI's registration caches learn that pages changed from their hooks on munmap() and
// mremap(). The moves below are raw system calls all the same (UCX's mremap hook passes
// on only four arguments, dropping MREMAP_FIXED's target), so the caches are told here
// what those hooks would have told them: UCX's (ucm_vm_munmap) and Open MPI's own
// (opal_mem_hooks_release_hook), where loaded. Looked up at MPI_Init (dlsym is not
// async-signal-safe; placement may run in the fault handler under policy caller).
using UcmUnmapped = void (*)(void*, std::size_t);
using OpalReleased = void (*)(void*, std::size_t, bool);
UcmUnmapped ucm_unmapped = nullptr;
OpalReleased opal_released = nullptr;

void announce_changed(void* addr, std::size_t len) {
  if (ucm_unmapped != nullptr) ucm_unmapped(addr, len);
  if (opal_released != nullptr) opal_released(addr, len, false);
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
  const std::uintptr_t plo = s.page_lo.load(), phi = s.page_hi.load();
  const std::size_t len = phi - plo;
  auto* bounce = static_cast<char*>(s.recv_bounce.data);
  const std::uintptr_t end = s.place_addr + n;  // the first byte the message leaves as it was
  if (s.recv_bounce.len < len || phi - end > n) return false;
  // Bytes of the pages the message does not write keep the program's values.
  if (!read_program(bounce, plo, s.place_addr - plo) ||
      !read_program(bounce + (end - plo), end, phi - end)) {
    return false;
  }
  void* program = reinterpret_cast<void*>(plo);
  void* former = move_range(program, len, MREMAP_MAYMOVE | MREMAP_DONTUNMAP, nullptr);
  if (former == MAP_FAILED) {
    // E.g. a kernel before 5.7: it would refuse every later move too, after their reads.
    stop_moving(CopyReason::refused);
    return false;
  }
  if (move_range(bounce, len, MREMAP_MAYMOVE | MREMAP_FIXED, program) == MAP_FAILED) {
    if (move_range(former, len, MREMAP_MAYMOVE | MREMAP_FIXED, program) == MAP_FAILED) {
      fatal("could not put a buffer's pages back after a failed move");
    }
    return false;
  }
  // No MPI operation uses either range meanwhile (the program's pages are a transfer's,
  // the internal buffer's transfer is complete), so the caches may learn of it now.
  AsMpi as_mpi;
  announce_changed(program, len);
  announce_changed(bounce, len);
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
  if (s.movable && n >= kMoveMinBytes && rt.copy_reason.load() == CopyReason::none &&
      swap_pages(s, n)) {
    rt.placed_by_move.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  copy_into(s.place_addr, static_cast<const char*>(s.recv_bounce.data) + landing_offset(s), n);
  rt.placed_by_copy.fetch_add(1, std::memory_order_relaxed);
}

// Whether libfabric is loaded (by MPI_Init's transports, also into a local scope dlsym
// would not search): its memory monitors are not told of moves.
bool libfabric_loaded() {
  int found = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        if (info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libfabric.so") != nullptr)
          *static_cast<int*>(data) = 1;
        return 0;
      },
      &found);
  return found != 0;
}

void init_placement() {
  Runtime& rt = runtime();
  ucm_unmapped = reinterpret_cast<UcmUnmapped>(dlsym(RTLD_DEFAULT, "ucm_vm_munmap"));
  opal_released =
      reinterpret_cast<OpalReleased>(dlsym(RTLD_DEFAULT, "opal_mem_hooks_release_hook"));
  if (libfabric_loaded()) stop_moving(CopyReason::libfabric);
}

void stop_moving(CopyReason why) {
  CopyReason none = CopyReason::none;
  runtime().copy_reason.compare_exchange_strong(none, why);
}

void stop_moving_pages() { stop_moving(CopyReason::exposed); }

}  // namespace overlap::intercept
