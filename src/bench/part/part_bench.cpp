#include "bench/part/part_bench.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <random>
#include <regex>
#include <thread>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/common/common_options.hpp"
#include "bench/part/part_exchange.hpp"
#include "bench/part/part_noise.hpp"
#include "bench/part/part_pattern_run.hpp"
#include "compute/cache_flush.hpp"
#include "measure/statistics.hpp"
#include "overlap/overlap.h"

namespace overlap::bench {
namespace {

constexpr int kSender = 0;
constexpr int kReceiver = 1;
constexpr int kMultipleTag = 100;  // multiple: partition i on tag kMultipleTag + i
constexpr int kPartTag = 3;        // overlap's and MPI's partitioned requests
constexpr int kResultTag = 99;     // the receiver's times to rank 0
constexpr int kMaxPartitions = 1024;

// One implementation's transfer at one point: buffers and persistent requests made once.
class Transfer {
 public:
  Transfer(PartImpl impl, long bytes, int parts, int rank, MPI_Comm comm,
           const std::string& aggregation)
      : impl_(impl),
        bytes_(bytes),
        parts_(parts),
        rank_(rank),
        comm_(comm),
        buf_(static_cast<std::size_t>(bytes), static_cast<unsigned char>(rank + 1)) {
    if (rank_ > kReceiver) return;
    if (impl_ == PartImpl::mpi) error_ = mpi_partitioned_missing();
    if (!error_.empty()) return;
    const MPI_Count count = bytes_ / parts_;
    if (impl_ == PartImpl::overlap) {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "overlap_aggregation", aggregation.c_str());
      MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
      const int rc = rank_ == kSender ? OVX_Psend_init(buf_.data(), parts_, count, MPI_BYTE,
                                                       kReceiver, kPartTag, comm_, info, &ovx_)
                                      : OVX_Precv_init(buf_.data(), parts_, count, MPI_BYTE,
                                                       kSender, kPartTag, comm_, info, &ovx_);
      MPI_Comm_set_errhandler(comm_, MPI_ERRORS_ARE_FATAL);
      MPI_Info_free(&info);
      if (rc != MPI_SUCCESS) error_ = error_text(rc);
    }
#if MPI_VERSION >= 4
    if (impl_ == PartImpl::mpi) {
      if (rank_ == kSender)
        MPI_Psend_init(buf_.data(), parts_, count, MPI_BYTE, kReceiver, kPartTag, comm_,
                       MPI_INFO_NULL, &persistent_);
      else
        MPI_Precv_init(buf_.data(), parts_, count, MPI_BYTE, kSender, kPartTag, comm_,
                       MPI_INFO_NULL, &persistent_);
    }
#endif
    requests_.assign(static_cast<std::size_t>(parts_), MPI_REQUEST_NULL);
  }
  ~Transfer() {
    if (ovx_ != OVX_PREQUEST_NULL) OVX_Prequest_free(&ovx_);
    if (persistent_ != MPI_REQUEST_NULL) MPI_Request_free(&persistent_);
  }
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  const std::string& error() const { return error_; }
  // Refused on the other rank: skipped here too.
  void refuse(const std::string& why) {
    if (error_.empty()) error_ = why;
  }

  // Before the start barrier: the receiver posts, partitioned requests start.
  void prepare() {
    if (rank_ > kReceiver) return;
    const long part = bytes_ / parts_;
    switch (impl_) {
      case PartImpl::single:
        if (rank_ == kReceiver)
          MPI_Irecv(buf_.data(), static_cast<int>(bytes_), MPI_BYTE, kSender, kMultipleTag, comm_,
                    &requests_[0]);
        break;
      case PartImpl::multiple:
        if (rank_ == kReceiver) {
          for (int i = 0; i < parts_; ++i)
            MPI_Irecv(buf_.data() + part * i, static_cast<int>(part), MPI_BYTE, kSender,
                      kMultipleTag + i, comm_, &requests_[static_cast<std::size_t>(i)]);
        }
        break;
      case PartImpl::overlap:
        OVX_Start(ovx_, &requests_[0]);
        break;
      case PartImpl::mpi:
        requests_[0] = persistent_;
        MPI_Start(&requests_[0]);
        break;
    }
  }

