// The scheduler and the engine against the fake network: interleaving of graphs, one
// test per pass over everything in flight, requests posted by someone else, collaborative
// progress from several threads, wake-ups of the progress thread and the rescue thread.
// These tests also run under ThreadSanitizer (scripts/test --tsan).
#include "progress/scheduler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <dirent.h>

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

TEST(Scheduler, OnePassTestsEverythingInFlightInOneCall) {
  testing::FakeNetwork net(2);
  Scheduler s;
  std::vector<std::unique_ptr<Exchange>> xs;
  for (int i = 0; i < 20; ++i) {
    xs.push_back(std::make_unique<Exchange>(net, i, 1, 0, i));
    s.submit(xs.back()->receiver);  // 20 receives, nothing sent yet
  }
  s.progress();  // posts them all
  const auto before = net.test_calls();
  s.progress();
  EXPECT_EQ(net.test_calls() - before, 1u) << "one test_some per pass, not one per request";
  Scheduler other;
  for (auto& x : xs) other.submit(x->sender);
  for (int i = 0; i < 5 && s.in_flight() > 0; ++i) other.progress(), s.progress();
  EXPECT_EQ(s.in_flight(), 0u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(xs[static_cast<std::size_t>(i)]->received, i);
}

TEST(Scheduler, DrivesRequestsItDidNotPostAndCallsBackOnce) {
  testing::FakeNetwork net(2);
  Scheduler s;
  // A receive posted "by the application" (here: straight on an endpoint), handed over.
  auto endpoint = net.endpoint(0, 7);
  int value = 0;
  const progress::RequestSlot slot = endpoint->post_recv(&value, sizeof value, 1, 3);
  int calls = 0;
  s.watch(net.tester(), slot, [&](const RequestStatus&) { ++calls; });
  EXPECT_EQ(s.in_flight(), 1u);
  // A graph in flight at the same time: both are tested in the same call.
  Exchange x(net, 1, 1, 0, 5);
  s.submit(x.receiver);
  s.progress();
  s.progress();
  EXPECT_EQ(calls, 0);
  auto sender = net.endpoint(1, 7);
  int sent = 42;
  progress::RequestSlot send_slot = sender->post_send(&sent, sizeof sent, 0, 3);
  const auto before = net.test_calls();
  s.progress();
  EXPECT_EQ(net.test_calls() - before, 1u);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(value, 42);
  s.progress();
  EXPECT_EQ(calls, 1) << "called back once";
  EXPECT_EQ(s.in_flight(), 1u) << "the graph is still waiting for its sender";
  Scheduler other;
  other.submit(x.sender);
  for (int i = 0; i < 5 && s.in_flight() > 0; ++i) other.progress(), s.progress();
  EXPECT_EQ(s.in_flight(), 0u);
  std::vector<progress::RequestSlot> sends{send_slot};
  std::vector<std::size_t> done;
  net.tester().test_some(sends, done, nullptr);
  EXPECT_EQ(done.size(), 1u) << "the application's send completed too";
}

// A tester that only counts pokes (the application's own operations it drives are not
// the scheduler's business).
class PokeCounter : public RequestTester {
 public:
  void test_some(std::span<RequestSlot>, std::vector<std::size_t>&, RequestStatus*) override {}
  void cancel(RequestSlot) override {}
  void poke() override { pokes.fetch_add(1); }
  std::atomic<int> pokes{0};
};

TEST(Scheduler, HoldPokesEveryPassUntilReleasedAndCountsAsInFlight) {
  Scheduler s;
  PokeCounter t;
  s.progress();
  EXPECT_EQ(t.pokes.load(), 0) << "no hold, no poke";
  EXPECT_FALSE(s.release_hold()) << "nothing to release";
  s.hold(t);
  s.hold(t);  // counted: two users (threads) at once
  EXPECT_EQ(s.holds(), 2);
  EXPECT_EQ(s.in_flight(), 2u) << "a progress thread must keep passing while held";
  s.progress();
  s.progress();
  EXPECT_EQ(t.pokes.load(), 2) << "one poke per pass";
  EXPECT_TRUE(s.release_hold());
  s.progress();
  EXPECT_EQ(t.pokes.load(), 3) << "still held once";
  EXPECT_TRUE(s.release_hold());
  EXPECT_FALSE(s.release_hold()) << "more releases than holds";
  EXPECT_EQ(s.in_flight(), 0u);
  s.progress();
  EXPECT_EQ(t.pokes.load(), 3) << "released: no more pokes";
  // MPI_Finalize's abandon_all drops holds; a late release is refused, in_flight stays 0.
  s.hold(t);
  s.abandon_all(10ms);
  EXPECT_EQ(s.holds(), 0);
  EXPECT_FALSE(s.release_hold());
  EXPECT_EQ(s.in_flight(), 0u);
}

// A pass inside the application's own MPI call (overlap-run under caller) leaves the held
// requests to that call: no probe. Any other pass pokes.
TEST(Scheduler, PassInsideTheApplicationsCallDoesNotPokeAHold) {
  Scheduler s;
  PokeCounter t;
  s.hold(t);
  s.progress_in_call();
  s.progress_in_call();
  EXPECT_EQ(t.pokes.load(), 0) << "a probe there changes when MPI moves the program's requests";
  EXPECT_EQ(s.passes(), 2u) << "still passes: liboverlap's own work is tested there";
  s.progress();
  EXPECT_EQ(t.pokes.load(), 1) << "any other pass pokes (OVX_Poll, MPI's hooks, the engine)";
  s.progress_in_call();
  s.progress();
  EXPECT_EQ(t.pokes.load(), 2) << "the in-call mark lasts one pass";
  EXPECT_TRUE(s.release_hold());
}

TEST(Engine, SharedThreadPokesWhileHeldAndStopsAfter) {
  PokeCounter t;  // outlives the engine's thread
  EngineConfig config;
  config.policy = ProgressPolicy::shared;
  ProgressEngine e(config);
  e.scheduler().hold(t);
  EXPECT_TRUE(wait_until([&] { return t.pokes.load() >= 3; }))
      << "the thread passes while held although nothing of ours is in flight";
  e.scheduler().release_hold();
  const int at_release = t.pokes.load();
  std::this_thread::sleep_for(30ms);
  // A pass that read the hold before the release may still poke, once; then the thread
  // blocks (a shared thread pausing 20-500 µs would poke dozens of times in 30 ms).
  EXPECT_LE(t.pokes.load(), at_release + 1) << "released: the thread blocks instead of polling";
}

TEST(Scheduler, GraphsStartInSubmissionOrderPass) {
  // Two graphs whose gates open in the same pass start in the order they were submitted.
  testing::FakeNetwork net(2);
  Scheduler s;
  int a = 1, b = 2;
  auto first = std::make_shared<TaskGraph>(net.endpoint(0, 1));
  first->send(&a, sizeof a, 1, 0);
  auto second = std::make_shared<TaskGraph>(net.endpoint(0, 2));
  second->send(&b, sizeof b, 1, 0);
  bool open = false;
  first->start_when([&](TaskGraph&) { return open; });
  second->start_when([&](TaskGraph&) { return open; });
  s.submit(first);
  s.submit(second);
  s.progress();
  EXPECT_TRUE(net.log(0).empty());
  open = true;
  s.progress();
  const auto log = net.log(0);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].context, 1);
  EXPECT_EQ(log[1].context, 2);
}

