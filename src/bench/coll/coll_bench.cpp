#include "bench/coll/coll_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <memory>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/common_options.hpp"
#include "bench/common/timed_run.hpp"
#include "measure/span_reduction.hpp"
#include "measure/statistics.hpp"
#include "measure/window_policy.hpp"
#include "mpi/agree_on_failure.hpp"

namespace overlap::bench {
namespace {

constexpr double kMinWindow = 20e-6;
constexpr double kPilotFactor = 3.0;  // window = 3 x the pilot's median
constexpr int kMaxBatches = 4;        // at most 4 x iterations windows tried
constexpr double kMinLead = 1e-3;     // the start instant must reach every rank first

}  // namespace

struct Stamp {
  double start = 0, end = 0;  // local
  bool late = false;
};

// One batch as run: its schedule and this rank's stamps, on its local clock, so that it can
// be reduced again once the clock has been re-synchronised.
struct RawBatch {
  double first = 0;   // global instant of the first window
  double window = 0;  // their length
  std::vector<Stamp> stamps;
};

namespace {

// One batch of `n` windows from `first` (global), `window` apart.
RawBatch run_windows(GlobalClock& clock, Operation& op, double first, double window, int n) {
  RawBatch raw{first, window, {}};
  for (int k = 0; k < n; ++k) {
    Stamp s;
    s.late = clock.wait_until(first + k * window);
    s.start = clock.now();
    op.start();
    op.wait();
    s.end = clock.now();
    raw.stamps.push_back(s);
  }
  return raw;
}

// What rank 0 keeps of a batch, and why it discards the rest.
struct Batch {
  std::vector<double> latency, slowest;
  std::vector<std::vector<double>> own;  // per kept window, each rank's own time
  int late = 0, overrun = 0;
};

// Collective. Converts the stamps with the clock model as it is now: during the run that
// extrapolates (the run decides in real time), after the point's re-sync it interpolates.
Batch reduce_batch(GlobalClock& clock, const RawBatch& raw) {
  const int n = static_cast<int>(raw.stamps.size());
  // Per window: min start, min -end, min -own, min -late (one reduction).
  std::vector<double> v;
  std::vector<double> own;
  for (const Stamp& s : raw.stamps) {
    v.insert(v.end(), {clock.to_global(s.start), -clock.to_global(s.end), -(s.end - s.start),
                       s.late ? -1.0 : 0.0});
    own.push_back(s.end - s.start);
  }
  MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MIN,
                clock.comm());
  std::vector<double> all(clock.rank() == 0 ? own.size() * clock.size() : 0);
  MPI_Gather(own.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, 0, clock.comm());
  std::vector<measure::SpanStamp> windows;
  for (int k = 0; k < n; ++k) {
    const double* f = &v[static_cast<std::size_t>(4 * k)];
    windows.push_back({f[0], -f[1], -f[2], f[3] < 0, raw.first + (k + 1) * raw.window});
  }
  const measure::Spans spans = measure::keep_spans(windows);
  Batch b{spans.span, spans.slowest, {}, spans.late, spans.overrun};
  for (int k = 0; k < n && clock.rank() == 0; ++k) {
    if (!spans.kept[static_cast<std::size_t>(k)]) continue;
    std::vector<double> ranks;
    for (int r = 0; r < clock.size(); ++r)
      ranks.push_back(all[static_cast<std::size_t>(r * n + k)]);
    b.own.push_back(ranks);
  }
  return b;
}

// OSU's loop: MPI_Barrier, then the collective, timed locally; each rank's mean, then the
// average and the maximum over ranks.
std::pair<double, double> naive_loop(GlobalClock& clock, Operation& op, int iterations) {
  double sum = 0;
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(clock.comm());
    const double t0 = clock.now();
    op.start();
    op.wait();
    sum += clock.now() - t0;
  }
  std::array<double, 2> mean{sum / iterations, sum / iterations};
  std::array<double, 2> out{};
  MPI_Allreduce(&mean[0], &out[0], 1, MPI_DOUBLE, MPI_SUM, clock.comm());
  MPI_Allreduce(&mean[1], &out[1], 1, MPI_DOUBLE, MPI_MAX, clock.comm());
  return {out[0] / clock.size(), out[1]};
}

