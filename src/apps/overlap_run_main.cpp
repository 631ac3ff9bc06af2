// overlap-run: runs an unmodified MPI program with its blocking point-to-point calls
// turned into background transfers (liboverlap-intercept.so, docs/overlap-run.md).
//   mpiexec -n 4 overlap-run [options] -- ./app args      (per rank: any launcher)
//   overlap-run [options] -- mpiexec -n 4 ./app args      (it tells the launcher)
// Options are validated before anything starts: one line naming the bad value, exit 2.
#include <unistd.h>

#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "apps/launcher_rank.hpp"
#include "apps/output_path.hpp"
#include "base/usage_error.hpp"
#include "intercept/launch/launch_plan.hpp"
#include "intercept/launch/settings.hpp"

namespace {

namespace fs = std::filesystem;
using namespace overlap::intercept;

constexpr int kUsageExit = 2;
constexpr const char* kShimName = "liboverlap-intercept.so";

int usage_error(const std::string& message) {
  if (overlap::apps::is_first_rank()) {
    const std::string line = "overlap-run: " + message + "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  } else {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  return kUsageExit;
}

// The shim next to the installed library directory, or in the build tree; an explicit
// OVERLAP_INTERCEPT_LIBRARY wins.
std::string find_shim() {
  if (const char* explicit_path = std::getenv("OVERLAP_INTERCEPT_LIBRARY")) {
    if (!fs::exists(explicit_path)) {
      throw overlap::UsageError(std::string("OVERLAP_INTERCEPT_LIBRARY: '") + explicit_path +
                                "' does not exist");
    }
    return fs::absolute(explicit_path).string();
  }
  const fs::path self = fs::read_symlink("/proc/self/exe");
  for (const fs::path& candidate : {self.parent_path() / OVERLAP_BIN_TO_LIB / kShimName,
                                    self.parent_path() / ".." / "intercept" / kShimName}) {
    if (fs::exists(candidate)) return fs::weakly_canonical(candidate).string();
  }
  throw overlap::UsageError(std::string("cannot find ") + kShimName + " next to " + self.string() +
                            " (set OVERLAP_INTERCEPT_LIBRARY)");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "overlap-run: runs an MPI program with its blocking MPI_Send/MPI_Recv/MPI_Sendrecv "
      "turned into background transfers that complete when the program touches the buffer, "
      "and its own nonblocking calls progressed in the background.\n"
      "  mpiexec -n 4 overlap-run [options] -- ./app args\n"
      "  overlap-run [options] -- mpiexec -n 4 ./app args",
      "overlap-run"};
  app.set_version_flag("--version", "overlap-run " OVERLAP_VERSION);
  app.prefix_command();
  std::string policy, min_size, defer, report, partitioned, collectives, place;
  bool off = false;
  app.add_option("--progress", policy,
                 "who makes transfers progress: auto (default: dedicated where a core is free "
                 "for it, else shared), caller, shared, dedicated [OVERLAP_PROGRESS]");
  app.add_option("--min-size", min_size,
                 "smallest message worth deferring, e.g. 64KiB (default), 0 for all "
                 "[OVERLAP_INTERCEPT_MIN_SIZE]");
  app.add_option("--defer", defer,
                 "call families to defer: all (default), none, or a list of send, rsend, recv, "
                 "sendrecv, collectives (the blocking ones) [OVERLAP_INTERCEPT_DEFER]");
  app.add_option("--report", report,
                 "write a JSON report per call site at MPI_Finalize (and a summary on stderr) "
                 "[OVERLAP_INTERCEPT_REPORT]");
  app.add_option("--partitioned", partitioned,
                 "the program's own MPI_Psend_init family: overlap (liboverlap's partitioned "
                 "layer, early-bird transfer; default where MPI has that API) or mpi (MPI's own) "
                 "[OVERLAP_INTERCEPT_PARTITIONED]");
  app.add_option("--collectives", collectives,
                 "the program's own nonblocking collectives (MPI_Ibcast, MPI_Iallreduce, "
                 "MPI_Ialltoall and six more): overlap (liboverlap's, progressed in the "
                 "background; default) or mpi (MPI's own) [OVERLAP_INTERCEPT_COLLECTIVES]");
  app.add_option("--place", place,
                 "how a received message reaches the buffer: move (default: its pages are "
                 "moved into place where that is safe, docs/overlap-run.md, else copied) or "
                 "copy (always copied) [OVERLAP_INTERCEPT_PLACE]");
  app.add_flag("--off", off,
               "preload but intercept nothing (the same run without overlap) "
               "[OVERLAP_INTERCEPT=off]");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return overlap::apps::is_first_rank() ? app.exit(e) : 0;
  } catch (const CLI::CallForVersion& e) {
    return overlap::apps::is_first_rank() ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    return usage_error(std::string(e.what()) + " (see overlap-run --help)");
  }
  std::vector<std::string> command = app.remaining();
  if (!command.empty() && command.front() == "--") {
    command.erase(command.begin());
  } else if (!command.empty() && command.front().starts_with("-")) {
    // Everything from the first non-option on is the command: a misspelled option ends up
    // there and would otherwise be reported as a program that cannot be run.
    return usage_error(
        "'" + command.front() +
        "' is not an option of overlap-run (allowed: --progress, --min-size, "
        "--defer, --report, --partitioned, --collectives, --place, --off, --help, --version; the "
        "program follows --)");
  }
  if (command.empty()) {
    return usage_error(
        "no program to run; usage: overlap-run [options] -- PROGRAM [ARGS] "
        "(see overlap-run --help)");
  }

  Settings settings;
  std::string shim;
  try {
    settings = settings_from_environment();  // the environment's values are the defaults
    if (!policy.empty()) settings.policy = parse_policy(policy, "--progress");
    if (!min_size.empty()) settings.min_bytes = parse_min_size(min_size, "--min-size");
    if (!defer.empty()) settings.families = parse_families(defer, "--defer");
    if (!partitioned.empty())
      settings.partitioned_overlap = parse_partitioned(partitioned, "--partitioned");
    if (!collectives.empty())
      settings.collectives_overlap = parse_collectives(collectives, "--collectives");
    if (!place.empty()) settings.move_pages = parse_place(place, "--place");
    if (off) settings.enabled = false;
    if (!report.empty()) {
      overlap::apps::check_output_path(report, "--report");
      settings.report = fs::absolute(report).string();
    } else if (!settings.report.empty()) {
      // The environment's path is checked as early: not only at MPI_Finalize, on every rank.
      overlap::apps::check_output_path(settings.report, "OVERLAP_INTERCEPT_REPORT");
      settings.report = fs::absolute(settings.report).string();
    }
    shim = find_shim();
  } catch (const overlap::UsageError& e) {
    return usage_error(e.what());
  }

  std::map<std::string, std::string> env = environment_of(settings);
  const char* existing = std::getenv("LD_PRELOAD");
  env["LD_PRELOAD"] = merged_preload(existing ? existing : "", shim);
  const LaunchPlan plan =
      plan_launch(command, launcher_kind(command.front(), OVERLAP_MPI_FLAVOR), env);
  for (const auto& [name, value] : plan.set_env) setenv(name.c_str(), value.c_str(), 1);
  std::vector<char*> args;
  for (const std::string& a : plan.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execvp(args[0], args.data());
  return usage_error("cannot run '" + plan.argv[0] + "': " + std::strerror(errno));
}
