// Every benchmark subcommand, driven the same way from its bench::Benchmark: options
// registered from the benchmark's specs plus the shared run options; validation before
// MPI_Init (configuration, threads and cores, --resume, output paths); liboverlap's start;
// the run context; the sweep point by point, each unit printed as a console row and the
// JSON and CSV files rewritten after it, so an interrupted run keeps every finished unit.
#pragma once

#include <fmt/format.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/command.hpp"
#include "apps/output_path.hpp"
#include "apps/overlap_session.hpp"
#include "apps/resume_rule.hpp"
#include "apps/run_options.hpp"
#include "apps/thread_plan.hpp"
#include "base/duration.hpp"
#include "bench/common/benchmark.hpp"
#include "output/console_table.hpp"
#include "output/progress_bar.hpp"
#include "output/result_file.hpp"

namespace overlap::apps {

inline constexpr int kUsageExit = 2;

template <class C, class P>
class BenchmarkCommand : public Command {
 public:
  BenchmarkCommand(CLI::App& sub, const bench::Benchmark<C, P>& benchmark)
      : b_(benchmark), specs_(benchmark.options()), sub_(sub) {
    texts_.resize(specs_.size());
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      texts_[i] = specs_[i].default_text;
      sub.add_option(specs_[i].name, texts_[i],
                     help_with_default(specs_[i].help, specs_[i].default_text));
    }
    add_run_options(sub, run_, b_.traits);
  }

