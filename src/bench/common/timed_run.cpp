#include "bench/common/timed_run.hpp"

#include <algorithm>
#include <array>
#include <vector>

#include "base/duration.hpp"
#include "measure/calibration.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {

TimedRun timed_run(GlobalClock& clock, Operation& op) {
  const bool late = clock.barrier();
  const double start = clock.now();
  op.start();
  op.wait();
  const double end = clock.now();
  // One reduction: min start, min -end, min -duration, min -late.
  std::array<double, 4> v{clock.to_global(start), -clock.to_global(end), -(end - start),
                          late ? -1.0 : 0.0};
  MPI_Allreduce(MPI_IN_PLACE, v.data(), 4, MPI_DOUBLE, MPI_MIN, clock.comm());
  return {-v[1] - v[0], -v[2], v[3] < 0};
}

double median_span(GlobalClock& clock, Operation& op, int runs) {
  std::vector<double> spans;
  int retries = 0;
  while (static_cast<int>(spans.size()) < runs) {
    const TimedRun r = timed_run(clock, op);
    if (r.late && retries < runs) {
      ++retries;
      continue;
    }
    spans.push_back(r.span_s);
  }
  return measure::median(spans);
}

std::optional<std::string> calibrate_work(GlobalClock& clock, compute::UnitWork& work,
                                          double target, int runs, double tolerance) {
  const auto cost = [&](long units) {
    work.resize(units);
    std::vector<double> times;
    for (int i = 0; i < runs; ++i) {
      clock.barrier();
      double t = work.run();
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, clock.comm());
      times.push_back(t);
    }
    return measure::median(times);
  };
  const measure::CalibrationResult r = measure::calibrate(
      target, cost, work.calibration_config(tolerance, 0, std::max(1L, work.size())));
  if (!r.converged) return "work not calibrated to " + format_duration(target) + ": " + r.reason;
  work.resize(r.size);
  return std::nullopt;
}

}  // namespace overlap::bench
