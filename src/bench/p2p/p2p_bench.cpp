#include "bench/p2p/p2p_bench.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/common/common_options.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/overlap_run_probe.hpp"
#include "bench/common/timed_run.hpp"
#include "bench/p2p/p2p_derived.hpp"
#include "compute/unit_work.hpp"
#include "measure/calibration.hpp"
#include "measure/statistics.hpp"
#include "mpi/agree_on_failure.hpp"
#include "mpi/communicator.hpp"
#include "overlap/overlap.h"

namespace overlap::bench {
namespace {

constexpr int kTag = 7311;

// The message buffer: whole pages of its own, as a large malloc() would give a program.
class PageBuffer {
 public:
  explicit PageBuffer(long bytes) {
    const long page = sysconf(_SC_PAGESIZE);
    len_ = static_cast<std::size_t>(std::max(page, (bytes + page - 1) / page * page));
    void* p = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    data_ = p == MAP_FAILED ? nullptr : static_cast<volatile char*>(p);
  }
  ~PageBuffer() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), len_);
  }
  PageBuffer(const PageBuffer&) = delete;
  PageBuffer& operator=(const PageBuffer&) = delete;
  char* data() const { return const_cast<char*>(data_); }
  volatile char* touch() const { return data_; }

 private:
  volatile char* data_ = nullptr;
  std::size_t len_ = 0;
};

// Local start, end and late flag of one timed run.
struct Stamp {
  double start = 0, end = 0;
  bool late = false;
};

struct Spans {
  std::vector<double> spans;  // rank 0 only
  int discarded = 0;
  // Every rank, per run: kept (no rank late), its own end - start and its time computing.
  std::vector<bool> kept;
  std::vector<double> own_s, comp_s;
};

// Calls of ranks 0 and 1 in timed round trips of the blocking code, and how many of them
// overlap-run deferred.
struct CallCount {
  long blocking = 0;
  long deferred = 0;
};

class P2pRun : public Sweep<P2pPoint> {
 public:
  P2pRun(const RunResources& r, const P2pConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s),
        work_(r.plan->thread_pus),
        config_(c),
        overlap_run_(r.context != nullptr ? r.context->overlap_run : std::nullopt),
        intercepted_(overlap_run_.has_value()),
        pair_(mpi::Communicator::split(clock_.comm(), clock_.rank() <= 1 ? 0 : MPI_UNDEFINED,
                                       clock_.rank())) {}

  std::vector<P2pPoint> keys() const override {
    std::vector<P2pPoint> keys;
    for (long bytes : config_.sizes_bytes) {
      for (double comp : config_.comp_times_s) {
        P2pPoint p;
        p.msg_bytes = bytes;
        p.target_comp_s = comp;
        keys.push_back(p);
      }
    }
    return keys;
  }
  std::vector<P2pPoint> measure(const P2pPoint& key) override;
  double weight(const P2pPoint& k) const override {
    return 1.0 + k.target_comp_s * 1e3 + static_cast<double>(k.msg_bytes) / 1e6;
  }
  std::optional<double> calibration_s() const override { return calibration_s_; }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  std::optional<std::string> calibrate(double target);
  void compute(bool with) {
    if (!with) return;
    const double t = clock_.now();
    work_.run();
    in_comp_ += clock_.now() - t;
  }
  // The computation between a nonblocking call and its wait; nonblocking-liboverlap opens
  // a hold around it, so the engine drives MPI meanwhile (also without computation: the
  // hold's own cost belongs to its latency).
  void compute_beside(P2pImpl impl, bool with) {
    const bool held = impl == P2pImpl::nonblocking_liboverlap;
    if (held) OVX_Progress_begin();
    compute(with);
    if (held) OVX_Progress_end();
  }
  void round_trip(P2pImpl impl, const PageBuffer& buf, int count, bool with_comp);
  std::string data_check(P2pImpl impl, const PageBuffer& buf, int count);
  // With `acc`, each run (its barrier included) is a window of `phase`.
  Spans timed(int runs, const std::function<void()>& body, PhaseAccounting* acc = nullptr,
              PhaseAccounting::Phase phase = PhaseAccounting::overlapped);
  double comp_alone(std::vector<double>& own);
  std::optional<double> pmpi_ratio(const PageBuffer& buf, int count);
  P2pPoint measure_impl(P2pImpl impl, const PageBuffer& buf, int count, double own_comp_ref);

