// Reduce_scatter_block (P blocks of count elements; rank r ends with block r reduced,
// computed on that rank only). cost_model.cpp chooses between:
//  - recursive halving (always for P <= 2). Each of
//    log2 P exchanges hands the partner the half of the remaining blocks it is responsible
//    for and reduces the other half: every rank sends (P - 1) / P of the input in log2 P
//    messages. With P not a power of two, the first 2 * (P - pof2) ranks pair up first:
//    the even one hands all its input to the odd one, which then answers for both ranks'
//    blocks and finally sends the even one its block.
//  - ring reduce-scatter, P - 1 steps of one block each; it never copies the input and
//    needs no fold-in for P not a power of two, where it is chosen for larger blocks.
// Recursive halving reuses one temporary (half the input) for every step.
#include <algorithm>
#include <utility>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

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
  const Buf acc = s.scratch(at(grp.size));
  Deps ready = {s.copy(in, acc, at(grp.size))};
  // One temporary for the fold-in and every halving step (the first keeps a half).
  const bool folds = r < 2 * h.rem;
  const int half_mark = h.first(h.pof2 / 2);
  const Buf tmp =
      s.scratch(folds ? at(grp.size) : std::max(at(half_mark), at(grp.size) - at(half_mark)));
  Deps tmp_free;
  if (folds) {
    ready.push_back(s.recv(tmp, at(grp.size), r - 1, 0));
    ready = {s.reduce(tmp, acc, count * static_cast<std::size_t>(grp.size), op.forward(), ready)};
    tmp_free = ready;
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
    const TaskId got = s.recv(tmp, keep, peer, k + 1, tmp_free);
    // The halves are disjoint: the reduction need not wait for the send.
    s.send(acc + at(h.first(give_lo)), at(h.first(give_hi)) - at(h.first(give_lo)), peer, k + 1,
           ready);
    ready.push_back(got);
    ready = {s.reduce(tmp, acc + at(h.first(lo)), keep / op.elem_size, op.forward(), ready)};
    tmp_free = ready;
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
  rs.result = in_place ? Buf(recv) + rs.blocks.offset(grp.rank) : Buf(recv);
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
                                 ReduceKernel op, Group grp,
                                 std::optional<ReduceScatterAlgorithm> force) {
  if (count == 0) return;
  Schedule s(g);
  auto* out = static_cast<std::byte*>(recv);
  const auto* in = send != nullptr ? static_cast<const std::byte*>(send) : out;
  if (grp.size == 1) {
    s.copy(in, out, count * op.elem_size);
  } else if (force.value_or(choose_reduce_scatter_block(count * op.elem_size, grp.size)) ==
             ReduceScatterAlgorithm::ring) {
    ring(s, in, out, count, op, grp);
  } else {
    recursive_halving(s, in, out, count, op, grp);
  }
}

}  // namespace overlap::collectives
