#include "apps/nbc_command.hpp"

#include <fmt/format.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include "apps/collective_choices.hpp"
#include "apps/output_path.hpp"
#include "apps/overlap_session.hpp"
#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/run_context.hpp"
#include "output/nbc_console.hpp"
#include "output/nbc_csv.hpp"
#include "output/nbc_json.hpp"
#include "output/progress_bar.hpp"
#include "output/result_json.hpp"

namespace overlap::apps {
namespace {

constexpr int kUsageExit = 2;

bool parse_bar(const std::string& text) {
  if (text == "always") return true;
  if (text == "never") return false;
  if (text == "auto") return isatty(STDERR_FILENO) == 1;
  throw UsageError(fmt::format("--bar: '{}' is not allowed; allowed: auto, always, never", text));
}

// The options that define the sweep, with their defaults and the key under which the
// result file's "config" records them (what --resume compares a repeated option with).
struct SweepOption {
  const char* name;
  std::optional<std::string> NbcOptions::*field;
  const char* fallback;
  const char* config_key;
};
constexpr SweepOption kSweepOptions[] = {
    {"--impl", &NbcOptions::impls, "mpi", "impls"},
    {"--progress", &NbcOptions::progress, "shared", "progress"},
    {"--op", &NbcOptions::ops, "ibcast", "ops"},
    {"--comm-times", &NbcOptions::comm_times, "1ms:16ms", "comm_times_s"},
    {"--comp-times", &NbcOptions::comp_times, "1ms:16ms", "comp_times_s"},
    {"--iterations", &NbcOptions::iterations, "15", "iterations"},
    {"--warmup", &NbcOptions::warmup, "2", "warmup"},
    {"--calibration-runs", &NbcOptions::calibration_runs, "5", "calibration_runs"},
    {"--tolerance", &NbcOptions::tolerance, "10%", "tolerance"},
    {"--max-buffer", &NbcOptions::max_buffer, "1GiB", "max_bytes"},
};

std::string value_or_default(const NbcOptions& o, std::optional<std::string> NbcOptions::*field) {
  for (const SweepOption& opt : kSweepOptions) {
    if (opt.field == field) return (o.*field).value_or(opt.fallback);
  }
  return (o.*field).value_or("");
}

bench::NbcConfig to_config(const NbcOptions& o, const ThreadChoice& threads) {
  const auto v = [&](std::optional<std::string> NbcOptions::*field) {
    return value_or_default(o, field);
  };
  bench::NbcConfig c;
  c.impls = parse_impls(v(&NbcOptions::impls));
  c.progress = parse_progress(v(&NbcOptions::progress));
  c.ops = parse_ops(v(&NbcOptions::ops));
  c.comm_times_s = parse_duration_list(v(&NbcOptions::comm_times), "--comm-times");
  c.comp_times_s = parse_duration_list(v(&NbcOptions::comp_times), "--comp-times");
  c.iterations = parse_count(v(&NbcOptions::iterations), "--iterations", 1'000'000);
  const std::string warmup = v(&NbcOptions::warmup);
  c.warmup = warmup == "0" ? 0 : parse_count(warmup, "--warmup", 1'000'000);
  c.calibration_runs = parse_count(v(&NbcOptions::calibration_runs), "--calibration-runs", 1000);
  c.tolerance = parse_fraction(v(&NbcOptions::tolerance), "--tolerance");
  c.max_bytes = parse_bytes(v(&NbcOptions::max_buffer), "--max-buffer");
  c.threads = threads.threads;
  c.dedicated_cores = threads.dedicated_cores;
  c.estimator.patience = parse_count(o.patience, "--patience");
  c.sync_span_s = parse_duration(o.sync_span, "--sync-span");
  return c;
}

// --resume continues the sweep the file describes: its grid and settings, not new ones.
void sweep_from_file(bench::NbcConfig& c, const nlohmann::json& config) {
  c.impls = {bench::NbcImpl::mpi};  // files from before liboverlap
  if (config.contains("impls")) {
    c.impls.clear();
    for (const auto& name : config.at("impls")) {
      const auto impl = bench::parse_nbc_impl(name.get<std::string>());
      if (!impl) throw UsageError("unknown impl " + name.dump());
      c.impls.push_back(*impl);
    }
  }
  c.progress = parse_progress(config.value("progress", "shared"));
  c.ops.clear();
  for (const auto& name : config.at("ops")) {
    const auto op = bench::parse_nbc_op(name.get<std::string>());
    if (!op) throw UsageError("unknown op " + name.dump());
    c.ops.push_back(*op);
  }
  c.comm_times_s = config.at("comm_times_s").get<std::vector<double>>();
  c.comp_times_s = config.at("comp_times_s").get<std::vector<double>>();
  c.iterations = config.at("iterations").get<int>();
  c.warmup = config.at("warmup").get<int>();
  c.calibration_runs = config.at("calibration_runs").get<int>();
  c.tolerance = config.at("tolerance").get<double>();
  c.max_bytes = config.at("max_bytes").get<double>();
}

// Values recorded in a result file's config, compared the way they were parsed: numbers
// within a relative 1e-9 (the file holds what the same text parsed to), lists element by
// element.
bool same_setting(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!same_setting(a[i], b[i])) return false;
    }
    return true;
  }
  return a == b;
}

