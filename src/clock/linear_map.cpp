#include "clock/linear_map.hpp"

#include <stdexcept>
#include <vector>

namespace overlap::clock {

LinearMap LinearMap::fit(std::span<const TimePoint> points) {
  const std::vector<double> equal(points.size(), 1.0);
  return fit(points, equal);
}

LinearMap LinearMap::fit(std::span<const TimePoint> points, std::span<const double> weights) {
  if (points.empty()) throw std::invalid_argument("LinearMap::fit needs at least one point");
  if (weights.size() != points.size()) throw std::invalid_argument("LinearMap::fit: weights");
  if (points.size() == 1) return offset_only(points.front());

  // Centre on the weighted means: the sums below then stay well conditioned.
  double total = 0;
  double mean_x = 0;
  double mean_y = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!(weights[i] > 0)) throw std::invalid_argument("LinearMap::fit: weights must be > 0");
    total += weights[i];
    mean_x += weights[i] * points[i].x;
    mean_y += weights[i] * points[i].y;
  }
  mean_x /= total;
  mean_y /= total;
  double sxx = 0;
  double sxy = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double dx = points[i].x - mean_x;
    sxx += weights[i] * dx * dx;
    sxy += weights[i] * dx * (points[i].y - mean_y);
  }
  if (sxx <= 0) throw std::invalid_argument("LinearMap::fit needs distinct x values");
  return {mean_x, mean_y, sxy / sxx};
}

LinearMap compose(const LinearMap& outer, const LinearMap& inner) {
  return {inner.x_ref, outer(inner.y_ref), outer.slope * inner.slope};
}

}  // namespace overlap::clock