  // Sender, thread `i`, once its partition is computed.
  void ready(int i) {
    const long part = bytes_ / parts_;
    switch (impl_) {
      case PartImpl::single:
        break;
      case PartImpl::multiple: {
        MPI_Request r;
        MPI_Isend(buf_.data() + part * i, static_cast<int>(part), MPI_BYTE, kReceiver,
                  kMultipleTag + i, comm_, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        break;
      }
      case PartImpl::overlap:
        OVX_Pready(i, ovx_);
        break;
      case PartImpl::mpi:
#if MPI_VERSION >= 4
        MPI_Pready(i, persistent_);
#endif
        break;
    }
  }

  // Sender, after the threads joined.
  void finish_send() {
    if (impl_ == PartImpl::single)
      MPI_Send(buf_.data(), static_cast<int>(bytes_), MPI_BYTE, kReceiver, kMultipleTag, comm_);
    if (impl_ == PartImpl::overlap || impl_ == PartImpl::mpi)
      MPI_Wait(&requests_[0], MPI_STATUS_IGNORE);
  }

  // Receiver: polls until every partition arrived; arrive[i] = local time first seen.
  void receive(const GlobalClock& clock, std::vector<double>& arrive) {
    arrive.assign(static_cast<std::size_t>(parts_), -1);
    int left = parts_;
    std::vector<int> done(static_cast<std::size_t>(parts_));
    while (left > 0) {
      if (impl_ == PartImpl::single) {
        int flag = 0;
        MPI_Test(&requests_[0], &flag, MPI_STATUS_IGNORE);
        if (flag) {
          std::fill(arrive.begin(), arrive.end(), clock.now());
          left = 0;
        }
      } else if (impl_ == PartImpl::multiple) {
        int n = 0;
        MPI_Testsome(parts_, requests_.data(), &n, done.data(), MPI_STATUSES_IGNORE);
        const double t = clock.now();
        for (int k = 0; k < std::max(n, 0); ++k)
          arrive[static_cast<std::size_t>(done[static_cast<std::size_t>(k)])] = t;
        if (n != MPI_UNDEFINED) left -= n;
      } else {
        for (int i = 0; i < parts_; ++i) {
          if (arrive[static_cast<std::size_t>(i)] >= 0) continue;
          int flag = 0;
          if (impl_ == PartImpl::overlap) OVX_Parrived(ovx_, i, &flag);
#if MPI_VERSION >= 4
          if (impl_ == PartImpl::mpi) MPI_Parrived(requests_[0], i, &flag);
#endif
          if (flag) {
            arrive[static_cast<std::size_t>(i)] = clock.now();
            --left;
          }
        }
      }
    }
    if (impl_ == PartImpl::overlap || impl_ == PartImpl::mpi)
      MPI_Wait(&requests_[0], MPI_STATUS_IGNORE);
  }

 private:
  static std::string error_text(int rc) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return std::string(text, static_cast<std::size_t>(len));
  }

