#include "bench/nbc_bench.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "base/duration.hpp"
#include "clock/group_sync.hpp"
#include "clock/sync_barrier.hpp"
#include "compute/gemm_workload.hpp"
#include "measure/calibration.hpp"
#include "measure/global_time.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {
namespace {

// Fields each rank sends per iteration; see NbcSweep::Iteration.
constexpr int kFields = 10;

// Start from a guess scaled from the last calibration of the same kind, so a sweep's
// later targets take two or three steps instead of a full search from the smallest size.
long warm_start(std::pair<long, double> last, double target, double exponent, long fallback) {
  if (last.first <= 0 || !(last.second > 0)) return fallback;
  return std::max(1L, std::lround(static_cast<double>(last.first) *
                                  std::pow(target / last.second, 1.0 / exponent)));
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

// One iteration on one rank, local clock unless named global.
struct NbcSweep::Iteration {
  double comm_start = 0, comm_end = 0;    // bare collective
  double comp_ref = 0;                    // bare computation
  double t1 = 0, t2 = 0, t3 = 0, t4 = 0;  // overlap run (Algorithm 1)
};

bool NbcPointKey::same_as(const NbcPointKey& o) const {
  const auto close = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(a, b); };
  return impl == o.impl && op == o.op && close(target_comm_s, o.target_comm_s) &&
         close(target_comp_s, o.target_comp_s);
}

NbcSweep::NbcSweep(MPI_Comm comm, const clock::ClockSource& clock, NbcConfig config)
    : comm_(comm), clock_(clock), config_(std::move(config)) {
  MPI_Comm_rank(comm, &rank_);
  MPI_Comm_size(comm, &size_);
  sync_ =
      std::make_unique<clock::GroupSync>(comm, clock, clock::SyncScheme::log, config_.estimator);
  sync_->run_pass();
  const double first = clock.now();
  while (clock.now() - first < config_.sync_span_s) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  sync_->run_pass();
  passes_ = 2;
  update_rtt();
  model_ = sync_->models().drift;
  barrier_ = std::make_unique<clock::SyncBarrier>(comm, clock, model_);
  gemm_ = std::make_unique<compute::GemmWorkload>(config_.threads);
}

NbcSweep::~NbcSweep() = default;

std::vector<NbcPointKey> NbcSweep::points() const {
  std::vector<NbcPointKey> keys;
  // Implementations innermost: each (op, comm, comp) is measured by both back to back,
  // so a comparison sees the same machine state.
  for (NbcOp op : config_.ops) {
    for (double comm : config_.comm_times_s) {
      for (double comp : config_.comp_times_s) {
        for (NbcImpl impl : config_.impls) keys.push_back({impl, op, comm, comp});
      }
    }
  }
  return keys;
}

void NbcSweep::resync() {
  sync_->run_pass();
  ++passes_;
  model_ = sync_->models().drift;
  barrier_->set_model(model_);
  update_rtt();
}

void NbcSweep::update_rtt() {
  double rtt = sync_->samples().empty() ? 0.0 : sync_->samples().back().rtt;
  MPI_Allreduce(MPI_IN_PLACE, &rtt, 1, MPI_DOUBLE, MPI_MAX, comm_);
  max_rtt_ = rtt;
}

// Median over runs of the collective's global span; identical on every rank, so every
// rank's calibration takes the same decisions.
double NbcSweep::comm_span_median(NbcOperation& op, int runs) {
  const clock::ClockModel& model = model_;
  std::vector<double> spans;
  for (int i = 0; i < runs; ++i) {
    barrier_->wait();
    const double start = clock_.now();
    MPI_Request req = op.start();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    const double end = clock_.now();
    std::array<double, 2> v{model.to_global(start), -model.to_global(end)};
    MPI_Allreduce(MPI_IN_PLACE, v.data(), 2, MPI_DOUBLE, MPI_MIN, comm_);
    spans.push_back(-v[1] - v[0]);
  }
  return measure::median(spans);
}

double NbcSweep::comp_slowest_median(int runs) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    barrier_->wait();
    double t = gemm_->run().slowest_s;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, comm_);
    times.push_back(t);
  }
  return measure::median(times);
}