  GlobalClock clock_;
  compute::UnitWork work_;
  P2pConfig config_;
  std::optional<OverlapRunSettings> overlap_run_;
  bool intercepted_;
  CallCount calls_;               // this rank's, since the last reset
  bool counting_ = true;          // round trips of `blocking` count calls_ (not pmpi_ratio's)
  std::map<double, long> units_;  // calibrated units per computation time
  double calibration_s_ = 0;
  // CPU accounting (docs/cpu-accounting.md) of ranks 0 and 1, the ranks that compute:
  // MPI's own round trips (comm_alone) and the computation alone of the point, to which
  // each implementation adds its round trips with computation (overlapped).
  mpi::Communicator pair_;
  PhaseAccounting cpu_;
  double in_comp_ = 0;  // time inside compute() since the run began
};

std::optional<std::string> P2pRun::calibrate(double target) {
  if (auto it = units_.find(target); it != units_.end()) {
    work_.resize(it->second);
    return std::nullopt;
  }
  if (work_.threads() == 0) return "no computation threads (--threads 0): nothing to overlap";
  const auto started = std::chrono::steady_clock::now();
  std::optional<std::string> failed =
      calibrate_work(clock_, work_, target, config_.calibration_runs, config_.tolerance);
  calibration_s_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (failed) return failed;
  units_[target] = work_.size();
  return std::nullopt;
}

// The paper's round trip. The volatile touches are the program's next use of the buffer.
// Under overlap-run the blocking calls are counted, and the deferred ones read from the
// interception layer (an atomic load behind two calls: nothing next to a round trip).
void P2pRun::round_trip(P2pImpl impl, const PageBuffer& buf, int count, bool with_comp) {
  const int rank = clock_.rank();
  if (rank > 1) return;
  const bool counted = counting_ && intercepted_ && impl == P2pImpl::blocking;
  const long deferred_before = counted ? overlap_run_deferred_calls() : 0;
  const int peer = 1 - rank;
  MPI_Comm comm = clock_.comm();
  char* data = buf.data();
  volatile char sink = 0;
  // blocking-pmpi: MPI's own functions, past any interposed layer (overlap-run's).
  const bool pmpi = impl == P2pImpl::blocking_pmpi;
  const bool nonblocking = impl != P2pImpl::blocking && !pmpi;
  const auto send = [&] {
    if (nonblocking) {
      MPI_Request r;
      MPI_Isend(data, count, MPI_BYTE, peer, kTag, comm, &r);
      compute_beside(impl, with_comp);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      (pmpi ? PMPI_Send : MPI_Send)(data, count, MPI_BYTE, peer, kTag, comm);
      compute(with_comp);
    }
    if (count > 0) buf.touch()[0] = static_cast<char>(buf.touch()[0] + 1);  // write
  };
  const auto recv = [&] {
    if (nonblocking) {
      MPI_Request r;
      MPI_Irecv(data, count, MPI_BYTE, peer, kTag, comm, &r);
      compute_beside(impl, with_comp);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
      (pmpi ? PMPI_Recv : MPI_Recv)(data, count, MPI_BYTE, peer, kTag, comm, MPI_STATUS_IGNORE);
      compute(with_comp);
    }
    if (count > 0) sink = buf.touch()[0];  // read
  };
  if (rank == 0) {
    send();
    recv();
  } else {
    recv();
    send();
  }
  (void)sink;
  if (counted) {
    calls_.blocking += 2;
    calls_.deferred += overlap_run_deferred_calls() - deferred_before;
  }
}

// One round trip of `impl` on known bytes before the timed ones. Rank 0's message comes
// back to it unchanged (rank 1 writes its first byte only after sending it on), so both
// check every byte they received. "" or the first difference, agreed on every rank.
std::string P2pRun::data_check(P2pImpl impl, const PageBuffer& buf, int count) {
  const int rank = clock_.rank();
  const auto want = [](int i) { return static_cast<char>(i % 113 + 7); };
  char* d = buf.data();
  for (int i = 0; rank <= 1 && i < count; ++i)
    d[i] = rank == 0 ? want(i) : static_cast<char>(~want(i));
  round_trip(impl, buf, count, false);
  std::string why;
  for (int i = 0; rank <= 1 && i < count && why.empty(); ++i) {
    // Rank 1 received the byte, sent it on, then wrote it (the touch after its send).
    const char expected = rank == 1 && i == 0 ? static_cast<char>(want(0) + 1) : want(i);
    if (d[i] != expected)
      why = fmt::format("data check failed: rank {} holds {} at byte {} of {}, expected {}", rank,
                        static_cast<int>(d[i]), i, count, static_cast<int>(expected));
  }
  return mpi::agree_on_failure(clock_.comm(), why);
}

