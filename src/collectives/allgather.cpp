// Allgather; cost_model.cpp chooses between:
//  - Bruck: ceil(log2 P) steps for any P; in step k a rank sends the min(2^k, P - 2^k)
//    blocks it has to rank - 2^k. Blocks are collected in scratch in the order "own rank
//    first", then rotated into place, which costs two local copies of the whole result:
//    cheap next to the latency saved on small messages, or on many ranks.
//  - ring: P - 1 steps that each move one block, received straight into place; chosen
//    when the copies cost more than the P - 1 - log2 P extra latencies (always at P = 2).
#include <utility>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

void bruck_allgather(Schedule& s, const std::byte* send, std::byte* recv, std::size_t bb,
                     Group grp) {
  const int p = grp.size;
  const int r = grp.rank;
  const auto at = [bb](int block) { return static_cast<std::size_t>(block) * bb; };
  // tmp block i holds the block of rank r + i.
  const Buf tmp = s.scratch(at(p));
  Deps have = {s.copy(send != nullptr ? send : recv + at(r), tmp, bb)};
  for (int k = 0, dist = 1; dist < p; ++k, dist *= 2) {
    const int n = dist < p - dist ? dist : p - dist;
    // Receives land behind everything sent so far, so they need not wait for the sends.
    const TaskId got = s.recv(tmp + at(dist), at(n), wrap(r + dist, p), k);
    s.send(tmp, at(n), wrap(r - dist, p), k, have);
    have.push_back(got);
  }
  // Blocks 1 .. p-1-r of tmp are ranks r+1 .. p-1; the rest are ranks 0 .. r-1.
  s.copy(tmp + at(1), recv + at(r + 1), at(p - 1 - r), have);
  s.copy(tmp + at(p - r), recv, at(r), have);
  if (send != nullptr) s.copy(send, recv + at(r), bb);
}

void ring(Schedule& s, const std::byte* send, std::byte* recv, std::size_t bb, Group grp) {
  const int p = grp.size;
  RingAllgather a;
  a.ring = {grp.rank, p, wrap(grp.rank - 1, p), wrap(grp.rank + 1, p)};
  a.buf = recv;
  a.blocks = Partition{static_cast<std::size_t>(p), p, bb};
  a.before.resize(static_cast<std::size_t>(p));
  if (send != nullptr) {
    a.before[static_cast<std::size_t>(grp.rank)] = {
        s.copy(send, Buf(recv) + a.blocks.offset(grp.rank), bb)};
  }
  ring_allgather(s, std::move(a));
}

}  // namespace

void build_iallgather(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes,
                      Group grp, std::optional<AllgatherAlgorithm> force) {
  if (block_bytes == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (grp.size == 1) {
    if (in != nullptr) s.copy(in, out, block_bytes);
  } else if (force.value_or(choose_allgather(block_bytes, grp.size)) == AllgatherAlgorithm::bruck) {
    bruck_allgather(s, in, out, block_bytes, grp);
  } else {
    ring(s, in, out, block_bytes, grp);
  }
}

}  // namespace overlap::collectives
