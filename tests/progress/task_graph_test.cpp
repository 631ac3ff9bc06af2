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
  auto* tmp = reinterpret_cast<std::int32_t*>(r0.scratch(sizeof(std::int32_t)));
  const TaskId rv = r0.recv(tmp, 4, 1, 0);
  const TaskId red = r0.reduce(tmp, &a0, 1, add_ints, {rv});
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

}  // namespace
}  // namespace overlap::progress

namespace overlap::progress {
namespace {

TEST(TaskGraph, NothingStartsBeforeTheGateOpens) {
  testing::FakeNetwork net(2);
  TaskGraph g(net.endpoint(0, 0));
  int x = 1;
  g.send(&x, sizeof x, 1, 0);
  bool open = false;
  g.start_when([&] { return open; });
  EXPECT_EQ(g.advance(), 0);
  EXPECT_TRUE(net.log(0).empty());
  open = true;
  EXPECT_GT(g.advance(), 0);
  EXPECT_EQ(net.log(0).size(), 1u);
}

}  // namespace
}  // namespace overlap::progress
