#include "measure/cpu_accounting.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "measure/cpu_sampler.hpp"

namespace overlap::measure {
namespace {

constexpr double kTick = 0.01;  // USER_HZ 100

// Recorded on this project's test machine (Debian 12, 2 CPUs), trimmed.
constexpr const char* kStat =
    "15556 (cat) R 15553 15553 12381 0 -1 4194304 101 0 0 0 7 3 0 0 20 0 1 0 1260139 3133440 "
    "376 18446744073709551615 94514088153088 94514088172969 140729840681232 0 0 0 0 0 0 0 0 0 "
    "17 1 0 0 0 0 0\n";
// A thread name with a space and a parenthesis, which a naive split gets wrong.
constexpr const char* kStatOddName =
    "77 (a) b(c d) S 1 1 1 0 -1 4194304 101 0 0 0 250 40 0 0 20 0 1 0 1 1 1\n";
constexpr const char* kSchedstat = "1213081 0 1\n";
constexpr const char* kStatus =
    "Name:\tcat\nState:\tR (running)\nvoluntary_ctxt_switches:\t0\n"
    "nonvoluntary_ctxt_switches:\t12\n";
constexpr const char* kProcStat =
    "cpu  1811943 122596 420203 148767 2945 0 1034 11680 0 0\n"
    "cpu0 868656 53884 256019 74523 404 0 291 5745 0 0\n"
    "cpu1 943286 68712 164184 74243 2540 7 742 5935 0 0\n"
    "intr 123 4 5\nctxt 99\n";

TEST(CpuSamplerParse, TaskStatFieldsAfterTheName) {
  const auto s = parse_task_stat(kStat, kTick);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->name, "cat");
  EXPECT_DOUBLE_EQ(s->user_s, 0.07);
  EXPECT_DOUBLE_EQ(s->system_s, 0.03);
  const auto odd = parse_task_stat(kStatOddName, kTick);
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->name, "a) b(c d");
  EXPECT_DOUBLE_EQ(odd->user_s, 2.5);
  EXPECT_DOUBLE_EQ(odd->system_s, 0.4);
  EXPECT_FALSE(parse_task_stat("12 (x) R 1 2 3", kTick));
  EXPECT_FALSE(parse_task_stat("garbage", kTick));
}

TEST(CpuSamplerParse, SchedstatAndStatus) {
  EXPECT_DOUBLE_EQ(*parse_schedstat(kSchedstat), 1213081e-9);
  EXPECT_FALSE(parse_schedstat(""));
  EXPECT_EQ(*parse_involuntary_switches(kStatus), 12);
  EXPECT_FALSE(parse_involuntary_switches("voluntary_ctxt_switches:\t3\n"));
}

TEST(CpuSamplerParse, ProcStatSumsOnlyTheAffinityCpus) {
  const auto one = parse_proc_stat(kProcStat, {1}, kTick);
  ASSERT_TRUE(one);
  EXPECT_DOUBLE_EQ(one->system_s, 1641.84);
  EXPECT_DOUBLE_EQ(one->irq_s, 0.07);
  EXPECT_DOUBLE_EQ(one->softirq_s, 7.42);
  const auto both = parse_proc_stat(kProcStat, {0, 1}, kTick);
  ASSERT_TRUE(both);
  EXPECT_NEAR(both->system_s, 2560.19 + 1641.84, 1e-9);
  EXPECT_NEAR(both->softirq_s, 2.91 + 7.42, 1e-9);
  // A CPU of the mask that /proc/stat does not list: unknown, not zero.
  EXPECT_FALSE(parse_proc_stat(kProcStat, {1, 2}, kTick));
}

TEST(CpuSamplerParse, CpuListAsLinuxWritesIt) {
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list({3}), "3");
  EXPECT_EQ(format_cpu_list({0, 1}), "0-1");
  EXPECT_EQ(format_cpu_list({0, 2}), "0,2");
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 6, 8, 9}), "0-3,6,8-9");
}

ThreadCounters thread(int tid, ThreadRole role, double cpu, double user, double sys,
                      long invol = 0) {
  return {tid, role == ThreadRole::progress ? "ovx-progress" : "t", role, cpu, user, sys, invol};
}

