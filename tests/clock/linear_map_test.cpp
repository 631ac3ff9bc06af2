#include "clock/linear_map.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "clock/clock_model.hpp"

namespace overlap::clock {
namespace {

// Evaluates two maps at several x and expects the same y (lines agreeing at >= 2 points are
// the same line; a few more catch reference-point mix-ups).
void expect_same_line(const LinearMap& a, const LinearMap& b, double tol) {
  for (double x : {-3.0, 0.0, 1.0, 17.5, 1e3}) EXPECT_NEAR(a(x), b(x), tol) << "x = " << x;
}

TEST(LinearMap, EvaluatesAroundItsReferencePoint) {
  const LinearMap m{10.0, 3.0, 2.0};
  EXPECT_EQ(m(10.0), 3.0);
  EXPECT_EQ(m(11.0), 5.0);
  EXPECT_EQ(m(9.0), 1.0);
  EXPECT_EQ(m.inverse(5.0), 11.0);
  EXPECT_EQ(LinearMap::identity()(123.25), 123.25);
}

TEST(LinearMap, InverseUndoesTheMap) {
  const LinearMap m{1e5, 1e5 + 2.5, 1.0 / (1.0 + 50e-6)};
  for (double x : {1e5, 1e5 + 60.0, 2e5, 0.0}) EXPECT_NEAR(m.inverse(m(x)), x, 1e-9);
}

TEST(LinearMapFit, TwoPointsAreFittedExactly) {
  const std::array<TimePoint, 2> pts{{{1.0, 3.0}, {3.0, 7.0}}};
  const LinearMap m = LinearMap::fit(pts);
  EXPECT_DOUBLE_EQ(m.slope, 2.0);
  EXPECT_DOUBLE_EQ(m(1.0), 3.0);
  EXPECT_DOUBLE_EQ(m(3.0), 7.0);
  EXPECT_DOUBLE_EQ(m(5.0), 11.0);
  // Order of the points does not matter.
  const std::array<TimePoint, 2> reversed{pts[1], pts[0]};
  expect_same_line(LinearMap::fit(reversed), m, 1e-12);
}

TEST(LinearMapFit, OnePointGivesAnOffsetOnlyMap) {
  const std::array<TimePoint, 1> pts{{{100.0, 97.5}}};
  const LinearMap m = LinearMap::fit(pts);
  EXPECT_EQ(m.slope, 1.0);
  EXPECT_EQ(m(100.0), 97.5);
  EXPECT_EQ(m(200.0), 197.5);
  expect_same_line(m, LinearMap::offset_only({100.0, 97.5}), 0);
}

TEST(LinearMapFit, RejectsNoPointsAndRepeatedX) {
  EXPECT_THROW(LinearMap::fit(std::span<const TimePoint>{}), std::invalid_argument);
  const std::array<TimePoint, 2> same_x{{{1.0, 2.0}, {1.0, 3.0}}};
  EXPECT_THROW(LinearMap::fit(same_x), std::invalid_argument);
  const std::array<TimePoint, 3> all_same_x{{{5.0, 1.0}, {5.0, 2.0}, {5.0, 9.0}}};
  EXPECT_THROW(LinearMap::fit(all_same_x), std::invalid_argument);
  // Repeats are fine as long as not every x is the same.
  const std::array<TimePoint, 3> some_same_x{{{5.0, 1.0}, {5.0, 3.0}, {6.0, 4.0}}};
  EXPECT_DOUBLE_EQ(LinearMap::fit(some_same_x).slope, 2.0);
}

// Noisy points: the fit must be THE least-squares line, checked against the normal equations
// computed independently in long double, and it must recover the true line within noise.
TEST(LinearMapFit, LeastSquaresRecoversSlopeAndInterceptFromNoisyPoints) {
  std::mt19937_64 rng(1234);
  std::normal_distribution<double> noise(0.0, 1e-6);
  std::uniform_real_distribution<double> xs(0.0, 10.0);
  const double true_slope = 1.00005;
  const double true_intercept = 2.5;
  std::vector<TimePoint> pts;
  for (int i = 0; i < 1000; ++i) {
    const double x = xs(rng);
    pts.push_back({x, true_intercept + true_slope * x + noise(rng)});
  }
  const LinearMap m = LinearMap::fit(pts);

  long double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const TimePoint& p : pts) {
    sx += p.x;
    sy += p.y;
    sxx += static_cast<long double>(p.x) * p.x;
    sxy += static_cast<long double>(p.x) * p.y;
  }
  const auto n = static_cast<long double>(pts.size());
  const long double ref_slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const long double ref_intercept = (sy - ref_slope * sx) / n;
  EXPECT_NEAR(m.slope, static_cast<double>(ref_slope), 1e-10);
  EXPECT_NEAR(m(0.0), static_cast<double>(ref_intercept), 1e-10);

