#include "compute/core_plan.hpp"

#include <gtest/gtest.h>

namespace overlap::compute {
namespace {

// `n` cores with `ht` hardware threads each, numbered as Linux does on many x86 machines:
// core i has PUs i and i + n.
std::vector<Core> machine(int n, int ht) {
  std::vector<Core> cores(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int t = 0; t < ht; ++t) cores[static_cast<std::size_t>(i)].pus.push_back(i + t * n);
  }
  return cores;
}

TEST(CorePlan, OneThreadPerPhysicalCoreNotPerHardwareThread) {
  // 4 cores with 2 hardware threads each: 4 computation threads, each bound to both PUs
  // of its core. (ab6b786 counted the affinity mask's 8 CPUs and started 8 threads.)
  const CorePlan p = plan_cores({machine(4, 2), true, -1, 1, 0, 0});
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.cores_available, 4);
  ASSERT_EQ(p.thread_pus.size(), 4u);
  EXPECT_EQ(p.thread_pus[0], (std::vector<int>{0, 4}));
  EXPECT_EQ(p.thread_pus[3], (std::vector<int>{3, 7}));
}

TEST(CorePlan, DedicatedCoresAreTheLastOnesAndNoThreadRunsThere) {
  const CorePlan p = plan_cores({machine(4, 2), true, -1, 1, 1, 0});
  ASSERT_EQ(p.thread_pus.size(), 3u);
  ASSERT_EQ(p.free_cores.size(), 1u);
  EXPECT_EQ(p.free_cores[0].pus, (std::vector<int>{3, 7}));
  for (const auto& pus : p.thread_pus) {
    EXPECT_EQ(std::count(pus.begin(), pus.end(), 3), 0);
    EXPECT_EQ(std::count(pus.begin(), pus.end(), 7), 0);
  }
}

TEST(CorePlan, UnboundRanksSplitTheMachine) {
  // Two unbound ranks on a 4-core node: rank 1 computes on cores 2 and 3 only.
  const CorePlan p = plan_cores({machine(4, 1), true, 1, 2, 0, 0});
  EXPECT_EQ(p.cores_available, 2);
  EXPECT_EQ(p.thread_pus, (std::vector<std::vector<int>>{{2}, {3}}));
  // More ranks than cores: one core each, round-robin.
  const CorePlan q = plan_cores({machine(2, 1), true, 2, 3, 0, 0});
  EXPECT_EQ(q.thread_pus, (std::vector<std::vector<int>>{{0}}));
}

TEST(CorePlan, ARankTheLauncherBoundKeepsItsWholeMask) {
  std::vector<Core> mask = {Core{{2}}, Core{{3}}};
  const CorePlan p = plan_cores({mask, false, 1, 2, 0, 0});
  EXPECT_EQ(p.thread_pus, (std::vector<std::vector<int>>{{2}, {3}}));
}

TEST(CorePlan, ExplicitThreadCountsShareCoresRoundRobin) {
  const CorePlan p = plan_cores({machine(2, 1), true, -1, 1, 0, 5});
  ASSERT_EQ(p.thread_pus.size(), 5u);
  EXPECT_EQ(p.thread_pus[4], (std::vector<int>{0}));
}

TEST(CorePlan, DedicatingEveryCoreIsRefused) {
  const CorePlan p = plan_cores({machine(2, 1), true, -1, 1, 2, 0});
  EXPECT_FALSE(p.error.empty());
  EXPECT_NE(p.error.find("2 core(s)"), std::string::npos) << p.error;
  EXPECT_FALSE(plan_cores({{}, true, -1, 1, 0, 0}).error.empty());
}

}  // namespace
}  // namespace overlap::compute