NbcSweep::Calibrated NbcSweep::calibrate_comm(NbcOperation& op, double target) {
  if (!op.has_size()) {
    const double t = comm_span_median(op, config_.calibration_runs);
    if (std::abs(t - target) <= config_.tolerance * target) return {true, 0, ""};
    return {false, 0,
            std::string(to_string(op.op())) + " has no size to calibrate: it takes " +
                format_duration(t) + ", not within " +
                std::to_string(std::lround(config_.tolerance * 100)) + " % of " +
                format_duration(target)};
  }
  measure::CalibrationConfig cc;
  cc.tolerance = config_.tolerance;
  cc.min_size = 1;
  cc.max_size = std::max(1L, op.max_elements(config_.max_bytes));
  cc.initial_size = warm_start(last_comm_[{op.impl(), op.op()}], target, 1.0, 1024);
  const auto cost = [&](long elements) {
    op.resize(elements);
    comm_span_median(op, 1);  // warm-up: connections, registration, algorithm choice
    return comm_span_median(op, config_.calibration_runs);
  };
  const measure::CalibrationResult r = measure::calibrate(target, cost, cc);
  if (!r.converged) {
    return {false, 0,
            "message size not calibrated for " + format_duration(target) + ": " + r.reason};
  }
  last_comm_[{op.impl(), op.op()}] = {r.size, r.time};
  return {true, r.size, ""};
}

NbcSweep::Calibrated NbcSweep::calibrate_comp(double target) {
  const measure::CalibrationConfig cc = gemm_->calibration_config(
      config_.tolerance, config_.max_bytes, warm_start(last_comp_, target, 3.0, 64));
  const auto cost = [&](long n) {
    gemm_->resize(static_cast<int>(n));
    comp_slowest_median(1);  // warm-up: caches, page faults, BLAS buffers
    return comp_slowest_median(config_.calibration_runs);
  };
  const measure::CalibrationResult r = measure::calibrate(target, cost, cc);
  if (!r.converged) {
    return {false, 0,
            "computation not calibrated for " + format_duration(target) + ": " + r.reason};
  }
  last_comp_ = {r.size, r.time};
  return {true, r.size, ""};
}

NbcSweep::Iteration NbcSweep::run_iteration(NbcOperation& op) {
  Iteration it;
  barrier_->wait();
  it.comm_start = clock_.now();
  MPI_Request req = op.start();
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  it.comm_end = clock_.now();

  barrier_->wait();
  const double c0 = clock_.now();
  gemm_->run();
  it.comp_ref = clock_.now() - c0;

  barrier_->wait();  // Algorithm 1: no MPI_Test anywhere, progress must come by itself
  it.t1 = clock_.now();
  req = op.start();
  it.t2 = clock_.now();
  gemm_->run();
  it.t3 = clock_.now();
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  it.t4 = clock_.now();
  return it;
}

NbcPointRecord NbcSweep::measure(const NbcPointKey& key) {
  const auto started = std::chrono::steady_clock::now();
  NbcPointRecord rec;
  rec.key = key;
  NbcOperation op(key.op, key.impl, comm_);

  const auto calib_started = std::chrono::steady_clock::now();
  const auto comm_key = std::make_tuple(key.impl, key.op, key.target_comm_s);
  if (!comm_cache_.contains(comm_key)) {
    comm_cache_[comm_key] = calibrate_comm(op, key.target_comm_s);
  }
  if (!comp_cache_.contains(key.target_comp_s)) {
    comp_cache_[key.target_comp_s] = calibrate_comp(key.target_comp_s);
  }
  const double calibration = seconds_since(calib_started);
  calibration_s_ += calibration;
  rec.calibration_s = calibration;  // 0 when both sizes came from the cache
  const Calibrated& comm = comm_cache_[comm_key];
  const Calibrated& comp = comp_cache_[key.target_comp_s];
  if (comm.ok) rec.msg_bytes = comm.size * op.element_bytes();
  if (comp.ok) rec.comp_size = static_cast<int>(comp.size);
  if (!comm.ok || !comp.ok) {
    rec.invalid_reason = !comm.ok ? comm.reason : comp.reason;
    rec.elapsed_s = seconds_since(started);
    return rec;
  }

  if (op.has_size()) op.resize(comm.size);
  gemm_->resize(static_cast<int>(comp.size));
  for (int i = 0; i < config_.warmup; ++i) run_iteration(op);
  std::vector<Iteration> its;
  for (int i = 0; i < config_.iterations; ++i) its.push_back(run_iteration(op));
  resync();
  reduce(its, rec);
  rec.elapsed_s = seconds_since(started);
  return rec;
}