void summarise(CollPoint& p, const std::vector<Batch>& batches, int ranks) {
  std::vector<double> latency, slowest;
  std::vector<std::vector<double>> per_rank(static_cast<std::size_t>(ranks));
  for (const Batch& b : batches) {
    latency.insert(latency.end(), b.latency.begin(), b.latency.end());
    slowest.insert(slowest.end(), b.slowest.begin(), b.slowest.end());
    p.late_windows += b.late;
    p.overrun_windows += b.overrun;
    for (const auto& window : b.own) {
      for (std::size_t r = 0; r < window.size(); ++r) per_rank[r].push_back(window[r]);
    }
  }
  p.iterations = static_cast<int>(latency.size());
  if (latency.empty()) {
    p.invalid_reason = fmt::format(
        "all {} windows were discarded ({} started late, {} overran their window, "
        "{} dropped when the window widened)",
        p.windows, p.late_windows, p.overrun_windows, p.restarted_windows);
    return;
  }
  p.valid = true;
  p.latency = measure::spread(latency);
  p.slowest = measure::spread(slowest);
  for (const auto& own : per_rank) {
    if (!own.empty()) p.rank_median_s.push_back(measure::median(own));
  }
}

}  // namespace

// The point's sample: batches until `iterations` windows are kept; an overrun (or more than
// a quarter lost) widens the window and restarts the sample (measure/window_policy), so the
// kept windows are of one length and none had its slow tail cut off.
WindowRun run_window_batches(GlobalClock& clock, const CollConfig& config, Operation& op) {
  // The pilot: warm-up runs from the sync barrier, whose median sets the window.
  const double pilot = median_span(clock, op, std::max(1, config.warmup));
  double window = config.window_s.value_or(std::max(kMinWindow, kPilotFactor * pilot));
  const double lead = std::max(kMinLead, 2 * clock.quality().barrier_window_s);
  WindowRun run;
  measure::WindowTally& tally = run.tally;
  for (int b = 0; b < kMaxBatches && tally.kept < config.iterations; ++b) {
    const int n = config.iterations - tally.kept;
    RawBatch raw = run_windows(clock, op, clock.agree_on_instant(lead + window), window, n);
    // Every rank reduces the same numbers, so all take the same next step.
    const Batch now = reduce_batch(clock, raw);
    run.window_s = window;
    const measure::WindowBatchOutcome outcome{n, now.late, now.overrun};
    const measure::WindowStep step = measure::next_window_step(
        outcome, window, config.window_s.has_value(), b + 1 == kMaxBatches);
    tally.add(outcome, static_cast<int>(now.latency.size()), step.restart);
    if (step.restart) {
      run.kept.clear();
      window = step.window;
      continue;
    }
    run.kept.push_back(std::make_shared<const RawBatch>(std::move(raw)));
  }
  if (config.naive) {
    const auto [mean, most] = naive_loop(clock, op, config.iterations);
    run.naive_mean_s = mean;
    run.naive_max_s = most;
  }
  return run;
}

CollPoint finish_windows(GlobalClock& clock, const WindowRun& run) {
  CollPoint p;
  p.windows = run.tally.windows;
  p.window_s = run.window_s;
  p.late_windows = run.tally.late;
  p.overrun_windows = run.tally.overrun;
  p.restarted_windows = run.tally.restarted;
  std::vector<Batch> batches;
  for (const auto& raw : run.kept) batches.push_back(reduce_batch(clock, *raw));
  summarise(p, batches, clock.size());
  p.naive_mean_s = run.naive_mean_s;
  p.naive_max_s = run.naive_max_s;
  if (p.naive_mean_s && p.latency && p.latency->median > 0) {
    p.naive_to_window = *p.naive_mean_s / p.latency->median;
  }
  return p;
}

