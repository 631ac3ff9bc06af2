#include "bench/coll/progress_bench.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/common_options.hpp"
#include "bench/common/global_clock.hpp"
#include "bench/common/timed_run.hpp"
#include "bench/nbc/nbc_bench.hpp"
#include "compute/unit_work.hpp"
#include "measure/calibration.hpp"
#include "measure/statistics.hpp"
#include "mpi/agree_on_failure.hpp"

namespace overlap::bench {
namespace {

// Per rank and iteration, in this order: the bare collective's start and end (global),
// the work alone (own time), units done alone in t_b, the time-based run's call, wait,
// units and total, the work-based run's total, then three per test interval (total, wait,
// time in tests), and the late flag.
constexpr int kFixed = 9;
constexpr int kPerInterval = 3;

struct Overlapped {
  double call = 0, comp = 0, wait = 0, total = 0, in_tests = 0;
};

// One iteration of one rank: its fields for rank 0 and, for the CPU accounting, its late
// flag and the times the decomposition compares (the work alone and the work-based run).
struct Iteration {
  std::vector<double> fields;
  bool late = false;
  measure::PhaseTimes times;
};

class ProgressRun : public Sweep<ProgressPoint> {
 public:
  ProgressRun(const RunResources& r, const ProgressConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s),
        work_(r.plan->thread_pus),
        config_(c) {}

  std::vector<ProgressPoint> keys() const override;
  std::vector<ProgressPoint> measure(const ProgressPoint& key) override;
  double weight(const ProgressPoint& k) const override {
    return 1.0 + static_cast<double>(k.requested_bytes) / 1e5;
  }
  std::optional<double> calibration_s() const override { return calibration_s_; }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  ProgressPoint measure_one(Operation& op, long msg_bytes);
  std::optional<std::string> calibrate(double target);
  Overlapped overlapped(Operation& op, int tests, bool time_based, double t_b, long& units);
  Iteration iteration(Operation& op, long msg_bytes, double t_b, bool account);
  void account_cpu(const std::vector<Iteration>& its, ProgressPoint& p);
  void reduce(const std::vector<double>& all, int n, ProgressPoint& p, long msg_bytes);

