#include "bench/nbc/nbc_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/common/collective.hpp"
#include "bench/common/common_options.hpp"
#include "bench/common/timed_run.hpp"
#include "bench/nbc/peer_protocol.hpp"
#include "compute/gemm_workload.hpp"
#include "measure/calibration.hpp"
#include "measure/overlap_reduction.hpp"
#include "measure/peer_overlap.hpp"
#include "measure/statistics.hpp"

namespace overlap::bench {
namespace {

// Fields each rank sends per iteration; see NbcSweep::Local.
constexpr int kIterationFields = 12;

// Start from a guess scaled from the last calibration of the same kind, so a sweep's
// later targets take two or three steps instead of a full search from the smallest size.
long warm_start(std::pair<long, double> last, double target, double exponent, long fallback) {
  if (last.first <= 0 || !(last.second > 0)) return fallback;
  return std::max(1L, std::lround(static_cast<double>(last.first) *
                                  std::pow(target / last.second, 1.0 / exponent)));
}

std::string percent(double tolerance) { return std::to_string(std::lround(tolerance * 100)); }

// A calibration that bracketed its target without hitting it: the nearest reachable size,
// and the sentence that says so (nbc-overlap paper, sec. 5.1 sticks to 0 bytes and calls the
// point invalid; a step in time, a protocol switch, should not lose the point).
std::string nearest_note(const std::string& what, const measure::CalibrationResult& r) {
  return what + ": " + r.reason + "; measured at the nearest reachable, size " +
         std::to_string(r.size) + " (" + format_duration(r.time) + ")";
}

std::string joined(const std::vector<std::string>& lines, const std::string& sep) {
  std::string out;
  for (const std::string& l : lines) out += (out.empty() ? "" : sep) + l;
  return out;
}

// A point with only the key fields of `key`.
NbcPoint key_of(const NbcPoint& key) {
  NbcPoint rec;
  rec.impl = key.impl;
  rec.op = key.op;
  rec.target_comm_s = key.target_comm_s;
  rec.target_comp_s = key.target_comp_s;
  return rec;
}

}  // namespace

// One iteration on one rank, local clock.
struct NbcSweep::Local {
  double comm_start = 0, comm_end = 0;    // bare collective
  double comp_ref = 0;                    // bare computation
  double t1 = 0, t2 = 0, t3 = 0, t4 = 0;  // overlap run (Algorithm 1)
  double t_test = 0;                      // inside MPI_Test during the computation
  bool late = false;                      // left one of the three barriers late
};

OperationFactory collective_calls(MPI_Comm comm) {
  return [comm](Implementation impl, Collective op) -> std::unique_ptr<Operation> {
    return std::make_unique<CollectiveCall>(op, impl, comm);
  };
}

int test_calls_for(long msg_bytes, long interval_bytes) {
  if (interval_bytes <= 0) return 0;
  return static_cast<int>((msg_bytes + interval_bytes - 1) / interval_bytes) + 1;
}

NbcSweep::NbcSweep(GlobalClock& clock, NbcConfig config, OperationFactory make_op,
                   compute::Workload& workload, compute::PeerKernel& peer_kernel)
    : clock_(clock),
      config_(std::move(config)),
      make_op_(std::move(make_op)),
      work_(workload),
      peer_kernel_(peer_kernel) {}

std::vector<NbcPoint> NbcSweep::points() const {
  std::vector<NbcPoint> keys;
  // Implementations innermost: each (op, comm, comp) is measured by both back to back,
  // so a comparison sees the same machine state.
  for (Collective op : config_.ops) {
    for (double comm : config_.comm_times_s) {
      for (double comp : config_.comp_times_s) {
        for (Implementation impl : config_.impls) {
          NbcPoint k;
          k.impl = impl;
          k.op = op;
          k.target_comm_s = comm;
          k.target_comp_s = comp;
          keys.push_back(k);
        }
      }
    }
  }
  return keys;
}

double NbcSweep::comp_slowest_median(int runs) {
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    clock_.barrier();
    double t = work_.run();
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, clock_.comm());
    times.push_back(t);
  }
  return measure::median(times);
}

