// The vocabulary the collective builders share: a Schedule (a TaskGraph builder that takes
// dependency lists and unbounded step tags) and the communication patterns several
// collectives are made of (binomial trees, rings, block partitions).
//
// Hazards are the builders' job: a task that writes a buffer waits for every task still
// reading or writing it, a task that reads waits for the task that produced the data.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <memory_resource>
#include <tuple>
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/deps.hpp"

namespace overlap::collectives {

using progress::Buf;
using progress::TaskId;

// Builds tasks into a TaskGraph. Tags may exceed kTagsPerCollective: they wrap, and every
// send (receive) is ordered after the previous send (receive) to the same peer with the
// same wire tag, so both sides post such messages in the order they were built. Builders
// must therefore build the messages of one rank pair in the same order on both sides.
class Schedule {
 public:
  explicit Schedule(TaskGraph& g) : g_(g), last_on_channel_(g.memory()) {}

  TaskId send(Buf buf, std::size_t bytes, int peer, int tag, const Deps& after = {});
  TaskId recv(Buf buf, std::size_t bytes, int peer, int tag, const Deps& after = {});
  // inout = in (op) inout; `in` and `inout` must not overlap.
  TaskId reduce(Buf in, Buf inout, std::size_t count, progress::ReduceOp op,
                const Deps& after = {});
  TaskId copy(Buf src, Buf dst, std::size_t bytes, const Deps& after = {});
  // Allocated only while a task using it runs (TaskGraph::scratch): reuse one buffer
  // across steps rather than asking for one per step.
  Buf scratch(std::size_t bytes) { return g_.scratch(bytes); }

 private:
  void wait_for(TaskId id, const Deps& after);
  void order_on_channel(TaskId id, bool is_send, int peer, int wire);

  TaskGraph& g_;
  // (is_send, peer, wire tag) -> the last task on it; in the graph's arena.
  std::pmr::map<std::tuple<bool, int, int>, TaskId> last_on_channel_;
};

// `count` units split into `parts` contiguous blocks of nearly equal size (the first
// count % parts blocks one unit larger); a unit is `unit` bytes.
struct Partition {
  std::size_t count = 0;
  int parts = 1;
  std::size_t unit = 1;

  std::size_t first(int block) const;  // first unit of `block`; first(parts) == count
  std::size_t units(int block) const { return first(block + 1) - first(block); }
  std::size_t offset(int block) const { return first(block) * unit; }
  std::size_t bytes(int block) const { return units(block) * unit; }
  // Bytes of the blocks [from, to).
  std::size_t span(int from, int to) const { return offset(to) - offset(from); }
};

// (a mod n) for possibly negative a.
inline int wrap(int a, int n) { return ((a % n) + n) % n; }

// ceil(log2(n)) for n >= 1.
int ceil_log2(int n);
// The largest power of two <= n, for n >= 1.
int floor_pow2(int n);

// The binomial tree over ranks renumbered relative to `root` (rel = rank - root mod size):
// the parent of rel is rel with its lowest set bit cleared, its children are rel + m for the
// powers of two m below that bit, and the subtree under rel is [rel, rel + subtree(rel)).
// So a subtree is a contiguous range of relative ranks, and the root has ceil(log2 size)
// children.
// A binomial tree's children of one rank: at most one per bit of an int, so they are kept
// in place (a std::vector here was a heap allocation per tree-shaped collective).
class TreeChildren {
 public:
  void push_back(int rel_rank) { ranks_[static_cast<std::size_t>(n_++)] = rel_rank; }
  const int* begin() const { return ranks_.data(); }
  const int* end() const { return ranks_.data() + n_; }
  std::reverse_iterator<const int*> rbegin() const { return std::reverse_iterator(end()); }
  std::reverse_iterator<const int*> rend() const { return std::reverse_iterator(begin()); }
  std::size_t size() const { return static_cast<std::size_t>(n_); }
  bool empty() const { return n_ == 0; }
  int operator[](std::size_t i) const { return ranks_[i]; }

 private:
  std::array<int, 32> ranks_{};
  int n_ = 0;
};

struct BinomialTree {
  int size = 1;
  int root = 0;

  int rel(int rank) const { return wrap(rank - root, size); }
  int rank(int rel_rank) const { return (rel_rank + root) % size; }
  int parent(int rel_rank) const { return rel_rank & (rel_rank - 1); }  // for rel_rank > 0
  // Children as relative ranks, smallest subtree first.
  TreeChildren children(int rel_rank) const;
  int subtree(int rel_rank) const;
};

// Scatters relative-ordered blocks down a binomial tree: block k belongs to relative rank k.
// `data` at this rank holds (at the root) or receives the blocks of its own subtree, block
// rel first. The root's blocks must be ready after `ready`. Returns the tasks after which
// this rank's subtree blocks are all in `data`.
Deps binomial_scatter(Schedule& s, const BinomialTree& tree, int rank, Buf data,
                      const Partition& blocks, int tag, const Deps& ready);

// A ring of `size` positions; this rank sits at `pos` between the ranks `left` (pos - 1)
// and `right` (pos + 1).
struct Ring {
  int pos = 0;
  int size = 1;
  int left = 0;
  int right = 0;
};

// Ring allgather of the blocks of `buf` (block b at buf + blocks.offset(b)): in size - 1
// steps each block travels the ring from the position holding it. `holds(pos, b)` says
// whether position pos already has block b (default: b == pos); held blocks are neither
// received nor sent to a holder. before[b]: for a held block, the tasks after which it is
// ready to send; for another, the tasks that must finish before it is overwritten.
// Uses tags tag .. tag + size - 2.
struct RingAllgather {
  Ring ring;
  Buf buf;
  Partition blocks;
  int tag = 0;
  std::vector<Deps> before;
  std::function<bool(int pos, int block)> holds;
};
void ring_allgather(Schedule& s, RingAllgather a);

// Ring reduce-scatter: afterwards `result` holds block `pos` reduced over all positions.
// own + blocks.offset(b) is this rank's contribution to block b (blocks count elements of
// op.elem_size bytes; size >= 2). It is only read, unless `result` aliases own's block pos:
// then the reduction happens there in place. result may be written after `result_ready`.
// Uses tags tag .. tag + size - 2.
struct RingReduceScatter {
  Ring ring;
  Buf own;
  Partition blocks;
  ReduceKernel op;
  Buf result;
  Deps result_ready;
  int tag = 0;
};
struct RingReduceScatterTasks {
  TaskId done = 0;            // result is complete
  std::vector<Deps> readers;  // per block: the tasks that read own's block
};
RingReduceScatterTasks ring_reduce_scatter(Schedule& s, const RingReduceScatter& a);

}  // namespace overlap::collectives
