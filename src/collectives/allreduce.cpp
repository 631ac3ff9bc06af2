// Allreduce; cost_model.cpp chooses among (all three give every rank the same bits):
//  - recursive doubling: log2 P exchanges of the whole vector (latency-optimal). Both
//    partners of an exchange compute the same value, each putting the lower rank's operand
//    first, so NaNs, signed zeros and MAXLOC ties come out identical on every rank.
//  - Rabenseifner: a reduce-scatter by recursive halving (each exchange hands the partner
//    half of the remaining blocks and reduces the other half), then an allgather by
//    recursive doubling: 2 log2 P steps, each rank sends about 2 (P - 1) / P of the vector.
//  - ring: ring reduce-scatter then ring allgather on blocks of about count / P elements,
//    2 (P - 1) steps between neighbours only; chosen when blocks are large.
// With P not a power of two, recursive doubling and Rabenseifner first fold the first
// 2 * (P - pof2) ranks in pairs: the even one hands its vector to the odd one, sits out,
// and gets the result back at the end. Each result block is computed once in the other
// two algorithms, so all ranks agree on it anyway.
// Scratch: one temporary vector (recursive doubling) or half a vector (Rabenseifner),
// reused by every step.
#include <utility>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

// The ranks taking part after the fold: virtual rank v is real rank peer(v).
struct Folded {
  int rank, size, pof2, rem;
  bool sits_out() const { return rank < 2 * rem && rank % 2 == 0; }
  bool folds_in() const { return rank < 2 * rem && rank % 2 == 1; }
  int me() const { return rank < 2 * rem ? rank / 2 : rank - rem; }
  int peer(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
};

Folded fold_of(Group grp) {
  const int pof2 = floor_pow2(grp.size);
  return {grp.rank, grp.size, pof2, grp.size - pof2};
}

// The first part of both pof2 algorithms: the result-to-be in `acc` (recv) after the
// returned tasks. Ranks that sit out send their vector away and receive the result back
// with tag `back_tag`; for them the returned Deps is empty and *done is set.
Deps fold_in(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
             ReduceKernel op, const Folded& f, int back_tag, bool& done) {
  const std::size_t bytes = count * op.elem_size;
  done = false;
  if (f.sits_out()) {
    // The result comes back into recv, which (in place) is what the send reads.
    const TaskId gave = s.send(send != nullptr ? send : recv, bytes, f.rank + 1, 0);
    s.recv(recv, bytes, f.rank + 1, back_tag, {gave});
    done = true;
    return {};
  }
  Deps acc;
  if (send != nullptr) acc = {s.copy(send, recv, bytes)};
  if (f.folds_in()) {
    const Buf tmp = s.scratch(bytes);
    acc.push_back(s.recv(tmp, bytes, f.rank - 1, 0));
    acc = {s.reduce(tmp, recv, count, op.peer_first(true), acc)};  // rank - 1 is lower
  }
  return acc;
}

void recursive_doubling(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                        ReduceKernel op, Group grp) {
  const std::size_t bytes = count * op.elem_size;
  const Folded f = fold_of(grp);
  const int rounds = ceil_log2(f.pof2);
  const int back_tag = rounds + 1;  // tags: 0 fold-in, 1..rounds exchanges, then fold-out
  bool done = false;
  Deps acc = fold_in(s, send, recv, count, op, f, back_tag, done);
  if (done) return;
  const int me = f.me();
  // One temporary reused by every round: round k + 1 receives into it once round k's
  // reduction has read it. The partner cannot send round k + 1 before it has our round
  // k message either, so posting later costs little.
  const Buf tmp = s.scratch(bytes);
  Deps tmp_free;
  for (int k = 0; k < rounds; ++k) {
    const int partner = me ^ (1 << k);
    const int peer = f.peer(partner);
    const TaskId got = s.recv(tmp, bytes, peer, k + 1, tmp_free);
    // Round 0 sends the input itself, at once, rather than after its copy into recv: when
    // one partner's message starts well before the other's, a TCP transport carries the
    // two one after the other (the late one's handshake queues behind the early data),
    // which doubled the time of large allreduces on 2 nodes (issue 10 figures).
    const bool direct = k == 0 && send != nullptr && !f.folds_in();
    const TaskId gave =
        direct ? s.send(send, bytes, peer, k + 1) : s.send(recv, bytes, peer, k + 1, acc);
    // recv may change only once the partner has the old value (and holds ours).
    Deps after = direct ? acc : Deps{};
    after.push_back(got);
    after.push_back(gave);
    const TaskId reduced = s.reduce(tmp, recv, count, op.peer_first(peer < grp.rank), after);
    acc = {reduced};
    tmp_free = {reduced};
  }
  if (f.folds_in()) s.send(recv, bytes, f.rank - 1, back_tag, acc);
}

// Rabenseifner among the pof2 virtual ranks; blocks are in virtual-rank order.
void rabenseifner(Schedule& s, const std::byte* send, std::byte* recv, std::size_t count,
                  ReduceKernel op, Group grp) {
  const std::size_t bytes = count * op.elem_size;
  const Folded f = fold_of(grp);
  const int rounds = ceil_log2(f.pof2);
  // Tags: 0 fold-in, 1..rounds halving, rounds+1..2*rounds doubling, then fold-out.
  const int back_tag = 2 * rounds + 1;
  bool done = false;
  Deps acc = fold_in(s, send, recv, count, op, f, back_tag, done);
  if (done) return;
  const int me = f.me();
  const bool direct = send != nullptr && !f.folds_in();
  const Deps input_ready = acc;  // recv holds this rank's input after these
  const Partition blocks{count, f.pof2, op.elem_size};
  const Buf tmp = s.scratch(blocks.span(0, f.pof2 / 2));  // the largest half
  Deps tmp_free;
  std::vector<TaskId> gave_away(static_cast<std::size_t>(rounds));  // per round's half
  int lo = 0, hi = f.pof2;  // virtual blocks this rank still reduces
  for (int k = 0, half = f.pof2 / 2; half > 0; ++k, half /= 2) {
    const int partner = me ^ half;
    const int peer = f.peer(partner);
    const int mid = lo + half;
    const bool lower = (me & half) == 0;
    const int keep_lo = lower ? lo : mid, keep_hi = lower ? mid : hi;
    const int give_lo = lower ? mid : lo, give_hi = lower ? hi : mid;
    const std::size_t keep = blocks.span(keep_lo, keep_hi);
    const TaskId got = s.recv(tmp, keep, peer, k + 1, tmp_free);
    // The halves are disjoint: the reduction need not wait for the send. Round 0 sends
    // from the input itself, at once (see recursive_doubling).
    const std::size_t give = blocks.span(give_lo, give_hi);
    gave_away[static_cast<std::size_t>(k)] =
        k == 0 && direct ? s.send(Buf(send) + blocks.offset(give_lo), give, peer, k + 1)
                         : s.send(Buf(recv) + blocks.offset(give_lo), give, peer, k + 1, acc);
    acc.push_back(got);
    const TaskId reduced = s.reduce(tmp, Buf(recv) + blocks.offset(keep_lo), keep / op.elem_size,
                                    op.peer_first(peer < grp.rank), acc);
    acc = {reduced};
    tmp_free = {reduced};
    lo = keep_lo;
    hi = keep_hi;
  }
  // Allgather by recursive doubling: the range given away in the halving round with the
  // same distance comes back, once that send has finished reading it.
  for (int k = rounds - 1, half = 1; k >= 0; --k, half *= 2) {
    const int partner = me ^ half;
    const int peer = f.peer(partner);
    const bool lower = (me & half) == 0;
    const int their_lo = lower ? hi : lo - half, their_hi = lower ? hi + half : lo;
    // Not before the copy of the input into recv is done, either (round 0 did not wait).
    Deps free_again = k == 0 && direct ? input_ready : Deps{};
    free_again.push_back(gave_away[static_cast<std::size_t>(k)]);
    const TaskId got = s.recv(Buf(recv) + blocks.offset(their_lo), blocks.span(their_lo, their_hi),
                              peer, rounds + 1 + k, free_again);
    s.send(Buf(recv) + blocks.offset(lo), blocks.span(lo, hi), peer, rounds + 1 + k, acc);
    acc.push_back(got);
    lo = lower ? lo : their_lo;
    hi = lower ? their_hi : hi;
  }
  if (f.folds_in()) s.send(recv, bytes, f.rank - 1, back_tag, acc);
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
  rs.result = Buf(recv) + rs.blocks.offset(grp.rank);
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
                      ReduceKernel op, Group grp, std::optional<AllreduceAlgorithm> force) {
  if (count == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (grp.size == 1) {
    if (in != nullptr) s.copy(in, out, count * op.elem_size);
    return;
  }
  switch (force.value_or(choose_allreduce(count * op.elem_size, count, grp.size))) {
    case AllreduceAlgorithm::recursive_doubling:
      recursive_doubling(s, in, out, count, op, grp);
      break;
    case AllreduceAlgorithm::rabenseifner:
      rabenseifner(s, in, out, count, op, grp);
      break;
    case AllreduceAlgorithm::ring:
      ring_allreduce(s, in, out, count, op, grp);
      break;
  }
}

}  // namespace overlap::collectives
