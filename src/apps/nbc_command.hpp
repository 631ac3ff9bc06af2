// `overlap-bench nbc`: options, their validation (before MPI starts) and the sweep.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/compute_threads.hpp"
#include "bench/nbc_bench.hpp"
#include "clock/clock_source.hpp"

namespace overlap::apps {

// The sweep options are unset unless given: with --resume the sweep comes from the file,
// and an option given too must repeat the file's value (a different one would silently
// mix two sweeps, so it is refused).
struct NbcOptions {
  std::optional<std::string> impls;             // default mpi
  std::optional<std::string> progress;          // default shared
  std::optional<std::string> ops;               // default ibcast
  std::optional<std::string> comm_times;        // default 1ms:16ms
  std::optional<std::string> comp_times;        // default 1ms:16ms
  std::optional<std::string> iterations;        // default 15
  std::optional<std::string> warmup;            // default 2
  std::optional<std::string> calibration_runs;  // default 5
  std::optional<std::string> tolerance;         // default 10%
  std::optional<std::string> max_buffer;        // default 1GiB
  std::string threads = "auto";
  std::string dedicate_cores = "0";
  std::string clock = "monotonic";
  std::string patience = "100";
  std::string sync_span = "1s";
  std::string label;
  std::string output;
  std::string csv;
  std::string resume;
  std::string bar = "auto";
};

void add_nbc_command(CLI::App& app, NbcOptions& options);

struct NbcRun {
  bench::NbcConfig config;
  std::unique_ptr<clock::ClockSource> clock;
  std::string label;
  std::string output;  // JSON; the resume file when resuming without --output
  std::string csv;
  bool bar = false;
  std::vector<bench::NbcPointRecord> resumed;  // finished points from --resume
  nlohmann::json resumed_metadata;             // null when not resuming
  double resumed_wall_s = 0;
};

// Throws UsageError for any bad value, including an unreadable or foreign --resume file.
// Touches no MPI.
NbcRun validate(const NbcOptions& options);

// After MPI_Init. Returns the process exit code.
int run_nbc_command(NbcRun& run, const std::string& command_line, int thread_level);

}  // namespace overlap::apps
