// Where the ranks ran: the CPUs each rank's affinity mask allowed when the run started
// (what mpirun's or srun's binding, a cgroup CPU set or taskset gave it) and the Slurm job
// when there is one. Recorded in every result's metadata (`placement`).
#pragma once

#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "base/record_schema.hpp"
#include "base/slurm_job.hpp"

namespace overlap::bench {

struct Placement {
  std::vector<std::string> cpus;  // per rank, rank order: its affinity mask as a cpulist
  std::optional<SlurmJob> slurm;  // rank 0's view of the job (the same on every rank)
};
const Schema<Placement>& placement_schema();

// Collective over comm.
Placement collect_placement(MPI_Comm comm);

}  // namespace overlap::bench
