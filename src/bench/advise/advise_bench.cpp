#include "bench/advise/advise_bench.hpp"

#include <sched.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/advise/advice_rule.hpp"
#include "bench/advise/program_loop.hpp"
#include "bench/common/common_options.hpp"
#include "bench/common/overlap_run_probe.hpp"
#include "bench/nbc/nbc_bench.hpp"
#include "compute/gemm_workload.hpp"
#include "compute/peer_kernel.hpp"
#include "mpi/agree_on_failure.hpp"
#include "overlap/overlap.h"

namespace overlap::bench {
namespace {

#if defined(OPEN_MPI)
constexpr bool kMpich = false;
#else
constexpr bool kMpich = true;
#endif

bool env_on(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' && std::string(v) != "0";
}

// Whether MPI's own asynchronous progress is on in this process, and how it was asked.
std::string mpi_async_variable() {
  for (const char* v :
       kMpich ? std::vector<const char*>{"MPICH_ASYNC_PROGRESS", "MPIR_CVAR_ASYNC_PROGRESS"}
              : std::vector<const char*>{"OMPI_MCA_btl_tcp_progress_thread"}) {
    if (env_on(v)) return v;
  }
  return "";
}

std::string mpi_async_how_to_measure() {
  return kMpich ? "MPICH starts its progress thread in MPI_Init: run advise again with "
                  "MPICH_ASYNC_PROGRESS=1 to measure it"
                : "Open MPI starts its TCP progress thread in MPI_Init: run advise again with "
                  "OMPI_MCA_btl_tcp_progress_thread=1 to measure it (it moves only what the "
                  "TCP transport carries)";
}

bool uses_liboverlap(AdviseSetup s) { return s != AdviseSetup::mpi && s != AdviseSetup::mpi_async; }
bool leaves_core(AdviseSetup s) {
  return s == AdviseSetup::shared_core || s == AdviseSetup::dedicated_core;
}

OVX_Progress policy_of(AdviseSetup s) {
  switch (s) {
    case AdviseSetup::shared:
    case AdviseSetup::shared_core:
      return OVX_PROGRESS_SHARED;
    case AdviseSetup::dedicated:
    case AdviseSetup::dedicated_core:
      return OVX_PROGRESS_DEDICATED;
    default:
      return OVX_PROGRESS_CALLER;
  }
}

std::vector<OptionSpec> advise_options() {
  std::vector<OptionSpec> o = {
      {"--op", "iallreduce", "The program's collective: " + kNonblockingNames.list(), "op"},
      {"--size", "",
       "The program's message size per rank (e.g. 1MiB); none: the size at which MPI's own "
       "collective takes --comm-time",
       "msg_bytes"},
      {"--comm-time", "4ms", "MPI's own collective's time, when --size is not given",
       "target_comm_s"},
      {"--comp-time", "4ms",
       "The program's computation between starting the collective and waiting for it, on "
       "every core",
       "target_comp_s"},
      {"--setups", "all",
       "Set-ups to measure, comma-separated: " + kAdviseSetupNames.list() + " (not advice), or all",
       "setups"},
      {"--margin", "3%", "Advise a simpler set-up whose time is within this of the fastest's",
       "margin"},
      {"--iterations", "15", "Measured iterations per set-up", "iterations"},
      {"--warmup", "2", "Unrecorded iterations per set-up", "warmup"},
      {"--calibration-runs", "5", "Runs per calibration step, their median is used",
       "calibration_runs"},
      {"--tolerance", "10%", "Calibration tolerance, 0.1 or 10%", "tolerance"},
      {"--max-buffer", "1GiB", "Largest send + receive buffers per rank, e.g. 512MiB", "max_bytes"},
      {"--from", "",
       "The program's own overlap-run report (overlap-run --report FILE): --op, --size and "
       "--comp-time from its busiest nonblocking collective; options given beside it win",
       "from_report"},
  };
  for (OptionSpec& c : clock_options()) o.push_back(c);
  return o;
}

std::vector<AdviseSetup> parse_setups(const std::string& text) {
  std::vector<AdviseSetup> out;
  if (text == "all") {
    for (AdviseSetup s : kAdviseSetupNames.values()) {
      if (s != AdviseSetup::advice) out.push_back(s);
    }
    return out;
  }
  for (const std::string& n : parse_name_list(text, "--setups")) {
    const AdviseSetup s = kAdviseSetupNames.parse_option(n, "--setups");
    if (s == AdviseSetup::advice) {
      throw UsageError("--setups: 'advice' is not allowed; it is the verdict, always last");
    }
    out.push_back(s);
  }
  return out;
}

// --from: what the options beside it leave open comes from the program's report.
void apply_program_loop(const std::string& path, const OptionValues& v, AdviseConfig& c) {
  if (path.empty()) throw UsageError("--from: '' is not allowed; expected a report file");
  const ProgramLoop loop =
      read_program_loop(path, v.given("--op") ? std::optional<Collective>(c.op) : std::nullopt);
  c.op = loop.op;
  if (!v.given("--size") && !v.given("--comm-time")) c.msg_bytes = loop.msg_bytes;
  if (!v.given("--comp-time")) c.target_comp_s = loop.comp_s;
  c.from_report = path;
  c.from_loop = loop.summary;
}

AdviseConfig parse_advise(const OptionValues& v) {
  AdviseConfig c;
  c.op = kNonblockingNames.parse_option(v.text("--op"), "--op");
  if (const auto t = v.typed("--size")) {
    const double b = parse_bytes(*t, "--size");
    if (b != std::floor(b) || b > kMaxListBytes) {
      throw UsageError("--size: '" + *t + "' is not allowed; expected a whole number of bytes");
    }
    c.msg_bytes = static_cast<long>(b);
  }
  c.target_comm_s = parse_duration(v.text("--comm-time"), "--comm-time");
  c.target_comp_s = parse_duration(v.text("--comp-time"), "--comp-time");
  if (const auto from = v.typed("--from")) apply_program_loop(*from, v, c);
  if (c.msg_bytes && c.op == Collective::barrier) {
    throw UsageError("--size: ibarrier has no message; leave --size out");
  }
  if (c.msg_bytes) check_sizes_hold_an_element({c.op}, {*c.msg_bytes}, kNonblockingNames);
  for (const auto& [t, option] :
       {std::pair{c.target_comm_s, "--comm-time"}, std::pair{c.target_comp_s, "--comp-time"}}) {
    if (!(t > 0)) {
      throw UsageError(std::string(option) + ": '" + v.text(option) +
                       "' is not allowed; expected a time above 0, e.g. 4ms");
    }
  }
  c.setups = parse_setups(v.text("--setups"));
  c.margin = parse_fraction(v.text("--margin"), "--margin");
  c.iterations = parse_count(v.text("--iterations"), "--iterations", 1'000'000);
  c.warmup = parse_count_or_zero(v.text("--warmup"), "--warmup", 1'000'000);
  c.calibration_runs = parse_count(v.text("--calibration-runs"), "--calibration-runs", 1000);
  c.tolerance = parse_fraction(v.text("--tolerance"), "--tolerance");
  c.max_bytes = parse_bytes(v.text("--max-buffer"), "--max-buffer");
  c.patience = parse_count(v.text("--patience"), "--patience");
  c.sync_span_s = parse_duration(v.text("--sync-span"), "--sync-span");
  if (overlap_run_preloaded()) {
    throw UsageError(
        "advise starts each progress policy itself and cannot run under overlap-run (its "
        "engine keeps overlap-run's policy): run overlap-bench advise without overlap-run");
  }
  return c;
}

NbcConfig nbc_config_for(const AdviseConfig& c) {
  NbcConfig n;
  n.ops = {c.op};
  n.iterations = c.iterations;
  n.warmup = c.warmup;
  n.calibration_runs = c.calibration_runs;
  n.tolerance = c.tolerance;
  n.max_bytes = c.max_bytes;
  n.patience = c.patience;
  n.sync_span_s = c.sync_span_s;
  n.peer_iterations = 0;
  return n;
}

// The steady loop: this many blocks of --iterations each.
constexpr int kLoopBlocks = 5;

std::vector<std::vector<int>> all_but_last(std::vector<std::vector<int>> pus) {
  if (!pus.empty()) pus.pop_back();
  return pus;
}

// The program's loop as it runs, back to back: `blocks` blocks of `per_block` iterations of
// start, compute, wait, each block from the sync barrier; per block the slowest rank's
// time over its iterations. A block some rank entered late (its ranks did not start
// together: the others' times include waiting for it) is run again, up to `blocks` extra
// times. The kept blocks' median and quartiles (all ranks know them), or nothing when
// every block was late.
std::optional<measure::Spread> steady_loop(GlobalClock& clock, Operation& op,
                                           compute::Workload& work, int blocks, int per_block) {
  std::vector<double> per_iteration;
  for (int tries = 0; tries < 2 * blocks && static_cast<int>(per_iteration.size()) < blocks;
       ++tries) {
    const bool late = clock.barrier();
    const double t0 = clock.now();
    for (int i = 0; i < per_block; ++i) {
      op.start();
      work.run();
      op.wait();
    }
    double mine[2] = {(clock.now() - t0) / per_block, late ? 1.0 : 0.0}, all[2] = {0, 0};
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, clock.comm());
    if (all[1] == 0) per_iteration.push_back(all[0]);
  }
  if (per_iteration.empty()) return std::nullopt;
  return measure::spread(per_iteration);
}

// The sweep: every set-up asked for, then the advice.
class AdviseRun : public Sweep<AdvisePoint> {
 public:
  AdviseRun(const RunResources& r, const AdviseConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s),
        config_(c),
        threads_(static_cast<int>(r.plan->thread_pus.size())),
        all_(r.plan->thread_pus),
        sweep_all_(clock_, nbc_config_for(c), collective_calls(r.comm), all_, peer_kernel_) {
    if (threads_ > 1) {
      // The computation on one thread fewer: the last core of the rank's plan left free.
      fewer_ = std::make_unique<compute::GemmWorkload>(all_but_last(r.plan->thread_pus));
      sweep_fewer_ = std::make_unique<NbcSweep>(clock_, nbc_config_for(c), collective_calls(r.comm),
                                                *fewer_, peer_kernel_);
    }
    sched_getaffinity(0, sizeof(main_mask_), &main_mask_);
    MPI_Allreduce(&threads_, &min_threads_, 1, MPI_INT, MPI_MIN, clock_.comm());
    const std::string async = mpi_async_variable();
    int on = async.empty() ? 0 : 1, all_on = 0;
    MPI_Allreduce(&on, &all_on, 1, MPI_INT, MPI_MIN, clock_.comm());
    if (all_on != 0) async_variable_ = async;
    int rank = 0;
    MPI_Comm_rank(clock_.comm(), &rank);
    if (rank == 0 && !c.from_loop.empty()) std::printf("advise: %s\n", c.from_loop.c_str());
  }

