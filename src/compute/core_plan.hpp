// Which cores a rank computes on (nbc-overlap paper, sec. 5.1 and 7): one computation
// thread per physical core, never per hardware thread, each thread bound to its core,
// and the last K cores left free (--dedicate-cores) for a progress thread, ours or the MPI
// library's. Pure: the machine is read elsewhere (machine_cores.hpp), so the rules are
// tested on made-up machines.
#pragma once

#include <string>
#include <vector>

namespace overlap::compute {

// A physical core and the hardware threads (PUs, OS indices) of it this rank may use.
struct Core {
  std::vector<int> pus;
};

struct CoreRequest {
  std::vector<Core> cores;     // cores in this rank's affinity mask, in machine order
  bool mask_is_whole_machine;  // nobody bound us: the launcher left placement to us
  int local_rank = -1;         // this rank's index on the node (-1: unknown)
  int local_ranks = 1;         // ranks on this node
  int dedicate = 0;            // cores to leave free
  int threads = 0;             // 0: one per core left; otherwise exactly this many
};

struct CorePlan {
  std::vector<std::vector<int>> thread_pus;  // per computation thread, the PUs it is bound to
  std::vector<Core> free_cores;              // left for progress (the last `dedicate`)
  int cores_available = 0;                   // this rank's cores before dedicating any
  std::string error;                         // not empty: the request cannot be met
};

// An unbound rank that shares the machine with other local ranks takes its fair share:
// cores [i*s, (i+1)*s) of the machine with s = cores / local ranks (at least 1; with
// more ranks than cores, core i mod cores). A bound rank uses its whole mask.
CorePlan plan_cores(const CoreRequest& request);

}  // namespace overlap::compute
