#include "measure/peer_overlap.hpp"

#include <algorithm>
#include <stdexcept>

#include "measure/statistics.hpp"

namespace overlap::measure {

PeerRankTimes peer_rank_means(const std::vector<double>& overall,
                              const std::vector<double>& compute,
                              const std::vector<double>& pure_comm) {
  if (overall.empty() || overall.size() != compute.size() || overall.size() != pure_comm.size()) {
    throw std::invalid_argument("peer_rank_means: one value of each per iteration");
  }
  return {mean(overall), mean(compute), mean(pure_comm)};
}

std::optional<double> osu_overlap_pct(const std::vector<PeerRankTimes>& ranks) {
  if (ranks.empty()) return std::nullopt;
  double overall = 0, compute = 0, pure = 0;
  for (const PeerRankTimes& r : ranks) {
    overall += r.overall;
    compute += r.compute;
    pure += r.pure_comm;
  }
  const double n = static_cast<double>(ranks.size());
  overall /= n;
  compute /= n;
  pure /= n;
  if (!(pure > 0)) return std::nullopt;
  return std::max(0.0, 100.0 - 100.0 * (overall - compute) / pure);
}

std::optional<double> imb_overlap_pct(const std::vector<PeerRankTimes>& ranks) {
  if (ranks.empty()) return std::nullopt;
  // The first rank with the largest overlapped time, as IMB's MAX offset search keeps.
  const PeerRankTimes& r = *std::max_element(
      ranks.begin(), ranks.end(),
      [](const PeerRankTimes& a, const PeerRankTimes& b) { return a.overall < b.overall; });
  const double denominator = std::max(r.pure_comm, r.compute);
  if (!(denominator > 0)) return std::nullopt;
  return 100.0 * std::clamp((r.pure_comm + r.compute - r.overall) / denominator, 0.0, 1.0);
}

}  // namespace overlap::measure
