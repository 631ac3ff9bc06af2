// `overlap-bench impact`: options, validation, the half before MPI_Init and the half after.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "bench/impact_bench.hpp"
#include "compute/gemm_workload.hpp"

namespace overlap::apps {

struct ImpactOptions {
  std::string comp_times = "8ms:128ms";
  std::string runs = "11";
  std::string tolerance = "10%";
  std::string max_buffer = "1GiB";
  std::string threads = "auto";
  std::string dedicate_cores = "0";
  std::string progress;  // empty: liboverlap not started; else its policy
  std::string label;
  std::string output;
};

void add_impact_command(CLI::App& app, ImpactOptions& options);

struct ImpactRun {
  bench::ImpactConfig config;
  int dedicated_cores = 0;
  std::string progress;
  std::string label;
  std::string output;
  std::unique_ptr<compute::GemmWorkload> gemm;
  std::vector<bench::ImpactSample> samples;  // filled before MPI_Init
};

// Throws UsageError for any bad value. Touches no MPI.
ImpactRun validate(const ImpactOptions& options);
// Before MPI_Init: calibrate and time the computation with no MPI in the process.
void run_impact_before_mpi(ImpactRun& run);
// After MPI_Init. Returns the process exit code.
int run_impact_command(ImpactRun& run, const std::string& command_line, int thread_level);

}  // namespace overlap::apps
