// Reduce (all predefined operations are commutative, so any combining order is correct;
// the result exists on one rank only, so no two ranks can disagree). cost_model.cpp
// chooses between:
//  - binomial tree (always for P <= 2 or fewer elements than ranks). A rank receives
//    from its children into two alternating buffers (the receive from child k waits for
//    the fold of child k - 2) and folds them in as a chain into one accumulator. Non-root
//    ranks accumulate in scratch: the user's send buffer is never written.
//  - ring reduce-scatter, then every rank sends its reduced 1/P to the root
//    (Rabenseifner's idea with a ring). Each rank sends about bytes, the root receives
//    about 2 * bytes, instead of log2 P full messages at the root of the tree.
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

void binomial_reduce(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                     ReduceKernel op, const BinomialTree& tree, int rank) {
  const int rel = tree.rel(rank);
  const std::size_t bytes = count * op.elem_size;
  // Smallest subtree first: its partial result is likely to arrive first.
  const auto kids = tree.children(rel);
  if (rel != 0 && kids.empty()) {
    s.send(send, bytes, tree.rank(tree.parent(rel)), 0);
    return;
  }
  // The accumulator: recv at the root, else scratch that the first child's data lands in
  // (no copy of the own contribution needed).
  Deps acc;
  Buf into = recv;
  std::size_t first = 0;
  if (rel == 0) {
    if (send != nullptr) acc = {s.copy(send, recv, bytes)};
  } else {
    into = s.scratch(bytes);
    const TaskId got = s.recv(into, bytes, tree.rank(kids[0]), 0);
    acc = {s.reduce(send, into, count, op.forward(), {got})};
    first = 1;
  }
  const Buf slots[2] = {s.scratch(bytes), s.scratch(bytes)};
  std::vector<TaskId> folds;
  for (std::size_t k = first; k < kids.size(); ++k) {
    const std::size_t n = k - first;
    Deps slot_free;
    if (n >= 2) slot_free = {folds[n - 2]};
    const TaskId got = s.recv(slots[n % 2], bytes, tree.rank(kids[k]), 0, slot_free);
    acc.push_back(got);
    folds.push_back(s.reduce(slots[n % 2], into, count, op.forward(), acc));
    acc = {folds.back()};
  }
  if (rel != 0) s.send(into, bytes, tree.rank(tree.parent(rel)), 0, acc);
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
  rs.result = grp.rank == root ? Buf(recv) + rs.blocks.offset(grp.rank) : s.scratch(mine);
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
    s.recv(Buf(recv) + rs.blocks.offset(b), rs.blocks.bytes(b), b, tag, free);
  }
}

}  // namespace

void build_ireduce(TaskGraph& g, const void* send, void* recv, std::size_t count, ReduceKernel op,
                   int root, Group grp, std::optional<ReduceAlgorithm> force) {
  if (count == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (grp.size == 1) {
    if (in != nullptr) s.copy(in, out, count * op.elem_size);
    return;
  }
  if (force.value_or(choose_reduce(count * op.elem_size, count, grp.size)) ==
      ReduceAlgorithm::reduce_scatter_gather) {
    reduce_scatter_gather(s, in, out, count, op, root, grp);
  } else {
    binomial_reduce(s, in, out, count, op, BinomialTree{grp.size, root}, grp.rank);
  }
}

}  // namespace overlap::collectives
