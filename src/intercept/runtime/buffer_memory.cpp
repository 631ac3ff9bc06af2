#include "intercept/runtime/buffer_memory.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace overlap::intercept {

std::vector<Region> parse_maps(std::string_view text) {
  std::vector<Region> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    // "lo-hi perms offset dev inode   name"
    const std::size_t dash = line.find('-');
    const std::size_t sp = line.find(' ');
    if (dash == std::string_view::npos || sp == std::string_view::npos || dash > sp ||
        sp + 5 > line.size())
      continue;
    Region r;
    std::from_chars(line.data(), line.data() + dash, r.lo, 16);
    std::from_chars(line.data() + dash + 1, line.data() + sp, r.hi, 16);
    const std::string_view perms = line.substr(sp + 1, 4);
    r.readable = perms[0] == 'r';
    r.writable = perms[1] == 'w';
    r.shared = perms[3] == 's';
    // The name starts after the fifth field.
    std::size_t field = sp + 1;
    for (int i = 0; i < 4 && field != std::string_view::npos; ++i) {
      field = line.find(' ', field);
      if (field != std::string_view::npos) field = line.find_first_not_of(' ', field);
    }
    if (field != std::string_view::npos) r.name = std::string(line.substr(field));
    if (r.lo < r.hi) out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const Region& a, const Region& b) { return a.lo < b.lo; });
  return out;
}

std::string_view memory_kind_name(MemoryKind k) {
  switch (k) {
    case MemoryKind::private_writable:
      return "private_writable";
    case MemoryKind::shared:
      return "shared";
    case MemoryKind::read_only:
      return "read_only";
    case MemoryKind::stack:
      return "stack";
    case MemoryKind::unmapped:
      return "unmapped";
  }
  return "?";
}

MemoryKind classify(const std::vector<Region>& regions, std::uintptr_t lo, std::uintptr_t hi) {
  auto it = std::upper_bound(regions.begin(), regions.end(), lo,
                             [](std::uintptr_t a, const Region& r) { return a < r.lo; });
  if (it == regions.begin()) return MemoryKind::unmapped;
  --it;
  std::uintptr_t at = lo;
  for (; it != regions.end() && at < hi; ++it) {
    if (it->lo > at || it->hi <= at) return MemoryKind::unmapped;
    if (it->name == "[stack]") return MemoryKind::stack;
    if (it->shared) return MemoryKind::shared;
    if (!it->readable || !it->writable) return MemoryKind::read_only;
    at = it->hi;
  }
  return at >= hi ? MemoryKind::private_writable : MemoryKind::unmapped;
}

bool anonymous_private(const std::vector<Region>& regions, std::uintptr_t lo, std::uintptr_t hi) {
  auto it = std::upper_bound(regions.begin(), regions.end(), lo,
                             [](std::uintptr_t a, const Region& r) { return a < r.lo; });
  if (it == regions.begin()) return false;
  --it;
  return it->lo <= lo && hi <= it->hi && it->name.empty() && !it->shared && it->readable &&
         it->writable;
}

