// Allreduce.
//  - Below 256 KiB, or P <= 2, or fewer elements than ranks: recursive doubling, log2 P
//    exchanges of the whole vector. With P not a power of two, the first 2 * (P - pof2)
//    ranks pair up beforehand: the even one hands its vector to the odd one, sits out, and
//    gets the result back at the end.
//  - Otherwise: ring reduce-scatter then ring allgather on blocks of about count / P
//    elements: 2 (P - 1) steps, but each rank sends only about 2 (P - 1) / P of the
//    message instead of log2 P times all of it. (Around 256 KiB the ring's extra latency
//    of ~2P steps is paid back for the P this is used with.)
// In an exchange one partner computes a op b and the other b op a: the same value for a
// commutative op, so all ranks end with bit-identical results.
#include <utility>

#include "collectives/algorithms.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

constexpr std::size_t kRingBytes = 256 * 1024;

void recursive_doubling(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                        ReduceKernel op, Group grp) {
  const std::size_t bytes = count * op.elem_size;
  const int r = grp.rank;
  const int pof2 = floor_pow2(grp.size);
  const int rem = grp.size - pof2;
  const int rounds = ceil_log2(pof2);
  const int back_tag = rounds + 1;  // tags: 0 fold-in, 1..rounds exchanges, then fold-out
  if (r < 2 * rem && r % 2 == 0) {
    // Sits out: the vector goes to r + 1, the result comes back into recv (which, in
    // place, is what the send reads).
    const TaskId gave = s.send(send != nullptr ? send : recv, bytes, r + 1, 0);
    s.recv(recv, bytes, r + 1, back_tag, {gave});
    return;
  }
  Deps acc;  // recv holds the partial result once these finished
  if (send != nullptr) acc = {s.copy(send, recv, bytes)};
  if (r < 2 * rem) {
    std::byte* tmp = s.scratch(bytes);
    acc.push_back(s.recv(tmp, bytes, r - 1, 0));
    acc = {s.reduce(tmp, recv, count, op.fn, acc)};
  }
  const int me = r < 2 * rem ? r / 2 : r - rem;  // rank among the pof2 that exchange
  for (int k = 0; k < rounds; ++k) {
    const int partner = me ^ (1 << k);
    const int peer = partner < rem ? 2 * partner + 1 : partner + rem;
    std::byte* tmp = s.scratch(bytes);
    const TaskId got = s.recv(tmp, bytes, peer, k + 1);
    const TaskId gave = s.send(recv, bytes, peer, k + 1, acc);
    // recv may change only once the partner has the old value.
    acc = {s.reduce(tmp, recv, count, op.fn, {got, gave})};
  }
  if (r < 2 * rem) s.send(recv, bytes, r - 1, back_tag, acc);
}

void ring_allreduce(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                    ReduceKernel op, Group grp) {
  const int p = grp.size;
  const bool in_place = send == nullptr;
  RingReduceScatter rs;
  rs.ring = {grp.rank, p, wrap(grp.rank - 1, p), wrap(grp.rank + 1, p)};
  rs.own = in_place ? recv : send;
  rs.blocks = Partition{count, p, op.elem_size};
  rs.op = op;
  rs.result = recv + rs.blocks.offset(grp.rank);
  rs.tag = 0;
  const auto reduced = ring_reduce_scatter(s, rs);

  RingAllgather ag;
  ag.ring = rs.ring;
  ag.buf = recv;
  ag.blocks = rs.blocks;
  ag.tag = p - 1;  // after the reduce-scatter's tags 0 .. p - 2
  ag.before.resize(static_cast<std::size_t>(p));
  // In place, the other blocks of recv are this rank's input until the ring read them.
  if (in_place) ag.before = reduced.readers;
  ag.before[static_cast<std::size_t>(grp.rank)] = {reduced.done};
  ring_allgather(s, std::move(ag));
}

}  // namespace

void build_iallreduce(TaskGraph& g, const void* send, void* recv, std::size_t count,
                      ReduceKernel op, Group grp) {
  if (count == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (grp.size == 1) {
    if (in != nullptr) s.copy(in, out, count * op.elem_size);
    return;
  }
  const bool large = count * op.elem_size >= kRingBytes && grp.size > 2 &&
                     count >= static_cast<std::size_t>(grp.size);
  if (large) {
    ring_allreduce(s, in, out, count, op, grp);
  } else {
    recursive_doubling(s, in, out, count, op, grp);
  }
}

}  // namespace overlap::collectives
