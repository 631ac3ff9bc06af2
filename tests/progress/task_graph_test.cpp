#include "progress/task_graph.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "progress/fake_network.hpp"

namespace overlap::progress {
namespace {

void add_ints(const void* in, void* inout, std::size_t n) {
  auto* a = static_cast<const std::int32_t*>(in);
  auto* b = static_cast<std::int32_t*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] += a[i];
}

// Advances every graph round-robin until all are complete; fails on a stall.
void run(std::vector<TaskGraph*> graphs) {
  for (int idle = 0; idle < 3;) {
    int work = 0;
    bool all = true;
    for (auto* g : graphs) {
      work += g->advance();
      all = all && g->complete();
    }
    if (all) return;
    idle = work == 0 ? idle + 1 : 0;
  }
  FAIL() << "graphs stalled";
}

TEST(TaskGraph, ReduceWaitsForItsReceiveAndSendWaitsForReduce) {
  testing::FakeNetwork net(2);
  std::int32_t a0 = 5, a1 = 7, got = 0, back = 0;
  TaskGraph r0(net.endpoint(0, 0)), r1(net.endpoint(1, 0));
  // rank 0: recv x from 1, a0 += x, send a0 back
  const Buf tmp = r0.scratch(sizeof(std::int32_t));
  const TaskId rv = r0.recv(tmp, 4, 1, 0);
  const TaskId red = r0.reduce(tmp, &a0, 1, ReduceOp{add_ints, 4}, {rv});
  r0.send(&a0, 4, 1, 1, {red});
  // rank 1: send a1, then receive the sum
  r1.send(&a1, 4, 0, 0);
  r1.recv(&back, 4, 0, 1);
  run({&r0, &r1});
  EXPECT_EQ(a0, 12);
  EXPECT_EQ(back, 12);
  (void)got;
  // Rank 0 posted its receive before its send: the send had to wait for the reduction.
  const auto log = net.log(0);
  ASSERT_EQ(log.size(), 2u);
  EXPECT_FALSE(log[0].is_send);
  EXPECT_TRUE(log[1].is_send);
  EXPECT_EQ(net.messages_pending(), 0u);
}

TEST(TaskGraph, NothingStartsBeforeItsDependencies) {
  testing::FakeNetwork net(2);
  TaskGraph g(net.endpoint(0, 0));
  int x = 1;
  const TaskId s = g.send(&x, sizeof x, 1, 0);
  const TaskId c = g.copy(&x, &x, sizeof x, {s});
  g.send(&x, sizeof x, 1, 1, {c});
  EXPECT_GT(g.advance(), 0);
  EXPECT_EQ(g.task(s).state, TaskState::running);
  EXPECT_EQ(g.task(c).state, TaskState::blocked);
  EXPECT_EQ(net.log(0).size(), 1u);  // the second send waits for the copy
  EXPECT_EQ(g.advance(), 0);         // no receiver: nothing moves
  EXPECT_FALSE(g.complete());
}

TEST(TaskGraph, EmptyGraphCompletesAndCallsBackOnce) {
  testing::FakeNetwork net(1);
  TaskGraph g(net.endpoint(0, 0));
  int calls = 0;
  g.on_complete([&] { ++calls; });
  EXPECT_EQ(g.advance(), 1);
  EXPECT_TRUE(g.complete());
  EXPECT_EQ(g.advance(), 0);
  EXPECT_EQ(calls, 1);
}

TEST(TaskGraph, NothingStartsBeforeTheGateOpens) {
  testing::FakeNetwork net(2);
  TaskGraph g(net.endpoint(0, 0));
  int x = 1;
  g.send(&x, sizeof x, 1, 0);
  bool open = false;
  g.start_when([&](TaskGraph&) { return open; });
  EXPECT_EQ(g.advance(), 0);
  EXPECT_TRUE(net.log(0).empty());
  open = true;
  EXPECT_GT(g.advance(), 0);
  EXPECT_EQ(net.log(0).size(), 1u);
}

TEST(TaskGraph, ScratchExistsOnlyWhileATaskUsingItRuns) {
  testing::FakeNetwork net(2);
  TaskGraph g0(net.endpoint(0, 0)), g1(net.endpoint(1, 0));
  std::int32_t mine = 3, theirs = 4;
  const Buf tmp = g0.scratch(1 << 20);     // large: the point is that it is not there
  const Buf unused = g0.scratch(1 << 20);  // no task uses it: never allocated
  (void)unused;
  const TaskId got = g0.recv(tmp, 4, 1, 0);
  g0.reduce(tmp, &mine, 1, ReduceOp{add_ints, 4}, {got});
  EXPECT_EQ(g0.scratch_bytes(), 0u) << "nothing may be allocated at build time";
  g0.advance();
  EXPECT_EQ(g0.scratch_bytes(), std::size_t{1} << 20) << "the posted receive needs it";
  g1.send(&theirs, 4, 0, 0);
  run({&g0, &g1});
  EXPECT_EQ(mine, 7);
  EXPECT_EQ(g0.scratch_bytes(), 0u) << "freed after its last user finished";
}

TEST(TaskGraph, ALongReductionRunsInPiecesOfTheBudget) {
  testing::FakeNetwork net(1);
  TaskGraph g(net.endpoint(0, 0));
  const std::size_t n = 3 * (kLocalBudgetBytes / 4) + 5;  // three budgets and a bit
  std::vector<std::int32_t> in(n, 1), acc(n, 2);
  g.reduce(in.data(), acc.data(), n, ReduceOp{add_ints, 4});
  int calls = 0;
  while (!g.complete()) {
    g.start_ready();
    ++calls;
    ASSERT_LE(calls, 10);
  }
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(acc.front(), 3);
  EXPECT_EQ(acc.back(), 3);
}

TEST(TaskGraph, AbandonCancelsReceivesAndStartsNothingMore) {
  testing::FakeNetwork net(2);
  TaskGraph g(net.endpoint(0, 0));
  int x = 0, y = 0;
  const TaskId r = g.recv(&x, sizeof x, 1, 0);
  g.send(&y, sizeof y, 1, 1, {r});
  int completions = 0;
  g.on_complete([&] { ++completions; });
  g.advance();
  EXPECT_EQ(net.log(0).size(), 1u);
  g.abandon();
  g.advance();  // the cancelled receive finishes; the send never starts
  EXPECT_TRUE(g.complete());
  EXPECT_TRUE(g.abandoned());
  EXPECT_EQ(completions, 1);
  EXPECT_EQ(net.log(0).size(), 1u);
  EXPECT_EQ(net.operations_open(), 0u);
}

// settle_sends: a graph whose running operations are sends alone is tested, one send at a
// time until one has not finished (and completes if all did); a graph with a receive
// running is not tested at all.
TEST(TaskGraph, SettleSendsTestsOnlyAGraphOfSends) {
  testing::FakeNetwork net(2);
  int x = 3, y = 0, z = 0;
  TaskGraph receiver(net.endpoint(1, 0));
  receiver.recv(&y, sizeof y, 0, 0);
  receiver.start_ready();
  const std::size_t before = net.test_calls();
  EXPECT_EQ(receiver.settle_sends(), 0);  // a receive runs: no test
  EXPECT_EQ(net.test_calls(), before);

  TaskGraph root(net.endpoint(0, 0));
  root.send(&x, sizeof x, 1, 0);
  root.start_ready();
  EXPECT_FALSE(root.complete());
  EXPECT_GT(root.settle_sends(), 0);  // the receive was posted: the send finishes
  EXPECT_EQ(net.test_calls(), before + 1);
  EXPECT_TRUE(root.complete());
  EXPECT_EQ(root.settle_sends(), 0);  // done: nothing more
  EXPECT_EQ(net.test_calls(), before + 1);

  // Two sends, both received: each tested once, and the graph completes.
  int a = 0, b = 0;
  TaskGraph both(net.endpoint(1, 2));
  both.recv(&a, sizeof a, 0, 0);
  both.recv(&b, sizeof b, 0, 1);
  both.start_ready();
  TaskGraph fan(net.endpoint(0, 2));
  fan.send(&x, sizeof x, 1, 0);
  fan.send(&x, sizeof x, 1, 1);
  fan.start_ready();
  EXPECT_EQ(fan.settle_sends(), 2);
  EXPECT_EQ(net.test_calls(), before + 3);
  EXPECT_TRUE(fan.complete());

  // Two sends, nobody receives: the first test fails and the second send is not tested.
  TaskGraph lonely(net.endpoint(0, 1));
  lonely.send(&z, sizeof z, 1, 0);
  lonely.send(&z, sizeof z, 1, 1);
  lonely.start_ready();
  EXPECT_EQ(lonely.settle_sends(), 0);
  EXPECT_EQ(net.test_calls(), before + 4);
  EXPECT_FALSE(lonely.complete());
}

}  // namespace
}  // namespace overlap::progress