namespace {

std::vector<OptionSpec> coll_options() {
  std::vector<OptionSpec> o = {
      {"--op", "bcast,allreduce,alltoall", op_list_help(kBlockingNames), "ops"},
      {"--sizes", "1KiB:1MiB",
       "Message sizes per rank (as in nbc): 4KiB,1MiB or a log2 range 1KiB:1MiB; rounded down "
       "to whole elements (8 B for reductions)",
       "sizes_bytes"},
      {"--impl", "mpi,overlap",
       "Whose collectives: mpi (MPI's blocking call), overlap (liboverlap's, + MPI_Wait)", "impls"},
      {"--progress", "auto",
       "liboverlap's progress policy: auto (dedicated where a core is free, else shared), "
       "caller, shared or dedicated",
       "progress"},
      {"--iterations", "50", "Windows kept per point (at most 4 times as many are tried)",
       "iterations"},
      {"--warmup", "5",
       "Runs from the sync barrier before the windows; their median sets "
       "the window",
       "warmup"},
      {"--window", "",
       "Window length (e.g. 2ms); default 3 times the warm-up median, doubled "
       "while more than a quarter of a batch is discarded",
       "window_s"},
      {"--naive", "yes", "Also time the MPI_Barrier-started loop other benchmarks use: yes, no",
       "naive"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

bool parse_yes_no(const std::string& text, const std::string& option) {
  if (text == "yes") return true;
  if (text == "no") return false;
  throw UsageError(fmt::format("{}: '{}' is not allowed; allowed: yes, no", option, text));
}

CollConfig parse_coll(const OptionValues& v) {
  CollConfig c;
  c.ops = parse_collectives(v.text("--op"), "--op", kBlockingNames);
  c.sizes_bytes = parse_byte_list(v.text("--sizes"), "--sizes");
  c.impls = parse_impls(v.text("--impl"), "--impl");
  c.progress = kProgressPolicyNames.parse_option(v.text("--progress"), "--progress");
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  if (const auto w = v.typed("--window")) {
    c.window_s = parse_duration(*w, "--window");
    if (!(*c.window_s > 0)) {
      throw UsageError("--window: '" + *w + "' is not allowed; expected a positive duration");
    }
  }
  c.naive = parse_yes_no(v.text("--naive"), "--naive");
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  check_sizes_hold_an_element(c.ops, c.sizes_bytes, kBlockingNames);
  return c;
}

class CollRun : public Sweep<CollPoint> {
 public:
  CollRun(const RunResources& r, const CollConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s), config_(c) {}

  std::vector<CollPoint> keys() const override {
    std::vector<CollPoint> keys;
    for (Collective op : config_.ops) {
      const std::vector<long> sizes =
          op == Collective::barrier ? std::vector<long>{0} : config_.sizes_bytes;
      for (long bytes : sizes) {
        CollPoint p;
        p.impl = config_.impls.front();
        p.op = op;
        p.requested_bytes = bytes;
        keys.push_back(p);
      }
    }
    return keys;
  }

  std::vector<CollPoint> measure(const CollPoint& key) override;

  double weight(const CollPoint& k) const override {
    return 1.0 + static_cast<double>(k.requested_bytes) / 1e5;
  }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  GlobalClock clock_;
  CollConfig config_;
};

std::vector<CollPoint> CollRun::measure(const CollPoint& key) {
  const auto started = std::chrono::steady_clock::now();
  const int element = element_bytes(key.op);
  const long elements = key.requested_bytes / element;
  std::vector<CollectiveCall> calls;
  for (Implementation impl : config_.impls) calls.emplace_back(key.op, impl, clock_.comm());
  const std::string why = mpi::agree_on_failure(
      clock_.comm(), prepare_buffers(calls, elements, kBlockingNames, clock_.rank()));
  std::vector<WindowRun> runs;
  for (CollectiveCall& call : calls) {
    BlockingCall blocking(call);
    if (why.empty()) runs.push_back(run_window_batches(clock_, config_, blocking));
  }
  // The windows were scheduled by extrapolating the clock (in real time, as they must be);
  // their times are converted again after this sync, by interpolation, as nbc's are.
  clock_.resync();
  std::vector<CollPoint> points;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    CollPoint p = why.empty() ? finish_windows(clock_, runs[i]) : CollPoint{};
    p.impl = calls[i].impl();
    p.op = key.op;
    p.requested_bytes = key.requested_bytes;
    p.element_bytes = element;
    p.msg_bytes = elements * element;
    p.algorithm = liboverlap_algorithm(key.op, p.impl, p.msg_bytes, clock_.size());
    if (!why.empty()) p.invalid_reason = why;
    points.push_back(p);
  }
  const auto latency_of = [&](Implementation impl) -> std::optional<double> {
    for (const CollPoint& p : points) {
      if (p.impl == impl && p.latency) return p.latency->median;
    }
    return std::nullopt;
  };
  const auto mpi = latency_of(Implementation::mpi);
  const auto ovx = latency_of(Implementation::overlap);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  for (CollPoint& p : points) {
    if (mpi && ovx && *mpi > 0) p.ratio_overlap_to_mpi = *ovx / *mpi;
    p.elapsed_s = elapsed;
  }
  return points;
}

std::unique_ptr<Sweep<CollPoint>> start_coll(const RunResources& r, const CollConfig& c) {
  return std::make_unique<CollRun>(r, c);
}

}  // namespace

const Benchmark<CollConfig, CollPoint>& coll_benchmark() {
  static const Benchmark<CollConfig, CollPoint> b{
      &kCollResult,
      "Latency of blocking collectives measured in windows on the global clock, MPI's and "
      "liboverlap's, over message sizes",
      {.computes = false, .resumable = true, .global_clock = true},
      coll_options,
      parse_coll,
      liboverlap_when_listed<Implementation::overlap, CollConfig>,
      nullptr,
      start_coll};
  return b;
}

}  // namespace overlap::bench
