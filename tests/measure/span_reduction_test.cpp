#include "measure/span_reduction.hpp"

#include <gtest/gtest.h>

namespace overlap::measure {
namespace {

TEST(SpanReduction, TheSpanIsGlobalAndLateStartsAreLeftOutAndCounted) {
  // Three iterations from the sync barrier: the second had a rank leave the barrier late.
  // Its time would be the late rank's own, not the collective's: discarded, counted.
  // (ab6b786's latency took the largest local duration after an MPI_Barrier and kept all.)
  const Spans s = keep_spans({{10.000, 10.004, 0.003, false, {}},
                              {20.000, 20.009, 0.001, true, {}},
                              {30.001, 30.006, 0.005, false, {}}});
  ASSERT_EQ(s.span.size(), 2u);
  EXPECT_NEAR(s.span[0], 0.004, 1e-9);
  EXPECT_NEAR(s.span[1], 0.005, 1e-9);
  EXPECT_DOUBLE_EQ(s.slowest[0], 0.003);
  EXPECT_EQ(s.late, 1);
  EXPECT_EQ(s.overrun, 0);
  EXPECT_EQ(s.kept, (std::vector<bool>{true, false, true}));
}

TEST(SpanReduction, WindowsThatOverrunAreLeftOutAndCounted) {
  // Windows of 5 ms: the second ended 1 ms after its window closed.
  const Spans s = keep_spans({{0.000, 0.002, 0.002, false, 0.005},
                              {0.005, 0.011, 0.006, false, 0.010},
                              {0.010, 0.013, 0.003, true, 0.015},
                              {0.015, 0.017, 0.002, false, 0.020}});
  EXPECT_EQ(s.span.size(), 2u);
  EXPECT_EQ(s.overrun, 1);
  EXPECT_EQ(s.late, 1);  // a late window is counted once, as late
}

}  // namespace
}  // namespace overlap::measure
