#include "compute/machine_cores.hpp"

#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace overlap::compute {
namespace {

int env_int(std::initializer_list<const char*> names, int fallback) {
  for (const char* name : names) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return fallback;
}

}  // namespace

CoreRequest machine_core_request() {
  CoreRequest r;
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    if (topo != nullptr) hwloc_topology_destroy(topo);
    throw std::runtime_error("hwloc could not read the machine topology");
  }
  cpu_set_t mask;
  CPU_ZERO(&mask);
  const bool have_mask = sched_getaffinity(0, sizeof(mask), &mask) == 0;
  int allowed = 0, online = 0;
  const int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < cores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    Core c;
    int pu = -1;
    while ((pu = hwloc_bitmap_next(core->cpuset, pu)) != -1) {
      ++online;
      if (!have_mask || CPU_ISSET(pu, &mask)) {
        c.pus.push_back(pu);
        ++allowed;
      }
    }
    if (!c.pus.empty()) r.cores.push_back(c);
  }
  hwloc_topology_destroy(topo);
  r.mask_is_whole_machine = allowed == online;
  // Open MPI, MPICH's hydra, Slurm.
  r.local_rank = env_int({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}, -1);
  r.local_ranks = std::max(
      1, env_int({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"}, 1));
  return r;
}

}  // namespace overlap::compute