  std::vector<AdvisePoint> keys() const override {
    std::vector<AdvisePoint> k;
    for (AdviseSetup s : config_.setups) k.push_back(key(s));
    k.push_back(key(AdviseSetup::advice));
    return k;
  }

  // Every rank reads the same file: the set-ups still to measure take the message and the
  // work of those measured (an all-core one's), as one run would.
  void resumed(const std::vector<AdvisePoint>& points) override {
    points_ = points;
    for (const AdvisePoint& p : points) {
      if (p.status != AdviseStatus::measured || p.free_cores != 0 || !p.msg_bytes || !p.comp_size)
        continue;
      const auto op = collective_calls(clock_.comm())(Implementation::mpi, config_.op);
      elements_ = *p.msg_bytes / std::max(1, op->element_bytes());
      comp_size_ = *p.comp_size;
      sized_ = true;
      break;
    }
  }

  std::vector<AdvisePoint> measure(const AdvisePoint& k) override {
    if (k.setup == AdviseSetup::advice) {
      if (clock_.rank() != 0) return {};
      return {advise(points_, config_.margin)};
    }
    AdvisePoint p = measure_setup(k.setup);
    if (clock_.rank() == 0) points_.push_back(p);
    return {p};
  }

  double weight(const AdvisePoint& k) const override {
    if (k.setup == AdviseSetup::advice) return 0.01;
    const double iteration = 2 * (config_.target_comm_s + 2 * config_.target_comp_s);
    const double loop = (kLoopBlocks + 0.5) * config_.iterations * iteration / 2;
    return (config_.iterations + config_.warmup + 4.0 * config_.calibration_runs) * iteration +
           loop;
  }
  std::optional<double> calibration_s() const override { return calibration_s_; }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  static AdvisePoint key(AdviseSetup s) {
    AdvisePoint p;
    p.setup = s;
    return p;
  }