NbcSweep::Calibrated NbcSweep::calibrate_comm(Operation& op, const NbcPoint& key) {
  const double target = key.target_comm_s;
  if (!op.has_size()) {
    const double t = median_span(clock_, op, config_.calibration_runs);
    if (std::abs(t - target) <= config_.tolerance * target) return {true, 0, t, ""};
    return {false, 0, t,
            std::string(kNonblockingNames.name(key.op)) + " has no size to calibrate: it takes " +
                format_duration(t) + ", not within " + percent(config_.tolerance) + " % of " +
                format_duration(target)};
  }
  measure::CalibrationConfig cc;
  cc.tolerance = config_.tolerance;
  cc.min_size = 1;
  cc.max_size = std::max(1L, op.max_elements(config_.max_bytes));
  cc.initial_size = warm_start(last_comm_[{key.impl, key.op}], target, 1.0, 1024);
  const auto cost = [&](long elements) {
    op.resize(elements);
    median_span(clock_, op, 1);  // warm-up: connections, registration, algorithm choice
    return median_span(clock_, op, config_.calibration_runs);
  };
  const measure::CalibrationResult r = measure::calibrate(target, cost, cc);
  if (!r.converged && !r.bracketed) {
    return {false, 0, r.time,
            "message size not calibrated for " + format_duration(target) + ": " + r.reason};
  }
  last_comm_[{key.impl, key.op}] = {r.size, r.time};
  return {true, r.size, r.time, r.converged ? "" : nearest_note("message size", r)};
}

NbcSweep::Calibrated NbcSweep::calibrate_comp(double target) {
  const measure::CalibrationConfig cc =
      work_.calibration_config(config_.tolerance, config_.max_bytes,
                               warm_start(last_comp_, target, work_.size_exponent(), 64));
  const auto cost = [&](long n) {
    work_.resize(n);
    comp_slowest_median(1);  // warm-up: caches, page faults, BLAS buffers
    return comp_slowest_median(config_.calibration_runs);
  };
  const measure::CalibrationResult r = measure::calibrate(target, cost, cc);
  if (!r.converged && !r.bracketed) {
    return {false, 0, r.time,
            "computation not calibrated for " + format_duration(target) + ": " + r.reason};
  }
  last_comp_ = {r.size, r.time};
  return {true, r.size, r.time, r.converged ? "" : nearest_note("computation", r)};
}

// With `account`, CPU counters are sampled at the phase boundaries, outside every timed
// window: before a phase's barrier and after its end time was taken.
// Phase order: bare collective, overlap run, bare computation. Each computation window
// then follows a transfer (the bare collective's, or the overlap run's Wait), so both see
// the same cache state and kernel tail; with the bare computation right after the bare
// collective, MPI's own (unprogressed) collectives measured r_comp_slowdown 0.85-0.95.
NbcSweep::Local NbcSweep::run_iteration(Operation& op, int tests, bool account) {
  Local it;
  if (account) cpu_.mark();
  it.late = clock_.barrier();
  it.comm_start = clock_.now();
  op.start();
  op.wait();
  it.comm_end = clock_.now();
  if (account) cpu_.mark(PhaseAccounting::comm_alone);

  it.late = clock_.barrier() || it.late;
  // Algorithm 1; MPI_Test calls only when --test-interval asks for them.
  int calls = 0;
  const auto test = [&] {
    const double t = clock_.now();
    op.test();
    it.t_test += clock_.now() - t;
  };
  it.t1 = clock_.now();
  op.start();
  it.t2 = clock_.now();
  if (tests > 0) {
    test();
    work_.run_in_pieces(tests - 1, test, calls);
  } else {
    work_.run();
  }
  it.t3 = clock_.now();
  op.wait();
  it.t4 = clock_.now();
  if (account) cpu_.mark(PhaseAccounting::overlapped);

  it.late = clock_.barrier() || it.late;
  // With test calls, the reference is split into the same pieces (with nothing between),
  // so that t_comp - t_comp_ref is the test calls' cost, not the splitting's.
  const double c0 = clock_.now();
  if (tests > 1) {
    work_.run_in_pieces(
        tests - 1, [] {}, calls);
  } else {
    work_.run();
  }
  it.comp_ref = clock_.now() - c0;
  if (account) cpu_.mark(PhaseAccounting::comp_alone);

  return it;
}

