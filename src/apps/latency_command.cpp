#include "apps/latency_command.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <iostream>
#include <vector>

#include "apps/collective_choices.hpp"
#include "apps/output_path.hpp"
#include "apps/overlap_session.hpp"
#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/run_context.hpp"
#include "output/latency_console.hpp"
#include "output/latency_json.hpp"
#include "output/result_json.hpp"

namespace overlap::apps {
namespace {

// Sizes are rounded down to whole elements when measured; one that holds no element at all
// would measure an empty message, so it is refused here, before MPI starts.
void check_sizes_hold_an_element(const bench::LatencyConfig& c) {
  for (bench::NbcOp op : c.ops) {
    if (op == bench::NbcOp::ibarrier) continue;
    const int element = bench::element_bytes(op);
    for (long bytes : c.sizes_bytes) {
      if (bytes >= element) continue;
      throw UsageError(fmt::format(
          "--sizes: {} B is less than one element of {} ({} B); allowed: sizes of at least {}B",
          bytes, bench::to_string(op), element, element));
    }
  }
}

// Like parse_count, but 0 (no warm-up) is allowed too, and the message says so.
int parse_warmup(const std::string& text) {
  if (text == "0") return 0;
  try {
    return parse_count(text, "--warmup", 1'000'000);
  } catch (const UsageError&) {
    throw UsageError(
        fmt::format("--warmup: '{}' is not allowed; expected an integer from 0 to 1000000", text));
  }
}

bool uses_liboverlap(const bench::LatencyConfig& c) {
  return std::find(c.impls.begin(), c.impls.end(), bench::NbcImpl::overlap) != c.impls.end();
}

}  // namespace

void add_latency_command(CLI::App& app, LatencyOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "latency",
      "Latency of a nonblocking collective waited for at once, MPI's and liboverlap's, over "
      "message sizes");
  cmd->add_option("--op", o.ops,
                  "Collectives, comma-separated: " + bench::all_nbc_op_names() + ", or all")
      ->capture_default_str();
  cmd->add_option("--sizes", o.sizes,
                  "Message sizes per rank (as in nbc): 64KiB,1MiB or a log2 range 64KiB:16MiB; "
                  "rounded down to whole elements (8 B for reductions)")
      ->capture_default_str();
  cmd->add_option("--impl", o.impls,
                  "Whose collectives: mpi, overlap (liboverlap) or both, measured in turn")
      ->capture_default_str();
  cmd->add_option("--progress", o.progress,
                  "liboverlap's progress policy: caller, shared or dedicated")
      ->capture_default_str();
  cmd->add_option("--iterations", o.iterations, "Measured iterations per op and size")
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Unrecorded iterations per op and size")
      ->capture_default_str();
  cmd->add_option("--label", o.label, "Name of this run in reports (default: MPI + settings)");
  cmd->add_option("--output", o.output, "JSON results, rewritten after every op and size");
  cmd->add_option("--csv", o.csv, "CSV results, rewritten after every op and size");
}

LatencyRun validate(const LatencyOptions& o) {
  LatencyRun run;
  bench::LatencyConfig& c = run.config;
  c.ops = parse_ops(o.ops);
  c.sizes_bytes = parse_byte_list(o.sizes, "--sizes");
  c.impls = parse_impls(o.impls);
  c.progress = parse_progress(o.progress);
  c.iterations = parse_count(o.iterations, "--iterations", 1'000'000);
  c.warmup = parse_warmup(o.warmup);
  check_sizes_hold_an_element(c);
  run.label = o.label;
  run.output = o.output;
  run.csv = o.csv;
  check_output_path(run.output, "--output");
  check_output_path(run.csv, "--csv");
  return run;
}

int run_latency_command(const LatencyRun& run, const std::string& command_line, int thread_level) {
  const double started = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bench::LatencyConfig& config = run.config;
  if (uses_liboverlap(config)) {
    if (int rc = start_liboverlap(config.progress); rc != 0) return rc;
  }
  bench::RunContext ctx = bench::collect_run_context(MPI_COMM_WORLD, "mpi_wtime", command_line);
  ctx.environment = bench::mpi_environment();
  ctx.label = run.label.empty() ? bench::default_label(ctx.mpi_flavor, ctx.environment) : run.label;
  ctx.thread_level = bench::thread_level_name(thread_level);
  // No computation runs here: threads and dedicated_cores stay 0.

  const std::vector<bench::LatencyKey> keys = bench::latency_points(config);
  std::vector<bench::LatencyPointRecord> records;
  const auto save = [&](bool complete) {
    if (rank != 0) return;
    if (!run.output.empty()) {
      output::write_json_file(run.output, output::latency_to_json(ctx, config, records, complete,
                                                                  MPI_Wtime() - started));
    }
    if (!run.csv.empty()) {
      output::write_text_file(run.csv, output::latency_csv(records, config.impls));
    }
  };
  if (rank == 0) {
    output::print_latency_header(std::cout, ctx, config);
    std::cout.flush();
  }
  for (const bench::LatencyKey& key : keys) {
    bench::LatencyPointRecord rec = bench::measure_latency(MPI_COMM_WORLD, config, key);
    if (rank != 0) continue;
    output::print_latency_point(std::cout, rec);
    std::cout.flush();
    records.push_back(std::move(rec));
    save(false);  // an interrupted run keeps every finished point
  }
  save(true);
  if (rank == 0) {
    std::cout << fmt::format("# {} (op, size) points measured in {}\n", keys.size(),
                             format_duration(MPI_Wtime() - started));
    if (!run.output.empty()) std::cout << "results written to " << run.output << '\n';
  }
  return 0;
}

}  // namespace overlap::apps
