// The Slurm job a run records (metadata.placement.slurm): read from the SLURM_* variables
// sbatch and srun set, absent outside a job, and round-tripped through its schema.
#include "base/slurm_job.hpp"

#include <gtest/gtest.h>

#include <map>

namespace overlap {
namespace {

std::optional<SlurmJob> job_of(const std::map<std::string, std::string>& env) {
  return slurm_job_from([&env](const char* name) -> std::optional<std::string> {
    const auto it = env.find(name);
    if (it == env.end()) return std::nullopt;
    return it->second;
  });
}

TEST(SlurmJob, AbsentOutsideAJob) {
  EXPECT_FALSE(job_of({}).has_value());
  EXPECT_FALSE(job_of({{"SLURM_NTASKS", "4"}, {"SLURM_JOB_ID", ""}}).has_value());
}

TEST(SlurmJob, ReadsWhatSrunSets) {
  const auto j = job_of({{"SLURM_JOB_ID", "4711"},
                         {"SLURM_STEP_ID", "0"},
                         {"SLURM_JOB_NODELIST", "n[01-02]"},
                         {"SLURM_JOB_NUM_NODES", "2"},
                         {"SLURM_NTASKS", "4"},
                         {"SLURM_TASKS_PER_NODE", "2(x2)"},
                         {"SLURM_CPUS_PER_TASK", "2"},
                         {"SLURM_CPU_BIND", "quiet,cores"},
                         {"SLURM_JOB_PARTITION", "debug"}});
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->job_id, "4711");
  EXPECT_EQ(j->step_id, "0");
  EXPECT_EQ(j->node_list, "n[01-02]");
  EXPECT_EQ(j->nodes, 2);
  EXPECT_EQ(j->tasks, 4);
  EXPECT_EQ(j->tasks_per_node, "2(x2)");
  EXPECT_EQ(j->cpus_per_task, 2);
  EXPECT_EQ(j->cpu_bind, "quiet,cores");
  EXPECT_EQ(j->partition, "debug");
  const SlurmJob back = slurm_job_schema().from_json(slurm_job_schema().to_json(*j));
  EXPECT_EQ(back.node_list, j->node_list);
  EXPECT_EQ(back.cpus_per_task, 2);
}

TEST(SlurmJob, NtasksPerNodeWinsAndBadNumbersReadAsNotGiven) {
  const auto j = job_of({{"SLURM_JOB_ID", "7"},
                         {"SLURM_NTASKS_PER_NODE", "1"},
                         {"SLURM_TASKS_PER_NODE", "1(x8)"},
                         {"SLURM_CPUS_PER_TASK", "two"},
                         {"SLURM_NTASKS", "-3"}});
  ASSERT_TRUE(j.has_value());
  EXPECT_EQ(j->tasks_per_node, "1");
  EXPECT_EQ(j->cpus_per_task, 0);
  EXPECT_EQ(j->tasks, 0);
  EXPECT_EQ(j->step_id, "");  // mpirun inside the allocation: no srun step
}

}  // namespace
}  // namespace overlap
