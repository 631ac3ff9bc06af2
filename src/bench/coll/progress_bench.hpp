// `overlap-bench progress` (clock-sync paper, sec. 4.1 and 4.2): what a nonblocking
// collective costs the CPU, and how it progresses with test calls. Per (implementation,
// collective, size), after t_b (Icoll + Wait alone) is measured and a number of work units
// calibrated to take t_b, every iteration runs from the sync barrier:
//   - the collective alone, the work alone, and the work time-based alone (units in t_b);
//   - time-based: Icoll; compute for t_b; Wait. Its overhead is the time inside the two
//     calls; cycles a progress thread steals only show as fewer units done;
//   - work-based: Icoll; the calibrated units; Wait. Its overhead is the time beyond the
//     work alone, stolen cycles included;
//   - per test interval: the work-based run with N = ceil(size / interval) + 1 MPI_Test
//     calls (one before, one after each of N - 1 equal pieces), and what MPI_Wait still
//     had to do: how many tests the library needs before it progresses by itself.
// Iterations with a late barrier exit are discarded and counted. Produces records.
#pragma once

#include "bench/coll/progress_record.hpp"
#include "bench/common/benchmark.hpp"

namespace overlap::bench {

const Benchmark<ProgressConfig, ProgressPoint>& progress_benchmark();

}  // namespace overlap::bench