// A recorded setting as a user would type it.
std::string show_setting(const std::string& key, const nlohmann::json& v) {
  const auto one = [&](const nlohmann::json& x) -> std::string {
    if (x.is_string()) return x.get<std::string>();
    if (key.ends_with("_s")) return format_duration(x.get<double>());
    if (key == "tolerance") return fmt::format("{:g}%", 100 * x.get<double>());
    if (key == "max_bytes") return fmt::format("{:.0f} bytes", x.get<double>());
    return x.dump();
  };
  if (!v.is_array()) return one(v);
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ",") + one(x);
  return out;
}

// --resume continues the sweep the file records. Repeating the sweep's options (the habit
// of re-running the same command with --resume added) is fine; an option whose value
// differs from the file's would mix two sweeps and is refused, naming both values.
void check_repeated_options(const NbcOptions& o, const bench::NbcConfig& given,
                            const bench::NbcConfig& recorded, const std::string& path) {
  const nlohmann::json mine = output::nbc_config_to_json(given);
  const nlohmann::json theirs = output::nbc_config_to_json(recorded);
  for (const SweepOption& opt : kSweepOptions) {
    if (!(o.*opt.field).has_value()) continue;
    const nlohmann::json& a = mine.at(opt.config_key);
    const nlohmann::json& b = theirs.at(opt.config_key);
    if (same_setting(a, b)) continue;
    throw UsageError(fmt::format(
        "{} {}: the sweep recorded in '{}' has {} {}, and --resume continues that sweep "
        "(repeat its value or leave the option out; start a new sweep to change it)",
        opt.name, *(o.*opt.field), path, opt.name, show_setting(opt.config_key, b)));
  }
}

void load_resume(NbcRun& run, const NbcOptions& o) {
  const std::string& path = o.resume;
  const nlohmann::json doc = output::read_result_file(path, "nbc", output::kNbcSchemaVersion);
  if (!doc.contains("points") || !doc.contains("config")) {
    throw UsageError(fmt::format("--resume: '{}' has no points or no config", path));
  }
  const bench::NbcConfig given = run.config;
  try {
    sweep_from_file(run.config, doc.at("config"));
    for (const auto& p : doc.at("points")) run.resumed.push_back(output::nbc_point_from_json(p));
    run.resumed_metadata = doc.at("metadata");
    run.resumed_wall_s = doc.value("timing", nlohmann::json::object()).value("wall_s", 0.0);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("--resume: '{}' is malformed ({})", path, e.what()));
  }
  check_repeated_options(o, given, run.config, path);
}

// A resumed file must come from the same kind of run, or its points would mix.
std::string resume_mismatch(const nlohmann::json& meta, const bench::RunContext& ctx) {
  if (meta.value("processes", -1) != ctx.size) {
    return fmt::format("it was measured with {} processes, this run has {}",
                       meta.value("processes", -1), ctx.size);
  }
  if (meta.value("mpi_library", "") != ctx.mpi_library) {
    return fmt::format("it was measured with '{}', this run uses '{}'",
                       meta.value("mpi_library", ""), ctx.mpi_library);
  }
  if (meta.value("threads", -1) != ctx.threads) {
    return fmt::format("it was measured with {} threads per rank, this run has {}",
                       meta.value("threads", -1), ctx.threads);
  }
  return "";
}