  void validate() override {
    std::map<std::string, std::string> given;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      if (sub_.count(specs_[i].name) > 0) given[specs_[i].name] = texts_[i];
    }
    const OptionValues values(specs_, given);
    config_ = b_.parse(values);
    if (!run_.resume.empty()) load_resume(values);
    policy_ = b_.liboverlap(config_);
    if (policy_) policy_reason_ = "--progress " + std::string(bench::to_string(*policy_));
    if (policy_ && b_.liboverlap_reason != nullptr) policy_reason_ = b_.liboverlap_reason;
    if (policy_ == bench::ProgressPolicy::automatic) {
      // auto: dedicated where the computation's threads leave a core free (or
      // --dedicate-cores leaves one), decided on this rank's CPU set before MPI_Init.
      int threads = 1;
      bool leave = false;
      if (b_.traits.computes) {
        const bench::RunPlan all = plan_threads(run_.threads, run_.dedicate_cores, 0);
        threads = static_cast<int>(all.thread_pus.size());
        leave = all.dedicated_cores > 0;
      }
      const ResolvedProgress r = resolve_auto_progress(threads, leave);
      policy_ = r.policy;
      policy_reason_ = r.reason;
    }
    if (b_.traits.computes) {
      // A dedicated progress thread needs a core the computation leaves free.
      const int needed = policy_ == bench::ProgressPolicy::dedicated ? 1 : 0;
      plan_ = plan_threads(run_.threads, run_.dedicate_cores, needed);
    }
    clock_ = clock::make_clock_source(run_.clock);
    output_ = run_.output.empty() ? run_.resume : run_.output;
    check_output_path(output_, "--output");
    check_output_path(run_.csv, "--csv");
    bar_ = b_.traits.resumable && parse_bar(run_.bar);
  }

  void before_mpi() override {
    if (b_.before_mpi != nullptr) early_ = b_.before_mpi(config_, plan_);
  }

  int thread_level() const override { return b_.traits.thread_level; }

  int run(const std::string& command_line, int provided) override {
    started_ = std::chrono::steady_clock::now();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    // Before liboverlap: a dedicated thread takes its core out of this thread's mask, and
    // metadata.placement records the rank's CPUs as the launcher gave them.
    context(command_line, provided);
    if (policy_) {
      if (int rc = start_liboverlap(*policy_, policy_reason_); rc != 0) return rc;
    }
    liboverlap_context();
    if (resumed_) {
      // Every rank read the same file and knows the same context: they agree without talking.
      const std::string why = resume_mismatch(resumed_->metadata, ctx_);
      if (!why.empty()) return refuse("--resume: cannot continue '" + run_.resume + "': " + why);
    }
    const bench::RunResources resources{MPI_COMM_WORLD, clock_.get(), &ctx_, &plan_, early_};
    sweep_ = b_.start(resources, config_);
    measure_all();
    return 0;
  }

 private:
  void load_resume(const OptionValues& values) {
    const auto file = output::read_result(*b_.kind, run_.resume);
    check_repeated_options(values, b_.kind->config().docs(), b_.kind->config().to_json(config_),
                           b_.kind->config().to_json(file.config), run_.resume);
    config_ = file.config;
    resumed_ = file;
  }

  void context(const std::string& command_line, int provided) {
    ctx_ = bench::collect_run_context(MPI_COMM_WORLD, std::string(clock_->name()), command_line);
    if (!run_.label.empty()) {
      ctx_.label = run_.label;
    } else if (b_.label_suffix != nullptr) {
      ctx_.label += b_.label_suffix(config_);
    }
    ctx_.thread_level = bench::thread_level_name(provided);
    ctx_.threads = static_cast<int>(plan_.thread_pus.size());
    ctx_.dedicated_cores = plan_.dedicated_cores;
    ctx_.thread_pus = describe_pus(plan_);
  }

  // After liboverlap started (collective): its settings, and where the threads really run,
  // read back before the sweep creates its own.
  void liboverlap_context() {
    if (policy_) {
      ctx_.cost_model = liboverlap_cost_model();
      ctx_.progress_choice = liboverlap_progress(policy_reason_);
    }
    if (b_.traits.computes || policy_)
      ctx_.placement->threads = bench::collect_threads_read_back(MPI_COMM_WORLD, plan_.thread_pus);
  }

  int refuse(const std::string& message) const {
    if (rank_ == 0) {
      const std::string line = "overlap-bench: " + message + "\n";
      std::fwrite(line.data(), 1, line.size(), stderr);
    }
    return kUsageExit;
  }

  bool is_done(const P& key) const {
    for (const P& p : points_) {
      if (p.same_key(key)) return true;
    }
    return false;
  }

  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }

  void save(bool complete) {
    if (rank_ != 0) return;
    ctx_.clock_sync = sweep_->clock_quality();
    output::RunTiming timing{seconds(), sweep_->calibration_s()};
    if (resumed_) {
      timing.wall_s += resumed_->timing.wall_s;
      if (timing.calibration_s && resumed_->timing.calibration_s) {
        *timing.calibration_s += *resumed_->timing.calibration_s;
      }
    }
    if (!output_.empty()) {
      output::write_json_file(
          output_, output::result_document(*b_.kind, ctx_, config_, points_, complete, timing));
    }
    if (!run_.csv.empty()) output::write_text_file(run_.csv, output::points_csv(*b_.kind, points_));
  }

  void print_start(const output::ConsoleTable& table, std::size_t done, std::size_t total) {
    std::cout << fmt::format("# overlap-bench {}: {} ({}), P = {}", b_.kind->benchmark, ctx_.label,
                             ctx_.mpi_library, ctx_.size);
    if (b_.traits.computes) std::cout << ", " << ctx_.threads << " computation thread(s) per rank";
    std::cout << '\n';
    if (done > 0) std::cout << "# resuming: " << done << " of " << total << " already measured\n";
    output::print_header(std::cout, table);
    std::cout.flush();
  }

  void measure_all() {
    if (resumed_) points_ = resumed_->points;
    if (resumed_) sweep_->resumed(points_);
    const std::vector<P> keys = sweep_->keys();
    double total = 0, done_weight = 0;
    std::size_t done = 0;
    for (const P& k : keys) {
      total += sweep_->weight(k);
      if (is_done(k)) {
        done_weight += sweep_->weight(k);
        ++done;
      }
    }
    const std::size_t resumed = done;
    const output::ConsoleTable table = output::console_table(*b_.kind);
    if (rank_ == 0) print_start(table, done, keys.size());
    output::ProgressBar bar(std::cerr, rank_ == 0 && bar_, total, static_cast<int>(keys.size()));
    for (const P& key : keys) {
      if (is_done(key)) continue;
      bar.update(done_weight, static_cast<int>(done), describe(key));
      std::vector<P> measured = sweep_->measure(key);
      done_weight += sweep_->weight(key);
      ++done;
      if (rank_ != 0) continue;
      bar.finish();
      for (P& p : measured) {
        output::print_row(std::cout, table, b_.kind->point().to_json(p));
        points_.push_back(std::move(p));
      }
      std::cout.flush();
      save(false);
    }
    bar.finish();
    save(true);
    if (rank_ != 0) return;
    std::cout << fmt::format("# {} of {} measured in {}", keys.size() - resumed, keys.size(),
                             format_duration(seconds()));
    if (const auto cal = sweep_->calibration_s()) {
      std::cout << ", " << format_duration(*cal) << " of it calibrating";
    }
    std::cout << '\n';
    if (!output_.empty()) std::cout << "results written to " << output_ << '\n';
    if (b_.epilogue != nullptr) {
      for (const std::string& line : b_.epilogue(config_, points_)) std::cout << line << '\n';
    }
  }

  // The key columns of a unit, for the progress bar.
  std::string describe(const P& key) const {
    const nlohmann::json j = b_.kind->point().to_json(key);
    std::string s;
    for (int i = 0; i < b_.kind->console_keys && i < static_cast<int>(b_.kind->console.size());
         ++i) {
      const auto& c = b_.kind->console[static_cast<std::size_t>(i)];
      const std::string field(c.field);
      if (!j.contains(field)) continue;
      Unit unit = Unit::none;
      for (const FieldDoc& f : b_.kind->point().docs()) {
        if (f.name == field) unit = f.unit;
      }
      s += (s.empty() ? "" : " ") + output::format_value(j.at(field), unit);
    }
    return s;
  }

  const bench::Benchmark<C, P>& b_;
  std::vector<OptionSpec> specs_;
  CLI::App& sub_;
  std::vector<std::string> texts_;
  RunOptionTexts run_;
  C config_{};
  bench::RunPlan plan_;
  std::optional<bench::ProgressPolicy> policy_;  // liboverlap's, auto resolved
  std::string policy_reason_;
  std::unique_ptr<clock::ClockSource> clock_;
  std::string output_;
  bool bar_ = false;
  std::optional<output::ResultFile<C, P>> resumed_;
  std::shared_ptr<void> early_;
  int rank_ = 0;
  bench::RunContext ctx_;
  std::unique_ptr<bench::Sweep<P>> sweep_;
  std::vector<P> points_;
  std::chrono::steady_clock::time_point started_;
};

// A table entry for a benchmark.
template <class C, class P>
CommandEntry benchmark_entry(const bench::Benchmark<C, P>& benchmark) {
  return {std::string(benchmark.kind->benchmark), benchmark.help,
          [&benchmark](CLI::App& sub) -> std::unique_ptr<Command> {
            return std::make_unique<BenchmarkCommand<C, P>>(sub, benchmark);
          },
          [&benchmark] {
            const auto& kind = *benchmark.kind;
            return ResultDocs{kind.schema_version, output::result_schema(kind),
                              kind.config().docs(), kind.point().docs()};
          }};
}

}  // namespace overlap::apps
