#include "clock/edge_fit.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace overlap::clock {
namespace {

// Below this, RTT differences are clock-read noise, not link quality.
constexpr double kRttFloor = 100e-9;

}  // namespace

EdgeMaps fit_edge(std::span<const EdgeSample> samples) {
  if (samples.empty()) throw std::invalid_argument("fit_edge needs at least one sample");
  std::vector<TimePoint> points;
  std::vector<double> weights;
  for (const EdgeSample& s : samples) {
    points.push_back(s.server_to_client);
    const double bound = std::max(s.rtt, kRttFloor);
    weights.push_back(1.0 / (bound * bound));
  }
  return {LinearMap::fit(points, weights), LinearMap::offset_only(samples.back().server_to_client)};
}

}  // namespace overlap::clock
