#include "bench/nbc/latency_bench.hpp"

#include <fmt/format.h>

#include <chrono>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/common_options.hpp"
#include "measure/span_reduction.hpp"
#include "measure/statistics.hpp"
#include "mpi/agree_on_failure.hpp"

namespace overlap::bench {
namespace {

struct Stamp {
  double start = 0, end = 0;
  bool late = false;
};

}  // namespace

std::vector<LatencyKey> latency_keys(const LatencyConfig& config) {
  std::vector<LatencyKey> keys;
  for (Collective op : config.ops) {
    if (op == Collective::barrier) {
      keys.push_back({op, 0});
      continue;
    }
    for (long bytes : config.sizes_bytes) keys.push_back({op, bytes});
  }
  return keys;
}

std::vector<LatencyPoint> measure_latency(GlobalClock& clock, const LatencyConfig& config,
                                          const LatencyKey& key) {
  const auto started = std::chrono::steady_clock::now();
  const std::size_t n = config.impls.size();
  std::vector<LatencyPoint> points(n);
  const int element = element_bytes(key.op);
  const long elements = key.requested_bytes / element;
  for (std::size_t i = 0; i < n; ++i) {
    points[i].impl = config.impls[i];
    points[i].op = key.op;
    points[i].requested_bytes = key.requested_bytes;
    points[i].element_bytes = element;
    points[i].msg_bytes = elements * element;
    points[i].algorithm =
        liboverlap_algorithm(key.op, points[i].impl, points[i].msg_bytes, clock.size());
  }
  std::vector<CollectiveCall> ops;
  for (Implementation impl : config.impls) ops.emplace_back(key.op, impl, clock.comm());
  const std::string why = mpi::agree_on_failure(
      clock.comm(), prepare_buffers(ops, elements, kNonblockingNames, clock.rank()));
  if (!why.empty()) {
    for (LatencyPoint& p : points) {
      p.invalid_reason = why;
      p.elapsed_s = seconds_since(started);
    }
    return points;
  }

  // Every implementation once per round, each from the barrier; the first one rotates so
  // that none always runs right after another.
  std::vector<std::vector<Stamp>> stamps(n);
  const auto round = [&](int r, bool keep) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (static_cast<std::size_t>(r) + k) % n;
      Stamp s;
      s.late = clock.barrier();
      s.start = clock.now();
      ops[i].start();
      ops[i].wait();
      s.end = clock.now();
      if (keep) stamps[i].push_back(s);
    }
  };
  for (int w = 0; w < config.warmup; ++w) round(w, false);
  for (int it = 0; it < config.iterations; ++it) round(it, true);
  clock.resync();  // the stamps are interpolated between syncs

  // One reduction for all: per implementation and iteration, min start, min -end,
  // min -own, min -late.
  std::vector<double> v;
  for (const auto& per_impl : stamps) {
    for (const Stamp& s : per_impl) {
      v.insert(v.end(), {clock.to_global(s.start), -clock.to_global(s.end), -(s.end - s.start),
                         s.late ? -1.0 : 0.0});
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, MPI_MIN,
                clock.comm());
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<measure::SpanStamp> its;
    for (int it = 0; it < config.iterations; ++it) {
      const double* f = &v[4 * (i * static_cast<std::size_t>(config.iterations) + it)];
      its.push_back({f[0], -f[1], -f[2], f[3] < 0, std::nullopt});
    }
    const measure::Spans spans = measure::keep_spans(its);
    points[i].discarded = spans.late;
    points[i].iterations = static_cast<int>(spans.span.size());
    if (spans.span.empty()) {
      points[i].invalid_reason = fmt::format(
          "all {} iterations were discarded: in each, a rank left the sync barrier late",
          config.iterations);
      continue;
    }
    points[i].valid = true;
    points[i].latency = measure::spread(spans.span);
  }
  const auto median_of = [&](Implementation impl) -> std::optional<double> {
    for (const LatencyPoint& p : points) {
      if (p.impl == impl && p.latency) return p.latency->median;
    }
    return std::nullopt;
  };
  const auto mpi = median_of(Implementation::mpi);
  const auto ovx = median_of(Implementation::overlap);
  for (LatencyPoint& p : points) {
    if (mpi && ovx && *mpi > 0) p.ratio_overlap_to_mpi = *ovx / *mpi;
    p.elapsed_s = seconds_since(started);
  }
  return points;
}

namespace {

std::vector<OptionSpec> latency_options() {
  std::vector<OptionSpec> o = {
      {"--op", "ibcast,iallreduce,ialltoall", op_list_help(kNonblockingNames), "ops"},
      {"--sizes", "64KiB:16MiB",
       "Message sizes per rank (as in nbc): 64KiB,1MiB or a log2 range 64KiB:16MiB; rounded "
       "down to whole elements (8 B for reductions)",
       "sizes_bytes"},
      {"--impl", "mpi,overlap", "Whose collectives: mpi, overlap (liboverlap) or both, in turn",
       "impls"},
      {"--progress", "auto",
       "liboverlap's progress policy: auto (dedicated where a core is free, else shared), "
       "caller, shared or dedicated",
       "progress"},
      {"--iterations", "20", "Measured iterations per op and size", "iterations"},
      {"--warmup", "3", "Unrecorded iterations per op and size", "warmup"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

LatencyConfig parse_latency(const OptionValues& v) {
  LatencyConfig c;
  c.ops = parse_collectives(v.text("--op"), "--op", kNonblockingNames);
  c.sizes_bytes = parse_byte_list(v.text("--sizes"), "--sizes");
  c.impls = parse_impls(v.text("--impl"), "--impl");
  c.progress = kProgressPolicyNames.parse_option(v.text("--progress"), "--progress");
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  check_sizes_hold_an_element(c.ops, c.sizes_bytes, kNonblockingNames);
  return c;
}

class LatencyRun : public Sweep<LatencyPoint> {
 public:
  LatencyRun(const RunResources& r, const LatencyConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s), config_(c) {}

  std::vector<LatencyPoint> keys() const override {
    std::vector<LatencyPoint> keys;
    for (const LatencyKey& k : latency_keys(config_)) {
      LatencyPoint p;
      p.impl = config_.impls.front();
      p.op = k.op;
      p.requested_bytes = k.requested_bytes;
      keys.push_back(p);
    }
    return keys;
  }
  std::vector<LatencyPoint> measure(const LatencyPoint& key) override {
    return measure_latency(clock_, config_, {key.op, key.requested_bytes});
  }
  double weight(const LatencyPoint& k) const override {
    return 1.0 + static_cast<double>(k.requested_bytes) / 1e6;
  }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  GlobalClock clock_;
  LatencyConfig config_;
};

std::unique_ptr<Sweep<LatencyPoint>> start_latency(const RunResources& r, const LatencyConfig& c) {
  return std::make_unique<LatencyRun>(r, c);
}

}  // namespace

const Benchmark<LatencyConfig, LatencyPoint>& latency_benchmark() {
  static const Benchmark<LatencyConfig, LatencyPoint> b{
      &kLatencyResult,
      "Latency of a nonblocking collective waited for at once, MPI's and liboverlap's, over "
      "message sizes",
      {.computes = false, .resumable = true, .global_clock = true},
      latency_options,
      parse_latency,
      liboverlap_when_listed<Implementation::overlap, LatencyConfig>,
      nullptr,
      start_latency};
  return b;
}

}  // namespace overlap::bench
