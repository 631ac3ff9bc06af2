#include "bench/advise/advice_rule.hpp"

#include <gtest/gtest.h>

#include <tuple>

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
  shared.t_iter = measure::Spread{6e-3, 5.8e-3, 6.5e-3};
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
  EXPECT_EQ(advice_summary({a}, 0.03).front(), "# no advice: " + a.reason);
}

TEST(AdviceRule, HowNamesTheMpiAndTheThreads) {
  EXPECT_NE(how_to_get(AdviseSetup::mpi_async, true, 4).find("MPICH_ASYNC_PROGRESS=1"),
            std::string::npos);
  EXPECT_NE(how_to_get(AdviseSetup::mpi_async, false, 4).find("btl_tcp_progress_thread=1"),
            std::string::npos);
  EXPECT_NE(how_to_get(AdviseSetup::shared_core, true, 4).find("OMP_NUM_THREADS=3 "),
            std::string::npos);
  EXPECT_NE(how_to_get(AdviseSetup::caller, true, 4).find("--progress caller"), std::string::npos);
  // A program's own point-to-point: overlap-run drives it under caller too.
  EXPECT_NE(how_to_get(AdviseSetup::caller, true, 4, true).find("overlap-run --progress caller --"),
            std::string::npos);
  EXPECT_EQ(how_to_get(AdviseSetup::caller, true, 4, true).find("leaves a program's own"),
            std::string::npos);
  for (AdviseSetup s : kAdviseSetupNames.values()) {
    if (s < AdviseSetup::advice) EXPECT_FALSE(how_to_get(s, true, 2).empty());
  }
}

TEST(AdviceRule, SummaryGivesTheAdviceTheTimesAndHow) {
  std::vector<AdvisePoint> points = {measured(AdviseSetup::mpi, 10e-3),
                                     measured(AdviseSetup::shared, 5e-3),
                                     skipped(AdviseSetup::dedicated_core)};
  points.push_back(advise(points, 0.03));
  const std::vector<std::string> lines = advice_summary(points, 0.03);
  ASSERT_GE(lines.size(), 3U);
  EXPECT_NE(lines[0].find("# advice: shared"), std::string::npos);
  EXPECT_NE(lines[0].find("2.00x"), std::string::npos);
  EXPECT_NE(lines[1].find("--progress shared"), std::string::npos);
  EXPECT_NE(lines.back().find("1 set-up(s) not measured"), std::string::npos);
}

AdvisePoint in_cell(AdvisePoint p, long bytes, double comp) {
  p.cell_bytes = bytes;
  p.cell_comp_s = comp;
  return p;
}

// Two cells: small messages, where MPI's own is best and shared costs 10 %, and large ones,
// where shared halves the time and caller gains 5 %.
std::vector<AdvisePoint> two_cells() {
  std::vector<AdvisePoint> points;
  for (const auto& [bytes, mpi, caller, shared] :
       {std::tuple{1024L, 1.00e-3, 1.02e-3, 1.10e-3}, std::tuple{1L << 22, 10e-3, 9.5e-3, 5e-3}}) {
    std::vector<AdvisePoint> cell = {in_cell(measured(AdviseSetup::mpi, mpi), bytes, 4e-3),
                                     in_cell(measured(AdviseSetup::caller, caller), bytes, 4e-3),
                                     in_cell(measured(AdviseSetup::shared, shared), bytes, 4e-3)};
    cell.push_back(in_cell(advise(cell, 0.03), bytes, 4e-3));
    points.insert(points.end(), cell.begin(), cell.end());
  }
  return points;
}

TEST(AdviceRule, OverallTakesTheSmallestWorstLossOverTheCells) {
  const OverallAdvice o = overall_advice(two_cells(), 0.03);
  // Worst losses: mpi 100 % (large cell), caller 90 %, shared 10 % (small cell).
  ASSERT_TRUE(o.setup);
  EXPECT_EQ(*o.setup, AdviseSetup::shared);
  EXPECT_NEAR(o.worst_loss, 0.10, 1e-12);
  EXPECT_EQ(o.cells, 2);
  EXPECT_EQ(o.within, 1);  // within 3 % of the fastest only in the large cell
  EXPECT_EQ(o.how, how_to_get(AdviseSetup::shared, true, 4));
}

