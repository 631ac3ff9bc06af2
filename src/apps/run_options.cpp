#include "apps/run_options.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include "base/usage_error.hpp"

namespace overlap::apps {

std::string help_with_default(const std::string& help, const std::string& default_text) {
  return help + " (default " + (default_text.empty() ? "none" : default_text) + ")";
}

void add_run_options(CLI::App& sub, RunOptionTexts& t, const bench::BenchmarkTraits& traits) {
  const auto add = [&](const char* name, std::string& value, const std::string& help) {
    sub.add_option(name, value, help_with_default(help, value));
  };
  if (traits.computes) {
    add("--threads", t.threads, "Computation threads per rank (auto: one per physical core)");
    add("--dedicate-cores", t.dedicate_cores,
        "Leave this many of the rank's cores free for a progress thread");
  }
  if (traits.global_clock)
    add("--clock", t.clock, "Clock source: monotonic, monotonic_raw, mpi_wtime");
  add("--label", t.label, "Name of this run in reports (none: MPI + notable settings)");
  add("--output", t.output, "JSON results, rewritten after every point");
  add("--csv", t.csv, "CSV results (the points' flat fields), rewritten after every point");
  if (traits.resumable) {
    add("--resume", t.resume,
        "Continue the run recorded in this JSON file with its settings (default output: the "
        "same file)");
    add("--bar", t.bar, "Progress bar on stderr: auto (if a terminal), always, never");
  }
}

bool parse_bar(const std::string& text) {
  if (text == "always") return true;
  if (text == "never") return false;
  if (text == "auto") return isatty(STDERR_FILENO) == 1;
  throw UsageError(fmt::format("--bar: '{}' is not allowed; allowed: auto, always, never", text));
}

}  // namespace overlap::apps