namespace {

constexpr std::uint64_t kPrevInUse = 0x1, kIsMmapped = 0x2, kNonMainArena = 0x4, kFlags = 0x7;

struct MappedBlock {
  std::uintptr_t lo = 0, hi = 0;  // the mapping, page aligned at both ends
};

// A glibc block from mmap() starting at lo: at lo - 16 its header {prev_size = lead bytes
// before the block, size | IS_MMAPPED}; the mapping [lo - 16 - lead, +lead + size) is
// page aligned at both ends and holds this block only. nullopt when the words before lo
// do not read as such a header.
std::optional<MappedBlock> mapped_block(std::uintptr_t lo, std::size_t page,
                                        const WordReader& read_word) {
  if (lo < 16) return std::nullopt;
  const auto lead = read_word(lo - 16);
  const auto size_field = read_word(lo - 8);
  if (!lead || !size_field) return std::nullopt;
  if ((*size_field & kIsMmapped) == 0 || (*size_field & kNonMainArena) != 0) return std::nullopt;
  const std::uint64_t size = *size_field & ~kFlags;
  if (*lead > lo - 16 || size < 32) return std::nullopt;
  const std::uintptr_t base = lo - 16 - *lead;
  const std::uint64_t mapped = *lead + size;
  if (base % page != 0 || mapped % page != 0) return std::nullopt;
  return MappedBlock{base, base + mapped};
}

// When lo starts a block glibc handed out and still counts in use, the end of the memory
// that block gives the program; nullopt when the words before lo do not read as a header.
std::optional<std::uintptr_t> block_end(std::uintptr_t lo, std::size_t page,
                                        const WordReader& read_word) {
  if (const auto mapped = mapped_block(lo, page, read_word)) return mapped->hi;
  if (lo < 16) return std::nullopt;
  const auto size_field = read_word(lo - 8);
  if (!size_field || (*size_field & kIsMmapped) != 0) return std::nullopt;
  const std::uintptr_t chunk = lo - 16;
  const std::uint64_t size = *size_field & ~kFlags;
  if (size < 32 || size % 16 != 0 || size > UINTPTR_MAX - chunk) return std::nullopt;
  // An arena's block: the next block's header says this one is in use. Its data runs on
  // over the next block's first word (prev_size, unused while this one is in use).
  const auto next_size = read_word(chunk + size + 8);
  if (!next_size || (*next_size & kPrevInUse) == 0) return std::nullopt;
  return chunk + size + 8;
}

}  // namespace

Edges classify_edges(std::uintptr_t lo, std::uintptr_t hi, std::size_t page, bool slack_ok,
                     const WordReader& read_word, const MappingCheck& anonymous) {
  Edges e;
  e.head_owned = lo % page == 0;
  e.tail_owned = hi % page == 0;
  if (e.head_owned && e.tail_owned) {
    // A receive's count may run past the block the program allocated (MPI writes only the
    // message): when a glibc block starts at lo and ends before hi, the pages past it hold
    // other blocks (MPI's own among them), however aligned the ends are.
    const auto end = block_end(lo, page, read_word);
    if (end && *end < hi) e.tail_owned = false;
    return e;
  }
  const auto block = mapped_block(lo, page, read_word);
  if (!block || block->hi < hi || !anonymous(block->lo, block->hi)) return e;
  e.head_owned = true;
  if (!e.tail_owned) e.tail_owned = slack_ok;
  e.block_lo = block->lo;
  e.block_hi = block->hi;
  return e;
}

void MemoryRegions::follow(std::uint64_t changes) {
  if (changes == changes_seen_) return;
  changes_seen_ = changes;
  stale_ = true;
}

MemoryKind MemoryRegions::classify(std::uintptr_t lo, std::uintptr_t hi) {
  if (stale_) refresh();
  MemoryKind k = intercept::classify(regions_, lo, hi);
  if (k == MemoryKind::unmapped || regions_.empty()) {
    refresh();
    k = intercept::classify(regions_, lo, hi);
  }
  return k;
}

bool MemoryRegions::anonymous_private(std::uintptr_t lo, std::uintptr_t hi) {
  if (stale_) refresh();
  if (intercept::anonymous_private(regions_, lo, hi)) return true;
  refresh();
  return intercept::anonymous_private(regions_, lo, hi);
}

void MemoryRegions::refresh() {
  std::ifstream in("/proc/self/maps");
  std::stringstream text;
  text << in.rdbuf();
  regions_ = parse_maps(text.str());
  stale_ = false;
}

std::optional<std::uint64_t> read_own_word(std::uintptr_t address) {
  std::uint64_t value = 0;
  iovec local{&value, sizeof value};
  iovec remote{reinterpret_cast<void*>(address), sizeof value};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(sizeof value)) {
    return std::nullopt;
  }
  return value;
}

}  // namespace overlap::intercept
