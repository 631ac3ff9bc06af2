// Where threads really run, read back from the kernel and from hwloc, for the result files
// (issue 27: a rank's computation on the CPUs planned for it, liboverlap's progress thread
// on the one left free, inside the CPU set Slurm or the launcher gave the rank).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace overlap::compute {

// One thread's CPUs as cpulists ("0-3,6"): the kernel's (/proc/self/task/TID/status,
// Cpus_allowed_list) and hwloc's (hwloc_linux_get_tid_cpubind); "" when unreadable.
struct CpusReadBack {
  std::string proc;
  std::string hwloc;
};

// Per thread of `tids`, in order.
std::vector<CpusReadBack> read_back_cpus(const std::vector<int>& tids);

// Kernel ids of this process's threads named `name` (/proc/self/task/*/comm), ascending.
std::vector<int> threads_named(std::string_view name);

// The computation's binding as its threads get it: an OpenMP team of one thread per entry
// of `thread_pus`, each bound with ThreadBinding as GemmWorkload binds it, read back from
// inside, in thread order (the binding is undone after).
std::vector<CpusReadBack> read_back_computation(const std::vector<std::vector<int>>& thread_pus);

}  // namespace overlap::compute
