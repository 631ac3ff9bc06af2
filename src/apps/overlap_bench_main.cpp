// overlap-bench: one MPI program, one subcommand per benchmark (command_table.hpp).
// Arguments are parsed and validated before MPI_Init, so bad input costs no MPI traffic and
// exits with code 2.
#include <mpi.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "apps/command_table.hpp"
#include "apps/launcher_rank.hpp"
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

std::string subcommand_names() {
  std::string names;
  for (const auto& e : overlap::apps::command_table())
    names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"overlap-bench: does MPI communication overlap computation on this machine?",
               "overlap-bench"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "overlap-bench " OVERLAP_VERSION);
  // CLI11 would only say "a subcommand is required"; name the word the user typed.
  const std::string first = argc > 1 ? argv[1] : "";
  std::unique_ptr<overlap::apps::Command> command;
  bool known = first.empty() || first[0] == '-';
  for (const auto& entry : overlap::apps::command_table()) {
    CLI::App* sub = app.add_subcommand(entry.name, entry.help);
    // Only the chosen subcommand gets its storage; the others are listed for --help.
    if (entry.name == first) {
      command = entry.make(*sub);
      known = true;
    } else {
      entry.make(*sub);
    }
  }
  if (!known) {
    return usage_error("'" + first + "' is not a subcommand; allowed: " + subcommand_names() +
                       " (see overlap-bench --help)");
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
  try {
    command->validate();
  } catch (const overlap::UsageError& e) {
    return usage_error(e.what());
  }
  const std::string command_line = join_arguments(argc, argv);
  if (!command->uses_mpi()) return command->run(command_line, 0);
  command->before_mpi();

  // The computing benchmarks ask for MPI_THREAD_MULTIPLE: MPICH starts its progress
  // thread (MPICH_ASYNC_PROGRESS=1) only at that level. The level obtained is recorded.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, command->thread_level(), &provided);
  int code = 0;
  try {
    code = command->run(command_line, provided);
  } catch (const std::exception& e) {
    std::cerr << "overlap-bench: error: " << e.what() << '\n';
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