// Expected cost of a point, for the ETA: three phases per iteration plus calibration.
double weight(const bench::NbcPointKey& k, const bench::NbcConfig& c) {
  const double iteration = 2 * (k.target_comm_s + k.target_comp_s);
  return (c.iterations + c.warmup + 2.0 * c.calibration_runs) * iteration;
}

bool is_done(const std::vector<bench::NbcPointRecord>& done, const bench::NbcPointKey& key) {
  return std::any_of(done.begin(), done.end(),
                     [&](const bench::NbcPointRecord& p) { return p.key.same_as(key); });
}

}  // namespace

void add_nbc_command(CLI::App& app, NbcOptions& o) {
  CLI::App* nbc = app.add_subcommand(
      "nbc", "Overlap of nonblocking collectives with computation over a grid of times");
  nbc->add_option("--impl", o.impls,
                  "Whose collectives: mpi, overlap (liboverlap), or mpi,overlap to compare them "
                  "point by point (default mpi)");
  nbc->add_option("--progress", o.progress,
                  "liboverlap's progress policy: caller, shared or dedicated (default shared; "
                  "dedicated leaves one core free, see --dedicate-cores)");
  nbc->add_option(
      "--op", o.ops,
      "Collectives, comma-separated: " + bench::all_nbc_op_names() + ", or all (default ibcast)");
  nbc->add_option("--comm-times", o.comm_times,
                  "Target communication times: 1ms,4ms,16ms or a log2 range 1ms:64ms "
                  "(default 1ms:16ms)");
  nbc->add_option("--comp-times", o.comp_times,
                  "Target computation times, same forms (default 1ms:16ms)");
  nbc->add_option("--iterations", o.iterations, "Measured iterations per point (default 15)");
  nbc->add_option("--warmup", o.warmup, "Unrecorded iterations per point (default 2)");
  nbc->add_option("--calibration-runs", o.calibration_runs,
                  "Runs per calibration step, their median is used (default 5)");
  nbc->add_option("--tolerance", o.tolerance, "Calibration tolerance, 0.1 or 10% (default 10%)");
  nbc->add_option("--max-buffer", o.max_buffer,
                  "Largest send + receive buffers per rank, e.g. 512MiB (default 1GiB)");
  nbc->add_option("--threads", o.threads,
                  "Computation threads per rank (auto: one per core of the rank)")
      ->capture_default_str();
  nbc->add_option("--dedicate-cores", o.dedicate_cores,
                  "Leave this many of the rank's cores free for a progress thread")
      ->capture_default_str();
  nbc->add_option("--clock", o.clock, "Clock source: monotonic, monotonic_raw, mpi_wtime")
      ->capture_default_str();
  nbc->add_option("--patience", o.patience, "Clock sync min-RTT stop rule")->capture_default_str();
  nbc->add_option("--sync-span", o.sync_span, "Time between the two initial clock syncs")
      ->capture_default_str();
  nbc->add_option("--label", o.label, "Name of this run in reports (default: MPI + settings)");
  nbc->add_option("--output", o.output, "JSON results, rewritten after every point");
  nbc->add_option("--csv", o.csv, "CSV results, rewritten after every point");
  nbc->add_option("--resume", o.resume,
                  "Continue the sweep recorded in this JSON file, with its grid and settings; "
                  "sweep options given too must repeat the file's values (default output: the "
                  "same file)");
  nbc->add_option("--bar", o.bar, "Progress bar on stderr: auto (if a terminal), always, never")
      ->capture_default_str();
}

