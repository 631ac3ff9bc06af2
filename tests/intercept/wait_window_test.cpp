#include "intercept/runtime/wait_window.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "fake_handle.hpp"

namespace overlap::intercept {
namespace {

TEST(WaitWindow, EmptyHasNothing) {
  const WaitWindow w;
  const WaitWindow::Summary s = w.summary();
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.median_s, 0.0);
}

TEST(WaitWindow, ExactCountMeanMinMaxAndAMedianWithinItsBin) {
  WaitWindow w;
  // 1 ms x 5, 10 ms x 3, 100 us x 1: median 1 ms.
  for (int i = 0; i < 5; ++i) w.add(1'000'000);
  for (int i = 0; i < 3; ++i) w.add(10'000'000);
  w.add(100'000);
  const WaitWindow::Summary s = w.summary();
  EXPECT_EQ(s.count, 9u);
  EXPECT_DOUBLE_EQ(s.min_s, 100e-6);
  EXPECT_DOUBLE_EQ(s.max_s, 10e-3);
  EXPECT_NEAR(s.mean_s, (5 * 1e-3 + 3 * 10e-3 + 100e-6) / 9, 1e-12);
  EXPECT_NEAR(s.median_s, 1e-3, 1e-3 * 0.07);
}

TEST(WaitWindow, MedianTracksTheValueAcrossScales) {
  for (std::uint64_t ns : {3ull, 1000ull, 123'456ull, 4'000'000ull, 2'500'000'000ull}) {
    WaitWindow w;
    w.add(ns);
    w.add(ns);
    w.add(ns * 3);
    // One value seen twice: the median is clamped to what was seen, so exact.
    EXPECT_NEAR(w.summary().median_s, static_cast<double>(ns) * 1e-9,
                static_cast<double>(ns) * 1e-9 * 0.07)
        << ns;
  }
  WaitWindow spread;
  for (std::uint64_t ns = 1'000'000; ns <= 2'000'000; ns += 1000) spread.add(ns);
  EXPECT_NEAR(spread.summary().median_s, 1.5e-3, 1.5e-3 * 0.07);
}

TEST(WaitWindow, HugeValuesLandInTheLastBin) {
  WaitWindow w;
  w.add(~0ull);
  EXPECT_EQ(w.summary().count, 1u);
  EXPECT_GT(w.summary().median_s, 1e4);
}

TEST(WaitWindow, ConcurrentAddsAreAllCounted) {
  WaitWindow w;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&w, t] {
      for (int i = 0; i < 10000; ++i) w.add(static_cast<std::uint64_t>(1000 * (t + 1)));
    });
  for (auto& th : threads) th.join();
  const WaitWindow::Summary s = w.summary();
  EXPECT_EQ(s.count, 40000u);
  EXPECT_DOUBLE_EQ(s.min_s, 1e-6);
  EXPECT_DOUBLE_EQ(s.max_s, 4e-6);
}

TEST(WaitWindow, AnnouncementIsForThatRequestOnlyAndTakenOnce) {
  WaitWindow w;
  MPI_Request a = handle(0x10), b = handle(0x20);
  expect_wait_window(&w, &a);
  EXPECT_EQ(take_wait_window(&b), nullptr);  // another request variable: not its window
  EXPECT_EQ(take_wait_window(&a), nullptr);  // the announcement went with the first take
  expect_wait_window(&w, &a);
  a = handle(0x30);  // the variable now holds another handle
  EXPECT_EQ(take_wait_window(&a), nullptr);
  expect_wait_window(&w, &a);
  EXPECT_EQ(take_wait_window(&a), &w);
}

}  // namespace
}  // namespace overlap::intercept