NbcSweep::Fit NbcSweep::fit_comm(Implementation impl, Collective op, double target) {
  NbcPoint key;
  key.impl = impl;
  key.op = op;
  key.target_comm_s = target;
  const auto comm_key = std::make_tuple(impl, op, target);
  if (!comm_cache_.contains(comm_key)) {
    std::unique_ptr<Operation> call = make_op_(impl, op);
    comm_cache_[comm_key] = calibrate_comm(*call, key);
  }
  return comm_cache_[comm_key];
}

NbcSweep::Fit NbcSweep::fit_comp(double target) {
  if (!comp_cache_.contains(target)) comp_cache_[target] = calibrate_comp(target);
  return comp_cache_[target];
}

double NbcSweep::comp_alone(long comp_size) {
  work_.resize(comp_size);
  comp_slowest_median(1);
  return comp_slowest_median(config_.calibration_runs);
}

NbcPoint NbcSweep::measure(const NbcPoint& key) {
  const auto started = std::chrono::steady_clock::now();
  NbcPoint rec = key_of(key);
  std::unique_ptr<Operation> op = make_op_(key.impl, key.op);

  const auto calib_started = std::chrono::steady_clock::now();
  const auto comm_key = std::make_tuple(key.impl, key.op, key.target_comm_s);
  if (!comm_cache_.contains(comm_key)) comm_cache_[comm_key] = calibrate_comm(*op, key);
  const Calibrated comp = fit_comp(key.target_comp_s);
  const double calibration = seconds_since(calib_started);  // 0 when both came from the cache
  calibration_s_ += calibration;
  const Calibrated& comm = comm_cache_[comm_key];
  if (!comm.ok || !comp.ok) {
    if (comm.ok) {
      rec.msg_bytes = comm.size * op->element_bytes();
      rec.algorithm = liboverlap_algorithm(key.op, key.impl, *rec.msg_bytes, clock_.size());
    }
    if (comp.ok) rec.comp_size = comp.size;
    rec.invalid_reason = !comm.ok ? comm.reason : comp.reason;
    rec.diagnosis_text = "Invalid: " + rec.invalid_reason;
    drop_cpu(rec.cpu, rec.decomposition, rec.null_reasons, "the point is invalid");
    rec.calibration_s = calibration;
    rec.elapsed_s = seconds_since(started);
    return rec;
  }
  rec.calibrated_comm_s = comm.time;
  rec.calibrated_comp_s = comp.time;
  std::vector<std::string> notes;
  for (const Calibrated* c : {&comm, &comp}) {
    if (!c->reason.empty()) notes.push_back(c->reason);
  }
  rec.calibration_note = joined(notes, "; ");
  rec = measure_sized(*op, std::move(rec), comm.size, comp.size);
  rec.calibration_s = calibration;
  rec.elapsed_s = seconds_since(started);
  return rec;
}

NbcPoint NbcSweep::measure_at(const NbcPoint& key, long elements, long comp_size) {
  const auto started = std::chrono::steady_clock::now();
  std::unique_ptr<Operation> op = make_op_(key.impl, key.op);
  NbcPoint rec = measure_sized(*op, key_of(key), elements, comp_size);
  rec.elapsed_s = seconds_since(started);
  return rec;
}

