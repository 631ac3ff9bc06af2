#include "measure/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "base/duration.hpp"

namespace overlap::measure {
namespace {

// Before the target is bracketed, grow or shrink geometrically, guided by proportional
// scaling but never by less than 1.5x (noise) nor more than 16x (latency-bound sizes).
constexpr double kMinStep = 1.5;
constexpr double kMaxStep = 16.0;
constexpr double kNarrow = 1.25;  // bracket ends within 25 % in size...
constexpr double kJump = 2.0;     // ...but 2x apart in time: suspicious

bool within(double time, double target, double tolerance) {
  return std::abs(time - target) <= tolerance * target;
}

const CalibrationSample& closest(const std::vector<CalibrationSample>& samples, double target) {
  return *std::min_element(samples.begin(), samples.end(), [&](const auto& a, const auto& b) {
    return std::abs(a.time - target) < std::abs(b.time - target);
  });
}

// The largest-time sample below the target and the smallest-time one above it.
// Growing starts from the largest size found too fast (and shrinking from the smallest
// found too slow), not from the closest time: noise can make a small size look slower.
struct Bracket {
  std::optional<CalibrationSample> below;
  std::optional<CalibrationSample> above;
  std::optional<CalibrationSample> largest_below;
  std::optional<CalibrationSample> smallest_above;
};

Bracket bracket(const std::vector<CalibrationSample>& samples, double target) {
  Bracket b;
  for (const CalibrationSample& s : samples) {
    if (s.time < target && (!b.below || s.time > b.below->time)) b.below = s;
    if (s.time > target && (!b.above || s.time < b.above->time)) b.above = s;
    if (s.time < target && (!b.largest_below || s.size > b.largest_below->size)) {
      b.largest_below = s;
    }
    if (s.time > target && (!b.smallest_above || s.size < b.smallest_above->size)) {
      b.smallest_above = s;
    }
  }
  return b;
}

std::string describe(const CalibrationSample& s) {
  std::ostringstream out;
  out << "size " << s.size << " took " << format_duration(s.time);
  return out.str();
}

// Next size once the target is bracketed: interpolate through the three samples nearest
// in time, keep strictly inside the bracket, bisect when interpolation is no help or
// keeps landing on the same side (regula falsi stalls on jumps such as a protocol switch).
std::optional<long> refine(const std::vector<CalibrationSample>& samples, const Bracket& b,
                           double target, bool bisect) {
  long lo = b.largest_below->size;
  long hi = b.smallest_above->size;
  if (lo > hi) {  // noise made the sizes disagree with the times: fall back to times
    lo = std::min(b.below->size, b.above->size);
    hi = std::max(b.below->size, b.above->size);
  }
  if (hi - lo <= 1) return std::nullopt;
  std::vector<CalibrationSample> nearest = samples;
  std::sort(nearest.begin(), nearest.end(), [&](const auto& x, const auto& y) {
    return std::abs(x.time - target) < std::abs(y.time - target);
  });
  nearest.resize(std::min<std::size_t>(3, nearest.size()));
  double guess = interpolate_size(target, nearest);
  const auto inside = [&](double g) {
    return std::isfinite(g) && g > static_cast<double>(lo) && g < static_cast<double>(hi);
  };
  if (!inside(guess)) guess = interpolate_size(target, {*b.largest_below, *b.smallest_above});
  long next = inside(guess) && !bisect ? std::lround(guess) : lo + (hi - lo) / 2;
  next = std::clamp(next, lo + 1, hi - 1);
  const bool seen =
      std::any_of(samples.begin(), samples.end(), [&](const auto& s) { return s.size == next; });
  if (seen) next = lo + (hi - lo) / 2;
  return next;
}

// A narrow bracket across which the time jumps is either a real step (protocol switch)
// or one noisy measurement at an end. Measuring each end again once tells them apart.
enum class EndCheck { fine, remeasured, real_jump };

EndCheck remeasure_suspicious_ends(std::vector<CalibrationSample>& samples, const Bracket& b,
                                   std::vector<long>& remeasured,
                                   const std::function<double(long)>& cost) {
  const CalibrationSample& lo = *b.largest_below;
  const CalibrationSample& hi = *b.smallest_above;
  const bool narrow = static_cast<double>(hi.size) <= kNarrow * static_cast<double>(lo.size);
  const bool jump = hi.time > kJump * lo.time;
  if (!narrow || !jump) return EndCheck::fine;
  if (!remeasured.empty()) return EndCheck::real_jump;  // checked once already: believe it
  bool any = false;
  for (long size : {lo.size, hi.size}) {
    if (std::find(remeasured.begin(), remeasured.end(), size) != remeasured.end()) continue;
    remeasured.push_back(size);
    const double time = cost(size);
    for (auto& s : samples) {
      if (s.size == size) s.time = time;
    }
    any = true;
  }
  return any ? EndCheck::remeasured : EndCheck::real_jump;
}

}  // namespace

double interpolate_size(double target, const std::vector<CalibrationSample>& p) {
  if (p.size() < 2) return NAN;
  if (p.size() == 2 || p[0].time == p[2].time || p[1].time == p[2].time) {
    if (p[0].time == p[1].time) return NAN;
    const double slope = static_cast<double>(p[1].size - p[0].size) / (p[1].time - p[0].time);
    return static_cast<double>(p[0].size) + slope * (target - p[0].time);
  }
  if (p[0].time == p[1].time) return NAN;
  // Lagrange form of size(time) through the three points, evaluated at the target.
  double result = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    double term = static_cast<double>(p[i].size);
    for (std::size_t j = 0; j < 3; ++j) {
      if (j != i) term *= (target - p[j].time) / (p[i].time - p[j].time);
    }
    result += term;
  }
  return result;
}

