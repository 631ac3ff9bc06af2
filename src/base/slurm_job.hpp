// The Slurm job a run is part of, as Slurm tells its tasks (the SLURM_* variables sbatch,
// salloc and srun set): recorded in every result's metadata and in overlap-run's report,
// so that a figure names the allocation it came from. slurm_job_from is pure (any
// variable lookup); slurm_job() reads this process's environment.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "base/record_schema.hpp"

namespace overlap {

struct SlurmJob {
  std::string job_id;          // SLURM_JOB_ID
  std::string step_id;         // SLURM_STEP_ID: set by srun ("" under mpirun in the job)
  std::string node_list;       // SLURM_JOB_NODELIST, e.g. "n[01-04]"
  int nodes = 0;               // SLURM_JOB_NUM_NODES
  int tasks = 0;               // SLURM_NTASKS (0: not given)
  std::string tasks_per_node;  // SLURM_NTASKS_PER_NODE, else SLURM_TASKS_PER_NODE ("2(x4)")
  int cpus_per_task = 0;       // SLURM_CPUS_PER_TASK (0: not given)
  std::string cpu_bind;        // SLURM_CPU_BIND as srun set it, e.g. "quiet,cores"
  std::string partition;       // SLURM_JOB_PARTITION
};
const Schema<SlurmJob>& slurm_job_schema();

// The job, when SLURM_JOB_ID is set; `get` returns a variable's value or nullopt.
std::optional<SlurmJob> slurm_job_from(
    const std::function<std::optional<std::string>(const char*)>& get);
// From this process's environment.
std::optional<SlurmJob> slurm_job();

}  // namespace overlap