// `runs` runs of `body` from the sync barrier; per run max end - min start of ranks 0 and
// 1 in global time (rank 0), runs in which a rank left the barrier late discarded.
Spans P2pRun::timed(int runs, const std::function<void()>& body, PhaseAccounting* acc,
                    PhaseAccounting::Phase phase) {
  std::vector<Stamp> mine;
  Spans out;
  std::vector<bool> was_late;
  for (int i = 0; i < runs; ++i) {
    Stamp s;
    if (acc) acc->mark();
    s.late = clock_.barrier();
    in_comp_ = 0;
    s.start = clock_.now();
    body();
    s.end = clock_.now();
    if (acc) acc->mark(phase);
    mine.push_back(s);
    was_late.push_back(s.late);
    out.own_s.push_back(s.end - s.start);
    out.comp_s.push_back(in_comp_);
  }
  out.kept = kept_on_every_rank(clock_.comm(), was_late);
  clock_.resync();  // stamps interpolated between syncs
  std::vector<double> flat;
  for (const Stamp& s : mine)
    flat.insert(flat.end(),
                {clock_.to_global(s.start), clock_.to_global(s.end), s.late ? 1.0 : 0.0});
  const int ranks = std::min(clock_.size(), 2);
  std::vector<double> all(clock_.rank() == 0 ? flat.size() * clock_.size() : 0);
  MPI_Gather(flat.data(), static_cast<int>(flat.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(flat.size()), MPI_DOUBLE, 0, clock_.comm());
  if (clock_.rank() != 0) return out;
  for (int i = 0; i < runs; ++i) {
    double start = 1e300, end = -1e300;
    bool late = false;
    for (int r = 0; r < clock_.size(); ++r) {
      const double* f = &all[(static_cast<std::size_t>(r) * runs + i) * 3];
      late = late || f[2] != 0;
      if (r >= ranks) continue;
      start = std::min(start, f[0]);
      end = std::max(end, f[1]);
    }
    if (late) {
      ++out.discarded;
    } else {
      out.spans.push_back(end - start);
    }
  }
  return out;
}

// Both computation periods alone, the slower of ranks 0 and 1 (rank 0's value); each
// run's own time in `own` and, its barrier included, a comp_alone window of cpu_.
double P2pRun::comp_alone(std::vector<double>& own) {
  std::vector<double> times;
  for (int i = 0; i < config_.calibration_runs; ++i) {
    cpu_.mark();
    clock_.barrier();
    // Timed like compute() times the computation beside communication (in_comp_): the
    // same clock around the same calls, so the slowdown compares like with like.
    double t = 0.0;
    if (clock_.rank() <= 1) {
      const double c0 = clock_.now();
      work_.run();
      work_.run();
      t = clock_.now() - c0;
    }
    cpu_.mark(PhaseAccounting::comp_alone);
    own.push_back(t);
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, clock_.comm());
    times.push_back(t);
  }
  return measure::median(times);
}

// The layer's cost side by side: round trips of the blocking code as written and as
// PMPI calls alternate in one set (rank 0: median of the first over median of the
// second). Each implementation's own sets run one after the other, and the later of two
// identical codes came out up to 1.5x slower locally: order, not code. Within the set the
// pairs alternate too (written first, then PMPI first: ABBA), so a bias for the first or
// second run of a pair cancels; calls are not counted here, so the written code pays
// nothing the PMPI code does not.
std::optional<double> P2pRun::pmpi_ratio(const PageBuffer& buf, int count) {
  const auto written_at = [](std::size_t run) { return (run % 2 == 0) == (run / 2 % 2 == 0); };
  std::size_t run = 0;
  counting_ = false;
  const Spans s = timed(2 * config_.iterations, [&] {
    round_trip(written_at(run++) ? P2pImpl::blocking : P2pImpl::blocking_pmpi, buf, count, false);
  });
  counting_ = true;
  if (clock_.rank() != 0) return std::nullopt;
  std::vector<double> written, pmpi;
  std::size_t k = 0;  // rank 0's spans are the kept runs, in order
  for (std::size_t i = 0; i < s.kept.size() && k < s.spans.size(); ++i)
    if (s.kept[i]) (written_at(i) ? written : pmpi).push_back(s.spans[k++]);
  if (written.empty() || pmpi.empty()) return std::nullopt;
  const double reference = measure::median(pmpi);
  return reference > 0 ? std::optional<double>(measure::median(written) / reference) : std::nullopt;
}

