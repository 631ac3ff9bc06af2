// The computation of the NBC benchmark (nbc-overlap paper, sec. 5.1): OpenMP threads,
// each multiplying its own square matrices with a sequential BLAS GEMM. Work-based, not
// time-based: one run is a fixed amount of work, so anything that steals cycles from it
// (a progress thread, interrupts, MPI polling) shows up as a longer time.
#pragma once

#include <memory>
#include <vector>

#include "measure/calibration.hpp"

namespace overlap::compute {

struct GemmRun {
  double slowest_s = 0;          // the slowest thread's GEMM
  std::vector<double> thread_s;  // each thread's GEMM
};

class GemmWorkload {
 public:
  // `threads` >= 1 computation threads; BLAS itself is kept single-threaded.
  explicit GemmWorkload(int threads);
  ~GemmWorkload();
  GemmWorkload(const GemmWorkload&) = delete;
  GemmWorkload& operator=(const GemmWorkload&) = delete;

  // Matrix order n (n x n). Allocates and first-touches each thread's matrices on that
  // thread, so pages sit near the core that uses them. No-op if n is unchanged.
  void resize(int n);
  int order() const { return n_; }
  int threads() const { return threads_; }

  // One GEMM per thread, all threads at once. Returns after the last one finished.
  GemmRun run();

  // Search bounds for calibrating the matrix order to a time: from a small order up to
  // the largest whose matrices (3 n^2 doubles per thread, all threads) fit in `max_bytes`.
  measure::CalibrationConfig calibration_config(double tolerance, double max_bytes,
                                                long initial_order) const;

 private:
  struct ThreadMatrices;
  int threads_;
  int n_ = 0;
  std::vector<std::unique_ptr<ThreadMatrices>> matrices_;
};

}  // namespace overlap::compute
