#include "collectives/schedule.hpp"

#include <algorithm>
#include <cassert>

namespace overlap::collectives {

TaskId Schedule::send(Buf buf, std::size_t bytes, int peer, int tag, const Deps& after) {
  const int wire = tag % kTagsPerCollective;
  const TaskId id = g_.send(buf, bytes, peer, wire);
  order_on_channel(id, true, peer, wire);
  wait_for(id, after);
  return id;
}

TaskId Schedule::recv(Buf buf, std::size_t bytes, int peer, int tag, const Deps& after) {
  const int wire = tag % kTagsPerCollective;
  const TaskId id = g_.recv(buf, bytes, peer, wire);
  order_on_channel(id, false, peer, wire);
  wait_for(id, after);
  return id;
}

TaskId Schedule::reduce(Buf in, Buf inout, std::size_t count, progress::ReduceOp op,
                        const Deps& after) {
  const TaskId id = g_.reduce(in, inout, count, op);
  wait_for(id, after);
  return id;
}

TaskId Schedule::copy(Buf src, Buf dst, std::size_t bytes, const Deps& after) {
  const TaskId id = g_.copy(src, dst, bytes);
  wait_for(id, after);
  return id;
}

void Schedule::wait_for(TaskId id, const Deps& after) {
  for (TaskId before : after) g_.depend(id, before);
}

// Posting in build order is what keeps a wrapped tag unambiguous: the peer builds its side
// in the same order, and MPI matches same-tag messages in posting order.
void Schedule::order_on_channel(TaskId id, bool is_send, int peer, int wire) {
  auto [it, inserted] = last_on_channel_.try_emplace({is_send, peer, wire}, id);
  if (inserted) return;
  g_.depend(id, it->second);
  it->second = id;
}

std::size_t Partition::first(int block) const {
  const auto b = static_cast<std::size_t>(block);
  const auto n = static_cast<std::size_t>(parts);
  return b * (count / n) + std::min(b, count % n);
}

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

int floor_pow2(int n) {
  int p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

TreeChildren BinomialTree::children(int rel_rank) const {
  // The root's lowest set bit is "above everything": all powers of two below size.
  const int limit = rel_rank == 0 ? size : (rel_rank & -rel_rank);
  TreeChildren out;
  for (int m = 1; m < limit && rel_rank + m < size; m *= 2) out.push_back(rel_rank + m);
  return out;
}

int BinomialTree::subtree(int rel_rank) const {
  if (rel_rank == 0) return size;
  return std::min(rel_rank & -rel_rank, size - rel_rank);
}

Deps binomial_scatter(Schedule& s, const BinomialTree& tree, int rank, Buf data,
                      const Partition& blocks, int tag, const Deps& ready) {
  const int rel = tree.rel(rank);
  Deps have = ready;
  if (rel != 0) {
    const int parent = tree.rank(tree.parent(rel));
    have = {s.recv(data, blocks.span(rel, rel + tree.subtree(rel)), parent, tag)};
  }
  const auto kids = tree.children(rel);
  // Largest subtree first: it has the longest way still to go.
  for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
    const int c = *it;
    s.send(data + blocks.span(rel, c), blocks.span(c, c + tree.subtree(c)), tree.rank(c), tag,
           have);
  }
  return have;
}

void ring_allgather(Schedule& s, RingAllgather a) {
  const Ring& r = a.ring;
  assert(static_cast<int>(a.before.size()) == r.size);
  if (!a.holds) a.holds = [](int pos, int block) { return pos == block; };
  const int right_pos = wrap(r.pos + 1, r.size);
  // Step t: pass on the block that arrived in step t - 1 (own block at t = 0), and take
  // the one the left neighbour passes on. a.before[b] turns into "ready" once b arrived.
  for (int t = 0; t + 1 < r.size; ++t) {
    const int out = wrap(r.pos - t, r.size);
    const int in = wrap(r.pos - t - 1, r.size);
    if (!a.holds(right_pos, out)) {
      s.send(a.buf + a.blocks.offset(out), a.blocks.bytes(out), r.right, a.tag + t,
             a.before[static_cast<std::size_t>(out)]);
    }
    if (!a.holds(r.pos, in)) {
      auto& dep = a.before[static_cast<std::size_t>(in)];
      dep = {s.recv(a.buf + a.blocks.offset(in), a.blocks.bytes(in), r.left, a.tag + t, dep)};
    }
  }
}

namespace {
constexpr int kRingSlots = 3;  // receive buffers in flight: lets receives run ahead
}

RingReduceScatterTasks ring_reduce_scatter(Schedule& s, const RingReduceScatter& a) {
  const Ring& r = a.ring;
  const int steps = r.size - 1;
  const int slots = std::min(steps, kRingSlots);
  const std::size_t slot_bytes = a.blocks.bytes(0);  // the first block is the largest
  const Buf tmp = s.scratch(static_cast<std::size_t>(slots) * slot_bytes);
  auto slot = [&](int step) { return tmp + static_cast<std::size_t>(step % slots) * slot_bytes; };
  const Buf own_result = a.own + a.blocks.offset(r.pos);
  const bool in_place = own_result == a.result;

  RingReduceScatterTasks out;
  out.readers.resize(static_cast<std::size_t>(r.size));
  std::vector<TaskId> sends;
  TaskId reduced = 0;
  // Step s sends block pos - s - 1 (own data at s = 0, afterwards the partial sum reduced
  // in step s - 1) and receives the left neighbour's partial sum of block pos - s - 2,
  // which then absorbs this rank's contribution. The last step brings block pos.
  for (int step = 0; step < steps; ++step) {
    const int out_block = wrap(r.pos - step - 1, r.size);
    const int in_block = wrap(r.pos - step - 2, r.size);
    const std::size_t n = a.blocks.units(in_block);
    const bool last = step + 1 == steps;
    if (step == 0) {
      sends.push_back(
          s.send(a.own + a.blocks.offset(out_block), a.blocks.bytes(out_block), r.right, a.tag));
      out.readers[static_cast<std::size_t>(out_block)].push_back(sends.back());
    } else {
      sends.push_back(
          s.send(slot(step - 1), a.blocks.bytes(out_block), r.right, a.tag + step, {reduced}));
    }
    if (last && !in_place) {
      const TaskId got =
          s.recv(a.result, a.blocks.bytes(in_block), r.left, a.tag + step, a.result_ready);
      reduced = s.reduce(a.own + a.blocks.offset(in_block), a.result, n, a.op.forward(), {got});
      out.readers[static_cast<std::size_t>(in_block)].push_back(reduced);
      continue;
    }
    // The slot's previous content (step - slots) is gone once the next step sent it.
    Deps free;
    if (step >= slots) free.push_back(sends[static_cast<std::size_t>(step - slots + 1)]);
    const TaskId got = s.recv(slot(step), a.blocks.bytes(in_block), r.left, a.tag + step, free);
    if (last) {
      Deps after = a.result_ready;
      after.push_back(got);
      reduced = s.reduce(slot(step), a.result, n, a.op.forward(), after);
    } else {
      reduced = s.reduce(a.own + a.blocks.offset(in_block), slot(step), n, a.op.forward(), {got});
      out.readers[static_cast<std::size_t>(in_block)].push_back(reduced);
    }
  }
  out.done = reduced;
  return out;
}

}  // namespace overlap::collectives
