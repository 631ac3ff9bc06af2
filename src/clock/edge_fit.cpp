#include "clock/edge_fit.hpp"

#include <stdexcept>
#include <vector>

namespace overlap::clock {

EdgeMaps fit_edge(std::span<const EdgeSample> samples) {
  if (samples.empty()) throw std::invalid_argument("fit_edge needs at least one sample");
  std::vector<TimePoint> points;
  points.reserve(samples.size());
  for (const EdgeSample& s : samples) points.push_back(s.server_to_client);
  return {LinearMap::fit(points), LinearMap::offset_only(samples.back().server_to_client)};
}

}  // namespace overlap::clock
