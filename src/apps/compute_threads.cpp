#include "apps/compute_threads.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

#include "base/duration.hpp"
#include "base/usage_error.hpp"

namespace overlap::apps {
namespace {

int affinity_cores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

// Ranks on this node, as the launcher says (Open MPI, MPICH's hydra, Slurm); 1 if unknown.
int local_ranks() {
  for (const char* var :
       {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}) {
    if (const char* v = std::getenv(var)) return std::max(1, std::atoi(v));
  }
  return 1;
}

}  // namespace

ThreadChoice choose_threads(const std::string& threads_text, const std::string& dedicate_text) {
  ThreadChoice c;
  const int mask = affinity_cores();
  // A mask wider than the rank's share means the launcher did not bind: share the cores.
  c.cores_available = std::max(1, std::min(mask, mask / std::min(mask, local_ranks())));
  c.dedicated_cores = 0;
  if (!dedicate_text.empty() && dedicate_text != "0") {
    c.dedicated_cores = parse_count(dedicate_text, "--dedicate-cores", 4096);
  }
  if (threads_text.empty() || threads_text == "auto") {
    c.threads = c.cores_available - c.dedicated_cores;
    if (c.threads < 1) {
      throw UsageError(fmt::format(
          "--dedicate-cores: '{}' is not allowed; this rank has {} core(s) and needs at least "
          "one for the computation",
          dedicate_text, c.cores_available));
    }
  } else {
    c.threads = parse_count(threads_text, "--threads", 4096);
  }
  return c;
}

}  // namespace overlap::apps
