#include "bench/advise/advise_bench.hpp"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>

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
      {"--op", "iallreduce",
       "The program's nonblocking communication: " + kNonblockingNames.list() +
           " (ihalo: its own MPI_Isend/MPI_Irecv with two neighbours, then MPI_Waitall)",
       "op"},
      {"--size", "",
       "The program's message size per rank (e.g. 1MiB; a list or range, e.g. 64KiB:4MiB, "
       "measures each); none: the size at which MPI's own collective takes --comm-time",
       "sizes_bytes"},
      {"--comm-time", "4ms", "MPI's own collective's time, when --size is not given (a list: each)",
       "target_comms_s"},
      {"--comp-time", "4ms",
       "The program's computation between starting the collective and waiting for it, on "
       "every core (a list: each, with every message)",
       "target_comps_s"},
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
      if (s < AdviseSetup::advice) out.push_back(s);
    }
    return out;
  }
  for (const std::string& n : parse_name_list(text, "--setups")) {
    const AdviseSetup s = kAdviseSetupNames.parse_option(n, "--setups");
    if (s >= AdviseSetup::advice) {
      throw UsageError("--setups: '" + n +
                       "' is not allowed; it is a verdict (advice per cell, overall for a grid)");
    }
    out.push_back(s);
  }
  return out;
}

// --from: what the options beside it leave open comes from the program's report.
void apply_program_loop(const std::string& path, const OptionValues& v, AdviseConfig& c) {
  if (path.empty()) throw UsageError("--from: '' is not allowed; expected a report file");
  if (v.given("--op") && c.op == Collective::halo) {
    throw UsageError(
        "--from: reads the program's busiest nonblocking collective from its report; --op "
        "ihalo is point-to-point: give --size and --comp-time instead of --from");
  }
  const ProgramLoop loop =
      read_program_loop(path, v.given("--op") ? std::optional<Collective>(c.op) : std::nullopt);
  c.op = loop.op;
  if (!v.given("--size") && !v.given("--comm-time")) {
    c.sizes_bytes.clear();
    if (loop.msg_bytes) c.sizes_bytes = {*loop.msg_bytes};
  }
  if (!v.given("--comp-time")) c.target_comps_s = {loop.comp_s};
  c.from_report = path;
  c.from_loop = loop.summary;
}

// The grid's messages: the sizes, else the times of MPI's own; ibarrier: one, its own time.
std::size_t messages_of(const AdviseConfig& c) {
  if (c.op == Collective::barrier) return 1;
  return c.sizes_bytes.empty() ? c.target_comms_s.size() : c.sizes_bytes.size();
}

// The grid's cells: messages times computations, at most kMaxAdviseCells.
void check_cells(const AdviseConfig& c) {
  if (c.op == Collective::barrier) {
    if (!c.sizes_bytes.empty())
      throw UsageError("--size: ibarrier has no message; leave --size out");
    if (c.target_comms_s.size() > 1)
      throw UsageError("--comm-time: ibarrier has no message to size; give one time or none");
  }
  if (!c.sizes_bytes.empty()) check_sizes_hold_an_element({c.op}, c.sizes_bytes, kNonblockingNames);
  const std::size_t messages = messages_of(c);
  const std::size_t cells = messages * c.target_comps_s.size();
  if (cells > static_cast<std::size_t>(kMaxAdviseCells)) {
    throw UsageError(fmt::format(
        "--size/--comm-time x --comp-time: {} messages x {} computations is {} cells; at most "
        "{} are allowed (each measures every set-up)",
        messages, c.target_comps_s.size(), cells, kMaxAdviseCells));
  }
}

AdviseConfig parse_advise(const OptionValues& v) {
  AdviseConfig c;
  c.op = kNonblockingNames.parse_option(v.text("--op"), "--op");
  if (const auto t = v.typed("--size")) c.sizes_bytes = parse_byte_list(*t, "--size");
  c.target_comms_s = parse_duration_list(v.text("--comm-time"), "--comm-time");
  c.target_comps_s = parse_duration_list(v.text("--comp-time"), "--comp-time");
  if (const auto from = v.typed("--from")) apply_program_loop(*from, v, c);
  check_cells(c);
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

// One block of the program's loop as it runs, back to back: `per_block` iterations of
// start, compute, wait from the sync barrier. Its start (this rank's clock), and the
// slowest rank's time per iteration (all ranks know it), or none when some rank entered
// the block late (its ranks did not start together: the others' times include waiting for
// it).
struct LoopBlock {
  double start = 0;
  std::optional<double> per_iteration;
};
LoopBlock loop_block(GlobalClock& clock, Operation& op, compute::Workload& work, int per_block) {
  const bool late = clock.barrier();
  LoopBlock b;
  b.start = clock.now();
  for (int i = 0; i < per_block; ++i) {
    op.start();
    work.run();
    op.wait();
  }
  double mine[2] = {(clock.now() - b.start) / per_block, late ? 1.0 : 0.0}, all[2] = {0, 0};
  MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, clock.comm());
  if (all[1] == 0) b.per_iteration = all[0];
  return b;
}