  PartImpl impl_;
  long bytes_;
  int parts_;
  int rank_;
  MPI_Comm comm_;
  std::vector<unsigned char> buf_;
  std::vector<MPI_Request> requests_;
  OVX_Prequest ovx_ = OVX_PREQUEST_NULL;
  MPI_Request persistent_ = MPI_REQUEST_NULL;
  std::string error_;
};

// One iteration's times (local, then global on rank 0): start, and per partition.
struct Sample {
  bool late = false;
  double start = 0;
  std::vector<double> ready;
  std::vector<double> arrive;
};

class PartRun : public Sweep<PartPoint> {
 public:
  PartRun(const RunResources& r, const PartConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s),
        config_(c),
        flusher_(c.cache == CacheState::cold ? static_cast<std::size_t>(c.flush_bytes) : 0),
        rng_(12345 + static_cast<unsigned>(clock_.rank())) {
    warn_threads_over_cores();
    if (clock_.rank() != 0) return;
    if (std::find(c.impls.begin(), c.impls.end(), PartImpl::mpi) != c.impls.end()) {
      if (std::string why = mpi_partitioned_missing(); !why.empty())
        std::fprintf(stderr, "overlap-bench part: impl mpi: %s; its points are recorded invalid\n",
                     why.c_str());
    }
  }

  std::vector<PartPoint> keys() const override {
    std::vector<PartPoint> keys;
    for (long bytes : config_.sizes_bytes) {
      for (int parts : config_.partitions) {
        PartPoint p;
        p.impl = config_.impls.front();
        p.requested_bytes = bytes;
        p.partitions = parts;
        keys.push_back(p);
      }
    }
    return keys;
  }

  std::vector<PartPoint> measure(const PartPoint& key) override;
  void warn_threads_over_cores() const;

  double weight(const PartPoint& k) const override {
    return config_.compute_s * 1e3 + static_cast<double>(k.requested_bytes) / 1e6;
  }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  // Runs one phase for every implementation in turn; samples[impl][iteration].
  std::vector<std::vector<Sample>> phase(std::vector<std::unique_ptr<Transfer>>& transfers,
                                         int parts, bool computes);
  void iteration(Transfer& t, int parts, bool computes, Sample& s);
  void to_rank0(std::vector<std::vector<Sample>>& samples, int parts);

  GlobalClock clock_;
  PartConfig config_;
  compute::CacheFlusher flusher_;
  std::mt19937_64 rng_;  // seeded per rank: ranks draw different noise
};

void PartRun::iteration(Transfer& t, int parts, bool computes, Sample& s) {
  const int rank = clock_.rank();
  if (config_.cache == CacheState::cold && rank <= kReceiver) flusher_.flush();
  const std::vector<double> work = computes
                                       ? draw_compute(config_, parts, rng_)
                                       : std::vector<double>(static_cast<std::size_t>(parts), 0.0);
  t.prepare();
  s.late = clock_.barrier();
  s.start = clock_.now();
  if (rank == kSender) {
    s.ready.assign(static_cast<std::size_t>(parts), 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < parts; ++i) {
      threads.emplace_back([&, i] {
        const double until = s.start + work[static_cast<std::size_t>(i)];
        while (clock_.now() < until) {
        }
        s.ready[static_cast<std::size_t>(i)] = clock_.now();
        t.ready(i);
      });
    }
    for (auto& th : threads) th.join();
    t.finish_send();
  } else if (rank == kReceiver) {
    t.receive(clock_, s.arrive);
  }
}

std::vector<std::vector<Sample>> PartRun::phase(std::vector<std::unique_ptr<Transfer>>& transfers,
                                                int parts, bool computes) {
  const std::size_t n = transfers.size();
  std::vector<std::vector<Sample>> samples(n);
  for (int it = 0; it < config_.warmup + config_.iterations; ++it) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (static_cast<std::size_t>(it) + k) % n;
      if (!transfers[i]->error().empty()) continue;
      Sample s;
      iteration(*transfers[i], parts, computes, s);
      if (it >= config_.warmup) samples[i].push_back(std::move(s));
    }
  }
  clock_.resync();  // the times are interpolated between syncs
  to_rank0(samples, parts);
  return samples;
}

