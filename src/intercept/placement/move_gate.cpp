#include "intercept/placement/move_gate.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "intercept/placement/placement.hpp"
#include "intercept/runtime/core_runtime.hpp"

namespace overlap::intercept {

namespace {

// PROCMAP_QUERY (linux/fs.h, Linux 6.11); defined here for older headers.
struct ProcmapQuery {
  std::uint64_t size, query_flags, query_addr;
  std::uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
  std::uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
  std::uint64_t vma_name_addr, build_id_addr;
};
static_assert(sizeof(ProcmapQuery) == 104);
constexpr unsigned long kProcmapQuery = 0xC0686611;  // _IOWR('f', 17, struct procmap_query)
constexpr std::uint64_t kVmaShared = 0x08;

}  // namespace

bool rdma_device_present() {
  DIR* d = opendir("/sys/class/infiniband");
  if (d == nullptr) return false;
  bool any = false;
  while (dirent* e = readdir(d)) {
    if (e->d_name[0] != '.') any = true;
  }
  closedir(d);
  return any;
}

namespace {

// A symbol of a loaded object whose path contains `name`, also one loaded into a local
// scope that dlsym(RTLD_DEFAULT) would not search. found = whether such an object is
// loaded at all.
void* loaded_symbol(const char* name, const char* symbol, bool& found) {
  struct Search {
    const char* name;
    std::string path;
  } search{name, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (info->dlpi_name != nullptr &&
            std::string_view(info->dlpi_name).find(s->name) != std::string_view::npos) {
          s->path = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &search);
  found = !search.path.empty();
  if (!found) return nullptr;
  void* handle = dlopen(search.path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return nullptr;
  void* f = dlsym(handle, symbol);
  dlclose(handle);  // NOLOAD took a reference; the object stays loaded
  return f;
}

}  // namespace

void MoveGate::init() {
  page_ = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  maps_fd_ = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  status_fd_ = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (maps_fd_ < 0 || !query(reinterpret_cast<std::uintptr_t>(&maps_fd_))) {
    stop_moving(CopyReason::no_query);
  }
  rdma_device_ = rdma_device_present();
  // What the hooks of UCX and Open MPI on munmap()/mremap() would tell their caches is told
  // by announce(): the moves are raw system calls (UCX's mremap hook drops MREMAP_FIXED's
  // target). Looked up now: dlsym is not async-signal-safe.
  bool ucm = false, opal = false;
  ucm_unmapped_ = reinterpret_cast<void (*)(void*, std::size_t)>(
      loaded_symbol("libucm.so", "ucm_vm_munmap", ucm));
  opal_released_ = reinterpret_cast<void (*)(void*, std::size_t, bool)>(
      loaded_symbol("libopen-pal.so", "opal_mem_hooks_release_hook", opal));
  if (ucm && ucm_unmapped_ == nullptr)
    stop_moving(CopyReason::library, "libucm (no ucm_vm_munmap)");
  if (opal && opal_released_ == nullptr) {
    stop_moving(CopyReason::library, "libopen-pal (no opal_mem_hooks_release_hook)");
  }
  check_libraries();
}

void MoveGate::check_libraries() {
  struct Scan {
    const MoveGate* gate;
    bool first = true;
    unsigned long long adds = 0;  // 0: the loader keeps no count
    std::string_view unsafe;
  } scan{this, true, 0, {}};
  // The loader counts the objects it loaded: the names are looked at again only when that
  // count moved (a library dlopen()ed after MPI_Init, UCX's transports loaded late). The
  // count seen is stored after the look, so that a thread racing this one looks too.
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t size, void* data) {
        auto* s = static_cast<Scan*>(data);
        if (s->first) {
          s->first = false;
          if (size >= offsetof(dl_phdr_info, dlpi_subs)) {
            s->adds = info->dlpi_adds;
            if (s->adds == s->gate->loads_seen_.load()) return 1;
          }
        }
        if (info->dlpi_name != nullptr && s->unsafe.empty()) {
          s->unsafe = unsafe_library(info->dlpi_name, s->gate->rdma_device_);
        }
        return 0;
      },
      &scan);
  if (!scan.unsafe.empty()) {
    stop_moving(CopyReason::library, scan.unsafe.data());  // a NUL-terminated literal
  }
  if (scan.adds != 0) loads_seen_.store(scan.adds);
}

std::optional<Mapping> MoveGate::query(std::uintptr_t address) const {
  ProcmapQuery q{};
  q.size = sizeof q;
  q.query_addr = address;
  char name = 0;  // a one-byte name buffer: any name overflows it (ENAMETOOLONG)
  q.vma_name_addr = reinterpret_cast<std::uint64_t>(&name);
  q.vma_name_size = 1;
  if (ioctl(maps_fd_, kProcmapQuery, &q) != 0) {
    if (errno == ENAMETOOLONG) return Mapping{address, address + 1, false, false, true, page_};
    return std::nullopt;
  }
  Mapping m;
  m.lo = q.vma_start;
  m.hi = q.vma_end;
  m.shared = (q.vma_flags & kVmaShared) != 0;
  m.file = q.inode != 0;
  m.named = q.vma_name_size > 1;
  m.page = q.vma_page_size;
  return m;
}

std::optional<ReceiveCopy> MoveGate::check(std::uintptr_t lo, std::uintptr_t hi, Block block) {
  Runtime& rt = runtime();
  if (hi - lo < kMoveMinBytes) return ReceiveCopy::small;
  if (rt.copy_reason.load() != CopyReason::none) return ReceiveCopy::stopped;
  check_libraries();
  if (rt.copy_reason.load() != CopyReason::none) return ReceiveCopy::stopped;
  if (rt.shim->marked(lo, hi) != 0) return ReceiveCopy::attributes;
  const bool known_whole = (lo == block.lo && hi == block.hi) || rt.shim->mapped_whole(lo, hi);
  const std::optional<Mapping> m = query(lo);
  if (!m) return ReceiveCopy::not_anonymous;
  if (auto why = range_verdict(*m, lo, hi, known_whole, page_)) return why;
  return policy_set(lo) ? std::optional(ReceiveCopy::attributes) : std::nullopt;
}

std::optional<ReceiveCopy> MoveGate::recheck(std::uintptr_t lo, std::uintptr_t hi) const {
  if (runtime().shim->marked(lo, hi) != 0) return ReceiveCopy::attributes;
  const std::optional<Mapping> m = query(lo);
  if (!m || m->shared || m->file || m->named || m->page != page_ || hi > m->hi) {
    return ReceiveCopy::not_anonymous;  // e.g. named with prctl(PR_SET_VMA) meanwhile
  }
  if (policy_set(lo)) return ReceiveCopy::attributes;
  if (pinned_pages()) return ReceiveCopy::pinned;
  return std::nullopt;
}

// A NUMA policy set on the mapping (mbind) would not go with the pages moved in.
bool MoveGate::policy_set(std::uintptr_t lo) const {
  constexpr unsigned long kMpolFAddr = 1u << 1;
  int mode = 0;
  if (syscall(SYS_get_mempolicy, &mode, nullptr, 0, reinterpret_cast<void*>(lo), kMpolFAddr) == 0) {
    return mode != 0;  // MPOL_DEFAULT
  }
  return errno != ENOSYS;  // ENOSYS: a kernel without NUMA, so without policies
}

// Pages pinned for a device or the kernel (io_uring fixed buffers, verbs, VFIO) stay
// pinned when their mapping moves away: whoever pinned them would then read or write the
// next internal buffer. The kernel counts them per process (VmPin), whoever pinned them
// (a library loaded under another name, a static build, a raw system call).
bool MoveGate::pinned_pages() const {
  char text[4096];
  const ssize_t n = status_fd_ < 0 ? -1 : pread(status_fd_, text, sizeof text - 1, 0);
  if (n <= 0) return true;
  text[n] = '\0';
  const char* at = std::strstr(text, "\nVmPin:");
  if (at == nullptr) return true;  // not counted (before Linux 3.2): nothing known
  return std::strtoull(at + 7, nullptr, 10) != 0;
}

void MoveGate::announce(void* addr, std::size_t len) const {
  if (ucm_unmapped_ != nullptr) ucm_unmapped_(addr, len);
  if (opal_released_ != nullptr) opal_released_(addr, len, false);
}

}  // namespace overlap::intercept
