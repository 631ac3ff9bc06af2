// `overlap-bench sync`: options, their validation (before MPI starts) and the run.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "bench/sync_bench.hpp"
#include "clock/clock_source.hpp"

namespace overlap::apps {

struct SyncOptions {
  std::string clock = "monotonic";
  std::string patience = "100";
  std::string passes = "11";
  std::string span = "10s";
  std::string verify_after = "10s";
  std::string barrier_iterations = "200";
  std::string scheme = "log";
  std::string output;
};

void add_sync_command(CLI::App& app, SyncOptions& options);

// What the options parse to: the run exactly as validated.
struct SyncRun {
  bench::SyncConfig config;
  std::unique_ptr<clock::ClockSource> clock;  // not read before MPI_Init
  std::string output;
};

// Throws UsageError for any bad value. Touches no MPI.
SyncRun validate(const SyncOptions& options);

// After MPI_Init. Returns the process exit code.
int run_sync_command(const SyncRun& run, const std::string& command_line);

}  // namespace overlap::apps