TEST(CpuAccounting, UsageAttributesThreadsByRole) {
  CpuSample a{{thread(1, ThreadRole::computation, 1.0, 0.9, 0.1, 5),
               thread(2, ThreadRole::progress, 0.10, 0.08, 0.02),
               thread(3, ThreadRole::other, 0.5, 0.5, 0), thread(9, ThreadRole::other, 3, 3, 0)},
              KernelCounters{10, 1, 2},
              0.4,
              100.0};
  // Thread 9 ended, thread 4 started in between (counts whole).
  CpuSample b{
      {thread(1, ThreadRole::computation, 1.2, 1.1, 0.1, 8),
       thread(2, ThreadRole::progress, 0.14, 0.11, 0.03),
       thread(3, ThreadRole::other, 0.55, 0.55, 0), thread(4, ThreadRole::other, 0.01, 0, 0)},
      KernelCounters{10.05, 1.0, 2.03},
      0.41,
      100.25};
  const CpuUsage u = usage_between(a, b);
  EXPECT_NEAR(u.computation_s, 0.2, 1e-12);
  EXPECT_EQ(u.computation_involuntary_switches, 3);
  EXPECT_NEAR(u.progress_s, 0.04, 1e-12);
  // Ticks in the window: 0.03 user, 0.01 system, so 3/4 of the precise 0.04.
  EXPECT_NEAR(u.progress_user_s, 0.03, 1e-12);
  EXPECT_NEAR(u.progress_system_s, 0.01, 1e-12);
  EXPECT_TRUE(u.progress_split_measured);
  EXPECT_NEAR(u.other_s, 0.06, 1e-12);
  ASSERT_TRUE(u.kernel);
  EXPECT_NEAR(u.kernel->system_s, 0.05, 1e-9);
  EXPECT_NEAR(u.kernel->softirq_s, 0.03, 1e-9);
  EXPECT_NEAR(u.process_system_s, 0.01, 1e-12);
  EXPECT_NEAR(u.wall_s, 0.25, 1e-12);
  // 0.05 system on the CPUs, 0.01 of it our own, plus 0.03 softirq.
  EXPECT_NEAR(*u.kernel_outside_process_s(), 0.07, 1e-9);
}

TEST(CpuAccounting, ProgressSplitFallsBackToTheThreadsLife) {
  // No tick landed in the window: the ratio over the thread's life (1 : 3).
  CpuSample a{{thread(2, ThreadRole::progress, 0.100, 0.01, 0.03)}, std::nullopt, 0};
  CpuSample b{{thread(2, ThreadRole::progress, 0.108, 0.01, 0.03)}, std::nullopt, 0};
  CpuUsage u = usage_between(a, b);
  EXPECT_NEAR(u.progress_user_s, 0.002, 1e-12);
  EXPECT_NEAR(u.progress_system_s, 0.006, 1e-12);
  EXPECT_TRUE(u.progress_split_measured);
  EXPECT_FALSE(u.kernel);
  EXPECT_FALSE(u.kernel_outside_process_s());
  // No tick ever: all of it counted as user time, and flagged.
  a.threads[0].user_tick_s = a.threads[0].system_tick_s = 0;
  b.threads[0].user_tick_s = b.threads[0].system_tick_s = 0;
  u = usage_between(a, b);
  EXPECT_NEAR(u.progress_user_s, 0.008, 1e-12);
  EXPECT_FALSE(u.progress_split_measured);
}

TEST(CpuAccounting, SumAndScale) {
  CpuUsage a;
  a.progress_user_s = 0.02;
  a.kernel = KernelCounters{0.1, 0, 0.2};
  a.wall_s = 0.3;
  CpuUsage b = a;
  b.computation_involuntary_switches = 3;
  a += b;
  EXPECT_NEAR(a.progress_user_s, 0.04, 1e-12);
  EXPECT_NEAR(a.kernel->softirq_s, 0.4, 1e-12);
  EXPECT_NEAR(a.wall_s, 0.6, 1e-12);
  const CpuUsage half = a.scaled(0.5);
  EXPECT_NEAR(half.kernel->system_s, 0.1, 1e-12);
  EXPECT_NEAR(half.wall_s, 0.3, 1e-12);
  EXPECT_EQ(half.computation_involuntary_switches, 2);  // 1.5 rounded
  b.kernel.reset();
  a += b;
  EXPECT_FALSE(a.kernel);  // one window without counters makes the sum unknown
}

