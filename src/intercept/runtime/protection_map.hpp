// Page protections of buffers in flight, with reference counts: several transfers may
// share pages (two sends of one buffer, neighbouring receive buffers on one page), and a
// page returns to read-write only when the last transfer covering it is done. A page with
// a receive in flight is no-access, one with only sends read-only. Pure bookkeeping:
// add()/remove() return the mprotect() calls that realise the new state (page ranges with
// their new protection, adjacent ranges merged); the caller makes them.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace overlap::intercept {

enum class Guard { read_only, no_access };  // a send's pages, a receive's pages

// Protections as mprotect takes them (PROT_NONE, PROT_READ, PROT_READ | PROT_WRITE).
struct ProtectionChange {
  std::uintptr_t lo = 0, hi = 0;  // [lo, hi), page aligned
  int prot = 0;
  bool operator==(const ProtectionChange&) const = default;
};

class ProtectionMap {
 public:
  // [lo, hi) must be page aligned and non-empty.
  std::vector<ProtectionChange> add(std::uintptr_t lo, std::uintptr_t hi, Guard guard);
  // Undoes one add() of the same range and guard.
  std::vector<ProtectionChange> remove(std::uintptr_t lo, std::uintptr_t hi, Guard guard);
  // The protection the map wants at `address` (PROT_READ | PROT_WRITE where it has none).
  int protection_at(std::uintptr_t address) const;
  bool empty() const { return segments_.empty(); }
  // Segments kept (for tests: adjacent equal segments are merged).
  std::size_t segment_count() const;

 private:
  struct Counts {
    int read_only = 0;
    int no_access = 0;
    bool operator==(const Counts&) const = default;
  };
  static int protection_of(const Counts& c);
  std::vector<ProtectionChange> update(std::uintptr_t lo, std::uintptr_t hi, Guard guard,
                                       int delta);
  void split_at(std::uintptr_t at);
  void merge_around(std::uintptr_t lo, std::uintptr_t hi);

  // Segment starts -> counts, each valid up to the next key; the last key always has
  // zero counts (the end of the last protected range).
  std::map<std::uintptr_t, Counts> segments_;
};

}  // namespace overlap::intercept