// One set-up of a cell while the cell is measured: its point so far (its loop's kept blocks go
// straight into loop_blocks_s, loop_starts_s) and how to run its loop.
struct SetupRun {
  AdvisePoint p;
  bool loops = false;  // its nbc point was measured (all ranks agree): its loop is run
  Implementation impl = Implementation::mpi;
  bool fewer = false;  // one core left free
  long n = 0;          // its GEMM order
  int tries = 0;       // blocks run, late ones included
  double seconds = 0;  // wall time spent on it
};

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The sweep: every set-up asked for, then the advice.
class AdviseRun : public Sweep<AdvisePoint> {
 public:
  AdviseRun(const RunResources& r, const AdviseConfig& c)
      : clock_(r.comm, *r.clock, clock::EstimatorConfig{c.patience}, c.sync_span_s),
        config_(c),
        cells_(cells_of(c)),
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
    for (const AdvisePoint& cell : cells_) {
      for (AdviseSetup s : config_.setups) k.push_back(key(s, cell));
      k.push_back(key(AdviseSetup::advice, cell));
    }
    if (cells_.size() > 1) {
      AdvisePoint o;
      o.setup = AdviseSetup::overall;  // no cell: every one
      k.push_back(o);
    }
    return k;
  }

  // Every rank reads the same file: the set-ups still to measure in a cell take the
  // message and the work of those measured there (an all-core one's), as one run would.
  void resumed(const std::vector<AdvisePoint>& points) override {
    points_ = points;
    resumed_ = points;
    const auto op = collective_calls(clock_.comm())(Implementation::mpi, config_.op);
    for (const AdvisePoint& p : points) {
      if (p.status != AdviseStatus::measured || p.free_cores != 0 || !p.msg_bytes || !p.comp_size)
        continue;
      const int c = cell_of(p);
      if (c < 0 || sized_[c].done) continue;
      Sized& z = sized_[c];
      z.done = true;
      z.elements = *p.msg_bytes / std::max(1, op->element_bytes());
      z.comp_size = *p.comp_size;
    }
  }

  std::vector<AdvisePoint> measure(const AdvisePoint& k) override {
    if (k.setup == AdviseSetup::overall) {
      if (clock_.rank() != 0) return {};
      return {overall_point(points_, config_.margin)};
    }
    if (k.setup == AdviseSetup::advice) {
      if (clock_.rank() != 0) return {};
      std::vector<AdvisePoint> here;
      int resumed = 0;
      for (const AdvisePoint& p : points_) {
        if (!p.same_cell(k)) continue;
        here.push_back(p);
        if (p.setup < AdviseSetup::advice && was_resumed(p)) ++resumed;
      }
      // A cell cut by an interruption: the set-ups measured on resuming ran their loops
      // apart from the file's.
      const bool apart = resumed > 0 && resumed < static_cast<int>(config_.setups.size());
      AdvisePoint a = advise(here, config_.margin, !apart);
      copy_cell(k, a);
      return {a};
    }
    // The first set-up asked for in a cell measures all of them.
    const int c = cell_of(k);
    if (cell_points_.count(c) == 0) measure_cell(c);
    std::vector<AdvisePoint>& ready = cell_points_[c];
    const auto it = std::find_if(ready.begin(), ready.end(),
                                 [&](const AdvisePoint& p) { return p.same_key(k); });
    if (it == ready.end()) throw std::logic_error("advise: a set-up was asked for twice");
    AdvisePoint p = std::move(*it);
    ready.erase(it);
    if (clock_.rank() == 0) points_.push_back(p);
    return {p};
  }

  // A cell is measured by its first set-up still to measure (the others' loops are
  // interleaved with its): it carries the cell's weight.
  double weight(const AdvisePoint& k) const override {
    if (k.setup >= AdviseSetup::advice) return 0.01;
    std::size_t missing = 0;
    bool first = false;
    for (AdviseSetup s : config_.setups) {
      if (was_resumed(key(s, k))) continue;
      if (missing++ == 0) first = s == k.setup;
    }
    if (!first) return 0.01;
    const double comm = k.cell_comm_s.value_or(config_.target_comms_s.front());
    const double iteration = 2 * (comm + 2 * k.cell_comp_s.value_or(0));
    const double loop = (kLoopBlocks * (config_.iterations + 1.5) + config_.warmup) * iteration / 2;
    const double setup =
        (config_.iterations + config_.warmup + 4.0 * config_.calibration_runs) * iteration + loop;
    return setup * static_cast<double>(missing);
  }
  std::optional<double> calibration_s() const override { return calibration_s_; }
  std::optional<ClockSyncQuality> clock_quality() const override { return clock_.quality(); }

 private:
  // The message and the work of one cell: calibrated once, by the first set-up measured
  // there (or read from a resumed file).
  struct Sized {
    bool done = false;
    std::string error, note;
    long elements = 0, comp_size = 0;
  };

  static void copy_cell(const AdvisePoint& from, AdvisePoint& to) {
    to.cell_bytes = from.cell_bytes;
    to.cell_comm_s = from.cell_comm_s;
    to.cell_comp_s = from.cell_comp_s;
  }
  static AdvisePoint key(AdviseSetup s, const AdvisePoint& cell) {
    AdvisePoint p;
    copy_cell(cell, p);
    p.setup = s;
    return p;
  }
  // Every message with every computation, messages outer (ibarrier: one message).
  static std::vector<AdvisePoint> cells_of(const AdviseConfig& c) {
    std::vector<AdvisePoint> out;
    for (std::size_t m = 0; m < messages_of(c); ++m) {
      for (double comp : c.target_comps_s) {
        AdvisePoint cell;
        if (c.op != Collective::barrier && !c.sizes_bytes.empty()) {
          cell.cell_bytes = c.sizes_bytes[m];
        } else if (c.op != Collective::barrier) {
          cell.cell_comm_s = c.target_comms_s[m];
        }
        cell.cell_comp_s = comp;
        out.push_back(cell);
      }
    }
    return out;
  }
  int cell_of(const AdvisePoint& p) const {
    for (std::size_t i = 0; i < cells_.size(); ++i) {
      if (cells_[i].same_cell(p)) return static_cast<int>(i);
    }
    return -1;
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

  // The message (elements) and the work (GEMM order on every core) of a cell, once.
  const Sized& sizes(const AdvisePoint& cell) {
    Sized& z = sized_[cell_of(cell)];
    if (z.done) return z;
    z.done = true;
    const auto started = std::chrono::steady_clock::now();
    std::unique_ptr<Operation> op =
        collective_calls(clock_.comm())(Implementation::mpi, config_.op);
    if (!op->has_size()) {
      z.elements = 0;  // ibarrier: no message, its own time
    } else if (cell.cell_bytes) {
      z.elements = std::max(1L, *cell.cell_bytes / std::max(1, op->element_bytes()));
    } else {
      const NbcSweep::Fit f =
          sweep_all_.fit_comm(Implementation::mpi, config_.op, cell.cell_comm_s.value_or(0.004));
      if (!f.ok) z.error = f.reason;
      z.elements = f.size;
      if (!f.reason.empty()) z.note = f.reason;
    }
    if (z.error.empty()) {
      const NbcSweep::Fit f = sweep_all_.fit_comp(cell.cell_comp_s.value_or(0.004));
      if (!f.ok) z.error = f.reason;
      z.comp_size = f.size;
      if (f.ok && !f.reason.empty()) z.note += (z.note.empty() ? "" : "; ") + f.reason;
    }
    calibration_s_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return z;
  }

  // liboverlap restarted with the set-up's policy (all ranks agree on failure); the policy
  // in effect, or "" with `why`.
  std::string engine_for(AdviseSetup s, std::string& why) {
    const OVX_Progress want = policy_of(s);
    OVX_Progress now = OVX_PROGRESS_DEFAULT;
    // Not running after a policy failed to start (dedicated on a rank with one core).
    int running = 0;
    OVX_Initialized(&running);
    if (running != 0) OVX_Get_progress(&now);
    // Every rank restarts when one must (a start that failed on some ranks only leaves the
    // others running the policy): the restart's calls are collective.
    int restart = running == 0 || now != want ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &restart, 1, MPI_INT, MPI_MAX, clock_.comm());
    if (restart != 0) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      std::string local;
      if (running != 0 && OVX_Finalize() != MPI_SUCCESS) local = "OVX_Finalize failed";
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

  // A set-up's point up to its loop: why it cannot run, or its nbc point (the evidence)
  // with liboverlap started with its policy.
  SetupRun prepare(const AdvisePoint& k) {
    const auto started = std::chrono::steady_clock::now();
    const AdviseSetup s = k.setup;
    SetupRun r;
    AdvisePoint& p = r.p;
    p = key(s, k);
    p.how = how_to_get(s, kMpich, threads_, config_.op == Collective::halo);
    p.reason = unavailable(s);
    const Sized* z = p.reason.empty() ? &sizes(k) : nullptr;
    if (z != nullptr && !z->error.empty()) {
      p.status = AdviseStatus::invalid;
      p.reason = z->error;
    }
    if (!p.reason.empty()) {
      if (p.status != AdviseStatus::invalid) p.status = AdviseStatus::skipped;
      return r;
    }
    std::string why;
    const std::string progress = engine_for(s, why);
    if (!why.empty()) {
      p.status = AdviseStatus::skipped;
      p.reason = why;
      return r;
    }
    if (uses_liboverlap(s)) p.progress = progress;
    r.fewer = leaves_core(s);
    r.impl = uses_liboverlap(s) ? Implementation::overlap : Implementation::mpi;
    NbcSweep& sweep = r.fewer ? *sweep_fewer_ : sweep_all_;
    const int t = r.fewer ? threads_ - 1 : threads_;
    // The same work on one thread fewer: each thread's GEMM grows by t_all / t (n^3 each).
    r.n = r.fewer ? std::lround(static_cast<double>(z->comp_size) *
                                std::cbrt(static_cast<double>(threads_) / t))
                  : z->comp_size;
    NbcPoint nk;  // targets 0: the references are not checked against a target
    nk.impl = r.impl;
    nk.op = config_.op;
    // What the freed core costs: the same work alone on one thread fewer, side by side
    // with every core.
    p.comp_cost = r.fewer ? sweep.comp_alone(r.n) / sweep_all_.comp_alone(z->comp_size) : 1.0;
    p.nbc = sweep.measure_at(nk, z->elements, r.n);
    p.threads = t;
    p.free_cores = r.fewer ? 1 : 0;
    p.msg_bytes = p.nbc->msg_bytes;
    p.comp_size = r.n;
    p.work_ratio = t * std::pow(static_cast<double>(r.n), 3) /
                   (threads_ * std::pow(static_cast<double>(z->comp_size), 3));
    p.reason = z->note;
    r.loops = true;
    r.seconds = since(started);
    return r;
  }

  // The loops of a cell's set-ups as the program runs its loop (nbc's iterations are each
  // between sync barriers, with the bare phases between them: a progress thread sleeps
  // there, a program's loop keeps it busy), interleaved: kLoopBlocks rounds of one block
  // per set-up, forward then backward, so a change in the machine's speed during the cell
  // falls on every set-up alike. Each block after liboverlap is switched to the set-up's
  // policy and one unrecorded iteration (the first round: --warmup more); a block some
  // rank entered late is run once more in its round (both late: none from that round).
  void loop_interleaved(std::vector<SetupRun>& runs, long elements) {
    // One implementation's buffers at a time (--max-buffer holds): MPI's own and
    // liboverlap's set-ups change over once or twice a round.
    std::unique_ptr<Operation> call;
    Implementation call_impl = Implementation::mpi;
    const double t_base = clock_.now();
    for (int round = 0; round < kLoopBlocks; ++round) {
      for (std::size_t j = 0; j < runs.size(); ++j) {
        SetupRun& r = runs[round % 2 == 0 ? j : runs.size() - 1 - j];
        if (!r.loops) continue;
        const auto started = std::chrono::steady_clock::now();
        std::string why;
        engine_for(r.p.setup, why);
        if (!why.empty()) {
          lost_engine(r, why);
          continue;
        }
        if (!call || call_impl != r.impl) {
          call = collective_calls(clock_.comm())(r.impl, config_.op);
          if (call->has_size()) call->resize(elements);
          call_impl = r.impl;
        }
        compute::Workload& work = r.fewer ? *fewer_ : all_;
        work.resize(r.n);
        loop_block(clock_, *call, work, round == 0 ? 1 + config_.warmup : 1);
        // A block some rank entered late is run once more, in its round.
        for (int attempt = 0; attempt < 2; ++attempt) {
          ++r.tries;
          const LoopBlock b = loop_block(clock_, *call, work, config_.iterations);
          if (b.per_iteration) {
            r.p.loop_blocks_s.push_back(*b.per_iteration);
            r.p.loop_starts_s.push_back(b.start - t_base);
            break;
          }
        }
        r.seconds += since(started);
      }
    }
  }

  // A set-up whose policy did not restart between its loop's blocks: invalid, its numbers
  // dropped (a point that is not measured carries none).
  static void lost_engine(SetupRun& r, const std::string& why) {
    r.loops = false;
    AdvisePoint& p = r.p;
    p.status = AdviseStatus::invalid;
    p.reason = "liboverlap did not restart between the loop's blocks: " + why;
    p.nbc.reset();
    p.r_overhead.reset();
    p.r_comp_slowdown.reset();
    p.loop_blocks_s.clear();
    p.loop_starts_s.clear();
  }

  // The point of a set-up whose loop has run.
  static AdvisePoint finish(SetupRun r) {
    AdvisePoint& p = r.p;
    p.elapsed_s = r.seconds;
    if (!r.loops) return std::move(p);
    const NbcPoint& rec = *p.nbc;
    if (rec.valid && p.loop_blocks_s.empty()) {
      p.status = AdviseStatus::invalid;
      p.reason = "every block of the loop had a rank that left the sync barrier late (" +
                 std::to_string(r.tries) + " tried)";
    } else if (rec.valid) {
      p.status = AdviseStatus::measured;
      p.t_iter = measure::spread(p.loop_blocks_s);
      if (rec.r_overhead) p.r_overhead = rec.r_overhead->median;
      if (rec.r_comp_slowdown) p.r_comp_slowdown = rec.r_comp_slowdown->median;
      for (const std::string& note : {evidence_note(p), loop_note(p)}) {
        if (!note.empty()) p.reason = note + (p.reason.empty() ? "" : "; " + p.reason);
      }
    } else {
      p.status = AdviseStatus::invalid;
      p.reason = rec.invalid_reason;
    }
    return std::move(p);
  }

  bool was_resumed(const AdvisePoint& k) const {
    return std::any_of(resumed_.begin(), resumed_.end(),
                       [&](const AdvisePoint& p) { return p.same_key(k); });
  }

  // Every set-up of cell `c` not read back by --resume: each one's nbc point, then their
  // loops interleaved; the points kept for measure() to hand out one by one.
  void measure_cell(int c) {
    std::vector<SetupRun> runs;
    for (AdviseSetup s : config_.setups) {
      const AdvisePoint k = key(s, cells_[static_cast<std::size_t>(c)]);
      if (!was_resumed(k)) runs.push_back(prepare(k));
    }
    const auto z = sized_.find(c);
    if (z != sized_.end() && z->second.error.empty()) loop_interleaved(runs, z->second.elements);
    std::vector<AdvisePoint>& out = cell_points_[c];
    for (SetupRun& r : runs) out.push_back(finish(std::move(r)));
  }

  GlobalClock clock_;
  AdviseConfig config_;
  std::vector<AdvisePoint> cells_;  // the grid's cells, in the order measured
  int threads_ = 1;
  int min_threads_ = 1;
  std::string async_variable_;
  compute::GemmWorkload all_;
  compute::TinyKernel peer_kernel_;
  NbcSweep sweep_all_;
  std::unique_ptr<compute::GemmWorkload> fewer_;  // with 2 threads or more
  std::unique_ptr<NbcSweep> sweep_fewer_;
  cpu_set_t main_mask_{};
  std::map<int, Sized> sized_;  // by cell
  double calibration_s_ = 0;
  std::vector<AdvisePoint> points_;                      // complete on rank 0
  std::vector<AdvisePoint> resumed_;                     // read back by --resume (every rank)
  std::map<int, std::vector<AdvisePoint>> cell_points_;  // measured, by cell, not yet handed out
};

std::unique_ptr<Sweep<AdvisePoint>> start_advise(const RunResources& r, const AdviseConfig& c) {
  return std::make_unique<AdviseRun>(r, c);
}

// liboverlap runs from the start (caller, calibrated); each set-up restarts it with its
// policy.
std::optional<ProgressPolicy> advise_liboverlap(const AdviseConfig&) {
  return ProgressPolicy::caller;
}

std::vector<std::string> advise_epilogue(const AdviseConfig& c,
                                         const std::vector<AdvisePoint>& points) {
  return advice_summary(points, c.margin);
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