TEST(CpuAccounting, DecompositionSubtractsTheComputationAlonePhase) {
  CpuUsage alone;
  alone.kernel = KernelCounters{0.0002, 0, 0.0001};  // background noise
  alone.process_system_s = 0.0001;
  alone.other_s = 0.0001;
  alone.wall_s = 0.0125;
  CpuUsage ov;
  ov.progress_user_s = 0.0004;
  ov.progress_system_s = 0.0002;
  ov.kernel = KernelCounters{0.0012, 0, 0.0011};
  ov.process_system_s = 0.0003;  // the progress thread's 0.0002 + 0.0001 elsewhere
  ov.other_s = 0.0003;
  ov.wall_s = 0.0125;  // windows of the same length: the rates compare as the amounts do
  // t_comp_ref 10 ms, t_comp 11.8 ms during an overlap run of 11.8 ms: all of it counts.
  const SlowdownShares s = decompose(alone, ov, {0.010, 0.0118, 0.0118});
  EXPECT_NEAR(s.lost, 0.18, 1e-12);
  EXPECT_NEAR(s.engine, 0.04, 1e-12);
  EXPECT_NEAR(s.other, 0.02, 1e-12);
  // Outside the process: ov 0.0012 - 0.0003 + 0.0011 = 0.0020, alone 0.0002; plus the
  // progress thread's own system time 0.0002: (0.0022 - 0.0002) / 0.010.
  ASSERT_TRUE(s.transport);
  EXPECT_NEAR(*s.transport, 0.20, 1e-9);
  ASSERT_TRUE(s.remainder);
  EXPECT_NEAR(*s.remainder, 0.18 - 0.04 - 0.02 - 0.20, 1e-9);
  // Half of the overlap run is wait: half of what the transfer caused fell on the
  // computation.
  const SlowdownShares h = decompose(alone, ov, {0.010, 0.0118, 0.0236});
  EXPECT_NEAR(h.engine, 0.02, 1e-12);
  EXPECT_NEAR(*h.transport, 0.10, 1e-9);
}

// The two windows differ in length (the overlapped one holds the wait too): a background
// at a constant rate costs each in proportion, so only its rate may be compared. The
// reviewer's case: t_comm = t_comp = 10 ms without progress, barriers 0.5 ms, an async
// thread spinning at 0.5 CPU and 0.1 CPU of kernel time, a computation that did not slow.
TEST(CpuAccounting, ConstantRateBackgroundCancels) {
  const double b = 0.5, k = 0.1;
  CpuUsage alone;
  alone.wall_s = 0.0105;
  alone.other_s = b * alone.wall_s;
  alone.kernel = KernelCounters{k * alone.wall_s, 0, 0};
  CpuUsage ov;
  ov.wall_s = 0.0205;
  ov.other_s = b * ov.wall_s;
  ov.kernel = KernelCounters{k * ov.wall_s, 0, 0};
  const PhaseTimes t{0.010, 0.010, 0.020};
  const SlowdownShares s = decompose(alone, ov, t);
  EXPECT_NEAR(s.lost, 0, 1e-12);
  EXPECT_NEAR(s.other, 0, 1e-12);  // subtracting amounts gave 0.25
  ASSERT_TRUE(s.transport);
  EXPECT_NEAR(*s.transport, 0, 1e-12);  // amounts gave 0.05
  EXPECT_NEAR(*s.remainder, 0, 1e-12);  // amounts gave -0.30

  // The rate really rises to 0.8 CPU beside the collective: 0.3 CPU more over 20.5 ms,
  // half of the overlap run being the computation's.
  ov.other_s = 0.8 * ov.wall_s;
  const SlowdownShares r = decompose(alone, ov, t);
  EXPECT_NEAR(r.other, 0.5 * (0.8 - 0.5) * 0.0205 / 0.010, 1e-12);
  EXPECT_NEAR(r.other, 0.3075, 1e-12);
  EXPECT_NEAR(*r.remainder, -0.3075, 1e-12);
}

