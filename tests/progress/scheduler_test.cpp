// The scheduler and the engine against the fake network: interleaving of graphs,
// collaborative progress from several threads, and wake-ups of the progress thread.
// These tests also run under ThreadSanitizer (scripts/test --tsan).
#include "progress/scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "progress/fake_network.hpp"
#include "progress/progress_engine.hpp"

namespace overlap::progress {
namespace {

using namespace std::chrono_literals;

// One int from `from` to `to`, as a pair of one-task graphs.
struct Exchange {
  std::shared_ptr<TaskGraph> sender, receiver;
  int value = 0, received = -1;
  Exchange(testing::FakeNetwork& net, int context, int from, int to, int v) : value(v) {
    sender = std::make_shared<TaskGraph>(net.endpoint(from, context));
    receiver = std::make_shared<TaskGraph>(net.endpoint(to, context));
    sender->send(&value, sizeof value, to, 0);
    receiver->recv(&received, sizeof received, from, 0);
  }
};

bool wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(50us);
  }
  return true;
}

TEST(Scheduler, AGraphStuckOnASlowLinkDoesNotHoldBackAnother) {
  testing::FakeNetwork net(2);
  Scheduler s0, s1;
  Exchange slow(net, 1, 1, 0, 11), fast(net, 2, 1, 0, 22);
  net.hold(1, 0, true);
  s0.submit(slow.receiver);
  s1.submit(slow.sender);
  for (int i = 0; i < 5; ++i) s0.progress(), s1.progress();
  EXPECT_FALSE(slow.receiver->complete());
  // A second collective on the same ranks, over another link direction, finishes first.
  Exchange other(net, 3, 0, 1, 33);
  s0.submit(other.sender);
  s1.submit(other.receiver);
  for (int i = 0; i < 5; ++i) s0.progress(), s1.progress();
  EXPECT_TRUE(other.receiver->complete());
  EXPECT_TRUE(other.sender->complete());
  EXPECT_EQ(other.received, 33);
  EXPECT_EQ(s0.in_flight(), 1u);
  net.hold(1, 0, false);
  for (int i = 0; i < 5; ++i) s0.progress(), s1.progress();
  EXPECT_TRUE(slow.receiver->complete());
  EXPECT_EQ(slow.received, 11);
  EXPECT_EQ(s0.in_flight(), 0u);
  EXPECT_EQ(s1.in_flight(), 0u);
  (void)fast;
}

TEST(Scheduler, ReentrantPassReturnsZeroInsteadOfDeadlocking) {
  testing::FakeNetwork net(1);
  Scheduler s;
  auto g = std::make_shared<TaskGraph>(net.endpoint(0, 0));
  int nested = -1;
  g->on_complete([&] { nested = s.progress(); });  // like an MPI hook called from MPI_Test
  s.submit(g);
  EXPECT_GT(s.progress(), 0);
  EXPECT_EQ(nested, 0);
}

TEST(Scheduler, WaitForWorkSeesASubmitThatRacesWithIt) {
  // Repeated: a waiter that checks "in flight" and then sleeps must not miss the submit.
  testing::FakeNetwork net(1);
  for (int round = 0; round < 200; ++round) {
    Scheduler s;
    std::atomic<bool> woke{false};
    std::thread waiter([&] { woke = s.wait_for_work(); });
    if (round % 2 == 0) std::this_thread::yield();
    s.submit(std::make_shared<TaskGraph>(net.endpoint(0, round)));
    waiter.join();
    EXPECT_TRUE(woke.load());
    s.progress();
    EXPECT_EQ(s.in_flight(), 0u);
  }
}

class EngineTest : public ::testing::TestWithParam<ProgressPolicy> {};

// Two "processes", each with its own engine, exchange messages; nobody but the engines'
// own threads progresses them (for caller, the waiting thread does).
TEST_P(EngineTest, CompletesEveryExchangeWithoutLostWakeUps) {
  EngineConfig config;
  config.policy = GetParam();
  config.exclusive_core = false;
  config.core_index = 0;
  config.backoff.min_sleep = 1us;
  config.backoff.max_sleep = 100us;
  ProgressEngine e0(config), e1(config);
  if (!e0.error().empty()) GTEST_SKIP() << e0.error();
  testing::FakeNetwork net(2);
  for (int i = 0; i < 300; ++i) {
    Exchange x(net, i, i % 2, 1 - i % 2, i);
    auto& from = i % 2 == 0 ? e0 : e1;
    auto& to = i % 2 == 0 ? e1 : e0;
    to.submit(x.receiver);
    if (i % 3 == 0) std::this_thread::sleep_for(20us);  // let the threads go idle
    from.submit(x.sender);
    if (GetParam() == ProgressPolicy::caller) {
      std::thread helper([&] { from.wait(*x.sender); });
      to.wait(*x.receiver);
      helper.join();
    } else {
      ASSERT_TRUE(wait_until([&] { return x.receiver->complete() && x.sender->complete(); }))
          << "exchange " << i << " never completed";
    }
    ASSERT_EQ(x.received, i);
  }
}

