// A straight line y = y_ref + slope * (x - x_ref) between two clocks' time axes.
// Stored around a reference point rather than as y = a + b*x so that clock readings of
// 1e5 s and offsets of 1e-7 s do not cancel catastrophically in double precision.
#pragma once

#include <span>

namespace overlap::clock {

// One correspondence between two time axes: x on the source axis happened at y on the
// target axis.
struct TimePoint {
  double x = 0;
  double y = 0;
};

struct LinearMap {
  double x_ref = 0;
  double y_ref = 0;
  double slope = 1;

  double operator()(double x) const { return y_ref + slope * (x - x_ref); }
  double inverse(double y) const { return x_ref + (y - y_ref) / slope; }

  static LinearMap identity() { return {}; }

  // A map with slope 1 through `point`: a pure offset.
  static LinearMap offset_only(TimePoint point) { return {point.x, point.y, 1.0}; }

  // Least-squares line through the points (exact for two). One point gives an offset-only
  // map. Requires at least one point and, for two or more, distinct x values.
  static LinearMap fit(std::span<const TimePoint> points);

  // Weighted least squares: weights[i] > 0 is point i's weight (e.g. 1 / error bound^2).
  static LinearMap fit(std::span<const TimePoint> points, std::span<const double> weights);
};

// outer ∘ inner: x -> outer(inner(x)). Exact for lines; keeps inner's reference x.
LinearMap compose(const LinearMap& outer, const LinearMap& inner);

}  // namespace overlap::clock
