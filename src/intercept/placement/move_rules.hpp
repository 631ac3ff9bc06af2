// The rules of move_gate.hpp that need no process: whether a range of a mapping may be
// moved into, and which loaded libraries rule moving out. Pure, unit-tested.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "intercept/placement/placement_reason.hpp"

namespace overlap::intercept {

// One mapping, as PROCMAP_QUERY reports it.
struct Mapping {
  std::uintptr_t lo = 0, hi = 0;
  bool shared = false;
  bool file = false;     // backed by a file (inode != 0)
  bool named = false;    // [heap], [stack], [anon:...], ...
  std::size_t page = 0;  // its page size
};

// Whether [lo, hi) (page aligned) may be moved into: nullopt, else why not. It must lie in
// the one mapping `m` (as the kernel shows it, which may have merged neighbours or been
// split by mprotect) and be `known_whole`: a whole mmap() the program made, or a whole
// glibc heap block from mmap(). A moved range becomes a mapping of its own for good, so
// it may only be one the program (or glibc) made as such.
std::optional<ReceiveCopy> range_verdict(const Mapping& m, std::uintptr_t lo, std::uintptr_t hi,
                                         bool known_whole, std::size_t base_page);

// For a loaded object's path: the library, if it may hold registrations nobody tells of
// moves (RDMA libraries only when `rdma_device`: without a device they register nothing).
// Empty when harmless.
std::string_view unsafe_library(std::string_view path, bool rdma_device);

}  // namespace overlap::intercept
