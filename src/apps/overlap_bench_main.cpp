// overlap-bench: one MPI program, one subcommand per benchmark. Arguments are parsed and
// validated before MPI_Init, so bad input costs no MPI traffic and exits with code 2.
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <thread>

#include "apps/impact_command.hpp"
#include "apps/latency_command.hpp"
#include "apps/launcher_rank.hpp"
#include "apps/nbc_command.hpp"
#include "apps/sync_command.hpp"
#include "base/usage_error.hpp"

namespace {

constexpr int kUsageExit = 2;

std::string join_arguments(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

int usage_error(const std::string& message) {
  if (overlap::apps::is_first_rank()) {
    // One write: a launcher's own messages must not land inside the line.
    const std::string line = "overlap-bench: " + message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  } else {
    // Let rank 0's line out before the launcher sees other ranks fail and aborts the job.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return kUsageExit;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"overlap-bench: does MPI communication overlap computation on this machine?",
               "overlap-bench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "overlap-bench " OVERLAP_VERSION);
  overlap::apps::SyncOptions sync;
  overlap::apps::add_sync_command(app, sync);
  overlap::apps::NbcOptions nbc;
  overlap::apps::add_nbc_command(app, nbc);
  overlap::apps::ImpactOptions impact;
  overlap::apps::add_impact_command(app, impact);
  overlap::apps::LatencyOptions latency;
  overlap::apps::add_latency_command(app, latency);

  // CLI11 would only say "a subcommand is required"; name the word the user typed.
  const std::string first = argc > 1 ? argv[1] : "";
  if (!first.empty() && first[0] != '-' && first != "sync" && first != "nbc" && first != "impact" &&
      first != "latency") {
    return usage_error("'" + first +
                       "' is not a subcommand; allowed: sync, nbc, impact, latency (see "
                       "overlap-bench --help)");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return overlap::apps::is_first_rank() ? app.exit(e) : 0;
  } catch (const CLI::CallForAllHelp& e) {
    return overlap::apps::is_first_rank() ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return overlap::apps::is_first_rank() ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    return usage_error(std::string(e.what()) + " (see overlap-bench --help)");
  }

  overlap::apps::SyncRun sync_run;
  overlap::apps::NbcRun nbc_run;
  overlap::apps::ImpactRun impact_run;
  overlap::apps::LatencyRun latency_run;
  try {
    if (first == "sync") sync_run = overlap::apps::validate(sync);
    if (first == "nbc") nbc_run = overlap::apps::validate(nbc);
    if (first == "impact") impact_run = overlap::apps::validate(impact);
    if (first == "latency") latency_run = overlap::apps::validate(latency);
  } catch (const overlap::UsageError& e) {
    return usage_error(e.what());
  }
  // r_MPI_impact's reference: the computation timed before MPI exists in the process.
  if (first == "impact") overlap::apps::run_impact_before_mpi(impact_run);

  // The computing benchmarks ask for MPI_THREAD_MULTIPLE: MPICH starts its progress
  // thread (MPICH_ASYNC_PROGRESS=1) only at that level. The level obtained is recorded.
  const int wanted = first == "sync" ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, wanted, &provided);
  const std::string command_line = join_arguments(argc, argv);
  int code = 0;
  try {
    if (first == "sync") code = overlap::apps::run_sync_command(sync_run, command_line);
    if (first == "nbc") code = overlap::apps::run_nbc_command(nbc_run, command_line, provided);
    if (first == "impact") {
      code = overlap::apps::run_impact_command(impact_run, command_line, provided);
    }
    if (first == "latency") {
      code = overlap::apps::run_latency_command(latency_run, command_line, provided);
    }
  } catch (const std::exception& e) {
    std::cerr << "overlap-bench: error: " << e.what() << '\n';
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