  std::string unavailable(AdviseSetup s) const {
    if (s == AdviseSetup::mpi && !async_variable_.empty()) {
      return "MPI's asynchronous progress is on in this run (" + async_variable_ +
             "): measured as mpi-async; run without it to measure MPI's own alone";
    }
    if (s == AdviseSetup::mpi_async && async_variable_.empty()) return mpi_async_how_to_measure();
    if (leaves_core(s) && min_threads_ < 2) {
      return "a rank computes on " + std::to_string(min_threads_) +
             " core: none to leave free (give each rank 2 cores or more)";
    }
    return "";
  }

  // The message (elements) and the work (GEMM order on every core), once per run.
  bool sizes(std::string& why) {
    if (sized_) {
      why = size_error_;
      return size_error_.empty();
    }
    sized_ = true;
    const auto started = std::chrono::steady_clock::now();
    std::unique_ptr<Operation> op =
        collective_calls(clock_.comm())(Implementation::mpi, config_.op);
    if (!op->has_size()) {
      elements_ = 0;  // ibarrier: no message, its own time
    } else if (config_.msg_bytes) {
      elements_ = std::max(1L, *config_.msg_bytes / std::max(1, op->element_bytes()));
    } else {
      const NbcSweep::Fit f =
          sweep_all_.fit_comm(Implementation::mpi, config_.op, config_.target_comm_s);
      if (!f.ok) size_error_ = f.reason;
      elements_ = f.size;
      if (!f.reason.empty()) size_note_ = f.reason;
    }
    if (size_error_.empty()) {
      const NbcSweep::Fit f = sweep_all_.fit_comp(config_.target_comp_s);
      if (!f.ok) size_error_ = f.reason;
      comp_size_ = f.size;
      if (f.ok && !f.reason.empty()) size_note_ += (size_note_.empty() ? "" : "; ") + f.reason;
    }
    calibration_s_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    why = size_error_;
    return size_error_.empty();
  }