TEST(Scheduler, AbandonAllCancelsReceivesAndKeepsGraphsWhoseSendsNeverFinish) {
  testing::FakeNetwork net(2);
  Scheduler s;
  Exchange lonely_recv(net, 1, 1, 0, 1), lonely_send(net, 2, 0, 1, 2);
  s.submit(lonely_recv.receiver);  // nobody ever sends
  s.submit(lonely_send.sender);    // nobody ever receives (rendezvous: never finishes)
  s.progress();
  const auto report = s.abandon_all(std::chrono::milliseconds(20));
  EXPECT_EQ(report.abandoned, 2u);
  EXPECT_EQ(report.stuck, 1u);
  EXPECT_TRUE(lonely_recv.receiver->complete());
  EXPECT_TRUE(lonely_recv.receiver->abandoned());
  EXPECT_FALSE(lonely_send.sender->complete());
  EXPECT_EQ(s.in_flight(), 0u);
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
    std::stop_source never;
    std::thread waiter([&] { woke = s.wait_for_work(never.get_token()); });
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

TEST(Engine, SharedThreadWakesOnSubmit) {
  // Pauses of a minute: without wake on submit the second submission would wait one out,
  // and the count below would not move within wait_until's 10 s.
  EngineConfig config;
  config.policy = ProgressPolicy::shared;
  config.backoff.min_sleep = 60s;
  config.backoff.max_sleep = 60s;
  config.backoff.wake_on_submit = true;
  ProgressEngine e(config);
  testing::FakeNetwork net(2);
  Exchange x(net, 0, 0, 1, 5);
  e.submit(x.receiver);  // no sender yet: the thread makes a pass, then pauses
  ASSERT_TRUE(wait_until([&] { return e.thread_stats().sleeps >= 1; }));
  EXPECT_EQ(e.thread_stats().woken_by_submit, 0u);
  e.submit(x.sender);
  EXPECT_TRUE(wait_until([&] { return e.thread_stats().woken_by_submit == 1; }))
      << "a submission did not end the progress thread's pause";
  // Woken, it made the pass that posts the send.
  EXPECT_TRUE(wait_until([&] { return !net.log(0).empty(); }));
  EXPECT_TRUE(wait_until([&] {
    e.progress();
    return x.receiver->complete() && x.sender->complete();
  }));
  EXPECT_EQ(x.received, 5);
}

TEST(Engine, HurriedSharedThreadPassesWithoutPausingUntilUnhurried) {
  // Pauses of a minute: only hurry() can make the thread pass again within wait_until's
  // 10 s, and only a ring on stop lets the engine's destructor return before the minute.
  EngineConfig config;
  config.policy = ProgressPolicy::shared;
  config.backoff.min_sleep = 60s;
  config.backoff.max_sleep = 60s;
  testing::FakeNetwork net(2);
  Exchange stuck(net, 0, 1, 0, 1);  // no sender: nothing can happen
  std::atomic<bool> stopped{false};
  std::jthread owner([&] {
    ProgressEngine e(config);
    e.submit(stuck.receiver);
    ASSERT_TRUE(wait_until([&] { return e.thread_stats().sleeps >= 1; }));
    const auto paused = e.thread_stats();
    EXPECT_EQ(paused.hurried_passes, 0u);
    e.scheduler().hurry();  // ends the pause under way
    EXPECT_TRUE(wait_until([&] { return e.thread_stats().hurried_passes >= 100; }))
        << "a hurried thread must poll, not pause";
    e.scheduler().hurry();  // counted: a second waiter
    e.scheduler().unhurry();
    EXPECT_TRUE(e.scheduler().hurried()) << "one waiter is still blocked";
    // Read while still hurried (the thread cannot pause now): after the unhurry below it
    // may pause at once, and a count read then would already include that pause.
    const auto before = e.thread_stats().sleeps;
    e.scheduler().unhurry();
    EXPECT_FALSE(e.scheduler().hurried());
    EXPECT_TRUE(wait_until([&] { return e.thread_stats().sleeps > before; }))
        << "unhurried, the thread pauses again";
    const auto passes = e.thread_stats().passes;
    std::this_thread::sleep_for(30ms);
    EXPECT_LE(e.thread_stats().passes, passes + 1) << "a minute's pause, not polling";
  });  // ~ProgressEngine stops the thread in the middle of a pause
  std::jthread joiner([&] {
    owner.join();
    stopped = true;
  });
  EXPECT_TRUE(wait_until([&] { return stopped.load(); }, 20s))
      << "the stop did not end the progress thread's pause";
}

// While the application passes itself (MPI_Wait on a collective, MPI's progress hook),
// a shared thread makes no pass of its own: on a core it shares with the caller both
// would only contend. Once the application stops, the thread passes again.
TEST(Engine, SharedThreadStandsDownWhileTheApplicationPasses) {
  for (const bool stand_down : {true, false}) {
    EngineConfig config;
    config.policy = ProgressPolicy::shared;
    config.backoff.min_sleep = 2ms;
    config.backoff.max_sleep = 2ms;
    config.backoff.stand_down = stand_down;
    ProgressEngine e(config);
    testing::FakeNetwork net(2);
    Exchange stuck(net, 0, 1, 0, 1);  // no sender: stays in flight
    e.submit(stuck.receiver);
    ASSERT_TRUE(wait_until([&] { return e.thread_stats().passes >= 1; }));
    const auto before = e.thread_stats();
    // The application passes continuously for 20 of the thread's pauses.
    const auto until = std::chrono::steady_clock::now() + 40ms;
    while (std::chrono::steady_clock::now() < until) {
      e.progress();
      std::this_thread::yield();
    }
    const auto during = e.thread_stats();
    if (stand_down) {
      // Mostly stood down. Not never passing: where the application's thread is descheduled
      // for longer than a pause (a loaded machine: seen with a build running beside), the thread
      // sees no call since it last looked and rightly passes.
      EXPECT_GE(during.stood_down, before.stood_down + 5);
      EXPECT_LT(during.passes - before.passes, during.stood_down - before.stood_down)
          << "passed " << during.passes - before.passes << " times, stood down "
          << during.stood_down - before.stood_down;
      // The application stops: the thread passes again.
      EXPECT_TRUE(wait_until([&] { return e.thread_stats().passes >= during.passes + 2; }));
    } else {
      EXPECT_EQ(during.stood_down, 0u);
      EXPECT_GE(during.passes, before.passes + 5) << "without standing down it keeps passing";
    }
    Scheduler other;
    other.submit(stuck.sender);
    other.progress();
    EXPECT_TRUE(wait_until([&] { return stuck.receiver->complete(); }));
  }
}

TEST(Scheduler, ProgressFromAProgressThreadIsNotTheApplications) {
  Scheduler s;
  EXPECT_EQ(s.application_calls(), 0u);
  s.progress();
  EXPECT_EQ(s.application_calls(), 1u);
  std::jthread engine_like([&] {
    Scheduler::mark_progress_thread();
    s.progress();
  });
  engine_like.join();
  EXPECT_EQ(s.application_calls(), 1u);
}

TEST(Scheduler, SleepUnlessSubmittedSeesASubmitBeforeTheSleep) {
  Scheduler s;
  s.ring_on_submit(true);
  testing::FakeNetwork net(2);
  Exchange x(net, 0, 0, 1, 1);
  const std::uint64_t seen = s.submissions();
  s.submit(x.receiver);  // between noting the count and sleeping: must not be missed
  std::stop_source stop;
  EXPECT_EQ(s.sleep_unless_submitted(stop.get_token(), std::chrono::microseconds(60s), seen),
            Scheduler::Woken::submitted);
  EXPECT_EQ(s.sleep_unless_submitted(stop.get_token(), 1ms, s.submissions()),
            Scheduler::Woken::timeout);
  stop.request_stop();
  EXPECT_EQ(
      s.sleep_unless_submitted(stop.get_token(), std::chrono::microseconds(60s), s.submissions()),
      Scheduler::Woken::stopped);
  s.submit(x.sender);
  EXPECT_TRUE(wait_until([&] {
    s.progress();
    return x.receiver->complete() && x.sender->complete();
  }));
}

TEST(Engine, RescueThreadProgressesWorkNobodyElseDoes) {
  EngineConfig config;
  config.policy = ProgressPolicy::caller;
  config.rescue = true;
  config.rescue_after = std::chrono::milliseconds(5);
  config.backoff.min_sleep = 10us;
  int rescues = 0;
  ThreadHooks hooks;
  hooks.first_rescue = [&] { ++rescues; };
  ProgressEngine e;
  ASSERT_EQ(e.start(config, hooks), "");
  testing::FakeNetwork net(2);
  // A three-step exchange: each step needs a pass after the previous one finished, and
  // nobody here ever calls progress() on `e` (like an application blocked in MPI_Recv).
  std::int32_t v = 0, w = 0, back = 0;
  auto g = std::make_shared<TaskGraph>(net.endpoint(0, 0));
  const TaskId a = g->recv(&v, 4, 1, 0);
  const TaskId b = g->send(&v, 4, 1, 1, {a});
  g->recv(&back, 4, 1, 2, {b});
  e.submit(g);
  Scheduler peer;
  auto h = std::make_shared<TaskGraph>(net.endpoint(1, 0));
  w = 9;
  h->send(&w, 4, 0, 0);
  const TaskId c = h->recv(&w, 4, 0, 1);
  h->send(&w, 4, 0, 2, {c});
  peer.submit(h);
  ASSERT_TRUE(wait_until([&] {
    peer.progress();
    return g->complete();
  }));
  EXPECT_EQ(back, 9);
  EXPECT_GT(e.thread_stats().rescue_passes, 0u);
  EXPECT_EQ(rescues, 1) << "told once";
}

// Lists the names of this process's threads.
std::vector<std::string> thread_names() {
  std::vector<std::string> names;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return names;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream comm(std::string("/proc/self/task/") + e->d_name + "/comm");
    std::string name;
    std::getline(comm, name);
    names.push_back(name);
  }
  closedir(dir);
  return names;
}

