#include "intercept/runtime/footprint.hpp"

#include <algorithm>

namespace overlap::intercept {

Span typed_span(std::uintptr_t base, std::int64_t count, const TypeExtent& t, bool write) {
  if (count <= 0 || t.true_extent <= 0) return {base, base, write};
  // Element k starts k extents from the first; the extent may be negative.
  const std::int64_t last_offset = t.extent * (count - 1);
  const std::int64_t first = t.true_lb + std::min<std::int64_t>(0, last_offset);
  const std::int64_t end = t.true_lb + std::max<std::int64_t>(0, last_offset) + t.true_extent;
  return {base + static_cast<std::uintptr_t>(first), base + static_cast<std::uintptr_t>(end),
          write};
}

void Footprint::add(const Span& s) {
  if (s.lo < s.hi) spans_.push_back(s);
}

void Footprint::typed(const void* buf, std::int64_t count, MPI_Datatype type, Group g, bool write) {
  if (buf == MPI_IN_PLACE || count <= 0) return;
  const int n = blocks_of(g);
  if (n <= 0) return;
  add(typed_span(reinterpret_cast<std::uintptr_t>(buf), count * n, extent_of_(type), write));
}

void Footprint::bytes(const void* buf, std::int64_t n, bool write) {
  if (buf == MPI_IN_PLACE || n <= 0) return;
  const auto lo = reinterpret_cast<std::uintptr_t>(buf);
  add({lo, lo + static_cast<std::uintptr_t>(n), write});
}

int Footprint::blocks_of(Group g) {
  int n = -1;
  switch (g) {
    case Group::one:
      n = 1;
      break;
    case Group::peers:
      n = comm_.remote_size >= 0 ? comm_.remote_size : comm_.size;
      break;
    case Group::either:
      n = std::max(comm_.size, comm_.remote_size);
      break;
    case Group::in:
      n = comm_.in_degree;
      break;
    case Group::out:
      n = comm_.out_degree;
      break;
  }
  if (n < 0) unknown();
  return n;
}

int Footprint::role(int root) const {
  if (comm_.remote_size < 0) return root == comm_.rank ? kRoot | kMember : kMember;
  if (root == MPI_ROOT) return kRoot;
  if (root == MPI_PROC_NULL) return 0;
  return kMember;
}

}  // namespace overlap::intercept
