// Alltoall; cost_model.cpp chooses between:
//  - pairwise exchange: in step k (1 .. P-1) a rank sends its block for rank + k and
//    receives the block from rank - k, so every step pairs all ranks without contention
//    for any P. Step k waits for step k - W to finish, which bounds the messages in flight
//    to W per direction (alltoall_window: 32 for blocks below 32 KiB, latency-bound, keep
//    many going; 4 from there on, bandwidth-bound, more would only congest). Every ordered
//    pair of ranks exchanges exactly one message, so one tag serves all. In place, the
//    blocks to send are copied to scratch first: the receives overwrite them.
//  - Bruck: ceil(log2 P) steps for any P. The blocks are first rotated so that block i of
//    scratch is the one for rank + i; in step k every block whose index has bit k set moves
//    2^k ranks forward (packed into one message, unpacked on arrival), so after the last
//    step block i holds what rank - i sent to this rank, and a last rotation puts it in
//    place. Each block travels up to log2 P times, but a step pays one latency: chosen for
//    small blocks on many ranks.
#include <algorithm>
#include <vector>

#include "collectives/algorithms.hpp"
#include "collectives/cost_model.hpp"
#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

using Bytes = std::size_t;

void pairwise(Schedule& s, const std::byte* in, std::byte* out, Bytes bb, Group grp) {
  const int p = grp.size;
  const int r = grp.rank;
  const auto at = [bb](int block) { return static_cast<Bytes>(block) * bb; };
  Buf src = in;  // where the blocks to send are
  Deps start;    // what every step waits for: in place, the copy of the outgoing blocks
  if (in != nullptr) {
    s.copy(in + at(r), out + at(r), bb);
  } else if (p > 1) {
    const Buf tmp = s.scratch(at(p));
    start = {s.copy(out, tmp, at(p))};
    src = tmp;
  }
  const int window = alltoall_window(bb);
  std::vector<Deps> steps(static_cast<std::size_t>(p));
  for (int k = 1; k < p; ++k) {
    Deps after = start;
    if (k > window) {
      const auto& old = steps[static_cast<std::size_t>(k - window)];
      after.append(old.begin(), old.end());
    }
    const int to = wrap(r + k, p);
    const int from = wrap(r - k, p);
    steps[static_cast<std::size_t>(k)] = {s.recv(out + at(from), bb, from, 0, after),
                                          s.send(src + at(to), bb, to, 0, after)};
  }
}

// The blocks 1 .. p-1 whose index has bit `bit` set, as runs [first, first + count): the
// index bits below `bit` run through all values, so each run is `bit` blocks long (the last
// one cut at p).
struct Run {
  int first;
  int count;
};
std::vector<Run> runs_with_bit(int p, int bit) {
  std::vector<Run> v;
  for (int first = bit; first < p; first += 2 * bit) v.push_back({first, std::min(bit, p - first)});
  return v;
}

void bruck_alltoall(Schedule& s, const std::byte* in, std::byte* out, Bytes bb, Group grp) {
  const int p = grp.size;
  const int r = grp.rank;
  const auto at = [bb](int block) { return static_cast<Bytes>(block) * bb; };
  const std::byte* src = in != nullptr ? in : out;  // in place, the blocks are in out
  // tmp block i: the block for rank r + i (so in two copies: r .. p-1, then 0 .. r-1).
  const Buf tmp = s.scratch(at(p));
  Deps ready = {s.copy(src + at(r), tmp, at(p - r))};
  if (r > 0) ready.push_back(s.copy(src, tmp + at(p - r), at(r)));
  // Packed blocks of one step: the same scratch for sending and (after) receiving.
  const Buf packed_out = s.scratch(at(p / 2 + 1));
  const Buf packed_in = s.scratch(at(p / 2 + 1));
  for (int k = 0, bit = 1; bit < p; ++k, bit *= 2) {
    const std::vector<Run> runs = runs_with_bit(p, bit);
    Deps packed;
    int n = 0;  // blocks packed
    for (const Run& run : runs) {
      packed.push_back(s.copy(tmp + at(run.first), packed_out + at(n), at(run.count), ready));
      n += run.count;
    }
    const TaskId got = s.recv(packed_in, at(n), wrap(r - bit, p), k, ready);
    const TaskId sent = s.send(packed_out, at(n), wrap(r + bit, p), k, packed);
    Deps unpacked;
    n = 0;
    for (const Run& run : runs) {
      unpacked.push_back(
          s.copy(packed_in + at(n), tmp + at(run.first), at(run.count), {got, sent}));
      n += run.count;
    }
    ready = std::move(unpacked);
  }
  // tmp block i came from rank r - i.
  for (int i = 0; i < p; ++i) s.copy(tmp + at(i), out + at(wrap(r - i, p)), bb, ready);
}

}  // namespace

void build_ialltoall(TaskGraph& g, const void* send, void* recv, std::size_t block_bytes, Group grp,
                     std::optional<AlltoallAlgorithm> force) {
  if (block_bytes == 0) return;
  Schedule s(g);
  const auto* in = static_cast<const std::byte*>(send);
  auto* out = static_cast<std::byte*>(recv);
  if (grp.size > 1 &&
      force.value_or(choose_alltoall(block_bytes, grp.size)) == AlltoallAlgorithm::bruck) {
    bruck_alltoall(s, in, out, block_bytes, grp);
  } else {
    pairwise(s, in, out, block_bytes, grp);
  }
}

}  // namespace overlap::collectives
