// The doorbell progress threads pause on: a ring is never lost between noting the count
// and sleeping, and a wait ends at the ring, not at its timeout.
#include "progress/doorbell.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace overlap::progress {
namespace {

using namespace std::chrono_literals;

TEST(Doorbell, ARingBeforeTheWaitEndsItAtOnce) {
  Doorbell bell;
  const std::uint32_t seen = bell.rings();
  bell.ring();
  EXPECT_EQ(bell.rings(), seen + 1);
  // A lost ring would sleep the whole minute: far beyond the bound below, however busy
  // the machine.
  const auto start = std::chrono::steady_clock::now();
  bell.wait(seen, std::chrono::duration_cast<std::chrono::microseconds>(60s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "the earlier ring was lost";
}

TEST(Doorbell, ARingWakesASleeper) {
  Doorbell bell;
  std::atomic<bool> back{false};
  std::jthread waiter([&] {
    const std::uint32_t seen = bell.rings();
    bell.wait(seen, std::chrono::duration_cast<std::chrono::microseconds>(60s));
    back = true;
  });
  // Rings until the sleeper is back: whether it slept yet or not, one ring ends its wait.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (!back.load() && std::chrono::steady_clock::now() < deadline) {
    bell.ring();
    std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(back.load()) << "rings for 20 s did not end a 60 s wait";
}

TEST(Doorbell, AWaitWithoutRingEndsAtItsTimeout) {
  Doorbell bell;
  const auto start = std::chrono::steady_clock::now();
  bell.wait(bell.rings(), 2ms);
  // No ring and no signal in this process: the futex wait ends by its timeout, neither
  // before it nor never.
  EXPECT_GE(std::chrono::steady_clock::now() - start, 1ms) << "returned before any timeout";
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s) << "the timeout was not applied";
  bell.wait(bell.rings(), 0us);  // no wait at all
}

}  // namespace
}  // namespace overlap::progress
