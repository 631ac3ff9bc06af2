// PhaseAccounting's window bookkeeping (bench/cpu_record): which windows a total sums and
// which keep_only leaves, for benchmarks that discard iterations per phase (p2p). Samples
// real /proc counters of this process; asserts only on counts and on lower bounds that
// sleep_for guarantees, never on how long anything took.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "bench/common/cpu_record.hpp"

namespace overlap::bench {
namespace {

using P = PhaseAccounting;

// Three comp_alone windows; the middle one lasts at least 30 ms, the others 1 ms or more.
P three_windows() {
  P acc;
  for (int ms : {1, 30, 1}) {
    acc.mark();
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    acc.mark(P::comp_alone);
  }
  return acc;
}

TEST(PhaseAccounting, KeepOnlyLeavesTheKeptWindowsInOrder) {
  P acc = three_windows();
  if (!acc.available()) GTEST_SKIP() << acc.sampler().unavailable();
  ASSERT_EQ(acc.marked(P::comp_alone), 3);
  P middle = acc;
  middle.keep_only(P::comp_alone, {false, true, false});
  EXPECT_EQ(middle.marked(P::comp_alone), 1);
  EXPECT_GE(middle.total(P::comp_alone).usage.wall_s, 0.030);  // the long one was kept
  acc.keep_only(P::comp_alone, {true, false, true});
  EXPECT_EQ(acc.marked(P::comp_alone), 2);
  EXPECT_EQ(acc.total(P::comp_alone).windows, 2);
  // Other phases are untouched: never marked, nothing to sum.
  EXPECT_EQ(acc.total(P::overlapped).windows, 0);
}

TEST(PhaseAccounting, TotalSumsOnlyTheKeptWindows) {
  const P acc = three_windows();
  if (!acc.available()) GTEST_SKIP() << acc.sampler().unavailable();
  EXPECT_EQ(acc.total(P::comp_alone).windows, 3);
  EXPECT_EQ(acc.total(P::comp_alone, {false, true, false}).windows, 1);
  EXPECT_GE(acc.total(P::comp_alone, {false, true, false}).usage.wall_s, 0.030);
}

TEST(PhaseAccounting, FlagsMustMatchTheWindows) {
  P acc = three_windows();
  if (!acc.available()) GTEST_SKIP() << acc.sampler().unavailable();
  EXPECT_THROW(acc.total(P::comp_alone, {true, false}), std::invalid_argument);
  EXPECT_THROW(acc.keep_only(P::comp_alone, {true}), std::invalid_argument);
  EXPECT_EQ(acc.marked(P::comp_alone), 3);  // a refused keep_only changes nothing
}

}  // namespace
}  // namespace overlap::bench
