#include "bench/part/part_pattern_run.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <thread>

#include "bench/part/part_exchange.hpp"
#include "bench/part/part_noise.hpp"
#include "bench/part/process_grid.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {
namespace {

// One iteration of one implementation on this rank (local times until globalised).
struct PatternSample {
  bool late = false;
  double start = 0;
  double join = 0;  // the last thread done computing (before its partition is marked ready)
  double end = 0;   // every send and receive of this rank complete
  std::vector<double> arrive;  // sweep3d: per incoming face and partition
};

ProcessGrid pattern_grid(PartPattern pattern, int size) {
  std::vector<int> dims(pattern == PartPattern::halo3d ? 3 : 2, 0);
  MPI_Dims_create(size, static_cast<int>(dims.size()), dims.data());
  return ProcessGrid(dims);
}

class PatternRun {
 public:
  PatternRun(GlobalClock& clock, const PartConfig& c, compute::CacheFlusher& flusher,
             std::mt19937_64& rng)
      : clock_(clock),
        config_(c),
        flusher_(flusher),
        rng_(rng),
        grid_(pattern_grid(c.pattern, clock.size())) {}

  std::vector<PartPoint> measure(const PartPoint& key);

 private:
  void iteration(FaceExchange& x, long it, int parts, PatternSample& s);
  std::string agreed_error(const std::string& mine);
  void summarise(PartPoint& p, const std::vector<PatternSample>& samples,
                 const std::vector<double>& late, const std::vector<double>& start,
                 const std::vector<double>& end, const std::vector<double>& early,
                 std::size_t first) const;

