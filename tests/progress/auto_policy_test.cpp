// The `auto` progress policy over made-up machines: a free core makes it dedicated, none
// shared, MPICH's own progress thread caller; unbound ranks share their node's cores.
#include "progress/auto_policy.hpp"

#include <gtest/gtest.h>

namespace overlap::progress {
namespace {

AutoInputs machine(int cores, int machine_cores, int local_ranks, int threads) {
  AutoInputs in;
  in.cores = cores;
  in.machine_cores = machine_cores;
  in.cpus = "0-" + std::to_string(cores - 1);
  in.local_ranks = local_ranks;
  in.threads = threads;
  in.threads_source = "as told";
  return in;
}

TEST(AutoPolicy, DedicatedWhereACoreIsLeftOverElseShared) {
  // Bound to 2 cores (of 16), one thread: a core is free.
  EXPECT_EQ(resolve_auto(machine(2, 16, 8, 1)).policy, ProgressPolicy::dedicated);
  // Bound to 4 cores, 4 OpenMP threads: none left.
  EXPECT_EQ(resolve_auto(machine(4, 16, 4, 4)).policy, ProgressPolicy::shared);
  EXPECT_EQ(resolve_auto(machine(4, 16, 4, 3)).policy, ProgressPolicy::dedicated);
  // Bound to one core.
  EXPECT_EQ(resolve_auto(machine(1, 2, 2, 1)).policy, ProgressPolicy::shared);
}

TEST(AutoPolicy, RanksSharingACpuSetNeverDedicate) {
  // 2 cores, 2 unbound ranks (this project's CI with mpiexec -n 2): one core each.
  EXPECT_EQ(cores_for_this_rank(machine(2, 2, 2, 1)), 1);
  EXPECT_EQ(resolve_auto(machine(2, 2, 2, 1)).policy, ProgressPolicy::shared);
  // One rank alone on 2 cores.
  EXPECT_EQ(resolve_auto(machine(2, 2, 1, 1)).policy, ProgressPolicy::dedicated);
  // 16 cores, 4 unbound ranks of 1 thread: 4 cores each, but every rank's dedicated
  // thread would go to core 15.
  EXPECT_EQ(cores_for_this_rank(machine(16, 16, 4, 1)), 4);
  EXPECT_TRUE(set_is_shared(machine(16, 16, 4, 1)));
  EXPECT_EQ(resolve_auto(machine(16, 16, 4, 1)).policy, ProgressPolicy::shared);
  // 16 ranks bound to one 32-core socket of 64 cores together (Open MPI's default above
  // 2 ranks): shared too.
  EXPECT_EQ(resolve_auto(machine(32, 64, 16, 1)).policy, ProgressPolicy::shared);
  // 4 ranks bound to 4 cores each of 16: their own sets.
  EXPECT_FALSE(set_is_shared(machine(4, 16, 4, 3)));
  EXPECT_EQ(resolve_auto(machine(4, 16, 4, 3)).policy, ProgressPolicy::dedicated);
}

TEST(AutoPolicy, MpichsOwnProgressThreadMeansNoSecondOne) {
  AutoInputs in = machine(8, 8, 1, 1);
  in.mpi_async_progress = true;
  const AutoChoice c = resolve_auto(in);
  EXPECT_EQ(c.policy, ProgressPolicy::caller);
  EXPECT_NE(c.reason.find("MPICH_ASYNC_PROGRESS"), std::string::npos);
}

TEST(AutoPolicy, ALeftCoreIsDedicatedAndTheReasonGivesTheNumbers) {
  AutoInputs in = machine(1, 2, 2, 1);
  in.leave_core = true;
  EXPECT_EQ(resolve_auto(in).policy, ProgressPolicy::dedicated);
  const AutoChoice c = resolve_auto(machine(16, 16, 4, 1));
  EXPECT_EQ(c.reason,
            "16 cores in this rank's CPU set 0-15, shared with the node's other ranks (4 on 16 "
            "cores): their dedicated threads would take the same core");
  EXPECT_EQ(resolve_auto(machine(4, 16, 4, 4)).reason,
            "4 cores in this rank's CPU set 0-3; the program runs 4 computation threads (as "
            "told): no core to spare");
  EXPECT_EQ(resolve_auto(machine(2, 16, 8, 1)).reason,
            "2 cores in this rank's CPU set 0-1; the program runs 1 computation thread (as "
            "told): a core is free for progress");
}

}  // namespace
}  // namespace overlap::progress
