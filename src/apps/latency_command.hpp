// `overlap-bench latency`: options, their validation (before MPI starts) and the run.
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "bench/latency_bench.hpp"

namespace overlap::apps {

struct LatencyOptions {
  std::string ops = "ibcast,iallreduce,ialltoall";
  std::string sizes = "64KiB:16MiB";
  std::string impls = "mpi,overlap";
  std::string progress = "shared";
  std::string iterations = "20";
  std::string warmup = "3";
  std::string label;
  std::string output;
  std::string csv;
};

void add_latency_command(CLI::App& app, LatencyOptions& options);

struct LatencyRun {
  bench::LatencyConfig config;
  std::string label;
  std::string output;
  std::string csv;
};

// Throws UsageError for any bad value. Touches no MPI.
LatencyRun validate(const LatencyOptions& options);

// After MPI_Init. Returns the process exit code.
int run_latency_command(const LatencyRun& run, const std::string& command_line, int thread_level);

}  // namespace overlap::apps