  GlobalClock& clock_;
  const PartConfig& config_;
  compute::CacheFlusher& flusher_;
  std::mt19937_64& rng_;
  ProcessGrid grid_;
};

void PatternRun::iteration(FaceExchange& x, long it, int parts, PatternSample& s) {
  if (config_.cache == CacheState::cold) flusher_.flush();
  const std::vector<double> work = draw_compute(config_, parts, rng_);
  const bool sweep = config_.pattern == PartPattern::sweep3d;
  x.prepare(it);
  s.late = clock_.barrier();
  s.start = clock_.now();
  double inputs = s.start;
  if (sweep && x.impl() == PartImpl::single) {
    x.receive_all(clock_);
    inputs = clock_.now();
  }
  std::vector<double> computed(static_cast<std::size_t>(parts));
  std::vector<std::thread> threads;
  for (int k = 0; k < parts; ++k) {
    threads.emplace_back([&, k] {
      double from = inputs;
      if (sweep && x.impl() != PartImpl::single) {
        x.await_partition(k, clock_);  // the wavefront: partition k of the upstream faces
        from = clock_.now();
      }
      const double until = from + work[static_cast<std::size_t>(k)];
      while (clock_.now() < until) {
      }
      computed[static_cast<std::size_t>(k)] = clock_.now();
      x.ready(k);
    });
  }
  for (auto& th : threads) th.join();
  s.join = *std::max_element(computed.begin(), computed.end());
  x.finish();
  s.end = clock_.now();
  s.arrive = x.arrivals();
}

// The first rank's complaint, on every rank ("" when none has one).
std::string PatternRun::agreed_error(const std::string& mine) {
  int who = mine.empty() ? clock_.size() : clock_.rank();
  MPI_Allreduce(MPI_IN_PLACE, &who, 1, MPI_INT, MPI_MIN, clock_.comm());
  if (who == clock_.size()) return "";
  int len = static_cast<int>(mine.size());
  MPI_Bcast(&len, 1, MPI_INT, who, clock_.comm());
  std::string text = mine;
  text.resize(static_cast<std::size_t>(len));
  MPI_Bcast(text.data(), len, MPI_CHAR, who, clock_.comm());
  return text;
}

void PatternRun::summarise(PartPoint& p, const std::vector<PatternSample>& samples,
                           const std::vector<double>& late, const std::vector<double>& start,
                           const std::vector<double>& end, const std::vector<double>& early,
                           std::size_t first) const {
  std::vector<double> iteration_s, early_pct;
  for (std::size_t j = 0; j < samples.size(); ++j) {
    if (late[first + j] > 0) {
      ++p.discarded;
      continue;
    }
    iteration_s.push_back(end[first + j] - start[first + j]);
    if (!early.empty() && early[2 * (first + j) + 1] > 0)
      early_pct.push_back(100.0 * early[2 * (first + j)] / early[2 * (first + j) + 1]);
  }
  p.iterations = static_cast<int>(iteration_s.size());
  if (iteration_s.empty()) {
    p.invalid_reason = "every iteration was discarded: a rank left the sync barrier late";
    return;
  }
  p.valid = true;
  p.iteration = measure::spread(iteration_s);
  for (const char* f : {"transfer_s", "after_join_s", "perceived_bandwidth_Bps", "availability"})
    p.null_reasons[f] = "measured by the p2p pattern only";
  if (config_.pattern == PartPattern::sweep3d && !early_pct.empty())
    p.early_bird_pct = measure::median(early_pct);
  else
    p.null_reasons["early_bird_pct"] =
        "halo3d: arrivals are not observed while every rank computes (sweep3d and p2p only)";
}

std::vector<PartPoint> PatternRun::measure(const PartPoint& key) {
  const int parts = key.partitions;
  const long bytes = key.requested_bytes / parts * parts;
  std::vector<std::unique_ptr<FaceExchange>> exchanges;
  std::vector<PartPoint> points;
  for (PartImpl impl : config_.impls) {
    exchanges.push_back(std::make_unique<FaceExchange>(impl, config_.pattern, grid_, bytes, parts,
                                                       clock_.rank(), clock_.comm(),
                                                       config_.aggregation));
    PartPoint p = key;
    p.impl = impl;
    p.msg_bytes = bytes;
    p.grid = grid_.text();
    points.push_back(p);
  }
  for (std::size_t i = 0; i < exchanges.size(); ++i) {
    if (clock_.size() < 2)
      exchanges[i]->refuse(std::string(kPartPatternNames.name(config_.pattern)) +
                           " needs 2 ranks or more");
    const std::string why = agreed_error(exchanges[i]->error());
    exchanges[i]->refuse(why);  // refused on one rank: skipped on all
    points[i].invalid_reason = why;
  }
  const std::size_t n = exchanges.size();
  std::vector<std::vector<PatternSample>> samples(n);
  std::vector<std::string> wrong(n);
  for (int it = 0; it < config_.warmup + config_.iterations; ++it) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (static_cast<std::size_t>(it) + k) % n;
      if (!exchanges[i]->error().empty()) continue;
      PatternSample s;
      iteration(*exchanges[i], it, parts, s);
      if (wrong[i].empty()) wrong[i] = exchanges[i]->check(it);
      if (it >= config_.warmup) samples[i].push_back(std::move(s));
    }
  }
  clock_.resync();  // the times are interpolated between syncs
  // Every rank's view, flattened over (implementation, iteration): lateness, start, end.
  std::vector<double> late, start, end, join;
  for (auto& per_impl : samples) {
    for (PatternSample& s : per_impl) {
      late.push_back(s.late ? 1.0 : 0.0);
      start.push_back(clock_.to_global(s.start));
      end.push_back(clock_.to_global(s.end));
      join.push_back(clock_.to_global(s.join));
      for (double& t : s.arrive) t = clock_.to_global(t);
    }
  }
  const int count = static_cast<int>(late.size());
  MPI_Allreduce(MPI_IN_PLACE, late.data(), count, MPI_DOUBLE, MPI_MAX, clock_.comm());
  MPI_Allreduce(MPI_IN_PLACE, start.data(), count, MPI_DOUBLE, MPI_MIN, clock_.comm());
  MPI_Allreduce(MPI_IN_PLACE, end.data(), count, MPI_DOUBLE, MPI_MAX, clock_.comm());
  // sweep3d's early-bird share: a partition counts when it reached this rank before its
  // upstream sender's threads joined. Sums of (early bytes, all bytes) per sample.
  std::vector<double> early;
  if (config_.pattern == PartPattern::sweep3d) {
    std::vector<double> joins(static_cast<std::size_t>(count * clock_.size()));
    MPI_Allgather(join.data(), count, MPI_DOUBLE, joins.data(), count, MPI_DOUBLE, clock_.comm());
    early.assign(2 * static_cast<std::size_t>(count), 0);
    std::size_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
      for (const PatternSample& s : samples[i]) {
        const auto& faces = exchanges[i]->incoming_faces();
        for (std::size_t f = 0; f < faces.size(); ++f) {
          const double sender_join = joins[static_cast<std::size_t>(faces[f].peer * count) + j];
          for (int k = 0; k < parts; ++k) {
            const double t =
                s.arrive[f * static_cast<std::size_t>(parts) + static_cast<std::size_t>(k)];
            early[2 * j] += t <= sender_join ? static_cast<double>(bytes / parts) : 0.0;
          }
          early[2 * j + 1] += static_cast<double>(bytes);
        }
        ++j;
      }
    }
    MPI_Allreduce(MPI_IN_PLACE, early.data(), 2 * count, MPI_DOUBLE, MPI_SUM, clock_.comm());
  }
  std::size_t first = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string bad = agreed_error(wrong[i]);
    if (points[i].invalid_reason.empty()) {
      if (!bad.empty())
        points[i].invalid_reason = "data check failed: " + bad;
      else
        summarise(points[i], samples[i], late, start, end, early, first);
    }
    first += samples[i].size();
  }
  const PartPoint* single = nullptr;
  for (const PartPoint& p : points)
    if (p.impl == PartImpl::single && p.valid) single = &p;
  for (PartPoint& p : points) {
    if (!p.valid) continue;
    if (single == nullptr)
      p.null_reasons["overhead"] = "needs a valid single in --impl";
    else if (single->iteration->median > 0)
      p.overhead = p.iteration->median / single->iteration->median;
  }
  return points;
}

}  // namespace

std::vector<PartPoint> measure_pattern(GlobalClock& clock, const PartConfig& config,
                                       compute::CacheFlusher& flusher, std::mt19937_64& rng,
                                       const PartPoint& key) {
  return PatternRun(clock, config, flusher, rng).measure(key);
}

}  // namespace overlap::bench
