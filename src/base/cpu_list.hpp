// CPU sets as Linux writes them (a cpulist: "0-3,6,8-9"), and the one the calling thread may
// run on: what result files and overlap-run's report say of where a rank ran.
#pragma once

#include <set>
#include <string>

namespace overlap {

// Ascending, runs as ranges; "" for the empty set.
std::string format_cpu_list(const std::set<int>& cpus);
// The calling thread's affinity mask (sched_getaffinity) as a cpulist; "" when it cannot
// be read.
std::string affinity_cpu_list();

}  // namespace overlap
