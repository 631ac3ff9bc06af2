// One operation timed the way every benchmark times a collective (nbc-overlap paper,
// sec. 4.1-4.2): all ranks leave the sync barrier together, start it, wait for it, and
// its time is max end - min start over ranks in global time. Used by calibrations and by
// `latency`; collective, every rank gets the same numbers.
#pragma once

#include <optional>
#include <string>

#include "bench/common/global_clock.hpp"
#include "bench/common/operation.hpp"
#include "compute/unit_work.hpp"

namespace overlap::bench {

struct TimedRun {
  double span_s = 0;     // max end - min start over ranks, global time
  double slowest_s = 0;  // the largest local end - start over ranks
  bool late = false;     // some rank left the barrier late: the ranks did not start together
};

// Collective over the clock's communicator.
TimedRun timed_run(GlobalClock& clock, Operation& op);

// Median span of `runs` runs; runs in which a rank was late are run again, up to `runs`
// extra times, so a loaded machine does not hand calibration a skewed start.
double median_span(GlobalClock& clock, Operation& op, int runs);

// Resizes `work` so that it takes `target` alone (slowest thread, slowest rank, median of
// `runs` runs from the sync barrier): the same decision on every rank. Collective. Returns
// why it did not converge, or nothing.
std::optional<std::string> calibrate_work(GlobalClock& clock, compute::UnitWork& work,
                                          double target, int runs, double tolerance);

}  // namespace overlap::bench
