// The computation of `overlap-bench progress` (clock-sync paper, sec. 4.1): small units of
// work (one sequential GEMM of order 48 each) on every computation thread, so the same
// computation can be run two ways. Work-based: a fixed number of units, whose time grows
// when something steals cycles. Time-based: units until a fixed time has passed, whose
// time cannot grow; stolen cycles show only as fewer units done. Threads are bound to
// their cores while they compute, as in GemmWorkload.
#pragma once

#include <memory>
#include <vector>

#include "compute/workload.hpp"

namespace overlap::compute {

class UnitWork : public Workload {
 public:
  explicit UnitWork(std::vector<std::vector<int>> thread_pus);
  ~UnitWork() override;
  UnitWork(const UnitWork&) = delete;
  UnitWork& operator=(const UnitWork&) = delete;

  int threads() const override { return static_cast<int>(pus_.size()); }
  measure::CalibrationConfig calibration_config(double tolerance, double max_bytes,
                                                long initial_units) const override;
  double size_exponent() const override { return 1.0; }
  void resize(long units) override;  // units per thread
  long size() const override { return units_; }
  double run() override;
  double run_in_pieces(int pieces, const std::function<void()>& between, int& calls) override;

  // Time-based: every thread computes units until `seconds` have passed on its clock.
  // Returns the units all threads did together.
  long run_for(double seconds);
  // The computation threads' TIDs as of the last run (CPU accounting attributes by them).
  std::vector<int> thread_ids() const override { return tids_; }

 private:
  struct Matrices;
  std::vector<std::vector<int>> pus_;
  long units_ = 0;
  std::vector<std::unique_ptr<Matrices>> matrices_;
  std::vector<double> thread_s_;
  std::vector<int> tids_;
};

}  // namespace overlap::compute
