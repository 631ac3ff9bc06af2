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
  // 10 ms of communication could have hidden; 4 ms still happened inside MPI calls.
  EXPECT_DOUBLE_EQ(*progressed_fraction(t), 0.4);
}

TEST(OverlapMetrics, UndefinedWhenAReferenceIsNotPositive) {
  EXPECT_FALSE(r_overhead(times(0, 1, 1, 0, 1, 0)));
  EXPECT_FALSE(r_comm(times(0, 1, 1, 0, 1, 0)));
  EXPECT_FALSE(r_comp_slowdown(times(1, 0, 1, 0, 0, 1)));
  EXPECT_EQ(diagnose(times(1, 0, 1, 0, 0, 1)), Diagnosis::invalid);
}

TEST(OverlapMetrics, DiagnosisFollowsSection33) {
  // Overlap: measured = max(refs), nothing left in Wait, computation unhurt.
  EXPECT_EQ(diagnose(times(10, 10, 10.5, 0.1, 10.2, 0.2)), Diagnosis::overlap);
  // No progression (3.3.1): the whole collective in Wait, computation unhurt.
  EXPECT_EQ(diagnose(times(10, 10, 20, 0.1, 10, 9.9)), Diagnosis::no_progression);
  // Also when the communication got slower, as the paper's Ireduce case.
  EXPECT_EQ(diagnose(times(10, 10, 25, 0.1, 10, 14.9)), Diagnosis::no_progression);
  // Computation slowdown (3.3.2): Wait is empty, but the computation took 1.8x.
  EXPECT_EQ(diagnose(times(10, 10, 18, 0.1, 18, 0.1)), Diagnosis::computation_slowdown);
  // Contention without overlap (3.3.3): both slower.
  EXPECT_EQ(diagnose(times(10, 10, 26, 0.5, 13, 12)), Diagnosis::contention_without_overlap);
  // Partial: half the collective hidden, computation unhurt.
  EXPECT_EQ(diagnose(times(10, 10, 15, 0.1, 10, 4.9)), Diagnosis::partial_overlap);
}

TEST(OverlapMetrics, ShortComputationIsNotMistakenForNoProgression) {
  // 16 ms collective, 2 ms computation, perfectly overlapped: r_comm is 0.875, but the
  // 2 ms that could be hidden were, so this is overlap, not "no progression".
  const OverlapTimes t = times(0.016, 0.002, 0.016, 0.0001, 0.002, 0.0139);
  EXPECT_NEAR(*r_comm(t), 0.875, 1e-12);
  EXPECT_EQ(diagnose(t), Diagnosis::overlap);
}

TEST(OverlapMetrics, OsuAveragesOverRanksAndClampsAtZero) {
  // Rank means: overall 15, compute 10, pure 10 -> 100 - 100 * 5/10 = 50 %.
  const std::vector<RankDurations> ranks{{14, 10, 9, 10}, {16, 10, 11, 10}};
  EXPECT_DOUBLE_EQ(*osu_overlap_pct(ranks), 50.0);
  // Serialised plus: overall - compute > pure: clamped to 0.
  EXPECT_DOUBLE_EQ(*osu_overlap_pct({{25, 10, 10, 10}}), 0.0);
  EXPECT_FALSE(osu_overlap_pct({}));
}

TEST(OverlapMetrics, ImbUsesMaximaOverRanksAndClampsToHundred) {
  // Maxima: ovrl 15, pure 10, CPU 10 -> (10 + 10 - 15) / 10 = 50 %.
  const std::vector<RankDurations> ranks{{15, 9, 8, 10}, {12, 10, 10, 9}};
  EXPECT_DOUBLE_EQ(*imb_overlap_pct(ranks), 50.0);
  EXPECT_DOUBLE_EQ(*imb_overlap_pct({{9, 9, 10, 10}}), 100.0);
  EXPECT_DOUBLE_EQ(*imb_overlap_pct({{30, 10, 10, 10}}), 0.0);
}

TEST(OverlapMetrics, ThreeMetricsCanDisagree) {
  // A progress thread that doubles the computation (the paper's MPICH async case): the
  // communication is fully overlapped, so OSU reports a high overlap, while the run is
  // slower than serialised and r_overhead says so.
  const OverlapTimes t = times(10, 10, 20.5, 0.2, 20, 0.3);
  const std::vector<RankDurations> ranks{{20.5, 20, 10, 10}};
  EXPECT_GT(*osu_overlap_pct(ranks), 90.0);
  EXPECT_GT(*r_overhead(t), 1.0);
  EXPECT_EQ(diagnose(t), Diagnosis::computation_slowdown);
}

TEST(OverlapMetrics, NamesAreStable) {
  EXPECT_EQ(to_string(Diagnosis::no_progression), "no_progression");
  EXPECT_EQ(to_string(Diagnosis::contention_without_overlap), "contention_without_overlap");
  EXPECT_FALSE(explain(Diagnosis::overlap).empty());
}

}  // namespace
}  // namespace overlap::measure
