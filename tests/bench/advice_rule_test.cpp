#include "bench/advise/advice_rule.hpp"

#include <gtest/gtest.h>

namespace overlap::bench {
namespace {

AdvisePoint measured(AdviseSetup s, double t) {
  AdvisePoint p;
  p.setup = s;
  p.status = AdviseStatus::measured;
  p.t_iter = measure::Spread{t, t, t};
  p.how = how_to_get(s, true, 4);
  return p;
}

AdvisePoint skipped(AdviseSetup s) {
  AdvisePoint p;
  p.setup = s;
  p.status = AdviseStatus::skipped;
  p.reason = "not here";
  return p;
}

TEST(AdviceRule, FastestWhenNothingSimplerIsWithinTheMargin) {
  const AdvisePoint a =
      advise({measured(AdviseSetup::mpi, 10e-3), measured(AdviseSetup::shared, 9e-3),
              measured(AdviseSetup::dedicated_core, 6e-3)},
             0.03);
  ASSERT_EQ(a.status, AdviseStatus::measured);
  EXPECT_EQ(a.recommended, AdviseSetup::dedicated_core);
  EXPECT_DOUBLE_EQ(*a.predicted_s, 6e-3);
  EXPECT_EQ(a.baseline, AdviseSetup::mpi);
  EXPECT_DOUBLE_EQ(*a.speedup, 10e-3 / 6e-3);
  EXPECT_EQ(a.how, how_to_get(AdviseSetup::dedicated_core, true, 4));
  EXPECT_TRUE(a.reason.empty());
}

TEST(AdviceRule, SimplerWithinTheMarginWinsWhateverTheOrderOfThePoints) {
  // dedicated+core is 2 % faster than caller: caller is advised, and says why.
  const AdvisePoint a =
      advise({measured(AdviseSetup::dedicated_core, 9.8e-3), measured(AdviseSetup::mpi, 12e-3),
              measured(AdviseSetup::caller, 10e-3)},
             0.03);
  EXPECT_EQ(a.recommended, AdviseSetup::caller);
  EXPECT_DOUBLE_EQ(*a.predicted_s, 10e-3);
  EXPECT_NE(a.reason.find("within 3 %"), std::string::npos);
  // With a 1 % margin the faster one is advised.
  EXPECT_EQ(
      advise({measured(AdviseSetup::dedicated_core, 9.8e-3), measured(AdviseSetup::caller, 10e-3)},
             0.01)
          .recommended,
      AdviseSetup::dedicated_core);
}

TEST(AdviceRule, SaysWhenTheRunnerUpIsWithinTheMeasuredSpread) {
  AdvisePoint mpi = measured(AdviseSetup::mpi, 10e-3);
  AdvisePoint shared = measured(AdviseSetup::shared, 6e-3);
  shared.t_iter = measure::Spread{6e-3, 5.5e-3, 6.5e-3};
  AdvisePoint core = measured(AdviseSetup::shared_core, 6.4e-3);
  core.t_iter = measure::Spread{6.4e-3, 6.2e-3, 7e-3};
  const AdvisePoint a = advise({mpi, shared, core}, 0.03);
  EXPECT_EQ(a.recommended, AdviseSetup::shared);
  EXPECT_NE(a.reason.find("shared+core"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("a repeat may advise it"), std::string::npos);
  // Apart: nothing said.
  core.t_iter = measure::Spread{6.8e-3, 6.6e-3, 7e-3};
  EXPECT_TRUE(advise({mpi, shared, core}, 0.03).reason.empty());
}

TEST(AdviceRule, SkippedAndInvalidSetUpsAndOldAdviceDoNotCount) {
  AdvisePoint invalid = measured(AdviseSetup::shared, 1e-3);
  invalid.status = AdviseStatus::invalid;
  AdvisePoint old = measured(AdviseSetup::advice, 0.5e-3);
  const AdvisePoint a = advise(
      {skipped(AdviseSetup::mpi), invalid, old, measured(AdviseSetup::dedicated, 5e-3)}, 0.03);
  EXPECT_EQ(a.recommended, AdviseSetup::dedicated);
  // No MPI set-up measured: no baseline, with why.
  EXPECT_FALSE(a.baseline);
  EXPECT_FALSE(a.speedup);
  EXPECT_TRUE(a.null_reasons.contains("speedup"));
}

TEST(AdviceRule, BaselineIsMpiAsyncWhenTheRunHasItOn) {
  const AdvisePoint a = advise({skipped(AdviseSetup::mpi), measured(AdviseSetup::mpi_async, 8e-3),
                                measured(AdviseSetup::shared, 4e-3)},
                               0.03);
  EXPECT_EQ(a.baseline, AdviseSetup::mpi_async);
  EXPECT_DOUBLE_EQ(*a.speedup, 2.0);
}

TEST(AdviceRule, NothingMeasuredIsInvalidWithAReason) {
  const AdvisePoint a = advise({skipped(AdviseSetup::mpi), skipped(AdviseSetup::caller)}, 0.03);
  EXPECT_EQ(a.status, AdviseStatus::invalid);
  EXPECT_FALSE(a.recommended);
  EXPECT_FALSE(a.reason.empty());
  EXPECT_EQ(advice_summary({a}).front(), "# no advice: " + a.reason);
}

TEST(AdviceRule, HowNamesTheMpiAndTheThreads) {
  EXPECT_NE(how_to_get(AdviseSetup::mpi_async, true, 4).find("MPICH_ASYNC_PROGRESS=1"),
            std::string::npos);
  EXPECT_NE(how_to_get(AdviseSetup::mpi_async, false, 4).find("btl_tcp_progress_thread=1"),
            std::string::npos);
  EXPECT_NE(how_to_get(AdviseSetup::shared_core, true, 4).find("OMP_NUM_THREADS=3 "),
            std::string::npos);
  EXPECT_NE(how_to_get(AdviseSetup::caller, true, 4).find("--progress caller"), std::string::npos);
  for (AdviseSetup s : kAdviseSetupNames.values()) {
    if (s != AdviseSetup::advice) EXPECT_FALSE(how_to_get(s, true, 2).empty());
  }
}

TEST(AdviceRule, SummaryGivesTheAdviceTheTimesAndHow) {
  std::vector<AdvisePoint> points = {measured(AdviseSetup::mpi, 10e-3),
                                     measured(AdviseSetup::shared, 5e-3),
                                     skipped(AdviseSetup::dedicated_core)};
  points.push_back(advise(points, 0.03));
  const std::vector<std::string> lines = advice_summary(points);
  ASSERT_GE(lines.size(), 3U);
  EXPECT_NE(lines[0].find("# advice: shared"), std::string::npos);
  EXPECT_NE(lines[0].find("2.00x"), std::string::npos);
  EXPECT_NE(lines[1].find("--progress shared"), std::string::npos);
  EXPECT_NE(lines.back().find("1 set-up(s) not measured"), std::string::npos);
}

}  // namespace
}  // namespace overlap::bench
