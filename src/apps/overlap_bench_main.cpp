// overlap-bench: one MPI program, one subcommand per benchmark. Arguments are parsed and
// validated before MPI_Init, so bad input costs no MPI traffic and exits with code 2.
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>

#include "apps/launcher_rank.hpp"
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
  if (overlap::apps::is_first_rank()) std::cerr << "overlap-bench: " << message << '\n';
  return kUsageExit;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"overlap-bench: does MPI communication overlap computation on this machine?",
               "overlap-bench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "overlap-bench 0.1.0");
  overlap::apps::SyncOptions sync;
  overlap::apps::add_sync_command(app, sync);

  // CLI11 would only say "a subcommand is required"; name the word the user typed.
  if (argc > 1 && argv[1][0] != '-' && std::string(argv[1]) != "sync") {
    return usage_error("'" + std::string(argv[1]) +
                       "' is not a subcommand; allowed: sync (see overlap-bench --help)");
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

  overlap::apps::SyncRun run;
  try {
    run = overlap::apps::validate(sync);
  } catch (const overlap::UsageError& e) {
    return usage_error(e.what());
  }

  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = 0;
  try {
    code = overlap::apps::run_sync_command(run, join_arguments(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "overlap-bench: error: " << e.what() << '\n';
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