TEST(CpuAccounting, PhaseTimesAreMeansOverTheKeptIterationsOnly) {
  // The discarded iteration is far off: including it (or dividing by all three) moves
  // every mean.
  const std::vector<PhaseTimes> its{{0.010, 0.012, 0.014}, {1.0, 1.0, 1.0}, {0.012, 0.016, 0.018}};
  const PhaseTimes m = mean_phase_times(its, {true, false, true});
  EXPECT_NEAR(m.t_comp_ref, 0.011, 1e-12);
  EXPECT_NEAR(m.t_comp, 0.014, 1e-12);
  EXPECT_NEAR(m.overlap_s, 0.016, 1e-12);
  const PhaseTimes all = mean_phase_times(its);
  EXPECT_NEAR(all.t_comp_ref, 1.022 / 3, 1e-12);
  const PhaseTimes none = mean_phase_times(its, {false, false, false});
  EXPECT_EQ(none.t_comp_ref, 0.0);
  EXPECT_EQ(none.overlap_s, 0.0);
  EXPECT_THROW(mean_phase_times(its, {true, false}), std::invalid_argument);
}

TEST(CpuAccounting, DecompositionNeedsWindowLengths) {
  CpuUsage alone, ov;
  ov.wall_s = 0.01;
  EXPECT_THROW(decompose(alone, ov, {0.010, 0.010, 0.010}), std::invalid_argument);
  EXPECT_THROW(decompose(ov, alone, {0.010, 0.010, 0.010}), std::invalid_argument);
}

TEST(CpuAccounting, DecompositionWithoutKernelCountersSaysWhy) {
  CpuUsage alone, ov;
  alone.wall_s = ov.wall_s = 0.0105;
  ov.progress_user_s = 0.001;
  const SlowdownShares s = decompose(alone, ov, {0.010, 0.0105, 0.0105});
  EXPECT_FALSE(s.transport);
  EXPECT_FALSE(s.remainder);
  EXPECT_FALSE(s.why_unmeasured.empty());
  EXPECT_NE(explain_shares(s, 0, false).find("not measured"), std::string::npos);
}

TEST(CpuAccounting, ExplanationNamesTheBiggestShareFirst) {
  SlowdownShares s;
  s.lost = 0.18;
  s.engine = 0.02;
  s.transport = 0.15;
  s.other = 0.01;
  s.remainder = 0.0;
  EXPECT_EQ(explain_shares(s, 1, false),
            "computation slowed 18 % (rank 1, mean of the kept iterations): 15 % kernel time on "
            "this rank's CPUs, 2 % progress thread, 1 % other threads, 0 % unexplained (memory, "
            "caches, scheduling)");
  // Shared CPUs: the kernel share is said to hold other processes' kernel time.
  EXPECT_EQ(explain_shares(s, 0, true),
            "computation slowed 18 % (rank 0, mean of the kept iterations): 15 % kernel time on "
            "this rank's CPUs (CPUs shared: includes other processes' kernel time), 2 % "
            "progress thread, 1 % other threads, 0 % unexplained (memory, caches, scheduling)");
}

TEST(CpuAccounting, KernelCpusSharedByMaskOrByAnotherRank) {
  // Emulated cluster: one core per node, one kernel: nobody shares.
  std::vector<RankCpus> ranks{{"boot-a", {0}, 1}, {"boot-a", {1}, 1}};
  EXPECT_FALSE(kernel_cpus_shared(ranks, 0));
  EXPECT_FALSE(kernel_cpus_shared(ranks, 1));
  // --bind-to none on a 2-core box: each mask is the whole machine, one thread computes.
  ranks = {{"boot-a", {0, 1}, 1}, {"boot-a", {0, 1}, 1}};
  EXPECT_TRUE(kernel_cpus_shared(ranks, 0));
  // Two OpenMP threads on two CPUs of its own: not shared ...
  ranks = {{"boot-a", {0, 1}, 2}, {"boot-a", {2, 3}, 2}};
  EXPECT_FALSE(kernel_cpus_shared(ranks, 0));
  // ... unless another rank under the same kernel has one of them (n0 and n2 on core 0).
  ranks = {{"boot-a", {0}, 1}, {"boot-a", {1}, 1}, {"boot-a", {0}, 1}};
  EXPECT_TRUE(kernel_cpus_shared(ranks, 0));
  EXPECT_FALSE(kernel_cpus_shared(ranks, 1));
  EXPECT_TRUE(kernel_cpus_shared(ranks, 2));
  // The same CPU numbers on another host's kernel are other CPUs.
  ranks = {{"boot-a", {0}, 1}, {"boot-b", {0}, 1}};
  EXPECT_FALSE(kernel_cpus_shared(ranks, 0));
}

}  // namespace
}  // namespace overlap::measure
