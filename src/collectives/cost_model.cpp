#include "collectives/cost_model.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/schedule.hpp"

namespace overlap::collectives {
namespace {

constexpr std::size_t kSegmentBytes = 64 * 1024;

double d(std::size_t v) { return static_cast<double>(v); }

// Recursive doubling/halving run among the largest power of two of ranks; the others
// fold their data into a partner first and get the result back at the end.
struct Pof2 {
  double p, pof2, log_pof2, log_p;
  bool fold;
  explicit Pof2(int ranks)
      : p(ranks),
        pof2(floor_pow2(ranks)),
        log_pof2(ceil_log2(floor_pow2(ranks))),
        log_p(ceil_log2(ranks)),
        fold(floor_pow2(ranks) != ranks) {}
};

}  // namespace

AllreduceAlgorithm choose_allreduce(std::size_t bytes, std::size_t count, int p, double A) {
  if (p <= 2) return AllreduceAlgorithm::recursive_doubling;
  const Pof2 g(p);
  const double n = d(bytes);
  const double fold = g.fold ? 2 * (A + n) : 0;  // whole vector in, whole result out
  const double rd = g.log_pof2 * (A + n) + fold;
  const double rab = 2 * g.log_pof2 * A + 2 * n * (g.pof2 - 1) / g.pof2 + fold;
  const double ring = 2 * (g.p - 1) * (A + n / g.p);
  auto best = AllreduceAlgorithm::recursive_doubling;
  double cost = rd;
  if (count >= static_cast<std::size_t>(g.pof2) && rab < cost) {
    best = AllreduceAlgorithm::rabenseifner;
    cost = rab;
  }
  if (count >= static_cast<std::size_t>(p) && ring < cost) best = AllreduceAlgorithm::ring;
  return best;
}

std::size_t bcast_segments(std::size_t bytes, int p) {
  if (p <= 2) return 1;
  return std::max<std::size_t>(1, (bytes + kSegmentBytes - 1) / kSegmentBytes);
}

BcastAlgorithm choose_bcast(std::size_t bytes, int p, double A) {
  if (p <= 2) return BcastAlgorithm::binomial;
  const Pof2 g(p);
  const double n = d(bytes);
  const double s = d(bcast_segments(bytes, p));
  // The root sends every segment to each of its ceil(log2 P) children over its one link:
  // that link carries log2 P times the message however it is segmented (segments only let
  // the ranks below forward meanwhile). Measured at P = 8 on 1 Gbit/s links (1 MiB):
  // 42-51 ms for this binomial tree, 15-20 ms for MPICH's own broadcast, whose default
  // selection is scatter + ring allgather there (docs/results/spare-cores-2026-11-30).
  const double binomial = g.log_p * (s * A + n);
  const double scatter_allgather = g.log_p * A + n * (g.p - 1) / g.p + (g.p - 1) * (A + n / g.p);
  return scatter_allgather < binomial ? BcastAlgorithm::scatter_allgather
                                      : BcastAlgorithm::binomial;
}

ReduceAlgorithm choose_reduce(std::size_t bytes, std::size_t count, int p, double A) {
  if (p <= 2 || count < static_cast<std::size_t>(p)) return ReduceAlgorithm::binomial;
  const Pof2 g(p);
  const double n = d(bytes);
  const double binomial = g.log_p * (A + n);
  // Ring reduce-scatter, then every rank sends its reduced block to the root.
  const double rsg = (g.p - 1) * (A + n / g.p) + (g.p - 1) * A + n * (g.p - 1) / g.p;
  return rsg < binomial ? ReduceAlgorithm::reduce_scatter_gather : ReduceAlgorithm::binomial;
}

AllgatherAlgorithm choose_allgather(std::size_t block, int p, double A) {
  const Pof2 g(p);
  const double n = d(block) * g.p;
  const double bruck = g.log_p * A + n * (g.p - 1) / g.p + 2 * kCopyWeight * n;
  const double ring = (g.p - 1) * (A + d(block));
  return ring <= bruck ? AllgatherAlgorithm::ring : AllgatherAlgorithm::bruck;
}

ReduceScatterAlgorithm choose_reduce_scatter_block(std::size_t block, int p, double A) {
  if (p <= 2) return ReduceScatterAlgorithm::recursive_halving;
  const Pof2 g(p);
  const double b = d(block);
  const double n = b * g.p;
  const double fold = g.fold ? (A + n) + (A + b) : 0;  // whole input in, own block out
  const double halving = g.log_pof2 * A + n * (g.pof2 - 1) / g.pof2 + fold;
  const double ring = (g.p - 1) * (A + b);
  return ring < halving ? ReduceScatterAlgorithm::ring : ReduceScatterAlgorithm::recursive_halving;
}

namespace {
// Linear: the root handles P - 1 messages. Binomial: log2 P messages at the root, but a
// child forwards its subtree (up to P/2 blocks) only after receiving it.
RootedAlgorithm choose_rooted(std::size_t block, int p, double A) {
  if (p <= 2) return RootedAlgorithm::linear;
  const Pof2 g(p);
  const double b = d(block);
  const double linear = (g.p - 1) * (A + b);
  const double binomial = g.log_p * A + (g.p - 1) * b + (g.p / 2) * b;
  return binomial < linear ? RootedAlgorithm::binomial : RootedAlgorithm::linear;
}
}  // namespace

RootedAlgorithm choose_gather(std::size_t block, int p, double A) {
  return choose_rooted(block, p, A);
}
RootedAlgorithm choose_scatter(std::size_t block, int p, double A) {
  return choose_rooted(block, p, A);
}

int alltoall_window(std::size_t block) { return block < 32 * 1024 ? 32 : 4; }

// Pairwise: P - 1 messages of one block, `window` of them in flight, so a latency is paid
// once per window. Bruck: ceil(log2 P) messages of about half the blocks each, plus a
// rotation and a pack and unpack per step (local copies of the whole buffer).
AlltoallAlgorithm choose_alltoall(std::size_t block, int p, double A) {
  if (p <= 2) return AlltoallAlgorithm::pairwise;
  const Pof2 g(p);
  const double b = d(block);
  const double windows = std::ceil((g.p - 1) / alltoall_window(block));
  const double pairwise = windows * A + (g.p - 1) * b;
  const double moved = g.log_p * (b * g.p / 2);  // blocks with bit k set, each step
  const double bruck = g.log_p * A + moved + kCopyWeight * (2 * b * g.p + 2 * moved);
  return bruck < pairwise ? AlltoallAlgorithm::bruck : AlltoallAlgorithm::pairwise;
}

}  // namespace overlap::collectives
