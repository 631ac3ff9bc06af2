#include "apps/impact_command.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <iostream>

#include "apps/collective_choices.hpp"
#include "apps/compute_threads.hpp"
#include "apps/output_path.hpp"
#include "apps/overlap_session.hpp"
#include "base/duration.hpp"
#include "base/usage_error.hpp"
#include "base/value_lists.hpp"
#include "bench/run_context.hpp"
#include "output/nbc_console.hpp"
#include "output/nbc_json.hpp"
#include "output/result_json.hpp"

namespace overlap::apps {

void add_impact_command(CLI::App& app, ImpactOptions& o) {
  CLI::App* impact = app.add_subcommand(
      "impact", "How much an idle, initialised MPI slows computation (r_MPI_impact)");
  impact
      ->add_option("--comp-times", o.comp_times,
                   "Computation times: 16ms,64ms or a log2 range 8ms:128ms")
      ->capture_default_str();
  impact->add_option("--runs", o.runs, "Runs per size and phase (their median is used)")
      ->capture_default_str();
  impact->add_option("--tolerance", o.tolerance, "Calibration tolerance (0.1 or 10%)")
      ->capture_default_str();
  impact->add_option("--max-buffer", o.max_buffer, "Largest matrices per rank (e.g. 512MiB)")
      ->capture_default_str();
  impact->add_option("--threads", o.threads, "Computation threads per rank (auto: one per core)")
      ->capture_default_str();
  impact
      ->add_option("--dedicate-cores", o.dedicate_cores,
                   "Leave this many of the rank's cores free for a progress thread")
      ->capture_default_str();
  impact->add_option("--progress", o.progress,
                     "Also start liboverlap's progress engine (caller, shared or dedicated), "
                     "idle, to measure what its presence costs");
  impact->add_option("--label", o.label, "Name of this run in reports (default: MPI + settings)");
  impact->add_option("--output", o.output, "Write the results to this JSON file");
}

ImpactRun validate(const ImpactOptions& o) {
  ImpactRun run;
  if (!o.progress.empty()) parse_progress(o.progress);
  const bool dedicated = o.progress == "dedicated";
  const ThreadChoice threads =
      choose_threads(o.threads, dedicated && o.dedicate_cores == "0" ? "1" : o.dedicate_cores);
  run.progress = o.progress;
  run.config.comp_times_s = parse_duration_list(o.comp_times, "--comp-times");
  run.config.runs = parse_count(o.runs, "--runs", 100'000);
  run.config.tolerance = parse_fraction(o.tolerance, "--tolerance");
  run.config.max_bytes = parse_bytes(o.max_buffer, "--max-buffer");
  run.config.threads = threads.threads;
  run.dedicated_cores = threads.dedicated_cores;
  run.label = o.label;
  run.output = o.output;
  check_output_path(run.output, "--output");
  return run;
}

void run_impact_before_mpi(ImpactRun& run) {
  run.gemm = std::make_unique<compute::GemmWorkload>(run.config.threads);
  run.samples = bench::impact_before_mpi(run.config, *run.gemm);
}

int run_impact_command(ImpactRun& run, const std::string& command_line, int thread_level) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (!run.progress.empty()) {
    if (int rc = start_liboverlap(run.progress); rc != 0) return rc;
  }
  bench::RunContext ctx = bench::collect_run_context(MPI_COMM_WORLD, "monotonic", command_line);
  ctx.environment = bench::mpi_environment();
  ctx.label = run.label.empty() ? bench::default_label(ctx.mpi_flavor, ctx.environment) : run.label;
  if (run.label.empty() && !run.progress.empty()) ctx.label += " + liboverlap " + run.progress;
  ctx.thread_level = bench::thread_level_name(thread_level);
  ctx.threads = run.config.threads;
  ctx.dedicated_cores = run.dedicated_cores;
  bench::impact_with_mpi(MPI_COMM_WORLD, run.config, *run.gemm, run.samples);
  const std::vector<bench::ImpactPoint> points = bench::gather_impact(MPI_COMM_WORLD, run.samples);
  if (rank != 0) return 0;
  output::print_impact(std::cout, ctx, points);
  if (!run.output.empty()) {
    output::write_json_file(run.output, output::impact_to_json(ctx, run.config, points));
    std::cout << "results written to " << run.output << '\n';
  }
  return 0;
}

}  // namespace overlap::apps
