// Reduce_scatter_block (P blocks of count elements; rank r ends with block r reduced).
//  - Below 256 KiB in total (P * count elements), or P <= 2: recursive halving. Each of
//    log2 P exchanges hands the partner the half of the remaining blocks it is responsible
//    for and reduces the other half: every rank sends (P - 1) / P of the input in log2 P
//    messages. With P not a power of two, the first 2 * (P - pof2) ranks pair up first:
//    the even one hands all its input to the odd one, which then answers for both ranks'
//    blocks and finally sends the even one its block.
//  - Otherwise: ring reduce-scatter, P - 1 steps of one block each; it never copies the
//    input and needs no fold-in for odd P.
#include <utility>

#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

constexpr std::size_t kRingBytes = 256 * 1024;

// Recursive halving runs among pof2 "virtual" ranks; virtual rank v answers for the blocks
// [first(v), first(v + 1)): two blocks for a pair folded together, else one.
struct Halving {
  int size, pof2, rem;
  int first(int v) const { return v < rem ? 2 * v : v + rem; }
  int rank(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
};

void recursive_halving(Schedule& s, const std::byte* in, std::byte* recv, std::size_t count,
                       ReduceKernel op, Group grp) {
  const int r = grp.rank;
  const Halving h{grp.size, floor_pow2(grp.size), grp.size - floor_pow2(grp.size)};
  const std::size_t bb = count * op.elem_size;
  const auto at = [bb](int block) { return static_cast<std::size_t>(block) * bb; };
  const int rounds = ceil_log2(h.pof2);
  const int back_tag = rounds + 1;  // tags: 0 fold-in, 1..rounds halving, then fold-out
  if (r < 2 * h.rem && r % 2 == 0) {
    const TaskId gave = s.send(in, at(grp.size), r + 1, 0);
    s.recv(recv, bb, r + 1, back_tag, {gave});  // in place, recv is what the send reads
    return;
  }
  std::byte* acc = s.scratch(at(grp.size));
  Deps ready = {s.copy(in, acc, at(grp.size))};
  if (r < 2 * h.rem) {
    std::byte* tmp = s.scratch(at(grp.size));
    ready.push_back(s.recv(tmp, at(grp.size), r - 1, 0));
    ready = {s.reduce(tmp, acc, count * static_cast<std::size_t>(grp.size), op.fn, ready)};
  }
  const int me = r < 2 * h.rem ? r / 2 : r - h.rem;
  int lo = 0, hi = h.pof2;  // virtual ranks whose blocks this rank still reduces
  for (int k = 0, half = h.pof2 / 2; half > 0; ++k, half /= 2) {
    const int mid = lo + half;
    const bool lower = me < mid;
    const int give_lo = lower ? mid : lo, give_hi = lower ? hi : mid;
    lo = lower ? lo : mid;
    hi = lower ? mid : hi;
    const int peer = h.rank(me ^ half);
    const std::size_t keep = at(h.first(hi)) - at(h.first(lo));
    std::byte* tmp = s.scratch(keep);
    const TaskId got = s.recv(tmp, keep, peer, k + 1);
    // The halves are disjoint: the reduction need not wait for the send.
    s.send(acc + at(h.first(give_lo)), at(h.first(give_hi)) - at(h.first(give_lo)), peer, k + 1,
           ready);
    ready.push_back(got);
    ready = {s.reduce(tmp, acc + at(h.first(lo)), keep / op.elem_size, op.fn, ready)};
  }
  if (r < 2 * h.rem) s.send(acc + at(r - 1), bb, r - 1, back_tag, ready);
  s.copy(acc + at(r), recv, bb, ready);
}

void ring(Schedule& s, const std::byte* in, std::byte* recv, std::size_t count, ReduceKernel op,
          Group grp) {
  const int p = grp.size;
  RingReduceScatter rs;
  rs.ring = {grp.rank, p, wrap(grp.rank - 1, p), wrap(grp.rank + 1, p)};
  rs.own = in;
  rs.blocks = Partition{count * static_cast<std::size_t>(p), p, op.elem_size};
  rs.op = op;
  // In place the block is reduced where it lies and then moved to the front of recv.
  const bool in_place = in == recv;
  rs.result = in_place ? recv + rs.blocks.offset(grp.rank) : recv;
  rs.tag = 0;
  const auto tasks = ring_reduce_scatter(s, rs);
  if (in_place && grp.rank != 0) {
    Deps after = tasks.readers[0];
    after.push_back(tasks.done);
    s.copy(rs.result, recv, rs.blocks.bytes(grp.rank), after);
  }
}

}  // namespace

void build_ireduce_scatter_block(TaskGraph& g, const void* send, void* recv, std::size_t count,
                                 ReduceKernel op, Group grp) {
  if (count == 0) return;
  Schedule s(g);
  auto* out = static_cast<std::byte*>(recv);
  const auto* in = send != nullptr ? static_cast<const std::byte*>(send) : out;
  if (grp.size == 1) {
    s.copy(in, out, count * op.elem_size);
  } else if (count * op.elem_size * static_cast<std::size_t>(grp.size) >= kRingBytes &&
             grp.size > 2) {
    ring(s, in, out, count, op, grp);
  } else {
    recursive_halving(s, in, out, count, op, grp);
  }
}

}  // namespace overlap::collectives
