#include "bench/sync_bench.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

#include "clock/group_sync.hpp"
#include "clock/sync_barrier.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {
namespace {

using clock::ClockModel;
using clock::ClockSource;
using clock::GroupSync;
using clock::LinearMap;
using clock::PassStats;
using clock::RankClockModels;

constexpr int kBarrierWarmup = 10;
constexpr int kRankFields = 6;
constexpr int kVerifyPatienceFactor = 4;

void sleep_until(const ClockSource& clock, double local_target) {
  for (double left = local_target - clock.now(); left > 0; left = local_target - clock.now()) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.5)));
  }
}

SchemeRecord summarise(clock::SyncScheme scheme, const std::vector<PassStats>& passes) {
  std::vector<double> durations;
  std::vector<double> exchanges;
  int steps = 0;
  for (const PassStats& p : passes) {
    durations.push_back(p.duration_s);
    exchanges.push_back(static_cast<double>(p.exchanges));
    steps = std::max(steps, p.sequential_steps);
  }
  return {std::string(to_string(scheme)), measure::median(durations), steps,
          static_cast<std::int64_t>(measure::median(exchanges))};
}

// Median over iterations of (latest - earliest) global exit time. `exits` is rank-major:
// exits[r * iterations + i].
double median_skew(const std::vector<double>& exits, int size, int iterations) {
  std::vector<double> skews;
  for (int i = 0; i < iterations; ++i) {
    double lo = exits[static_cast<std::size_t>(i)];
    double hi = lo;
    for (int r = 1; r < size; ++r) {
      const double t = exits[static_cast<std::size_t>(r * iterations + i)];
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
    skews.push_back(hi - lo);
  }
  return measure::median(skews);
}

struct BarrierTimes {
  std::vector<double> ours;  // local exit times
  std::vector<double> mpi;
  long late_iterations = 0;
  double final_window = 0;
};

// Separate blocks, not alternating: on an oversubscribed node MPI_Barrier's busy polling
// would otherwise keep the next sync barrier's ranks off their cores, and we would
// measure MPI_Barrier's side effects twice.
BarrierTimes time_barriers(MPI_Comm comm, const ClockSource& clock, const ClockModel& model,
                           int iterations) {
  clock::SyncBarrier barrier(comm, clock, model);
  for (int i = 0; i < kBarrierWarmup; ++i) barrier.wait();
  const long misses_before = barrier.misses();
  BarrierTimes t;
  for (int i = 0; i < iterations; ++i) t.ours.push_back(barrier.wait().local_time);
  for (int i = 0; i < kBarrierWarmup; ++i) MPI_Barrier(comm);
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(comm);
    t.mpi.push_back(clock.now());
  }
  barrier.wait();  // lateness is reported with the next call: flush the last iteration's
  t.late_iterations = barrier.misses() - misses_before;
  t.final_window = barrier.window();
  return t;
}

std::vector<double> to_global(const LinearMap& post_mortem, const std::vector<double>& local) {
  std::vector<double> out;
  out.reserve(local.size());
  for (double t : local) out.push_back(post_mortem(t));
  return out;
}

LinearMap line_through(clock::TimePoint a, clock::TimePoint b) {
  const std::array<clock::TimePoint, 2> points{a, b};
  return LinearMap::fit(points);
}

// A fresh min-RTT sync of every rank directly with rank 0 (the linear scheme, one pass).
// It is the reference residuals are measured against, so its search for the minimum round
// trip is longer than the passes'. On rank r != 0: a point (local, global) and its RTT.
struct DirectSync {
  clock::TimePoint point;
  double rtt = 0;
};

DirectSync direct_sync(MPI_Comm comm, const ClockSource& clock, clock::EstimatorConfig config) {
  config.patience *= kVerifyPatienceFactor;
  GroupSync sync(comm, clock, clock::SyncScheme::linear, config);
  sync.run_pass();
  if (sync.samples().empty()) return {};  // rank 0
  return {sync.samples().back().server_to_client, sync.samples().back().rtt};
}

