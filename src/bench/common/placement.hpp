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

// One rank's threads as they run, read back from the kernel and from hwloc
// (compute/thread_read_back): each computation thread bound as the benchmark binds it, and
// liboverlap's thread (shared's, dedicated's, MPICH caller's rescue thread), as cpulists.
struct RankThreads {
  int rank = 0;
  std::vector<std::string> computation, computation_hwloc;  // per computation thread
  std::vector<std::string> progress, progress_hwloc;        // per thread named ovx-progress
};
const Schema<RankThreads>& rank_threads_schema();

struct ThreadsReadBack {
  std::vector<RankThreads> ranks;  // rank order
};
const Schema<ThreadsReadBack>& threads_read_back_schema();

struct Placement {
  std::vector<std::string> cpus;           // per rank, rank order: its affinity mask as a cpulist
  std::optional<SlurmJob> slurm;           // rank 0's view of the job (the same on every rank)
  std::optional<ThreadsReadBack> threads;  // null before liboverlap and the threads start
};
const Schema<Placement>& placement_schema();

// Collective over comm.
Placement collect_placement(MPI_Comm comm);

// Collective over comm, after liboverlap started and before the computation's threads
// exist: where each rank's `thread_pus` and its progress thread really run.
ThreadsReadBack collect_threads_read_back(MPI_Comm comm,
                                          const std::vector<std::vector<int>>& thread_pus);

}  // namespace overlap::bench
