// The machine as plan_cores() needs it, read with hwloc: the physical cores this process
// may run on (its affinity mask), each with its allowed hardware threads, and whether the
// mask is the whole machine (nobody bound the process). Also the launcher's view of the
// node (local rank, local ranks), read from its environment before MPI_Init.
#pragma once

#include <string>

#include "compute/core_plan.hpp"

namespace overlap::compute {

// Fills cores, mask_is_whole_machine, local_rank and local_ranks of a request. Throws
// std::runtime_error when hwloc cannot read the topology.
CoreRequest machine_core_request();

}  // namespace overlap::compute
