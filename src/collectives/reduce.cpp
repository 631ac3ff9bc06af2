// Reduce (all predefined operations are commutative, so any combining order is correct).
//  - Below 512 KiB, or P <= 2, or fewer elements than ranks: binomial tree. A rank posts
//    the receives from all its children at once, each into its own buffer, and folds them
//    in as a chain (every fold writes the same accumulator). Non-root ranks accumulate in
//    scratch: the user's send buffer is never written.
//  - Otherwise: ring reduce-scatter, then every rank sends its reduced 1/P to the root
//    (Rabenseifner's idea with a ring). Each rank sends about bytes, the root receives
//    about 2 * bytes, instead of log2 P full messages at the root of the tree.
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

constexpr std::size_t kReduceScatterGatherBytes = 512 * 1024;

void binomial_reduce(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                     ReduceKernel op, const BinomialTree& tree, int rank) {
  const int rel = tree.rel(rank);
  const std::size_t bytes = count * op.elem_size;
  // Smallest subtree first: its partial result is likely to arrive first.
  const auto kids = tree.children(rel);
  std::vector<std::byte*> tmp;
  Deps got;
  for (int kid : kids) {
    tmp.push_back(s.scratch(bytes));
    got.push_back(s.recv(tmp.back(), bytes, tree.rank(kid), 0));
  }
  if (rel == 0) {
    Deps acc;
    if (send != nullptr) acc = {s.copy(send, recv, bytes)};
    for (std::size_t k = 0; k < tmp.size(); ++k) {
      acc.push_back(got[k]);
      acc = {s.reduce(tmp[k], recv, count, op.fn, acc)};
    }
    return;
  }
  const int parent = tree.rank(tree.parent(rel));
  if (kids.empty()) {
    s.send(send, bytes, parent, 0);
    return;
  }
  // The first child's buffer becomes the accumulator: no copy of the own contribution.
  TaskId acc = s.reduce(send, tmp[0], count, op.fn, {got[0]});
  for (std::size_t k = 1; k < tmp.size(); ++k)
    acc = s.reduce(tmp[k], tmp[0], count, op.fn, {acc, got[k]});
  s.send(tmp[0], bytes, parent, 0, {acc});
}

void reduce_scatter_gather(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                           ReduceKernel op, int root, Group grp) {
  const int p = grp.size;
  const bool in_place = grp.rank == root && send == nullptr;
  RingReduceScatter rs;
  rs.ring = {grp.rank, p, wrap(grp.rank - 1, p), wrap(grp.rank + 1, p)};
  rs.own = in_place ? recv : send;
  rs.blocks = Partition{count, p, op.elem_size};
  rs.op = op;
  const std::size_t mine = rs.blocks.bytes(grp.rank);
  rs.result = grp.rank == root ? recv + rs.blocks.offset(grp.rank) : s.scratch(mine);
  rs.tag = 0;
  const auto tasks = ring_reduce_scatter(s, rs);
  const int tag = p - 1;  // after the ring's tags 0 .. p - 2
  if (grp.rank != root) {
    s.send(rs.result, mine, root, tag, {tasks.done});
    return;
  }
  for (int b = 0; b < p; ++b) {
    if (b == root) continue;
    // In place, block b of recv is this rank's input until the ring has read it.
    const Deps free = in_place ? tasks.readers[static_cast<std::size_t>(b)] : Deps{};
    s.recv(recv + rs.blocks.offset(b), rs.blocks.bytes(b), b, tag, free);
  }
}

}  // namespace

void build_ireduce(TaskGraph& g, const void* send, void* recv, std::size_t count, ReduceKernel op,
                   int root, Group grp) {
  if (count == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (grp.size == 1) {
    if (in != nullptr) s.copy(in, out, count * op.elem_size);
    return;
  }
  const bool large = count * op.elem_size >= kReduceScatterGatherBytes && grp.size > 2 &&
                     count >= static_cast<std::size_t>(grp.size);
  if (large) {
    reduce_scatter_gather(s, in, out, count, op, root, grp);
  } else {
    binomial_reduce(s, in, out, count, op, BinomialTree{grp.size, root}, grp.rank);
  }
}

}  // namespace overlap::collectives
