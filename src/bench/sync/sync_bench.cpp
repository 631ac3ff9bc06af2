#include "bench/sync/sync_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <thread>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
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

struct SchemeRecord {
  double sync_time_s = 0;  // median over passes of one pass's duration
  int steps = 0;           // sequential exchange steps of one pass, as measured
  long exchanges = 0;      // ping-pongs in one pass (median pass), all ranks
};

SchemeRecord summarise(const std::vector<PassStats>& passes) {
  std::vector<double> durations;
  std::vector<double> exchanges;
  int steps = 0;
  for (const PassStats& p : passes) {
    durations.push_back(p.duration_s);
    exchanges.push_back(static_cast<double>(p.exchanges));
    steps = std::max(steps, p.sequential_steps);
  }
  return {measure::median(durations), steps, static_cast<long>(measure::median(exchanges))};
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

SyncRecord run_sync(MPI_Comm comm, const ClockSource& clock, const SyncConfig& config,
                    const std::vector<std::string>& hosts) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  SyncRecord record;
  const clock::EstimatorConfig estimator{config.patience};
  if (size == 1) {
    record.trivial = true;
    RankSyncRecord only;
    only.host = hosts.empty() ? "" : hosts.front();
    record.ranks.push_back(only);
    return record;
  }

  const bool log_chosen = config.model_scheme == clock::SyncScheme::log;
  GroupSync log_sync(comm, clock, clock::SyncScheme::log, estimator);
  GroupSync linear_sync(comm, clock, clock::SyncScheme::linear, estimator);
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
  const SchemeRecord log = summarise(log_passes);
  const SchemeRecord linear = summarise(linear_passes);
  record.sync_time_log_s = log.sync_time_s;
  record.steps_log = log.steps;
  record.exchanges_log = log.exchanges;
  record.sync_time_linear_s = linear.sync_time_s;
  record.steps_linear = linear.steps;
  record.exchanges_linear = linear.exchanges;

  sleep_until(clock, last_pass + config.verify_after_s);
  const DirectSync verification = direct_sync(comm, clock, estimator);

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
  const DirectSync after = direct_sync(comm, clock, estimator);
  const LinearMap post_mortem =
      rank == 0 ? LinearMap::identity() : line_through(verification.point, after.point);
  record.barrier_skew_s = gathered_skew(comm, to_global(post_mortem, barriers.ours));
  record.mpi_barrier_skew_s = gathered_skew(comm, to_global(post_mortem, barriers.mpi));

  std::vector<double> all(rank == 0 ? kRankFields * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), kRankFields, MPI_DOUBLE, all.data(), kRankFields, MPI_DOUBLE, 0, comm);
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      const double* f = &all[static_cast<std::size_t>(r) * kRankFields];
      const std::string host = static_cast<std::size_t>(r) < hosts.size() ? hosts[r] : "";
      record.ranks.push_back({r, host, f[0], f[1], f[2], f[3], f[4], f[5]});
    }
  }
  return record;
}

namespace {

std::vector<OptionSpec> sync_options() {
  return {
      {"--patience", "100", "Min-RTT stop rule: exchanges without a new minimum before stopping",
       "patience"},
      {"--passes", "11", "Sync passes spread over --span (>= 2, for drift)", "passes"},
      {"--span", "10s", "Time from the first to the last sync pass", "span_s"},
      {"--verify-after", "10s",
       "Wait this long after the last pass, then measure the residual error", "verify_after_s"},
      {"--barrier-iterations", "200", "Iterations of the barrier exit-skew measurement",
       "barrier_iterations"},
      {"--scheme", "log", "Whose models are reported and used: log, linear", "model_scheme"},
  };
}

SyncConfig parse_sync(const OptionValues& v) {
  SyncConfig c;
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.passes = parse_count(v.text("--passes"), "--passes", 10000);
  if (c.passes < 2) {
    throw UsageError(fmt::format(
        "--passes: '{}' is not allowed; drift needs at least 2 sync passes", v.text("--passes")));
  }
  c.span_s = parse_duration(v.text("--span"), "--span");
  if (c.span_s <= 0) {
    throw UsageError(
        fmt::format("--span: '{}' is not allowed; expected a positive duration "
                    "(the passes must be apart in time to see drift)",
                    v.text("--span")));
  }
  c.verify_after_s = parse_duration(v.text("--verify-after"), "--verify-after");
  c.barrier_iterations =
      parse_count(v.text("--barrier-iterations"), "--barrier-iterations", 10'000'000);
  c.model_scheme = kSyncSchemeNames.parse_option(v.text("--scheme"), "--scheme");
  return c;
}

class SyncRun : public Sweep<SyncRecord> {
 public:
  SyncRun(const RunResources& r, const SyncConfig& c) : r_(r), config_(c) {}
  std::vector<SyncRecord> keys() const override { return {SyncRecord{}}; }
  std::vector<SyncRecord> measure(const SyncRecord&) override {
    return {run_sync(r_.comm, *r_.clock, config_, r_.context->hosts)};
  }

 private:
  RunResources r_;
  SyncConfig config_;
};

std::unique_ptr<Sweep<SyncRecord>> start_sync(const RunResources& r, const SyncConfig& c) {
  return std::make_unique<SyncRun>(r, c);
}

}  // namespace

const Benchmark<SyncConfig, SyncRecord>& sync_benchmark() {
  static const Benchmark<SyncConfig, SyncRecord> b{
      &kSyncResult,
      "Synchronise the ranks' clocks (log and linear schemes) and verify the result",
      {.computes = false,
       .resumable = false,
       .global_clock = true,
       .thread_level = MPI_THREAD_FUNNELED},
      sync_options,
      parse_sync,
      without_liboverlap<SyncConfig>,
      nullptr,
      start_sync};
  return b;
}

}  // namespace overlap::bench