// The measurement proper, at sizes already chosen; `rec` has its key fields set.
NbcPoint NbcSweep::measure_sized(Operation& op, NbcPoint rec, long elements, long comp_size) {
  rec.msg_bytes = elements * op.element_bytes();
  rec.algorithm = liboverlap_algorithm(rec.op, rec.impl, *rec.msg_bytes, clock_.size());
  if (op.has_size()) op.resize(elements);
  rec.comp_size = comp_size;
  work_.resize(comp_size);
  const int tests = config_.test_interval_bytes
                        ? test_calls_for(rec.msg_bytes.value_or(0), *config_.test_interval_bytes)
                        : 0;
  for (int i = 0; i < config_.warmup; ++i) run_iteration(op, tests, false);
  cpu_.reset();
  cpu_.add_computation_threads(work_.thread_ids());
  std::vector<Local> its;
  for (int i = 0; i < config_.iterations; ++i) its.push_back(run_iteration(op, tests, true));
  // reduce_overlap's rule, known on every rank: each rank's accounting and phase times
  // cover the iterations the point's times do.
  std::vector<bool> late;
  std::vector<measure::PhaseTimes> times;
  for (const Local& it : its) {
    late.push_back(it.late);
    times.push_back({it.comp_ref, it.t3 - it.t2, it.t4 - it.t1});
  }
  const std::vector<bool> kept = kept_on_every_rank(clock_.comm(), late);
  const measure::PhaseTimes mine = measure::mean_phase_times(times, kept);
  clock_.resync();
  rec.test_calls = tests;
  reduce(its, rec);
  // Only rank 0 knows whether the reduction kept the point; the peers' phase is collective.
  int valid = rec.valid ? 1 : 0;
  MPI_Bcast(&valid, 1, MPI_INT, 0, clock_.comm());
  if (valid != 0) add_peers(op, tests, rec);
  gather_cpu(clock_.comm(), cpu_, kept, mine, rec.cpu, rec.decomposition, rec.null_reasons);
  if (!rec.valid && clock_.rank() == 0)
    drop_cpu(rec.cpu, rec.decomposition, rec.null_reasons, "the point is invalid");
  return rec;
}

void NbcSweep::reduce(const std::vector<Local>& its, NbcPoint& rec) {
  // Local to global with the line through every sync so far, the latest one (resync)
  // after these timestamps: interpolation.
  const auto n = static_cast<int>(its.size());
  std::vector<double> mine;
  for (const Local& it : its) {
    mine.insert(mine.end(), {clock_.to_global(it.comm_start), clock_.to_global(it.comm_end),
                             it.comm_end - it.comm_start, it.comp_ref, clock_.to_global(it.t1),
                             clock_.to_global(it.t4), it.t2 - it.t1, it.t3 - it.t2, it.t4 - it.t3,
                             it.t_test, it.late ? 1.0 : 0.0, 0.0});
  }
  const int size = clock_.size();
  std::vector<double> all(clock_.rank() == 0 ? mine.size() * static_cast<std::size_t>(size) : 0);
  MPI_Gather(mine.data(), n * kIterationFields, MPI_DOUBLE, all.data(), n * kIterationFields,
             MPI_DOUBLE, 0, clock_.comm());
  if (clock_.rank() != 0) return;

  std::vector<std::vector<measure::RankIteration>> by_iteration(static_cast<std::size_t>(n));
  std::vector<double> test_time(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int r = 0; r < size; ++r) {
      const double* f = &all[(static_cast<std::size_t>(r) * n + i) * kIterationFields];
      by_iteration[static_cast<std::size_t>(i)].push_back(
          {f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], f[9], f[10] != 0});
    }
  }
  std::optional<measure::ReferenceTargets> targets;
  if (rec.target_comm_s > 0 && rec.target_comp_s > 0)
    targets = measure::ReferenceTargets{rec.target_comm_s, rec.target_comp_s, config_.tolerance};
  const measure::OverlapPointStats s = measure::reduce_overlap(by_iteration, {}, targets);
  rec.iterations = s.kept;
  rec.discarded = s.discarded;
  rec.valid = s.valid;
  rec.diagnosis = s.diagnosis;
  rec.ratio_diagnosis = s.ratio_diagnosis;
  if (!s.valid) {
    rec.invalid_reason = s.invalid_reason;
    rec.diagnosis_text = "Invalid: " + rec.invalid_reason;
    return;
  }
  rec.t_comm_ref = s.t_comm_ref;
  rec.t_comp_ref = s.t_comp_ref;
  rec.t_measured = s.t_measured;
  rec.t_call = s.t_call;
  rec.t_comp = s.t_comp;
  rec.t_wait = s.t_wait;
  rec.t_comp_max = s.t_comp_max;
  rec.t_in_mpi = s.t_in_mpi;
  if (rec.test_calls > 0) rec.t_test = s.t_test;
  rec.r_overhead = s.r_overhead;
  rec.r_comm = s.r_comm;
  rec.r_comp_slowdown = s.r_comp_slowdown;
  rec.osu_on_nbc_times_pct = s.osu_on_nbc_times_pct;
  rec.imb_on_nbc_times_pct = s.imb_on_nbc_times_pct;
  rec.comp_speed_spread = s.comp_speed_spread;
  rec.imprecise = s.imprecise;
  rec.diagnosis_text = std::string(measure::explain(s.diagnosis));
  if (!s.imprecise.empty()) {
    rec.diagnosis_text += " " + joined(s.imprecise, "; ") + ". The ratios alone say " +
                          std::string(measure::to_string(s.ratio_diagnosis)) + ".";
  }
  for (const measure::RankMeans& m : s.ranks) {
    rec.ranks.push_back({m.overall, m.call, m.compute, m.test, m.wait, m.pure, m.comp_ref});
  }
  NbcSamples samples;
  for (const measure::IterationSample& x : s.samples) {
    samples.t_comm_ref_s.push_back(x.t_comm_ref);
    samples.t_comp_ref_s.push_back(x.t_comp_ref);
    samples.t_measured_s.push_back(x.t_measured);
    samples.t_call_s.push_back(x.t_call);
    samples.t_comp_s.push_back(x.t_comp);
    samples.t_wait_s.push_back(x.t_wait);
    samples.t_comp_max_s.push_back(x.t_comp_max);
    samples.pacing_rank.push_back(x.pacing_rank);
  }
  rec.samples = samples;
}

