#include "intercept/runtime/protection_map.hpp"

#include <sys/mman.h>

#include <iterator>
#include <stdexcept>

namespace overlap::intercept {

int ProtectionMap::protection_of(const Counts& c) {
  if (c.no_access > 0) return PROT_NONE;
  if (c.read_only > 0) return PROT_READ;
  return PROT_READ | PROT_WRITE;
}

void ProtectionMap::split_at(std::uintptr_t at) {
  auto it = segments_.upper_bound(at);
  if (it == segments_.begin()) {
    segments_.emplace(at, Counts{});
    return;
  }
  const Counts before = std::prev(it)->second;
  segments_.emplace(at, before);  // no-op when a segment starts there already
}

void ProtectionMap::merge_around(std::uintptr_t lo, std::uintptr_t hi) {
  auto it = segments_.lower_bound(lo);
  if (it != segments_.begin()) --it;
  while (it != segments_.end()) {
    auto next = std::next(it);
    if (next == segments_.end()) break;
    if (next->second == it->second) {
      segments_.erase(next);
      continue;
    }
    if (it->first > hi) break;
    it = next;
  }
  // A leading zero segment carries no information.
  while (!segments_.empty() && segments_.begin()->second == Counts{}) {
    segments_.erase(segments_.begin());
  }
}

std::vector<ProtectionChange> ProtectionMap::update(std::uintptr_t lo, std::uintptr_t hi,
                                                    Guard guard, int delta) {
  if (lo >= hi) throw std::invalid_argument("ProtectionMap: empty range");
  split_at(lo);
  split_at(hi);
  std::vector<ProtectionChange> changes;
  for (auto it = segments_.find(lo); it != segments_.end() && it->first < hi; ++it) {
    const std::uintptr_t end = std::next(it)->first;
    const int before = protection_of(it->second);
    int& count = guard == Guard::read_only ? it->second.read_only : it->second.no_access;
    count += delta;
    if (count < 0) throw std::logic_error("ProtectionMap: remove without add");
    const int after = protection_of(it->second);
    if (before == after) continue;
    if (!changes.empty() && changes.back().hi == it->first && changes.back().prot == after) {
      changes.back().hi = end;
    } else {
      changes.push_back({it->first, end, after});
    }
  }
  merge_around(lo, hi);
  return changes;
}

std::vector<ProtectionChange> ProtectionMap::add(std::uintptr_t lo, std::uintptr_t hi,
                                                 Guard guard) {
  return update(lo, hi, guard, +1);
}

std::vector<ProtectionChange> ProtectionMap::remove(std::uintptr_t lo, std::uintptr_t hi,
                                                    Guard guard) {
  return update(lo, hi, guard, -1);
}

int ProtectionMap::protection_at(std::uintptr_t address) const {
  auto it = segments_.upper_bound(address);
  if (it == segments_.begin()) return PROT_READ | PROT_WRITE;
  return protection_of(std::prev(it)->second);
}

std::size_t ProtectionMap::segment_count() const { return segments_.size(); }

}  // namespace overlap::intercept