TEST(AdviceRule, OverallPrefersTheSimplerWithinTheMarginOfTheLeastWorstLoss) {
  std::vector<AdvisePoint> points = two_cells();
  // caller now 11 % behind in the large cell: within 3 % of shared's worst (10 %).
  for (AdvisePoint& p : points) {
    if (p.setup == AdviseSetup::caller && p.cell_bytes == (1L << 22))
      p.t_iter = measure::Spread{5.55e-3, 5.55e-3, 5.55e-3};
  }
  const OverallAdvice o = overall_advice(points, 0.03);
  ASSERT_TRUE(o.setup);
  EXPECT_EQ(*o.setup, AdviseSetup::caller);
}

TEST(AdviceRule, OverallNeedsASetUpMeasuredInEveryCell) {
  std::vector<AdvisePoint> points = {in_cell(measured(AdviseSetup::mpi, 1e-3), 8, 1e-3),
                                     in_cell(measured(AdviseSetup::shared, 1e-3), 16, 1e-3),
                                     in_cell(skipped(AdviseSetup::mpi), 16, 1e-3)};
  EXPECT_FALSE(overall_advice(points, 0.03).setup);
}

TEST(AdviceRule, TheOverallPointRecordsTheOneForAll) {
  const AdvisePoint o = overall_point(two_cells(), 0.03);
  EXPECT_EQ(o.setup, AdviseSetup::overall);
  EXPECT_EQ(o.status, AdviseStatus::measured);
  EXPECT_EQ(o.recommended, AdviseSetup::shared);
  EXPECT_NEAR(*o.worst_loss, 0.10, 1e-12);
  EXPECT_EQ(o.cells_within, 1);
  EXPECT_EQ(o.cells, 2);
  EXPECT_EQ(o.progress, "");  // the measured() helper's shared point has none
  EXPECT_FALSE(o.cell_comp_s.has_value());
  // Recorded, the summary gives the recorded one.
  std::vector<AdvisePoint> points = two_cells();
  AdvisePoint recorded = o;
  recorded.reason = "as recorded";
  points.push_back(recorded);
  const std::vector<std::string> lines = advice_summary(points, 0.03);
  EXPECT_NE(lines[3].find("for every cell: shared — as recorded"), std::string::npos) << lines[3];
  // A cell whose advice was flagged imprecise makes the one for all imprecise too.
  std::vector<AdvisePoint> flagged = two_cells();
  flagged[3].reason = "imprecise: the loop of shared varied ...";
  EXPECT_EQ(overall_point(flagged, 0.03)
                .reason.rfind("imprecise: built on cells flagged imprecise (1 KiB, 4 ms)", 0),
            0u)
      << overall_point(flagged, 0.03).reason;
  // Nothing measured in every cell: invalid, with the reason.
  const AdvisePoint none = overall_point({in_cell(measured(AdviseSetup::mpi, 1e-3), 8, 1e-3),
                                          in_cell(measured(AdviseSetup::shared, 1e-3), 16, 1e-3)},
                                         0.03);
  EXPECT_EQ(none.status, AdviseStatus::invalid);
  EXPECT_NE(none.reason.find("every cell"), std::string::npos);
}