// Global times; the receiver's arrivals and every rank's lateness to rank 0.
void PartRun::to_rank0(std::vector<std::vector<Sample>>& samples, int parts) {
  std::vector<double> late;
  for (auto& per_impl : samples)
    for (Sample& s : per_impl) late.push_back(s.late ? 1.0 : 0.0);
  MPI_Allreduce(MPI_IN_PLACE, late.data(), static_cast<int>(late.size()), MPI_DOUBLE, MPI_MAX,
                clock_.comm());
  std::vector<double> arrivals;
  std::size_t k = 0;
  for (auto& per_impl : samples) {
    for (Sample& s : per_impl) {
      s.late = late[k++] > 0;
      s.start = clock_.to_global(s.start);
      for (double& t : s.ready) t = clock_.to_global(t);
      for (double& t : s.arrive) {
        t = clock_.to_global(t);
        arrivals.push_back(t);
      }
    }
  }
  if (clock_.rank() == kReceiver)
    MPI_Send(arrivals.data(), static_cast<int>(arrivals.size()), MPI_DOUBLE, kSender, kResultTag,
             clock_.comm());
  if (clock_.rank() != kSender) return;
  arrivals.assign(late.size() * static_cast<std::size_t>(parts), 0);
  MPI_Recv(arrivals.data(), static_cast<int>(arrivals.size()), MPI_DOUBLE, kReceiver, kResultTag,
           clock_.comm(), MPI_STATUS_IGNORE);
  std::size_t a = 0;
  for (auto& per_impl : samples) {
    for (Sample& s : per_impl) {
      s.arrive.assign(arrivals.begin() + static_cast<std::ptrdiff_t>(a),
                      arrivals.begin() + static_cast<std::ptrdiff_t>(a + parts));
      a += static_cast<std::size_t>(parts);
    }
  }
}

