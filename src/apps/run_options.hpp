// The options every benchmark run shares (threads, cores, clock, label, files, resume,
// progress bar), registered according to what the benchmark does, with their defaults
// written once here.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "bench/common/benchmark.hpp"
#include "clock/clock_source.hpp"

namespace overlap::apps {

// What CLI11 fills in.
struct RunOptionTexts {
  std::string threads = "auto";
  std::string dedicate_cores = "0";
  std::string clock = "monotonic";
  std::string label;
  std::string output;
  std::string csv;
  std::string resume;
  std::string bar = "auto";
};

void add_run_options(CLI::App& sub, RunOptionTexts& texts, const bench::BenchmarkTraits& traits);

// "--bar": auto (a terminal), always, never. Throws UsageError.
bool parse_bar(const std::string& text);

// "OPTION" help with its default appended: "(default 1ms:16ms)" or "(default none)".
std::string help_with_default(const std::string& help, const std::string& default_text);

}  // namespace overlap::apps