P2pPoint P2pRun::measure_impl(P2pImpl impl, const PageBuffer& buf, int count, double own_comp_ref) {
  P2pPoint p;
  p.impl = impl;
  p.invalid_reason = data_check(impl, buf, count);
  if (!p.invalid_reason.empty()) {
    drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
    return p;
  }
  for (int i = 0; i < config_.warmup; ++i) round_trip(impl, buf, count, true);
  calls_ = {};
  const Spans bare = timed(config_.iterations, [&] { round_trip(impl, buf, count, false); });
  PhaseAccounting acc = cpu_;  // the point's comm_alone and comp_alone, this one's overlapped
  const Spans with = timed(
      config_.iterations, [&] { round_trip(impl, buf, count, true); }, &acc);
  long mine[2] = {calls_.blocking, calls_.deferred}, sum[2] = {0, 0};
  MPI_Reduce(mine, sum, 2, MPI_LONG, MPI_SUM, 0, clock_.comm());
  if (pair_.native_handle() != MPI_COMM_NULL) {
    std::vector<measure::PhaseTimes> times;
    for (std::size_t i = 0; i < with.kept.size(); ++i)
      times.push_back({own_comp_ref, with.comp_s[i], with.own_s[i]});
    acc.keep_only(PhaseAccounting::overlapped, with.kept);
    gather_cpu(pair_.native_handle(), acc, {}, measure::mean_phase_times(times, with.kept), p.cpu,
               p.decomposition, p.null_reasons);
  }
  if (clock_.rank() != 0) return p;
  if (intercepted_ && impl == P2pImpl::blocking) {
    p.blocking_calls = sum[0];
    p.deferred_calls = sum[1];
  }
  p.iterations = static_cast<int>(with.spans.size());
  p.discarded = with.discarded;
  p.discarded_pingpong = bare.discarded;
  p.invalid_reason = p2p_discard_reason(config_.iterations, with.spans.empty(), bare.spans.empty());
  if (!p.invalid_reason.empty()) {
    drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
    return p;
  }
  p.valid = true;
  p.t_iter = measure::spread(with.spans);
  p.t_pingpong_s = measure::median(bare.spans);
  return p;
}

