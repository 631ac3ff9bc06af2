#include "measure/overlap_metrics.hpp"

#include <gtest/gtest.h>

namespace overlap::measure {
namespace {

// t_comm_ref, t_comp_ref, t_measured, t_call, t_comp, t_wait
OverlapTimes times(double comm, double comp, double measured, double call, double c, double wait) {
  return {comm, comp, measured, call, c, wait};
}

TEST(OverlapMetrics, PerfectOverlapIsZeroSerialisedIsOne) {
  // The paper's limit cases (sec. 3.1): t_measured = max(refs) and = sum(refs).
  EXPECT_DOUBLE_EQ(*r_overhead(times(4, 10, 10, 0, 10, 0)), 0.0);
  EXPECT_DOUBLE_EQ(*r_overhead(times(4, 10, 14, 0, 10, 4)), 1.0);
  EXPECT_DOUBLE_EQ(*r_overhead(times(10, 4, 14, 0, 4, 10)), 1.0);
}

TEST(OverlapMetrics, OverheadIsNormalisedByTheShorterReference) {
  // 16 ms comm, 4 ms comp, 18 ms measured: 2 ms over ideal out of 4 ms possible.
  EXPECT_NEAR(*r_overhead(times(0.016, 0.004, 0.018, 0, 0.004, 0.014)), 0.5, 1e-12);
  // Slower than serialised: > 1. Faster than ideal (noisy references): < 0.
  EXPECT_DOUBLE_EQ(*r_overhead(times(2, 2, 6, 0, 2, 4)), 2.0);
  EXPECT_DOUBLE_EQ(*r_overhead(times(2, 2, 1.5, 0, 1.5, 0)), -0.25);
}

TEST(OverlapMetrics, ConcurrencyRatios) {
  const OverlapTimes t = times(0.010, 0.020, 0.031, 0.001, 0.025, 0.005);
  EXPECT_DOUBLE_EQ(*r_comm(t), 0.6);
  EXPECT_DOUBLE_EQ(*r_comp_slowdown(t), 1.25);
  // 10 ms of communication could have hidden; 6 ms still happened inside MPI calls.
  EXPECT_DOUBLE_EQ(*progressed_fraction(t), 0.4);
  // 5 ms lost by the computation, in units of the 10 ms overlap could save.
  EXPECT_NEAR(*r_comp_loss(t), 0.5, 1e-12);
}

TEST(OverlapMetrics, ComputationLossIsJudgedAgainstWhatOverlapCouldSave) {
  // 64 ms computation, 4 ms collective: 10 % slower computation costs 6.4 ms, 1.6 times
  // the whole collective, although r_comp_slowdown is only 1.10.
  const OverlapTimes t = times(0.004, 0.064, 0.0706, 0.0001, 0.0704, 0.0001);
  EXPECT_NEAR(*r_comp_slowdown(t), 1.1, 1e-12);
  EXPECT_NEAR(*r_comp_loss(t), 1.6, 1e-12);
}

TEST(OverlapMetrics, UndefinedWhenAReferenceIsNotPositive) {
  EXPECT_FALSE(r_overhead(times(0, 1, 1, 0, 1, 0)));
  EXPECT_FALSE(r_comm(times(0, 1, 1, 0, 1, 0)));
  EXPECT_FALSE(r_comp_slowdown(times(1, 0, 1, 0, 0, 1)));
  EXPECT_FALSE(r_comp_loss(times(1, 0, 1, 0, 0, 1)));
  EXPECT_FALSE(overlap_ratios(times(1, 0, 1, 0, 0, 1)));
  EXPECT_EQ(diagnose(overlap_ratios(times(1, 0, 1, 0, 0, 1))), Diagnosis::invalid);
}

TEST(OverlapMetrics, RatiosBundleAllFive) {
  const auto r = overlap_ratios(times(0.010, 0.020, 0.031, 0.001, 0.025, 0.005));
  ASSERT_TRUE(r);
  EXPECT_NEAR(r->r_overhead, 1.1, 1e-12);
  EXPECT_DOUBLE_EQ(r->r_comm, 0.6);
  EXPECT_DOUBLE_EQ(r->r_comp_slowdown, 1.25);
  EXPECT_DOUBLE_EQ(r->progressed, 0.4);
  EXPECT_NEAR(r->r_comp_loss, 0.5, 1e-12);
}

}  // namespace
}  // namespace overlap::measure