TEST(Engine, ProgressThreadIsNamed) {
  EngineConfig config;
  config.policy = ProgressPolicy::shared;
  ProgressEngine e(config);
  ASSERT_TRUE(e.error().empty());
  bool found = false;
  // The thread names itself first thing; give it the time to run that far.
  for (int i = 0; i < 2000 && !found; ++i) {
    for (const auto& n : thread_names()) found = found || n == "ovx-progress";
    if (!found) std::this_thread::sleep_for(1ms);
  }
  EXPECT_TRUE(found);
}

TEST(Engine, RestartsWithAnotherPolicyKeepingWhatIsInFlight) {
  EngineConfig config;
  config.policy = ProgressPolicy::shared;
  ProgressEngine e(config);
  testing::FakeNetwork net(2);
  Exchange x(net, 0, 1, 0, 77);
  e.submit(x.receiver);
  e.stop();
  config.policy = ProgressPolicy::caller;
  ASSERT_EQ(e.start(config), "");
  EXPECT_EQ(e.policy(), ProgressPolicy::caller);
  Scheduler other;
  other.submit(x.sender);
  other.progress();
  e.wait(*x.receiver);
  EXPECT_EQ(x.received, 77);
}

// The scheduler's outlook: the running sends and receives with their expected times from
// the link model, none without one, none once they finished.
TEST(Scheduler, OutlookHoldsTheRunningStepsExpectedTimes) {
  testing::FakeNetwork net(2);
  std::vector<char> big(1'000'000), into(1'000'000);
  auto receiver = std::make_shared<TaskGraph>(net.endpoint(1, 0));
  receiver->recv(into.data(), into.size(), 0, 0);
  Scheduler s;
  s.submit(receiver);
  s.progress();
  EXPECT_TRUE(s.outlook().empty()) << "no link model: no expected times";
  const LinkModel link{1.0, 1e6};  // a second plus a second per MB: due long after now
  s.set_link_model(link);
  s.progress();
  EXPECT_TRUE(s.outlook().empty()) << "nobody paces by it (no shared thread): not noted";
  s.pace_steps(true);
  const std::int64_t before = monotonic_ns();
  s.progress();
  const StepOutlook o = s.outlook();
  ASSERT_FALSE(o.empty());
  EXPECT_EQ(o.shortest_step_ns, link.step_ns(into.size()));
  EXPECT_LE(o.next_due_ns, before + link.step_ns(into.size())) << "posted before this pass";
  EXPECT_EQ(o.last_due_ns, o.next_due_ns);
  auto sender = std::make_shared<TaskGraph>(net.endpoint(0, 0));
  sender->send(big.data(), big.size(), 1, 0);
  s.submit(sender);
  ASSERT_TRUE(wait_until([&] {
    s.progress();
    return receiver->complete() && sender->complete();
  }));
  s.progress();
  EXPECT_TRUE(s.outlook().empty()) << "nothing runs any more";
}