void NbcSweep::reduce(const std::vector<Iteration>& its, NbcPointRecord& rec) {
  // Local to global with the line through every sync so far, the latest one (resync)
  // after these timestamps: interpolation.
  const clock::ClockModel& model = model_;
  const auto n = static_cast<int>(its.size());
  std::vector<double> mine;
  for (const Iteration& it : its) {
    mine.insert(mine.end(),
                {model.to_global(it.comm_start), model.to_global(it.comm_end), it.comp_ref,
                 model.to_global(it.t1), it.t2 - it.t1, it.t3 - it.t2, it.t4 - it.t3,
                 model.to_global(it.t4), it.comm_end - it.comm_start, it.t4 - it.t1});
  }
  std::vector<double> all(rank_ == 0 ? mine.size() * static_cast<std::size_t>(size_) : 0);
  MPI_Gather(mine.data(), n * kFields, MPI_DOUBLE, all.data(), n * kFields, MPI_DOUBLE, 0, comm_);
  rec.iterations = n;
  if (rank_ != 0) return;

  const auto at = [&](int r, int i, int f) {
    return all[(static_cast<std::size_t>(r) * n + i) * kFields + f];
  };
  std::vector<double> comm_ref, comp_ref, measured, call, compute, wait;
  for (int i = 0; i < n; ++i) {
    std::vector<double> cs, ce, t1, t4;
    double comp_max = 0, call_max = 0, compute_max = 0, wait_max = 0;
    for (int r = 0; r < size_; ++r) {
      cs.push_back(at(r, i, 0));
      ce.push_back(at(r, i, 1));
      comp_max = std::max(comp_max, at(r, i, 2));
      t1.push_back(at(r, i, 3));
      call_max = std::max(call_max, at(r, i, 4));
      compute_max = std::max(compute_max, at(r, i, 5));
      wait_max = std::max(wait_max, at(r, i, 6));
      t4.push_back(at(r, i, 7));
    }
    comm_ref.push_back(measure::collective_span(cs, ce));
    comp_ref.push_back(comp_max);
    measured.push_back(measure::collective_span(t1, t4));
    call.push_back(call_max);
    compute.push_back(compute_max);
    wait.push_back(wait_max);
  }
  rec.times = {measure::median(comm_ref), measure::median(comp_ref), measure::median(measured),
               measure::median(call),     measure::median(compute),  measure::median(wait)};
  rec.t_measured_p25_s = measure::quantile(measured, 0.25);
  rec.t_measured_p75_s = measure::quantile(measured, 0.75);

  // OSU and IMB work on per-rank local durations; give them each rank's medians.
  std::vector<measure::RankDurations> ranks;
  for (int r = 0; r < size_; ++r) {
    std::vector<double> overall, comp, pure, cpu;
    for (int i = 0; i < n; ++i) {
      overall.push_back(at(r, i, 9));
      comp.push_back(at(r, i, 5));
      pure.push_back(at(r, i, 8));
      cpu.push_back(at(r, i, 2));
    }
    ranks.push_back({measure::median(overall), measure::median(comp), measure::median(pure),
                     measure::median(cpu)});
  }
  rec.r_overhead = measure::r_overhead(rec.times);
  rec.r_comm = measure::r_comm(rec.times);
  rec.r_comp_slowdown = measure::r_comp_slowdown(rec.times);
  rec.osu_overlap_pct = measure::osu_overlap_pct(ranks);
  rec.imb_overlap_pct = measure::imb_overlap_pct(ranks);
  rec.diagnosis = measure::diagnose(rec.times);
  rec.valid = rec.diagnosis != measure::Diagnosis::invalid;
  if (!rec.valid) rec.invalid_reason = "a reference time was not positive";
}

ClockSyncQuality NbcSweep::sync_quality() const {
  return {passes_, max_rtt_, barrier_->misses(), barrier_->window()};
}

}  // namespace overlap::bench
