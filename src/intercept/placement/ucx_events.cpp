#include "intercept/placement/ucx_events.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "intercept/runtime/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// Layouts of ucm_event_t's members (ucm/api/ucm.h).
struct UcmVmEvent {
  void* address;
  std::size_t size;
};
struct UcmMmapEvent {
  void* result;
  void* address;
  std::size_t size;
  int prot, flags, fd;
  off_t offset;
};
struct UcmMunmapEvent {
  int result;
  void* address;
  std::size_t size;
};
struct UcmMremapEvent {
  void* result;
  void* address;
  std::size_t old_size, new_size;
  int flags;
};
struct UcmMadviseEvent {
  int result;
  void* addr;
  std::size_t length;
  int advice;
};
constexpr int kUcmEventMmap = 1 << 0, kUcmEventMunmap = 1 << 1, kUcmEventMremap = 1 << 2,
              kUcmEventMadvise = 1 << 6, kUcmEventVmUnmapped = 1 << 17;

// As the shim's wrappers do for calls outside MPI: complete the transfers on [addr, +len)
// first (not from inside MPI, nor before interception starts or with nothing in flight).
// This waits inside UCX's event read lock, for the progress thread. That cannot deadlock:
// the lock is glibc's default rwlock, which prefers readers, so the progress thread's own
// memory calls (readers too) pass a waiting writer; only adding or removing a UCX event
// handler writes, which UCX does when it creates or destroys a registration cache (in
// MPI_Init and MPI_Finalize, not while transfers are in flight).
void settle_outside_mpi(const void* addr, std::size_t len) {
  Runtime& rt = runtime();
  if (!rt.active || rt.shim->thread_state()->in_mpi > 0 ||
      __atomic_load_n(rt.shim->active, __ATOMIC_ACQUIRE) == 0) {
    return;
  }
  const auto lo = reinterpret_cast<std::uintptr_t>(addr);
  settle(lo, lo + len, true);
}

void on_ucm_vm_unmapped(int /*event_type*/, void* event, void* /*arg*/) {
  const auto* e = static_cast<const UcmVmEvent*>(event);
  settle_outside_mpi(e->address, e->size);
}

// Before the advice takes effect (priority < 0): settle the pages, as the wrapper would.
void on_ucm_madvise(int /*event_type*/, void* event, void* /*arg*/) {
  const auto* e = static_cast<const UcmMadviseEvent*>(event);
  runtime().shim->advised(e->addr, e->length, e->advice);
  settle_outside_mpi(e->addr, e->length);
}

// The shim's records of mappings, as its wrappers keep them: a MAP_FIXED mapping's range
// is forgotten before (priority < 0), the new mapping recorded after (priority >= 0).
void on_ucm_mmap_before(int /*event_type*/, void* event, void* /*arg*/) {
  const auto* e = static_cast<const UcmMmapEvent*>(event);
  if ((e->flags & MAP_FIXED) != 0) runtime().shim->unmapped(e->address, e->size);
}

void on_ucm_mmap(int /*event_type*/, void* event, void* /*arg*/) {
  const auto* e = static_cast<const UcmMmapEvent*>(event);
  if (e->result != MAP_FAILED) runtime().shim->mapped(e->result, e->size, e->flags);
}

// Before it (priority < 0), as the wrapper does.
void on_ucm_munmap(int /*event_type*/, void* event, void* /*arg*/) {
  const auto* e = static_cast<const UcmMunmapEvent*>(event);
  runtime().shim->unmapped(e->address, e->size);
}

void on_ucm_mremap(int /*event_type*/, void* event, void* /*arg*/) {
  const auto* e = static_cast<const UcmMremapEvent*>(event);
  if (e->result != MAP_FAILED) {
    runtime().shim->remapped(e->address, e->old_size, e->result, e->new_size, e->flags);
  }
}

// UCX's hooks landed on the shim's wrappers: the shim mirrors them onto libc's functions
// (hook_mirror.h) and warns where that failed on a node where it matters; the report
// says what was done.
void put_ucx_hooks_in_place() {
  Runtime& rt = runtime();
  ovx_hook_mirror state{};
  rt.shim->mirror_memory_hooks(&state);
  rt.memory_hooks_mirrored = state.mirrored;
  rt.memory_hooks_failure = state.failure;
}

}  // namespace

void follow_ucx_memory_events() {
  using SetHandler = int (*)(int events, int priority, void (*cb)(int, void*, void*), void* arg);
  if (auto set = reinterpret_cast<SetHandler>(dlsym(RTLD_DEFAULT, "ucm_set_event_handler"))) {
    set(kUcmEventVmUnmapped, 0, on_ucm_vm_unmapped, nullptr);
    set(kUcmEventMadvise, -1, on_ucm_madvise, nullptr);
    set(kUcmEventMmap, -1, on_ucm_mmap_before, nullptr);
    set(kUcmEventMmap, 1, on_ucm_mmap, nullptr);
    set(kUcmEventMunmap, -1, on_ucm_munmap, nullptr);
    set(kUcmEventMremap, 1, on_ucm_mremap, nullptr);
  }
  // Registering may have made UCX install its hooks (its first event handler).
  put_ucx_hooks_in_place();
}

}  // namespace overlap::intercept