TEST_P(EngineTest, ManyThreadsWaitingOnDifferentGraphsAllFinish) {
  EngineConfig config;
  config.policy = GetParam();
  config.exclusive_core = false;
  config.core_index = 0;
  ProgressEngine a(config), b(config);
  if (!a.error().empty()) GTEST_SKIP() << a.error();
  testing::FakeNetwork net(2);
  constexpr int kThreads = 3, kRounds = 50;
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  // Thread pairs play the two processes: each side waits only on its own engine, so in
  // the caller policy a thread's wait must progress the other threads' graphs too.
  std::vector<std::unique_ptr<Exchange>> xs(kThreads * kRounds);
  for (int i = 0; i < kThreads * kRounds; ++i)
    xs[static_cast<std::size_t>(i)] = std::make_unique<Exchange>(net, i, 0, 1, i);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        auto& x = *xs[static_cast<std::size_t>(t * kRounds + r)];
        a.submit(x.sender);
        a.wait(*x.sender);
      }
    });
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        auto& x = *xs[static_cast<std::size_t>(t * kRounds + r)];
        b.submit(x.receiver);
        b.wait(*x.receiver);
        if (x.received != t * kRounds + r) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(a.in_flight(), 0u);
  EXPECT_EQ(b.in_flight(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Policies, EngineTest,
                         ::testing::Values(ProgressPolicy::caller, ProgressPolicy::shared,
                                           ProgressPolicy::dedicated),
                         [](const auto& info) { return std::string(policy_name(info.param)); });

TEST(Engine, SharedThreadSleepsWhenIdleAndBacksOffWhileWaiting) {
  EngineConfig config;
  config.policy = ProgressPolicy::shared;
  config.backoff.min_sleep = 10us;
  config.backoff.max_sleep = 1000us;
  ProgressEngine e(config);
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(e.thread_stats().passes, 0u) << "an idle engine must not poll";
  testing::FakeNetwork net(2);
  Exchange stuck(net, 0, 1, 0, 1);
  const auto submitted = std::chrono::steady_clock::now();
  e.submit(stuck.receiver);  // no sender: nothing can happen
  std::this_thread::sleep_for(60ms);
  const auto st = e.thread_stats();
  const auto waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - submitted)
                             .count();
  // Not a timing assertion: the bound counts pauses in the time that really passed. The
  // pause doubles 20, 40, ... µs up to 1 ms (7 passes within the first 2 ms), and no pause
  // is shorter than asked, so there is at most one more pass per elapsed millisecond. A
  // fixed 10 µs poll would make about a hundred.
  EXPECT_GT(st.passes, 0u);
  EXPECT_LE(st.passes, 8u + static_cast<std::uint64_t>(waited_ms));
  Scheduler other;
  other.submit(stuck.sender);
  other.progress();
  EXPECT_TRUE(wait_until([&] { return stuck.receiver->complete(); }));
}

TEST(Backoff, DoublesWhileIdleAndResetsOnWork) {
  Backoff b({10us, 80us});
  EXPECT_EQ(b.next(0), 20us);
  EXPECT_EQ(b.next(0), 40us);
  EXPECT_EQ(b.next(0), 80us);
  EXPECT_EQ(b.next(0), 80us);
  EXPECT_EQ(b.next(3), 10us);
  EXPECT_EQ(b.next(0), 20us);
}

TEST(Policy, ParsesNamesAndEnvironment) {
  EXPECT_EQ(parse_policy("shared"), ProgressPolicy::shared);
  EXPECT_FALSE(parse_policy("fast").has_value());
  setenv("OVERLAP_PROGRESS", "dedicated", 1);
  setenv("OVERLAP_SHARED_MAX_SLEEP_US", "300", 1);
  auto r = config_from_environment(std::nullopt);
  EXPECT_TRUE(r.error.empty());
  EXPECT_EQ(r.config.policy, ProgressPolicy::dedicated);
  EXPECT_EQ(r.config.backoff.max_sleep, 300us);
  EXPECT_EQ(config_from_environment(ProgressPolicy::caller).config.policy, ProgressPolicy::caller);
  setenv("OVERLAP_PROGRESS", "fast", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).error,
            "OVERLAP_PROGRESS='fast' is not one of: caller, shared, dedicated");
  setenv("OVERLAP_PROGRESS", "shared", 1);
  setenv("OVERLAP_SHARED_MAX_SLEEP_US", "1x", 1);
  EXPECT_NE(config_from_environment(std::nullopt).error.find("OVERLAP_SHARED_MAX_SLEEP_US='1x'"),
            std::string::npos);
  unsetenv("OVERLAP_PROGRESS");
  unsetenv("OVERLAP_SHARED_MAX_SLEEP_US");
}

}  // namespace
}  // namespace overlap::progress