  // liboverlap restarted with the set-up's policy (all ranks agree on failure); the policy
  // in effect, or "" with `why`.
  std::string engine_for(AdviseSetup s, std::string& why) {
    const OVX_Progress want = policy_of(s);
    OVX_Progress now = OVX_PROGRESS_DEFAULT;
    OVX_Get_progress(&now);
    if (now != want) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      std::string local;
      if (OVX_Finalize() != MPI_SUCCESS) local = "OVX_Finalize failed";
      // dedicated took its core away from this thread: give it back before the next start.
      sched_setaffinity(0, sizeof(main_mask_), &main_mask_);
      if (local.empty()) {
        if (const int rc = OVX_Init(want); rc != MPI_SUCCESS) {
          char text[MPI_MAX_ERROR_STRING];
          int len = 0;
          MPI_Error_string(rc, text, &len);
          local = std::string("liboverlap did not start ") + OVX_Progress_name(want) + ": " +
                  std::string(text, static_cast<std::size_t>(len));
        }
      }
      why = mpi::agree_on_failure(clock_.comm(), local);
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
      if (!why.empty()) return "";
    }
    OVX_Get_progress(&now);
    return OVX_Progress_name(now);
  }

  AdvisePoint measure_setup(AdviseSetup s) {
    const auto started = std::chrono::steady_clock::now();
    AdvisePoint p = key(s);
    p.how = how_to_get(s, kMpich, threads_);
    p.reason = unavailable(s);
    std::string why;
    if (p.reason.empty() && !sizes(why)) {
      p.status = AdviseStatus::invalid;
      p.reason = why;
    }
    if (!p.reason.empty()) {
      if (p.status != AdviseStatus::invalid) p.status = AdviseStatus::skipped;
      return p;
    }
    const std::string progress = engine_for(s, why);
    if (!why.empty()) {
      p.status = AdviseStatus::skipped;
      p.reason = why;
      return p;
    }
    if (uses_liboverlap(s)) p.progress = progress;
    const bool fewer = leaves_core(s);
    NbcSweep& sweep = fewer ? *sweep_fewer_ : sweep_all_;
    const int t = fewer ? threads_ - 1 : threads_;
    // The same work on one thread fewer: each thread's GEMM grows by t_all / t (n^3 each).
    const long n = fewer ? std::lround(static_cast<double>(comp_size_) *
                                       std::cbrt(static_cast<double>(threads_) / t))
                         : comp_size_;
    const Implementation impl = uses_liboverlap(s) ? Implementation::overlap : Implementation::mpi;
    NbcPoint k;  // targets 0: the references are not checked against a target
    k.impl = impl;
    k.op = config_.op;
    // What the freed core costs: the same work alone on one thread fewer, side by side
    // with every core.
    if (fewer) p.comp_cost = sweep.comp_alone(n) / sweep_all_.comp_alone(comp_size_);
    NbcPoint rec = sweep.measure_at(k, elements_, n);
    // The loop as the program runs it (nbc's iterations are each between sync barriers,
    // with the bare phases between them: a progress thread sleeps there, a program's
    // loop keeps it busy).
    std::unique_ptr<Operation> call = collective_calls(clock_.comm())(impl, config_.op);
    if (call->has_size()) call->resize(elements_);
    compute::Workload& work = fewer ? *fewer_ : all_;
    work.resize(n);
    steady_loop(clock_, *call, work, 1, 1 + config_.warmup);
    const std::optional<measure::Spread> loop =
        steady_loop(clock_, *call, work, kLoopBlocks, config_.iterations);
    p.threads = t;
    p.free_cores = fewer ? 1 : 0;
    p.msg_bytes = rec.msg_bytes;
    p.comp_size = n;
    p.work_ratio = t * std::pow(static_cast<double>(n), 3) /
                   (threads_ * std::pow(static_cast<double>(comp_size_), 3));
    if (!fewer) p.comp_cost = 1.0;
    if (rec.valid && !loop) {
      p.status = AdviseStatus::invalid;
      p.reason = "every block of the loop had a rank that left the sync barrier late (" +
                 std::to_string(2 * kLoopBlocks) + " tried)";
    } else if (rec.valid) {
      p.status = AdviseStatus::measured;
      p.t_iter = loop;
      if (rec.r_overhead) p.r_overhead = rec.r_overhead->median;
      if (rec.r_comp_slowdown) p.r_comp_slowdown = rec.r_comp_slowdown->median;
      p.reason = size_note_;
    } else {
      p.status = AdviseStatus::invalid;
      p.reason = rec.invalid_reason;
    }
    p.nbc = std::move(rec);
    p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return p;
  }