TEST(AdviceRule, SummaryOfSeveralCellsGivesEachAndTheOneForAll) {
  const std::vector<std::string> lines = advice_summary(two_cells(), 0.03);
  ASSERT_EQ(lines.size(), 5U);
  EXPECT_NE(lines[0].find("2 cells"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("1 KiB, 4 ms: advice: mpi"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("4 MiB, 4 ms: advice: shared"), std::string::npos) << lines[2];
  EXPECT_NE(lines[2].find("2.00x"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("for every cell: shared"), std::string::npos) << lines[3];
  EXPECT_NE(lines[3].find("at most 10 % slower"), std::string::npos) << lines[3];
  EXPECT_NE(lines[4].find("--progress shared"), std::string::npos) << lines[4];
}

AdvisePoint with_comp_alone(AdvisePoint p, double p25, double median, double p75) {
  p.free_cores = 0;
  p.nbc = NbcPoint{};
  p.nbc->t_comp_ref = measure::Spread{median, p25, p75};
  return p;
}

TEST(AdviceRule, TheMachinesSpeedChangingBetweenSetUpsIsSaidButLeavesTheAdvicePrecise) {
  // The same work alone: 4 ms while mpi's nbc point was measured, 6.5 ms while caller's was.
  // The loops are interleaved, so the comparison holds: said, not flagged imprecise.
  std::vector<AdvisePoint> points = {
      with_comp_alone(measured(AdviseSetup::mpi, 4.1e-3), 3.95e-3, 4e-3, 4.05e-3),
      with_comp_alone(measured(AdviseSetup::caller, 6.6e-3), 6.4e-3, 6.5e-3, 6.6e-3)};
  const AdvisePoint a = advise(points, 0.03);
  EXPECT_EQ(a.status, AdviseStatus::measured);
  EXPECT_EQ(a.recommended, AdviseSetup::mpi);
  EXPECT_NE(a.reason.find("the machine's speed changed during the run: the same computation "
                          "alone took 4 ms (mpi) to 6.5 ms (caller)"),
            std::string::npos)
      << a.reason;
  EXPECT_EQ(a.reason.find("imprecise"), std::string::npos) << a.reason;
  // The set-ups' loops measured apart (a cell finished by --resume): imprecise.
  const AdvisePoint apart = advise(points, 0.03, false);
  EXPECT_EQ(apart.reason.rfind("imprecise: the same computation alone took 4 ms (mpi) to 6.5 ms "
                               "(caller)",
                               0),
            0u)
      << apart.reason;
  EXPECT_NE(apart.reason.find("--resume"), std::string::npos) << apart.reason;
  points.push_back(a);
  EXPECT_EQ(advice_summary(points, 0.03)[1].find("imprecise"), std::string::npos);
  // Within the tolerance (ordinary variation on a virtual machine): nothing said.
  points = {with_comp_alone(measured(AdviseSetup::mpi, 4.1e-3), 3.95e-3, 4e-3, 4.05e-3),
            with_comp_alone(measured(AdviseSetup::caller, 4.9e-3), 4.8e-3, 4.9e-3, 5.5e-3)};
  EXPECT_EQ(advise(points, 0.03).reason.find("speed"), std::string::npos);
}

TEST(AdviceRule, ASetUpWhoseComputationVariedHasItsEvidenceMarked) {
  const AdvisePoint varied =
      with_comp_alone(measured(AdviseSetup::mpi, 7e-3), 3.9e-3, 4e-3, 7.3e-3);
  EXPECT_NE(evidence_note(varied).find("3.9 ms-7.3 ms (p25-p75)"), std::string::npos)
      << evidence_note(varied);
  EXPECT_TRUE(loop_note(varied).empty());
  const AdvisePoint steady =
      with_comp_alone(measured(AdviseSetup::caller, 4.1e-3), 3.95e-3, 4e-3, 4.05e-3);
  EXPECT_TRUE(evidence_note(steady).empty());
  // The evidence, not the time per iteration the advice compares.
  const AdvisePoint a = advise({varied, steady}, 0.03);
  EXPECT_EQ(a.reason.find("imprecise"), std::string::npos) << a.reason;
}

TEST(AdviceRule, ASetUpWhoseLoopBlocksVariedMakesTheAdviceImprecise) {
  AdvisePoint caller =
      with_comp_alone(measured(AdviseSetup::caller, 13.7e-3), 4.5e-3, 4.57e-3, 4.9e-3);
  caller.t_iter = measure::Spread{13.7e-3, 13.0e-3, 16.1e-3};
  EXPECT_EQ(loop_note(caller).rfind("imprecise: its loop's blocks took 13 ms-16.1 ms per "
                                    "iteration",
                                    0),
            0u)
      << loop_note(caller);
  AdvisePoint steady = caller;
  steady.t_iter = measure::Spread{13.7e-3, 13.0e-3, 14.9e-3};  // 14.6 % apart: fine
  EXPECT_TRUE(loop_note(steady).empty());
  const AdvisePoint a = advise(
      {with_comp_alone(measured(AdviseSetup::mpi, 20.9e-3), 4.7e-3, 4.9e-3, 5.4e-3), caller}, 0.03);
  EXPECT_EQ(a.recommended, AdviseSetup::caller);
  EXPECT_EQ(a.reason.rfind("imprecise: the loop of caller varied", 0), 0u) << a.reason;
  std::vector<AdvisePoint> points = {
      with_comp_alone(measured(AdviseSetup::mpi, 20.9e-3), 4.7e-3, 4.9e-3, 5.4e-3), caller, a};
  EXPECT_NE(advice_summary(points, 0.03)[1].find("imprecise"), std::string::npos);
}

}  // namespace
}  // namespace overlap::bench