double max_of(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

// The metrics of one implementation from its samples (rank 0, global times).
void summarise(PartPoint& p, const std::vector<Sample>& transfer,
               const std::vector<Sample>& computed) {
  std::vector<double> transfer_s, after_join, early;
  const auto parts = static_cast<std::size_t>(p.partitions);
  std::vector<std::vector<double>> ready(parts), arrive(parts);
  for (const Sample& s : transfer) {
    if (s.late)
      ++p.discarded;
    else
      transfer_s.push_back(max_of(s.arrive) - s.start);
  }
  for (const Sample& s : computed) {
    if (s.late) {
      ++p.discarded;
      continue;
    }
    const double join = max_of(s.ready);
    after_join.push_back(max_of(s.arrive) - join);
    int before = 0;
    for (std::size_t i = 0; i < parts; ++i) {
      before += s.arrive[i] <= join ? 1 : 0;
      ready[i].push_back(s.ready[i] - s.start);
      arrive[i].push_back(s.arrive[i] - s.start);
    }
    early.push_back(100.0 * before / static_cast<double>(parts));
  }
  p.iterations = static_cast<int>(std::min(transfer_s.size(), after_join.size()));
  if (transfer_s.empty() || after_join.empty()) {
    p.invalid_reason = "every iteration was discarded: a rank left the sync barrier late";
    return;
  }
  p.valid = true;
  p.null_reasons["iteration_s"] = "measured by the sweep3d and halo3d patterns only";
  p.transfer = measure::spread(transfer_s);
  p.after_join = measure::spread(after_join);
  if (p.after_join->median > 0)
    p.perceived_bandwidth_Bps = static_cast<double>(p.msg_bytes) / p.after_join->median;
  p.early_bird_pct = measure::median(early);
  for (std::size_t i = 0; i < parts; ++i) {
    p.ready_s.push_back(measure::median(ready[i]));
    p.arrive_s.push_back(measure::median(arrive[i]));
  }
}

// Collective: the fewest cores any rank may use, against one thread per partition.
void PartRun::warn_threads_over_cores() const {
  cpu_set_t set;
  int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  MPI_Allreduce(MPI_IN_PLACE, &cores, 1, MPI_INT, MPI_MIN, clock_.comm());
  const int most = *std::max_element(config_.partitions.begin(), config_.partitions.end());
  if (clock_.rank() != 0 || most <= cores) return;
  if (config_.pattern == PartPattern::p2p)
    std::fprintf(stderr,
                 "overlap-bench part: warning: up to %d sender threads (one per partition) on "
                 "%d cores: threads share cores, so partitions become ready later than their "
                 "computation alone would make them\n",
                 most, cores);
  else
    std::fprintf(stderr,
                 "overlap-bench part: warning: up to %d threads per rank (one per partition) "
                 "and a rank may use %d cores: threads share cores, so partitions become ready "
                 "later than their computation alone would make them\n",
                 most, cores);
}

std::vector<PartPoint> PartRun::measure(const PartPoint& key) {
  const auto started = std::chrono::steady_clock::now();
  if (config_.pattern != PartPattern::p2p) {
    std::vector<PartPoint> points = measure_pattern(clock_, config_, flusher_, rng_, key);
    for (PartPoint& p : points) p.elapsed_s = seconds_since(started);
    return points;
  }
  const int parts = key.partitions;
  const long bytes = key.requested_bytes / parts * parts;
  std::vector<std::unique_ptr<Transfer>> transfers;
  std::vector<PartPoint> points;
  for (PartImpl impl : config_.impls) {
    transfers.push_back(std::make_unique<Transfer>(impl, bytes, parts, clock_.rank(), clock_.comm(),
                                                   config_.aggregation));
    PartPoint p = key;
    p.impl = impl;
    p.msg_bytes = bytes;
    points.push_back(p);
  }
  // An implementation refused on one side is skipped on both.
  for (std::size_t i = 0; i < transfers.size(); ++i) {
    int bad = transfers[i]->error().empty() ? 0 : 1;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, clock_.comm());
    if (bad) transfers[i]->refuse("refused on the other rank");
    if (clock_.size() < 2) transfers[i]->refuse("the point-to-point pattern needs 2 ranks or more");
    points[i].invalid_reason = transfers[i]->error();
  }
  auto transfer = phase(transfers, parts, false);
  auto computed = phase(transfers, parts, true);
  if (clock_.rank() == kSender) {
    for (std::size_t i = 0; i < points.size(); ++i)
      if (points[i].invalid_reason.empty()) summarise(points[i], transfer[i], computed[i]);
    const PartPoint* single = nullptr;
    for (const PartPoint& p : points)
      if (p.impl == PartImpl::single && p.valid) single = &p;
    for (PartPoint& p : points) {
      if (!p.valid) continue;
      if (single == nullptr) {
        p.null_reasons["overhead"] = "needs single in --impl";
        p.null_reasons["availability"] = "needs single in --impl";
        continue;
      }
      if (single->transfer->median > 0) p.overhead = p.transfer->median / single->transfer->median;
      if (single->after_join->median > 0)
        p.availability = 1.0 - p.after_join->median / single->after_join->median;
    }
  }
  for (PartPoint& p : points) p.elapsed_s = seconds_since(started);
  return points;
}