double gathered_skew(MPI_Comm comm, const std::vector<double>& global_exits) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int n = static_cast<int>(global_exits.size());
  std::vector<double> all(rank == 0 ? global_exits.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(global_exits.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, comm);
  return rank == 0 ? median_skew(all, size, n) : 0.0;
}

}  // namespace

SyncRecord run_sync(MPI_Comm comm, const ClockSource& clock, const SyncConfig& config) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  SyncRecord record;
  record.config = config;
  if (size == 1) {
    record.trivial = true;
    record.ranks.push_back({});
    record.log.scheme = "log";
    record.linear.scheme = "linear";
    return record;
  }

  const bool log_chosen = config.model_scheme == clock::SyncScheme::log;
  GroupSync log_sync(comm, clock, clock::SyncScheme::log, config.estimator);
  GroupSync linear_sync(comm, clock, clock::SyncScheme::linear, config.estimator);
  std::vector<PassStats> log_passes;
  std::vector<PassStats> linear_passes;
  MPI_Barrier(comm);
  const double start = clock.now();
  for (int j = 0; j < config.passes; ++j) {
    if (j > 0) sleep_until(clock, start + j * config.span_s / (config.passes - 1));
    log_passes.push_back(log_sync.run_pass());
    linear_passes.push_back(linear_sync.run_pass());
  }
  const double last_pass = clock.now();
  const RankClockModels log_models = log_sync.models();
  const RankClockModels linear_models = linear_sync.models();
  const RankClockModels& chosen = log_chosen ? log_models : linear_models;
  const RankClockModels& other = log_chosen ? linear_models : log_models;
  record.log = summarise(clock::SyncScheme::log, log_passes);
  record.linear = summarise(clock::SyncScheme::linear, linear_passes);

  sleep_until(clock, last_pass + config.verify_after_s);
  const DirectSync verification = direct_sync(comm, clock, config.estimator);

  std::array<double, kRankFields> mine{};  // offset, drift, rtt, residuals x3
  // Real-time use extrapolates from the latest syncs: the barrier gets the line through the
  // model at the last pass and the verification.
  LinearMap latest = LinearMap::identity();
  double verify_elapsed = 0;
  if (rank != 0) {
    const double local = verification.point.x;
    const double global = verification.point.y;
    mine = {chosen.drift.offset(last_pass),
            chosen.drift.drift_ppm(),
            verification.rtt,
            chosen.offset_only.to_global(local) - global,
            chosen.drift.to_global(local) - global,
            other.drift.to_global(local) - global};
    latest = line_through({last_pass, chosen.drift.to_global(last_pass)}, verification.point);
    verify_elapsed = local - last_pass;
  }
  MPI_Allreduce(MPI_IN_PLACE, &verify_elapsed, 1, MPI_DOUBLE, MPI_MAX, comm);
  record.verify_elapsed_s = verify_elapsed;

  // After the verification, so that its timing is not at the mercy of the barriers'.
  const BarrierTimes barriers =
      time_barriers(comm, clock, ClockModel(latest), config.barrier_iterations);
  record.barrier_late_iterations = barriers.late_iterations;
  record.barrier_final_window_s = barriers.final_window;

  // Post-mortem, the exits are interpolated between two direct syncs that bracket them,
  // independent of the model the barrier itself used (else its errors would be invisible).
  const DirectSync after = direct_sync(comm, clock, config.estimator);
  const LinearMap post_mortem =
      rank == 0 ? LinearMap::identity() : line_through(verification.point, after.point);
  record.barrier_skew_s = gathered_skew(comm, to_global(post_mortem, barriers.ours));
  record.mpi_barrier_skew_s = gathered_skew(comm, to_global(post_mortem, barriers.mpi));

  std::vector<double> all(rank == 0 ? kRankFields * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), kRankFields, MPI_DOUBLE, all.data(), kRankFields, MPI_DOUBLE, 0, comm);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      const double* f = &all[static_cast<std::size_t>(r) * kRankFields];
      record.ranks.push_back({r, f[0], f[1], f[2], f[3], f[4], f[5]});
    }
  }
  return record;
}

}  // namespace overlap::bench
