// Finding the size (bytes, matrix order, ...) at which an operation takes a target time
// (nbc-overlap paper, sec. 4.3 and 5.1): measure, then iterate with inverse quadratic
// interpolation through the measured (size, time) pairs nearest the target, until one
// is within the tolerance. The cost function is the caller's (a median of several runs,
// agreed over ranks), so the search is deterministic given its answers and every rank
// of a job takes the same steps. A search that cannot succeed says why.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace overlap::measure {

struct CalibrationConfig {
  double tolerance = 0.1;  // |time - target| <= tolerance * target
  long min_size = 1;
  long max_size = 1L << 30;
  long initial_size = 0;  // first guess; 0 means min_size
  int max_steps = 20;     // measurements, the first one and any repeats included
};

struct CalibrationSample {
  long size = 0;
  double time = 0;
};

struct CalibrationResult {
  bool converged = false;
  // Not converged, but sizes were measured on both sides of the target: the target is
  // within reach of the sizes and only a step in time (a protocol switch, a burst) or the
  // measurement budget kept every size out of the tolerance. `size` is then the nearest
  // reachable: a caller may measure there and say so (nbc does) instead of giving up.
  bool bracketed = false;
  long size = 0;       // converged: the size found; otherwise the closest one measured
  double time = 0;     // its measured time
  std::string reason;  // empty when converged; one line otherwise
  std::vector<CalibrationSample> samples;  // in the order measured
};

// `cost(size)` returns the measured time of one size (seconds, > 0).
CalibrationResult calibrate(double target, const std::function<double(long)>& cost,
                            const CalibrationConfig& config);

// The size inverse quadratic interpolation through up to three samples predicts for
// `target` (two samples: linear). Exposed for tests.
double interpolate_size(double target, const std::vector<CalibrationSample>& nearest);

}  // namespace overlap::measure
