// The computation a sweep overlaps with communication, as the sweeps see it: a size that
// calibration tunes to a target time, one run of all threads, and the same run split into
// pieces with a call between them (progress tests, nbc --test-interval). GemmWorkload is
// the benchmarks' work-based computation; the progress benchmark adds a time-based one
// and the known-answer tests a stand-in of known duration.
#pragma once

#include <functional>
#include <vector>

#include "measure/calibration.hpp"

namespace overlap::compute {

class Workload {
 public:
  virtual ~Workload() = default;

  virtual int threads() const = 0;
  // Search bounds for calibrating the size to a time.
  virtual measure::CalibrationConfig calibration_config(double tolerance, double max_bytes,
                                                        long initial_size) const = 0;
  // Time grows about as size^exponent: the calibration's first guess from a previous one.
  virtual double size_exponent() const = 0;
  virtual void resize(long size) = 0;
  virtual long size() const = 0;

  // One run on every thread. Returns the slowest thread's time (seconds).
  virtual double run() = 0;
  // The same run split into `pieces` equal parts; the calling thread (thread 0) calls
  // `between()` after each of its parts. pieces <= 0 is run(). Returns the slowest thread's
  // time and sets `calls` to how many times between() ran (a run cannot be split finer
  // than its size allows).
  virtual double run_in_pieces(int pieces, const std::function<void()>& between, int& calls) = 0;
  // The kernel thread ids (gettid) of the threads the last run used, so CPU accounting
  // can tell computation threads from others; empty when the workload does not know.
  virtual std::vector<int> thread_ids() const { return {}; }
};

}  // namespace overlap::compute