// A shared thread pausing a minute at a time still passes when a step is expected to
// complete (here 2 ms after it was posted), and only with the pacing on.
TEST(Engine, SharedThreadWakesWhenAStepIsExpectedToComplete) {
  for (const int per_step : {16, 0}) {
    EngineConfig config;
    config.policy = ProgressPolicy::shared;
    config.backoff.min_sleep = 60s;
    config.backoff.max_sleep = 60s;
    config.backoff.pauses_per_step = per_step;
    testing::FakeNetwork net(2);
    Exchange stuck(net, 0, 1, 0, 1);  // no sender: the receive stays open
    std::atomic<bool> stopped{false};
    std::jthread owner([&] {
      ProgressEngine e(config);
      e.scheduler().set_link_model({2e-3, 1e9});
      e.submit(stuck.receiver);
      ASSERT_TRUE(wait_until([&] { return e.thread_stats().sleeps >= 1; }));
      if (per_step > 0) {
        EXPECT_TRUE(wait_until([&] { return e.thread_stats().passes >= 2; }))
            << "the pause must end at the step's expected completion";
      } else {
        std::this_thread::sleep_for(30ms);
        EXPECT_EQ(e.thread_stats().passes, 1u) << "pacing off: the minute's pause";
      }
    });
    std::jthread joiner([&] {
      owner.join();
      stopped = true;
    });
    EXPECT_TRUE(wait_until([&] { return stopped.load(); }, 20s));
  }
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
            "OVERLAP_PROGRESS='fast' is not one of: auto, caller, shared, dedicated");
  setenv("OVERLAP_PROGRESS", "auto", 1);
  EXPECT_TRUE(config_from_environment(std::nullopt).config.automatic);
  EXPECT_FALSE(config_from_environment(ProgressPolicy::shared).config.automatic);
  unsetenv("OVERLAP_PROGRESS");
  EXPECT_TRUE(config_from_environment(std::nullopt).config.automatic);
  setenv("OVERLAP_PROGRESS", "shared", 1);
  setenv("OVERLAP_SHARED_MAX_SLEEP_US", "1x", 1);
  EXPECT_NE(config_from_environment(std::nullopt).error.find("OVERLAP_SHARED_MAX_SLEEP_US='1x'"),
            std::string::npos);
  unsetenv("OVERLAP_SHARED_MAX_SLEEP_US");
  setenv("OVERLAP_CALLER_RESCUE_MS", "0", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).error,
            "OVERLAP_CALLER_RESCUE_MS='0' is not an integer in 1..60000");
  setenv("OVERLAP_CALLER_RESCUE_MS", "250", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).config.rescue_after,
            std::chrono::milliseconds(250));
  unsetenv("OVERLAP_CALLER_RESCUE_MS");
  setenv("OVERLAP_SHARED_TIMER_SLACK_NS", "1000", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).config.backoff.timer_slack,
            std::chrono::nanoseconds(1000));
  setenv("OVERLAP_SHARED_TIMER_SLACK_NS", "-1", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).error,
            "OVERLAP_SHARED_TIMER_SLACK_NS='-1' is not an integer in 0..1000000000");
  unsetenv("OVERLAP_SHARED_TIMER_SLACK_NS");
  EXPECT_FALSE(config_from_environment(std::nullopt).config.backoff.wake_on_submit);
  setenv("OVERLAP_SHARED_WAKE_ON_SUBMIT", "1", 1);
  EXPECT_TRUE(config_from_environment(std::nullopt).config.backoff.wake_on_submit);
  setenv("OVERLAP_SHARED_WAKE_ON_SUBMIT", "2", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).error,
            "OVERLAP_SHARED_WAKE_ON_SUBMIT='2' is not an integer in 0..1");
  unsetenv("OVERLAP_SHARED_WAKE_ON_SUBMIT");
  EXPECT_TRUE(config_from_environment(std::nullopt).config.backoff.stand_down);
  setenv("OVERLAP_SHARED_STAND_DOWN", "0", 1);
  EXPECT_FALSE(config_from_environment(std::nullopt).config.backoff.stand_down);
  unsetenv("OVERLAP_SHARED_STAND_DOWN");
  EXPECT_EQ(config_from_environment(std::nullopt).config.backoff.pauses_per_step, 16);
  setenv("OVERLAP_SHARED_PAUSES_PER_STEP", "0", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).config.backoff.pauses_per_step, 0);
  setenv("OVERLAP_SHARED_PAUSES_PER_STEP", "2000", 1);
  EXPECT_EQ(config_from_environment(std::nullopt).error,
            "OVERLAP_SHARED_PAUSES_PER_STEP='2000' is not an integer in 0..1024");
  unsetenv("OVERLAP_SHARED_PAUSES_PER_STEP");
  unsetenv("OVERLAP_PROGRESS");
}

}  // namespace
}  // namespace overlap::progress
