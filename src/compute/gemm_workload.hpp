// The computation of the NBC benchmark (nbc-overlap paper, sec. 5.1): OpenMP threads,
// each multiplying its own square matrices with a sequential BLAS GEMM. Work-based, not
// time-based: one run is a fixed amount of work, so anything that steals cycles from it
// (a progress thread, interrupts, MPI polling) shows up as a longer time. Each thread is
// bound to its own core while it computes (core_plan.hpp).
#pragma once

#include <memory>
#include <vector>

#include "compute/workload.hpp"

namespace overlap::compute {

class GemmWorkload : public Workload {
 public:
  // One computation thread per entry, bound to those PUs while it computes (an empty entry:
  // unbound). BLAS itself is kept single-threaded.
  explicit GemmWorkload(std::vector<std::vector<int>> thread_pus);
  // `threads` unbound threads.
  explicit GemmWorkload(int threads);
  ~GemmWorkload() override;
  GemmWorkload(const GemmWorkload&) = delete;
  GemmWorkload& operator=(const GemmWorkload&) = delete;

  int threads() const override { return static_cast<int>(pus_.size()); }
  // From a small order up to the largest whose matrices (3 n^2 doubles per thread, all
  // threads) fit in `max_bytes`.
  measure::CalibrationConfig calibration_config(double tolerance, double max_bytes,
                                                long initial_order) const override;
  double size_exponent() const override { return 3.0; }
  // Matrix order n (n x n). Allocates and first-touches each thread's matrices on that
  // thread, so pages sit near the core that uses them. No-op if n is unchanged.
  void resize(long n) override;
  long size() const override { return n_; }
  int order() const { return n_; }

  // One GEMM per thread, all threads at once. Returns the slowest thread's time.
  double run() override;
  // Each thread's GEMM in `pieces` row blocks of C (at most n).
  double run_in_pieces(int pieces, const std::function<void()>& between, int& calls) override;
  const std::vector<double>& last_thread_times() const { return thread_s_; }
  std::vector<int> thread_ids() const override { return tids_; }

 private:
  struct ThreadMatrices;
  std::vector<std::vector<int>> pus_;
  int n_ = 0;
  std::vector<std::unique_ptr<ThreadMatrices>> matrices_;
  std::vector<double> thread_s_;
  std::vector<int> tids_;  // per OpenMP thread, as of the last run
};

}  // namespace overlap::compute
