// `overlap-bench nbc`: does a nonblocking collective progress while the application
// computes? (nbc-overlap paper, sec. 3-5.) For one grid point (op, target communication
// time, target computation time) it calibrates the message size and the GEMM order to
// the targets, then measures, iteration by iteration and each from the sync barrier:
// the bare collective (Icoll + Wait), the bare computation, and the overlap run
// (Icoll; compute; Wait). Collective times are max end - min start in global time; the
// metrics use the measured reference times, never the targets. Produces records; prints
// nothing.
#pragma once

#include <mpi.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "bench/nbc_op.hpp"
#include "clock/clock_model.hpp"
#include "clock/clock_source.hpp"
#include "clock/offset_estimator.hpp"
#include "measure/overlap_metrics.hpp"

namespace overlap::compute {
class GemmWorkload;
}
namespace overlap::clock {
class GroupSync;
class SyncBarrier;
}  // namespace overlap::clock

namespace overlap::bench {

struct NbcConfig {
  std::vector<NbcImpl> impls{NbcImpl::mpi};  // compared side by side, point by point
  std::string progress = "shared";           // liboverlap's policy (recorded)
  std::vector<NbcOp> ops;
  std::vector<double> comm_times_s;
  std::vector<double> comp_times_s;
  int iterations = 15;
  int warmup = 2;
  int calibration_runs = 5;  // median of this many runs per calibration step
  double tolerance = 0.1;
  double max_bytes = 1024.0 * 1024 * 1024;  // per rank, send + receive buffers
  int threads = 1;                          // computation threads per rank
  int dedicated_cores = 0;                  // recorded; the caller sized `threads` for it
  clock::EstimatorConfig estimator;
  double sync_span_s = 1.0;  // between the two initial sync passes
};

struct NbcPointKey {
  NbcImpl impl = NbcImpl::mpi;
  NbcOp op = NbcOp::ibcast;
  double target_comm_s = 0;
  double target_comp_s = 0;
  // Targets come from the same text in a run and its resume: compare with a little slack.
  bool same_as(const NbcPointKey& other) const;
};

struct NbcPointRecord {
  NbcPointKey key;
  bool valid = false;
  std::string invalid_reason;
  std::optional<long> msg_bytes;
  std::optional<int> comp_size;
  int iterations = 0;
  measure::OverlapTimes times;  // medians; meaningful only when valid
  double t_measured_p25_s = 0;
  double t_measured_p75_s = 0;
  std::optional<double> r_overhead, r_comm, r_comp_slowdown;
  std::optional<double> osu_overlap_pct, imb_overlap_pct;
  measure::Diagnosis diagnosis = measure::Diagnosis::invalid;
  double calibration_s = 0;
  double elapsed_s = 0;
};

struct ClockSyncQuality {
  int passes = 0;
  double max_rtt_s = 0;  // worst min-RTT of the last pass over ranks: bounds offset error
  long barrier_late = 0;
  double barrier_window_s = 0;
};

class NbcSweep {
 public:
  // Collective: synchronises clocks (two passes `sync_span_s` apart).
  NbcSweep(MPI_Comm comm, const clock::ClockSource& clock, NbcConfig config);
  ~NbcSweep();
  NbcSweep(const NbcSweep&) = delete;
  NbcSweep& operator=(const NbcSweep&) = delete;

  // Every point of the grid, in the order a sweep runs them.
  std::vector<NbcPointKey> points() const;
  // Collective. The record is complete on rank 0. Re-syncs clocks afterwards, so the
  // point's timestamps are interpolated between syncs, not extrapolated.
  NbcPointRecord measure(const NbcPointKey& key);
  ClockSyncQuality sync_quality() const;
  double calibration_s() const { return calibration_s_; }

 private:
  struct Calibrated {
    bool ok = false;
    long size = 0;
    std::string reason;
  };
  struct Iteration;
  Calibrated calibrate_comm(NbcOperation& op, double target);
  Calibrated calibrate_comp(double target);
  double comm_span_median(NbcOperation& op, int runs);
  double comp_slowest_median(int runs);
  Iteration run_iteration(NbcOperation& op);
  void resync();
  void update_rtt();
  // Collective; fills the times and metrics of `rec` on rank 0.
  void reduce(const std::vector<Iteration>& its, NbcPointRecord& rec);

  MPI_Comm comm_;
  int rank_ = 0;
  int size_ = 1;
  const clock::ClockSource& clock_;
  NbcConfig config_;
  std::unique_ptr<clock::GroupSync> sync_;
  std::unique_ptr<clock::SyncBarrier> barrier_;
  std::unique_ptr<compute::GemmWorkload> gemm_;
  std::map<std::tuple<NbcImpl, NbcOp, double>, Calibrated> comm_cache_;
  std::map<double, Calibrated> comp_cache_;
  std::map<std::pair<NbcImpl, NbcOp>, std::pair<long, double>>
      last_comm_;  // warm start: size, time
  std::pair<long, double> last_comp_{0, 0};
  double calibration_s_ = 0;
  int passes_ = 0;
  double max_rtt_ = 0;
  clock::ClockModel model_;  // this rank -> global, refitted at every sync pass
};

}  // namespace overlap::bench
