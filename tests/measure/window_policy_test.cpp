// coll's window rule on simulated batches: overruns widen the window and restart the
// sample, so the kept windows are not a sample with the slow tail cut off.
#include "measure/window_policy.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "measure/statistics.hpp"

namespace overlap::measure {
namespace {

TEST(WindowPolicy, AnOverrunWidensAndRestarts) {
  const WindowStep s = next_window_step({50, 0, 1}, 1e-3, false, false);
  EXPECT_TRUE(s.restart);
  EXPECT_DOUBLE_EQ(s.window, 2e-3);
}

TEST(WindowPolicy, AFewLateWindowsDoNot) {
  // Late starts are not about the collective's length: up to a quarter is tolerated.
  const WindowStep s = next_window_step({50, 12, 0}, 1e-3, false, false);
  EXPECT_FALSE(s.restart);
  EXPECT_DOUBLE_EQ(s.window, 1e-3);
  EXPECT_TRUE(next_window_step({50, 13, 0}, 1e-3, false, false).restart);
}

TEST(WindowPolicy, AFixedWindowOrTheLastBatchIsKept) {
  EXPECT_FALSE(next_window_step({50, 0, 40}, 1e-3, true, false).restart);
  EXPECT_FALSE(next_window_step({50, 0, 40}, 1e-3, false, true).restart);
}

// Collectives of which every fifth takes 2.4 times as long (a slow protocol path, a
// retransmission). Windows of 2 x the fast time make every slow one overrun.
double duration(int k) { return k % 5 == 4 ? 2.4e-3 : 1e-3; }

// A coll point as coll_bench runs it: batches until `iterations` windows are kept.
std::vector<double> sample(int iterations, double window) {
  std::vector<double> kept;
  int k = 0;
  for (int batch = 0; batch < 4 && static_cast<int>(kept.size()) < iterations; ++batch) {
    const int n = iterations - static_cast<int>(kept.size());
    std::vector<double> mine;
    WindowBatchOutcome out{n, 0, 0};
    for (int i = 0; i < n; ++i, ++k) {
      if (duration(k) > window) {
        ++out.overrun;
      } else {
        mine.push_back(duration(k));
      }
    }
    const WindowStep step = next_window_step(out, window, false, batch == 3);
    if (step.restart) {
      kept.clear();
      window = step.window;
      continue;
    }
    kept.insert(kept.end(), mine.begin(), mine.end());
  }
  return kept;
}

TEST(WindowPolicy, TheKeptSampleKeepsItsSlowTail) {
  const std::vector<double> kept = sample(50, 2e-3);
  ASSERT_EQ(kept.size(), 50u);
  // A fifth of the sample is slow, as a fifth of the collectives are. Discarding overruns
  // would have kept none of them: its 90 % quantile would read 1 ms instead of 2.4.
  EXPECT_DOUBLE_EQ(quantile(kept, 0.9), 2.4e-3);
  EXPECT_DOUBLE_EQ(median(kept), 1e-3);
}

// Every window tried is kept, late, overrun or restarted, also when a restart drops a
// sample whose kept batch had discarded a few (seen once in coll: 22 tried, 20 accounted).
TEST(WindowPolicy, TheTallyAccountsForEveryWindowTried) {
  WindowTally t;
  const auto whole = [&t] {
    return t.kept + t.kept_late + t.kept_overrun + t.late + t.overrun + t.restarted;
  };
  t.add({10, 2, 0}, 8, false);  // 2 late of 10: kept
  EXPECT_EQ(whole(), 10);
  t.add({2, 1, 1}, 0, true);  // an overrun: the sample restarts, the first batch dropped too
  EXPECT_EQ(t.windows, 12);
  EXPECT_EQ(t.restarted, 8);
  EXPECT_EQ(t.late, 3);
  EXPECT_EQ(t.overrun, 1);
  EXPECT_EQ(t.kept, 0);
  t.add({10, 0, 0}, 10, false);
  EXPECT_EQ(t.windows, 22);
  EXPECT_EQ(whole(), 22);
  EXPECT_EQ(t.kept, 10);
}

}  // namespace
}  // namespace overlap::measure
