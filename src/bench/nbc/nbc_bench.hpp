// `overlap-bench nbc`: does a nonblocking collective progress while the application
// computes? (nbc-overlap paper, sec. 3-5.) For one grid point (op, target communication
// time, target computation time) it calibrates the message size and the computation size
// to the targets, then measures, iteration by iteration and each from the sync barrier:
// the bare collective (Icoll + Wait), the bare computation, and the overlap run
// (Icoll; compute; Wait, with MPI_Test calls only when --test-interval asks for them).
// The reduction over ranks and iterations is measure/overlap_reduction; then, at the same
// message size, the peers' own protocols give the OSU and IMB columns (peer_protocol). The
// operation and both computations come from outside, so known-answer tests run stand-ins of
// known duration through this very code. Produces records; prints nothing.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "bench/common/benchmark.hpp"
#include "bench/common/cpu_record.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/operation.hpp"
#include "bench/nbc/nbc_record.hpp"
#include "compute/peer_kernel.hpp"
#include "compute/workload.hpp"

namespace overlap::bench {

using OperationFactory = std::function<std::unique_ptr<Operation>(Implementation, Collective)>;
// The MPI library's and liboverlap's collectives on `comm`.
OperationFactory collective_calls(MPI_Comm comm);

// MPI_Test calls during an overlap run: ceil(bytes / interval) + 1 (clock-sync paper,
// sec. 4.2): one at the start, then after each of ceil(bytes / interval) equal pieces.
int test_calls_for(long msg_bytes, long interval_bytes);

class NbcSweep {
 public:
  // Collective over the clock's communicator. `workload` is the computation, `peer_kernel`
  // the peers' dummy computation.
  NbcSweep(GlobalClock& clock, NbcConfig config, OperationFactory make_op,
           compute::Workload& workload, compute::PeerKernel& peer_kernel);

  // Every point of the grid (keys only), in the order a sweep runs them.
  std::vector<NbcPoint> points() const;
  // Collective. The record is complete on rank 0. Re-syncs clocks afterwards, so the
  // point's timestamps are interpolated between syncs, not extrapolated.
  NbcPoint measure(const NbcPoint& key);
  double calibration_s() const { return calibration_s_; }

  // A size calibrated to a target time: the collective's elements, or the computation's
  // size. Cached per target, as measure() uses them.
  struct Fit {
    bool ok = false;
    long size = 0;
    double time = 0;     // what the calibration measured at `size`
    std::string reason;  // not ok: why; ok: why `size` is only the nearest reachable, or ""
  };
  // Collective.
  Fit fit_comm(Implementation impl, Collective op, double target);
  Fit fit_comp(double target);
  // Collective: measures `key` at given sizes without calibrating (`elements` of the
  // collective's datatype, the computation at `comp_size`); the key's target times are the
  // references the point is checked against, 0: not checked (advise: the same message and
  // work measured for several set-ups).
  NbcPoint measure_at(const NbcPoint& key, long elements, long comp_size);
  // Collective: the bare computation's time (slowest rank) at `comp_size`, the median of
  // the calibration runs after one warm-up.
  double comp_alone(long comp_size);

 private:
  using Calibrated = Fit;
  struct Local;
  Calibrated calibrate_comm(Operation& op, const NbcPoint& key);
  Calibrated calibrate_comp(double target);
  NbcPoint measure_sized(Operation& op, NbcPoint rec, long elements, long comp_size);
  double comp_slowest_median(int runs);
  Local run_iteration(Operation& op, int tests, bool account);
  void reduce(const std::vector<Local>& its, NbcPoint& rec);
  void add_peers(Operation& op, int tests, NbcPoint& rec);

  GlobalClock& clock_;
  NbcConfig config_;
  OperationFactory make_op_;
  compute::Workload& work_;
  compute::PeerKernel& peer_kernel_;
  std::map<std::tuple<Implementation, Collective, double>, Calibrated> comm_cache_;
  std::map<double, Calibrated> comp_cache_;
  std::map<std::pair<Implementation, Collective>, std::pair<long, double>> last_comm_;
  std::pair<long, double> last_comp_{0, 0};  // warm start: size, time
  double calibration_s_ = 0;
  PhaseAccounting cpu_;  // samples on the thread that runs the sweep
};

// The subcommand: options, configuration, and a sweep with the GEMM computation bound to
// the planned cores.
const Benchmark<NbcConfig, NbcPoint>& nbc_benchmark();

}  // namespace overlap::bench
