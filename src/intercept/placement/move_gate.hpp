// Whether a deferred receive's pages may be moved into place (placement.hpp), decided when
// the receive starts. A move replaces the program's mapping of the range by the internal
// buffer's, so it is made only where that changes nothing a valid program can tell:
//  - no device may still reach the pages moved away: every registration cache in the
//    process is one that is told of moves (UCX's, Open MPI's), and no library that pins
//    or registers memory otherwise is loaded (unsafe_library);
//  - the range is private anonymous memory of base pages without a name, and it is a
//    whole mmap() the program made (the shim records them) or a whole glibc heap block
//    (which only glibc unmaps and grows): no mapping the program made is split for good
//    (range_verdict);
//  - nothing the program set lives in the mapping: mmap flags beyond the plain ones,
//    madvise advice, mlock, protection keys (the shim records those calls), a NUMA policy
//    (get_mempolicy); and no page of the process is pinned (VmPin), checked again just
//    before the move (recheck).
// The mapping is looked up fresh, with PROCMAP_QUERY (Linux 6.11): a /proc/self/maps
// snapshot can be stale, and reading the file anew costs as much as the copy saved.
// docs/overlap-run.md, "Placing received data".
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "intercept/placement/move_rules.hpp"

namespace overlap::intercept {

// Whether the node has an RDMA device (/sys/class/infiniband: InfiniBand, RoCE, iWARP).
bool rdma_device_present();

// A glibc heap block taken from mmap() (buffer_memory.hpp's classify_edges), or {0, 0}.
struct Block {
  std::uintptr_t lo = 0, hi = 0;
};

// Per process, in the interception core's runtime; init() before the first check().
class MoveGate {
 public:
  // At MPI_Init: whether PROCMAP_QUERY works, the caches' notification functions, the
  // loaded libraries. Stops moving for good (stop_moving) when one of them says so.
  void init();
  // For a receive starting on [lo, hi) (page aligned): nullopt when its pages may be
  // moved into, else why they are copied. Application threads only (it may look at the
  // loaded libraries again, which takes the loader's lock).
  // `block`: the glibc heap block from mmap() the buffer is in, or {0, 0}.
  std::optional<ReceiveCopy> check(std::uintptr_t lo, std::uintptr_t hi, Block block);
  // Just before the move (not in a signal handler): what may have changed since check(),
  // as a program may mark, name, bind or pin the range meanwhile; and pinned pages.
  std::optional<ReceiveCopy> recheck(std::uintptr_t lo, std::uintptr_t hi) const;
  // Tells the registration caches that [addr, addr + len) now holds other pages.
  void announce(void* addr, std::size_t len) const;

 private:
  void check_libraries();
  std::optional<Mapping> query(std::uintptr_t address) const;
  bool policy_set(std::uintptr_t address) const;
  bool pinned_pages() const;

  int maps_fd_ = -1;    // /proc/self/maps, for PROCMAP_QUERY
  int status_fd_ = -1;  // /proc/self/status, for VmPin
  std::size_t page_ = 4096;
  // The loader's count of objects loaded at the last look (application threads race).
  std::atomic<unsigned long long> loads_seen_{0};
  bool rdma_device_ = false;
  void (*ucm_unmapped_)(void*, std::size_t) = nullptr;
  void (*opal_released_)(void*, std::size_t, bool) = nullptr;
};

}  // namespace overlap::intercept
