// Broadcast; cost_model.cpp chooses between:
//  - binomial tree (ceil(log2 P) sends at the root). With P > 2 the message travels in
//    segments of about 64 KiB, so a rank forwards a segment as soon as it arrived instead
//    of waiting for the whole message. Always for P <= 2; otherwise for small messages
//    and for large P, where the ring below would pay P - 1 latencies.
//  - scatter + ring allgather (van de Geijn). The binomial scatter hands every rank its
//    1/P of the buffer, then a ring allgather completes it: each rank sends about
//    2 * bytes instead of up to log2 P * bytes at the root. Ranks that already hold a
//    block after the scatter (the subtree under them) neither receive it again nor are
//    sent it.
#include <algorithm>
#include <utility>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

void binomial_bcast(Schedule& s, std::byte* buf, std::size_t bytes, const BinomialTree& tree,
                    int rank) {
  const int rel = tree.rel(rank);
  // Segments pay off only when someone forwards, i.e. with P > 2.
  const std::size_t segments = bcast_segments(bytes, tree.size);
  const Partition seg{bytes, static_cast<int>(segments), 1};
  const auto kids = tree.children(rel);
  for (int i = 0; i < seg.parts; ++i) {
    const Buf part = Buf(buf) + seg.offset(i);
    Deps have;
    if (rel != 0) have = {s.recv(part, seg.bytes(i), tree.rank(tree.parent(rel)), i)};
    // Largest subtree first: it has the longest way still to go.
    for (auto it = kids.rbegin(); it != kids.rend(); ++it)
      s.send(part, seg.bytes(i), tree.rank(*it), i, have);
  }
}

void scatter_allgather_bcast(Schedule& s, std::byte* buf, std::size_t bytes,
                             const BinomialTree& tree, int rank) {
  const int p = tree.size;
  const int rel = tree.rel(rank);
  // Block k belongs to relative rank k, so a subtree's blocks are contiguous in buf.
  const Partition blocks{bytes, p, 1};
  const Deps scattered =
      binomial_scatter(s, tree, rank, Buf(buf) + blocks.offset(rel), blocks, 0, {});
  RingAllgather a;
  a.ring = {rel, p, tree.rank(wrap(rel - 1, p)), tree.rank(wrap(rel + 1, p))};
  a.buf = buf;
  a.blocks = blocks;
  a.tag = 1;
  a.holds = [tree](int pos, int block) { return block >= pos && block < pos + tree.subtree(pos); };
  // Held blocks are ready once scattered; the others are written by the ring alone.
  a.before.resize(static_cast<std::size_t>(p));
  for (int b = rel; b < rel + tree.subtree(rel); ++b)
    a.before[static_cast<std::size_t>(b)] = scattered;
  ring_allgather(s, std::move(a));
}

}  // namespace

void build_ibcast(TaskGraph& g, void* buf, std::size_t bytes, int root, Group grp,
                  std::optional<BcastAlgorithm> force) {
  if (grp.size == 1 || bytes == 0) return;
  Schedule s(g);
  const BinomialTree tree{grp.size, root};
  auto* data = static_cast<std::byte*>(buf);
  if (force.value_or(choose_bcast(bytes, grp.size)) == BcastAlgorithm::scatter_allgather) {
    scatter_allgather_bcast(s, data, bytes, tree, grp.rank);
  } else {
    binomial_bcast(s, data, bytes, tree, grp.rank);
  }
}

}  // namespace overlap::collectives