  // sigma 1e-6 over 1000 points spread on [0, 10]: slope s.d. ~1.1e-8, intercept s.d. ~6e-8.
  EXPECT_NEAR(m.slope, true_slope, 1e-7);
  EXPECT_NEAR(m(0.0), true_intercept, 5e-7);

  // Normal equations: residuals sum to zero and are orthogonal to x.
  double sum_r = 0;
  double sum_rx = 0;
  for (const TimePoint& p : pts) {
    sum_r += p.y - m(p.x);
    sum_rx += (p.y - m(p.x)) * (p.x - 5.0);
  }
  EXPECT_NEAR(sum_r, 0.0, 1e-10);
  EXPECT_NEAR(sum_rx, 0.0, 1e-9);
}

TEST(LinearMapFit, CollinearPointsAreReproduced) {
  std::vector<TimePoint> pts;
  for (int i = 0; i < 7; ++i) pts.push_back({0.5 * i, -4.0 + 0.25 * i});
  const LinearMap m = LinearMap::fit(pts);
  EXPECT_DOUBLE_EQ(m.slope, 0.5);
  for (const TimePoint& p : pts) EXPECT_NEAR(m(p.x), p.y, 1e-14);
}

// Clock readings around 1e5 s (a day of uptime), drift of 50 ppm, offset 2.5 s: fitting the
// samples and extrapolating 60 s past the last one must stay accurate to 1e-9 s. A fit from
// raw sums (sum x^2 ~ 1e11) would lose ~1e-5 relative in sxx and miss by microseconds.
TEST(LinearMapFit, StaysAccurateAtLargeClockReadings) {
  const double offset = 2.5;
  const double rate = 1.0 + 50e-6;  // local runs fast
  auto local_at = [&](long double global) { return offset + rate * global; };
  std::vector<TimePoint> pts;  // local -> global
  for (int i = 0; i <= 10; ++i) {
    const long double g = 1e5L + i;
    pts.push_back({static_cast<double>(local_at(g)), static_cast<double>(g)});
  }
  const LinearMap m = LinearMap::fit(pts);
  const long double g_later = 1e5L + 10 + 60;
  const auto local_later = static_cast<double>(local_at(g_later));
  EXPECT_NEAR(m(local_later), static_cast<double>(g_later), 1e-9);
  EXPECT_NEAR(m.slope, 1.0 / rate, 1e-11);
  EXPECT_NEAR(m.inverse(static_cast<double>(g_later)), local_later, 1e-9);
}

TEST(LinearMap, TinyOffsetSurvivesLargeReadings) {
  // 100 ns ahead at 1e5 s: stored around the reference point, no cancellation beyond 1 ulp.
  const ClockModel model(LinearMap::offset_only({1e5 + 1e-7, 1e5}));
  EXPECT_NEAR(model.offset(1e5 + 60.0), 1e-7, 1e-10);
  EXPECT_NEAR(model.to_global(1e5 + 60.0), 1e5 + 60.0 - 1e-7, 1e-10);
  EXPECT_EQ(model.drift_ppm(), 0.0);
}

TEST(Compose, AppliesInnerThenOuter) {
  const LinearMap outer{2.0, 5.0, 3.0};
  const LinearMap inner{-1.0, 4.0, 0.5};
  const LinearMap c = compose(outer, inner);
  for (double x : {-7.0, -1.0, 0.0, 2.5, 100.0}) {
    EXPECT_DOUBLE_EQ(c(x), outer(inner(x))) << "x = " << x;
  }
  EXPECT_EQ(c.x_ref, inner.x_ref);  // documented: keeps inner's reference x
  EXPECT_DOUBLE_EQ(c.slope, 1.5);
}

TEST(Compose, IsNotCommutativeButIsAssociative) {
  const LinearMap a{1.0, 2.0, 2.0};
  const LinearMap b{-3.0, 0.5, 0.5};
  const LinearMap c{1e5, 1e5 + 3.0, 1.00003};
  EXPECT_DOUBLE_EQ(compose(a, b)(10.0), 14.0);  // a(b(10)) = a(7)
  EXPECT_DOUBLE_EQ(compose(b, a)(10.0), 12.0);  // b(a(10)) = b(20)
  const LinearMap left = compose(compose(a, b), c);
  const LinearMap right = compose(a, compose(b, c));
  for (double x : {1e5 - 10.0, 1e5, 1e5 + 60.0}) EXPECT_NEAR(left(x), right(x), 1e-9);
  EXPECT_NEAR(left.slope, right.slope, 1e-15);
}

TEST(Compose, IdentityIsNeutralAndInverseCancels) {
  const LinearMap f{1e5, 1e5 - 2.5, 1.0 / (1.0 + 50e-6)};
  expect_same_line(compose(LinearMap::identity(), f), f, 1e-9);
  expect_same_line(compose(f, LinearMap::identity()), f, 1e-9);

  // The inverse line of f: swap the reference point, invert the slope.
  const LinearMap g{f.y_ref, f.x_ref, 1.0 / f.slope};
  for (double x : {1e5, 1e5 + 60.0, 1e5 - 3600.0}) {
    EXPECT_NEAR(compose(f, g)(x), x, 1e-9);
    EXPECT_NEAR(compose(g, f)(x), x, 1e-9);
  }
  EXPECT_NEAR(compose(f, g).slope, 1.0, 1e-15);
}

// Sign conventions (clock_model.hpp): offset = local - global, positive when this clock is
// ahead of the global clock; drift_ppm = (dlocal/dglobal - 1) * 1e6, positive when it runs
// fast. Here local = 2.5 s + (1 + 50e-6) * global.
TEST(ClockModel, AheadAndFastReadsPositive) {
  const double rate = 1.0 + 50e-6;
  std::vector<TimePoint> pts;  // local -> global, as a sync would sample it
  for (double g : {0.0, 5.0, 10.0}) pts.push_back({2.5 + rate * g, g});
  const ClockModel model(LinearMap::fit(pts));

  EXPECT_NEAR(model.offset(2.5), 2.5, 1e-12);  // at global 0
  EXPECT_NEAR(model.drift_ppm(), 50.0, 1e-6);
  // Fast clock: after 1000 global seconds it is 50 ms further ahead.
  EXPECT_NEAR(model.offset(2.5 + rate * 1000.0), 2.5 + 0.05, 1e-9);
  EXPECT_NEAR(model.to_global(2.5 + rate * 1000.0), 1000.0, 1e-9);
  EXPECT_NEAR(model.to_local(1000.0), 2.5 + rate * 1000.0, 1e-9);
}

TEST(ClockModel, BehindAndSlowReadsNegative) {
  const double rate = 1.0 - 20e-6;
  const ClockModel model(LinearMap{-1.0, 0.0, 1.0 / rate});  // local -1 s at global 0
  EXPECT_NEAR(model.offset(-1.0), -1.0, 1e-12);
  EXPECT_NEAR(model.drift_ppm(), -20.0, 1e-6);
}

TEST(ClockModel, WithoutDriftKeepsTheOffsetAtThatInstantOnly) {
  const double rate = 1.0 + 50e-6;
  const ClockModel model(LinearMap{2.5, 0.0, 1.0 / rate});
  const double local_now = 2.5 + rate * 100.0;
  const ClockModel flat = model.without_drift(local_now);
  EXPECT_EQ(flat.drift_ppm(), 0.0);
  EXPECT_NEAR(flat.offset(local_now), model.offset(local_now), 1e-12);
  EXPECT_NEAR(flat.to_global(local_now), 100.0, 1e-9);
  // 60 s later it is off by the drift it ignores: 60 s * 50 ppm = 3 ms.
  const double local_later = 2.5 + rate * 160.0;
  EXPECT_NEAR(flat.to_global(local_later) - 160.0, 60.0 * 50e-6, 1e-9);
  EXPECT_NEAR(model.to_global(local_later), 160.0, 1e-9);
}

TEST(ClockModel, DefaultIsTheGlobalClockItself) {
  const ClockModel model;
  EXPECT_EQ(model.to_global(123.5), 123.5);
  EXPECT_EQ(model.offset(123.5), 0.0);
  EXPECT_EQ(model.drift_ppm(), 0.0);
}

}  // namespace
}  // namespace overlap::clock