  GlobalClock clock_;
  AdviseConfig config_;
  int threads_ = 1;
  int min_threads_ = 1;
  std::string async_variable_;
  compute::GemmWorkload all_;
  compute::TinyKernel peer_kernel_;
  NbcSweep sweep_all_;
  std::unique_ptr<compute::GemmWorkload> fewer_;  // with 2 threads or more
  std::unique_ptr<NbcSweep> sweep_fewer_;
  cpu_set_t main_mask_{};
  bool sized_ = false;
  std::string size_error_, size_note_;
  long elements_ = 0, comp_size_ = 0;
  double calibration_s_ = 0;
  std::vector<AdvisePoint> points_;  // complete on rank 0
};

std::unique_ptr<Sweep<AdvisePoint>> start_advise(const RunResources& r, const AdviseConfig& c) {
  return std::make_unique<AdviseRun>(r, c);
}

// liboverlap runs from the start (caller, calibrated); each set-up restarts it with its
// policy.
std::optional<ProgressPolicy> advise_liboverlap(const AdviseConfig&) {
  return ProgressPolicy::caller;
}

std::vector<std::string> advise_epilogue(const std::vector<AdvisePoint>& points) {
  return advice_summary(points);
}

}  // namespace

const Benchmark<AdviseConfig, AdvisePoint>& advise_benchmark() {
  static const Benchmark<AdviseConfig, AdvisePoint> b{
      .kind = &kAdviseResult,
      .help =
          "Which progress set-up to use: each measured at the program's message and "
          "computation, and the advice",
      .traits = {.computes = true, .resumable = true, .global_clock = true},
      .options = advise_options,
      .parse = parse_advise,
      .liboverlap = advise_liboverlap,
      .before_mpi = nullptr,
      .start = start_advise,
      .label_suffix = nullptr,
      .liboverlap_reason =
          "advise: caller between set-ups; each set-up starts its own policy "
          "(its point's progress field)",
      .epilogue = advise_epilogue,
  };
  return b;
}

}  // namespace overlap::bench
