// Puts the dedicated progress thread on a core of its own (hwloc), and keeps the
// application's future threads off that core, which is the point of dedicating it.
#pragma once

#include <string>

namespace overlap::progress {

struct CoreChoice {
  int core = -1;      // hwloc logical index of the chosen core, -1 on failure
  int cores = 0;      // cores in the process's CPU set
  std::string error;  // why no core could be chosen or bound
};

// Binds the calling thread to core number `index` (0-based, in the process's CPU set;
// -1 = the last one).
CoreChoice bind_this_thread_to_core(int index);

// Removes `core` (hwloc logical index) from the calling thread's CPU binding, so threads
// it creates afterwards (OpenMP workers) stay off it. Returns an error text or "".
std::string exclude_core_from_this_thread(int core);

}  // namespace overlap::progress

namespace overlap::progress {

// The whole cores of the process's CPU set, and whether that set is every core the
// machine lets this process see (no binding by the launcher).
struct ProcessCores {
  int cores = 0;
  int machine_cores = 0;
  std::string cpus;  // the CPU set as a list, e.g. "0-3"
  std::string error;
};
ProcessCores process_cores();

}  // namespace overlap::progress