void NbcSweep::add_peers(Operation& op, int tests, NbcPoint& rec) {
  if (config_.peer_iterations <= 0) {
    const std::string why = "not run: --peer-iterations 0";
    for (const char* f : {"osu_overlap_pct", "imb_overlap_pct", "peers"}) rec.null_reasons[f] = why;
    return;
  }
  PeerPhase phase = run_peer_protocols(clock_, op, peer_kernel_,
                                       {config_.peer_iterations, config_.warmup, tests});
  if (clock_.rank() != 0) return;
  std::vector<measure::PeerRankTimes> osu, imb;
  for (const PeerRank& r : phase.ranks) {
    osu.push_back({r.osu_overall_s, r.osu_compute_s, r.pure_s, r.osu_test_s});
    imb.push_back({r.imb_overall_s, r.imb_compute_s, r.pure_s, 0.0});
  }
  rec.osu_overlap_pct = measure::osu_overlap_pct(osu);
  rec.imb_overlap_pct = measure::imb_overlap_pct(imb);
  phase.imb_rank = measure::imb_rank(imb);
  if (!rec.osu_overlap_pct)
    rec.null_reasons["osu_overlap_pct"] = "the mean pure time is not positive";
  if (!rec.imb_overlap_pct) {
    rec.null_reasons["imb_overlap_pct"] =
        "the chosen rank's pure and compute times are not positive";
  }
  rec.peers = std::move(phase);
}

