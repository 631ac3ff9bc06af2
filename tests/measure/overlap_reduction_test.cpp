#include "measure/overlap_reduction.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace overlap::measure {
namespace {

// comm_start, comm_end (global), comm_local, comp_ref, t1, t4 (global), call, comp, wait, late
RankIteration rank(double cs, double ce, double cl, double cref, double t1, double t4, double call,
                   double comp, double wait, bool late = false) {
  return {cs, ce, cl, cref, t1, t4, call, comp, wait, 0.0, late};
}

// Two ranks, three iterations, the middle one with a late barrier exit. Every expected
// value below is worked by hand from these numbers.
std::vector<std::vector<RankIteration>> two_ranks() {
  return {
      {rank(100.000, 100.010, 0.010, 0.020, 200.000, 200.031, 0.001, 0.020, 0.010),
       rank(100.001, 100.012, 0.011, 0.021, 200.002, 200.030, 0.008, 0.019, 0.001)},
      {rank(150.000, 150.001, 0.001, 0.001, 160.000, 160.001, 0.0, 0.001, 0.0),
       rank(150.000, 150.001, 0.001, 0.001, 160.000, 160.001, 0.0, 0.001, 0.0, true)},
      {rank(300.000, 300.014, 0.014, 0.022, 400.000, 400.024, 0.002, 0.021, 0.001),
       rank(300.000, 300.013, 0.013, 0.020, 400.001, 400.027, 0.001, 0.022, 0.003)},
  };
}

TEST(OverlapReduction, LateIterationsAreDiscardedAndCounted) {
  const OverlapPointStats s = reduce_overlap(two_ranks());
  EXPECT_TRUE(s.valid) << s.invalid_reason;
  EXPECT_EQ(s.kept, 2);
  EXPECT_EQ(s.discarded, 1);
  ASSERT_EQ(s.samples.size(), 2u);
}

TEST(OverlapReduction, EachIterationReducesOverRanksAsThePaperSays) {
  const OverlapPointStats s = reduce_overlap(two_ranks());
  // Iteration 0: collective from 100.000 (rank 0 enters) to 100.012 (rank 1 leaves).
  EXPECT_NEAR(s.samples[0].t_comm_ref, 0.012, 1e-9);
  EXPECT_NEAR(s.samples[0].t_comp_ref, 0.021, 1e-12);  // the slower rank
  EXPECT_NEAR(s.samples[0].t_measured, 0.031, 1e-9);   // 200.000 .. 200.031
  // Rank 0 went through 31 ms itself, rank 1 through 28 ms: rank 0 paces, and its own
  // phases are taken together. Phase maxima over ranks would give call 8 ms + wait 10 ms.
  EXPECT_EQ(s.samples[0].pacing_rank, 0);
  EXPECT_DOUBLE_EQ(s.samples[0].t_call, 0.001);
  EXPECT_DOUBLE_EQ(s.samples[0].t_comp, 0.020);
  EXPECT_DOUBLE_EQ(s.samples[0].t_wait, 0.010);
  // Iteration 2: rank 1 paces (26 ms against 24 ms).
  EXPECT_EQ(s.samples[1].pacing_rank, 1);
  EXPECT_NEAR(s.samples[1].t_comm_ref, 0.014, 1e-9);
  EXPECT_NEAR(s.samples[1].t_measured, 0.027, 1e-9);
  EXPECT_DOUBLE_EQ(s.samples[1].t_wait, 0.003);
}

TEST(OverlapReduction, MediansQuartilesAndRatiosOverKeptIterations) {
  const OverlapPointStats s = reduce_overlap(two_ranks());
  // Two kept iterations: the median is their mean, the quartiles a quarter of the way.
  EXPECT_NEAR(s.t_comm_ref.median, 0.013, 1e-9);
  EXPECT_NEAR(s.t_comp_ref.median, 0.0215, 1e-12);
  EXPECT_NEAR(s.t_measured.median, 0.029, 1e-9);
  EXPECT_NEAR(s.t_measured.p25, 0.028, 1e-9);
  EXPECT_NEAR(s.t_measured.p75, 0.030, 1e-9);
  EXPECT_NEAR(s.t_in_mpi.median, 0.0075, 1e-12);  // (11 ms + 4 ms) / 2
  // r_overhead per iteration against the median references: (31 - 21.5) / 13 and
  // (27 - 21.5) / 13; the median equals the formula on the median t_measured.
  EXPECT_NEAR(s.r_overhead.median, (0.029 - 0.0215) / 0.013, 1e-9);
  EXPECT_NEAR(s.r_overhead.p25, (0.028 - 0.0215) / 0.013, 1e-9);
  EXPECT_NEAR(s.r_overhead.p75, (0.030 - 0.0215) / 0.013, 1e-9);
  // r_comm from one rank's call + wait: 11/13 and 4/13.
  EXPECT_NEAR(s.r_comm.median, 0.0075 / 0.013, 1e-9);
  EXPECT_NEAR(s.r_comm.p25, (0.004 + 0.25 * 0.007) / 0.013, 1e-9);
  EXPECT_NEAR(s.r_comp_slowdown.median, 0.021 / 0.0215, 1e-9);
  // 5.5 of 13 ms progressed during the computation: under one half, no progression.
  EXPECT_NEAR(s.progressed, (0.013 - 0.0075) / 0.013, 1e-9);
  EXPECT_EQ(s.diagnosis, Diagnosis::no_progression);
}

// Nothing progresses during the computation (MPI's own collective): each rank computes
// exactly as long as its bare computation, and the rank whose computation was quicker
// waits longest, so it paces. Its own t_comp against the slowest rank's reference read
// 0.9 here; the slowest rank's t_comp against the same reference reads 1, as it must.
TEST(OverlapReduction, SlowdownComparesTheSlowestRankWithTheSlowestReference) {
  const std::vector<std::vector<RankIteration>> its = {
      {rank(100.0, 100.010, 0.010, 0.018, 200.0, 200.030, 0.0, 0.018, 0.012),
       rank(100.0, 100.010, 0.010, 0.020, 200.0, 200.030, 0.0, 0.020, 0.010)},
  };
  const OverlapPointStats s = reduce_overlap(its);
  ASSERT_TRUE(s.valid) << s.invalid_reason;
  EXPECT_EQ(s.samples[0].pacing_rank, 0);  // 30 ms of its own, ties go to the first rank
  EXPECT_DOUBLE_EQ(s.samples[0].t_comp, 0.018);
  EXPECT_DOUBLE_EQ(s.samples[0].t_comp_max, 0.020);
  EXPECT_NEAR(s.t_comp_max.median, 0.020, 1e-12);
  EXPECT_NEAR(s.r_comp_slowdown.median, 1.0, 1e-12);
}

TEST(OverlapReduction, PeerPercentagesUseEachRanksMeans) {
  const OverlapPointStats s = reduce_overlap(two_ranks());
  // Rank means over the kept iterations: rank 0 overall 27.5, compute 20.5, pure 12 ms;
  // rank 1 overall 27, compute 20.5, pure 12 ms.
  // OSU: 100 - 100 (27.25 - 20.5) / 12 = 43.75 %.
  EXPECT_NEAR(*s.osu_on_nbc_times_pct, 43.75, 1e-9);
  // IMB: rank 0 (largest overall): (12 + 20.5 - 27.5) / 20.5 = 24.39 %.
  EXPECT_NEAR(*s.imb_on_nbc_times_pct, 100.0 * 5.0 / 20.5, 1e-9);
  // The means themselves are in the point, so a file can be recomputed from itself.
  ASSERT_EQ(s.ranks.size(), 2u);
  EXPECT_NEAR(s.ranks[0].overall, 0.0275, 1e-12);
  EXPECT_NEAR(s.ranks[0].call, 0.0015, 1e-12);
  EXPECT_NEAR(s.ranks[1].wait, 0.002, 1e-12);
  EXPECT_NEAR(s.ranks[1].pure, 0.012, 1e-12);
  EXPECT_NEAR(s.ranks[0].comp_ref, 0.021, 1e-12);
  EXPECT_NEAR(s.ranks[1].comp_ref, 0.0205, 1e-12);
  EXPECT_NEAR(s.comp_speed_spread, 0.021 / 0.0205, 1e-12);
}

TEST(OverlapReduction, AllIterationsLateIsInvalidWithTheCount) {
  auto its = two_ranks();
  for (auto& ranks : its) ranks[1].late = true;
  const OverlapPointStats s = reduce_overlap(its);
  EXPECT_FALSE(s.valid);
  EXPECT_EQ(s.kept, 0);
  EXPECT_EQ(s.discarded, 3);
  EXPECT_NE(s.invalid_reason.find("all 3 iterations"), std::string::npos) << s.invalid_reason;
  EXPECT_EQ(s.diagnosis, Diagnosis::invalid);
}

TEST(OverlapReduction, RejectsRaggedInput) {
  auto its = two_ranks();
  its[2].pop_back();
  EXPECT_THROW(reduce_overlap(its), std::invalid_argument);
  EXPECT_FALSE(reduce_overlap({}).valid);
}

}  // namespace
}  // namespace overlap::measure
