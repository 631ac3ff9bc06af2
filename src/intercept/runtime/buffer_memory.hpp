// Which memory a buffer lives in, and whether its first and last pages may be protected.
// Protection works on whole pages, and the pages at a buffer's ends usually hold other
// data too. Protecting another object's bytes is only safe when nothing but the program's
// own code on that very buffer can touch them (MPI, the allocator or a progress thread
// touching a protected page would wait for a transfer only they can move: a deadlock).
// Provably so: an end that is page aligned, or the ends of a heap block glibc took
// straight from mmap() (malloc/new/posix_memalign above the mmap threshold, 128 KiB by
// default): its first page holds only the block's 16-byte header (read by free() and
// realloc(), which settle first) and its last page only the block's slack.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace overlap::intercept {

struct Region {
  std::uintptr_t lo = 0, hi = 0;
  bool readable = false, writable = false, shared = false;
  std::string name;  // path, [heap], [stack], or empty
};

// Lines of /proc/<pid>/maps.
std::vector<Region> parse_maps(std::string_view text);

enum class MemoryKind { private_writable, shared, read_only, stack, unmapped };
std::string_view memory_kind_name(MemoryKind k);

// The kind of [lo, hi) in `regions` (sorted): private_writable only when every byte is in
// readable, writable, private mappings other than [stack].
MemoryKind classify(const std::vector<Region>& regions, std::uintptr_t lo, std::uintptr_t hi);

// Whether [lo, hi) lies inside one private, writable, anonymous mapping of `regions`
// (sorted), as a block glibc took from mmap() does.
bool anonymous_private(const std::vector<Region>& regions, std::uintptr_t lo, std::uintptr_t hi);

// Reads 8 bytes at an address without faulting (nullopt when not readable).
using WordReader = std::function<std::optional<std::uint64_t>(std::uintptr_t)>;
// Whether [lo, hi) lies inside one private, writable, anonymous mapping.
using MappingCheck = std::function<bool(std::uintptr_t, std::uintptr_t)>;

struct Edges {
  bool head_owned = false;  // the first page holds nothing another party may touch
  bool tail_owned = false;  // the last page likewise
  // The glibc block from mmap() the data lies in, page aligned ([0, 0) when none found).
  std::uintptr_t block_lo = 0, block_hi = 0;
};

// For the data [lo, hi): `slack_ok` = the program is not MPI_THREAD_MULTIPLE (another
// thread touching a block's slack beyond the message could otherwise wait on a transfer
// whose completion depends on that thread). A glibc header read before `lo` counts only
// when the block it describes is in an anonymous mapping (`anonymous`): program data
// inside another block that happens to look like a header mostly is not.
Edges classify_edges(std::uintptr_t lo, std::uintptr_t hi, std::size_t page, bool slack_ok,
                     const WordReader& read_word, const MappingCheck& anonymous);

// /proc/self/maps, re-read when a buffer is not inside the snapshot's mappings.
class MemoryRegions {
 public:
  MemoryKind classify(std::uintptr_t lo, std::uintptr_t hi);
  bool anonymous_private(std::uintptr_t lo, std::uintptr_t hi);
  // The shim's count of mapping changes (shim_api.h, map_changes): when it moved since the
  // map was read, the map is read again before the next answer (a shared mapping may sit
  // where private memory was).
  void follow(std::uint64_t changes);

 private:
  void refresh();
  std::vector<Region> regions_;
  std::uint64_t changes_seen_ = 0;
  bool stale_ = false;
};

// Reads a word of this process with process_vm_readv (EFAULT instead of a fault).
std::optional<std::uint64_t> read_own_word(std::uintptr_t address);

}  // namespace overlap::intercept