NbcRun validate(const NbcOptions& o) {
  NbcRun run;
  // A dedicated progress thread needs a core the computation leaves free.
  const bool dedicated = o.progress.value_or("") == "dedicated";
  const std::string dedicate = dedicated && o.dedicate_cores == "0" ? "1" : o.dedicate_cores;
  run.config = to_config(o, choose_threads(o.threads, dedicate));
  run.clock = clock::make_clock_source(o.clock);
  run.label = o.label;
  run.output = o.output.empty() ? o.resume : o.output;
  run.csv = o.csv;
  run.bar = parse_bar(o.bar);
  if (!o.resume.empty()) load_resume(run, o);
  check_output_path(run.output, "--output");
  check_output_path(run.csv, "--csv");
  return run;
}

int run_nbc_command(NbcRun& run, const std::string& command_line, int thread_level) {
  const auto started = std::chrono::steady_clock::now();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto& impls = run.config.impls;
  if (std::find(impls.begin(), impls.end(), bench::NbcImpl::overlap) != impls.end()) {
    if (int rc = start_liboverlap(run.config.progress); rc != 0) return rc;
  }
  bench::RunContext ctx =
      bench::collect_run_context(MPI_COMM_WORLD, std::string(run.clock->name()), command_line);
  ctx.environment = bench::mpi_environment();
  ctx.label = run.label.empty() ? bench::default_label(ctx.mpi_flavor, ctx.environment) : run.label;
  ctx.thread_level = bench::thread_level_name(thread_level);
  ctx.threads = run.config.threads;
  ctx.dedicated_cores = run.config.dedicated_cores;
  if (!run.resumed_metadata.is_null()) {
    // Every rank read the same file and knows the same context: they agree without talking.
    const std::string why = resume_mismatch(run.resumed_metadata, ctx);
    if (!why.empty()) {
      if (rank == 0) {
        const std::string line = "overlap-bench: --resume: cannot continue: " + why + "\n";
        std::fwrite(line.data(), 1, line.size(), stderr);
      }
      return kUsageExit;
    }
  }

  bench::NbcSweep sweep(MPI_COMM_WORLD, *run.clock, run.config);
  std::vector<bench::NbcPointRecord> points = run.resumed;
  const std::vector<bench::NbcPointKey> keys = sweep.points();
  double total = 0, done_weight = 0;
  int done_points = 0;
  for (const auto& k : keys) {
    total += weight(k, run.config);
    if (is_done(run.resumed, k)) {
      done_weight += weight(k, run.config);
      ++done_points;
    }
  }
  const int resumed_points = done_points;
  output::ProgressBar bar(std::cerr, rank == 0 && run.bar, total, static_cast<int>(keys.size()));
  const auto save = [&](bool complete) {
    if (rank != 0) return;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() +
        run.resumed_wall_s;
    const output::NbcRunSummary summary{complete, wall, sweep.calibration_s(),
                                        sweep.sync_quality()};
    if (!run.output.empty()) {
      output::write_json_file(run.output, output::nbc_to_json(ctx, run.config, points, summary));
    }
    if (!run.csv.empty()) output::write_text_file(run.csv, output::nbc_csv(points));
  };
  if (rank == 0) {
    output::print_nbc_header(std::cout, ctx);
    if (!run.resumed.empty()) {
      std::cout << "# resuming: " << done_points << " of " << keys.size()
                << " points already measured\n";
    }
    std::cout.flush();
  }
  for (const auto& key : keys) {
    if (is_done(run.resumed, key)) continue;
    bar.update(done_weight, done_points,
               fmt::format("{} {} x {}", bench::to_string(key.op),
                           format_duration(key.target_comm_s), format_duration(key.target_comp_s)));
    const bench::NbcPointRecord rec = sweep.measure(key);
    done_weight += weight(key, run.config);
    ++done_points;
    if (rank != 0) continue;
    points.push_back(rec);
    bar.finish();
    output::print_nbc_point(std::cout, rec);
    std::cout.flush();
    save(false);
  }
  bar.finish();
  save(true);
  if (rank == 0) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    std::cout << fmt::format("# {} points measured in {}, {} of it calibrating\n",
                             keys.size() - static_cast<std::size_t>(resumed_points),
                             format_duration(wall), format_duration(sweep.calibration_s()));
    if (!run.output.empty()) std::cout << "results written to " << run.output << '\n';
  }
  return 0;
}

}  // namespace overlap::apps
