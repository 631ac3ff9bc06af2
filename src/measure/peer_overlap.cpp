#include "measure/peer_overlap.hpp"

#include <algorithm>
#include <stdexcept>

#include "measure/statistics.hpp"

namespace overlap::measure {

PeerRankTimes peer_rank_means(const std::vector<double>& overall,
                              const std::vector<double>& compute,
                              const std::vector<double>& pure_comm,
                              const std::vector<double>& test) {
  if (overall.empty() || overall.size() != compute.size() || overall.size() != pure_comm.size() ||
      (!test.empty() && test.size() != overall.size())) {
    throw std::invalid_argument("peer_rank_means: one value of each per iteration");
  }
  return {mean(overall), mean(compute), mean(pure_comm), test.empty() ? 0.0 : mean(test)};
}

// The expressions below are written term for term as tests/mpi/check_nbc.py recomputes
// them from the file, so both give the same bits.
std::optional<double> osu_overlap_pct(const std::vector<PeerRankTimes>& ranks) {
  if (ranks.empty()) return std::nullopt;
  double overall = 0, compute = 0, test = 0, pure = 0;
  for (const PeerRankTimes& r : ranks) {
    overall += r.overall;
    compute += r.compute;
    test += r.test;
    pure += r.pure_comm;
  }
  const double n = static_cast<double>(ranks.size());
  overall /= n;
  compute /= n;
  test /= n;
  pure /= n;
  if (!(pure > 0)) return std::nullopt;
  return std::max(0.0, 100.0 - 100.0 * (overall - (compute - test)) / pure);
}

int imb_rank(const std::vector<PeerRankTimes>& ranks) {
  int best = -1;
  for (int i = 0; i < static_cast<int>(ranks.size()); ++i) {
    if (best < 0 || ranks[static_cast<std::size_t>(i)].overall >
                        ranks[static_cast<std::size_t>(best)].overall) {
      best = i;
    }
  }
  return best;
}

std::optional<double> imb_overlap_pct(const std::vector<PeerRankTimes>& ranks) {
  const int i = imb_rank(ranks);
  if (i < 0) return std::nullopt;
  const PeerRankTimes& r = ranks[static_cast<std::size_t>(i)];
  const double compute = r.compute - r.test;
  const double denominator = std::max(r.pure_comm, compute);
  if (!(denominator > 0)) return std::nullopt;
  return 100.0 * std::clamp((r.pure_comm + compute - r.overall) / denominator, 0.0, 1.0);
}

}  // namespace overlap::measure