CalibrationResult calibrate(double target, const std::function<double(long)>& cost,
                            const CalibrationConfig& config) {
  CalibrationResult result;
  long size = std::clamp(config.initial_size > 0 ? config.initial_size : config.min_size,
                         config.min_size, config.max_size);
  const auto finish = [&](bool converged, std::string reason) {
    const CalibrationSample& best = closest(result.samples, target);
    const Bracket b = bracket(result.samples, target);
    result.bracketed = !converged && b.below && b.above;
    result.converged = converged;
    result.size = best.size;
    result.time = best.time;
    result.reason = std::move(reason);
    return result;
  };
  std::vector<long> remeasured;
  int same_side = 0;
  bool last_below = false;
  int measured = 0;
  const auto counted_cost = [&](long s) {
    ++measured;
    return cost(s);
  };
  while (measured < config.max_steps) {
    const double time = counted_cost(size);
    result.samples.push_back({size, time});
    same_side = (!result.samples.empty() && (time < target) == last_below) ? same_side + 1 : 0;
    last_below = time < target;
    if (within(time, target, config.tolerance)) {
      result.size = size;
      result.time = time;
      result.converged = true;
      return result;
    }
    Bracket b = bracket(result.samples, target);
    std::optional<long> next;
    const EndCheck check =
        b.below && b.above ? remeasure_suspicious_ends(result.samples, b, remeasured, counted_cost)
                           : EndCheck::fine;
    if (check == EndCheck::real_jump) {
      return finish(false, "no size is within " +
                               std::to_string(std::lround(config.tolerance * 100)) + " % of " +
                               format_duration(target) + ", the time jumps: " +
                               describe(*b.largest_below) + ", " + describe(*b.smallest_above));
    }
    if (check == EndCheck::remeasured) {
      b = bracket(result.samples, target);
      const CalibrationSample& best = closest(result.samples, target);
      if (within(best.time, target, config.tolerance)) {
        result.size = best.size;
        result.time = best.time;
        result.converged = true;
        return result;
      }
    }
    if (b.below && b.above) {
      next = refine(result.samples, b, target, same_side >= 2);
      if (!next) {
        return finish(false, "no size is within " +
                                 std::to_string(std::lround(config.tolerance * 100)) + " % of " +
                                 format_duration(target) + ": " + describe(*b.below) + ", " +
                                 describe(*b.above));
      }
    } else if (b.below) {  // everything measured is too fast: grow
      const CalibrationSample& from = *b.largest_below;
      if (from.size >= config.max_size) {
        return finish(false, "even the largest allowed " + describe(from) + ", below " +
                                 format_duration(target));
      }
      const double factor = std::clamp(target / from.time, kMinStep, kMaxStep);
      next =
          std::min(config.max_size,
                   std::max(from.size + 1, std::lround(static_cast<double>(from.size) * factor)));
    } else {  // everything measured is too slow: shrink
      const CalibrationSample& from = *b.smallest_above;
      if (from.size <= config.min_size) {
        return finish(false,
                      "even the smallest " + describe(from) + ", above " + format_duration(target));
      }
      const double factor = std::clamp(from.time / target, kMinStep, kMaxStep);
      next =
          std::max(config.min_size,
                   std::min(from.size - 1, std::lround(static_cast<double>(from.size) / factor)));
    }
    size = *next;
  }
  std::ostringstream out;
  out << "not within " << std::lround(config.tolerance * 100) << " % of " << format_duration(target)
      << " after " << config.max_steps << " measurements";
  return finish(false, out.str());
}

}  // namespace overlap::measure