std::vector<OptionSpec> part_options() {
  std::vector<OptionSpec> o = {
      {"--pattern", "p2p",
       "Pattern: p2p (rank 0 to rank 1), sweep3d (2-D wavefront) or halo3d (3-D faces)", "pattern"},
      {"--impl", "single,multiple,overlap,mpi",
       "Implementations, comma-separated: " + kPartImplNames.list(), "impls"},
      {"--sizes", "64KiB:16MiB", "Message sizes (all partitions together): list or log2 range",
       "sizes_bytes"},
      {"--partitions", "1,2,4,8",
       "Partition counts, one sender thread each (1.." + std::to_string(kMaxPartitions) + ")",
       "partitions"},
      {"--compute", "10ms", "Computation per thread before its partition is ready", "compute_s"},
      {"--noise", "none", "Noise model: " + kNoiseModelNames.list(), "noise"},
      {"--noise-amount", "4%", "Noise amount, a fraction of --compute", "noise_fraction"},
      {"--cache", "hot", "hot, or cold: write 1.5 x the last-level cache before each iteration",
       "cache"},
      {"--aggregation", "none",
       "liboverlap's aggregation: none, count:K, bytes:N, adaptive or adaptive:N", "aggregation"},
      {"--progress", "auto",
       "liboverlap's progress policy: auto (dedicated where a core is free, else shared), "
       "caller, shared or dedicated",
       "progress"},
      {"--iterations", "10", "Measured iterations per phase and implementation", "iterations"},
      {"--warmup", "2", "Unrecorded iterations per phase and implementation", "warmup"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

PartConfig parse_part(const OptionValues& v) {
  PartConfig c;
  c.pattern = kPartPatternNames.parse_option(v.text("--pattern"), "--pattern");
  c.impls.clear();
  for (const std::string& name : parse_name_list(v.text("--impl"), "--impl")) {
    const PartImpl impl = kPartImplNames.parse_option(name, "--impl");
    if (std::find(c.impls.begin(), c.impls.end(), impl) == c.impls.end()) c.impls.push_back(impl);
  }
  c.sizes_bytes = parse_byte_list(v.text("--sizes"), "--sizes");
  for (const std::string& n : parse_name_list(v.text("--partitions"), "--partitions"))
    c.partitions.push_back(parse_count(n, "--partitions", kMaxPartitions));
  c.compute_s = v.text("--compute") == "0" ? 0.0 : parse_duration(v.text("--compute"), "--compute");
  c.noise = kNoiseModelNames.parse_option(v.text("--noise"), "--noise");
  c.noise_fraction = parse_fraction(v.text("--noise-amount"), "--noise-amount");
  c.cache = kCacheStateNames.parse_option(v.text("--cache"), "--cache");
  c.aggregation = v.text("--aggregation");
  static const std::regex aggregation(
      "none|count:[1-9][0-9]*|bytes:[1-9][0-9]*[kKMG]?|adaptive(:[1-9][0-9]*[kKMG]?)?");
  if (!std::regex_match(c.aggregation, aggregation))
    throw UsageError("--aggregation '" + c.aggregation +
                     "' is not allowed (allowed: none, count:K, bytes:N, adaptive, adaptive:N; N "
                     "with an optional k, M or G suffix)");
  c.progress = kProgressPolicyNames.parse_option(v.text("--progress"), "--progress");
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  for (long bytes : c.sizes_bytes) {
    for (int parts : c.partitions) {
      if (bytes < parts)
        throw UsageError(
            fmt::format("--sizes {} in {} partitions: at least one byte per partition is needed "
                        "(allowed: sizes >= the largest --partitions)",
                        bytes, parts));
      if (bytes / parts > INT_MAX)
        throw UsageError(
            fmt::format("--sizes {} in {} partitions: a partition of more than {} "
                        "bytes is not supported",
                        bytes, parts, INT_MAX));
    }
  }
  if (c.cache == CacheState::cold) {
    const compute::CacheSize llc = compute::last_level_cache();
    c.flush_bytes = static_cast<long>(llc.bytes + llc.bytes / 2);
    c.flush_source = llc.source;
  }
  return c;
}

std::unique_ptr<Sweep<PartPoint>> start_part(const RunResources& r, const PartConfig& c) {
  return std::make_unique<PartRun>(r, c);
}

}  // namespace

const Benchmark<PartConfig, PartPoint>& part_benchmark() {
  static const Benchmark<PartConfig, PartPoint> b{
      &kPartResult,
      "Partitioned point-to-point (rank 0 to rank 1, or the sweep3d and halo3d patterns over "
      "every rank; one thread per partition): single, multiple, liboverlap's and MPI's "
      "partitioned side by side",
      {.computes = false, .resumable = true, .global_clock = true},
      part_options,
      parse_part,
      liboverlap_when_listed<PartImpl::overlap, PartConfig>,
      nullptr,
      start_part};
  return b;
}

}  // namespace overlap::bench
