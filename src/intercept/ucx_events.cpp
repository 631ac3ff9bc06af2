#include "intercept/ucx_events.hpp"

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>

#include "intercept/core_runtime.hpp"
#include "intercept/move_gate.hpp"
#include "intercept/ucx_hook_mirror.hpp"

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

// Devices whose registrations UCX caches across calls: where one exists, a registration
// cache that misses glibc's own unmappings can hand out stale pages.
bool registering_device() {
  return rdma_device_present() || access("/dev/knem", F_OK) == 0 || access("/dev/xpmem", F_OK) == 0;
}

// UCX's hooks landed on the shim's wrappers (ucx_hook_mirror.hpp): mirrored onto libc's
// functions. Where that fails, the report says so, and stderr too where a device UCX
// registers memory with exists (there a stale registration can corrupt data).
void put_ucx_hooks_in_place() {
  Runtime& rt = runtime();
  if (rt.shim->memory_hooks_displaced() == 0) return;
  const HookMirror m = mirror_ucx_hooks();
  rt.memory_hooks_mirrored = m.mirrored;
  if (m.displaced > 0 && m.mirrored == m.displaced && m.failure.empty()) return;
  // (none recognised: the wrappers were patched in a form ucx_hook_mirror.cpp cannot read)
  rt.memory_hooks_failure = m.failure.empty() ? "a patched wrapper was not recognised" : m.failure;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0 && registering_device()) {
    std::fprintf(stderr,
                 "overlap-run: warning: UCX installed its memory hooks on overlap-run's "
                 "wrappers, and they could not be put on libc's (%s): UCX's registration "
                 "cache does not learn of memory glibc unmaps itself, and with the "
                 "RDMA/knem/xpmem device here a later buffer at the same address may be sent "
                 "from or received into stale pages (docs/overlap-run.md, \"UCX's memory "
                 "hooks\").\n",
                 rt.memory_hooks_failure.c_str());
  }
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
