// Gather; cost_model.cpp chooses between (linear always for P <= 2):
//  - binomial tree, for small blocks. A rank collects its subtree's blocks (a contiguous
//    range of relative ranks) in scratch, its own first, and sends them on in one message:
//    ceil(log2 P) receives at the root instead of P - 1. A child's range that wraps past
//    rank P - 1 in absolute numbering lands in scratch at the root and is copied in two
//    pieces.
//  - linear, for larger blocks: every rank sends straight to the root, which receives into
//    place; the tree would forward big blocks through up to log2 P hops and copies.
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

// At the root: receives the subtree under relative rank `kid` into place.
void receive_subtree(Schedule& s, std::byte* recv, std::size_t bb, const BinomialTree& tree,
                     int kid) {
  const auto at = [bb](int block) { return static_cast<std::size_t>(block) * bb; };
  const int first = tree.rank(kid);
  const int n = tree.subtree(kid);
  if (first + n <= tree.size) {
    s.recv(recv + at(first), at(n), first, 0);
    return;
  }
  const Buf tmp = s.scratch(at(n));
  const TaskId got = s.recv(tmp, at(n), first, 0);
  const int head = tree.size - first;  // blocks first .. P-1, then 0 .. n-head-1
  s.copy(tmp, recv + at(first), at(head), {got});
  s.copy(tmp + at(head), recv, at(n - head), {got});
}

void binomial_gather(Schedule& s, const std::byte* send, std::byte* recv, std::size_t bb,
                     const BinomialTree& tree, int rank) {
  const int rel = tree.rel(rank);
  const auto kids = tree.children(rel);
  if (rel == 0) {
    if (send != nullptr) s.copy(send, recv + static_cast<std::size_t>(rank) * bb, bb);
    for (int kid : kids) receive_subtree(s, recv, bb, tree, kid);
    return;
  }
  const int parent = tree.rank(tree.parent(rel));
  if (kids.empty()) {
    s.send(send, bb, parent, 0);
    return;
  }
  const auto mine = static_cast<std::size_t>(tree.subtree(rel)) * bb;
  const Buf buf = s.scratch(mine);
  Deps all = {s.copy(send, buf, bb)};
  for (int kid : kids) {
    const auto n = static_cast<std::size_t>(tree.subtree(kid)) * bb;
    all.push_back(s.recv(buf + static_cast<std::size_t>(kid - rel) * bb, n, tree.rank(kid), 0));
  }
  s.send(buf, mine, parent, 0, all);
}

void linear_gather(Schedule& s, const std::byte* send, std::byte* recv, std::size_t bb, int root,
                   Group grp) {
  if (grp.rank != root) {
    s.send(send, bb, root, 0);
    return;
  }
  for (int b = 0; b < grp.size; ++b) {
    std::byte* slot = recv + static_cast<std::size_t>(b) * bb;
    if (b != root) {
      s.recv(slot, bb, b, 0);
    } else if (send != nullptr) {
      s.copy(send, slot, bb);
    }
  }
}

}  // namespace

void build_igather(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes, int root,
                   Group grp, std::optional<RootedAlgorithm> force) {
  if (block_bytes == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (force.value_or(choose_gather(block_bytes, grp.size)) == RootedAlgorithm::linear) {
    linear_gather(s, in, out, block_bytes, root, grp);
  } else {
    binomial_gather(s, in, out, block_bytes, BinomialTree{grp.size, root}, grp.rank);
  }
}

}  // namespace overlap::collectives