namespace {

std::vector<OptionSpec> nbc_options() {
  std::vector<OptionSpec> o = {
      {"--impl", "mpi",
       "Whose collectives: mpi, overlap (liboverlap), or mpi,overlap to compare them point by "
       "point",
       "impls"},
      {"--progress", "auto",
       "liboverlap's progress policy: auto (dedicated where the computation's threads leave "
       "a core free or --dedicate-cores leaves one, else shared), caller, shared or dedicated "
       "(dedicated leaves one core free, see --dedicate-cores)",
       "progress"},
      {"--op", "ibcast", op_list_help(kNonblockingNames), "ops"},
      {"--comm-times", "1ms:16ms",
       "Target communication times: 1ms,4ms,16ms or a log2 range 1ms:64ms", "comm_times_s"},
      {"--comp-times", "1ms:16ms", "Target computation times, same forms", "comp_times_s"},
      {"--iterations", "15", "Measured iterations per point", "iterations"},
      {"--warmup", "2", "Unrecorded iterations per point", "warmup"},
      {"--calibration-runs", "5", "Runs per calibration step, their median is used",
       "calibration_runs"},
      {"--tolerance", "10%", "Calibration tolerance, 0.1 or 10%", "tolerance"},
      {"--max-buffer", "1GiB", "Largest send + receive buffers per rank, e.g. 512MiB", "max_bytes"},
      {"--test-interval", "",
       "Call MPI_Test every this many bytes of message during the computation (e.g. 64KiB): "
       "ceil(size / interval) + 1 calls",
       "test_interval_bytes"},
      {"--peer-iterations", "10",
       "Iterations of OSU's and IMB's own protocols per point (their columns); 0 skips them",
       "peer_iterations"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

long whole_bytes(const std::string& text, const std::string& option) {
  const double b = parse_bytes(text, option);
  if (b != std::floor(b) || b > 1e15) {
    throw UsageError(option + ": '" + text + "' is not allowed; expected a whole number of bytes");
  }
  return static_cast<long>(b);
}

NbcConfig parse_nbc(const OptionValues& v) {
  NbcConfig c;
  c.impls = parse_impls(v.text("--impl"), "--impl");
  c.progress = kProgressPolicyNames.parse_option(v.text("--progress"), "--progress");
  c.ops = parse_collectives(v.text("--op"), "--op", kNonblockingNames);
  c.comm_times_s = parse_duration_list(v.text("--comm-times"), "--comm-times");
  c.comp_times_s = parse_duration_list(v.text("--comp-times"), "--comp-times");
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  c.calibration_runs = parse_count(v.text("--calibration-runs"), "--calibration-runs", 1000);
  c.tolerance = parse_fraction(v.text("--tolerance"), "--tolerance");
  c.max_bytes = parse_bytes(v.text("--max-buffer"), "--max-buffer");
  if (const auto t = v.typed("--test-interval"))
    c.test_interval_bytes = whole_bytes(*t, "--test-interval");
  c.peer_iterations =
      parse_count_or_zero(v.text("--peer-iterations"), "--peer-iterations", 1'000'000);
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  return c;
}

// The sweep with its clock and its computation.
class NbcRun : public Sweep<NbcPoint> {
 public:
  NbcRun(const RunResources& r, const NbcConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s),
        gemm_(r.plan->thread_pus),
        sweep_(clock_, c, collective_calls(r.comm), gemm_, peer_kernel_),
        config_(c) {}

  std::vector<NbcPoint> keys() const override { return sweep_.points(); }
  std::vector<NbcPoint> measure(const NbcPoint& key) override { return {sweep_.measure(key)}; }
  // Three phases per iteration plus calibration, and the peers' three loops (each at most
  // two collectives long).
  double weight(const NbcPoint& k) const override {
    const double iteration = 2 * (k.target_comm_s + k.target_comp_s);
    const double peers = config_.peer_iterations > 0
                             ? (config_.peer_iterations + config_.warmup) * 5.0 * k.target_comm_s
                             : 0.0;
    return (config_.iterations + config_.warmup + 2.0 * config_.calibration_runs) * iteration +
           peers;
  }
  std::optional<double> calibration_s() const override { return sweep_.calibration_s(); }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  GlobalClock clock_;
  compute::GemmWorkload gemm_;
  compute::TinyKernel peer_kernel_;
  NbcSweep sweep_;
  NbcConfig config_;
};

std::unique_ptr<Sweep<NbcPoint>> start_nbc(const RunResources& r, const NbcConfig& c) {
  return std::make_unique<NbcRun>(r, c);
}

}  // namespace

const Benchmark<NbcConfig, NbcPoint>& nbc_benchmark() {
  static const Benchmark<NbcConfig, NbcPoint> b{
      &kNbcResult,
      "Overlap of nonblocking collectives with computation over a grid of times",
      {.computes = true, .resumable = true, .global_clock = true},
      nbc_options,
      parse_nbc,
      liboverlap_when_listed<Implementation::overlap, NbcConfig>,
      nullptr,
      start_nbc};
  return b;
}

}  // namespace overlap::bench