  GlobalClock clock_;
  compute::UnitWork work_;
  ProgressConfig config_;
  double calibration_s_ = 0;
  PhaseAccounting cpu_;  // samples on the thread that runs the sweep
};

std::vector<ProgressPoint> ProgressRun::keys() const {
  std::vector<ProgressPoint> keys;
  for (Collective op : config_.ops) {
    const std::vector<long> sizes =
        op == Collective::barrier ? std::vector<long>{0} : config_.sizes_bytes;
    for (long bytes : sizes) {
      ProgressPoint p;
      p.impl = config_.impls.front();
      p.op = op;
      p.requested_bytes = bytes;
      keys.push_back(p);
    }
  }
  return keys;
}

// The work-based computation's units, so that it takes `target` alone (slowest thread,
// slowest rank, median of runs): the same decision on every rank.
std::optional<std::string> ProgressRun::calibrate(double target) {
  return calibrate_work(clock_, work_, target, config_.calibration_runs, config_.tolerance);
}

// Icoll; the computation (time-based for t_b, or the work in pieces with `tests` MPI_Test
// calls); Wait.
Overlapped ProgressRun::overlapped(Operation& op, int tests, bool time_based, double t_b,
                                   long& units) {
  Overlapped o;
  int calls = 0;
  const auto test = [&] {
    const double t = clock_.now();
    op.test();
    o.in_tests += clock_.now() - t;
  };
  const double t1 = clock_.now();
  op.start();
  const double t2 = clock_.now();
  if (time_based) {
    units = work_.run_for(t_b);
  } else if (tests > 0) {
    test();
    work_.run_in_pieces(tests - 1, test, calls);
  } else {
    work_.run();
  }
  const double t3 = clock_.now();
  op.wait();
  const double t4 = clock_.now();
  o.call = t2 - t1;
  o.comp = t3 - t2;
  o.wait = t4 - t3;
  o.total = t4 - t1;
  return o;
}

// With `account`, CPU counters are sampled around the bare collective, the work alone and
// the work-based run (docs/cpu-accounting.md), outside every timed window: before a
// phase's barrier and after its end time was taken. The time-based and test runs are not
// accounted (mark() restarts the window before the work-based run).
Iteration ProgressRun::iteration(Operation& op, long msg_bytes, double t_b, bool account) {
  if (account) cpu_.mark();
  bool late = clock_.barrier();
  const double c0 = clock_.now();
  op.start();
  op.wait();
  const double c1 = clock_.now();
  if (account) cpu_.mark(PhaseAccounting::comm_alone);
  late = clock_.barrier() || late;
  // Timed like the overlapped computation (o.comp): the same clock around the same call,
  // so their ratio carries no difference of timers (thread start-up, binding).
  const double r0 = clock_.now();
  work_.run();
  const double work_ref = clock_.now() - r0;
  if (account) cpu_.mark(PhaseAccounting::comp_alone);
  late = clock_.barrier() || late;
  const auto alone = static_cast<double>(work_.run_for(t_b));
  long units = 0;
  late = clock_.barrier() || late;
  const Overlapped tb = overlapped(op, 0, true, t_b, units);
  if (account) cpu_.mark();
  late = clock_.barrier() || late;
  const Overlapped wb = overlapped(op, 0, false, t_b, units);
  if (account) cpu_.mark(PhaseAccounting::overlapped);
  Iteration it;
  it.fields = {c0,       c1,      work_ref, alone, tb.call, tb.wait, static_cast<double>(units),
               tb.total, wb.total};
  for (long interval : config_.test_intervals_bytes) {
    late = clock_.barrier() || late;
    const Overlapped t = overlapped(op, test_calls_for(msg_bytes, interval), false, t_b, units);
    it.fields.insert(it.fields.end(), {t.total, t.wait, t.in_tests});
  }
  it.fields.push_back(late ? 1.0 : 0.0);
  it.late = late;
  it.times = {work_ref, wb.comp, wb.total};
  return it;
}

// Collective: the accounting over the iterations reduce keeps (no rank late).
void ProgressRun::account_cpu(const std::vector<Iteration>& its, ProgressPoint& p) {
  std::vector<bool> late;
  std::vector<measure::PhaseTimes> times;
  for (const Iteration& it : its) {
    late.push_back(it.late);
    times.push_back(it.times);
  }
  const std::vector<bool> kept = kept_on_every_rank(clock_.comm(), late);
  gather_cpu(clock_.comm(), cpu_, kept, measure::mean_phase_times(times, kept), p.cpu,
             p.decomposition, p.null_reasons);
}

ProgressPoint ProgressRun::measure_one(Operation& op, long msg_bytes) {
  ProgressPoint p;
  const auto started = std::chrono::steady_clock::now();
  median_span(clock_, op, 1);  // warm-up: connections, registration
  const double t_b = median_span(clock_, op, config_.calibration_runs);
  const std::optional<std::string> failed = calibrate(t_b);
  calibration_s_ +=
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  p.calibration_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (failed) {
    p.invalid_reason = *failed;
    drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
    return p;
  }
  p.work_units = work_.size();
  for (int i = 0; i < config_.warmup; ++i) iteration(op, msg_bytes, t_b, false);
  cpu_.reset();
  cpu_.add_computation_threads(work_.thread_ids());
  std::vector<Iteration> its;
  for (int i = 0; i < config_.iterations; ++i) its.push_back(iteration(op, msg_bytes, t_b, true));
  clock_.resync();  // the collective's stamps are interpolated between syncs
  std::vector<double> mine;
  for (Iteration& it : its) {
    it.fields[0] = clock_.to_global(it.fields[0]);
    it.fields[1] = clock_.to_global(it.fields[1]);
    mine.insert(mine.end(), it.fields.begin(), it.fields.end());
  }
  std::vector<double> all(clock_.rank() == 0 ? mine.size() * clock_.size() : 0);
  MPI_Gather(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, all.data(),
             static_cast<int>(mine.size()), MPI_DOUBLE, 0, clock_.comm());
  if (clock_.rank() == 0) reduce(all, config_.iterations, p, msg_bytes);
  account_cpu(its, p);
  if (!p.valid && clock_.rank() == 0)
    drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
  return p;
}

// Rank 0: per kept iteration, each run's pacing rank (the largest own total).
void ProgressRun::reduce(const std::vector<double>& all, int n, ProgressPoint& p, long msg_bytes) {
  const int ranks = clock_.size();
  const std::size_t fields = kFixed + kPerInterval * config_.test_intervals_bytes.size() + 1;
  const auto at = [&](int r, int i, std::size_t f) {
    return all[(static_cast<std::size_t>(r) * n + i) * fields + f];
  };
  const auto pacing = [&](int i, std::size_t total_field) {
    int best = 0;
    for (int r = 1; r < ranks; ++r)
      best = at(r, i, total_field) > at(best, i, total_field) ? r : best;
    return best;
  };
  std::vector<double> t_b, work_ref, ovh_time, fraction, ovh_work;
  const std::size_t J = config_.test_intervals_bytes.size();
  std::vector<std::vector<double>> total(J), wait(J), in_tests(J);
  for (int i = 0; i < n; ++i) {
    bool late = false;
    double start = at(0, i, 0), end = at(0, i, 1), frac = 1e300;
    for (int r = 0; r < ranks; ++r) {
      late = late || at(r, i, fields - 1) != 0;
      start = std::min(start, at(r, i, 0));
      end = std::max(end, at(r, i, 1));
      if (at(r, i, 3) > 0) frac = std::min(frac, at(r, i, 6) / at(r, i, 3));
    }
    if (late) {
      ++p.discarded;
      continue;
    }
    t_b.push_back(end - start);
    const int tb = pacing(i, 7), wb = pacing(i, 8);
    ovh_time.push_back(at(tb, i, 4) + at(tb, i, 5));
    fraction.push_back(frac);
    work_ref.push_back(at(wb, i, 2));
    ovh_work.push_back(at(wb, i, 8) - at(wb, i, 2));
    for (std::size_t j = 0; j < J; ++j) {
      const std::size_t f = kFixed + kPerInterval * j;
      const int q = pacing(i, f);
      total[j].push_back(at(q, i, f));
      wait[j].push_back(at(q, i, f + 1));
      in_tests[j].push_back(at(q, i, f + 2));
    }
  }
  p.iterations = static_cast<int>(t_b.size());
  if (t_b.empty()) {
    p.invalid_reason = fmt::format(
        "all {} iterations were discarded: in each, a rank left a sync barrier late", n);
    return;
  }
  p.valid = true;
  p.t_blocking = measure::spread(t_b);
  p.t_work_ref = measure::spread(work_ref);
  p.overhead_time = measure::spread(ovh_time);
  p.work_fraction = measure::spread(fraction);
  p.overhead_work = measure::spread(ovh_work);
  p.hidden_s = p.overhead_work->median - p.overhead_time->median;
  for (std::size_t j = 0; j < J; ++j) {
    ProgressTests t;
    t.interval_bytes = config_.test_intervals_bytes[j];
    t.test_calls = test_calls_for(msg_bytes, t.interval_bytes);
    t.t_total = measure::spread(total[j]);
    t.t_wait = measure::spread(wait[j]);
    t.t_test = measure::spread(in_tests[j]);
    if (p.t_blocking->median > 0) t.wait_fraction = t.t_wait->median / p.t_blocking->median;
    p.tests.push_back(t);
  }
}

std::vector<ProgressPoint> ProgressRun::measure(const ProgressPoint& key) {
  const auto started = std::chrono::steady_clock::now();
  const int element = element_bytes(key.op);
  const long elements = key.requested_bytes / element;
  std::vector<CollectiveCall> calls;
  for (Implementation impl : config_.impls) calls.emplace_back(key.op, impl, clock_.comm());
  const std::string why = mpi::agree_on_failure(
      clock_.comm(), prepare_buffers(calls, elements, kNonblockingNames, clock_.rank()));
  std::vector<ProgressPoint> points;
  for (CollectiveCall& call : calls) {
    ProgressPoint p = why.empty() ? measure_one(call, elements * element) : ProgressPoint{};
    p.impl = call.impl();
    p.op = key.op;
    p.requested_bytes = key.requested_bytes;
    p.element_bytes = element;
    p.msg_bytes = elements * element;
    if (!why.empty()) {
      p.invalid_reason = why;
      drop_cpu(p.cpu, p.decomposition, p.null_reasons, "the point is invalid");
    }
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    points.push_back(p);
  }
  return points;
}

std::vector<OptionSpec> progress_options() {
  std::vector<OptionSpec> o = {
      {"--op", "ibcast,iallreduce", op_list_help(kNonblockingNames), "ops"},
      {"--sizes", "64KiB:1MiB",
       "Message sizes per rank (as in nbc): 64KiB,1MiB or a log2 range 64KiB:1MiB", "sizes_bytes"},
      {"--impl", "mpi", "Whose collectives: mpi, overlap (liboverlap) or both, in turn", "impls"},
      {"--progress", "caller",
       "liboverlap's progress policy: caller (progress only inside MPI calls: compare with "
       "MPI's own under test calls), shared, dedicated or auto",
       "progress"},
      {"--test-intervals", "16KiB,64KiB,256KiB",
       "One progression run per interval: MPI_Test every this many bytes (none: no such run)",
       "test_intervals_bytes"},
      {"--iterations", "11", "Measured iterations per point", "iterations"},
      {"--warmup", "2", "Unrecorded iterations per point", "warmup"},
      {"--calibration-runs", "5", "Runs per calibration step, their median is used",
       "calibration_runs"},
      {"--tolerance", "10%", "Calibration tolerance of the work, 0.1 or 10%", "tolerance"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

ProgressConfig parse_progress(const OptionValues& v) {
  ProgressConfig c;
  c.ops = parse_collectives(v.text("--op"), "--op", kNonblockingNames);
  c.sizes_bytes = parse_byte_list(v.text("--sizes"), "--sizes");
  c.impls = parse_impls(v.text("--impl"), "--impl");
  c.progress = kProgressPolicyNames.parse_option(v.text("--progress"), "--progress");
  if (v.text("--test-intervals") != "none") {
    c.test_intervals_bytes = parse_byte_list(v.text("--test-intervals"), "--test-intervals");
  }
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  c.calibration_runs = parse_count(v.text("--calibration-runs"), "--calibration-runs", 1000);
  c.tolerance = parse_fraction(v.text("--tolerance"), "--tolerance");
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  check_sizes_hold_an_element(c.ops, c.sizes_bytes, kNonblockingNames);
  return c;
}

std::unique_ptr<Sweep<ProgressPoint>> start_progress(const RunResources& r,
                                                     const ProgressConfig& c) {
  return std::make_unique<ProgressRun>(r, c);
}

}  // namespace

const Benchmark<ProgressConfig, ProgressPoint>& progress_benchmark() {
  static const Benchmark<ProgressConfig, ProgressPoint> b{
      &kProgressResult,
      "CPU overhead of a nonblocking collective, time- and work-based, and its progression "
      "with MPI_Test calls",
      {.computes = true, .resumable = true, .global_clock = true},
      progress_options,
      parse_progress,
      liboverlap_when_listed<Implementation::overlap, ProgressConfig>,
      nullptr,
      start_progress};
  return b;
}

}  // namespace overlap::bench
