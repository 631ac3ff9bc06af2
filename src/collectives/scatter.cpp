// Scatter; cost_model.cpp chooses between (linear always for P <= 2):
//  - binomial tree, for small blocks. The root sends each child the blocks
//    of its whole subtree (a contiguous range of relative ranks) in one message, so it
//    posts ceil(log2 P) sends instead of P - 1. The root first rotates its blocks into
//    relative order in scratch, so that every subtree range is contiguous.
//  - linear, for larger blocks: the root sends every block straight from the send buffer;
//    the tree would forward big blocks through up to log2 P hops.
#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

void binomial(Schedule& s, const std::byte* send, std::byte* recv, std::size_t bb,
              const BinomialTree& tree, int rank) {
  const auto at = [bb](int block) { return static_cast<std::size_t>(block) * bb; };
  const int p = tree.size;
  const int rel = tree.rel(rank);
  const Partition blocks{static_cast<std::size_t>(p), p, bb};
  if (rel == 0) {
    if (recv != nullptr) s.copy(send + at(rank), recv, bb);
    // Relative block k is rank root + k: rotate so that subtrees are contiguous.
    const Buf data = s.scratch(at(p));
    const Deps rotated = {s.copy(send + at(rank), data, at(p - rank)),
                          s.copy(send, data + at(p - rank), at(rank))};
    binomial_scatter(s, tree, rank, data, blocks, 0, rotated);
    return;
  }
  if (tree.children(rel).empty()) {
    binomial_scatter(s, tree, rank, recv, blocks, 0, {});
    return;
  }
  const Buf data = s.scratch(at(tree.subtree(rel)));
  s.copy(data, recv, bb, binomial_scatter(s, tree, rank, data, blocks, 0, {}));
}

void linear(Schedule& s, const std::byte* send, std::byte* recv, std::size_t bb, int root,
            Group grp) {
  if (grp.rank != root) {
    s.recv(recv, bb, root, 0);
    return;
  }
  for (int b = 0; b < grp.size; ++b) {
    const std::byte* block = send + static_cast<std::size_t>(b) * bb;
    if (b != root) {
      s.send(block, bb, b, 0);
    } else if (recv != nullptr) {
      s.copy(block, recv, bb);
    }
  }
}

}  // namespace

void build_iscatter(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes, int root,
                    Group grp, std::optional<RootedAlgorithm> force) {
  if (block_bytes == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (force.value_or(choose_scatter(block_bytes, grp.size)) == RootedAlgorithm::linear) {
    linear(s, in, out, block_bytes, root, grp);
  } else {
    binomial(s, in, out, block_bytes, BinomialTree{grp.size, root}, grp.rank);
  }
}

}  // namespace overlap::collectives
