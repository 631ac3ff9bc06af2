#include "apps/sync_command.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <iostream>

#include "apps/output_path.hpp"
#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "bench/run_context.hpp"
#include "bench/sync_bench.hpp"
#include "clock/clock_source.hpp"
#include "output/result_json.hpp"
#include "output/sync_console.hpp"
#include "output/sync_json.hpp"

namespace overlap::apps {
namespace {

clock::SyncScheme parse_scheme(const std::string& text) {
  if (text == "log") return clock::SyncScheme::log;
  if (text == "linear") return clock::SyncScheme::linear;
  throw UsageError(fmt::format("--scheme: '{}' is not a sync scheme; allowed: log, linear", text));
}

bench::SyncConfig to_config(const SyncOptions& o) {
  bench::SyncConfig c;
  c.estimator.patience = parse_count(o.patience, "--patience");
  c.passes = parse_count(o.passes, "--passes", 10000);
  if (c.passes < 2) {
    throw UsageError(
        fmt::format("--passes: '{}' is not allowed; drift needs at least 2 sync passes", o.passes));
  }
  c.span_s = parse_duration(o.span, "--span");
  if (c.span_s <= 0) {
    throw UsageError(
        fmt::format("--span: '{}' is not allowed; expected a positive duration "
                    "(the passes must be apart in time to see drift)",
                    o.span));
  }
  c.verify_after_s = parse_duration(o.verify_after, "--verify-after");
  c.barrier_iterations = parse_count(o.barrier_iterations, "--barrier-iterations", 10'000'000);
  c.model_scheme = parse_scheme(o.scheme);
  return c;
}

}  // namespace

void add_sync_command(CLI::App& app, SyncOptions& o) {
  CLI::App* sync = app.add_subcommand(
      "sync", "Synchronise the ranks' clocks (log and linear schemes) and verify the result");
  sync->add_option("--clock", o.clock, "Clock source: monotonic, monotonic_raw, mpi_wtime")
      ->capture_default_str();
  sync->add_option("--patience", o.patience,
                   "Min-RTT stop rule: exchanges without a new minimum before stopping")
      ->capture_default_str();
  sync->add_option("--passes", o.passes, "Sync passes spread over --span (>= 2, for drift)")
      ->capture_default_str();
  sync->add_option("--span", o.span, "Time from the first to the last sync pass")
      ->capture_default_str();
  sync->add_option("--verify-after", o.verify_after,
                   "Wait this long after the last pass, then measure the residual error")
      ->capture_default_str();
  sync->add_option("--barrier-iterations", o.barrier_iterations,
                   "Iterations of the barrier exit-skew measurement")
      ->capture_default_str();
  sync->add_option("--scheme", o.scheme, "Whose models are reported and used: log, linear")
      ->capture_default_str();
  sync->add_option("--output", o.output, "Write the results to this JSON file");
}

SyncRun validate(const SyncOptions& o) {
  SyncRun run{to_config(o), clock::make_clock_source(o.clock), o.output};
  check_output_path(run.output, "--output");
  return run;
}

int run_sync_command(const SyncRun& run, const std::string& command_line) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bench::RunContext ctx =
      bench::collect_run_context(MPI_COMM_WORLD, std::string(run.clock->name()), command_line);
  const bench::SyncRecord record = bench::run_sync(MPI_COMM_WORLD, *run.clock, run.config);
  if (rank != 0) return 0;
  output::print_sync(std::cout, ctx, record);
  if (!run.output.empty()) {
    output::write_json_file(run.output, output::sync_to_json(ctx, record));
    std::cout << "results written to " << run.output << '\n';
  }
  return 0;
}

}  // namespace overlap::apps
