#include "clock/linear_map.hpp"

#include <stdexcept>

namespace overlap::clock {

LinearMap LinearMap::fit(std::span<const TimePoint> points) {
  if (points.empty()) throw std::invalid_argument("LinearMap::fit needs at least one point");
  if (points.size() == 1) return offset_only(points.front());

  // Centre on the means: the sums below then stay well conditioned.
  double mean_x = 0;
  double mean_y = 0;
  for (const TimePoint& p : points) {
    mean_x += p.x;
    mean_y += p.y;
  }
  const auto n = static_cast<double>(points.size());
  mean_x /= n;
  mean_y /= n;
  double sxx = 0;
  double sxy = 0;
  for (const TimePoint& p : points) {
    sxx += (p.x - mean_x) * (p.x - mean_x);
    sxy += (p.x - mean_x) * (p.y - mean_y);
  }
  if (sxx <= 0) throw std::invalid_argument("LinearMap::fit needs distinct x values");
  return {mean_x, mean_y, sxy / sxx};
}

LinearMap compose(const LinearMap& outer, const LinearMap& inner) {
  return {inner.x_ref, outer(inner.y_ref), outer.slope * inner.slope};
}

}  // namespace overlap::clock