std::vector<P2pPoint> P2pRun::measure(const P2pPoint& key) {
  const auto started = std::chrono::steady_clock::now();
  PageBuffer buf(key.msg_bytes);
  std::string why = buf.data() == nullptr
                        ? fmt::format("cannot map a buffer of {} bytes", key.msg_bytes)
                        : std::string();
  if (why.empty() && clock_.size() < 2)
    why = "p2p needs at least 2 ranks (ranks 0 and 1 ping-pong)";
  why = mpi::agree_on_failure(clock_.comm(), why);
  if (why.empty())
    why = mpi::agree_on_failure(clock_.comm(), calibrate(key.target_comp_s).value_or(""));
  std::vector<P2pPoint> points;
  std::optional<double> t_comm, t_comp, side_by_side;
  int comm_discarded = 0;
  if (why.empty()) {
    const int count = static_cast<int>(key.msg_bytes);
    round_trip(P2pImpl::nonblocking, buf, count, false);  // connections, registration
    cpu_.reset();
    cpu_.add_computation_threads(work_.thread_ids());
    const Spans comm = timed(
        config_.iterations, [&] { round_trip(P2pImpl::nonblocking, buf, count, false); }, &cpu_,
        PhaseAccounting::comm_alone);
    cpu_.keep_only(PhaseAccounting::comm_alone, comm.kept);
    if (!comm.spans.empty()) t_comm = measure::median(comm.spans);
    comm_discarded = comm.discarded;
    std::vector<double> own;
    t_comp = comp_alone(own);
    const double own_ref = measure::mean(own);
    for (P2pImpl impl : config_.impls) points.push_back(measure_impl(impl, buf, count, own_ref));
    const auto listed = [&](P2pImpl i) {
      return std::find(config_.impls.begin(), config_.impls.end(), i) != config_.impls.end();
    };
    if (listed(P2pImpl::blocking) && listed(P2pImpl::blocking_pmpi))
      side_by_side = pmpi_ratio(buf, count);
  } else {
    for (P2pImpl impl : config_.impls) {
      P2pPoint p;
      p.impl = impl;
      p.invalid_reason = why;
      drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
      points.push_back(p);
    }
  }
  std::optional<double> blocking;
  for (const P2pPoint& p : points) {
    if (p.impl == P2pImpl::blocking && p.valid && !intercepted_) blocking = p.t_iter->median;
    // The side-by-side ratio's reference is blocking-pmpi's code: none when that point is
    // invalid (rank 0 knows; the set itself ran on every rank, as its collectives must).
    if (p.impl == P2pImpl::blocking_pmpi && !p.valid) side_by_side.reset();
  }
  for (P2pPoint& p : points) {
    if (intercepted_ && p.impl == P2pImpl::blocking) p.impl = P2pImpl::overlap_run;
    p.msg_bytes = key.msg_bytes;
    p.target_comp_s = key.target_comp_s;
    p.intercepted = intercepted_;
    if (why.empty()) p.work_units = units_[key.target_comp_s];
    p.discarded_comm = comm_discarded;
    if (p.valid) {
      derive_p2p_numbers(p, {t_comm, t_comp, blocking, side_by_side, config_.iterations,
                             intercepted_, overlap_run_ ? overlap_run_->min_size_bytes : 0});
    }
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  return points;
}

std::vector<OptionSpec> p2p_options() {
  std::vector<OptionSpec> o = {
      {"--sizes", "64KiB:4MiB", "Message sizes: 64KiB,1MiB or a log2 range 64KiB:4MiB",
       "sizes_bytes"},
      {"--comp-times", "1ms:4ms",
       "Computation per period (two per round trip), calibrated: 1ms,4ms or a log2 range",
       "comp_times_s"},
      {"--impl", "blocking,nonblocking",
       "Measured in turn: blocking (MPI_Send/MPI_Recv as written; run the bench under "
       "overlap-run to measure it intercepted), nonblocking (Isend/Irecv + Wait, MPI's own "
       "progress), nonblocking-liboverlap (the same, liboverlap's engine driving MPI during "
       "the computation), blocking-pmpi (the blocking calls as PMPI_Send/PMPI_Recv, past "
       "overlap-run: measured beside blocking under it, the layer's cost side by side)",
       "impls"},
      {"--progress", "auto",
       "liboverlap's progress policy for nonblocking-liboverlap: auto (dedicated where the "
       "computation's threads leave a core free, else shared), caller, shared or dedicated "
       "(dedicated leaves one core free, see --dedicate-cores)",
       "progress"},
      {"--iterations", "20", "Measured round trips per point", "iterations"},
      {"--warmup", "2", "Unrecorded round trips per point", "warmup"},
      {"--calibration-runs", "5", "Runs per calibration step, their median is used",
       "calibration_runs"},
      {"--tolerance", "10%", "Calibration tolerance of the computation, 0.1 or 10%", "tolerance"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

std::vector<P2pImpl> parse_p2p_impls(const std::string& text) {
  std::vector<P2pImpl> impls;
  for (const std::string& name : parse_name_list(text, "--impl")) {
    const P2pImpl i = kP2pImplNames.parse_option(name, "--impl");
    if (i == P2pImpl::overlap_run)
      throw UsageError(
          "--impl 'overlap-run' is not allowed; use blocking and run the bench "
          "under overlap-run (it records those points as overlap-run)");
    if (std::find(impls.begin(), impls.end(), i) == impls.end()) impls.push_back(i);
  }
  return impls;
}

P2pConfig parse_p2p(const OptionValues& v) {
  P2pConfig c;
  c.sizes_bytes = parse_byte_list(v.text("--sizes"), "--sizes");
  for (long s : c.sizes_bytes)
    if (s > 2147483647L)
      throw UsageError(
          fmt::format("--sizes {} is too large (at most 2GiB - 1: MPI's int count)", s));
  c.comp_times_s = parse_duration_list(v.text("--comp-times"), "--comp-times");
  c.impls = parse_p2p_impls(v.text("--impl"));
  c.progress = kProgressPolicyNames.parse_option(v.text("--progress"), "--progress");
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  c.calibration_runs = parse_count(v.text("--calibration-runs"), "--calibration-runs", 1000);
  c.tolerance = parse_fraction(v.text("--tolerance"), "--tolerance");
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  return c;
}

std::unique_ptr<Sweep<P2pPoint>> start_p2p(const RunResources& r, const P2pConfig& c) {
  return std::make_unique<P2pRun>(r, c);
}

}  // namespace

const Benchmark<P2pConfig, P2pPoint>& p2p_benchmark() {
  static const Benchmark<P2pConfig, P2pPoint> b{
      &kP2pResult,
      "Ping-pong with computation (transparent-overlap paper): blocking, nonblocking with "
      "MPI's or liboverlap's progress, and blocking under overlap-run; latency and bandwidth",
      {.computes = true, .resumable = true, .global_clock = true},
      p2p_options,
      parse_p2p,
      liboverlap_when_listed<P2pImpl::nonblocking_liboverlap, P2pConfig>,
      nullptr,
      start_p2p};
  return b;
}

}  // namespace overlap::bench
