// The shared thread's pauses paced by the steps in flight (progress/step_pacing.hpp):
// what a step is expected to take, what the running steps add up to, and the pause.
#include "progress/step_pacing.hpp"

#include <gtest/gtest.h>

namespace overlap::progress {
namespace {

using namespace std::chrono_literals;

TEST(StepPacing, AStepTakesTheLatencyPlusItsBytesOverTheBandwidth) {
  const LinkModel link{10e-6, 1e8};  // 10 us, 100 MB/s
  EXPECT_EQ(link.step_ns(0), 10'000);
  EXPECT_EQ(link.step_ns(1'000'000), 10'010'000);
  EXPECT_EQ((LinkModel{}).step_ns(1'000'000), 0) << "unknown link: no expected time";
  EXPECT_FALSE((LinkModel{10e-6, 0}).known());
}

TEST(StepPacing, OutlookKeepsOnlyStepsNotYetDue) {
  StepOutlook o;
  o.add(1'000, 500, 2'000);  // due at 1'500: overdue at 2'000
  EXPECT_TRUE(o.empty());
  o.add(1'000, 0, 0);  // no expected time
  EXPECT_TRUE(o.empty());
  o.add(1'000, 4'000, 2'000);  // due at 5'000
  o.add(1'500, 9'000, 2'000);  // due at 10'500
  o.add(1'900, 1'000, 2'000);  // due at 2'900
  EXPECT_EQ(o.next_due_ns, 2'900);
  EXPECT_EQ(o.shortest_step_ns, 1'000);
  EXPECT_EQ(o.last_due_ns, 10'500);
}

TEST(StepPacing, PauseEndsAtTheNextExpectedCompletion) {
  StepOutlook o;
  o.add(0, 1'000'000, 0);              // a 1 ms step, due at 1 ms
  const PacingConfig c{4, 20us, 5us};  // a 250 us cap while the step runs
  // 900 us in, with a 500 us backoff: wake at the completion, 100 us from now.
  EXPECT_EQ(paced_pause(500us, o, 900'000, c), 100us);
  // Within poll_below of it: no pause at all.
  EXPECT_EQ(paced_pause(500us, o, 996'000, c), 0us);
  // Earlier, the cap; a shorter backoff stays as it is.
  EXPECT_EQ(paced_pause(500us, o, 0, c), 250us);
  EXPECT_EQ(paced_pause(20us, o, 0, c), 20us);
}

TEST(StepPacing, LongStepsArePacedByTheirExpectedTime) {
  StepOutlook o;
  o.add(0, 4'000'000, 0);  // 4 ms
  EXPECT_EQ(paced_pause(500us, o, 1'000'000, {16, 20us, 5us}), 250us);
  EXPECT_EQ(paced_pause(500us, o, 1'000'000, {4, 20us, 5us}), 500us) << "1 ms cap: backoff's";
  // Short steps: never below the minimum pause (but still never past the completion).
  StepOutlook quick;
  quick.add(0, 160'000, 0);  // 160 us / 16 = 10 us
  EXPECT_EQ(paced_pause(500us, quick, 0, {16, 20us, 5us}), 20us);
}

TEST(StepPacing, OffOrOverdueLeavesTheBackoffAlone) {
  StepOutlook o;
  o.add(0, 4'000'000, 0);
  EXPECT_EQ(paced_pause(500us, o, 1'000'000, {0, 20us, 5us}), 500us) << "pacing off";
  EXPECT_EQ(paced_pause(500us, o, 5'000'000, {16, 20us, 5us}), 500us) << "step overdue";
  EXPECT_EQ(paced_pause(500us, StepOutlook{}, 0, {16, 20us, 5us}), 500us) << "nothing runs";
}

}  // namespace
}  // namespace overlap::progress
